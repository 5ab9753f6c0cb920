// Package shard splits one plan's load between N quadrant processes (`quadrant run
// --shard K/N`), usually on N client machines, so that the shards together do exactly
// what one process would: every worker id, event, table and warehouse belongs to exactly
// one shard. It is pure arithmetic over the plan; starting the shards together is the
// executor's barrier, adding their results up is results' merge.
package shard

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/quadrant-bench/quadrant/spec"
)

// Shard is shard Index (0-based) of Count. The zero value is an unsharded run: one
// process doing all the work, which every method treats as shard 0 of 1.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// Parse reads K/N, e.g. 2/3 (as Kubernetes' JOB_COMPLETION_INDEX gives K).
func Parse(s string) (Shard, error) {
	k, n, ok := strings.Cut(strings.TrimSpace(s), "/")
	ki, kerr := strconv.Atoi(k)
	ni, nerr := strconv.Atoi(n)
	if !ok || kerr != nil || nerr != nil {
		return Shard{}, fmt.Errorf("--shard %q: want K/N, e.g. --shard 0/3 for the first of three shards", s)
	}
	if ni < 1 || ki < 0 || ki >= ni {
		return Shard{}, fmt.Errorf("--shard %s: K must be 0..N-1 and N at least 1, e.g. --shard 0/%d .. --shard %d/%d", s, max(ni, 1), max(ni, 1)-1, max(ni, 1))
	}
	return Shard{Index: ki, Count: ni}, nil
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.n()) }

func (s Shard) n() int { return max(s.Count, 1) }

// Sharded reports whether the load is split at all (N > 1).
func (s Shard) Sharded() bool { return s.Count > 1 }

// Leader is shard 0: it alone runs setup, globals, server_config restarts, steps and
// waits, and samples watchers, because its index says so (there is no election).
func (s Shard) Leader() bool { return s.Index == 0 }

// Workers is how many of threads closed-loop workers this shard runs: the global ids i
// with i mod N == K.
func (s Shard) Workers(threads int) int {
	n := s.n()
	if s.Index >= threads {
		return 0
	}
	return (threads - s.Index + n - 1) / n
}

// Global is the global worker id of this shard's local worker i: seeds, per-worker
// tables and per-worker ranges use it, so they are those of an unsharded run.
func (s Shard) Global(local int) int { return s.Index + local*s.n() }

// Events is this shard's part of a limit of events: the parts add up to events exactly,
// the first events mod N shards taking one more. 0 (no limit) stays 0.
func (s Shard) Events(events int64) int64 {
	n := int64(s.n())
	part := events / n
	if int64(s.Index) < events%n {
		part++
	}
	return part
}

// Rate is this shard's part of an open-loop rate: N independent Poisson processes at
// R/N add up to one Poisson process at R.
func (s Shard) Rate(rate float64) float64 { return rate / float64(s.n()) }

// Owns reports whether this shard handles item n (1-based: table sbtestN, warehouse N).
func (s Shard) Owns(n int) bool { return (n-1)%s.n() == s.Index }

// Unique maps a shard-local counter onto ids no other shard produces: counter*N + K.
func (s Shard) Unique(counter uint32) uint32 {
	return counter*uint32(s.n()) + uint32(s.Index)
}

// Validate says what of a plan cannot be split into n shards, at the plan's lines:
// sandbox targets (a sandbox is private to one machine), fewer threads than shards (in any
// stage too), and an events limit under n; a kind with its own Shards says instead what of
// its workloads cannot be split (sysbench's percentiles do not add up, a replayed SQL file
// is one stream).
func Validate(p *spec.Plan, n int) spec.Errors {
	if n <= 1 {
		return nil
	}
	var errs spec.Errors
	for _, t := range p.Targets {
		if t.Sandbox != nil {
			errs = append(errs, &spec.Error{Pos: t.Src.At("sandbox"), Msg: fmt.Sprintf(
				"target %s is a sandbox, which is private to one machine and cannot be shared by %d shards; start the server once (quadrant sandbox up --print-env) and pass it to every shard with --target %s=DSN",
				t.Name, n, t.Name)})
		}
	}
	seen := map[*spec.Workload]bool{}
	for pw := range p.Workloads() {
		w := pw.Workload
		if seen[w] {
			continue
		}
		seen[w] = true
		if k := w.Kind; k != nil && k.Shards != nil {
			errs = append(errs, k.Shards(w, n)...)
			continue // the kind splits its own way (a replay by captured session) or not at all
		}
		if w.Action != "run" {
			continue
		}
		closedStages := false
		for i, st := range w.Stages {
			if st.Threads > 0 {
				closedStages = true
			}
			if st.Threads > 0 && st.Threads < n {
				errs = append(errs, &spec.Error{Pos: st.Src.At("threads"), Msg: fmt.Sprintf(
					"stage %d: threads: %d cannot be split into %d shards (each needs at least one worker in every stage); use threads: %d or more in this stage, or fewer shards", i+1, st.Threads, n, n)})
			}
		}
		if !closedStages && w.Threads < n {
			errs = append(errs, &spec.Error{Pos: w.Src.At("threads"), Msg: fmt.Sprintf(
				"threads: %d cannot be split into %d shards (each needs at least one worker); use threads: %d or more, or fewer shards", w.Threads, n, n)})
		}
		if w.Events > 0 && w.Events < int64(n) {
			errs = append(errs, &spec.Error{Pos: w.Src.At("events"), Msg: fmt.Sprintf(
				"events: %d cannot be split into %d shards (a shard would get none, which means no limit); use events: %d or more, or fewer shards", w.Events, n, n)})
		}
	}
	return errs
}
