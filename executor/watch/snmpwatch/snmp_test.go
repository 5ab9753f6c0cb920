package snmpwatch

import (
	"context"
	"errors"
	"math"
	"net"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/watch"
	"github.com/quadrant-bench/quadrant/executor/watch/snmptest"
)

func v2c(a *snmptest.Agent) Config {
	return Config{Address: a.Addr, Version: "2c", Community: snmptest.Community}
}

func v3(a *snmptest.Agent) Config {
	return Config{Address: a.Addr, Version: "3", User: snmptest.User, AuthProtocol: "SHA",
		AuthPassword: snmptest.AuthPassword, PrivProtocol: "AES", PrivPassword: snmptest.PrivPassword}
}

func start(t *testing.T, cfg Config) *Sampler {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(context.Background()); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func sample(t *testing.T, s *Sampler) (map[string]float64, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 900*time.Millisecond)
	defer cancel()
	at := time.Now()
	smp, err := s.Sample(ctx, at)
	if !smp.At.Equal(at) || len(smp.Values) != len(s.Columns()) {
		t.Fatalf("sample stamped %v with %d values, want %v and %d", smp.At, len(smp.Values), at, len(s.Columns()))
	}
	m := map[string]float64{}
	for i, c := range s.Columns() {
		m[strings.TrimPrefix(c.Name, "host.")] = smp.Values[i]
	}
	return m, err
}

// TestAgentValues reads the named metrics over v2c, v1 and v3 authPriv from a real snmpd, until the CPU
// counters have moved once (the agent refreshes them every 5 s), and checks every value is in a sane range.
func TestAgentValues(t *testing.T) {
	t.Parallel()
	a := snmptest.Start(t)
	for name, cfg := range map[string]Config{
		"v2c":        v2c(a),
		"v1":         {Address: a.Addr, Version: "1"},
		"v3authPriv": v3(a),
		"v3sha512aes256": {Address: a.Addr, Version: "3", User: snmptest.UserSHA512, AuthProtocol: "SHA-512",
			AuthPassword: snmptest.AuthPassword, PrivProtocol: "AES256C", PrivPassword: snmptest.PrivPassword},
		"v3sha256aes192": {Address: a.Addr, Version: "3", User: snmptest.UserSHA256, AuthProtocol: "SHA256",
			AuthPassword: snmptest.AuthPassword, PrivProtocol: "AES192", PrivPassword: snmptest.PrivPassword},
		"v3md5des": {Address: a.Addr, Version: "3", User: snmptest.UserMD5, AuthProtocol: "MD5",
			AuthPassword: snmptest.AuthPassword, PrivProtocol: "DES", PrivPassword: snmptest.PrivPassword},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := start(t, cfg)
			if err := s.Baseline(context.Background()); err != nil {
				t.Fatal(err)
			}
			var m map[string]float64
			deadline := time.Now().Add(15 * time.Second)
			for {
				var err error
				if m, err = sample(t, s); err != nil {
					t.Fatalf("sample: %v", err)
				}
				if !math.IsNaN(m[CPUUtil]) || time.Now().After(deadline) {
					break
				}
				time.Sleep(time.Second)
			}
			t.Logf("%v (mem_avail from %s)", m, s.MemSource)
			for _, n := range []string{Load1, Load5, Load15} {
				if !(m[n] >= 0 && m[n] < 1000) {
					t.Errorf("%s = %v, want 0 <= load < 1000", n, m[n])
				}
			}
			for _, n := range []string{CPUUtil, CPUUser, CPUSystem, CPUIOWait} {
				if !(m[n] >= 0 && m[n] <= 100) {
					t.Errorf("%s = %v, want a percentage (the tick counters never moved within 15 s?)", n, m[n])
				}
			}
			if m[CPUUser]+m[CPUSystem]+m[CPUIOWait] > m[CPUUtil]+1e-9 {
				t.Errorf("user+system+iowait = %v exceeds util %v", m[CPUUser]+m[CPUSystem]+m[CPUIOWait], m[CPUUtil])
			}
			if !(m[MemTotal] > 16) || !(m[MemAvail] > 0 && m[MemAvail] <= m[MemTotal]) {
				t.Errorf("mem_total = %v MiB, mem_avail = %v MiB: want 0 < avail <= total", m[MemTotal], m[MemAvail])
			}
			wantSrc := "memSysAvail"
			if cfg.Version == "1" {
				wantSrc = "memAvailReal"
			}
			if s.MemSource != wantSrc {
				t.Errorf("mem_avail source %q, want %q", s.MemSource, wantSrc)
			}
			sum := s.Summary()
			if v, ok := sum["host.cpu_util"]; !ok || v < 0 || v > 100 {
				t.Errorf("summary cpu_util = %v, %v", v, ok)
			}
		})
	}
}

