package shard

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/quadrant-bench/quadrant/spec"
)

// Every worker id, event, table and unique id belongs to exactly one shard, for every
// split of small sizes, and the zero Shard is the whole.
func TestSharesCoverEverythingOnce(t *testing.T) {
	for n := 1; n <= 7; n++ {
		for threads := n; threads <= 20; threads++ {
			seen := make([]int, threads)
			for k := range n {
				s := Shard{Index: k, Count: n}
				for local := range s.Workers(threads) {
					g := s.Global(local)
					if g < 0 || g >= threads {
						t.Fatalf("%v of %d threads: local %d -> global %d out of range", s, threads, local, g)
					}
					if g%n != k {
						t.Fatalf("%v: global id %d is not K mod N", s, g)
					}
					seen[g]++
				}
			}
			for id, c := range seen {
				if c != 1 {
					t.Fatalf("%d shards, %d threads: worker %d run %d times", n, threads, id, c)
				}
			}
		}
		for events := int64(n); events <= 50; events++ {
			var sum int64
			for k := range n {
				e := Shard{Index: k, Count: n}.Events(events)
				if e < 1 {
					t.Fatalf("%d/%d of %d events got %d", k, n, events, e)
				}
				sum += e
			}
			if sum != events {
				t.Fatalf("%d shards of %d events add up to %d", n, events, sum)
			}
		}
		for tables := 1; tables <= 20; tables++ {
			for tb := 1; tb <= tables; tb++ {
				owners := 0
				for k := range n {
					if (Shard{Index: k, Count: n}).Owns(tb) {
						owners++
					}
				}
				if owners != 1 {
					t.Fatalf("%d shards: table %d owned by %d", n, tb, owners)
				}
			}
		}
		ids := map[uint32]bool{}
		for k := range n {
			s := Shard{Index: k, Count: n}
			for c := uint32(1); c <= 100; c++ {
				u := s.Unique(c)
				if ids[u] {
					t.Fatalf("%d shards: unique id %d given twice", n, u)
				}
				ids[u] = true
			}
		}
		rate := 0.0
		for k := range n {
			rate += Shard{Index: k, Count: n}.Rate(900)
		}
		if rate < 899.999 || rate > 900.001 {
			t.Fatalf("%d shards: rates add up to %v, want 900", n, rate)
		}
	}
	var whole Shard
	if whole.Workers(8) != 8 || whole.Events(13) != 13 || whole.Rate(5) != 5 || !whole.Owns(3) || whole.Global(5) != 5 || whole.Unique(7) != 7 || whole.Sharded() {
		t.Fatal("the zero Shard is not the whole load")
	}
}

func TestParse(t *testing.T) {
	s, err := Parse("2/3")
	if err != nil || s != (Shard{Index: 2, Count: 3}) || !s.Sharded() || s.Leader() {
		t.Fatalf("Parse(2/3) = %v, %v", s, err)
	}
	for _, bad := range []string{"3/3", "-1/3", "1", "a/b", "0/0", "1/"} {
		if _, err := Parse(bad); err == nil || !strings.Contains(err.Error(), "--shard") {
			t.Errorf("Parse(%q) = %v, want an error naming --shard", bad, err)
		}
	}
}

func TestValidate(t *testing.T) {
	plan := `version: 1
name: sharded
targets:
  db: {dsn: "u:p@tcp(127.0.0.1:3306)/sbtest"}
  box: {sandbox: {}}
setup:
  - workload: {builtin: oltp_read_only, action: prepare}
    target: db
iteration:
  target: db
  workload:
    builtin: oltp_read_only
    threads: 2
    events: 2
    duration: 1s
`
	p, err := spec.Load("plan.yaml", spec.Options{FS: fstest.MapFS{"plan.yaml": {Data: []byte(plan)}}, Kinds: builtinKind(t)})
	if err != nil {
		t.Fatal(err)
	}
	if errs := Validate(p, 1); len(errs) != 0 {
		t.Fatalf("unsharded: %v", errs)
	}
	errs := Validate(p, 3)
	text := errs.Error()
	for _, want := range []string{"target box is a sandbox", "threads: 2 cannot be split into 3", "events: 2 cannot be split into 3", "plan.yaml:"} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in:\n%s", want, text)
		}
	}
	if len(errs) != 3 {
		t.Errorf("want 3 errors (the prepare step is splittable), got:\n%s", text)
	}
}

// Stages shard like the flat case: a stage with fewer threads than shards is refused at
// its own line, a rate stage needs the workload's threads split, a fitting shape passes.
func TestValidateStages(t *testing.T) {
	load := func(stages string) *spec.Plan {
		t.Helper()
		plan := `version: 1
name: shaped
targets:
  db: {dsn: "u:p@tcp(127.0.0.1:3306)/sbtest"}
iteration:
  target: db
  workload:
    builtin: oltp_read_only
` + stages
		p, err := spec.Load("plan.yaml", spec.Options{FS: fstest.MapFS{"plan.yaml": {Data: []byte(plan)}}, Kinds: builtinKind(t)})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	closed := load(`    stages:
      - {duration: 1s, threads: 4}
      - {duration: 1s, threads: 2}
`)
	if errs := Validate(closed, 2); len(errs) != 0 {
		t.Errorf("2 shards of stages with 4 and 2 threads: %v", errs)
	}
	errs := Validate(closed, 3)
	if len(errs) != 1 || !strings.Contains(errs.Error(), "plan.yaml:11:") || !strings.Contains(errs.Error(), "stage 2: threads: 2 cannot be split into 3 shards") {
		t.Errorf("3 shards: want one error at stage 2's threads (plan.yaml:11:), got %v", errs)
	}
	open := load(`    threads: 2
    stages:
      - {duration: 1s, rate: 100}
`)
	if errs := Validate(open, 2); len(errs) != 0 {
		t.Errorf("2 shards of a rate stage with 2 threads: %v", errs)
	}
	if errs := Validate(open, 3); len(errs) != 1 || !strings.Contains(errs.Error(), "threads: 2 cannot be split into 3") {
		t.Errorf("3 shards of a rate stage with 2 threads: %v", errs)
	}
}

// builtinKind stands in for the executor's builtin kind and its workload step kind (spec's packages cannot import it):
// the threads and events arithmetic is spec/shard's, whatever the kind.
func builtinKind(t *testing.T) *spec.Kinds {
	ks, err := spec.NewKinds(&spec.Kind{Name: "builtin", Key: "builtin", Values: []string{"oltp_read_only"},
		Body: func() any { return new(string) }, Actions: []string{"prepare"}, Loop: true, SplitsPrepare: true})
	if err == nil {
		// and for its workload step, the executor's workload step kind
		ks, err = ks.WithSteps(&spec.StepKind{Key: "workload", Body: func() any { return new(spec.Workload) }, Target: true,
			Check: func(c *spec.Check, s *spec.Step) { c.Workload(spec.StepBody[*spec.Workload](s)) },
			Splits: func(s *spec.Step) bool {
				w := spec.StepBody[*spec.Workload](s)
				return w.Action == "prepare" && w.Kind != nil && w.Kind.SplitsPrepare
			}})
	}
	if err != nil {
		t.Fatal(err)
	}
	return ks
}
