// Package compare lines up the iterations of two or more results folders (a published
// run and a colleague's rerun, say) and reports the differences: per matrix cell and
// target, each metric with its change against the first folder; and what differed
// around the numbers (server versions, settings, the plan itself).
package compare

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/results/noise"
	"github.com/quadrant-bench/quadrant/spec"
)

// DefaultMetrics are the summary columns compared unless asked otherwise: those the
// metric table marks for comparison.
var DefaultMetrics = measure.CompareDefaults()

// Cell is one matrix cell on one target, with each run's value per metric: the median
// over the cell's repeats, NaN when the run has no such cell; each run's noise, and each
// later run's verdict against the first.
type Cell struct {
	Key      string               // "threads=8 flush=O_DIRECT @primary"
	Values   map[string][]float64 // metric -> value per run
	Stats    map[string][]Stats   // metric -> per run
	Verdicts map[string][]Verdict // metric -> per run; the first run's is empty
	// Target is the cell's target, and Iterations per run its measured iterations there
	// (interrupted ones left out), for what is read per iteration: histograms, time series.
	Target     string
	Iterations [][]int
}

// Comparison is the result of Compare.
type Comparison struct {
	Runs    []*results.Run
	Metrics []string
	Cells   []Cell
	Notes   []string // differences around the numbers, one sentence each
	// Tables are the kinds' tables whose declaration has compare line them up across runs
	// (measure.TableCompare): replayed statement fingerprints, by their p95.
	Tables []TableChange
	// Evidence is where the time went, per cell with any: costs, statements, waits per transaction.
	Evidence []CellEvidence
	// Differences are, per later run against the first, what differed around the numbers,
	// most likely to move them first (RankedDifferences).
	Differences []RunDifferences

	series []map[string]*iterSeries // per run, "target iteration": what Overlay draws from
}

