package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/results"
)

const sandboxIntro = `Usage: quadrant sandbox up|down|list|prune [options]

Throwaway local MariaDB/MySQL servers on 127.0.0.1, as a plan's sandbox target gets them.

`

// sandboxHelp is each subcommand's part of the usage: `sandbox --help` prints them all,
// `sandbox CMD --help` its own, then its options.
var sandboxHelp = map[string]string{
	"up": `  quadrant sandbox up [--name N] [--replicas N] [--semisync] [--config K=V]... [--flavor F] [--basedir D] [--dir D] [--keep] [--run-as USER] [--tls] [--print-env] [--detach]
      Starts a primary (and replicas), prints one line per server: NAME and its DSN
      (root:PASSWORD@tcp(127.0.0.1:PORT)/; the password is random per sandbox and also in
      DIR/password, mode 0600), or with --print-env shell export lines for scripts (eval them).
      It then stays in the foreground until Ctrl-C, SIGTERM or "quadrant sandbox down NAME"
      (which sends it SIGTERM). The servers are shut down and their directories removed (unless
      --keep) before it exits; if it is killed outright (SIGKILL), the servers die with it
      (parent-death signal) and the next "up" in the same --dir removes the leftover directory.
      A second Ctrl-C while stopping kills at once.
      With --tls the servers require TLS (require_secure_transport) with a certificate signed
      by a CA made for the sandbox, printed as "CA: FILE" (QUADRANT_SANDBOX_CA with --print-env):
      mariadb --defaults-extra-file=CNF verifies with it; give it to other clients
      (--ssl-ca=FILE --ssl-verify-server-cert, sysbench's --mysql-ssl).
      With --detach it returns as soon as the servers answer, after printing the same lines,
      and the sandbox lives on in an owner process (its pid in "quadrant sandbox list") until
      "quadrant sandbox down NAME" stops it; the servers die with that owner. A script needs no
      polling: when "up --detach" returns 0 the servers are ready, and any other exit code means
      they are not (what went wrong is on stderr), e.g.
        eval "$(quadrant sandbox up --detach --print-env)" && mariadb --defaults-extra-file="$QUADRANT_SANDBOX_CNF"
      The owner's own messages after that go to NAME.log in the state directory (below).
      Run as root, the servers run as the OS user mysql (or --run-as USER), never as root.
`,
	"down": `  quadrant sandbox down [--all] [NAME | OWNER/NAME]
      Stops your sandbox NAME (the only one running when NAME is omitted) and waits until it is
      gone. With --all, NAME may be another user's (OWNER/NAME when several users have one of
      that name); stopping it still needs the right to signal its process (root, or its owner).
`,
	"list": `  quadrant sandbox list [--all]
      Lists your running sandboxes; entries of sandboxes whose process is gone are removed.
      --all lists every user's it can read (under $TMPDIR/quadrant-*/ and /run/user/*/, which
      is private to its user), with an OWNER column. Then the template cache: each cached
      template datadir with its size and when a sandbox last started from it.
`,
	"prune": `  quadrant sandbox prune [--older-than 30d]
      Removes cached template datadirs no sandbox started from for that long (days: 30d, or a
      Go duration: 12h), and builds left unfinished as long ago; one being built by another
      process is never removed. The next sandbox of that server builds its template again.
`,
}

const sandboxFooter = `
The first start on a machine initialises a template datadir once per server binary and server
user (in $XDG_CACHE_HOME/quadrant/templates or ~/.cache/quadrant/templates); later starts copy it.
State files (no password in them) live in $XDG_RUNTIME_DIR/quadrant/sandboxes, or
$TMPDIR/quadrant-UID/sandboxes: one directory per OS user.
`

var sandboxUsage = sandboxIntro + sandboxHelp["up"] + sandboxHelp["down"] + sandboxHelp["list"] + sandboxHelp["prune"] + sandboxFooter

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
	case "prune":
		return sandboxPrune(args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, sandboxUsage)
		return 0
	default:
		fmt.Fprintf(stderr, "quadrant sandbox: unknown command %q (want up, down, list or prune)\n\n%s", args[0], sandboxUsage)
		return 2
	}
}

