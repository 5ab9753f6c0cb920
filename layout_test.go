package quadrant_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestImportRules keeps the data flowing one way: spec knows nothing of running a plan,
// the executor writes the results folder only through package results, and reporters read
// only that folder. A change that crosses fails here before review.
func TestImportRules(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	if !strings.Contains(string(out), mod+"/results") {
		t.Fatalf("go list -deps printed no project package:\n%s", out)
	}
	rules := []struct{ from, forbidden string }{
		{"executor", "reporters"},
		{"reporters", "executor"},
		{"spec", "executor"},
		{"spec", "reporters"},
		{"results", "executor"},
		{"results", "reporters"},
		{"results", "spec"},
	}
	for _, r := range rules {
		deps := listDeps(t, "./"+r.from+"/...")
		for pkg, imports := range deps {
			for _, d := range imports {
				if under(d, r.forbidden) {
					t.Errorf("%s imports %s: %s must not depend on %s", pkg, d, r.from, r.forbidden)
				}
			}
		}
	}
}

const mod = "github.com/quadrant-bench/quadrant"

// listDeps maps every package matched by pattern to everything it depends on, directly
// or not (tests' imports included).
func listDeps(t *testing.T, pattern string) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-test", "-deps=false", "-f", `{{.ImportPath}} {{join .Deps " "}}`, pattern).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", pattern, err)
	}
	m := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) > 0 {
			m[f[0]] = f[1:]
		}
	}
	return m
}

func under(pkg, dir string) bool {
	p := mod + "/" + dir
	return pkg == p || strings.HasPrefix(pkg, p+"/")
}

// TestKindsOwnTheirNames keeps every workload kind's knowledge in its own package: spec,
// the executor's own files and the CLI name no kind, and reach none but through the
// registry (executor/workload/kinds). A kind added is one package and one line there.
func TestKindsOwnTheirNames(t *testing.T) {
	kindName := regexp.MustCompile(`"(tpcc|oltp_[a-z_]+|sysbench)"`)
	var files []string
	for _, pattern := range []string{"spec/*.go", "spec/*/*.go", "executor/*.go", "cmd/quadrant/*.go", "cmd/quadrant/*/*.go"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 50 {
		t.Fatalf("found %d files to read; the globs are wrong", len(files))
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := kindName.FindString(line); m != "" {
				t.Errorf("%s:%d names the workload kind %s: say it in the kind's package (its workload.Kind) and ask the registry", f, i+1, m)
			}
		}
	}
	for pkg, imports := range listImports(t, "./cmd/...") {
		for _, d := range imports {
			if under(d, "executor/workload") && d != mod+"/executor/workload/kinds" {
				t.Errorf("%s imports %s: the CLI reaches the kinds only through executor/workload/kinds", pkg, d)
			}
		}
	}
	for pkg, imports := range listImports(t, "./executor/capture/...") {
		for _, d := range imports {
			if under(d, "executor/workload/replay") {
				t.Errorf("%s imports %s: capture writes the traffic format (executor/traffic), not the replay kind", pkg, d)
			}
		}
	}
}

// listImports maps every package matched by pattern to its direct imports, its tests' included.
func listImports(t *testing.T, pattern string) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}} {{join .TestImports " "}} {{join .XTestImports " "}}`, pattern).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", pattern, err)
	}
	m := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			m[f[0]] = f[1:]
		}
	}
	return m
}
