package snmpwatch

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gosnmp/gosnmp"
	"github.com/quadrant-bench/quadrant/executor/watch"
)

// Sampler reads one agent once per tick with a single GET of every OID it needs. Columns are named
// host.NAME, and host.NAME.DEVICE for disks and network interfaces, as from every host source.
//
// Units: load as the agent's load average; cpu_* in percent of all CPUs' time over the last refresh of the
// agent's tick counters; mem_total and mem_avail in MiB.
type Sampler struct {
	cfg     Config
	g       *gosnmp.GoSNMP
	cols    []watch.Column
	metrics []Metric // aligned with cols
	oids    []string
	needCPU bool

	// MemSource says where mem_avail comes from, known after the first answer: "memSysAvail" (MemAvailable,
	// what the kernel can give without swapping) or "memAvailReal" (MemFree, on agents older than 5.9).
	MemSource string

	cpu      cpuState
	uptime   uint64 // sysUpTime of the last answer, to tell an agent restart from a counter wrap
	haveUp   bool
	customs  []custom // aligned with cols (zero for named metrics)
	devs     []devCol // aligned with cols (zero for all but disk and network columns)
	last     []float64
	outage   watch.Outage
	security string // e.g. "v3 authPriv SHA/AES user quser": for messages, without secrets
}

// devCol is a per-device column: the counter's OID with its table index, and the unit to KB.
type devCol struct {
	oid   string
	scale float64
	rate  watch.SpanRate
}

type custom struct {
	rate   watch.Rate
	prev   uint64
	have   bool
	offset float64 // 2^32 per observed Counter32 wrap
}

