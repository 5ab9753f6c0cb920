package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/quadrant-bench/quadrant/executor"
)

// console is a run's output. stdout gets the sysbench-style interval lines, always (they
// are what a pipe wants). On a terminal, stderr also gets what the run does and a live
// status line (iteration k/N, elapsed, time left); piped, stderr gets only warnings:
// everything else is in log.txt.
type console struct {
	mu     sync.Mutex
	out    io.Writer
	err    io.Writer
	tty    bool
	status string
}

const clearLine = "\r\033[K"

func (c *console) clear() {
	if c.tty && c.status != "" {
		io.WriteString(c.err, clearLine)
	}
}

func (c *console) redraw() {
	if c.tty && c.status != "" {
		io.WriteString(c.err, c.status)
	}
}

// Write takes interval lines.
func (c *console) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clear()
	n, err := c.out.Write(p)
	c.redraw()
	return n, err
}

// progress takes a line of the run's log.
func (c *console) progress(line string) {
	if !c.tty && !strings.HasPrefix(line, "warning") {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clear()
	fmt.Fprintln(c.err, line)
	c.redraw()
}

// tick updates the status line.
func (c *console) tick(t executor.Tick) {
	if !c.tty {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clear()
	c.status = statusLine(t)
	c.redraw()
}

func statusLine(t executor.Tick) string {
	var b strings.Builder
	fmt.Fprintf(&b, "iteration %d/%d", t.Iteration, t.Of)
	if t.Cell != "" {
		fmt.Fprintf(&b, " %s", t.Cell)
	}
	if t.Elapsed < 0 {
		fmt.Fprintf(&b, " · warmup %s", (-t.Elapsed).Round(time.Second))
	} else if t.Length > 0 {
		fmt.Fprintf(&b, " · %s/%s", t.Elapsed.Round(time.Second), t.Length)
	} else {
		fmt.Fprintf(&b, " · %s", t.Elapsed.Round(time.Second))
	}
	fmt.Fprintf(&b, " · %.0f tps · p95 %.2f ms", t.TPS, t.P95ms)
	left := t.Left
	if t.Length > t.Elapsed {
		left += t.Length - t.Elapsed
	}
	if left > 0 {
		fmt.Fprintf(&b, " · ~%s of workload left", left.Round(time.Second))
	}
	return b.String()
}

// done removes the status line.
func (c *console) done() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clear()
	c.status = ""
}
