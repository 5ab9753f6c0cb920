// Package merge adds the results folders of one sharded run (quadrant run --shard K/N)
// up into one ordinary results folder, which report, compare and rerun read as any other.
// It reads and writes folders only through package results.
//
// What it guarantees: counts and rates are the shards' sums per interval on their shared
// grid; latency percentiles (the transaction's, each tx.NAME's, stmt.CLASS's and
// connect's) come from the shards' .hlog histograms added together, which is exact
// (percentiles of percentiles would not be); the mean comes from the same merged
// histogram; maxima are maxima of maxima; watched columns (status, host, ...) are the
// leader's, the only shard that samples them; assertions are judged on the merged summary
// row by the executor's own evaluator (spec/verdict), so a plan gets the same verdict
// sharded or not. A shard that did not finish an iteration, or an interval some shard
// lacks in the middle of its series, marks that iteration failed, and says so.
package merge

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/verdict"
)

// Outcome is what the merged folder says about the run.
type Outcome struct {
	Status           string
	AssertionsFailed int
	IterationsFailed int
}

type shardRun struct {
	dir string
	run *results.Run
}

// Merge merges the shard folders dirs into out (created; it must not exist yet). names,
// when given, are what the user named for each (an archive unpacked into dirs[i]), for
// run.json. kinds are the workload kinds the leader's plan.yaml is loaded with.
func Merge(dirs []string, names []string, out string, version string, kinds *spec.Kinds) (*Outcome, error) {
	if len(names) != len(dirs) {
		names = dirs
	}
	label := map[string]string{}
	for i, d := range dirs {
		label[d] = names[i]
	}
	shards, err := check(dirs)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(out); err == nil {
		return nil, fmt.Errorf("--out %s exists: merge writes a new folder", out)
	}
	w, err := results.Create(out)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	lead := shards[0].run
	if err := w.WritePlan([]byte(lead.Plan)); err != nil {
		return nil, err
	}
	plan, err := spec.Load(filepath.Join(shards[0].dir, results.PlanFile), spec.Options{Kinds: kinds})
	if err != nil {
		return nil, fmt.Errorf("the leader's plan.yaml does not load: %w", err)
	}
	// What the plan reads (sql_file, replay) comes along, so rerun works from the merge.
	for _, f := range plan.DataFiles() {
		if err := copyData(w, shards[0].dir, f.File); err != nil {
			w.Logf("warning: not copied, a rerun will need it: %v", err)
		}
	}
	info := mergedInfo(shards, label, version)
	w.Logf("merged %d shards of run %s: %s", len(shards), info.Shard.RunID, strings.Join(names, ", "))
	o := &Outcome{Status: results.StatusDone}
	for i := range info.Iterations {
		if err := mergeOne(w, plan, shards, &info.Iterations[i], o); err != nil {
			return nil, err
		}
	}
	if o.IterationsFailed > 0 || o.AssertionsFailed > 0 {
		o.Status = results.StatusFailed
	}
	if lead.Info.Status != results.StatusDone && lead.Info.Status != results.StatusFailed {
		o.Status = lead.Info.Status
	}
	info.Status = o.Status
	if err := w.WriteRunInfo(&info); err != nil {
		return nil, err
	}
	return o, w.Sync()
}

// copyData copies the data file rel (as the plan names it) of the leader's folder dir into
// the merged folder, read through dir's root: a file outside the folder stays out.
func copyData(w *results.Writer, dir, rel string) error {
	in, err := results.OpenIn(dir, rel)
	if err != nil {
		return fmt.Errorf("%s (%w)", rel, err)
	}
	defer in.Close()
	return w.CopyInFrom(rel, in)
}

