package verify

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/executor/traffic"
	"github.com/quadrant-bench/quadrant/results"
)

// The verdict rule on fixed samples: a change is faster or slower only when it is at least
// the minimum change and its interval lies beyond half of it; rounds are judged two by two,
// so the order of the runs within a round cancels.
func TestLatencyVerdict(t *testing.T) {
	base := []float64{1.00, 1.01, 0.99, 1.02, 0.98, 1.00, 1.01, 0.99, 1.00, 1.00}
	scaled := func(f float64) []float64 {
		out := make([]float64, len(base))
		for i, x := range base {
			out[i] = f * x
		}
		return out
	}
	for _, c := range []struct {
		name      string
		other     []float64
		minChange float64
		want      string
	}{
		{"5% slower, steady: the interval is above 0 but the change under 10%", scaled(1.05), 10, results.VerifySame},
		{"the same 5% with no minimum", scaled(1.05), 0, results.VerifySlower},
		{"twice as slow", scaled(2), 10, results.VerifySlower},
		{"half the time", scaled(0.5), 10, results.VerifyFaster},
		{"the same times", scaled(1), 10, results.VerifySame},
		// 30% slower in the mean, but from one run of many: the interval holds 0
		{"one outlier", append(scaled(1)[:9], 4), 10, results.VerifySame},
		{"one run", []float64{2}, 10, results.VerifyNoLatency},
		// the second run of a round is quicker whichever target it is on: rounds alternate
		// the target's share of it, x0.8 then x1.25, which blocks of two rounds cancel
		{"order of the runs", func() []float64 {
			out := scaled(1)
			for i := range out {
				if i%2 == 0 {
					out[i] *= 0.8
				} else {
					out[i] *= 1.25
				}
			}
			return out
		}(), 10, results.VerifySame},
		{"not timed", nil, 10, results.VerifyNoLatency},
	} {
		r := results.QueryRow{FingerprintID: "q0123456789ab", Target: "new"}
		judgeLatency(&r, base, c.other, c.minChange, 1)
		if r.Latency != c.want {
			t.Errorf("%s: %s (change %.1f%%, CI %.1f..%.1f); want %s", c.name, r.Latency, r.Change, r.ChangeLo, r.ChangeHi, c.want)
		}
		if c.want == results.VerifyNoLatency {
			continue
		}
		if r.Timed != int64(min(len(base), len(c.other))) || math.IsNaN(r.BaseP95) || math.IsNaN(r.P95) || !(r.ChangeLo <= r.Change && r.Change <= r.ChangeHi) {
			t.Errorf("%s: %+v; want timed, both p95s and the change within its interval", c.name, r)
		}
		again := results.QueryRow{FingerprintID: "q0123456789ab", Target: "new"}
		judgeLatency(&again, base, c.other, c.minChange, 1)
		if again.ChangeLo != r.ChangeLo || again.ChangeHi != r.ChangeHi {
			t.Errorf("%s: the interval is %v..%v, then %v..%v: the bootstrap is not seeded", c.name, r.ChangeLo, r.ChangeHi, again.ChangeLo, again.ChangeHi)
		}
	}
	if v := latencyVerdict(math.NaN(), math.NaN(), math.NaN(), 10); v != results.VerifyNoLatency {
		t.Errorf("no change: %s, want none", v)
	}
	for _, c := range []struct {
		change, lo, hi float64
		want           string
	}{
		{12, 3, 20, results.VerifySame}, // clear of 0, not of half the minimum
		{12, 6, 20, results.VerifySlower},
		{-12, -20, -3, results.VerifySame},
		{-12, -20, -6, results.VerifyFaster},
		{8, 6, 10, results.VerifySame}, // under the minimum
	} {
		if v := latencyVerdict(c.change, c.lo, c.hi, 10); v != c.want {
			t.Errorf("change %g%% (%g..%g): %s, want %s", c.change, c.lo, c.hi, v, c.want)
		}
	}
}

