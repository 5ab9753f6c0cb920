package mysqlwatch

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/executor/watch"
	"github.com/quadrant-bench/quadrant/spec"
)

// StatusConfig is what the status sampler watches on one target.
type StatusConfig struct {
	DSN string
	// Status lists variable names or globs (case-insensitive). Empty: watch.DefaultStatus.
	Status []string
	// Counters and Gauges override the built-in counter/gauge rule (globs; Gauges wins when both match).
	Counters []string
	Gauges   []string
}

// Status samples SHOW GLOBAL STATUS once per tick: counters become per-second rates over the real time
// between two reads, gauges are read as they are.
type Status struct {
	cfg  StatusConfig
	pats watch.Globs // lower-cased
	orig []string    // as written, for messages
	cls  watch.Classifier
	conn *conn

	cols   []watch.Column
	names  []string // lower-case server names, aligned with cols
	rates  []watch.Rate
	gauges []float64 // last gauge value since Baseline, for Summary
	rebase bool      // Baseline failed: rebase at the next successful read
	outage watch.Outage
	// unmatched are the plan's globs that matched no variable at Start, as written.
	unmatched []string
}

// NewStatus validates the configuration; nothing is opened until Start.
func NewStatus(cfg StatusConfig) (*Status, error) {
	pats := cfg.Status
	if len(pats) == 0 {
		pats = watch.DefaultStatus
	}
	s := &Status{cfg: cfg, orig: pats}
	var err error
	if s.pats, err = watch.ParseGlobs("watch.status", pats); err != nil {
		return nil, err
	}
	if s.cls.Counters, err = watch.ParseGlobs("watch.counters", cfg.Counters); err != nil {
		return nil, err
	}
	if s.cls.Gauges, err = watch.ParseGlobs("watch.gauges", cfg.Gauges); err != nil {
		return nil, err
	}
	return s, nil
}

// Start connects and fixes the columns: every variable matched by a pattern whose value is numeric (or
// ON/OFF) now. A literal name the server lacks is an error when the plan listed it (a typo must not pass
// silently) and skipped in the default set (MySQL and MariaDB differ).
func (s *Status) Start(ctx context.Context) error {
	c, err := openConn(ctx, "status watch", s.cfg.DSN)
	if err != nil {
		c.close() // unavailable: the columns come from a first reading, so no later tick can give any
		return err
	}
	s.conn = c
	var names, values []string
	var at time.Time
	err = retry(ctx, func() (err error) {
		names, values, at, err = readPairs(ctx, c.db, "SHOW GLOBAL STATUS")
		return err
	})
	if err != nil {
		return fmt.Errorf("status watch %s: SHOW GLOBAL STATUS: %w", c.addr, err)
	}
	explicit := len(s.cfg.Status) > 0
	seen := map[string]bool{}
	var missing []string
	for pi, p := range s.pats {
		found := false
		for i, n := range names {
			ln := strings.ToLower(n)
			if !(watch.Globs{p}).Match(ln) {
				continue
			}
			found = true
			if seen[ln] {
				continue
			}
			// A glob takes only what is a number now; a literal name is kept even if its value is not yet
			// numeric (e.g. NULL until first use): the plan asked for it by name.
			if _, ok := watch.ParseValue(values[i]); !ok && !watch.IsLiteral(p) {
				continue
			}
			seen[ln] = true
			s.names = append(s.names, ln)
			s.cols = append(s.cols, watch.Column{Name: "status." + n, Kind: s.cls.Kind(n), Source: "SHOW GLOBAL STATUS"})
		}
		if !found && explicit && !watch.IsLiteral(p) {
			s.unmatched = append(s.unmatched, s.orig[pi])
		}
	}
	if explicit {
		missing = UnknownStatus(s.orig, names)
	}
	if len(missing) > 0 {
		// every unknown name at once: fixing them one run at a time wastes a sandbox start each
		return fmt.Errorf("status watch %s: watch.status names what this server does not have: %s (see SHOW GLOBAL STATUS; names are case-insensitive, globs like Handler_read_* are allowed)%w",
			c.addr, strings.Join(missing, ", "), noText{watch.ErrUnknownName})
	}
	s.rates = make([]watch.Rate, len(s.cols))
	s.gauges = watch.Empty(len(s.cols))
	s.observe(pairsMap(names, values), at)
	return nil
}