// check loads the folders and makes sure they are one complete run: the same plan and run
// id, shard indexes 0..N-1 each once. They come back in shard order.
func check(dirs []string) ([]shardRun, error) {
	if len(dirs) == 0 {
		return nil, errors.New("give the shards' results folders (or archives from quadrant pack)")
	}
	var out []shardRun
	for _, d := range dirs {
		// Load refuses a folder with a link anywhere (results.CheckFolder): the leader's
		// plan.yaml and the files it names, read by spec below, are its own.
		r, err := results.Load(d)
		if err != nil {
			return nil, err
		}
		if r.Info.Shard == nil || r.Info.Shard.Count == 0 {
			return nil, fmt.Errorf("%s is not a shard's folder (run.json has no shard; it was run without --shard)", d)
		}
		out = append(out, shardRun{dir: d, run: r})
	}
	first := out[0].run.Info
	n := first.Shard.Count
	byIndex := make([]*shardRun, n)
	for i := range out {
		s := &out[i]
		ri := s.run.Info
		switch {
		case ri.Shard.RunID != first.Shard.RunID:
			return nil, fmt.Errorf("%s is run %s, %s is run %s: merge the shards of one run", out[0].dir, first.Shard.RunID, s.dir, ri.Shard.RunID)
		case ri.Shard.Count != n:
			return nil, fmt.Errorf("%s is a shard of %d, %s of %d", out[0].dir, n, s.dir, ri.Shard.Count)
		case ri.PlanIdentity != first.PlanIdentity || ri.PlanSHA256 != first.PlanSHA256:
			return nil, fmt.Errorf("%s and %s ran different plans (plan.yaml differs): the shards of one run share one plan and one --set", out[0].dir, s.dir)
		case ri.Shard.Index < 0 || ri.Shard.Index >= n:
			return nil, fmt.Errorf("%s: shard index %d out of 0..%d", s.dir, ri.Shard.Index, n-1)
		case byIndex[ri.Shard.Index] != nil:
			return nil, fmt.Errorf("%s and %s are both shard %d/%d", byIndex[ri.Shard.Index].dir, s.dir, ri.Shard.Index, n)
		}
		byIndex[ri.Shard.Index] = s
	}
	var missing []string
	sorted := make([]shardRun, 0, n)
	for k, s := range byIndex {
		if s == nil {
			missing = append(missing, fmt.Sprintf("%d/%d", k, n))
			continue
		}
		sorted = append(sorted, *s)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("run %s: shard(s) %s missing: give every shard's folder (a shard that died still left one; pack it from its pod or host)", first.Shard.RunID, strings.Join(missing, ", "))
	}
	return sorted, nil
}

// iterationProblems are the shards that did not finish iteration index.
func iterationProblems(shards []shardRun, index int) []string {
	var out []string
	for k, s := range shards {
		found := false
		for _, it := range s.run.Info.Iterations {
			if it.Index != index {
				continue
			}
			found = true
			if it.Status != results.StatusDone {
				msg := fmt.Sprintf("shard %d/%d %s", k, len(shards), it.Status)
				if it.Error != "" {
					msg += ": " + it.Error
				}
				out = append(out, msg)
			}
		}
		if !found {
			out = append(out, fmt.Sprintf("shard %d/%d has no iteration %d", k, len(shards), index))
		}
	}
	return out
}

// merged is one iteration, merged: its summary values for the workload's target, the
// leader's summary rows, and what went wrong.
type merged struct {
	index         int
	target        string
	summary       map[string]float64 // the workload target's merged summary values
	header        []string           // summary columns of the workload target's row, in order
	leaderSummary map[string]map[string]string
	leaderOrder   []string // targets of the leader's summary rows, in order
	leaderHeader  []string
	problems      []string
	stageOrder    []string            // stages of the workload target, as the shards wrote them
	stages        []map[string]string // their merged summary rows, in stageOrder
}

// fromHistogram is a latency column's value from its merged histogram h; without one (no
// value recorded, or a folder written before the tag was logged) it falls back on combine.
func fromHistogram(c results.ColumnInfo, h *measure.Histogram, rows []map[string]string) string {
	if h == nil || h.Count() == 0 {
		return combineCells(c, rows)
	}
	return results.FormatFloat(measure.Ms(c.Latency(measure.Summarize(h))))
}

