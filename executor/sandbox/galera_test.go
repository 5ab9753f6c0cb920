package sandbox_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
)

// A Galera sandbox of three nodes is one cluster: every node counts three and is Synced, a
// row written on node 3 is read on node 1, and Stop leaves no process, directory or port.
func TestGaleraClusterOfThree(t *testing.T) {
	sandboxtest.SkipShort(t)
	dir := sandboxtest.Dir(t)
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var logMu sync.Mutex
	var logged []string
	logf := func(format string, a ...any) {
		logMu.Lock()
		logged = append(logged, fmt.Sprintf(format, a...))
		logMu.Unlock()
		t.Logf(format, a...)
	}
	c, err := sandbox.Start(ctx, sandbox.Options{Name: "g", Galera: 3, Dir: dir, Logf: logf})
	if err != nil {
		t.Fatalf("start a Galera sandbox: %v", err)
	}
	stopped := false
	defer func() {
		if !stopped {
			c.Stop(context.Background())
		}
	}()
	t.Logf("3-node Galera sandbox started in %s (load average %s)", time.Since(began).Round(time.Millisecond), loadavg())
	if c.Galera() != 3 || len(c.Nodes) != 2 || len(c.Replicas) != 0 {
		t.Fatalf("Galera() %d, %d other nodes, %d replicas; want 3, 2, 0", c.Galera(), len(c.Nodes), len(c.Replicas))
	}
	want := []string{"g", "g_node2", "g_node3"}
	for i, s := range c.Servers() {
		if s.Name() != want[i] {
			t.Errorf("node %d is %s, want %s", i+1, s.Name(), want[i])
		}
		db := sandboxtest.DB(t, s.DSN(""), 1)
		for q, w := range map[string]string{
			"SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'wsrep_cluster_size'":        "3",
			"SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'wsrep_local_state_comment'": "Synced",
			"SELECT @@wsrep_sst_method": sandbox.SSTMethod,
			"SELECT @@bind_address":     "127.0.0.1",
		} {
			var got string
			if err := db.QueryRow(q).Scan(&got); err != nil || got != w {
				t.Errorf("%s: %s = %q (%v), want %q", s.Name(), q, got, err, w)
			}
		}
	}
	// As private as any sandbox: an unprivileged OS user, listening on 127.0.0.1 only (its
	// client and group communication ports among what it listens on).
	for _, s := range c.Servers() {
		if uid := procUID(t, s.Pid()); uid == 0 {
			t.Errorf("%s runs as root", s.Name())
		}
		gcomm, _, _ := s.GaleraPorts()
		addrs := listening(t, s.Pid())
		for _, want := range []int{s.Port(), gcomm} {
			if !addrs[fmt.Sprintf("127.0.0.1:%d", want)] {
				t.Errorf("%s does not listen on 127.0.0.1:%d: %v", s.Name(), want, addrs)
			}
		}
		for a := range addrs {
			if !strings.HasPrefix(a, "127.0.0.1:") {
				t.Errorf("%s listens on %s", s.Name(), a)
			}
		}
	}
	n1 := sandboxtest.DB(t, c.Primary.DSN(""), 1)
	n3 := sandboxtest.DB(t, c.Nodes[1].DSN(""), 1)
	for _, q := range []string{"CREATE DATABASE g", "CREATE TABLE g.t (id INT PRIMARY KEY, v VARCHAR(20))", "INSERT INTO g.t VALUES (1, 'from node 3')"} {
		if _, err := n3.Exec(q); err != nil {
			t.Fatalf("node 3: %s: %v", q, err)
		}
	}
	// wsrep_sync_wait makes the read wait until node 1 applied what the cluster committed
	// before it: Galera commits synchronously but applies asynchronously.
	if _, err := n1.Exec("SET SESSION wsrep_sync_wait = 1"); err != nil {
		t.Fatal(err)
	}
	var v string
	if err := n1.QueryRow("SELECT v FROM g.t WHERE id = 1").Scan(&v); err != nil || v != "from node 3" {
		t.Errorf("node 1 reads %q (%v), want the row node 3 wrote", v, err)
	}

	// A restart of node 1 while the others run joins them (IST), not a cluster of its own.
	if err := c.Primary.Restart(ctx, []sandbox.Option{{Name: "max_connections", Value: "50"}}); err != nil {
		t.Fatalf("restart node 1: %v", err)
	}
	n1 = sandboxtest.DB(t, c.Primary.DSN(""), 1)
	var size string
	if err := n1.QueryRow("SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'wsrep_cluster_size'").Scan(&size); err != nil || size != "3" {
		t.Errorf("node 1 restarted: wsrep_cluster_size %q (%v), want 3: it bootstrapped a cluster of its own", size, err)
	}
	if err := n1.QueryRow("SELECT v FROM g.t WHERE id = 1").Scan(&v); err != nil || v != "from node 3" {
		t.Errorf("node 1 restarted reads %q (%v), want the row node 3 wrote", v, err)
	}

	// Teardown: note what runs and listens, stop, and find none of it.
	type trace struct {
		name  string
		pid   int
		ports []int
	}
	var traces []trace
	for _, s := range c.Servers() {
		g, ist, sst := s.GaleraPorts()
		if g == 0 || ist == 0 || sst == 0 {
			t.Errorf("%s: Galera ports %d, %d, %d", s.Name(), g, ist, sst)
		}
		traces = append(traces, trace{s.Name(), s.Pid(), []int{s.Port(), g, ist, sst}})
	}
	cdir := c.Dir()
	stopped = true
	if err := c.Stop(context.Background()); err != nil {
		t.Fatalf("stop: %v", err)
	}
	logMu.Lock()
	for _, l := range logged {
		// Every node leaves by SHUTDOWN: a signal means a node was outside a Primary component.
		if strings.Contains(l, "SHUTDOWN failed") || strings.Contains(l, "sending SIGTERM") {
			t.Errorf("a node did not stop cleanly: %s", l)
		}
	}
	logMu.Unlock()
	if _, err := os.Stat(cdir); !os.IsNotExist(err) {
		t.Errorf("%s is still there after Stop (%v)", cdir, err)
	}
	for _, tr := range traces {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", tr.pid)); err == nil {
			t.Errorf("%s: process %d still runs after Stop", tr.name, tr.pid)
		}
		for _, p := range tr.ports {
			l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
			if err != nil {
				t.Errorf("%s: port %d still taken after Stop: %v", tr.name, p, err)
				continue
			}
			l.Close()
		}
	}
	if left := processesIn(cdir); len(left) > 0 {
		t.Errorf("processes still name %s after Stop: %s", cdir, strings.Join(left, "; "))
	}
}

