package procwatch

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

func TestReadSelf(t *testing.T) {
	for selfCPU() < 20000 {
		// spend a little CPU, so that a tick count of zero is a bug
	}
	r, ioErr, err := Read("/proc", os.Getpid())
	if err != nil || ioErr != nil {
		t.Fatalf("read /proc/self: %v, %v", err, ioErr)
	}
	if r.CPUMicros <= 0 || r.Threads < 1 || r.RSSKB <= 0 || r.CtxSwitches <= 0 {
		t.Fatalf("reading %+v", r)
	}
}

// A pid that is not a database server is refused at Start with a message naming what it is.
func TestStartRefusesOtherProcesses(t *testing.T) {
	s := New(Config{What: "pid self", Pid: func() (int, error) { return os.Getpid(), nil }})
	err := s.Start(context.Background())
	if err == nil || !strings.Contains(err.Error(), "not a mysqld or mariadbd") {
		t.Fatalf("Start on the test binary: %v", err)
	}
	s = New(Config{What: "pid 0x7fffffff", Pid: func() (int, error) { return 1<<31 - 1, nil }})
	if err := s.Start(context.Background()); err == nil || !strings.Contains(err.Error(), "not running on this machine") {
		t.Fatalf("Start on a missing pid: %v", err)
	}
}

func TestClientCountsOwnCPU(t *testing.T) {
	c := NewClient()
	c.Baseline(context.Background())
	start := selfCPU()
	for selfCPU()-start < 50000 {
	}
	c.Sample(context.Background(), time.Now())
	if got := c.Summary()["client.cpu_us"]; got < 50000 {
		t.Fatalf("client.cpu_us %v after 50 ms of CPU", got)
	}
}
