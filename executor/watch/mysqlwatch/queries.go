package mysqlwatch

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/executor/watch"
)

// Query is one custom metric: a statement whose first row's numeric columns become series.
type Query struct {
	Name string
	SQL  string
}

// QueriesConfig is what the query sampler runs on one target, in order, on one connection.
type QueriesConfig struct {
	DSN     string
	Queries []Query
}

// Queries samples custom SQL metrics. Only the first row counts (aggregate in SQL for more: SUM, MAX, COUNT);
// further rows are ignored, no rows means empty cells. Columns are fixed at Start: those numeric in the first
// row then (or, when the result is empty or NULL, of a numeric SQL type). One numeric column is named
// query.NAME, several are query.NAME.COLUMN. All are gauges.
type Queries struct {
	cfg    QueriesConfig
	conn   *conn
	cols   []watch.Column
	picks  [][]int // per query: result column indexes feeding cols, in order
	last   []float64
	outage watch.Outage
}

// NewQueries validates the configuration; nothing is opened until Start.
func NewQueries(cfg QueriesConfig) (*Queries, error) {
	seen := map[string]bool{}
	for i, q := range cfg.Queries {
		if strings.TrimSpace(q.Name) == "" || strings.TrimSpace(q.SQL) == "" {
			return nil, fmt.Errorf("watch.queries[%d]: both name and sql are required", i)
		}
		if seen[q.Name] {
			return nil, fmt.Errorf("watch.queries[%d]: name %q is used twice", i, q.Name)
		}
		seen[q.Name] = true
	}
	return &Queries{cfg: cfg}, nil
}

// Start connects and runs every query once to find its numeric columns; a query that fails or has none is
// an error naming it.
func (s *Queries) Start(ctx context.Context) error {
	c, err := openConn(ctx, "query watch", s.cfg.DSN)
	if err != nil {
		c.close() // unavailable: the columns come from a first reading, so no later tick can give any
		return err
	}
	s.conn = c
	for _, q := range s.cfg.Queries {
		var names, types []string
		var row map[int]string
		err := retry(ctx, func() (err error) {
			names, row, types, err = firstRow(ctx, c.db, q.SQL)
			return err
		})
		if err != nil {
			s.cols, s.picks = nil, nil // no columns: the executor leaves an unavailable sampler out
			return fmt.Errorf("query watch %s: query %s: %w", c.addr, q.Name, err)
		}
		var pick []int
		for i := range names {
			if v, ok := row[i]; ok {
				if _, num := watch.ParseValue(v); num {
					pick = append(pick, i)
				}
				continue
			}
			if numericType(types[i]) {
				pick = append(pick, i)
			}
		}
		if len(pick) == 0 {
			return fmt.Errorf("query watch %s: query %s: no numeric column in its first row (columns: %s); select numbers, e.g. SELECT COUNT(*) AS n", c.addr, q.Name, strings.Join(names, ", "))
		}
		for _, i := range pick {
			name := "query." + q.Name
			if len(pick) > 1 {
				name += "." + names[i]
			}
			s.cols = append(s.cols, watch.Column{Name: name, Kind: watch.Gauge, Source: "watch.queries"})
		}
		s.picks = append(s.picks, pick)
	}
	s.last = watch.Empty(len(s.cols))
	return nil
}

// Columns implements watch.Sampler.
func (s *Queries) Columns() []watch.Column { return s.cols }

// Baseline implements watch.Sampler: gauges need no starting point; the summary restarts.
func (s *Queries) Baseline(ctx context.Context) error {
	s.last = watch.Empty(len(s.cols))
	return nil
}

// Sample implements watch.Sampler. A tick on which any query fails is a failing tick: one warning per outage,
// listing every failure of its first tick.
func (s *Queries) Sample(ctx context.Context, at time.Time) (watch.Sample, error) {
	if s.conn == nil {
		return watch.Sample{At: at, Values: watch.Empty(len(s.cols))}, errNotStarted
	}
	vals := watch.Empty(len(s.cols))
	var errs []error
	k := 0
	for qi, q := range s.cfg.Queries {
		pick := s.picks[qi]
		_, row, _, err := firstRow(ctx, s.conn.db, q.SQL)
		if err != nil {
			errs = append(errs, fmt.Errorf("query %s: %w", q.Name, err))
		} else {
			for j, ci := range pick {
				if v, ok := watch.ParseValue(row[ci]); ok {
					vals[k+j] = v
					s.last[k+j] = v
				}
			}
		}
		k += len(pick)
	}
	out := watch.Sample{At: at, Values: vals}
	if len(errs) > 0 {
		return out, s.outage.Fail(time.Now(), watch.Unavailable("query watch "+s.conn.addr, errors.Join(errs...)))
	}
	s.outage.OK(time.Now())
	return out, nil
}

// Rebase implements watch.Sampler: every column is a gauge, summarised by its last value.
func (s *Queries) Rebase() {}

// Summary implements watch.Sampler: the last value of each column.
func (s *Queries) Summary() map[string]float64 {
	return watch.LastValues(s.cols, s.last)
}

// Close implements watch.Sampler.
func (s *Queries) Close() error { return s.conn.close() }

// firstRow runs stmt and returns its column names, the first row's non-NULL values by column index (empty
// map for no rows) and the column SQL types.
func firstRow(ctx context.Context, db *sql.DB, stmt string) (names []string, row map[int]string, types []string, err error) {
	rows, err := db.QueryContext(ctx, stmt)
	if err != nil {
		return nil, nil, nil, err
	}
	defer rows.Close()
	if names, err = rows.Columns(); err != nil {
		return nil, nil, nil, err
	}
	cts, err := rows.ColumnTypes()
	if err != nil {
		return nil, nil, nil, err
	}
	for _, ct := range cts {
		types = append(types, ct.DatabaseTypeName())
	}
	row = map[int]string{}
	if rows.Next() {
		vals := make([]sql.NullString, len(names))
		ptrs := make([]any, len(names))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, nil, nil, err
		}
		for i, v := range vals {
			if v.Valid {
				row[i] = v.String
			}
		}
	}
	// Further rows are ignored by design; Close drains them.
	return names, row, types, rows.Err()
}

func numericType(t string) bool {
	switch strings.ToUpper(strings.TrimPrefix(strings.ToUpper(t), "UNSIGNED ")) {
	case "TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT", "DECIMAL", "FLOAT", "DOUBLE", "YEAR", "BIT":
		return true
	}
	return false
}

// Down implements watch.Health: the source has not answered since the outage's warning.
func (s *Queries) Down() bool { return s.outage.Down() }
