// Package verify is the verify: step kind: the captured reads of a traffic file run on
// two targets or more and compared with the first, as quadrant verify does (executor/verify
// runs them; docs/verify.md), so that an upgrade check is a plan that can be shared and
// run again.
package verify

import (
	"context"
	"fmt"
	"strings"

	"github.com/quadrant-bench/quadrant/executor/step"
	vf "github.com/quadrant-bench/quadrant/executor/verify"
	"github.com/quadrant-bench/quadrant/spec"
)

// Kind is the verify step kind.
var Kind = spec.StepKind{
	Key: "verify", Doc: "Run a capture's reads on two targets or more and compare each with the first: same rows, same plans? queries.csv in the results (see docs/verify.md).",
	Body: func() any { return new(Verify) }, Keys: []string{"timeout"},
	NoTarget: "which runs on several targets; name them in verify.targets: [base, new] (the first is the base)",
	// queries.csv has no iteration column: a verify run per iteration would pile rows
	// up that nothing tells apart.
	Once:  "its queries.csv rows say nothing of an iteration",
	Check: check,
	Reads: func(s *spec.Step) []spec.DataFile {
		v := Of(s)
		return []spec.DataFile{{File: v.Traffic, Path: v.TrafficPath}}
	},
	Explain: explain,
	Impl:    step.Func(run),
}

// Verify is a verify: step's body (its name is the plan reference's section).
type Verify struct {
	Src     spec.Source `yaml:"-"`
	Traffic string      `yaml:"traffic,required" doc:"The captured traffic, relative to the plan: a slow log, a general log, a capture file (.qcap, e.g. one a capture: step of the plan writes) or a SQL file."`
	Format  string      `yaml:"format" default:"auto" enum:"auto,sql,slowlog,general,qcap" doc:"The traffic's format; auto detects it from the content."`
	Targets []string    `yaml:"targets" doc:"The plan targets the reads run on; the first is the base every other is compared with (default: every target, in plan order)."`
	Sample  int         `yaml:"sample" default:"20" min:"1" doc:"Statements run per fingerprint (at most), drawn at random with seed."`
	Seed    int64       `yaml:"seed" default:"1" doc:"The seed of the sample: the same seed and traffic run the same statements."`
	Repeat  int         `yaml:"repeat" default:"50" min:"0" doc:"Timed runs of each fingerprint on each target, interleaved between them, for the latency verdict (fewer for a statement of seconds); 0 times nothing. As quadrant verify --repeat."`
	// MinChange is in percent.
	MinChange float64 `yaml:"min_change" default:"10" min:"0" doc:"The least change of a fingerprint's mean latency, in percent, called faster or slower (its 95% interval must leave out 0 too). As --min-change."`
	Writes    bool    `yaml:"writes" doc:"Run the captured writes too, in captured order on every target, after the reads (for throwaway copies or sandboxes: they change the data). As --writes."`

	// TrafficPath is Traffic resolved against the plan's directory.
	TrafficPath string `yaml:"-"`
}

// PlanDoc is the plan reference's text for the section (spec.Documented).
func (*Verify) PlanDoc() string {
	return "Runs the reads of a captured traffic file (read_only's rule) on `targets` and compares each with the first, per statement fingerprint: the same rows (an order-insensitive checksum unless the statement has a top-level ORDER BY), row count, warnings and errors, and the same plan (EXPLAIN FORMAT=JSON reduced to access type, key and join order). One row per fingerprint and compared target goes to the results' queries.csv (see docs/verify.md). Differences are the result, not a failure: the step fails only when the traffic cannot be read or the results not written. A target lost midway leaves what it had not run as results=error, \"not run on TARGET\"."
}

// Of is s's body.
func Of(s *spec.Step) *Verify { return spec.StepBody[*Verify](s) }

// targets are the targets v runs on, in order: its targets:, else every target of the
// plan, in plan order (names lists them).
func targets(v *Verify, names func() []string) []string {
	if len(v.Targets) > 0 {
		return v.Targets
	}
	return names()
}

func planNames(p *spec.Plan) func() []string {
	return func() []string {
		out := make([]string, 0, len(p.Targets))
		for _, t := range p.Targets {
			out = append(out, t.Name)
		}
		return out
	}
}

func check(c *spec.Check, s *spec.Step) {
	v := Of(s)
	v.TrafficPath = c.Input(v.Traffic, v.Src.At("traffic"), "verify traffic")
	if v.Repeat == 1 {
		c.Errorf(v.Src.At("repeat"), "verify.repeat is 1: one run says nothing of the noise; give 2 or more, or 0 to time nothing")
	}
	seen := map[string]bool{}
	for _, name := range v.Targets {
		if seen[name] {
			c.Errorf(v.Src.At("targets"), "verify.targets names %s twice; name each target once (the first is the base)", name)
		}
		seen[name] = true
		c.KnownTarget(name, v.Src.At("targets"), "verify.targets")
	}
	if names := targets(v, c.TargetNames); len(names) < 2 {
		at := v.Src.Pos
		if v.Src.Has("targets") {
			at = v.Src.At("targets")
		}
		c.Errorf(at, "verify needs two targets or more (it has %s): the first is the base, the others are compared with it; add a target to the plan or to verify.targets", orNothing(names))
	}
}

func orNothing(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

func explain(s *spec.Step, x spec.Explainer) spec.Explanation {
	v := Of(s)
	names := targets(v, planNames(x.Plan()))
	timed := fmt.Sprintf("each fingerprint then timed up to %d times a target, interleaved (faster/slower beyond %g%%)", v.Repeat, v.MinChange)
	if v.Repeat == 0 {
		timed = "latency not timed (repeat: 0)"
	}
	e := spec.Explanation{Line: fmt.Sprintf("verify: the reads of %s run on %s (the base) and %s, at most %d statements per fingerprint (seed %d); rows and plans compared into queries.csv; %s",
		v.TrafficPath, names[0], strings.Join(names[1:], ", "), v.Sample, v.Seed, timed)}
	if v.Writes {
		e.More = []string{"writes: the captured writes run too, on every target (they change its data: throwaway copies only)"}
	}
	return e
}

// run runs the step on the plan's targets into the run's queries.csv. Differences are
// what the step finds, not a failure: only an error of verify itself fails it.
func run(ctx context.Context, st *spec.Step, env step.Env) error {
	v := Of(st)
	o := vf.Options{Traffic: v.TrafficPath, Format: v.Format, Open: env.Roots.Open, Sample: v.Sample, Seed: uint64(v.Seed), Out: env.Out,
		Repeat: v.Repeat, MinChange: v.MinChange, Writes: v.Writes, Redact: env.Redact,
		// verify writes its lines to log.txt itself (Out): the console only shows them
		Logf: env.Show}
	names := targets(v, planNames(env.Plan))
	for _, name := range names {
		t := env.Targets.Target(name)
		if t == nil {
			return fmt.Errorf("verify: no target %s in the run", name)
		}
		o.Targets = append(o.Targets, vf.Target{Name: name, DB: t.DB()})
	}
	env.Logf("%s: verify %s on %v, %s the base", env.Where, v.Traffic, names, names[0])
	sum, err := vf.Run(ctx, o)
	if err != nil {
		return fmt.Errorf("verify %s: %w", v.Traffic, err)
	}
	env.Logf("%s: verify: %d fingerprints (%d statements), %d differ, %d slower; see queries.csv", env.Where, sum.Fingerprints, sum.Statements, sum.Different, sum.Slower)
	return nil
}
