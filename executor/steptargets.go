package executor

import (
	"fmt"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/step"
)

// stepServers is the fleet as a step kind sees it (step.Servers): the sandbox cluster of a
// target, a target's connection config, its front address.
type stepServers struct{ f *fleet }

func (t stepServers) Cluster(name string) *sandbox.Cluster { return t.f.cluster(name) }

func (t stepServers) Config(name string) (*mysql.Config, error) {
	s := t.f.targets[name]
	if s == nil {
		return nil, fmt.Errorf("no target %s", name)
	}
	return s.Config().Clone(), nil
}

func (t stepServers) Front(name string) step.Front {
	if fr := t.f.fronts[name]; fr != nil {
		return fr
	}
	return nil // no typed nil in the interface
}
