// Command quadrant load-tests MySQL and MariaDB servers from declarative YAML plans.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/quadrant-bench/quadrant/results"
)

// Exit codes of the contract.
const (
	exitOK      = 0
	exitAssert  = 1
	exitInvalid = 2
	exitFailed  = 3
	// exitInconclusive: the gate (--fail-on) could not tell, no check failed and the run
	// passed: an interval wider than its threshold, too few repeats, the host's load changed.
	exitInconclusive = 4
	exitSignaled     = 130
)

// command is one subcommand. Other files of this package add theirs to the table in commands.
type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

func commands() []command {
	return []command{
		{"run", "run a plan and write its results folder and report", runRun},
		{"report", "rebuild the report of a results folder from the folder alone", runReport},
		{"compare", "compare two or more results folders, cell by cell", runCompare},
		{"rerun", "run a results folder's plan again, e.g. on your own server", runRerun},
		{"merge", "add up the results folders of a sharded run (run --shard K/N) into one", runMerge},
		{"kube", "print the Kubernetes manifests (ConfigMap, Indexed Job) of a sharded run", runKube},
		{"pack", "write a results folder as one archive (tar.gz) on stdout", runPack},
		{"export", "load results folders into SQL tables (runs, iterations, time series)", runExport},
		{"capture", "record what a server runs into a capture file that replay replays per session", runCapture},
		{"generate", "fill your own schema's tables with generated rows, keys included (a generate: step outside a plan)", runGenerate},
		{"verify", "run captured reads on two servers or more and compare their rows and plans with the first", runVerify},
		{"sandbox", "start or stop throwaway local servers (up, down, list)", runSandbox},
		{"validate", "check plans and print every problem with its position", runValidate},
		{"explain", "show every iteration and every step a plan would run, without running it", runExplain},
		{"init", "print a starting plan (from a built-in template) on stdout", runInit},
		{"templates", "list the built-in plan templates", runTemplates},
		{"schema", "print the JSON Schema of plans (or the Markdown reference)", runSchema},
		{"version", "print quadrant's version", runVersion},
	}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	return dispatch(commands(), args, stdout, stderr)
}

// dispatch runs the command args[0]. A panic becomes a short "internal error" and exit 3, never a stack trace.
func dispatch(cmds []command, args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "quadrant: internal error: %v\nPlease report it with the plan and the command line.\n", r)
			code = exitFailed
		}
	}()
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		if len(args) > 1 && args[0] == "help" {
			return dispatch(cmds, []string{args[1], "--help"}, stdout, stderr)
		}
		usage(cmds, stdout)
		if len(args) == 0 {
			return exitInvalid
		}
		return exitOK
	}
	for _, c := range cmds {
		if c.name == args[0] {
			if c.name != "pack" { // pack's stdout is an archive, not text
				stdout = printableWriter{stdout}
			}
			return c.run(args[1:], stdout, printableWriter{stderr})
		}
	}
	fmt.Fprintf(stderr, "quadrant: unknown command %q; run `quadrant --help` for the list\n", args[0])
	return exitInvalid
}

func usage(cmds []command, w io.Writer) {
	fmt.Fprintf(w, "quadrant: load-test MySQL and MariaDB from declarative YAML plans.\n\nUsage: quadrant COMMAND [options]\n\nCommands:\n")
	for _, c := range cmds {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "\nRun `quadrant COMMAND --help` for a command's options.\n")
}

// newFlags makes a command's flag set: errors go to stderr, --help prints the usage to stdout.
func newFlags(name, synopsis, text string, stdout, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		out := fs.Output()
		fmt.Fprintf(out, "Usage: quadrant %s %s\n\n%s\n", name, synopsis, text)
		hasFlags := false
		fs.VisitAll(func(*flag.Flag) { hasFlags = true })
		if hasFlags {
			fmt.Fprintf(out, "\nOptions:\n")
			fs.PrintDefaults()
		}
	}
	return fs
}

// parseFlags parses args, allowing flags after positional arguments (quadrant explain plan.yaml --set x=1).
// It returns the positional arguments, and an exit code when the command should stop.
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) ([]string, int, bool) {
	withTargetHelp(fs)
	var pos []string
	for {
		for _, a := range args {
			if a == "-h" || a == "--help" || a == "-help" {
				fs.SetOutput(stdout)
				fs.Usage()
				return nil, exitOK, true
			}
		}
		if err := fs.Parse(args); err != nil {
			return nil, exitInvalid, true
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, 0, false
		}
		if rest[0] == "--" {
			return append(pos, rest[1:]...), 0, false
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// multiFlag is a repeatable string flag (--set K=V --set K2=V2).
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ", ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// printableWriter is a command's stdout or stderr: a folder or a plan is a stranger's, and
// whatever of it a command prints (a plan's name, a setting's value, a server's error)
// reaches a terminal that obeys control characters. Every control but newlines and tabs is
// escaped (results.PrintableText), once, here, for every command. A write is one formatted
// print, so a character is never split across two.
type printableWriter struct{ w io.Writer }

func (p printableWriter) Write(b []byte) (int, error) {
	if _, err := io.WriteString(p.w, results.PrintableText(string(b))); err != nil {
		return 0, err
	}
	return len(b), nil
}

// rawWriter is the writer under a printableWriter, for the console's own control
// sequences (its live status line) and to ask whether it is a terminal.
func rawWriter(w io.Writer) io.Writer {
	if p, ok := w.(printableWriter); ok {
		return p.w
	}
	return w
}
