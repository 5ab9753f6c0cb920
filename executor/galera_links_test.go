package executor

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/spec/plantest"
	"github.com/quadrant-bench/quadrant/spec/trust"
)

// A Galera sandbox's node links put the round trip between its nodes under each commit:
// with links: {nodes: {rtt: 20ms}} (the second iteration of an rtt axis), a single-threaded
// autocommit INSERT on node 1 takes at least 20 ms (the group's certification waits it once; a lower bound only, a busy host adds).
// The links hold every connection between the nodes: while the plan runs (node 3 restarted
// in setup, rejoining), /proc/net/tcp never shows a connection from one node's group
// communication (sandbox.GaleraLinkedHost) to another's, only to the links on 127.0.0.1;
// run.json has a link per node, which carried the workload's writesets, delayed.
func TestGaleraNodeLinksPayTheRoundTrip(t *testing.T) {
	ctx, stop := context.WithCancel(context.Background())
	seen := watchGcomm(ctx)
	run, out, err := runPlan(t, plantest.Sandbox("galeralinks", `{galera: 3, links: {nodes: {rtt: "${{ matrix.rtt }}"}}}`, `setup:
  - sql: "CREATE DATABASE bench; CREATE TABLE bench.t (id INT PRIMARY KEY)"
  - restart: {}
    target: db_node3
matrix:
  rtt: [0ms, 20ms]
iteration:
  before:
    - sql: "DELETE FROM bench.t"
  workload:
    transactions:
      - name: ins
        statements: [{sql: "INSERT INTO bench.t VALUES (?)", args: ["seq()"]}]
    events: 30
  after:
    - sql: "SET SESSION wsrep_sync_wait = 1; SELECT IF((SELECT COUNT(*) FROM bench.t) = 30, 1, (SELECT 1 UNION SELECT 2))"
      target: db_node3
  assert: ["errors == 0"]
`), nil, Options{})
	stop()
	direct, linked := seen()
	requireDone(t, run, out, err, 2)
	var p50 []float64
	for i := range run.Summary.Rows {
		if run.Summary.Value(i, "target") == "db" {
			p50 = append(p50, col(t, run.Summary, i, "p50_ms"))
		}
	}
	if len(p50) != 2 {
		t.Fatalf("commit p50 of db in %d iterations, want 2", len(p50))
	}
	if p50[1] < 20 {
		t.Errorf("commit p50 %.3f ms on node 1 with 20 ms links between the nodes, want at least 20", p50[1])
	}
	t.Logf("commit p50 on node 1: %.2f ms with links: {nodes: {rtt: 0ms}}, %.2f ms with rtt 20ms", p50[0], p50[1])
	if len(direct) > 0 {
		t.Errorf("connections between the nodes' group communication that bypass the links: %v", direct)
	}
	if linked == 0 {
		t.Errorf("no connection from a node's group communication (%s) to a link seen in /proc/net/tcp", sandbox.GaleraLinkedHost)
	}
	links := run.Info.Iterations[1].Links
	var carried, delayed int64
	for _, l := range links {
		if l.Configured.RTTMs != 20 || l.From != "nodes" {
			t.Errorf("link %s configured %+v, want nodes -> NODE with rtt 20 ms", l.Name(), l.Configured)
		}
		if l.Workload != nil {
			carried += l.Workload.BytesUp + l.Workload.BytesDown
			delayed += l.Workload.Delayed
		}
	}
	t.Logf("connections from a node's group communication to a link seen: %d; bypassing: %d; the links carried %d bytes in %d delayed chunks", linked, len(direct), carried, delayed)
	if len(links) != 3 || carried == 0 || delayed == 0 {
		t.Errorf("iteration 2's links %+v: want 3 (one per node) that carried the workload's writesets, delayed", links)
	}
}

// watchGcomm polls /proc/net/tcp until ctx ends and returns what it saw: the established
// connections between two sockets of sandbox.GaleraLinkedHost (one node's group
// communication to another's, bypassing the links), and how many connections it saw from
// that host to 127.0.0.1 (a node to a link).
func watchGcomm(ctx context.Context) func() (direct []string, linked int) {
	var mu sync.Mutex
	bypass, through := map[string]bool{}, map[string]bool{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			for _, c := range tcpConns() {
				mu.Lock()
				switch {
				case c[0] == sandbox.GaleraLinkedHost && c[2] == sandbox.GaleraLinkedHost:
					bypass[fmt.Sprint(c)] = true
				case c[0] == sandbox.GaleraLinkedHost && c[2] == "127.0.0.1":
					through[fmt.Sprint(c)] = true
				}
				mu.Unlock()
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
	return func() ([]string, int) {
		<-done
		mu.Lock()
		defer mu.Unlock()
		var out []string
		for c := range bypass {
			out = append(out, c)
		}
		return out, len(through)
	}
}

// tcpConns are the established IPv4 connections of /proc/net/tcp as local IP, local port,
// remote IP, remote port.
func tcpConns() [][4]string {
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		return nil
	}
	defer f.Close()
	var out [][4]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 4 || fs[3] != "01" { // 01: ESTABLISHED
			continue
		}
		lip, lport := hexAddr(fs[1])
		rip, rport := hexAddr(fs[2])
		out = append(out, [4]string{lip, lport, rip, rport})
	}
	return out
}

