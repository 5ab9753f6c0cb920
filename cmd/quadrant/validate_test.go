package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec"
)

// typoPlan has a misspelt my.cnf option in a sandbox's config and in server_config, beside
// spellings the server takes (dashes, a bare option, loose-, a prefix of an option).
const typoPlan = `version: 1
name: typo
targets:
  db:
    sandbox:
      %s
      config:
        innodb_bufer_pool_size: 256M
        skip-name-resolve: true
        loose_no_such_plugin_option: 1
        innodb-flush-log-at-trx: 2
        performance_schema: "ON"
iteration:
  server_config: {innodb_flush_metod: O_DIRECT, log_bin: true}
  workload: {builtin: oltp_read_only, duration: 5s}
`

// validate asks the sandbox's server binary which options it knows: a misspelt one is an
// error at its line with the closest name, before a run would see the server refuse to start.
func TestValidateFindsAMisspeltServerOption(t *testing.T) {
	sandboxtest.SkipShort(t)
	path := writePlan(t, fmt.Sprintf(typoPlan, "flavor: auto"))
	var out, errb bytes.Buffer
	code := run([]string{"validate", path}, &out, &errb)
	got := errb.String()
	if code != exitInvalid {
		t.Fatalf("validate: exit %d, want 2:\n%s%s", code, out.String(), got)
	}
	for _, want := range []string{
		path + ":8:", `innodb_bufer_pool_size is not an option of `, `did you mean "innodb_buffer_pool_size"?`,
		path + ":14:", `did you mean "innodb_flush_method"?`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("validate's errors lack %q:\n%s", want, got)
		}
	}
	if n := strings.Count(strings.TrimSpace(got), "\n") + 1; n != 2 {
		t.Errorf("%d errors, want the two misspelt options only:\n%s", n, got)
	}
}

// A sandbox whose server validate may not ask (a plan's basedir, never run; or no server
// binary here, a plan meant for another machine) gets no option-name check: validate passes
// the typos, and for a basedir says so in one note.
func TestValidateWithoutServerBinarySkipsTheOptionCheck(t *testing.T) {
	path := writePlan(t, fmt.Sprintf(typoPlan, "basedir: "+t.TempDir()))
	var out, errb bytes.Buffer
	code := run([]string{"validate", path}, &out, &errb)
	if code != exitOK || strings.Count(errb.String(), "\n") != 1 || !strings.HasPrefix(errb.String(), "note: "+path+":6:16: sandbox db: option names not checked") {
		t.Fatalf("validate: exit %d, want 0 and the basedir's note alone:\n%s%s", code, out.String(), errb.String())
	}
}

// A plan whose cells are compared (a matrix) with fewer than 3 repeats gets a warning at
// validate and explain, at repeat:'s line, saying what to do; 3 repeats, or one cell, none.
func TestValidateWarnsOfTooFewRepeats(t *testing.T) {
	dir := t.TempDir()
	plan := func(keys string) string {
		path := filepath.Join(dir, "r.yaml")
		if err := os.WriteFile(path, []byte(`version: 1
name: r
targets: {db: {dsn: "u@tcp(127.0.0.1:3306)/x"}}
`+keys+`iteration:
  workload: {builtin: oltp_read_only, duration: 1s}
`), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	p := plan("matrix: {threads: [1, 2]}\nrepeat: 2\n")
	code, _, errOut := runCLI("validate", p)
	if code != exitOK || !strings.Contains(errOut, "r.yaml:5:9: its 2 matrix cells are compared") || !strings.Contains(errOut, "inconclusive; give the plan repeat: 3 or more") {
		t.Errorf("validate, repeat 2: exit %d:\n%s", code, errOut)
	}
	if code, out, _ := runCLI("explain", p); code != exitOK || !strings.Contains(out, "warning: ") || !strings.Contains(out, "repeat: 3 or more") {
		t.Errorf("explain, repeat 2: exit %d:\n%s", code, out)
	}
	if _, _, errOut := runCLI("validate", plan("matrix: {threads: [1, 2]}\n")); !strings.Contains(errOut, "repeat: 1 gives each cell one value") {
		t.Errorf("validate, no repeat:\n%s", errOut)
	}
	for _, keys := range []string{"matrix: {threads: [1, 2]}\nrepeat: 3\n", "repeat: 2\n"} {
		if _, _, errOut := runCLI("validate", plan(keys)); strings.Contains(errOut, "warning") {
			t.Errorf("validate %q warns:\n%s", keys, errOut)
		}
	}
}

// A resumed run keeps the order of repeats it started in, whatever the default is now: the
// order run.json records, or sequential for a folder from before it recorded one (the
// default then), since its iteration numbers, and the files named by them, follow it.
func TestResumeKeepsTheOrderItStartedIn(t *testing.T) {
	for _, c := range []struct {
		order *results.RunOrder
		want  string
	}{{nil, spec.OrderSequential}, {&results.RunOrder{Kind: spec.OrderRandom, Seed: 3}, spec.OrderRandom}, {&results.RunOrder{Kind: spec.OrderInterleaved}, spec.OrderInterleaved}} {
		dir := t.TempDir()
		if err := results.WriteJSON(filepath.Join(dir, results.RunFile), &results.RunInfo{Plan: "p", Order: c.order}); err != nil {
			t.Fatal(err)
		}
		if got := resumedOrder(dir); got != c.want {
			t.Errorf("run.json order %+v: resumed in %q, want %q", c.order, got, c.want)
		}
	}
	if got := resumedOrder(t.TempDir()); got != "" {
		t.Errorf("no run.json: %q", got)
	}
}
