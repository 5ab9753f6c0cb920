package collect

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quadrant-bench/quadrant/executor/link"
	"github.com/quadrant-bench/quadrant/executor/watch"
	"github.com/quadrant-bench/quadrant/executor/watch/mysqlwatch"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
)

// sampler is one watch.Sampler with the target whose rows it fills. busy keeps a slow
// source (a dead SNMP agent) from being asked again before it answered.
type sampler struct {
	kind   *watch.SamplerKind
	target string // "" for the run's samplers (the client, the local host): their rows are the workload's target's
	local  bool   // a sampler of this machine: only for a workload target on it
	what   string
	conns  int // connections it holds open on its target's server during a workload
	s      watch.Sampler
	busy   atomic.Bool
	// rebase asks the sampler's next reading to start from the one before it: the warmup ended there.
	// A flag rather than a call, because the sampler may still be reading an earlier tick.
	rebase atomic.Bool
	health health
	// read is the last tick (health.ticks' count) whose reading the sampler completed: one
	// below ticks when the workload's last tick found it still reading or backing off.
	read atomic.Int64
	// front is the front the sampler reads its target through (nil: none), upstream where
	// it pointed at the last reading, moved that it switched since (follow.go).
	front    *link.Link
	upstream string
	moved    atomic.Bool
}

// health is a sampler's missed readings over the current workload, and its backoff: after
// failing ticks in a row it is asked again only after skipping 1, 3, 7... ticks (at most
// maxSkip of backoff), so a source that is down is not hammered, and no tick waits for it.
// ticks and missed are counted on the ticker's side too; the rest is written only by the
// sampler's reading of a tick, which busy keeps to one at a time.
type health struct {
	ticks, missed atomic.Int64
	failing       int   // failed readings in a row
	streakFrom    int64 // missed when the current outage began
	skip          int   // ticks still to skip before the next attempt
	outages       int
	firstErr      string
}

// maxSkip caps a failing sampler's backoff: it is asked again at least this often.
const maxSkip = 5 * time.Second

// failed records a reading that found the source down (err: the outage's warning, nil on later ticks).
func (h *health) failed(err error, interval time.Duration) {
	h.missed.Add(1)
	if h.failing == 0 {
		h.outages++
		h.streakFrom = h.missed.Load() - 1
	}
	h.failing++
	if err != nil && h.firstErr == "" {
		h.firstErr = err.Error()
	}
	h.skip = 1<<min(h.failing-1, 16) - 1
	if most := int(maxSkip / interval); h.skip > most {
		h.skip = most
	}
}

// answered records a reading that found the source up; it returns how many ticks the outage
// that just ended missed (0 when none).
func (h *health) answered() int64 {
	if h.failing == 0 {
		return 0
	}
	h.failing, h.skip = 0, 0
	return h.missed.Load() - h.streakFrom
}

// Watchers are every sampler of the run, opened once (so wrong credentials fail the run
// at its start) and baselined at each measured workload.
type Watchers struct {
	all      []*sampler
	active   []*sampler
	targets  []string // of the current workload, in order
	workload string   // the current workload's target
	local    map[string]bool
	known    []Target // the run's, in plan order
	run      Run
}

// Open starts the samplers of kinds that plan p's watch section asks for, each per-target
// kind on every one of targets and each per-run kind once; a shard that is not the leader
// samples no server (the leader's watchers are the run's).
func Open(ctx context.Context, p *spec.Plan, targets []Target, leader bool, run Run, kinds []*watch.SamplerKind) (*Watchers, error) {
	w := &Watchers{known: targets, run: run}
	seen := map[string]bool{}
	env := watch.Env{Targets: targets, Logf: run.Logf, Once: func(key string) bool {
		first := !seen[key]
		seen[key] = true
		return first
	}}
	for i := range targets {
		if !leader {
			break // the leader's watchers are the run's: a merge takes its columns
		}
		for _, k := range kinds {
			if !k.PerRun {
				if err := w.open(k, &p.Watch, &targets[i], env); err != nil {
					return nil, err
				}
			}
		}
	}
	w.local = map[string]bool{}
	for _, t := range targets {
		w.local[t.Name] = t.Local
	}
	for _, k := range kinds {
		if k.PerRun {
			if err := w.open(k, &p.Watch, nil, env); err != nil {
				return nil, err
			}
		}
	}
	if err := checkEvidence(ctx, p, targets); err != nil {
		return nil, err
	}
	if err := w.start(ctx, env); err != nil {
		return nil, err
	}
	return w, nil
}