// hexAddr reads /proc/net/tcp's 0100007F:0CEA (little-endian IPv4, port) as 127.0.0.1, 3306.
func hexAddr(s string) (string, string) {
	ip, port, ok := strings.Cut(s, ":")
	if !ok || len(ip) != 8 {
		return "", ""
	}
	var b [4]uint64
	for i := range b {
		fmt.Sscanf(ip[2*i:2*i+2], "%x", &b[i])
	}
	var p uint64
	fmt.Sscanf(port, "%x", &p)
	return fmt.Sprintf("%d.%d.%d.%d", b[3], b[2], b[1], b[0]), fmt.Sprint(p)
}

// A Galera sandbox's node links (and its client link, the workload's path to node 1, probed
// by pings) survive what restarts its nodes: sandbox.dir as a matrix
// axis moves every node (stopped, moved, started again), restore: setup puts their data back
// (restarted again), and a failover drill kills node 1 during the workload and starts it
// again; each time the nodes rejoin through the links (an after: step finds a cluster of
// three), and /proc/net/tcp never shows one node's group communication connected to
// another's directly.
func TestGaleraNodeLinksSurviveRestarts(t *testing.T) {
	first, second := sandboxtest.Dir(t), sandboxtest.Dir(t)
	plan := fmt.Sprintf(`version: 1
name: galera_links_restarts
matrix:
  storage: [%s, %s]
targets:
  db:
    sandbox: {galera: 3, dir: "${{ matrix.storage }}", links: {nodes: {rtt: 2ms}, client: {rtt: 1ms}}}
setup:
  - sql: "CREATE DATABASE bench; CREATE TABLE bench.t (id BIGINT PRIMARY KEY)"
iteration:
  restore: setup
  workload:
    transactions:
      - name: ins
        statements: [{sql: "INSERT IGNORE INTO bench.t VALUES (?)", args: ["seq()"]}]
    threads: 2
    duration: 45s
    on_error: {reconnect: [2013, 2006, 2003, 1047, 1927, 1053]}
  during:
    - at: 2s
      failover: {fault: kill, lead: 1s, down: 2s}
  after:
    - sql: "SELECT IF((SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'wsrep_cluster_size') = 3, 1, (SELECT 1 UNION SELECT 2))"
      target: db_node2
  assert: ["failover_acked > 0 && failover_acked_lost == 0 && failover_rejoin_s > 0"]
`, first, second)
	ctx, stop := context.WithCancel(context.Background())
	seen := watchGcomm(ctx)
	run, out, err := runPlan(t, plan, nil, Options{Allow: trust.Allow{Paths: []string{first, second}}})
	stop()
	direct, linked := seen()
	requireDone(t, run, out, err, 2)
	if len(direct) > 0 {
		t.Errorf("connections between the nodes' group communication that bypass the links: %v", direct)
	}
	if linked == 0 {
		t.Errorf("no connection from a node's group communication (%s) to a link seen in /proc/net/tcp", sandbox.GaleraLinkedHost)
	}
	for _, it := range run.Info.Iterations {
		names := map[string]bool{}
		for _, l := range it.Links {
			names[l.Name()] = true
			if l.From == "client" && (l.Measured == nil || l.Measured.RTTMsP50 < setRTT(l) || l.Workload == nil || l.Workload.BytesDown == 0) {
				t.Errorf("iteration %d: link %s measured %+v, carried %+v: want the workload through it, its probe at least its round trip", it.Index, l.Name(), l.Measured, l.Workload)
			}
		}
		if len(names) != 4 || !names["client -> db"] || !names["nodes -> db_node3"] {
			t.Errorf("iteration %d: links %v, want client -> db and nodes -> each node", it.Index, names)
		}
	}
	log, err := os.ReadFile(filepath.Join(run.Dir, "log.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(log), "moving sandbox db"); n != 1 {
		t.Errorf("the sandbox moved %d times, want once", n)
	}
	t.Logf("connections from a node's group communication to a link seen: %d; bypassing: %d", linked, len(direct))
}
