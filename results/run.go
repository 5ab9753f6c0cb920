package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/results/measure"
)

// Finished reports whether an iteration with this status is done for good: a resumed run
// keeps it and does not run it again.
func Finished(status string) bool { return status == StatusDone || status == StatusFailed }

// Run statuses, shared by run.json and summary.csv.
const (
	StatusRunning     = "running"
	StatusDone        = "done"
	StatusFailed      = "failed"      // an assertion was false, or the iteration errored
	StatusError       = "error"       // the run could not go on (setup failed, target lost)
	StatusInterrupted = "interrupted" // Ctrl-C
	StatusSkipped     = "skipped"     // on_failure: stop after an earlier failure
)

// RunInfo is run.json: everything about a run that is not a measurement, so that a
// colleague's folder explains itself (which tool, which plan, which servers and settings).
type RunInfo struct {
	Tool       string `json:"tool"`
	Version    string `json:"version"`
	Plan       string `json:"plan"`        // the plan's name
	PlanFile   string `json:"plan_file"`   // path as given on the command line
	PlanSHA256 string `json:"plan_sha256"` // of the resolved plan (plan.yaml)
	// PlanIdentity is the sha256 of the plan's content (spec.PlanIdentity): equal for a
	// rerun of a folder even where the text of plan.yaml is not.
	PlanIdentity string            `json:"plan_identity,omitempty"`
	Overrides    *Overrides        `json:"overrides,omitempty"`
	Labels       map[string]string `json:"labels,omitempty"`
	Axes         []string          `json:"axes,omitempty"` // matrix axes in written order
	// Order is how repeats were ordered (the plan's order and order_seed).
	Order *RunOrder `json:"order,omitempty"`
	Host  string    `json:"host"`
	// ClientHost is the machine quadrant ran on (CPU, memory, kernel, virtualization); nil in
	// folders written before it was recorded.
	ClientHost *HostInfo       `json:"client_host,omitempty"`
	Command    []string        `json:"command,omitempty"`
	Start      time.Time       `json:"start"`
	End        *time.Time      `json:"end,omitempty"`
	Status     string          `json:"status"`
	Error      string          `json:"error,omitempty"`
	Report     ReportOptions   `json:"report"`
	Targets    []TargetInfo    `json:"targets"`
	Iterations []IterationInfo `json:"iterations"`
	// Shard says this folder is one shard's part of a run (quadrant run --shard K/N);
	// `quadrant merge` adds the shards' folders up into one whose Shard lists them all.
	Shard *ShardInfo `json:"shard,omitempty"`
	// Snapshots are the copies of sandboxes' data taken when setup ended, which the
	// iterations' restores put back.
	Snapshots []Restore `json:"snapshots,omitempty"`
	// Metrics describe the columns the plan's workload kinds add of their own (a kind's
	// headline among them), so that reading the folder needs no kind.
	Metrics []MetricInfo `json:"metrics,omitempty"`
	// Tables declare the plan's workload kinds' own tables (Table), so that reading,
	// merging and showing them needs no kind.
	Tables []measure.Table `json:"tables,omitempty"`
}

// ShardInfo is a shard's place in a sharded run and how it met the others.
type ShardInfo struct {
	RunID string `json:"run_id"`
	Index int    `json:"index"`
	Count int    `json:"count"`
	// Meetings are the barriers this shard passed, in order.
	Meetings []Meeting `json:"meetings,omitempty"`
	// Merged, in a merged folder, lists the shard folders it was made of.
	Merged []MergedShard `json:"merged,omitempty"`
}

// Meeting is one barrier point as one shard saw it. Times are the barrier server's clock.
type Meeting struct {
	Point string    `json:"point"`
	Start time.Time `json:"start"` // the common start: last arrival + margin
	Woke  time.Time `json:"woke"`  // when this shard's wait ended, as it estimates the server's clock
	// LateMs is Woke - Start; OffsetMs the server's clock minus this machine's, measured
	// with a round trip of RTTMs (its error is at most half of that).
	LateMs   float64 `json:"late_ms"`
	OffsetMs float64 `json:"offset_ms"`
	RTTMs    float64 `json:"rtt_ms"`
	WaitedMs float64 `json:"waited_ms"` // from arriving to the last shard's arrival
}

