package generate

import "github.com/quadrant-bench/quadrant/executor/generate/genplan"

// FromSpec is what a generate: step (or quadrant generate's settings) asks for, as Options.
func FromSpec(g *genplan.Generate) Options {
	o := Options{Schema: g.SchemaPath, After: g.AfterPath, Database: g.Database, Seed: g.Seed, Threads: g.Threads, Method: g.Method}
	for _, t := range g.Tables {
		gt := Table{Name: t.Name, Rows: t.Rows, Columns: map[string]Settings{}, Time: t.Time}
		if no := t.NoOverlap; no != nil {
			gt.NoOverlap = &NoOverlap{Entity: no.Entity, From: no.From, To: no.To}
		}
		if pp := t.PerParent; pp != nil {
			lo, hi := pp.Range()
			gt.PerParent = &PerParent{Parent: pp.Parent, Min: lo, Max: hi, Distribution: pp.Distribution}
		}
		for _, c := range t.Columns {
			gt.Columns[c.Name] = Settings{Distribution: c.Distribution, Values: c.AllValues(), Weights: c.Weights,
				Min: string(c.Min), Max: string(c.Max), NullFraction: c.NullFraction, Length: c.Length,
				Pattern: c.Pattern, FromSample: c.FromSample, Expr: c.Expr.Source}
		}
		if rs := t.FromSample; rs != nil {
			gt.RowSample = &RowSample{Table: rs.Table, Columns: rs.Columns.Names()}
		}
		o.Tables = append(o.Tables, gt)
	}
	return o
}
