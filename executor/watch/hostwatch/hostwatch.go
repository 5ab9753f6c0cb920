// Package hostwatch samples the machine quadrant runs on from /proc, for targets on this machine (sandboxes,
// dsn targets on 127.0.0.1 or with a pid): the host metrics an SNMP agent would give (load, CPU, memory, disk
// and network rates), under the same host.* names, without an agent.
package hostwatch

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/executor/watch"
)

// DefaultMetrics are watched when the plan lists none.
var DefaultMetrics = []string{
	watch.HostLoad1, watch.HostLoad5, watch.HostLoad15, watch.HostCPUUtil, watch.HostCPUUser, watch.HostCPUSystem,
	watch.HostCPUIOWait, watch.HostMemTotal, watch.HostMemAvail,
}

// Known are the metrics this source reads.
var Known = map[string]bool{
	watch.HostLoad1: true, watch.HostLoad5: true, watch.HostLoad15: true, watch.HostCPUUtil: true,
	watch.HostCPUUser: true, watch.HostCPUSystem: true, watch.HostCPUIOWait: true, watch.HostMemTotal: true,
	watch.HostMemAvail: true, watch.HostDiskReadKB: true, watch.HostDiskWrite: true, watch.HostDiskReads: true,
	watch.HostDiskWrites: true, watch.HostNetRxKB: true, watch.HostNetTxKB: true,
}

// Source is what run.json records for these columns.
const Source = "host: /proc of the machine quadrant runs on"

// column is one output column: a metric, and the device or interface for per-device ones.
type column struct {
	metric, dev string
	rate        watch.SpanRate
}

// Sampler reads /proc once per tick.
type Sampler struct {
	root    string
	metrics []string
	cols    []watch.Column
	src     []*column
	cpu     [2]cpuTicks // previous and baseline
	haveCPU bool
	cpuNow  [4]float64 // util, user, system, iowait over the last tick
	last    []float64
	outage  watch.Outage
}

// New checks the metric names; columns are fixed by Start, which lists the devices.
func New(metrics []string, root string) (*Sampler, error) {
	if len(metrics) == 0 {
		metrics = DefaultMetrics
	}
	if root == "" {
		root = "/proc"
	}
	for _, m := range metrics {
		if !Known[m] {
			return nil, fmt.Errorf("host metric %s cannot be read from /proc (a custom OID needs the target's snmp:)", m)
		}
	}
	return &Sampler{root: root, metrics: metrics}, nil
}

// Start lists the disks and network interfaces and reads everything once.
func (s *Sampler) Start(ctx context.Context) error {
	disks, ifaces, err := s.devices()
	if err != nil {
		return err
	}
	for _, m := range s.metrics {
		var devs []string
		switch {
		case watch.PerDisk(m):
			devs = disks
		case watch.PerInterface(m):
			devs = ifaces
		default:
			devs = []string{""}
		}
		for _, d := range devs {
			name := watch.HostPrefix + m
			if d != "" {
				name += "." + d
			}
			s.cols = append(s.cols, watch.Column{Name: name, Kind: watch.Gauge, Source: Source})
			s.src = append(s.src, &column{metric: m, dev: d})
		}
	}
	s.last = watch.Empty(len(s.cols))
	_, err = s.read(time.Now())
	return err
}

func (s *Sampler) devices() (disks, ifaces []string, err error) {
	ds, err := readDiskstats(s.root)
	if err != nil {
		return nil, nil, err
	}
	var names []string
	for _, d := range ds {
		names = append(names, d.name)
	}
	ns, err := readNetDev(s.root)
	if err != nil {
		return nil, nil, err
	}
	var inames []string
	for _, n := range ns {
		inames = append(inames, n.name)
	}
	return watch.Disks(names), watch.Interfaces(inames), nil
}

// Columns are host.NAME and host.NAME.DEVICE, all gauges: disk and network rates are per second over the
// interval, and their summary is the average since Baseline.
func (s *Sampler) Columns() []watch.Column { return s.cols }

// Baseline starts the summary's span now.
func (s *Sampler) Baseline(ctx context.Context) error {
	_, err := s.read(time.Now())
	for _, c := range s.src {
		c.rate.Rebase()
	}
	s.cpu[1] = s.cpu[0]
	s.last = watch.Empty(len(s.cols))
	return err
}

