package sandbox

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/quadrant-bench/quadrant/executor/internal/tail"
	"github.com/quadrant-bench/quadrant/spec/mycnf"
)

// Timeouts of a graceful stop: SHUTDOWN, then SIGTERM, then SIGKILL.
const (
	shutdownWait = 60 * time.Second // InnoDB flushes dirty pages; a large buffer pool takes a while
	termWait     = 30 * time.Second
	killWait     = 10 * time.Second
)

// Server is one mariadbd/mysqld process of a sandbox.
type Server struct {
	name    string
	bin     Binary
	basedir string
	dir     string // holds data/, my.cnf, error.log
	socket  string
	role    role
	logf    func(string, ...any)
	timeout time.Duration
	ports   func() (int, error)
	acct    account // the OS user the process runs as

	// password is root's (the same on every server of a cluster); repl holds the replication
	// account's, on a primary with replicas. initFile, until the first start succeeded, is the SQL
	// that sets them before the server accepts any connection.
	password string
	repl     string
	initFile string
	tls      *serverTLS // nil without TLS
	// guard refuses the options a config may not set, with the server's own option list.
	guard mycnf.Guard

	mu     sync.Mutex // serialises Restart/Stop/Kill
	port   int
	config []Option
	proc   *process // nil when not running
}

type role struct {
	serverID  int
	primary   bool // the primary of a cluster with replicas
	replica   bool
	semisync  bool
	replicaOf *Server
	replicas  []*Server   // of a primary
	galera    *galeraNode // a Galera cluster's node (galera.go)
}

type process struct {
	cmd    *exec.Cmd
	exited chan struct{} // closed once the process has been reaped
	err    error         // Wait's result, valid after exited
}

// Name is the server's label: "NAME" for the primary, "NAME_replica1", ... for replicas.
func (s *Server) Name() string { return s.name }

// Host is always the loopback address: sandboxes listen nowhere else.
func (s *Server) Host() string { return "127.0.0.1" }

// Port is the TCP port on 127.0.0.1.
func (s *Server) Port() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.port
}

// Socket is the unix socket path.
func (s *Server) Socket() string { return s.socket }

// Dir is the server's directory (data/, my.cnf, error.log).
func (s *Server) Dir() string { return s.dir }

// Binary is the server executable and its version.
func (s *Server) Binary() Binary { return s.bin }

// Config is the config the server currently runs with (without the sandbox's own settings).
func (s *Server) Config() []Option {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Option(nil), s.config...)
}

// DSN is a go-sql-driver/mysql DSN for root over TCP, password included: hand it to a driver or
// to the user who started the sandbox, never to a log (RedactedDSN is for those).
func (s *Server) DSN(db string) string {
	return fmt.Sprintf("root:%s@tcp(127.0.0.1:%d)/%s", s.password, s.Port(), db)
}

// RedactedDSN is DSN with the password as ***.
func (s *Server) RedactedDSN(db string) string {
	return fmt.Sprintf("root:***@tcp(127.0.0.1:%d)/%s", s.Port(), db)
}

// User and Password are the root account's credentials.
func (s *Server) User() string     { return "root" }
func (s *Server) Password() string { return s.password }

// RunAs is the OS user the server process runs as.
func (s *Server) RunAs() string { return s.acct.name }

// FilesDir is the only directory the server reads and writes files in for SQL (secure_file_priv:
// LOAD DATA INFILE, SELECT ... INTO OUTFILE).
func (s *Server) FilesDir() string { return filepath.Join(s.dir, "files") }

// ClientConfigFile is a [client] option file (mode 0600) with the server's address and root's
// credentials: `mariadb --defaults-extra-file=FILE` connects without a password on the command line.
func (s *Server) ClientConfigFile() string { return filepath.Join(filepath.Dir(s.dir), s.name+".cnf") }

// Running reports whether the server process is alive.
func (s *Server) Running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proc != nil && !s.proc.done()
}

// Pid is the server's process id, 0 when not running.
func (s *Server) Pid() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil || s.proc.done() {
		return 0
	}
	return s.proc.cmd.Process.Pid
}