// sandboxState is what `up` records for `down` and `list`. It holds no password: with --all,
// other users read it.
type sandboxState struct {
	Name         string          `json:"name"`
	Pid          int             `json:"pid"`
	ProcStart    string          `json:"proc_start,omitempty"` // with Pid, names the process even after the pid is reused
	Owner        string          `json:"owner"`
	UID          int             `json:"uid"`
	RunAs        string          `json:"run_as,omitempty"` // the servers' OS user
	Dir          string          `json:"dir"`
	PasswordFile string          `json:"password_file,omitempty"`
	Started      time.Time       `json:"started"`
	Servers      []sandboxServer `json:"servers"`

	path string // the state file it was read from
}

type sandboxServer struct {
	Name   string `json:"name"`
	DSN    string `json:"dsn"` // password as ***
	Socket string `json:"socket"`
}

// sandboxStateDir is this OS user's directory of state files.
func sandboxStateDir() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "quadrant", "sandboxes")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("quadrant-%d", os.Geteuid()), "sandboxes")
}

// allStateDirs are the state directories of every user that this process can find: its own, and
// those under the shared temp dir and /run/user.
func allStateDirs() []string {
	dirs := []string{sandboxStateDir()}
	for _, pat := range []string{filepath.Join(os.TempDir(), "quadrant-*", "sandboxes"), "/run/user/*/quadrant/sandboxes"} {
		m, _ := filepath.Glob(pat)
		dirs = append(dirs, m...)
	}
	seen := map[string]bool{}
	var out []string
	for _, d := range dirs {
		if c := filepath.Clean(d); !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

// ensureStateDir makes this user's state directory and refuses one that is not its own: /tmp is
// shared, and a directory another user planted there could feed `down` a pid to signal.
func ensureStateDir() (string, error) {
	dir := sandboxStateDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Mkdir(d, 0o755); err != nil && !os.IsExist(err) {
			return "", fmt.Errorf("sandbox state directory: %w", err)
		}
		if err := checkOwnDir(d); err != nil {
			return "", err
		}
	}
	return dir, nil
}

func checkOwnDir(d string) error {
	st, err := os.Lstat(d)
	if err != nil {
		return fmt.Errorf("sandbox state directory: %w", err)
	}
	sys, _ := st.Sys().(*syscall.Stat_t)
	if !st.IsDir() || sys == nil || int(sys.Uid) != os.Geteuid() || st.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("sandbox state directory %s is not yours alone (a symlink, another user's, or writable by others): remove it, or set XDG_RUNTIME_DIR or TMPDIR to a directory of your own", d)
	}
	return nil
}

func newSandboxFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {} // errors get a one-line hint, --help the whole text (parseSandboxFlags)
	return fs
}

