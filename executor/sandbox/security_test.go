package sandbox_test

import (
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
)

// Issue 19, tried the way a second user of the machine would: quadrant runs as root (as make test
// and CI do), and the unprivileged user nobody tries the sandbox with the mariadb client.
func TestOtherLocalUserIsLockedOut(t *testing.T) {
	sandboxtest.SkipShort(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root: it checks what a sandbox started by root exposes to another OS user (nobody), which only root can impersonate")
	}
	t.Parallel()
	client, err := exec.LookPath("mariadb")
	if err != nil {
		if client, err = exec.LookPath("mysql"); err != nil {
			t.Fatalf("no mariadb/mysql client: install the Debian package mariadb-client (%v)", err)
		}
	}
	nobody, err := user.Lookup("nobody")
	if err != nil {
		t.Fatalf("user nobody: %v", err)
	}
	uid, _ := strconv.Atoi(nobody.Uid)
	gid, _ := strconv.Atoi(nobody.Gid)
	c := sandboxtest.Start(t, sandbox.Options{Name: "sec", Replicas: 1})

	// asNobody runs the client as nobody, against the primary over TCP unless args say otherwise.
	asNobody := func(env []string, args ...string) (string, error) {
		t.Helper()
		cmd := exec.Command(client, append([]string{"--no-defaults", "--batch", "--skip-column-names"}, args...)...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}}
		cmd.Env = append([]string{"HOME=/nonexistent", "PATH=/usr/bin:/bin"}, env...)
		cmd.Dir = "/"
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	tcp := func(s *sandbox.Server) []string {
		return []string{"-h127.0.0.1", "-P" + strconv.Itoa(s.Port())}
	}

	for _, s := range c.Servers() {
		// No passwordless login, as root or as the replication account, over TCP.
		for _, u := range []string{"root", "quadrant_repl"} {
			out, err := asNobody(nil, append(tcp(s), "-u"+u, "-e", "SELECT CURRENT_USER()")...)
			if err == nil || !strings.Contains(out, "Access denied") {
				t.Errorf("%s: nobody logged in as %s without a password (%v): %s", s.Name(), u, err, out)
			}
		}
		// The socket is in a directory only the server's user may enter.
		if out, err := asNobody(nil, "-S", s.Socket(), "-uroot", "-e", "SELECT 1"); err == nil {
			t.Errorf("%s: nobody connected over the socket %s: %s", s.Name(), s.Socket(), out)
		}
		// The server process is not the OS root's.
		if owner := procUID(t, s.Pid()); owner == 0 {
			t.Errorf("%s: mariadbd (pid %d) runs as root", s.Name(), s.Pid())
		}
		for _, d := range []string{s.Dir(), filepath.Join(s.Dir(), "data"), s.FilesDir(), filepath.Dir(s.Socket())} {
			st, err := os.Stat(d)
			if err != nil {
				t.Fatal(err)
			}
			if st.Mode().Perm() != 0o700 || st.Sys().(*syscall.Stat_t).Uid == 0 {
				t.Errorf("%s: %s is mode %04o owned by uid %d, want 0700 owned by the server's user", s.Name(), d, st.Mode().Perm(), st.Sys().(*syscall.Stat_t).Uid)
			}
		}
		// No account at all has an empty password (locked system accounts aside).
		if got := queryString(t, open(t, s), "SELECT IFNULL(GROUP_CONCAT(CONCAT(User, '@', Host)), '') FROM mysql.global_priv WHERE IFNULL(JSON_VALUE(Priv, '$.authentication_string'), '') = '' AND IFNULL(JSON_EXTRACT(Priv, '$.account_locked'), 'false') NOT IN ('true', '1')"); got != "" {
			t.Errorf("%s: accounts without a password: %s", s.Name(), got)
		}
	}

	// The password file is quadrant's user's alone.
	if st, err := os.Stat(c.PasswordFile()); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("password file %s: %v, mode %v, want 0600", c.PasswordFile(), err, st.Mode().Perm())
	}
	if pw, err := sandbox.ReadPassword(c.Dir()); err != nil || pw != c.Password() {
		t.Errorf("ReadPassword = %q, %v; want the cluster's password", pw, err)
	}

	// With the sandbox's own password, files go only where the sandbox keeps them.
	withPW := []string{"MYSQL_PWD=" + c.Password()}
	primary := append(tcp(c.Primary), "-uroot")
	if out, err := asNobody(withPW, append(primary, "-e", "SELECT CURRENT_USER()")...); err != nil || !strings.HasPrefix(strings.TrimSpace(out), "root@") {
		t.Fatalf("login with the sandbox's password: %v: %s", err, out)
	}
	outside := filepath.Join(os.TempDir(), "quadrant-written-by-nobody-"+strconv.Itoa(os.Getpid())+".txt")
	t.Cleanup(func() { os.Remove(outside) })
	out, err := asNobody(withPW, append(primary, "-e", "SELECT 'hello' INTO OUTFILE '"+outside+"'")...)
	if err == nil || !strings.Contains(out, "secure-file-priv") {
		t.Errorf("INTO OUTFILE %s outside the sandbox: %v: %s", outside, err, out)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Errorf("%s was written", outside)
	}
	inside := filepath.Join(c.Primary.FilesDir(), "inside.txt")
	if out, err := asNobody(withPW, append(primary, "-e", "SELECT 'hello' INTO OUTFILE '"+inside+"'")...); err != nil {
		t.Fatalf("INTO OUTFILE inside the sandbox's files/: %v: %s", err, out)
	}
	st, err := os.Stat(inside)
	if err != nil {
		t.Fatalf("INTO OUTFILE %s: %v", inside, err)
	}
	if st.Sys().(*syscall.Stat_t).Uid == 0 {
		t.Errorf("%s is owned by root", inside)
	}
	if got := queryString(t, open(t, c.Primary), "SELECT LOAD_FILE('"+inside+"')"); got != "hello\n" {
		t.Errorf("LOAD_FILE inside files/ = %q", got)
	}
}

