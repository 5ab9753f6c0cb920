package snmpwatch

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gosnmp/gosnmp"

	"github.com/quadrant-bench/quadrant/executor/watch"
)

// Machine is what an agent says of its host: HOST-RESOURCES-MIB's processors and memory, and
// SNMPv2-MIB's sysDescr and sysName.
type Machine = watch.Machine

const (
	oidSysDescr      = ".1.3.6.1.2.1.1.1.0"
	oidSysName       = ".1.3.6.1.2.1.1.5.0"
	oidHrMemorySize  = ".1.3.6.1.2.1.25.2.2.0"   // KBytes
	oidHrProcFrwID   = ".1.3.6.1.2.1.25.3.3.1.1" // hrProcessorFrwID: one row per processor, indexed by hrDeviceIndex (hrProcessorLoad has none until the agent sampled for a minute)
	oidHrDeviceDescr = ".1.3.6.1.2.1.25.3.2.1.3"
)

// Machine reads the agent's host facts once (after Start); what the agent does not have stays
// empty, and an error says the agent could not be asked at all.
func (s *Sampler) Machine(ctx context.Context) (Machine, error) {
	var m Machine
	if s.g == nil {
		return m, errors.New("sampler not started")
	}
	s.g.Context = ctx
	defer func() { s.g.Context = context.Background() }()
	pkt, err := s.g.Get([]string{oidSysDescr, oidSysName, oidHrMemorySize})
	if err != nil {
		return m, fmt.Errorf("snmp %s: %w", s.cfg.Address, err)
	}
	for _, p := range pkt.Variables {
		switch normOID(p.Name) {
		case oidSysDescr:
			m.Description = text(p)
		case oidSysName:
			m.Hostname = text(p)
		case oidHrMemorySize:
			if kb, ok := number(p); ok && kb > 0 {
				m.MemoryBytes = uint64(kb) * 1024
			}
		}
	}
	m.Kernel = kernelOf(m.Description)
	var rows []gosnmp.SnmpPDU
	if s.g.Version == gosnmp.Version1 {
		rows, err = s.g.WalkAll(oidHrProcFrwID)
	} else {
		rows, err = s.g.BulkWalkAll(oidHrProcFrwID)
	}
	if err != nil || len(rows) == 0 {
		return m, nil // an agent without HOST-RESOURCES-MIB's processors
	}
	m.CPUs = len(rows)
	idx := strings.TrimPrefix(normOID(rows[0].Name), oidHrProcFrwID+".")
	if pkt, err := s.g.Get([]string{oidHrDeviceDescr + "." + idx}); err == nil && len(pkt.Variables) == 1 {
		d := text(pkt.Variables[0])
		if _, model, ok := strings.Cut(d, ": "); ok {
			d = model
		}
		m.CPUModel = strings.TrimSpace(d)
	}
	return m, nil
}

// text is an OctetString's value, "" for anything else (noSuchObject).
func text(p gosnmp.SnmpPDU) string {
	if b, ok := p.Value.([]byte); ok {
		return strings.TrimSpace(string(b))
	}
	return ""
}

// kernelOf is "Linux 6.1.0-18-amd64" of net-snmp's Linux sysDescr ("Linux NAME RELEASE #..."),
// else the sysDescr as it is.
func kernelOf(descr string) string {
	f := strings.Fields(descr)
	if len(f) >= 3 && f[0] == "Linux" {
		return "Linux " + f[2]
	}
	return descr
}