// New validates the configuration; nothing is sent until Start.
func New(cfg Config) (*Sampler, error) {
	if len(cfg.Metrics) == 0 {
		cfg.Metrics = DefaultMetrics
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 500 * time.Millisecond
	}
	if cfg.Retries <= 0 {
		cfg.Retries = 1
	}
	if cfg.Community == "" {
		cfg.Community = "public"
	}
	if cfg.Version == "" || cfg.Version == "2" {
		cfg.Version = "2c"
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	s := &Sampler{cfg: cfg, metrics: cfg.Metrics}
	oids := []string{oidSysUpTime}
	add := func(o string) {
		for _, x := range oids {
			if x == o {
				return
			}
		}
		oids = append(oids, o)
	}
	var metrics []Metric
	for _, m := range cfg.Metrics {
		if m.OID == "" && (watch.PerDisk(m.Name) || watch.PerInterface(m.Name)) {
			continue // columns per device, once Start listed them
		}
		metrics = append(metrics, m)
		kind := watch.Gauge
		switch m.Name {
		case Load1, Load5, Load15:
			add(loadOID(m.Name))
		case CPUUtil, CPUUser, CPUSystem, CPUIOWait:
			s.needCPU = true
		case MemTotal:
			add(oidMemTotal)
		case MemAvail:
			// Both, every time: the answer tells which one this agent has, also when it was down at Start.
			// memSysAvail is a Counter64, which SNMPv1 cannot carry (the whole v1 GET would fail).
			if cfg.Version != "1" {
				add(oidMemSysAvail)
			}
			add(oidMemAvail)
		}
		if m.OID != "" {
			add(normOID(m.OID))
			if m.Counter {
				kind = watch.Counter
			}
		}
		s.cols = append(s.cols, watch.Column{Name: watch.HostPrefix + m.Name, Kind: kind, Source: "host: snmp " + cfg.Address})
	}
	s.metrics = metrics
	if s.needCPU {
		for _, o := range cpuOIDs {
			add(o)
		}
	}
	s.oids = oids
	s.customs = make([]custom, len(s.cols))
	s.devs = make([]devCol, len(s.cols))
	s.last = watch.Empty(len(s.cols))
	return s, nil
}

func loadOID(name string) string {
	switch name {
	case Load5:
		return oidLoadInt + "2"
	case Load15:
		return oidLoadInt + "3"
	}
	return oidLoadInt + "1"
}

// Start opens the UDP socket and reads every OID once. Fatal: bad configuration, SNMPv3 authentication or
// privacy failures, a community the agent ignores while it answers SNMPv3 discovery (so it is up: the
// community is wrong), OIDs the agent does not have. Not fatal (ErrUnavailable): no answer at all.
func (s *Sampler) Start(ctx context.Context) error {
	if err := s.redial(); err != nil {
		return err
	}
	pkt, err := s.get(ctx)
	if err != nil {
		err = s.startError(err)
		if errors.Is(err, watch.ErrUnavailable) {
			// This error is the outage's one warning; the ticks until the agent answers stay silent.
			s.outage.Fail(time.Now(), err)
		}
		return err
	}
	if err := s.checkPresent(pkt); err != nil {
		return err
	}
	if err := s.addDevices(); err != nil {
		return err
	}
	if pkt, err = s.get(ctx); err != nil {
		return s.startError(err)
	}
	s.observe(pkt, time.Now())
	return nil
}

// addDevices walks the disk and interface tables when the plan asks for per-device metrics and adds one
// column per disk or interface. 64-bit counters are used where the agent has them (diskIONReadX, ifHCInOctets);
// otherwise the 32-bit ones, unwrapped as the custom counters are.
func (s *Sampler) addDevices() error {
	var wantDisk, wantNet []string
	for _, m := range s.cfg.Metrics {
		switch {
		case m.OID != "":
		case watch.PerDisk(m.Name):
			wantDisk = append(wantDisk, m.Name)
		case watch.PerInterface(m.Name):
			wantNet = append(wantNet, m.Name)
		}
	}
	if len(wantDisk) > 0 {
		idx, names, err := s.walkNames(oidDiskIODevice)
		if err != nil {
			return fmt.Errorf("snmp %s: list disks (UCD-DISKIO-MIB diskIODevice): %w", s.cfg.Address, err)
		}
		x64 := s.cfg.Version != "1" && s.has(oidDiskIONReadX+"."+idx[0])
		for _, m := range wantDisk {
			for _, d := range watch.Disks(names) {
				k := idx[indexOf(names, d)]
				var oid string
				scale := 1.0
				switch m {
				case DiskReadKBs:
					oid, scale = pick(x64, oidDiskIONReadX, oidDiskIONRead), 1.0/1024
				case DiskWriteKBs:
					oid, scale = pick(x64, oidDiskIONWrittnX, oidDiskIONWritten), 1.0/1024
				case DiskReads:
					oid = oidDiskIOReads
				case DiskWrites:
					oid = oidDiskIOWrites
				}
				s.addDevCol(m, d, oid+"."+k, scale)
			}
		}
	}
	if len(wantNet) > 0 {
		in, out := oidIfHCInOctets, oidIfHCOutOctets
		idx, names, err := s.walkNames(oidIfName)
		if err != nil || len(idx) == 0 || s.cfg.Version == "1" {
			in, out = oidIfInOctets, oidIfOutOctets
			idx, names, err = s.walkNames(oidIfDescr)
		}
		if err != nil {
			return fmt.Errorf("snmp %s: list network interfaces (IF-MIB ifName, ifDescr): %w", s.cfg.Address, err)
		}
		for _, m := range wantNet {
			for _, n := range watch.Interfaces(names) {
				oid := pick(m == NetRxKBs, in, out)
				s.addDevCol(m, n, oid+"."+idx[indexOf(names, n)], 1.0/1024)
			}
		}
	}
	return nil
}

func pick(cond bool, a, b string) string {
	if cond {
		return a
	}
	return b
}

func indexOf(xs []string, x string) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
}

func (s *Sampler) addDevCol(metric, dev, oid string, scale float64) {
	s.cols = append(s.cols, watch.Column{Name: watch.HostPrefix + metric + "." + dev, Kind: watch.Gauge, Source: "host: snmp " + s.cfg.Address})
	s.metrics = append(s.metrics, Metric{Name: metric})
	s.customs = append(s.customs, custom{})
	s.devs = append(s.devs, devCol{oid: oid, scale: scale})
	s.last = append(s.last, math.NaN())
	s.oids = append(s.oids, oid)
}

