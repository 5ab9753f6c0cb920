// Package target is how quadrant reaches a database server: a DSN given by the user, or a sandbox
// it started itself. Both open connections, report where they are, restart (a sandbox with a new
// config, a DSN target by its shell command) and never print a password.
package target

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/internal/authretry"
	"github.com/quadrant-bench/quadrant/executor/internal/tail"
	"github.com/quadrant-bench/quadrant/executor/sandbox"
)

// Kinds of target.
const (
	KindDSN     = "dsn"
	KindSandbox = "sandbox"
)

// Target is a server the executor runs steps and workloads against.
type Target interface {
	Name() string
	Kind() string // KindDSN or KindSandbox
	Host() string
	Port() int
	// Config returns a copy of the driver config, password included: hand it to the driver, never print it.
	Config() *mysql.Config
	// Redacted is the DSN with the password as ***, for logs and results.
	Redacted() string
	// Open returns a pool that has answered a ping.
	Open(ctx context.Context) (*sql.DB, error)
	// Restart restarts the server and returns once it answers again. A sandbox applies config
	// (skipping the restart when it is unchanged); a DSN target runs its restart command and
	// accepts no config.
	Restart(ctx context.Context, config []sandbox.Option) error
}

// DSN is a parsed go-sql-driver/mysql DSN whose String redacts the password, so that printing it by
// accident (%v, %+v, %#v, logs) never leaks it.
type DSN struct{ cfg *mysql.Config }

// ParseDSN parses a go-sql-driver/mysql DSN. The error never contains the password.
func ParseDSN(s string) (DSN, error) {
	cfg, err := mysql.ParseDSN(s)
	if err != nil {
		msg := err.Error()
		if pw := rawPassword(s); pw != "" {
			msg = strings.ReplaceAll(msg, pw, "***")
		}
		return DSN{}, fmt.Errorf("DSN %s: %s (format: user:password@tcp(host:port)/dbname?param=value)", redactRaw(s), msg)
	}
	return DSN{cfg: cfg}, nil
}

// Config returns a copy of the driver config (with the password).
func (d DSN) Config() *mysql.Config {
	if d.cfg == nil {
		return mysql.NewConfig()
	}
	return d.cfg.Clone()
}

// String is the DSN with the password replaced by ***.
func (d DSN) String() string {
	if d.cfg == nil {
		return ""
	}
	c := d.cfg.Clone()
	if c.Passwd != "" {
		c.Passwd = "***"
	}
	return c.FormatDSN()
}

// GoString keeps %#v from dumping the config with its password.
func (d DSN) GoString() string { return "target.DSN(" + strconv.Quote(d.String()) + ")" }

// rawPassword is the password part of an unparsed DSN "user:password@...", best effort.
func rawPassword(s string) string {
	at := strings.LastIndex(s, "@")
	if at < 0 {
		return ""
	}
	if colon := strings.Index(s[:at], ":"); colon >= 0 {
		return s[colon+1 : at]
	}
	return ""
}

func redactRaw(s string) string {
	if pw := rawPassword(s); pw != "" {
		return strings.Replace(s, ":"+pw+"@", ":***@", 1)
	}
	return s
}

// hostPort splits the config's address; a unix socket gives the socket path and port 0.
func hostPort(c *mysql.Config) (string, int) {
	if c.Net == "unix" {
		return c.Addr, 0
	}
	h, p, err := net.SplitHostPort(c.Addr)
	if err != nil {
		return c.Addr, 0
	}
	port, _ := strconv.Atoi(p)
	return h, port
}

// NewConnector is mysql.NewConnector for every connection quadrant opens to a target,
// for packages executor/internal hides from: it logs in again when the driver misreads
// an ed25519 challenge (see authretry).
func NewConnector(cfg *mysql.Config) (driver.Connector, error) {
	return authretry.NewConnector(cfg)
}

// open connects with cfg and pings, so a wrong address or password fails here with a clear error.
func open(ctx context.Context, name, redacted string, cfg *mysql.Config) (*sql.DB, error) {
	conn, err := authretry.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("target %s (%s): %w", name, redacted, err)
	}
	db := sql.OpenDB(conn)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("target %s (%s): %w", name, redacted, err)
	}
	return db, nil
}

// DSNTarget is a server the user points quadrant at.
type DSNTarget struct {
	name    string
	dsn     DSN
	restart string    // shell command; "" when the plan gives none
	tls     *tlsSetup // the plan's tls:, nil when the DSN alone says
	pubKey  bool      // allow_public_key_retrieval
	refused string    // the server public key name that keeps the driver from fetching one (gatePublicKey)

	RestartTimeout time.Duration // how long the restart command may run; 0 -> 10 minutes
	ReadyTimeout   time.Duration // how long to wait for the server to answer afterwards; 0 -> 5 minutes
}