// parseSandboxFlags returns -1 to continue, else the exit code.
func parseSandboxFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) int {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			// Only this subcommand's part: the others' would repeat what its options say.
			footer := sandboxFooter
			if fs.Name() == "down" {
				footer = ""
			}
			fmt.Fprintf(stdout, "Usage:\n%s%s\nOptions:\n", sandboxHelp[fs.Name()], footer)
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
	fs.StringVar(&o.RunAs, "run-as", "", "OS user the servers run as when quadrant runs as root (default mysql; never root)")
	fs.BoolVar(&o.TLS, "tls", false, "require TLS, with a certificate signed by a CA made for the sandbox (its file is printed)")
	detach := fs.Bool("detach", false, "return once the servers answer, the sandbox living on in an owner process until `quadrant sandbox down NAME`")
	printEnv := fs.Bool("print-env", false, "print shell export lines (QUADRANT_SANDBOX_DSN, _HOST, _PORT, _USER, _PASSWORD, _CNF; REPLICAn_ for replicas) instead of the DSN table")
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
	owner := os.Getenv(sandboxOwnerEnv) != ""
	if *detach && !owner {
		return sandboxDetach(args, stdout, stderr)
	}
	if owner {
		// The ready pipe must not reach the servers: up --detach waits until every copy of
		// its write end is closed.
		syscall.CloseOnExec(3)
	}
	o.Logf = func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }

	stateDir, err := ensureStateDir()
	if err != nil {
		fmt.Fprintf(stderr, "quadrant sandbox up: %v\n", err)
		return 3
	}
	statePath := filepath.Join(stateDir, o.Name+".json")
	// The name is this process's for its whole life: two `up --name X` started at the same
	// instant both see no state file, but only one gets the lock (the kernel drops it when the
	// process dies, even by SIGKILL).
	release, err := lockName(filepath.Join(stateDir, o.Name+".lock"))
	if err != nil {
		fmt.Fprintf(stderr, "quadrant sandbox up: a sandbox named %s is already up or starting; use another --name or run `quadrant sandbox down %s`\n", o.Name, o.Name)
		return 2
	}
	defer release()
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
		if errors.Is(err, sandbox.ErrNoServer) || strings.Contains(err.Error(), "config option") || errors.Is(err, sandbox.ErrServerUser) {
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

	st := sandboxState{Name: o.Name, Pid: os.Getpid(), ProcStart: sandbox.ProcessStart(os.Getpid()), Owner: currentUser(), UID: os.Geteuid(),
		RunAs: c.RunAs(), Dir: c.Dir(), PasswordFile: c.PasswordFile(), Started: time.Now().UTC()}
	for _, s := range c.Servers() {
		st.Servers = append(st.Servers, sandboxServer{Name: s.Name(), DSN: s.RedactedDSN(""), Socket: s.Socket()})
	}
	if *printEnv {
		printSandboxEnv(stdout, c)
	} else {
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		for _, s := range c.Servers() {
			fmt.Fprintf(tw, "%s\t%s\n", s.Name(), s.DSN(""))
		}
		tw.Flush()
		if ca := c.CAFile(); ca != "" {
			fmt.Fprintf(stdout, "CA: %s\n", ca)
		}
	}
	if err := writeSandboxState(statePath, st); err != nil {
		fmt.Fprintf(stderr, "quadrant sandbox: %v (`down` and `list` will not see this sandbox)\n", err)
	}
	if owner {
		fmt.Fprintf(stderr, "sandbox %s is up (owner pid %d, servers running as OS user %s, password in %s); stop it with `quadrant sandbox down %s`\n",
			o.Name, os.Getpid(), c.RunAs(), c.PasswordFile(), o.Name)
		if err := detachOutput(filepath.Join(stateDir, o.Name+".log")); err != nil {
			fmt.Fprintf(stderr, "quadrant sandbox up: %v\n", err)
			return 3
		}
	} else {
		fmt.Fprintf(stderr, "sandbox %s is up (pid %d, servers running as OS user %s, password in %s); stop it with Ctrl-C or `quadrant sandbox down %s`\n",
			o.Name, os.Getpid(), c.RunAs(), c.PasswordFile(), o.Name)
	}

	<-ctx.Done()
	stop() // from here a second Ctrl-C kills quadrant at once; the servers then die by the parent-death signal
	fmt.Fprintf(stderr, "sandbox %s: stopping\n", o.Name)
	return 0
}

// sandboxOwnerEnv marks the process `up --detach` starts: it owns the sandbox as `up` in the
// foreground would, and hands its output back once the servers answer.
const sandboxOwnerEnv = "QUADRANT_SANDBOX_OWNER"

// sandboxDetach runs `up` again as the sandbox's owner, in a session of its own (so neither the
// terminal's hangup nor its Ctrl-C reach it, and its servers die with it rather than with this
// process), passes on what it prints until it says the servers answer, and returns: 0 with the
// servers answering, else the owner's exit code.
func sandboxDetach(args []string, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintf(stderr, "quadrant sandbox up --detach: %v\n", err)
		return 3
	}
	exe, err := os.Executable()
	if err != nil {
		return fail(err)
	}
	readyR, readyW, err := os.Pipe()
	if err != nil {
		return fail(err)
	}
	defer readyR.Close()
	cmd := exec.Command(exe, append([]string{"sandbox", "up"}, args...)...)
	cmd.Env = append(os.Environ(), sandboxOwnerEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.ExtraFiles = []*os.File{readyW} // fd 3: the owner writes "ready" there once the servers answer
	outR, err := cmd.StdoutPipe()
	if err != nil {
		return fail(err)
	}
	errR, err := cmd.StderrPipe()
	if err != nil {
		return fail(err)
	}
	err = cmd.Start()
	readyW.Close()
	if err != nil {
		return fail(err)
	}
	// The owner closes its output once it is ready (detachOutput), or exits: either way the
	// copies end, and the ready pipe says which.
	copied := make(chan struct{}, 2)
	go func() { io.Copy(stdout, outR); copied <- struct{}{} }()
	go func() { io.Copy(stderr, errR); copied <- struct{}{} }()
	ready, _ := io.ReadAll(readyR)
	<-copied
	<-copied
	if string(ready) == sandboxReady {
		return 0
	}
	err = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code > 0 {
		return code
	}
	return fail(fmt.Errorf("the owner process ended before the servers were up: %v", err))
}

