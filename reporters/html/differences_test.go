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

// A run's report says which machines it ran on: the client's in its details, each target's
// server machine (or why it is not recorded) in the targets table.
func TestReportNamesTheMachines(t *testing.T) {
	dir := t.TempDir()
	fixture.Folder(t, dir, 1)
	run, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	run.Info.ClientHost = &results.HostInfo{Source: "client", CPUModel: "AMD EPYC", CPUs: 2, MemoryBytes: 4 << 30, Kernel: "Linux 6.1", Virtualization: "kvm"}
	run.Info.Targets[0].ServerHost = &results.HostInfo{Source: "sandbox", CPUModel: "AMD EPYC", CPUs: 2}
	run.Info.Targets[1].ServerHostAbsent = "its hostname is \"db2\", not this machine's \"vm\""
	var buf bytes.Buffer
	if err := Render(&buf, run, "test", ""); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := rendered(t, path)
	for _, want := range []string{"<dd>AMD EPYC, 2 CPUs, 4.0 GiB, Linux 6.1, virtualization kvm</dd>",
		`<td class="server-machine">AMD EPYC, 2 CPUs (sandbox)</td>`,
		`<td class="server-machine">not recorded: its hostname is "db2", not this machine's "vm"</td>`} {
		if !strings.Contains(dom, want) {
			t.Errorf("report lacks %s:\n%.4000s", want, dom)
		}
	}
}
