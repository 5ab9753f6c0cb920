package snmpwatch

import (
	"fmt"

	"github.com/quadrant-bench/quadrant/executor/watch"
	"github.com/quadrant-bench/quadrant/spec"
)

// Kind samples the SNMP agent of a target's host (targets.snmp, watch.host's metrics): one
// sampler per agent, however many servers run on its host, on the first one's rows.
var Kind = watch.SamplerKind{
	Name: "snmp", Keys: []string{"targets.snmp", "host", "snmp"}, Produces: "host.",
	Doc: "host metrics (watch.host, OIDs too) from the SNMP agent of a target's host (targets.snmp)",
	Open: func(w *spec.Watch, t *watch.Target, env watch.Env) (*watch.Opened, error) {
		pt := t.Plan
		if pt == nil || pt.SNMP == nil || !env.Once("snmp "+pt.SNMP.Address) {
			return nil, nil
		}
		sn, err := New(planConfig(pt.SNMP, w.HostMetrics()))
		if err != nil {
			return nil, fmt.Errorf("target %s: snmp: %w", t.Name, err)
		}
		return &watch.Opened{Sampler: sn, What: "snmp " + pt.SNMP.Address}, nil
	},
}

// planConfig is the sampler's config from the plan's snmp: of a target and its host metrics.
func planConfig(t *spec.SNMP, metrics spec.SNMPMetrics) Config {
	c := Config{
		Address: t.Address, Version: t.Version, Community: t.Community, User: t.User,
		AuthProtocol: t.AuthProtocol, AuthPassword: t.AuthPassword, PrivProtocol: t.PrivProtocol, PrivPassword: t.PrivPassword,
	}
	for _, m := range metrics {
		c.Metrics = append(c.Metrics, Metric{Name: m.Name, OID: m.OID})
	}
	return c
}