// combine is how a workload column adds up over shards when no histogram says better
// (the folder's Describe of it, c, says how): a latency that has no histogram in the folder is left empty
// rather than guessed, unless every shard says 0 (an interval where that transaction did
// not run); a maximum is the maximum of the maxima; a row key is any shard's; counts and
// rates are summed.
func combine(c results.ColumnInfo, vals []float64) string {
	how := c.Merge
	if how == results.MergeHistogram {
		how = c.Fallback
	}
	switch how {
	case results.MergeKey:
		return results.FormatFloat(vals[0])
	case results.MergeMax:
		m := math.Inf(-1)
		for _, v := range vals {
			m = math.Max(m, v)
		}
		return results.FormatFloat(m)
	case results.MergeEmpty:
		for _, v := range vals {
			if v != 0 {
				return ""
			}
		}
		return "0"
	}
	sum := 0.0
	for _, v := range vals {
		sum += v
	}
	return results.FormatFloat(sum)
}

func mergeIteration(w *results.Writer, shards []shardRun, index int, target string) (*merged, error) {
	m := &merged{index: index, target: target}
	lead := shards[0].run
	m.leaderSummary, m.leaderOrder = leaderSummaryRows(lead, index)
	m.leaderHeader = lead.Summary.Header
	if target == "" {
		return m, nil
	}
	logs, measured, first, err := readShardLogs(shards, target, index)
	if err != nil {
		return nil, err
	}
	hl, err := w.OpenHistogramLog(target, index, first)
	if err != nil {
		return nil, err
	}
	defer hl.Close()
	g := timeseriesGrid(shards, target, index)
	markLegacyLogs(logs, g)
	stageHist := map[string]map[string]*measure.Histogram{} // stage -> tag -> its intervals' histograms
	for _, key := range g.keys {
		if err := m.mergeInterval(w, hl, shards, logs, g, key, stageHist); err != nil {
			return nil, err
		}
	}
	if err := copyOtherTimeseries(w, lead, index, target); err != nil {
		return nil, err
	}
	sumHeader := m.mergeSummary(shards, measured)
	leaderStages, stageRows := m.collectStages(shards)
	if err := mergeTables(w, shards, index, target, measured); err != nil {
		return nil, err
	}
	for _, st := range m.stageOrder {
		v := summaryValues(lead, sumHeader, stageRows[st], stageHist[st], leaderStages[st])
		v[results.ColStage] = st
		m.stages = append(m.stages, v)
	}
	return m, nil
}

// leaderSummaryRows returns the leader's summary rows of the iteration by target, and
// the targets in the leader's order.
func leaderSummaryRows(lead *results.Run, index int) (map[string]map[string]string, []string) {
	byTarget := map[string]map[string]string{}
	var order []string
	for i := range lead.Summary.Rows {
		if lead.Summary.Value(i, results.ColIteration) != strconv.Itoa(index) {
			continue
		}
		t := lead.Summary.Value(i, results.ColTarget)
		row := map[string]string{}
		for c, h := range lead.Summary.Header {
			row[h] = lead.Summary.Rows[i][c]
		}
		byTarget[t] = row
		order = append(order, t)
	}
	return byTarget, order
}

// readShardLogs reads each shard's histogram log of the iteration: its interval lines
// by end time, the measured part (warmup left out) merged by tag over all shards, and
// the earliest start (now when no shard has a line).
func readShardLogs(shards []shardRun, target string, index int) ([]shardLog, map[string]*measure.Histogram, time.Time, error) {
	logs := make([]shardLog, len(shards))
	measured := map[string]*measure.Histogram{} // by tag, warmup left out
	var first time.Time
	for k, s := range shards {
		lines, err := results.ReadIterationIntervals(s.dir, target, index)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, nil, time.Time{}, err
		}
		logs[k].byEnd = map[int64][]results.LoggedHistogram{}
		for _, l := range lines {
			logs[k].byEnd[l.End.UnixMilli()] = append(logs[k].byEnd[l.End.UnixMilli()], l)
			if !strings.HasPrefix(l.Tag, "warmup-") {
				if measured[l.Tag] == nil {
					measured[l.Tag] = measure.NewHistogram()
				}
				measured[l.Tag].Merge(l.H)
			}
			if first.IsZero() || l.Start.Before(first) {
				first = l.Start
			}
		}
	}
	if first.IsZero() {
		first = time.Now()
	}
	return logs, measured, first, nil
}

