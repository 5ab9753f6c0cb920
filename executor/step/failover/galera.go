package failover

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
)

// A Galera drill fails one node of a Galera sandbox (node:, by default the step's target,
// node 1, which the ledger and the workload write through) and brings it back after down:
// started again after a kill or a shutdown (crash recovery, then a state transfer from a
// donor), reconnected after a partition, resumed after a pause. No node is promoted: every
// node takes writes. What it measures: the longest time without an acknowledged ledger
// write, how long until the other nodes are a Primary component without the failed one,
// how long the node took to rejoin and whether by IST or SST, and the acknowledged ids any
// node lacks once it has rejoined. See docs/failover.md, Galera.

// galeraSide fails one node of a Galera sandbox.
type galeraSide struct {
	d       *drill
	c       *sandbox.Cluster
	node    *sandbox.Server // the node the fault hits
	written *sandbox.Server // the node the ledger writes through: the target's, node 1
	failed  bool            // the node is down, cut off or paused: restore brings it back
}

func newGaleraSide(d *drill, c *sandbox.Cluster, node string) (*galeraSide, error) {
	g := &galeraSide{d: d, c: c, written: c.Primary}
	var names []string
	for _, s := range c.Servers() {
		names = append(names, s.Name())
		if s.Name() == node {
			g.node = s
		}
	}
	if g.node == nil {
		return nil, fmt.Errorf("failover: node %s is no node of the Galera sandbox %s (%s)", node, c.Primary.Name(), strings.Join(names, ", "))
	}
	return g, nil
}

func (g *galeraSide) primary() (*sql.DB, string, error) {
	db, err := g.written.Open()
	return db, g.written.Name(), err
}

func (g *galeraSide) addr() string { return addrOf(g.written) }

func (g *galeraSide) prepare(ctx context.Context) error {
	db, err := g.written.Open()
	if err != nil {
		return err
	}
	defer db.Close()
	return createLedger(ctx, db, g.written.Name())
}

func (g *galeraSide) linkFault(*LinkFault)                                 {}
func (g *galeraSide) atFault(context.Context, *ledger, map[string]float64) {}

// failover is the replicas' timeline's; a Galera drill runs its own (drill).
func (g *galeraSide) failover(context.Context, map[string]float64) (string, error) {
	return "", errors.New("failover: a Galera node is failed and brought back, not failed over")
}

// commits are the transactions the written node committed (wsrep_local_commits: its own
// clients', not those it applied for the other nodes).
func (g *galeraSide) commits(ctx context.Context) int64 {
	return g.d.status(ctx, "wsrep_local_commits")
}

// drill is a Galera drill's timeline: ledger, fault, the others Primary, down, the node
// back and rejoined, a write after it, count on every node.
func (g *galeraSide) drill(ctx context.Context) (map[string]float64, error) {
	d := g.d
	m := map[string]float64{}
	l, err := d.lead(ctx, m)
	if l != nil {
		defer l.stop()
	}
	if err != nil {
		return m, errors.Join(err, g.restore())
	}
	faultAt := time.Now()
	d.marked(EventFault, faultAt)
	if err := g.fault(ctx); err != nil {
		return m, errors.Join(err, g.restore())
	}
	back, err := g.heal(ctx, faultAt, m)
	if err != nil {
		return m, errors.Join(err, g.restore())
	}
	resumed, err := l.ackAfter(ctx, back, d.b.RecoverTimeout)
	if err != nil {
		return m, fmt.Errorf("failover: through %s once %s rejoined: %w", g.written.Name(), g.node.Name(), err)
	}
	l.stop() // no write in flight while the nodes' ids are read
	d.acked = l.ackedBefore(time.Now())
	m[MetricAcked] = float64(len(d.acked))
	gap, first := l.longestGap(faultAt, resumed)
	m[MetricUnavailable] = gap.Seconds()
	d.marked(EventFirstCommit, first)
	d.logf("longest time without a ledger write through %s: %.3fs, ending %.3fs after the fault", g.written.Name(), gap.Seconds(), first.Sub(faultAt).Seconds())
	if err := g.count(ctx, l, m); err != nil {
		return m, err
	}
	d.recovery(ctx, faultAt, first, m)
	return m, nil
}

