// Package example is a whole sampler in one file, kept as test data: on every target it
// reads the server's uptime (SHOW GLOBAL STATUS LIKE 'Uptime') on a connection of its own,
// a gauge in the column example.uptime_s. Registered only by a test (kinds.SamplersWith), it
// shows that a sampler is one package: what it needs and produces is its declaration, and
// the collection opens, baselines, reads and closes it as any other.
package example

import (
	"context"
	"database/sql"
	"math"
	"strconv"
	"time"

	"github.com/quadrant-bench/quadrant/executor/watch"
	"github.com/quadrant-bench/quadrant/spec"
)

// Column is the one column the example sampler gives.
const Column = "example.uptime_s"

// Kind is the example sampler: one per target, always on once registered.
var Kind = watch.SamplerKind{
	Name: "example", Produces: "example.",
	Doc: "the server's uptime in seconds, on every target (an example: registered by a test only)",
	Open: func(_ *spec.Watch, t *watch.Target, _ watch.Env) (*watch.Opened, error) {
		return &watch.Opened{Sampler: &uptime{dsn: t.Config.FormatDSN()}, Follows: true, Conns: 1}, nil
	},
}

// uptime is the example sampler: a gauge, so its summary is its last value.
type uptime struct {
	dsn  string
	db   *sql.DB
	last float64
}

func (u *uptime) Start(ctx context.Context) error {
	db, err := sql.Open("mysql", u.dsn)
	if err != nil {
		return err
	}
	db.SetMaxOpenConns(1)
	u.db, u.last = db, math.NaN()
	if err := db.PingContext(ctx); err != nil {
		return watch.Unavailable("example", err)
	}
	return nil
}

func (u *uptime) Columns() []watch.Column {
	return []watch.Column{{Name: Column, Kind: watch.Gauge, Source: "example"}}
}

func (u *uptime) Baseline(context.Context) error { return nil }

func (u *uptime) Sample(ctx context.Context, at time.Time) (watch.Sample, error) {
	var name, value string
	if err := u.db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Uptime'").Scan(&name, &value); err != nil {
		return watch.Sample{At: at, Values: watch.Empty(1)}, watch.Unavailable("example", err)
	}
	v, err := strconv.ParseFloat(value, 64)
	if err != nil {
		return watch.Sample{At: at, Values: watch.Empty(1)}, err
	}
	u.last = v
	return watch.Sample{At: at, Values: []float64{v}}, nil
}

func (u *uptime) Rebase() {}

func (u *uptime) Summary() map[string]float64 {
	return watch.LastValues(u.Columns(), []float64{u.last})
}

func (u *uptime) Close() error { return u.db.Close() }
