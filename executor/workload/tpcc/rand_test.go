package tpcc

import (
	"strings"
	"testing"
)

func TestLastNameAndNURand(t *testing.T) {
	// Clause 4.3.2.3's examples.
	if got := lastName(371); got != "PRICALLYOUGHT" {
		t.Errorf("lastName(371) = %s", got)
	}
	if got := lastName(0); got != "BARBARBAR" {
		t.Errorf("lastName(0) = %s", got)
	}
	g := newRng(1)
	for range 10000 {
		if v := g.nurand(1023, 500, 1, 3000); v < 1 || v > 3000 {
			t.Fatalf("NURand(1023, 1, 3000) = %d", v)
		}
		k := runConstants(g)
		d := k.cLast - loadCLast
		if d < 0 {
			d = -d
		}
		if d < 65 || d > 119 || d == 96 || d == 112 || k.cID > 1023 || k.olIID > 8191 {
			t.Fatalf("run constants %+v break clause 2.1.6.1 against the load's %d", k, loadCLast)
		}
	}
}

func TestParseParams(t *testing.T) {
	p, err := ParseParams(map[string]string{"warehouses": "3", "weight_delivery": "0", "wait_times": "on", "foreign_keys": "true"})
	if err != nil || p.Warehouses != 3 || p.Weights != [5]int{45, 43, 4, 0, 4} || !p.WaitTimes || !p.ForeignKeys || !p.Indexes {
		t.Errorf("%+v %v", p, err)
	}
	for opts, want := range map[[2]string]string{
		{"warehouses", "0"}:      "option warehouses: want a whole number >= 1",
		{"wait_times", "maybe"}:  "option wait_times: want true or false",
		{"weight_payment", "-1"}: "option weight_payment: want a whole number >= 0",
		{"tables", "4"}:          "unknown tpcc option(s) tables",
	} {
		if _, err := ParseParams(map[string]string{opts[0]: opts[1]}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: %v, want %q", opts, err, want)
		}
	}
}
