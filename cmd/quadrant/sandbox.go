package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
)

const sandboxUsage = `Usage: quadrant sandbox up|down|list [options]

Throwaway local MariaDB/MySQL servers on 127.0.0.1, as a plan's sandbox target gets them.

  quadrant sandbox up [--name N] [--replicas N] [--semisync] [--config K=V]... [--flavor F] [--basedir D] [--dir D] [--keep]
      Starts a primary (and replicas), prints one line per server: NAME and its DSN
      (root@tcp(127.0.0.1:PORT)/, root without password), then stays in the foreground until
      Ctrl-C, SIGTERM or "quadrant sandbox down NAME" (which sends it SIGTERM). The servers are
      shut down and their directories removed (unless --keep) before it exits; if it is killed
      outright (SIGKILL), the servers die with it (parent-death signal) and the next "up" in the
      same --dir removes the leftover directory. A second Ctrl-C while stopping kills at once.
  quadrant sandbox down [NAME]
      Stops the sandbox NAME (the only one running when NAME is omitted) and waits until it is gone.
  quadrant sandbox list
      Lists running sandboxes; entries of sandboxes whose process is gone are removed.

The first start on a machine initialises a template datadir once per server binary
(in $XDG_CACHE_HOME/quadrant/templates or ~/.cache/quadrant/templates); later starts copy it.
State files live in $XDG_RUNTIME_DIR/quadrant/sandboxes (or $TMPDIR/quadrant-UID/sandboxes).
`

// runSandbox implements `quadrant sandbox`. Exit codes: 0 done, 2 bad command line, 3 failure,
// 130 interrupted while starting.
func runSandbox(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, sandboxUsage)
		return 2
	}
	switch args[0] {
	case "up":
		return sandboxUp(args[1:], stdout, stderr)
	case "down":
		return sandboxDown(args[1:], stdout, stderr)
	case "list", "ls":
		return sandboxList(args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, sandboxUsage)
		return 0
	default:
		fmt.Fprintf(stderr, "quadrant sandbox: unknown command %q (want up, down or list)\n\n%s", args[0], sandboxUsage)
		return 2
	}
}

// sandboxState is what `up` records for `down` and `list`.
type sandboxState struct {
	Name    string          `json:"name"`
	Pid     int             `json:"pid"`
	Dir     string          `json:"dir"`
	Started time.Time       `json:"started"`
	Servers []sandboxServer `json:"servers"`
}

type sandboxServer struct {
	Name   string `json:"name"`
	DSN    string `json:"dsn"`
	Socket string `json:"socket"`
}

func sandboxStateDir() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "quadrant", "sandboxes")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("quadrant-%d", os.Getuid()), "sandboxes")
}

func newSandboxFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("quadrant sandbox "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {} // errors get a one-line hint, --help the whole text (parseSandboxFlags)
	return fs
}

// parseSandboxFlags returns -1 to continue, else the exit code.
func parseSandboxFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, sandboxUsage)
			fmt.Fprintln(stdout, "\nOptions of "+fs.Name()+":")
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return 0
		}
		fmt.Fprintln(stderr, "see `quadrant sandbox --help`")
		return 2
	}
	return -1
}

