package failover_test

import (
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/kinds"
	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/trust"
)

// validate refuses, at the step's position, a drill on a target it cannot fail over.
func TestCheckRefusesTargetsWithoutReplicas(t *testing.T) {
	for _, tc := range []struct{ targets, step, want string }{
		{"db: {sandbox: {}}", "{fault: kill}", "plan.yaml:11:17: failover on db, a sandbox without replicas: there is no replica to promote"},
		{"db: {dsn: 'u:p@tcp(127.0.0.1:3306)/'}", "{fault: kill}", "plan.yaml:11:17: failover on db, a dsn target: quadrant cannot kill or promote its servers"},
		{"db: {dsn: 'u:p@tcp(127.0.0.1:3306)/'}", "{fault: kill, promote: {shell: ./promote.sh}}", "plan.yaml:11:25: fault does not apply to a dsn target"},
		{"db: {sandbox: {replicas: 1}}", "{promote: {shell: ./promote.sh}}", "plan.yaml:11:27: promote applies to dsn targets only"},
		{"db: {dsn: 'u:p@tcp(127.0.0.1:3306)/'}", "{promote: {shell: ./promote.sh}}", ""},
		{"db: {sandbox: {replicas: 1}}", "{fault: kill}", ""},
	} {
		p, err := loadDrill(tc.targets, tc.step)
		switch {
		case !wantErr(t, tc.targets, tc.want, err):
		case err == nil && strings.Contains(tc.step, "promote"):
			// The user's command is code the trust check refuses without --allow-shell.
			r := trust.Check(p, trust.Allow{})
			if r == nil || !strings.Contains(r.Error(), "failover promote: ./promote.sh") || !strings.Contains(r.Error(), "--allow-shell") {
				t.Errorf("trust check of a promote command: %v", r)
			}
			if r := trust.Check(p, trust.Allow{Shell: true}); r != nil {
				t.Errorf("with --allow-shell: %v", r)
			}
		}
	}
}

// loadDrill loads a plan whose one iteration runs a failover step (body step, at
// plan.yaml:11) on targets, for validation's messages.
func loadDrill(targets, step string) (*spec.Plan, error) {
	plan := `version: 1
name: drill
targets:
  ` + targets + `
iteration:
  workload:
    builtin: oltp_point_select
    duration: 4s
  during:
    - at: 1s
      failover: ` + step + `
`
	return spec.LoadBytes("plan.yaml", []byte(plan), spec.Options{Kinds: kinds.Registry()})
}

// wantErr reports a load's error that is not what want says ("": none, else a part of its
// message); true when it is.
func wantErr(t *testing.T, what, want string, err error) bool {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("%s: %v", what, err)
		return false
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Errorf("%s: want %q, got %v", what, want, err)
		return false
	}
	return true
}

// A drill on a Galera sandbox fails one node: validation accepts the node faults and
// refuses, each at its key's position with what to do, what only a primary with replicas
// has (a replica's promotion, its links) and a node the cluster lacks; node:, down: and
// pause are refused on a primary with replicas.
func TestCheckGaleraDrills(t *testing.T) {
	const galera = "db: {sandbox: {galera: 3}}"
	for _, tc := range []struct{ targets, step, want string }{
		{galera, "{fault: kill}", ""},
		{galera, "{fault: partition, node: db_node3, down: 5s}", ""},
		{galera, "{fault: pause, node: db}", ""},
		{galera, "{fault: shutdown, node: db_node2}", ""},
		{galera, "{fault: switchover}", "plan.yaml:11:25: fault switchover fails a primary over to its replicas; a Galera node fails by kill, shutdown, partition, pause"},
		{galera, "{fault: partition_replicas}", "plan.yaml:11:25: fault partition_replicas fails a primary over"},
		{galera, "{fault: kill, node: db_node4}", "plan.yaml:11:37: node db_node4 is no node of the Galera sandbox db: give one of db, db_node2, db_node3"},
		{galera, "{fault: kill, link: {cut: true, before: 1s}}", "plan.yaml:11:37: link cuts or slows a primary's replication links"},
		{galera, "{fault: kill, catchup_timeout: 5s}", "plan.yaml:11:48: catchup_timeout bounds a replica's catch-up"},
		{galera, "{promote: {shell: ./promote.sh}}", "plan.yaml:11:27: promote applies to dsn targets only"},
		{"db: {sandbox: {replicas: 1}}", "{fault: pause}", "plan.yaml:11:25: fault pause stops a Galera node"},
		{"db: {sandbox: {replicas: 1}}", "{fault: kill, node: db_replica1}", "plan.yaml:11:37: node applies to a Galera sandbox's drill"},
		{"db: {sandbox: {replicas: 1}}", "{fault: kill, down: 5s}", "plan.yaml:11:37: down applies to a Galera sandbox's drill"},
	} {
		_, err := loadDrill(tc.targets, tc.step)
		wantErr(t, tc.targets+" "+tc.step, tc.want, err)
	}
	// The step's target is the sandbox's: a node's name is refused, saying so.
	_, err := loadDrillOn(galera, "db_node2", "{fault: kill}")
	wantErr(t, "target db_node2", "failover on db_node2, a node of the Galera sandbox db: the step's target is the sandbox's (target: db", err)
}

// loadDrillOn is loadDrill with the step's target: given.
func loadDrillOn(targets, target, step string) (*spec.Plan, error) {
	plan := `version: 1
name: drill
targets:
  ` + targets + `
iteration:
  workload:
    builtin: oltp_point_select
    duration: 4s
  during:
    - at: 1s
      target: ` + target + `
      failover: ` + step + `
`
	return spec.LoadBytes("plan.yaml", []byte(plan), spec.Options{Kinds: kinds.Registry()})
}
