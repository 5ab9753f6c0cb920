package preflight

import (
	"fmt"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/kinds"
	"github.com/quadrant-bench/quadrant/executor/target"
	"github.com/quadrant-bench/quadrant/spec"
)

// A step kind declares what it needs of an account (spec.StepKind.Privileges) and the
// pre-flight asks it, with the server of the target the step names itself (OwnTarget) and
// what privileges are called there: a test's own kind, which this package cannot know.
func TestAStepKindDeclaresItsPrivileges(t *testing.T) {
	type body struct {
		Src    spec.Source `yaml:"-"`
		On     string      `yaml:"on"`
		Global bool        `yaml:"global"`
	}
	kind := &spec.StepKind{
		Key: "flip", Doc: "test kind", Target: true, Body: func() any { return new(body) },
		OwnTarget: func(s *spec.Step) (string, spec.Pos) { b := spec.StepBody[*body](s); return b.On, b.Src.At("on") },
		Privileges: func(s *spec.Step, srv spec.AccountServer) []spec.AccountNeed {
			need := spec.AccountNeed{Pos: s.Src.Pos, What: "flip", Why: "flip it", Any: [][]spec.Privilege{{{Names: []string{"DELETE"}, DB: srv.Schema, Table: "t"}}}}
			if spec.StepBody[*body](s).Global {
				need.Any = [][]spec.Privilege{{srv.SetGlobal}}
			}
			return []spec.AccountNeed{need}
		},
	}
	registry, err := kinds.Registry().WithSteps(kind)
	if err != nil {
		t.Fatal(err)
	}
	text := "version: 1\nname: flip\ntargets:\n  a: {dsn: \"u:p@tcp(a:3306)/app\"}\n  b: {dsn: \"u:p@tcp(b:3306)/other\"}\n" +
		"setup:\n  - flip: {on: b}\n  - {flip: {global: true}, target: a}\niteration:\n  target: a\n  workload: {builtin: oltp_point_select, duration: 1s}\n"
	p, err := spec.LoadBytes("plan.yaml", []byte(text), spec.Options{Kinds: registry})
	if err != nil {
		t.Fatal(err)
	}
	servers := map[string]spec.AccountServer{
		"a": Server(target.ServerInfo{Flavor: "MariaDB", Version: "10.11.9"}, "app"),
		"b": Server(target.ServerInfo{Flavor: "MySQL", Version: "8.4.3"}, "other"),
	}
	var got []string
	for _, n := range planNeeds(p, func(name string) (spec.AccountServer, bool) { s, ok := servers[name]; return s, ok }) {
		if n.What == "flip" {
			got = append(got, fmt.Sprintf("%s %d %v", n.target, n.Pos.Line, n.Any))
		}
	}
	want := []string{"b 7 [[{[DELETE] other t}]]", "a 8 [[{[SUPER]  }]]"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("the kind's needs: %q, want %q", got, want)
	}
}

// The limits are checked per iteration with the server's figures, or those its
// globals set, each message once however many cells repeat it; a target whose
// limits are unknown is not checked.
func TestCheckLimits(t *testing.T) {
	text := "version: 1\nname: limits\ntargets:\n  db: {dsn: \"u:p@tcp(db:3306)/app\"}\n" +
		"matrix:\n  threads: [4, 30, 30]\n  max: [20, 50]\n" +
		"iteration:\n  globals: {max_connections: \"${{ matrix.max }}\"}\n" +
		"  workload: {builtin: oltp_point_select, threads: \"${{ matrix.threads }}\", duration: 1s, options: {tables: 2}}\n"
	p, err := spec.LoadBytes("plan.yaml", []byte(text), spec.Options{Kinds: kinds.Registry()})
	if err != nil {
		t.Fatal(err)
	}
	limits := func(name string) (Limits, bool) {
		return Limits{MaxConnections: 1000, MaxPrepared: 1000, Prepared: 10}, name == "db"
	}
	err = CheckLimits(p, limits, func(string) int { return 3 })
	if err == nil {
		t.Fatal("30 threads + 3 over max_connections 20 passed")
	}
	msg := err.Error()
	t.Log(msg)
	if n := strings.Count(msg, "30 workload threads + 3 watcher and control connections = 33 connections to db, over its max_connections of 20"); n != 1 {
		t.Errorf("the connections over max_connections 20 said %d times, want once:\n%s", n, msg)
	}
	if strings.Contains(msg, "max_connections of 50") || strings.Contains(msg, "prepared") {
		t.Errorf("a limit that holds is refused:\n%s", msg)
	}
	if err := CheckLimits(p, func(string) (Limits, bool) { return Limits{}, false }, func(string) int { return 3 }); err != nil {
		t.Errorf("unknown limits were checked: %v", err)
	}
}
