package reproduce

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/quadrant-bench/quadrant/results"
)

// Label is the verdict as the console leads a line with it: capitals for what needs a look.
func Label(verdict string) string {
	if verdict == Reproduced {
		return verdict
	}
	return strings.ToUpper(verdict)
}

// Where is "flush 2 vs 1 at threads=16" (and "@target" with several).
func (e Effect) Where() string {
	s := e.Line.Pair()
	if w := e.Line.Where(); w != "" {
		s += " at " + w
	}
	return s
}

// Sentence is "flush 2 vs 1 at threads=16, tps: published +21.9% (95% CI +3.5 to +43%),
// here +5.6% (95% CI -9.4 to +21%); difference ...". The folder's strings are as they are:
// a caller printing to a terminal escapes them (WriteText does).
func (e Effect) Sentence() string {
	return fmt.Sprintf("%s, %s: published %s, here %s; %s", e.Where(), e.Metric, sideText(e.Published), sideText(e.Here), e.Why)
}

func sideText(s Side) string {
	switch {
	case math.IsNaN(s.Change):
		return "none"
	case math.IsNaN(s.Lo) || math.IsNaN(s.Hi):
		return fmt.Sprintf("%+.1f%% (no interval)", s.Change)
	}
	return fmt.Sprintf("%+.1f%% (95%% CI %+.1f to %+.1f%%)", s.Change, s.Lo, s.Hi)
}

// Tally is "8 effects: 5 reproduced, 1 not reproduced, 2 inconclusive".
func (r *Result) Tally() string {
	return fmt.Sprintf("%d effects: %d reproduced, %d not reproduced, %d inconclusive",
		len(r.Effects), r.Count(Reproduced), r.Count(NotReproduced), r.Count(Inconclusive))
}

// WriteText prints the verdicts, the effects that need a look first, one a line with its
// marks under it, then the tally; nothing for a nil Result. w is a terminal as often as
// not: the folders' strings are escaped (results.PrintableText).
func (r *Result) WriteText(w io.Writer) error {
	if r == nil {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Reproduction of the effects %s states, in %s (each effect published and here with its 95%% CI; rule: docs/reproduce.md):\n",
		r.Published.Dir, r.Here.Dir)
	for _, v := range []string{NotReproduced, Inconclusive, Reproduced} {
		for _, e := range r.Effects {
			if e.Verdict != v {
				continue
			}
			fmt.Fprintf(&b, "  %-15s %s\n", Label(e.Verdict), e.Sentence())
			for _, m := range e.Marks {
				fmt.Fprintf(&b, "  %-15s   marked: %s\n", "", m)
			}
		}
	}
	fmt.Fprintf(&b, "reproduction: %s\n", r.Tally())
	if r.Count(NotReproduced) > 0 {
		writeCauses(&b, r.Causes)
	}
	_, err := io.WriteString(w, results.PrintableText(b.String()))
	return err
}

// writeCauses names what differed between the runs, most likely to move the numbers first,
// under a "not reproduced": the first places to look.
func writeCauses(b *strings.Builder, causes []string) {
	if len(causes) == 0 {
		b.WriteString("candidate causes: none of the differences known to move the numbers (settings, storage, machines, load, version) was recorded between the runs\n")
		return
	}
	b.WriteString("candidate causes, most likely to move the numbers first (all differences: quadrant compare):\n")
	for _, c := range causes {
		fmt.Fprintf(b, "  %s\n", c)
	}
}
