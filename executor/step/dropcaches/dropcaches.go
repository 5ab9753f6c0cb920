// Package dropcaches is the drop_caches: step kind: sync, then empty the OS page cache so
// the next iteration reads from storage. It needs root and --allow-shell.
package dropcaches

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"

	"github.com/quadrant-bench/quadrant/executor/step"
	"github.com/quadrant-bench/quadrant/spec"
)

// what is what the step does, as the trust check and explain say it.
const what = "drop_caches: sync; echo 3 > /proc/sys/vm/drop_caches (needs root)"

// Kind is the drop_caches step kind; its body is true.
var Kind = spec.StepKind{
	Key: "drop_caches", DocType: "`true`", Doc: "true: sync, then drop the OS page cache (needs root and --allow-shell).",
	Body:   func() any { return new(bool) },
	Schema: func() map[string]any { return map[string]any{"const": true} },
	Check: func(c *spec.Check, s *spec.Step) {
		if !*spec.StepBody[*bool](s) {
			c.Errorf(s.Src.At("drop_caches"), "drop_caches must be true (write drop_caches: true), got false")
		}
	},
	Effects: func(_ *spec.Plan, ps spec.PlacedStep) []spec.Effect {
		return []spec.Effect{{Kind: spec.RunsCode, Pos: ps.Step.Src.Pos, What: what}}
	},
	Explain: func(*spec.Step, spec.Explainer) spec.Explanation {
		return spec.Explanation{Line: what + "  [needs --allow-shell]", Privileged: 1}
	},
	Impl: step.Func(run),
}

// run needs root; without it the step fails, it never pretends.
func run(ctx context.Context, _ *spec.Step, _ step.Env) error {
	if os.Geteuid() != 0 {
		return errors.New("drop_caches needs root (it writes /proc/sys/vm/drop_caches): run quadrant as root, or remove the step")
	}
	if out, err := exec.CommandContext(ctx, "sync").CombinedOutput(); err != nil {
		return fmt.Errorf("sync: %v %s", err, out)
	}
	if err := os.WriteFile("/proc/sys/vm/drop_caches", []byte("3\n"), 0); err != nil {
		return fmt.Errorf("drop_caches: %w (in a container /proc/sys is often read-only: run on the host, or remove the step)", err)
	}
	return nil
}