// walkNames lists a table's string column: the row indexes and the names, in table order.
func (s *Sampler) walkNames(col string) (idx, names []string, err error) {
	var pdus []gosnmp.SnmpPDU
	if s.g.Version == gosnmp.Version1 {
		pdus, err = s.g.WalkAll(col)
	} else {
		pdus, err = s.g.BulkWalkAll(col)
	}
	if err != nil {
		return nil, nil, err
	}
	for _, p := range pdus {
		b, ok := p.Value.([]byte)
		if !ok {
			continue
		}
		idx = append(idx, strings.TrimPrefix(normOID(p.Name), col+"."))
		names = append(names, string(b))
	}
	if len(idx) == 0 {
		return nil, nil, fmt.Errorf("the agent has no rows under %s", col)
	}
	return idx, names, nil
}

// has reports whether the agent has a numeric value at oid.
func (s *Sampler) has(oid string) bool {
	pkt, err := s.g.Get([]string{oid})
	if err != nil || pkt.Error != gosnmp.NoError || len(pkt.Variables) == 0 {
		return false
	}
	_, ok := number(pkt.Variables[0])
	return ok
}

func (s *Sampler) newClient(host string, port uint16, probe bool) (*gosnmp.GoSNMP, error) {
	version, _ := parseVersion(s.cfg.Version)
	g := &gosnmp.GoSNMP{
		Target: host, Port: port, Transport: "udp", Version: version, Community: s.cfg.Community,
		Timeout: s.cfg.Timeout, Retries: s.cfg.Retries, MaxOids: gosnmp.MaxOids, Context: context.Background(),
	}
	if !probe {
		s.security = "v" + s.cfg.Version
	}
	if version == gosnmp.Version3 || probe {
		g.Version = gosnmp.Version3
		g.SecurityModel = gosnmp.UserSecurityModel
		usm := &gosnmp.UsmSecurityParameters{UserName: s.cfg.User}
		g.MsgFlags = gosnmp.NoAuthNoPriv
		level := "noAuthNoPriv"
		if probe {
			// Engine discovery under a user no agent has: any answer (a report) proves the agent is up.
			usm.UserName = "quadrant-discovery"
		} else if s.cfg.AuthPassword != "" {
			usm.AuthenticationProtocol, _ = authProtocol(s.cfg.AuthProtocol)
			usm.AuthenticationPassphrase = s.cfg.AuthPassword
			g.MsgFlags, level = gosnmp.AuthNoPriv, "authNoPriv"
			if s.cfg.PrivPassword != "" {
				usm.PrivacyProtocol, _ = privProtocol(s.cfg.PrivProtocol)
				usm.PrivacyPassphrase = s.cfg.PrivPassword
				g.MsgFlags, level = gosnmp.AuthPriv, "authPriv"
			}
		}
		g.SecurityParameters = usm
		if !probe {
			s.security = fmt.Sprintf("v3 %s user %s", level, s.cfg.User)
		}
	}
	if err := g.Connect(); err != nil {
		return nil, fmt.Errorf("snmp %s: %w", s.cfg.Address, err)
	}
	return g, nil
}

func (s *Sampler) get(ctx context.Context) (*gosnmp.SnmpPacket, error) {
	if s.g == nil {
		return nil, errors.New("sampler not started (Start failed or was not called)")
	}
	s.g.Context = ctx
	defer func() { s.g.Context = context.Background() }()
	pkt, err := s.g.Get(s.oids)
	if err != nil {
		return nil, err
	}
	if pkt.Error != gosnmp.NoError {
		return pkt, &pduError{pkt: pkt, oids: s.oids}
	}
	return pkt, nil
}

// pduError is an error-status in the response: v1 noSuchName, or an access error.
type pduError struct {
	pkt  *gosnmp.SnmpPacket
	oids []string
}

func (e *pduError) Error() string {
	i := int(e.pkt.ErrorIndex) - 1
	if i >= 0 && i < len(e.oids) {
		return fmt.Sprintf("agent answered %s for OID %s", e.pkt.Error, e.oids[i])
	}
	return fmt.Sprintf("agent answered %s", e.pkt.Error)
}

