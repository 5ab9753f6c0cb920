package html

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/reporters/internal/fixture"
	"github.com/quadrant-bench/quadrant/results"
)

// A drill plan's report leads with what the drills came to: the sentence per mode pair, a
// table per cell with the median and every repeat of each outcome figure, and in how many
// repeats the cell lost anything; all from run.json's descriptions (the fixture's own names).
// Its over-time charts draw the 18 events (3 in each of 6 iterations) as lines with no label
// on the chart, named once per kind in the legend under it.
func TestDrillReportLeadsWithItsOutcomes(t *testing.T) {
	dir := t.TempDir()
	fixture.Drill(t, dir)
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	path, err := WriteReport(run, "test")
	if err != nil {
		t.Fatal(err)
	}
	dom := rendered(t, path)
	if os.Getenv("QUADRANT_SCREENSHOT") != "" {
		screenshot(t, path, os.Getenv("QUADRANT_SCREENSHOT"))
	}
	sec := regexp.MustCompile(`(?s)<section class="outcomes" id="outcomes">.*?</section>`).FindString(dom)
	if sec == "" {
		t.Fatal("no outcomes section")
	}
	if h1, outc, head := strings.Index(dom, "<h1"), strings.Index(dom, `id="outcomes"`), strings.Index(dom, `id="headline"`); !(h1 < outc && (head < 0 || outc < head)) {
		t.Errorf("the outcomes do not lead the page: h1 at %d, outcomes at %d, headline at %d", h1, outc, head)
	}
	for _, want := range []string{
		"<li>replication=async lost acknowledged commits in 3 of 3 repeats, 12-40; semisync in 0 of 3 repeats</li>",
		"<h3>replication=async</h3>", "<h3>replication=semisync</h3>",
		`<p class="outcome-loss">lost acknowledged commits in 3 of 3 repeats, 12-40</p>`,
		`<p class="outcome-loss">lost acknowledged commits in 0 of 3 repeats</p>`,
		// async's losses: median 17, the repeats 12, 40, 17 marked lost
		`<td title="drill: acknowledged ids the new primary lacks">drill_lost (count)</td><td class="median">17</td><td class="lost">12</td><td class="lost">40</td><td class="lost">17</td>`,
		// semisync's recovery: the third repeat not recorded, the median of two
		`<td class="median">2.50</td><td>2.00</td><td>3.00</td><td>-</td>`,
	} {
		if !strings.Contains(sec, want) {
			t.Errorf("the outcomes lack %s:\n%s", want, sec)
		}
	}
	if strings.Contains(sec, fixture.DrillRateBefore) {
		t.Errorf("the outcomes show %s, which no step marks as an outcome", fixture.DrillRateBefore)
	}
	charts := regexp.MustCompile(`(?s)<div[^>]*data-event-marks="(\d+)"[^>]*>.*?<div class="event-hover">`).FindAllStringSubmatch(dom, -1)
	if len(charts) == 0 {
		t.Fatal("no over-time chart with event marks")
	}
	for _, c := range charts {
		if c[1] != "18" {
			t.Errorf("a chart drew %s event lines, want 18", c[1])
		}
		legend := regexp.MustCompile(`<b>([^<]*)</b>`).FindAllStringSubmatch(regexp.MustCompile(`(?s)<div class="event-legend">.*`).FindString(c[0]), -1)
		if len(legend) != 3 || legend[0][1] != "drill fault" || !strings.Contains(c[0], "<b>drill promoted</b>: at 5.4 s in 6 iterations") {
			t.Errorf("the legend names %v, want each of the 3 kinds once, with when: %.600s", legend, c[0])
		}
	}
}

// A run whose steps describe no outcome has no such section.
func TestNoOutcomesSectionWithoutOutcomes(t *testing.T) {
	dir := t.TempDir()
	fixture.Folder(t, dir, 1)
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if dom := reportDOM(t, run); strings.Contains(dom, `id="outcomes"`) {
		t.Error("an outcomes section in a run without any")
	}
}