// MergedShard is one shard folder of a merge.
type MergedShard struct {
	Index  int    `json:"index"`
	Dir    string `json:"dir"`
	Host   string `json:"host,omitempty"`
	Status string `json:"status"`
}

// RunOrder is the plan's order of repeats: sequential, interleaved or random with its seed.
type RunOrder struct {
	Kind string `json:"kind"`
	Seed int64  `json:"seed,omitempty"` // random only
}

// Overrides is what the command line changed in the plan it was given, so a comparison
// names the change (a --set, a --target) rather than only seeing another plan.
type Overrides struct {
	Set     []string `json:"set,omitempty"`     // --set values as given
	Targets []string `json:"targets,omitempty"` // --target NAME=DSN, password as ***
	// RerunOf is the results folder whose plan.yaml a rerun ran, and RerunOfIdentity its
	// plan identity.
	RerunOf         string `json:"rerun_of,omitempty"`
	RerunOfIdentity string `json:"rerun_of_identity,omitempty"`
}

// ReportOptions are the plan's report settings, kept so that `quadrant report` rebuilds
// the same files from the folder alone.
type ReportOptions struct {
	Formats     []string `json:"formats"`
	PerVariable bool     `json:"per_variable"`
}

// Wants reports whether format (csv, html, json) is to be written.
func (o ReportOptions) Wants(format string) bool {
	if len(o.Formats) == 0 {
		return true
	}
	for _, f := range o.Formats {
		if f == format {
			return true
		}
	}
	return false
}

// TargetInfo describes one server as it was during the run.
type TargetInfo struct {
	Name          string `json:"name"`
	Kind          string `json:"kind"`    // dsn | sandbox
	Address       string `json:"address"` // redacted DSN
	Flavor        string `json:"flavor,omitempty"`
	ServerVersion string `json:"server_version,omitempty"`
	// Hosting is who runs the server: "self-hosted", or a managed service ("aws-aurora",
	// "aws-rds", "gcp-cloud-sql", "azure-mysql"), and HostingEvidence the variable that told.
	Hosting         string            `json:"hosting,omitempty"`
	HostingEvidence string            `json:"hosting_evidence,omitempty"`
	VariablesBefore map[string]string `json:"variables_before,omitempty"`
	VariablesAfter  map[string]string `json:"variables_after,omitempty"`
	// Watched are the watched columns of the target's time series with their kind, so a
	// reader never guesses which columns are measured by a sampler.
	Watched []Column `json:"watched,omitempty"`
	// TLS is how quadrant's connections to the target used TLS; nil for plaintext.
	TLS *TLSInfo `json:"tls,omitempty"`
	// VersionComment and VersionMachine are the server's version_comment ("MariaDB Server",
	// "MySQL Community Server - GPL") and version_compile_machine (x86_64, aarch64).
	VersionComment string `json:"version_comment,omitempty"`
	VersionMachine string `json:"version_compile_machine,omitempty"`
	// ServerHost is the machine the server ran on, where quadrant could see it (a sandbox, a
	// server on this machine, an SNMP agent); nil with ServerHostAbsent saying why when not.
	ServerHost       *HostInfo `json:"server_host,omitempty"`
	ServerHostAbsent string    `json:"server_host_absent,omitempty"`
}