// fault fails the node: SIGKILL, a clean shutdown, cut off from the other nodes (Galera's
// gmcast.isolate: it drops their group messages and they its), or SIGSTOP.
func (g *galeraSide) fault(ctx context.Context) error {
	var err error
	switch g.d.b.Fault {
	case "shutdown":
		err = g.node.Stop(ctx)
	case "partition":
		err = g.node.Exec(ctx, "SET GLOBAL wsrep_provider_options = 'gmcast.isolate=1'")
	case "pause":
		err = g.node.Pause()
	default:
		err = g.node.Kill()
	}
	if err != nil {
		return fmt.Errorf("failover: %s of %s: %w", g.d.b.Fault, g.node.Name(), err)
	}
	g.failed = true
	g.d.logf("%s of Galera node %s", g.d.b.Fault, g.node.Name())
	return nil
}

// heal waits until the other nodes are a Primary component without the node (not after a
// pause, which they may outwait), then until down has passed since the fault, brings the
// node back and waits until every node is Synced in a cluster of them all: when it returns.
func (g *galeraSide) heal(ctx context.Context, faultAt time.Time, m map[string]float64) (time.Time, error) {
	d, all := g.d, g.c.Servers()
	if d.b.Fault != "pause" {
		at, err := g.waitPrimary(ctx, len(all)-1)
		if err != nil {
			return time.Time{}, err
		}
		m[MetricPrimary] = at.Sub(faultAt).Seconds()
		d.marked(EventPrimary, at)
		d.logf("the other nodes are a Primary component of %d without %s %.3fs after the fault", len(all)-1, g.node.Name(), m[MetricPrimary])
	}
	if err := sleep(ctx, time.Until(faultAt.Add(d.b.Down))); err != nil {
		return time.Time{}, err
	}
	offsets := map[*sandbox.Server]int64{}
	for _, s := range all {
		offsets[s] = s.ErrorLogSize()
	}
	backAt := time.Now()
	if err := g.bringBack(ctx); err != nil {
		return time.Time{}, err
	}
	for _, s := range all {
		if err := s.WaitSynced(ctx, len(all)); err != nil {
			return time.Time{}, fmt.Errorf("failover: %s back after its %s, but the cluster is not whole again: %w", g.node.Name(), d.b.Fault, err)
		}
	}
	rejoined := time.Now()
	m[MetricRejoin] = rejoined.Sub(backAt).Seconds()
	d.marked(EventRejoined, rejoined)
	how, why := g.c.StateTransfer(g.node, offsets)
	switch how {
	case "SST":
		m[MetricSST] = 1
	case "IST":
		m[MetricSST] = 0
	default:
		how = "no state transfer in the nodes' error logs"
	}
	if why != "" {
		how += ", as " + why + " says"
	}
	d.logf("%s back %.3fs after the fault, Synced in a cluster of %d %.3fs later (%s)", g.node.Name(), backAt.Sub(faultAt).Seconds(), len(all), m[MetricRejoin], how)
	return rejoined, nil
}

// bringBack ends the fault: the node started again (it rejoins the others, node 1 too:
// it bootstraps only when no other node runs), reconnected, or resumed.
func (g *galeraSide) bringBack(ctx context.Context) error {
	var err error
	switch g.d.b.Fault {
	case "partition":
		err = g.node.Exec(ctx, "SET GLOBAL wsrep_provider_options = 'gmcast.isolate=0'")
	case "pause":
		err = g.node.Resume()
	default:
		err = g.node.Start(ctx)
	}
	if err != nil {
		return fmt.Errorf("failover: bringing %s back after its %s: %w", g.node.Name(), g.d.b.Fault, err)
	}
	g.failed = false
	return nil
}

