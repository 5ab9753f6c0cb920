package engine

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

func TestReturnsRows(t *testing.T) {
	for sql, want := range map[string]bool{
		"SELECT 1": true, "  (select 1) union (select 2)": true, "/* hint */ SHOW TABLES": true,
		"/*!40101 SELECT 1 */": true, "-- c\nWITH x AS (SELECT 1) SELECT * FROM x": true, "# c\nDESC t": true,
		"INSERT INTO t SELECT 1": false, "UPDATE t SET a=1": false, "BEGIN": false, "/*!40101 SET NAMES utf8 */": false, "": false,
		"--\tc\nSELECT 1": true, "( /* c */ (SELECT 1))": true, "/*M!100101 SELECT 1 */": true, "--1": false,
	} {
		if got := ReturnsRows(sql); got != want {
			t.Errorf("ReturnsRows(%q) = %v", sql, got)
		}
	}
}

func TestCode(t *testing.T) {
	cases := []struct {
		err    error
		code   int
		broken bool
	}{
		{&mysql.MySQLError{Number: 1213, Message: "Deadlock"}, 1213, false},
		{fmt.Errorf("file.sql:3: %w", &mysql.MySQLError{Number: 1062}), 1062, false},
		{mysql.ErrInvalidConn, CodeServerLost, true},
		{driver.ErrBadConn, CodeServerLost, true},
		{io.ErrUnexpectedEOF, CodeServerLost, true},
		{&net.OpError{Op: "read", Err: timeoutError{"read"}}, CodeServerLost, true},
		{fmt.Errorf("connect: %w", &net.OpError{Op: "dial", Err: errors.New("refused")}), CodeConnError, true},
		{errors.New("something else"), 0, false},
	}
	for _, c := range cases {
		if got := Code(c.err); got != c.code {
			t.Errorf("Code(%v) = %d, want %d", c.err, got, c.code)
		}
		if got := Broken(c.err); got != c.broken {
			t.Errorf("Broken(%v) = %v, want %v", c.err, got, c.broken)
		}
	}
}

func TestNextTick(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := &run{cfg: Config{ReportInterval: time.Second}, start: start, measured: start.Add(2500 * time.Millisecond)}
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	for _, c := range []struct{ now, want int }{{0, 1000}, {1000, 2000}, {2000, 2500}, {2400, 2500}, {2500, 3500}, {3510, 4500}, {9000, 9500}} {
		if got := r.nextTick(at(c.now)); !got.Equal(at(c.want)) {
			t.Errorf("nextTick(%dms) = %v, want %dms", c.now, got.Sub(start), c.want)
		}
	}
}

// Counting the backlog generates arrivals ahead; workers must still get every
// arrival once, in order, and the backlog must count exactly those due and untaken.
func TestArrivalsBacklogAndOrder(t *testing.T) {
	a := newArrivals(1000) // mean 1 ms apart
	var taken []time.Duration
	for range 10 {
		taken = append(taken, a.take())
	}
	now := taken[9] + 50*time.Millisecond
	n := a.due(now)
	var due int64
	for _, at := range a.todo[a.head:] {
		if at <= now {
			due++
		}
	}
	if n != due || n < 20 || n > 100 {
		t.Fatalf("backlog %d, want %d (about 50)", n, due)
	}
	for range n {
		taken = append(taken, a.take())
	}
	if a.due(now) != 0 {
		t.Fatalf("after taking them all, backlog %d", a.due(now))
	}
	for range 5 {
		taken = append(taken, a.take())
	}
	for i := 1; i < len(taken); i++ {
		if taken[i] < taken[i-1] {
			t.Fatalf("arrival %d at %v before %d at %v", i, taken[i], i-1, taken[i-1])
		}
	}
	if taken[10] > now || taken[len(taken)-1] <= now {
		t.Fatalf("arrivals out of place around now=%v: %v", now, taken[10:])
	}
}

func TestShapeLevel(t *testing.T) {
	stages := []Stage{{Duration: 10 * time.Second, Threads: 8}, {Duration: 10 * time.Second, Threads: 32}, {Duration: 5 * time.Second, Threads: 16}}
	step, linear := newShape(stages, false), newShape(stages, true)
	for _, c := range []struct {
		at           time.Duration
		step, linear float64
	}{
		{-time.Second, 8, 8}, {0, 8, 8}, {5 * time.Second, 8, 8}, {10 * time.Second, 32, 8},
		{15 * time.Second, 32, 20}, {20 * time.Second, 16, 32}, {22500 * time.Millisecond, 16, 24}, {time.Minute, 16, 16},
	} {
		if got := step.level(c.at); got != c.step {
			t.Errorf("step level at %v = %v, want %v", c.at, got, c.step)
		}
		if got := linear.level(c.at); got != c.linear {
			t.Errorf("linear level at %v = %v, want %v", c.at, got, c.linear)
		}
	}
	if e := StageEnds(stages); len(e) != 3 || e[2] != 25*time.Second || step.total() != 25*time.Second {
		t.Errorf("stage ends %v", e)
	}
	if !newShape([]Stage{{Duration: time.Second, Rate: 100}}, false).open() || step.open() {
		t.Error("open loop is a shape of rates")
	}
}

func TestGate(t *testing.T) {
	g := newGate(1)
	stop := make(chan struct{})
	if !g.wait(0, stop) {
		t.Fatal("worker 0 waits at a gate of 1")
	}
	passed := make(chan bool)
	go func() { passed <- g.wait(2, stop) }()
	g.set(2) // still closed to worker 2
	select {
	case <-passed:
		t.Fatal("worker 2 passed a gate of 2")
	default:
	}
	g.set(3)
	if !<-passed {
		t.Fatal("worker 2 did not pass a gate of 3")
	}
	g.set(1)
	go func() { passed <- g.wait(1, stop) }()
	close(stop)
	if <-passed {
		t.Fatal("a stopped worker passed a closed gate")
	}
}

// An error recorded just after a tick (a lost server's read timeout lands on the tick when
// the timeout is a whole number of intervals) is cut in a last interval however short,
// not dropped with the sliver the clock otherwise leaves out.
func TestClockCutsAShortLastIntervalThatHoldsSomething(t *testing.T) {
	start := time.Now()
	done := make(chan struct{})
	var cuts []time.Time
	c := &Clock{Start: start, Measured: start, Interval: 20 * time.Millisecond,
		Active: func() int { return 1 }, Halt: func() {}, Pending: func() bool { return true },
		Cut: func(now time.Time, threads int) {
			cuts = append(cuts, now)
			if len(cuts) == 1 {
				close(done) // the workers end right after the first tick
			}
		}}
	c.Run(t.Context(), done, 1)
	if len(cuts) != 2 {
		t.Fatalf("%d cuts, want the tick's and a last one for what was recorded after it", len(cuts))
	}
}
