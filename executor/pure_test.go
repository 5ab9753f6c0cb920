package executor

import (
	"reflect"
	"time"

	"github.com/quadrant-bench/quadrant/results"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/kinds"
	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/target"
	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/trust"
)

func TestSandboxConfigOverlay(t *testing.T) {
	base := sandboxOptions(spec.Settings{{Name: "innodb_buffer_pool_size", Value: "1G"}, {Name: "log_bin", Value: true}, {Name: "server_id", Value: 1}})
	iteration := spec.Settings{{Name: "innodb-buffer-pool-size", Value: "2G"}, {Name: "log_bin", Value: false}, {Name: "sync_binlog", Value: 1}}
	got := removed(overlay(base, sandboxOptions(iteration)), iteration)
	want := []sandbox.Option{{Name: "innodb-buffer-pool-size", Value: "2G"}, {Name: "server_id", Value: "1"}, {Name: "sync_binlog", Value: "1"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}

func TestTypedAndBindable(t *testing.T) {
	for in, want := range map[string]any{"42": 42.0, "-1.5": -1.5, "ON": "ON", "": "", "1e5": "1e5", "mysql-bin.000001": "mysql-bin.000001"} {
		if got := target.Typed(in); got != want {
			t.Errorf("typed(%q) = %#v, want %#v", in, got, want)
		}
	}
	// SET GLOBAL rejects a quoted number for a numeric variable (error 1232).
	for in, want := range map[string]any{"1": int64(1), "18446744073709551615": uint64(18446744073709551615), "0.5": 0.5, "OFF": "OFF", "O_DIRECT": "O_DIRECT"} {
		if got := bindable(in); got != want {
			t.Errorf("bindable(%q) = %#v, want %#v", in, got, want)
		}
	}
}

func TestPrivilegedListsEachCommandOnce(t *testing.T) {
	p, err := spec.LoadBytes("plan.yaml", []byte(`
version: 1
name: trust
targets:
  db: {dsn: "u@tcp(127.0.0.1:3306)/", restart: "systemctl restart mariadb"}
setup: [{shell: "echo setup"}]
matrix: {x: [1, 2]}
iteration:
  server_config: {innodb_flush_method: fsync}
  before: [{drop_caches: true}, {restart: {}}]
  workload: {builtin: oltp_point_select, duration: 1s}
`), spec.Options{Kinds: kinds.Registry()})
	if err != nil {
		t.Fatal(err)
	}
	ref := trust.Check(p, trust.Allow{})
	if ref == nil || len(ref.Items) != 4 {
		t.Fatalf("refused %v, want shell, server_config restart, drop_caches, restart step once each", ref)
	}
	for _, it := range ref.Items {
		if it.Effect.Kind != spec.RunsCode || it.Flag != "--allow-shell" {
			t.Errorf("%+v: want code that --allow-shell allows", it)
		}
	}
	if ref := trust.Check(p, trust.Allow{Shell: true}); ref != nil {
		t.Fatalf("--allow-shell allows them all, got %v", ref)
	}
}

// After Ctrl-C in the first of two iterations, the log said "2 iteration(s): 2 interrupted".
func TestTallyTellsInterruptedFromNotStarted(t *testing.T) {
	info := &results.RunInfo{Iterations: []results.IterationInfo{
		{Status: results.StatusDone, Start: time.Now()},
		{Status: results.StatusInterrupted, Start: time.Now()},
		{Status: results.StatusInterrupted},
		{Status: results.StatusInterrupted},
	}}
	if got, want := tally(info), "4 iteration(s): 1 done, 1 interrupted, 2 not started"; got != want {
		t.Fatalf("tally %q, want %q", got, want)
	}
}
