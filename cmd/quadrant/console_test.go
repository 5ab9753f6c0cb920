package main

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor"
	"github.com/quadrant-bench/quadrant/executor/kinds"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
)

// interval is one second with tps transactions, p95 latency and the given elapsed time.
func interval(elapsed time.Duration, tps int64, p95 time.Duration) *measure.Interval {
	start := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	iv := &measure.Interval{Index: 1, Start: start, End: start.Add(time.Second), Elapsed: elapsed, Threads: 1}
	iv.Events = tps
	iv.Lat = measure.UnknownLatency()
	iv.Lat.P95 = p95
	return iv
}

func TestConsolePipedIsQuietButForWarnings(t *testing.T) {
	var out, errb bytes.Buffer
	c := &console{out: &out, err: &errb}
	c.Logged("iteration 1/2: threads=1")
	c.Logged("warning: snmp 127.0.0.1:161: timeout")
	iv := interval(time.Second, 10, time.Millisecond)
	c.Interval(executor.Progress{Interval: iv, Measured: true, Iteration: 1, Of: 2})
	if want := measure.FormatLine(iv, false) + "\n"; out.String() != want {
		t.Fatalf("stdout %q, want %q", out.String(), want)
	}
	if errb.String() != "warning: snmp 127.0.0.1:161: timeout\n" {
		t.Fatalf("stderr %q", errb.String())
	}
}

// A failed iteration is one line on a piped console too, between the interval lines: the
// executor logs it starting with "error:" (executor's TestServerKilledMidRunIsLoggedToTheEnd).
func TestConsolePipedShowsAFailedIteration(t *testing.T) {
	var out, errb bytes.Buffer
	c := &console{out: &out, err: &errb}
	c.Logged("iteration 1/2: threads=1")
	line := "error: iteration 1/2 failed after 4s (812.0 tps, p95 1.20 ms, 2 errors): workload: Error 2013: Lost connection to server during query"
	c.Logged(line)
	if errb.String() != line+"\n" {
		t.Fatalf("stderr %q, want the failed iteration's line alone", errb.String())
	}
}

func TestConsoleTerminalKeepsTheStatusLineBelow(t *testing.T) {
	var term bytes.Buffer // stdout and stderr on one terminal
	c := &console{out: &term, err: &term, tty: true}
	tick := executor.Progress{Measured: true, Iteration: 2, Of: 6, Cell: "threads=4", Length: time.Minute, Left: 4 * time.Minute}
	tick.Interval = interval(12*time.Second, 1234, 3250*time.Microsecond)
	c.Interval(tick)
	tick.Interval = interval(13*time.Second, 1234, 3250*time.Microsecond)
	c.Interval(tick)
	c.done()
	status := func(s string) string {
		return "iteration 2/6 threads=4 · " + s + "/1m0s · 1234 tps · p95 3.25 ms · ~4m4" + map[string]string{"12s": "8", "13s": "7"}[s] + "s of workload left"
	}
	want := measure.FormatLine(interval(12*time.Second, 1234, 3250*time.Microsecond), false) + "\n" + status("12s") +
		clearLine + measure.FormatLine(interval(13*time.Second, 1234, 3250*time.Microsecond), false) + "\n" + status("13s") + clearLine
	if got := term.String(); got != want {
		t.Fatalf("terminal got\n%q\nwant\n%q", got, want)
	}
	if strings.Count(term.String(), "\n") != 2 {
		t.Fatal("the status line must never end a line")
	}
}

// tpcTotal is a minute of a tpcc workload: 1200 NewOrders (tpmC 1200) and 1100 Payments,
// NewOrder's latencies 1..100 ms, Payment's 1..50 ms.
func tpccTotal() *measure.Total {
	start := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	t := &measure.Total{Start: start, End: start.Add(time.Minute)}
	for _, k := range kinds.Workloads {
		if k.Spec.Name == "tpcc" {
			t.Own = &measure.Own{Metrics: k.Metrics, Params: map[string]float64{"warehouses": 1}}
		}
	}
	t.Latency = measure.NewHistogram()
	for _, tx := range []struct {
		name  string
		count int64
		maxMs int64
	}{{"new_order", 1200, 100}, {"payment", 1100, 50}} {
		h := measure.NewHistogram()
		for ms := int64(1); ms <= tx.maxMs; ms++ {
			h.RecordUS(ms * 1000)
		}
		t.Transactions = append(t.Transactions, measure.Named{Name: tx.name, Counts: measure.Counts{Events: tx.count}, Latency: h})
		t.Events += tx.count
	}
	t.Summarize()
	return t
}

