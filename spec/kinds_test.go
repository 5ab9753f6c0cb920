package spec

import (
	"strings"
	"time"
)

// testKinds stand in for the executor's workload kinds (which spec's tests cannot import):
// each takes its key and keeps the value as plain YAML values, with the settings spec asks
// of a kind. The real kinds' rules are tested with the real registry by the corpus
// of testdata/bad (badplans_test.go, an external test package).
func testKinds() *Kinds {
	plain := func() any { return new(any) }
	ks, err := NewKinds(
		&Kind{Name: "builtin", Key: "builtin", Body: func() any { return new(string) }, Options: func() any { return new(Settings) },
			Values:  []string{"oltp_read_only", "oltp_read_write", "oltp_write_only", "oltp_point_select", "oltp_insert"},
			Actions: []string{"prepare", "cleanup"}, Loop: true, Spreads: true, SplitsPrepare: true},
		&Kind{Name: "tpcc", Key: "builtin", Values: []string{"tpcc"}, Body: func() any { return new(string) },
			Options: func() any { return new(Settings) }, Actions: []string{"prepare", "cleanup", "check"}, Metrics: []OwnMetric{{Name: "tpmC", Unit: "1/min"}}},
		&Kind{Name: "transactions", Key: "transactions", Body: plain, Loop: true, Spreads: true},
		&Kind{Name: "replay", Key: "replay", Body: plain, Ends: true},
		&Kind{Name: "sysbench", Key: "sysbench", Body: plain, Actions: []string{"prepare", "cleanup"}},
	)
	if err == nil {
		ks, err = ks.WithSteps(testSteps()...)
	}
	if err != nil {
		panic(err)
	}
	return ks
}

// testSteps stand in for the executor's step kinds (executor/step/...), as testKinds do for
// the workload kinds: each takes its key, with the settings spec asks of a kind, and none
// of its rules, which are tested with the real registry in the kind's package.
func testSteps() []*StepKind {
	return []*StepKind{
		{Key: "sql", Body: func() any { return new(string) }, Target: true, Keys: []string{"ignore_errors", "save_as", "timeout"}},
		{Key: "sql_file", Body: func() any { return new(string) }, Target: true, Keys: []string{"ignore_errors", "timeout"},
			Reads: func(s *Step) []DataFile { f := *StepBody[*string](s); return []DataFile{{File: f, Path: f}} }},
		{Key: "set_global", Body: func() any { return new(Settings) }, Target: true, Keys: []string{"timeout"}},
		{Key: "restart", Body: func() any { return new(any) }, Target: true, Keys: []string{"timeout"}, Restarts: true},
		{Key: "wait", Body: func() any { return new(testWait) }, Target: true,
			OwnTarget: func(s *Step) (string, Pos) { w := StepBody[*testWait](s); return w.Target, w.Src.At("target") },
			RecordAs:  func(s *Step) string { return StepBody[*testWait](s).RecordAs },
			Check:     func(c *Check, s *Step) { c.Condition(&StepBody[*testWait](s).Until, "status", "replica", "row") }},
		{Key: "workload", Body: func() any { return new(Workload) }, Target: true, Keys: []string{"timeout"},
			Check:     func(c *Check, s *Step) { c.Workload(StepBody[*Workload](s)) },
			Workloads: func(s *Step) []*Workload { return []*Workload{StepBody[*Workload](s)} },
			Splits: func(s *Step) bool {
				w := StepBody[*Workload](s)
				return w.Action == "prepare" && w.Kind != nil && w.Kind.SplitsPrepare
			}},
		{Key: "capture", Body: func() any { return new(testCapture) }, Target: true,
			Check: func(c *Check, s *Step) {
				cp := StepBody[*testCapture](s)
				cp.Path = c.Output(cp.Out, cp.Src.At("out"), "capture out")
			},
			Writes: func(s *Step) DataFile { c := StepBody[*testCapture](s); return DataFile{File: c.Out, Path: c.Path} }},
		{Key: "generate", Body: func() any { return new(any) }, Target: true, Keys: []string{"timeout"}, Splits: func(*Step) bool { return true }},
		{Key: "verify", Body: func() any { return new(any) }, Keys: []string{"timeout"}, NoTarget: "which runs on several targets",
			Once: "its rows say nothing of an iteration"},
		{Key: "drop_caches", Body: func() any { return new(bool) }},
		{Key: "shell", Body: func() any { return new(string) }, Keys: []string{"timeout"}, RestoresAny: true,
			Names: func(s *Step, file string) bool { return strings.Contains(*StepBody[*string](s), file) }},
		{Key: "sleep", Body: func() any { return new(time.Duration) }},
	}
}

// withKinds gives opts the stand-in kinds unless it has kinds.
func withKinds(opts Options) Options {
	if opts.Kinds == nil {
		opts.Kinds = testKinds()
	}
	return opts
}

// testEnv is the environment plans are loaded with, so that results do not depend on the machine.
var testEnv = map[string]string{"HOME": "/home/dba", "BENCH_PASSWORD": "s3cret-pw"}

// testWait stands in for the wait step's body (executor/step/wait), with its keys and
// defaults.
type testWait struct {
	Src      Source        `yaml:"-" name:"wait"`
	Until    Expr          `yaml:"until,required"`
	SQL      string        `yaml:"sql"`
	Target   string        `yaml:"target"`
	Interval time.Duration `yaml:"interval" default:"1s"`
	Timeout  time.Duration `yaml:"timeout" default:"10m"`
	RecordAs string        `yaml:"record_as" pattern:"^[a-z][a-z0-9_]*$"`
}

// testCapture stands in for the capture step's body (executor/step/capture).
type testCapture struct {
	Src      Source        `yaml:"-" name:"capture"`
	Out      string        `yaml:"out,required"`
	Duration time.Duration `yaml:"duration,required"`
	Method   string        `yaml:"method" default:"auto" enum:"auto,slow_log,performance_schema"`
	Schemas  []string      `yaml:"schemas"`
	Users    []string      `yaml:"users"`
	While    *Workload     `yaml:"while"`
	Path     string        `yaml:"-"`
}
