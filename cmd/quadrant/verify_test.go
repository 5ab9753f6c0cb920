package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/executor/traffic"
	"github.com/quadrant-bench/quadrant/results"
)

// runBin runs the built quadrant to its end, its stdout and stderr apart.
func runBin(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, quadrantBin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("quadrant %v did not finish: %s%s", args, stdout.String(), stderr.String())
	}
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

// shopServers are two sandboxes with the same shop data, but orders on new lacks the index
// a lookup by customer uses.
func shopServers(t *testing.T) (base, next *sandbox.Server) {
	t.Helper()
	var clusters [2]*sandbox.Cluster
	var wg sync.WaitGroup
	for i, name := range []string{"vbase", "vnew"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			clusters[i] = sandboxtest.Start(t, sandbox.Options{Name: name})
		}()
	}
	wg.Wait()
	if clusters[0] == nil || clusters[1] == nil {
		t.FailNow()
	}
	for i, c := range clusters {
		stmts := []string{
			"CREATE DATABASE shop",
			"CREATE TABLE shop.customers (id INT PRIMARY KEY, name VARCHAR(40) NOT NULL)",
			"CREATE TABLE shop.orders (id INT PRIMARY KEY, customer_id INT NOT NULL, amount DECIMAL(10,2) NOT NULL, KEY idx_customer (customer_id))",
			"INSERT INTO shop.customers SELECT seq, CONCAT('customer ', seq) FROM shop.seq_1_to_200",
			"INSERT INTO shop.orders SELECT seq, 1 + seq % 200, seq * 1.25 FROM shop.seq_1_to_4000",
			"ANALYZE TABLE shop.customers, shop.orders",
		}
		if i == 1 {
			stmts = append(stmts, "ALTER TABLE shop.orders DROP INDEX idx_customer")
		}
		if err := c.Primary.Exec(context.Background(), stmts...); err != nil {
			t.Fatal(err)
		}
	}
	return clusters[0].Primary, clusters[1].Primary
}