// Sample reads /proc at the tick.
func (s *Sampler) Sample(ctx context.Context, at time.Time) (watch.Sample, error) {
	v, err := s.read(at)
	if err != nil {
		return watch.Sample{At: at, Values: watch.Empty(len(s.cols))}, s.outage.Fail(at, err)
	}
	s.outage.OK(at)
	for i, x := range v {
		if !math.IsNaN(x) {
			s.last[i] = x
		}
	}
	return watch.Sample{At: at, Values: v}, nil
}

func (s *Sampler) read(at time.Time) ([]float64, error) {
	var load [3]float64
	var mem map[string]float64
	var disks map[string]diskstat
	var nets map[string]netdev
	need := map[string]bool{}
	for _, m := range s.metrics {
		need[m] = true
	}
	var err error
	if need[watch.HostLoad1] || need[watch.HostLoad5] || need[watch.HostLoad15] {
		if load, err = readLoad(s.root); err != nil {
			return nil, err
		}
	}
	if need[watch.HostCPUUtil] || need[watch.HostCPUUser] || need[watch.HostCPUSystem] || need[watch.HostCPUIOWait] {
		t, err := readCPU(s.root)
		if err != nil {
			return nil, err
		}
		s.cpuNow = [4]float64{math.NaN(), math.NaN(), math.NaN(), math.NaN()}
		if s.haveCPU {
			s.cpuNow = percentages(t.sub(s.cpu[0]))
		}
		s.cpu[0], s.haveCPU = t, true
	}
	if need[watch.HostMemTotal] || need[watch.HostMemAvail] {
		if mem, err = readMeminfo(s.root); err != nil {
			return nil, err
		}
	}
	if need[watch.HostDiskReadKB] || need[watch.HostDiskWrite] || need[watch.HostDiskReads] || need[watch.HostDiskWrites] {
		ds, err := readDiskstats(s.root)
		if err != nil {
			return nil, err
		}
		disks = map[string]diskstat{}
		for _, d := range ds {
			disks[d.name] = d
		}
	}
	if need[watch.HostNetRxKB] || need[watch.HostNetTxKB] {
		ns, err := readNetDev(s.root)
		if err != nil {
			return nil, err
		}
		nets = map[string]netdev{}
		for _, n := range ns {
			nets[n.name] = n
		}
	}
	out := watch.Empty(len(s.cols))
	for i, c := range s.src {
		switch c.metric {
		case watch.HostLoad1:
			out[i] = load[0]
		case watch.HostLoad5:
			out[i] = load[1]
		case watch.HostLoad15:
			out[i] = load[2]
		case watch.HostCPUUtil:
			out[i] = s.cpuNow[0]
		case watch.HostCPUUser:
			out[i] = s.cpuNow[1]
		case watch.HostCPUSystem:
			out[i] = s.cpuNow[2]
		case watch.HostCPUIOWait:
			out[i] = s.cpuNow[3]
		case watch.HostMemTotal:
			out[i] = mem["MemTotal"] / 1024
		case watch.HostMemAvail:
			out[i] = mem["MemAvailable"] / 1024
		default:
			out[i] = c.rate.Observe(counterOf(c, disks, nets), at)
		}
	}
	return out, nil
}

// counterOf is the raw counter behind a disk or network column; NaN when the device went away.
func counterOf(c *column, disks map[string]diskstat, nets map[string]netdev) float64 {
	if d, ok := disks[c.dev]; ok {
		switch c.metric {
		case watch.HostDiskReadKB:
			return d.sectorsRead * 512 / 1024
		case watch.HostDiskWrite:
			return d.sectorsWritten * 512 / 1024
		case watch.HostDiskReads:
			return d.reads
		case watch.HostDiskWrites:
			return d.writes
		}
	}
	if n, ok := nets[c.dev]; ok {
		switch c.metric {
		case watch.HostNetRxKB:
			return n.rx / 1024
		case watch.HostNetTxKB:
			return n.tx / 1024
		}
	}
	return math.NaN()
}

// Rebase implements watch.Sampler.
func (s *Sampler) Rebase() {
	for _, c := range s.src {
		c.rate.Rebase()
	}
	s.cpu[1] = s.cpu[0]
}

