// Package owned keeps the sandboxes that `quadrant sandbox up` processes own, between one
// command and the next: each owner's state file (what `down` signals and `list` shows; it
// holds no password), the per-user directory of them (refused when it is not the user's
// alone), the lock that makes a name one process's, whether an owner still runs, finding
// the one `down` means and stopping it, and the hand-over of `up --detach` to its owner
// process. The CLI parses the flags and prints; what it decides is here.
package owned

import (
	"encoding/json"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/results"
)

// State is what `up` records for `down` and `list`. It holds no password: with --all,
// other users read it.
type State struct {
	Name         string    `json:"name"`
	Pid          int       `json:"pid"`
	ProcStart    string    `json:"proc_start,omitempty"` // with Pid, names the process even after the pid is reused
	Owner        string    `json:"owner"`
	UID          int       `json:"uid"`
	RunAs        string    `json:"run_as,omitempty"` // the servers' OS user
	Dir          string    `json:"dir"`
	PasswordFile string    `json:"password_file,omitempty"`
	Started      time.Time `json:"started"`
	Servers      []Server  `json:"servers"`

	path string // the state file it was read from
}

// Server is one server of a sandbox, as `list` shows it.
type Server struct {
	Name   string `json:"name"`
	DSN    string `json:"dsn"` // password as ***
	Socket string `json:"socket"`
}

// NewState is what the state file says of sandbox c, named name, that this process owns.
func NewState(name string, c *sandbox.Cluster) State {
	st := State{Name: name, Pid: os.Getpid(), ProcStart: sandbox.ProcessStart(os.Getpid()), Owner: currentUser(), UID: os.Geteuid(),
		RunAs: c.RunAs(), Dir: c.Dir(), PasswordFile: c.PasswordFile(), Started: time.Now().UTC()}
	for _, s := range c.Servers() {
		st.Servers = append(st.Servers, Server{Name: s.Name(), DSN: s.RedactedDSN(""), Socket: s.Socket()})
	}
	return st
}

// StateDir is this OS user's directory of state files.
func StateDir() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "quadrant", "sandboxes")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("quadrant-%d", os.Geteuid()), "sandboxes")
}

// allStateDirs are the state directories of every user that this process can find: its own, and
// those under the shared temp dir and /run/user.
func allStateDirs() []string {
	dirs := []string{StateDir()}
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
	dir := StateDir()
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

func currentUser() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return strconv.Itoa(os.Geteuid())
}

func readState(path string) (State, error) {
	var st State
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

func writeState(path string, st State) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	// Readable by others (`list --all`): it holds no password.
	return results.WriteFileAtomic(path, b)
}

// Alive says the `up` process recorded in the state is still the one running (its pid has not
// been reused), judged by the owner file in the sandbox's directory.
func (st State) Alive() bool {
	if st.ProcStart != "" {
		return st.Pid > 0 && sandbox.ProcessStart(st.Pid) == st.ProcStart
	}
	pid, alive := sandbox.OwnerAlive(st.Dir)
	return alive && pid == st.Pid
}

// List reads the state files of this user (all: of every user it can find). Stale files
// of its own (process gone) are removed, with the sandbox directory they point to, and reported
// in stale; other users' stale files are skipped: theirs to clean. warn gets what is wrong
// with this user's own directory or files.
func List(all bool, warn func(error)) (live []State, stale []string) {
	dirs := []string{StateDir()}
	if all {
		dirs = allStateDirs()
	}
	own := filepath.Clean(StateDir())
	for _, dir := range dirs {
		mine := filepath.Clean(dir) == own && checkOwnDir(dir) == nil
		if filepath.Clean(dir) == own && !mine {
			if _, err := os.Lstat(dir); err == nil {
				warn(checkOwnDir(dir))
			}
			continue
		}
		paths, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		sort.Strings(paths)
		for _, p := range paths {
			st, err := readState(p)
			if err != nil {
				if mine {
					warn(fmt.Errorf("removing unreadable state file: %w", err))
					os.Remove(p)
				}
				continue
			}
			if st.Alive() {
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
