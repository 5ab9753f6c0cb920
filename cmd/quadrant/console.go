package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/quadrant-bench/quadrant/executor"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
)

// console is a run's output. stdout gets the sysbench-style interval lines, always (they
// are what a pipe wants). On a terminal, stderr also gets what the run does and a live
// status line (iteration k/N, elapsed, time left); piped, stderr gets only warnings:
// everything else is in log.txt.
type console struct {
	mu        sync.Mutex
	out       io.Writer
	err       io.Writer
	tty       bool
	status    string
	sandboxes []string
}

const clearLine = "\r\033[K"

// clear and redraw write the console's own control sequences past the printable filter
// (rawWriter); the status line they draw was made printable when it was set.
func (c *console) clear() {
	if c.tty && c.status != "" {
		io.WriteString(rawWriter(c.err), clearLine)
	}
}

func (c *console) redraw() {
	if c.tty && c.status != "" {
		io.WriteString(rawWriter(c.err), c.status)
	}
}

// Logged takes a line of the run's log. Piped, only warnings, errors (an iteration that
// failed) and the progress of long steps (every 10 s) go to stderr; on a terminal every line
// does, but progress, which the live line shows.
func (c *console) Logged(line string) {
	progress := strings.HasPrefix(line, "progress: ")
	alarm := strings.HasPrefix(line, "warning") || strings.HasPrefix(line, "error")
	if c.tty == progress && !alarm {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clear()
	fmt.Fprintln(c.err, results.PrintableText(line))
	c.redraw()
}

// Interval prints the sysbench-style line of an interval and, for a measured workload,
// updates the status line.
func (c *console) Interval(t executor.Progress) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clear()
	fmt.Fprintln(c.out, measure.FormatLine(t.Interval, t.OpenLoop))
	if c.tty && t.Measured {
		c.status = results.Printable(statusLine(t))
	}
	c.redraw()
}

// IterationEnded prints what an iteration came to, on stdout after its interval lines: its
// status and its headline figures (the metric table's: tpcc's tpmC and each transaction's
// p90), or for a workload without any the figures the report charts first (tps, p95), then
// what its steps came to (Progress.Figures their kinds mark Outcome: a drill's losses).
func (c *console) IterationEnded(p executor.Progress, info results.IterationInfo, total *measure.Total) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clear()
	c.status = ""
	fmt.Fprintln(c.out, results.Printable(endLine(p, info, total)))
}

func endLine(p executor.Progress, info results.IterationInfo, total *measure.Total) string {
	var b strings.Builder
	fmt.Fprintf(&b, "iteration %d/%d", p.Iteration, p.Of)
	if p.Cell != "" {
		fmt.Fprintf(&b, " %s", p.Cell)
	}
	fmt.Fprintf(&b, ": %s", info.Status)
	if total == nil {
		writeOutcomes(&b, p.Figures)
		return b.String()
	}
	fixed, family := measure.TotalValues(total)
	figures := measure.Headlines(total.Own, fixed, family)
	if figures == nil {
		for _, v := range fixed {
			if slices.Contains(measure.ChartDefaults(), v.Name) {
				figures = append(figures, v)
			}
		}
	}
	for _, v := range figures {
		fmt.Fprintf(&b, " · %s %s", v.Name, figureText(v.Value))
	}
	writeOutcomes(&b, p.Figures)
	if info.Stall != nil {
		fmt.Fprintf(&b, " · STALLED: %s", info.Stall)
	}
	if info.Behind != nil {
		fmt.Fprintf(&b, " · BEHIND SCHEDULE: %s", info.Behind)
	}
	return b.String()
}

// writeOutcomes adds what the iteration's steps came to, as their kinds mark it (a drill's
// acknowledged commits lost, seconds without a write, recovery): "-" for one not recorded.
func writeOutcomes(b *strings.Builder, figures []executor.Figure) {
	for _, f := range figures {
		switch {
		case !f.Outcome:
		case f.Value == math.Trunc(f.Value): // a count: 12, not 12.00
			fmt.Fprintf(b, " · %s %.0f", f.Name, f.Value)
		default:
			fmt.Fprintf(b, " · %s %s", f.Name, figureText(f.Value))
		}
	}
}

// figureText is a figure short enough for a line: whole numbers from 100 up, else two decimals.
func figureText(v float64) string {
	switch {
	case math.IsNaN(v):
		return "-"
	case math.Abs(v) >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// Working redraws the live line of a long step on a terminal.
func (c *console) Working(w executor.Work) {
	if !c.tty {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clear()
	c.status = results.Printable(w.String())
	if w.Finished {
		c.status = ""
	}
	c.redraw()
}

// SandboxStarted remembers a sandbox's directory, so that even an exit on a second
// Ctrl-C removes it (its servers die with quadrant).
func (c *console) SandboxStarted(dir string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sandboxes = append(c.sandboxes, dir)
}

// sandboxDirs are the directories of the sandboxes the run started, where they are now: a
// sandbox that moved (sandbox.dir) was told again, and its old directory is gone.
func (c *console) sandboxDirs() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, d := range c.sandboxes {
		if _, err := os.Stat(d); err == nil {
			out = append(out, d)
		}
	}
	return out
}

func statusLine(t executor.Progress) string {
	var b strings.Builder
	elapsed, rates := t.Interval.Elapsed, t.Interval.Rates()
	fmt.Fprintf(&b, "iteration %d/%d", t.Iteration, t.Of)
	if t.Cell != "" {
		fmt.Fprintf(&b, " %s", t.Cell)
	}
	if elapsed < 0 {
		fmt.Fprintf(&b, " · warmup %s", (-elapsed).Round(time.Second))
	} else if t.Length > 0 {
		fmt.Fprintf(&b, " · %s/%s", elapsed.Round(time.Second), t.Length)
	} else {
		fmt.Fprintf(&b, " · %s", elapsed.Round(time.Second))
	}
	fmt.Fprintf(&b, " · %.0f tps · p95 %.2f ms", rates.TPS, measure.Ms(t.Interval.Lat.P95))
	left := t.Left
	if t.Length > elapsed {
		left += t.Length - elapsed
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
