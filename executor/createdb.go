package executor

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/internal/authretry"
	"github.com/quadrant-bench/quadrant/spec"
)

// errUnknownDatabase is the server's "Unknown database" (1049): the DSN names a database
// that is not there.
const errUnknownDatabase = 1049

// createdDB is a database the run made on a dsn target because the DSN named it and the
// server had none (a published plan rerun on the user's own server): the run drops it at
// its end, leaving the server as it found it, and a second run starts from the same place.
type createdDB struct {
	target, name string
	// tables, when set, are tables the run's prepare makes in an existing database name (a
	// results folder's plan: a rerun leaves the user's server as it found it), dropped in
	// place of the database.
	tables []string
}

// unknownDatabase says err is the server's 1049.
func unknownDatabase(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == errUnknownDatabase
}

// createDatabase makes the database s's DSN names, through a connection that names none,
// and records it for dropCreated. CREATE DATABASE without IF NOT EXISTS: a database someone
// made in between is theirs, and the run stops rather than take it.
func (f *fleet) createDatabase(ctx context.Context, s *liveTarget) error {
	cfg := s.Config().Clone()
	name := cfg.DBName
	cfg.DBName = ""
	conn, err := authretry.NewConnector(cfg)
	if err != nil {
		return err
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+quoteName(name)); err != nil {
		return fmt.Errorf("target %s: the DSN names database %s, which does not exist, and creating it failed: %w (create it yourself, or name one the account may create)", s.Name(), name, err)
	}
	f.created = append(f.created, createdDB{target: s.Name(), name: name})
	f.log.logf("target %s: database %s did not exist: created for the run, dropped when it ends", s.Name(), name)
	return nil
}

// dropCreated drops the databases createDatabase made, once the run is over (teardown
// done): what a plan loaded into them goes with them. --keep keeps them, as it keeps
// sandboxes.
func (f *fleet) dropCreated(ctx context.Context) {
	for _, c := range f.created {
		s := f.targets[c.target]
		if s == nil {
			continue
		}
		if f.keep {
			f.log.logf("target %s: what the run created in %s is kept (--keep): %s", c.target, c.name, c.what())
			continue
		}
		if len(c.tables) > 0 {
			f.dropTables(ctx, s, c)
			continue
		}
		if _, err := s.db.ExecContext(ctx, "DROP DATABASE "+quoteName(c.name)); err != nil {
			f.log.logf("warning: target %s: drop database %s, created for the run: %v (drop it yourself)", c.target, c.name, err)
			continue
		}
		f.log.logFile("target %s: database %s, created for the run, dropped", c.target, c.name)
	}
	f.created = nil
}

// willCreate records, for a results folder's run, what its prepare will make on s in
// schema, to drop at the end: the database when the server has none (the prepare creates
// it), else the tables, none of which is there (the pre-flight checked).
func (f *fleet) willCreate(ctx context.Context, s *liveTarget, schema string, tables []string) {
	if slices.ContainsFunc(f.created, func(c createdDB) bool { return c.target == s.Name() && c.name == schema }) {
		return
	}
	var n int
	if err := s.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = ?", schema).Scan(&n); err != nil {
		f.log.logf("warning: target %s: whether database %s exists: %v (what the prepare makes there stays after the run)", s.Name(), schema, err)
		return
	}
	c := createdDB{target: s.Name(), name: schema, tables: tables}
	if n == 0 {
		c.tables = nil
		f.log.logf("target %s: database %s, which the prepare creates, is dropped when the run ends", s.Name(), schema)
	}
	f.created = append(f.created, c)
}

// what is what c made, as a user reads it.
func (c createdDB) what() string {
	if len(c.tables) > 0 {
		return "tables " + strings.Join(c.tables, ", ")
	}
	return "database " + c.name
}

// dropTables drops the tables a folder's prepare made in database c.name, which held none
// of them before the run (the pre-flight checked).
func (f *fleet) dropTables(ctx context.Context, s *liveTarget, c createdDB) {
	names := make([]string, len(c.tables))
	for i, t := range c.tables {
		names[i] = quoteName(c.name) + "." + quoteName(t)
	}
	if _, err := s.db.ExecContext(ctx, "DROP TABLE IF EXISTS "+strings.Join(names, ", ")); err != nil {
		f.log.logf("warning: target %s: drop the tables the run's prepare created in %s: %v (drop %s yourself)", c.target, c.name, err, strings.Join(c.tables, ", "))
		return
	}
	f.log.logFile("target %s: the tables the run's prepare created in %s dropped: %s", c.target, c.name, strings.Join(c.tables, ", "))
}

// quoteName quotes an identifier for a statement.
func quoteName(name string) string {
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

// existingTables refuses, before setup, a prepare on a dsn target whose tables exist
// already in its database: it would stop on the first (1050, "table exists") after setup
// began, or load into what another run, or the user, left there. A database the run created
// is empty and not asked. One line per prepare, for the pre-flight's one message.
func (r *runner) existingTables(ctx context.Context) []string {
	if r.opts.Shard.Sharded() || r.opts.RunID != "" {
		return nil // a shard's prepare may find the tables another shard made already
	}
	created := map[string]bool{}
	for _, c := range r.fleet.created {
		if len(c.tables) == 0 {
			created[c.target] = true
		}
	}
	steps := map[*spec.Step]spec.PlacedWorkload{}
	for pw := range r.plan.Workloads() {
		if pw.Step != nil {
			steps[pw.Step] = pw
		}
	}
	var lines []string
	// Only the prepares setup starts with: a step before one (a cleanup, a DROP TABLE)
	// may clear the way, which the check cannot tell.
	for i := range r.plan.Setup {
		pw, ok := steps[&r.plan.Setup[i]]
		if !ok {
			break
		}
		k := pw.Workload.Kind
		s := r.targets[pw.Target]
		if k == nil || k.Creates == nil {
			break
		}
		tables, schema := k.Creates(pw.Workload)
		if len(tables) == 0 {
			break // not a prepare
		}
		if s == nil || s.sb != nil || created[pw.Target] {
			continue
		}
		if db := s.Config().DBName; db != "" {
			schema = db
		}
		there, err := tablesIn(ctx, s.db, schema, tables)
		if err != nil {
			r.logf("warning: pre-flight: target %s: tables of %s not checked: %v", pw.Target, schema, err)
			continue
		}
		if len(there) == 0 {
			if r.opts.Allow.Folder {
				r.fleet.willCreate(ctx, s, schema, tables)
			}
			continue
		}
		at := pw.Workload.Src.Pos
		lines = append(lines, fmt.Sprintf("%s: the prepare would create %s in database %s on target %s, where %s exist already: drop them (DROP TABLE %s, or a cleanup action of the same workload), or point --target %s at a database the server does not have (the run creates it and drops it at its end)",
			at, strings.Join(tables, ", "), schema, pw.Target, strings.Join(there, ", "), strings.Join(there, ", "), pw.Target))
	}
	return lines
}

// tablesIn are those of tables that exist in schema.
func tablesIn(ctx context.Context, db *sql.DB, schema string, tables []string) ([]string, error) {
	rows, err := db.QueryContext(ctx, "SELECT table_name FROM information_schema.tables WHERE table_schema = ?", schema)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	have := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		have[strings.ToLower(n)] = true
	}
	var out []string
	for _, t := range tables {
		if have[strings.ToLower(t)] {
			out = append(out, t)
		}
	}
	return out, rows.Err()
}