// Exited says how the server's process ended when it exited without being stopped (a crash,
// a kill -9): "signal: killed", "exit status 1"; "" while it runs or after a stop.
func (s *Server) Exited() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil || !s.proc.done() {
		return ""
	}
	if s.proc.err == nil {
		return "exit status 0"
	}
	return s.proc.err.Error()
}

func (p *process) done() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

func (s *Server) errorLog() string { return filepath.Join(s.dir, "error.log") }
func (s *Server) cnfPath() string  { return filepath.Join(s.dir, "my.cnf") }

// ErrorLogTail returns the last n lines of the server's error log.
func (s *Server) ErrorLogTail(n int) string {
	b, err := os.ReadFile(s.errorLog())
	if err != nil {
		return fmt.Sprintf("(no error log: %v)", err)
	}
	return tail.Lines(string(b), n)
}

// connector reaches the server as root over its unix socket (works before networking matters and
// never leaves the machine).
func (s *Server) connector() *mysql.Config {
	c := mysql.NewConfig()
	c.User = "root"
	c.Passwd = s.password
	c.Net = "unix"
	c.Addr = s.socket
	c.Timeout = 5 * time.Second
	c.ReadTimeout = 60 * time.Second
	c.WriteTimeout = 60 * time.Second
	c.Logger = quietLogger{} // SHUTDOWN makes the driver complain about the closed socket on every control connection
	return c
}

type quietLogger struct{}

func (quietLogger) Print(...any) {}

// Open returns a pool to the server (root, unix socket). The caller closes it.
func (s *Server) Open() (*sql.DB, error) {
	conn, err := mysql.NewConnector(s.connector())
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(conn), nil
}

// Exec runs statements in order on one connection.
func (s *Server) Exec(ctx context.Context, stmts ...string) error {
	db, err := s.Open()
	if err != nil {
		return err
	}
	defer db.Close()
	for _, q := range stmts {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %s: %w", s.name, s.redact(q), err)
		}
	}
	return nil
}

// redact hides the sandbox's passwords in text bound for an error or a log.
func (s *Server) redact(text string) string {
	for _, pw := range []string{s.password, s.repl} {
		if pw != "" {
			text = strings.ReplaceAll(text, pw, "***")
		}
	}
	return text
}

// forcedOptions are the settings replication needs; they are written after the config so they win.
func (s *Server) forcedOptions(config []Option) []Option {
	if s.role.galera != nil {
		return append(s.galeraOptions(), s.tlsOptions()...)
	}
	if !s.role.primary && !s.role.replica {
		return s.tlsOptions()
	}
	given := configMap(config)
	opts := []Option{{Name: "server_id", Value: strconv.Itoa(s.role.serverID)}}
	if s.role.primary {
		if _, ok := given["log_bin"]; !ok {
			opts = append(opts, Option{Name: "log-bin", Value: "binlog"})
		}
	}
	if s.role.replica {
		opts = append(opts, Option{Name: "relay-log", Value: "relay-bin"})
	}
	if s.role.semisync {
		opts = append(opts, semisyncOptions(s.bin, s.role.primary)...)
	}
	return append(opts, s.tlsOptions()...)
}

func (s *Server) fixedOptions() []Option {
	opts := []Option{
		{Name: "datadir", Value: filepath.Join(s.dir, "data")},
		{Name: "socket", Value: s.socket},
		{Name: "port", Value: strconv.Itoa(s.port)},
		{Name: "bind-address", Value: "127.0.0.1"},
		{Name: "pid-file", Value: filepath.Join(s.dir, "mysqld.pid")},
		{Name: "log-error", Value: s.errorLog()},
		{Name: "tmpdir", Value: filepath.Join(s.dir, "tmp")},
		// SQL reads and writes files here only: with it unset, any account with the FILE privilege
		// reads and writes wherever the server's OS user can.
		{Name: "secure_file_priv", Value: s.FilesDir()},
	}
	if s.bin.Flavor == FlavorMySQL && s.bin.AtLeast(8, 0, 11) {
		// The X plugin listens on every address by default (mysqlx_bind_address=*), should a
		// config turn it on; mysqlx_bind_address is the sandbox's (mycnf).
		opts = append(opts, Option{Name: "loose_mysqlx_bind_address", Value: "127.0.0.1"})
	}
	if s.basedir != "" {
		opts = append(opts, Option{Name: "basedir", Value: s.basedir})
	}
	if s.initFile != "" {
		opts = append(opts, Option{Name: "init_file", Value: s.initFile})
	}
	// No `user` option: the process is started as its account already (a server that switched
	// user itself would lose the parent-death signal, which the kernel clears on a credential change).
	return opts
}

