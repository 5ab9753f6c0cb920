package executor

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/executor/collect"
	"github.com/quadrant-bench/quadrant/executor/internal/fsinfo"
	"github.com/quadrant-bench/quadrant/executor/link"
	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/target"
	"github.com/quadrant-bench/quadrant/executor/watch/mysqlwatch"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/confine"
)

// fleet is the run's targets while it goes: it starts the sandboxes (replicas included)
// and connects the dsn targets, keeps them in plan order, knows the primary of a replica,
// moves and restarts them, and stops what it started.
type fleet struct {
	plan *spec.Plan // its targets (the plan bound to the sandboxes' addresses once it is)
	log  *runLog
	obs  Observer
	// sandboxDir is the run's --sandbox-dir, keep and runAs its --keep-sandboxes and the
	// OS user of sandboxes whose plan names none.
	sandboxDir string
	keep       bool
	runAs      string

	targets  map[string]*liveTarget // by name
	order    []string               // target names, plan order (replicas after their primary)
	clusters []*sandbox.Cluster
	fronts   map[string]*link.Link        // by target: the addresses that follow a primary (fronts.go)
	links    map[string]*sandboxNet       // by sandbox target: its links (links.go)
	vars     map[string]map[string]string // SHOW GLOBAL VARIABLES at the start, per target
	// createDBs lets the fleet create the database a dsn target's DSN names when the server
	// has none (not for a shard: the others would lose it when one drops it); created are
	// those it made, dropped when the run ends (createdb.go).
	createDBs bool
	created   []createdDB
}

func newFleet(p *spec.Plan, log *runLog, obs Observer, o Options) *fleet {
	return &fleet{plan: p, log: log, obs: obs, sandboxDir: o.SandboxDir, keep: o.KeepSandboxes, runAs: o.SandboxRunAs,
		targets: map[string]*liveTarget{}, createDBs: !o.Shard.Sharded() && o.RunID == ""}
}

// start starts every sandbox (replicas included), in its directory of iteration first,
// and connects every dsn target.
func (f *fleet) start(ctx context.Context, first *spec.Iteration) error {
	for _, t := range f.plan.Targets {
		if t.Sandbox != nil {
			if err := f.startSandbox(ctx, t, first); err != nil {
				return err
			}
			continue
		}
		dt, err := DSNTarget(t, f.plan.Roots())
		if err != nil {
			return err
		}
		if err := f.connect(ctx, &liveTarget{Target: dt}); err != nil {
			return err
		}
	}
	return nil
}

// describe reads every target's global variables, which later ones are compared with,
// and says what each target is for run.json (its server's machine where quadrant sees it:
// client is this one); on an error, the targets before it.
func (f *fleet) describe(ctx context.Context, client *results.HostInfo) ([]results.TargetInfo, error) {
	var out []results.TargetInfo
	for _, name := range f.order {
		s := f.targets[name]
		ti := results.TargetInfo{Name: name, Kind: s.Kind(), Address: s.Redacted(), Flavor: s.info.Flavor, ServerVersion: s.info.Version,
			TLS: target.TLSInfo(ctx, s.Target, s.db)}
		vars, err := target.Variables(ctx, s.db)
		if err != nil {
			return out, fmt.Errorf("target %s: %w", name, err)
		}
		if f.vars == nil {
			f.vars = map[string]map[string]string{}
		}
		f.vars[name] = vars
		ti.VariablesBefore = vars
		s.hosting = target.DetectHosting(vars)
		ti.Hosting, ti.HostingEvidence = s.hosting.Provider, s.hosting.Evidence
		if s.hosting.Managed() {
			f.log.logf("target %s: %s (%s): settings only through %s; no shell, restart or host metrics there", name, s.hosting.Name(), s.hosting.Evidence, s.hosting.Settings())
		}
		ti.VersionComment, ti.VersionMachine = vars["version_comment"], vars["version_compile_machine"]
		ti.ServerHost, ti.ServerHostAbsent = f.serverHost(ctx, s, vars, client)
		s.local = s.sb == nil && ti.ServerHost != nil
		if ti.ServerHost == nil {
			f.log.logFile("target %s: its server's machine is not recorded: %s", name, ti.ServerHostAbsent)
		} else if s.local {
			f.log.logFile("target %s: its server runs on this machine: %s", name, ti.ServerHost.Evidence)
		}
		out = append(out, ti)
	}
	return out, nil
}