func sandboxUp(args []string, stdout, stderr io.Writer) int {
	fs := newSandboxFlags("up", stderr)
	o := sandbox.Options{}
	fs.StringVar(&o.Name, "name", "sandbox", "label of the sandbox (servers NAME, NAME_replica1, ...)")
	fs.IntVar(&o.Replicas, "replicas", 0, "number of replicas")
	semisync := fs.Bool("semisync", false, "semi-synchronous replication (default async)")
	fs.StringVar(&o.Flavor, "flavor", "auto", "auto, mariadb or mysql")
	fs.StringVar(&o.Basedir, "basedir", "", "server installation holding bin/ or sbin/ (default: PATH, /usr/sbin)")
	fs.StringVar(&o.Dir, "dir", "", "parent directory of the sandbox's datadirs (default $TMPDIR)")
	fs.BoolVar(&o.Keep, "keep", false, "keep the datadirs after stopping")
	fs.Func("config", "my.cnf [mysqld] option K=V (repeatable); V true writes the bare option, false leaves it out", func(s string) error {
		k, v, ok := strings.Cut(s, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return fmt.Errorf("%q: want NAME=VALUE, e.g. innodb_buffer_pool_size=1G", s)
		}
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true":
			o.Config = append(o.Config, sandbox.Option{Name: k, Bare: true})
		case "false":
		default:
			o.Config = append(o.Config, sandbox.Option{Name: k, Value: v})
		}
		return nil
	})
	if code := parseSandboxFlags(fs, args, stdout, stderr); code >= 0 {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "quadrant sandbox up: unexpected argument %q (options only)\n", fs.Arg(0))
		return 2
	}
	switch o.Flavor {
	case "auto", "mariadb", "mysql":
	default:
		fmt.Fprintf(stderr, "quadrant sandbox up: --flavor %q: want auto, mariadb or mysql\n", o.Flavor)
		return 2
	}
	if o.Replicas < 0 {
		fmt.Fprintf(stderr, "quadrant sandbox up: --replicas %d: want 0 or more\n", o.Replicas)
		return 2
	}
	if *semisync {
		o.Replication = "semisync"
		if o.Replicas == 0 {
			fmt.Fprintln(stderr, "quadrant sandbox up: --semisync needs --replicas 1 or more")
			return 2
		}
	}
	o.Logf = func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }

	stateDir := sandboxStateDir()
	statePath := filepath.Join(stateDir, o.Name+".json")
	if st, err := readSandboxState(statePath); err == nil && sandboxAlive(st) {
		fmt.Fprintf(stderr, "quadrant sandbox up: a sandbox named %s is already up (pid %d); use another --name or run `quadrant sandbox down %s`\n", o.Name, st.Pid, o.Name)
		return 2
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c, err := sandbox.Start(ctx, o)
	if err != nil {
		fmt.Fprintf(stderr, "quadrant sandbox up: %v\n", err)
		if ctx.Err() != nil {
			return 130
		}
		if errors.Is(err, sandbox.ErrNoServer) || strings.Contains(err.Error(), "config option") {
			return 2
		}
		return 3
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		if err := c.Stop(sctx); err != nil {
			fmt.Fprintf(stderr, "quadrant sandbox: stop %s: %v\n", o.Name, err)
		}
		os.Remove(statePath)
	}()

	st := sandboxState{Name: o.Name, Pid: os.Getpid(), Dir: c.Dir(), Started: time.Now().UTC()}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	for _, s := range c.Servers() {
		st.Servers = append(st.Servers, sandboxServer{Name: s.Name(), DSN: s.DSN(""), Socket: s.Socket()})
		fmt.Fprintf(tw, "%s\t%s\n", s.Name(), s.DSN(""))
	}
	tw.Flush()
	if err := writeSandboxState(statePath, st); err != nil {
		fmt.Fprintf(stderr, "quadrant sandbox: %v (`down` and `list` will not see this sandbox)\n", err)
	}
	fmt.Fprintf(stderr, "sandbox %s is up (pid %d); stop it with Ctrl-C or `quadrant sandbox down %s`\n", o.Name, os.Getpid(), o.Name)

	<-ctx.Done()
	stop() // from here a second Ctrl-C kills quadrant at once; the servers then die by the parent-death signal
	fmt.Fprintf(stderr, "sandbox %s: stopping\n", o.Name)
	return 0
}

func readSandboxState(path string) (sandboxState, error) {
	var st sandboxState
	b, err := os.ReadFile(path)
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return st, fmt.Errorf("%s: %w", path, err)
	}
	return st, nil
}

func writeSandboxState(path string, st sandboxState) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// sandboxAlive: the `up` process recorded in the state is still the one running (its pid has not
// been reused), judged by the owner file in the sandbox's directory.
func sandboxAlive(st sandboxState) bool {
	pid, alive := sandbox.OwnerAlive(st.Dir)
	return alive && pid == st.Pid
}

