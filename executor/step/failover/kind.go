// Package failover is the `failover:` step kind, a drill: it writes a ledger of ids to its
// target's primary, fails the primary (kill -9 or a clean shutdown), promotes the most
// advanced replica once it has applied its relay log, points the run's front address at it,
// and measures what the failover cost (seconds without a write commit, the replica's lag at
// the fault) and what it lost (ids the primary acknowledged that the new primary lacks).
// See docs/failover.md.
package failover

import (
	"fmt"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec"
)

// Failover is a `failover:` step.
type Failover struct {
	Src            spec.Source   `yaml:"-"`
	Fault          string        `yaml:"fault" default:"kill" enum:"kill,shutdown,switchover,partition,partition_replicas,pause" doc:"How the primary (a Galera sandbox: the node) fails: kill sends SIGKILL to its server (a crash: what it had not sent its replicas is not on them), shutdown stops it cleanly (MariaDB: SHUTDOWN WAIT FOR ALL SLAVES, which sends every connected replica all it has before it exits; a plain SHUTDOWN, MySQL's, can lose a commit acknowledged while it kills its threads), switchover is a planned one: the front stops passing connections, the replicas catch up with all the primary wrote (MariaDB's MASTER_GTID_WAIT, at most catchup_timeout), and the primary stays up, out of the cluster; partition cuts the primary off from its clients and its replicas (which replicate through a proxy of the drill's from its start; MariaDB) while it runs on: what the replicas had not received is lost as after a crash, but the old primary has it; partition_replicas cuts the primary off from its replicas only (the replication link; MariaDB): its clients write on to it until the front moves to the promoted replica, so what they commit meanwhile is lost unless semi-sync holds their commits. A Galera sandbox's node: kill, shutdown, partition (the node cut off from the others, gmcast.isolate) or pause (SIGSTOP for down, then SIGCONT), the node back after down (see docs/failover.md, Galera)."`
	Node           string        `yaml:"node" doc:"Galera sandboxes: the node the fault hits, by its target name (NAME, NAME_node2, ...); default the step's target, node 1, which the workload and the drill's ledger write through."`
	Down           time.Duration `yaml:"down" default:"2s" doc:"Galera sandboxes: how long the node stays failed before it is started again (kill, shutdown), reconnected (partition) or resumed (pause); a killed, shut down or cut off node comes back no sooner than the others are a Primary component without it."`
	Lead           time.Duration `yaml:"lead" default:"2s" doc:"How long the drill's ledger writers commit on the primary before the fault: the acknowledged commits at stake."`
	Writers        int           `yaml:"writers" default:"2" min:"1" doc:"Connections writing the ledger (one autocommit INSERT of a new id each), through the target's front address when the run keeps one."`
	CatchupTimeout time.Duration `yaml:"catchup_timeout" default:"60s" doc:"How long the chosen replica may take to apply its relay log before it is promoted; past it the step fails and the servers are left running."`
	RecoverTimeout time.Duration `yaml:"recover_timeout" default:"60s" doc:"How long the step waits after the promotion for the first write commit on the new primary (and, on a dsn target, how long the promote command may run)."`
	Link           *LinkFault    `yaml:"link" doc:"A fault on the replication link before and through the primary's: cut (a blackhole) or slowed (delay, rtt, jitter, bandwidth), starting before the fault. The replicas replicate through a link of the drill's from its start (MariaDB sandboxes). See docs/failover.md."`
	Promote        *Promote      `yaml:"promote" doc:"dsn targets: the user's own command that fails the primary and promotes a replica; the target's address is the user's proxy or VIP, which the command moves to the new primary before it returns. The fault counts from the command's start. Needs --allow-shell. A sandbox is failed and promoted by quadrant. See docs/failover.md, Own servers."`
}

// Promote is a dsn target's failover done by the user's command.
type Promote struct {
	Src   spec.Source `yaml:"-"`
	Shell string      `yaml:"shell,required" doc:"Run with sh -c: it fails the primary and promotes another server; a non-zero exit fails the step. Its output goes to log.txt; a process it leaves running must be detached (setsid, its output to a file)."`
}

// The iteration metrics a drill records (summary.csv columns, names for assert).
const (
	MetricTPSBefore      = "failover_tps_before"      // the workload's write commits per second on the primary during the lead (MariaDB's Binlog_commits)
	MetricUnavailable    = "failover_unavailable_s"   // fault to the first write commit on the new primary
	MetricAcked          = "failover_acked"           // ledger ids acknowledged before the promotion (a sandbox's primary acknowledges none after the fault)
	MetricAckedLost      = "failover_acked_lost"      // acknowledged ids the new primary lacks
	MetricUnackedPresent = "failover_unacked_present" // ids the new primary has that no client saw acknowledged
	MetricLagSeconds     = "failover_lag_s"           // the replica's Seconds_Behind_Master just before the fault
	MetricLagRows        = "failover_lag_rows"        // acknowledged ledger rows not yet on the replica just before the fault
	MetricLagBytes       = "failover_lag_bytes"       // of the primary's binary log not received by a replica just before the fault
	MetricCatchup        = "failover_catchup_s"       // the promoted replica applying its relay log
	MetricRecovery       = "failover_recovery_s"      // fault to the end of the first interval on the new primary at 90% of the tps before
	MetricErrors         = "failover_errors"          // the workload's errors from the fault until then
	MetricReconnects     = "failover_reconnects"      // client connections the front cut when it switched
	// A Galera node's drill (galera.go).
	MetricPrimary = "failover_primary_s"  // fault to the other nodes being a Primary component without the node
	MetricRejoin  = "failover_rejoin_s"   // the node back (started, reconnected, resumed) to Synced in the whole cluster again
	MetricSST     = "failover_rejoin_sst" // 1: the node rejoined by a full copy (SST), 0: by the writesets it missed (IST)
)

