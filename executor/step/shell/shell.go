// Package shell is the shell: step kind: a command run with sh -c, which needs
// --allow-shell, with what it knows of the run in its environment.
package shell

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/executor/internal/tail"
	"github.com/quadrant-bench/quadrant/executor/step"
	"github.com/quadrant-bench/quadrant/spec"
)

// Kind is the shell step kind.
var Kind = spec.StepKind{
	Key: "shell", DocType: "string", Doc: "A shell command (needs --allow-shell). Env: QUADRANT_ITERATION, QUADRANT_MATRIX_<AXIS>, QUADRANT_TARGET_<NAME>_HOST/_PORT, and for a sandbox QUADRANT_TARGET_<NAME>_CNF, a client option file with its credentials (mariadb --defaults-extra-file=$QUADRANT_TARGET_<NAME>_CNF), and QUADRANT_TARGET_<NAME>_OS_USER, the OS user its server runs as (chown to it what the server must write).",
	Body: func() any { return new(Body) }, Keys: []string{"timeout"}, RestoresAny: true,
	Effects: func(_ *spec.Plan, ps spec.PlacedStep) []spec.Effect {
		return []spec.Effect{{Kind: spec.RunsCode, Pos: ps.Step.Src.Pos, What: "shell: " + command(ps.Step)}}
	},
	// a setup step's dump that restore steps read: the command names the file
	Names:   func(s *spec.Step, file string) bool { return strings.Contains(command(s), file) },
	Explain: explain,
	Impl:    step.Func(run),
}

// Body is a shell step's command.
type Body struct{ Command string }

// SetString reads the command (spec.Scalar).
func (b *Body) SetString(s string) { b.Command = s }

func command(s *spec.Step) string { return spec.StepBody[*Body](s).Command }

// privileged is how explain flags what needs --allow-shell.
const privileged = "  [needs --allow-shell]"

func explain(s *spec.Step, _ spec.Explainer) spec.Explanation {
	x := spec.Explanation{Line: "shell: " + spec.OneLine(command(s)) + privileged, Privileged: 1}
	if s.Timeout > 0 {
		x.More = []string{fmt.Sprintf("(timeout %s)", s.Timeout)}
	}
	return x
}

// run runs the command with sh -c; its output goes to the log, and a failure shows its
// last lines.
func run(ctx context.Context, s *spec.Step, env step.Env) error {
	c := command(s)
	env.Logf("%s: shell: %s", env.Where, c)
	cmd := exec.CommandContext(ctx, "sh", "-c", c)
	cmd.Env = append(os.Environ(), Environment(env)...)
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if len(out) > 0 {
		env.LogFile("shell output:\n%s", strings.TrimRight(string(out), "\n"))
	}
	if err != nil {
		return fmt.Errorf("%q failed: %v\n%s", c, err, tail.Lines(string(out), 15))
	}
	return nil
}

// Environment is what a shell step knows of the run (docs/plan-reference.md, shell).
func Environment(env step.Env) []string {
	var out []string
	if it := env.Iteration; it != nil {
		out = append(out, fmt.Sprintf("QUADRANT_ITERATION=%d", it.Index), fmt.Sprintf("QUADRANT_REPEAT=%d", it.Repeat))
		for _, av := range it.Matrix {
			out = append(out, fmt.Sprintf("QUADRANT_MATRIX_%s=%v", strings.ToUpper(av.Axis), av.Value))
		}
	}
	for _, name := range env.Targets.Names() {
		t := env.Targets.Target(name)
		up := strings.ToUpper(name)
		out = append(out, fmt.Sprintf("QUADRANT_TARGET_%s_HOST=%s", up, t.Host()), fmt.Sprintf("QUADRANT_TARGET_%s_PORT=%d", up, t.Port()))
		if sb, ok := t.Sandbox(); ok {
			// A sandbox's password is random: a script reaches it through the option file, so
			// the password shows neither in the plan nor on a command line.
			out = append(out, fmt.Sprintf("QUADRANT_TARGET_%s_CNF=%s", up, sb.ClientConfig))
			// Directories a step makes for the server (binary logs elsewhere, say) must be the
			// server's user's: quadrant may run as root, the server never does.
			out = append(out, fmt.Sprintf("QUADRANT_TARGET_%s_OS_USER=%s", up, sb.RunAs))
			if sb.CA != "" {
				out = append(out, fmt.Sprintf("QUADRANT_TARGET_%s_CA=%s", up, sb.CA))
			}
		}
	}
	return out
}
