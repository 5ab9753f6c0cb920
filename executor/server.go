package executor

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/spec"
)

// server is one target while a run goes: a sandbox server quadrant started, or a server
// reached by DSN.
type server struct {
	name       string
	kind       string // "sandbox" | "dsn"
	cfg        *mysql.Config
	sb         *sandbox.Server  // nil for dsn targets
	base       []sandbox.Option // the plan's sandbox config; server_config and restarts add to it
	restartCmd string
	db         *sql.DB // steps, globals and waits; workloads and samplers open their own
	flavor     string
	version    string
}

func (s *server) host() string {
	if s.sb != nil {
		return s.sb.Host()
	}
	host, _ := splitAddr(s.cfg.Addr)
	return host
}

func (s *server) port() int {
	if s.sb != nil {
		return s.sb.Port()
	}
	_, port := splitAddr(s.cfg.Addr)
	return port
}

func splitAddr(addr string) (string, int) {
	i := strings.LastIndex(addr, ":")
	if i < 0 {
		return addr, 3306
	}
	var port int
	fmt.Sscanf(addr[i+1:], "%d", &port)
	return strings.Trim(addr[:i], "[]"), port
}

// redacted is the server's DSN with any password replaced by ***.
func (s *server) redacted() string {
	c := s.cfg.Clone()
	if c.Passwd != "" {
		c.Passwd = "***"
	}
	return c.FormatDSN()
}

// connConfig is a copy of the server's connection settings for a new pool.
func (s *server) connConfig() *mysql.Config { return s.cfg.Clone() }

// sandboxOptions turns a plan's my.cnf settings into sandbox options: true is the bare
// option (log_bin: true -> log-bin), false leaves the option out.
func sandboxOptions(settings spec.Settings) []sandbox.Option {
	var out []sandbox.Option
	for _, kv := range settings {
		switch v := kv.Value.(type) {
		case bool:
			if v {
				out = append(out, sandbox.Option{Name: kv.Name, Bare: true})
			}
		default:
			out = append(out, sandbox.Option{Name: kv.Name, Value: fmt.Sprint(v)})
		}
	}
	return out
}

// overlay returns base with every option of over replacing the one of the same name
// (dashes and underscores are the same in my.cnf), new ones appended in order.
func overlay(base []sandbox.Option, over []sandbox.Option) []sandbox.Option {
	out := append([]sandbox.Option(nil), base...)
	norm := func(n string) string { return strings.ReplaceAll(strings.ToLower(n), "-", "_") }
	for _, o := range over {
		replaced := false
		for i := range out {
			if norm(out[i].Name) == norm(o.Name) {
				out[i] = o
				replaced = true
			}
		}
		if !replaced {
			out = append(out, o)
		}
	}
	return out
}

// removed drops the options a plan set to false from cfg, so `log_bin: false` in an
// iteration's server_config turns off what the sandbox config turned on.
func removed(cfg []sandbox.Option, settings spec.Settings) []sandbox.Option {
	off := map[string]bool{}
	for _, kv := range settings {
		if b, ok := kv.Value.(bool); ok && !b {
			off[strings.ReplaceAll(strings.ToLower(kv.Name), "-", "_")] = true
		}
	}
	if len(off) == 0 {
		return cfg
	}
	var out []sandbox.Option
	for _, o := range cfg {
		if !off[strings.ReplaceAll(strings.ToLower(o.Name), "-", "_")] {
			out = append(out, o)
		}
	}
	return out
}

// restart applies settings (nil: none beyond the plan's sandbox config) and restarts the
// server. A sandbox is only restarted when its config changes; a dsn target runs its
// restart command (trust was checked before the run started) and waits until it answers.
func (s *server) restart(ctx context.Context, settings spec.Settings, logf func(string, ...any)) (bool, error) {
	if s.sb != nil {
		want := removed(overlay(s.base, sandboxOptions(settings)), settings)
		before := fmt.Sprint(s.sb.Config())
		if err := s.sb.Restart(ctx, want); err != nil {
			return false, err
		}
		changed := fmt.Sprint(s.sb.Config()) != before
		if changed {
			s.dropIdle()
		}
		return changed, nil
	}
	if s.restartCmd == "" {
		return false, fmt.Errorf("target %s is a dsn target without a `restart:` command: add one to the target (e.g. restart: \"sudo systemctl restart mariadb\") or use a sandbox target", s.name)
	}
	if len(settings) > 0 {
		return false, fmt.Errorf("target %s: my.cnf options (%s) can only be applied to sandbox targets; on a dsn target put them in the server's config and use a restart command", s.name, settingNames(settings))
	}
	logf("restart %s: %s", s.name, s.restartCmd)
	cctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(cctx, "sh", "-c", s.restartCmd)
	cmd.Env = os.Environ()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return false, fmt.Errorf("restart command of %s failed: %w\n%s", s.name, err, lastLines(string(out), 10))
	}
	s.dropIdle()
	return true, s.waitReady(ctx, 5*time.Minute)
}

func settingNames(settings spec.Settings) string {
	var names []string
	for _, kv := range settings {
		names = append(names, kv.Name)
	}
	return strings.Join(names, ", ")
}

// dropIdle closes the pool's idle connections, which a restart has broken, so the next
// step does not start with a dead one.
func (s *server) dropIdle() {
	s.db.SetMaxIdleConns(0)
	s.db.SetMaxIdleConns(2)
}

// waitReady polls until the server answers a ping.
func (s *server) waitReady(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	var last error
	for time.Now().Before(deadline) {
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		last = s.db.PingContext(pctx)
		cancel()
		if last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
	return fmt.Errorf("%s did not answer within %s: %v", s.name, timeout, last)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// probe reads the server's flavor and version.
func (s *server) probe(ctx context.Context) error {
	var version, comment string
	if err := s.db.QueryRowContext(ctx, "SELECT VERSION(), @@version_comment").Scan(&version, &comment); err != nil {
		return fmt.Errorf("target %s (%s): %w", s.name, s.redacted(), err)
	}
	s.version = version
	lc := strings.ToLower(version + " " + comment)
	switch {
	case strings.Contains(lc, "mariadb"):
		s.flavor = "MariaDB"
	case strings.Contains(lc, "percona"):
		s.flavor = "Percona"
	default:
		s.flavor = "MySQL"
	}
	return nil
}

// variables reads SHOW GLOBAL VARIABLES.
func (s *server) variables(ctx context.Context) (map[string]string, error) {
	rows, err := s.db.QueryContext(ctx, "SHOW GLOBAL VARIABLES")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var k string
		var v sql.NullString
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		out[k] = v.String
	}
	return out, rows.Err()
}

// status reads SHOW GLOBAL STATUS as numbers where they are numbers (ON/OFF as 1/0),
// strings otherwise: what wait conditions see as status.NAME.
func (s *server) status(ctx context.Context) (map[string]any, error) {
	rows, err := s.db.QueryContext(ctx, "SHOW GLOBAL STATUS")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]any{}
	for rows.Next() {
		var k string
		var v sql.NullString
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		out[k] = typed(v.String)
	}
	return out, rows.Err()
}

// typed gives a status or replica field the type an expression wants: a number when it
// is one; text (ON, Yes, a binlog file name) stays text.
func typed(v string) any {
	if isNumber(v) {
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return f
		}
	}
	return v
}

func isNumber(v string) bool {
	if v == "" {
		return false
	}
	dot := false
	for i, c := range v {
		switch {
		case c >= '0' && c <= '9':
		case c == '-' && i == 0:
		case c == '.' && !dot:
			dot = true
		default:
			return false
		}
	}
	return true
}
