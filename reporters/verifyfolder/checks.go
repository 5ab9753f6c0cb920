// Package checks reads the folders quadrant verify writes (a check of servers against a base
// server): it ranks their fingerprints by the risk of moving to the checked server, says the
// verdict in one sentence, and compares two checks. The HTML page and `quadrant compare` are
// views of what it returns.
package verifyfolder

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/quadrant-bench/quadrant/results"
)

// Folder is a verify folder as read back.
type Folder struct {
	Dir  string
	Info *results.RunInfo
	Rows []results.QueryRow
	// Details are query-details.jsonl's lines by fingerprint id and target (Key).
	Details map[string]results.QueryDetail
	// Notes say what the folder lacks that the page would show (an older folder).
	Notes []string
}

// Key places a queries.csv row or a detail: one per fingerprint and compared target.
func Key(fingerprintID, target string) string { return fingerprintID + "\x00" + target }

// Is reports whether dir is the folder of a `quadrant verify`: it has queries.csv and no
// plan.yaml (a plan run with a verify: step has both).
func Is(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, results.PlanFile)) // a name only: nothing is read, nor followed
	return Has(dir) && errors.Is(err, fs.ErrNotExist)
}

// Has says whether dir holds a verify's queries.csv: a verify folder, or the folder of a
// plan run with a verify: step (which is a run folder first: Is is false for it).
func Has(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, results.QueriesFile))
	return err == nil
}

// Load reads the verify folder dir. A folder without query-details.jsonl (written before
// it, or when nothing differed) or without the latency columns reads, with a note.
func Load(dir string) (*Folder, error) {
	if !Has(dir) {
		return nil, fmt.Errorf("%s is not a verify folder: it has no %s (quadrant verify writes one)", dir, results.QueriesFile)
	}
	info, err := results.ReadRunInfo(dir)
	if err == nil {
		err = results.CheckFolder(dir) // a link anywhere in it: refused, whichever file it is
	}
	if err != nil {
		return nil, err
	}
	rows, err := results.ReadQueries(dir)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Join(dir, results.QueriesFile), err)
	}
	f := &Folder{Dir: dir, Info: info, Rows: rows, Details: map[string]results.QueryDetail{}}
	details, err := results.ReadQueryDetails(dir)
	var link *results.LinkError
	if errors.As(err, &link) {
		return nil, err // a planted link is refused, not noted
	}
	if err != nil {
		// a line cut short by a crash: what came before it still shows
		f.Notes = append(f.Notes, fmt.Sprintf("%s is damaged (%v): plans and rows after that line are not shown", results.QueryDetailsFile, err))
	}
	for _, d := range details {
		f.Details[Key(d.FingerprintID, d.Target)] = d
	}
	if _, err := os.Lstat(filepath.Join(dir, results.QueryDetailsFile)); errors.Is(err, fs.ErrNotExist) && f.anyDifferent() {
		f.Notes = append(f.Notes, fmt.Sprintf("no %s in the folder (written by an older quadrant): the plans and differing rows are not shown", results.QueryDetailsFile))
	}
	if !f.timed() && len(rows) > 0 {
		f.Notes = append(f.Notes, "no latency was measured (a folder written before latency verdicts): nothing is ranked as slower")
	}
	return f, nil
}

func (f *Folder) anyDifferent() bool {
	for _, r := range f.Rows {
		if r.Results == results.VerifyDifferent || r.Plan == results.VerifyDifferent {
			return true
		}
	}
	return false
}

func (f *Folder) timed() bool {
	for _, r := range f.Rows {
		if r.Latency != results.VerifyNoLatency || !math.IsNaN(r.P95) {
			return true
		}
	}
	return false
}

// Base is the target the others were compared with: queries.csv's base, else (a folder
// written before that column) run.json's first.
func (f *Folder) Base() string {
	for _, r := range f.Rows {
		if r.Base != "" {
			return r.Base
		}
	}
	if len(f.Info.Targets) == 0 {
		return ""
	}
	return f.Info.Targets[0].Name
}

// Compared are the compared targets in run.json's order, then any queries.csv names besides.
func (f *Folder) Compared() []string {
	var out []string
	base := f.Base()
	for _, t := range f.Info.Targets {
		// a plan's run has targets the verify: step left out: only those with rows count
		if t.Name != base && slices.ContainsFunc(f.Rows, func(r results.QueryRow) bool { return r.Target == t.Name }) {
			out = append(out, t.Name)
		}
	}
	for _, r := range f.Rows {
		if !slices.Contains(out, r.Target) {
			out = append(out, r.Target)
		}
	}
	return out
}

// Class is how risky a fingerprint's check is, riskiest first.
type Class int

const (
	// DifferentResults: rows, row counts or warnings differ (or errors, when the base
	// failed too).
	DifferentResults Class = iota
	// NewErrors: the checked target fails where the base did not fail at all.
	NewErrors
	// SlowerPlan: the plan changed and the fingerprint got slower.
	SlowerPlan
	// Slower: slower with the same plan (or none).
	Slower
	// PlanChanged: the plan changed, not slower.
	PlanChanged
	// Fine: the same rows and plan, not slower; also failing alike on both sides and not
	// comparable (NOW()...).
	Fine
)

var classNames = [...]string{"different results", "errors only on the checked server", "plan changed, slower", "slower", "plan changed", "same"}

func (c Class) String() string { return classNames[c] }

