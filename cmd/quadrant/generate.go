package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/quadrant-bench/quadrant/executor"
	"github.com/quadrant-bench/quadrant/executor/generate"
	"github.com/quadrant-bench/quadrant/executor/generate/genplan"
	"github.com/quadrant-bench/quadrant/executor/preflight"
	stepgenerate "github.com/quadrant-bench/quadrant/executor/step/generate"
	"github.com/quadrant-bench/quadrant/executor/target"
	"github.com/quadrant-bench/quadrant/spec"
)

func runGenerate(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("generate", "--target NAME=DSN [--schema FILE] (--rows TABLE=N... | --settings FILE) [--after FILE] [--database DB] [--seed N] [--threads N] | --settings FILE --validate",
		"Does what a plan's generate: step does, outside a plan: runs the schema file (if given), then fills the tables\n"+
			"with generated rows, keys included, parents first (see docs/generate.md). --rows TABLE=N is the simple case;\n"+
			"--settings FILE is a YAML file with the keys of a generate: step (schema, database, seed, threads, tables with\n"+
			"their columns), checked as a plan is, with file:line:col. Flags override the file: --rows sets a table's rows (or\n"+
			"adds the table), --schema, --after, --database, --seed and --threads replace its values. Tables must be empty.\n"+
			"--after FILE runs SQL once every table is filled: add back a foreign key dropped to break a cycle.\n"+
			"--settings FILE --validate checks the file (against its schema file's CREATE TABLEs) and writes nothing.\n"+
			"The account's grants are checked first (CREATE for the schema, SELECT and INSERT on each table...).\n"+
			"Progress shows on stderr; the last line on stdout says tables, rows, rows/s and time. A failure says which\n"+
			"tables were filled, which one is part-filled (TRUNCATE it before trying again) and which were not started.\n"+
			"Exit codes: 0 filled, 2 bad input (flags, settings, settings that do not fit the tables, missing grants; no row\n"+
			"written), 3 the fill failed, 130 interrupted.", stdout, stderr)
	var targets, rows multiFlag
	fs.Var(&targets, "target", "the server to fill, `NAME=DSN` (user:password@tcp(host:port)/db)")
	fs.Var(&rows, "rows", "fill `TABLE=N` with N rows (repeatable)")
	settings := fs.String("settings", "", "a YAML `FILE` with the body of a generate: step (its schema: relative to the file)")
	schema := fs.String("schema", "", "a `FILE` of CREATE TABLE statements run first (DELIMITER aware); end it with USE db")
	after := fs.String("after", "", "a SQL `FILE` run once every table is filled, in the database filled (add back a foreign key dropped to break a cycle)")
	database := fs.String("database", "", "the `DB` whose tables are filled (default: the schema's last USE, else the DSN's)")
	seed := fs.Int64("seed", 1, "the same seed, schema and settings give the same rows")
	threads := fs.Int("threads", 1, "connections loading each table, each a range of its rows")
	validate := fs.Bool("validate", false, "check --settings FILE (and its schema file) without a server and without writing; exit 0 when it is fine, 2 with each problem at file:line:col")
	if _, code, stop := parseFlags(fs, args, stdout); stop {
		return code
	}
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "quadrant generate: "+format+"\n", a...)
		return code
	}
	if *validate {
		return validateGenerate(*settings, rows, stdout, stderr)
	}
	if len(targets) != 1 {
		return fail(exitInvalid, "give the server to fill with one --target NAME=DSN, e.g. --target db='app:secret@tcp(127.0.0.1:3306)/shop'")
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	g, err := generateSettings(*settings, generateFlags{set: set, schema: *schema, after: *after, database: *database, seed: *seed, threads: *threads, rows: rows})
	var le settingsLoadError
	if errors.As(err, &le) {
		printLoadError(stderr, le.err)
		return exitInvalid
	}
	if err != nil {
		return fail(exitInvalid, "%v", err)
	}
	ts, err := targetArgs(targets, hostTargets, stderrf(stderr, "quadrant generate: "))
	if err != nil {
		return fail(exitInvalid, "%v", err)
	}
	name := ts[0].Name
	db, dsn, err := openDSN(name, ts[0].DSN)
	if err != nil {
		return fail(exitInvalid, "%v", err)
	}
	defer db.Close()
	return fillTables(g, name, db, dsn.Config().DBName, stdout, stderr)
}

