// Command generatebench weighs a generate: step against `sysbench oltp_read_write prepare` on
// the same sandbox: an sbtest-shaped table (id AUTO_INCREMENT, k, c CHAR(120), pad CHAR(60),
// INDEX k) of -rows rows with -threads threads, alternated (one round runs each client once,
// the order rotated round by round: ABBA for one -method, ABC BCA CAB for two), rows per second
// of each, then generate's peak Go heap at -rows/10 and -rows (flat: the rows are never held).
// With -employees N, the rounds also fill the employees sample schema
// (executor/generate/testdata/employees.yaml, run from the repository's root) scaled to N
// employees: six tables, composite keys, per-parent counts and expr dates, its rows/s
// counted over all its tables. With -rentals N, it then fills a store's rentals
// (executor/generate/testdata/rentals.sql, sakila's shape) with N customers of 10 to 40 rentals,
// alternately in time order and customer by customer (time: none): rows/s of each, and the
// peak Go heap of each at N/10 and N customers (time order adds nothing: the permutation holds
// no rows; both hold the per_parent layouts' count per parent row).
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	_ "github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/bench/internal/benchrun"
	"github.com/quadrant-bench/quadrant/executor/generate"
	"github.com/quadrant-bench/quadrant/executor/generate/genplan"
	"github.com/quadrant-bench/quadrant/executor/sandbox"
)

const schema = `CREATE TABLE sbtest1 (
  id INT NOT NULL AUTO_INCREMENT,
  k INT NOT NULL DEFAULT 0,
  c CHAR(120) NOT NULL DEFAULT '',
  pad CHAR(60) NOT NULL DEFAULT '',
  PRIMARY KEY (id),
  KEY k_1 (k)
) ENGINE=InnoDB;
`

func main() {
	rows := flag.Int64("rows", 400_000, "rows of the table")
	threads := flag.Int("threads", 2, "loading threads of both")
	pairs := flag.Int("pairs", 2, "alternated pairs")
	method := flag.String("method", generate.MethodAuto, "generate's methods, comma-separated: auto, insert, load_data (e.g. load_data,insert weighs both in the same rounds)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the generate runs to this file")
	employees := flag.Int64("employees", 0, "also fill the employees schema with this many employees in each round (0: not)")
	rentals := flag.Int64("rentals", 0, "then fill the rentals schema with this many customers, in time order and not (0: not)")
	flag.Parse()
	if err := run(*rows, *threads, *pairs, *method, *cpuprofile, *employees, *rentals); err != nil {
		fmt.Fprintln(os.Stderr, "generatebench:", err)
		os.Exit(1)
	}
}

