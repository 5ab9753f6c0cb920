package compare

import (
	"bytes"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/results"
)

// issue44Runs are the user's case: a published sandbox run and a rerun on a DSN server whose
// settings differ in durability, the buffer pool and the binary log among a crowd of
// performance_schema sizes and paths; another machine, storage recorded on one side only,
// a busy client, a version that differs by "-log" only.
func issue44Runs(t *testing.T) (a, b *results.Run) {
	vars := func(root, flush, pool, logBin, psSize, version string) map[string]string {
		return map[string]string{
			"datadir": root + "/data/", "tmpdir": "/tmp" + root, "socket": root + "/mysql.sock", "pid_file": root + "/mysqld.pid",
			"port": root[len(root)-4:], "server_id": root[len(root)-1:], "innodb_flush_log_at_trx_commit": flush,
			"innodb_buffer_pool_size": pool, "log_bin": logBin, "innodb_flush_method": "O_DIRECT",
			"performance_schema_max_table_instances": psSize, "performance_schema_digests_size": psSize,
			"lower_case_table_names": map[string]string{"ON": "0", "OFF": "1"}[logBin], "version": version,
			"version_comment": "MySQL Community Server - GPL",
		}
	}
	a = load(t, 1, func(ri *results.RunInfo) {
		ri.ClientHost = &results.HostInfo{Source: "client", CPUModel: "AMD EPYC", CPUs: 2, MemoryBytes: 4 << 30, Kernel: "Linux 6.1", Virtualization: "kvm"}
		ti := &ri.Targets[0]
		ti.ServerVersion, ti.Flavor = "8.0.36", "MySQL"
		ti.VariablesBefore = vars("/tmp/q-1111", "1", "134217728", "ON", "-1", "8.0.36-log")
		ti.ServerHost = &results.HostInfo{Source: "sandbox", CPUModel: "AMD EPYC", CPUs: 2, MemoryBytes: 4 << 30}
		for i := range ri.Iterations {
			ri.Iterations[i].Storage = []results.Storage{{Target: "primary", DataDir: "/dev/shm/q/data", Filesystem: "tmpfs", Device: "tmpfs", Mount: "/dev/shm"}}
			ri.Iterations[i].HostLoad = &results.HostLoad{CPUs: 2, Start: &results.LoadAverage{Load1: 5.6}}
		}
	})
	b = load(t, 1, func(ri *results.RunInfo) {
		ri.ClientHost = &results.HostInfo{Source: "client", CPUModel: "Intel Xeon", CPUs: 8, MemoryBytes: 32 << 30, Kernel: "Linux 6.1", Virtualization: "none"}
		ti := &ri.Targets[0]
		ti.Kind, ti.ServerVersion, ti.Flavor = "dsn", "8.0.36", "MySQL"
		ti.VariablesBefore = vars("/var/lib/mysql-3306", "2", "8589934592", "OFF", "4000", "8.0.36")
		ti.ServerHostAbsent = "the server is reached at db.example, not on a loopback address or a unix socket of this machine"
		for i := range ri.Iterations {
			ri.Iterations[i].HostLoad = &results.HostLoad{CPUs: 8, Start: &results.LoadAverage{Load1: 0.3}}
		}
	})
	return a, b
}

