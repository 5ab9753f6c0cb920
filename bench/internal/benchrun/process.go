package benchrun

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
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

// ProcessCPU is a process's user+system CPU time from /proc/PID/stat (0 when unreadable): a
// sandbox server's work, which a noisy machine's load does not inflate as it does wall time.
func ProcessCPU(pid int) time.Duration {
	if pid <= 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// utime and stime are fields 14 and 15 of the line, 12 and 13 after the parenthesised command name.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / 100 // USER_HZ, 100 on every Linux this runs on
}

// SelfCPU is this process's user+system CPU time.
func SelfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
