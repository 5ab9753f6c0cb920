package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Parent is the directory the cluster's directory is in: the storage its data is on.
func (c *Cluster) Parent() string { return filepath.Dir(c.dir) }

// Move puts the cluster, data included, under parent (the storage under test changes between
// matrix cells): every server stops, the cluster's directory is copied into a new one under
// parent and removed, and the servers start again there with the same config and ports, so
// what setup prepared is still there and clients keep their address. A failed copy starts
// the servers again where they were.
func (c *Cluster) Move(ctx context.Context, parent string) error {
	parent = filepath.Clean(parent)
	if parent == c.Parent() {
		return nil
	}
	acct := c.Primary.acct
	if st, err := os.Stat(parent); err != nil || !st.IsDir() {
		return fmt.Errorf("move sandbox %s to %s: not an existing directory", c.name, parent)
	}
	if err := acct.checkReachable(parent); err != nil {
		return fmt.Errorf("move sandbox %s to %s: %w", c.name, parent, err)
	}
	servers := c.Servers()
	for i := len(servers) - 1; i >= 0; i-- { // replicas first, as Stop does
		if err := servers[i].Stop(ctx); err != nil {
			return fmt.Errorf("move sandbox %s: %w", c.name, err)
		}
	}
	old := c.dir
	dir, err := c.copyTo(parent)
	if err != nil {
		if serr := c.startAll(ctx); serr != nil {
			return fmt.Errorf("move sandbox %s to %s: %w (starting it again in %s failed too: %v)", c.name, parent, err, old, serr)
		}
		return fmt.Errorf("move sandbox %s to %s: %w (it runs on in %s)", c.name, parent, err, old)
	}
	for _, s := range servers {
		if filepath.Dir(s.socket) != s.dir {
			os.RemoveAll(filepath.Dir(s.socket))
		}
		s.mu.Lock()
		s.dir = filepath.Join(dir, s.name)
		s.socket, err = socketPath(s.dir)
		s.mu.Unlock()
		if err != nil {
			return fmt.Errorf("move sandbox %s: %w", c.name, err)
		}
		if sd := filepath.Dir(s.socket); sd != s.dir {
			if err := acct.privateDir(sd); err != nil {
				return fmt.Errorf("move sandbox %s: %w", c.name, err)
			}
		}
		os.Remove(s.ClientConfigFile())
		if err := writePrivate(s.ClientConfigFile(), clientCnf(s)); err != nil {
			return fmt.Errorf("move sandbox %s: %w", c.name, err)
		}
	}
	c.dir = dir
	if err := os.RemoveAll(old); err != nil {
		c.logf("sandbox %s: moved to %s, but removing %s: %v", c.name, dir, old, err)
	}
	c.logf("sandbox %s: moved to %s", c.name, dir)
	if err := c.startAll(ctx); err != nil {
		return fmt.Errorf("move sandbox %s to %s: %w", c.name, parent, err)
	}
	return nil
}

// copyTo copies the cluster's directory into a new one under parent, each server's part
// owned by the server's OS user as before, and returns it.
func (c *Cluster) copyTo(parent string) (string, error) {
	acct := c.Primary.acct
	dir, err := os.MkdirTemp(parent, "quadrant-"+c.name+"-")
	if err != nil {
		return "", err
	}
	fail := func(err error) (string, error) {
		os.RemoveAll(dir)
		return "", err
	}
	if !acct.self {
		if err := os.Chmod(dir, 0o711); err != nil {
			return fail(err)
		}
	}
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return fail(err)
	}
	for _, e := range entries {
		if e.Name() == ownerFile {
			continue // written afresh below
		}
		src, dst := filepath.Join(c.dir, e.Name()), filepath.Join(dir, e.Name())
		if !e.IsDir() {
			info, err := e.Info()
			if err != nil {
				return fail(err)
			}
			if err := copyFile(src, dst, info.Mode().Perm()); err != nil {
				return fail(err)
			}
			continue
		}
		if err := copyDir(src, dst); err != nil {
			return fail(err)
		}
		if err := acct.ownTree(dst); err != nil {
			return fail(err)
		}
		if err := os.Chmod(dst, 0o700); err != nil {
			return fail(err)
		}
	}
	if err := writeOwner(dir, c.keep); err != nil {
		return fail(err)
	}
	return dir, nil
}

// startAll starts the servers with the config each ran with, the primary first, and waits
// until the replicas replicate again.
func (c *Cluster) startAll(ctx context.Context) error {
	var errs []error
	for _, s := range c.Servers() {
		s.mu.Lock()
		err := s.start(ctx, s.config, true)
		s.mu.Unlock()
		if err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for _, r := range c.Replicas {
		if err := waitReplicaRunning(ctx, r); err != nil {
			return err
		}
	}
	for _, n := range c.Nodes {
		if err := waitSynced(ctx, n, len(c.Nodes)+1); err != nil {
			return err
		}
	}
	return nil
}