func (s *Sampler) startError(err error) error {
	where := fmt.Sprintf("snmp %s (%s)", s.cfg.Address, s.security)
	var pe *pduError
	switch {
	case errors.As(err, &pe):
		switch pe.pkt.Error {
		case gosnmp.NoSuchName:
			return fmt.Errorf("%s: %v: the agent does not have it (not a net-snmp agent with UCD-SNMP-MIB, or its view excludes it)", where, err)
		case gosnmp.AuthorizationError, gosnmp.NoAccess:
			return fmt.Errorf("%s: %v: the user or community may not read these OIDs (check rouser/rocommunity and views on the agent)", where, err)
		}
		return fmt.Errorf("%s: %w", where, err)
	case errors.Is(err, gosnmp.ErrWrongDigest):
		return fmt.Errorf("%s: authentication failed: wrong auth_password or auth_protocol (the agent reported a wrong digest)", where)
	case strings.Contains(err.Error(), "not authentic"):
		// The agent answered with an unauthenticated report: it refused our credentials.
		return fmt.Errorf("%s: authentication failed: the agent rejected the credentials of user %q (unknown user, or wrong auth_password or auth_protocol)", where, s.cfg.User)
	case errors.Is(err, gosnmp.ErrUnknownUsername):
		return fmt.Errorf("%s: the agent does not know user %q (createUser on the agent?)", where, s.cfg.User)
	case errors.Is(err, gosnmp.ErrUnknownSecurityLevel):
		return fmt.Errorf("%s: the agent does not allow this security level for user %q: set or drop priv_password/auth_password to match the agent", where, s.cfg.User)
	case errors.Is(err, gosnmp.ErrUnknownSecurityModels):
		return fmt.Errorf("%s: the agent could not decrypt the request: wrong priv_password or priv_protocol", where)
	case errors.Is(err, syscall.ECONNREFUSED):
		return watch.Unavailable(where, errors.New("connection refused: no agent listening"))
	case isTimeout(err):
		if s.g.Version == gosnmp.Version3 {
			if usm, ok := s.g.SecurityParameters.(*gosnmp.UsmSecurityParameters); ok && usm.AuthoritativeEngineID != "" {
				return fmt.Errorf("%s: the agent answered engine discovery but not the request: wrong priv_password or priv_protocol, or the user has no access", where)
			}
			return watch.Unavailable(where, errors.New("no answer within the timeout"))
		}
		if s.answersDiscovery() {
			return fmt.Errorf("%s: the agent is up (it answers SNMPv3 discovery) but ignores the community: wrong community, or the agent does not accept it from this address (rocommunity source)", where)
		}
		return watch.Unavailable(where, errors.New("no answer within the timeout: the agent is down or unreachable (or, if it does not speak SNMPv3 either, the community is wrong)"))
	}
	return watch.Unavailable(where, err)
}

// answersDiscovery sends an SNMPv3 engine discovery, which every net-snmp agent answers whatever its
// communities: it tells "agent up, community wrong" from "agent down", which v1/v2c alone cannot.
func (s *Sampler) answersDiscovery() bool {
	host, port, _ := splitAddress(s.cfg.Address)
	g, err := s.newClient(host, port, true)
	if err != nil {
		return false
	}
	defer g.Conn.Close()
	_, err = g.Get([]string{oidSysUpTime})
	if err == nil || !isTimeout(err) && !errors.Is(err, syscall.ECONNREFUSED) {
		return true
	}
	usm, ok := g.SecurityParameters.(*gosnmp.UsmSecurityParameters)
	return ok && usm.AuthoritativeEngineID != ""
}

func isTimeout(err error) bool {
	return errors.Is(err, gosnmp.ErrMaxRetriesExceeded) || errors.Is(err, context.DeadlineExceeded) ||
		strings.Contains(err.Error(), "timeout")
}

