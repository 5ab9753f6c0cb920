// Package generate is the generate: step kind: the user's own tables filled with
// generated rows, keys kept (executor/generate fills them; docs/generate.md). Its body is
// genplan.Generate, which quadrant generate reads from a file of its own too.
package generate

import (
	"context"
	"fmt"
	"sync"
	"time"

	gen "github.com/quadrant-bench/quadrant/executor/generate"
	"github.com/quadrant-bench/quadrant/executor/generate/genplan"
	"github.com/quadrant-bench/quadrant/executor/step"
	sqlstep "github.com/quadrant-bench/quadrant/executor/step/sql"
	"github.com/quadrant-bench/quadrant/spec"
)

// Kind is the generate step kind.
var Kind = spec.StepKind{
	Key: "generate", Doc: "Fill the user's own tables with generated rows, foreign, primary and unique keys kept (see docs/generate.md).",
	Body: func() any { return new(genplan.Generate) }, Target: true, Keys: []string{"timeout"},
	Check:   func(c *spec.Check, s *spec.Step) { Of(s).CheckOn(c, s.Target) },
	Effects: effects,
	Reads:   reads,
	// every shard fills its part of each table's rows
	Splits:     func(*spec.Step) bool { return true },
	Explain:    explain,
	Privileges: func(s *spec.Step, srv spec.AccountServer) []spec.AccountNeed { return Of(s).Privileges(srv) },
	Impl:       step.Func(run),
}

// Of is s's body.
func Of(s *spec.Step) *genplan.Generate { return spec.StepBody[*genplan.Generate](s) }

func explain(s *spec.Step, _ spec.Explainer) spec.Explanation {
	g := Of(s)
	on := ""
	if s.Target != "" {
		on = " on " + s.Target
	}
	x := spec.Explanation{Line: fmt.Sprintf("generate%s (seed %d, %d threads)", on, g.Seed, g.Threads)}
	if g.Schema != "" {
		x.Line += " after the schema " + g.SchemaPath
	}
	unknown := 0
	for i, est := range estimateGenerate(g) {
		size := "size unknown"
		if est.bytes >= 0 {
			size = "about " + spec.ByteSize(est.bytes)
			x.LoadBytes += est.bytes
		} else {
			unknown++
		}
		x.LoadRows += est.rows
		x.LoadTime += est.time
		took := "about " + est.time.Round(100*time.Millisecond).String()
		if est.time < 100*time.Millisecond {
			took = "under 0.1s"
		}
		x.More = append(x.More, fmt.Sprintf("%s: %d rows, %s, %s", g.Tables[i].Name, est.rows, size, took))
	}
	note := fmt.Sprintf("(estimates: sizes from the schema file's column types, their average widths as generated plus InnoDB's %d-byte row overhead, secondary indexes not counted", innodbRowOverhead)
	switch {
	case g.SchemaPath == "" && unknown > 0:
		note += "; without a schema file the columns are known only on the server, so sizes are unknown"
	case unknown > 0:
		note += "; unknown where the schema file does not create the table or uses a type this estimate does not know"
	}
	note += fmt.Sprintf("; time at %dk rows/s per thread, as bench/generatebench measured on a 2-core machine)", generateRate/1000)
	x.More = append(x.More, note)
	if g.After != "" {
		x.More = append(x.More, "then runs "+g.AfterPath+" once every table is filled")
	}
	return x
}

// run fills the tables on the step's target, its rows counted like a data load's. In a
// sharded run every shard fills its part of each table's rows; during steps are the
// leader's alone and fill the tables whole (step.Env's Shard says which).
func run(ctx context.Context, st *spec.Step, env step.Env) error {
	g, t := Of(st), env.Target
	o := gen.FromSpec(g)
	o.Logf = env.Logf
	o.Open = env.Roots.Open
	if part := env.Shard.Part(); part.Sharded() {
		o.Shard, o.Meet = part, env.Shard.Meet
	}
	var mu sync.Mutex // the load's ticker and its end may report at once
	p := env.Track(env.Where, "rows", 0)
	defer p.Finish()
	o.Loaded = func(done, total int64) {
		mu.Lock()
		defer mu.Unlock()
		p.Update(float64(done), float64(total), "")
	}
	if o.Shard.Sharded() {
		env.Logf("%s: generating shard %s's part of %d tables on %s", env.Where, o.Shard, len(g.Tables), t.Name())
	} else {
		env.Logf("%s: generating %d tables on %s", env.Where, len(g.Tables), t.Name())
	}
	res, err := gen.Run(ctx, t.DB(), o)
	if err != nil {
		return err
	}
	env.Logf("%s: generated %d rows in %s (%d tables)", env.Where, res.Rows, res.Database, len(res.Filled))
	return nil
}

// reads are the schema file, the after file and the columns' values_file: copied into the
// results folder.
func reads(s *spec.Step) []spec.DataFile {
	g := Of(s)
	var out []spec.DataFile
	if g.Schema != "" {
		out = append(out, spec.DataFile{File: g.Schema, Path: g.SchemaPath})
	}
	if g.After != "" {
		out = append(out, spec.DataFile{File: g.After, Path: g.AfterPath})
	}
	for _, t := range g.Tables {
		for _, c := range t.Columns {
			if c.ValuesFile != "" {
				out = append(out, spec.DataFile{File: c.ValuesFile, Path: c.ValuesPath})
			}
		}
	}
	return out
}

// effects: the after: file is SQL the step runs once the tables are filled, which may do to
// the server what a sql_file could (a foreign key added back, or a GRANT in a stranger's
// folder): judged as sql_file's statements are.
func effects(p *spec.Plan, ps spec.PlacedStep) []spec.Effect {
	g := Of(ps.Step)
	return sqlstep.PathEffects(p, ps, g.Src.At("after"), "generate after "+g.After, g.AfterPath)
}