// waitPrimary waits until every node but the failed one says it is in a Primary component
// of size nodes, at most recover_timeout; it returns when.
func (g *galeraSide) waitPrimary(ctx context.Context, size int) (time.Time, error) {
	var dbs []*sql.DB
	defer func() {
		for _, db := range dbs {
			db.Close()
		}
	}()
	for _, s := range g.c.Servers() {
		if s == g.node {
			continue
		}
		db, err := s.Open()
		if err != nil {
			return time.Time{}, err
		}
		dbs = append(dbs, db)
	}
	deadline := time.Now().Add(g.d.b.RecoverTimeout)
	for {
		var last string
		ok := true
		for _, db := range dbs {
			st, n, err := clusterState(ctx, db)
			if err != nil || st != "Primary" || n != size {
				ok, last = false, fmt.Sprintf("%s of %d (%v)", st, n, err)
				break
			}
		}
		if ok {
			return time.Now(), nil
		}
		if time.Now().After(deadline) {
			return time.Time{}, fmt.Errorf("failover: the nodes other than %s are no Primary component of %d within recover_timeout %s (last: %s)", g.node.Name(), size, g.d.b.RecoverTimeout, last)
		}
		if err := sleep(ctx, 20*time.Millisecond); err != nil {
			return time.Time{}, err
		}
	}
}

// clusterState is a node's wsrep_cluster_status and wsrep_cluster_size.
func clusterState(ctx context.Context, db *sql.DB) (string, int, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	rows, err := db.QueryContext(ctx, "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_cluster_status', 'wsrep_cluster_size')")
	if err != nil {
		return "", 0, err
	}
	defer rows.Close()
	var status string
	var size int
	for rows.Next() {
		var name, v string
		if err := rows.Scan(&name, &v); err != nil {
			return "", 0, err
		}
		if strings.EqualFold(name, "wsrep_cluster_status") {
			status = v
		} else {
			fmt.Sscan(v, &size)
		}
	}
	return status, size, rows.Err()
}

// count reads the ledger on every node, once each has applied all the cluster committed
// (wsrep_sync_wait): failover_acked_lost are the acknowledged ids one node or more lacks,
// failover_unacked_present the ids a node has that no client saw acknowledged.
func (g *galeraSide) count(ctx context.Context, l *ledger, m map[string]float64) error {
	lostIDs, extra := map[int64]bool{}, 0
	for _, s := range g.c.Servers() {
		lost, x, err := g.countOn(ctx, s, l)
		if err != nil {
			return fmt.Errorf("failover: %s: %w", s.Name(), err)
		}
		for _, id := range lost {
			lostIDs[id] = true
		}
		extra = max(extra, x)
		g.d.logf("%s: %d acknowledged ids missing, %d unacknowledged ids present", s.Name(), len(lost), x)
	}
	g.d.lost = g.d.lost[:0]
	for id := range lostIDs {
		g.d.lost = append(g.d.lost, id)
	}
	m[MetricAckedLost], m[MetricUnackedPresent] = float64(len(lostIDs)), float64(extra)
	return nil
}

// countOn counts on one node, through a connection that waits for the node to have
// applied what the cluster committed before it reads (Galera applies asynchronously).
func (g *galeraSide) countOn(ctx context.Context, s *sandbox.Server, l *ledger) ([]int64, int, error) {
	db, err := s.Open()
	if err != nil {
		return nil, 0, err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, 0, err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET SESSION wsrep_sync_wait = 1"); err != nil {
		return nil, 0, err
	}
	return count(ctx, conn, l)
}

// restore brings a node the drill left failed back (an error cut the drill short), so the
// next iteration has every node.
func (g *galeraSide) restore() error {
	if !g.failed {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := g.bringBack(ctx); err != nil {
		return err
	}
	if err := g.node.WaitSynced(ctx, len(g.c.Servers())); err != nil {
		return fmt.Errorf("failover: %s back after its %s: %w", g.node.Name(), g.d.b.Fault, err)
	}
	g.d.logf("%s back in its cluster", g.node.Name())
	return nil
}
