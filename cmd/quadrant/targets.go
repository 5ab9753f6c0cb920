package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/quadrant-bench/quadrant/spec"
)

// A --target NAME=DSN is on the command line, which every local user can read
// (/proc/PID/cmdline), so its password need not be: the DSN may say ${{ env.NAME }} (the
// shell leaves it alone in single quotes) or passwordFile=PATH. Every command that takes
// --target reads it through targetArgs.

// targetHelp ends the usage of every --target flag (withTargetHelp).
const targetHelp = "; its password as ${{ env.NAME }} (in single quotes) or ?" + passwordFileParam + "=FILE, not on the command line"

// withTargetHelp says in the usage of fs's --target, whichever command it is, how to keep
// its password off the command line.
func withTargetHelp(fs *flag.FlagSet) {
	// kube's pods cannot read a file of this machine: its usage says what they read
	if f := fs.Lookup("target"); f != nil && fs.Name() != "kube" && !strings.HasSuffix(f.Usage, targetHelp) {
		f.Usage += targetHelp
	}
}

// passwordFileParam is the --target DSN parameter naming a file that holds the password.
const passwordFileParam = "passwordFile"

var targetEnvRef = regexp.MustCompile(`\$\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)

// targetArg is one --target, its DSN with the password in it.
type targetArg struct {
	Name, DSN string
	// Password is the DSN's password (from the environment, a file or the command line),
	// a secret that whatever the command writes masks.
	Password string
}

// targetSource says where a --target's ${{ env.NAME }} and passwordFile= are read:
// here, or (kube) stand-ins for what each pod reads.
type targetSource struct {
	env   func(name string) (string, bool)
	files bool // passwordFile= is read; false: refused, with why
	why   string
}

var hostTargets = targetSource{env: os.LookupEnv, files: true}

// targetArgs reads --target NAME=DSN values in order, each NAME once. A password written
// in the DSN itself works, with one warning (warnf) naming the better forms.
func targetArgs(list []string, src targetSource, warnf func(format string, a ...any)) ([]targetArg, error) {
	var out []targetArg
	seen := map[string]bool{}
	var literal []string
	for _, kv := range list {
		name, raw, ok := strings.Cut(kv, "=")
		if !ok || name == "" || raw == "" {
			return nil, fmt.Errorf("--target %q: want NAME=DSN, e.g. --target primary='bench:${{ env.BENCH_PW }}@tcp(db1:3306)/sbtest'", spec.RedactDSN(kv))
		}
		if seen[name] {
			return nil, fmt.Errorf("--target %s is given twice: give each target once", name)
		}
		seen[name] = true
		if pw, ok := dsnPassword(raw); ok && pw != "" && !strings.Contains(pw, "${{") {
			literal = append(literal, name)
		}
		t, err := src.resolve(name, raw)
		if err != nil {
			return nil, fmt.Errorf("--target %s: %w", name, err)
		}
		out = append(out, t)
	}
	if len(literal) > 0 {
		warnf("warning: the password of --target %s is on the command line, which every local user can read (ps, /proc/PID/cmdline); "+
			"write it as ${{ env.NAME }} in single quotes (--target '%s=user:${{ env.DB_PW }}@tcp(host:3306)/db') or read it from a file (--target '%s=user@tcp(host:3306)/db?%s=/path/to/file')",
			strings.Join(literal, ", "), literal[0], literal[0], passwordFileParam)
	}
	return out, nil
}

// dsnFlag reads a DSN flag that is not a --target (export's --dsn) as targetArgs reads a
// --target's DSN, warning as it does when the password is written in it.
func dsnFlag(flag, raw string, warnf func(format string, a ...any)) (string, error) {
	if pw, ok := dsnPassword(raw); ok && pw != "" && !strings.Contains(pw, "${{") {
		warnf("warning: the password of %s is on the command line, which every local user can read (ps, /proc/PID/cmdline); "+
			"write it as ${{ env.NAME }} in single quotes (%s 'user:${{ env.DB_PW }}@tcp(host:3306)/db') or read it from a file (%s 'user@tcp(host:3306)/db?%s=/path/to/file')",
			flag, flag, flag, passwordFileParam)
	}
	t, err := hostTargets.resolve(flag, raw)
	if err != nil {
		return "", fmt.Errorf("%s: %w", flag, err)
	}
	return t.DSN, nil
}

// resolve expands ${{ env.NAME }} in raw and reads its passwordFile=.
func (src targetSource) resolve(name, raw string) (targetArg, error) {
	var missing []string
	dsn := targetEnvRef.ReplaceAllStringFunc(raw, func(ref string) string {
		v, ok := src.env(targetEnvRef.FindStringSubmatch(ref)[1])
		if !ok {
			missing = append(missing, ref)
		}
		return v
	})
	if len(missing) > 0 {
		return targetArg{}, fmt.Errorf("%s: not set in the environment; export it first", strings.Join(missing, ", "))
	}
	dsn, file := spec.CutDSNParam(dsn, passwordFileParam)
	if file != "" {
		if !src.files {
			return targetArg{}, fmt.Errorf("%s= cannot be read here: %s", passwordFileParam, src.why)
		}
		var err error
		if dsn, err = withPasswordFile(dsn, file); err != nil {
			return targetArg{}, err
		}
	}
	pw, _ := dsnPassword(dsn)
	return targetArg{Name: name, DSN: dsn, Password: pw}, nil
}

// withPasswordFile puts the first line of file into dsn as its password.
func withPasswordFile(dsn, file string) (string, error) {
	at := strings.LastIndex(dsn, "@")
	if at < 0 {
		return "", fmt.Errorf("%s=%s: the DSN has no user@ to give the password to, e.g. bench@tcp(host:3306)/db?%s=%s", passwordFileParam, file, passwordFileParam, file)
	}
	if _, ok := dsnPassword(dsn); ok {
		return "", fmt.Errorf("%s=%s and a password in the DSN: give one of them", passwordFileParam, file)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("%s: %w", passwordFileParam, err)
	}
	pw, _, _ := strings.Cut(string(data), "\n")
	pw = strings.TrimSuffix(pw, "\r")
	if pw == "" {
		return "", fmt.Errorf("%s=%s: the file's first line is empty; write the password on it", passwordFileParam, file)
	}
	return dsn[:at] + ":" + pw + dsn[at:], nil
}

// dsnPassword is the password part of a DSN user:password@..., and whether it has one.
func dsnPassword(dsn string) (string, bool) {
	at := strings.LastIndex(dsn, "@")
	if at < 0 {
		return "", false
	}
	_, pw, ok := strings.Cut(dsn[:at], ":")
	return pw, ok
}

// targetOverrides is the --target list of a command that loads a plan: NAME -> DSN for
// spec.Options.Targets (spec hides their passwords as it hides the environment's values).
func targetOverrides(list []string, warnf func(format string, a ...any)) (map[string]string, error) {
	args, err := targetArgs(list, hostTargets, warnf)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, t := range args {
		out[t.Name] = t.DSN
	}
	return out, nil
}

// stderrf prints one line on w after prefix (the command's, "quadrant verify: "), for
// targetArgs' warning.
func stderrf(w io.Writer, prefix string) func(format string, a ...any) {
	return func(format string, a ...any) { fmt.Fprintf(w, prefix+format+"\n", a...) }
}