func writeQCap(t *testing.T, path string, texts ...string) {
	t.Helper()
	var buf bytes.Buffer
	w, err := traffic.NewWriter(&buf, traffic.QCapHeader{Created: time.Now().UTC(), Target: "test"})
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		if err := w.Write(&traffic.Statement{Session: uint64(1 + i%2), Schema: "shop", Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkShopQueries: of the three fingerprints, only the lookup by customer has a plan that
// differs; every one returned the same rows.
func checkShopQueries(t *testing.T, dir string) {
	t.Helper()
	rows, err := results.ReadQueries(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("%d rows in %s/queries.csv, want 3 (one per fingerprint): %+v", len(rows), dir, rows)
	}
	for _, r := range rows {
		wantPlan := results.VerifySame
		if strings.Contains(r.Fingerprint, "customer_id") {
			wantPlan = results.VerifyDifferent
			if !strings.Contains(r.Differences, "orders: ref on idx_customer → ALL") || r.Count != 2 {
				t.Errorf("lookup by customer: count %d, differences %q; want 2 and orders: ref on idx_customer → ALL", r.Count, r.Differences)
			}
		}
		if r.Target != "new" || r.Results != results.VerifySame || r.Plan != wantPlan {
			t.Errorf("%s: target %s, results %s, plan %s; want new, same, %s", r.Fingerprint, r.Target, r.Results, r.Plan, wantPlan)
		}
	}
}

// quadrant verify as a DBA runs it, then as a plan step: two servers alike but for a dropped
// index give one fingerprint whose plan differs; bad input exits 2 saying what to do.
func TestVerifyCommandAndStep(t *testing.T) {
	sandboxtest.SkipShort(t)
	base, next := shopServers(t)
	dir := t.TempDir()
	capPath := filepath.Join(dir, "app.qcap")
	writeQCap(t, capPath,
		"SELECT id, amount FROM orders WHERE customer_id = 7",
		"SELECT COUNT(*) FROM customers",
		"UPDATE customers SET name = 'x' WHERE id = 9",
		"SELECT id, amount FROM orders WHERE customer_id = 12",
		"SELECT name FROM customers WHERE id = 3",
	)
	baseT, newT := "--target=base="+base.DSN(""), "--target=new="+next.DSN("")

	out := filepath.Join(dir, "verify-1")
	code, stdout, stderr := runBin(t, "verify", capPath, baseT, newT, "--out", out)
	if code != exitOK {
		t.Fatalf("verify: exit %d\n%s%s", code, stdout, stderr)
	}
	// how many are slower is the latency verdict's, tested on its own: not pinned here
	if head, tail := out+": 3 fingerprints (4 statements), 1 differ, ", " slower; see "+filepath.Join(out, results.ReportFile)+"\n"; !strings.HasPrefix(stdout, head) || !strings.HasSuffix(stdout, tail) {
		t.Errorf("stdout %q, want %q N %q", stdout, head, tail)
	}
	checkShopQueries(t, out)
	info, err := results.ReadRunInfo(out)
	if err != nil {
		t.Fatal(err)
	}
	if info.Status != results.StatusDone || len(info.Targets) != 2 || info.Targets[0].Name != "base" || info.Targets[1].Name != "new" ||
		!strings.Contains(info.Targets[0].ServerVersion, "MariaDB") || !strings.Contains(info.Targets[1].ServerVersion, "MariaDB") {
		t.Errorf("run.json: status %s, targets %+v; want done, base and new with their server versions", info.Status, info.Targets)
	}
	if strings.Contains(strings.Join(info.Command, " "), base.Password()) {
		t.Errorf("run.json's command shows a password: %q", info.Command)
	}
	logText, err := os.ReadFile(filepath.Join(out, results.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"4 read-only statements in 3 fingerprints (1 other statements skipped)", "target base ran 4 statements", "target new ran 4 statements"} {
		if !strings.Contains(string(logText), want) {
			t.Errorf("log.txt lacks %q:\n%s", want, logText)
		}
	}

	t.Run("bad input", func(t *testing.T) {
		broken := filepath.Join(dir, "broken.qcap")
		data, _ := os.ReadFile(capPath)
		if err := os.WriteFile(broken, append(data, []byte("{\"session\": 1, \"text\": \n")...), 0o644); err != nil {
			t.Fatal(err)
		}
		missing := filepath.Join(dir, "nosuch.qcap")
		for _, c := range []struct {
			name string
			args []string
			want string
		}{
			{"no --out", []string{capPath, baseT, newT}, "--out DIR is required"},
			{"one target", []string{capPath, baseT, "--out", filepath.Join(dir, "o1")}, "give two --target NAME=DSN or more"},
			{"bad DSN", []string{capPath, baseT, "--target=new=bench:secret@tcp(127.0.0.1:3306", "--out", filepath.Join(dir, "o2")}, "--target new: "},
			{"no NAME=", []string{capPath, baseT, "--target=" + next.DSN(""), "--out", filepath.Join(dir, "o3")}, "want NAME=DSN"},
			{"missing file", []string{missing, baseT, newT, "--out", filepath.Join(dir, "o4")}, "TRAFFIC " + missing + ": no such file; give the slow log"},
			{"parse error", []string{broken, baseT, newT, "--out", filepath.Join(dir, "o5")}, broken + ":7: malformed capture record"},
			{"parse error's remedy", []string{broken, baseT, newT, "--out", filepath.Join(dir, "o6")}, "--in " + broken + " --out clean.qcap --skip-malformed"},
		} {
			code, stdout, stderr := runBin(t, append([]string{"verify"}, c.args...)...)
			t.Logf("%s: exit %d: %s", c.name, code, stderr)
			if code != exitInvalid || !strings.HasPrefix(stderr, "quadrant verify: ") || !strings.Contains(stderr, c.want) {
				t.Errorf("%s: exit %d, stderr %q; want exit 2 and %q", c.name, code, stderr, c.want)
			}
			noStackTrace(t, stdout+stderr)
			if strings.Contains(stderr, base.Password()) {
				t.Errorf("%s: stderr shows the password: %q", c.name, stderr)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, "o4")); err == nil {
			t.Errorf("a missing traffic file left a results folder behind")
		}
	})

	t.Run("plan step", func(t *testing.T) {
		planDir := t.TempDir()
		if err := os.WriteFile(filepath.Join(planDir, "app.qcap"), mustRead(t, capPath), 0o644); err != nil {
			t.Fatal(err)
		}
		plan := filepath.Join(planDir, "plan.yaml")
		if err := os.WriteFile(plan, []byte(fmt.Sprintf(`version: 1
name: upgrade
targets:
  old: {dsn: %q}
  new: {dsn: %q}
setup:
  - verify: {traffic: app.qcap, targets: [old, new], sample: 5}
iteration:
  target: new
  workload:
    transactions: [{name: one, statements: [{sql: "SELECT 1"}]}]
    events: 10
`, base.DSN(""), next.DSN(""))), 0o644); err != nil {
			t.Fatal(err)
		}
		root := filepath.Join(planDir, "results")
		p := start(t, nil, "run", plan, "--out", root)
		if code := p.wait(t, 3*time.Minute); code != exitOK {
			t.Fatalf("run: exit %d\n%s", code, p.out.String())
		}
		run := findRunDir(t, root)
		checkShopQueries(t, run)
		logText := string(mustRead(t, filepath.Join(run, results.LogFile)))
		for _, want := range []string{"setup: verify (", "verify: 3 fingerprints (4 statements), 1 differ, "} {
			if !strings.Contains(logText, want) {
				t.Errorf("log.txt lacks %q:\n%s", want, logText)
			}
		}
		if _, err := os.Stat(filepath.Join(run, "app.qcap")); err != nil {
			t.Errorf("the results folder does not carry the traffic for a rerun: %v", err)
		}
	})
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