// ClassOf ranks one queries.csv row. A fingerprint failing only on the checked side is
// apart from different rows: it fails loudly, where different rows go unnoticed.
func ClassOf(r results.QueryRow) Class {
	slower := r.Latency == results.VerifySlower
	switch {
	case len(r.Errors) > 0 && len(r.BaseErrors) == 0:
		return NewErrors
	case r.Results == results.VerifyDifferent:
		return DifferentResults
	case r.Plan == results.VerifyDifferent && slower:
		return SlowerPlan
	case slower:
		return Slower
	case r.Plan == results.VerifyDifferent:
		return PlanChanged
	}
	return Fine
}

// Ranked is a row with its class.
type Ranked struct {
	results.QueryRow
	Class Class
}

// Rank orders rows riskiest first: by class, then the most captured first (what the
// application sends most), then the larger slowdown, then by fingerprint id and target so
// the order is the same every time.
func Rank(rows []results.QueryRow) []Ranked {
	out := make([]Ranked, len(rows))
	for i, r := range rows {
		out[i] = Ranked{r, ClassOf(r)}
	}
	slices.SortStableFunc(out, func(a, b Ranked) int {
		if a.Class != b.Class {
			return int(a.Class) - int(b.Class)
		}
		if a.Count != b.Count {
			if a.Count > b.Count {
				return -1
			}
			return 1
		}
		if ca, cb := orZero(a.Change), orZero(b.Change); ca != cb {
			if ca > cb {
				return -1
			}
			return 1
		}
		return strings.Compare(a.FingerprintID+"\x00"+a.Target, b.FingerprintID+"\x00"+b.Target)
	})
	return out
}

func orZero(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}

// Verdict says in one sentence what the check of target found: "3 of 212 fingerprints
// return different results, 5 changed plan, 2 of them slower".
func Verdict(rows []results.QueryRow, target string) string {
	var total, diff, errs, plan, planSlower, slower, faster int
	for _, r := range rows {
		if r.Target != target {
			continue
		}
		total++
		switch ClassOf(r) {
		case DifferentResults:
			diff++
		case NewErrors:
			errs++
		}
		if r.Plan == results.VerifyDifferent {
			plan++
			if r.Latency == results.VerifySlower {
				planSlower++
			}
		} else if r.Latency == results.VerifySlower {
			slower++
		}
		if r.Latency == results.VerifyFaster {
			faster++
		}
	}
	if total == 0 {
		return "no fingerprint was checked on " + target
	}
	var parts []string
	switch {
	case diff > 0:
		parts = append(parts, fmt.Sprintf("%d of %s %s different results", diff, plural(total, "fingerprint"), verb(diff, "returns", "return")))
	case errs == 0 && plan == 0 && slower == 0 && total == 1:
		parts = append(parts, "the one fingerprint returns the same results with the same plan")
	case errs == 0 && plan == 0 && slower == 0:
		parts = append(parts, fmt.Sprintf("all %s return the same results with the same plan", plural(total, "fingerprint")))
	default:
		parts = append(parts, fmt.Sprintf("none of %s returns different results", plural(total, "fingerprint")))
	}
	if errs > 0 {
		parts = append(parts, fmt.Sprintf("%d %s only on %s", errs, verb(errs, "fails", "fail"), target))
	}
	if plan > 0 {
		p := fmt.Sprintf("%d changed plan", plan)
		if planSlower > 0 {
			p += fmt.Sprintf(", %d of them slower", planSlower)
		}
		parts = append(parts, p)
	}
	if slower > 0 && plan > 0 {
		parts = append(parts, fmt.Sprintf("%d more slower with the same plan", slower))
	} else if slower > 0 {
		parts = append(parts, fmt.Sprintf("%d slower", slower))
	}
	if faster > 0 {
		parts = append(parts, fmt.Sprintf("%d faster", faster))
	}
	return strings.Join(parts, ", ")
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func verb(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Latency writes a row's latency: "1.5 → 12.25 ms p95, +700% (95% CI +610.5% to +802%)";
// empty when it was not timed.
func Latency(r results.QueryRow) string {
	if math.IsNaN(r.BaseP95) || math.IsNaN(r.P95) {
		return ""
	}
	s := fmt.Sprintf("%s → %s ms p95", results.FormatFloat(r.BaseP95), results.FormatFloat(r.P95))
	if !math.IsNaN(r.Change) {
		s += ", " + signed(r.Change)
		if !math.IsNaN(r.ChangeLo) && !math.IsNaN(r.ChangeHi) {
			s += fmt.Sprintf(" (95%% CI %s to %s)", signed(r.ChangeLo), signed(r.ChangeHi))
		}
	}
	return s
}

func signed(p float64) string {
	s := strconv.FormatFloat(p, 'f', 1, 64) + "%"
	if p > 0 {
		return "+" + s
	}
	return s
}

// FirstDifference is where d's two row tables first differ, row and column from 0; column
// -1 when a row is on one side only; ok false when they do not differ (or there are none).
// It is computed from the rows shown rather than read from FirstDifference's text, so the
// cell marked is the one on the page.
func FirstDifference(d results.QueryDetail) (row, col int, ok bool) {
	for i := 0; i < max(len(d.BaseRows), len(d.Rows)); i++ {
		if i >= len(d.BaseRows) || i >= len(d.Rows) {
			return i, -1, true
		}
		a, b := d.BaseRows[i], d.Rows[i]
		for j := 0; j < max(len(a), len(b)); j++ {
			if j >= len(a) || j >= len(b) || !sameCell(a[j], b[j]) {
				return i, j, true
			}
		}
	}
	return 0, 0, false
}

func sameCell(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