func (s *Server) writeCnf(config []Option) error {
	cnf := myCnf(s.fixedOptions(), sandboxDefaults(s.bin), config, s.forcedOptions(config))
	return writeFileAtomic(s.cnfPath(), cnf) // 0644 and no secret in it: the server's user reads it
}

// start launches the server with config and waits until it answers. A port found taken (another
// process won the race between our probe and the server's bind) is replaced by a fresh one, unless
// keepPort (a restart must keep the address clients know).
func (s *Server) start(ctx context.Context, config []Option, keepPort bool) error {
	const attempts = 5
	for i := 0; ; i++ {
		if s.port == 0 {
			p, err := s.ports()
			if err != nil {
				return fmt.Errorf("start %s: %w", s.name, err)
			}
			s.port = p
		}
		err := s.startOnce(ctx, config)
		if err == nil {
			s.config = append([]Option(nil), config...)
			if s.initFile != "" {
				// The passwords are in the datadir now; the file that set them has done its job.
				os.Remove(s.initFile)
				s.initFile = ""
			}
			return nil
		}
		var pe *portInUseError
		if errors.As(err, &pe) && !keepPort && i+1 < attempts {
			s.logf("sandbox: %s: port %d is in use, trying another", s.name, s.port)
			s.port = 0
			if s.role.galera != nil {
				// The taken port may be one of its Galera ports: all four anew.
				if err := s.pickGaleraPorts(); err != nil {
					return fmt.Errorf("start %s: %w", s.name, err)
				}
			}
			continue
		}
		return err
	}
}

type portInUseError struct{ error }

func (e *portInUseError) Unwrap() error { return e.error }

func (s *Server) startOnce(ctx context.Context, config []Option) error {
	if err := s.writeCnf(config); err != nil {
		return fmt.Errorf("start %s: write my.cnf: %w", s.name, err)
	}
	// O_NOFOLLOW: the directory is the server user's, and the file is handed to the server as
	// its output; a planted symlink must not make root open some other file for it.
	logf, err := os.OpenFile(s.errorLog(), os.O_CREATE|os.O_WRONLY|os.O_APPEND|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return fmt.Errorf("start %s: %w", s.name, err)
	}
	defer logf.Close()
	if err := s.acct.own(s.errorLog()); err != nil { // the server reopens it as its own user (Lchown: no link followed)
		return fmt.Errorf("start %s: %w", s.name, err)
	}
	st, _ := logf.Stat()
	offset := st.Size() // lines before this belong to earlier runs
	args := []string{"--defaults-file=" + s.cnfPath()}
	if s.role.galera != nil {
		if pos := s.galeraStartPosition(ctx); pos != "" {
			args = append(args, "--wsrep_start_position="+pos)
		}
	}
	cmd := exec.Command(s.bin.Path, args...)
	cmd.Dir = s.dir
	cmd.Stdout, cmd.Stderr = logf, logf // output before the server opens log-error lands in the same file
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.acct.credential()}
	if err := startProcess(cmd); err != nil {
		return fmt.Errorf("start %s: %w", s.name, err)
	}
	p := &process{cmd: cmd, exited: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.exited) }()
	s.proc = p
	if err := s.waitReady(ctx, p, offset); err != nil {
		if !p.done() {
			s.killProc(p)
		}
		s.proc = nil
		return err
	}
	return nil
}