// HostInfo is a machine as a run saw it: the client quadrant ran on, or a target's server
// host. Empty fields were not readable.
type HostInfo struct {
	// Source is how it was read: "client" (this machine), "sandbox" (a sandbox runs on the
	// client), "local" (a dsn target's server found on the client: Evidence says how) or
	// "snmp" (the target's SNMP agent).
	Source      string `json:"source"`
	Evidence    string `json:"evidence,omitempty"`
	Hostname    string `json:"hostname,omitempty"`
	CPUModel    string `json:"cpu_model,omitempty"`
	CPUs        int    `json:"cpus,omitempty"`
	MemoryBytes uint64 `json:"memory_bytes,omitempty"`
	Kernel      string `json:"kernel,omitempty"` // "Linux 6.1.0-18-amd64", or an SNMP agent's sysDescr
	// Virtualization is "none" (bare metal), a hypervisor (kvm, qemu, vmware, xen, microsoft,
	// oracle, amazon, google, "vm" when only the CPU's hypervisor flag says so), a container
	// (docker, podman, lxc, kubernetes, "container"), or both ("docker in kvm"); "" unknown.
	// VirtualizationEvidence is what told.
	Virtualization         string `json:"virtualization,omitempty"`
	VirtualizationEvidence string `json:"virtualization_evidence,omitempty"`
}

// String is the machine in one line: "Intel Xeon E5-2680 v4, 2 CPUs, 3.8 GiB, Linux 6.1.0, kvm".
func (h *HostInfo) String() string {
	if h == nil {
		return "not recorded"
	}
	var parts []string
	if h.CPUModel != "" {
		parts = append(parts, h.CPUModel)
	}
	if h.CPUs > 0 {
		parts = append(parts, fmt.Sprintf("%d CPUs", h.CPUs))
	}
	if h.MemoryBytes > 0 {
		parts = append(parts, fmt.Sprintf("%.1f GiB", float64(h.MemoryBytes)/(1<<30)))
	}
	if h.Kernel != "" {
		parts = append(parts, h.Kernel)
	}
	if h.Virtualization != "" {
		parts = append(parts, "virtualization "+h.Virtualization)
	}
	if len(parts) == 0 {
		return "nothing readable"
	}
	return strings.Join(parts, ", ")
}

// LoadAverage is a machine's load averages over 1, 5 and 15 minutes (/proc/loadavg).
type LoadAverage struct {
	Load1  float64 `json:"load1"`
	Load5  float64 `json:"load5"`
	Load15 float64 `json:"load15"`
}

// HostLoad is the client machine's load around an iteration's measured workload, for
// compare to tell a change the host made (another job starting) from one the server made:
// the load averages when the workload started and when it ended, the mean count of runnable
// tasks sampled every 250 ms while it ran (the benchmark's own threads included: the
// 1-minute average moves by a sixtieth a second and shows a neighbour that started during a
// short iteration only a minute later), and the CPUs quadrant could use. Above one runnable
// task per CPU, tasks wait for a CPU, the benchmark's among them.
type HostLoad struct {
	CPUs     int          `json:"cpus"`
	Start    *LoadAverage `json:"start,omitempty"`
	End      *LoadAverage `json:"end,omitempty"`
	Runnable float64      `json:"runnable,omitempty"`
}

// PerCPU is the load per CPU during the workload: the mean runnable tasks, or without them
// the higher of the two 1-minute averages (which lag: the end shows a neighbour that started
// during the iteration); NaN without CPUs or readings.
func (l HostLoad) PerCPU() float64 {
	switch {
	case l.CPUs <= 0:
		return math.NaN()
	case l.Runnable > 0:
		return l.Runnable / float64(l.CPUs)
	case l.Start == nil || l.End == nil:
		return math.NaN()
	}
	return max(l.Start.Load1, l.End.Load1) / float64(l.CPUs)
}

// TLSInfo is a target's TLS: the mode, the files by name and fingerprint, and what the
// server negotiated on quadrant's first connection.
type TLSInfo struct {
	Mode    string   `json:"mode"`              // disabled, preferred, required, verify-ca, verify-identity
	CA      *TLSFile `json:"ca,omitempty"`      // the CA the server was verified with
	Cert    *TLSFile `json:"cert,omitempty"`    // the client certificate
	Key     *TLSFile `json:"key,omitempty"`     // its key: the file's name only
	Version string   `json:"version,omitempty"` // the session's Ssl_version ("" for plaintext)
	Cipher  string   `json:"cipher,omitempty"`  // the session's Ssl_cipher
}

