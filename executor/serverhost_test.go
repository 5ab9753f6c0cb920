package executor

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/executor/watch/snmptest"
	"github.com/quadrant-bench/quadrant/results"
)

// run.json says which machines a run used: the client (CPU, memory, kernel), a sandbox's
// server host (this one), a dsn target's server on this machine (found by its pid_file and
// working directory) with its datadir's and binary log's storage per iteration, and not a
// dsn target whose pid_file names another server; each iteration has the client's load.
func TestRunRecordsHostsAndStorage(t *testing.T) {
	a := sandboxtest.Start(t, sandbox.Options{Name: "hosta", Config: []sandbox.Option{{Name: "log-bin", Bare: true}}})
	b := sandboxtest.Start(t, sandbox.Options{Name: "hostb"})
	otherPid := filepath.Join(t.TempDir(), "other.pid")
	if err := os.WriteFile(otherPid, []byte(strconv.Itoa(b.Primary.Pid())+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plan := fmt.Sprintf(`
version: 1
name: hosts
targets:
  sb: {sandbox: {config: {log_bin: true}}}
  local: {dsn: "%s"}
  wrong: {dsn: "%s", pid_file: %s}
setup:
  - {target: sb, workload: {builtin: oltp_point_select, action: prepare, options: {tables: 1, table_size: 10}}}
iteration:
  target: sb
  workload: {builtin: oltp_point_select, options: {tables: 1, table_size: 10}, duration: 1s}
`, a.Primary.DSN(""), a.Primary.DSN(""), otherPid)
	run, out, err := runPlan(t, plan, map[string]string{}, Options{})
	requireDone(t, run, out, err, 1)
	ch := run.Info.ClientHost
	if ch == nil || ch.Source != "client" || ch.CPUs == 0 || ch.MemoryBytes == 0 || ch.Kernel == "" || ch.CPUModel == "" {
		t.Fatalf("client_host %+v", ch)
	}
	byName := map[string]results.TargetInfo{}
	for _, ti := range run.Info.Targets {
		byName[ti.Name] = ti
	}
	if h := byName["sb"].ServerHost; h == nil || h.Source != "sandbox" || h.CPUs != ch.CPUs {
		t.Errorf("sandbox server_host %+v", h)
	}
	if sb := byName["sb"]; sb.VersionComment == "" || sb.VersionMachine == "" {
		t.Errorf("version_comment %q, version_compile_machine %q", sb.VersionComment, sb.VersionMachine)
	}
	if h := byName["local"].ServerHost; h == nil || h.Source != "local" || !strings.Contains(h.Evidence, "pid_file") {
		t.Errorf("dsn target on this machine: server_host %+v (absent: %s)", h, byName["local"].ServerHostAbsent)
	}
	if w := byName["wrong"]; w.ServerHost != nil || !strings.Contains(w.ServerHostAbsent, "another server") {
		t.Errorf("a pid_file naming another server was taken for it: %+v, absent %q", w.ServerHost, w.ServerHostAbsent)
	}
	it := run.Info.Iterations[0]
	if hl := it.HostLoad; hl == nil || hl.CPUs == 0 || hl.Start == nil || hl.End == nil {
		t.Errorf("host_load %+v", hl)
	}
	st := map[string]results.Storage{}
	for _, s := range it.Storage {
		st[s.Target] = s
	}
	if len(st) != 2 || st["wrong"].Target != "" {
		t.Fatalf("storage %+v, want sb's and local's", it.Storage)
	}
	for _, name := range []string{"sb", "local"} {
		s := st[name]
		if s.Filesystem == "" || s.Device == "" || s.Binlog == nil || s.Binlog.Filesystem == "" || s.Binlog.Path == "" {
			t.Errorf("%s: storage without its filesystem or binary log: %+v (binlog %+v)", name, s, s.Binlog)
		}
	}
	if got, want := st["local"].DataDir, filepath.Join(a.Primary.Dir(), "data"); got != want {
		t.Errorf("local datadir %s, want %s", got, want)
	}
}

// A dsn target watched over SNMP has its server machine from the agent: processors, memory
// and kernel (the agent runs here, so they are this machine's).
func TestServerHostOverSNMP(t *testing.T) {
	agent := snmptest.Start(t)
	c := sandboxtest.Start(t, sandbox.Options{Name: "snmphost"})
	run, out, err := runPlan(t, fmt.Sprintf(`
version: 1
name: snmp-host
targets:
  db:
    dsn: "%s"
    snmp: {address: "%s", version: "2c", community: %s}
setup:
  - workload: {builtin: oltp_point_select, action: prepare, options: {tables: 1, table_size: 10}}
iteration:
  workload: {builtin: oltp_point_select, options: {tables: 1, table_size: 10}, duration: 1s}
watch:
  snmp: [load1]
`, c.Primary.DSN(""), agent.Addr, snmptest.Community), nil, Options{})
	requireDone(t, run, out, err, 1)
	h, client := run.Info.Targets[0].ServerHost, run.Info.ClientHost
	if h == nil || h.Source != "snmp" || h.CPUs != runtime.NumCPU() || h.MemoryBytes != client.MemoryBytes || h.Kernel != client.Kernel || h.CPUModel == "" {
		t.Fatalf("server_host %+v (absent: %q), client %+v", h, run.Info.Targets[0].ServerHostAbsent, client)
	}
}

// processAge reads a process's start from its stat (the command name may hold spaces and
// parentheses) and the boot time: the fallback that matches a server's Uptime when /proc
// does not let quadrant read the process's working directory.
func TestProcessAge(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "42"), 0o755); err != nil {
		t.Fatal(err)
	}
	// fields 3..22: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime priority nice threads itrealvalue starttime
	stat := "42 (my (odd) d) S 1 42 42 0 -1 4194560 100 0 0 0 10 5 0 0 20 0 30 0 150000 1000 2000\n"
	if err := os.WriteFile(filepath.Join(root, "42", "stat"), []byte(stat), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "stat"), []byte("cpu  1 2 3\nbtime 1000000\nprocesses 5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// booted at 1000000, started 1500 s later (150000 ticks at 100 Hz), now 2000 s after boot
	age, err := processAge(root, 42, time.Unix(1002000, 0))
	if err != nil {
		t.Fatal(err)
	}
	if age != 500 {
		t.Errorf("age %v s, want 500", age)
	}
	if _, err := processAge(root, 43, time.Unix(1002000, 0)); err == nil {
		t.Error("a missing process has an age")
	}
}
