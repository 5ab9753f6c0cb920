package spec

import (
	"fmt"
	"slices"
)

// EffectKind is one way a plan can act beyond its own folder and the targets the user
// named. A published results folder is a stranger's input: what it may do of these the
// user allows on the command line, and spec/trust is the one check that reads them.
type EffectKind string

// The kinds of effect. Every workload kind and step kind declares which of these it has
// (Kind.Effects, StepKind.Effects); the files a plan names are declared by spec itself
// as it resolves them, so a kind that reads a file through Check.Input cannot forget.
const (
	// RunsCode runs a program or a script on this host: a shell step, a restart command, a
	// sysbench Lua script, a sandbox's server binaries from a plan's basedir.
	RunsCode EffectKind = "runs code"
	// ReadsFile reads a file named by the plan (Effect.Path, resolved against its folder).
	ReadsFile EffectKind = "reads"
	// WritesFile creates or writes a file or directory named by the plan.
	WritesFile EffectKind = "writes"
	// Connects talks to a network address that is not a target's server (an SNMP agent).
	Connects EffectKind = "connects"
	// ReadsEnv reads an environment variable of the user's (Effect.Env) that a results
	// folder's plan was not given (--allow-env): a secret, as often as not.
	ReadsEnv EffectKind = "reads the environment"
	// ChangesServer is SQL that acts on a target's server beyond the plan's own databases:
	// settings for every session, accounts and grants, plugins, replication, shutdown, the
	// server host's files (sqltext.Own.ServerChanges). A stranger's plan does it only where
	// the user allows (--allow-server-changes).
	ChangesServer EffectKind = "changes the server"
)

// Effect is one thing a plan would do that the trust check must allow, where the plan
// says it.
type Effect struct {
	Kind EffectKind
	Pos  Pos
	// What says it as the user reads it: "shell: make load", "sysbench runs the Lua script evil.lua".
	What string
	// Path is what ReadsFile and WritesFile touch, resolved against the plan's directory
	// (absolute or relative to the working directory, as the plan's Dir is).
	Path string
	// Dir says Path is a directory the plan writes into (a sandbox's parent directory).
	Dir bool
	// Addr is the host:port Connects reaches.
	Addr string
	// Env is the variable ReadsEnv reads.
	Env string
}

func (e Effect) String() string {
	return fmt.Sprintf("%s: %s", e.Pos, e.What)
}

// Effects are the plan's effects, once each in plan order: what its steps, workloads and
// targets declare and the files it names.
func (p *Plan) Effects() []Effect {
	var out []Effect
	add := func(es ...Effect) {
		for _, e := range es {
			if !slices.Contains(out, e) {
				out = append(out, e)
			}
		}
	}
	add(p.files...)
	add(p.envRead...)
	for _, t := range p.Targets {
		add(t.effects()...)
	}
	add(p.serverConfigEffects()...)
	for ps := range p.Steps() {
		if k := ps.Step.Kind; k != nil && k.Effects != nil {
			add(k.Effects(p, ps)...)
		}
	}
	for pw := range p.Workloads() {
		if k := pw.Workload.Kind; k != nil && k.Effects != nil {
			add(k.Effects(pw.Workload)...)
		}
	}
	return out
}

// effects of a target's own settings: a plan's basedir runs its binaries, an SNMP agent
// is an address of the plan's choosing.
func (t *Target) effects() []Effect {
	var out []Effect
	if sb := t.Sandbox; sb != nil && sb.Basedir != "" {
		out = append(out, Effect{Kind: RunsCode, Pos: sb.Src.At("basedir"),
			What: fmt.Sprintf("sandbox %s runs the server binaries under basedir %s", t.Name, sb.Basedir)})
	}
	if sb := t.Sandbox; sb != nil && sb.RunAs != "" {
		// Whose files the server can reach is the OS user's: a folder choosing it (the
		// victim's own login, say) picks what its SQL can read and write on this host.
		out = append(out, Effect{Kind: RunsCode, Pos: sb.Src.At("run_as"),
			What: fmt.Sprintf("sandbox %s runs its server as the OS user %s, the plan's choice (--run-as is yours)", t.Name, sb.RunAs)})
	}
	if s := t.SNMP; s != nil && s.Address != "" {
		out = append(out, Effect{Kind: Connects, Pos: s.Src.At("address"), Addr: s.Address,
			What: fmt.Sprintf("target %s's host metrics are read over SNMP from %s", t.Name, s.Address)})
	}
	return out
}

// serverConfigEffects: an iteration's server_config restarts a dsn target through its
// restart command, a command on this host.
func (p *Plan) serverConfigEffects() []Effect {
	var out []Effect
	for i := range p.Iterations {
		it := &p.Iterations[i]
		name := p.TargetOf(it)
		if cmd := p.restartCommand(name); cmd != "" && len(it.ServerConfig) > 0 {
			out = append(out, Effect{Kind: RunsCode, Pos: it.Src.At("server_config"),
				What: fmt.Sprintf("restart of %s for server_config: %s", name, cmd)})
		}
	}
	return out
}

// UsersServer says target name is a server of the user's (a dsn target, one --target
// pointed at a DSN), not a sandbox quadrant starts and throws away, nor a sandbox's replica or Galera node:
// what SQL changes on a sandbox's server goes with it. An unknown name counts as the user's.
func (p *Plan) UsersServer(name string) bool {
	for _, t := range p.Targets {
		if t.Name == name {
			return t.Sandbox == nil
		}
		for _, m := range t.Members() {
			if m == name {
				return false
			}
		}
	}
	return true
}

// restartCommand is the restart: command of dsn target name, "" for a sandbox or none.
func (p *Plan) restartCommand(name string) string {
	for _, t := range p.Targets {
		if t.Name == name && t.Sandbox == nil {
			return t.Restart
		}
	}
	return ""
}

// reads records that the plan reads path (as resolved), named at pos.
func (p *Plan) reads(pos Pos, what, name, path string) {
	p.files = append(p.files, Effect{Kind: ReadsFile, Pos: pos, Path: path, What: fmt.Sprintf("%s %s", what, name)})
}

// writes records that the plan writes path (a directory it writes into: dir).
func (p *Plan) writes(pos Pos, what, name, path string, dir bool) {
	p.files = append(p.files, Effect{Kind: WritesFile, Pos: pos, Path: path, Dir: dir, What: fmt.Sprintf("%s %s", what, name)})
}
