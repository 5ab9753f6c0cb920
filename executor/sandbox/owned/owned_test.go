package owned

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
)

// A name is one process's: a second claim fails while the first holds it, whether the
// first is still starting (no state file yet) or up (its state names a live process),
// and list sees the one up; once released, the name is free again.
func TestAClaimedNameIsOneOwners(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	c, err := ClaimName("a")
	if err != nil {
		t.Fatal(err)
	}
	var inUse *InUseError
	if _, err := ClaimName("a"); !errors.As(err, &inUse) || inUse.Pid != 0 {
		t.Fatalf("a second claim while the first starts: %v, want in use with no pid", err)
	}
	me := State{Name: "a", Pid: os.Getpid(), ProcStart: sandbox.ProcessStart(os.Getpid())}
	if err := c.Record(me); err != nil {
		t.Fatal(err)
	}
	live, stale := List(false, func(err error) { t.Errorf("warned: %v", err) })
	if len(live) != 1 || live[0].Name != "a" || len(stale) != 0 {
		t.Fatalf("list: live %+v, stale %v", live, stale)
	}
	c.Release()
	if _, err := os.Stat(filepath.Join(StateDir(), "a.json")); err == nil {
		t.Errorf("release left the state file")
	}
	c2, err := ClaimName("a")
	if err != nil {
		t.Fatalf("the name once released: %v", err)
	}
	c2.Release()
}

// A state file whose process is gone is stale: list removes it and the sandbox directory it
// names (its servers died with their owner), and says so.
func TestListRemovesStaleState(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	c, err := ClaimName("gone")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "quadrant-gone")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	// A pid that is running but whose start time is another: the recorded process is gone.
	if err := c.Record(State{Name: "gone", Pid: os.Getpid(), ProcStart: "not this process", Dir: dir}); err != nil {
		t.Fatal(err)
	}
	c.lock.Close() // the owner died: the kernel dropped its lock, its state file stayed
	live, stale := List(false, func(err error) { t.Errorf("warned: %v", err) })
	if len(live) != 0 || len(stale) != 1 || stale[0] != "gone" {
		t.Fatalf("list: live %+v, stale %v; want gone stale", live, stale)
	}
	for _, p := range []string{filepath.Join(StateDir(), "gone.json"), dir} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s is still there", p)
		}
	}
}

// A state directory that others may write is refused: another user could plant a pid for
// `down` to signal.
func TestStateDirNotYoursAloneIsRefused(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	if err := os.MkdirAll(StateDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(StateDir(), 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := ClaimName("a"); err == nil || !strings.Contains(err.Error(), "is not yours alone") {
		t.Fatalf("claim in a directory others write: %v", err)
	}
	var warned []error
	List(false, func(err error) { warned = append(warned, err) })
	if len(warned) != 1 {
		t.Errorf("list warned %v, want the directory once", warned)
	}
}

// down's choice: the only one up, NAME, OWNER/NAME among several users', a stale one, and
// what it refuses.
func TestFindTheSandboxDownMeans(t *testing.T) {
	live := []State{{Name: "a", Owner: "ann"}, {Name: "b", Owner: "ann"}, {Name: "b", Owner: "bob"}}
	for _, c := range []struct {
		live  []State
		want  string
		owner string // of the one found; "" none
		err   string
	}{
		{live[:1], "", "ann", ""},
		{nil, "", "", "no sandbox of yours is up"},
		{live, "", "", "several sandboxes are up (a, b, b): name one"},
		{live, "a", "ann", ""},
		{live, "b", "", "several users have a sandbox b (ann/b, bob/b): name one as OWNER/NAME"},
		{live, "bob/b", "bob", ""},
		{live, "old", "", ""}, // stale: cleaned up
		{live, "c", "", `no sandbox named "c" is up (see ` + "`quadrant sandbox list`; another user's needs --all)"},
	} {
		st, err := Find(c.live, []string{"old"}, c.want, false)
		got := ""
		if st != nil {
			got = st.Owner
		}
		if got != c.owner || (err == nil) != (c.err == "") || err != nil && err.Error() != c.err {
			t.Errorf("Find(%q): %q, %v; want %q, %q", c.want, got, err, c.owner, c.err)
		}
	}
}
