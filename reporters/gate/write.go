package gate

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// WriteText prints the gate's outcome for a terminal: one line per check that did not
// pass, then the tally.
func (r *Result) WriteText(w io.Writer) error {
	var b strings.Builder
	for _, c := range r.Checks {
		if c.Outcome != Passed {
			fmt.Fprintf(&b, "%s: %s, %s: %s\n", strings.ToUpper(c.Outcome), c.Rule, c.Cell, c.Why)
		}
	}
	fmt.Fprintf(&b, "gate: %s\n", r.tally())
	_, err := io.WriteString(w, b.String())
	return err
}

// Verdict is the gate's word: FAIL when a check failed, INCONCLUSIVE when none did but one
// could not tell, pass.
func (r *Result) Verdict() string {
	switch {
	case r.Failed() > 0:
		return "FAIL"
	case r.Inconclusive() > 0:
		return "INCONCLUSIVE"
	}
	return "pass"
}

// Tally is the verdict with the count of each outcome and the rule: "FAIL: 4 checks, 1 failed, ...".
func (r *Result) Tally() string { return r.tally() }

func (r *Result) tally() string {
	n := map[string]int{}
	for _, c := range r.Checks {
		n[c.Outcome]++
	}
	verdict := r.Verdict()
	return fmt.Sprintf("%s: %d checks, %d failed, %d inconclusive, %d confounded, %d passed, %d skipped "+
		"(a check fails only when the change is past its threshold with its whole 95%% interval; "+
		"it is inconclusive when its interval reaches the threshold and is wider than it, confounded when the host's load changed)",
		verdict, len(r.Checks), n[Failed], n[Inconclusive], n[Confounded], n[Passed], n[Skipped])
}

// outcomes in the order gate.md lists them: what a reader must act on first.
var outcomes = []string{Failed, Inconclusive, Confounded, Skipped, Passed}

// WriteMarkdown writes the summary CI systems show on a job's page (GitHub's step summary,
// GitLab's report): the tally, then a table of every check, failures first.
func (r *Result) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## quadrant gate: %s\n\n", r.tally())
	if len(r.Runs) > 0 {
		fmt.Fprintf(&b, "Baseline `%s`", md(r.Runs[0]))
		for _, d := range r.Runs[1:] {
			fmt.Fprintf(&b, ", compared: `%s`", md(d))
		}
		b.WriteString("\n\n")
	}
	b.WriteString("| outcome | rule | cell | change | 95% CI | verdict |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, outcome := range outcomes {
		for _, c := range r.Checks {
			if c.Outcome != outcome {
				continue
			}
			fmt.Fprintf(&b, "| %s | `%s` | %s | %+.1f%% | %+.1f%% to %+.1f%% | %s |\n",
				c.Outcome, md(c.Rule.String()), md(c.Cell), c.Verdict.Change, c.Verdict.Lo, c.Verdict.Hi, md(c.Verdict.Text))
		}
	}
	if len(r.Around) > 0 {
		b.WriteString("\n### Around the numbers\n\nWhat differed between the runs besides the change under test: read it before trusting a failure.\n\n")
		for _, n := range r.Around {
			fmt.Fprintf(&b, "- %s\n", md(n))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// md keeps a folder's text from breaking the table (a stranger's cell names and verdicts).
func md(s string) string {
	return strings.NewReplacer("|", "\\|", "\n", " ", "\r", " ", "`", "'").Replace(s)
}

// JUnit XML as Jenkins, GitLab and GitHub's test reporters read it: one testsuite, one
// testcase per check, a failure element for a failed one and skipped for one that cannot
// be judged or cannot tell (its message starts with skipped, inconclusive or confounded).
type junitSuites struct {
	XMLName xml.Name   `xml:"testsuites"`
	Suites  []junitSet `xml:"testsuite"`
}

type junitSet struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
}

// WriteJUnit writes the checks as JUnit XML.
func (r *Result) WriteJUnit(w io.Writer) error {
	set := junitSet{Name: "quadrant gate", Tests: len(r.Checks)}
	for _, c := range r.Checks {
		tc := junitCase{Name: c.Rule.String() + " @ " + c.Cell, Classname: "quadrant." + c.Rule.Metric, SystemOut: c.Why}
		switch c.Outcome {
		case Failed:
			set.Failures++
			tc.Failure = &junitMessage{Message: c.Why}
		case Skipped, Inconclusive, Confounded:
			// JUnit has no "cannot tell": a skipped case whose message says which
			set.Skipped++
			tc.Skipped = &junitMessage{Message: c.Outcome + ": " + c.Why}
		}
		set.Cases = append(set.Cases, tc)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(junitSuites{Suites: []junitSet{set}}); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
