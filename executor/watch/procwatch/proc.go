// Package procwatch samples processes on this machine from /proc: the database server a target runs (what it
// cost in CPU, context switches and storage I/O) and quadrant itself (the client's CPU). These are process
// figures, never host figures: a column named proc.* always describes one process.
package procwatch

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/PID/stat. The kernel fixes it at 100 for user
// space on every architecture Go supports on Linux (sysconf(_SC_CLK_TCK) would need cgo).
const clockTicks = 100

// Reading is one process's counters at one moment.
type Reading struct {
	CPUMicros   float64 // utime + stime of every thread, living and exited
	CtxSwitches float64 // voluntary + involuntary, summed over the living threads
	ReadBytes   float64 // storage reads (/proc/PID/io read_bytes); NaN when not readable
	WriteBytes  float64 // storage writes (write_bytes minus cancelled_write_bytes); NaN when not readable
	RSSKB       float64
	Threads     float64
}

// Read reads process pid under root (normally /proc). The io figures need the same user as the process (or
// CAP_SYS_PTRACE); when they are not readable ioErr says so and the rest is still returned.
func Read(root string, pid int) (r Reading, ioErr error, err error) {
	dir := filepath.Join(root, strconv.Itoa(pid))
	stat, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return r, nil, fmt.Errorf("process %d: %w", pid, err)
	}
	// The command name in parentheses may hold spaces: fields count from the last ')'.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return r, nil, fmt.Errorf("process %d: unexpected /proc stat line %q", pid, stat)
	}
	f := strings.Fields(string(stat[i+1:]))
	// f[0] is field 3 (state): utime is field 14, stime 15, num_threads 20, rss (pages) 24.
	if len(f) < 22 {
		return r, nil, fmt.Errorf("process %d: short /proc stat line", pid)
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	r.CPUMicros = (ut + st) * 1e6 / clockTicks
	r.Threads, _ = strconv.ParseFloat(f[17], 64)
	if rss, e := strconv.ParseFloat(f[21], 64); e == nil {
		r.RSSKB = rss * float64(os.Getpagesize()) / 1024
	}
	r.CtxSwitches = ctxSwitches(dir)
	r.ReadBytes, r.WriteBytes, ioErr = readIO(dir)
	if ioErr != nil {
		ioErr = fmt.Errorf("process %d: %w", pid, ioErr)
	}
	return r, ioErr, nil
}

// ctxSwitches sums the threads' counts: /proc/PID/status has only the main thread's, and a server's work is
// done by its other threads.
func ctxSwitches(dir string) float64 {
	tasks, err := os.ReadDir(filepath.Join(dir, "task"))
	if err != nil {
		return nanValue
	}
	var sum float64
	for _, t := range tasks {
		data, err := os.ReadFile(filepath.Join(dir, "task", t.Name(), "status"))
		if err != nil {
			continue // the thread exited meanwhile
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "voluntary_ctxt_switches:") || strings.HasPrefix(line, "nonvoluntary_ctxt_switches:") {
				_, v, _ := strings.Cut(line, ":")
				x, _ := strconv.ParseFloat(strings.TrimSpace(v), 64)
				sum += x
			}
		}
	}
	return sum
}

func readIO(dir string) (rd, wr float64, err error) {
	data, err := os.ReadFile(filepath.Join(dir, "io"))
	if err != nil {
		if errors.Is(err, os.ErrPermission) {
			err = fmt.Errorf("%w: /proc/PID/io is readable only by the process's user or with CAP_SYS_PTRACE; run quadrant as the server's user to get proc.read_kb and proc.write_kb", err)
		}
		return nanValue, nanValue, err
	}
	vals := map[string]float64{}
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		x, _ := strconv.ParseFloat(strings.TrimSpace(v), 64)
		vals[k] = x
	}
	return vals["read_bytes"], vals["write_bytes"] - vals["cancelled_write_bytes"], nil
}

// Comm is the process's command name (mariadbd, mysqld...).
func Comm(root string, pid int) (string, error) {
	b, err := os.ReadFile(filepath.Join(root, strconv.Itoa(pid), "comm"))
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// ReadPidFile reads a server's pid file (mysqld's pid-file option). It reads a few bytes
// only and never quotes them: a plan's pid_file may name any file (/etc/shadow once put
// its lines in run.json, the report and the console).
func ReadPidFile(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("pid_file: %w", err)
	}
	defer f.Close()
	b := make([]byte, 24) // a pid and a newline, with room to spare
	n, err := io.ReadFull(f, b)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return 0, fmt.Errorf("pid_file %s: %w", path, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b[:n])))
	if err != nil || pid <= 0 || n == len(b) {
		return 0, fmt.Errorf("pid_file %s does not hold a process id", path)
	}
	return pid, nil
}
