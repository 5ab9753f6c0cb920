package spec

import (
	"iter"
	"path/filepath"
)

// Phase names where a step stands in a plan.
const (
	PhaseSetup    = "setup"
	PhaseRestore  = "restore"
	PhaseBefore   = "before"
	PhaseDuring   = "during"
	PhaseAfter    = "after"
	PhaseTeardown = "teardown"
)

// PlacedStep is one step of a plan with where it runs: its phase, its iteration (nil in
// setup and teardown) and the target it acts on (its own target:, else the iteration's,
// else the plan's only target; "" when none applies).
type PlacedStep struct {
	Step      *Step
	Phase     string
	Iteration *Iteration
	Target    string
}

// Steps walks every step of the plan in run order: setup, each iteration's before,
// during and after, then teardown. Every question asked of "all the steps of a plan"
// (files to copy, privileged commands, record_as names, threads) is one loop over it.
func (p *Plan) Steps() iter.Seq[PlacedStep] {
	return func(yield func(PlacedStep) bool) {
		list := func(steps []Step, phase string, it *Iteration, def string) bool {
			for i := range steps {
				st := &steps[i]
				t := st.Target
				if t == "" {
					t = def
				}
				if !yield(PlacedStep{Step: st, Phase: phase, Iteration: it, Target: t}) {
					return false
				}
			}
			return true
		}
		def := p.DefaultTarget()
		if !list(p.Setup, PhaseSetup, nil, def) {
			return
		}
		for i := range p.Iterations {
			it := &p.Iterations[i]
			t := p.TargetOf(it)
			var restore []Step
			if it.Restore != nil {
				restore = it.Restore.Steps
			}
			if !list(restore, PhaseRestore, it, t) || !list(it.Before, PhaseBefore, it, t) || !list(it.During, PhaseDuring, it, t) || !list(it.After, PhaseAfter, it, t) {
				return
			}
		}
		list(p.Teardown, PhaseTeardown, nil, def)
	}
}

// PlacedWorkload is one workload of a plan: an iteration's measured workload (Step nil) or
// a workload step.
type PlacedWorkload struct {
	Workload  *Workload
	Step      *Step // nil for the iteration's measured workload
	Iteration *Iteration
	Target    string
}

// Workloads walks every workload of the plan: the workload steps (and capture steps' while:
// workloads) in run order, then each iteration's measured workload.
func (p *Plan) Workloads() iter.Seq[PlacedWorkload] {
	return func(yield func(PlacedWorkload) bool) {
		for ps := range p.Steps() {
			if k := ps.Step.Kind; k == nil || k.Workloads == nil {
				continue
			}
			for _, w := range ps.Step.Kind.Workloads(ps.Step) {
				if !yield(PlacedWorkload{Workload: w, Step: ps.Step, Iteration: ps.Iteration, Target: ps.Target}) {
					return
				}
			}
		}
		for i := range p.Iterations {
			it := &p.Iterations[i]
			if it.Workload != nil && !yield(PlacedWorkload{Workload: it.Workload, Iteration: it, Target: p.TargetOf(it)}) {
				return
			}
		}
	}
}

// DefaultTarget is the plan's only target, when it has one.
func (p *Plan) DefaultTarget() string {
	if len(p.Targets) == 1 {
		return p.Targets[0].Name
	}
	return ""
}

// TargetOf is the target an iteration's workload and steps use by default.
func (p *Plan) TargetOf(it *Iteration) string {
	if it.Target != "" {
		return it.Target
	}
	return p.DefaultTarget()
}

// RecordNames are the plan's record_as names, once each in plan order.
func (p *Plan) RecordNames() []string {
	var out []string
	for ps := range p.Steps() {
		k := ps.Step.Kind
		if k == nil {
			continue
		}
		var names []string
		if k.RecordAs != nil {
			names = append(names, k.RecordAs(ps.Step))
		}
		if k.Records != nil {
			names = append(names, k.Records(ps.Step)...)
		}
		for _, name := range names {
			if name != "" && !contains(out, name) {
				out = append(out, name)
			}
		}
	}
	return out
}