// procUID is the real uid of a process, from /proc.
func procUID(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[0] == "Uid:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	t.Fatalf("no Uid line in /proc/%d/status", pid)
	return -1
}

func TestUnsafeConfigRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a MariaDB server binary (skipped under -short)")
	}
	t.Parallel()
	for _, o := range []sandbox.Option{{Name: "skip-grant-tables", Bare: true}, {Name: "secure_file_priv", Value: ""}} {
		_, err := sandbox.Start(ctx(t), sandbox.Options{Name: "unsafe", Dir: sandboxtest.Dir(t), Config: []sandbox.Option{o}})
		if err == nil || !strings.Contains(err.Error(), "refused") {
			t.Errorf("config %s: %v", o, err)
		}
	}
}

func TestRunAsRootRefused(t *testing.T) {
	t.Parallel()
	_, err := sandbox.Start(ctx(t), sandbox.Options{Name: "asroot", Dir: sandboxtest.Dir(t), RunAs: "root"})
	if err == nil {
		t.Fatal("a sandbox started with RunAs root")
	}
	_, err = sandbox.Start(ctx(t), sandbox.Options{Name: "nouser", Dir: sandboxtest.Dir(t), RunAs: "no-such-user-q19"})
	if err == nil {
		t.Fatal("a sandbox started as a user that does not exist")
	}
	if os.Geteuid() == 0 && !strings.Contains(err.Error(), "useradd") {
		t.Errorf("the error does not say how to create the user: %v", err)
	}
}

// A parent directory the server's user cannot enter fails the start with a message naming it,
// instead of a server that cannot open its datadir (or a silent chmod).
func TestUnreachableDirNamed(t *testing.T) {
	sandboxtest.SkipShort(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root: only then does the server run as another user, who may not reach the directory")
	}
	t.Parallel()
	private := t.TempDir() // its parent is 0700, root's
	_, err := sandbox.Start(ctx(t), sandbox.Options{Name: "unreach", Dir: private})
	if err == nil || !strings.Contains(err.Error(), "cannot enter") || !strings.Contains(err.Error(), "chmod o+x") {
		t.Fatalf("start under %s: %v", private, err)
	}
}
