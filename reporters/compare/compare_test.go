package compare

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/reporters/internal/fixture"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
)

func load(t *testing.T, scale float64, edit func(*results.RunInfo)) *results.Run {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	fixture.Folder(t, dir, scale)
	r, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(r.Info)
	}
	return r
}

func TestCompareLinesUpCellsAndReportsChanges(t *testing.T) {
	a := load(t, 1, nil)
	b := load(t, 1.25, func(ri *results.RunInfo) {
		ri.PlanSHA256 = "other"
		ri.Targets[0].ServerVersion = "11.4.2"
		ri.Targets[0].VariablesBefore = map[string]string{"innodb_flush_method": "fsync", "sync_binlog": "0", "port": "1"}
	})
	b.Plan = "version: 1\nname: fixture\nvars: {threads: 8}\n"
	b.Info.Overrides = &results.Overrides{Set: []string{"threads=8"}}
	c := Compare([]*results.Run{a, b}, []string{"tps", "p95_ms"})
	if len(c.Cells) != 2 {
		t.Fatalf("cells %v, want 2", c.Cells)
	}
	if c.Cells[1].Key != "threads=4 @primary" {
		t.Fatalf("second cell %q", c.Cells[1].Key)
	}
	tps := c.Cells[1].Values["tps"]
	if tps[0] != 4000 || tps[1] != 5000 {
		t.Fatalf("tps %v, want [4000 5000]", tps)
	}
	if ch := Change(tps[0], tps[1]); math.Abs(ch-25) > 1e-9 {
		t.Fatalf("change %v, want 25", ch)
	}
	var buf bytes.Buffer
	if err := c.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"25.0", "ran a different plan", "--set threads=8", "vars: added ({threads: 8})", "10.11.19", "11.4.2", "innodb_flush_method O_DIRECT -> fsync"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "port ") {
		t.Errorf("noisy variable port reported:\n%s", out)
	}
}

func TestCompareMissingCellIsNaN(t *testing.T) {
	a := load(t, 1, nil)
	b := load(t, 1, nil)
	b.Summary.Rows = b.Summary.Rows[:1]
	c := Compare([]*results.Run{a, b}, []string{"tps"})
	if v := c.Cells[1].Values["tps"]; !math.IsNaN(v[1]) || v[0] != 4000 {
		t.Fatalf("values %v, want [4000 NaN]", v)
	}
}

// Two sandboxes of the same plan differ in their own directories and generated ids, never
// in a setting that changes a result: none of that is a difference worth reading.
func TestInstancePathsAndIdsAreNotSettings(t *testing.T) {
	vars := func(root, uid, pool string) map[string]string {
		return map[string]string{
			"datadir": root + "/db/data/", "tmpdir": root + "/db/tmp", "socket": root + "/db/mysqld.sock",
			"pid_file": root + "/db/mysqld.pid", "aria_log_dir_path": root + "/db/data/",
			"slave_load_tmpdir": root + "/db/tmp", "wsrep_data_home_dir": root + "/db/data/",
			"server_uid": uid, "innodb_buffer_pool_size": pool, "log_bin_basename": root + "/db/data/binlog",
			"innodb_tmpdir": "/srv/" + uid,
		}
	}
	a := load(t, 1, func(ri *results.RunInfo) {
		ri.Targets[0].VariablesBefore = vars("/tmp/quadrant-db-1982664008", "i9gb+PnujNNN", "134217728")
	})
	b := load(t, 1, func(ri *results.RunInfo) {
		ri.Targets[0].VariablesBefore = vars("/tmp/quadrant-db-1730272590", "ExJBAX2bV4oR", "67108864")
	})
	c := Compare([]*results.Run{a, b}, []string{"tps"})
	var lines []string
	for _, d := range c.Differences[0].Ranked {
		lines = append(lines, d.Text)
	}
	settings := strings.Join(lines, "\n")
	if !strings.Contains(settings, "innodb_buffer_pool_size 134217728 -> 67108864") {
		t.Fatalf("the buffer pool change is not reported: %q", settings)
	}
	// a path outside the server's own directory that really differs is still a setting
	if !strings.Contains(settings, "innodb_tmpdir") {
		t.Errorf("innodb_tmpdir, outside the instance, is not reported: %q", settings)
	}
	for _, noise := range []string{"aria_log_dir_path", "server_uid", "slave_load_tmpdir", "wsrep_data_home_dir"} {
		if strings.Contains(settings, noise) {
			t.Errorf("%s is per-instance noise, reported: %q", noise, settings)
		}
	}
	if !strings.Contains(c.Notes[0], "ran the same plan") {
		t.Errorf("same plan.yaml, first note %q", c.Notes[0])
	}
}

