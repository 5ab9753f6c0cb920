package outcomes

import (
	"strconv"
	"strings"

	"github.com/quadrant-bench/quadrant/results"
)

// sentences say of a count of losses (m.Loss says what losing is) in how many repeats each
// cell lost something: without a matrix one sentence per target; with one, per axis whose
// cells differ in it and per combination of the other axes and target, its values side by
// side: "replication=async lost acknowledged commits in 3 of 3 repeats, 12-40; semisync in 0
// of 3".
func sentences(axes []string, cells []Cell, m results.MetricInfo) []string {
	targets := map[string]bool{}
	for _, c := range cells {
		targets[c.Target] = true
	}
	var out []string
	if len(axes) == 0 {
		for _, c := range cells {
			out = append(out, strings.TrimPrefix(where(nil, c.Target, len(targets))+" ", " ")+m.Loss+" in "+c.Tally(m.Name))
		}
		return out
	}
	for ai, axis := range axes {
		groups, order := map[string][]Cell{}, []string(nil)
		for _, c := range cells {
			k := otherKey(c, ai)
			if _, ok := groups[k]; !ok {
				order = append(order, k)
			}
			groups[k] = append(groups[k], c)
		}
		for _, k := range order {
			g := groups[k]
			if len(g) < 2 {
				continue // the axis does not vary here
			}
			var parts []string
			for j, c := range g {
				v := c.Matrix[ai].Value
				if j == 0 {
					parts = append(parts, axis+"="+v+" "+m.Loss+" in "+c.Tally(m.Name))
				} else {
					parts = append(parts, v+" in "+c.Tally(m.Name))
				}
			}
			s := strings.Join(parts, "; ")
			if w := where(others(g[0], ai), g[0].Target, len(targets)); w != "" {
				s += " (at " + w + ")"
			}
			out = append(out, s)
		}
	}
	return out
}

// Tally is, of a count of losses, "3 of 3 repeats, 12-40" (the counts above 0, their
// smallest and largest), "0 of 3 repeats", and how many repeats have no count.
func (c Cell) Tally(metric string) string {
	lost, of, missing, lo, hi := c.Lost(metric)
	s := strconv.Itoa(lost) + " of " + strconv.Itoa(of) + " repeats"
	if of == 1 {
		s = strconv.Itoa(lost) + " of 1 repeat"
	}
	switch {
	case lost == 0:
	case lo == hi:
		s += ", " + results.FormatFloat(lo)
	default:
		s += ", " + results.FormatFloat(lo) + "-" + results.FormatFloat(hi)
	}
	if missing > 0 {
		s += " (" + strconv.Itoa(missing) + " without a count: the step did not get as far)"
	}
	return s
}

// otherKey is the cell's values of every axis but the ai-th, and its target.
func otherKey(c Cell, ai int) string {
	var b strings.Builder
	for i, f := range c.Matrix {
		if i != ai {
			b.WriteString(f.Name + "=" + f.Value + "\x00")
		}
	}
	return b.String() + "@" + c.Target
}

func others(c Cell, ai int) []results.Field {
	var out []results.Field
	for i, f := range c.Matrix {
		if i != ai {
			out = append(out, f)
		}
	}
	return out
}

// where is "threads=4" (and "@target" when the cells are on several targets).
func where(at []results.Field, target string, targets int) string {
	var parts []string
	for _, f := range at {
		parts = append(parts, f.Name+"="+f.Value)
	}
	if targets > 1 {
		parts = append(parts, "@"+target)
	}
	return strings.Join(parts, " ")
}