// TLSFile is a file of a target's TLS setup: its name and, for a certificate, the SHA-256
// of its content; never a key's content or digest.
type TLSFile struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256,omitempty"`
}

// HostPrefix starts the columns of host metrics, whichever source read them (SNMP, /proc).
const HostPrefix = "host."

// Column is one watched column: status.Com_select, repl.lag_s, host.load1, proc.cpu_us, cost.fsyncs...
type Column struct {
	Name string       `json:"name"`
	Kind measure.Kind `json:"kind"` // counter (a per-second rate; the summary has the increase), gauge, or per_transaction
	// Source is where the values come from: SHOW GLOBAL STATUS, a process (/proc/PID), the host (/proc or
	// an SNMP agent), or for a cost column the counters it divides. Empty in folders written before it existed.
	Source string `json:"source,omitempty"`
}

// IterationInfo is one iteration's outcome. Variables lists, per target, the global
// variables that differed from the run's starting snapshot while the iteration ran, so a
// report can show exactly which settings each iteration had.
type IterationInfo struct {
	Index     int                          `json:"index"`
	Repeat    int                          `json:"repeat"`
	Matrix    []Field                      `json:"matrix,omitempty"`
	Status    string                       `json:"status"`
	Error     string                       `json:"error,omitempty"`
	Failed    []string                     `json:"failed_assertions,omitempty"`
	Start     time.Time                    `json:"start"`
	End       *time.Time                   `json:"end,omitempty"`
	Variables map[string]map[string]string `json:"variables,omitempty"`
	Warnings  []string                     `json:"warnings,omitempty"`
	// Storage is where each sandbox target's data directory was during the iteration, and a
	// dsn target's when its server runs on this machine (TargetInfo.ServerHost source "local").
	Storage []Storage `json:"storage,omitempty"`
	// Links are the network between each sandbox's parts during the iteration
	// (sandbox.links): each link as configured and as a probe measured it before the
	// iteration; empty when the plan has none.
	Links []Link `json:"links,omitempty"`
	// HostLoad is the client machine's load around the measured workload; nil in folders
	// written before it was recorded.
	HostLoad *HostLoad `json:"host_load,omitempty"`
	// Restore is how the targets were brought back to the end of setup before the
	// iteration (the plan's restore:); empty for the first iteration, which starts there.
	Restore []Restore `json:"restore,omitempty"`
	// Stall, when set, says the measured part did not run as planned: it took longer, or
	// some intervals are missing (a host that stopped the client, a server that froze).
	Stall *Stall `json:"stall,omitempty"`
	// Behind, when set, says an open loop (a rate, a replay at its captured timing) fell
	// behind its schedule: its events started late.
	Behind *Behind `json:"behind,omitempty"`
	// Events are moments a step marked while the workload ran (a failover drill's fault and
	// promotion), in order: the report draws each on its over-time charts.
	Events []Event `json:"events,omitempty"`
	// WatchGaps are the samplers that missed readings during the measured workload (their
	// source did not answer): those ticks' cells of their columns are empty.
	WatchGaps []WatchGap `json:"watch_gaps,omitempty"`
}

// WatchGap is one sampler's missed readings in an iteration: a lost connection costs
// samples (empty cells), not the run.
type WatchGap struct {
	Target  string `json:"target"`  // whose rows hold the sampler's columns
	Sampler string `json:"sampler"` // "status", "replication", "queries", "snmp ADDRESS"...
	Missed  int    `json:"missed"`  // ticks without a reading
	Ticks   int    `json:"ticks"`   // ticks of the workload
	// Outages are the stretches of failing ticks; Error is the first one's reason.
	Outages int    `json:"outages"`
	Error   string `json:"error,omitempty"`
}

// Event is a moment of an iteration's measured part a step marked: its name ("fault",
// "promoted") and when, in seconds of the measured part (the x axis of the intervals'
// elapsed; negative during the warmup).
type Event struct {
	Name string  `json:"name"`
	AtS  float64 `json:"at_s"`
}

