package tpcc

import (
	"fmt"

	"github.com/quadrant-bench/quadrant/executor/workload"
	"github.com/quadrant-bench/quadrant/spec"
)

// ValidateLoaded finds runs and checks over more warehouses than the plan itself loads.
// A run refuses them anyway before its terminals start (loaded), but only after setup has
// spent its time loading; where the plan says how many warehouses a target holds (a tpcc
// prepare in setup, and no prepare or cleanup of tpcc on that target afterwards), validate
// says it first. Without a prepare in the plan the data is a previous run's: only the run
// can count it.
func ValidateLoaded(p *spec.Plan) spec.Errors {
	type load struct {
		warehouses int
		at         spec.Pos
	}
	loaded := map[string]load{}       // target -> what setup's prepares left so far
	changedLater := map[string]bool{} // targets whose tpcc data a later step prepares or drops
	var errs spec.Errors
	seen := map[spec.Pos]bool{}
	over := func(w *spec.Workload, target string) {
		l, ok := loaded[target]
		if !ok || (w.Action != "run" && w.Action != "check") {
			return
		}
		pp, err := ParseParams(workload.Settings(workload.Options(w)))
		if err != nil || pp.Warehouses <= l.warehouses {
			return // a bad option is the kind's own error
		}
		at := w.Src.At("options")
		if kv, ok := settingOf(workload.Options(w), "warehouses"); ok {
			at = kv.Pos
		}
		if seen[at] {
			return
		}
		seen[at] = true
		errs = append(errs, &spec.Error{Pos: at, Msg: fmt.Sprintf(
			"tpcc %s over %d warehouses, but the prepare at %s loads %d into target %s; prepare with warehouses: %d or more, or %s with warehouses: %d",
			w.Action, pp.Warehouses, l.at, l.warehouses, target, pp.Warehouses, w.Action, l.warehouses)})
	}
	for ps := range p.Steps() {
		w := spec.StepBody[*spec.Workload](ps.Step)
		if w == nil || w.Type() != kindName {
			continue
		}
		switch {
		case ps.Phase == spec.PhaseSetup && w.Action == "prepare":
			if pp, err := ParseParams(workload.Settings(workload.Options(w))); err == nil {
				loaded[ps.Target] = load{pp.Warehouses, w.Src.Pos}
			}
		case ps.Phase == spec.PhaseSetup && w.Action == "cleanup":
			delete(loaded, ps.Target)
		case ps.Phase == spec.PhaseSetup:
			over(w, ps.Target)
		case w.Action == "prepare" || w.Action == "cleanup":
			changedLater[ps.Target] = true
		}
	}
	for t := range changedLater {
		delete(loaded, t)
	}
	for pw := range p.Workloads() {
		if pw.Workload.Type() == kindName && (pw.Step == nil || !isSetup(p, pw.Step)) {
			over(pw.Workload, pw.Target)
		}
	}
	return errs
}

func settingOf(s spec.Settings, name string) (spec.Setting, bool) {
	for _, kv := range s {
		if kv.Name == name {
			return kv, true
		}
	}
	return spec.Setting{}, false
}

func isSetup(p *spec.Plan, st *spec.Step) bool {
	for i := range p.Setup {
		if &p.Setup[i] == st {
			return true
		}
	}
	return false
}
