package main

import (
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/results"
)

// builtin:galera-cost's cells: writers=one runs every thread on db, has no node columns and
// no certification failure; writers=all has each node's transactions, which add up to the
// cell's, and certification failures (the hot row) among its errors; the kill drill's node
// was out for a while and lost no acknowledged id; so did the pause drill's.
func checkGaleraCost(t *testing.T, run *results.Run) {
	rows := summaryRows(run, "db")
	if len(rows) != 4 {
		t.Fatalf("summary rows of db %v, want writers one and all, and the two drills", rows)
	}
	s := run.Summary
	for _, i := range rows {
		writers, drill := s.Value(i, "writers"), s.Value(i, "drill")
		certs, _ := s.Float(i, "cert_failures")
		errs, _ := s.Float(i, "errors")
		tx, _ := s.Float(i, "transactions")
		t.Logf("writers=%s drill=%s: %v transactions, %v errors, %v cert failures", writers, drill, tx, errs, certs)
		if certs > errs {
			t.Errorf("writers=%s: %v cert failures of %v errors; a cert failure is an error too", writers, certs, errs)
		}
		switch drill {
		case "none":
			checkGaleraCostWriters(t, s, i, writers, tx, certs)
		case "kill":
			checkGaleraKill(t, s, i)
		case "pause":
			checkGaleraPause(t, run, s, i)
		default:
			t.Errorf("a summary row of drill %q", drill)
		}
	}
}

func checkGaleraCostWriters(t *testing.T, s *results.Data, i int, writers string, tx, certs float64) {
	var nodes float64
	var named int
	for _, h := range s.Header {
		if v, ok := s.Float(i, h); ok && strings.HasPrefix(h, "node.") && strings.HasSuffix(h, ".transactions") {
			nodes += v
			named++
		}
	}
	// Every cell has the three nodes' columns, whatever nodes: says.
	if named != 3 || nodes != tx {
		t.Errorf("writers=%s: %d nodes' transactions adding up to %v, want 3 adding up to %v", writers, named, nodes, tx)
	}
	switch writers {
	case "one":
		if n1, _ := s.Float(i, "node.db.transactions"); n1 != tx || certs != 0 {
			t.Errorf("writers=one: node 1 has %v of %v transactions and %v cert failures, want all and none", n1, tx, certs)
		}
	case "all":
		if certs == 0 {
			t.Errorf("writers=all on a hot row: no certification failure")
		}
	default:
		t.Errorf("a summary row of writers %q", writers)
	}
}

// checkGaleraKill: node 1, which the clients write to, was killed: a while without a write,
// the other two a Primary component, the node back, nothing acknowledged lost.
func checkGaleraKill(t *testing.T, s *results.Data, i int) {
	got := map[string]float64{}
	for _, m := range []string{"failover_unavailable_s", "failover_primary_s", "failover_rejoin_s", "failover_rejoin_sst", "failover_acked", "failover_acked_lost"} {
		v, ok := s.Float(i, m)
		if !ok {
			t.Errorf("kill drill: no %s", m)
		}
		got[m] = v
	}
	t.Logf("kill drill: %v", got)
	if got["failover_unavailable_s"] <= 0 || got["failover_acked"] <= 0 || got["failover_acked_lost"] != 0 {
		t.Errorf("kill drill: %v; want time without a write, acknowledged ids and none of them lost", got)
	}
}

// checkGaleraPause: node 3 stopped for a while lost no acknowledged id and held the writes
// for a while. Its flow control is logged, not asserted: a stopped node holds the group's
// communication rather than filling its queue, and under make test-busy the cell had no
// flow control at all (0 sent, 0 s paused) where a quieter run had node 3 send 2,190.
func checkGaleraPause(t *testing.T, run *results.Run, s *results.Data, i int) {
	acked, _ := s.Float(i, "failover_acked")
	lost, ok := s.Float(i, "failover_acked_lost")
	unavailable, _ := s.Float(i, "failover_unavailable_s")
	t.Logf("pause drill: %v ids acknowledged, %v lost, %v s without a write", acked, lost, unavailable)
	if !ok || acked <= 0 || lost != 0 || unavailable <= 0 {
		t.Errorf("pause drill: %v acknowledged, %v lost (%v), %v s without a write; want ids acknowledged, none lost, a hold", acked, lost, ok, unavailable)
	}
	for _, target := range []string{"db_node3", "db"} {
		for _, j := range summaryRows(run, target) {
			if run.Summary.Value(j, "iteration") == s.Value(i, "iteration") {
				v, _ := run.Summary.Float(j, "wsrep.fc_sent")
				p, _ := run.Summary.Float(j, "wsrep.fc_paused_s")
				t.Logf("pause drill: %s sent %v flow control pauses, was paused %v s", target, v, p)
			}
		}
	}
}