// TestStartErrors: wrong credentials are clear errors at Start; an agent that is not there is a warning
// (ErrUnavailable), not a failure.
func TestStartErrors(t *testing.T) {
	t.Parallel()
	a := snmptest.Start(t)
	wrongAuth, wrongPriv, unknownUser := v3(a), v3(a), v3(a)
	wrongAuth.AuthPassword = "wrongpass1"
	wrongPriv.PrivPassword = "wrongpriv1"
	unknownUser.User = "nobody"
	wrongCommunity := v2c(a)
	wrongCommunity.Community = "private"
	noPriv := v3(a)
	noPriv.PrivPassword = ""
	// A UDP port that swallows requests: what a dead host or a firewall looks like.
	hole, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hole.Close() })
	badOID := v2c(a)
	badOID.Metrics = []Metric{{Name: "x", OID: ".1.3.6.1.4.1.2021.99.1.0"}}
	for name, c := range map[string]struct {
		cfg         Config
		want        string
		unavailable bool
	}{
		"wrong community":    {wrongCommunity, "ignores the community", false},
		"wrong v3 auth":      {wrongAuth, "authentication failed", false},
		"wrong v3 priv":      {wrongPriv, "wrong priv_password", false},
		"unknown v3 user":    {unknownUser, "authentication failed", false},
		"level not allowed":  {noPriv, "may not read", false},
		"missing OID":        {badOID, "no value at OID .1.3.6.1.4.1.2021.99.1.0", false},
		"no agent listening": {Config{Address: "127.0.0.1:1", Version: "2c"}, "connection refused", true},
		"no answer":          {Config{Address: hole.LocalAddr().String(), Version: "2c"}, "no answer within the timeout", true},
		"no answer v3":       {Config{Address: hole.LocalAddr().String(), Version: "3", User: "u"}, "no answer within the timeout", true},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, err := New(c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			err = s.Start(context.Background())
			if err == nil {
				t.Fatal("Start succeeded")
			}
			if !strings.Contains(err.Error(), c.want) || errors.Is(err, watch.ErrUnavailable) != c.unavailable {
				t.Fatalf("Start: %v; want %q, unavailable=%v", err, c.want, c.unavailable)
			}
			if c.unavailable {
				// Usable anyway: empty cells, and no second warning for the same outage.
				m, err := sample(t, s)
				if err != nil || !math.IsNaN(m[Load1]) {
					t.Fatalf("tick after an unavailable Start: %v, %v", m, err)
				}
			}
			for _, secret := range []string{c.cfg.AuthPassword, c.cfg.PrivPassword, "private"} {
				if secret != "" && strings.Contains(err.Error(), secret) {
					t.Fatalf("error shows a secret: %v", err)
				}
			}
		})
	}
}

// TestAgentStopsMidRun: an agent that goes away gives empty cells and exactly one warning, however many
// ticks it stays away; when it comes back the values resume without a further warning.
func TestAgentStopsMidRun(t *testing.T) {
	t.Parallel()
	a := snmptest.Start(t)
	for _, cfg := range []Config{v2c(a), v3(a)} {
		s := start(t, cfg)
		warnings := 0
		check := func(wantValues bool) {
			m, err := sample(t, s)
			if err != nil {
				warnings++
				if !errors.Is(err, watch.ErrUnavailable) {
					t.Errorf("%s: warning %v does not wrap ErrUnavailable", s.security, err)
				}
			}
			if got := !math.IsNaN(m[MemTotal]); got != wantValues {
				t.Fatalf("%s: mem_total = %v, want values=%v", s.security, m[MemTotal], wantValues)
			}
			if !wantValues {
				for n, v := range m {
					if !math.IsNaN(v) {
						t.Fatalf("%s: %s = %v while the agent is down, want empty", s.security, n, v)
					}
				}
			}
		}
		check(true)
		a.Stop()
		for i := 0; i < 4; i++ {
			check(false)
		}
		a.Start()
		check(true)
		check(true)
		if warnings != 1 {
			t.Fatalf("%s: %d warnings for one outage, want 1", s.security, warnings)
		}
	}
}

