package gate

import (
	"bytes"
	"encoding/xml"
	"math"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/reporters/compare"
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

// Only a change past the threshold with its whole interval fails: an interval that reaches
// back over it (noise, or a change too small to be sure of) passes; no estimate is skipped.
func TestJudgeNeedsTheWholeInterval(t *testing.T) {
	drop := Rule{"tps", "<", -2.5}
	rise := Rule{"p95_ms", ">", 5}
	for _, c := range []struct {
		rule Rule
		v    compare.Verdict
		want string
	}{
		{drop, compare.Verdict{Kind: compare.Worse, Change: -10, Lo: -12, Hi: -8}, Failed},
		{drop, compare.Verdict{Kind: compare.Worse, Change: -3, Lo: -5, Hi: -1}, Passed},
		{drop, compare.Verdict{Kind: compare.WithinNoise, Change: -4, Lo: -9, Hi: 1}, Passed},
		{drop, compare.Verdict{Kind: compare.Better, Change: 10, Lo: 8, Hi: 12}, Passed},
		{rise, compare.Verdict{Kind: compare.Worse, Change: 20, Lo: 6, Hi: 30}, Failed},
		{rise, compare.Verdict{Kind: compare.Worse, Change: 20, Lo: 4, Hi: 30}, Passed},
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
	if err := r.WriteJUnit(&junit); err != nil {
		t.Fatal(err)
	}
	var back junitSuites
	if err := xml.Unmarshal(junit.Bytes(), &back); err != nil || len(back.Suites) != 1 || back.Suites[0].Failures != 1 || back.Suites[0].Cases[0].Failure == nil {
		t.Fatalf("junit %v:\n%s", err, junit.String())
	}
}