// sandboxReady is what the owner of a detached sandbox writes on fd 3 once its servers answer.
const sandboxReady = "ready\n"

// detachOutput tells `up --detach` that the servers answer and points the owner's stdout and
// stderr at its log file, which closes the pipes that process reads.
func detachOutput(logPath string) error {
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600) // one sandbox's worth per name
	if err != nil {
		return fmt.Errorf("owner log: %w", err)
	}
	defer f.Close()
	for _, fd := range []int{1, 2} {
		if err := syscall.Dup3(int(f.Fd()), fd, 0); err != nil {
			return fmt.Errorf("owner log: %w", err)
		}
	}
	ready := os.NewFile(3, "ready")
	if _, err := ready.WriteString(sandboxReady); err != nil {
		return fmt.Errorf("tell up --detach the servers are ready: %w", err)
	}
	return ready.Close()
}

// printSandboxEnv writes shell export lines for scripts: eval "$(...)" or source a file of them.
func printSandboxEnv(w io.Writer, c *sandbox.Cluster) {
	for i, s := range c.Servers() {
		prefix := "QUADRANT_SANDBOX_"
		if i > 0 {
			prefix = fmt.Sprintf("QUADRANT_SANDBOX_REPLICA%d_", i)
		}
		for _, kv := range [][2]string{
			{"NAME", s.Name()}, {"DSN", s.DSN("")}, {"HOST", s.Host()}, {"PORT", strconv.Itoa(s.Port())},
			{"USER", s.User()}, {"PASSWORD", s.Password()}, {"CNF", s.ClientConfigFile()},
		} {
			fmt.Fprintf(w, "export %s%s=%s\n", prefix, kv[0], shellQuote(kv[1]))
		}
		if ca := s.CAFile(); ca != "" {
			fmt.Fprintf(w, "export %sCA=%s\n", prefix, shellQuote(ca))
		}
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func currentUser() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return strconv.Itoa(os.Geteuid())
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
	st.path = path
	// The owner is whoever owns the file, whatever it says about itself.
	if fi, err := os.Lstat(path); err == nil {
		if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
			st.UID = int(sys.Uid)
			st.Owner = strconv.Itoa(st.UID)
			if u, err := user.LookupId(st.Owner); err == nil {
				st.Owner = u.Username
			}
		}
	}
	return st, nil
}

func writeSandboxState(path string, st sandboxState) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	// Readable by others (`list --all`): it holds no password.
	return results.WriteFileAtomic(path, b)
}

// sandboxAlive: the `up` process recorded in the state is still the one running (its pid has not
// been reused), judged by the owner file in the sandbox's directory.
func sandboxAlive(st sandboxState) bool {
	if st.ProcStart != "" {
		return st.Pid > 0 && sandbox.ProcessStart(st.Pid) == st.ProcStart
	}
	pid, alive := sandbox.OwnerAlive(st.Dir)
	return alive && pid == st.Pid
}

