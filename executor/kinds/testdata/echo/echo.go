// Package echo is a whole step kind in one file, kept as test data: `echo: TEXT` logs its
// text and, in an iteration, records its length (echo_length), which it describes as what the
// step came to. Registered only by a test (spec.Kinds.WithSteps), it shows that a step kind is one
// package: its key, body, check, explain lines and runner are its declaration.
package echo

import (
	"context"
	"strings"

	"github.com/quadrant-bench/quadrant/executor/step"
	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
)

// Kind is the echo step kind.
var Kind = spec.StepKind{
	Key:  "echo",
	Doc:  "Log this text.",
	Body: func() any { return new(string) },
	Check: func(c *spec.Check, s *spec.Step) {
		if strings.TrimSpace(text(s)) == "" {
			c.Errorf(s.Src.At("echo"), "echo has no text; write what to log, e.g. echo: \"warming up\"")
		}
	},
	Explain: func(s *spec.Step, _ spec.Explainer) spec.Explanation {
		return spec.Explanation{Line: "echo: logs " + text(s)}
	},
	Records: func(*spec.Step) []string { return []string{Length} },
	Metrics: []measure.Metric{{Name: Length, Doc: "echo: the length of the text logged", Kind: measure.Gauge, TotalUnit: measure.Count, Outcome: true}},
	Impl: step.Func(func(_ context.Context, s *spec.Step, env step.Env) error {
		env.Logf("%s: %s", env.Where, text(s))
		if env.Record != nil {
			env.Record(Length, float64(len(text(s))))
		}
		return nil
	}),
}

// Length is the iteration metric an echo step records: its text's length.
const Length = "echo_length"

func text(s *spec.Step) string { return *spec.StepBody[*string](s) }
