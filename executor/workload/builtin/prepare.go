package builtin

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/workload/engine"
	"github.com/quadrant-bench/quadrant/executor/workload/sbrand"
	"github.com/quadrant-bench/quadrant/spec/shard"
)

// bulkSize bounds one multi-row INSERT of prepare: big enough to amortise
// round trips, well under the 16 MB default max_allowed_packet.
const bulkSize = 512 << 10

// CreateTableSQL is oltp_common.lua's create_table statement for MySQL.
func CreateTableSQL(p Params, n int) string {
	idDef := "INTEGER NOT NULL AUTO_INCREMENT"
	if !p.AutoInc {
		idDef = "INTEGER NOT NULL"
	}
	idIndex := "PRIMARY KEY"
	if p.Secondary {
		idIndex = "KEY xid"
	}
	return fmt.Sprintf("CREATE TABLE sbtest%d(\n  id %s,\n  k INTEGER DEFAULT '0' NOT NULL,\n"+
		"  c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL,\n  %s (id)\n) /*! ENGINE = %s */ ",
		n, idDef, idIndex, p.Engine)
}

func bulkTableSQL(n int) string {
	return fmt.Sprintf("CREATE TABLE IF NOT EXISTS sbtest%d (\n  id INTEGER NOT NULL,\n  k INTEGER DEFAULT '0' NOT NULL,\n  PRIMARY KEY (id))", n)
}

// Prepare creates and loads the tables like sysbench's prepare: tables are
// spread over threads (table i goes to thread (i-1) % threads), loaded with
// multi-row INSERTs, and the secondary index k_N is created after the load. A shard
// prepares only the tables it owns, so N shards load N times as many tables at once.
// progress, if not nil, is told each finished table; loaded, if not nil, is told the rows
// inserted so far of all tables, about once a second.
func Prepare(ctx context.Context, cfg *mysql.Config, name string, p Params, threads int, sh shard.Shard, progress func(msg string), loaded func(done, total int64)) error {
	// sysbench stops at a missing database; a fresh sandbox has none, and there is no
	// doubt about what the user wants, so prepare makes it.
	if err := createDatabase(ctx, cfg); err != nil {
		return err
	}
	if name == "bulk_insert" {
		return forEachTable(ctx, cfg, threads, threads, sh, p.Rand, func(c *engine.Conn, n int, _ *sbrand.Rand) error {
			_, err := c.ExecText(bulkTableSQL(n), false, nil)
			return err
		})
	}
	size := p.TableSize
	if name == "oltp_insert" && !p.AutoInc {
		size = 0 // as oltp_insert.lua: ids from prepare could collide with rand.unique()
	}
	var rows atomic.Int64
	// A batch InnoDB picks as a deadlock's victim or whose lock wait times out (another
	// session's locks: sysbench's own tables never share a loader) is sent again.
	retry := &engine.LoadRetry{Log: progress}
	if progress != nil {
		defer func() {
			progress(fmt.Sprintf("prepare: %d batch(es) sent again after a deadlock or lock wait timeout", retry.Retries()))
		}()
	}
	if loaded != nil {
		total := int64(size) * int64(owned(sh, p.Tables))
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			t := time.NewTicker(time.Second)
			defer t.Stop()
			for {
				select {
				case <-stop:
					return
				case <-t.C:
					loaded(rows.Load(), total)
				}
			}
		}()
		defer func() { loaded(rows.Load(), total) }()
	}
	return forEachTable(ctx, cfg, threads, p.Tables, sh, p.Rand, func(c *engine.Conn, n int, rng *sbrand.Rand) error {
		if err := loadTable(ctx, c, p, n, size, rng, retry, &rows); err != nil {
			return fmt.Errorf("prepare sbtest%d: %w", n, err)
		}
		if progress != nil {
			progress(fmt.Sprintf("prepared sbtest%d (%d rows)", n, size))
		}
		return nil
	})
}