// sandboxStates reads the state files of this user (all: of every user it can find). Stale files
// of its own (process gone) are removed, with the sandbox directory they point to, and reported
// in stale; other users' stale files are skipped: theirs to clean.
func sandboxStates(all bool, stderr io.Writer) (live []sandboxState, stale []string) {
	dirs := []string{sandboxStateDir()}
	if all {
		dirs = allStateDirs()
	}
	own := filepath.Clean(sandboxStateDir())
	for _, dir := range dirs {
		mine := filepath.Clean(dir) == own && checkOwnDir(dir) == nil
		if filepath.Clean(dir) == own && !mine {
			if _, err := os.Lstat(dir); err == nil {
				fmt.Fprintf(stderr, "quadrant sandbox: %v\n", checkOwnDir(dir))
			}
			continue
		}
		paths, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		sort.Strings(paths)
		for _, p := range paths {
			st, err := readSandboxState(p)
			if err != nil {
				if mine {
					fmt.Fprintf(stderr, "quadrant sandbox: removing unreadable state file: %v\n", err)
					os.Remove(p)
				}
				continue
			}
			if sandboxAlive(st) {
				live = append(live, st)
				continue
			}
			if !mine {
				continue
			}
			stale = append(stale, st.Name)
			os.Remove(p)
			if st.Dir != "" && strings.Contains(filepath.Base(st.Dir), "quadrant-") && ownedByMe(st.Dir) {
				os.RemoveAll(st.Dir) // the killed process could not; its servers died with it
			}
		}
	}
	return live, stale
}

func ownedByMe(path string) bool {
	fi, err := os.Lstat(path)
	if err != nil {
		return false
	}
	sys, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(sys.Uid) == os.Geteuid()
}

func sandboxList(args []string, stdout, stderr io.Writer) int {
	fs := newSandboxFlags("list", stderr)
	all := fs.Bool("all", false, "list every OS user's sandboxes, with their owner")
	if code := parseSandboxFlags(fs, args, stdout, stderr); code >= 0 {
		return code
	}
	live, stale := sandboxStates(*all, stderr)
	for _, n := range stale {
		fmt.Fprintf(stderr, "sandbox %s: its process is gone; removed the stale entry\n", n)
	}
	defer listTemplates(stdout, stderr)
	if len(live) == 0 {
		if *all {
			fmt.Fprintln(stderr, "no sandbox is up")
		} else {
			fmt.Fprintln(stderr, "no sandbox of yours is up (--all lists every user's)")
		}
		return 0
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	owner := func(st sandboxState) string {
		if *all {
			return st.Owner + "\t"
		}
		return ""
	}
	if *all {
		fmt.Fprint(tw, "OWNER\t")
	}
	fmt.Fprintln(tw, "SANDBOX\tPID\tUP SINCE\tSERVER\tDSN")
	for _, st := range live {
		for i, s := range st.Servers {
			if i == 0 {
				fmt.Fprintf(tw, "%s%s\t%d\t%s\t%s\t%s\n", owner(st), st.Name, st.Pid, st.Started.Format(time.RFC3339), s.Name, s.DSN)
			} else {
				if *all {
					fmt.Fprint(tw, "\t")
				}
				fmt.Fprintf(tw, "\t\t\t%s\t%s\n", s.Name, s.DSN)
			}
		}
	}
	tw.Flush()
	return 0
}

// listTemplates prints the template cache: what `sandbox prune` would look at.
func listTemplates(stdout, stderr io.Writer) {
	ts, err := sandbox.Templates("")
	if err != nil {
		fmt.Fprintf(stderr, "quadrant sandbox: %v\n", err)
		return
	}
	if len(ts) == 0 {
		return
	}
	var total int64
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "\nTEMPLATE (in %s)\tSIZE\tLAST USED\n", sandbox.CacheDir())
	for _, t := range ts {
		state := t.LastUsed.Format(time.RFC3339)
		if t.Building {
			state = "being built now"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", filepath.Base(t.Dir), mib(t.Size), state)
		total += t.Size
	}
	fmt.Fprintf(tw, "(%d, %s in all; quadrant sandbox prune removes the unused)\t\t\n", len(ts), mib(total))
	tw.Flush()
}

func mib(n int64) string { return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20)) }

func sandboxPrune(args []string, stdout, stderr io.Writer) int {
	fs := newSandboxFlags("prune", stderr)
	older := fs.String("older-than", "30d", "remove templates no sandbox started from for this long: 30d, or a Go duration such as 12h")
	if code := parseSandboxFlags(fs, args, stdout, stderr); code >= 0 {
		return code
	}
	age, err := parseAge(*older)
	if err != nil {
		fmt.Fprintf(stderr, "quadrant sandbox prune: --older-than %q: %v\n", *older, err)
		return 2
	}
	removed, err := sandbox.PruneTemplates("", age)
	var freed int64
	for _, t := range removed {
		fmt.Fprintf(stdout, "removed %s (%s, last used %s)\n", t.Dir, mib(t.Size), t.LastUsed.Format(time.RFC3339))
		freed += t.Size
	}
	fmt.Fprintf(stdout, "%d template(s) removed, %s freed\n", len(removed), mib(freed))
	if err != nil {
		fmt.Fprintf(stderr, "quadrant sandbox prune: %v\n", err)
		return 3
	}
	return 0
}

