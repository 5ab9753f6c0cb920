package spec

import (
	"bytes"
	"cmp"
	"encoding/pem"
	"fmt"
	"github.com/quadrant-bench/quadrant/spec/confine"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/expr-lang/expr"

	"github.com/quadrant-bench/quadrant/results/measure"
	"github.com/quadrant-bench/quadrant/spec/mycnf"
)

// stepPlace says where a list of steps is, which changes what a step may do.
type stepPlace struct {
	name          string // "setup", "before", "during", ...
	defaultTarget string // "" when the plan has several targets and nothing says which
	during        bool
}

type validator struct {
	d       *decoder
	p       *Plan
	targets map[string]*Target // by name, replicas included (pointing at their sandbox target)
	names   []string
	records []string // record_as names of the whole plan
	// restoring is set while an iteration's restore steps are checked: their sql_file may be
	// one setup writes.
	restoring bool
	servers   map[string]*serverOptions // by flavor and basedir: what Options.ServerOptions said
}

// serverOptions are the my.cnf options a sandbox's server knows (an unlisted Known when nobody could say).
type serverOptions struct {
	server string
	known  mycnf.Known
}

func validate(d *decoder, p *Plan) {
	v := &validator{d: d, p: p, targets: map[string]*Target{}}
	errs := d.errs
	if p.Src.Has("version") && p.Version != 1 {
		errs.add(p.Src.At("version"), "unsupported plan version %d; this quadrant reads version: 1", p.Version)
	}
	for i := range p.Targets {
		t := &p.Targets[i]
		v.target(t)
		v.targets[t.Name] = t
		v.names = append(v.names, t.Name)
		for _, m := range t.Members() {
			v.targets[m] = t
			v.names = append(v.names, m)
		}
	}

	// The default target of setup/teardown: the only target, or the iteration's when it is the same everywhere.
	planDefault := ""
	if len(p.Targets) == 1 {
		planDefault = p.Targets[0].Name
	} else if len(p.Iterations) > 0 {
		planDefault = p.Iterations[0].Target
		for _, it := range p.Iterations {
			if it.Target != planDefault {
				planDefault = ""
			}
		}
	}
	v.collectRecords()

	v.steps(p.Setup, stepPlace{name: "setup", defaultTarget: planDefault})
	for i := range p.Iterations {
		v.iteration(&p.Iterations[i])
	}
	v.steps(p.Teardown, stepPlace{name: "teardown", defaultTarget: planDefault})
	v.watch()
	v.sandboxDirs()
	for _, k := range d.kinds.All() {
		if k.CheckPlan != nil {
			for _, e := range k.CheckPlan(p) {
				v.errorf(e.Pos, "%s", e.Msg)
			}
		}
	}
}

// sandboxDirs refuses a sandbox dir that does not exist or that quadrant cannot write, for
// every value the matrix gives it, before anything runs. Whether the server's own OS user can
// reach it is checked when the sandbox starts, which knows that user.
func (v *validator) sandboxDirs() {
	for _, it := range v.p.Iterations {
		for _, t := range v.p.Targets {
			dir, ok := it.SandboxDirs[t.Name]
			if !ok {
				continue
			}
			v.p.writes(t.Sandbox.Src.At("dir"), "sandbox "+t.Name+"'s data directory under", dir, dir, true)
			if v.d.fsys != nil {
				continue // the plan is read from a file system of its own (tests); the paths are not this machine's
			}
			if why := DirProblem(dir); why != "" {
				v.errorf(t.Sandbox.Src.At("dir"), "sandbox dir of target %s: %s", t.Name, why)
			}
		}
	}
}

// DirProblem says why dir cannot hold sandboxes ("" when it can): it must be an existing
// directory that this process can create entries in. The executor asks again at start, as
// the directory may have changed since validation.
func DirProblem(dir string) string {
	st, err := os.Stat(dir)
	switch {
	case os.IsNotExist(err):
		return fmt.Sprintf("%s does not exist; create it first (mkdir -p %s) or name an existing directory", dir, dir)
	case err != nil:
		return err.Error()
	case !st.IsDir():
		return fmt.Sprintf("%s is not a directory", dir)
	}
	if err := syscall.Access(dir, 2|1); err != nil { // W_OK|X_OK
		return fmt.Sprintf("%s is not writable by this user (%v); choose a directory you can write or change its permissions", dir, err)
	}
	return ""
}

func (v *validator) errorf(p Pos, format string, args ...any) { v.d.errs.add(p, format, args...) }