// checkPresent fails Start for a metric whose OID the agent lacks (noSuchObject/noSuchInstance).
func (s *Sampler) checkPresent(pkt *gosnmp.SnmpPacket) error {
	vals := byOID(pkt)
	missing := func(o string) bool { _, ok := number(vals[o]); return !ok }
	for _, m := range s.metrics {
		var need []string
		switch {
		case m.OID != "":
			need = []string{normOID(m.OID)}
		case m.Name == Load1 || m.Name == Load5 || m.Name == Load15:
			need = []string{loadOID(m.Name)}
		case m.Name == MemTotal:
			need = []string{oidMemTotal}
		case m.Name == MemAvail:
			if missing(oidMemSysAvail) {
				need = []string{oidMemAvail}
			}
		default:
			need = cpuOIDs
		}
		for _, o := range need {
			if missing(o) {
				return fmt.Errorf("snmp %s: metric %s: the agent has no value at OID %s (%s): not a net-snmp agent with UCD-SNMP-MIB, the OID is wrong, or the agent's view excludes it", s.cfg.Address, m.Name, o, describe(vals[o]))
			}
		}
	}
	return nil
}

func describe(p gosnmp.SnmpPDU) string {
	if p.Name == "" {
		return "not in the answer"
	}
	return p.Type.String()
}

// Columns implements watch.Sampler.
func (s *Sampler) Columns() []watch.Column { return s.cols }

// Baseline implements watch.Sampler.
func (s *Sampler) Baseline(ctx context.Context) error {
	_, err := s.Sample(ctx, time.Time{})
	for i := range s.customs {
		s.customs[i].rate.Rebase()
		s.devs[i].rate.Rebase()
	}
	s.cpu.rebase()
	s.last = watch.Empty(len(s.cols))
	return err
}

// Sample implements watch.Sampler.
func (s *Sampler) Sample(ctx context.Context, at time.Time) (watch.Sample, error) {
	out := watch.Sample{At: at}
	t0 := time.Now()
	pkt, err := s.get(ctx)
	now := time.Now()
	if err != nil {
		out.Values = watch.Empty(len(s.cols))
		// A fresh client on the next tick: an agent that restarted has new engine boots/time (or a new
		// engine ID), and its reports do not authenticate against the old SNMPv3 session.
		if rerr := s.redial(); rerr != nil {
			err = errors.Join(err, rerr)
		}
		return out, s.outage.Fail(now, watch.Unavailable(fmt.Sprintf("snmp %s (%s)", s.cfg.Address, s.security), err))
	}
	s.outage.OK(now)
	out.Values = s.observe(pkt, t0.Add(now.Sub(t0)/2))
	return out, nil
}

// redial opens a fresh client (UDP socket and SNMPv3 session), replacing the current one.
func (s *Sampler) redial() error {
	host, port, err := splitAddress(s.cfg.Address)
	if err != nil {
		return err
	}
	g, err := s.newClient(host, port, false)
	if err != nil {
		return err
	}
	s.Close()
	s.g = g
	return nil
}

func (s *Sampler) observe(pkt *gosnmp.SnmpPacket, at time.Time) []float64 {
	vals := byOID(pkt)
	restarted := false
	if up, ok := number(vals[oidSysUpTime]); ok {
		u := uint64(up)
		restarted = s.haveUp && u < s.uptime
		s.uptime, s.haveUp = u, true
	}
	if s.needCPU {
		var t [nTicks]uint64
		ok := true
		for i, o := range cpuOIDs {
			v, has := number(vals[o])
			ok = ok && has
			t[i] = uint64(v)
		}
		if ok {
			s.cpu.observe(t, restarted)
		}
	}
	out := watch.Empty(len(s.cols))
	for i, m := range s.metrics {
		v := math.NaN()
		switch {
		case s.devs[i].oid != "":
			v = s.device(i, vals[s.devs[i].oid], at, restarted)
		case m.OID != "":
			v = s.custom(i, vals[normOID(m.OID)], at, restarted)
		case m.Name == Load1 || m.Name == Load5 || m.Name == Load15:
			if x, ok := number(vals[loadOID(m.Name)]); ok {
				v = x / 100
			}
		case m.Name == MemTotal:
			if x, ok := number(vals[oidMemTotal]); ok {
				v = x / 1024
			}
		case m.Name == MemAvail:
			if x, ok := number(vals[oidMemSysAvail]); ok {
				v, s.MemSource = x/1024, "memSysAvail"
			} else if x, ok := number(vals[oidMemAvail]); ok {
				v, s.MemSource = x/1024, "memAvailReal"
			}
		default:
			v = s.cpu.value(m.Name)
		}
		out[i] = v
		if !math.IsNaN(v) {
			s.last[i] = v
		}
	}
	return out
}

