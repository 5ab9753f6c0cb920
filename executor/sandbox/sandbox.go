// Package sandbox starts throwaway MariaDB/MySQL servers on 127.0.0.1: a primary and optional
// replicas, each a copy of a template datadir initialised once per server binary, with a generated
// my.cnf, restartable with a changed config, and never outliving the process that started them
// (parent-death signal). See /work/notes/sandbox.md for the layout and the defaults.
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/quadrant-bench/quadrant/spec/mycnf"
)

// Options describe a sandbox cluster.
type Options struct {
	Name        string // label used in dir names and logs; "" -> "sandbox"
	Flavor      string // "auto" (or "") | "mariadb" | "mysql"
	Basedir     string // optional: where bin/ or sbin/ holds mariadbd or mysqld
	Config      []Option
	Replicas    int
	Replication string // "async" (default) | "semisync"
	// Galera, if above 0, makes the cluster a Galera cluster of that many MariaDB nodes
	// (galera.go): NAME bootstraps it, NAME_node2... join by SST; no replicas.
	Galera int
	Dir    string // parent dir for sandbox dirs; "" -> os.TempDir()
	Keep   bool   // keep datadirs after Stop
	// TLS gives the cluster a CA of its own and each server a certificate it signed, and has
	// the servers require TLS over TCP (require_secure_transport); clients verify with the CA.
	TLS bool
	// ConfigPaths says the caller checked the config's absolute paths outside the sandbox's
	// directory (log_bin on other storage) and allows them: the executor does, through
	// spec/trust (the plan's folder, --allow-path). Without it they are refused, as are ..,
	// ~ and a secure_file_priv outside the sandbox always.
	ConfigPaths bool
	// RunAs is the OS user the servers run as when quadrant runs as root ("" = DefaultRunAs);
	// quadrant never runs a server as root. Without root, servers run as quadrant's own user and
	// RunAs must be empty or that user.
	RunAs string
	Logf  func(format string, args ...any)
	// Via, if set, is the address (127.0.0.1:port) replica reaches its primary at, given the
	// primary's own: a link of the caller's in between (the network of sandbox.links). ""
	// is the primary's own. The replica's CHANGE MASTER keeps it, so replication goes
	// through it across restarts and restores; a failover drill's Repoint does not.
	Via func(replica, primary string) (string, error)
	// NodeLink, if set, puts a link of the caller's in front of each Galera node's group
	// communication (the network of sandbox.links' nodes:, galera.go): the node listens on
	// GaleraLinkedHost:port and the caller on listen (127.0.0.1:port, the same port),
	// carrying to upstream and dialling it from 127.0.0.1. Called for each node before it
	// first starts, and again when a start found a port taken and the node's ports changed
	// (the caller replaces that node's link).
	NodeLink func(node, listen, upstream string) error
	// Working, if set, is told what a long first start is doing (building the template
	// datadir: seconds to a minute), and "" when that is done; the lines also go to Logf.
	Working func(what string)

	CacheDir     string        // template datadirs; "" -> $XDG_CACHE_HOME/quadrant/templates (or ~/.cache/...)
	StartTimeout time.Duration // per server start; 0 -> 2 minutes

	pickPort func() (int, error) // tests substitute it to simulate a taken port
}

// Cluster is a running sandbox: a primary and its replicas, or a Galera cluster's first
// node (Primary) and the others (Nodes).
type Cluster struct {
	Primary  *Server
	Replicas []*Server
	Nodes    []*Server

	name     string
	dir      string
	keep     bool
	password string
	runAs    string
	logf     func(string, ...any)
	stopped  sync.Once
	stopErr  error
}

// Servers returns the primary followed by the replicas, or a Galera cluster's nodes in order.
func (c *Cluster) Servers() []*Server {
	return append(append([]*Server{c.Primary}, c.Replicas...), c.Nodes...)
}

// Dir is the cluster's directory (one sub-directory per server).
func (c *Cluster) Dir() string { return c.dir }

// Name is the cluster's label.
func (c *Cluster) Name() string { return c.name }

