package sandbox

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// snapshotDir, in a server's directory, holds the copy of its stopped datadir that Restore
// puts back. Inside the server's directory it moves with the cluster (Move) and is removed
// with it (Stop).
const snapshotDir = "snapshot"

// Copy methods: how a datadir was copied.
const (
	MethodReflink = "reflink" // every file cloned (FICLONE): shared extents, copied on write
	MethodCopy    = "copy"    // every file's bytes copied: the filesystem cannot clone
	MethodMixed   = "reflink+copy"
)

// Copied says what a Snapshot or a Restore copied and how long it took.
type Copied struct {
	Method string
	Bytes  int64 // the datadirs' regular files, replicas' included
	Files  int
	Copy   time.Duration // the copy alone
	Total  time.Duration // stopping, copying and starting again
}

// Snapshot takes the copy of the cluster's data that Restore puts back: the replicas catch
// up with the primary, every server stops (replicas first), each one's datadir is copied
// into its directory's snapshot/ (a reflink per file where the filesystem can clone), and
// the servers start again with the config they ran with. A second Snapshot replaces the first.
func (c *Cluster) Snapshot(ctx context.Context) (Copied, error) {
	began := time.Now()
	if err := c.catchUp(ctx); err != nil {
		return Copied{}, fmt.Errorf("snapshot of sandbox %s: %w", c.name, err)
	}
	if err := c.stopAll(ctx); err != nil {
		return Copied{}, fmt.Errorf("snapshot of sandbox %s: %w", c.name, err)
	}
	var out Copied
	var err error
	for _, s := range c.Servers() {
		dst := filepath.Join(s.dir, snapshotDir)
		if err = os.RemoveAll(dst); err != nil {
			break
		}
		if err = s.cloneData(filepath.Join(s.dir, "data"), dst, &out); err != nil {
			break
		}
	}
	if err != nil {
		for _, s := range c.Servers() {
			os.RemoveAll(filepath.Join(s.dir, snapshotDir)) // a partial copy is no snapshot
		}
	}
	if serr := c.startAll(ctx); serr != nil {
		return out, fmt.Errorf("snapshot of sandbox %s: start again: %w", c.name, errors.Join(err, serr))
	}
	if err != nil {
		return out, fmt.Errorf("snapshot of sandbox %s: %w (it runs on, without a snapshot)", c.name, err)
	}
	out.Total = time.Since(began)
	return out, nil
}

// HasSnapshot reports whether every server of the cluster has the copy Restore puts back.
func (c *Cluster) HasSnapshot() bool {
	for _, s := range c.Servers() {
		if st, err := os.Stat(filepath.Join(s.dir, snapshotDir)); err != nil || !st.IsDir() {
			return false
		}
	}
	return true
}

// Restore puts the cluster's data back as Snapshot copied it: every server stops, each
// snapshot is copied next to its datadir, and only once all copies are made do they replace
// the datadirs, so a failed copy leaves every server's data as it was (and the servers
// running again); then the servers start with the config they ran with and the replicas
// replicate again, from where they were when the snapshot was taken.
func (c *Cluster) Restore(ctx context.Context) (Copied, error) {
	began := time.Now()
	if !c.HasSnapshot() {
		return Copied{}, fmt.Errorf("restore sandbox %s: no snapshot to restore (Snapshot first)", c.name)
	}
	if err := c.stopAll(ctx); err != nil {
		return Copied{}, fmt.Errorf("restore sandbox %s: %w", c.name, err)
	}
	servers := c.Servers()
	var out Copied
	var err error
	for _, s := range servers {
		next := filepath.Join(s.dir, "data.restored")
		if err = os.RemoveAll(next); err != nil {
			break
		}
		if err = s.cloneData(filepath.Join(s.dir, snapshotDir), next, &out); err != nil {
			break
		}
	}
	if err == nil {
		err = swapData(servers)
	}
	for _, s := range servers {
		os.RemoveAll(filepath.Join(s.dir, "data.restored"))
		os.RemoveAll(filepath.Join(s.dir, "data.old"))
	}
	if serr := c.startAll(ctx); serr != nil {
		return out, fmt.Errorf("restore sandbox %s: start: %w", c.name, errors.Join(err, serr))
	}
	if err != nil {
		return out, fmt.Errorf("restore sandbox %s: %w (it runs on with the data it had)", c.name, err)
	}
	out.Total = time.Since(began)
	return out, nil
}

// swapData puts each server's data.restored in place of its data; a rename that fails
// puts back the ones done before it.
func swapData(servers []*Server) error {
	for i, s := range servers {
		data := filepath.Join(s.dir, "data")
		old, next := data+".old", data+".restored"
		err := os.Rename(data, old)
		if err == nil {
			if err = os.Rename(next, data); err != nil {
				os.Rename(old, data)
			}
		}
		if err != nil {
			for _, d := range servers[:i] {
				data := filepath.Join(d.dir, "data")
				os.RemoveAll(data)
				os.Rename(data+".old", data)
			}
			return err
		}
	}
	return nil
}

