package kinds

import (
	"github.com/quadrant-bench/quadrant/executor/step/capture"
	"github.com/quadrant-bench/quadrant/executor/step/dropcaches"
	"github.com/quadrant-bench/quadrant/executor/step/failover"
	"github.com/quadrant-bench/quadrant/executor/step/generate"
	"github.com/quadrant-bench/quadrant/executor/step/restart"
	"github.com/quadrant-bench/quadrant/executor/step/setglobal"
	"github.com/quadrant-bench/quadrant/executor/step/shell"
	"github.com/quadrant-bench/quadrant/executor/step/sleep"
	"github.com/quadrant-bench/quadrant/executor/step/sql"
	"github.com/quadrant-bench/quadrant/executor/step/sqlfile"
	"github.com/quadrant-bench/quadrant/executor/step/verify"
	"github.com/quadrant-bench/quadrant/executor/step/wait"
	"github.com/quadrant-bench/quadrant/executor/step/workloadstep"
	"github.com/quadrant-bench/quadrant/spec"
)

// Steps are the built-in step kinds, in the order the plan reference lists them; each call
// gives fresh copies, which a registry may change. A new step kind is a package under
// executor/step that declares its spec.StepKind (Impl a step.Runner), and one line here.
func Steps() []*spec.StepKind {
	list := []spec.StepKind{
		sql.Kind,
		sqlfile.Kind,
		setglobal.Kind,
		restart.Kind,
		dropcaches.Kind,
		shell.Kind,
		sleep.Kind,
		wait.Kind,
		workloadstep.Kind,
		capture.Kind,
		generate.Kind,
		verify.Kind,
		failover.Kind,
	}
	out := make([]*spec.StepKind, len(list))
	for i := range list {
		out[i] = &list[i]
	}
	return out
}