// Fronted are the targets a step of a Front kind acts on, once each in plan order: the
// run keeps an address in front of each, which follows its primary.
func (p *Plan) Fronted() []string {
	var out []string
	for ps := range p.Steps() {
		if k := ps.Step.Kind; k != nil && k.Front && ps.Step.Target != "" && !contains(out, ps.Step.Target) {
			out = append(out, ps.Step.Target)
		}
	}
	return out
}

// MaxThreads is the most connections any workload of the plan runs at once.
func (p *Plan) MaxThreads() int {
	most := 1
	for pw := range p.Workloads() {
		most = max(most, pw.Workload.Connections())
	}
	return most
}

// OpenLoop says whether the workload runs at a rate (rate:, or stages with a rate).
func (w *Workload) OpenLoop() bool {
	return w.Rate > 0 || len(w.Stages) > 0 && w.Stages[0].Rate > 0
}

// Connections is how many connections the workload opens.
func (w *Workload) Connections() int {
	if w.Kind != nil && w.Kind.Connections != nil {
		return w.Kind.Connections(w)
	}
	n := 0
	for _, st := range w.Stages {
		n = max(n, st.Threads) // closed-loop stages: the largest stage's
	}
	if n > 0 {
		return n
	}
	return w.Threads
}

// DataFile is a file a plan reads at run time, as written (relative to the plan) and resolved.
type DataFile struct {
	File, Path string
}

// DataFiles lists the files the plan's steps and workloads read (sql_file, generate's schema, verify's traffic, replay), once
// each in plan order: what a results folder must carry for a rerun. A file a capture: step
// writes, or a dump a setup shell step writes for restore steps, is made by the run itself.
func (p *Plan) DataFiles() []DataFile {
	var out []DataFile
	seen := map[string]bool{}
	add := func(f DataFile) {
		if f.File != "" && !seen[f.File] {
			seen[f.File] = true
			out = append(out, f)
		}
	}
	written := p.writtenFiles()
	for ps := range p.Steps() {
		if k := ps.Step.Kind; k != nil && k.Reads != nil {
			for _, f := range k.Reads(ps.Step) {
				if !written[f.Path] {
					add(f)
				}
			}
		}
	}
	// A target's CA certificate is public, and the folder's plan names it: carried, so a
	// rerun verifies a server signed by the same CA. A client certificate and key are not
	// (rerun takes them with --tls). A CA named by absolute path (--tls) stays where it is.
	for _, t := range p.Targets {
		if t.TLS != nil && t.TLS.CA != "" && !filepath.IsAbs(t.TLS.CA) {
			add(DataFile{t.TLS.CA, t.TLS.CAPath})
		}
	}
	for pw := range p.Workloads() {
		for _, f := range pw.Workload.Files() {
			if !written[f.Path] {
				add(f)
			}
		}
	}
	return out
}

// Files are the files the workload reads (a replay's), as its kind says.
func (w *Workload) Files() []DataFile {
	if w == nil || w.Kind == nil || w.Kind.Files == nil {
		return nil
	}
	return w.Kind.Files(w)
}

// writtenBySetup says a setup shell step names file in its command: a dump it writes for
// restore steps, which run only after setup, so the file need not exist before the run.
func (p *Plan) writtenBySetup(file string) bool {
	if file == "" {
		return false
	}
	for i := range p.Setup {
		st := &p.Setup[i]
		if st.Kind != nil && st.Kind.Names != nil && st.Kind.Names(st, file) {
			return true
		}
	}
	return false
}

// writtenFiles are the resolved paths the run itself makes: what a step writes (a
// capture's out), and what a restore step reads that a setup step names (a dump).
func (p *Plan) writtenFiles() map[string]bool {
	written := map[string]bool{}
	for ps := range p.Steps() {
		k := ps.Step.Kind
		if k == nil {
			continue
		}
		if k.Writes != nil {
			written[k.Writes(ps.Step).Path] = true
		}
		if k.Reads != nil && ps.Phase == PhaseRestore {
			for _, f := range k.Reads(ps.Step) {
				if p.writtenBySetup(f.File) {
					written[f.Path] = true
				}
			}
		}
	}
	return written
}
