package executor

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/go-sql-driver/mysql"
)

// errUnknownDatabase is the server's "Unknown database" (1049): the DSN names a database
// that is not there.
const errUnknownDatabase = 1049

// createdDB is a database the run made on a dsn target because the DSN named it and the
// server had none (a published plan rerun on the user's own server): the run drops it at
// its end, leaving the server as it found it, and a second run starts from the same place.
type createdDB struct {
	target, name string
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
	conn, err := mysql.NewConnector(cfg)
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
		s := f.servers[c.target]
		if s == nil {
			continue
		}
		if f.keep {
			f.log.logf("target %s: database %s, created for the run, is kept (--keep): DROP DATABASE %s when done", c.target, c.name, quoteName(c.name))
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

// quoteName quotes an identifier for a statement.
func quoteName(name string) string {
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}
