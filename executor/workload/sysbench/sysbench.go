// Package sysbench runs the sysbench binary and turns its interval lines and
// final report (1.0.20 "General statistics:" and master "Throughput:" formats)
// into measure types.
package sysbench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/internal/tail"
	"github.com/quadrant-bench/quadrant/executor/workload/engine"
	"github.com/quadrant-bench/quadrant/results/measure"
)

// Options of a sysbench run.
type Options struct {
	// Command is sysbench's: run (the default), prepare or cleanup.
	Command        string
	Script         string
	Args           map[string]string
	Binary         string
	Threads        int
	Duration       time.Duration
	Events         int64
	Warmup         time.Duration
	Rate           float64
	ReportInterval time.Duration
	Ignore         []int
	OnInterval     func(*measure.Interval)
	Log            func(string)
}

// reserved options are set from the target and the workload, never from Args.
var reserved = []string{"db-driver", "mysql-host", "mysql-port", "mysql-user", "mysql-password", "mysql-socket",
	"threads", "time", "events", "rate", "report-interval", "config-file"}

// Command builds sysbench's argument list. The password goes into a
// --config-file (mode 0600) so it shows neither in the log nor in ps.
func Command(cfg *mysql.Config, o Options, configFile string) ([]string, error) {
	if o.Script == "" {
		return nil, errors.New("sysbench: script is required")
	}
	args := []string{o.Script, "--db-driver=mysql"}
	switch cfg.Net {
	case "unix":
		args = append(args, "--mysql-socket="+cfg.Addr)
	default:
		host, port := cfg.Addr, "3306"
		if i := strings.LastIndexByte(cfg.Addr, ':'); i >= 0 {
			host, port = cfg.Addr[:i], cfg.Addr[i+1:]
		}
		args = append(args, "--mysql-host="+strings.Trim(host, "[]"), "--mysql-port="+port)
	}
	if cfg.User != "" {
		args = append(args, "--mysql-user="+cfg.User)
	}
	if cfg.DBName != "" {
		args = append(args, "--mysql-db="+cfg.DBName)
	}
	if configFile != "" {
		args = append(args, "--config-file="+configFile)
	}
	args = append(args, fmt.Sprintf("--threads=%d", max(o.Threads, 1)),
		fmt.Sprintf("--time=%d", int64(o.Duration.Round(time.Second)/time.Second)))
	if o.Events > 0 {
		args = append(args, fmt.Sprintf("--events=%d", o.Events))
	}
	if o.Rate > 0 {
		args = append(args, fmt.Sprintf("--rate=%d", int64(o.Rate+0.5)))
	}
	ri := int64(o.ReportInterval.Round(time.Second) / time.Second)
	args = append(args, fmt.Sprintf("--report-interval=%d", max(ri, 1)))
	if len(o.Ignore) > 0 {
		codes := make([]string, len(o.Ignore))
		for i, c := range o.Ignore {
			codes[i] = strconv.Itoa(c)
		}
		args = append(args, "--mysql-ignore-errors="+strings.Join(codes, ","))
	}
	if err := checkArgs(o.Args); err != nil {
		return nil, err
	}
	for _, k := range sortedKeys(o.Args) {
		args = append(args, "--"+strings.TrimLeft(k, "-")+"="+o.Args[k])
	}
	cmd := o.Command
	if cmd == "" {
		cmd = "run"
	}
	return append(args, cmd), nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// checkArgs refuses script options that quadrant sets itself.
func checkArgs(args map[string]string) error {
	for _, k := range sortedKeys(args) {
		n := strings.ReplaceAll(strings.TrimLeft(k, "-"), "_", "-")
		for _, r := range reserved {
			if n == r {
				return fmt.Errorf("sysbench: option %q is set by quadrant (from the target or the workload); remove it from args", k)
			}
		}
	}
	return nil
}

// Check refuses what the sysbench binary cannot do; it runs at validate and before a run.
func Check(o Options) error {
	if err := checkArgs(o.Args); err != nil {
		return err
	}
	if o.Warmup > 0 {
		return errors.New("sysbench: warmup is not supported with the sysbench binary 1.0.20 (no --warmup-time); run a separate unmeasured workload step first")
	}
	if o.ReportInterval%time.Second != 0 {
		return fmt.Errorf("sysbench: report_interval %v: sysbench only takes whole seconds", o.ReportInterval)
	}
	return nil
}

// Run runs sysbench and parses its output.
//
// Prepare and cleanup (Options.Command) return a nil Total when they succeed.
func Run(ctx context.Context, cfg *mysql.Config, o Options) (*measure.Total, error) {
	if err := Check(o); err != nil {
		return nil, err
	}
	bin := o.Binary
	if bin == "" {
		bin = "sysbench"
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return nil, fmt.Errorf("sysbench: %w (install the sysbench package)", err)
	}
	var conf string
	if cfg.Passwd != "" {
		f, err := os.CreateTemp("", "quadrant-sysbench-*.conf")
		if err != nil {
			return nil, fmt.Errorf("sysbench: %w", err)
		}
		conf = f.Name()
		defer os.Remove(conf)
		_, err = fmt.Fprintf(f, "mysql-password=%s\n", cfg.Passwd)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, fmt.Errorf("sysbench: %w", err)
		}
	}
	args, err := Command(cfg, o, conf)
	if err != nil {
		return nil, err
	}
	if o.Log != nil {
		o.Log("sysbench " + strings.Join(args, " "))
	}
	// sysbench looks for its script, and Lua's require for modules, in the working directory
	// first: an empty one of its own, so that no file beside quadrant (or in a folder being
	// rerun) stands in for sysbench's bundled scripts.
	work, err := os.MkdirTemp("", "quadrant-sysbench-*")
	if err != nil {
		return nil, fmt.Errorf("sysbench: %w", err)
	}
	defer os.RemoveAll(work)
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = work
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("sysbench: %w", err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("sysbench: %w", err)
	}
	p := NewParser(start, o.Threads, o.OnInterval)
	unparsed := p.Parse(out)
	werr := cmd.Wait()
	total := p.Total()
	if werr != nil {
		msg := strings.TrimSpace(stderr.String() + "\n" + strings.Join(unparsed, "\n"))
		return total, fmt.Errorf("sysbench %s %s: %w: %s%s", o.Script, args[len(args)-1], werr, tail.Lines(msg, 8), lostHint(msg))
	}
	if o.Command != "" && o.Command != "run" {
		return nil, nil
	}
	if total == nil {
		return nil, fmt.Errorf("sysbench %s: no final report in its output: %s", o.Script, tail.Lines(strings.Join(unparsed, "\n"), 8))
	}
	return total, nil
}