// allSandboxStates reads every state file; stale ones (process gone) are removed, with the sandbox
// directory they point to, and reported in stale.
func allSandboxStates(stderr io.Writer) (live []sandboxState, stale []string) {
	paths, _ := filepath.Glob(filepath.Join(sandboxStateDir(), "*.json"))
	sort.Strings(paths)
	for _, p := range paths {
		st, err := readSandboxState(p)
		if err != nil {
			fmt.Fprintf(stderr, "quadrant sandbox: removing unreadable state file: %v\n", err)
			os.Remove(p)
			continue
		}
		if sandboxAlive(st) {
			live = append(live, st)
			continue
		}
		stale = append(stale, st.Name)
		os.Remove(p)
		if st.Dir != "" && strings.Contains(filepath.Base(st.Dir), "quadrant-") {
			os.RemoveAll(st.Dir) // the killed process could not; its servers died with it
		}
	}
	return live, stale
}

func sandboxList(args []string, stdout, stderr io.Writer) int {
	fs := newSandboxFlags("list", stderr)
	if code := parseSandboxFlags(fs, args, stdout, stderr); code >= 0 {
		return code
	}
	live, stale := allSandboxStates(stderr)
	for _, n := range stale {
		fmt.Fprintf(stderr, "sandbox %s: its process is gone; removed the stale entry\n", n)
	}
	if len(live) == 0 {
		fmt.Fprintln(stderr, "no sandbox is up")
		return 0
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SANDBOX\tPID\tUP SINCE\tSERVER\tDSN")
	for _, st := range live {
		for i, s := range st.Servers {
			if i == 0 {
				fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", st.Name, st.Pid, st.Started.Format(time.RFC3339), s.Name, s.DSN)
			} else {
				fmt.Fprintf(tw, "\t\t\t%s\t%s\n", s.Name, s.DSN)
			}
		}
	}
	tw.Flush()
	return 0
}

func sandboxDown(args []string, stdout, stderr io.Writer) int {
	fs := newSandboxFlags("down", stderr)
	timeout := fs.Duration("timeout", 3*time.Minute, "how long to wait for the sandbox to stop")
	if code := parseSandboxFlags(fs, args, stdout, stderr); code >= 0 {
		return code
	}
	if fs.NArg() > 1 {
		fmt.Fprintln(stderr, "quadrant sandbox down: at most one NAME")
		return 2
	}
	live, stale := allSandboxStates(stderr)
	var st *sandboxState
	switch {
	case fs.NArg() == 1:
		for i := range live {
			if live[i].Name == fs.Arg(0) {
				st = &live[i]
			}
		}
		if st == nil {
			for _, n := range stale {
				if n == fs.Arg(0) {
					fmt.Fprintf(stdout, "sandbox %s was not running any more; cleaned up its leftovers\n", n)
					return 0
				}
			}
			fmt.Fprintf(stderr, "quadrant sandbox down: no sandbox named %q is up (see `quadrant sandbox list`)\n", fs.Arg(0))
			return 2
		}
	case len(live) == 1:
		st = &live[0]
	case len(live) == 0:
		fmt.Fprintln(stderr, "quadrant sandbox down: no sandbox is up")
		return 2
	default:
		var names []string
		for _, l := range live {
			names = append(names, l.Name)
		}
		fmt.Fprintf(stderr, "quadrant sandbox down: several sandboxes are up (%s): name one\n", strings.Join(names, ", "))
		return 2
	}
	if err := syscall.Kill(st.Pid, syscall.SIGTERM); err != nil {
		fmt.Fprintf(stderr, "quadrant sandbox down %s: signal pid %d: %v\n", st.Name, st.Pid, err)
		return 3
	}
	// Done when the process has stopped the servers, removed its state file and exited.
	statePath := filepath.Join(sandboxStateDir(), st.Name+".json")
	deadline := time.Now().Add(*timeout)
	for sandboxAlive(*st) || (fileExists(statePath) && syscall.Kill(st.Pid, 0) == nil) {
		if time.Now().After(deadline) {
			fmt.Fprintf(stderr, "quadrant sandbox down %s: pid %d still running after %s\n", st.Name, st.Pid, *timeout)
			return 3
		}
		time.Sleep(100 * time.Millisecond)
	}
	fmt.Fprintf(stdout, "sandbox %s stopped\n", st.Name)
	return 0
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