// stopAll stops every server, replicas first, as Stop does.
func (c *Cluster) stopAll(ctx context.Context) error {
	servers := c.Servers()
	for i := len(servers) - 1; i >= 0; i-- {
		if err := servers[i].Stop(ctx); err != nil {
			return err
		}
	}
	return nil
}

// catchUp waits until every replica has applied all the primary has written, so that the
// copies of their datadirs hold the same data as the primary's.
func (c *Cluster) catchUp(ctx context.Context) error {
	if len(c.Replicas) == 0 {
		return nil
	}
	p := c.Primary
	pdb, err := p.Open()
	if err != nil {
		return err
	}
	defer pdb.Close()
	var wait string
	var args []any
	if p.bin.Flavor == FlavorMariaDB {
		var pos string
		if err := pdb.QueryRowContext(ctx, "SELECT @@GLOBAL.gtid_binlog_pos").Scan(&pos); err != nil {
			return fmt.Errorf("%s: gtid_binlog_pos: %w", p.name, err)
		}
		wait, args = "SELECT MASTER_GTID_WAIT(?, ?)", []any{pos, int(replicaWait.Seconds())}
	} else {
		file, pos, err := binlogPosition(ctx, p)
		if err != nil {
			return err
		}
		fn := "MASTER_POS_WAIT"
		if p.bin.AtLeast(8, 0, 26) {
			fn = "SOURCE_POS_WAIT"
		}
		wait, args = "SELECT "+fn+"(?, ?, ?)", []any{file, pos, int(replicaWait.Seconds())}
	}
	for _, r := range c.Replicas {
		db, err := r.Open()
		if err != nil {
			return err
		}
		var res sql.NullInt64
		err = db.QueryRowContext(ctx, wait, args...).Scan(&res)
		db.Close()
		switch {
		case err != nil:
			return fmt.Errorf("%s: wait for the primary's position: %w", r.name, err)
		case !res.Valid:
			return fmt.Errorf("%s: not replicating: it cannot catch up with %s", r.name, p.name)
		case res.Int64 < 0:
			return fmt.Errorf("%s: still behind %s after %s", r.name, p.name, replicaWait)
		}
	}
	return nil
}

// cloneData copies datadir src to dst for server s (its OS user's, mode 0700), adding to
// out what it copied and how.
func (s *Server) cloneData(src, dst string, out *Copied) error {
	began := time.Now()
	var tally cloneTally
	err := cloneTree(src, dst, &tally)
	out.Copy += time.Since(began)
	out.Bytes += tally.bytes
	out.Files += tally.cloned + tally.copied
	out.Method = tally.method(out.Method)
	if err != nil {
		return fmt.Errorf("copy %s to %s: %w", src, dst, err)
	}
	if err := s.acct.ownTree(dst); err != nil {
		return err
	}
	return os.Chmod(dst, 0o700)
}

type cloneTally struct {
	bytes          int64
	cloned, copied int
	noClone        bool // the filesystem said it cannot clone: no use asking for every file
}

// method is how the files were copied, with before (what earlier copies did) folded in.
func (t *cloneTally) method(before string) string {
	m := ""
	switch {
	case t.cloned > 0 && t.copied > 0:
		m = MethodMixed
	case t.cloned > 0:
		m = MethodReflink
	case t.copied > 0:
		m = MethodCopy
	}
	if before == "" || before == m {
		return m
	}
	if m == "" {
		return before
	}
	return MethodMixed
}

// cloneTree copies directory src to dst as copyDir does, each regular file cloned with
// FICLONE where the filesystem can (XFS with reflink, Btrfs, bcachefs, ZFS 2.2: instant,
// no space used until the server writes), else copied.
func cloneTree(src, dst string, t *cloneTally) error {
	return walkCopy(src, dst, func(path, target string, info fs.FileInfo) error {
		return cloneFile(path, target, info, t)
	})
}

func cloneFile(src, dst string, info fs.FileInfo, t *cloneTally) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, info.Mode().Perm())
	if err != nil {
		return err
	}
	t.bytes += info.Size()
	if !t.noClone {
		err := unix.IoctlFileClone(int(out.Fd()), int(in.Fd()))
		if err == nil {
			t.cloned++
			return out.Close()
		}
		// EOPNOTSUPP, EXDEV, EINVAL, ENOTTY...: this filesystem (or this pair) cannot clone;
		// the rest of the tree is on the same ones.
		t.noClone = true
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	t.copied++
	return out.Close()
}