func (s *Sampler) custom(i int, p gosnmp.SnmpPDU, at time.Time, restarted bool) float64 {
	x, ok := number(p)
	if !ok {
		return math.NaN()
	}
	if s.cols[i].Kind != watch.Counter {
		return x
	}
	c := &s.customs[i]
	if p.Type == gosnmp.Counter32 {
		// Unwrap 32-bit counters into one increasing series so watch.Rate sees a wrap as an increase and
		// only a restart as a reset.
		u := uint64(x)
		if c.have && u < c.prev && !restarted {
			if _, plausible := watch.Wrap32(c.prev, u); plausible {
				c.offset += 1 << 32
			}
		}
		if restarted {
			c.offset = 0
		}
		c.prev, c.have = u, true
		x += c.offset
	}
	return c.rate.Observe(x, at)
}

// device is a disk or interface column: the counter's rate per second in KB (or operations), Counter32s unwrapped.
func (s *Sampler) device(i int, p gosnmp.SnmpPDU, at time.Time, restarted bool) float64 {
	x, ok := number(p)
	if !ok {
		return math.NaN()
	}
	c, d := &s.customs[i], &s.devs[i]
	if p.Type == gosnmp.Counter32 {
		u := uint64(x)
		if c.have && u < c.prev && !restarted {
			if _, plausible := watch.Wrap32(c.prev, u); plausible {
				c.offset += 1 << 32
			}
		}
		if restarted {
			c.offset = 0
		}
		c.prev, c.have = u, true
		x += c.offset
	}
	return d.rate.Observe(x*d.scale, at)
}

// Rebase implements watch.Sampler.
func (s *Sampler) Rebase() {
	for i := range s.customs {
		s.customs[i].rate.Rebase()
		s.devs[i].rate.Rebase()
	}
	s.cpu.rebase()
}

// Summary implements watch.Sampler: counters' increase since Baseline; cpu_* over the whole span since
// Baseline (from the first to the last tick snapshot); other gauges their last value.
func (s *Sampler) Summary() map[string]float64 {
	m := map[string]float64{}
	for i, c := range s.cols {
		v := s.last[i]
		switch {
		case s.devs[i].oid != "":
			v = s.devs[i].rate.Average()
		case c.Kind == watch.Counter:
			if !s.customs[i].rate.Valid() {
				continue
			}
			v = s.customs[i].rate.Increase()
		case s.metrics[i].OID == "" && strings.HasPrefix(s.metrics[i].Name, "cpu_"):
			v = s.cpu.overall(s.metrics[i].Name)
		}
		if !math.IsNaN(v) {
			m[c.Name] = v
		}
	}
	return m
}

// Close implements watch.Sampler.
func (s *Sampler) Close() error {
	if s.g == nil || s.g.Conn == nil {
		return nil
	}
	return s.g.Conn.Close()
}

func byOID(pkt *gosnmp.SnmpPacket) map[string]gosnmp.SnmpPDU {
	m := make(map[string]gosnmp.SnmpPDU, len(pkt.Variables))
	for _, v := range pkt.Variables {
		m[normOID(v.Name)] = v
	}
	return m
}

// number reads any numeric SNMP value, and strings holding a number (laLoad is a string).
func number(p gosnmp.SnmpPDU) (float64, bool) {
	switch p.Type {
	case gosnmp.Integer, gosnmp.Counter32, gosnmp.Gauge32, gosnmp.TimeTicks, gosnmp.Counter64, gosnmp.Uinteger32:
		b := gosnmp.ToBigInt(p.Value)
		f, _ := b.Float64()
		return f, true
	case gosnmp.OpaqueFloat:
		f, ok := p.Value.(float32)
		return float64(f), ok
	case gosnmp.OpaqueDouble:
		f, ok := p.Value.(float64)
		return f, ok
	case gosnmp.OctetString:
		b, ok := p.Value.([]byte)
		if !ok {
			return 0, false
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
		return f, err == nil
	}
	return 0, false
}

var _ watch.Sampler = (*Sampler)(nil)

// Down implements watch.Health: the source has not answered since the outage's warning.
func (s *Sampler) Down() bool { return s.outage.Down() }
