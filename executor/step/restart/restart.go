// Package restart is the restart: step kind: restart a sandbox with these my.cnf options,
// or run a dsn target's restart command (which needs --allow-shell).
package restart

import (
	"context"
	"fmt"

	"github.com/quadrant-bench/quadrant/executor/step"
	"github.com/quadrant-bench/quadrant/spec"
)

// Kind is the restart step kind.
var Kind = spec.StepKind{
	Key: "restart", Doc: "{config: {...}}: restart a sandbox with these my.cnf options, or run a dsn target's restart command.",
	Body: func() any { return new(Restart) }, Target: true, Keys: []string{"timeout"}, Restarts: true,
	Check:   check,
	Effects: effects,
	Explain: explain,
	Impl:    step.Func(run),
}

// Restart is a restart: step's body (its name is the plan reference's section).
type Restart struct {
	Src    spec.Source   `yaml:"-"`
	Config spec.Settings `yaml:"config" doc:"my.cnf options to apply (sandbox targets)."`
}

// PlanDoc is the plan reference's text for the section (spec.Documented).
func (*Restart) PlanDoc() string {
	return "`restart: {}` restarts the step's target; `restart: {config: {...}}` first changes a sandbox's my.cnf."
}

// Of is s's body.
func Of(s *spec.Step) *Restart { return spec.StepBody[*Restart](s) }

func check(c *spec.Check, s *spec.Step) {
	r := Of(s)
	c.Settings(r.Config, "restart.config")
	t := c.Target(s.Target)
	if t != nil && t.Sandbox != nil {
		c.SandboxConfig(t.Sandbox, r.Config, "restart.config of sandbox "+s.Target)
	}
	if t == nil || t.Sandbox != nil {
		return
	}
	if t.Restart == "" {
		c.Errorf(s.Src.At("restart"), "target %s has no restart command; add restart: \"sudo systemctl restart mysql\" to the target (a managed server restarts only through its provider: reboot it there, or drop the step)", t.Name)
	}
	if len(r.Config) > 0 {
		c.Errorf(r.Src.At("config"), "restart.config only applies to sandbox targets; %s is a dsn target (change its my.cnf yourself in its restart command)", t.Name)
	}
}

// command is the restart: command of dsn target name, "" for a sandbox or none.
func command(p *spec.Plan, name string) string {
	for _, t := range p.Targets {
		if t.Name == name && t.Sandbox == nil {
			return t.Restart
		}
	}
	return ""
}

func effects(p *spec.Plan, ps spec.PlacedStep) []spec.Effect {
	if cmd := command(p, ps.Target); cmd != "" {
		return []spec.Effect{{Kind: spec.RunsCode, Pos: ps.Step.Src.Pos, What: fmt.Sprintf("restart of %s: %s", ps.Target, cmd)}}
	}
	return nil
}

// explain flags a restart that runs the target's own shell command.
func explain(s *spec.Step, x spec.Explainer) spec.Explanation {
	e := spec.Explanation{Line: "restart " + s.Target}
	if r := Of(s); len(r.Config) > 0 {
		e.Line += " with " + r.Config.String()
	}
	if cmd := command(x.Plan(), s.Target); cmd != "" {
		e.Privileged++
		e.More = append(e.More, "restart command: "+cmd+"  [needs --allow-shell]")
	}
	return e
}

func run(ctx context.Context, s *spec.Step, env step.Env) error {
	return env.Restarter.Restart(ctx, env.Target, Of(s).Config)
}