func (f *fleet) startSandbox(ctx context.Context, t spec.Target, first *spec.Iteration) error {
	sb := t.Sandbox
	base := sandboxOptions(sb.Config)
	runAs := sb.RunAs
	if runAs == "" {
		runAs = f.runAs
	}
	if f.plan.Watch.Digests != nil || f.plan.Watch.Waits != nil {
		// Digests and waits need performance_schema, which only a restart turns on, and no more
		// of it than they read (mysqlwatch.ServerSettings); the plan's own settings win.
		var ps []sandbox.Option
		for _, kv := range mysqlwatch.ServerSettings() {
			ps = append(ps, sandbox.Option{Name: kv[0], Value: kv[1]})
		}
		base = overlay(ps, base)
	}
	dir := f.dir(t.Name, first)
	if dir != f.sandboxDir {
		if why := spec.DirProblem(dir); why != "" {
			return fmt.Errorf("target %s: sandbox dir: %s", t.Name, why)
		}
	}
	if sb.Galera > 0 {
		f.log.logf("starting sandbox %s (%s, a Galera cluster of %d nodes, SST by %s)", t.Name, sb.Flavor, sb.Galera, sandbox.SSTMethod)
	} else {
		f.log.logf("starting sandbox %s (%s, %d replicas, %s)", t.Name, sb.Flavor, sb.Replicas, sb.Replication)
	}
	var links spec.SandboxLinks
	if first != nil {
		links = first.Links[t.Name] // which links there are: every iteration has the same
	}
	c, err := sandbox.Start(ctx, sandbox.Options{
		Name: t.Name, Flavor: sb.Flavor, Basedir: sb.Basedir, Config: base, Replicas: sb.Replicas,
		Replication: sb.Replication, Galera: sb.Galera, Dir: dir, Keep: f.keep, TLS: sb.TLS == "on",
		RunAs: runAs, Logf: f.log.logFile, Working: f.working(t.Name),
		ConfigPaths: true, // the trust check allowed the paths the config names (spec/trust)
		Via:         f.via(t.Name, links),
		NodeLink:    f.nodeLink(t.Name, links),
	})
	if err != nil {
		return fmt.Errorf("target %s: %w", t.Name, err)
	}
	f.log.addSecret(c.Password())
	f.clusters = append(f.clusters, c)
	if err := f.openFront(t.Name, c, links.Client != nil); err != nil {
		return err
	}
	f.obs.SandboxStarted(c.Dir())
	for _, srv := range c.Servers() {
		s := &liveTarget{Target: target.NewSandbox(srv), sb: srv, base: base}
		if err := f.connect(ctx, s); err != nil {
			return err
		}
		f.log.logf("target %s: %s %s at %s", s.Name(), s.info.Flavor, s.info.Version, s.Redacted())
	}
	return nil
}

// working shows what a sandbox's first start is doing (the template datadir build) as a
// long step.
func (f *fleet) working(name string) func(string) {
	var t *tracker
	return func(what string) {
		switch {
		case what == "" && t != nil:
			t.finish()
		case what != "":
			if t == nil {
				t = f.log.track("sandbox "+name, "", 0)
			}
			t.update(func(w *Work) { w.State = strings.TrimPrefix(what, "sandbox: ") })
		}
	}
}

// dir is where sandbox target name lives during iteration it: its sandbox.dir, else the
// run's --sandbox-dir.
func (f *fleet) dir(name string, it *spec.Iteration) string {
	if it != nil {
		if d, ok := it.SandboxDirs[name]; ok {
			return d
		}
	}
	return f.sandboxDir
}

func (f *fleet) connect(ctx context.Context, s *liveTarget) error {
	cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	db, err := s.Open(cctx)
	if err != nil && unknownDatabase(err) && s.sb == nil && f.createDBs {
		if cerr := f.createDatabase(cctx, s); cerr != nil {
			return cerr
		}
		db, err = s.Open(cctx)
	}
	if err != nil {
		return fmt.Errorf("cannot connect: %w", err)
	}
	db.SetMaxIdleConns(2)
	s.db = db
	if s.info, err = target.Probe(cctx, db); err != nil {
		db.Close()
		return fmt.Errorf("target %s: %w", s.Name(), err)
	}
	f.targets[s.Name()] = s
	f.order = append(f.order, s.Name())
	return nil
}

