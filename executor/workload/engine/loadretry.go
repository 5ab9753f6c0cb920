package engine

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
)

// LoadAttempts bounds how often a data load sends one batch: the first time and nine
// retries. Ten deadlocks in a row on one batch is no longer bad luck but a load that
// fights something else on the server, which the user has to see.
const LoadAttempts = 10

// loadBackoff is the first retry's wait; each further retry waits one more of it, so the
// loaders that deadlocked each other do not meet again at once.
const loadBackoff = 20 * time.Millisecond

// LoadRetry sends a data load's batches again when InnoDB chose one as a deadlock's victim
// (1213) or its lock wait timed out (1205), as sysbench's and go-tpc's users expect of a
// load with several threads: only that batch, not the load from the start. It logs each
// retry and counts them; the loaders of one prepare share one.
type LoadRetry struct {
	// Log, if set, gets each retry: the prepare's progress log, so it reaches the run log.
	Log func(msg string)
	n   atomic.Int64
}

// Retryable says whether err is one a batch is sent again after: the server rolled the
// batch back (1213: its whole transaction; 1205: the statement, which is all of a batch
// that runs alone in autocommit).
func Retryable(err error) bool {
	c := Code(err)
	return c == 1213 || c == 1205
}

// Batch sends one batch with send. After a retryable error it calls rollback (if set) to
// end what is left of the batch's transaction, waits a short backoff and sends the batch
// again, at most LoadAttempts times in all; then it fails naming what (the table and the
// batch's rows) and the count. Any other error is returned as it is.
func (r *LoadRetry) Batch(ctx context.Context, what string, send, rollback func() error) error {
	for attempt := 1; ; attempt++ {
		err := send()
		if err == nil || !Retryable(err) {
			return err
		}
		if rollback != nil {
			if rerr := rollback(); rerr != nil {
				return fmt.Errorf("%s: roll back after %w: %v", what, err, rerr)
			}
		}
		if attempt == LoadAttempts {
			return fmt.Errorf("%s: %s %d times in a row, giving up (another session holds locks on this table?): %w",
				what, lockProblem(err), attempt, err)
		}
		r.n.Add(1)
		if r.Log != nil {
			r.Log(fmt.Sprintf("%s: %s, sending the batch again (retry %d of %d)", what, lockProblem(err), attempt, LoadAttempts-1))
		}
		select {
		case <-time.After(time.Duration(attempt) * loadBackoff):
		case <-ctx.Done():
			return fmt.Errorf("%s: %w", what, ctx.Err())
		}
	}
}

// Retries is how many batches were sent again so far.
func (r *LoadRetry) Retries() int64 { return r.n.Load() }

func lockProblem(err error) string {
	if Code(err) == 1205 {
		return "lock wait timeout (1205)"
	}
	return "deadlock (1213)"
}