// fillTables checks the account's grants, then fills the tables on db, with progress on
// stderr and the last line on stdout.
func fillTables(g *genplan.Generate, name string, db *sql.DB, dsnDB string, stdout, stderr io.Writer) int {
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "quadrant generate: "+format+"\n", a...)
		return code
	}
	ctx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stopSignals()
	if code, ok := generatePreflight(ctx, g, name, db, dsnDB, stderr); !ok {
		return code
	}
	o := generate.FromSpec(g)
	p := newGenerateProgress(stderr, name)
	o.Logf, o.Loaded = p.logf, p.loaded
	began := time.Now()
	res, err := generate.Run(ctx, db, o)
	p.end()
	if err != nil {
		var se *generate.SettingsError
		if errors.As(err, &se) {
			fail(exitInvalid, "target %s: %v", name, err)
			msg := "no row was written"
			if g.SchemaPath != "" {
				msg += " (the schema file ran)"
			}
			return fail(exitInvalid, "%s; the tables to fill are those of --rows and of the settings file's tables:", msg)
		}
		if ctx.Err() != nil {
			return fail(exitSignaled, "interrupted: %v", err)
		}
		return fail(exitFailed, "target %s: %v", name, err)
	}
	took := time.Since(began)
	fmt.Fprintf(stdout, "generated %d tables in %s on %s: %d rows in %s, %.0f rows/s\n",
		len(res.Filled), res.Database, name, res.Rows, took.Round(time.Millisecond), float64(res.Rows)/max(took.Seconds(), 1e-9))
	return exitOK
}

// generateProgress shows a fill like a plan's data load: on a terminal a live line on
// stderr, piped a line every 10 s; the log lines (each table filled) always.
type generateProgress struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	work  executor.Work
	shown string
	last  time.Time
}

func newGenerateProgress(w io.Writer, name string) *generateProgress {
	return &generateProgress{w: w, tty: isTerminalWriter(w), work: executor.Work{Step: "generate on " + name, Unit: "rows", Started: time.Now()}, last: time.Now()}
}

func (p *generateProgress) clear() {
	if p.tty && p.shown != "" {
		io.WriteString(p.w, clearLine)
		p.shown = ""
	}
}

func (p *generateProgress) logf(format string, a ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	fmt.Fprintf(p.w, format+"\n", a...)
}

func (p *generateProgress) loaded(done, total int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.work.Done, p.work.Total = float64(done), float64(total)
	switch {
	case p.tty:
		p.clear()
		p.shown = p.work.String()
		io.WriteString(p.w, p.shown)
	case time.Since(p.last) >= 10*time.Second:
		p.last = time.Now()
		fmt.Fprintf(p.w, "progress: %s\n", p.work.String())
	}
}

func (p *generateProgress) end() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
}

// generatePreflight refuses, before the schema runs, an account that lacks what g needs
// (executor's pre-flight of a plan's generate step). ok false: stop with code.
func generatePreflight(ctx context.Context, g *genplan.Generate, name string, db *sql.DB, schema string, stderr io.Writer) (code int, ok bool) {
	pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	info, err := target.Probe(pctx, db)
	if err != nil {
		fmt.Fprintf(stderr, "quadrant generate: target %s: %v\n", name, err)
		return exitFailed, false
	}
	ac, err := preflight.CheckNeeds(pctx, name, db, info, g.Privileges(preflight.Server(info, schema)))
	if err != nil {
		fmt.Fprintf(stderr, "quadrant generate: warning: pre-flight: %v (the account's privileges not checked)\n", err)
		return 0, true
	}
	if len(ac.Lacks) > 0 {
		fmt.Fprintf(stderr, "quadrant generate: pre-flight: nothing was run: the account %s on target %s lacks:\n    %s\n  grant them to the account (GRANT ... ON ... TO ...), or use an account that has them\n",
			ac.Account, name, strings.Join(ac.Lacks, "\n    "))
		return exitInvalid, false
	}
	return 0, true
}

