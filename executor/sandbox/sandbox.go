// Package sandbox starts throwaway MariaDB/MySQL servers on 127.0.0.1: a primary and optional
// replicas, each a copy of a template datadir initialised once per server binary, with a generated
// my.cnf, restartable with a changed config, and never outliving the process that started them
// (parent-death signal). See /work/notes/sandbox.md for the layout and the defaults.
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Options describe a sandbox cluster.
type Options struct {
	Name        string // label used in dir names and logs; "" -> "sandbox"
	Flavor      string // "auto" (or "") | "mariadb" | "mysql"
	Basedir     string // optional: where bin/ or sbin/ holds mariadbd or mysqld
	Config      []Option
	Replicas    int
	Replication string // "async" (default) | "semisync"
	Dir         string // parent dir for sandbox dirs; "" -> os.TempDir()
	Keep        bool   // keep datadirs after Stop
	Logf        func(format string, args ...any)

	CacheDir     string        // template datadirs; "" -> $XDG_CACHE_HOME/quadrant/templates (or ~/.cache/...)
	StartTimeout time.Duration // per server start; 0 -> 2 minutes

	pickPort func() (int, error) // tests substitute it to simulate a taken port
}

// Cluster is a running sandbox: a primary and its replicas.
type Cluster struct {
	Primary  *Server
	Replicas []*Server

	name    string
	dir     string
	keep    bool
	logf    func(string, ...any)
	stopped sync.Once
	stopErr error
}

// Servers returns the primary followed by the replicas.
func (c *Cluster) Servers() []*Server { return append([]*Server{c.Primary}, c.Replicas...) }

// Dir is the cluster's directory (one sub-directory per server).
func (c *Cluster) Dir() string { return c.dir }

// Name is the cluster's label.
func (c *Cluster) Name() string { return c.name }

var nameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$`)

func (o *Options) normalise() error {
	if o.Name == "" {
		o.Name = "sandbox"
	}
	if !nameRe.MatchString(o.Name) {
		return fmt.Errorf("sandbox name %q: use letters, digits, '_', '-' or '.' (at most 40)", o.Name)
	}
	if o.Replicas < 0 {
		return fmt.Errorf("sandbox %s: replicas %d: must be 0 or more", o.Name, o.Replicas)
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
	return validateConfig(o.Config)
}

// Start finds the server binary, prepares the template datadir if needed, starts the primary and the
// replicas (in parallel), attaches the replicas and waits until they replicate. On any error
// everything started so far is stopped and removed.
func Start(ctx context.Context, o Options) (*Cluster, error) {
	if err := o.normalise(); err != nil {
		return nil, err
	}
	bin, err := FindServer(ctx, o.Flavor, o.Basedir)
	if err != nil {
		return nil, fmt.Errorf("sandbox %s: %w", o.Name, err)
	}
	o.Logf("sandbox %s: %s", o.Name, bin.Line)
	tmpl, err := ensureTemplate(ctx, bin, o.Basedir, o.CacheDir, o.Logf)
	if err != nil {
		return nil, fmt.Errorf("sandbox %s: %w", o.Name, err)
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("sandbox %s: %w", o.Name, err)
	}
	removeStale(o.Dir, o.Logf)
	dir, err := os.MkdirTemp(o.Dir, "quadrant-"+o.Name+"-")
	if err != nil {
		return nil, fmt.Errorf("sandbox %s: %w", o.Name, err)
	}
	c := &Cluster{name: o.Name, dir: dir, keep: o.Keep, logf: o.Logf}
	if err := writeOwner(dir, o.Keep); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("sandbox %s: %w", o.Name, err)
	}
	fail := func(err error) (*Cluster, error) {
		_ = c.Stop(context.Background())
		return nil, fmt.Errorf("sandbox %s: %w", o.Name, err)
	}
	semisync := o.Replication == "semisync" && o.Replicas > 0
	newServer := func(name string, r role) (*Server, error) {
		s := &Server{name: name, bin: bin, basedir: o.Basedir, dir: filepath.Join(dir, name), role: r,
			logf: o.Logf, timeout: o.StartTimeout, ports: o.pickPort}
		if err := os.MkdirAll(filepath.Join(s.dir, "tmp"), 0o755); err != nil {
			return nil, err
		}
		sock, err := socketPath(s.dir)
		if err != nil {
			return nil, err
		}
		s.socket = sock
		return s, copyDir(tmpl, filepath.Join(s.dir, "data"))
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
	servers := c.Servers()
	errs := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.mu.Lock()
			defer s.mu.Unlock()
			errs[i] = s.start(ctx, o.Config, false)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fail(err)
	}
	for _, r := range c.Replicas {
		if err := attachReplica(ctx, p, r); err != nil {
			return fail(err)
		}
	}
	for _, r := range c.Replicas {
		if err := waitReplicaRunning(ctx, r); err != nil {
			return fail(err)
		}
	}
	if semisync {
		if err := waitSemisyncClients(ctx, p, o.Replicas); err != nil {
			return fail(err)
		}
	}
	for _, s := range servers {
		o.Logf("sandbox %s: %s ready on %s (socket %s)", o.Name, s.Name(), s.DSN(""), s.Socket())
	}
	return c, nil
}

// Stop stops every server (replicas first, in parallel, then the primary) and removes the cluster's
// directory unless Keep. Calling it again does nothing.
func (c *Cluster) Stop(ctx context.Context) error {
	c.stopped.Do(func() {
		var errs []error
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
		if pid, alive := OwnerAlive(d); !alive {
			logf("sandbox: removing %s left by process %d, which is gone", d, pid)
			os.RemoveAll(d)
		}
	}
}