// Around the numbers says which filesystem each run's sandbox data was on.
func TestCompareNotesTheStorage(t *testing.T) {
	on := func(fs, dev, mount string) func(*results.RunInfo) {
		return func(ri *results.RunInfo) {
			for i := range ri.Iterations {
				ri.Iterations[i].Storage = []results.Storage{{Target: "primary", DataDir: mount + "/q/quadrant-primary-x/primary/data",
					Filesystem: fs, Device: dev, Mount: mount, FreeBytes: uint64(i+1) << 30}}
			}
		}
	}
	a, b := load(t, 1, on("tmpfs", "tmpfs", "/dev/shm")), load(t, 1, on("ext4", "/dev/sda1", "/var"))
	c := Compare([]*results.Run{a, b}, []string{"tps"})
	want := "target primary: data directory on " + a.Dir + ": tmpfs (tmpfs at /dev/shm); " + b.Dir + ": ext4 (/dev/sda1 at /var)."
	if !slices.Contains(c.Notes, want) {
		t.Fatalf("notes %q lack %q", c.Notes, want)
	}
}

func TestCheckMetricsNamesTheUnknownOnes(t *testing.T) {
	runs := []*results.Run{load(t, 1, nil), load(t, 1, nil)}
	if err := CheckMetrics(runs, []string{"tps", "p95_ms"}); err != nil {
		t.Fatal(err)
	}
	err := CheckMetrics(runs, []string{"tps", "p95"})
	if err == nil || !strings.Contains(err.Error(), `unknown metric "p95"; did you mean "p95_ms"?`) || !strings.Contains(err.Error(), "p99_ms") {
		t.Fatalf("error %v", err)
	}
}