// events are 20k rows looked up by code: by index on the base, by a scan of the table on
// the new server. flags differ between the two: one more 'a' on the new one.
func events(t *testing.T, s *sandbox.Server, index bool) {
	t.Helper()
	stmts := []string{
		"CREATE DATABASE app",
		"CREATE TABLE app.events (id INT PRIMARY KEY, code INT NOT NULL, payload VARCHAR(100) NOT NULL)",
		"INSERT INTO app.events SELECT seq, seq * 7, REPEAT('x', 90) FROM app.seq_1_to_20000",
		"CREATE TABLE app.flags (id INT PRIMARY KEY, status CHAR(1) NOT NULL)",
		"INSERT INTO app.flags VALUES (1, 'a'), (2, 'a'), (3, 'a'), (4, 'z'), (5, 'z')",
	}
	if index {
		stmts = append(stmts, "ALTER TABLE app.events ADD KEY idx_code (code)")
	} else {
		stmts = append(stmts, "UPDATE app.flags SET status = 'a' WHERE id = 4")
	}
	if err := s.Exec(context.Background(), append(stmts, "ANALYZE TABLE app.events, app.flags")...); err != nil {
		t.Fatal(err)
	}
}

// A lookup that lost its index is slower on the new server, with its plan different; a
// primary key lookup is the same. Writes run only with --writes, and an UPDATE that
// changes another number of rows on the new server differs.
func TestVerifyLatencyAndWrites(t *testing.T) {
	base, next := startPair(t, nil, nil)
	events(t, base.Primary, true)
	events(t, next.Primary, false)
	baseDB, nextDB := sandboxtest.DB(t, base.Primary.DSN(""), 2), sandboxtest.DB(t, next.Primary.DSN(""), 2)
	targets := []Target{{"base", baseDB}, {"new", nextDB}}

	dir := t.TempDir()
	capPath := filepath.Join(dir, "traffic.qcap")
	writeTraffic(t, capPath, []traffic.Statement{
		{Session: 1, Schema: "app", Text: "SELECT id, payload FROM events WHERE code = 700"},
		{Session: 2, Schema: "app", Text: "SELECT code FROM events WHERE id = 5"},
		{Session: 1, Schema: "app", Text: "UPDATE flags SET status = 'b' WHERE status = 'a'"},
		{Session: 2, Schema: "app", Text: "SELECT id, payload FROM events WHERE code = 1407"},
		{Session: 1, Schema: "app", Text: "INSERT INTO flags VALUES (100, 'c')"},
		{Session: 2, Schema: "app", Text: "SELECT code FROM events WHERE id = 12"},
	})
	verify := func(name string, o Options) (map[string]results.QueryRow, string) {
		t.Helper()
		out := filepath.Join(dir, name)
		w, err := results.Create(out)
		if err != nil {
			t.Fatal(err)
		}
		o.Traffic, o.Targets, o.Sample, o.Seed, o.Out, o.Logf = capPath, targets, 2, 1, w, t.Logf
		if _, err := Run(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		rows, err := results.ReadQueries(out)
		if err != nil {
			t.Fatal(err)
		}
		byFP := map[string]results.QueryRow{}
		for _, r := range rows {
			t.Logf("%s | %s | %s | %s | p95 %.3f → %.3f ms | %.1f%% (%.1f..%.1f) n=%d | %s", r.Fingerprint, r.Results, r.Plan, r.Latency,
				r.BaseP95, r.P95, r.Change, r.ChangeLo, r.ChangeHi, r.Timed, r.Differences)
			f := strings.Fields(r.Fingerprint)
			byFP[f[0]+" "+f[1]] = r
		}
		log, err := os.ReadFile(filepath.Join(out, results.LogFile))
		if err != nil {
			t.Fatal(err)
		}
		return byFP, string(log)
	}
	rows, log := verify("reads", Options{Repeat: 100, MinChange: DefaultMinChange})
	if len(rows) != 2 {
		t.Fatalf("%d fingerprints in queries.csv, want 2: the writes are not run without --writes", len(rows))
	}
	lookup, pk := rows["select id,"], rows["select code"]
	if lookup.Plan != results.VerifyDifferent || lookup.Latency != results.VerifySlower || lookup.Timed != 100 ||
		!(lookup.P95 > lookup.BaseP95) || !(lookup.ChangeLo > 0) {
		t.Errorf("lookup by code: %+v; want plan different, latency slower over 100 runs a side, p95 higher on new", lookup)
	}
	if pk.Plan != results.VerifySame || pk.Timed != 100 || math.IsNaN(pk.BaseP95) || math.IsNaN(pk.P95) {
		t.Errorf("primary key lookup: %+v; want plan same, both p95s, 100 runs a side", pk)
	}
	// The primary key lookup is the same statement on the same rows, yet its latency verdict
	// is not asserted: a server scanning 20k rows at every round is a busier process, which a
	// loaded host's scheduler then serves later for its next statement too. Among the whole
	// suite it came out +47% beside the scan's +603%, -11% beside +897% (CI, load 5) and
	// +398% beside +408% (two suites at once under CPU hogs, load 11). How the verdict of an
	// unchanged statement holds up beside a regressed one is for a benchmark to measure.
	t.Logf("primary key lookup beside the scan: %s, %+.0f%% (%.0f..%.0f) beside %+.0f%%", pk.Latency, pk.Change, pk.ChangeLo, pk.ChangeHi, lookup.Change)
	if strings.Contains(log, WritesWarning) {
		t.Errorf("log.txt warns of writes without --writes:\n%s", log)
	}
	for name, db := range map[string]*sql.DB{"base": baseDB, "new": nextDB} {
		var changed int
		if err := db.QueryRow("SELECT COUNT(*) FROM app.flags WHERE status <> 'a' AND status <> 'z' OR id = 100").Scan(&changed); err != nil {
			t.Fatal(err)
		}
		if changed != 0 {
			t.Errorf("%s: %d flags written without --writes", name, changed)
		}
	}

	// A target gone before timing (its handle closed: every connection fails) is none for
	// what it did not time, and the verification goes on.
	gone := sandboxtest.DB(t, next.Primary.DSN(""), 1)
	o := Options{Traffic: capPath, Targets: []Target{{"base", baseDB}, {"gone", gone}}, Sample: 2, Repeat: 5}
	fps, _, err := read(o)
	if err != nil {
		t.Fatal(err)
	}
	runs := []*targetRun{runTarget(context.Background(), o.Targets[0], fps, t.Logf), runTarget(context.Background(), o.Targets[1], fps, t.Logf)}
	gone.Close()
	var logged []string
	lat := timeReads(context.Background(), o, fps, runs, func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) })
	for fi, fp := range fps {
		r := results.QueryRow{FingerprintID: fp.id, Target: "gone"}
		judgeLatency(&r, lat.of(fi, 0), lat.of(fi, 1), DefaultMinChange, 1)
		if len(lat.of(fi, 0)) != 5 || lat.of(fi, 1) != nil || r.Latency != results.VerifyNoLatency {
			t.Errorf("%s: %d runs on base, %d on the target gone, latency %s; want 5, none and none", fp.text, len(lat.of(fi, 0)), len(lat.of(fi, 1)), r.Latency)
		}
	}
	if !strings.Contains(strings.Join(logged, "\n"), "target gone lost while timing") {
		t.Errorf("the log does not say the target was lost: %q", logged)
	}

	rows, log = verify("writes", Options{Writes: true})
	if len(rows) != 4 {
		t.Fatalf("%d fingerprints in queries.csv, want 4: two reads, two writes", len(rows))
	}
	upd, ins := rows["update flags"], rows["insert into"]
	if upd.Results != results.VerifyDifferent || upd.Differences != "affected rows 3 → 4" || upd.Plan != results.VerifyNoPlan || upd.Latency != results.VerifyNoLatency {
		t.Errorf("UPDATE: %+v; want results different (affected rows 3 → 4), no plan, no latency", upd)
	}
	if ins.Results != results.VerifySame || ins.Differences != "" {
		t.Errorf("INSERT: %+v; want results same", ins)
	}
	if rows["select id,"].Latency != results.VerifyNoLatency {
		t.Errorf("lookup timed with Repeat 0: %+v", rows["select id,"])
	}
	if !strings.Contains(log, WritesWarning) {
		t.Errorf("log.txt does not warn of --writes:\n%s", log)
	}
	for _, c := range []struct {
		name string
		db   *sql.DB
		want int
	}{{"base", baseDB, 3}, {"new", nextDB, 4}} {
		name, db, want := c.name, c.db, c.want
		var b, c int
		if err := db.QueryRow("SELECT SUM(status = 'b'), SUM(id = 100) FROM app.flags").Scan(&b, &c); err != nil {
			t.Fatal(err)
		}
		if b != want || c != 1 {
			t.Errorf("%s after --writes: %d flags updated and %d inserted; want %d and 1", name, b, c, want)
		}
	}
}
