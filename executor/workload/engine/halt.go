package engine

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quadrant-bench/quadrant/results/measure"
)

// Halt tells a loop's workers to stop, once: at the end of the run, or at the first error
// that aborts it, which it keeps; it also keeps the run's error count against max_errors.
type Halt struct {
	stopped   atomic.Bool
	done      chan struct{}
	stopOnce  sync.Once
	abortOnce sync.Once
	abort     error
	maxErrors int64 // 0: no limit
	errs      atomic.Int64
}

// NewHalt returns a Halt not yet stopped, that aborts the run past maxErrors errors (0: never).
func NewHalt(maxErrors int64) *Halt { return &Halt{done: make(chan struct{}), maxErrors: maxErrors} }

// Stop tells every worker to stop; later calls do nothing.
func (h *Halt) Stop() {
	h.stopOnce.Do(func() {
		h.stopped.Store(true)
		close(h.done)
	})
}

// Fail stops the workers for err; only the first error is kept.
func (h *Halt) Fail(err error) {
	h.abortOnce.Do(func() { h.abort = err })
	h.Stop()
}

// Stopped is the cheap check a worker makes between events.
func (h *Halt) Stopped() bool { return h.stopped.Load() }

// Done is closed once Stop was called, for workers that wait.
func (h *Halt) Done() <-chan struct{} { return h.done }

// Err is the error that aborted the run, if any; read it once the workers are done.
func (h *Halt) Err() error { return h.abort }

// CountError counts one error against max_errors; false when it aborted the run.
func (h *Halt) CountError(code int, err error) bool {
	if n := h.errs.Add(1); h.maxErrors > 0 && n > h.maxErrors {
		h.Fail(&AbortError{Reason: fmt.Sprintf("more than max_errors=%d errors; last: error %d: %v", h.maxErrors, code, err), Err: err})
		return false
	}
	return true
}

// Reconnect calls reconnect until it succeeds (true), with a backoff from 50 ms doubling to
// 1 s, each failure recorded and counted; false when the run stopped or the errors aborted it.
func (h *Halt) Reconnect(ctx context.Context, rec *measure.Recorder, reconnect func(context.Context) error) bool {
	backoff := 50 * time.Millisecond
	for !h.Stopped() {
		err := reconnect(ctx)
		if err == nil {
			rec.Reconnect()
			return true
		}
		code := Code(err)
		rec.Error(code, -1)
		if !h.CountError(code, err) {
			return false
		}
		select {
		case <-time.After(backoff):
		case <-h.Done():
			return false
		}
		backoff = min(2*backoff, time.Second)
	}
	return false
}

// LostHint is what an abort's reason adds for an error that broke the connection: the
// on_error setting that would have reconnected instead.
func LostHint(code int, err error) string {
	if !Broken(err) {
		return ""
	}
	return fmt.Sprintf(" (connection lost or timed out; add %d to on_error.reconnect to reconnect instead)", code)
}