// TestCustomOIDs: a string OID read as a number (laLoad.1 equals load1) and a Counter32 flagged as counter
// (snmpInPkts, the agent's count of packets received, which each of our requests raises) becomes a non-negative rate whose
// increase the summary reports.
func TestCustomOIDs(t *testing.T) {
	t.Parallel()
	a := snmptest.Start(t)
	cfg := v2c(a)
	cfg.Metrics = []Metric{{Name: Load1}, {Name: "load1_str", OID: "1.3.6.1.4.1.2021.10.1.3.1"},
		{Name: "in_pkts", OID: ".1.3.6.1.2.1.11.1.0", Counter: true}}
	s := start(t, cfg)
	if k := s.Columns()[2].Kind; k != watch.Counter {
		t.Fatalf("in_pkts kind %v", k)
	}
	if err := s.Baseline(context.Background()); err != nil {
		t.Fatal(err)
	}
	var m map[string]float64
	for i := 0; i < 3; i++ {
		var err error
		if m, err = sample(t, s); err != nil {
			t.Fatal(err)
		}
		if !(m["in_pkts"] > 0) {
			t.Fatalf("in_pkts rate %v, want > 0 packets/s", m["in_pkts"])
		}
	}
	if math.Abs(m["load1_str"]-m[Load1]) > 0.011 { // the integer form truncates, the string rounds
		t.Errorf("laLoad.1 %v != laLoadInt.1/100 %v", m["load1_str"], m[Load1])
	}
	if inc := s.Summary()["host.in_pkts"]; inc < 3 {
		t.Errorf("summary in_pkts increase %v, want >= 3 (one per request)", inc)
	}
}

// Over SNMPv1, which has no 64-bit counters, disks and interfaces are read from the 32-bit ones
// (diskIONWritten, ifInOctets), unwrapped; the columns are the same as over v2c.
func TestDisksAndInterfacesOverV1(t *testing.T) {
	agent := snmptest.Start(t)
	s, err := New(Config{Address: agent.Addr, Version: "1", Community: snmptest.Community, Timeout: 2 * time.Second,
		Metrics: []Metric{{Name: DiskWriteKBs}, {Name: DiskReads}, {Name: NetRxKBs}, {Name: NetTxKBs}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	if err := s.Start(ctx); err != nil {
		t.Fatalf("start: %v", err)
	}
	var disk, net bool
	for _, c := range s.Columns() {
		disk = disk || strings.HasPrefix(c.Name, "host.disk_write_kbs.")
		net = net || strings.HasPrefix(c.Name, "host.net_rx_kbs.")
		if strings.HasSuffix(c.Name, ".lo") || strings.Contains(c.Name, ".loop") {
			t.Errorf("column %s: loopback interfaces and loop devices are left out", c.Name)
		}
	}
	if !disk || !net {
		t.Fatalf("columns %v: want a disk and an interface", s.Columns())
	}
	s.Baseline(ctx)
	for range 3 {
		time.Sleep(time.Second)
		if _, err := s.Sample(ctx, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	for k, v := range s.Summary() {
		if v < 0 || math.IsNaN(v) {
			t.Errorf("%s = %v", k, v)
		}
	}
	if len(s.Summary()) != len(s.Columns()) {
		t.Errorf("summary %v lacks columns of %v", s.Summary(), s.Columns())
	}
}

// A real agent's host facts: its processors, memory and kernel are this machine's (snmpd runs
// here), read over v2c and v1.
func TestMachine(t *testing.T) {
	a := snmptest.Start(t)
	for _, cfg := range []Config{v2c(a), {Address: a.Addr, Version: "1"}} {
		s := start(t, cfg)
		m, err := s.Machine(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("v%s: %+v", cfg.Version, m)
		if m.CPUs != runtime.NumCPU() || m.MemoryBytes == 0 || m.CPUModel == "" || strings.Contains(m.CPUModel, ": ") {
			t.Errorf("v%s: machine %+v, want %d CPUs with a model, and memory", cfg.Version, m, runtime.NumCPU())
		}
		rel, _ := os.ReadFile("/proc/sys/kernel/osrelease")
		if want := "Linux " + strings.TrimSpace(string(rel)); m.Kernel != want {
			t.Errorf("v%s: kernel %q, want %q (sysDescr %q)", cfg.Version, m.Kernel, want, m.Description)
		}
	}
	if got := kernelOf("Hardware: x86 Family 6 Model 85 - Software: Windows"); got != "Hardware: x86 Family 6 Model 85 - Software: Windows" {
		t.Errorf("a non-Linux sysDescr became %q", got)
	}
}