// tsGrid is the workload target's time series of one iteration over all shards, keyed
// by elapsed_s on the shared grid.
type tsGrid struct {
	cells  map[string]*tsCell
	keys   []float64 // sorted
	last   []float64 // per shard, its last elapsed_s (-Inf without rows)
	header []string  // the leader's columns, then the other shards' workload columns
}

type tsCell struct {
	rows []map[string]string // per shard, nil when that shard has no such row
}

func timeseriesGrid(shards []shardRun, target string, index int) *tsGrid {
	g := &tsGrid{cells: map[string]*tsCell{}, last: make([]float64, len(shards))}
	seenCol := map[string]bool{}
	for k, s := range shards {
		g.last[k] = math.Inf(-1)
		d := s.run.Timeseries[target]
		if d == nil {
			continue
		}
		for _, h := range d.Header {
			if !seenCol[h] && (k == 0 || results.IsWorkloadColumn(h)) {
				seenCol[h] = true
				g.header = append(g.header, h)
			}
		}
		for i := range d.Rows {
			if d.Value(i, results.ColIteration) != strconv.Itoa(index) {
				continue
			}
			e := d.Value(i, results.ColElapsed)
			c := g.cells[e]
			if c == nil {
				c = &tsCell{rows: make([]map[string]string, len(shards))}
				g.cells[e] = c
				f, _ := strconv.ParseFloat(e, 64)
				g.keys = append(g.keys, f)
			}
			row := map[string]string{}
			for ci, h := range d.Header {
				row[h] = d.Rows[i][ci]
			}
			c.rows[k] = row
			if f, _ := strconv.ParseFloat(e, 64); f > g.last[k] {
				g.last[k] = f
			}
		}
	}
	sort.Float64s(g.keys)
	return g
}

// markLegacyLogs marks a log whose lines fall on none of its shard's row times: it is
// from before they were written relative to a whole second (see shardLog.at).
func markLegacyLogs(logs []shardLog, g *tsGrid) {
	for k := range logs {
		logs[k].legacy = len(logs[k].byEnd) > 0
		for _, c := range g.cells {
			if row := c.rows[k]; row != nil {
				if t, err := time.Parse(results.TimeFormat, row[results.ColTime]); err == nil && logs[k].exact(t) != nil {
					logs[k].legacy = false
					break
				}
			}
		}
	}
}

// mergeInterval writes the merged time series row at elapsed key and its histograms,
// and adds the histograms to its stage's.
func (m *merged) mergeInterval(w *results.Writer, hl *results.HistogramLog, shards []shardRun, logs []shardLog, g *tsGrid, key float64, stageHist map[string]map[string]*measure.Histogram) error {
	e := results.FormatFloat(key)
	c := g.cells[e]
	if c == nil {
		return nil
	}
	present, hist, start, end := m.intervalHistograms(shards, logs, g, c, key, e)
	addStageHistograms(stageHist, firstCell(results.ColStage, present), hist)
	rec := intervalRecord(shards[0].run, g.header, c, present, hist, m.index, e)
	if err := w.AppendTimeseriesRecord(m.target, rec); err != nil {
		return err
	}
	tags := make([]string, 0, len(hist))
	for tag := range hist {
		tags = append(tags, tag)
	}
	sort.Strings(tags)
	for _, tag := range tags {
		if h := hist[tag]; h != nil {
			if err := hl.WriteLogged(results.LoggedHistogram{Tag: tag, Start: start, End: end, H: h}); err != nil {
				return err
			}
		}
	}
	return nil
}