// open adds kind k's sampler of target t (nil: the run's) when it applies there.
func (w *Watchers) open(k *watch.SamplerKind, wp *spec.Watch, t *Target, env watch.Env) error {
	o, err := k.Open(wp, t, env)
	if err != nil || o == nil {
		return err
	}
	sm := &sampler{kind: k, what: k.Name, s: o.Sampler, local: o.Local, conns: o.Conns}
	if o.What != "" {
		sm.what = o.What
	}
	if t != nil {
		sm.target = t.Name
		if o.Follows {
			sm.front = t.Front
		}
	}
	w.all = append(w.all, sm)
	return nil
}

// start starts every sampler: one whose source is unavailable is left out when its
// columns come from a first reading, kept (its columns empty until it answers) otherwise.
func (w *Watchers) start(ctx context.Context, env watch.Env) error {
	for _, sm := range w.all {
		sctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		err := sm.s.Start(sctx)
		cancel()
		if err != nil {
			if errors.Is(err, watch.ErrUnavailable) && len(sm.s.Columns()) == 0 {
				w.run.Logf("warning: %s %s: %v (its columns come from a first reading: this run has none of them)", sm.target, sm.what, err)
				sm.s.Close()
				sm.s = nil
				continue
			}
			if errors.Is(err, watch.ErrUnavailable) {
				w.run.Logf("warning: %s %s: %v (its columns stay empty until it answers)", sm.target, sm.what, err)
				continue
			}
			w.Close()
			return fmt.Errorf("watch %s on %s: %w", sm.what, sm.target, err)
		}
		if sm.kind != nil && sm.kind.Started != nil {
			t := w.Target(sm.target)
			sm.kind.Started(sm.s, &t, env)
		}
	}
	w.all = slices.DeleteFunc(w.all, func(sm *sampler) bool { return sm.s == nil })
	return nil
}

// Target is the run's target name as the fleet gave it (zero when it has none).
func (w *Watchers) Target(name string) Target {
	for _, t := range w.known {
		if t.Name == name {
			return t
		}
	}
	return Target{}
}

