package replay

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/quadrant-bench/quadrant/executor/traffic"
	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/sqltext"
)

// Replay executes a SQL file in order, or replays captured traffic (a slow log, a general log,
// a quadrant capture file) one connection per captured session.
type Replay struct {
	Src          spec.Source   `yaml:"-"`
	File         string        `yaml:"file,required" doc:"The file, relative to the plan: a SQL file, a slow query log (long_query_time=0; MySQL, MariaDB or Percona Server), a general query log (file format) or a quadrant capture file (.qcap)."`
	Format       string        `yaml:"format" default:"auto" enum:"auto,sql,slowlog,general,qcap" doc:"The file's format; auto detects it from the content."`
	Connections  int           `yaml:"connections" default:"1" min:"1" doc:"SQL file only: connections the statements are spread over (1 keeps the file's order). A log replays one connection per captured session."`
	Timing       string        `yaml:"timing" default:"none" enum:"none,original" doc:"Logs: original starts each statement at its captured offset from the first (divided by speed), counting latency from that intended start; none runs each session as fast as it can. original needs a source with start times (not a SQL file)."`
	Speed        float64       `yaml:"speed" default:"1" doc:"With timing: original, how many times faster than captured the schedule runs (2 = half the wall time)."`
	Order        string        `yaml:"order" default:"none" enum:"none,commit" doc:"Logs: commit keeps the capture's commit order whatever the timing (docs/replay.md, Commit order): a commit (a rollback after writing, an autocommit write) starts only once every one that began before it began in the capture has happened on the target; a write or locking read once every locking statement on its rows (by primary key, where its text gives the key) or else on its tables that ended before it ended has; any other statement that is not a free read, once the commits that began before it ended have. Reads that take no lock are not held back. none: sessions meet only through the server's locks. Not with --shard (a shard would wait on another's commits)."`
	OrderTimeout time.Duration `yaml:"order_timeout" default:"30s" doc:"With order: commit, how long a statement waits for the captured commits before it; past it, the replay logs what it waited for and goes on (order_timeouts in replay.csv)."`
	StartState   string        `yaml:"start_state" default:"stop" enum:"stop,warn,off" doc:"Capture files with table checksums: before sending anything, compare the target's tables with the capture's start (CHECKSUM TABLE); stop names the tables that differ and sends nothing, warn logs them and replays. read_only only warns (a replica holds later data)."`
	ReadOnly     bool          `yaml:"read_only" doc:"Skip every statement that may write (anything but SELECT without FOR UPDATE/INTO, SHOW, DESCRIBE, EXPLAIN, SET, USE, transaction control), to replay safely against a replica."`
	Include      *ReplayFilter `yaml:"include" doc:"Replay only statements matching every list given here."`
	Exclude      *ReplayFilter `yaml:"exclude" doc:"Skip statements matching any list given here."`
	OnMalformed  string        `yaml:"on_malformed" default:"stop" enum:"stop,skip" doc:"A malformed or truncated log record: stop the workload naming file:line, or skip it (each is logged with file:line)."`
	Top          int           `yaml:"top" default:"10" min:"1" doc:"Logs: fingerprints.csv and the report list the N statement fingerprints with the most captured time (count when the source has no durations); the rest are one row, other."`
	Path         string        `yaml:"-"`
}

// ReplayFilter selects replayed statements by what the capture recorded.
type ReplayFilter struct {
	Src          spec.Source `yaml:"-"`
	Schemas      []string    `yaml:"schemas" doc:"Default databases the statements ran in."`
	Users        []string    `yaml:"users" doc:"Users that ran them."`
	Fingerprints []string    `yaml:"fingerprints" doc:"Statement fingerprints: an id from fingerprints.csv (q and 12 hex digits), or a statement whose fingerprint is meant (literals do not matter)."`
}

// PlanDoc is replay:'s section of the plan reference.
func (Replay) PlanDoc() string {
	return "Executes a SQL file in order, timed (e.g. a dump of single-row INSERTs), or replays captured traffic one connection per captured session, in captured order, optionally at the captured timing (see docs/replay.md). Under `--shard K/N` captured sessions are split between the shards, each session whole; a SQL file cannot be sharded (docs/distributed.md)."
}

// PlanDoc is include's and exclude's section of the plan reference.
func (ReplayFilter) PlanDoc() string {
	return "Selects replayed statements; in `include` every list given must match, in `exclude` any."
}

// Workload is a replay built in Go (benchmarks, tests) of the file at path, resolved:
// r's zero settings take the plan's defaults.
func Workload(path string, r Replay) *spec.Workload {
	r.File, r.Path = path, path
	return spec.WithDefaults(&spec.Workload{Kind: &Kind.Spec, Body: spec.WithDefaults(&r)})
}

// Plan returns w's replay: as the plan wrote it.
func Plan(w *spec.Workload) *Replay {
	if r := spec.Body[*Replay](w); r != nil {
		return r
	}
	return &Replay{}
}

