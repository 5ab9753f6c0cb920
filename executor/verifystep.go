package executor

import (
	"context"
	"fmt"

	"github.com/quadrant-bench/quadrant/executor/verify"
	"github.com/quadrant-bench/quadrant/spec"
)

// verify runs a verify: step on the plan's targets into the run's queries.csv. Differences
// are what the step finds, not a failure: only an error of verify itself fails it.
func (sr *stepRunner) verify(ctx context.Context, vf *spec.Verify, where string) error {
	o := verify.Options{Traffic: vf.TrafficPath, Format: vf.Format, Open: sr.fleet.plan.Roots().Open, Sample: vf.Sample, Seed: uint64(vf.Seed), Out: sr.out,
		Repeat: vf.Repeat, MinChange: vf.MinChange, Writes: vf.Writes, Redact: sr.log.redact,
		// verify writes its lines to log.txt itself (Out): the console only shows them
		Logf: func(format string, args ...any) { sr.log.obs.Logged(sr.log.redact(fmt.Sprintf(format, args...))) }}
	names := sr.fleet.plan.VerifyTargets(vf)
	for _, name := range names {
		s := sr.fleet.servers[name]
		if s == nil {
			return fmt.Errorf("verify: no target %s in the run", name)
		}
		o.Targets = append(o.Targets, verify.Target{Name: name, DB: s.db})
	}
	sr.log.logf("%s: verify %s on %v, %s the base", where, vf.Traffic, names, names[0])
	sum, err := verify.Run(ctx, o)
	if err != nil {
		return fmt.Errorf("verify %s: %w", vf.Traffic, err)
	}
	sr.log.logf("%s: verify: %d fingerprints (%d statements), %d differ, %d slower; see queries.csv", where, sum.Fingerprints, sum.Statements, sum.Different, sum.Slower)
	return nil
}
