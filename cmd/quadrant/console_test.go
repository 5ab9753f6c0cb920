package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor"
)

func TestConsolePipedIsQuietButForWarnings(t *testing.T) {
	var out, errb bytes.Buffer
	c := &console{out: &out, err: &errb}
	c.progress("iteration 1/2: threads=1")
	c.progress("warning: snmp 127.0.0.1:161: timeout")
	c.tick(executor.Tick{Iteration: 1, Of: 2})
	c.Write([]byte("[ 1s ] thds: 1 tps: 10.00\n"))
	if out.String() != "[ 1s ] thds: 1 tps: 10.00\n" {
		t.Fatalf("stdout %q", out.String())
	}
	if errb.String() != "warning: snmp 127.0.0.1:161: timeout\n" {
		t.Fatalf("stderr %q", errb.String())
	}
}

func TestConsoleTerminalKeepsTheStatusLineBelow(t *testing.T) {
	var term bytes.Buffer // stdout and stderr on one terminal
	c := &console{out: &term, err: &term, tty: true}
	c.tick(executor.Tick{Iteration: 2, Of: 6, Cell: "threads=4", Elapsed: 12 * time.Second, Length: time.Minute, Left: 4 * time.Minute, TPS: 1234, P95ms: 3.25})
	c.Write([]byte("[ 12s ] line\n"))
	c.done()
	want := "iteration 2/6 threads=4 · 12s/1m0s · 1234 tps · p95 3.25 ms · ~4m48s of workload left" +
		clearLine + "[ 12s ] line\n" + "iteration 2/6 threads=4 · 12s/1m0s · 1234 tps · p95 3.25 ms · ~4m48s of workload left" + clearLine
	if got := term.String(); got != want {
		t.Fatalf("terminal got\n%q\nwant\n%q", got, want)
	}
	if strings.Count(term.String(), "\n") != 1 {
		t.Fatal("the status line must never end a line")
	}
}
