package hostwatch

import (
	"fmt"

	"github.com/quadrant-bench/quadrant/executor/watch"
	"github.com/quadrant-bench/quadrant/spec"
)

// Kind samples this machine's /proc for the targets on it without an snmp agent (watch.host):
// one sampler for the machine, on the workload's target's rows. Custom OIDs are SNMP's alone.
var Kind = watch.SamplerKind{
	Name: "host /proc", Keys: []string{"host", "snmp"}, Produces: "host.", PerRun: true,
	Doc: "host metrics (watch.host) from /proc, for targets on this machine without snmp:",
	Open: func(w *spec.Watch, _ *watch.Target, env watch.Env) (*watch.Opened, error) {
		if !w.WantsHost() {
			return nil, nil
		}
		local := false
		for _, t := range env.Targets {
			local = local || t.Local
		}
		if !local {
			return nil, nil
		}
		metrics := w.HostMetrics()
		var names []string
		for _, m := range metrics {
			if m.OID != "" {
				env.Logf("watch.host: %s is an OID, read only over SNMP: targets on this machine without snmp: have no column for it", m.Name)
				continue
			}
			names = append(names, m.Name)
		}
		if len(metrics) > 0 && len(names) == 0 {
			return nil, nil
		}
		hs, err := New(names, "")
		if err != nil {
			return nil, fmt.Errorf("watch.host: %w", err)
		}
		return &watch.Opened{Sampler: hs, Local: true}, nil
	},
}