func run(rows int64, threads, pairs int, method, cpuprofile string, employees, rentals int64) error {
	ctx := context.Background()
	c, stop, err := sandbox.StartTemp(ctx, "generatebench-", sandbox.Options{Name: "gen", Config: []sandbox.Option{
		{Name: "innodb_buffer_pool_size", Value: "512M"}, {Name: "innodb_flush_log_at_trx_commit", Value: "2"},
	}, Logf: func(string, ...any) {}})
	if err != nil {
		return err
	}
	defer stop()
	db, err := sql.Open("mysql", c.Primary.DSN(""))
	if err != nil {
		return err
	}
	defer db.Close()
	cfg, err := mysql.ParseDSN(c.Primary.DSN(""))
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "generatebench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	schemaFile := filepath.Join(dir, "sbtest.sql")
	if err := os.WriteFile(schemaFile, []byte(schema), 0o644); err != nil {
		return err
	}
	var prof *os.File
	if cpuprofile != "" {
		if prof, err = os.Create(cpuprofile); err != nil {
			return err
		}
	}
	reset := func() error {
		for _, q := range []string{"DROP DATABASE IF EXISTS sbtest", "CREATE DATABASE sbtest"} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return nil
	}
	methods := strings.Split(method, ",")
	quadrant := func(n int64, method string) (measured, error) {
		if err := reset(); err != nil {
			return measured{}, err
		}
		gdb, err := sql.Open("mysql", c.Primary.DSN("sbtest"))
		if err != nil {
			return measured{}, err
		}
		defer gdb.Close()
		runtime.GC()
		if prof != nil {
			if err := pprof.StartCPUProfile(prof); err != nil {
				return measured{}, err
			}
		}
		peak, done := benchrun.HeapPeak()
		srv0, self0 := benchrun.ProcessCPU(c.Primary.Pid()), benchrun.SelfCPU()
		t0 := time.Now()
		_, err = generate.Run(ctx, gdb, generate.Options{Schema: schemaFile, Seed: 1, Threads: threads, Method: method,
			Tables: []generate.Table{{Name: "sbtest1", Rows: n}}, Logf: func(string, ...any) {}})
		m := measured{took: time.Since(t0), server: benchrun.ProcessCPU(c.Primary.Pid()) - srv0, client: benchrun.SelfCPU() - self0}
		if prof != nil {
			// the first run only: a profile file holds one
			pprof.StopCPUProfile()
			prof.Close()
			prof = nil
		}
		close(done)
		m.heap = <-peak
		return m, err
	}
	sysbench := func(n int64) (measured, error) {
		if err := reset(); err != nil {
			return measured{}, err
		}
		host, port, _ := strings.Cut(cfg.Addr, ":")
		cmd := exec.CommandContext(ctx, "sysbench", "oltp_read_write", "--db-driver=mysql", "--mysql-host="+host, "--mysql-port="+port,
			"--mysql-user="+cfg.User, "--mysql-password="+cfg.Passwd, "--mysql-db=sbtest", "--tables=1", fmt.Sprintf("--table-size=%d", n),
			fmt.Sprintf("--threads=%d", threads), "prepare")
		srv0 := benchrun.ProcessCPU(c.Primary.Pid())
		t0 := time.Now()
		out, err := cmd.CombinedOutput()
		if err != nil {
			return measured{}, fmt.Errorf("sysbench prepare: %v: %s", err, out)
		}
		return measured{took: time.Since(t0), server: benchrun.ProcessCPU(c.Primary.Pid()) - srv0,
			client: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}, nil
	}
	// the employees schema scaled to n employees; its rows/s over all six tables
	employeesShape := func(n int64) (measured, int64, error) {
		if _, err := db.ExecContext(ctx, "DROP DATABASE IF EXISTS employees"); err != nil {
			return measured{}, 0, err
		}
		g, err := genplan.LoadGenerate("executor/generate/testdata/employees.yaml")
		if err != nil {
			return measured{}, 0, err
		}
		o := generate.FromSpec(g)
		o.Threads, o.Logf = threads, func(string, ...any) {}
		for i := range o.Tables {
			switch o.Tables[i].Name {
			case "employees":
				o.Tables[i].Rows = n
			case "dept_manager":
				o.Tables[i].Rows = max(n*24/2000, 9)
			case "titles":
				o.Tables[i].Rows = n * 3 / 2
			}
		}
		runtime.GC()
		peak, done := benchrun.HeapPeak()
		srv0, self0 := benchrun.ProcessCPU(c.Primary.Pid()), benchrun.SelfCPU()
		t0 := time.Now()
		res, err := generate.Run(ctx, db, o)
		m := measured{took: time.Since(t0), server: benchrun.ProcessCPU(c.Primary.Pid()) - srv0, client: benchrun.SelfCPU() - self0}
		close(done)
		m.heap = <-peak
		return m, res.Rows, err
	}
	// Each round runs every client once, the order rotated round by round (A B C, B C A, ...;
	// with one method, ABBA), so that a neighbour's load falls on all of them alike.
	clients := append(append([]string{}, methods...), "sysbench")
	if employees > 0 {
		clients = append(clients, "employees")
	}
	rates, srvUs, cliUs := map[string][]float64{}, map[string][]float64{}, map[string][]float64{}
	for i := 0; i < pairs; i++ {
		order := make([]string, len(clients))
		for j := range clients {
			order[j] = clients[(i+j)%len(clients)]
		}
		for _, who := range order {
			var m measured
			var err error
			n := rows
			switch who {
			case "sysbench":
				m, err = sysbench(rows)
			case "employees":
				m, n, err = employeesShape(employees)
			default:
				m, err = quadrant(rows, who)
			}
			if err != nil {
				return err
			}
			rate := float64(n) / m.took.Seconds()
			perRow := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(n) }
			fmt.Printf("round %d %-9s %8d rows in %6.2fs: %8.0f rows/s; CPU per row: server %.2f µs, client %.2f µs\n",
				i+1, who, n, m.took.Seconds(), rate, perRow(m.server), perRow(m.client))
			rates[who] = append(rates[who], rate)
			srvUs[who] = append(srvUs[who], perRow(m.server))
			cliUs[who] = append(cliUs[who], perRow(m.client))
		}
	}
	sb := median(rates["sysbench"])
	for _, m := range methods {
		fmt.Printf("medians: generate (method %s) %.0f rows/s, sysbench prepare %.0f rows/s, ratio %.2f (%d rows, %d threads)\n", m, median(rates[m]), sb, median(rates[m])/sb, rows, threads)
	}
	if employees > 0 {
		fmt.Printf("medians: generate of the employees schema (%d employees, its six tables) %.0f rows/s beside the sbtest table's %.0f (method %s)\n", employees, median(rates["employees"]), median(rates[methods[0]]), methods[0])
	}
	// CPU per row does not grow with the machine's load as wall time does: on a shared
	// machine it says which client asks the server for less work.
	for _, who := range clients {
		fmt.Printf("medians: %-9s CPU per row: server %.2f µs, client %.2f µs\n", who, median(srvUs[who]), median(cliUs[who]))
	}
	for _, m := range methods {
		for _, n := range []int64{rows / 10, rows} {
			r, err := quadrant(n, m)
			if err != nil {
				return err
			}
			fmt.Printf("generate (method %s) %8d rows: peak Go heap in use %.1f MiB\n", m, n, float64(r.heap)/(1<<20))
		}
	}
	if employees > 0 {
		// the employees shape too: expr columns and per-parent layouts must not grow with rows
		for _, n := range []int64{max(employees/10, 1), employees} {
			r, rows, err := employeesShape(n)
			if err != nil {
				return err
			}
			fmt.Printf("generate of the employees schema %8d employees (%d rows): peak Go heap in use %.1f MiB\n", n, rows, float64(r.heap)/(1<<20))
		}
	}
	if rentals > 0 {
		return rentalsBench(ctx, db, c.Primary.Pid(), rentals, threads, pairs)
	}
	return nil
}

