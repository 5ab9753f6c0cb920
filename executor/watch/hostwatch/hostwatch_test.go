package hostwatch

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/watch"
	"github.com/quadrant-bench/quadrant/executor/watch/snmptest"
	"github.com/quadrant-bench/quadrant/executor/watch/snmpwatch"
)

var metrics = []string{"load1", "cpu_util", "cpu_user", "cpu_system", "mem_total", "mem_avail", "disk_write_kbs", "disk_reads", "net_rx_kbs", "net_tx_kbs"}

// The same machine read through a real snmpd on loopback and through /proc gives the same columns, CPU
// within a few points over the same span, and the same memory size.
func TestProcAgreesWithSNMP(t *testing.T) {
	agent := snmptest.Start(t)
	var sm []snmpwatch.Metric
	for _, m := range metrics {
		sm = append(sm, snmpwatch.Metric{Name: m})
	}
	viaSNMP, err := snmpwatch.New(snmpwatch.Config{Address: agent.Addr, Community: snmptest.Community, Metrics: sm, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer viaSNMP.Close()
	viaProc, err := New(metrics, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, s := range []watch.Sampler{viaSNMP, viaProc} {
		if err := s.Start(ctx); err != nil {
			t.Fatalf("start: %v", err)
		}
	}
	names := func(s watch.Sampler) []string {
		var out []string
		for _, c := range s.Columns() {
			out = append(out, c.Name)
		}
		sort.Strings(out)
		return out
	}
	if a, b := strings.Join(names(viaSNMP), " "), strings.Join(names(viaProc), " "); a != b {
		t.Fatalf("columns differ:\nsnmp  %s\n/proc %s", a, b)
	}
	for _, c := range viaProc.Columns() {
		if c.Source != Source {
			t.Fatalf("column %s source %q", c.Name, c.Source)
		}
	}
	// Busy CPUs and some disk writes during the span, so that both sources have something to agree on.
	// Each goroutine works until the test ends; the load is the point, so it never waits.
	var stop atomic.Bool
	defer stop.Store(true)
	for range 2 {
		go func() {
			for !stop.Load() {
			}
		}()
	}
	for _, s := range []watch.Sampler{viaSNMP, viaProc} {
		s.Baseline(ctx)
	}
	// net-snmp refreshes its CPU counters every 5 s: a span of several refreshes makes the phase
	// difference small.
	for i := range 16 {
		f := filepath.Join(t.TempDir(), "w")
		os.WriteFile(f, make([]byte, 1<<20), 0o644)
		if fh, err := os.OpenFile(f, os.O_RDWR, 0); err == nil {
			fh.Sync()
			fh.Close()
		}
		time.Sleep(time.Second)
		at := time.Now()
		if _, err := viaSNMP.Sample(ctx, at); err != nil {
			t.Fatalf("snmp tick %d: %v", i, err)
		}
		if _, err := viaProc.Sample(ctx, at); err != nil {
			t.Fatalf("/proc tick %d: %v", i, err)
		}
	}
	a, b := viaSNMP.Summary(), viaProc.Summary()
	t.Logf("snmp  %v", a)
	t.Logf("/proc %v", b)
	// The busy loops hold utilisation steady, so it agrees closely. How it splits into user and
	// system moves with whatever else the machine runs (other packages' tests), and snmpd's window
	// is up to 5 s off /proc's at each end: the split gets a wider margin, still far below what a
	// swapped or wrong counter would give (user ~90% vs system ~10% here).
	for k, margin := range map[string]float64{"host.cpu_util": 5, "host.cpu_user": 12, "host.cpu_system": 12} {
		if math.IsNaN(a[k]) || math.IsNaN(b[k]) || math.Abs(a[k]-b[k]) > margin {
			t.Errorf("%s: snmp %.1f%%, /proc %.1f%%: more than %.0f points apart", k, a[k], b[k], margin)
		}
	}
	if math.Abs(a["host.mem_total"]-b["host.mem_total"]) > a["host.mem_total"]/100 {
		t.Errorf("mem_total: snmp %.0f MiB, /proc %.0f MiB", a["host.mem_total"], b["host.mem_total"])
	}
	var wrote bool
	for k, v := range b {
		if strings.HasPrefix(k, "host.disk_write_kbs.") && v > 0 && a[k] > 0 {
			wrote = true
		}
	}
	if !wrote {
		t.Errorf("no disk shows writes from both sources, though the test wrote and synced 16 MiB")
	}
}

func TestDisks(t *testing.T) {
	got := watch.Disks([]string{"loop0", "ram1", "vda", "vda1", "vda2", "nvme0n1", "nvme0n1p1", "sdb", "sdb3", "md0", "dm-0", "zram0"})
	if want := "vda nvme0n1 sdb md0 dm-0 zram0"; strings.Join(got, " ") != want {
		t.Fatalf("disks %v, want %s", got, want)
	}
}
