package executor

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"sync"

	"github.com/quadrant-bench/quadrant/executor/target"
	"github.com/quadrant-bench/quadrant/spec/mycnf"
)

// identifier is what a SET GLOBAL name may be; spec validates plans, this guards the
// statement text itself since names cannot be bound as parameters.
var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$`)

// globals sets server variables and remembers each one's value from before the run's
// first change, so that the run leaves every server as it found it.
type globals struct {
	mu       sync.Mutex
	original map[*liveTarget]map[string]sql.NullString
	order    map[*liveTarget][]string
}

func newGlobals() *globals {
	return &globals{original: map[*liveTarget]map[string]sql.NullString{}, order: map[*liveTarget][]string{}}
}

// set runs SET GLOBAL name = ? with the value bound, after reading the current value, which
// is kept only once the server took the change: a SET GLOBAL refused (1227, no SUPER) changed
// nothing, and the end of the run has nothing of it to restore.
func (g *globals) set(ctx context.Context, s *liveTarget, name string, value any) error {
	if !identifier.MatchString(name) {
		return fmt.Errorf("set global %q: not a variable name", name)
	}
	// A sandbox keeps its files in its own directory whichever way a plan asks: SET GLOBAL
	// general_log_file = '/anywhere' is the my.cnf option by another road.
	if s.sb != nil {
		if why := (mycnf.Guard{}).Refuse(name, fmt.Sprint(value), false); why != "" {
			return fmt.Errorf("set global %s on sandbox %s: %s", name, s.Name(), why)
		}
	}
	g.mu.Lock()
	_, saved := g.original[s][name]
	g.mu.Unlock()
	var cur sql.NullString
	if !saved {
		if err := s.db.QueryRowContext(ctx, "SELECT @@GLOBAL."+name).Scan(&cur); err != nil {
			return fmt.Errorf("read @@GLOBAL.%s on %s: %w", name, s.Name(), err)
		}
	}
	if b, ok := value.(bool); ok {
		value = map[bool]string{true: "ON", false: "OFF"}[b]
	}
	if _, err := s.db.ExecContext(ctx, "SET GLOBAL "+name+" = ?", value); err != nil {
		return fmt.Errorf("SET GLOBAL %s = %v on %s: %w", name, value, s.Name(), err)
	}
	if !saved {
		g.mu.Lock()
		if g.original[s] == nil {
			g.original[s] = map[string]sql.NullString{}
		}
		if _, ok := g.original[s][name]; !ok {
			g.original[s][name] = cur
			g.order[s] = append(g.order[s], name)
		}
		g.mu.Unlock()
	}
	return nil
}

// keep reads the values of names on s that the run has not changed yet, before a statement
// of the plan's own SQL sets them (SET GLOBAL in a sql: step, a sql_file); the returned func
// keeps them for restore once the statement succeeded, as set keeps its own. A name the
// server cannot read is left to the statement, which fails on it the same way.
func (g *globals) keep(ctx context.Context, s *liveTarget, names []string) func() {
	cur := map[string]sql.NullString{}
	var order []string
	for _, name := range names {
		g.mu.Lock()
		_, saved := g.original[s][name]
		g.mu.Unlock()
		if saved || !identifier.MatchString(name) || slices.Contains(order, name) {
			continue
		}
		var v sql.NullString
		if err := s.db.QueryRowContext(ctx, "SELECT @@GLOBAL."+name).Scan(&v); err != nil {
			continue
		}
		cur[name] = v
		order = append(order, name)
	}
	return func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		for _, name := range order {
			if g.original[s] == nil {
				g.original[s] = map[string]sql.NullString{}
			}
			if _, ok := g.original[s][name]; !ok {
				g.original[s][name] = cur[name]
				g.order[s] = append(g.order[s], name)
			}
		}
	}
}

// restore puts back every value changed by set, last changed first. It goes on after an
// error so that one failure does not leave the other variables changed.
func (g *globals) restore(ctx context.Context, logf func(string, ...any)) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	var first error
	for s, names := range g.order {
		for i := len(names) - 1; i >= 0; i-- {
			name := names[i]
			v := g.original[s][name]
			var val any
			if v.Valid {
				val = bindable(v.String)
			}
			if _, err := s.db.ExecContext(ctx, "SET GLOBAL "+name+" = ?", val); err != nil {
				err = fmt.Errorf("restore @@GLOBAL.%s = %q on %s: %w", name, v.String, s.Name(), err)
				logf("warning: %v", err)
				if first == nil {
					first = err
				}
				continue
			}
			logf("restored %s.%s = %q", s.Name(), name, v.String)
		}
		delete(g.order, s)
		delete(g.original, s)
	}
	return first
}

// bindable is a saved value as SET GLOBAL wants it back: numeric variables reject a
// quoted number (error 1232), so numbers go back as numbers.
func bindable(v string) any {
	if i, err := strconv.ParseInt(v, 10, 64); err == nil {
		return i
	}
	if u, err := strconv.ParseUint(v, 10, 64); err == nil {
		return u
	}
	if target.IsNumber(v) {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return f
		}
	}
	return v
}