// Summary: CPU over the whole span since Baseline, disk and network average rates, other gauges their last value.
func (s *Sampler) Summary() map[string]float64 {
	m := map[string]float64{}
	overall := percentages(s.cpu[0].sub(s.cpu[1]))
	for i, c := range s.src {
		v := s.last[i]
		switch {
		case watch.PerDisk(c.metric) || watch.PerInterface(c.metric):
			v = c.rate.Average()
		case strings.HasPrefix(c.metric, "cpu_"):
			v = overall[cpuIndex(c.metric)]
		}
		if !math.IsNaN(v) {
			m[s.cols[i].Name] = v
		}
	}
	return m
}

// Close has nothing to release.
func (s *Sampler) Close() error { return nil }

// cpuTicks are the first line of /proc/stat: user nice system idle iowait irq softirq steal.
type cpuTicks [8]float64

func (a cpuTicks) sub(b cpuTicks) cpuTicks {
	var d cpuTicks
	for i := range a {
		d[i] = a[i] - b[i]
	}
	return d
}

// percentages is the formula of the SNMP source (snmpwatch), so that one host reads the same from both:
// util is everything but idle (iowait counts as busy), user is user+nice, system is system+irq+softirq.
func percentages(d cpuTicks) [4]float64 {
	var total float64
	for _, x := range d {
		total += x
	}
	if total <= 0 {
		return [4]float64{math.NaN(), math.NaN(), math.NaN(), math.NaN()}
	}
	pct := func(x float64) float64 { return 100 * x / total }
	return [4]float64{pct(total - d[3]), pct(d[0] + d[1]), pct(d[2] + d[5] + d[6]), pct(d[4])}
}

func cpuIndex(name string) int {
	switch name {
	case watch.HostCPUUser:
		return 1
	case watch.HostCPUSystem:
		return 2
	case watch.HostCPUIOWait:
		return 3
	}
	return 0
}

func readCPU(root string) (cpuTicks, error) {
	var t cpuTicks
	f, err := os.Open(filepath.Join(root, "stat"))
	if err != nil {
		return t, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return t, fmt.Errorf("%s/stat is empty", root)
	}
	fields := strings.Fields(sc.Text())
	if len(fields) < 9 || fields[0] != "cpu" {
		return t, fmt.Errorf("%s/stat: unexpected first line %q", root, sc.Text())
	}
	for i := range t {
		t[i], _ = strconv.ParseFloat(fields[i+1], 64)
	}
	return t, nil
}

func readLoad(root string) ([3]float64, error) {
	var l [3]float64
	b, err := os.ReadFile(filepath.Join(root, "loadavg"))
	if err != nil {
		return l, err
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return l, fmt.Errorf("%s/loadavg: unexpected %q", root, b)
	}
	for i := range l {
		l[i], _ = strconv.ParseFloat(f[i], 64)
	}
	return l, nil
}

func readMeminfo(root string) (map[string]float64, error) {
	b, err := os.ReadFile(filepath.Join(root, "meminfo"))
	if err != nil {
		return nil, err
	}
	m := map[string]float64{}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) > 0 {
			m[k], _ = strconv.ParseFloat(f[0], 64) // kB
		}
	}
	return m, nil
}

type diskstat struct {
	name                                       string
	reads, sectorsRead, writes, sectorsWritten float64
}

func readDiskstats(root string) ([]diskstat, error) {
	b, err := os.ReadFile(filepath.Join(root, "diskstats"))
	if err != nil {
		return nil, err
	}
	var out []diskstat
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 10 {
			continue
		}
		num := func(i int) float64 { x, _ := strconv.ParseFloat(f[i], 64); return x }
		out = append(out, diskstat{name: f[2], reads: num(3), sectorsRead: num(5), writes: num(7), sectorsWritten: num(9)})
	}
	return out, nil
}

type netdev struct {
	name   string
	rx, tx float64
}

func readNetDev(root string) ([]netdev, error) {
	b, err := os.ReadFile(filepath.Join(root, "net", "dev"))
	if err != nil {
		return nil, err
	}
	var out []netdev
	for _, line := range strings.Split(string(b), "\n") {
		name, rest, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) < 9 {
			continue
		}
		rx, _ := strconv.ParseFloat(f[0], 64)
		tx, _ := strconv.ParseFloat(f[8], 64)
		out = append(out, netdev{name: strings.TrimSpace(name), rx: rx, tx: tx})
	}
	return out, nil
}