// rentalsOptions fills testdata/rentals.sql with n customers of 10 to 40 rentals each (rental's
// time rentalTime: "" found, none customer by customer) and a payment per rental.
func rentalsOptions(n int64, threads int, rentalTime string) generate.Options {
	return generate.Options{Schema: "executor/generate/testdata/rentals.sql", Seed: 1, Threads: threads, Logf: func(string, ...any) {}, Tables: []generate.Table{
		{Name: "language", Rows: 6},
		{Name: "film", Rows: 1000, Columns: map[string]generate.Settings{"language_id": {Values: []string{"1"}}}},
		{Name: "customer", Rows: n},
		{Name: "inventory", Rows: 4000},
		{Name: "rental", PerParent: &generate.PerParent{Parent: "customer", Min: 10, Max: 40}, Time: rentalTime,
			Columns: map[string]generate.Settings{"rental_date": {Min: "2024-01-01", Max: "2024-12-31 23:59:59"}}},
		{Name: "payment", PerParent: &generate.PerParent{Parent: "rental", Min: 1, Max: 1}, Columns: map[string]generate.Settings{
			"customer_id": {Expr: "parent.customer_id"}, "amount": {Min: "0.99", Max: "11.99"}}},
	}}
}

// rentalsBench fills the rentals schema in time order and customer by customer, alternated
// pairs times (rows/s of each), then in time order at n/10 and n customers (peak Go heap).
func rentalsBench(ctx context.Context, db *sql.DB, pid int, n int64, threads, pairs int) error {
	fill := func(n int64, rentalTime string) (measured, int64, error) {
		if _, err := db.ExecContext(ctx, "DROP DATABASE IF EXISTS rentals"); err != nil {
			return measured{}, 0, err
		}
		runtime.GC()
		peak, done := benchrun.HeapPeak()
		srv0, self0 := benchrun.ProcessCPU(pid), benchrun.SelfCPU()
		t0 := time.Now()
		res, err := generate.Run(ctx, db, rentalsOptions(n, threads, rentalTime))
		m := measured{took: time.Since(t0), server: benchrun.ProcessCPU(pid) - srv0, client: benchrun.SelfCPU() - self0}
		close(done)
		m.heap = <-peak
		return m, res.Rows, err
	}
	rates := map[string][]float64{}
	for i := 0; i < pairs; i++ {
		order := []string{"time", generate.TimeNone}
		if i%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		for _, who := range order {
			rentalTime := who
			if who == "time" {
				rentalTime = ""
			}
			m, rows, err := fill(n, rentalTime)
			if err != nil {
				return err
			}
			rate := float64(rows) / m.took.Seconds()
			fmt.Printf("round %d rentals, %-4s %8d rows in %6.2fs: %8.0f rows/s; CPU per row: server %.2f µs, client %.2f µs\n", i+1, who, rows, m.took.Seconds(), rate,
				float64(m.server.Microseconds())/float64(rows), float64(m.client.Microseconds())/float64(rows))
			rates[who] = append(rates[who], rate)
		}
	}
	if pairs > 0 {
		fmt.Printf("medians: rentals (%d customers) in time order %.0f rows/s, customer by customer %.0f rows/s\n", n, median(rates["time"]), median(rates[generate.TimeNone]))
	}
	// per_parent layouts hold a count per parent row (payment's: one per rental), time order or not
	for _, c := range []int64{max(n/10, 1), n} {
		for _, who := range []string{"time", generate.TimeNone} {
			rentalTime := who
			if who == "time" {
				rentalTime = ""
			}
			m, rows, err := fill(c, rentalTime)
			if err != nil {
				return err
			}
			fmt.Printf("generate of the rentals schema, %-4s %8d customers (%d rows): peak Go heap in use %.1f MiB\n", who, c, rows, float64(m.heap)/(1<<20))
		}
	}
	return nil
}

// measured is one run: its wall time, the server's and the client's CPU time, and (generate
// only) its peak Go heap.
type measured struct {
	took, server, client time.Duration
	heap                 uint64
}

func median(x []float64) float64 {
	sort.Float64s(x)
	switch n := len(x); {
	case n == 0:
		return 0
	case n%2 == 0:
		return (x[n/2-1] + x[n/2]) / 2
	default:
		return x[n/2]
	}
}
