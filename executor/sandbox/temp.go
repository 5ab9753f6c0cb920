package sandbox

import (
	"context"
	"os"
)

// TempDir makes a new directory under the system temp dir for sandboxes to live in. Unlike
// os.MkdirTemp's 0700, it is 0711: when quadrant runs as root its servers run as an
// unprivileged user, which must pass through it (enter, not list).
func TempDir(prefix string) (string, error) {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return "", err
	}
	if err := os.Chmod(dir, 0o711); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// StartTemp starts a cluster in a TempDir of its own (o.Dir is ignored) and returns what
// stops it and removes the directory: the benchmarks' and tests' throwaway server.
func StartTemp(ctx context.Context, prefix string, o Options) (*Cluster, func(), error) {
	dir, err := TempDir(prefix)
	if err != nil {
		return nil, nil, err
	}
	o.Dir = dir
	c, err := Start(ctx, o)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	return c, func() {
		c.Stop(context.Background())
		os.RemoveAll(dir)
	}, nil
}
