package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Flavors of server binary.
const (
	FlavorMariaDB = "mariadb"
	FlavorMySQL   = "mysql" // MySQL and Percona Server: same datadir initialisation and replication syntax
)

// Binary is a server executable found on this machine.
type Binary struct {
	Path    string // absolute path of mariadbd or mysqld
	Flavor  string // FlavorMariaDB or FlavorMySQL
	Version string // e.g. "10.11.19-MariaDB-0+deb12u1" or "8.0.36"
	Major   int
	Minor   int
	Patch   int
	Line    string // the whole `--version` line, for logs
}

// AtLeast reports whether the server version is >= major.minor.patch.
func (b Binary) AtLeast(major, minor, patch int) bool {
	if b.Major != major {
		return b.Major > major
	}
	if b.Minor != minor {
		return b.Minor > minor
	}
	return b.Patch >= patch
}

// ErrNoServer is wrapped by the error FindServer returns when no usable binary exists.
var ErrNoServer = errors.New("no MariaDB/MySQL server binary found")

// FindServer looks for a server binary of the wanted flavor ("auto", "mariadb", "mysql" or "").
// With basedir it looks only under basedir/{sbin,bin,libexec}; otherwise in PATH, then /usr/sbin,
// /usr/local/mysql/bin and /usr/local/mariadb/bin (Debian installs servers in /usr/sbin, which is
// not on a normal user's PATH).
func FindServer(ctx context.Context, flavor, basedir string) (Binary, error) {
	switch flavor {
	case "", "auto", FlavorMariaDB, FlavorMySQL:
	default:
		return Binary{}, fmt.Errorf("sandbox flavor %q: must be auto, mariadb or mysql", flavor)
	}
	names := []string{"mariadbd", "mysqld"}
	if flavor == FlavorMySQL {
		names = []string{"mysqld"}
	}
	var candidates, looked []string
	if basedir != "" {
		for _, sub := range []string{"sbin", "bin", "libexec"} {
			for _, n := range names {
				candidates = append(candidates, filepath.Join(basedir, sub, n))
			}
		}
		looked = []string{basedir + "/{sbin,bin,libexec}"}
	} else {
		for _, n := range names {
			if p, err := exec.LookPath(n); err == nil {
				candidates = append(candidates, p)
			}
		}
		for _, dir := range []string{"/usr/sbin", "/usr/local/mysql/bin", "/usr/local/mariadb/bin"} {
			for _, n := range names {
				candidates = append(candidates, filepath.Join(dir, n))
			}
		}
		looked = []string{"PATH", "/usr/sbin", "/usr/local/mysql/bin", "/usr/local/mariadb/bin"}
	}
	var mismatched []string
	seen := map[string]bool{}
	for _, c := range candidates {
		if st, err := os.Stat(c); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
			continue
		}
		real, err := filepath.EvalSymlinks(c)
		if err != nil || seen[real] {
			continue
		}
		seen[real] = true
		b, err := probeBinary(ctx, c)
		if err != nil {
			mismatched = append(mismatched, err.Error())
			continue
		}
		if flavor == FlavorMariaDB || flavor == FlavorMySQL {
			if b.Flavor != flavor {
				mismatched = append(mismatched, fmt.Sprintf("%s is %s, not %s", c, b.Flavor, flavor))
				continue
			}
		}
		return b, nil
	}
	pkg := "mariadb-server (or mysql-server)"
	switch flavor {
	case FlavorMariaDB:
		pkg = "mariadb-server"
	case FlavorMySQL:
		pkg = "mysql-server (or percona-server-server)"
	}
	msg := fmt.Sprintf("%v (flavor %s; looked in %s)", ErrNoServer, flavorName(flavor), strings.Join(looked, ", "))
	if len(mismatched) > 0 {
		msg += "; skipped: " + strings.Join(mismatched, "; ")
	}
	return Binary{}, noServerError(fmt.Sprintf("%s: install the Debian package %s, or set the sandbox's basedir to a server installation", msg, pkg))
}

// noServerError is ErrNoServer with the details, without repeating ErrNoServer's text at the end.
type noServerError string

func (e noServerError) Error() string        { return string(e) }
func (e noServerError) Is(target error) bool { return target == ErrNoServer }

func flavorName(f string) string {
	if f == "" {
		return "auto"
	}
	return f
}

var versionRe = regexp.MustCompile(`Ver\s+(\d+)\.(\d+)\.(\d+)(\S*)`)

// probeBinary runs `BIN --version` and parses the flavor and version.
func probeBinary(ctx context.Context, path string) (Binary, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--no-defaults", "--version").CombinedOutput()
	if err != nil {
		return Binary{}, fmt.Errorf("%s --version: %v: %s", path, err, strings.TrimSpace(string(out)))
	}
	b, err := parseVersionLine(strings.TrimSpace(string(out)))
	if err != nil {
		return Binary{}, fmt.Errorf("%s: %w", path, err)
	}
	b.Path = path
	return b, nil
}

// parseVersionLine parses e.g.
//
//	mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64 (Debian 12)
//	/usr/sbin/mysqld  Ver 8.0.36 for Linux on x86_64 (MySQL Community Server - GPL)
//	/usr/sbin/mysqld  Ver 8.0.35-27 for Linux on x86_64 (Percona Server (GPL), Release '27', ...)
func parseVersionLine(line string) (Binary, error) {
	if i := strings.LastIndexByte(line, '\n'); i >= 0 { // warnings may precede the version line
		line = line[i+1:]
	}
	m := versionRe.FindStringSubmatch(line)
	if m == nil {
		return Binary{}, fmt.Errorf("cannot parse server version from %q", line)
	}
	b := Binary{Line: line, Version: m[1] + "." + m[2] + "." + m[3] + m[4], Flavor: FlavorMySQL}
	fmt.Sscan(m[1], &b.Major)
	fmt.Sscan(m[2], &b.Minor)
	fmt.Sscan(m[3], &b.Patch)
	if strings.Contains(strings.ToLower(line), "mariadb") {
		b.Flavor = FlavorMariaDB
	}
	return b, nil
}

// installDBTool finds mariadb-install-db (MariaDB initialises a datadir with it; MySQL uses mysqld --initialize-insecure).
func installDBTool(b Binary, basedir string) (string, error) {
	names := []string{"mariadb-install-db", "mysql_install_db"}
	var dirs []string
	if basedir != "" {
		dirs = append(dirs, filepath.Join(basedir, "bin"), filepath.Join(basedir, "scripts"))
	}
	dirs = append(dirs, filepath.Dir(b.Path), "/usr/bin", "/usr/local/bin")
	for _, d := range dirs {
		for _, n := range names {
			p := filepath.Join(d, n)
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				return p, nil
			}
		}
	}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("mariadb-install-db not found next to %s or in PATH: install the Debian package mariadb-server", b.Path)
}
