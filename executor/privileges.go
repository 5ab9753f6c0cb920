package executor

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/executor/capture"
	"github.com/quadrant-bench/quadrant/executor/target"
	"github.com/quadrant-bench/quadrant/spec"
)

// privilegeNeed is what one line of a plan needs of the account it uses on one target: it is
// met when every privilege of one of its alternatives is held.
type privilegeNeed struct {
	target string
	pos    spec.Pos
	what   string // the plan key: globals, set_global, watch.digests, capture, a workload...
	why    string // what the server does with it
	any    [][]target.Privilege
}

// serverFacts are what privileges depend on: the server's flavor and version, and the schema
// its DSN names (where a workload's tables go unless the kind says otherwise).
type serverFacts struct {
	flavor, version string
	schema          string
}

func (n privilegeNeed) met(g *target.Grants) bool {
	for _, alt := range n.any {
		all := true
		for _, p := range alt {
			all = all && g.Has(p)
		}
		if all {
			return true
		}
	}
	return false
}

// lacking is what of n g does not hold, alternatives joined by "; or ".
func (n privilegeNeed) lacking(g *target.Grants) string {
	var alts []string
	for _, alt := range n.any {
		var miss []string
		for _, p := range alt {
			if !g.Has(p) {
				miss = append(miss, p.String())
			}
		}
		alts = append(alts, strings.Join(miss, " and "))
	}
	return strings.Join(alts, "; or ")
}

// setGlobalPriv is what SET GLOBAL of most variables takes: SUPER on MariaDB (its error 1227
// names it), SUPER or SYSTEM_VARIABLES_ADMIN on MySQL 8.
func setGlobalPriv(f serverFacts) target.Privilege {
	if f.flavor == "MariaDB" {
		return target.Privilege{Names: []string{"SUPER"}}
	}
	return target.Privilege{Names: []string{"SUPER", "SYSTEM_VARIABLES_ADMIN"}}
}

// replicaStatusPriv is what SHOW REPLICA STATUS takes: MariaDB 10.5.9 moved it from
// REPLICATION CLIENT to SLAVE MONITOR (its error 1227 names SUPER and SLAVE MONITOR).
func replicaStatusPriv(f serverFacts) target.Privilege {
	if f.flavor == "MariaDB" && versionAtLeast(f.version, 10, 5, 9) {
		return target.Privilege{Names: []string{"SLAVE MONITOR", "SUPER"}}
	}
	return target.Privilege{Names: []string{"REPLICATION CLIENT", "SUPER"}}
}

var perfSchemaSelect = target.Privilege{Names: []string{"SELECT"}, DB: "performance_schema"}

func versionAtLeast(v string, major, minor, patch int) bool {
	var n [3]int
	for i, part := range strings.SplitN(v, ".", 3) {
		n[i], _ = strconv.Atoi(part)
	}
	want := [3]int{major, minor, patch}
	for i := range n {
		if n[i] != want[i] {
			return n[i] > want[i]
		}
	}
	return true
}

// privilegeNeeds lists, in plan order, what each line of p needs of the accounts it runs
// with, on the targets for which facts has an answer (ok false: not asked, e.g. a sandbox,
// whose account is quadrant's own root). Plain sql: steps are the plan's own SQL and are not
// guessed at.
func privilegeNeeds(p *spec.Plan, facts func(name string) (serverFacts, bool)) []privilegeNeed {
	var out []privilegeNeed
	add := func(name string, pos spec.Pos, what, why string, alts ...[]target.Privilege) {
		if _, ok := facts(name); ok && name != "" {
			out = append(out, privilegeNeed{target: name, pos: pos, what: what, why: why, any: alts})
		}
	}
	fact := func(name string) serverFacts { f, _ := facts(name); return f }
	for ps := range p.Steps() {
		st, name := ps.Step, ps.Target
		wait, capt := spec.StepBody[*spec.Wait](st), spec.StepBody[*spec.Capture](st)
		gen := spec.StepBody[*spec.Generate](st)
		switch {
		case spec.StepBody[*spec.SetGlobal](st) != nil:
			add(name, st.Src.Pos, "set_global", "SET GLOBAL", []target.Privilege{setGlobalPriv(fact(name))})
		case wait != nil && spec.ReplicaRef.MatchString(wait.Until.Source):
			on := name
			if wait.Target != "" {
				on = wait.Target
			}
			add(on, st.Src.Pos, "wait", "SHOW REPLICA STATUS for replica.*", []target.Privilege{replicaStatusPriv(fact(on))})
		case gen != nil:
			if f, ok := facts(name); ok {
				for _, n := range generateNeeds(gen, f) {
					add(name, n.pos, n.what, n.why, n.any...)
				}
			}
		case capt != nil:
			f := fact(name)
			slow := []target.Privilege{setGlobalPriv(f), {Names: []string{"SELECT"}, DB: "mysql", Table: "slow_log"}}
			ps := []target.Privilege{perfSchemaSelect, {Names: []string{"UPDATE"}, DB: "performance_schema", Table: "setup_consumers"}}
			switch capt.Method {
			case capture.SlowLog:
				add(name, st.Src.Pos, "capture", "the slow log to TABLE: SET GLOBAL log_output, long_query_time, then read mysql.slow_log", slow)
			case capture.PerfSchm:
				add(name, st.Src.Pos, "capture", "performance_schema: turn its statement consumers on, then read events_statements_history_long", ps)
			default:
				add(name, st.Src.Pos, "capture", "the slow log to TABLE, else performance_schema", slow, ps)
			}
		}
	}
	for i := range p.Iterations {
		it := &p.Iterations[i]
		if len(it.Globals) > 0 {
			name := p.TargetOf(it)
			add(name, it.Globals[0].Pos, "globals", "SET GLOBAL", []target.Privilege{setGlobalPriv(fact(name))})
		}
	}
	for pw := range p.Workloads() {
		w := pw.Workload
		if w.Kind == nil || w.Kind.Privileges == nil {
			continue
		}
		privs, schema := w.Kind.Privileges(w)
		f, ok := facts(pw.Target)
		if !ok || len(privs) == 0 {
			continue
		}
		if f.schema != "" {
			schema = f.schema
		}
		var need []target.Privilege
		for _, pr := range privs {
			need = append(need, target.Privilege{Names: []string{pr}, DB: schema})
		}
		add(pw.Target, w.Src.Pos, "workload", fmt.Sprintf("%s %s on schema %s", w.Type(), w.Action, schema), need)
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
			add(p.TargetOf(&p.Iterations[i]), wp.Src.At(w.key), w.what, "read performance_schema's summaries", []target.Privilege{perfSchemaSelect})
		}
	}
	return dedupeNeeds(out)
}

