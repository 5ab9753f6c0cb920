package snmpwatch

import (
	"math"
	"strings"
	"testing"

	"github.com/gosnmp/gosnmp"
)

func ticks(user, nice, sys, idle, wait, irq, soft, steal uint64) [nTicks]uint64 {
	return [nTicks]uint64{user, nice, sys, idle, wait, irq, soft, steal}
}

func TestCPUHoldsBetweenRefreshes(t *testing.T) {
	var c cpuState
	c.observe([nTicks]uint64{}, false) // the agent's first seconds: all zero
	if v := c.value(CPUUtil); !math.IsNaN(v) {
		t.Fatalf("value before any ticks = %v, want empty", v)
	}
	c.observe(ticks(100, 0, 50, 1000, 10, 0, 0, 0), false)
	if v := c.value(CPUUtil); !math.IsNaN(v) {
		t.Fatalf("value after one snapshot = %v, want empty", v)
	}
	// 5 s later on 2 CPUs: 1000 ticks, 250 busy of which 150 user, 50 system+irq+softirq, 50 iowait.
	c.observe(ticks(250, 0, 80, 1750, 60, 10, 10, 0), false)
	want := map[string]float64{CPUUtil: 25, CPUUser: 15, CPUSystem: 5, CPUIOWait: 5}
	for n, w := range want {
		if v := c.value(n); math.Abs(v-w) > 1e-9 {
			t.Errorf("%s = %v, want %v", n, v, w)
		}
	}
	// Same ticks again (agent not refreshed): the value is held, no division by zero.
	c.observe(ticks(250, 0, 80, 1750, 60, 10, 10, 0), false)
	if v := c.value(CPUUtil); v != 25 {
		t.Fatalf("held value = %v, want 25", v)
	}
}

func TestCPUWrapAndRestart(t *testing.T) {
	var c cpuState
	near := uint64(1<<32 - 100)
	c.observe(ticks(near, 0, 0, near, 0, 0, 0, 0), false)
	// user and idle each wrapped by 200 ticks: 50% busy.
	c.observe(ticks(100, 0, 0, 100, 0, 0, 0, 0), false)
	if v := c.value(CPUUtil); math.Abs(v-50) > 1e-9 {
		t.Fatalf("util across a 32-bit wrap = %v, want 50", v)
	}
	// The agent restarted (sysUpTime went back): no value until the ticks move again.
	c.observe(ticks(5, 0, 0, 5, 0, 0, 0, 0), true)
	if v := c.value(CPUUtil); !math.IsNaN(v) {
		t.Fatalf("value right after a restart = %v, want empty", v)
	}
	c.observe(ticks(15, 0, 0, 35, 0, 0, 0, 0), false)
	if v := c.value(CPUUtil); math.Abs(v-25) > 1e-9 {
		t.Fatalf("util after restart = %v, want 25", v)
	}
	// Overall since rebase covers every movement.
	c.rebase()
	c.observe(ticks(25, 0, 0, 45, 0, 0, 0, 0), false)
	c.observe(ticks(25, 0, 0, 65, 0, 0, 0, 0), false)
	if v := c.overall(CPUUtil); math.Abs(v-100*10.0/40) > 1e-9 {
		t.Fatalf("overall = %v, want 25", v)
	}
}

func TestNumber(t *testing.T) {
	for _, c := range []struct {
		pdu  gosnmp.SnmpPDU
		want float64
		ok   bool
	}{
		{gosnmp.SnmpPDU{Type: gosnmp.Integer, Value: 42}, 42, true},
		{gosnmp.SnmpPDU{Type: gosnmp.Counter32, Value: uint(7)}, 7, true},
		{gosnmp.SnmpPDU{Type: gosnmp.Counter64, Value: uint64(1 << 40)}, 1 << 40, true},
		{gosnmp.SnmpPDU{Type: gosnmp.OctetString, Value: []byte("0.35")}, 0.35, true},
		{gosnmp.SnmpPDU{Type: gosnmp.OctetString, Value: []byte("Linux")}, 0, false},
		{gosnmp.SnmpPDU{Type: gosnmp.NoSuchObject}, 0, false},
	} {
		v, ok := number(c.pdu)
		if ok != c.ok || ok && v != c.want {
			t.Errorf("number(%v %v) = %v, %v; want %v, %v", c.pdu.Type, c.pdu.Value, v, ok, c.want, c.ok)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, "address is required"},
		{Config{Address: "h", Version: "4"}, "unknown version"},
		{Config{Address: "h", Version: "3"}, "needs user"},
		{Config{Address: "h", Version: "3", User: "u", PrivPassword: "privpass1"}, "needs auth_password"},
		{Config{Address: "h", Version: "3", User: "u", AuthPassword: "short"}, "at least 8"},
		{Config{Address: "h", Version: "3", User: "u", AuthPassword: "authpass1", AuthProtocol: "SHA3"}, "unknown auth_protocol"},
		{Config{Address: "h", Version: "3", User: "u", AuthPassword: "authpass1", PrivPassword: "privpass1", PrivProtocol: "3DES"}, "unknown priv_protocol"},
		{Config{Address: "h", Metrics: []Metric{{Name: "load99"}}}, "unknown metric"},
		{Config{Address: "h", Metrics: []Metric{{Name: "x", OID: "ifInOctets.1"}}}, "numeric dotted form"},
		{Config{Address: "h", Metrics: []Metric{{Name: "load1"}, {Name: "load1"}}}, "twice"},
	} {
		_, err := New(c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%+v) = %v, want error containing %q", c.cfg, err, c.want)
		}
	}
	if _, _, err := splitAddress("h:99999"); err == nil {
		t.Error("port 99999 accepted")
	}
	if h, p, _ := splitAddress("db1"); h != "db1" || p != 161 {
		t.Errorf("default port: %s %d", h, p)
	}
}
