package gate

import (
	"bytes"
	"encoding/xml"
	"math"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/reporters/compare"
	"github.com/quadrant-bench/quadrant/results"
)

func TestParseRules(t *testing.T) {
	rs, err := Parse("tps < -2.5%, p95_ms > +5%")
	if err != nil || len(rs) != 2 || rs[0] != (Rule{"tps", "<", -2.5}) || rs[1] != (Rule{"p95_ms", ">", 5}) {
		t.Fatalf("%+v %v", rs, err)
	}
	for _, bad := range []string{"", "tps -2.5%", "tps < -2.5", "< 5%", "tps < x%"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// Only a change past the threshold with its whole interval fails. An interval that reaches
// the threshold and is wider than it cannot tell (inconclusive); one narrower than it that
// reaches it, or one that does not reach it, passes; no estimate is skipped; a verdict
// compare calls inconclusive (two repeats) or confounded (the host's load) never fails.
func TestJudgeNeedsTheWholeInterval(t *testing.T) {
	drop := Rule{"tps", "<", -2.5}
	rise := Rule{"p95_ms", ">", 5}
	for _, c := range []struct {
		rule Rule
		v    compare.Verdict
		want string
	}{
		{drop, compare.Verdict{Kind: compare.Worse, Change: -10, Lo: -12, Hi: -8}, Failed},
		{drop, compare.Verdict{Kind: compare.Worse, Change: -3, Lo: -5, Hi: -1}, Inconclusive},
		{drop, compare.Verdict{Kind: compare.Worse, Change: -2.5, Lo: -3, Hi: -2}, Passed},
		{drop, compare.Verdict{Kind: compare.WithinNoise, Change: -4, Lo: -9, Hi: 1}, Inconclusive},
		{drop, compare.Verdict{Kind: compare.WithinNoise, Change: 0, Lo: -1, Hi: 1}, Passed},
		{drop, compare.Verdict{Kind: compare.Better, Change: 10, Lo: 8, Hi: 12}, Passed},
		{drop, compare.Verdict{Kind: compare.Better, Change: 60, Lo: 5, Hi: 90}, Passed},
		{Rule{"tps", "<", -25}, compare.Verdict{Kind: compare.WithinNoise, Change: 3, Lo: -34, Hi: 40}, Inconclusive},
		{rise, compare.Verdict{Kind: compare.Worse, Change: 20, Lo: 6, Hi: 30}, Failed},
		{rise, compare.Verdict{Kind: compare.Worse, Change: 20, Lo: 4, Hi: 30}, Inconclusive},
		{drop, compare.Verdict{Kind: compare.Inconclusive, Change: -20, Lo: -21, Hi: -19}, Inconclusive},
		{drop, compare.Verdict{Kind: compare.Confounded, Change: -70, Lo: -90, Hi: -53}, Confounded},
		{drop, compare.Verdict{Kind: compare.NoNoiseEstimate, Change: -50, Lo: math.NaN(), Hi: math.NaN()}, Skipped},
		{drop, compare.Verdict{Kind: compare.NotComparable, Change: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}, Skipped},
	} {
		if got := judge(c.rule, "threads=8 @db", 1, c.v); got.Outcome != c.want {
			t.Errorf("%s with %+v: %s (%s), want %s", c.rule, c.v, got.Outcome, got.Why, c.want)
		}
	}
}

func TestMarkdownAndJUnit(t *testing.T) {
	r := &Result{Runs: []string{"base", "new"}, Checks: []Check{
		judge(Rule{"tps", "<", -2.5}, "threads=8 | x @db", 1, compare.Verdict{Kind: compare.Worse, Change: -10, Lo: -12, Hi: -8, Text: "slower by 10%"}),
		judge(Rule{"tps", "<", -2.5}, "threads=1 @db", 1, compare.Verdict{Kind: compare.WithinNoise, Change: -1, Lo: -3, Hi: 1, Text: "within noise"}),
	}}
	var md, junit bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil || !strings.Contains(md.String(), "FAIL: 2 checks, 1 failed") || !strings.Contains(md.String(), `threads=8 \| x @db`) {
		t.Fatalf("markdown %v:\n%s", err, md.String())
	}
	if strings.Contains(md.String(), "Around the numbers") {
		t.Errorf("a section of nothing:\n%s", md.String())
	}
	if err := r.WriteJUnit(&junit); err != nil {
		t.Fatal(err)
	}
	var back junitSuites
	if err := xml.Unmarshal(junit.Bytes(), &back); err != nil || len(back.Suites) != 1 || back.Suites[0].Failures != 1 || back.Suites[0].Cases[0].Failure == nil {
		t.Fatalf("junit %v:\n%s", err, junit.String())
	}
}

// A gate that cannot tell says so: INCONCLUSIVE in the tally, each such check listed before
// the passed ones in gate.md, JUnit's skipped with a message saying why; what differed around
// the numbers (the settings) follows the table, so a failed build says why it may have.
func TestInconclusiveInMarkdownAndJUnit(t *testing.T) {
	r := &Result{Runs: []string{"base", "new"}, Around: []string{"target db: settings that differ at the start (base -> new): innodb_flush_log_at_trx_commit 1 -> 2."},
		Checks: []Check{
			judge(Rule{"tps", "<", -25}, "threads=1 @db", 1, compare.Verdict{Kind: compare.WithinNoise, Change: 3, Lo: -34, Hi: 40, Text: "within noise (±40%)"}),
			judge(Rule{"tps", "<", -25}, "threads=2 @db", 1, compare.Verdict{Kind: compare.Confounded, Change: 70, Lo: 53, Hi: 90, Text: "confounded: faster by 70%"}),
			judge(Rule{"tps", "<", -25}, "threads=4 @db", 1, compare.Verdict{Kind: compare.WithinNoise, Change: 0, Lo: -1, Hi: 1, Text: "within noise (±1%)"}),
		}}
	if r.Failed() != 0 || r.Inconclusive() != 2 {
		t.Fatalf("failed %d, inconclusive %d: %+v", r.Failed(), r.Inconclusive(), r.Checks)
	}
	var md, junit, text bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	m := md.String()
	if !strings.Contains(m, "INCONCLUSIVE: 3 checks, 0 failed, 1 inconclusive, 1 confounded, 1 passed") ||
		strings.Index(m, "| inconclusive |") > strings.Index(m, "| passed |") || !strings.Contains(m, "| confounded |") ||
		!strings.Contains(m, "### Around the numbers") || !strings.Contains(m, "innodb_flush_log_at_trx_commit 1 -> 2") {
		t.Errorf("markdown:\n%s", m)
	}
	if err := r.WriteText(&text); err != nil || !strings.Contains(text.String(), "INCONCLUSIVE: tps < -25%, threads=1 @db: cannot tell") {
		t.Errorf("text %v:\n%s", err, text.String())
	}
	if err := r.WriteJUnit(&junit); err != nil {
		t.Fatal(err)
	}
	var back junitSuites
	if err := xml.Unmarshal(junit.Bytes(), &back); err != nil || back.Suites[0].Failures != 0 || back.Suites[0].Skipped != 2 ||
		back.Suites[0].Cases[0].Skipped == nil || !strings.HasPrefix(back.Suites[0].Cases[0].Skipped.Message, "inconclusive: ") ||
		!strings.HasPrefix(back.Suites[0].Cases[1].Skipped.Message, "confounded: ") {
		t.Fatalf("junit %v:\n%s", err, junit.String())
	}
}

// gate.md says why a build failed: what differed between the runs, most likely to move the
// numbers first (the flush setting before the buffer pool; an instance's own paths never),
// under the checks.
func TestMarkdownRanksWhatDiffered(t *testing.T) {
	c := &compare.Comparison{Runs: []*results.Run{{Dir: "base"}, {Dir: "new"}}, Notes: []string{"plan: the same"},
		Differences: []compare.RunDifferences{{Run: 2, Ranked: []compare.Difference{
			{Rank: 1, Group: "durability and flushing", Text: "target db: innodb_flush_log_at_trx_commit 1 -> 2"},
			{Rank: 2, Group: "buffer pool and logs", Text: "target db: innodb_buffer_pool_size 128M -> 1G"},
		}}}}
	r := Evaluate(c, nil)
	var md bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	text := md.String()
	flush := strings.Index(text, "durability and flushing: target db: innodb_flush_log_at_trx_commit 1 -> 2")
	pool := strings.Index(text, "buffer pool and logs: target db: innodb_buffer_pool_size")
	notes := strings.Index(text, "plan: the same")
	if flush < 0 || pool < flush || notes < pool {
		t.Errorf("gate.md does not rank what differed (flush, then the buffer pool, then the notes):\n%s", text)
	}
}
