package main

import (
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/results"
)

// builtin:galera-cost's cells: writers=one runs every thread on db and has no node
// columns; writers=all has each node's transactions, which add up to the cell's, and its
// cert_failures among its errors.
func checkGaleraCost(t *testing.T, run *results.Run) {
	rows := summaryRows(run, "db")
	if len(rows) != 2 {
		t.Fatalf("summary rows of db %v, want writers one and all", rows)
	}
	for _, i := range rows {
		writers, s := run.Summary.Value(i, "writers"), run.Summary
		certs, _ := s.Float(i, "cert_failures")
		errs, _ := s.Float(i, "errors")
		tx, _ := s.Float(i, "transactions")
		t.Logf("writers=%s: %v transactions, %v errors, %v cert failures", writers, tx, errs, certs)
		if certs > errs {
			t.Errorf("writers=%s: %v cert failures of %v errors; a cert failure is an error too", writers, certs, errs)
		}
		var nodes float64
		var named int
		for _, h := range s.Header {
			if v, ok := s.Float(i, h); ok && strings.HasPrefix(h, "node.") && strings.HasSuffix(h, ".transactions") {
				nodes += v
				named++
			}
		}
		switch writers {
		case "one":
			if named != 0 {
				t.Errorf("writers=one has %d node.*.transactions cells, want none", named)
			}
		case "all":
			if named != 3 || nodes != tx {
				t.Errorf("writers=all: %d nodes' transactions adding up to %v, want 3 adding up to %v", named, nodes, tx)
			}
		default:
			t.Errorf("a summary row of writers %q", writers)
		}
	}
}
