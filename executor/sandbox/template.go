package sandbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/quadrant-bench/quadrant/executor/internal/tail"
)

// templateFormat changes whenever the way a template is initialised changes, so old caches are not
// reused. v2: no account without a password (v1 had root with an empty one), files owned by the
// server's OS user. The key changes with it, so v1 templates stay in place for older quadrants
// sharing the cache.
const templateFormat = "quadrant-template-v2"

const templateMarker = "quadrant-template.txt"

// defaultCacheDir is where initialised template datadirs are kept between runs.
func defaultCacheDir() string {
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "quadrant", "templates")
	}
	if d, err := os.UserHomeDir(); err == nil && d != "" {
		return filepath.Join(d, ".cache", "quadrant", "templates")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("quadrant-templates-%d", os.Getuid()))
}

// templateKey identifies a server build (a package upgrade changes the version line or the file
// itself) and the OS user its files belong to.
func templateKey(b Binary, acct account) string {
	h := sha256.New()
	real, err := filepath.EvalSymlinks(b.Path)
	if err != nil {
		real = b.Path
	}
	fmt.Fprintln(h, templateFormat, real, b.Line, os.Getuid(), acct.uid)
	if st, err := os.Stat(real); err == nil {
		fmt.Fprintln(h, st.Size(), st.ModTime().UnixNano())
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// ensureTemplate returns the path of an initialised datadir for b, creating it once per binary and
// server user. Two processes may race here: an exclusive flock serialises the (slow) initialisation,
// and the finished template appears atomically by rename, so a reader never sees a half-initialised one.
func ensureTemplate(ctx context.Context, b Binary, basedir, cacheDir string, acct account, logf func(string, ...any)) (string, error) {
	if cacheDir == "" {
		cacheDir = defaultCacheDir()
		if err := os.MkdirAll(cacheDir, 0o755); err != nil { // e.g. a read-only HOME on CI
			fallback := filepath.Join(os.TempDir(), fmt.Sprintf("quadrant-templates-%d", os.Getuid()))
			logf("sandbox: cannot use template cache %s (%v); using %s", cacheDir, err, fallback)
			cacheDir = fallback
		}
	}
	final := filepath.Join(cacheDir, b.Flavor+"-"+b.Version+"-"+templateKey(b, acct))
	data := filepath.Join(final, "data")
	if isTemplate(final) {
		touch(filepath.Join(final, templateMarker)) // `sandbox prune` removes templates by their last use
		return data, nil
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", fmt.Errorf("template cache: %w", err)
	}
	unlock, err := lockFile(ctx, final+".lock")
	if err != nil {
		return "", fmt.Errorf("template cache: %w", err)
	}
	defer unlock()
	if isTemplate(final) { // another process finished it while we waited
		return data, nil
	}
	_ = os.RemoveAll(final) // a leftover without marker is garbage
	tmp, err := os.MkdirTemp(cacheDir, filepath.Base(final)+".tmp-")
	if err != nil {
		return "", fmt.Errorf("template cache: %w", err)
	}
	defer os.RemoveAll(tmp) // no-op after a successful rename
	logf("sandbox: initialising template datadir for %s %s (once per server binary and OS user) in %s", b.Flavor, b.Version, final)
	start := time.Now()
	// The server user initialises the datadir itself, so it must reach it; a cache under root's
	// home is out of its reach, so the work happens in a staging directory it can reach and the
	// result is moved into the cache.
	stage := tmp
	if acct.checkReachable(cacheDir) != nil {
		if stage, err = os.MkdirTemp("", "quadrant-template-"); err != nil {
			return "", fmt.Errorf("template staging: %w", err)
		}
		defer os.RemoveAll(stage)
	}
	if err := acct.privateDir(stage); err != nil {
		return "", fmt.Errorf("template staging: %w", err)
	}
	if err := acct.checkReachable(stage); err != nil {
		return "", fmt.Errorf("template staging: %w", err)
	}
	if err := initDatadir(ctx, b, basedir, stage, acct); err != nil {
		return "", err
	}
	if err := lockDown(ctx, b, basedir, stage, acct, logf); err != nil {
		return "", fmt.Errorf("template datadir: %w", err)
	}
	if stage != tmp {
		if err := moveTree(filepath.Join(stage, "data"), filepath.Join(tmp, "data"), acct); err != nil {
			return "", fmt.Errorf("template cache: %w", err)
		}
	}
	marker := fmt.Sprintf("%s\nbinary: %s\nversion: %s\nuser: %s\ncreated: %s\n", templateFormat, b.Path, b.Line, acct.name, time.Now().UTC().Format(time.RFC3339))
	if err := os.WriteFile(filepath.Join(tmp, templateMarker), []byte(marker), 0o644); err != nil {
		return "", fmt.Errorf("template cache: %w", err)
	}
	if err := os.Rename(tmp, final); err != nil {
		if isTemplate(final) {
			return data, nil
		}
		return "", fmt.Errorf("template cache: %w", err)
	}
	logf("sandbox: template ready in %s", time.Since(start).Round(time.Millisecond))
	return data, nil
}

// moveTree renames src to dst, or copies it (keeping it the account's) across filesystems.
func moveTree(src, dst string, acct account) error {
	if err := os.Rename(src, dst); err == nil {
		return nil
	}
	if err := copyDir(src, dst); err != nil {
		return err
	}
	return acct.ownTree(dst)
}

// lockDown starts the freshly initialised datadir once, without networking, and leaves it with no
// account anyone can log in to: root@localhost and root@127.0.0.1 get a random password nobody
// keeps (each sandbox sets its own at its first start), every other account that is not one of
// the server's own locked system accounts is dropped (root@HOSTNAME, root@::1, anonymous users).
func lockDown(ctx context.Context, b Binary, basedir, dir string, acct account, logf func(string, ...any)) error {
	pw, err := newPassword()
	if err != nil {
		return err
	}
	s := &Server{name: "template", bin: b, basedir: basedir, dir: dir, logf: logf, timeout: 2 * time.Minute,
		ports: freePort, acct: acct, password: pw}
	for _, d := range []string{filepath.Join(dir, "tmp"), s.FilesDir()} {
		if err := acct.privateDir(d); err != nil {
			return err
		}
	}
	if s.socket, err = socketPath(dir); err != nil {
		return err
	}
	if sd := filepath.Dir(s.socket); sd != dir {
		defer os.RemoveAll(sd)
		if err := acct.privateDir(sd); err != nil {
			return err
		}
	}
	s.initFile = filepath.Join(dir, "init.sql")
	init := "SET sql_log_bin = 0;\nALTER USER 'root'@'localhost' IDENTIFIED BY '" + pw + "';\n"
	if err := writePrivate(s.initFile, init); err != nil {
		return err
	}
	if err := acct.own(s.initFile); err != nil {
		return err
	}
	config := []Option{{Name: "skip_networking", Bare: true}}
	if b.Flavor == FlavorMySQL {
		config = append(config, Option{Name: "skip_log_bin", Bare: true}) // MySQL 8 logs by default
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.start(ctx, config, false); err != nil {
		return err
	}
	err = lockAccounts(ctx, s, pw)
	if serr := s.stopLocked(ctx); err == nil {
		err = serr
	}
	if err != nil {
		return err
	}
	for _, f := range []string{"my.cnf", "error.log", "mysqld.pid", "tmp", "files", "init.sql"} {
		os.RemoveAll(filepath.Join(dir, f))
	}
	return nil
}

func lockAccounts(ctx context.Context, s *Server, pw string) error {
	db, err := s.Open()
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := queryMaps(ctx, db, "SELECT User, Host FROM mysql.user")
	if err != nil {
		return fmt.Errorf("list accounts: %w", err)
	}
	stmts := []string{"SET sql_log_bin = 0"}
	for _, r := range rows {
		u, h := r["User"], r["Host"]
		switch {
		case u == "root" && (h == "localhost" || h == "127.0.0.1"):
			stmts = append(stmts, fmt.Sprintf("ALTER USER 'root'@'%s' IDENTIFIED BY '%s'", h, pw))
		case strings.HasPrefix(u, "mariadb.") || strings.HasPrefix(u, "mysql."):
			// the server's own accounts, locked by the install
		default:
			stmts = append(stmts, fmt.Sprintf("DROP USER '%s'@'%s'", strings.ReplaceAll(u, "'", "''"), strings.ReplaceAll(h, "'", "''")))
		}
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	for _, q := range stmts {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", s.redact(q), err)
		}
	}
	return nil
}

func touch(path string) {
	now := time.Now()
	_ = os.Chtimes(path, now, now)
}

func isTemplate(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, templateMarker))
	return err == nil
}

// lockFile takes an exclusive flock, polling so that ctx can cancel the wait.
func lockFile(ctx context.Context, path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for lock %s: %w", path, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// initDatadir creates dir/data with the system tables, as the account the servers will run as.
// Root's password is empty until lockDown sets one.
func initDatadir(ctx context.Context, b Binary, basedir, dir string, acct account) error {
	data := filepath.Join(dir, "data")
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	path, args, initSQL, err := initCommand(b, basedir, dir, acct.name)
	if err != nil {
		return err
	}
	if initSQL != "" {
		if err := os.WriteFile(filepath.Join(dir, "init.sql"), []byte(initSQL), 0o644); err != nil {
			return err
		}
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: acct.credential()}
	out, err := cmd.CombinedOutput()
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if b, rerr := os.ReadFile(filepath.Join(dir, "init.err")); rerr == nil {
			msg += "\n" + string(b)
		}
		return fmt.Errorf("initialise datadir with %s as OS user %s: %v\n%s", cmd.Path, acct.name, err, tail.Lines(msg, 30))
	}
	os.Remove(filepath.Join(dir, "init.sql"))
	os.Remove(filepath.Join(dir, "init.err"))
	// MySQL keeps the server UUID in auto.cnf; copies of one template would share it and replication refuses
	// "equal server UUIDs". Without the file every copy generates its own.
	_ = os.Remove(filepath.Join(data, "auto.cnf"))
	return nil
}

// initCommand is how a datadir is made: MariaDB's mariadb-install-db, or MySQL's own
// mysqld --initialize-insecure with an init file (its text returned, written as
// dir/init.sql), since that makes root@localhost only and TCP clients from 127.0.0.1 must
// log in even with skip_name_resolve.
func initCommand(b Binary, basedir, dir, osUser string) (path string, args []string, initSQL string, err error) {
	data := filepath.Join(dir, "data")
	switch b.Flavor {
	case FlavorMariaDB:
		tool, err := installDBTool(b, basedir)
		if err != nil {
			return "", nil, "", err
		}
		args = []string{"--no-defaults", "--datadir=" + data, "--user=" + osUser,
			"--auth-root-authentication-method=normal", "--skip-test-db"}
		if basedir != "" {
			args = append(args, "--basedir="+basedir)
		}
		return tool, args, "", nil
	default:
		initSQL = "CREATE USER IF NOT EXISTS 'root'@'127.0.0.1';\nGRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;\n"
		args = []string{"--no-defaults", "--initialize-insecure", "--datadir=" + data, "--user=" + osUser,
			"--init-file=" + filepath.Join(dir, "init.sql"), "--log-error=" + filepath.Join(dir, "init.err")}
		if basedir != "" {
			args = append(args, "--basedir="+basedir)
		}
		return b.Path, args, initSQL, nil
	}
}

// copyDir copies a datadir tree. io.Copy between files uses copy_file_range, which is fast (and a
// reflink where the filesystem supports it); the result is fully allocated, unlike a sparse copy,
// so benchmark writes into the redo log do not pay for block allocation.
func copyDir(src, dst string) error {
	return walkCopy(src, dst, func(path, target string, info fs.FileInfo) error {
		return copyFile(path, target, info.Mode().Perm())
	})
}

// walkCopy makes dst a copy of directory tree src: directories and symlinks as they are,
// each regular file through file; sockets and pipes are not data and are left out.
func walkCopy(src, dst string, file func(path, target string, info fs.FileInfo) error) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(target, info.Mode().Perm()|0o700)
		case info.Mode().IsRegular():
			return file(path, target, info)
		case info.Mode()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		}
		return nil
	})
}

func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
