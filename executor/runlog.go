package executor

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
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

// ended says when and how an iteration ended, with its headline figures, so that log.txt
// tells a finished run from one cut short. A failure is one line starting "error:", which a
// piped console shows too.
func (l *runLog) ended(it *spec.Iteration, of int, info *results.IterationInfo, err error, m *measurement) {
	took := "0s"
	if info.End != nil {
		took = info.End.Sub(info.Start).Round(100 * time.Millisecond).String()
	}
	figures := "nothing measured"
	if m != nil && m.total != nil {
		t := m.total
		figures = fmt.Sprintf("%.1f tps, p95 %.2f ms, %d errors", t.Rates().TPS, measure.Ms(t.Lat.P95), t.Errors)
	}
	switch {
	case info.Status == results.StatusFailed && err != nil:
		l.logf("error: iteration %d/%d failed after %s (%s): %v", it.Index, of, took, figures, err)
	case info.Status == results.StatusFailed:
		l.logf("error: iteration %d/%d failed its assertions after %s (%s): %s", it.Index, of, took, figures, strings.Join(info.Failed, "; "))
	default:
		l.logf("iteration %d/%d %s after %s: %s", it.Index, of, info.Status, took, figures)
	}
}

// indent prefixes every line of text, for a block inside one line of log.txt.
func indent(text, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimRight(text, "\n"), "\n", "\n"+prefix)
}
