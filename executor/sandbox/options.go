package sandbox

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/spec/mycnf"
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
	names, err := optionsOf(ctx, b)
	if err != nil {
		return ServerOptions{}, err
	}
	return ServerOptions{Binary: b, Names: names}, nil
}

// optionsOf asks binary b which options it knows, through the cache (v2: the list as
// mycnf.ParseHelp reads it, -u, --user included).
func optionsOf(ctx context.Context, b Binary) ([]string, error) {
	st, err := os.Stat(b.Path)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(fmt.Sprintf("v2\x00%s\x00%d\x00%d", b.Path, st.Size(), st.ModTime().UnixNano())))
	cache := filepath.Join(filepath.Dir(CacheDir()), "server-options", hex.EncodeToString(sum[:12])+".txt")
	if data, err := os.ReadFile(cache); err == nil && len(data) > 0 {
		return strings.Fields(string(data)), nil
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, b.Path, "--no-defaults", "--verbose", "--help").Output()
	if err != nil {
		return nil, fmt.Errorf("%s --verbose --help: %w", b.Path, err)
	}
	names := mycnf.ParseHelp(string(out))
	if len(names) < 100 {
		return nil, fmt.Errorf("%s --verbose --help listed %d options: not a server's help", b.Path, len(names))
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
	return names, nil
}
