package quadrant_test

import (
	"os/exec"
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