// The end of an iteration is one line on stdout: a tpcc workload's tpmC and each
// transaction's p90 (the metric table's headline), any other workload's tps and p95.
func TestConsoleEndLineLeadsWithTheHeadline(t *testing.T) {
	var out, errb bytes.Buffer
	c := &console{out: &out, err: &errb}
	var obs executor.Observer = tee{c} // as run.go wires it with live metrics
	end, ok := obs.(executor.IterationObserver)
	if !ok {
		t.Fatal("the console's observers are not told an iteration's end")
	}
	p := executor.Progress{Measured: true, Iteration: 2, Of: 3, Cell: "threads=4", Target: "db"}
	end.IterationEnded(p, results.IterationInfo{Index: 2, Status: results.StatusDone}, tpccTotal())
	tp := tpccTotal()
	want := fmt.Sprintf("iteration 2/3 threads=4: done · tpmC 1200 · tx.new_order.p90_ms %.2f · tx.payment.p90_ms %.2f\n",
		measure.Ms(tp.Transactions[0].Lat.P90), measure.Ms(tp.Transactions[1].Lat.P90))
	if out.String() != want {
		t.Errorf("tpcc end line %q, want %q", out.String(), want)
	}
	out.Reset()
	oltp := &measure.Total{Start: tp.Start, End: tp.Start.Add(10 * time.Second)}
	oltp.Events, oltp.Latency = 12340, measure.NewHistogram()
	oltp.Latency.RecordUS(3250)
	oltp.Summarize()
	end.IterationEnded(p, results.IterationInfo{Index: 2, Status: results.StatusFailed}, oltp)
	if want := fmt.Sprintf("iteration 2/3 threads=4: failed · tps 1234 · p95_ms %.2f\n", measure.Ms(oltp.Lat.P95)); out.String() != want {
		t.Errorf("oltp end line %q, want %q", out.String(), want)
	}
	out.Reset()
	end.IterationEnded(executor.Progress{Iteration: 1, Of: 3}, results.IterationInfo{Index: 1, Status: results.StatusFailed}, nil)
	if out.String() != "iteration 1/3: failed\n" {
		t.Errorf("a workload that never ran: %q", out.String())
	}
}

// A step's figures its kind marks as what it came to (a drill's acknowledged commits lost,
// seconds without a write, recovery) end the iteration's line, after the workload's; one the
// step did not record (a drill cut short) shows as "-", and the others stay in summary.csv.
func TestConsoleEndLineShowsTheStepsOutcomes(t *testing.T) {
	var out bytes.Buffer
	c := &console{out: &out, err: &out}
	start := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	total := &measure.Total{Start: start, End: start.Add(10 * time.Second)}
	total.Events, total.Latency = 27590, measure.NewHistogram()
	total.Latency.RecordUS(3920)
	total.Summarize()
	p := executor.Progress{Measured: true, Iteration: 1, Of: 6, Cell: "mode=async", Figures: []executor.Figure{
		{Metric: measure.Metric{Name: "drill_rate_before"}, Value: 2800},
		{Metric: measure.Metric{Name: "drill_lost", Outcome: true, Loss: "lost some"}, Value: 12},
		{Metric: measure.Metric{Name: "drill_unavailable_s", Outcome: true}, Value: 0.537},
		{Metric: measure.Metric{Name: "drill_recovery_s", Outcome: true}, Value: math.NaN()},
	}}
	c.IterationEnded(p, results.IterationInfo{Index: 1, Status: results.StatusDone}, total)
	want := fmt.Sprintf("iteration 1/6 mode=async: done · tps 2759 · p95_ms %.2f · drill_lost 12 · drill_unavailable_s 0.54 · drill_recovery_s -\n", measure.Ms(total.Lat.P95))
	if out.String() != want {
		t.Errorf("end line\n%q, want\n%q", out.String(), want)
	}
	out.Reset()
	c.IterationEnded(executor.Progress{Iteration: 2, Of: 6, Figures: p.Figures[1:2]}, results.IterationInfo{Index: 2, Status: results.StatusFailed}, nil)
	if out.String() != "iteration 2/6: failed · drill_lost 12\n" {
		t.Errorf("an iteration whose workload never ran: %q", out.String())
	}
}

// A second Ctrl-C with --keep says where each kept sandbox is, as the end of a run does: it
// is outside the results folder, and only log.txt said so.
func TestExitNowSaysWhereKeptSandboxesAre(t *testing.T) {
	got := exitNowText("/r/run1", true, []string{"/tmp/quadrant-1/db"})
	want := "exiting now; sandboxes die with quadrant, and what was measured is in /r/run1\n" +
		"sandbox kept in /tmp/quadrant-1/db\n(kept sandboxes are outside the results folder, their servers stopped: remove them when done)\n"
	if got != want {
		t.Errorf("with --keep:\n%q\nwant\n%q", got, want)
	}
	if got := exitNowText("/r/run1", false, []string{"/tmp/quadrant-1/db"}); strings.Contains(got, "kept") {
		t.Errorf("without --keep: %q", got)
	}
}
