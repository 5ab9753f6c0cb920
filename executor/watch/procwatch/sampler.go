package procwatch

import (
	"context"
	"fmt"
	"math"
	"strings"
	"syscall"
	"time"

	"github.com/quadrant-bench/quadrant/executor/watch"
)

var nanValue = math.NaN()

// Columns of a server process, in order; the first four are counters.
var serverColumns = []watch.Column{
	{Name: "proc.cpu_us", Kind: watch.Counter},
	{Name: "proc.ctx_switches", Kind: watch.Counter},
	{Name: "proc.read_kb", Kind: watch.Counter},
	{Name: "proc.write_kb", Kind: watch.Counter},
	{Name: "proc.rss_kb", Kind: watch.Gauge},
	{Name: "proc.threads", Kind: watch.Gauge},
}

// Config says which process a Sampler reads.
type Config struct {
	// Pid finds the server's process now. It is asked at every tick, since a server restarted by a
	// server_config change or a restart step comes back with another pid.
	Pid func() (int, error)
	// What names the process for run.json and messages, e.g. "sandbox mariadbd" or "pid_file /run/mysqld/mysqld.pid".
	What string
	// Root is where proc is mounted; /proc unless a test says otherwise.
	Root string
}

// Sampler reads one server process's CPU time, context switches and storage I/O from /proc.
type Sampler struct {
	cfg    Config
	cols   []watch.Column
	rates  [4]watch.Rate
	pid    int
	last   []float64
	outage watch.Outage
	ioWarn bool
}

// New returns a sampler of the process cfg.Pid finds.
func New(cfg Config) *Sampler {
	if cfg.Root == "" {
		cfg.Root = "/proc"
	}
	s := &Sampler{cfg: cfg}
	src := "process " + cfg.What + " (/proc/PID)"
	for _, c := range serverColumns {
		c.Source = src
		s.cols = append(s.cols, c)
	}
	s.last = watch.Empty(len(s.cols))
	return s
}

// Start checks that the process is there and is a database server, so a wrong pid or pid_file fails the
// run before anything is measured.
func (s *Sampler) Start(ctx context.Context) error {
	pid, err := s.cfg.Pid()
	if err != nil {
		return fmt.Errorf("%s: %w", s.cfg.What, err)
	}
	comm, err := Comm(s.cfg.Root, pid)
	if err != nil {
		return fmt.Errorf("%s: process %d is not running on this machine (%w): pid and pid_file only work for a server on the machine quadrant runs on", s.cfg.What, pid, err)
	}
	if !strings.Contains(comm, "mysqld") && !strings.Contains(comm, "mariadbd") {
		return fmt.Errorf("%s: process %d is %q, not a mysqld or mariadbd: check the pid or pid_file", s.cfg.What, pid, comm)
	}
	_, ioErr, err := Read(s.cfg.Root, pid)
	if err != nil {
		return err
	}
	if ioErr != nil {
		s.ioWarn = true
		return watch.Unavailable(s.cfg.What, ioErr)
	}
	return nil
}

// Columns are proc.cpu_us, proc.ctx_switches, proc.read_kb, proc.write_kb (counters), proc.rss_kb and proc.threads.
func (s *Sampler) Columns() []watch.Column { return s.cols }

// Baseline reads the process as the start of the next rates and of Summary.
func (s *Sampler) Baseline(ctx context.Context) error {
	_, err := s.read(time.Now())
	for i := range s.rates {
		s.rates[i].Rebase()
	}
	return err
}

// Sample reads the process at the tick.
func (s *Sampler) Sample(ctx context.Context, at time.Time) (watch.Sample, error) {
	v, err := s.read(at)
	if err != nil {
		return watch.Sample{At: at, Values: watch.Empty(len(s.cols))}, s.outage.Fail(at, err)
	}
	s.outage.OK(at)
	copy(s.last, v)
	return watch.Sample{At: at, Values: v}, nil
}

func (s *Sampler) read(at time.Time) ([]float64, error) {
	pid, err := s.cfg.Pid()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.cfg.What, err)
	}
	if pid == 0 {
		return nil, fmt.Errorf("%s: the server is not running", s.cfg.What)
	}
	r, _, err := Read(s.cfg.Root, pid)
	if err != nil {
		return nil, err
	}
	if s.pid != 0 && pid != s.pid {
		for i := range s.rates {
			s.rates[i].Restart()
		}
	}
	s.pid = pid
	raw := []float64{r.CPUMicros, r.CtxSwitches, r.ReadBytes / 1024, r.WriteBytes / 1024}
	out := make([]float64, len(s.cols))
	for i, x := range raw {
		out[i] = s.rates[i].Observe(x, at)
	}
	out[4], out[5] = r.RSSKB, r.Threads
	return out, nil
}

// Rebase implements watch.Sampler.
func (s *Sampler) Rebase() {
	for i := range s.rates {
		s.rates[i].Rebase()
	}
}

// Summary is the counters' increase since Baseline and the gauges' last values.
func (s *Sampler) Summary() map[string]float64 {
	m := watch.LastValues(s.cols[4:], s.last[4:])
	for i := range s.rates {
		if s.rates[i].Valid() && !math.IsNaN(s.rates[i].Increase()) {
			m[s.cols[i].Name] = s.rates[i].Increase()
		}
	}
	return m
}

// Close has nothing to release.
func (s *Sampler) Close() error { return nil }

// Client samples quadrant's own CPU time (getrusage of this process, every goroutine included): the cost of
// driving the workload, which the server's figures do not show.
type Client struct {
	cols []watch.Column
	rate watch.Rate
	last float64
}

// NewClient returns the sampler of this process.
func NewClient() *Client {
	return &Client{cols: []watch.Column{{Name: "client.cpu_us", Kind: watch.Counter, Source: "process quadrant (getrusage)"}}, last: nanValue}
}

// Start reads nothing: getrusage of oneself cannot fail.
func (c *Client) Start(ctx context.Context) error { return nil }

// Columns is client.cpu_us, a counter.
func (c *Client) Columns() []watch.Column { return c.cols }

// Baseline starts the next rates and Summary now.
func (c *Client) Baseline(ctx context.Context) error {
	c.rate.Observe(selfCPU(), time.Now())
	c.rate.Rebase()
	return nil
}

// Sample is the CPU time used since the previous tick, per second.
func (c *Client) Sample(ctx context.Context, at time.Time) (watch.Sample, error) {
	v := c.rate.Observe(selfCPU(), at)
	c.last = v
	return watch.Sample{At: at, Values: []float64{v}}, nil
}

// Rebase implements watch.Sampler.
func (c *Client) Rebase() { c.rate.Rebase() }

// Summary is the CPU µs used since Baseline.
func (c *Client) Summary() map[string]float64 {
	return map[string]float64{"client.cpu_us": c.rate.Increase()}
}

// Close has nothing to release.
func (c *Client) Close() error { return nil }

func selfCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return nanValue
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e3
}
