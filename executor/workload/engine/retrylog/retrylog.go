// Package retrylog is for tests of a data load that sends a batch again (engine.LoadRetry):
// it collects the load's log, says when the first retry the test waits for is logged, and
// checks the two lines a user reads of it, the retry and the load's count of them. The
// builtin's, tpcc's and generate's prepare tests share it.
package retrylog

import (
	"regexp"
	"strings"
	"sync"
	"testing"
)

// Log collects a load's log lines. The zero value is not usable: New.
type Log struct {
	t       testing.TB
	match   func(string) bool
	mu      sync.Mutex
	lines   []string
	once    sync.Once
	retried chan struct{}
}

// New is a Log whose Retried closes at the first line that sends a batch again and that
// match accepts (nil: any such line).
func New(t testing.TB, match func(line string) bool) *Log {
	return &Log{t: t, match: match, retried: make(chan struct{})}
}

// Add is the load's log function.
func (l *Log) Add(line string) {
	l.mu.Lock()
	l.lines = append(l.lines, line)
	l.mu.Unlock()
	l.t.Log(line)
	if strings.Contains(line, "sending the batch again") && (l.match == nil || l.match(line)) {
		l.once.Do(func() { close(l.retried) })
	}
}

// Retried is closed once a retry the Log waits for was logged.
func (l *Log) Retried() <-chan struct{} { return l.retried }

// String is every line so far.
func (l *Log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// Check fails t unless the log has a line matching retry (a regular expression: the batch
// sent again) and the load's count of its retries, "PREFIX N batch(es) sent again after a
// deadlock or lock wait timeout", with N at least 1.
func (l *Log) Check(t testing.TB, retry, prefix string) {
	t.Helper()
	all := l.String()
	if !regexp.MustCompile(retry).MatchString(all) {
		t.Errorf("no line matches %q:\n%s", retry, all)
	}
	count := regexp.MustCompile(regexp.QuoteMeta(prefix) + `(\d+) batch\(es\) sent again after a deadlock or lock wait timeout`)
	if m := count.FindStringSubmatch(all); m == nil || m[1] == "0" {
		t.Errorf("the load's log does not count its retries (at least 1):\n%s", all)
	}
}
