package sql

import (
	"fmt"
	"io"
	"strings"

	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/sqltext"
)

// maxEffects bounds the changes one step lists: a dump can hold thousands of GRANTs, and
// the refusal is read on a terminal.
const maxEffects = 5

// effects are what a sql: step's statements do to the server beyond the plan's own
// databases (sqltext.Own.ServerChanges), after the plan's SQL before it; on the user's
// servers only (a sandbox's changes go with it).
func effects(p *spec.Plan, ps spec.PlacedStep) []spec.Effect {
	if !p.UsersServer(ps.Target) {
		return nil
	}
	own := OwnBefore(p, ps.Step)
	c := Changes{At: ps.Step.Src.At("sql"), What: "sql" + on(ps.Step)}
	for _, st := range Of(ps.Step).Statements {
		c.Add(own.ServerChanges(st), 0)
	}
	return c.Effects()
}

// OwnBefore is what the plan's sql: steps before s made the plan's own, read in run order.
func OwnBefore(p *spec.Plan, s *spec.Step) *sqltext.Own {
	own := &sqltext.Own{}
	for ps := range p.Steps() {
		if ps.Step == s {
			break
		}
		if k := ps.Step.Kind; k != nil && k.Key == key {
			for _, st := range Of(ps.Step).Statements {
				own.ServerChanges(st)
			}
		}
	}
	return own
}

// Changes gathers the server changes of one step's statements into its effects.
type Changes struct {
	At   spec.Pos
	What string // "sql on db", "sql_file setup.sql"
	list []spec.Effect
	more int
}

// Add records what one statement changes; line is its line in a file (0: none).
func (c *Changes) Add(changes []string, line int) {
	for _, ch := range changes {
		if len(c.list) == maxEffects {
			c.more++
			continue
		}
		pos, where := c.At, ""
		if line > 0 {
			where = fmt.Sprintf(" (line %d)", line)
		}
		c.list = append(c.list, spec.Effect{Kind: spec.ChangesServer, Pos: pos,
			What: fmt.Sprintf("%s%s: %s", c.What, where, ch)})
	}
}

// Effects are the changes recorded, the last saying how many more there are.
func (c *Changes) Effects() []spec.Effect {
	if c.more > 0 {
		c.list[len(c.list)-1].What += fmt.Sprintf(" (and %d more)", c.more)
	}
	return c.list
}

// ScanLimit is how much of a SQL file the check reads: what a larger file's rest does to
// the server is not known, which counts as a change (the check is conservative).
const ScanLimit = 64 << 20

// FileEffects are the server changes of the SQL file r (name as the plan gives it), read up
// to ScanLimit.
func FileEffects(own *sqltext.Own, r io.Reader, c *Changes) []spec.Effect {
	lr := &io.LimitedReader{R: r, N: ScanLimit + 1}
	sp := sqltext.NewSplitter(lr)
	sp.SetLimit(spec.MySQLMaxAllowedPacket)
	for {
		st, line, err := sp.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			c.Add([]string{fmt.Sprintf("statements past line %d the check cannot read (%s)", line, strings.TrimSpace(err.Error()))}, 0)
			break
		}
		c.Add(own.ServerChanges(string(st)), line)
	}
	if lr.N <= 0 {
		c.Add([]string{fmt.Sprintf("what the file holds past the first %d MiB, which the check does not read", ScanLimit>>20)}, 0)
	}
	return c.Effects()
}

// PathEffects are the server changes of the plan's SQL file at path, which step ps runs
// (what names it, at its key's position), on the user's servers only. A file outside the
// plan's roots is not read (the trust check refuses its read already); one the check cannot
// open (setup writes it) is a change it cannot rule out.
func PathEffects(p *spec.Plan, ps spec.PlacedStep, at spec.Pos, what, path string) []spec.Effect {
	if path == "" || !p.Roots().Inside(path) || !p.UsersServer(ps.Target) {
		return nil
	}
	c := &Changes{At: at, What: what}
	f, err := p.Roots().Open(path)
	if err != nil {
		c.Add([]string{fmt.Sprintf("statements the check cannot read now (%v)", err)}, 0)
		return c.Effects()
	}
	defer f.Close()
	return FileEffects(OwnBefore(p, ps.Step), f, c)
}
