// Package snmpwatch samples host metrics over SNMP (v1, v2c, v3) from a net-snmp agent (UCD-SNMP-MIB): load,
// CPU utilisation from raw tick counters, memory, and custom OIDs.
package snmpwatch

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/gosnmp/gosnmp"
	"github.com/quadrant-bench/quadrant/executor/watch"
)

// Config is one agent and what to read from it.
type Config struct {
	// Address is host or host:port (default port 161).
	Address string
	// Version is "1", "2c" (default) or "3".
	Version string
	// Community for v1/v2c (default "public").
	Community string
	// v3: the security level follows from what is set: no AuthPassword = noAuthNoPriv, AuthPassword =
	// authNoPriv, AuthPassword and PrivPassword = authPriv. Protocols default to SHA and AES.
	User         string
	AuthProtocol string // MD5, SHA, SHA224, SHA256, SHA384, SHA512
	AuthPassword string
	PrivProtocol string // DES, AES, AES192, AES256, AES192C, AES256C
	PrivPassword string
	// Metrics: named metrics (Name only) and custom ones (Name and OID). Empty: DefaultMetrics.
	Metrics []Metric
	// Timeout per request (default 500ms) and Retries (default 1): a tick must not wait on a dead agent.
	Timeout time.Duration
	Retries int
}

// Metric is one series: a named metric (OID empty) or a custom OID read as a gauge, or as a per-second rate
// when Counter is set. (The SNMP type does not say: net-snmp reports memSysAvail, a gauge, as Counter64.)
type Metric struct {
	Name    string
	OID     string
	Counter bool
}

// Named metrics.
const (
	Load1     = "load1"
	Load5     = "load5"
	Load15    = "load15"
	CPUUtil   = "cpu_util"
	CPUUser   = "cpu_user"
	CPUSystem = "cpu_system"
	CPUIOWait = "cpu_iowait"
	MemTotal  = "mem_total"
	MemAvail  = "mem_avail"
	// One column per disk (UCD-DISKIO-MIB) or network interface (IF-MIB), listed by a walk at Start.
	DiskReadKBs  = watch.HostDiskReadKB
	DiskWriteKBs = watch.HostDiskWrite
	DiskReads    = watch.HostDiskReads
	DiskWrites   = watch.HostDiskWrites
	NetRxKBs     = watch.HostNetRxKB
	NetTxKBs     = watch.HostNetTxKB
)

// UCD-DISKIO-MIB diskIOTable and IF-MIB columns; the table index follows.
const (
	oidDiskIODevice   = ".1.3.6.1.4.1.2021.13.15.1.1.2"
	oidDiskIONRead    = ".1.3.6.1.4.1.2021.13.15.1.1.3"  // Counter32 bytes
	oidDiskIONWritten = ".1.3.6.1.4.1.2021.13.15.1.1.4"  // Counter32 bytes
	oidDiskIOReads    = ".1.3.6.1.4.1.2021.13.15.1.1.5"  // Counter32
	oidDiskIOWrites   = ".1.3.6.1.4.1.2021.13.15.1.1.6"  // Counter32
	oidDiskIONReadX   = ".1.3.6.1.4.1.2021.13.15.1.1.12" // Counter64 bytes
	oidDiskIONWrittnX = ".1.3.6.1.4.1.2021.13.15.1.1.13" // Counter64 bytes
	oidIfDescr        = ".1.3.6.1.2.1.2.2.1.2"
	oidIfInOctets     = ".1.3.6.1.2.1.2.2.1.10" // Counter32
	oidIfOutOctets    = ".1.3.6.1.2.1.2.2.1.16" // Counter32
	oidIfName         = ".1.3.6.1.2.1.31.1.1.1.1"
	oidIfHCInOctets   = ".1.3.6.1.2.1.31.1.1.1.6"  // Counter64
	oidIfHCOutOctets  = ".1.3.6.1.2.1.31.1.1.1.10" // Counter64
)

// DefaultMetrics are watched when the plan lists none.
var DefaultMetrics = []Metric{
	{Name: Load1}, {Name: Load5}, {Name: Load15}, {Name: CPUUtil}, {Name: CPUUser}, {Name: CPUSystem},
	{Name: CPUIOWait}, {Name: MemTotal}, {Name: MemAvail},
}

// UCD-SNMP-MIB and MIB-2 OIDs (REFERENCE.md).
const (
	oidSysUpTime   = ".1.3.6.1.2.1.1.3.0"
	oidLoadInt     = ".1.3.6.1.4.1.2021.10.1.5." // laLoadInt.N: load x 100
	oidMemTotal    = ".1.3.6.1.4.1.2021.4.5.0"   // memTotalReal, kB
	oidMemAvail    = ".1.3.6.1.4.1.2021.4.6.0"   // memAvailReal, kB: MemFree
	oidMemSysAvail = ".1.3.6.1.4.1.2021.4.27.0"  // memSysAvail, kB: MemAvailable (net-snmp 5.9+)
)

// Raw CPU tick counters (Counter32, all CPUs, centiseconds), in the order of the ticks array.
var cpuOIDs = []string{
	".1.3.6.1.4.1.2021.11.50.0", // user
	".1.3.6.1.4.1.2021.11.51.0", // nice
	".1.3.6.1.4.1.2021.11.52.0", // system (without irq/softirq on Linux, checked against /proc/stat)
	".1.3.6.1.4.1.2021.11.53.0", // idle
	".1.3.6.1.4.1.2021.11.54.0", // wait
	".1.3.6.1.4.1.2021.11.56.0", // interrupt
	".1.3.6.1.4.1.2021.11.61.0", // softirq
	".1.3.6.1.4.1.2021.11.64.0", // steal
}

