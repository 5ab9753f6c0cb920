package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/results"
)

// poolPlan's effect comes from its environment: a read of SPAN rows waits 40 ms when they
// cannot fit in the server's buffer pool (300 bytes a row), 10 ms when they can, a stand-in
// for reading pages from disk that holds steady on a busy host (sleeps, not CPU). The
// published sandbox has 8M: span 148000 is 70% slower than 12000 there. On a server of
// 128M both fit: the effect cannot exist.
const poolPlan = `version: 1
name: pool
targets:
  db: {sandbox: {config: {innodb_buffer_pool_size: 8M}}}
matrix:
  span: [12000, 148000]
repeat: 5
order: interleaved
iteration:
  workload:
    transactions:
      - name: read
        statements:
          - sql: "SELECT SLEEP(IF(? * 300 > @@innodb_buffer_pool_size, 0.04, 0.01))"
            args: ["${{ matrix.span }}"]
    threads: 4
    warmup: 500ms
    duration: 1s
`

// The reproduction of a published effect, end to end on real servers: rerun as published it
// is reproduced; rerun on a server where it cannot exist it is not (and --fail-on
// not-reproduced fails); a run of 2 repeats that changes nothing never says not reproduced.
// Both reruns' records go into a copy of the published folder in git, are committed, and
// `quadrant report` of it shows them under the effect, on the console and in report.html.
func TestReproductionOfAnEffectEndToEnd(t *testing.T) {
	sandboxtest.SkipShort(t)
	root := t.TempDir()
	if p := start(t, nil, "run", writePlan(t, poolPlan), "--out", root); p.wait(t, 3*time.Minute) != exitOK {
		t.Fatalf("the published run:\n%s", p.out.String())
	}
	repo := t.TempDir()
	published := filepath.Join(repo, "pool")
	if err := os.CopyFS(published, os.DirFS(findRunDir(t, root))); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "init", "-q")
	git(t, repo, "add", ".")
	git(t, repo, "commit", "-q", "-m", "published")

	asPublished := t.TempDir()
	p := start(t, nil, "rerun", published, "--out", asPublished, "--record")
	if code := p.wait(t, 3*time.Minute); code != exitOK {
		t.Fatalf("rerun as published: exit %d\n%s", code, p.out.String())
	}
	out := p.out.String()
	// The published effect is about -70% on a quiet host, -65% at a load of 17 per CPU: the
	// verdict is asserted, not the figure.
	if !regexp.MustCompile(`\n  reproduced      span 148000 vs 12000, tps: published -[4-9]\d\.\d%`).MatchString(out) || !strings.Contains(out, "reproduction record: "+published+"/reproductions/") {
		t.Errorf("rerun as published: the tps effect is not said reproduced, or not recorded:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(findRunDir(t, asPublished), results.ReproductionFile)); err != nil {
		t.Errorf("the rerun's own folder has no record: %v", err)
	}

	big := sandboxtest.Start(t, sandbox.Options{Name: "bigpool"}) // the default pool, 128M
	elsewhere := t.TempDir()
	p = start(t, nil, "rerun", published, "--target", fmt.Sprintf("db=root:%s@tcp(127.0.0.1:%d)/", big.Password(), big.Primary.Port()),
		"--out", elsewhere, "--record", "--fail-on", "not-reproduced")
	code := p.wait(t, 3*time.Minute)
	out = p.out.String()
	if code != exitAssert || !regexp.MustCompile(`\n  NOT REPRODUCED  span 148000 vs 12000, tps: published -[4-9]\d\.\d%`).MatchString(out) ||
		!strings.Contains(out, "FAILED: not-reproduced, span 148000 vs 12000, tps: not reproduced") {
		t.Errorf("rerun where the effect cannot exist: exit %d, want %d with the tps effect not reproduced and the gate failed:\n%s", code, exitAssert, out)
	}
	page := chromiumDOM(t, filepath.Join(findRunDir(t, elsewhere), results.ComparisonPage))
	if !regexp.MustCompile(`<svg[^>]*class="repro-chart"[^>]*data-verdict="not reproduced" data-effect="span 148000 vs 12000" data-metric="tps"`).MatchString(page) {
		t.Errorf("comparison.html has no chart of the tps effect not reproduced")
	}

	twoRepeats := t.TempDir()
	if p := start(t, nil, "run", writePlan(t, strings.Replace(poolPlan, "repeat: 5", "repeat: 2", 1)), "--out", twoRepeats); p.wait(t, 3*time.Minute) != exitOK {
		t.Fatalf("the run of 2 repeats:\n%s", p.out.String())
	}
	p = start(t, nil, "compare", published, findRunDir(t, twoRepeats))
	p.wait(t, time.Minute)
	if out := p.out.String(); !strings.Contains(out, "reproduction: 2 effects: ") || strings.Contains(out, "NOT REPRODUCED") {
		t.Errorf("2 repeats of the same server: want reproduced or inconclusive, never not reproduced:\n%s", out)
	}

	git(t, repo, "add", "pool/reproductions")
	git(t, repo, "commit", "-q", "-m", "pool: two reruns")
	if files := strings.Fields(git(t, repo, "ls-files", "pool/reproductions")); len(files) != 2 {
		t.Fatalf("committed records %v, want 2", files)
	}
	p = start(t, nil, "report", published)
	if code := p.wait(t, time.Minute); code != exitOK {
		t.Fatalf("report: exit %d\n%s", code, p.out.String())
	}
	host, _ := os.Hostname()
	out = p.out.String()
	for _, want := range []string{"  span 148000 vs 12000, tps: 1 reproduced, 1 not reproduced\n",
		"    reproduced      on " + host + " (MariaDB ", "    NOT REPRODUCED  on " + host + " (MariaDB "} {
		if !strings.Contains(out, want) {
			t.Errorf("report's console lacks %q:\n%s", want, out)
		}
	}
	dom := chromiumDOM(t, filepath.Join(published, results.ReportFile))
	if !strings.Contains(dom, `<li class="effect-reruns" data-metric="tps">tps, 2 reruns: 1 reproduced, 1 not reproduced<ul>`) {
		t.Errorf("report.html does not show the two reruns under the tps effect")
	}
}

// git runs git in dir with an identity of its own and returns what it printed.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=quadrant test", "-c", "user.email=test@example.com"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}