func (v *validator) target(t *Target) {
	switch {
	case !t.Src.Has("dsn") && t.Sandbox == nil:
		v.errorf(t.Src.Pos, "target %s needs dsn: (an existing server) or sandbox: (a throwaway local one)", t.Name)
	case t.Src.Has("dsn") && t.Sandbox != nil:
		v.errorf(t.Src.At("sandbox"), "target %s has both dsn: and sandbox:; keep one", t.Name)
	}
	if t.Src.Has("links") {
		if t.Sandbox != nil {
			v.errorf(t.Src.At("links"), "target %s: links: go under sandbox: (sandbox: {replicas: 1, links: {replicas: {rtt: 2ms}}})", t.Name)
		} else {
			v.errorf(t.Src.At("links"), "target %s: links: are for sandboxes, whose parts quadrant starts and connects; between servers of your own the network is the real one: shape it on the hosts (tc qdisc netem) or put a proxy such as toxiproxy in front and name its address in dsn:, or remove links:", t.Name)
		}
	}
	if t.Sandbox != nil {
		if t.Restart != "" {
			v.errorf(t.Src.At("restart"), "target %s is a sandbox, which quadrant restarts itself; remove restart:", t.Name)
		}
		v.settings(t.Sandbox.Config, "config", false)
		v.sandboxConfig(t.Sandbox, t.Sandbox.Config, "sandbox config of target "+t.Name)
		v.galera(t)
		if t.Sandbox.RunAs == "root" || t.Sandbox.RunAs == "0" {
			v.errorf(t.Sandbox.Src.At("run_as"), "run_as %s: a sandbox never runs as the OS root; name an unprivileged user (default %s) or remove run_as", t.Sandbox.RunAs, "mysql")
		}
		for _, k := range []string{"pid", "pid_file"} {
			if t.Src.Has(k) {
				v.errorf(t.Src.At(k), "target %s is a sandbox, whose process quadrant knows; remove %s:", t.Name, k)
			}
		}
	}
	v.targetTLS(t)
	if t.Src.Has("pid") && t.Src.Has("pid_file") {
		v.errorf(t.Src.At("pid"), "target %s has both pid: and pid_file:; keep one (pid_file follows a restarted server)", t.Name)
	}
	if s := t.SNMP; s != nil {
		switch s.Version {
		case "1", "2c":
			if s.Community == "" {
				v.errorf(s.Src.Pos, "snmp version %s needs community: (e.g. community: public)", s.Version)
			}
			for _, k := range []string{"user", "auth_protocol", "auth_password", "priv_protocol", "priv_password"} {
				if s.Src.Has(k) {
					v.errorf(s.Src.At(k), "%s is for snmp version 3; remove it or set version: 3", k)
				}
			}
		case "3":
			if s.User == "" {
				v.errorf(s.Src.Pos, "snmp version 3 needs user:")
			}
			if s.Src.Has("community") {
				v.errorf(s.Src.At("community"), "community is for snmp versions 1 and 2c; version 3 uses user/auth_*/priv_*")
			}
			if (s.AuthProtocol == "") != (s.AuthPassword == "") {
				v.errorf(s.Src.Pos, "snmp v3 auth_protocol and auth_password go together; give both or neither")
			}
			if (s.PrivProtocol == "") != (s.PrivPassword == "") {
				v.errorf(s.Src.Pos, "snmp v3 priv_protocol and priv_password go together; give both or neither")
			}
			if s.PrivProtocol != "" && s.AuthProtocol == "" {
				v.errorf(s.Src.At("priv_protocol"), "snmp v3 privacy needs authentication too; add auth_protocol and auth_password")
			}
		}
		if _, port, ok := strings.Cut(s.Address, ":"); !ok || port == "" {
			v.errorf(s.Src.At("address"), "snmp address %q needs a port, e.g. %s:161", s.Address, s.Address)
		}
	}
}

// targetTLS checks a target's tls: and allow_public_key_retrieval, and that the files it
// names exist (their paths resolved), so a typo fails at validate rather than at the first
// connection.
func (v *validator) targetTLS(t *Target) {
	if t.Sandbox != nil {
		if t.TLS != nil {
			v.errorf(t.Src.At("tls"), "target %s is a sandbox: its TLS is sandbox: {tls: on}, with a CA quadrant makes; remove tls:", t.Name)
		}
		if t.AllowPublicKeyRetrieval {
			v.errorf(t.Src.At("allow_public_key_retrieval"), "target %s is a sandbox, whose root account needs no public key; remove allow_public_key_retrieval:", t.Name)
		}
		return
	}
	if t.AllowPublicKeyRetrieval && t.TLS != nil && t.TLS.Mode != "disabled" && t.TLS.Mode != "preferred" {
		v.errorf(t.Src.At("allow_public_key_retrieval"), "target %s: allow_public_key_retrieval is for connections without TLS; with tls.mode %s the password goes encrypted: remove it", t.Name, t.TLS.Mode)
	}
	c := t.TLS
	if c == nil {
		return
	}
	if dsnHasParam(t.DSN, "tls") {
		v.errorf(t.Src.At("tls"), "target %s has tls: and a tls= parameter in its dsn; keep tls: (it can name a CA) and remove the parameter; to set the target's TLS without editing the plan, give run or rerun --tls %s=MODE[,ca=FILE,cert=FILE,key=FILE,server_name=NAME]", t.Name, t.Name)
	}
	if !c.Verifies() {
		for _, k := range []string{"ca", "server_name"} {
			if c.Src.Has(k) {
				v.errorf(c.Src.At(k), "tls %s: mode %s does not verify the server's certificate; use mode verify-ca or verify-identity, or remove %s:", k, c.Mode, k)
			}
		}
	}
	if c.Mode == "verify-ca" && c.Src.Has("server_name") {
		v.errorf(c.Src.At("server_name"), "tls server_name: mode verify-ca does not check the certificate's name; use mode verify-identity, or remove server_name:")
	}
	if c.Mode == "disabled" {
		for _, k := range []string{"cert", "key", "min_version"} {
			if c.Src.Has(k) {
				v.errorf(c.Src.At(k), "tls %s: mode disabled uses no TLS; remove %s:", k, k)
			}
		}
	}
	if (c.Cert == "") != (c.Key == "") {
		v.errorf(c.Src.Pos, "tls cert and key go together (a client certificate and its private key); give both or neither")
	}
	path := v.path
	if _, given := v.p.opts.TLS[t.Name]; given {
		c.Given, path = true, v.userPath
	}
	c.CAPath = path(c.CA, c.Src.At("ca"), "tls ca")
	c.CertPath = path(c.Cert, c.Src.At("cert"), "tls cert")
	c.KeyPath = path(c.Key, c.Src.At("key"), "tls key")
	if v.p.opts.Folder && c.Cert != "" {
		_, errC := os.Stat(c.CertPath)
		_, errK := os.Stat(c.KeyPath)
		if errC != nil || errK != nil {
			v.errorf(c.Src.At("cert"), "target %s: a results folder carries its CA, never a client certificate or key: give yours with --tls %s=mode=%s,cert=FILE,key=FILE", t.Name, t.Name, c.Mode)
		}
	}
	v.pemCertificates(c.CAPath, c.CA, c.Src.At("ca"), "ca", c.Given)
	v.pemCertificates(c.CertPath, c.Cert, c.Src.At("cert"), "cert", c.Given)
}

