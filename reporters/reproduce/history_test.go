package reproduce_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/reporters/reproduce"
	"github.com/quadrant-bench/quadrant/results"
)

// A folder's records say, per effect it states, what each rerun found and where it ran;
// a record made against other results (the folder's summary changed since) is left out
// with a note, not counted.
func TestHistoryOfRecordedReruns(t *testing.T) {
	pub := flushFolder(t, "published", 3, published, nil)
	hosts := []string{"alpha", "beta", "gamma"}
	for i, host := range hosts {
		fx := 1.0
		if host == "gamma" {
			fx = 1 / 1.2 // no flush effect there
		}
		here := flushFolder(t, host, 3, func(threads int, flush string, repeat int) float64 {
			v := published(threads, flush, repeat)
			if flush == "2" {
				v *= fx
			}
			return v
		}, nil)
		here.Info.Host = host
		if host == "gamma" {
			here.Info.Targets[0].VariablesBefore = map[string]string{"innodb_buffer_pool_size": "8589934592"}
		}
		rec, err := reproduce.Judge(pub, here).Record("test", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		rec.Rerun.Environment.Host = host
		rec.Rerun.Start = rec.Rerun.Start.Add(time.Duration(i) * time.Hour)
		if err := results.WriteReproduction(filepath.Join(pub.Dir, results.ReproductionsDir, results.RecordName(rec)), rec); err != nil {
			t.Fatal(err)
		}
	}
	stale := filepath.Join(pub.Dir, results.ReproductionsDir, "stale.json")
	data, _ := os.ReadFile(filepath.Join(pub.Dir, results.ReproductionsDir, "20261130-120000-alpha.json"))
	os.WriteFile(stale, []byte(strings.Replace(string(data), `"identity": "`, `"identity": "0000`, 1)), 0o644)

	recs, warnings := results.Reproductions(pub.Dir)
	if len(recs) != 4 || len(warnings) != 0 {
		t.Fatalf("%d records, warnings %q", len(recs), warnings)
	}
	claims, notes := reproduce.History(pub, recs)
	var b bytes.Buffer
	if err := reproduce.WriteHistory(&b, pub.Dir, recs, claims, notes); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"  flush_log 2 vs 1 at threads=16, tps: 2 reproduced, 1 not reproduced\n",
		"    reproduced      on alpha (MariaDB 10.11.19), 2026-11-30 12:00: +20.0% (95% CI ",
		"    NOT REPRODUCED  on gamma (MariaDB 10.11.19), 2026-11-30 14:00: +0.0% (95% CI ",
		"; settings that differed: primary.innodb_buffer_pool_size 134217728 -> 8589934592\n",
		"  threads 16 vs 4 at flush_log=1, tps: 3 reproduced\n",
		"  note: stale.json was made against other results (identity 0000",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("history lacks %q:\n%s", want, out)
		}
	}
}

// Several folders of one plan: each effect with each folder's change, in the folders'
// order; a folder without the effect's cells has none.
func TestAcrossFolders(t *testing.T) {
	a := flushFolder(t, "a", 3, published, nil)
	b := flushFolder(t, "b", 3, func(threads int, flush string, repeat int) float64 { return published(threads, "1", repeat) }, nil)
	series := reproduce.Across([]*results.Run{a, b})
	if len(series) != 8 {
		t.Fatalf("%d series, want 8", len(series))
	}
	var b2 bytes.Buffer
	if err := reproduce.WriteAcross(&b2, "flush-matrix", []*results.Run{a, b}, series); err != nil {
		t.Fatal(err)
	}
	out := b2.String()
	for _, want := range []string{"effects across 2 folders of plan flush-matrix",
		"  flush_log 2 vs 1 at threads=16, tps:\n    " + a.Dir + " (testhost, 2026-11-30 12:00): +20.0% (95% CI ",
		"\n    " + b.Dir + " (testhost, 2026-11-30 12:00): +0.0% (95% CI "} {
		if !strings.Contains(out, want) {
			t.Errorf("across lacks %q:\n%s", want, out)
		}
	}
}