// intervalHistograms returns the shards' rows present in the cell, their log lines of
// that interval merged by tag, and the interval's span; a shard missing a row before its
// last one is a problem.
func (m *merged) intervalHistograms(shards []shardRun, logs []shardLog, g *tsGrid, c *tsCell, key float64, e string) ([]map[string]string, map[string]*measure.Histogram, time.Time, time.Time) {
	var present []map[string]string
	hist := map[string]*measure.Histogram{}
	var start, end time.Time
	for k, row := range c.rows {
		if row == nil {
			if key < g.last[k] {
				m.problems = append(m.problems, fmt.Sprintf("shard %d/%d has no interval at %ss", k, len(shards), e))
			}
			continue
		}
		present = append(present, row)
		t, err := time.Parse(results.TimeFormat, row[results.ColTime])
		if err != nil {
			continue
		}
		for _, l := range logs[k].at(t) {
			if hist[l.Tag] == nil {
				hist[l.Tag] = measure.NewHistogram()
			}
			hist[l.Tag].Merge(l.H)
			if start.IsZero() || l.Start.Before(start) {
				start = l.Start
			}
			if l.End.After(end) {
				end = l.End
			}
		}
	}
	return present, hist, start, end
}

// addStageHistograms merges an interval's measured histograms into its stage's (none
// when the interval has no stage).
func addStageHistograms(stageHist map[string]map[string]*measure.Histogram, st string, hist map[string]*measure.Histogram) {
	if st == "" {
		return
	}
	if stageHist[st] == nil {
		stageHist[st] = map[string]*measure.Histogram{}
	}
	for tag, x := range hist {
		if strings.HasPrefix(tag, "warmup-") {
			continue
		}
		if stageHist[st][tag] == nil {
			stageHist[st][tag] = measure.NewHistogram()
		}
		stageHist[st][tag].Merge(x)
	}
}

// intervalRecord is the merged time series row of one interval, each column by its
// merge rule.
func intervalRecord(lead *results.Run, header []string, c *tsCell, present []map[string]string, hist map[string]*measure.Histogram, index int, e string) results.Record {
	var rec results.Record
	for _, h := range header {
		col := lead.Describe(results.TimeseriesCSV, h)
		switch {
		case h == results.ColIteration:
			rec.Add(h, strconv.Itoa(index))
		case h == results.ColElapsed:
			rec.Add(h, e)
		case col.Merge == results.MergeLatest:
			rec.Add(h, latestTime(h, present))
		case col.Merge == results.MergeHistogram:
			x := hist[col.Histogram]
			if x == nil {
				x = hist["warmup-"+col.Histogram]
			}
			rec.Add(h, fromHistogram(col, x, present))
		case col.Role == results.RoleKey || col.Role == results.RoleMetric:
			rec.Add(h, combineCells(col, present))
		case col.Merge == results.MergeRescale:
			if c.rows[0] != nil {
				tx := results.Transactions(results.TimeseriesCSV)
				rec.Add(h, rescaleCost(c.rows[0][h], c.rows[0][tx], combineCells(lead.Describe(results.TimeseriesCSV, tx), present)))
			} else {
				rec.Add(h, "")
			}
		default: // watched: the leader's
			if c.rows[0] != nil {
				rec.Add(h, c.rows[0][h])
			} else {
				rec.Add(h, "")
			}
		}
	}
	return rec
}

// copyOtherTimeseries copies the other targets' time series (replicas, step targets):
// they are the leader's alone.
func copyOtherTimeseries(w *results.Writer, lead *results.Run, index int, target string) error {
	for _, t := range lead.Targets {
		if t == target {
			continue
		}
		d := lead.Timeseries[t]
		for i := range d.Rows {
			if d.Value(i, results.ColIteration) != strconv.Itoa(index) {
				continue
			}
			var rec results.Record
			for c, h := range d.Header {
				rec.Add(h, d.Rows[i][c])
			}
			if err := w.AppendTimeseriesRecord(t, rec); err != nil {
				return err
			}
		}
	}
	return nil
}

