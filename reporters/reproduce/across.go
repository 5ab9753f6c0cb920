package reproduce

import (
	"fmt"
	"io"
	"strings"

	"github.com/quadrant-bench/quadrant/reporters/axiseffects"
	"github.com/quadrant-bench/quadrant/results"
)

// Series is one effect (a value pair at the other axes' values, on a target, one metric)
// across several folders of one plan: each folder's change with its interval, in the
// folders' order; a folder without the effect has a Point of NaN change.
type Series struct {
	Line   axiseffects.Line // the first folder's line that has it
	Metric string
	Points []Point
}

// Point is one folder's effect.
type Point struct {
	Run  *results.Run
	Side Side
}

// Label names a folder for a reader: its directory, host and start.
func (p Point) Label() string {
	return fmt.Sprintf("%s (%s, %s)", p.Run.Dir, p.Run.Info.Host, p.Run.Info.Start.UTC().Format("2006-01-02 15:04"))
}

// Across lines up every effect the runs state, in the order the first run that states it
// gives: the question "does this effect hold from one run of the plan to the next".
func Across(runs []*results.Run) []Series {
	var order []string
	series := map[string]*Series{}
	for ri, run := range runs {
		for _, l := range axiseffects.Compute(run) {
			for _, e := range l.Effects {
				key := lineKey(l) + "\x00" + e.Metric
				s, ok := series[key]
				if !ok {
					s = &Series{Line: l, Metric: e.Metric, Points: make([]Point, len(runs))}
					for i := range s.Points {
						s.Points[i] = Point{Run: runs[i], Side: Side{Change: nan(), Lo: nan(), Hi: nan()}}
					}
					series[key] = s
					order = append(order, key)
				}
				s.Points[ri].Side = side(e)
			}
		}
	}
	out := make([]Series, 0, len(order))
	for _, k := range order {
		out = append(out, *series[k])
	}
	return out
}

// Where is "span 148000 vs 12000 at threads=4".
func (s Series) Where() string { return Effect{Line: s.Line}.Where() }

// WriteAcross prints each effect with each folder's change under it; nothing for none.
// Escaped for a terminal.
func WriteAcross(w io.Writer, plan string, runs []*results.Run, series []Series) error {
	if len(series) == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\neffects across %d folders of plan %s (each folder's change with its 95%% CI):\n", len(runs), plan)
	for _, s := range series {
		fmt.Fprintf(&b, "  %s, %s:\n", s.Where(), s.Metric)
		for _, p := range s.Points {
			fmt.Fprintf(&b, "    %s: %s\n", p.Label(), sideText(p.Side))
		}
	}
	_, err := io.WriteString(w, results.PrintableText(b.String()))
	return err
}