// loadTable creates and fills one table, each batch sent again after a deadlock or lock
// wait timeout (retry); rows counts the rows inserted, for progress.
func loadTable(ctx context.Context, c *engine.Conn, p Params, n, size int, rng *sbrand.Rand, retry *engine.LoadRetry, rows *atomic.Int64) error {
	if _, err := c.ExecText(CreateTableSQL(p, n), false, nil); err != nil {
		return err
	}
	head := "INSERT INTO sbtest" + strconv.Itoa(n) + "(k, c, pad) VALUES"
	if !p.AutoInc {
		head = "INSERT INTO sbtest" + strconv.Itoa(n) + "(id, k, c, pad) VALUES"
	}
	buf := make([]byte, 0, bulkSize+1024)
	pending := int64(0) // rows in buf
	sent := int64(0)    // rows before buf
	flush := func() error {
		if len(buf) <= len(head) {
			return nil
		}
		stmt := string(buf)
		what := fmt.Sprintf("sbtest%d rows %d to %d", n, sent+1, sent+pending)
		err := retry.Batch(ctx, what, func() error { _, err := c.ExecText(stmt, false, nil); return err }, c.Rollback)
		buf = buf[:0]
		if err == nil {
			rows.Add(pending)
		}
		sent += pending
		pending = 0
		return err
	}
	for i := 1; i <= size; i++ {
		if len(buf) == 0 {
			buf = append(buf, head...)
		} else {
			buf = append(buf, ',')
		}
		buf = append(buf, '(')
		if !p.AutoInc {
			buf = strconv.AppendInt(buf, int64(i), 10)
			buf = append(buf, ", "...)
		}
		buf = strconv.AppendUint(buf, uint64(rng.Default(1, uint32(p.TableSize))), 10)
		buf = append(buf, ", '"...)
		buf = rng.String(buf, sbrand.CTemplate)
		buf = append(buf, "', '"...)
		buf = rng.String(buf, sbrand.PadTemplate)
		buf = append(buf, "')"...)
		pending++
		if len(buf) >= bulkSize {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	if p.CreateSecondary {
		if _, err := c.ExecText(fmt.Sprintf("CREATE INDEX k_%d ON sbtest%d(k)", n, n), false, nil); err != nil {
			return err
		}
	}
	return nil
}

// Cleanup drops the tables (DROP TABLE IF EXISTS, like sysbench).
func Cleanup(ctx context.Context, cfg *mysql.Config, name string, p Params, threads int) error {
	tables := p.Tables
	if name == "bulk_insert" {
		tables = threads
	}
	c, err := engine.Dial(ctx, cfg, false)
	if err != nil {
		return err
	}
	defer c.Close()
	for n := 1; n <= tables; n++ {
		if _, err := c.ExecText("DROP TABLE IF EXISTS sbtest"+strconv.Itoa(n), false, nil); err != nil {
			return fmt.Errorf("cleanup sbtest%d: %w", n, err)
		}
	}
	return nil
}

// owned counts the tables of 1..tables that shard sh prepares.
func owned(sh shard.Shard, tables int) int {
	n := 0
	for t := 1; t <= tables; t++ {
		if sh.Owns(t) {
			n++
		}
	}
	return n
}

// forEachTable runs fn for the tables of 1..tables that sh owns on min(threads, tables)
// connections.
func forEachTable(ctx context.Context, cfg *mysql.Config, threads, tables int, sh shard.Shard, ro sbrand.Options, fn func(c *engine.Conn, n int, rng *sbrand.Rand) error) error {
	threads = max(1, min(threads, tables))
	var wg sync.WaitGroup
	errs := make([]error, threads)
	for t := range threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := engine.Dial(ctx, cfg, false)
			if err != nil {
				errs[t] = err
				return
			}
			defer c.Close()
			rng := sbrand.New(ro, t)
			for n := t + 1; n <= tables; n += threads {
				if !sh.Owns(n) {
					continue
				}
				if ctx.Err() != nil {
					errs[t] = ctx.Err()
					return
				}
				if err := fn(c, n, rng); err != nil {
					errs[t] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func createDatabase(ctx context.Context, cfg *mysql.Config) error {
	if cfg.DBName == "" {
		return nil
	}
	c := cfg.Clone()
	c.DBName = ""
	conn, err := engine.Dial(ctx, c, false)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecText("CREATE DATABASE IF NOT EXISTS `"+strings.ReplaceAll(cfg.DBName, "`", "``")+"`", false, nil); err != nil {
		return fmt.Errorf("create database %s: %w", cfg.DBName, err)
	}
	return nil
}

// rowBytes is about what one sysbench row takes in InnoDB: id and k (4 bytes each), c
// (120) and pad (60), the clustered index's per-row overhead, and the k_N index entry.
const rowBytes = 240

// LoadSize estimates what action: prepare loads: rows, and about how many bytes on disk.
func LoadSize(name string, p Params) (rows, bytes int64) {
	if name == "bulk_insert" || name == "oltp_insert" && !p.AutoInc {
		return 0, 0
	}
	rows = int64(p.Tables) * int64(p.TableSize)
	return rows, rows * rowBytes
}