// mergeSummary merges the shards' summary rows of the workload's target into m and
// returns the merged header.
func (m *merged) mergeSummary(shards []shardRun, measured map[string]*measure.Histogram) []string {
	m.summary = map[string]float64{}
	var rows []map[string]string
	for k, s := range shards {
		found := false
		for i := range s.run.Summary.Rows {
			if s.run.Summary.Value(i, results.ColIteration) != strconv.Itoa(m.index) || s.run.Summary.Value(i, results.ColTarget) != m.target {
				continue
			}
			row := map[string]string{}
			for c, h := range s.run.Summary.Header {
				row[h] = s.run.Summary.Rows[i][c]
			}
			rows = append(rows, row)
			found = true
		}
		if !found {
			m.problems = append(m.problems, fmt.Sprintf("shard %d/%d has no summary row", k, len(shards)))
		}
	}
	var sumHeader []string
	seen := map[string]bool{}
	for k, s := range shards {
		for _, h := range s.run.Summary.Header {
			if !seen[h] && (k == 0 || results.IsWorkloadColumn(h)) {
				seen[h] = true
				sumHeader = append(sumHeader, h)
			}
		}
	}
	m.header = sumHeader
	vals := summaryValues(shards[0].run, sumHeader, rows, measured, m.leaderSummary[m.target])
	for _, h := range sumHeader {
		if v, err := strconv.ParseFloat(vals[h], 64); err == nil {
			m.summary[h] = v
		}
	}
	m.leaderSummary["\x00merged"] = vals
	return sumHeader
}

// collectStages gathers a load shape's stage rows over the shards (in m.stageOrder) and
// the leader's row of each stage; each stage's latency comes from the histograms of
// that stage's intervals.
func (m *merged) collectStages(shards []shardRun) (map[string]map[string]string, map[string][]map[string]string) {
	leaderStages := map[string]map[string]string{}
	stageRows := map[string][]map[string]string{}
	_, perShard := rowsOf(shards, func(r *results.Run) *results.Data { return r.Stages }, m.index, m.target)
	for k, rows := range perShard {
		for _, row := range rows {
			st := row[results.ColStage]
			if _, ok := stageRows[st]; !ok {
				m.stageOrder = append(m.stageOrder, st)
			}
			stageRows[st] = append(stageRows[st], row)
			if k == 0 {
				leaderStages[st] = row
			}
		}
	}
	return leaderStages, stageRows
}

// summaryValues merges the shards' summary rows (of an iteration, or of one of its
// stages): counts summed, latency from the merged histograms by tag, durations the
// longest, the rest (watched columns, record_as, matrix axes) the leader's.
func summaryValues(lead *results.Run, header []string, rows []map[string]string, measured map[string]*measure.Histogram, leader map[string]string) map[string]string {
	vals := map[string]string{}
	for _, h := range header {
		col := lead.Describe(results.SummaryCSV, h)
		switch col.Merge {
		case results.MergeKey:
			if len(rows) > 0 {
				vals[h] = rows[0][h]
			}
		case results.MergeMax:
			vals[h] = maxCell(h, rows)
		case results.MergeHistogram:
			vals[h] = fromHistogram(col, measured[col.Histogram], rows)
		case results.MergeSum:
			vals[h] = combineCells(col, rows)
		case results.MergeRescale:
			if leader != nil {
				tx := results.Transactions(results.SummaryCSV)
				vals[h] = rescaleCost(leader[h], leader[tx], combineCells(lead.Describe(results.SummaryCSV, tx), rows))
			}
		default:
			if leader != nil {
				vals[h] = leader[h] // watched, record_as, matrix axes: the leader's
			}
		}
	}
	return vals
}