// Behind is an open-loop iteration whose events started later than their schedule by more
// than LimitMs at the 99th percentile (lag: actual minus intended start). Its latency counts
// from the schedule, so the figures are honest, but they are those of a slower load than
// planned: the client (short of CPU) or the events before them on the same connection (a
// statement slower than captured holds its session's next one) held the schedule up.
type Behind struct {
	LimitMs  float64 `json:"limit_ms"`
	LagP50Ms float64 `json:"lag_p50_ms"`
	LagP99Ms float64 `json:"lag_p99_ms"`
	LagMaxMs float64 `json:"lag_max_ms"`
	// FromS is the end of the first interval whose lag p99 passed the limit, in seconds of
	// the measured part; 0 when none did on its own (the whole did).
	FromS float64 `json:"from_s,omitempty"`
}

func (b *Behind) String() string {
	s := fmt.Sprintf("fell behind its schedule: events started %s late at p99 (limit %s; median %s, worst %s)",
		msText(b.LagP99Ms), msText(b.LimitMs), msText(b.LagP50Ms), msText(b.LagMaxMs))
	if b.FromS > 0 {
		s += fmt.Sprintf(", from %.0f s on", b.FromS)
	}
	return s
}

// msText is a lag in ms, or in seconds from 10 s.
func msText(ms float64) string {
	if ms >= 10000 {
		return fmt.Sprintf("%.1f s", ms/1000)
	}
	if ms >= 10 {
		return fmt.Sprintf("%.0f ms", ms)
	}
	return fmt.Sprintf("%.2f ms", ms)
}

// Stall is an iteration whose measured part took longer than planned or whose intervals
// have gaps: its averages hide a stop, and it should be run again.
type Stall struct {
	// PlannedS and MeasuredS are the measured part's planned and real length, in seconds
	// (PlannedS 0: the workload had no duration, only events or a file to replay).
	PlannedS  float64 `json:"planned_s,omitempty"`
	MeasuredS float64 `json:"measured_s"`
	// Overrun says MeasuredS is longer than PlannedS by more than the way every run ends
	// (its last interval cut at the planned end).
	Overrun bool `json:"overrun,omitempty"`
	// Gaps are the spans with no interval of their own: one interval lasted them all.
	Gaps []Gap `json:"gaps,omitempty"`
}

// Gap is a span of the measured part, in seconds from its start, that one interval
// covered instead of one per report interval.
type Gap struct {
	FromS float64 `json:"from_s"`
	ToS   float64 `json:"to_s"`
}

func (s *Stall) String() string {
	var parts []string
	if s.Overrun {
		parts = append(parts, fmt.Sprintf("measured %.1f s of a planned %.0f s", s.MeasuredS, s.PlannedS))
	}
	if len(s.Gaps) > 0 {
		var gs []string
		for _, g := range s.Gaps {
			gs = append(gs, fmt.Sprintf("%.0f–%.0f s", g.FromS, g.ToS))
		}
		parts = append(parts, "no interval of its own for "+strings.Join(gs, ", "))
	}
	return strings.Join(parts, "; ")
}

// RestoreSteps is the method of a restore by the plan's restore steps (a sandbox's copy
// says reflink, copy or reflink+copy).
const RestoreSteps = "steps"

// Restore is one target brought back to the state at the end of setup (an iteration's
// restore), or the copy of a sandbox's data taken when setup ended (RunInfo.Snapshots).
type Restore struct {
	// Target is a sandbox (its replicas came with it), or the targets of the plan's
	// restore steps.
	Target string `json:"target"`
	// Method is how: reflink (every file of the datadirs cloned), copy (copied),
	// reflink+copy, or steps (the plan's restore steps).
	Method string `json:"method"`
	// Seconds is all of it (stopping, copying, starting; or the steps), CopySeconds the
	// copy alone, Bytes and Files what was copied (the datadirs, replicas' included).
	Seconds     float64 `json:"seconds"`
	CopySeconds float64 `json:"copy_seconds,omitempty"`
	Bytes       int64   `json:"bytes,omitempty"`
	Files       int     `json:"files,omitempty"`
}