// pemCertificates refuses a ca: or cert: file that holds no PEM certificate (a private key
// given as ca:, a DER file), which run would only find connecting. A file outside the plan's
// folder is not read here (the trust check refuses it first), but one --tls named is.
func (v *validator) pemCertificates(path, name string, at Pos, key string, given bool) {
	if path == "" || v.d.fsys != nil || !given && !confine.New(append([]string{v.p.Dir}, v.p.opts.AllowPaths...)...).Inside(path) {
		return
	}
	f, err := os.Open(path)
	if err != nil {
		return // reported as missing
	}
	defer f.Close()
	data, _ := io.ReadAll(io.LimitReader(f, 4<<20))
	for rest := data; ; {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			break
		} else if b.Type == "CERTIFICATE" {
			return
		}
	}
	what := "no PEM certificate"
	if bytes.Contains(data, []byte("PRIVATE KEY-----")) {
		what = "a private key, not a certificate"
	}
	v.errorf(at, "tls %s %s holds %s; give the PEM file that starts with -----BEGIN CERTIFICATE----- (the CA bundle for ca:, your client certificate for cert:)", key, name, what)
}

// dsnHasParam says whether a go-sql-driver DSN's query (after the last '?') sets name.
func dsnHasParam(dsn, name string) bool {
	i := strings.LastIndex(dsn, "?")
	if i < 0 {
		return false
	}
	for _, kv := range strings.Split(dsn[i+1:], "&") {
		if k, _, _ := strings.Cut(kv, "="); k == name {
			return true
		}
	}
	return false
}

// checkTarget verifies a target reference and returns the effective name.
func (v *validator) checkTarget(name string, at Pos, what string) {
	if _, ok := v.targets[name]; ok {
		return
	}
	msg := fmt.Sprintf("unknown target %q in %s", name, what)
	if sg := suggest(name, v.names); sg != "" {
		msg += sg
	} else {
		msg += "; targets: " + strings.Join(v.names, ", ")
	}
	v.errorf(at, "%s", msg)
}

func (v *validator) iteration(it *Iteration) {
	saved := v.d.scope
	v.d.scope = it.scope
	defer func() { v.d.scope = saved }()
	target := it.Target
	switch {
	case target != "":
		v.checkTarget(target, it.Src.At("target"), "iteration.target")
	case len(v.p.Targets) == 1:
		it.Target = v.p.Targets[0].Name
	case len(v.p.Targets) > 1:
		v.errorf(it.Src.Pos, "iteration needs target: the plan has %d targets (%s); say which one the workload runs on", len(v.p.Targets), strings.Join(v.names, ", "))
	}
	v.settings(it.ServerConfig, "server_config", false)
	if t := v.targets[it.Target]; t != nil && t.Sandbox != nil {
		v.sandboxConfig(t.Sandbox, it.ServerConfig, "server_config of sandbox "+it.Target)
	}
	if t := v.targets[it.Target]; t != nil && t.Sandbox == nil && len(it.ServerConfig) > 0 && t.Restart == "" {
		v.errorf(it.Src.At("server_config"), "server_config restarts target %s, a dsn target without a restart command; add restart: to the target (e.g. restart: \"sudo systemctl restart mysql\"); a managed server (RDS, Aurora, Cloud SQL, Azure) takes my.cnf settings only through its provider's parameter group: set them there and drop server_config", t.Name)
	}
	v.settings(it.Globals, "globals", true)
	v.restore(it)
	place := stepPlace{defaultTarget: it.Target}
	place.name = "before"
	v.steps(it.Before, place)
	if it.Workload != nil {
		v.workload(it.Workload)
		v.spread(it.Workload, it.Target)
		v.maxConnections(it)
	}
	place.name, place.during = "during", true
	v.steps(it.During, place)
	place.name, place.during = "after", false
	v.steps(it.After, place)

	env := map[string]any{}
	for k, val := range it.env {
		env[k] = val
	}
	for _, m := range v.d.kinds.assertionNames() {
		env[m] = 0.0
	}
	for _, r := range v.records {
		env[r] = 0.0
	}
	env["status"] = map[string]float64{}
	maps := []string{"status"}
	if txs := it.Workload.TxNames(); len(txs) > 0 {
		env["tx"] = TxMetrics(txs, func(string, string) float64 { return 0 })
		maps = append(maps, "tx")
	}
	if stmts := it.Workload.StmtNames(); len(stmts) > 0 {
		env["stmt"] = StmtMetrics(stmts, func(string, string) float64 { return 0 })
		maps = append(maps, "stmt")
	}
	nodes := v.p.SpreadNodes(it.Workload, it.Target)
	if len(nodes) > 0 {
		env[measure.NodePrefix] = NodeMetrics(nodes, func(string, string) float64 { return 0 })
		maps = append(maps, measure.NodePrefix)
	}
	idents := append(v.d.kinds.assertionNames(), v.records...)
	if it.Workload != nil && it.Workload.Connect == "per_transaction" {
		for _, n := range measure.ConnectNames {
			env[n] = 0.0
			idents = append(idents, n)
		}
	}
	ns := &nameSpace{s: it.scope, idents: idents, maps: maps}
	for i := range it.Assert {
		v.d.compile(&it.Assert[i], ns, env, expr.AsBool())
		v.txNames(&it.Assert[i], it.Workload.TxNames())
		v.stmtNames(&it.Assert[i], it.Workload)
		v.nodeNames(&it.Assert[i], nodes)
		v.statusNames(&it.Assert[i])
		v.kindMetrics(&it.Assert[i], it.Workload)
	}
}

