package executor

import (
	"fmt"

	"github.com/quadrant-bench/quadrant/spec"
)

// Privileged lists, once each and in plan order, the actions that run commands on a host:
// shell steps, drop_caches, and restart commands of dsn targets. They run only with
// --allow-shell or an interactive yes.
func Privileged(p *spec.Plan) []string {
	seen := map[string]bool{}
	var out []string
	add := func(pos spec.Pos, what string) {
		line := fmt.Sprintf("%s: %s", pos, what)
		if !seen[line] {
			seen[line] = true
			out = append(out, line)
		}
	}
	restartCmd := func(name string) string {
		for _, t := range p.Targets {
			if t.Name == name && t.Sandbox == nil {
				return t.Restart
			}
		}
		return ""
	}
	// An iteration's server_config restarts before its steps run; iterations without
	// steps have theirs listed before the next step that comes after them.
	listed := 0
	serverConfigs := func(upTo int) {
		for ; listed < upTo; listed++ {
			it := &p.Iterations[listed]
			if cmd := restartCmd(p.TargetOf(it)); cmd != "" && len(it.ServerConfig) > 0 {
				add(it.Src.At("server_config"), fmt.Sprintf("restart of %s for server_config: %s", p.TargetOf(it), cmd))
			}
		}
	}
	for ps := range p.Steps() {
		switch {
		case ps.Iteration != nil:
			serverConfigs(ps.Iteration.Index)
		case ps.Phase == spec.PhaseTeardown:
			serverConfigs(len(p.Iterations))
		}
		st := ps.Step
		switch a := st.Action().(type) {
		case *spec.Shell:
			add(st.Src.Pos, "shell: "+a.Command)
		case *spec.DropCaches:
			add(st.Src.Pos, "drop_caches: sync; echo 3 > /proc/sys/vm/drop_caches (needs root)")
		case *spec.Restart:
			if cmd := restartCmd(ps.Target); cmd != "" {
				add(st.Src.Pos, fmt.Sprintf("restart of %s: %s", ps.Target, cmd))
			}
		}
	}
	serverConfigs(len(p.Iterations))
	return out
}