// Broken reports whether the iteration's numbers are not a whole measurement, to be kept
// out of best and worst and drawn as failed: it was interrupted, the run could not go on,
// or it failed with an error (a server lost mid-way, a step). An iteration failed only by
// its assertions measured all it was to measure: its numbers stand (it is still marked).
func (it *IterationInfo) Broken() bool {
	switch it.Status {
	case StatusInterrupted, StatusError:
		return true
	case StatusFailed:
		return it.Error != ""
	}
	return false
}

// Why is what went wrong in an iteration that did not pass, in a few words: its error or
// its failed assertions; "" for one that passed.
func (it *IterationInfo) Why() string {
	switch {
	case it.Status == StatusDone || it.Status == StatusRunning || it.Status == "":
		return ""
	case it.Error != "":
		return it.Error
	case len(it.Failed) > 0:
		return "assertions failed: " + strings.Join(it.Failed, "; ")
	}
	return it.Status
}

// Storage is the filesystem a server's data directory is on: what a comparison of storage
// compared. Type, Device and the sizes are empty/0 when the mount table could not be read.
type Storage struct {
	Target     string `json:"target"`
	DataDir    string `json:"datadir"`
	Filesystem string `json:"filesystem,omitempty"` // ext4, xfs, tmpfs, nfs4, ...
	Device     string `json:"device,omitempty"`     // what is mounted there: /dev/nvme0n1p2, tmpfs, host:/export
	Mount      string `json:"mount,omitempty"`
	FreeBytes  uint64 `json:"free_bytes,omitempty"` // at the iteration's start
	// Binlog is the filesystem of the binary log's directory (log_bin_basename's), when
	// binary logging is on.
	Binlog *PathStorage `json:"binlog,omitempty"`
}

// PathStorage is the filesystem a directory other than the datadir is on.
type PathStorage struct {
	Path       string `json:"path"`
	Filesystem string `json:"filesystem,omitempty"`
	Device     string `json:"device,omitempty"`
	Mount      string `json:"mount,omitempty"`
}

// String is the storage in one line, for reports: "/dev/shm/q/... on tmpfs (tmpfs at /dev/shm, 3.9 GiB free)".
func (s Storage) String() string {
	out := s.DataDir
	if s.Filesystem == "" {
		return out
	}
	out += " on " + s.Filesystem + " (" + s.Device
	if s.Mount != "" {
		out += " at " + s.Mount
	}
	if s.FreeBytes > 0 {
		out += fmt.Sprintf(", %.1f GiB free", float64(s.FreeBytes)/(1<<30))
	}
	return out + ")"
}

// MarshalJSON keeps matrix values ordered as an array of {name, value}.
func (f Field) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}{f.Name, f.Value})
}

// UnmarshalJSON is MarshalJSON's inverse.
func (f *Field) UnmarshalJSON(b []byte) error {
	var v struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	f.Name, f.Value = v.Name, v.Value
	return nil
}

// WriteRunInfo replaces run.json; called whenever a status changes.
func (w *Writer) WriteRunInfo(ri *RunInfo) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return WriteJSON(filepath.Join(w.Dir, RunFile), ri)
}

// WriteJSON writes v to path through a temporary file and a rename, so readers (and a
// kill -9) only ever see a complete file.
func WriteJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, append(data, '\n'))
}

// ReadRunInfo reads run.json.
func ReadRunInfo(dir string) (*RunInfo, error) {
	data, err := ReadFileIn(dir, RunFile)
	var link *LinkError
	if errors.As(err, &link) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("%s is not a quadrant results folder: %w", dir, err)
	}
	var ri RunInfo
	if err := json.Unmarshal(data, &ri); err != nil {
		return nil, fmt.Errorf("%s: run.json: %w", dir, err)
	}
	return &ri, nil
}