// Parser turns sysbench output into intervals and a total.
type Parser struct {
	start      time.Time
	threads    int
	onInterval func(*measure.Interval)
	index      int
	lastSec    float64
	total      *measure.Total
	section    string
}

// NewParser: start is when sysbench started (interval times are offsets from it).
func NewParser(start time.Time, threads int, onInterval func(*measure.Interval)) *Parser {
	return &Parser{start: start, threads: threads, onInterval: onInterval}
}

// Parse reads all of r, emitting intervals as their lines arrive, and returns
// the last lines of output that were neither (for error messages).
func (p *Parser) Parse(r io.Reader) []string {
	var tail []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if p.Line(line) {
			continue
		}
		if strings.TrimSpace(line) != "" {
			tail = append(tail, line)
			if len(tail) > 20 {
				tail = tail[1:]
			}
		}
	}
	return tail
}

// Total is the parsed final report, nil if none was seen.
func (p *Parser) Total() *measure.Total { return p.total }

// Line handles one line; false if it was not recognised.
func (p *Parser) Line(line string) bool {
	t := strings.TrimSpace(line)
	if strings.HasPrefix(t, "[ ") && strings.Contains(t, " tps: ") {
		if iv, ok := p.interval(t); ok {
			if p.onInterval != nil {
				p.onInterval(iv)
			}
			return true
		}
		return false
	}
	if strings.HasPrefix(t, "[ ") && strings.Contains(t, "queue length:") {
		return true
	}
	switch t {
	case "SQL statistics:", "General statistics:", "Throughput:", "Latency (ms):", "Threads fairness:":
		p.section = t
		if p.total == nil {
			p.total = &measure.Total{Start: p.start, End: time.Now(), Threads: p.threads}
			p.total.Lat = measure.UnknownLatency()
		}
		return true
	}
	if p.total == nil {
		return false
	}
	k, v, ok := strings.Cut(t, ":")
	if !ok {
		return false
	}
	v = strings.TrimSpace(v)
	first := v
	if i := strings.IndexAny(v, " ("); i >= 0 {
		first = v[:i]
	}
	tot := p.total
	n, _ := strconv.ParseInt(first, 10, 64)
	f, _ := strconv.ParseFloat(strings.TrimSuffix(first, "s"), 64)
	msd := time.Duration(math.Round(f * float64(time.Millisecond)))
	switch k {
	case "read":
		tot.Reads = n
	case "write":
		tot.Writes = n
	case "other":
		tot.Other = n
	case "transactions":
		tot.Events = n
	case "ignored errors":
		tot.Errors = n
	case "reconnects":
		tot.Reconnects = n
	case "total time", "time elapsed":
		tot.End = tot.Start.Add(time.Duration(math.Round(f * float64(time.Second))))
	case "total number of events":
		if tot.Events == 0 {
			tot.Events = n
		}
	case "min":
		tot.Lat.Min = msd
	case "avg":
		tot.Lat.Avg = msd
	case "max":
		tot.Lat.Max = msd
	default:
		if pct, ok := strings.CutSuffix(k, "th percentile"); ok {
			pf, _ := strconv.ParseFloat(pct, 64)
			setPercentile(&tot.Lat, pf, msd)
			return true
		}
		return p.section != ""
	}
	return true
}

