package html

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/reporters/compare"
	"github.com/quadrant-bench/quadrant/reporters/internal/fixture"
	"github.com/quadrant-bench/quadrant/results"
)

// The comparison page shows the ranked differences as a table, durability before an other
// difference, with the count of hidden ones.
func TestComparisonPageRanksTheDifferences(t *testing.T) {
	load := func(flush, pool string) *results.Run {
		dir := filepath.Join(t.TempDir(), "run")
		fixture.Folder(t, dir, 1)
		r, err := results.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		r.Info.Targets[0].VariablesBefore = map[string]string{"innodb_flush_log_at_trx_commit": flush, "lower_case_table_names": pool,
			"performance_schema_digests_size": pool}
		return r
	}
	cmp := compare.Compare([]*results.Run{load("1", "0"), load("2", "1")}, []string{"tps"})
	var buf bytes.Buffer
	if err := RenderComparison(&buf, cmp, "test"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "compare.html")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := chromium(t, path)
	i := strings.Index(dom, "What differed, run 2 vs run 1, most likely to move the numbers first")
	if i < 0 {
		t.Fatalf("no ranked differences on the page:\n%.3000s", dom)
	}
	sec := dom[i:]
	flush, other := strings.Index(sec, "<td>innodb_flush_log_at_trx_commit</td>"), strings.Index(sec, "<td>lower_case_table_names</td>")
	if flush < 0 || other < 0 || flush > other || !strings.Contains(sec, "<td>durability and flushing</td>") {
		t.Errorf("the differences table does not rank durability first:\n%.3000s", sec)
	}
	if !strings.Contains(sec, "1 more settings differ as two instances or versions do") || strings.Contains(sec, "performance_schema_digests_size") {
		t.Errorf("hidden performance_schema size not counted, or listed:\n%.3000s", sec)
	}
}
