package engine

import (
	"context"
	"database/sql/driver"
	"strconv"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/internal/authretry"
)

// When the workload stops (its end, its events, an abort, or the context cancelled by an
// interrupt), a statement still running after killGrace is ended with KILL QUERY on
// quadrant's own connection: a statement stuck in a lock wait (innodb_lock_wait_timeout
// 50 s) would otherwise hold the run, and the teardown after it, that long. The grace lets a
// statement that was about to finish finish, measured as usual; a statement killed here is
// not measured: it was quadrant's doing, not the workload's error. Workers flushing their
// last work (Finisher) are killed only when the context was cancelled.
const (
	killGrace = 200 * time.Millisecond
	killEvery = 500 * time.Millisecond // again for statements begun since (a transaction's next)
)

// Where each worker is, for the killer.
const (
	working int32 = iota
	finishing
	exited
)

// control is the connection KILL QUERY goes through, opened before the clock starts (when
// the server may refuse more connections later) with the workers' own settings.
type control struct {
	cfg *mysql.Config
	dc  driver.Conn
}

// controls are the control connections of a run, one per server its workers connect to (a
// connection id means something only on its own server: a workload spread over a Galera
// cluster's nodes kills each worker's statement on the worker's node).
type controls map[string]*control

// openControl connects a control connection like the first worker's on each server; none
// without a worker to copy. Failing to connect is not an error: the run goes on and tries
// again when it kills.
func openControl(ctx context.Context, conns []*Conn) controls {
	ctls := controls{}
	for _, c := range conns {
		if c == nil || c.cfg == nil || ctls[serverKey(c.cfg)] != nil {
			continue
		}
		ctl := &control{cfg: c.cfg}
		_ = ctl.connect(ctx)
		ctls[serverKey(c.cfg)] = ctl
	}
	return ctls
}

func serverKey(cfg *mysql.Config) string { return cfg.Net + " " + cfg.Addr }

// of is the control connection of c's server; nil when c has none.
func (ctls controls) of(c *Conn) *control {
	if c == nil || c.cfg == nil {
		return nil
	}
	return ctls[serverKey(c.cfg)]
}

func (ctls controls) close() {
	for _, ctl := range ctls {
		ctl.close()
	}
}

func (ctl *control) connect(ctx context.Context) error {
	connector, err := authretry.NewConnector(ctl.cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	ctl.dc, err = connector.Connect(ctx)
	return err
}

// kill ends the statement connection id is running, if any; a connection that has gone
// meanwhile (1094, unknown thread) is no error. A lost control connection is dialled again once.
func (ctl *control) kill(id uint32) {
	sql := "KILL QUERY " + strconv.FormatUint(uint64(id), 10)
	for try := 0; try < 2; try++ {
		if ctl.dc == nil {
			if ctl.connect(context.Background()) != nil {
				return
			}
		}
		//lint:ignore SA1019 the control connection is a bare driver.Conn, as the workers' (see Conn)
		_, err := ctl.dc.(driver.Execer).Exec(sql, nil)
		if err == nil || !Broken(err) {
			return
		}
		_ = ctl.dc.Close()
		ctl.dc = nil
	}
}

func (ctl *control) close() {
	if ctl != nil && ctl.dc != nil {
		_ = ctl.dc.Close()
	}
}

// reap waits for the workload to stop, gives the workers' statements killGrace to end, then
// kills those still running, every killEvery, until every worker has exited (done); then it
// closes ctls. It only reads the connections' ids, which stay safe to read after they close.
func (r *run) reap(ctx context.Context, ctls controls, conns []*Conn, done <-chan struct{}) {
	if len(ctls) == 0 {
		return
	}
	defer ctls.close()
	select {
	case <-r.Done():
	case <-done:
		return
	}
	t := time.NewTimer(killGrace)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-done:
			return
		}
		interrupted := ctx.Err() != nil
		for i, c := range conns {
			switch r.state[i].Load() {
			case exited:
				continue
			case finishing:
				if !interrupted {
					continue
				}
			}
			if id, ctl := c.ID(), ctls.of(c); id != 0 && ctl != nil {
				// Marked before the KILL: the worker's errors from here on are quadrant's doing.
				r.killed[i].Store(true)
				c.killed.Store(true)
				ctl.kill(id)
			}
		}
		t.Reset(killEvery)
	}
}
