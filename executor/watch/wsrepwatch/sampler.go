package wsrepwatch

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/internal/authretry"
	"github.com/quadrant-bench/quadrant/executor/watch"
)

// Sampler reads SHOW GLOBAL STATUS LIKE 'wsrep%' of one node once per tick, on a connection
// of its own: counters become per-second rates over the real time between two reads
// (watch.Rate: a counter that went down, a restarted node, gives no rate that interval),
// gauges are read as they are. Its columns are fixed: a variable the server lacks (an older
// provider) leaves its column empty.
type Sampler struct {
	dsn    string
	db     *sql.DB
	addr   string // host:port only: a DSN carries the password
	rates  []watch.Rate
	last   []float64 // gauges' last values since Baseline, for Summary
	rebase bool      // the summary restarts at the next reading that answers
	outage watch.Outage
}

// dialTimeout bounds a connect when the node is gone; the tick's deadline bounds the rest.
const dialTimeout = 2 * time.Second

// New is the sampler of the node dsn names; nothing is opened until Start.
func New(dsn string) *Sampler {
	return &Sampler{dsn: dsn, rates: make([]watch.Rate, len(fields)), last: watch.Empty(len(fields))}
}

// Start implements watch.Sampler: it opens the connection and reads once. A node that does
// not answer is watch.ErrUnavailable: its columns stay empty until it answers.
func (s *Sampler) Start(ctx context.Context) error {
	cfg, err := mysql.ParseDSN(s.dsn)
	if err != nil {
		return fmt.Errorf("wsrep watch: invalid DSN: %w", err)
	}
	if cfg.Timeout == 0 || cfg.Timeout > dialTimeout {
		cfg.Timeout = dialTimeout
	}
	connector, err := authretry.NewConnector(cfg)
	if err != nil {
		return fmt.Errorf("wsrep watch %s: %w", cfg.Addr, err)
	}
	s.addr = cfg.Addr
	s.db = sql.OpenDB(connector)
	s.db.SetMaxOpenConns(1)
	s.db.SetMaxIdleConns(1)
	status, at, err := s.read(ctx)
	if err != nil {
		var me *mysql.MySQLError
		if errors.As(err, &me) {
			return fmt.Errorf("wsrep watch %s: SHOW GLOBAL STATUS: %w", s.addr, err)
		}
		return watch.Unavailable("wsrep watch "+s.addr, err)
	}
	s.observe(status, at)
	return nil
}

// read is the node's wsrep status, names in lower case, and the moment the server most
// likely read it (midway through the round trip).
func (s *Sampler) read(ctx context.Context) (map[string]string, time.Time, error) {
	t0 := time.Now()
	rows, err := s.db.QueryContext(ctx, "SHOW GLOBAL STATUS LIKE 'wsrep%'")
	if err != nil {
		return nil, time.Time{}, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var n string
		var v sql.NullString
		if err := rows.Scan(&n, &v); err != nil {
			return nil, time.Time{}, err
		}
		out[strings.ToLower(n)] = v.String
	}
	if err := rows.Err(); err != nil {
		return nil, time.Time{}, err
	}
	return out, t0.Add(time.Since(t0) / 2), nil
}

// Columns implements watch.Sampler.
func (s *Sampler) Columns() []watch.Column { return columns }

// Baseline implements watch.Sampler: a reading, the start of the next rates and of Summary.
func (s *Sampler) Baseline(ctx context.Context) error {
	s.last = watch.Empty(len(fields))
	_, err := s.Sample(ctx, time.Time{})
	s.Rebase()
	return err
}

// Rebase implements watch.Sampler; during an outage the summary restarts at the next answer.
func (s *Sampler) Rebase() {
	s.rebase = true
	s.finishRebase()
}

func (s *Sampler) finishRebase() {
	if !s.rebase || s.outage.Down() {
		return
	}
	for i := range s.rates {
		s.rates[i].Rebase()
	}
	s.rebase = false
}

// Moved implements watch.Mover: the next readings are another node's, the counters start anew.
func (s *Sampler) Moved() {
	for i := range s.rates {
		s.rates[i].Moved()
	}
}

// Sample implements watch.Sampler.
func (s *Sampler) Sample(ctx context.Context, at time.Time) (watch.Sample, error) {
	out := watch.Sample{At: at, Values: watch.Empty(len(fields))}
	if s.db == nil {
		return out, errors.New("wsrep watch: not started")
	}
	status, readAt, err := s.read(ctx)
	if err != nil {
		return out, s.outage.Fail(time.Now(), watch.Unavailable("wsrep watch "+s.addr, err))
	}
	s.outage.OK(time.Now())
	out.Values = s.observe(status, readAt)
	s.finishRebase()
	return out, nil
}

// observe turns one reading into the columns' values.
func (s *Sampler) observe(status map[string]string, at time.Time) []float64 {
	vals := watch.Empty(len(fields))
	for i, f := range fields {
		v, ok := f.value(status)
		if !ok {
			continue
		}
		if f.kind == watch.Counter {
			vals[i] = s.rates[i].Observe(v, at)
			continue
		}
		vals[i], s.last[i] = v, v
	}
	return vals
}

// Summary implements watch.Sampler: counters' increases since Baseline (or Rebase), gauges'
// last values.
func (s *Sampler) Summary() map[string]float64 {
	m := make(map[string]float64, len(fields))
	for i, c := range columns {
		switch {
		case c.Kind == watch.Counter && s.rates[i].Valid():
			m[c.Name] = s.rates[i].Increase()
		case c.Kind == watch.Gauge && !math.IsNaN(s.last[i]):
			m[c.Name] = s.last[i]
		}
	}
	return m
}

// Close implements watch.Sampler.
func (s *Sampler) Close() error {
	if s.db == nil {
		return nil
	}
	return s.db.Close()
}

// Down implements watch.Health: the node has not answered since the outage's warning.
func (s *Sampler) Down() bool { return s.outage.Down() }

var (
	_ watch.Sampler = (*Sampler)(nil)
	_ watch.Mover   = (*Sampler)(nil)
	_ watch.Health  = (*Sampler)(nil)
)
