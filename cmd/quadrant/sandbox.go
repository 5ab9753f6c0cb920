package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/owned"
)

const sandboxIntro = `Usage: quadrant sandbox up|down|list|prune [options]

Throwaway local MariaDB/MySQL servers on 127.0.0.1, as a plan's sandbox target gets them.

`

// sandboxHelp is each subcommand's part of the usage: `sandbox --help` prints them all,
// `sandbox CMD --help` its own, then its options.
var sandboxHelp = map[string]string{
	"up": `  quadrant sandbox up [--name N] [--replicas N] [--semisync] [--galera N] [--config K=V]... [--flavor F] [--basedir D] [--dir D] [--keep] [--run-as USER] [--tls] [--print-env] [--detach]
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
      With --galera N it starts a Galera cluster of N MariaDB nodes instead (NAME, NAME_node2,
      ...; node 1 bootstraps, the others join by rsync SST), as a plan's sandbox: {galera: N};
      --print-env names the other nodes QUADRANT_SANDBOX_NODEn_ (n from 2).
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

// upOptions parses and checks the flags of `sandbox up`; code is -1 when the sandbox is to
// start, else what to exit with.
func upOptions(args []string, stdout, stderr io.Writer) (o sandbox.Options, detach, printEnv bool, code int) {
	fs := newSandboxFlags("up", stderr)
	fs.StringVar(&o.Name, "name", "sandbox", "label of the sandbox (servers NAME, NAME_replica1, ...)")
	fs.IntVar(&o.Replicas, "replicas", 0, "number of replicas")
	fs.IntVar(&o.Galera, "galera", 0, "a Galera cluster of this many nodes instead of a primary (MariaDB with the galera-4 provider)")
	semisync := fs.Bool("semisync", false, "semi-synchronous replication (default async)")
	fs.StringVar(&o.Flavor, "flavor", "auto", "auto, mariadb or mysql")
	fs.StringVar(&o.Basedir, "basedir", "", "server installation holding bin/ or sbin/ (default: PATH, /usr/sbin)")
	fs.StringVar(&o.Dir, "dir", "", "parent directory of the sandbox's datadirs (default $TMPDIR)")
	fs.BoolVar(&o.Keep, "keep", false, "keep the datadirs after stopping")
	fs.StringVar(&o.RunAs, "run-as", "", "OS user the servers run as when quadrant runs as root (default mysql; never root)")
	fs.BoolVar(&o.TLS, "tls", false, "require TLS, with a certificate signed by a CA made for the sandbox (its file is printed)")
	detachF := fs.Bool("detach", false, "return once the servers answer, the sandbox living on in an owner process until `quadrant sandbox down NAME`")
	printEnvF := fs.Bool("print-env", false, "print shell export lines (QUADRANT_SANDBOX_DSN, _HOST, _PORT, _USER, _PASSWORD, _CNF; REPLICAn_ for replicas) instead of the DSN table")
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
		return o, false, false, code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "quadrant sandbox up: unexpected argument %q (options only)\n", fs.Arg(0))
		return o, false, false, 2
	}
	switch o.Flavor {
	case "auto", "mariadb", "mysql":
	default:
		fmt.Fprintf(stderr, "quadrant sandbox up: --flavor %q: want auto, mariadb or mysql\n", o.Flavor)
		return o, false, false, 2
	}
	if o.Replicas < 0 {
		fmt.Fprintf(stderr, "quadrant sandbox up: --replicas %d: want 0 or more\n", o.Replicas)
		return o, false, false, 2
	}
	if *semisync {
		o.Replication = "semisync"
		if o.Replicas == 0 {
			fmt.Fprintln(stderr, "quadrant sandbox up: --semisync needs --replicas 1 or more")
			return o, false, false, 2
		}
	}
	if msg := galeraFlagsRefused(o); msg != "" {
		fmt.Fprintf(stderr, "quadrant sandbox up: %s\n", msg)
		return o, false, false, 2
	}
	return o, *detachF, *printEnvF, -1
}

// galeraFlagsRefused says what in up's flags a Galera sandbox cannot be, as a plan's
// validation does for sandbox: {galera: N}; "" when nothing.
func galeraFlagsRefused(o sandbox.Options) string {
	switch {
	case o.Galera < 0:
		return fmt.Sprintf("--galera %d: want the number of nodes, 1 or more", o.Galera)
	case o.Galera == 0:
		return ""
	case o.Replicas > 0:
		return "--galera with --replicas: a Galera cluster has nodes, not replicas; give one of them"
	case o.TLS:
		return "--galera with --tls: a TLS Galera sandbox is not built; leave --tls out"
	case o.Flavor == "mysql":
		return "--galera with --flavor mysql: Galera sandboxes are MariaDB's (built with wsrep); use --flavor mariadb or auto"
	}
	return ""
}

func sandboxUp(args []string, stdout, stderr io.Writer) int {
	o, detach, printEnv, code := upOptions(args, stdout, stderr)
	if code >= 0 {
		return code
	}
	owner := owned.IsOwner()
	if detach && !owner {
		return sandboxDetach(args, stdout, stderr)
	}
	o.Logf = func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }

	claim, err := owned.ClaimName(o.Name)
	var inUse *owned.InUseError
	switch {
	case errors.As(err, &inUse):
		fmt.Fprintf(stderr, "quadrant sandbox up: %v; use another --name or run `quadrant sandbox down %s`\n", err, o.Name)
		return 2
	case err != nil:
		fmt.Fprintf(stderr, "quadrant sandbox up: %v\n", err)
		return 3
	}
	defer claim.Release()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c, err := sandbox.Start(ctx, o)
	if err != nil {
		fmt.Fprintf(stderr, "quadrant sandbox up: %v\n", err)
		return startExitCode(ctx, err)
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		if err := c.Stop(sctx); err != nil {
			fmt.Fprintf(stderr, "quadrant sandbox: stop %s: %v\n", o.Name, err)
		}
	}()

	printSandboxUp(stdout, c, printEnv)
	if err := claim.Record(owned.NewState(o.Name, c)); err != nil {
		fmt.Fprintf(stderr, "quadrant sandbox: %v (`down` and `list` will not see this sandbox)\n", err)
	}
	if owner {
		fmt.Fprintf(stderr, "sandbox %s is up (owner pid %d, servers running as OS user %s, password in %s); stop it with `quadrant sandbox down %s`\n",
			o.Name, os.Getpid(), c.RunAs(), c.PasswordFile(), o.Name)
		if err := owned.DetachOutput(claim.LogPath()); err != nil {
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

// startExitCode is the exit code of a sandbox that did not start: 130 when interrupted, 2
// for what the user must change (no server, a config option, the server's user), else 3.
func startExitCode(ctx context.Context, err error) int {
	if ctx.Err() != nil {
		return 130
	}
	if errors.Is(err, sandbox.ErrNoServer) || strings.Contains(err.Error(), "config option") || errors.Is(err, sandbox.ErrServerUser) {
		return 2
	}
	return 3
}

// printSandboxUp prints the servers' DSNs (shell export lines with printEnv) and the CA
// file of a TLS sandbox.
func printSandboxUp(stdout io.Writer, c *sandbox.Cluster, printEnv bool) {
	if printEnv {
		printSandboxEnv(stdout, c)
		return
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	for _, s := range c.Servers() {
		fmt.Fprintf(tw, "%s\t%s\n", s.Name(), s.DSN(""))
	}
	tw.Flush()
	if ca := c.CAFile(); ca != "" {
		fmt.Fprintf(stdout, "CA: %s\n", ca)
	}
}

// sandboxDetach runs `up` again as the sandbox's owner (owned.Detach) and returns once its
// servers answer: 0, else the owner's exit code.
func sandboxDetach(args []string, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintf(stderr, "quadrant sandbox up --detach: %v\n", err)
		return 3
	}
	exe, err := os.Executable()
	if err != nil {
		return fail(err)
	}
	err = owned.Detach(exec.Command(exe, append([]string{"sandbox", "up"}, args...)...), stdout, stderr)
	var exit *owned.OwnerExitError
	switch {
	case errors.As(err, &exit):
		return exit.Code
	case err != nil:
		return fail(err)
	}
	return 0
}

// printSandboxEnv writes shell export lines for scripts: eval "$(...)" or source a file of them.
func printSandboxEnv(w io.Writer, c *sandbox.Cluster) {
	for i, s := range c.Servers() {
		prefix := "QUADRANT_SANDBOX_"
		switch {
		case i > 0 && c.Galera() > 0:
			prefix = fmt.Sprintf("QUADRANT_SANDBOX_NODE%d_", i+1)
		case i > 0:
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

func sandboxList(args []string, stdout, stderr io.Writer) int {
	fs := newSandboxFlags("list", stderr)
	all := fs.Bool("all", false, "list every OS user's sandboxes, with their owner")
	if code := parseSandboxFlags(fs, args, stdout, stderr); code >= 0 {
		return code
	}
	live, stale := owned.List(*all, sandboxWarn(stderr))
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
	owner := func(st owned.State) string {
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
	live, stale := owned.List(*all, sandboxWarn(stderr))
	st, err := owned.Find(live, stale, fs.Arg(0), *all)
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "quadrant sandbox down: %v\n", err)
		return 2
	case st == nil:
		fmt.Fprintf(stdout, "sandbox %s was not running any more; cleaned up its leftovers\n", fs.Arg(0))
		return 0
	}
	if err := owned.Stop(st, *timeout); err != nil {
		fmt.Fprintf(stderr, "quadrant sandbox down %s: %v\n", st.Name, err)
		return 3
	}
	fmt.Fprintf(stdout, "sandbox %s stopped\n", st.Name)
	return 0
}

// sandboxWarn prints what is wrong with the user's sandbox state files.
func sandboxWarn(stderr io.Writer) func(error) {
	return func(err error) { fmt.Fprintf(stderr, "quadrant sandbox: %v\n", err) }
}