// UnknownStatus lists, each quoted with the server's closest name, the literal names of
// status (watch.status as written) that are none of names (SHOW GLOBAL STATUS's): what a
// run refuses before setup, and explain with --target says beforehand.
func UnknownStatus(status, names []string) []string {
	var out []string
	for _, p := range status {
		p = strings.TrimSpace(p)
		if !watch.IsLiteral(p) {
			continue
		}
		found := false
		for _, n := range names {
			if strings.EqualFold(n, p) {
				found = true
				break
			}
		}
		if found {
			continue
		}
		m := strconv.Quote(p)
		if sg := spec.Suggest(p, names); sg != "" {
			m += " (" + strings.TrimPrefix(sg, "; ") + ")"
		} else if c := spec.Closest(p, names); c != "" {
			m += fmt.Sprintf(" (not close to any name of this server's; the closest is %q)", c)
		}
		out = append(out, m)
	}
	return out
}

// Unmatched are the globs of watch.status that matched no status variable of the server
// at Start: not an error (a glob may be meant for another server), but the plan gets no
// column from them, which it must be told.
func (s *Status) Unmatched() []string { return s.unmatched }

// Columns implements watch.Sampler.
func (s *Status) Columns() []watch.Column { return s.cols }

// Baseline implements watch.Sampler.
func (s *Status) Baseline(ctx context.Context) error {
	_, err := s.Sample(ctx, time.Time{})
	s.rebase = true
	s.finishRebase()
	return err
}

// Rebase implements watch.Sampler. During an outage it waits for the next answer, as Baseline does.
func (s *Status) Rebase() {
	s.rebase = true
	s.finishRebase()
}

// Moved implements watch.Mover: the counters' next readings, another server's, start anew.
func (s *Status) Moved() {
	for i := range s.rates {
		s.rates[i].Moved()
	}
}

// Sample implements watch.Sampler.
func (s *Status) Sample(ctx context.Context, at time.Time) (watch.Sample, error) {
	if s.conn == nil {
		return watch.Sample{At: at, Values: watch.Empty(len(s.cols))}, errNotStarted
	}
	out := watch.Sample{At: at}
	names, values, readAt, err := readPairs(ctx, s.conn.db, "SHOW GLOBAL STATUS")
	if err != nil {
		out.Values = watch.Empty(len(s.cols))
		return out, s.outage.Fail(time.Now(), watch.Unavailable("status watch "+s.conn.addr, err))
	}
	s.outage.OK(time.Now())
	out.Values = s.observe(pairsMap(names, values), readAt)
	s.finishRebase()
	return out, nil
}

func (s *Status) finishRebase() {
	if !s.rebase || s.outage.Down() {
		return
	}
	for i := range s.rates {
		s.rates[i].Rebase()
	}
	s.rebase = false
}

func (s *Status) observe(m map[string]string, at time.Time) []float64 {
	vals := watch.Empty(len(s.cols))
	for i, n := range s.names {
		raw, ok := m[n]
		if !ok {
			continue
		}
		v, ok := watch.ParseValue(raw)
		if !ok {
			continue
		}
		if s.cols[i].Kind == watch.Counter {
			vals[i] = s.rates[i].Observe(v, at)
		} else {
			vals[i] = v
			s.gauges[i] = v
		}
	}
	return vals
}

// Summary implements watch.Sampler.
func (s *Status) Summary() map[string]float64 {
	m := make(map[string]float64, len(s.cols))
	for i, c := range s.cols {
		switch {
		case c.Kind == watch.Counter && s.rates[i].Valid():
			m[c.Name] = s.rates[i].Increase()
		case c.Kind == watch.Gauge && !math.IsNaN(s.gauges[i]):
			m[c.Name] = s.gauges[i]
		}
	}
	return m
}

// Close implements watch.Sampler.
func (s *Status) Close() error { return s.conn.close() }

func pairsMap(names, values []string) map[string]string {
	m := make(map[string]string, len(names))
	for i, n := range names {
		m[strings.ToLower(n)] = values[i]
	}
	return m
}

// noText wraps an error for errors.Is without adding to the message.
type noText struct{ err error }

func (e noText) Error() string { return "" }
func (e noText) Unwrap() error { return e.err }

// Down implements watch.Health: the source has not answered since the outage's warning.
func (s *Status) Down() bool { return s.outage.Down() }