const (
	tUser = iota
	tNice
	tSystem
	tIdle
	tWait
	tIRQ
	tSoftIRQ
	tSteal
	nTicks
)

func (c Config) validate() error {
	if strings.TrimSpace(c.Address) == "" {
		return fmt.Errorf("snmp: address is required (host or host:port)")
	}
	if _, _, err := splitAddress(c.Address); err != nil {
		return err
	}
	if _, err := parseVersion(c.Version); err != nil {
		return err
	}
	if c.Version == "3" {
		if c.User == "" {
			return fmt.Errorf("snmp %s: version 3 needs user", c.Address)
		}
		if c.PrivPassword != "" && c.AuthPassword == "" {
			return fmt.Errorf("snmp %s: priv_password needs auth_password too (SNMPv3 has no privacy without authentication)", c.Address)
		}
		for field, pw := range map[string]string{"auth_password": c.AuthPassword, "priv_password": c.PrivPassword} {
			if pw != "" && len(pw) < 8 {
				return fmt.Errorf("snmp %s: %s must be at least 8 characters (RFC 3414)", c.Address, field)
			}
		}
		if _, err := authProtocol(c.AuthProtocol); err != nil {
			return fmt.Errorf("snmp %s: %w", c.Address, err)
		}
		if _, err := privProtocol(c.PrivProtocol); err != nil {
			return fmt.Errorf("snmp %s: %w", c.Address, err)
		}
	}
	seen := map[string]bool{}
	for i, m := range c.Metrics {
		if m.Name == "" {
			return fmt.Errorf("snmp %s: metrics[%d]: name is required", c.Address, i)
		}
		if seen[m.Name] {
			return fmt.Errorf("snmp %s: metric %q is listed twice", c.Address, m.Name)
		}
		seen[m.Name] = true
		if m.OID == "" {
			if !isNamed(m.Name) {
				return fmt.Errorf("snmp %s: unknown metric %q: use one of %s, or give it an OID ({%s: .1.3.6...})", c.Address, m.Name, namedList(), m.Name)
			}
			continue
		}
		if err := checkOID(m.OID); err != nil {
			return fmt.Errorf("snmp %s: metric %s: %w", c.Address, m.Name, err)
		}
	}
	return nil
}

// NamedMetrics are every metric known by name: the defaults and the per-device ones.
var NamedMetrics = append(append([]Metric{}, DefaultMetrics...),
	Metric{Name: DiskReadKBs}, Metric{Name: DiskWriteKBs}, Metric{Name: DiskReads}, Metric{Name: DiskWrites},
	Metric{Name: NetRxKBs}, Metric{Name: NetTxKBs})

func isNamed(n string) bool {
	for _, m := range NamedMetrics {
		if m.Name == n {
			return true
		}
	}
	return false
}

func namedList() string {
	var s []string
	for _, m := range NamedMetrics {
		s = append(s, m.Name)
	}
	return strings.Join(s, ", ")
}

func checkOID(oid string) error {
	s := strings.TrimPrefix(oid, ".")
	parts := strings.Split(s, ".")
	if len(parts) < 2 {
		return fmt.Errorf("OID %q: expected numeric dotted form like .1.3.6.1.4.1.2021.10.1.3.1 (MIB names are not resolved)", oid)
	}
	for _, p := range parts {
		if _, err := strconv.ParseUint(p, 10, 32); err != nil {
			return fmt.Errorf("OID %q: expected numeric dotted form like .1.3.6.1.4.1.2021.10.1.3.1 (MIB names are not resolved)", oid)
		}
	}
	return nil
}

func normOID(oid string) string {
	if strings.HasPrefix(oid, ".") {
		return oid
	}
	return "." + oid
}

func parseVersion(v string) (gosnmp.SnmpVersion, error) {
	switch v {
	case "1":
		return gosnmp.Version1, nil
	case "", "2c", "2":
		return gosnmp.Version2c, nil
	case "3":
		return gosnmp.Version3, nil
	}
	return 0, fmt.Errorf("snmp: unknown version %q: use 1, 2c or 3", v)
}

func authProtocol(p string) (gosnmp.SnmpV3AuthProtocol, error) {
	switch strings.ToUpper(strings.ReplaceAll(p, "-", "")) {
	case "", "SHA", "SHA1":
		return gosnmp.SHA, nil
	case "MD5":
		return gosnmp.MD5, nil
	case "SHA224":
		return gosnmp.SHA224, nil
	case "SHA256":
		return gosnmp.SHA256, nil
	case "SHA384":
		return gosnmp.SHA384, nil
	case "SHA512":
		return gosnmp.SHA512, nil
	}
	return 0, fmt.Errorf("unknown auth_protocol %q: use MD5, SHA, SHA224, SHA256, SHA384 or SHA512", p)
}

func privProtocol(p string) (gosnmp.SnmpV3PrivProtocol, error) {
	switch strings.ToUpper(strings.ReplaceAll(p, "-", "")) {
	case "", "AES", "AES128":
		return gosnmp.AES, nil
	case "DES":
		return gosnmp.DES, nil
	case "AES192":
		return gosnmp.AES192, nil
	case "AES256":
		return gosnmp.AES256, nil
	case "AES192C":
		return gosnmp.AES192C, nil
	case "AES256C":
		return gosnmp.AES256C, nil
	}
	return 0, fmt.Errorf("unknown priv_protocol %q: use DES, AES, AES192, AES256, AES192C or AES256C", p)
}

func splitAddress(addr string) (string, uint16, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		// No port given (or a bare IPv6 address).
		return strings.Trim(addr, "[]"), 161, nil
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil || p == 0 {
		return "", 0, fmt.Errorf("snmp: address %q: bad port %q", addr, port)
	}
	return host, uint16(p), nil
}
