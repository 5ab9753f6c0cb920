package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"time"

	"github.com/quadrant-bench/quadrant/executor"
	"github.com/quadrant-bench/quadrant/executor/target"
	"github.com/quadrant-bench/quadrant/reporters/sqlexport"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec"
)

func runExport(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("export", "DIR... --dsn DSN",
		"Loads results folders into a MySQL or MariaDB database: tables quadrant_runs, quadrant_iterations,\n"+
			"quadrant_summary and quadrant_timeseries (created when missing), every row keyed by the run's id.\n"+
			"Exporting a folder again changes nothing; a folder that grew adds what is new.", stdout, stderr)
	dsn := fs.String("dsn", "", "the database, as a go-sql-driver `DSN`: user:${{ env.NAME }}@tcp(host:3306)/quadrant (single-quoted), or user@...?passwordFile=FILE")
	dirs, code, stop := parseFlags(fs, args, stdout)
	if stop {
		return code
	}
	if len(dirs) == 0 || *dsn == "" {
		fmt.Fprintln(stderr, "quadrant export: give results folders and --dsn, e.g. quadrant export results/quickstart/20261130-120000 --dsn 'bench:secret@tcp(127.0.0.1:3306)/quadrant'")
		return exitInvalid
	}
	resolved, err := dsnFlag("--dsn", *dsn, stderrf(stderr, "quadrant export: "))
	if err != nil {
		fmt.Fprintf(stderr, "quadrant export: %v\n", err)
		return exitInvalid
	}
	dt, err := executor.DSNTarget(spec.Target{Name: "export", DSN: resolved}, nil)
	if err != nil {
		fmt.Fprintf(stderr, "quadrant export: --dsn %s: %v\n", spec.RedactDSN(*dsn), err)
		return exitInvalid
	}
	defer dt.Release()
	cfg := dt.Config()
	if cfg.DBName == "" {
		fmt.Fprintf(stderr, "quadrant export: --dsn %s names no database; add one after the slash, e.g. ...@tcp(127.0.0.1:3306)/quadrant\n", spec.RedactDSN(*dsn))
		return exitInvalid
	}
	cfg.ParseTime = true
	conn, err := target.NewConnector(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "quadrant export: %v\n", err)
		return exitInvalid
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	code = exitOK
	for _, dir := range dirs {
		run, err := results.Load(dir)
		if err != nil {
			fmt.Fprintf(stderr, "quadrant export: %v\n", err)
			code = exitInvalid
			continue
		}
		n, err := sqlexport.Export(ctx, db, run)
		if err != nil {
			fmt.Fprintf(stderr, "quadrant export: %s into %s: %v\n", dir, spec.RedactDSN(*dsn), err)
			code = exitFailed
			continue
		}
		fmt.Fprintf(stdout, "%s: run %s: %s\n", dir, sqlexport.RunID(run.Info), n)
	}
	return code
}
