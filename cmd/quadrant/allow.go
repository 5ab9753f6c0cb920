package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/trust"
)

// allowFlags are what the user lets a plan do beyond its folder and its targets
// (docs/security.md): run, rerun and explain take them.
type allowFlags struct {
	shell bool
	// server lets a results folder's SQL change its targets' servers beyond its own
	// databases (--allow-server-changes).
	server bool
	paths  multiFlag
	addrs  multiFlag
	env    multiFlag
	// copyLimit bounds the data files copied into the results folder (--copy-limit).
	copyLimit sizeFlag
}

func (a *allowFlags) add(fs *flag.FlagSet) {
	fs.BoolVar(&a.shell, "allow-shell", false, "let the plan run code on this host: shell steps, drop_caches, restart commands, sysbench Lua scripts, server binaries of a sandbox's basedir")
	fs.BoolVar(&a.server, "allow-server-changes", false, "let a results folder's SQL change the servers beyond its own databases: SET GLOBAL/PERSIST, users and grants, plugins, replication, SHUTDOWN, files of the server's host (a SET GLOBAL is restored at the end)")
	fs.Var(&a.paths, "allow-path", "let the plan read and write files under `DIR` besides its own folder (repeatable)")
	fs.Var(&a.addrs, "allow-address", "let a results folder's plan connect to `HOST:PORT` besides its targets, e.g. an SNMP agent (repeatable)")
	fs.Var(&a.copyLimit, "copy-limit", "copy a data file the plan reads (sql_file, replay, schema) into the results folder only up to `SIZE` (e.g. 4G; 0: no limit)")
	fs.Var(&a.env, "allow-env", "pass the environment variable `NAME` to a results folder's plan (repeatable; your own plans read the environment whole)")
}

// folder says the plan at path is a stranger's: a results folder's plan.yaml (run.json
// beside it), whichever command runs it.
func folder(path string) bool {
	_, err := os.Lstat(filepath.Join(filepath.Dir(path), results.RunFile)) // any run.json, even a link, makes it a folder
	return err == nil
}

// planOf is the plan file a command line names: a results folder stands for its plan.yaml,
// as rerun takes it, so explain and validate read what rerun would run. A results folder's
// plan (named by the folder or by its plan.yaml) is refused, as rerun refuses it, when the
// folder holds a link that may lead out of it: the plan loader would follow it and quote
// the linked file's lines in its errors.
func planOf(arg string) (string, error) {
	path := arg
	if fi, err := os.Stat(arg); err == nil && fi.IsDir() {
		if _, err := os.Lstat(filepath.Join(arg, results.RunFile)); err == nil {
			path = filepath.Join(arg, results.PlanFile)
		}
	}
	if folder(path) {
		if err := results.CheckFolder(filepath.Dir(path)); err != nil {
			return "", err
		}
	}
	return path, nil
}

// options are the load options these allowances give the plan at path.
func (a *allowFlags) options(path string, opts spec.Options) spec.Options {
	opts.Folder = folder(path)
	opts.AllowEnv = a.env
	opts.AllowPaths = a.paths
	return opts
}

// allow is what trust.Check is given for the plan at path, writing its results under out.
func (a *allowFlags) allow(path, out string) trust.Allow {
	return trust.Allow{Shell: a.shell, Paths: a.paths, Results: out, Addresses: a.addrs, ServerChanges: a.server, Folder: folder(path)}
}

// onlyCode says every refused effect is code to run, which a terminal may allow with a yes.
func onlyCode(r *trust.Refusal) bool {
	for _, it := range r.Items {
		if it.Effect.Kind != spec.RunsCode {
			return false
		}
	}
	return true
}

// printRefusal says, on w, everything the plan would do that is not allowed.
func printRefusal(w io.Writer, r *trust.Refusal, plan string) {
	fmt.Fprintf(w, "quadrant: nothing was run: the plan would act beyond its folder and its targets:\n")
	for _, it := range r.Items {
		fmt.Fprintf(w, "  %s: %s  [%s]\n", it.Effect.Pos, results.Printable(it.Why), it.Flag)
	}
	fmt.Fprintf(w, "Read what each does (quadrant explain %s), then allow it with %s, or remove it from the plan.\n",
		plan, strings.Join(trust.Flags(r.Items), ", "))
}