// listening are the TCP addresses process pid listens on (its sockets in LISTEN state, from
// /proc/net/tcp and tcp6 matched by inode): "127.0.0.1:3306", an IPv6 one as "[hex]:port".
func listening(t *testing.T, pid int) map[string]bool {
	t.Helper()
	inodes := map[string]bool{}
	fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
	for _, fd := range fds {
		if l, err := os.Readlink(fd); err == nil && strings.HasPrefix(l, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
		}
	}
	out := map[string]bool{}
	for _, table := range []string{"tcp", "tcp6"} {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/%s", pid, table))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) < 10 || f[3] != "0A" || !inodes[f[9]] {
				continue
			}
			host, port, _ := strings.Cut(f[1], ":")
			p, _ := strconv.ParseInt(port, 16, 32)
			if table == "tcp" && len(host) == 8 {
				ip, _ := strconv.ParseUint(host, 16, 32)
				host = fmt.Sprintf("%d.%d.%d.%d", ip&0xff, ip>>8&0xff, ip>>16&0xff, ip>>24)
			} else {
				host = "[" + host + "]"
			}
			out[fmt.Sprintf("%s:%d", host, p)] = true
		}
	}
	return out
}

// processesIn lists the processes whose command line names dir (a server, an SST's rsync daemon).
func processesIn(dir string) []string {
	var out []string
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(b), dir) {
			out = append(out, filepath.Base(filepath.Dir(p))+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return out
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

// BenchmarkGaleraStartThree is how long a 3-node Galera sandbox takes to start (node 1
// bootstrapped, two joined by rsync SST, all Synced), its stop left out; the host's load
// average is logged beside it, as the figure means nothing without it.
func BenchmarkGaleraStartThree(b *testing.B) {
	sandboxtest.SkipShort(b)
	dir := sandboxtest.Dir(b)
	for i := 0; i < b.N; i++ {
		load := loadavg()
		began := time.Now()
		c, err := sandbox.Start(context.Background(), sandbox.Options{Name: "bench", Galera: 3, Dir: dir})
		if err != nil {
			b.Fatal(err)
		}
		took := time.Since(began)
		b.StopTimer()
		b.Logf("3-node Galera start: %s (load average before %s, after %s)", took.Round(time.Millisecond), load, loadavg())
		if err := c.Stop(context.Background()); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}
