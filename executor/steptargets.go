package executor

import (
	"fmt"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/step"
)

// stepTargets is the fleet as a step kind sees it (step.Targets): the sandbox cluster of a
// target, a target's connection config, its front address.
type stepTargets struct{ f *fleet }

func (t stepTargets) Cluster(name string) *sandbox.Cluster { return t.f.cluster(name) }

func (t stepTargets) Config(name string) (*mysql.Config, error) {
	s := t.f.servers[name]
	if s == nil {
		return nil, fmt.Errorf("no target %s", name)
	}
	return s.Config().Clone(), nil
}

func (t stepTargets) Front(name string) step.Front {
	if fr := t.f.fronts[name]; fr != nil {
		return fr
	}
	return nil // no typed nil in the interface
}

// recorder stores a step's iteration metrics where record_as's go; nil outside an iteration.
func (sc stepScope) recorder() step.Recorder {
	if sc.metrics == nil {
		return nil
	}
	return func(name string, v float64) { sc.metrics[name] = v }
}