// NewDSN makes a DSN target. restartCmd is the plan's `restart` shell command ("" for none); whether
// it may run at all (--allow-shell) is decided by the caller.
func NewDSN(name, dsn, restartCmd string) (*DSNTarget, error) {
	d, err := ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", name, err)
	}
	return &DSNTarget{name: name, dsn: d, restart: restartCmd}, nil
}

func (t *DSNTarget) Name() string { return t.name }
func (t *DSNTarget) Kind() string { return KindDSN }
func (t *DSNTarget) Host() string { h, _ := hostPort(t.dsn.cfg); return h }
func (t *DSNTarget) Port() int    { _, p := hostPort(t.dsn.cfg); return p }
func (t *DSNTarget) Config() *mysql.Config {
	c := t.dsn.Config()
	if t.tls != nil {
		t.tls.apply(c)
	}
	t.gatePublicKey(c)
	return c
}
func (t *DSNTarget) Redacted() string { return t.dsn.String() }
func (t *DSNTarget) DSN() DSN         { return t.dsn }

// String and GoString keep the password out of any printed form of the target.
func (t *DSNTarget) String() string   { return t.name + " (" + t.Redacted() + ")" }
func (t *DSNTarget) GoString() string { return "target.DSNTarget(" + strconv.Quote(t.String()) + ")" }

// RestartCommand is the shell command Restart runs, for `quadrant explain` and the trust check.
func (t *DSNTarget) RestartCommand() string { return t.restart }

func (t *DSNTarget) Open(ctx context.Context) (*sql.DB, error) {
	db, err := open(ctx, t.name, t.Redacted(), t.Config())
	var me *mysql.MySQLError
	switch {
	case err == nil:
	case t.tls != nil && t.tls.cfg != nil && !errors.As(err, &me):
		return nil, fmt.Errorf("target %s (%s): %w", t.name, t.Redacted(), t.tls.explain(errors.Unwrap(err)))
	case errors.As(err, &me) && me.Number == 1045 && t.refused != "" && (t.tls == nil || t.tls.cfg == nil):
		return nil, fmt.Errorf("%w (over plaintext: a server with require_secure_transport answers so, and an account of caching_sha2_password, MySQL 8's default, logs in only with the server's RSA key: give the target tls:, or for the latter allow_public_key_retrieval: true on a network you trust)", err)
	}
	return db, err
}

// Restart runs the restart command with `sh -c`, then waits until the server answers a ping.
// Quadrant does not manage a dsn target's my.cnf: the options an iteration's server_config
// (or a restart step) asks for reach the command as QUADRANT_MY_CNF (a [mysqld] section,
// one option a line) and QUADRANT_CONFIG_<NAME>=VALUE, for the command to apply.
func (t *DSNTarget) Restart(ctx context.Context, config []sandbox.Option) error {
	if t.restart == "" {
		return fmt.Errorf("restart %s: the target has no `restart` command; add one to the target (e.g. restart: \"sudo systemctl restart mariadb\")", t.name)
	}
	timeout := t.RestartTimeout
	if timeout <= 0 {
		timeout = 10 * time.Minute
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, "sh", "-c", t.restart)
	cmd.Env = append(os.Environ(), ConfigEnv(config)...)
	// The command's own children (sleep, systemctl...) die with it on timeout: kill its process group.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second // and if one escaped the group holding the output pipe, do not hang
	out, err := cmd.CombinedOutput()
	if cctx.Err() == context.DeadlineExceeded {
		return fmt.Errorf("restart %s: command %q still running after %s: %s", t.name, t.restart, timeout, tail.Lines(string(out), 10))
	}
	if err != nil {
		return fmt.Errorf("restart %s: command %q: %v: %s", t.name, t.restart, err, tail.Lines(string(out), 10))
	}
	ready := t.ReadyTimeout
	if ready <= 0 {
		ready = 5 * time.Minute
	}
	return WaitReady(ctx, t, ready)
}

// ConfigEnv is how a restart command receives the my.cnf options to apply.
func ConfigEnv(config []sandbox.Option) []string {
	if len(config) == 0 {
		return nil
	}
	var cnf strings.Builder
	cnf.WriteString("[mysqld]\n")
	env := []string{}
	for _, o := range config {
		cnf.WriteString(o.String() + "\n")
		name := strings.ToUpper(strings.ReplaceAll(o.Name, "-", "_"))
		env = append(env, "QUADRANT_CONFIG_"+name+"="+o.Value)
	}
	return append(env, "QUADRANT_MY_CNF="+cnf.String())
}

