package engine

import (
	"sync"
	"sync/atomic"
)

// Halt tells a loop's workers to stop, once: at the end of the run, or at the first error
// that aborts it, which it keeps. The engine's loop and tpcc's terminals share it.
type Halt struct {
	stopped   atomic.Bool
	done      chan struct{}
	stopOnce  sync.Once
	abortOnce sync.Once
	abort     error
}

// NewHalt returns a Halt not yet stopped.
func NewHalt() *Halt { return &Halt{done: make(chan struct{})} }

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
