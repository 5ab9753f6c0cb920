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
	steps := func(list []spec.Step, defaultTarget string) {
		for i := range list {
			st := &list[i]
			target := st.Target
			if target == "" {
				target = defaultTarget
			}
			switch a := st.Action().(type) {
			case *spec.Shell:
				add(st.Src.Pos, "shell: "+a.Command)
			case *spec.DropCaches:
				add(st.Src.Pos, "drop_caches: sync; echo 3 > /proc/sys/vm/drop_caches (needs root)")
			case *spec.Restart:
				if cmd := restartCmd(target); cmd != "" {
					add(st.Src.Pos, fmt.Sprintf("restart of %s: %s", target, cmd))
				}
			}
		}
	}
	def := defaultTarget(p)
	steps(p.Setup, def)
	for i := range p.Iterations {
		it := &p.Iterations[i]
		target := it.Target
		if target == "" {
			target = def
		}
		if len(it.ServerConfig) > 0 {
			if cmd := restartCmd(target); cmd != "" {
				add(it.Src.At("server_config"), fmt.Sprintf("restart of %s for server_config: %s", target, cmd))
			}
		}
		steps(it.Before, target)
		steps(it.During, target)
		steps(it.After, target)
	}
	steps(p.Teardown, def)
	return out
}

// defaultTarget is the plan's only target, when it has one.
func defaultTarget(p *spec.Plan) string {
	if len(p.Targets) == 1 {
		return p.Targets[0].Name
	}
	return ""
}