// Password is root's password on every server of the cluster, random per cluster. It is also in
// the cluster's directory (PasswordFile, mode 0600), for tools and scripts.
func (c *Cluster) Password() string { return c.password }

// PasswordFile is the path of the file holding Password.
func (c *Cluster) PasswordFile() string { return filepath.Join(c.dir, PasswordFile) }

// RunAs is the OS user the cluster's servers run as.
func (c *Cluster) RunAs() string { return c.runAs }

var nameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$`)

func (o *Options) normalise() error {
	if o.Name == "" {
		o.Name = "sandbox"
	}
	if !nameRe.MatchString(o.Name) {
		return fmt.Errorf("sandbox name %q: use letters, digits, '_', '-' or '.' (at most 40)", o.Name)
	}
	if o.Galera < 0 {
		return fmt.Errorf("sandbox %s: galera %d: must be 0 (none) or the number of nodes", o.Name, o.Galera)
	}
	if o.Replicas < 0 {
		return fmt.Errorf("sandbox %s: replicas %d: must be 0 or more", o.Name, o.Replicas)
	}
	if o.NodeLink != nil && o.Galera == 0 {
		return fmt.Errorf("sandbox %s: node links are for a Galera sandbox's nodes, and it has none: set galera", o.Name)
	}
	switch o.Replication {
	case "":
		o.Replication = "async"
	case "async", "semisync":
	default:
		return fmt.Errorf("sandbox %s: replication %q: must be async or semisync", o.Name, o.Replication)
	}
	if o.Dir == "" {
		o.Dir = os.TempDir()
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 2 * time.Minute
	}
	if o.pickPort == nil {
		o.pickPort = freePort
	}
	return nil
}

// guardOf is what refuses a config for servers of binary bin: its own option list, against
// which names are resolved as it resolves them. The binary is the one the sandbox runs anyway;
// when it cannot list its options, names are resolved conservatively (mycnf.Known's zero value).
func guardOf(ctx context.Context, bin Binary, tls, paths bool, logf func(string, ...any)) mycnf.Guard {
	names, err := optionsOf(ctx, bin)
	if err != nil {
		logf("sandbox: %v; option names are checked without the server's list (any abbreviation of a guarded option refused)", err)
	}
	g := mycnf.Guard{Known: mycnf.NewKnown(names), TLS: tls}
	if paths {
		g.Outside = func(string, string) bool { return true }
	}
	return g
}

// Start finds the server binary, prepares the template datadir if needed, starts the primary and the
// replicas (in parallel), attaches the replicas and waits until they replicate. On any error
// everything started so far is stopped and removed.
func Start(ctx context.Context, o Options) (*Cluster, error) {
	if err := o.normalise(); err != nil {
		return nil, err
	}
	acct, err := resolveAccount(o.RunAs)
	if err != nil {
		return nil, fmt.Errorf("sandbox %s: %w", o.Name, err)
	}
	bin, err := FindServer(ctx, o.Flavor, o.Basedir)
	if err != nil {
		return nil, fmt.Errorf("sandbox %s: %w", o.Name, err)
	}
	var provider string
	if o.Galera > 0 {
		if provider, err = checkGalera(ctx, o, bin); err != nil {
			return nil, fmt.Errorf("sandbox %s: %w", o.Name, err)
		}
	}
	guard := guardOf(ctx, bin, o.TLS, o.ConfigPaths, o.Logf)
	guard.Galera = o.Galera > 0
	if err := validateConfig(o.Config, guard); err != nil {
		return nil, fmt.Errorf("sandbox %s: %w", o.Name, err)
	}
	o.Logf("sandbox %s: %s, running as OS user %s", o.Name, bin.Line, acct.name)
	tmpl, err := prepareTemplate(ctx, o, bin, acct)
	if err != nil {
		return nil, fmt.Errorf("sandbox %s: %w", o.Name, err)
	}
	c, err := newClusterDir(o, acct)
	if err != nil {
		return nil, fmt.Errorf("sandbox %s: %w", o.Name, err)
	}
	fail := func(err error) (*Cluster, error) {
		_ = c.Stop(context.Background())
		return nil, fmt.Errorf("sandbox %s: %w", o.Name, err)
	}
	var ca *clusterCA
	if o.TLS {
		if ca, err = newCA(o.Name); err != nil {
			return fail(fmt.Errorf("TLS CA: %w", err))
		}
		if err := c.writeCA(ca); err != nil {
			return fail(err)
		}
	}
	semisync := o.Replication == "semisync" && o.Replicas > 0
	var repl string
	if o.Replicas > 0 {
		if repl, err = newPassword(); err != nil {
			return fail(err)
		}
	}
	newServer := func(name string, r role) (*Server, error) {
		s := &Server{name: name, bin: bin, basedir: o.Basedir, dir: filepath.Join(c.dir, name), role: r,
			logf: o.Logf, timeout: o.StartTimeout, ports: o.pickPort, acct: acct, password: c.password}
		s.guard = guard
		s.guard.Dir = s.dir
		if r.primary || r.replica {
			s.repl = repl
		}
		if err := prepareServerDir(s, tmpl); err != nil {
			return nil, fmt.Errorf("prepare %s: %w", name, err)
		}
		if ca != nil {
			if err := s.setupTLS(ca); err != nil {
				return nil, fmt.Errorf("prepare %s: %w", name, err)
			}
		}
		return s, nil
	}
	if o.Galera > 0 {
		if err := c.startGalera(ctx, o, provider, newServer); err != nil {
			return fail(err)
		}
		if err := c.ready(o); err != nil {
			return fail(err)
		}
		return c, nil
	}
	p, err := newServer(o.Name, role{serverID: 1, primary: o.Replicas > 0, semisync: semisync})
	if err != nil {
		return fail(err)
	}
	c.Primary = p
	for i := 1; i <= o.Replicas; i++ {
		r, err := newServer(fmt.Sprintf("%s_replica%d", o.Name, i), role{serverID: i + 1, replica: true, semisync: semisync, replicaOf: p})
		if err != nil {
			return fail(err)
		}
		c.Replicas = append(c.Replicas, r)
	}
	p.role.replicas = c.Replicas
	if err := startServers(ctx, c.Servers(), o.Config); err != nil {
		return fail(err)
	}
	if err := c.replicate(ctx, semisync, o.Via); err != nil {
		return fail(err)
	}
	if err := c.ready(o); err != nil {
		return fail(err)
	}
	return c, nil
}

// ready writes each server's client option file and says where it listens.
func (c *Cluster) ready(o Options) error {
	for _, s := range c.Servers() {
		if err := writePrivate(s.ClientConfigFile(), clientCnf(s)); err != nil {
			return err
		}
		o.Logf("sandbox %s: %s ready on %s (socket %s, password in %s)", o.Name, s.Name(), s.RedactedDSN(""), s.Socket(), c.PasswordFile())
	}
	return nil
}

// prepareTemplate makes the sandbox directory, checks the server's user can reach it and
// makes (or finds in the cache) the template datadir, telling o.Working while it works.
func prepareTemplate(ctx context.Context, o Options, bin Binary, acct account) (string, error) {
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return "", err
	}
	if err := acct.checkReachable(o.Dir); err != nil {
		return "", err
	}
	working := o.Working
	if working == nil {
		working = func(string) {}
	}
	tmpl, err := ensureTemplate(ctx, bin, o.Basedir, o.CacheDir, acct, func(format string, args ...any) {
		o.Logf(format, args...)
		working(fmt.Sprintf(format, args...))
	})
	working("")
	return tmpl, err
}

// newClusterDir makes the cluster's own directory (stale ones of earlier runs removed) with
// its owner file and a new password; on an error nothing of it is left.
func newClusterDir(o Options, acct account) (*Cluster, error) {
	removeStale(o.Dir, o.Logf)
	dir, err := os.MkdirTemp(o.Dir, "quadrant-"+o.Name+"-")
	if err != nil {
		return nil, err
	}
	if !acct.self {
		// quadrant keeps the cluster directory (password, client option files); the server's
		// user may only pass through it to its own server directory.
		if err := os.Chmod(dir, 0o711); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	password, err := newPassword()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	c := &Cluster{name: o.Name, dir: dir, keep: o.Keep, password: password, runAs: acct.name, logf: o.Logf}
	if err := writeOwner(dir, o.Keep); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := writePrivate(c.PasswordFile(), password+"\n"); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return c, nil
}

// startServers starts the servers in parallel, with config.
func startServers(ctx context.Context, servers []*Server, config []Option) error {
	errs := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.mu.Lock()
			defer s.mu.Unlock()
			errs[i] = s.start(ctx, config, false)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// replicate attaches the replicas to the primary and waits until they replicate (and, with
// semisync, until the primary sees them all as semisync clients).
func (c *Cluster) replicate(ctx context.Context, semisync bool, via func(replica, primary string) (string, error)) error {
	for _, r := range c.Replicas {
		port := c.Primary.Port()
		if via != nil {
			addr, err := via(r.Name(), net.JoinHostPort(c.Primary.Host(), strconv.Itoa(port)))
			if err != nil {
				return fmt.Errorf("%s's path to its primary: %w", r.Name(), err)
			}
			if addr != "" {
				if port, err = viaPort(addr); err != nil {
					return fmt.Errorf("%s's path to its primary: %w", r.Name(), err)
				}
			}
		}
		if err := attachReplica(ctx, c.Primary, r, port); err != nil {
			return err
		}
	}
	for _, r := range c.Replicas {
		if err := waitReplicaRunning(ctx, r); err != nil {
			return err
		}
	}
	if semisync {
		return waitSemisyncClients(ctx, c.Primary, len(c.Replicas))
	}
	return nil
}

// viaPort is the port of a Via address, which must be on 127.0.0.1: the replication
// account may log in from there only.
func viaPort(addr string) (int, error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return 0, err
	}
	port, err := strconv.Atoi(p)
	if err != nil || host != "127.0.0.1" || port <= 0 {
		return 0, fmt.Errorf("%s: want 127.0.0.1:PORT", addr)
	}
	return port, nil
}

// prepareServerDir lays out a server's directory, all of it the server user's alone (mode 0700):
// the datadir copied from the template, tmp/, files/ (secure_file_priv), the socket's directory,
// and the init file that sets the passwords at the first start.
func prepareServerDir(s *Server, tmpl string) error {
	for _, d := range []string{s.dir, filepath.Join(s.dir, "tmp"), s.FilesDir()} {
		if err := s.acct.privateDir(d); err != nil {
			return err
		}
	}
	sock, err := socketPath(s.dir)
	if err != nil {
		return err
	}
	s.socket = sock
	if sd := filepath.Dir(sock); sd != s.dir {
		if err := s.acct.privateDir(sd); err != nil {
			return err
		}
	}
	data := filepath.Join(s.dir, "data")
	if err := copyDir(tmpl, data); err != nil {
		return err
	}
	if err := s.acct.ownTree(data); err != nil {
		return err
	}
	if err := os.Chmod(data, 0o700); err != nil {
		return err
	}
	s.initFile = filepath.Join(s.dir, "init.sql")
	if err := writePrivate(s.initFile, initSQL(s)); err != nil {
		return err
	}
	return s.acct.own(s.initFile) // the server reads it as its own user
}

// initSQL sets root's password on a copy of the template (whose own password was random and
// thrown away) and, on a primary with replicas, creates the replication account. The server runs
// it before it accepts connections; nothing of it goes to the binary log.
func initSQL(s *Server) string {
	lines := []string{"SET sql_log_bin = 0;"}
	for _, host := range []string{"localhost", "127.0.0.1"} {
		lines = append(lines, fmt.Sprintf("ALTER USER 'root'@'%s' IDENTIFIED BY '%s';", host, s.password))
	}
	if s.role.primary && s.repl != "" {
		lines = append(lines,
			fmt.Sprintf("CREATE USER '%s'@'127.0.0.1' IDENTIFIED BY '%s';", replUser, s.repl),
			fmt.Sprintf("GRANT REPLICATION SLAVE ON *.* TO '%s'@'127.0.0.1';", replUser))
	}
	return strings.Join(lines, "\n") + "\n"
}

// Stop stops every server (the replicas first, in parallel, or a Galera cluster's other nodes
// one at a time, the last first; then the primary: node 1 leaves last, so it may bootstrap the
// cluster again) and removes the cluster's directory unless Keep. Calling it again does nothing.
func (c *Cluster) Stop(ctx context.Context) error {
	c.stopped.Do(func() {
		var errs []error
		// Galera nodes leave one at a time: two leaving at once left node 1 outside a Primary
		// component, which refuses SHUTDOWN (1047) and so was stopped by a signal instead.
		for i := len(c.Nodes) - 1; i >= 0; i-- {
			errs = append(errs, c.Nodes[i].Stop(ctx))
		}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for _, r := range c.Replicas {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := r.Stop(ctx); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if c.Primary != nil {
			errs = append(errs, c.Primary.Stop(ctx))
		}
		for _, s := range c.Servers() {
			if s != nil {
				s.releaseTLS()
			}
			if s != nil && filepath.Dir(s.socket) != s.dir {
				os.RemoveAll(filepath.Dir(s.socket)) // the short socket dir outside the cluster dir
			}
		}
		if c.keep {
			c.logf("sandbox %s: kept %s", c.name, c.dir)
		} else if err := os.RemoveAll(c.dir); err != nil {
			errs = append(errs, err)
		}
		c.stopErr = errors.Join(errs...)
	})
	return c.stopErr
}

// socketPath keeps the unix socket within the 107-byte sun_path limit: inside the server's dir when
// short enough, otherwise in a private short directory under /tmp.
func socketPath(dir string) (string, error) {
	p := filepath.Join(dir, "mysql.sock")
	if len(p) <= 100 {
		return p, nil
	}
	short, err := os.MkdirTemp("/tmp", "qsb")
	if err != nil {
		return "", err
	}
	return filepath.Join(short, "mysql.sock"), nil
}

// The owner file names the process that started a cluster, so that directories left behind by a
// SIGKILLed quadrant can be recognised (owner gone) and removed later.
const ownerFile = "quadrant-owner"

func writeOwner(dir string, keep bool) error {
	return os.WriteFile(filepath.Join(dir, ownerFile), fmt.Appendf(nil, "%d %s %t\n", os.Getpid(), procStart(os.Getpid()), keep), 0o644)
}

// procStart is the process start time from /proc (field 22), which tells a live owner from a reused pid.
func procStart(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		f := strings.Fields(s[i+1:])
		if len(f) > 19 {
			return f[19]
		}
	}
	return ""
}

// ProcessStart is the start time of process pid as /proc has it ("" when it is gone): with the
// pid, it names one process, even after the pid is reused.
func ProcessStart(pid int) string { return procStart(pid) }

// OwnerAlive reports whether the process recorded in a cluster directory's owner file still runs.
func OwnerAlive(dir string) (pid int, alive bool) {
	b, err := os.ReadFile(filepath.Join(dir, ownerFile))
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0, false
	}
	pid, _ = strconv.Atoi(f[0])
	return pid, pid > 0 && procStart(pid) == f[1]
}

// removeStale deletes cluster directories in parent whose owner died without cleaning up (SIGKILL),
// except those started with Keep.
func removeStale(parent string, logf func(string, ...any)) {
	dirs, _ := filepath.Glob(filepath.Join(parent, "quadrant-*"))
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, ownerFile))
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b)); len(f) < 3 || f[2] == "true" {
			continue
		}
		if !ownedByMe(d) {
			continue // another user's: theirs to clean
		}
		if pid, alive := OwnerAlive(d); !alive {
			logf("sandbox: removing %s left by process %d, which is gone", d, pid)
			os.RemoveAll(d)
		}
	}
}

func ownedByMe(path string) bool {
	st, err := os.Lstat(path)
	if err != nil {
		return false
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	return ok && int(sys.Uid) == os.Geteuid()
}
