package owned

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"
)

// Find is the sandbox `down` means among live and stale (List's): want is NAME or
// OWNER/NAME, "" when this user has only one up. A nil State with no error is a stale one
// of that name: List cleaned up its leftovers. all says other users' were listed too (the
// hint of a name not found).
func Find(live []State, stale []string, want string, all bool) (*State, error) {
	if want == "" {
		switch len(live) {
		case 1:
			return &live[0], nil
		case 0:
			return nil, errors.New("no sandbox of yours is up")
		}
		var names []string
		for _, l := range live {
			names = append(names, l.Name)
		}
		return nil, fmt.Errorf("several sandboxes are up (%s): name one", strings.Join(names, ", "))
	}
	wantOwner, wantName, hasOwner := strings.Cut(want, "/")
	if !hasOwner {
		wantOwner, wantName = "", want
	}
	var found []*State
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
		return nil, fmt.Errorf("several users have a sandbox %s (%s): name one as OWNER/NAME", wantName, strings.Join(owners, ", "))
	}
	if len(found) == 1 {
		return found[0], nil
	}
	for _, n := range stale {
		if n == want {
			return nil, nil
		}
	}
	hint := "see `quadrant sandbox list`"
	if !all {
		hint = "see `quadrant sandbox list`; another user's needs --all"
	}
	return nil, fmt.Errorf("no sandbox named %q is up (%s)", want, hint)
}

// Stop asks st's owner process to stop its sandbox and waits, at most timeout, until it
// has: its servers stopped, its state file removed, itself exited.
func Stop(st *State, timeout time.Duration) error {
	if err := syscall.Kill(st.Pid, syscall.SIGTERM); err != nil {
		if errors.Is(err, syscall.EPERM) {
			return fmt.Errorf("it belongs to OS user %s (pid %d), and you may not signal that process: ask %s, or run this as root", st.Owner, st.Pid, st.Owner)
		}
		return fmt.Errorf("signal pid %d: %v", st.Pid, err)
	}
	deadline := time.Now().Add(timeout)
	for st.Alive() || (fileExists(st.path) && syscall.Kill(st.Pid, 0) == nil) {
		if time.Now().After(deadline) {
			return fmt.Errorf("pid %d still running after %s", st.Pid, timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