// validateGenerate checks a settings file as a plan's generate: step is checked, against its
// schema file when it names one, and says what it would fill; nothing connects.
func validateGenerate(settings string, rows []string, stdout, stderr io.Writer) int {
	if settings == "" {
		fmt.Fprintln(stderr, "quadrant generate: --validate checks a settings file: give --settings FILE")
		return exitInvalid
	}
	g, err := genplan.LoadGenerateWith(settings, func(g *genplan.Generate) error {
		for _, r := range rows { // before the checks, which count the rows asked
			if err := setRows(g, r); err != nil {
				return err
			}
			// a problem with these rows is the flag's: it says so where a file says file:line:col
			t := &g.Tables[slices.IndexFunc(g.Tables, func(t genplan.GenerateTable) bool { return t.Name == strings.TrimSpace(strings.SplitN(r, "=", 2)[0]) })]
			at := spec.Pos{File: "--rows " + r}
			if t.Src.Keys == nil {
				t.Src = spec.Source{Pos: at, Keys: map[string]spec.Pos{}}
			}
			t.Src.Keys["rows"] = at
			delete(t.Src.Keys, "per_parent")
		}
		return nil
	})
	if err != nil {
		printLoadError(stderr, err)
		return exitInvalid
	}
	checked := "without a schema file: the columns are checked when it runs"
	if g.SchemaPath != "" {
		checked = "against " + g.Schema
	}
	fmt.Fprintf(stdout, "%s: valid (%s)\n", settings, checked)
	expected := stepgenerate.ExpectedRows(g, stepgenerate.ParentsOf(g.SchemaPath))
	for _, t := range g.Tables {
		how := fmt.Sprintf("%d rows", expected[t.Name])
		if pp := t.PerParent; pp != nil {
			lo, hi := pp.Range()
			how = fmt.Sprintf("%d to %d per parent row, about %d rows", lo, hi, expected[t.Name])
		}
		fmt.Fprintf(stdout, "  %s: %s\n", t.Name, how)
	}
	return exitOK
}

// generateFlags are the flags that override a settings file's values; set says which were
// given.
type generateFlags struct {
	set           map[string]bool
	schema, after string
	database      string
	seed          int64
	threads       int
	rows          []string
}

// settingsLoadError is a settings file's load error, which the caller prints as a plan's.
type settingsLoadError struct{ err error }

func (e settingsLoadError) Error() string { return e.err.Error() }

// generateSettings reads the settings file (if any) and lays the flags over it.
func generateSettings(file string, f generateFlags) (*genplan.Generate, error) {
	g := &genplan.Generate{Seed: 1, Threads: 1}
	if file != "" {
		loaded, err := genplan.LoadGenerate(file)
		if err != nil {
			return nil, settingsLoadError{err}
		}
		g = loaded
	}
	if f.set["schema"] {
		if _, err := os.Stat(f.schema); err != nil {
			return nil, fmt.Errorf("--schema: %v", err)
		}
		g.Schema, g.SchemaPath = f.schema, f.schema
	}
	if f.set["after"] {
		if _, err := os.Stat(f.after); err != nil {
			return nil, fmt.Errorf("--after: %v", err)
		}
		g.After, g.AfterPath = f.after, f.after
	}
	if f.set["database"] {
		g.Database = f.database
	}
	if f.set["seed"] {
		g.Seed = f.seed
	}
	if f.set["threads"] {
		if f.threads < 1 {
			return nil, fmt.Errorf("--threads %d: give 1 or more", f.threads)
		}
		g.Threads = f.threads
	}
	for _, r := range f.rows {
		if err := setRows(g, r); err != nil {
			return nil, err
		}
	}
	if len(g.Tables) == 0 {
		return nil, errors.New("no table to fill: give --rows TABLE=N (repeatable) or --settings FILE with a tables: list")
	}
	return g, nil
}

// setRows applies one --rows TABLE=N: the table's rows (adding the table), replacing
// per_parent too.
func setRows(g *genplan.Generate, r string) error {
	name, n, ok := strings.Cut(r, "=")
	v, err := strconv.ParseInt(strings.TrimSpace(n), 10, 64)
	if !ok || strings.TrimSpace(name) == "" || err != nil || v < 0 {
		return fmt.Errorf("--rows %q: want TABLE=N with N a whole number >= 0, e.g. --rows customers=10000", r)
	}
	name = strings.TrimSpace(name)
	i := 0
	for i < len(g.Tables) && g.Tables[i].Name != name {
		i++
	}
	if i == len(g.Tables) {
		g.Tables = append(g.Tables, genplan.GenerateTable{Name: name})
	}
	g.Tables[i].Rows, g.Tables[i].PerParent = v, nil
	return nil
}