// parseAge reads 30d (days) or a Go duration.
func parseAge(s string) (time.Duration, error) {
	if d, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(d)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("want a number of days such as 30d, or a duration such as 12h")
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("want a number of days such as 30d, or a duration such as 12h")
	}
	return d, nil
}

func sandboxDown(args []string, stdout, stderr io.Writer) int {
	fs := newSandboxFlags("down", stderr)
	timeout := fs.Duration("timeout", 3*time.Minute, "how long to wait for the sandbox to stop")
	all := fs.Bool("all", false, "also look among other OS users' sandboxes (NAME or OWNER/NAME); stopping one still needs the right to signal it")
	if code := parseSandboxFlags(fs, args, stdout, stderr); code >= 0 {
		return code
	}
	if fs.NArg() > 1 {
		fmt.Fprintln(stderr, "quadrant sandbox down: at most one NAME")
		return 2
	}
	if *all && fs.NArg() == 0 {
		fmt.Fprintln(stderr, "quadrant sandbox down: --all needs a NAME (or OWNER/NAME): it never stops every sandbox at once")
		return 2
	}
	live, stale := sandboxStates(*all, stderr)
	var st *sandboxState
	switch {
	case fs.NArg() == 1:
		want := fs.Arg(0)
		wantOwner, wantName, hasOwner := strings.Cut(want, "/")
		if !hasOwner {
			wantOwner, wantName = "", want
		}
		var found []*sandboxState
		for i := range live {
			if live[i].Name == wantName && (wantOwner == "" || live[i].Owner == wantOwner) {
				found = append(found, &live[i])
			}
		}
		if len(found) > 1 {
			var owners []string
			for _, f := range found {
				owners = append(owners, f.Owner+"/"+f.Name)
			}
			fmt.Fprintf(stderr, "quadrant sandbox down: several users have a sandbox %s (%s): name one as OWNER/NAME\n", wantName, strings.Join(owners, ", "))
			return 2
		}
		if len(found) == 1 {
			st = found[0]
		}
		if st == nil {
			for _, n := range stale {
				if n == want {
					fmt.Fprintf(stdout, "sandbox %s was not running any more; cleaned up its leftovers\n", n)
					return 0
				}
			}
			hint := "see `quadrant sandbox list`"
			if !*all {
				hint = "see `quadrant sandbox list`; another user's needs --all"
			}
			fmt.Fprintf(stderr, "quadrant sandbox down: no sandbox named %q is up (%s)\n", want, hint)
			return 2
		}
	case len(live) == 1:
		st = &live[0]
	case len(live) == 0:
		fmt.Fprintln(stderr, "quadrant sandbox down: no sandbox of yours is up")
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
		if errors.Is(err, syscall.EPERM) {
			fmt.Fprintf(stderr, "quadrant sandbox down %s: it belongs to OS user %s (pid %d), and you may not signal that process: ask %s, or run this as root\n", st.Name, st.Owner, st.Pid, st.Owner)
			return 3
		}
		fmt.Fprintf(stderr, "quadrant sandbox down %s: signal pid %d: %v\n", st.Name, st.Pid, err)
		return 3
	}
	// Done when the process has stopped the servers, removed its state file and exited.
	deadline := time.Now().Add(*timeout)
	for sandboxAlive(*st) || (fileExists(st.path) && syscall.Kill(st.Pid, 0) == nil) {
		if time.Now().After(deadline) {
			fmt.Fprintf(stderr, "quadrant sandbox down %s: pid %d still running after %s\n", st.Name, st.Pid, *timeout)
			return 3
		}
		time.Sleep(100 * time.Millisecond)
	}
	fmt.Fprintf(stdout, "sandbox %s stopped\n", st.Name)
	return 0
}

// lockName takes the flock of a sandbox name, or fails at once when another process has it.
func lockName(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
