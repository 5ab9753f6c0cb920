package benchrun

import (
	"runtime"
	"time"
)

// HeapPeak samples the Go heap in use every 10 ms until done is closed, then sends the most
// it saw: a peak per run, where the process's VmHWM would keep the largest of all runs.
func HeapPeak() (peak <-chan uint64, done chan<- struct{}) {
	out, stop := make(chan uint64, 1), make(chan struct{})
	go func() {
		var most uint64
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			most = max(most, m.HeapInuse)
			select {
			case <-stop:
				out <- most
				return
			case <-t.C:
			}
		}
	}()
	return out, stop
}
