package main

import (
	"database/sql"
	"fmt"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/target"
)

// openDSN opens the server of a --target NAME=DSN given outside a plan (capture, generate,
// verify): its DSN read as a plan's dsn target's is (TLS settings included), errors naming
// the target. Nothing connects until the pool is used.
func openDSN(name, raw string) (*sql.DB, target.DSN, error) {
	dsn, err := target.ParseDSN(raw)
	if err != nil {
		return nil, dsn, fmt.Errorf("--target %s: %w", name, err)
	}
	conn, err := mysql.NewConnector(dsn.Config())
	if err != nil {
		return nil, dsn, fmt.Errorf("--target %s: %w", name, err)
	}
	return sql.OpenDB(conn), dsn, nil
}
