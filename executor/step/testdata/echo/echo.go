// Package echo is a whole step kind in one file, kept as test data: `echo: TEXT` logs its
// text. Registered only by a test (spec.Kinds.WithSteps), it shows that a step kind is one
// package: its key, body, check, explain lines and runner are its declaration.
package echo

import (
	"context"
	"strings"

	"github.com/quadrant-bench/quadrant/executor/step"
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
	Impl: step.Func(func(_ context.Context, s *spec.Step, env step.Env) error {
		env.Logf("%s: %s", env.Where, text(s))
		return nil
	}),
}

func text(s *spec.Step) string { return *spec.StepBody[*string](s) }