// place moves each sandbox whose sandbox.dir iteration it changes (one restart, data
// included) and says where every sandbox's data directory is (on an error, the ones
// before it).
func (f *fleet) place(ctx context.Context, it *spec.Iteration) ([]results.Storage, error) {
	var out []results.Storage
	for _, c := range f.clusters {
		want := f.dir(c.Name(), it)
		if want != "" && filepath.Clean(want) != c.Parent() {
			if why := spec.DirProblem(want); why != "" {
				return out, fmt.Errorf("target %s: sandbox dir: %s", c.Name(), why)
			}
			f.log.logf("iteration %d: moving sandbox %s to %s (a restart)", it.Index, c.Name(), want)
			if err := c.Move(ctx, want); err != nil {
				return out, fmt.Errorf("target %s: %w", c.Name(), err)
			}
			f.obs.SandboxStarted(c.Dir())
			for _, srv := range c.Servers() {
				if s := f.targets[srv.Name()]; s != nil {
					s.dropIdle()
				}
			}
		}
		for _, srv := range c.Servers() {
			st := results.Storage{Target: srv.Name(), DataDir: filepath.Join(srv.Dir(), "data")}
			if fi, err := fsinfo.Of(st.DataDir); err != nil {
				f.log.logf("warning: iteration %d: filesystem of %s: %v", it.Index, st.DataDir, err)
			} else {
				st.Filesystem, st.Device, st.Mount, st.FreeBytes = fi.Type, fi.Device, fi.Mount, fi.FreeBytes
			}
			out = append(out, st)
		}
	}
	return out, nil
}

// restart always restarts s (a restart step is often there for a cold buffer pool), with
// the server's current config plus settings.
func (f *fleet) restart(ctx context.Context, s *liveTarget, settings spec.Settings) error {
	if s.sb == nil {
		f.log.logf("restart %s with its restart command", s.Name())
		defer s.dropIdle()
		return s.Restart(ctx, sandboxOptions(settings))
	}
	want := removed(overlay(s.sb.Config(), sandboxOptions(settings)), settings)
	f.log.logf("restart %s", s.Name())
	defer s.dropIdle()
	if err := s.sb.Stop(ctx); err != nil {
		return err
	}
	return s.sb.Restart(ctx, want)
}

// exited logs, before the restart that brings it back, that the server of sandbox s exited
// on its own since it last ran (a crash, a kill -9), how, and what its error log ends with:
// otherwise nothing would say that the iterations after it ran on a restarted server.
func (f *fleet) exited(index int, s *liveTarget) {
	if s.sb == nil {
		return
	}
	how := s.sb.Exited()
	if how == "" {
		return
	}
	f.log.logf("warning: iteration %d: the server of sandbox %s had exited on its own (%s); starting it again. The last lines of its error log (%s):\n%s",
		index, s.Name(), how, filepath.Join(s.sb.Dir(), "error.log"), indent(s.sb.ErrorLogTail(10), "  | "))
}

// stop closes the connection pools and stops the sandboxes.
func (f *fleet) stop(ctx context.Context) {
	f.closeFronts()
	f.closeLinks()
	for _, s := range f.targets {
		s.db.Close()
		if r, ok := s.Target.(interface{ Release() }); ok {
			r.Release()
		}
	}
	for _, c := range f.clusters {
		switch err := c.Stop(ctx); {
		case err != nil:
			f.log.logf("warning: stop sandbox %s: %v", c.Name(), err)
		case f.keep:
			f.log.logFile("sandbox %s stopped; kept in %s", c.Name(), c.Dir())
		default:
			f.log.logFile("sandbox %s stopped and removed", c.Name())
		}
	}
}

// isReplica says name is a sandbox's replica (not a Galera node: no replica status).
func (f *fleet) isReplica(name string) bool {
	t := f.planTarget(name)
	return t != nil && t.Name != name && t.Sandbox.Galera == 0
}

// primaryOf is the sandbox target a replica or a Galera node belongs to (NAME for
// NAME_replicaN, NAME_nodeN), or name itself.
func (f *fleet) primaryOf(name string) string {
	for _, t := range f.plan.Targets {
		for _, m := range t.Members() {
			if m == name {
				return t.Name
			}
		}
	}
	return name
}

// planTarget is the plan's target of name; replicas share their primary's host (and SNMP agent).
func (f *fleet) planTarget(name string) *spec.Target {
	base := f.primaryOf(name)
	for i := range f.plan.Targets {
		if f.plan.Targets[i].Name == base {
			return &f.plan.Targets[i]
		}
	}
	return nil
}

