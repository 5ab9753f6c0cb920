// Package wait is the wait: step kind: poll a target until a condition over its status,
// its replica status and a query's first row holds.
package wait

import (
	"fmt"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/executor/step"
	"github.com/quadrant-bench/quadrant/spec"
)

// Kind is the wait step kind.
var Kind = spec.StepKind{
	Key: "wait", Doc: "Poll until an expression is true.", Body: func() any { return new(Wait) }, Target: true,
	OwnTarget:  func(s *spec.Step) (string, spec.Pos) { w := Of(s); return w.Target, w.Src.At("target") },
	RecordAs:   func(s *spec.Step) string { return Of(s).RecordAs },
	Check:      check,
	Explain:    explain,
	Privileges: privileges,
	Impl:       step.Func(run),
}

// Wait is a `wait:` step's body.
type Wait struct {
	Src      spec.Source   `yaml:"-"`
	Until    spec.Expr     `yaml:"until,required" doc:"Expression over status.NAME, replica.NAME (replica status fields) and row.COLUMN (first row of sql:)."`
	SQL      string        `yaml:"sql" doc:"Query whose first row is row.* in until."`
	Target   string        `yaml:"target" doc:"Target polled (default: the step's target)."`
	Interval time.Duration `yaml:"interval" default:"1s" doc:"Time between polls."`
	Timeout  time.Duration `yaml:"timeout" default:"10m" doc:"Fail the step after this long."`
	RecordAs string        `yaml:"record_as" pattern:"^[a-z][a-z0-9_]*$" doc:"Store the seconds the wait took as an iteration metric of this name (usable in assert)."`
}

// PlanDoc is the wait section's text in the plan reference.
func (*Wait) PlanDoc() string {
	return "Polls until `until` is true, every `interval`, failing after `timeout`."
}

// Of is s's body.
func Of(s *spec.Step) *Wait { return spec.StepBody[*Wait](s) }

// maps are what a condition reads besides the iteration's names.
var maps = []string{"status", "replica", "row"}

func check(c *spec.Check, s *spec.Step) {
	w := Of(s)
	if w.Interval <= 0 {
		c.Errorf(w.Src.At("interval"), "wait interval must be more than 0")
	}
	if w.Timeout <= 0 {
		c.Errorf(w.Src.At("timeout"), "wait timeout must be more than 0")
	}
	if c.Condition(&w.Until, maps...) && strings.Contains(w.Until.Source, "row.") && w.SQL == "" {
		c.Errorf(w.Src.At("until"), "until uses row.* but wait has no sql: to read the row from; add sql: \"SELECT ...\"")
	}
}

func explain(s *spec.Step, _ spec.Explainer) spec.Explanation {
	w := Of(s)
	on := ""
	if s.Target != "" {
		on = " on " + s.Target
	}
	x := spec.Explanation{Upper: w.Timeout,
		Line: fmt.Sprintf("wait%s until %s (every %s, at most %s)", on, w.Until.Source, w.Interval, w.Timeout)}
	if w.RecordAs != "" {
		x.Line += ", seconds recorded as " + w.RecordAs
	}
	if w.SQL != "" {
		x.More = []string{"polling: " + spec.OneLine(w.SQL)}
	}
	return x
}

// privileges: only a wait that reads replica.NAME reads the replica status.
func privileges(s *spec.Step, srv spec.AccountServer) []spec.AccountNeed {
	if !spec.ReplicaRef.MatchString(Of(s).Until.Source) {
		return nil
	}
	return []spec.AccountNeed{{Pos: s.Src.Pos, What: "wait", Why: "SHOW REPLICA STATUS for replica.*", Any: [][]spec.Privilege{{srv.ReplicaStatus}}}}
}
