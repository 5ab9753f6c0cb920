package spec

import "github.com/quadrant-bench/quadrant/spec/confine"

// Roots are the directories the plan's files may be in: its own folder and what
// --allow-path gave (Options.AllowPaths). spec/trust checks the paths against them before
// anything runs; the executor and the CLI open every file the plan names through them, so
// a symlink swapped in after that check leads nowhere.
func (p *Plan) Roots() confine.Roots {
	dir := p.Dir
	if dir == "" {
		dir = "."
	}
	return confine.New(append([]string{dir}, p.opts.AllowPaths...)...)
}
