package verifyfolder

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/quadrant-bench/quadrant/results"
)

// Change kinds of a fingerprint between two checks, most urgent first.
const (
	NewlyDifferent = "newly different"
	NewlyFailing   = "newly failing"
	StillDifferent = "still different"
	NewlySlower    = "newly slower"
	PlanNewly      = "plan newly changed"
	Fixed          = "fixed"
	NoLongerSlower = "no longer slower"
	PlanBack       = "plan back to the base's"
	LatencyChanged = "latency verdict changed"
	OnlyFirst      = "only in check 1"
	OnlySecond     = "only in check 2"
)

var changeOrder = []string{NewlyDifferent, NewlyFailing, StillDifferent, NewlySlower, PlanNewly, Fixed, NoLongerSlower, PlanBack,
	LatencyChanged, OnlyFirst, OnlySecond}

// Change is one fingerprint (and compared target) whose check changed between two folders.
type Change struct {
	Kind          string
	FingerprintID string
	// Target is the compared target, or "A → B" when each check compared one target and
	// they differ (two servers checked against the same base).
	Target string
	// Before and After are the rows of the first and the second check; nil when a check has
	// none.
	Before, After *results.QueryRow
}

// Comparison is two checks lined up by fingerprint.
type Comparison struct {
	Checks [2]*Folder
	// Changes are the fingerprints whose check changed, most urgent first; Unchanged counts
	// the others.
	Changes   []Change
	Unchanged int
}

// Compare lines up two checks: by fingerprint and compared target, or by fingerprint alone
// when each compared one target (before and after a fix on one server renamed, or two
// servers checked against the same base).
func Compare(a, b *Folder) *Comparison {
	c := &Comparison{Checks: [2]*Folder{a, b}}
	ta, tb := a.Compared(), b.Compared()
	byFingerprint := len(ta) == 1 && len(tb) == 1
	key := func(r results.QueryRow) string {
		if byFingerprint {
			return r.FingerprintID
		}
		return Key(r.FingerprintID, r.Target)
	}
	target := func(r results.QueryRow) string {
		if byFingerprint && ta[0] != tb[0] {
			return ta[0] + " → " + tb[0]
		}
		return r.Target
	}
	after := map[string]*results.QueryRow{}
	for i := range b.Rows {
		after[key(b.Rows[i])] = &b.Rows[i]
	}
	seen := map[string]bool{}
	for i := range a.Rows {
		r := &a.Rows[i]
		k := key(*r)
		seen[k] = true
		ch := Change{FingerprintID: r.FingerprintID, Target: target(*r), Before: r, After: after[k]}
		if ch.Kind = kindOf(ch.Before, ch.After); ch.Kind == "" {
			c.Unchanged++
			continue
		}
		c.Changes = append(c.Changes, ch)
	}
	for i := range b.Rows {
		r := &b.Rows[i]
		if seen[key(*r)] {
			continue
		}
		c.Changes = append(c.Changes, Change{Kind: OnlySecond, FingerprintID: r.FingerprintID, Target: target(*r), After: r})
	}
	slices.SortStableFunc(c.Changes, func(x, y Change) int {
		if d := slices.Index(changeOrder, x.Kind) - slices.Index(changeOrder, y.Kind); d != 0 {
			return d
		}
		return strings.Compare(x.FingerprintID+"\x00"+x.Target, y.FingerprintID+"\x00"+y.Target)
	})
	return c
}

// kindOf says how a fingerprint's check changed from before to after; "" when it did not.
func kindOf(before, after *results.QueryRow) string {
	switch {
	case after == nil:
		return OnlyFirst
	case before == nil:
		return OnlySecond
	}
	cb, ca := ClassOf(*before), ClassOf(*after)
	badB, badA := cb <= NewErrors, ca <= NewErrors
	switch {
	case !badB && ca == DifferentResults:
		return NewlyDifferent
	case !badB && ca == NewErrors:
		return NewlyFailing
	case badB && badA:
		return StillDifferent
	case badB:
		return Fixed
	}
	slowB, slowA := before.Latency == results.VerifySlower, after.Latency == results.VerifySlower
	planB, planA := before.Plan == results.VerifyDifferent, after.Plan == results.VerifyDifferent
	switch {
	case !slowB && slowA:
		return NewlySlower
	case !planB && planA:
		return PlanNewly
	case slowB && !slowA:
		return NoLongerSlower
	case planB && !planA:
		return PlanBack
	case before.Latency != after.Latency && before.Latency != results.VerifyNoLatency && after.Latency != results.VerifyNoLatency:
		return LatencyChanged
	}
	return ""
}

// State writes a row's check short: "different, plan different, slower (+40.0%)".
func State(r *results.QueryRow) string {
	if r == nil {
		return "-"
	}
	s := r.Results
	if len(r.Errors) > 0 {
		s += " (errors " + results.ErrorCodes(r.Errors) + ")"
	}
	s += ", plan " + r.Plan
	if r.Latency != results.VerifyNoLatency {
		s += ", " + r.Latency
		if r.Latency != results.VerifySame && !math.IsNaN(r.Change) {
			s += " (" + signed(r.Change) + ")"
		}
	}
	return s
}

// Statement is the fingerprint's text of a change, from whichever check has it.
func (ch Change) Statement() string {
	if ch.After != nil {
		return ch.After.Fingerprint
	}
	return ch.Before.Fingerprint
}

// Headline is a check's description and verdict per compared target, as lines.
func Headline(f *Folder) []string {
	var out []string
	for _, t := range f.Compared() {
		out = append(out, fmt.Sprintf("%s vs %s: %s", t, f.Base(), Verdict(f.Rows, t)))
	}
	return out
}

// WriteText writes the comparison as `quadrant compare` prints runs': the checks, then one
// line per changed fingerprint, then what did not change.
// Like runs' comparison, the text is built whole and its controls but newlines and tabs
// escaped (results.PrintableText): statements and names came from the folders.
func (c *Comparison) WriteText(w io.Writer) error {
	var b bytes.Buffer
	if err := c.writeText(&b); err != nil {
		return err
	}
	_, err := io.WriteString(w, results.PrintableText(b.String()))
	return err
}

func (c *Comparison) writeText(w io.Writer) error {
	for i, f := range c.Checks {
		fmt.Fprintf(w, "check %d: %s (%s, %s, %s)\n", i+1, f.Dir, f.Info.Plan, f.Info.Host, f.Info.Start.Format("2006-01-02 15:04"))
		for _, h := range Headline(f) {
			fmt.Fprintln(w, "  "+h)
		}
	}
	fmt.Fprintln(w)
	if len(c.Changes) == 0 {
		_, err := fmt.Fprintf(w, "No fingerprint's check changed (%d the same in both).\n", c.Unchanged)
		return err
	}
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join([]string{"change", results.ColFingerprintID, results.ColTarget, "check 1", "check 2", results.ColFingerprint}, "\t"))
	for _, ch := range c.Changes {
		fmt.Fprintln(tw, strings.Join([]string{ch.Kind, ch.FingerprintID, ch.Target, State(ch.Before), State(ch.After), clip(ch.Statement(), 80)}, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%d changed, %d the same in both checks.\n", len(c.Changes), c.Unchanged)
	return err
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// Direction says whether a change is for the worse ("worse": newly different, failing,
// slower or on another plan, or still different) or the better ("better"); "" when neither.
func (ch Change) Direction() string {
	switch ch.Kind {
	case NewlyDifferent, NewlyFailing, StillDifferent, NewlySlower, PlanNewly:
		return "worse"
	case Fixed, NoLongerSlower, PlanBack:
		return "better"
	}
	return ""
}