func TestRankedDifferencesPutWhatMovesNumbersFirst(t *testing.T) {
	a, b := issue44Runs(t)
	ds := RankedDifferences(a, b)
	var got []string
	for _, d := range ds {
		got = append(got, d.Group+" | "+d.Text)
	}
	want := []string{
		"durability and flushing | target primary: innodb_flush_log_at_trx_commit 1 -> 2",
		"buffer pool and logs | target primary: innodb_buffer_pool_size 134217728 -> 8589934592",
		"binary logging | target primary: log_bin ON -> OFF",
		"storage | target primary: datadir storage tmpfs (tmpfs at /dev/shm) -> not recorded",
		"machine | target primary: server machine AMD EPYC, 2 CPUs, 4.0 GiB -> not recorded (the server is reached at db.example, not on a loopback address or a unix socket of this machine)",
		"machine | client CPU model AMD EPYC -> Intel Xeon",
		"machine | client CPUs 2 -> 8",
		"machine | client memory 4.0 GiB -> 32.0 GiB",
		"machine | client virtualization kvm -> none",
		"host load | client load average at the iterations' start 5.6 on 2 CPUs -> 0.3 on 8 CPUs (more load than CPUs: the client competed for them, and its figures are likely lower and noisier)",
		"other differences | target primary: lower_case_table_names 0 -> 1",
		"other differences | target primary: version 8.0.36-log -> 8.0.36 (only the -log suffix the server adds while a log is on: see log_bin and general_log)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("ranked differences:\n%s\n\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i := 1; i < len(ds); i++ {
		if ds[i].Rank < ds[i-1].Rank {
			t.Errorf("%q ranked after %q", ds[i].Text, ds[i-1].Text)
		}
	}
	// datadir, tmpdir, socket, pid_file, port, server_id, two performance_schema sizes, the
	// version variable (said once, in the version group)
	if n := Hidden(a, b); n != 9 {
		t.Errorf("hidden %d, want 9 (paths, port, id, performance_schema sizes, version)", n)
	}
	causes := CandidateCauses(ds, 3)
	if len(causes) != 3 || !strings.HasPrefix(causes[0], "durability and flushing: ") || !strings.Contains(causes[2], "log_bin") {
		t.Errorf("candidate causes %q", causes)
	}
}

// A folder against itself has no difference; an older folder (no hosts, load or storage
// recorded) against itself neither: nothing unrecorded on both sides is a difference.
func TestRankedDifferencesOfEqualRunsAreNone(t *testing.T) {
	a, _ := issue44Runs(t)
	b, _ := issue44Runs(t)
	if ds := RankedDifferences(a, b); len(ds) != 0 {
		t.Errorf("equal runs differ: %+v", ds)
	}
	// both equally busy: no difference, but the comparison still says the client was short of CPU
	c := Compare([]*results.Run{a, b}, []string{"tps"})
	if n := c.Notes[len(c.Notes)-1]; !strings.Contains(n, "5.6 on 2 CPUs") || !strings.Contains(n, "more load than CPUs") {
		t.Errorf("no note of the busy client: %q", c.Notes)
	}
	old1, old2 := load(t, 1, nil), load(t, 1, nil)
	if ds := RankedDifferences(old1, old2); len(ds) != 0 {
		t.Errorf("older folders differ: %+v", ds)
	}
}

// compare's console lists the ranked differences by group, counts the hidden ones, and no
// longer crowds the notes with performance_schema sizes and paths.
func TestCompareTextShowsTheRankedDifferences(t *testing.T) {
	a, b := issue44Runs(t)
	var buf bytes.Buffer
	if err := Compare([]*results.Run{a, b}, []string{"tps"}).WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	i := strings.Index(out, "What differed, run 2 vs run 1, most likely to move the numbers first:")
	if i < 0 {
		t.Fatalf("no ranked differences:\n%s", out)
	}
	sec := out[i:]
	for _, want := range []string{"durability and flushing  target primary: innodb_flush_log_at_trx_commit 1 -> 2",
		"host load", "9 more settings differ as two instances or versions do"} {
		if !strings.Contains(sec, want) {
			t.Errorf("section lacks %q:\n%s", want, sec)
		}
	}
	if strings.Index(sec, "innodb_flush_log_at_trx_commit") > strings.Index(sec, "lower_case_table_names") {
		t.Errorf("durability listed after an other difference:\n%s", sec)
	}
	if strings.Contains(out, "performance_schema_") || strings.Contains(out, "settings that differ at the start") {
		t.Errorf("performance_schema sizes or the old settings note in the output:\n%s", out)
	}
}

// The binary log's storage against a server without one says "no binary log", not "not
// recorded"; two runs alike busy (19.6 and 19.7 on 2 CPUs) are no difference of load.
func TestRankedBinlogStorageAndAlikeLoad(t *testing.T) {
	run := func(logBin string, bl *results.PathStorage, l float64) *results.Run {
		return load(t, 1, func(ri *results.RunInfo) {
			ri.Targets[0].VariablesBefore = map[string]string{"log_bin": logBin}
			for i := range ri.Iterations {
				ri.Iterations[i].Storage = []results.Storage{{Target: "primary", DataDir: "/d", Filesystem: "ext4", Device: "/dev/vda", Mount: "/", Binlog: bl}}
				ri.Iterations[i].HostLoad = &results.HostLoad{CPUs: 2, Start: &results.LoadAverage{Load1: l}}
			}
		})
	}
	a := run("ON", &results.PathStorage{Path: "/d", Filesystem: "ext4", Device: "/dev/vda", Mount: "/"}, 19.6)
	b := run("OFF", nil, 19.7)
	var got []string
	for _, d := range RankedDifferences(a, b) {
		got = append(got, d.Text)
	}
	want := "target primary: log_bin ON -> OFF\ntarget primary: binary log storage ext4 (/dev/vda at /) -> no binary log"
	if strings.Join(got, "\n") != want {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
}

// A sandbox whose replica link had another round trip is a likely cause, in the network
// group after storage; a run without links has "(none)" there; the same links are no
// difference.
func TestRankedLinkDifferences(t *testing.T) {
	run := func(rtt float64) *results.Run {
		return load(t, 1, func(ri *results.RunInfo) {
			for i := range ri.Iterations {
				ri.Iterations[i].Links = []results.Link{
					{Target: "primary", From: "client", To: "primary", Configured: results.LinkShape{RTTMs: 0.5}},
					{Target: "primary", From: "primary", To: "primary_replica1", Configured: results.LinkShape{RTTMs: rtt, Bandwidth: 125e6}},
				}
			}
		})
	}
	var got []string
	for _, d := range RankedDifferences(run(2), run(10)) {
		got = append(got, d.Group+" | "+d.Text)
	}
	want := "network | target primary: link primary -> primary_replica1 rtt 2ms, 1Gbit -> rtt 10ms, 1Gbit"
	if strings.Join(got, "\n") != want {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
	if causes := CandidateCauses(RankedDifferences(run(2), run(10)), 3); len(causes) != 1 || !strings.HasPrefix(causes[0], "network: ") {
		t.Errorf("candidate causes %q", causes)
	}
	if ds := RankedDifferences(run(10), run(10)); len(ds) != 0 {
		t.Errorf("equal links differ: %+v", ds)
	}
	got = nil
	for _, d := range RankedDifferences(run(2), load(t, 1, nil)) {
		got = append(got, d.Text)
	}
	if want := "target primary: link client -> primary rtt 0.5ms -> (none)\ntarget primary: link primary -> primary_replica1 rtt 2ms, 1Gbit -> (none)"; strings.Join(got, "\n") != want {
		t.Errorf("against a run without links:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
}
