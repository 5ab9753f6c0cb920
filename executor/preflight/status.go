package preflight

import (
	"fmt"
	"slices"
	"strings"

	"github.com/quadrant-bench/quadrant/spec"
)

// AssertedStatus finds the status.NAME assertions of p read that are no watched column of
// the iteration's target (watched: the status names of each target's columns, as the
// server spells them): the server has no such variable, or watch.status does not take it.
// Read as a missing map key they would be 0 and fail, or pass, for the wrong reason.
func AssertedStatus(p *spec.Plan, watched map[string][]string) error {
	var errs []error
	for i := range p.Iterations {
		it := &p.Iterations[i]
		name := p.TargetOf(it)
		for _, a := range it.Assert {
			for _, m := range spec.StatusRef.FindAllStringSubmatch(a.Source, -1) {
				if slices.ContainsFunc(watched[name], func(w string) bool { return strings.EqualFold(w, m[1]) }) {
					continue
				}
				msg := fmt.Sprintf("%s: assert %q: status.%s is not a watched column of target %s (the server has no such status variable, or watch.status does not take it)", a.Pos, a.Source, m[1], name)
				if sg := spec.Suggest(m[1], watched[name]); sg != "" {
					msg += sg
				}
				errs = append(errs, fmt.Errorf("iteration %d: %s", it.Index, msg))
			}
		}
	}
	return dedupe(errs)
}