// Defaults are the metrics runs are compared by unless asked otherwise: the headline
// columns any of them has (tpcc: tpmC and tx.NAME.p90_ms, results.Headline), then
// DefaultMetrics.
func Defaults(runs []*results.Run) []string {
	var out []string
	for _, r := range runs {
		for _, h := range r.Headline() {
			if !slices.Contains(out, h) {
				out = append(out, h)
			}
		}
	}
	for _, m := range DefaultMetrics {
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

// Compare lines up runs[1:] against runs[0]; no metrics: Defaults(runs).
func Compare(runs []*results.Run, metrics []string) *Comparison {
	if len(metrics) == 0 {
		metrics = Defaults(runs)
	}
	c := &Comparison{Runs: runs, Metrics: metrics}
	var order []string
	seen := map[string]bool{}
	perRun := make([]map[string]*cellSamples, len(runs))
	for ri, run := range runs {
		groups := map[string]*cellSamples{}
		S := run.Summary
		loads := iterationLoads(run)
		for i := range S.Rows {
			key := cellKey(run, i)
			g, ok := groups[key]
			if !ok {
				g = &cellSamples{values: map[string][]float64{}, target: S.Value(i, results.ColTarget)}
				groups[key] = g
				if !seen[key] {
					seen[key] = true
					order = append(order, key)
				}
			}
			g.rows++
			if S.Value(i, results.ColStatus) == results.StatusInterrupted {
				continue
			}
			g.iterations = append(g.iterations, S.Value(i, results.ColIteration))
			g.addLoad(loads, S.Value(i, results.ColIteration))
			for _, m := range metrics {
				if v, ok := S.Float(i, m); ok {
					g.values[m] = append(g.values[m], v)
				}
			}
		}
		perRun[ri] = groups
	}
	c.series = readAllSeries(runs, perRun, metrics)
	for _, key := range order {
		cell := Cell{Key: key, Values: map[string][]float64{}, Stats: map[string][]Stats{}, Verdicts: map[string][]Verdict{}}
		for ri := range runs {
			var its []int
			if g := perRun[ri][key]; g != nil {
				cell.Target = g.target
				for _, s := range g.iterations {
					if n, err := strconv.Atoi(s); err == nil {
						its = append(its, n)
					}
				}
			}
			cell.Iterations = append(cell.Iterations, its)
		}
		for _, m := range metrics {
			for ri := range runs {
				g := perRun[ri][key]
				if g == nil {
					g = &cellSamples{}
				}
				st := stats(g, m, key)
				cell.Stats[m] = append(cell.Stats[m], st)
				cell.Values[m] = append(cell.Values[m], st.Median)
				if ri == 0 {
					cell.Verdicts[m] = append(cell.Verdicts[m], Verdict{})
					continue
				}
				v := verdict(c.Describe(m), cell.Stats[m][0], st, missing(perRun, 0, ri, key), key)
				cell.Verdicts[m] = append(cell.Verdicts[m], confound(v, perRun[0][key], g))
			}
		}
		c.Cells = append(c.Cells, cell)
	}
	c.Notes = append(notes(runs), hostNotes(runs)...)
	if n := loadNote(runs); n != "" {
		c.Notes = append(c.Notes, n)
	}
	for i, r := range runs[1:] {
		ds, hidden := differences(runs[0], r)
		c.Differences = append(c.Differences, RunDifferences{Run: i + 2, Ranked: ds, Hidden: hidden})
	}
	c.evidence()
	c.Tables = lineUpTables(runs)
	return c
}

// CheckMetrics returns an error naming each of metrics that no run's summary has, with the
// closest known column and the list of known ones: a typo must not show as a column of "-".
func CheckMetrics(runs []*results.Run, metrics []string) error {
	var known []string
	for _, r := range runs {
		for _, h := range r.Summary.Header {
			if !slices.Contains(known, h) {
				known = append(known, h)
			}
		}
	}
	var bad []string
	for _, m := range metrics {
		if !slices.Contains(known, m) {
			bad = append(bad, fmt.Sprintf("%q%s", m, spec.Suggest(m, known)))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(known)
	return fmt.Errorf("unknown metric %s: the folders' summaries have %s", strings.Join(bad, ", "), strings.Join(known, ", "))
}

// missing says why a cell cannot be compared between runs a and b: absent or interrupted
// on one side; "" when it can.
func missing(perRun []map[string]*cellSamples, a, b int, key string) string {
	for _, i := range []int{a, b} {
		g := perRun[i][key]
		switch {
		case g == nil:
			return fmt.Sprintf("run %d has no such cell", i+1)
		case len(g.iterations) == 0:
			return fmt.Sprintf("run %d's iterations of this cell were interrupted", i+1)
		}
	}
	return ""
}

// CellKey is the key of summary row i of run: Cell.Key of the cell it belongs to.
func CellKey(run *results.Run, i int) string { return cellKey(run, i) }

// cellKey names a summary row by its matrix values and target, not its iteration number,
// so runs with different repeat counts or an extra include still line up.
func cellKey(run *results.Run, i int) string {
	var parts []string
	for _, axis := range run.Info.Axes {
		parts = append(parts, axis+"="+run.Summary.Value(i, axis))
	}
	if len(parts) == 0 {
		parts = append(parts, "(single iteration)")
	}
	return strings.Join(parts, " ") + " @" + run.Summary.Value(i, results.ColTarget)
}

// Change is the relative change of v against base, in percent (NaN when undefined).
func Change(base, v float64) float64 { return noise.Change(base, v) }

// noisyVariables differ between any two servers without saying anything about performance.
// Paths under a server's own directories and generated instance ids are caught by rule
// (instanceNoise); this list is what no rule can tell.
var noisyVariables = map[string]bool{
	"hostname": true, "pid_file": true, "port": true, "socket": true, "datadir": true, "server_id": true,
	"server_uuid": true, "log_error": true, "general_log_file": true, "slow_query_log_file": true,
	"tmpdir": true, "basedir": true, "gtid_binlog_pos": true, "gtid_binlog_state": true, "gtid_current_pos": true,
	"gtid_slave_pos": true, "gtid_executed": true, "gtid_purged": true, "timestamp": true, "log_bin_basename": true,
	"log_bin_index": true, "relay_log_basename": true, "relay_log_index": true, "relay_log": true,
	"innodb_data_home_dir": true, "innodb_log_group_home_dir": true, "report_port": true, "plugin_dir": true,
	"version_compile_os": true, "version_compile_machine": true, "character_sets_dir": true, "lc_messages_dir": true,
	"secure_file_priv": true, "system_time_zone": true,
}

// planNote says whether r ran the same plan as base, judged by content (spec.PlanIdentity),
// and when not, exactly what differs and what on r's command line changed it.
func planNote(base, r *results.Run) string {
	idBase, idR := planIdentity(base), planIdentity(r)
	if idBase != "" && idBase == idR {
		what := "the same plan as"
		if o := r.Info.Overrides; o != nil && o.RerunOf != "" {
			what = "again the plan of"
		}
		return fmt.Sprintf("plan: %s ran %s %s (plan identity %.12s).", r.Dir, what, base.Dir, idBase)
	}
	var given []string
	if o := r.Info.Overrides; o != nil {
		for _, s := range o.Set {
			given = append(given, "--set "+s)
		}
		for _, t := range o.Targets {
			given = append(given, "--target "+t)
		}
	}
	how := ""
	if len(given) > 0 {
		how = " (its command line: " + strings.Join(given, ", ") + ")"
	}
	diff, err := spec.DiffPlans([]byte(base.Plan), []byte(r.Plan))
	if err != nil || base.Plan == "" || r.Plan == "" {
		return fmt.Sprintf("plan: %s ran a different resolved plan than %s%s (plan identity %.12s vs %.12s): compare plan.yaml of both.",
			r.Dir, base.Dir, how, idR, idBase)
	}
	const show = 12
	more := ""
	if len(diff) > show {
		more = fmt.Sprintf("; and %d more (compare plan.yaml of both)", len(diff)-show)
		diff = diff[:show]
	}
	return fmt.Sprintf("plan: %s ran a different plan than %s%s: %s%s.", r.Dir, base.Dir, how, strings.Join(diff, "; "), more)
}

// planIdentity is run.json's plan identity, or for an older folder the one of its plan.yaml.
func planIdentity(r *results.Run) string {
	if r.Info.PlanIdentity != "" {
		return r.Info.PlanIdentity
	}
	if r.Plan == "" {
		return ""
	}
	id, err := spec.PlanIdentity([]byte(r.Plan))
	if err != nil {
		return ""
	}
	return id
}

func notes(runs []*results.Run) []string {
	var out []string
	base := runs[0]
	out = append(out, storageNotes(runs)...)
	for _, r := range runs[1:] {
		name := r.Dir
		out = append(out, planNote(base, r))
		if base.Info.Version != r.Info.Version {
			out = append(out, fmt.Sprintf("quadrant: %s in %s, %s in %s.", base.Info.Version, base.Dir, r.Info.Version, name))
		}
		for _, bt := range base.Info.Targets {
			var ot *results.TargetInfo
			for i := range r.Info.Targets {
				if r.Info.Targets[i].Name == bt.Name {
					ot = &r.Info.Targets[i]
				}
			}
			if ot == nil {
				out = append(out, fmt.Sprintf("%s has no target %q.", name, bt.Name))
				continue
			}
			if a, b := clientSide(bt), clientSide(*ot); a != b {
				out = append(out, fmt.Sprintf("target %s: the client's connection was %s in %s, %s in %s.", bt.Name, a, base.Dir, b, name))
			}
		}
	}
	return out
}

// clientSide says how quadrant reached a target, the side of a comparison a server's
// settings do not show: a sandbox or a DSN, and its TLS (mode, version, cipher, the CA by
// its sha256) or plaintext. A rerun from verified TLSv1.3 to plaintext is such a change.
func clientSide(t results.TargetInfo) string {
	how := t.Kind
	if how == "" {
		how = "a target"
	}
	if t.TLS == nil || t.TLS.Version == "" {
		return how + " over plaintext"
	}
	s := fmt.Sprintf("%s over TLS %s (%s, %s", how, t.TLS.Mode, t.TLS.Version, t.TLS.Cipher)
	if t.TLS.CA != nil && t.TLS.CA.SHA256 != "" {
		s += ", CA sha256 " + t.TLS.CA.SHA256[:min(12, len(t.TLS.CA.SHA256))]
	}
	return s + ")"
}

// storageNotes say which filesystems each run's sandbox data was on (run.json's storage), per
// target, when any run recorded it: storage compared across runs or across a matrix axis.
func storageNotes(runs []*results.Run) []string {
	var targets []string
	per := map[string][][]string{} // target -> per run, the distinct filesystems in iteration order
	for ri, r := range runs {
		for _, it := range r.Info.Iterations {
			for _, st := range it.Storage {
				if _, ok := per[st.Target]; !ok {
					targets = append(targets, st.Target)
					per[st.Target] = make([][]string, len(runs))
				}
				fs := storageText(st)
				if !slices.Contains(per[st.Target][ri], fs) {
					per[st.Target][ri] = append(per[st.Target][ri], fs)
				}
			}
		}
	}
	var out []string
	for _, t := range targets {
		var parts []string
		for ri, r := range runs {
			where := "not recorded"
			if fs := per[t][ri]; len(fs) > 0 {
				where = strings.Join(fs, ", then ")
			}
			parts = append(parts, fmt.Sprintf("%s: %s", r.Dir, where))
		}
		out = append(out, fmt.Sprintf("target %s: data directory on %s.", t, strings.Join(parts, "; ")))
	}
	return out
}

// storageText is a filesystem without the free space, which changes from run to run.
func storageText(st results.Storage) string {
	if st.Filesystem == "" {
		return filepath.Dir(st.DataDir) + " (filesystem unknown)"
	}
	return fmt.Sprintf("%s (%s at %s)", st.Filesystem, st.Device, st.Mount)
}

// SettingsChanged are the variables whose values differ between two servers' snapshots as
// a comparison's notes name them: without those that move by themselves or only name the
// instance's own paths (a sandbox's directory).
func SettingsChanged(a, b map[string]string) []results.VarChange {
	if len(a) == 0 || len(b) == 0 {
		return nil
	}
	ra, rb := instanceRoot(a), instanceRoot(b)
	var out []results.VarChange
	for _, c := range results.DiffVariables(a, b).Changed {
		name := strings.ToLower(c.Name)
		if noisyVariables[name] || instanceNoise(name, c.Before, c.After, ra, rb) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// instanceRoot is the directory a server keeps its own files under: the deepest directory
// that holds its datadir, tmpdir, socket and pid file together (a sandbox's
// /tmp/quadrant-db-123/db), or the datadir when they share nothing below /.
func instanceRoot(vars map[string]string) string {
	lower := map[string]string{}
	for k, v := range vars {
		lower[strings.ToLower(k)] = v
	}
	var root string
	for _, name := range []string{"datadir", "tmpdir", "socket", "pid_file"} {
		v := lower[name]
		if !filepath.IsAbs(v) {
			continue
		}
		dir := filepath.Clean(v)
		if name != "datadir" {
			dir = filepath.Dir(dir)
		}
		if root == "" {
			root = dir
			continue
		}
		for root != "/" && dir != root && !strings.HasPrefix(dir, root+"/") {
			root = filepath.Dir(root)
		}
	}
	if root == "/" || root == "" || root == os.TempDir() {
		return filepath.Clean(lower["datadir"])
	}
	return root
}

// instanceNoise is the rule for settings that differ between two servers only because
// they are two instances: a path that is the same below each server's own directory, or
// an id the server generates for itself (server_uid, server_uuid).
func instanceNoise(name, a, b, rootA, rootB string) bool {
	if strings.HasSuffix(name, "_uid") || strings.HasSuffix(name, "_uuid") {
		return true
	}
	if rootA == "" || rootB == "" || rootA == "." || rootB == "." {
		return false
	}
	under := func(v, root string) (string, bool) {
		v = filepath.Clean(v)
		if v == root {
			return "", true
		}
		rest, ok := strings.CutPrefix(v, root+"/")
		return rest, ok
	}
	ra, okA := under(a, rootA)
	rb, okB := under(b, rootB)
	return okA && okB && ra == rb
}

// WriteText prints the comparison as an aligned table, one line per cell and metric:
// each run's value (the median of its repeats) with its noise, the change against the
// first run and the verdict.
// The folders' strings are a stranger's: the text is built whole, then every control
// character but the table's own newlines and tabs is escaped (results.PrintableText) before
// it reaches w, a terminal as often as not; one-line fields lose their newlines too.
func (c *Comparison) WriteText(w io.Writer) error {
	var b bytes.Buffer
	if err := c.writeText(&b); err != nil {
		return err
	}
	_, err := io.WriteString(w, results.PrintableText(b.String()))
	return err
}

func (c *Comparison) writeText(w io.Writer) error {
	for i, r := range c.Runs {
		fmt.Fprintf(w, "run %d: %s (%s, %s, %s)\n", i+1, results.Printable(r.Dir), results.Printable(r.Info.Plan),
			results.Printable(r.Info.Host), r.Info.Start.Format("2006-01-02 15:04"))
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	head := []string{"cell", "metric"}
	for i := range c.Runs {
		head = append(head, fmt.Sprintf("run %d", i+1), "noise")
		if i > 0 {
			head = append(head, "Δ%", fmt.Sprintf("verdict (run %d vs run 1)", i+1))
		}
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, cell := range c.Cells {
		for _, m := range c.Metrics {
			row := []string{results.Printable(cell.Key), results.Printable(m)}
			for i, st := range cell.Stats[m] {
				row = append(row, fmtNum(st.Median), fmtNoise(st))
				if i > 0 {
					row = append(row, fmtChange(cell.Verdicts[m][i].Change), cell.Verdicts[m][i].Text)
				}
			}
			fmt.Fprintln(tw, strings.Join(row, "\t"))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := c.writeTables(w); err != nil {
		return err
	}
	if err := c.writeEvidence(w); err != nil {
		return err
	}
	if err := c.writeDifferences(w); err != nil {
		return err
	}
	fmt.Fprintln(w, "\n"+VerdictNote)
	if len(c.Notes) > 0 {
		fmt.Fprintln(w, "\nAround the numbers:")
		for _, n := range c.Notes {
			fmt.Fprintln(w, "- "+results.Printable(n))
		}
	}
	return nil
}

// VerdictNote says how to read the noise and the verdicts.
var VerdictNote = fmt.Sprintf("A value is the median of the cell's repeats; noise is their count, coefficient of variation and "+
	"the half-width of the 95%% CI of their mean (~ when estimated from batch means of the one repeat's intervals). "+
	"Verdicts compare means; each 95%% CI is a bootstrap over repeats (seed %d), widened to Student's t width for few of them "+
	"(2.7 times for 3 repeats, 1.6 for 5): a change whose interval holds 0 is within noise; "+
	"one from fewer than %d repeats is inconclusive; one the host's load explains is confounded (the host was busier on "+
	"the worse side, its load per CPU, counted as at least 1, more than %g times the other's, and the change is within what "+
	"that ratio accounts for: throughput down to 1/ratio, latency up by the ratio); "+
	"a count that is 0 on one side is judged by the difference.", Seed, MinRepeats, 1+ConfoundedLoad)

// NoiseText is how a run's noise reads in a table.
func NoiseText(st Stats) string { return fmtNoise(st) }

// fmtNoise is "n=5 cv 2.1% ±1.9%" (the 95% CI of the mean, relative), "~cv 3.0% ±2.2%
// (8 batches)" when estimated from intervals, or "no noise estimate".
func fmtNoise(st Stats) string {
	ci := ""
	if !math.IsNaN(st.Lo) && st.Mean != 0 {
		ci = " ±" + pct(100*(st.Hi-st.Lo)/2/math.Abs(st.Mean)) + "%"
	}
	switch {
	case st.N == 0:
		return "-"
	case st.Source == FromRepeats:
		return fmt.Sprintf("n=%d cv %s%%%s", st.N, pct(100*st.CV), ci)
	case st.Source == FromIntervals:
		return fmt.Sprintf("~cv %s%%%s (%d batches)", pct(100*st.CV), ci, len(st.Samples))
	}
	return "no noise estimate"
}

// MeanText is "1000 (95% CI 980–1020)", or the mean alone without an interval.
func MeanText(st Stats) string {
	if st.N == 0 {
		return "-"
	}
	if math.IsNaN(st.Lo) {
		return fmtNum(st.Mean)
	}
	return fmt.Sprintf("%s (95%% CI %s–%s)", fmtNum(st.Mean), fmtNum(st.Lo), fmtNum(st.Hi))
}

func fmtNum(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return results.FormatFloat(v)
}

func fmtChange(p float64) string {
	if math.IsNaN(p) {
		return "-"
	}
	return strconv.FormatFloat(p, 'f', 1, 64)
}

// Describe is summary column m as the compared runs describe it: the first run's that
// knows it (a kind's own metric is described in its folder's run.json).
func (c *Comparison) Describe(m string) results.ColumnInfo {
	for _, r := range c.Runs {
		if col := r.Describe(results.SummaryCSV, m); col.Role != results.RoleOther {
			return col
		}
	}
	return results.Describe(results.SummaryCSV, m)
}
