// Package loadavg samples the host's runnable tasks while an iteration's measured workload
// runs, for run.json's host_load (results.HostLoad: the load averages at its start and end
// come from executor/internal/hostinfo) so that compare can tell a change the host made from
// one the server made: their mean shows a neighbour that started during a short iteration,
// which the 1-minute average (it moves by a sixtieth a second) only catches up with a
// minute later.
package loadavg

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// path is the kernel's file.
const path = "/proc/loadavg"

// Every is how often a Sampler reads the runnable tasks.
const Every = 250 * time.Millisecond

// Reading is one read of /proc/loadavg: the load averages over 1, 5 and 15 minutes and the
// tasks runnable now.
type Reading struct {
	Load1, Load5, Load15 float64
	Runnable             int
}

// Read reads /proc/loadavg; false where there is none (not Linux): nothing is recorded then.
func Read() (Reading, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Reading{}, false
	}
	r, err := Parse(string(b))
	return r, err == nil
}

// CPUs are the CPUs this process may use: what the load is divided by.
func CPUs() int { return runtime.NumCPU() }

// Parse reads "0.52 0.58 0.59 3/467 12345": the three load averages and the runnable tasks
// (quadrant's own reading thread among them). The one parser of the file, which
// executor/internal/hostinfo reads under a recorded root too.
func Parse(s string) (Reading, error) {
	f := strings.Fields(s)
	if len(f) < 4 {
		return Reading{}, fmt.Errorf("%s: %q has fewer than 4 fields", path, s)
	}
	var r Reading
	for i, p := range []*float64{&r.Load1, &r.Load5, &r.Load15} {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil || v < 0 {
			return Reading{}, fmt.Errorf("%s: %q is not a load average", path, f[i])
		}
		*p = v
	}
	run, _, _ := strings.Cut(f[3], "/")
	n, err := strconv.Atoi(run)
	if err != nil || n < 0 {
		return Reading{}, fmt.Errorf("%s: %q is not runnable/total tasks", path, f[3])
	}
	r.Runnable = n
	return r, nil
}

// Sampler reads the runnable tasks every Every until Stop, for their mean.
type Sampler struct {
	stop chan struct{}
	done chan struct{}
	mu   sync.Mutex
	sum  int
	n    int
}

// Sample starts a Sampler.
func Sample() *Sampler {
	s := &Sampler{stop: make(chan struct{}), done: make(chan struct{})}
	go s.loop()
	return s
}

func (s *Sampler) loop() {
	defer close(s.done)
	t := time.NewTicker(Every)
	defer t.Stop()
	for {
		if r, ok := Read(); ok {
			s.mu.Lock()
			s.sum, s.n = s.sum+r.Runnable, s.n+1
			s.mu.Unlock()
		}
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
	}
}

// Stop ends the sampling and returns the mean runnable tasks; false without a reading.
func (s *Sampler) Stop() (float64, bool) {
	close(s.stop)
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n == 0 {
		return 0, false
	}
	return float64(s.sum) / float64(s.n), true
}
