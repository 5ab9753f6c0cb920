package replay

import (
	"fmt"
	"slices"
	"sync"

	"github.com/quadrant-bench/quadrant/executor/traffic"
	"github.com/quadrant-bench/quadrant/spec/sqltext"
)

// failuresShown is how many replayed statements failing unlike the capture the log names per
// fingerprint, and failuresLogged how many in all: past them it counts, so a target without a
// table the capture used does not fill the log with one line per statement.
const (
	failuresShown  = 3
	failuresLogged = 50
)

// failures logs the replayed statements that failed unlike the capture (an error where it
// succeeded, or another error) with what finds them in the capture: the captured session,
// the statement's position in it, the file's line. The sessions share it.
type failures struct {
	logf   func(format string, args ...any)
	file   string
	mu     sync.Mutex
	byFp   map[int]*fpFailures // by the scan's fingerprint number
	logged int
}

type fpFailures struct {
	id    string // the fingerprint's id (fingerprints.csv)
	text  string // the first failing statement, shortened
	count int64
	shown int
}

func newFailures(file string, logf func(string, ...any)) *failures {
	return &failures{file: file, logf: logf, byFp: map[int]*fpFailures{}}
}

// note is told of a replayed statement, the nth (from 1) of captured session session, that
// ended in error code (msg) where the capture says it ended in captured (0 success, -1 unknown).
func (f *failures) note(it *record, session uint64, nth int64, code int, msg string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	x := f.byFp[it.fp]
	if x == nil {
		x = &fpFailures{id: traffic.FingerprintID(traffic.Fingerprint(it.text)), text: sqltext.Short(it.text, 100)}
		f.byFp[it.fp] = x
	}
	x.count++
	if x.shown >= failuresShown || f.logged >= failuresLogged {
		return
	}
	x.shown++
	f.logged++
	was := "succeeded"
	switch {
	case it.err > 0:
		was = fmt.Sprintf("ended in error %d", it.err)
	case it.err < 0:
		was = "did not record how it ended (counted as a success)"
	}
	f.logf("replay %s:%d: captured session %d, statement %d: error %d where the capture %s (fingerprint %s): %s; the statement: %s",
		f.file, it.line, session, nth, code, was, x.id, sqltext.Short(msg, 200), sqltext.Short(it.text, 100))
}

// summary logs, per fingerprint with more failures than the log named, how many there were.
func (f *failures) summary() {
	f.mu.Lock()
	defer f.mu.Unlock()
	var fps []*fpFailures
	for _, x := range f.byFp {
		if x.count > int64(x.shown) {
			fps = append(fps, x)
		}
	}
	slices.SortFunc(fps, func(a, b *fpFailures) int { return int(b.count - a.count) })
	for _, x := range fps {
		f.logf("replay %s: fingerprint %s: %d statements failed unlike the capture, %d of them logged above (%s)", f.file, x.id, x.count, x.shown, x.text)
	}
}
