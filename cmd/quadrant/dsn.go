package main

import (
	"database/sql"
	"fmt"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor"
	"github.com/quadrant-bench/quadrant/executor/target"
	"github.com/quadrant-bench/quadrant/spec"
)

// openDSN opens the server of a --target NAME=DSN given outside a plan (capture, generate,
// verify, export's --dsn): through executor.DSNTarget as a plan's dsn target without tls:
// (the DSN's TLS parameters decide, and the server's RSA key is not fetched over
// plaintext), errors naming the target. Nothing connects until the pool is used.
func openDSN(name, raw string) (*sql.DB, target.DSN, error) {
	dt, err := executor.DSNTarget(spec.Target{Name: name, DSN: raw}, nil)
	if err != nil {
		return nil, target.DSN{}, fmt.Errorf("--target %s: %w", name, err)
	}
	return openConfig(name, dt.Config(), dt.DSN())
}

func openConfig(name string, cfg *mysql.Config, dsn target.DSN) (*sql.DB, target.DSN, error) {
	conn, err := target.NewConnector(cfg)
	if err != nil {
		return nil, dsn, fmt.Errorf("--target %s: %w", name, err)
	}
	return sql.OpenDB(conn), dsn, nil
}