// onThisMachine reports whether the target's server runs where quadrant does and is to get host metrics
// from /proc: a sandbox, a dsn target with a pid or pid_file, or one on a loopback address or a unix socket,
// unless it has an snmp agent of its own.
func (f *fleet) onThisMachine(name string) bool {
	t := f.planTarget(name)
	if t != nil && t.SNMP != nil {
		return false // its host metrics come from its agent
	}
	if s := f.targets[name]; s != nil && s.sb != nil {
		return true
	}
	if s := f.targets[name]; s != nil && s.hosting.Managed() {
		return false // a loopback address is a proxy or tunnel to it (Cloud SQL Auth Proxy): this machine is not its host
	}
	if t == nil {
		return false
	}
	if t.Pid > 0 || t.PidFile != "" {
		return true
	}
	if s := f.targets[name]; s != nil {
		switch h := s.Host(); {
		case h == "localhost" || h == "::1" || strings.HasPrefix(h, "127."):
			return true
		case strings.HasPrefix(s.Config().Net, "unix"):
			return true
		}
	}
	return false
}

// watchTargets are the targets as the collection sees them (collect.Target), in plan order;
// via, when set, gives the address a target's samplers connect to (tests: a fault proxy).
func (f *fleet) watchTargets(via func(target, addr string) string) []collect.Target {
	var out []collect.Target
	for _, name := range f.order {
		s := f.targets[name]
		cfg := f.workloadConfig(s).Clone() // through its front when it has one (collect/follow.go)
		if via != nil {
			cfg.Addr = via(name, cfg.Addr)
		}
		ct := collect.Target{Name: name, Plan: f.planTarget(name), Replica: f.isReplica(name), Config: cfg, Front: f.fronts[name],
			DB: s.db, Flavor: s.info.Flavor, Version: s.info.Version, Hosting: s.hosting, Local: f.onThisMachine(name)}
		if s.sb != nil {
			ct.SandboxPid = f.followedPid(name, s.sb.Pid)
		}
		out = append(out, ct)
	}
	return out
}

// watched are the targets sampled during iteration it's workload on main: watch.targets
// when the plan names them, else main, its replicas, every node of its Galera cluster
// (whichever node main is: flow control and certification are the cluster's) and every
// target the iteration's steps use.
func (f *fleet) watched(it *spec.Iteration, main string) []string {
	if len(f.plan.Watch.Targets) > 0 {
		return f.plan.Watch.Targets
	}
	want := map[string]bool{main: true}
	pt := f.planTarget(main)
	galera := pt != nil && pt.Sandbox != nil && pt.Sandbox.Galera > 0
	for _, name := range f.order {
		if f.primaryOf(name) == main || galera && f.primaryOf(name) == f.primaryOf(main) {
			want[name] = true
		}
	}
	for _, list := range [][]spec.Step{it.Before, it.During, it.After} {
		for _, st := range list {
			if st.Target != "" {
				want[st.Target] = true
			}
		}
	}
	var out []string
	for _, name := range f.order {
		if want[name] {
			out = append(out, name)
		}
	}
	return out
}

// variablesNow records, per target of targets, the global variables that differ from the
// start of the run: what an iteration's workload ran with.
func (f *fleet) variablesNow(ctx context.Context, targets []string) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, name := range targets {
		s := f.targets[name]
		now, err := target.Variables(ctx, s.db)
		if err != nil {
			f.log.logf("warning: %s: SHOW GLOBAL VARIABLES: %v", name, err)
			continue
		}
		d := results.DiffVariables(f.vars[name], now)
		m := map[string]string{}
		for _, c := range d.Changed {
			m[c.Name] = c.After
		}
		for _, c := range d.Added {
			m[c.Name] = c.After
		}
		if len(m) > 0 {
			out[name] = m
		}
	}
	return out
}

// DSNTarget is the one way quadrant reaches a dsn target, whichever command connects (run,
// explain's privilege check, capture, generate, verify, export): its TLS (the plan's tls:
// after --target's overrides) and allow_public_key_retrieval are applied, so no command
// connects in clear where run would refuse to. Release gives back what it registered.
func DSNTarget(t spec.Target, roots confine.Roots) (*target.DSNTarget, error) {
	dt, err := target.NewDSN(t.Name, t.DSN, t.Restart)
	if err != nil {
		return nil, err
	}
	if err := dt.UseTLS(tlsOptions(t.TLS, roots), t.AllowPublicKeyRetrieval); err != nil {
		dt.Release()
		return nil, err
	}
	return dt, nil
}

// tlsOptions are a dsn target's tls: for the target package (nil: as the DSN says).
func tlsOptions(t *spec.TLS, roots confine.Roots) *target.TLSOptions {
	if t == nil {
		return nil
	}
	o := &target.TLSOptions{Mode: t.Mode, CA: t.CAPath, Cert: t.CertPath, Key: t.KeyPath, ServerName: t.ServerName, MinVersion: t.MinVersion}
	if roots != nil && !t.Given { // a plan's files, through its roots; a command line's are the user's
		o.Open = roots.Open
	}
	return o
}
