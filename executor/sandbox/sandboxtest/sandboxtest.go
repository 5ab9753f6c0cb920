// Package sandboxtest gives tests a real MariaDB/MySQL server through the sandbox package.
package sandboxtest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
)

// Start starts a sandbox cluster for the test and stops it in t.Cleanup. When no server binary is
// installed it fails (never skips: CI installs one) with a message naming the Debian package.
// Options.Dir defaults to a directory of the test; Options.Logf to t.Logf.
func Start(t testing.TB, o sandbox.Options) *sandbox.Cluster {
	t.Helper()
	if o.Dir == "" {
		o.Dir = t.TempDir()
	}
	if o.Name == "" {
		o.Name = "t"
	}
	if o.Logf == nil {
		o.Logf = t.Logf
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c, err := sandbox.Start(ctx, o)
	if errors.Is(err, sandbox.ErrNoServer) {
		t.Fatalf("this test needs a real database server: %v", err)
	}
	if err != nil {
		t.Fatalf("start sandbox: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := c.Stop(ctx); err != nil {
			t.Errorf("stop sandbox %s: %v", o.Name, err)
		}
	})
	return c
}