// waitReady polls until the server accepts a connection, the process exits (error with the log lines
// of this start), the timeout passes or ctx ends.
func (s *Server) waitReady(ctx context.Context, p *process, offset int64) error {
	deadline := time.NewTimer(s.timeout)
	defer deadline.Stop()
	cfg := s.connector()
	cfg.Timeout = time.Second
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return err
	}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, err := os.Stat(s.socket); err == nil {
			pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			c, err := conn.Connect(pctx)
			cancel()
			if err == nil {
				c.Close()
				return nil
			}
		}
		select {
		case <-p.exited:
			log := s.logSince(offset)
			if strings.Contains(log, "Address already in use") {
				return &portInUseError{fmt.Errorf("start %s: port %d: address already in use", s.name, s.port)}
			}
			return fmt.Errorf("start %s: server exited (%v) during start; error log:\n%s",
				s.name, p.err, relevantLines(log, 20))
		case <-deadline.C:
			return fmt.Errorf("start %s: not answering on %s after %s; last lines of the error log:\n%s",
				s.name, s.socket, s.timeout, tail.Lines(s.logSince(offset), 20))
		case <-ctx.Done():
			return fmt.Errorf("start %s: %w", s.name, ctx.Err())
		case <-tick.C:
		}
	}
}

func (s *Server) logSince(offset int64) string {
	b, err := os.ReadFile(s.errorLog())
	if err != nil {
		return fmt.Sprintf("(no error log: %v)", err)
	}
	if offset <= int64(len(b)) {
		b = b[offset:]
	}
	return string(bytes.TrimSpace(b))
}

// relevantLines prefers the [ERROR] lines (e.g. "[ERROR] mariadbd: unknown variable 'foo=1'") and
// falls back to the tail when there are none.
func relevantLines(log string, n int) string {
	var errs []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "[ERROR]") {
			errs = append(errs, l)
		}
	}
	if len(errs) == 0 {
		return tail.Lines(log, n)
	}
	if len(errs) > n {
		errs = errs[len(errs)-n:]
	}
	return strings.Join(errs, "\n")
}

