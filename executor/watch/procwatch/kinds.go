package procwatch

import (
	"fmt"

	"github.com/quadrant-bench/quadrant/executor/watch"
	"github.com/quadrant-bench/quadrant/spec"
)

// ProcessKind samples the server process of a target on this machine: a sandbox's (the one
// its front points at), or a dsn target's given by pid or pid_file. A managed server has
// none to read: it is said once, with the host metrics it lacks too.
var ProcessKind = watch.SamplerKind{
	Name: "process", Keys: []string{"targets.pid", "targets.pid_file"}, Produces: "proc.",
	Doc: "the server process's CPU, context switches, I/O and memory from /proc: a sandbox's, or a dsn target's with pid or pid_file",
	Open: func(w *spec.Watch, t *watch.Target, env watch.Env) (*watch.Opened, error) {
		if pt := t.Plan; t.Hosting.Managed() {
			if (w.WantsHost() || pt != nil && (pt.Pid > 0 || pt.PidFile != "")) && (pt == nil || pt.SNMP == nil) {
				env.Logf("target %s is %s: its host.* and proc.* columns are left out: they come from /proc of the machine a server runs on or from an SNMP agent there, and a managed server offers neither (its provider's monitoring has them)", t.Name, t.Hosting.Name())
			}
			return nil, nil
		}
		if s := serverProcess(t); s != nil {
			return &watch.Opened{Sampler: s, Follows: true}, nil
		}
		return nil, nil
	},
}

// serverProcess reads the server process of t when quadrant can know it; nil otherwise.
func serverProcess(t *watch.Target) *Sampler {
	if t.SandboxPid != nil {
		return New(Config{What: "sandbox " + t.Name, Pid: t.SandboxPid})
	}
	pt := t.Plan
	switch {
	case pt == nil || t.Replica:
		return nil
	case pt.PidFile != "":
		file := pt.PidFile
		return New(Config{What: "pid_file " + file, Pid: func() (int, error) { return ReadPidFile(file) }})
	case pt.Pid > 0:
		pid := pt.Pid
		return New(Config{What: fmt.Sprintf("pid %d", pid), Pid: func() (int, error) { return pid, nil }})
	}
	return nil
}

// ClientKind samples quadrant's own process, on the workload's target's rows: a client
// short of CPU shows there.
var ClientKind = watch.SamplerKind{
	Name: "client", PerRun: true, Produces: "client.",
	Doc: "quadrant's own process: its CPU time and context switches (a client-bound run shows)",
	Open: func(*spec.Watch, *watch.Target, watch.Env) (*watch.Opened, error) {
		return &watch.Opened{Sampler: NewClient()}, nil
	},
}
