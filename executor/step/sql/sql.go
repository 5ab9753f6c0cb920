// Package sql is the sql: step kind: statements run in order on one connection to the
// step's target. Its runner is what sql_file's runs on as well (Run).
package sql

import (
	"context"
	"fmt"

	"github.com/quadrant-bench/quadrant/executor/step"
	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/sqltext"
)

// key is the plan key of the step kind.
const key = "sql"

// Kind is the sql step kind.
var Kind = spec.StepKind{
	Key: key, DocType: "string", Doc: "Statements separated by ';' run on the step's target.",
	Body: func() any { return new(Body) }, Target: true, Keys: []string{"ignore_errors", "save_as", "timeout"},
	Check:   check,
	Effects: effects,
	Explain: explain,
	Impl:    step.Func(run),
}

// Body is a sql step's text and the statements it splits into (as the mysql client does).
type Body struct {
	Text       string
	Statements []string
}

// SetString reads the text (spec.Scalar); Check splits it.
func (b *Body) SetString(s string) { b.Text = s }

// Of is s's body.
func Of(s *spec.Step) *Body { return spec.StepBody[*Body](s) }

func check(c *spec.Check, s *spec.Step) {
	b := Of(s)
	if b.Text == "" {
		return // the decoder said what is wrong with the value
	}
	stmts, err := sqltext.Split(b.Text)
	if err != nil {
		c.Errorf(s.Src.At("sql"), "sql: %v; close it, or quote the text differently", err)
		return
	}
	b.Statements = stmts
	if len(stmts) == 0 {
		c.Errorf(s.Src.At("sql"), "sql has no statement; write one, e.g. sql: \"SELECT 1\"")
	}
}

func explain(s *spec.Step, _ spec.Explainer) spec.Explanation {
	x := spec.Explanation{Line: "sql" + on(s) + ":"}
	for _, st := range Of(s).Statements {
		x.More = append(x.More, spec.OneLine(st)+";")
	}
	if len(s.IgnoreErrors) > 0 {
		x.More = append(x.More, fmt.Sprintf("(ignoring errors %v)", s.IgnoreErrors))
	}
	if s.SaveAs != "" {
		x.More = append(x.More, fmt.Sprintf("(result saved as %s)", s.SaveAs))
	}
	return x
}

// on is " on TARGET" when the step names its target.
func on(s *spec.Step) string {
	if s.Target == "" {
		return ""
	}
	return " on " + s.Target
}

func run(ctx context.Context, s *spec.Step, env step.Env) error {
	return Run(ctx, s, env, List(Of(s).Statements), Quoting{})
}
