package sandbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// ServerOptions are the my.cnf options a server binary knows: what `validate` checks a
// sandbox's config against, so a misspelt option is found at its line rather than by a server
// that refuses to start after setup ran.
type ServerOptions struct {
	Binary Binary
	Names  []string // lower case, underscores, sorted
}

// KnownOptions asks the server binary a sandbox of flavor and basedir would run which options
// it knows (`--verbose --help`, about 0.3 s), once per binary: the answer is kept in the cache
// directory under the binary's path, size and modification time, which a package upgrade
// changes. The error says why it cannot tell (no server installed, say).
func KnownOptions(ctx context.Context, flavor, basedir string) (ServerOptions, error) {
	b, err := FindServer(ctx, flavor, basedir)
	if err != nil {
		return ServerOptions{}, err
	}
	st, err := os.Stat(b.Path)
	if err != nil {
		return ServerOptions{}, err
	}
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d\x00%d", b.Path, st.Size(), st.ModTime().UnixNano())))
	cache := filepath.Join(filepath.Dir(CacheDir()), "server-options", hex.EncodeToString(sum[:12])+".txt")
	if data, err := os.ReadFile(cache); err == nil && len(data) > 0 {
		return ServerOptions{Binary: b, Names: strings.Fields(string(data))}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, b.Path, "--no-defaults", "--verbose", "--help").Output()
	if err != nil {
		return ServerOptions{}, fmt.Errorf("%s --verbose --help: %w", b.Path, err)
	}
	names := parseHelpOptions(string(out))
	if len(names) < 100 {
		return ServerOptions{}, fmt.Errorf("%s --verbose --help listed %d options: not a server's help", b.Path, len(names))
	}
	// Best effort: without the cache the next validate asks the binary again.
	if os.MkdirAll(filepath.Dir(cache), 0o755) == nil {
		if f, err := os.CreateTemp(filepath.Dir(cache), ".options-*"); err == nil {
			_, werr := f.WriteString(strings.Join(names, "\n") + "\n")
			if cerr := f.Close(); werr == nil && cerr == nil {
				os.Rename(f.Name(), cache)
			}
			os.Remove(f.Name())
		}
	}
	return ServerOptions{Binary: b, Names: names}, nil
}

var (
	helpOption   = regexp.MustCompile(`^\s+--([a-z0-9][a-z0-9_-]*)`)
	helpVariable = regexp.MustCompile(`^([a-z0-9][a-z0-9_-]*)\s`)
)

// parseHelpOptions reads the option names of `mysqld --verbose --help`: the "--name" lines of
// the options' descriptions and the names of the "Variables ... Value" table that ends it
// (some options are only in one of the two).
func parseHelpOptions(help string) []string {
	set := map[string]bool{}
	table := false
	for _, line := range strings.Split(help, "\n") {
		if m := helpOption.FindStringSubmatch(line); m != nil && !table {
			set[strings.ReplaceAll(m[1], "-", "_")] = true
			continue
		}
		if strings.HasPrefix(line, "----") {
			table = true // the "name  value" table starts under a line of dashes
			continue
		}
		if table {
			if strings.TrimSpace(line) == "" {
				table = false
				continue
			}
			if m := helpVariable.FindStringSubmatch(line); m != nil {
				set[strings.ReplaceAll(m[1], "-", "_")] = true
			}
		}
	}
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
