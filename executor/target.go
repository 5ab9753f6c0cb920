package executor

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/target"
	"github.com/quadrant-bench/quadrant/spec"
)

// liveTarget is one target while a run goes: a sandbox server quadrant started, or a server
// reached by DSN, with the connection pool that steps, globals and waits use (workloads
// and samplers open their own).
type liveTarget struct {
	target.Target
	sb   *sandbox.Server  // nil for dsn targets
	base []sandbox.Option // the plan's sandbox config; server_config and restarts add to it
	db   *sql.DB
	info target.ServerInfo
	// hosting is who runs the server (fleet.describe tells from its variables): a managed
	// one has no host quadrant can read and takes settings only through its provider.
	hosting target.Hosting
	// applied is the server_config last handed to a dsn target's restart command, so
	// the next iteration restarts only when it asks for something else.
	applied string
	// local says a dsn target's server runs on this machine (fleet.onThisHost): its storage
	// is recorded per iteration as a sandbox's is.
	local bool
}

// sandboxOptions turns a plan's my.cnf settings into sandbox options: true is the bare
// option (log_bin: true -> log-bin), false leaves the option out.
func sandboxOptions(settings spec.Settings) []sandbox.Option {
	var out []sandbox.Option
	for _, kv := range settings {
		switch v := kv.Value.(type) {
		case bool:
			if v {
				out = append(out, sandbox.Option{Name: kv.Name, Bare: true})
			}
		default:
			out = append(out, sandbox.Option{Name: kv.Name, Value: fmt.Sprint(v)})
		}
	}
	return out
}

// overlay returns base with every option of over replacing the one of the same name
// (dashes and underscores are the same in my.cnf), new ones appended in order.
func overlay(base []sandbox.Option, over []sandbox.Option) []sandbox.Option {
	out := append([]sandbox.Option(nil), base...)
	norm := func(n string) string { return strings.ReplaceAll(strings.ToLower(n), "-", "_") }
	for _, o := range over {
		replaced := false
		for i := range out {
			if norm(out[i].Name) == norm(o.Name) {
				out[i] = o
				replaced = true
			}
		}
		if !replaced {
			out = append(out, o)
		}
	}
	return out
}

// removed drops the options a plan set to false from cfg, so `log_bin: false` in an
// iteration's server_config turns off what the sandbox config turned on.
func removed(cfg []sandbox.Option, settings spec.Settings) []sandbox.Option {
	off := map[string]bool{}
	for _, kv := range settings {
		if b, ok := kv.Value.(bool); ok && !b {
			off[strings.ReplaceAll(strings.ToLower(kv.Name), "-", "_")] = true
		}
	}
	if len(off) == 0 {
		return cfg
	}
	var out []sandbox.Option
	for _, o := range cfg {
		if !off[strings.ReplaceAll(strings.ToLower(o.Name), "-", "_")] {
			out = append(out, o)
		}
	}
	return out
}

// restart applies settings and restarts the server. A sandbox is only restarted when its
// effective config changes; a dsn target runs its restart command (trust was checked
// before the run started) and waits until it answers.
func (s *liveTarget) restart(ctx context.Context, settings spec.Settings) (bool, error) {
	if s.sb == nil {
		opts := sandboxOptions(settings)
		if len(settings) > 0 && fmt.Sprint(opts) == s.applied {
			return false, nil
		}
		if err := s.Restart(ctx, opts); err != nil {
			if s.hosting.Managed() {
				err = fmt.Errorf("%w (%s is %s: its settings change only through %s)", err, s.Name(), s.hosting.Name(), s.hosting.Settings())
			}
			return false, err
		}
		s.applied = fmt.Sprint(opts)
		s.dropIdle()
		return true, nil
	}
	want := removed(overlay(s.base, sandboxOptions(settings)), settings)
	before := fmt.Sprint(s.sb.Config())
	wasRunning := s.sb.Running()
	if err := s.sb.Restart(ctx, want); err != nil {
		return false, err
	}
	changed := fmt.Sprint(s.sb.Config()) != before
	if changed || !wasRunning {
		s.dropIdle() // the pool's connections died with the old process
	}
	return changed, nil
}

// dropIdle closes the pool's idle connections, which a restart has broken, so the next
// step does not start with a dead one.
func (s *liveTarget) dropIdle() {
	s.db.SetMaxIdleConns(0)
	s.db.SetMaxIdleConns(2)
}

// status reads SHOW GLOBAL STATUS as numbers where they are numbers, strings otherwise:
// what wait conditions see as status.NAME.
func (s *liveTarget) status(ctx context.Context) (map[string]any, error) {
	raw, err := target.Status(ctx, s.db)
	if err != nil {
		return nil, err
	}
	out := make(map[string]any, 2*len(raw))
	for k, v := range raw {
		out[k] = target.Typed(v)
		out[strings.ToLower(k)] = out[k] // MySQL's names are case-insensitive
	}
	return out, nil
}
