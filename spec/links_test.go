package spec

import (
	"strings"
	"testing"
	"time"
)

const linksPlan = `version: 1
name: t
targets:
  db:
    sandbox:
      replicas: 2
      links:
        client: {rtt: 1ms, bandwidth: 1Gbit}
        replicas: {rtt: "${{ matrix.rtt }}", loss: 0.1%}
        db_replica2: {delay: 20ms, jitter: 2ms}
matrix:
  rtt: [0ms, 2ms, 10ms]
iteration:
  workload: {builtin: oltp_read_only, duration: 1s}
`

// The links are decoded per iteration: the rtt axis gives each iteration its round trip,
// the per-replica key overrides replicas: key by key (its delay, replicas:'s loss).
func TestLinksPerIteration(t *testing.T) {
	p := mustLoad(t, linksPlan, Options{})
	if len(p.Iterations) != 3 {
		t.Fatalf("iterations: %d", len(p.Iterations))
	}
	for i, rtt := range []time.Duration{0, 2 * time.Millisecond, 10 * time.Millisecond} {
		ls := p.Iterations[i].Links["db"]
		if ls.Client == nil || ls.Client.Delay != 500*time.Microsecond || ls.Client.Bandwidth != 125e6 {
			t.Errorf("iteration %d client: %+v", i+1, ls.Client)
		}
		r1, r2 := ls.Replicas["db_replica1"], ls.Replicas["db_replica2"]
		if r1.RTT() != rtt || r1.Loss != 0.001 {
			t.Errorf("iteration %d replica1: %+v, want rtt %s", i+1, r1, rtt)
		}
		if r2.Delay != 20*time.Millisecond || r2.Jitter != 2*time.Millisecond || r2.Loss != 0.001 {
			t.Errorf("iteration %d replica2: %+v", i+1, r2)
		}
	}
	if got := p.Iterations[1].Links["db"].Replicas["db_replica1"].String(); got != "rtt 2ms, loss 0.1%" {
		t.Errorf("String: %q", got)
	}
}

func TestNoLinksNoEntry(t *testing.T) {
	p := mustLoad(t, "version: 1\nname: t\ntargets:\n  db: {sandbox: {replicas: 1}}\niteration:\n  workload: {builtin: oltp_read_only, duration: 1s}\n", Options{})
	if p.Iterations[0].Links != nil {
		t.Errorf("links of a plan without links: %+v", p.Iterations[0].Links)
	}
}

func TestLinksErrors(t *testing.T) {
	for _, c := range []struct{ name, plan, want string }{
		{"dsn target", strings.Replace(basePlan, `db: {dsn: "bench:pw@tcp(db1:3307)/sbtest"}`, `db: {dsn: "bench:pw@tcp(db1:3307)/sbtest", links: {client: {rtt: 1ms}}}`, 1),
			"plan.yaml:4:53: target db: links: are for sandboxes"},
		{"under the target", "version: 1\nname: t\ntargets:\n  db: {sandbox: {}, links: {client: {rtt: 1ms}}}\n",
			"links: go under sandbox:"},
		{"rtt and delay", sandboxLinks("{client: {rtt: 2ms, delay: 1ms}}"), "plan.yaml:4:65: a link takes rtt (the round trip) or delay (one way), not both"},
		{"bare loss", sandboxLinks("{client: {loss: 1}}"), "write loss as a percentage, e.g. 0.1%"},
		{"loss 100%", sandboxLinks("{client: {loss: 100%}}"), "below 100%"},
		{"bandwidth unit", sandboxLinks("{client: {bandwidth: 100M}}"), `unknown unit "M"`},
		{"bandwidth bare", sandboxLinks("{client: {bandwidth: 1000}}"), "a bare number has no unit"},
		{"rtt number", sandboxLinks("{client: {rtt: 2}}"), "bad duration 2 for rtt: give a unit"},
		{"unknown key", sandboxLinks("{client: {latency: 2ms}}"), `unknown key "latency" in link`},
		{"unknown link", sandboxLinks("{replica: {rtt: 2ms}}"), `unknown key "replica" in links`},
		{"no such replica", sandboxLinks("{db_replica3: {rtt: 2ms}}"), "links db_replica3: target db has no replica db_replica3 (its replicas are db_replica1)"},
		{"no replicas", "version: 1\nname: t\ntargets:\n  db: {sandbox: {links: {replicas: {rtt: 1ms}}}}\niteration:\n  workload: {builtin: oltp_read_only, duration: 1s}\n",
			"links: target db has no replicas to link"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := loadErr(t, c.plan, Options{}); !strings.Contains(got, c.want) {
				t.Errorf("error:\n%s\nwant %q", got, c.want)
			}
		})
	}
}

func sandboxLinks(links string) string {
	return "version: 1\nname: t\ntargets:\n  db: {sandbox: {replicas: 1, links: " + links + "}}\niteration:\n  workload: {builtin: oltp_read_only, duration: 1s}\n"
}

func TestParseBandwidth(t *testing.T) {
	for in, want := range map[string]float64{"100Mbit": 12.5e6, "1Gbit": 125e6, "1gbps": 125e6, "10Gbit/s": 1.25e9, "50MB": 50e6, "50MB/s": 50e6, "0": 0, "64kbit": 8000, "64KiB/s": 65536, "100 Mbit/s": 12.5e6, "12.5MB/s": 12.5e6} {
		if got, err := ParseBandwidth(in); err != nil || got != want {
			t.Errorf("%s: %v %v, want %v", in, got, err, want)
		}
	}
}

// A --target override of a sandbox with links says the links are dropped.
func TestOverrideDropsLinks(t *testing.T) {
	p := mustLoad(t, "version: 1\nname: t\ntargets:\n  db: {sandbox: {links: {client: {rtt: 1ms}}}}\niteration:\n  workload: {builtin: oltp_read_only, duration: 1s}\n",
		Options{Targets: map[string]string{"db": "u:p@tcp(h:3306)/x"}})
	if len(p.OverrideNotes()) != 1 || !strings.Contains(p.OverrideNotes()[0], "links: (the network quadrant put") {
		t.Errorf("notes: %q", p.OverrideNotes())
	}
	if p.Iterations[0].Links != nil {
		t.Errorf("links kept: %+v", p.Iterations[0].Links)
	}
}