// restore checks an iteration's restore: the targets it names, its steps, and that each
// target restored can be brought back: a sandbox by the copy of its datadir, a dsn target,
// whose files quadrant cannot reach, only by the plan's own steps.
func (v *validator) restore(it *Iteration) {
	r := it.Restore
	if r == nil {
		return
	}
	for _, name := range r.Targets {
		t, ok := v.targets[name]
		switch {
		case !ok:
			v.checkTarget(name, r.Src.At("targets"), "restore.targets")
		case t.Name != name:
			v.errorf(r.Src.At("targets"), "restore.targets: %s is a replica of sandbox %s, which is restored whole, replicas included; name %s", name, t.Name, t.Name)
		}
	}
	v.restoring = true
	v.steps(r.Steps, stepPlace{name: "restore", defaultTarget: it.Target})
	v.restoring = false
	stepped, shell := map[string]bool{}, false
	for _, st := range r.Steps {
		stepped[st.Target] = st.Target != ""
		shell = shell || st.Kind != nil && st.Kind.RestoresAny
	}
	for _, name := range v.p.RestoreTargets(r) {
		t, ok := v.targets[name]
		if !ok || t.Sandbox != nil || stepped[name] || shell {
			continue
		}
		at := r.Src.Pos
		if r.Src.Has("targets") {
			at = r.Src.At("targets")
		}
		v.errorf(at, "restore: target %s is a dsn target, whose data quadrant cannot copy (only a sandbox's); give restore steps that bring it back, e.g. restore: {steps: [{target: %s, sql_file: dump.sql}]}, or restore only the others with restore: {targets: [...]}", name, name)
	}
}

// StatusRef finds the status.NAME an expression reads: status is a map, whose missing keys
// the expression compiler cannot see and would read as 0.
var StatusRef = regexp.MustCompile(`\bstatus\.([A-Za-z0-9_]+)`)

// ReplicaRef finds the replica.NAME a wait reads: only such a wait needs the replica status,
// and the privilege to read it.
var ReplicaRef = regexp.MustCompile(`\breplica\.([A-Za-z0-9_]+)`)

// statusNames checks the status.NAME an assertion reads against a watch.status the plan lists
// itself: a name no pattern matches is never a column. (The default list depends on the
// server; the run checks against the server's columns before setup.)
func (v *validator) statusNames(a *Expr) {
	pats := v.p.Watch.Status
	if len(pats) == 0 {
		return
	}
	var literals []string
	for _, p := range pats {
		if !strings.ContainsAny(p, "*?[") {
			literals = append(literals, p)
		}
	}
	for _, m := range StatusRef.FindAllStringSubmatchIndex(a.Source, -1) {
		name := a.Source[m[2]:m[3]]
		matched := false
		for _, p := range pats {
			if ok, _ := filepath.Match(strings.ToLower(p), strings.ToLower(name)); ok {
				matched = true
			}
		}
		if matched {
			continue
		}
		at := a.Pos
		at.Col += m[0]
		msg := fmt.Sprintf("status.%s is not a column: watch.status does not list %s, so it is never read", name, name)
		if sg := suggest(name, literals); sg != "" {
			msg += sg
		} else {
			msg += "; add it to watch.status"
		}
		v.errorf(at, "%s", msg)
	}
}

