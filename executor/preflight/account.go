package preflight

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/executor/target"
	"github.com/quadrant-bench/quadrant/spec"
)

// need is what one line of a plan needs of the account it uses on one target.
type need struct {
	target string
	spec.AccountNeed
}

// met says whether g holds every privilege of one of n's alternatives.
func met(n spec.AccountNeed, g *target.Grants) bool {
	for _, alt := range n.Any {
		all := true
		for _, p := range alt {
			all = all && g.Has(target.Privilege(p))
		}
		if all {
			return true
		}
	}
	return false
}

// lacking is what of n g does not hold, alternatives joined by "; or ".
func lacking(n spec.AccountNeed, g *target.Grants) string {
	var alts []string
	for _, alt := range n.Any {
		var miss []string
		for _, p := range alt {
			if !g.Has(target.Privilege(p)) {
				miss = append(miss, target.Privilege(p).String())
			}
		}
		alts = append(alts, strings.Join(miss, " and "))
	}
	return strings.Join(alts, "; or ")
}

// Server is what privileges depend on of a server info describes, whose DSN names schema
// ("" none).
func Server(info target.ServerInfo, schema string) spec.AccountServer {
	mariadb := info.Flavor == "MariaDB"
	srv := spec.AccountServer{Schema: schema, ChecksReferences: !mariadb}
	// SET GLOBAL of most variables: SUPER on MariaDB (its error 1227 names it), SUPER or
	// SYSTEM_VARIABLES_ADMIN on MySQL 8.
	srv.SetGlobal = spec.Privilege{Names: []string{"SUPER", "SYSTEM_VARIABLES_ADMIN"}}
	if mariadb {
		srv.SetGlobal = spec.Privilege{Names: []string{"SUPER"}}
	}
	// SHOW REPLICA STATUS: MariaDB 10.5.9 moved it from REPLICATION CLIENT to SLAVE MONITOR
	// (its error 1227 names SUPER and SLAVE MONITOR).
	srv.ReplicaStatus = spec.Privilege{Names: []string{"REPLICATION CLIENT", "SUPER"}}
	if mariadb && versionAtLeast(info.Version, 10, 5, 9) {
		srv.ReplicaStatus = spec.Privilege{Names: []string{"SLAVE MONITOR", "SUPER"}}
	}
	return srv
}

var perfSchemaSelect = spec.Privilege{Names: []string{"SELECT"}, DB: "performance_schema"}

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

// Result is what the pre-flight found of one target's account.
type Result struct {
	Target  string
	Account string   // CURRENT_USER(), e.g. app@%
	Lacks   []string // "FILE:LINE:COL: globals (SET GLOBAL) needs SUPER on *.*", in plan order
}

// CheckAccount reads the grants of the account db is connected as and says what of plan p it
// cannot do on target name (a dsn target; info is what target.Probe found of its server,
// schema the database its DSN names).
func CheckAccount(ctx context.Context, p *spec.Plan, name string, db *sql.DB, info target.ServerInfo, schema string) (Result, error) {
	srv := Server(info, schema)
	var needs []spec.AccountNeed
	for _, n := range planNeeds(p, func(n string) (spec.AccountServer, bool) { return srv, n == name }) {
		needs = append(needs, n.AccountNeed)
	}
	return CheckNeeds(ctx, name, db, info, needs)
}

// CheckNeeds reads the grants of the account db is connected as on target name and says
// which of needs they do not meet (quadrant generate's: genplan.Generate.Privileges).
func CheckNeeds(ctx context.Context, name string, db *sql.DB, info target.ServerInfo, needs []spec.AccountNeed) (Result, error) {
	res := Result{Target: name}
	if len(needs) == 0 {
		return res, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.QueryRowContext(ctx, "SELECT CURRENT_USER()").Scan(&res.Account); err != nil {
		return res, fmt.Errorf("target %s: CURRENT_USER(): %w", name, err)
	}
	g, _, err := target.ReadGrants(ctx, db, info.Flavor)
	if err != nil {
		return res, fmt.Errorf("target %s: %w", name, err)
	}
	for _, n := range needs {
		if !met(n, g) {
			line := fmt.Sprintf("%s (%s) needs %s", n.What, n.Why, lacking(n, g))
			if n.Pos.IsValid() {
				line = n.Pos.String() + ": " + line
			}
			res.Lacks = append(res.Lacks, line)
		}
	}
	return res, nil
}

// Restarts reports whether plan p restarts target name: an iteration's server_config or a
// restart step (whose account then needs to survive it).
func Restarts(p *spec.Plan, name string) bool {
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
