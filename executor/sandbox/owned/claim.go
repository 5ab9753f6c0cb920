package owned

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// A Claim is a sandbox name made this process's for its whole life: two `up --name X`
// started at the same instant both see no state file, but only one gets the name's lock
// (the kernel drops it when the process dies, even by SIGKILL).
type Claim struct {
	dir, name string
	lock      *os.File
}

// InUseError is a name another process has: Pid is its owner's, 0 when it is still starting.
type InUseError struct {
	Name string
	Pid  int
}

func (e *InUseError) Error() string {
	if e.Pid == 0 {
		return fmt.Sprintf("a sandbox named %s is already up or starting", e.Name)
	}
	return fmt.Sprintf("a sandbox named %s is already up (pid %d)", e.Name, e.Pid)
}

// ClaimName claims name in this user's state directory (made if need be, refused when it
// is not the user's alone); an *InUseError when another process has it.
func ClaimName(name string) (*Claim, error) {
	dir, err := ensureStateDir()
	if err != nil {
		return nil, err
	}
	c := &Claim{dir: dir, name: name}
	if c.lock, err = lockFile(filepath.Join(dir, name+".lock")); err != nil {
		return nil, &InUseError{Name: name}
	}
	if st, err := readState(c.statePath()); err == nil && st.Alive() {
		c.lock.Close()
		return nil, &InUseError{Name: name, Pid: st.Pid}
	}
	return c, nil
}

func (c *Claim) statePath() string { return filepath.Join(c.dir, c.name+".json") }

// LogPath is where the owner of a detached sandbox writes once `up --detach` returned.
func (c *Claim) LogPath() string { return filepath.Join(c.dir, c.name+".log") }

// Record writes st as the name's state file, for `down` and `list`.
func (c *Claim) Record(st State) error { return writeState(c.statePath(), st) }

// Release removes the state file (the sandbox is stopped) and gives the name up.
func (c *Claim) Release() {
	os.Remove(c.statePath())
	c.lock.Close()
}

// lockFile takes the flock of path, or fails at once when another process has it.
func lockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