// Restart stops the server gracefully and starts it with config, which replaces the config it ran
// with (the sandbox's own settings stay). Nothing happens when the effective config is unchanged
// and the server is running. When the server rejects the new config, the error carries its log
// lines and the server is started again with the previous config so the sandbox stays usable.
func (s *Server) Restart(ctx context.Context, config []Option) error {
	if err := validateConfig(config, s.guard); err != nil {
		return fmt.Errorf("restart %s: %w", s.name, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	running := s.proc != nil && !s.proc.done()
	if running && sameConfig(config, s.config) {
		s.logf("sandbox: %s: config unchanged, restart skipped", s.name)
		return nil
	}
	if running {
		if err := s.stopLocked(ctx); err != nil {
			return fmt.Errorf("restart %s: %w", s.name, err)
		}
	}
	old := s.config
	err := s.start(ctx, config, true)
	if err == nil {
		return s.waitReplication(ctx)
	}
	if ctx.Err() == nil && !sameConfig(old, config) {
		if rerr := s.start(ctx, old, true); rerr != nil {
			return fmt.Errorf("restart %s: %w (starting again with the previous config failed too: %v)", s.name, err, rerr)
		}
		if werr := s.waitReplication(ctx); werr != nil {
			return fmt.Errorf("restart %s: %w (running again with the previous config, but %v)", s.name, err, werr)
		}
		return fmt.Errorf("restart %s: %w (running again with the previous config)", s.name, err)
	}
	return fmt.Errorf("restart %s: %w", s.name, err)
}

// Start starts a stopped server (a killed one too) with the config it ran with, keeping its
// port, and waits until it answers, not for its replication: a failover drill's old primary
// comes back with its data but nobody replicates from it any more. Nothing happens when it
// runs.
func (s *Server) Start(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc != nil && !s.proc.done() {
		return nil
	}
	if err := s.start(ctx, s.config, true); err != nil {
		return fmt.Errorf("start %s: %w", s.name, err)
	}
	return nil
}

// waitReplication makes a restart return only once replication is back: a restarted replica runs both
// threads again; a restarted primary has its running replicas reconnected (and, with semi-sync,
// acknowledging), so a measurement right after the restart does not see the catch-up or the
// semi-sync fallback to async.
func (s *Server) waitReplication(ctx context.Context) error {
	if s.role.galera != nil {
		return waitSynced(ctx, s, 0) // rejoined: by IST, or SST when the others moved too far on
	}
	if s.role.replica {
		if p := s.role.replicaOf; p != nil && !p.Running() {
			return nil // nothing to connect to
		}
		return waitReplicaRunning(ctx, s)
	}
	n := 0
	for _, r := range s.role.replicas {
		if r.Running() {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	if err := waitDumpThreads(ctx, s, n); err != nil {
		return err
	}
	if s.role.semisync {
		return waitSemisyncClients(ctx, s, n)
	}
	return nil
}

// Stop shuts the server down: SHUTDOWN, then SIGTERM, then SIGKILL, each after a timeout.
func (s *Server) Stop(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopLocked(ctx)
}

// StopForReplicas shuts a primary down as a DBA does before a planned failover: on MariaDB
// with SHUTDOWN WAIT FOR ALL SLAVES (10.4.4+), which kills the binary log dump threads only
// after every client thread and exits once the last event went to every connected replica.
// A plain SHUTDOWN kills dump threads among the clients in any order, so a commit
// acknowledged during the shutdown can be on no replica (a drill lost one on a busy host).
// MySQL has no such option: its plain SHUTDOWN.
func (s *Server) StopForReplicas(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bin.Flavor == FlavorMariaDB && s.bin.AtLeast(10, 4, 4) {
		return s.stopWith(ctx, "SHUTDOWN WAIT FOR ALL SLAVES")
	}
	return s.stopLocked(ctx)
}

func (s *Server) stopLocked(ctx context.Context) error { return s.stopWith(ctx, "SHUTDOWN") }

func (s *Server) stopWith(ctx context.Context, shutdown string) error {
	p := s.proc
	if p == nil || p.done() {
		s.proc = nil
		return nil
	}
	defer func() { s.proc = nil }()
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	err := s.Exec(sctx, shutdown)
	cancel()
	if err == nil && waitExit(ctx, p, shutdownWait) {
		return nil
	}
	if err != nil {
		s.logf("sandbox: %s: SHUTDOWN failed (%v), sending SIGTERM", s.name, err)
	} else {
		s.logf("sandbox: %s: still running %s after SHUTDOWN, sending SIGTERM", s.name, shutdownWait)
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	if waitExit(ctx, p, termWait) {
		return nil
	}
	s.logf("sandbox: %s: still running after SIGTERM, sending SIGKILL", s.name)
	if !s.killProc(p) {
		return fmt.Errorf("stop %s: pid %d survived SIGKILL", s.name, p.cmd.Process.Pid)
	}
	return nil
}

// waitExit waits up to d for the process to exit; a cancelled ctx cuts the wait short.
func waitExit(ctx context.Context, p *process, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return p.done()
}

func (s *Server) killProc(p *process) bool {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	return waitExit(context.Background(), p, killWait)
}

// Kill sends SIGKILL and waits until the process is gone (a crash, for fault tests). Restart starts it again.
func (s *Server) Kill() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.proc
	if p == nil || p.done() {
		return nil
	}
	s.proc = nil
	if !s.killProc(p) {
		return fmt.Errorf("kill %s: pid %d survived SIGKILL", s.name, p.cmd.Process.Pid)
	}
	return nil
}

// Pause stops the server's process with SIGSTOP: it neither answers nor exits, as a host
// that stalls (swapping, a frozen VM); its clients' connections stay open and hang. Resume
// lets it go on. A paused server still stops or is killed (SIGKILL reaches it).
func (s *Server) Pause() error { return s.signal(syscall.SIGSTOP) }

// Resume sends SIGCONT to a paused server.
func (s *Server) Resume() error { return s.signal(syscall.SIGCONT) }

func (s *Server) signal(sig syscall.Signal) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil || s.proc.done() {
		return fmt.Errorf("%s: %v: the server is not running", s.name, sig)
	}
	if err := s.proc.cmd.Process.Signal(sig); err != nil {
		return fmt.Errorf("%s: %v: %w", s.name, sig, err)
	}
	return nil
}

// freePort asks the kernel for a free port on 127.0.0.1 and releases it for the server to bind.
// Another process may take it in between; start notices "Address already in use" and tries again.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port on 127.0.0.1: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
