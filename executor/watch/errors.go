package watch

import (
	"errors"
	"fmt"
	"time"
)

// ErrUnavailable marks a source that did not answer (refused, timed out, connection lost). It is a warning,
// not a failure: the sampler yields empty cells and tries again on the next tick.
var ErrUnavailable = errors.New("source unavailable")

// ErrUnknownName marks a plan that names what the server does not have (a status variable):
// the plan is wrong, not the run, and fixing the plan is what helps.
var ErrUnknownName = errors.New("unknown name")

// Unavailable wraps err so that errors.Is(result, ErrUnavailable) holds.
func Unavailable(what string, err error) error {
	return fmt.Errorf("%s: %w (%w)", what, err, ErrUnavailable)
}

// Outage turns a stream of per-tick failures into one warning per outage: a source that is down for a minute
// must not fill the log with sixty identical lines.
type Outage struct {
	down  bool
	since time.Time
}

// Fail records a failed tick. It returns err the first time (the start of an outage) and nil while the outage
// lasts.
func (o *Outage) Fail(now time.Time, err error) error {
	if o.down {
		return nil
	}
	o.down, o.since = true, now
	return err
}

// OK records a successful tick; it reports whether an outage just ended and how long it lasted.
func (o *Outage) OK(now time.Time) (ended bool, lasted time.Duration) {
	if !o.down {
		return false, 0
	}
	o.down = false
	return true, now.Sub(o.since)
}

// Down reports whether the source is in an outage.
func (o *Outage) Down() bool { return o.down }
