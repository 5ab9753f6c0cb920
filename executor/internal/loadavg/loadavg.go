// Package loadavg reads the host's 1-minute load average, which run.json records around
// each iteration's measured workload (results.Load) so that compare can tell a change the
// host made from one the server made.
package loadavg

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// path is the kernel's file; a test points it elsewhere.
const path = "/proc/loadavg"

// OneMinute is the 1-minute load average and the CPUs this process may use; false where
// the host has no /proc/loadavg (not Linux): nothing is recorded then.
func OneMinute() (load float64, cpus int, ok bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, false
	}
	v, err := parse(string(b))
	if err != nil {
		return 0, 0, false
	}
	return v, runtime.NumCPU(), true
}

// parse reads the first field of /proc/loadavg ("0.52 0.58 0.59 1/467 12345").
func parse(s string) (float64, error) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return 0, fmt.Errorf("%s: empty", path)
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%s: %q is not a load average", path, f[0])
	}
	return v, nil
}