func setPercentile(l *measure.Latency, p float64, d time.Duration) {
	switch p {
	case 50:
		l.P50 = d
	case 95:
		l.P95 = d
	case 99:
		l.P99 = d
	case 99.9:
		l.P999 = d
	}
}

// interval parses
// "[ 10s ] thds: 16 tps: 1234.56 qps: 24691.20 (r/w/o: 17283.84/4938.24/2469.12) lat (ms,95%): 8.43 err/s: 0.00 reconn/s: 0.00".
func (p *Parser) interval(t string) (*measure.Interval, bool) {
	end := strings.Index(t, "s ]")
	if end < 0 {
		return nil, false
	}
	sec, err := strconv.ParseFloat(strings.TrimSpace(t[2:end]), 64)
	if err != nil {
		return nil, false
	}
	f := strings.Fields(strings.NewReplacer("(", " ", ")", " ", "/", " ", ",", " ").Replace(t[end+3:]))
	vals := map[string]float64{}
	var pct float64
	for i := 0; i+1 < len(f); i++ {
		switch f[i] {
		case "thds:", "tps:", "qps:", "err", "reconn":
			key := strings.TrimSuffix(f[i], ":")
			j := i + 1
			if f[i] == "err" || f[i] == "reconn" {
				j = i + 2 // "err s: 0.00" after replacing '/'
			}
			if j < len(f) {
				vals[key], _ = strconv.ParseFloat(f[j], 64)
			}
		case "r":
			if i+5 < len(f) && f[i+2] == "o:" {
				vals["r"], _ = strconv.ParseFloat(f[i+3], 64)
				vals["w"], _ = strconv.ParseFloat(f[i+4], 64)
				vals["o"], _ = strconv.ParseFloat(f[i+5], 64)
			}
		}
	}
	if i := strings.Index(t, "(ms,"); i >= 0 {
		rest := t[i+4:]
		if j := strings.Index(rest, "%):"); j >= 0 {
			pct, _ = strconv.ParseFloat(rest[:j], 64)
			if v := strings.Fields(rest[j+3:]); len(v) > 0 {
				vals["lat"], _ = strconv.ParseFloat(v[0], 64)
			}
		}
	}
	if _, ok := vals["tps"]; !ok {
		return nil, false
	}
	dt := sec - p.lastSec
	if dt <= 0 {
		dt = 1
	}
	p.index++
	iv := &measure.Interval{
		Index: p.index, Start: p.start.Add(time.Duration(p.lastSec * float64(time.Second))),
		End: p.start.Add(time.Duration(sec * float64(time.Second))), Elapsed: time.Duration(sec * float64(time.Second)),
		Threads: int(vals["thds"]),
	}
	p.lastSec = sec
	cnt := func(rate float64) int64 { return int64(rate*dt + 0.5) }
	iv.Events, iv.Reads, iv.Writes, iv.Other = cnt(vals["tps"]), cnt(vals["r"]), cnt(vals["w"]), cnt(vals["o"])
	iv.Errors, iv.Reconnects = cnt(vals["err"]), cnt(vals["reconn"])
	iv.Lat = measure.UnknownLatency()
	setPercentile(&iv.Lat, pct, time.Duration(math.Round(vals["lat"]*float64(time.Millisecond))))
	return iv, true
}

// sysbenchErrno is how sysbench's FATAL lines give a MySQL error number.
var sysbenchErrno = regexp.MustCompile(`(?:returned error|errno =) (\d+)`)

// lostHint is what a sysbench that died at a lost server adds to its error: sysbench 1.0.20
// does not reconnect after a server restart (built with libmariadb it fails or crashes,
// akopytov/sysbench#527 and #531), so the iteration fails there whatever on_error says.
func lostHint(out string) string {
	for _, m := range sysbenchErrno.FindAllStringSubmatch(out, -1) {
		if code, _ := strconv.Atoi(m[1]); engine.Lost(code) {
			return "\n(sysbench stops at a lost connection: to go on across a restart or a failover, run the script as `builtin:`, quadrant's own client, with the error codes in on_error.reconnect)"
		}
	}
	return ""
}