// Metrics are the names a drill records, in the order summary.csv shows them.
var Metrics = []string{MetricTPSBefore, MetricUnavailable, MetricAcked, MetricAckedLost, MetricUnackedPresent, MetricLagSeconds, MetricLagRows, MetricLagBytes, MetricCatchup, MetricRecovery, MetricErrors, MetricPrimary, MetricRejoin, MetricSST}

// Kind is the failover step kind.
var Kind = spec.StepKind{
	Key:     "failover",
	Doc:     "A failover drill on the step's target, a sandbox with replicas (or a dsn target with promote:, your own servers): a ledger of ids written to the primary, the primary failed (fault), the most advanced replica promoted once it has applied its relay log (a Galera sandbox: one node failed, node:, and brought back after down: to rejoin), and what it cost and lost recorded as iteration metrics (" + strings.Join(Metrics, ", ") + "). Usually a during: step at the middle of the measured span. See docs/failover.md.",
	Body:    func() any { return new(Failover) },
	Target:  true,
	Keys:    []string{"timeout"},
	Front:   true,
	Check:   check,
	Effects: effects,
	Records: func(*spec.Step) []string { return Metrics },
	Metrics: described(),
	Explain: explain,
	Impl:    runner{},
}

func body(s *spec.Step) *Failover { return spec.StepBody[*Failover](s) }

// explain says what the drill does and the longest it may take (its lead, the replica's
// catch-up and the recovery); a dsn target's promote command is an action of --allow-shell.
func explain(s *spec.Step, e spec.Explainer) spec.Explanation {
	b := body(s)
	x := spec.Explanation{Upper: b.Lead + b.CatchupTimeout + b.RecoverTimeout}
	if t := planTarget(e.Plan(), s.Target); t != nil && t.Sandbox != nil && t.Sandbox.Galera > 0 {
		x.Upper = b.Lead + b.Down + 2*b.RecoverTimeout
		x.Line = fmt.Sprintf("failover drill on %s: %s of node %s after %s of ledger writes through %s, the node back after %s, its rejoin timed", s.Target, b.Fault, b.node(s), b.Lead, s.Target, b.Down)
		return x
	}
	if b.Promote != nil {
		x.Line = fmt.Sprintf("failover drill on %s: %s of ledger writes, then your promote command", s.Target, b.Lead)
		x.Privileged = 1
		return x
	}
	x.Line = fmt.Sprintf("failover drill on %s: %s of the primary after %s of ledger writes, then the most advanced replica promoted", s.Target, b.Fault, b.Lead)
	if b.Link != nil {
		x.Line += "; replication link " + b.Link.String()
	}
	return x
}

// node is the Galera node the fault hits: node:, else the step's target (node 1).
func (b *Failover) node(s *spec.Step) string {
	if b.Node != "" {
		return b.Node
	}
	return s.Target
}

func planTarget(p *spec.Plan, name string) *spec.Target {
	if p == nil {
		return nil
	}
	for i := range p.Targets {
		if p.Targets[i].Name == name {
			return &p.Targets[i]
		}
	}
	return nil
}