// rescaleCost is a leader's cost per transaction of a server counter (cost.fsyncs,
// cost.server_cpu_us ...) over all shards' transactions: the leader, the only shard that
// watches, divided the server's whole increase by its own transactions (or rate); merged, it
// is divided by every shard's. A cost of the client's own CPU stays the leader's
// (results.Describe: MergeLeader): per transaction of its own it stands for each client's.
func rescaleCost(cost, leaderTx, mergedTx string) string {
	c, err1 := strconv.ParseFloat(cost, 64)
	l, err2 := strconv.ParseFloat(leaderTx, 64)
	m, err3 := strconv.ParseFloat(mergedTx, 64)
	if err1 != nil || err2 != nil || err3 != nil || m <= 0 {
		return ""
	}
	return results.FormatFloat(c * l / m)
}

// shardLog is one shard's .hlog lines of an iteration by their end in milliseconds.
type shardLog struct {
	byEnd  map[int64][]results.LoggedHistogram
	legacy bool // lines read back up to a second early
}

// at are the lines of the interval that ended at end (a time-series row's time). The log
// keeps times as seconds with three decimals, which a float can read back one millisecond
// short: a line within a millisecond is that interval's. A log written before its lines
// were made relative to a whole second reads back up to a second early (its StartTime has
// no fraction): then the latest line ending in the second before end is the interval's.
func (l shardLog) at(end time.Time) []results.LoggedHistogram {
	if !l.legacy {
		return l.exact(end)
	}
	ms := end.UnixMilli()
	best := int64(-1)
	for m := range l.byEnd {
		if m <= ms && m > ms-1000 && m > best {
			best = m
		}
	}
	if best < 0 {
		return nil
	}
	return l.byEnd[best]
}

func (l shardLog) exact(end time.Time) []results.LoggedHistogram {
	ms := end.UnixMilli()
	for _, m := range []int64{ms, ms - 1, ms + 1} {
		if lines := l.byEnd[m]; lines != nil {
			return lines
		}
	}
	return nil
}

func firstCell(h string, rows []map[string]string) string {
	for _, r := range rows {
		if r[h] != "" {
			return r[h]
		}
	}
	return ""
}

func latestTime(h string, rows []map[string]string) string {
	best := ""
	for _, r := range rows {
		if r[h] > best {
			best = r[h]
		}
	}
	return best
}

func maxCell(h string, rows []map[string]string) string {
	best, ok := math.Inf(-1), false
	for _, r := range rows {
		if v, err := strconv.ParseFloat(r[h], 64); err == nil {
			best, ok = math.Max(best, v), true
		}
	}
	if !ok {
		return ""
	}
	return results.FormatFloat(best)
}

