// Command restore measures restore: setup on a sandbox whose datadir holds about -gb GiB:
// the snapshot taken after setup and -n restores, each the copy alone and with the stop and
// the start, and how the files were copied (reflink or copy) on the filesystem of -dir.
// Run it with bench/restore.sh.
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"slices"
	"syscall"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
)

func main() {
	n := flag.Int("n", 3, "timed restores")
	gb := flag.Float64("gb", 1, "data to load, GiB")
	dir := flag.String("dir", "", "parent of the sandbox (the storage under test; default: a temp dir)")
	flag.Parse()
	if err := run(*n, *gb, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "restore:", err)
		os.Exit(1)
	}
}

func run(n int, gb float64, parent string) error {
	ctx := context.Background()
	if parent == "" {
		d, err := sandbox.TempDir("restorebench")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		parent = d
	}
	c, err := sandbox.Start(ctx, sandbox.Options{Name: "restore", Dir: parent,
		Config: []sandbox.Option{{Name: "innodb_buffer_pool_size", Value: "256M"}}})
	if err != nil {
		return err
	}
	defer c.Stop(ctx)
	fmt.Printf("sandbox in %s, on %s\n", c.Dir(), fsType(c.Dir()))
	db, err := sql.Open("mysql", c.Primary.DSN(""))
	if err != nil {
		return err
	}
	defer db.Close()
	// Rows of 60 KB of random-ish text (stored off-page) doubled until the table is about gb GiB.
	t0 := time.Now()
	for _, q := range []string{
		"CREATE DATABASE bench",
		"CREATE TABLE bench.t (id INT AUTO_INCREMENT PRIMARY KEY, b LONGBLOB)",
		"INSERT INTO bench.t (b) VALUES (REPEAT(MD5(RAND()), 1875))",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	rows := int(gb * (1 << 30) / 60000)
	for have := 1; have < rows; have *= 2 {
		if _, err := db.ExecContext(ctx, fmt.Sprintf("INSERT INTO bench.t (b) SELECT REPEAT(MD5(RAND()), 1875) FROM bench.t LIMIT %d", rows-have)); err != nil {
			return err
		}
	}
	fmt.Printf("loaded %d rows in %.1fs\n", rows, time.Since(t0).Seconds())
	cp, err := c.Snapshot(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("snapshot: %.2f GiB in %d files by %s: copy %.2fs, with stop and start %.2fs\n", float64(cp.Bytes)/(1<<30), cp.Files, cp.Method, cp.Copy.Seconds(), cp.Total.Seconds())
	var copies, totals []float64
	for i := 0; i < n; i++ {
		if _, err := db.ExecContext(ctx, "UPDATE bench.t SET b = REPEAT('y', 100) WHERE id % 10 = 0"); err != nil {
			return err
		}
		cp, err := c.Restore(ctx)
		if err != nil {
			return err
		}
		db.SetMaxIdleConns(0)
		db.SetMaxIdleConns(2)
		fmt.Printf("restore %d: %.2f GiB by %s: copy %.2fs, with stop and start %.2fs\n", i+1, float64(cp.Bytes)/(1<<30), cp.Method, cp.Copy.Seconds(), cp.Total.Seconds())
		copies, totals = append(copies, cp.Copy.Seconds()), append(totals, cp.Total.Seconds())
	}
	slices.Sort(copies)
	slices.Sort(totals)
	fmt.Printf("median restore: copy %.2fs, with stop and start %.2fs\n", copies[len(copies)/2], totals[len(totals)/2])
	return nil
}

// fsType names the filesystem of path from statfs's magic number.
func fsType(path string) string {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return err.Error()
	}
	switch st.Type {
	case 0xEF53:
		return "ext2/3/4"
	case 0x58465342:
		return "xfs"
	case 0x9123683E:
		return "btrfs"
	case 0x01021994:
		return "tmpfs"
	case 0x794C7630:
		return "overlayfs"
	}
	return fmt.Sprintf("filesystem 0x%x", st.Type)
}
