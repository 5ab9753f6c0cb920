package generate_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/generate"
	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
	"github.com/quadrant-bench/quadrant/spec/shard"
)

// meeting is an in-process rendezvous of n parties, point by point, standing in for the
// shards' barrier table (executor/barrier), which the cmd/quadrant shard tests use.
type meeting struct {
	mu      sync.Mutex
	n       int
	arrived map[string]int
	open    map[string]chan struct{}
}

func (m *meeting) meet(ctx context.Context, point string) error {
	m.mu.Lock()
	if m.open[point] == nil {
		m.open[point] = make(chan struct{})
	}
	ch := m.open[point]
	m.arrived[point]++
	if m.arrived[point] == m.n {
		close(ch)
	}
	m.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TestShardsComposeIntoOneRun: three shards, each filling its range of every table's rows
// (the leader alone running the schema), leave exactly the tables one unsharded run does:
// the same CHECKSUM TABLE for each, the composite key (order_id, line) and the zipf foreign
// keys included.
func TestShardsComposeIntoOneRun(t *testing.T) {
	c := sandboxtest.Start(t, sandbox.Options{Name: "genshard"})
	db := sandboxtest.DB(t, c.Primary.DSN(""), 0)
	run(t, db, shop(7, 2))
	whole := checksums(t, db)
	if _, err := db.Exec("DROP DATABASE shop"); err != nil {
		t.Fatal(err)
	}

	const n = 3
	m := &meeting{n: n, arrived: map[string]int{}, open: map[string]chan struct{}{}}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	rows := make([]int64, n)
	errs := make([]error, n)
	for k := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := shop(7, 2)
			o.Shard, o.Meet, o.Logf = shard.Shard{Index: k, Count: n}, m.meet, t.Logf
			res, err := generate.Run(ctx, db, o)
			rows[k], errs[k] = res.Rows, err
			if err != nil {
				cancel() // the others would wait for this one at the next point
			}
		}()
	}
	wg.Wait()
	var sum int64
	for k := range n {
		if errs[k] != nil {
			t.Fatalf("shard %d: %v", k, errs[k])
		}
		sum += rows[k]
	}
	if sum != 1000+300+2000+5000 {
		t.Errorf("the shards inserted %d rows in all (%v), want 8300", sum, rows)
	}
	if sharded := checksums(t, db); sharded != whole {
		t.Errorf("3 shards gave other rows than one run:\n%s\n%s", whole, sharded)
	}
}