// combineCells merges one workload column over the shards' rows; empty cells are not
// measured and count as nothing, all empty stays empty.
func combineCells(c results.ColumnInfo, rows []map[string]string) string {
	var vals []float64
	for _, r := range rows {
		if v, err := strconv.ParseFloat(r[c.Name], 64); err == nil {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return ""
	}
	return combine(c, vals)
}

// writeSummary writes the iteration's summary rows: the leader's rows for the other
// targets, the merged row for the workload's target, each with the merged status.
func (m *merged) writeSummary(w *results.Writer, status string) error {
	order := m.leaderOrder
	if m.target != "" && m.leaderSummary[m.target] == nil {
		order = append([]string{m.target}, order...)
	}
	for _, t := range order {
		var rec results.Record
		if t == m.target {
			vals := m.leaderSummary["\x00merged"]
			for _, h := range m.header {
				v := vals[h]
				if h == results.ColStatus {
					v = status
				}
				rec.Add(h, v)
			}
		} else {
			row := m.leaderSummary[t]
			for _, h := range m.leaderHeader {
				v := row[h]
				if h == results.ColStatus {
					v = status
				}
				rec.Add(h, v)
			}
		}
		if err := w.AppendSummaryRecord(rec); err != nil {
			return err
		}
		if t != m.target {
			continue
		}
		for _, vals := range m.stages {
			var rec results.Record
			for _, h := range m.header {
				v := vals[h]
				if h == results.ColStatus {
					v = status
				}
				rec.Add(h, v)
			}
			if err := w.AppendSummaryRecord(rec); err != nil {
				return err
			}
		}
	}
	return nil
}

// mergedInfo is the merged folder's run.json: the leader's, with every shard listed and the
// run's span over all of them.
func mergedInfo(shards []shardRun, label map[string]string, version string) results.RunInfo {
	lead := shards[0].run
	info := *lead.Info
	info.Iterations = append([]results.IterationInfo(nil), lead.Info.Iterations...)
	info.Tool, info.Version = "quadrant", version
	info.Command = nil
	sh := *lead.Info.Shard
	sh.Index, sh.Meetings = 0, nil
	for k, s := range shards {
		sh.Merged = append(sh.Merged, results.MergedShard{Index: k, Dir: label[s.dir], Host: s.run.Info.Host, Status: s.run.Info.Status})
	}
	info.Shard = &sh
	for _, s := range shards[1:] {
		if s.run.Info.End != nil && (info.End == nil || s.run.Info.End.After(*info.End)) {
			info.End = s.run.Info.End
		}
		if s.run.Info.Start.Before(info.Start) {
			info.Start = s.run.Info.Start
		}
	}
	return info
}

// worstBehind is how far the shard furthest behind its schedule fell (its lag p50 and p99:
// the highest p99), with the worst lag of all and from the earliest moment any fell behind;
// nil when none did. A schedule is each client's own, and no folder keeps the lag's
// histogram to merge: the merged iteration fell behind when one of its clients did.
func worstBehind(its []results.IterationInfo) *results.Behind {
	var worst *results.Behind
	from, most := 0.0, 0.0
	for _, it := range its {
		b := it.Behind
		if b == nil {
			continue
		}
		if b.FromS > 0 && (from == 0 || b.FromS < from) {
			from = b.FromS
		}
		most = max(most, b.LagMaxMs)
		if worst == nil || b.LagP99Ms > worst.LagP99Ms {
			c := *b
			worst = &c
		}
	}
	if worst != nil {
		worst.FromS, worst.LagMaxMs = from, most
	}
	return worst
}

// mergeOne merges iteration ii of every shard into the folder and says in ii (and o) how
// it ended: failed when a shard's did or an assertion fails on the merged figures.
func mergeOne(w *results.Writer, plan *spec.Plan, shards []shardRun, ii *results.IterationInfo, o *Outcome) error {
	var it *spec.Iteration
	for j := range plan.Iterations {
		if plan.Iterations[j].Index == ii.Index {
			it = &plan.Iterations[j]
		}
	}
	problems := iterationProblems(shards, ii.Index)
	target := ""
	if it != nil {
		target = plan.TargetOf(it)
	}
	mi, err := mergeIteration(w, shards, ii.Index, target)
	if err != nil {
		return fmt.Errorf("iteration %d: %w", ii.Index, err)
	}
	problems = append(problems, mi.problems...)
	ii.Failed, ii.Error = nil, ""
	switch {
	case len(problems) > 0:
		ii.Status, ii.Error = results.StatusFailed, strings.Join(problems, "; ")
		o.IterationsFailed++
	case ii.Status == results.StatusDone && it != nil:
		ii.Failed = verdict.Failed(plan, it, mi.summary)
		if len(ii.Failed) > 0 {
			ii.Status = results.StatusFailed
			o.AssertionsFailed++
		}
	}
	var own []results.IterationInfo // each shard's of this iteration
	for _, s := range shards {
		for _, si := range s.run.Info.Iterations {
			if si.Index == ii.Index {
				own = append(own, si)
			}
			if si.Index == ii.Index && si.End != nil && (ii.End == nil || si.End.After(*ii.End)) {
				ii.End = si.End
			}
		}
	}
	ii.Behind = worstBehind(own)
	if err := mi.writeSummary(w, ii.Status); err != nil {
		return err
	}
	if ii.Error != "" {
		w.Logf("iteration %d: failed: %s", ii.Index, ii.Error)
	}
	return nil
}
