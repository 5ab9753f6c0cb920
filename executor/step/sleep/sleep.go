// Package sleep is the sleep: step kind: wait this long.
package sleep

import (
	"context"
	"time"

	"github.com/quadrant-bench/quadrant/executor/step"
	"github.com/quadrant-bench/quadrant/spec"
)

// Kind is the sleep step kind; its body is the duration.
var Kind = spec.StepKind{
	Key: "sleep", DocType: "duration", Doc: "Wait this long (Go duration).",
	Body:    func() any { return new(time.Duration) },
	Explain: explain,
	Impl:    step.Func(run),
}

func duration(s *spec.Step) time.Duration { return *spec.StepBody[*time.Duration](s) }

func explain(s *spec.Step, _ spec.Explainer) spec.Explanation {
	d := duration(s)
	return spec.Explanation{Line: "sleep " + d.String(), Upper: d}
}

func run(ctx context.Context, s *spec.Step, env step.Env) error {
	d := duration(s)
	env.LogFile("%s: sleep %s", env.Where, d)
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}