// checkEvidence fails the run before setup when plan p asks for digests or waits and a workload's target
// cannot give them.
func checkEvidence(ctx context.Context, p *spec.Plan, targets []Target) error {
	wp := p.Watch
	if wp.Digests == nil && wp.Waits == nil {
		return nil
	}
	what := "watch.digests"
	switch {
	case wp.Digests == nil:
		what = "watch.waits"
	case wp.Waits != nil:
		what = "watch.digests and watch.waits"
	}
	for _, t := range targets {
		if !workloadTarget(p, t.Name) {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := mysqlwatch.CheckPerformanceSchema(cctx, t.DB, what, wp.Digests != nil)
		cancel()
		if err != nil {
			return fmt.Errorf("target %s: %w", t.Name, err)
		}
	}
	return nil
}

// SNMPMachines fills in the server machine of each target watched over SNMP from its agent
// (HOST-RESOURCES-MIB: processors, memory; sysDescr: the kernel), once its sampler started;
// an agent that does not answer leaves the reason.
func (w *Watchers) SNMPMachines(ctx context.Context, targets []results.TargetInfo) {
	for i := range targets {
		ti := &targets[i]
		t := w.Target(ti.Name).Plan
		if t == nil || t.SNMP == nil || ti.ServerHost != nil {
			continue
		}
		ti.ServerHostAbsent = "its host's SNMP agent (" + t.SNMP.Address + ") did not answer"
		for _, sm := range w.all {
			sn, ok := sm.s.(watch.MachineReader)
			if !ok || sm.what != "snmp "+t.SNMP.Address {
				continue
			}
			mctx, cancel := context.WithTimeout(ctx, 15*time.Second)
			m, err := sn.Machine(mctx)
			cancel()
			if err != nil {
				w.run.LogFile("target %s: its machine over SNMP: %v", ti.Name, err)
				break
			}
			ti.ServerHost = &results.HostInfo{Source: "snmp", Evidence: "the SNMP agent at " + t.SNMP.Address, Hostname: m.Hostname,
				CPUModel: m.CPUModel, CPUs: m.CPUs, MemoryBytes: m.MemoryBytes, Kernel: m.Kernel}
			ti.ServerHostAbsent = ""
		}
	}
}

// Record lists each target's watched columns and their kind (for run.json), so readers
// know them without guessing from names.
func (w *Watchers) Record(p *spec.Plan, targets []results.TargetInfo) {
	for i := range targets {
		ti := &targets[i]
		ti.Watched = nil
		var names []string
		for _, sm := range w.all {
			if sm.target != ti.Name && (sm.target != "" || !workloadTarget(p, ti.Name) || sm.local && !w.local[ti.Name]) {
				continue
			}
			for _, c := range sm.s.Columns() {
				ti.Watched = append(ti.Watched, results.Column{Name: c.Name, Kind: c.Kind, Source: c.Source})
				names = append(names, c.Name)
			}
		}
		for _, c := range measure.CostsOf(names) {
			ti.Watched = append(ti.Watched, results.Column{Name: c.Name, Kind: measure.PerTransaction, Source: measure.CostSource(c, names)})
		}
	}
}

// workloadTarget reports whether some iteration's workload of p runs on name.
func workloadTarget(p *spec.Plan, name string) bool {
	for i := range p.Iterations {
		if p.TargetOf(&p.Iterations[i]) == name {
			return true
		}
	}
	return false
}

// Use selects the samplers of targets for the next workload and baselines them.
func (w *Watchers) Use(ctx context.Context, workload string, targets []string, logf func(string, ...any)) {
	w.targets = targets
	w.workload = workload
	w.active = nil
	want := map[string]bool{"": true}
	for _, t := range targets {
		want[t] = true
	}
	for _, sm := range w.all {
		if !want[sm.target] || sm.local && !w.local[workload] {
			continue
		}
		w.active = append(w.active, sm)
		sm.health.ticks.Store(0)
		sm.health.missed.Store(0)
		sm.health.outages, sm.health.firstErr = 0, ""
		sm.read.Store(0)
		if sm.front != nil {
			sm.upstream = sm.front.Upstream() // the baseline reads where it points now
			sm.moved.Store(false)
		}
		bctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		if err := sm.s.Baseline(bctx); err != nil {
			logf("warning: %s %s: baseline: %v", sm.target, sm.what, err)
		}
		cancel()
	}
}

// sampled is one sampler's answer at one tick.
type sampled struct {
	target string
	cols   []watch.Column
	values []float64
	warn   error
	note   string // a line for the log: the source answers again
}

// sample asks every active sampler for a value at once; each answers into its own slot
// within the interval, and wg is done when all have.
// measuredFrom says that the workload's measured part began at the previous tick: summaries
// start from the readings taken there, so they leave the warmup out as the workload's Total does.
func (w *Watchers) sample(at time.Time, interval time.Duration, measuredFrom bool, wg *sync.WaitGroup) []sampled {
	out := make([]sampled, len(w.active))
	if measuredFrom {
		for _, sm := range w.active {
			sm.rebase.Store(true)
		}
	}
	if interval <= 0 {
		interval = time.Second
	}
	w.followFronts()
	for i, sm := range w.active {
		cols := sm.s.Columns()
		out[i] = sampled{target: w.rowsOf(sm), cols: cols}
		tick := sm.health.ticks.Add(1)
		if !sm.busy.CompareAndSwap(false, true) {
			out[i].values = watch.Empty(len(cols))
			sm.health.missed.Add(1)
			continue
		}
		if sm.health.skip > 0 { // backing off a source that is down
			sm.health.skip--
			sm.busy.Store(false)
			out[i].values = watch.Empty(len(cols))
			sm.health.missed.Add(1)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer sm.busy.Store(false)
			defer func() {
				if p := recover(); p != nil {
					out[i].values = watch.Empty(len(cols))
					out[i].warn = fmt.Errorf("%s %s: internal error: %v", sm.target, sm.what, p)
				}
			}()
			ctx, cancel := context.WithTimeout(context.Background(), interval*9/10)
			defer cancel()
			moveIfSwitched(sm)
			if sm.rebase.CompareAndSwap(true, false) {
				sm.s.Rebase()
			}
			smp, err := sm.s.Sample(ctx, at)
			out[i].values = smp.Values
			if len(out[i].values) != len(cols) {
				out[i].values = watch.Empty(len(cols))
			}
			if err != nil {
				out[i].warn = fmt.Errorf("%s %s: %w", sm.target, sm.what, err)
			} else {
				sm.read.Store(tick)
			}
			if h, ok := sm.s.(watch.Health); ok && h.Down() {
				sm.health.failed(err, interval)
			} else if n := sm.health.answered(); n > 0 {
				out[i].note = fmt.Sprintf("%s %s answers again, after %d tick(s) without a reading", sm.target, sm.what, n)
			}
		}()
	}
	return out
}

// Gaps are the active samplers that missed readings during the workload, for run.json.
// Called once the workload's rows are written: no reading is under way.
func (w *Watchers) Gaps() []results.WatchGap {
	var out []results.WatchGap
	for _, sm := range w.active {
		h := &sm.health
		if n := h.missed.Load(); n > 0 {
			out = append(out, results.WatchGap{Target: w.rowsOf(sm), Sampler: sm.what, Missed: int(n), Ticks: int(h.ticks.Load()),
				Outages: h.outages, Error: h.firstErr})
		}
	}
	return out
}

// GapWarnings are the active samplers that missed readings during the workload (Gaps, their
// errors redacted) and a warning for each: a lost sampler connection costs those cells, not
// the iteration (an assertion on a status column still needs its summary), unless the plan
// says watch.on_error: fail, when the error returned names them.
func (w *Watchers) GapWarnings(onError string) ([]results.WatchGap, []string, error) {
	gaps := w.Gaps()
	var warnings, failed []string
	for i := range gaps {
		g := &gaps[i]
		g.Error = w.run.Redact(g.Error)
		warn := fmt.Sprintf("watch %s on %s: %d of %d readings missed in %d outage(s) (%s): those cells are empty", g.Sampler, g.Target, g.Missed, g.Ticks, g.Outages, g.Error)
		if g.Error == "" {
			warn = fmt.Sprintf("watch %s on %s: %d of %d readings missed (the previous reading was still under way): those cells are empty", g.Sampler, g.Target, g.Missed, g.Ticks)
		}
		warnings = append(warnings, warn)
		failed = append(failed, fmt.Sprintf("%s on %s (%d of %d)", g.Sampler, g.Target, g.Missed, g.Ticks))
	}
	if len(failed) == 0 || onError != "fail" {
		return gaps, warnings, nil
	}
	return gaps, warnings, fmt.Errorf("watch.on_error is fail and samplers missed readings: %s (watch_gaps in run.json; on_error: gap keeps such an iteration, with those cells empty)", strings.Join(failed, ", "))
}

// Settle reads once more, after the workload, each active sampler whose reading of the
// workload's last tick did not happen (the one before was still under way, or it was backing
// off a source that failed): its counters' increases would otherwise end at an earlier tick
// and leave out the workload's last work (a busy host's summary counted 299 of 300 inserts).
// Its time-series row stays empty; the summary covers the whole workload and the moments
// until this reading. Called once the rows are written: no reading is under way.
func (w *Watchers) Settle(ctx context.Context, logf func(string, ...any)) {
	for _, sm := range w.active {
		if sm.health.ticks.Load() == 0 || sm.read.Load() == sm.health.ticks.Load() {
			continue
		}
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		if _, err := sm.s.Sample(rctx, time.Now()); err != nil {
			logf("warning: %s %s: the reading after the workload's last tick failed, its summary ends at an earlier reading: %v", sm.target, sm.what, err)
		}
		cancel()
	}
}

// Summaries are, per target, every active sampler's summary (counter increases, gauges'
// last values) over the workload, sorted by name.
func (w *Watchers) Summaries() map[string][]measure.Value {
	out := map[string][]measure.Value{}
	for _, sm := range w.active {
		for k, v := range sm.s.Summary() {
			out[w.rowsOf(sm)] = append(out[w.rowsOf(sm)], measure.Value{Name: k, Value: v})
		}
	}
	for _, vs := range out {
		sort.Slice(vs, func(i, j int) bool { return vs[i].Name < vs[j].Name })
	}
	return out
}

// Conns is how many connections target name's samplers hold open on its server while a
// workload runs (the preflight counts them against max_connections).
func (w *Watchers) Conns(name string) int {
	n := 0
	for _, sm := range w.all {
		if sm.target == name {
			n += sm.conns
		}
	}
	return n
}

// rowsOf is the target whose rows get sm's columns.
func (w *Watchers) rowsOf(sm *sampler) string {
	if sm.target == "" {
		return w.workload
	}
	return sm.target
}

func (w *Watchers) Close() {
	for _, sm := range w.all {
		sm.s.Close()
	}
}