// check resolves the file (which a capture: step of the plan may write) and checks the
// settings against each other and against what the file is.
func check(c *spec.Check, w *spec.Workload) {
	r := Plan(w)
	r.Path = c.Input(r.File, r.Src.At("file"), "replay.file")
	if r.Speed <= 0 {
		c.Errorf(r.Src.At("speed"), "speed must be more than 0 (1 = as captured, 2 = twice as fast)")
	}
	if r.Src.Has("speed") && r.Timing != "original" {
		c.Errorf(r.Src.At("speed"), "speed applies to timing: original; add timing: original or remove speed")
	}
	if r.Format == "sql" && r.Timing == "original" {
		c.Errorf(r.Src.At("timing"), "timing: original needs captured start times, which a SQL file has not; use timing: none, or replay a slow log, general log or capture file")
	}
	if r.Src.Has("connections") && r.Format != "sql" && r.Format != "auto" {
		c.Errorf(r.Src.At("connections"), "connections applies to a SQL file; a %s replays one connection per captured session", r.Format)
	}
	if r.Order == "commit" && r.Format == "sql" {
		c.Errorf(r.Src.At("order"), "order: commit keeps the commit order between captured sessions, and a SQL file has none; remove order, or replay a slow log, general log or capture file")
	}
	if r.OrderTimeout <= 0 {
		c.Errorf(r.Src.At("order_timeout"), "order_timeout must be more than 0 (30s: how long a statement waits for the captured commits before it)")
	}
	c.Add(validate(w))
}

// describe says what the run will do with the file: a SQL file spread over connections, or
// captured traffic one connection per session. It reads the file's first bytes to know which
// (a .qcap with timing: none is a session replay, not a SQL file over 1 connection); a file a
// capture: step has not written yet is one it will write, a capture.
func describe(w *spec.Workload) string {
	r := Plan(w)
	format, err := formatOf(r, nil)
	switch {
	case err != nil && r.Path != "" && !errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("replay %s (cannot read it now: %v)", r.File, err)
	case err != nil:
		format = traffic.QCap
	}
	if format == traffic.SQL && !filtered(r) {
		return fmt.Sprintf("replay %s over %d connection(s)", r.File, r.Connections)
	}
	if format == traffic.SQL {
		return fmt.Sprintf("replay %s (SQL file, filtered) in file order on 1 connection", r.File)
	}
	s := fmt.Sprintf("replay %s (%s) one connection per captured session, timing %s", r.File, describeFormat(format), r.Timing)
	if r.Timing == "original" && r.Speed != 1 {
		s += fmt.Sprintf(" x%g", r.Speed)
	}
	if r.Order == "commit" {
		s += ", in captured commit order"
	}
	return s
}

// filtered says r skips statements, which only a session replay does.
func filtered(r *Replay) bool { return r.ReadOnly || r.Include != nil || r.Exclude != nil }

// formatOf is the format r's file is read as: the plan's, or detected from the file's first
// bytes (open nil: os.Open).
func formatOf(r *Replay, open func(string) (*os.File, error)) (string, error) {
	if r.Format != "" && r.Format != "auto" {
		return r.Format, nil
	}
	if r.Path == "" {
		return "", fs.ErrNotExist
	}
	f, err := traffic.Open(r.Path, traffic.Options{Open: open})
	if err != nil {
		return "", err
	}
	defer f.Close()
	return f.Format, nil
}

// explainShown is how many of a replayed file's statements explain shows, and
// explainChars how much of each: a capture or a dump can be many GB.
const (
	explainShown = 3
	explainChars = 100
)

// explain shows the file's first statements and counts them and their sessions (a whole
// read, streaming: explain says what the run will do).
func explain(w *spec.Workload) []string {
	r := Plan(w)
	f, err := traffic.Open(r.Path, traffic.Options{Format: r.Format})
	if err != nil {
		return []string{fmt.Sprintf("(cannot read it now: %v)", err)}
	}
	defer f.Close()
	var out []string
	n := 0
	sessions := map[uint64]bool{}
	for {
		st, err := f.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return append(out, fmt.Sprintf("(stops: %v)", err))
		}
		if n < explainShown {
			text := sqltext.Short(st.Text, explainChars)
			if f.Format == traffic.SQL {
				out = append(out, text+";")
			} else {
				out = append(out, fmt.Sprintf("session %d: %s;", st.Session, text))
			}
		}
		sessions[st.Session] = true
		n++
	}
	if f.Format == traffic.SQL {
		if n > explainShown {
			out = append(out, fmt.Sprintf("... and %d more statement(s)", n-explainShown))
		}
		return out
	}
	return append(out, fmt.Sprintf("%s: %d statement(s) in %d session(s), replayed on a connection each", describeFormat(f.Format), n, len(sessions)))
}
