package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// DefaultRunAs is the account a server runs as when quadrant runs as root: the one the
// Debian/Ubuntu mariadb-server and mysql-server packages create for their own server.
const DefaultRunAs = "mysql"

// ErrServerUser is wrapped by the errors about the OS user a server would run as (missing, root,
// or another user asked for without root): a setup problem, not a failed start.
var ErrServerUser = errors.New("server OS user")

// account is the OS user a sandbox's server processes run as. A server started by root as root
// would let anyone who logs in to it (or who finds a hole in it) read and write any file on the
// machine, so root always hands the server to an unprivileged account.
type account struct {
	name     string
	uid, gid int
	self     bool // the account quadrant itself runs as: no credential switch, no chown
}

// resolveAccount picks the account for runAs ("" = the default). A non-root quadrant can only
// run servers as itself.
func resolveAccount(runAs string) (account, error) {
	if os.Geteuid() != 0 {
		me := currentName()
		if runAs != "" && runAs != me && runAs != strconv.Itoa(os.Geteuid()) {
			return account{}, fmt.Errorf("%w: run as %q: only root can start a server as another OS user; quadrant runs as %s, so remove run_as / --run-as and the server runs as %s", ErrServerUser, runAs, me, me)
		}
		return account{name: me, uid: os.Geteuid(), gid: os.Getegid(), self: true}, nil
	}
	name := runAs
	if name == "" {
		name = DefaultRunAs
	}
	u, err := user.Lookup(name)
	if err != nil {
		if _, ok := err.(user.UnknownUserError); ok || runAs == "" {
			return account{}, fmt.Errorf("%w: quadrant runs as root and never runs a server as root, so the server needs an unprivileged OS user, but user %q does not exist: "+
				"install mariadb-server (it creates the user %s), or create one with `useradd --system --no-create-home --shell /usr/sbin/nologin %s`, "+
				"or name another unprivileged user with --run-as or the sandbox's run_as (%v)", ErrServerUser, name, DefaultRunAs, name, err)
		}
		return account{}, fmt.Errorf("%w: look up OS user %q: %v", ErrServerUser, name, err)
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err1 != nil || err2 != nil {
		return account{}, fmt.Errorf("%w: OS user %q: uid %q / gid %q are not numbers", ErrServerUser, name, u.Uid, u.Gid)
	}
	if uid == 0 {
		return account{}, fmt.Errorf("%w: run as %q: that is the OS root (uid 0); the server must run as an unprivileged user such as %s (create it with `useradd --system --no-create-home --shell /usr/sbin/nologin %s`)", ErrServerUser, name, DefaultRunAs, DefaultRunAs)
	}
	return account{name: name, uid: uid, gid: gid}, nil
}

func currentName() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return strconv.Itoa(os.Geteuid())
}

// credential is what a process started for this account runs with; nil for quadrant's own account.
// Supplementary groups are dropped (an empty list), so root's groups do not leak to the server.
func (a account) credential() *syscall.Credential {
	if a.self {
		return nil
	}
	return &syscall.Credential{Uid: uint32(a.uid), Gid: uint32(a.gid), Groups: []uint32{}}
}

// own hands path to the account (no-op for quadrant's own account).
func (a account) own(path string) error {
	if a.self {
		return nil
	}
	if err := os.Lchown(path, a.uid, a.gid); err != nil {
		return fmt.Errorf("give %s to OS user %s: %w", path, a.name, err)
	}
	return nil
}

// ownTree hands a whole tree to the account.
func (a account) ownTree(root string) error {
	if a.self {
		return nil
	}
	return filepath.WalkDir(root, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return a.own(p)
	})
}

// privateDir creates dir (and missing parents) as a directory only the account may use: mode
// 0700, owned by it. An existing directory gets the same owner and mode.
func (a account) privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return err
	}
	return a.own(dir)
}

// checkReachable fails when the account cannot walk down to dir: every directory from / to dir
// needs the execute (search) bit for it. Quadrant does not chmod directories it did not create:
// the message says which one blocks and what to do.
func (a account) checkReachable(dir string) error {
	if a.self {
		return nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	for p := abs; ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		if !a.canSearch(st) {
			sys := st.Sys().(*syscall.Stat_t)
			return fmt.Errorf("the server runs as OS user %s, which cannot enter %s (owner uid %d, mode %04o); "+
				"choose a sandbox directory that user can reach (--dir, or TMPDIR, e.g. /tmp or /var/tmp), or let it through with `chmod o+x %s`",
				a.name, p, sys.Uid, st.Mode().Perm(), p)
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

func (a account) canSearch(st fs.FileInfo) bool {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return true
	}
	m := st.Mode().Perm()
	switch {
	case int(sys.Uid) == a.uid:
		return m&0o100 != 0
	case int(sys.Gid) == a.gid:
		return m&0o010 != 0
	default:
		return m&0o001 != 0
	}
}