// kindMetrics refuses an assertion on a metric that only other kinds' runs have (a figure
// this iteration's workload never fills would always read NaN).
func (v *validator) kindMetrics(a *Expr, w *Workload) {
	if w == nil || w.Kind == nil {
		return
	}
	for name, kinds := range v.d.kinds.ownMetrics() {
		if contains(kinds, w.Kind.Name) {
			continue
		}
		re := regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\b`)
		for _, m := range re.FindAllStringIndex(a.Source, -1) {
			at := a.Pos
			at.Col += m[0]
			v.errorf(at, "%s is a figure of %s workloads; this iteration's workload is %s", name, strings.Join(kinds, " and "), w.Kind.Name)
		}
	}
}

var txRef = regexp.MustCompile(`\btx\.([A-Za-z0-9_]+)(?:\.([A-Za-z0-9_]+))?`)

// txNames checks the tx.NAME.SUFFIX an assertion uses against the workload's transactions
// and the metric table: tx is a map, which the expression compiler cannot check.
func (v *validator) txNames(a *Expr, names []string) {
	for _, m := range txRef.FindAllStringSubmatchIndex(a.Source, -1) {
		at := a.Pos
		at.Col += m[0]
		name := a.Source[m[2]:m[3]]
		switch {
		case len(names) == 0:
			return // the compiler has said tx is unknown here
		case !contains(names, name):
			v.errorf(at, "tx.%s: no such transaction; the workload's are %s", name, strings.Join(names, ", "))
		case m[4] < 0:
			v.errorf(at, "tx.%s needs a figure: tx.%s.SUFFIX with SUFFIX one of %s", name, name, strings.Join(measure.TxSuffixes, ", "))
		case !contains(measure.TxSuffixes, a.Source[m[4]:m[5]]):
			v.errorf(at, "tx.%s.%s: no such figure; use one of %s", name, a.Source[m[4]:m[5]], strings.Join(measure.TxSuffixes, ", "))
		}
	}
}

var nodeRef = regexp.MustCompile(`\bnode\.([A-Za-z0-9_]+)(?:\.([A-Za-z0-9_]+))?`)

// nodeNames checks the node.NAME.SUFFIX an assertion uses against the nodes of the
// workload's Galera target (Plan.SpreadNodes).
func (v *validator) nodeNames(a *Expr, nodes []string) {
	v.namedRefs(a, nodeRef, "node", nodes, measure.NodeSuffixes,
		"not a node of the workload's target (its nodes: "+strings.Join(nodes, ", ")+")")
}

var stmtRef = regexp.MustCompile(`\bstmt\.([A-Za-z0-9_]+)(?:\.([A-Za-z0-9_]+))?`)

// stmtNames checks the stmt.CLASS.SUFFIX an assertion uses against the statement classes.
func (v *validator) stmtNames(a *Expr, w *Workload) {
	classes := w.StmtNames()
	if m := stmtRef.FindStringSubmatchIndex(a.Source); m != nil && len(classes) > 0 && !w.StatementStats() {
		at := a.Pos
		at.Col += m[0]
		v.errorf(at, "stmt.%s needs the builtin's per-statement timing, off by default; add statement_stats: on to the workload's options", a.Source[m[2]:m[3]])
		return
	}
	v.namedRefs(a, stmtRef, "stmt", classes, measure.StmtSuffixes,
		"no such statement class (the OLTP builtins' are "+strings.Join(classes, ", ")+")")
}

// namedRefs checks each FAMILY.NAME.SUFFIX of an assertion (ref matches them) against
// names, unknown saying what a NAME not among them is, and suffixes: FAMILY is a map,
// which the expression compiler cannot check. With no names the compiler has said FAMILY
// is unknown here, and nothing is added.
func (v *validator) namedRefs(a *Expr, ref *regexp.Regexp, family string, names, suffixes []string, unknown string) {
	if len(names) == 0 {
		return
	}
	for _, m := range ref.FindAllStringSubmatchIndex(a.Source, -1) {
		at := a.Pos
		at.Col += m[0]
		name := a.Source[m[2]:m[3]]
		switch {
		case !contains(names, name):
			v.errorf(at, "%s.%s: %s%s", family, name, unknown, suggest(name, names))
		case m[4] < 0:
			v.errorf(at, "%s.%s needs a figure: %s.%s.SUFFIX with SUFFIX one of %s", family, name, family, name, strings.Join(suffixes, ", "))
		case !contains(suffixes, a.Source[m[4]:m[5]]):
			sfx := a.Source[m[4]:m[5]]
			v.errorf(at, "%s.%s.%s: no such figure (use one of %s)%s", family, name, sfx, strings.Join(suffixes, ", "), suggest(sfx, suffixes))
		}
	}
}

// collectRecords gathers the record_as names of every wait step, for assertions.
func (v *validator) collectRecords() {
	v.records = v.p.RecordNames()
	for _, r := range v.records {
		if contains(v.d.kinds.assertionNames(), r) {
			v.errorf(Pos{File: v.p.File}, "record_as name %q is a built-in metric name; choose another", r)
		}
	}
}

func isSizeOption(name string) bool {
	n := strings.ReplaceAll(strings.ToLower(name), "-", "_")
	return strings.HasSuffix(n, "_size") || n == "max_allowed_packet" || strings.HasSuffix(n, "_buffer_pool_size")
}

// ParseSize converts 256M, 1G, 512K, 1T or a plain number to bytes.
func ParseSize(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if !matchPattern(sizePattern, s) {
		return 0, false
	}
	mult := int64(1)
	switch strings.ToUpper(s[len(s)-1:]) {
	case "K":
		mult = 1 << 10
	case "M":
		mult = 1 << 20
	case "G":
		mult = 1 << 30
	case "T":
		mult = 1 << 40
	}
	if mult > 1 {
		s = s[:len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n > (1<<62)/mult {
		return 0, false
	}
	return n * mult, true
}

// settings checks option names and size values; globals (SET GLOBAL) get sizes as bytes.
func (v *validator) settings(s Settings, what string, global bool) {
	seen := map[string]bool{}
	for i := range s {
		kv := &s[i]
		pat := optionPattern
		if global {
			pat = globalPattern
		}
		if !matchPattern(pat, kv.Name) {
			if global {
				v.errorf(kv.Pos, "invalid variable name %q in %s: a global variable name is letters, digits and '_'", kv.Name, what)
			} else {
				v.errorf(kv.Pos, "invalid option name %q in %s: use letters, digits, '_' and '-'", kv.Name, what)
			}
			continue
		}
		norm := strings.ReplaceAll(kv.Name, "-", "_")
		if seen[norm] {
			v.errorf(kv.Pos, "%s sets %s twice; remove one", what, kv.Name)
		}
		seen[norm] = true
		if str, ok := kv.Value.(string); ok && isSizeOption(kv.Name) {
			n, ok := ParseSize(str)
			if !ok {
				v.errorf(kv.Pos, "bad size %q for %s: write a number of bytes or a size like 512K, 256M or 1G", str, kv.Name)
				continue
			}
			if global {
				kv.Value = n
			}
		}
	}
}

// sandboxConfig refuses the my.cnf options a sandbox never takes (mycnf.Guard: the ones it
// sets itself, skip-grant-tables, paths outside its directory, its TLS options with tls: on),
// each name resolved as the sandbox's server resolves it (bind_addr is bind_address): the
// sandbox would refuse them at start, after everything before it ran; here the plan fails at
// once, at the option's position.
func (v *validator) sandboxConfig(sb *Sandbox, s Settings, what string) {
	so := v.serverOptions(sb)
	guard := mycnf.Guard{Known: so.known, TLS: sb.TLS == "on", Galera: sb.Galera > 0}
	var at Setting
	guard.Outside = func(option, path string) bool {
		// the server writes (or reads) there: the trust check wants it in the plan's folder or --allow-path
		v.p.writes(at.Pos, what+" "+option, path, path, false)
		return true
	}
	for _, kv := range s {
		at = kv
		b, isBool := kv.Value.(bool)
		if isBool && !b {
			continue // false leaves the option out
		}
		if why := guard.Refuse(kv.Name, fmt.Sprint(kv.Value), isBool); why != "" {
			v.errorf(kv.Pos, "%s: %s is refused: %s", what, kv.Name, why)
			continue
		}
		v.serverKnows(sb, so, s, kv, what)
	}
}

// serverOptions asks Options.ServerOptions, once per flavor and basedir, which options the
// sandbox's server knows (none when nobody could say).
func (v *validator) serverOptions(sb *Sandbox) *serverOptions {
	key := sb.Flavor + "\x00" + sb.Basedir
	if so := v.servers[key]; so != nil {
		return so
	}
	so := &serverOptions{}
	if v.p.opts.ServerOptions != nil {
		var names []string
		so.server, names = v.p.opts.ServerOptions(sb.Flavor, sb.Basedir)
		so.known = mycnf.NewKnown(names)
	}
	if v.servers == nil {
		v.servers = map[string]*serverOptions{}
	}
	v.servers[key] = so
	return so
}

// serverKnows says when the sandbox's server does not know option kv, which would stop it
// at start with "unknown variable" after everything before the start ran, with the name it
// knows that is closest.
func (v *validator) serverKnows(sb *Sandbox, so *serverOptions, s Settings, kv Setting, what string) {
	if !so.known.Listed() || loadsPlugin(sb.Config) || loadsPlugin(s) {
		return // a plugin's options are known only once it is loaded
	}
	n, err := so.known.Resolve(kv.Name)
	if err != nil || !n.Unknown || n.Loose {
		return // known (exactly or by a prefix the server takes), or loose-: skipped when unknown
	}
	if sb.Replication == "semisync" && strings.HasPrefix(n.Option, "rpl_semi_sync_") {
		return // a MySQL sandbox loads the semi-sync plugins itself, which bring these
	}
	hint := Suggest(n.Option, so.known.Names())
	if hint == "" {
		hint = "; see " + so.server + " --verbose --help for the options it knows"
	}
	v.errorf(kv.Pos, "%s: %s is not an option of %s, which would refuse to start%s", what, kv.Name, so.server, hint)
}

// optionKey is how my.cnf matches an option name: any case, dashes for underscores.
func optionKey(name string) string {
	return strings.ToLower(strings.ReplaceAll(strings.TrimSpace(name), "-", "_"))
}

func loadsPlugin(s Settings) bool {
	for _, kv := range s {
		if strings.HasPrefix(optionKey(kv.Name), "plugin_load") {
			return true
		}
	}
	return false
}

func (v *validator) steps(steps []Step, place stepPlace) {
	for i := range steps {
		v.step(&steps[i], place)
	}
}

func (v *validator) step(s *Step, place stepPlace) {
	keys := v.stepKinds(s)
	switch len(keys) {
	case 0:
		v.errorf(s.Src.Pos, "%s step has no action; give it one of: %s", place.name, strings.Join(v.d.kinds.StepKeys(), ", "))
		return
	case 1:
	default:
		v.errorf(s.Src.At(keys[1]), "%s step has more than one action (%s); a step does one thing: split it into one step per action", place.name, strings.Join(keys, " and "))
		return
	}
	k := s.Kind
	if k == nil {
		return // its body failed to decode, which decoding reported
	}
	v.stepKeys(s, k, place)
	v.stepTarget(s, k, place)
	if k.Check != nil {
		k.Check(&Check{v: v}, s)
	}
}

// stepKeys checks which of the optional step keys s has apply to its kind and its place.
func (v *validator) stepKeys(s *Step, k *StepKind, place stepPlace) {
	for _, key := range []string{"ignore_errors", "save_as", "timeout"} {
		if s.Src.Has(key) && !slices.Contains(k.Keys, key) {
			v.errorf(s.Src.At(key), "%s does not apply to a %s step; remove it (it applies to %s)", key, k.Key, v.d.kinds.applies(key))
		}
	}
	if k.Once != "" && place.name != "setup" && place.name != "teardown" {
		v.errorf(s.Src.At(k.Key), "a %s step runs once per plan, in setup or teardown (%s); move it out of %s", k.Key, k.Once, place.name)
	}
	if place.during {
		if !s.Src.Has("at") {
			v.errorf(s.Src.Pos, "during step needs at: (its offset into the measured workload, e.g. at: 20s)")
		}
	} else if s.Src.Has("at") {
		v.errorf(s.Src.At("at"), "at: only applies to during steps; remove it or move the step under during:")
	}
}

// stepTarget checks s's target: and resolves it to the place's default target.
func (v *validator) stepTarget(s *Step, k *StepKind, place stepPlace) {
	if !k.Target {
		if s.Src.Has("target") {
			why := cmp.Or(k.NoTarget, "which runs on this machine; remove it")
			v.errorf(s.Src.At("target"), "target does not apply to a %s step, %s", k.Key, why)
		}
		return
	}
	at := s.Src.At("target")
	if k.OwnTarget != nil {
		if own, ownAt := k.OwnTarget(s); own != "" {
			if s.Target != "" && s.Target != own {
				v.errorf(ownAt, "%s has target %q but the step says %q; keep one", k.Key, own, s.Target)
			}
			s.Target, at = own, ownAt
		}
	}
	switch {
	case s.Target != "":
		v.checkTarget(s.Target, at, place.name+" step")
	case place.defaultTarget != "":
		s.Target = place.defaultTarget
	default:
		v.errorf(s.Src.Pos, "%s step needs target: the plan has several targets and no single default", place.name)
	}
}

// Each step kind checks itself (after the checks common to every step).

// output resolves a file the plan writes, relative to the plan's directory.
func (v *validator) output(name string) string {
	if name == "" || filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(v.p.Dir, name)
}

// written resolves a file the plan writes, as output does, and declares the write.
func (v *validator) written(name string, at Pos, what string) string {
	p := v.output(name)
	if p != "" {
		v.p.writes(at, what, name, p, false)
	}
	return p
}

// captured says a capture: step of the plan writes the file at path, which then need not
// exist before the run.
func (v *validator) captured(path string) bool {
	for ps := range v.p.Steps() {
		if k := ps.Step.Kind; k != nil && k.Writes != nil && v.output(k.Writes(ps.Step).File) == path {
			return true
		}
	}
	return false
}

// path resolves a file named in the plan and checks that it exists.
func (v *validator) path(name string, at Pos, what string) string {
	if name == "" {
		return ""
	}
	p := name
	if !filepath.IsAbs(p) {
		p = filepath.Join(v.p.Dir, p)
	}
	var err error
	if v.d.fsys != nil {
		_, err = fs.Stat(v.d.fsys, filepath.ToSlash(p))
	} else {
		_, err = os.Stat(p)
	}
	if err != nil {
		v.errorf(at, "%s %s: file %s does not exist (paths are relative to the plan's directory %s)", what, name, p, v.p.Dir)
	}
	v.p.reads(at, what, name, p)
	return p
}

// userPath is a file the command line named (--tls): it must exist, and it is not the
// plan's, so it is neither an effect nor confined to the plan's roots.
func (v *validator) userPath(name string, at Pos, what string) string {
	if name == "" {
		return ""
	}
	if _, err := os.Stat(name); err != nil {
		v.errorf(at, "%s %s (from --tls): %v", what, name, err)
	}
	return name
}

func (v *validator) workload(w *Workload) {
	w.Names = v.d.scope.values()
	k := w.Kind
	if k == nil {
		if !v.kindWritten(w) {
			v.errorf(w.Src.Pos, "workload needs one of %s", kindWords(v.d.kinds.Keys()))
		}
		return // the decoder said what is wrong with its kind
	}
	if w.Action != "run" && !contains(k.Actions, w.Action) {
		has := append([]string{"run"}, k.Actions...)
		var others []string
		for _, o := range v.d.kinds.All() {
			if contains(o.Actions, w.Action) {
				others = append(others, o.Name)
			}
		}
		msg := fmt.Sprintf("action %s: a %s workload has no such action (it has %s", w.Action, k.Name, strings.Join(has, ", "))
		if len(others) > 0 {
			msg += fmt.Sprintf("; %s is one of %s's)", w.Action, strings.Join(others, " and "))
		} else {
			msg += ")"
		}
		v.errorf(w.Src.At("action"), "%s; use one of its own", msg)
	}
	if w.ReportInterval <= 0 {
		v.errorf(w.Src.At("report_interval"), "report_interval must be more than 0")
	}
	if w.Rate < 0 || w.Threads < 0 || w.Events < 0 || w.Duration < 0 || w.Warmup < 0 {
		v.errorf(w.Src.Pos, "rate, threads, events, duration and warmup must not be negative")
	}
	running := w.Action == "run" || w.Action == ""
	if !k.Loop && (w.Src.Has("connect") && w.Connect != "persistent" || w.IdleConnections > 0) {
		key := "idle_connections"
		if w.Src.Has("connect") {
			key = "connect"
		}
		v.errorf(w.Src.At(key), "%s applies to the kinds quadrant's own loop runs (%s); this workload is %s", key, strings.Join(v.loopKinds(), ", "), k.Name)
	}
	if w.Src.Has("stages") || w.Src.Has("ramp") {
		v.stages(w, running)
	}
	if running && !k.Ends && w.Duration == 0 && w.Events == 0 && !w.Src.Has("duration") && !w.Src.Has("events") && len(w.Stages) == 0 {
		v.errorf(w.Src.Pos, "workload needs duration: or events: (or both: whichever comes first), e.g. duration: 60s")
	}
	if k.NoRate != "" && w.Rate > 0 {
		v.errorf(w.Src.At("rate"), "rate does not apply to a %s workload: %s", k.Name, k.NoRate)
	}
	if w.Warmup > 0 && !running {
		v.errorf(w.Src.At("warmup"), "warmup only applies to action: run")
	}
	if k.Check != nil {
		k.Check(&Check{v: v}, w)
	}
}

// kindWritten says w's mapping has a kind key (whose value did not decode).
func (v *validator) kindWritten(w *Workload) bool {
	for _, key := range v.d.kinds.Keys() {
		if w.Src.Has(key) {
			return true
		}
	}
	return false
}

// loopKinds are the kinds whose workers quadrant's own loop runs, for messages.
func (v *validator) loopKinds() []string {
	var out []string
	for _, k := range v.d.kinds.All() {
		if k.Loop {
			out = append(out, k.Name)
		}
	}
	return out
}

// stages checks a load shape and sets the workload's duration to the stages' sum.
func (v *validator) stages(w *Workload, running bool) {
	if len(w.Stages) == 0 {
		if w.Src.Has("stages") {
			v.errorf(w.Src.At("stages"), "stages is empty; give at least one {duration, threads} or {duration, rate}, or remove stages")
		} else {
			v.errorf(w.Src.At("ramp"), "ramp applies to stages; add stages: [{duration, threads}, ...] or remove ramp")
		}
		return
	}
	switch {
	case !running:
		v.errorf(w.Src.At("stages"), "stages only apply to action: run")
		return
	case !w.Kind.Loop:
		v.errorf(w.Src.At("stages"), "stages apply to the kinds quadrant's own loop runs (%s); this workload is %s", strings.Join(v.loopKinds(), ", "), w.Type())
		return
	}
	var closed, open *Stage
	var sum time.Duration
	for i := range w.Stages {
		st := &w.Stages[i]
		sum += st.Duration
		switch {
		case st.Threads > 0 && st.Rate > 0:
			v.errorf(st.Src.At("rate"), "stage %d has threads and rate; a stage is {duration, threads} (closed loop) or {duration, rate} (open loop)", i+1)
		case st.Threads == 0 && st.Rate == 0:
			v.errorf(st.Src.Pos, "stage %d needs threads: (closed loop) or a rate: above 0 (open loop)", i+1)
		case st.Threads > 0:
			if open != nil {
				v.errorf(st.Src.At("threads"), "stages mix threads and rate: stage %d has threads, an earlier one a rate (line %d); give every stage threads (closed loop) or every stage a rate (open loop)", i+1, open.Src.Pos.Line)
			}
			if closed == nil {
				closed = st
			}
		default:
			if closed != nil {
				v.errorf(st.Src.At("rate"), "stages mix threads and rate: stage %d has a rate, an earlier one threads (line %d); give every stage threads (closed loop) or every stage a rate (open loop)", i+1, closed.Src.Pos.Line)
			}
			if open == nil {
				open = st
			}
		}
		if st.Duration <= 0 {
			v.errorf(st.Src.At("duration"), "stage %d needs a duration above 0", i+1)
		} else if w.ReportInterval > 0 && st.Duration%w.ReportInterval != 0 {
			v.errorf(st.Src.At("duration"), "stage %d lasts %s, not a multiple of report_interval %s; each interval of the time series must be in one stage (e.g. duration: %s)",
				i+1, st.Duration, w.ReportInterval, (st.Duration/w.ReportInterval+1)*w.ReportInterval)
		}
	}
	if w.Src.Has("duration") {
		v.errorf(w.Src.At("duration"), "duration and stages both set: the stages' durations add up to the measured part (%s); remove duration", sum)
	}
	if closed != nil && open == nil && w.Src.Has("threads") {
		v.errorf(w.Src.At("threads"), "threads and stages with threads both set: each stage says its threads; remove threads")
	}
	if open != nil && closed == nil && w.Src.Has("rate") {
		v.errorf(w.Src.At("rate"), "rate and stages with a rate both set: each stage says its rate; remove rate")
	}
	w.Duration = sum
}

// maxConnections refuses a workload whose connections, idle ones included, cannot all log
// in: where the limit is knowable (a sandbox's config, server_config, globals).
func (v *validator) maxConnections(it *Iteration) {
	w := it.Workload
	if w.IdleConnections == 0 {
		return
	}
	limit, from := 0, ""
	if t := v.targets[it.Target]; t != nil && t.Sandbox != nil {
		limit, from = mycnf.SandboxMaxConnections, "a sandbox's default"
		if n, ok := intSetting(t.Sandbox.Config, "max_connections"); ok {
			limit, from = n, "the sandbox's config"
		}
		if n, ok := intSetting(it.ServerConfig, "max_connections"); ok {
			limit, from = n, "server_config"
		}
	}
	if n, ok := intSetting(it.Globals, "max_connections"); ok {
		limit, from = n, "globals"
	}
	// quadrant's samplers hold a connection of their own; MariaDB keeps one more for SUPER.
	if need := w.Connections() + w.IdleConnections + 1; limit > 0 && need > limit {
		v.errorf(w.Src.At("idle_connections"), "%d connections (%d running, %d idle, 1 for quadrant's samplers) exceed max_connections %d (%s); lower idle_connections or raise max_connections",
			need, w.Connections(), w.IdleConnections, limit, from)
	}
}

// intSetting is setting name of s as an integer, when it is one.
func intSetting(s Settings, name string) (int, bool) {
	val, ok := s.Lookup(name)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(fmt.Sprint(val)))
	return n, err == nil
}

func (v *validator) watch() {
	w := &v.p.Watch
	if w.Interval <= 0 {
		v.errorf(w.Src.At("interval"), "watch interval must be more than 0")
	}
	for _, t := range w.Targets {
		v.checkTarget(t, w.Src.At("targets"), "watch.targets")
	}
	seen := map[string]bool{}
	for _, q := range w.Queries {
		if seen[q.Name] {
			v.errorf(q.Src.At("name"), "two watch queries are named %q; names must be unique", q.Name)
		}
		seen[q.Name] = true
	}
	if w.Src.Has("host") && w.Src.Has("snmp") {
		v.errorf(w.Src.At("snmp"), "watch has both host: and snmp:, which are one list under two names; keep host:")
	}
	for _, lists := range [][]string{w.Status, w.Counters, w.Gauges} {
		for _, g := range lists {
			if _, err := filepath.Match(g, ""); err != nil {
				v.errorf(w.Src.Pos, "bad status glob %q: %v", g, err)
			}
		}
	}
}

func sortStrings(s []string) { sort.Strings(s) }
