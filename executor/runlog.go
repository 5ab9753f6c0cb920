package executor

import (
	"fmt"
	"sync"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec"
)

// runLog is the run's log: every line goes to log.txt (logf's to the console too), with
// the secrets nothing may write replaced by ***.
type runLog struct {
	out *results.Writer
	obs Observer

	mu   sync.Mutex
	plan *spec.Plan // whose redaction applies: the plan as bound once sandbox addresses are
	// secrets are values learnt while running that nothing may write (log.txt, run.json,
	// the console): the passwords of the sandboxes this run started.
	secrets []string
}

// logf goes to log.txt and the console, secrets replaced by ***.
func (l *runLog) logf(format string, args ...any) {
	line := l.redact(fmt.Sprintf(format, args...))
	l.out.Logf("%s", line)
	l.obs.Logged(line)
}

// logFile goes to log.txt only, secrets replaced by ***.
func (l *runLog) logFile(format string, args ...any) {
	l.out.Logf("%s", l.redact(fmt.Sprintf(format, args...)))
}

// redact hides what the plan's own redaction hides (values of the environment it read) and
// the passwords of the run's sandboxes, with the same function.
func (l *runLog) redact(s string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s = l.plan.Redact(s)
	return spec.RedactValues(s, l.secrets...)
}

func (l *runLog) addSecret(v string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.secrets = append(l.secrets, v)
}

// setPlan makes p's redaction the log's (the plan bound to the sandboxes' addresses).
func (l *runLog) setPlan(p *spec.Plan) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.plan = p
}

// redactedError is an error whose message went through redact; errors.Is/As still see the cause.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

func (l *runLog) redactErr(err error) error {
	if err == nil {
		return nil
	}
	if msg := l.redact(err.Error()); msg != err.Error() {
		return &redactedError{msg: msg, err: err}
	}
	return err
}