// check refuses a target a drill cannot fail over: a sandbox needs replicas, a dsn target
// the user's promote command; a Galera sandbox's checks are galeraCheck's.
func check(c *spec.Check, s *spec.Step) {
	b := body(s)
	t := c.Target(s.Target)
	at := s.Src.At("failover")
	if s.Src.Has("target") {
		at = s.Src.At("target")
	}
	if t != nil && t.Sandbox != nil && t.Sandbox.Galera > 0 {
		galeraCheck(c, s, t, at)
		return
	}
	switch {
	case t == nil:
		return // spec reported the unknown target
	case t.Name != s.Target:
		c.Errorf(at, "failover on %s, a replica: a drill fails a primary over; give it the primary's target (%s)", s.Target, t.Name)
	case t.Sandbox == nil && b.Promote == nil:
		c.Errorf(at, "failover on %s, a dsn target: quadrant cannot kill or promote its servers; give the step promote: {shell: YOUR_COMMAND} (--allow-shell), or drill a sandbox target with replicas (sandbox: {replicas: 1})", s.Target)
	case t.Sandbox == nil && b.Link != nil:
		c.Errorf(b.Src.At("link"), "link applies to sandbox targets only: quadrant cannot reach between your servers; cut or slow their network from your promote command, or drill a sandbox target")
	case t.Sandbox == nil && b.Src.Has("fault"):
		c.Errorf(b.Src.At("fault"), "fault does not apply to a dsn target: its promote command fails the primary; remove fault")
	case t.Sandbox != nil && b.Promote != nil:
		c.Errorf(b.Src.At("promote"), "promote applies to dsn targets only: quadrant fails and promotes a sandbox's servers itself; remove promote")
	case t.Sandbox != nil && t.Sandbox.Replicas == 0:
		c.Errorf(at, "failover on %s, a sandbox without replicas: there is no replica to promote; give it sandbox: {replicas: 1} or more, or drill a node of a Galera sandbox (sandbox: {galera: 3})", s.Target)
	}
	for _, key := range []string{"node", "down"} {
		if b.Src.Has(key) {
			c.Errorf(b.Src.At(key), "%s applies to a Galera sandbox's drill (sandbox: {galera: 3}): this one fails %s's primary over to a replica; remove %s", key, s.Target, key)
		}
	}
	if b.Fault == "pause" {
		c.Errorf(b.Src.At("fault"), "fault pause stops a Galera node for down: (sandbox: {galera: 3}); a primary with replicas fails by kill, shutdown, switchover, partition or partition_replicas")
	}
	checkLink(c, b)
	if b.Promote != nil && strings.TrimSpace(b.Promote.Shell) == "" {
		c.Errorf(b.Promote.Src.At("shell"), "promote.shell is empty; give the command that promotes a replica")
	}
}

// effects: a promote command runs the user's code on this machine.
func effects(_ *spec.Plan, ps spec.PlacedStep) []spec.Effect {
	b := body(ps.Step)
	if b.Promote == nil {
		return nil
	}
	return []spec.Effect{{Kind: spec.RunsCode, Pos: b.Promote.Src.Pos, What: "failover promote: " + b.Promote.Shell}}
}

// Metrics describes the drill's figures for run.json: the report leads with the write rate
// before the fault, the seconds without a write and the acknowledged commits lost.
func (runner) Metrics() []measure.Metric {
	m := func(name, doc, unit string, better measure.Direction, headline bool) measure.Metric {
		return measure.Metric{Name: name, Doc: "failover drill: " + doc, Kind: measure.Gauge, TotalUnit: unit, Better: better, Headline: headline, Compare: headline}
	}
	return []measure.Metric{
		m(MetricTPSBefore, "the workload's write commits per second on the primary before the fault (MariaDB's Binlog_commits; a Galera node's wsrep_local_commits; the ledger's own left out)", measure.PerSecond, measure.Higher, true),
		m(MetricUnavailable, "seconds from the fault to the first write commit on the new primary (a Galera drill: the longest time without a write commit from the fault until the node rejoined and a write committed after it)", "s", measure.Lower, true),
		m(MetricAckedLost, "ledger ids the clients saw committed that the new primary lacks (a Galera drill: that any node lacks once the failed one rejoined)", measure.Count, measure.Lower, true),
		m(MetricAcked, "ledger ids acknowledged before the promotion: before the fault on a sandbox, before the promote command returned on a dsn target, in the whole drill on a Galera sandbox", measure.Count, measure.Higher, false),
		m(MetricUnackedPresent, "ledger ids on the new primary (a Galera drill: on one node, the most) whose commit no client saw acknowledged", measure.Count, measure.Lower, false),
		m(MetricLagSeconds, "the replicas' Seconds_Behind_Master just before the fault (the worst)", "s", measure.Lower, false),
		m(MetricLagRows, "acknowledged ledger rows a replica had not applied just before the fault (the worst)", measure.Count, measure.Lower, false),
		m(MetricLagBytes, "bytes of the primary's binary log a replica had not received just before the fault (the worst): what a crash takes with it", "B", measure.Lower, false),
		m(MetricCatchup, "seconds the promoted replica took to apply its relay log", "s", measure.Lower, false),
		m(MetricRecovery, "seconds from the fault until the workload is back to 90% of its throughput before it (the end of the first report interval, on the new primary, that reaches it)", "s", measure.Lower, false),
		m(MetricErrors, "the workload's errors from the fault until its throughput is back", measure.Count, measure.Lower, false),
		m(MetricPrimary, "Galera: seconds from the fault until every other node is in a Primary component without the failed node (wsrep_cluster_status, wsrep_cluster_size)", "s", measure.Lower, false),
		m(MetricRejoin, "Galera: seconds from the failed node's return (started again, reconnected, resumed) until it is Synced in a cluster of every node", "s", measure.Lower, false),
		m(MetricSST, "Galera: 1 when the failed node rejoined by a full copy of a donor's data (SST), 0 by the writesets it missed (IST), missing when it needed neither", measure.Count, measure.Lower, false),
	}
}