// withTable is a fixture folder with a kind's table file of those rows (after the header,
// "IT" the first summary row's iteration), its run.json declaring decl (none: a folder of
// before declarations, whose replay tables results declares as of their time).
func withTable(t *testing.T, file string, header []string, rows [][]string, decl *measure.Table) *results.Run {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	fixture.Folder(t, dir, 1)
	r, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(header, ",") + "\n"
	for _, row := range rows {
		text += strings.ReplaceAll(strings.Join(row, ","), "IT", r.Summary.Value(0, "iteration")) + "\n"
	}
	if err := os.WriteFile(filepath.Join(dir, file), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if decl != nil {
		r.Info.AddTables([]measure.Table{*decl})
		if err := results.WriteJSON(filepath.Join(dir, results.RunFile), r.Info); err != nil {
			t.Fatal(err)
		}
	}
	if r, err = results.Load(dir); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestFingerprintsLineUp: the fingerprints two old folders replayed (fingerprints.csv,
// declared by results as of their time) line up by cell and id, each with its p95 per run
// and the change; one only the second run replayed has no base.
func TestFingerprintsLineUp(t *testing.T) {
	header := []string{"iteration", "target", "rank", "fingerprint_id", "count", "p95_ms", "fingerprint"}
	a := withTable(t, "fingerprints.csv", header, [][]string{
		{"IT", "primary", "1", "q000000000001", "100", "2", "select ?"},
		{"IT", "primary", "2", "q000000000002", "50", "4", "update t set v=?"},
	}, nil)
	b := withTable(t, "fingerprints.csv", header, [][]string{
		{"IT", "primary", "1", "q000000000002", "50", "3", "update t set v=?"},
		{"IT", "primary", "2", "q000000000001", "100", "3", "select ?"},
		{"IT", "primary", "3", "q000000000003", "7", "1", "delete from t"},
	}, nil)
	c := Compare([]*results.Run{a, b}, []string{"tps"})
	if len(c.Tables) != 1 || len(c.Tables[0].Rows) != 3 {
		t.Fatalf("tables %+v", c.Tables)
	}
	rows := c.Tables[0].Rows
	f := rows[0]
	if f.ID != "q000000000001" || f.Text != "select ?" || f.Value[0] != 2 || f.Value[1] != 3 || f.Change[1] != 50 || f.Cell != cellKey(a, 0) {
		t.Errorf("first: %+v", f)
	}
	if f := rows[1]; f.ID != "q000000000002" || f.Change[1] != -25 {
		t.Errorf("second: %+v", f)
	}
	if f := rows[2]; !math.IsNaN(f.Value[0]) || !math.IsNaN(f.Change[1]) || f.Count[1] != 7 {
		t.Errorf("only in run 2: %+v", f)
	}
	var buf bytes.Buffer
	if err := c.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"Statement fingerprints (replayed p95 ms per run, the median over repeats):\n",
		"fingerprint    run 1 p95  count  run 2 p95  count  Δ%     statement\n", "-25.0", "update t set v=?"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
}

// A kind's table whose declaration says so is lined up by its own columns, titled by its
// declaration; a table declared without it, or with no rows, is not.
func TestDeclaredTablesLineUp(t *testing.T) {
	header := []string{"iteration", "target", "widget", "made", "seconds"}
	decl := &measure.Table{File: "widgets.csv", Title: "Widgets made", Key: []string{"iteration", "target", "widget"},
		Columns: []measure.TableColumn{{Name: "widget", Merge: "key"}, {Name: "made", Merge: "sum"}, {Name: "seconds", Unit: "s", Merge: "sum"}},
		Compare: &measure.TableCompare{Row: "widget", Value: "seconds"}}
	a := withTable(t, "widgets.csv", header, [][]string{{"IT", "primary", "cog", "3", "10"}}, decl)
	b := withTable(t, "widgets.csv", header, [][]string{{"IT", "primary", "cog", "4", "12"}}, decl)
	plain := *decl
	plain.Compare = nil
	d := withTable(t, "widgets.csv", header, [][]string{{"IT", "primary", "cog", "4", "12"}}, &plain)
	if c := Compare([]*results.Run{d, d}, []string{"tps"}); len(c.Tables) != 0 {
		t.Errorf("a table not declared for comparison is lined up: %+v", c.Tables)
	}
	c := Compare([]*results.Run{a, b}, []string{"tps"})
	if len(c.Tables) != 1 || len(c.Tables[0].Rows) != 1 {
		t.Fatalf("tables %+v", c.Tables)
	}
	if r := c.Tables[0].Rows[0]; r.ID != "cog" || r.Value[1] != 12 || r.Change[1] != 20 || !math.IsNaN(r.Count[0]) {
		t.Errorf("row %+v", r)
	}
	var buf bytes.Buffer
	if err := c.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Widgets made (seconds s per run, the median over repeats):\n", "widget  run 1 seconds  run 2 seconds  Δ%\n", "20.0"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, buf.String())
		}
	}
}

// tpcc folders written before run.json described tpmC are compared as new ones: by tpmC
// first, per minute and higher better (results describes the columns of old folders).
func TestCompareOldTPCCFolders(t *testing.T) {
	var runs []*results.Run
	for _, scale := range []float64{1, 1.5} {
		dir := filepath.Join(t.TempDir(), "tpcc")
		fixture.OldTPCC(t, dir, scale)
		r, err := results.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	c := Compare(runs, nil)
	if len(c.Metrics) == 0 || c.Metrics[0] != "tpmC" {
		t.Fatalf("metrics %v, want tpmC first", c.Metrics)
	}
	if d := c.Describe("tpmC"); d.Unit != measure.PerMinute || d.Better != measure.Higher || d.Metric == nil || !strings.Contains(d.Metric.Doc, "NewOrder") {
		t.Errorf("tpmC of an old folder is %+v", d)
	}
}

// tpcc folders are compared by tpmC and each transaction's p90 first, what the metric table
// marks as their headline; folders without tpmC by the usual defaults.
func TestCompareLeadsWithTheHeadlineOfTPCC(t *testing.T) {
	var runs []*results.Run
	for _, scale := range []float64{1, 1.5} {
		dir := filepath.Join(t.TempDir(), "tpcc")
		fixture.TPCC(t, dir, scale, false)
		r, err := results.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	c := Compare(runs, nil)
	want := append([]string{"tpmC", "tx.new_order.p90_ms", "tx.payment.p90_ms"}, DefaultMetrics...)
	if !slices.Equal(c.Metrics, want) {
		t.Fatalf("metrics %v, want %v", c.Metrics, want)
	}
	if v := c.Cells[0].Values["tpmC"]; v[0] != 60*float64(fixture.TPCCNewOrders(1, 1)) || v[1] != 60*float64(fixture.TPCCNewOrders(1, 1.5)) {
		t.Errorf("tpmC of threads=1: %v", v)
	}
	var buf bytes.Buffer
	if err := c.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	if i, j := strings.Index(buf.String(), "tpmC"), strings.Index(buf.String(), "tps"); i < 0 || i > j {
		t.Errorf("the comparison does not lead with tpmC:\n%s", buf.String())
	}
	if got := Compare([]*results.Run{load(t, 1, nil), load(t, 1, nil)}, nil).Metrics; !slices.Equal(got, DefaultMetrics) {
		t.Errorf("without tpcc: metrics %v, want %v", got, DefaultMetrics)
	}
}
