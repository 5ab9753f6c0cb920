package preflight

import (
	"fmt"

	"github.com/quadrant-bench/quadrant/spec"
)

// planNeeds lists, in plan order, what each line of p needs of the accounts it runs with,
// on the targets for which servers has an answer (ok false: not asked, e.g. a sandbox,
// whose account is quadrant's own root): its steps' (their kinds' Privileges), its
// iterations' globals, its workloads' (their kinds' Privileges) and watch's.
func planNeeds(p *spec.Plan, servers func(name string) (spec.AccountServer, bool)) []need {
	var out []need
	add := func(name string, ns ...spec.AccountNeed) {
		if _, ok := servers(name); ok && name != "" {
			for _, n := range ns {
				out = append(out, need{target: name, AccountNeed: n})
			}
		}
	}
	for ps := range p.Steps() {
		st, on := ps.Step, ps.Target
		if st.Kind == nil || st.Kind.Privileges == nil {
			continue
		}
		if st.Kind.OwnTarget != nil {
			if own, _ := st.Kind.OwnTarget(st); own != "" {
				on = own
			}
		}
		if srv, ok := servers(on); ok {
			add(on, st.Kind.Privileges(st, srv)...)
		}
	}
	for i := range p.Iterations {
		it := &p.Iterations[i]
		name := p.TargetOf(it)
		if srv, ok := servers(name); ok && len(it.Globals) > 0 {
			add(name, spec.AccountNeed{Pos: it.Globals[0].Pos, What: "globals", Why: "SET GLOBAL", Any: [][]spec.Privilege{{srv.SetGlobal}}})
		}
	}
	for pw := range p.Workloads() {
		if srv, ok := servers(pw.Target); ok {
			add(pw.Target, workloadNeeds(pw.Workload, srv)...)
		}
	}
	// Each line that needs the grant is named, so that the user fixes both at once.
	wp := p.Watch
	for _, w := range []struct {
		on   bool
		key  string
		what string
	}{{wp.Digests != nil, "digests", "watch.digests"}, {wp.Waits != nil, "waits", "watch.waits"}} {
		if !w.on {
			continue
		}
		for i := range p.Iterations {
			add(p.TargetOf(&p.Iterations[i]), spec.AccountNeed{Pos: wp.Src.At(w.key), What: w.what, Why: "read performance_schema's summaries", Any: [][]spec.Privilege{{perfSchemaSelect}}})
		}
	}
	return dedupeNeeds(out)
}

// workloadNeeds are the privileges w's kind declares for its action on its schema: the
// DSN's, else the kind's own.
func workloadNeeds(w *spec.Workload, srv spec.AccountServer) []spec.AccountNeed {
	if w.Kind == nil || w.Kind.Privileges == nil {
		return nil
	}
	privs, schema := w.Kind.Privileges(w)
	if len(privs) == 0 {
		return nil
	}
	if srv.Schema != "" {
		schema = srv.Schema
	}
	var all []spec.Privilege
	for _, pr := range privs {
		all = append(all, spec.Privilege{Names: []string{pr}, DB: schema})
	}
	return []spec.AccountNeed{{Pos: w.Src.Pos, What: "workload", Why: fmt.Sprintf("%s %s on schema %s", w.Type(), w.Action, schema), Any: [][]spec.Privilege{all}}}
}

// dedupeNeeds keeps one of each need: a matrix repeats the same line in every iteration.
func dedupeNeeds(in []need) []need {
	seen := map[string]bool{}
	var out []need
	for _, n := range in {
		key := fmt.Sprint(n.target, n.Pos, n.What, n.Any)
		if !seen[key] {
			seen[key] = true
			out = append(out, n)
		}
	}
	return out
}
