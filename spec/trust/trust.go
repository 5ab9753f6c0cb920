// Package trust is the one check of what a plan may do beyond its own folder and the
// targets the user named: it reads the effects the plan's steps, workloads and targets
// declare (spec.Plan.Effects) and refuses, all at once, those the user has not allowed
// on the command line. run, rerun and the executor ask it before anything runs; validate
// and explain show what it would refuse. docs/security.md is the model it enforces.
package trust

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/confine"
)

// Allow is what the user allowed on the command line.
type Allow struct {
	// Shell lets the plan run code on this host (--allow-shell).
	Shell bool
	// Paths are directories the plan may read and write besides its own folder
	// (--allow-path DIR, repeatable).
	Paths []string
	// Results is the results folder, which the run writes.
	Results string
	// Addresses are host:port the plan may connect to besides its targets
	// (--allow-address, repeatable); a stranger's folder only.
	Addresses []string
	// ServerChanges lets a stranger's plan run SQL that changes its targets' servers beyond
	// its own databases (--allow-server-changes).
	ServerChanges bool
	// Folder says the plan is a stranger's (a results folder being rerun): its addresses
	// need Addresses. The user's own plan, run with run, may talk to what it names.
	Folder bool
}

// Refusal lists every effect the user has not allowed, with the flag that allows it.
type Refusal struct {
	Items []Item
}

// Item is one refused effect.
type Item struct {
	Effect spec.Effect
	// Why says what is wrong with it and Flag what allows it.
	Why, Flag string
}

func (r *Refusal) Error() string {
	var b strings.Builder
	b.WriteString("the plan would act beyond its folder and its targets; nothing was run:")
	for _, it := range r.Items {
		fmt.Fprintf(&b, "\n  %s: %s (%s)", it.Effect.Pos, it.Why, it.Flag)
	}
	b.WriteString("\nRead what each does (quadrant explain), then allow it with the flag named, or remove it from the plan.")
	return b.String()
}

// Flags are the allowances an effect kind needs, for messages and explain.
func Flags(items []Item) []string {
	var out []string
	for _, it := range items {
		if !slices.Contains(out, it.Flag) {
			out = append(out, it.Flag)
		}
	}
	return out
}

// Check returns the effects of p that a does not allow; nil when all are allowed.
func Check(p *spec.Plan, a Allow) *Refusal {
	items := Refused(p.Effects(), p.Dir, a)
	if len(items) == 0 {
		return nil
	}
	return &Refusal{Items: items}
}

// Refused returns the effects that a does not allow, for a plan whose folder is dir.
func Refused(effects []spec.Effect, dir string, a Allow) []Item {
	roots := confine.New(append([]string{dir, a.Results}, a.Paths...)...)
	var out []Item
	for _, e := range effects {
		if it, refused := judge(e, roots, a); refused {
			out = append(out, it)
		}
	}
	return out
}

func judge(e spec.Effect, roots confine.Roots, a Allow) (Item, bool) {
	switch e.Kind {
	case spec.RunsCode:
		return Item{Effect: e, Why: e.What + " runs code on this host", Flag: "--allow-shell"}, !a.Shell
	case spec.ReadsFile, spec.WritesFile:
		if !roots.Inside(e.Path) {
			real := confine.Resolve(e.Path)
			where := real
			if abs, _ := filepath.Abs(e.Path); abs != real {
				where += " (through a symlink)"
			}
			return Item{Effect: e, Why: fmt.Sprintf("%s %s %s, outside the plan's folder", e.What, e.Kind, where),
				Flag: "--allow-path " + suggestDir(e.Dir, real)}, true
		}
	case spec.ReadsEnv:
		// spec records only what --allow-env did not pass
		return Item{Effect: e, Why: e.What + ", which a results folder's plan gets only where you allow it", Flag: "--allow-env " + e.Env}, true
	case spec.ChangesServer:
		if a.Folder && !a.ServerChanges {
			return Item{Effect: e, Why: e.What + ", beyond the plan's own databases", Flag: "--allow-server-changes"}, true
		}
	case spec.Connects:
		if a.Folder && !slices.Contains(a.Addresses, e.Addr) {
			return Item{Effect: e, Why: e.What + ", an address you did not name", Flag: "--allow-address " + e.Addr}, true
		}
	}
	return Item{}, false
}

// suggestDir is the directory --allow-path would need for the file at real: its own
// directory, or itself for a directory the plan writes into.
func suggestDir(dir bool, real string) string {
	if dir {
		return real
	}
	return filepath.Dir(real)
}