// WaitReady polls the target until a connection and ping succeed, or timeout passes (the error has
// the last connection error).
func WaitReady(ctx context.Context, t Target, timeout time.Duration) error {
	cfg := t.Config()
	cfg.Timeout = 2 * time.Second
	conn, err := authretry.NewConnector(cfg)
	if err != nil {
		return fmt.Errorf("target %s: %w", t.Name(), err)
	}
	deadline := time.Now().Add(timeout)
	for {
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		c, err := conn.Connect(pctx)
		cancel()
		if err == nil {
			c.Close()
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("target %s: waiting for the server: %w", t.Name(), ctx.Err())
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("target %s (%s): not answering after %s: %w", t.Name(), t.Redacted(), timeout, err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// SandboxTarget is a server of a sandbox cluster (primary or replica).
type SandboxTarget struct{ s *sandbox.Server }

// NewSandbox wraps a sandbox server; its name is the server's ("NAME", "NAME_replica1", ...).
func NewSandbox(s *sandbox.Server) *SandboxTarget { return &SandboxTarget{s: s} }

// Targets returns the cluster's servers as targets, primary first.
func Targets(c *sandbox.Cluster) []Target {
	var ts []Target
	for _, s := range c.Servers() {
		ts = append(ts, NewSandbox(s))
	}
	return ts
}

func (t *SandboxTarget) Name() string            { return t.s.Name() }
func (t *SandboxTarget) Kind() string            { return KindSandbox }
func (t *SandboxTarget) Host() string            { return t.s.Host() }
func (t *SandboxTarget) Port() int               { return t.s.Port() }
func (t *SandboxTarget) Redacted() string        { return t.s.RedactedDSN("") }
func (t *SandboxTarget) Server() *sandbox.Server { return t.s }
func (t *SandboxTarget) String() string          { return t.Name() + " (" + t.Redacted() + ")" }
func (t *SandboxTarget) GoString() string {
	return "target.SandboxTarget(" + strconv.Quote(t.String()) + ")"
}

func (t *SandboxTarget) Config() *mysql.Config {
	c := mysql.NewConfig()
	c.User = t.s.User()
	c.Passwd = t.s.Password()
	c.Net = "tcp"
	c.Addr = net.JoinHostPort(t.s.Host(), strconv.Itoa(t.s.Port()))
	if t.s.TLS() {
		c.TLSConfig, c.TLS = t.s.TLSConfigName(), t.s.ClientTLS()
	}
	return c
}

func (t *SandboxTarget) Open(ctx context.Context) (*sql.DB, error) {
	return open(ctx, t.Name(), t.Redacted(), t.Config())
}

func (t *SandboxTarget) Restart(ctx context.Context, config []sandbox.Option) error {
	return t.s.Restart(ctx, config)
}

// ServerInfo is what Probe learns about a server.
type ServerInfo struct {
	Flavor         string // "MariaDB", "Percona" or "MySQL"
	Version        string // numeric, e.g. "10.11.19"
	VersionFull    string // @@version, e.g. "10.11.19-MariaDB-0+deb12u1-log"
	VersionComment string // @@version_comment
}

// Probe reads @@version and @@version_comment and classifies the server.
func Probe(ctx context.Context, db *sql.DB) (ServerInfo, error) {
	var info ServerInfo
	if err := db.QueryRowContext(ctx, "SELECT @@version, @@version_comment").Scan(&info.VersionFull, &info.VersionComment); err != nil {
		return ServerInfo{}, fmt.Errorf("probe server version: %w", err)
	}
	info.Flavor, info.Version = Classify(info.VersionFull, info.VersionComment)
	return info, nil
}

// Classify tells MariaDB, Percona and MySQL apart from @@version and @@version_comment and returns
// the numeric version.
func Classify(version, comment string) (flavor, numeric string) {
	// MariaDB before 11 announced itself as "5.5.5-10.x" in the handshake; some proxies pass that on.
	version = strings.TrimPrefix(version, "5.5.5-")
	numeric = version
	if i := strings.IndexFunc(version, func(r rune) bool { return r != '.' && (r < '0' || r > '9') }); i >= 0 {
		numeric = version[:i]
	}
	lv, lc := strings.ToLower(version), strings.ToLower(comment)
	switch {
	case strings.Contains(lv, "mariadb") || strings.Contains(lc, "mariadb"):
		return "MariaDB", numeric
	case strings.Contains(lc, "percona") || strings.Contains(lv, "percona"):
		return "Percona", numeric
	default:
		return "MySQL", numeric
	}
}

// Variables snapshots SHOW GLOBAL VARIABLES.
func Variables(ctx context.Context, db *sql.DB) (map[string]string, error) {
	return pairs(ctx, db, "SHOW GLOBAL VARIABLES")
}

// Status snapshots SHOW GLOBAL STATUS.
func Status(ctx context.Context, db *sql.DB) (map[string]string, error) {
	return pairs(ctx, db, "SHOW GLOBAL STATUS")
}

// pairs reads a two-column SHOW statement as name -> value.
func pairs(ctx context.Context, db *sql.DB, stmt string) (map[string]string, error) {
	rows, err := db.QueryContext(ctx, stmt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", stmt, err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var name string
		var value sql.NullString
		if err := rows.Scan(&name, &value); err != nil {
			return nil, fmt.Errorf("%s: %w", stmt, err)
		}
		out[name] = value.String
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", stmt, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s returned nothing", stmt)
	}
	return out, nil
}
