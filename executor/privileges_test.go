package executor

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/executor/target"
	"github.com/quadrant-bench/quadrant/results"
)

// An account that owns one schema (ALL ON app.*) runs a plan that needs nothing more, whole;
// the same plan with globals: is refused before setup, naming SUPER and the globals line,
// and nothing was created in app. A SET GLOBAL the server refused is never "restored".
func TestLeastPrivilegeAccount(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "priv"})
	srv := c.Primary
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := srv.Exec(ctx, "CREATE DATABASE app", "CREATE USER app@'%' IDENTIFIED BY 'apppw'", "GRANT ALL ON app.* TO app@'%'"); err != nil {
		t.Fatal(err)
	}
	root, err := srv.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	dsn := fmt.Sprintf("app:apppw@tcp(127.0.0.1:%d)/app", srv.Port())
	plan := func(globals string) string {
		return `
version: 1
name: least
targets:
  db:
    dsn: "` + dsn + `"
setup:
  - workload: {builtin: oltp_read_write, action: prepare, options: {tables: 1, table_size: 100}}
iteration:
` + globals + `  workload:
    builtin: oltp_read_write
    options: {tables: 1, table_size: 100}
    duration: 2s
`
	}
	tables := func() int {
		var n int
		if err := root.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'app'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	t.Run("globals refused before setup", func(t *testing.T) {
		text := plan("  globals: {max_connections: 300}\n")
		_, out, err := runPlan(t, text, nil, Options{})
		var pe *PlanError
		if !errors.As(err, &pe) {
			t.Fatalf("run error %v (outcome %+v), want a PlanError (exit 2)", err, out)
		}
		t.Log(err)
		line := 1 + strings.Count(text[:strings.Index(text, "max_connections")], "\n")
		for _, want := range []string{"SUPER on *.*", fmt.Sprintf("plan.yaml:%d:", line), "globals", "app@%"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("the error does not say %q:\n%v", want, err)
			}
		}
		if n := tables(); n != 0 {
			t.Fatalf("%d tables in app: setup ran before the refusal", n)
		}
	})
	t.Run("a plan that needs nothing more runs whole", func(t *testing.T) {
		run, out, err := runPlan(t, plan(""), nil, Options{})
		if err != nil || out.Status != results.StatusDone {
			t.Fatalf("run: %v, outcome %+v", err, out)
		}
		if tx := col(t, run.Summary, 0, "transactions"); tx <= 0 {
			t.Fatalf("%v transactions", tx)
		}
		if h := run.Info.Targets[0].Hosting; h != target.SelfHosted {
			t.Errorf("run.json says the sandbox behind the dsn is hosted %q, want self-hosted", h)
		}
		if n := tables(); n != 1 {
			t.Fatalf("%d tables in app after the prepare, want 1", n)
		}
	})
	t.Run("a refused SET GLOBAL is not restored", func(t *testing.T) {
		dt, err := target.NewDSN("db", dsn, "")
		if err != nil {
			t.Fatal(err)
		}
		db, err := sql.Open("mysql", dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		s := &liveTarget{Target: dt, db: db}
		g := newGlobals()
		if err := g.set(ctx, s, "max_connections", 300); err == nil || !strings.Contains(err.Error(), "1227") {
			t.Fatalf("SET GLOBAL as app: %v, want error 1227", err)
		}
		var logged []string
		if err := g.restore(ctx, func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }); err != nil || len(logged) > 0 {
			t.Fatalf("restore after a refused SET GLOBAL: %v, logged %q; want nothing done", err, logged)
		}
	})
}