// dedupeNeeds keeps one of each need: a matrix repeats the same line in every iteration.
func dedupeNeeds(in []privilegeNeed) []privilegeNeed {
	seen := map[string]bool{}
	var out []privilegeNeed
	for _, n := range in {
		key := fmt.Sprint(n.target, n.pos, n.what, n.any)
		if !seen[key] {
			seen[key] = true
			out = append(out, n)
		}
	}
	return out
}

// AccountCheck is what the pre-flight found of one target's account.
type AccountCheck struct {
	Target  string
	Account string   // CURRENT_USER(), e.g. app@%
	Lacks   []string // "FILE:LINE:COL: globals (SET GLOBAL): SUPER on *.*", in plan order
}

// CheckAccount reads the grants of the account db is connected as and says what of plan p it
// cannot do on target name (a dsn target; info is what Probe found of its server).
func CheckAccount(ctx context.Context, p *spec.Plan, name string, db *sql.DB, info target.ServerInfo, schema string) (AccountCheck, error) {
	facts := serverFacts{flavor: info.Flavor, version: info.Version, schema: schema}
	return checkNeeds(ctx, name, db, info, privilegeNeeds(p, func(n string) (serverFacts, bool) { return facts, n == name }))
}

// CheckGenerateAccount is CheckAccount for quadrant generate: what generate step g asks of
// the account db is connected as on target name (schema: the DSN's database).
func CheckGenerateAccount(ctx context.Context, g *spec.Generate, name string, db *sql.DB, info target.ServerInfo, schema string) (AccountCheck, error) {
	facts := serverFacts{flavor: info.Flavor, version: info.Version, schema: schema}
	return checkNeeds(ctx, name, db, info, generateNeeds(g, facts))
}

// checkNeeds reads the grants of the account db is connected as and says which of needs
// they do not meet.
func checkNeeds(ctx context.Context, name string, db *sql.DB, info target.ServerInfo, needs []privilegeNeed) (AccountCheck, error) {
	ac := AccountCheck{Target: name}
	if len(needs) == 0 {
		return ac, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.QueryRowContext(ctx, "SELECT CURRENT_USER()").Scan(&ac.Account); err != nil {
		return ac, fmt.Errorf("target %s: CURRENT_USER(): %w", name, err)
	}
	g, _, err := target.ReadGrants(ctx, db, info.Flavor)
	if err != nil {
		return ac, fmt.Errorf("target %s: %w", name, err)
	}
	for _, n := range needs {
		if !n.met(g) {
			line := fmt.Sprintf("%s (%s) needs %s", n.what, n.why, n.lacking(g))
			if n.pos.IsValid() {
				line = n.pos.String() + ": " + line
			}
			ac.Lacks = append(ac.Lacks, line)
		}
	}
	return ac, nil
}

// checkPrivileges refuses the run, before setup touches anything, when the account of a dsn
// target lacks what the plan asks of it: otherwise setup loads tables and every iteration
// then fails on its first SET GLOBAL. Sandboxes run as quadrant's root and are not asked.
func (r *runner) checkPrivileges(ctx context.Context) error {
	var lines []string
	for _, name := range r.fleet.order {
		s := r.servers[name]
		if s.sb != nil {
			continue
		}
		if s.hosting.Managed() && restarts(r.plan, name) {
			r.logf("warning: target %s is %s: server_config and restart steps run its restart command with the options in QUADRANT_MY_CNF; the server takes them only through %s, which the command must do", name, s.hosting.Name(), s.hosting.Settings())
		}
		ac, err := CheckAccount(ctx, r.plan, name, s.db, s.info, s.Config().DBName)
		if err != nil {
			r.logf("warning: pre-flight: %v (the account's privileges not checked)", err)
			continue
		}
		if len(ac.Lacks) > 0 {
			lines = append(lines, fmt.Sprintf("the account %s on target %s lacks what these plan lines need:\n    %s", ac.Account, name, strings.Join(ac.Lacks, "\n    ")))
		}
	}
	if len(lines) == 0 {
		return nil
	}
	return &PlanError{Err: fmt.Errorf("pre-flight: nothing was run: %s\n  grant them to the account (GRANT ... ON ... TO ...), use an account that has them, or take those lines out of the plan", strings.Join(lines, "\n  "))}
}

// restarts reports whether plan p restarts target name: an iteration's server_config or a
// restart step.
func restarts(p *spec.Plan, name string) bool {
	for i := range p.Iterations {
		if len(p.Iterations[i].ServerConfig) > 0 && p.TargetOf(&p.Iterations[i]) == name {
			return true
		}
	}
	for ps := range p.Steps() {
		if ps.Step.Kind != nil && ps.Step.Kind.Restarts && ps.Target == name {
			return true
		}
	}
	return false
}
