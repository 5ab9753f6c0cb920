package spec

import (
	"time"
)

// Source remembers where a mapping was written, and where each of its keys' values was,
// so that validation and the executor can point at the right line:column.
type Source struct {
	Pos  Pos
	Keys map[string]Pos
}

// At returns the position of key's value, or of the mapping when the key was not written.
func (s Source) At(key string) Pos {
	if p, ok := s.Keys[key]; ok {
		return p
	}
	return s.Pos
}

// Has reports whether key was written in the plan (a default was not used).
func (s Source) Has(key string) bool {
	_, ok := s.Keys[key]
	return ok
}

// Plan is a loaded, validated plan: extends merged, vars applied, every iteration expanded.
// It is what the executor consumes; it knows nothing about running.
type Plan struct {
	Src         Source   `yaml:"-"`
	Version     int      `yaml:"version,required" doc:"Plan format version. Must be 1."`
	Name        string   `yaml:"name,required" pattern:"^[a-z0-9][a-z0-9_-]*$" doc:"Names the results folder. Lower case letters, digits, '_' and '-', starting with a letter or digit."`
	Description string   `yaml:"description" doc:"Free text: what the experiment is about."`
	Labels      Settings `yaml:"labels" doc:"Map of strings copied into the results (owner, ticket, storage...)."`
	Extends     string   `yaml:"extends,skip" doc:"builtin:NAME or a path relative to this file. Deep merge: maps merge key by key, lists and scalars replace. Chains are allowed, cycles are errors."`
	Vars        Vars     `yaml:"vars,skip" doc:"Defaults for ${{ vars.NAME }}. Override with --set vars.NAME=VALUE or --set NAME=VALUE (parsed as YAML scalars). A var may use env.* and earlier vars."`
	Targets     Targets  `yaml:"targets,required,skip" doc:"The servers, by name ([a-z][a-z0-9_]*). At least one."`
	Setup       []Step   `yaml:"setup" doc:"Steps run once, before the first iteration."`
	Matrix      Matrix   `yaml:"matrix,skip" doc:"Axes (name: [values...]) plus optional exclude: and include:. Cells run in the order the axes are written, last axis fastest. No matrix = one iteration."`
	Repeat      int      `yaml:"repeat" default:"1" min:"1" doc:"How many times each matrix cell runs. In which order: see order."`
	Order       string   `yaml:"order" default:"interleaved" enum:"sequential,interleaved,random" doc:"Order of the repeats. interleaved (the default): one run of every cell, then the next (A B A B), so that drift over time (a warming cache, a neighbour's load) falls on every cell alike; sequential: a cell's repeats back to back (cell 1 run 1, cell 1 run 2, cell 2 run 1, ...; the default of earlier versions, which a resumed run of theirs keeps); random: a shuffle seeded by order_seed. Interleaving costs a restart per iteration when cells differ in server_config (quadrant explain counts them)."`
	OrderSeed   int64    `yaml:"order_seed" default:"1" doc:"Seed of order: random; the same seed gives the same order (recorded in run.json)."`
	// Iteration documents the `iteration:` key; Load leaves it nil and expands it into Iterations.
	Iteration *Iteration `yaml:"iteration,required,skip" doc:"What each matrix cell does: expanded once per matrix cell and repeat."`
	OnFailure string     `yaml:"on_failure" default:"continue" enum:"continue,stop" doc:"What a failed iteration does to the rest of the run."`
	Teardown  []Step     `yaml:"teardown" doc:"Steps run once at the end, also after a failure or an interrupt."`
	Watch     Watch      `yaml:"watch" doc:"What is sampled during every measured workload."`
	Report    Report     `yaml:"report" doc:"Result formats and folder."`

	// Iterations is the expanded matrix, in execution order.
	Iterations []Iteration `yaml:"-"`
	// File is the plan's path as given to Load (or builtin:NAME); Dir is the directory relative paths resolve against.
	File string `yaml:"-"`
	Dir  string `yaml:"-"`
	// Unbound lists targets whose host/port were not known at load (sandboxes not started yet):
	// ${{ target.NAME.host/port }} rendered as a placeholder. Bind binds them.
	Unbound []string `yaml:"-"`

	merged     *nodeTree // the merged source, for Redacted
	loaded     *source   // the plan text and the options it was loaded with, for Bind
	opts       Options
	envUsed    map[string]bool
	overridden map[string]bool // vars given with --set
	files      []Effect        // the files the plan names, as validation resolved them
	envRead    []Effect        // a stranger's plan's environment variables the user did not pass
}

// Vars are the plan's variables in written order, after --set overrides.
type Vars []Var

// Var is one variable.
type Var struct {
	Name  string
	Value any // string, int, float64, bool, []any or map[string]any
	Pos   Pos
}

// Lookup returns the value of the variable name.
func (vs Vars) Lookup(name string) (any, bool) {
	for _, v := range vs {
		if v.Name == name {
			return v.Value, true
		}
	}
	return nil, false
}

// Targets are the plan's targets in written order.
type Targets []Target

// Target is one server.
type Target struct {
	Src     Source   `yaml:"-"`
	Name    string   `yaml:"-"`
	DSN     string   `yaml:"dsn" doc:"go-sql-driver/mysql DSN, e.g. user:${{ env.PW }}@tcp(db1:3306)/sbtest. Exactly one of dsn and sandbox."`
	Sandbox *Sandbox `yaml:"sandbox" doc:"A throwaway local server started by quadrant. Exactly one of dsn and sandbox."`
	SNMP    *SNMP    `yaml:"snmp" doc:"Host metrics of the machine this target runs on."`
	PidFile string   `yaml:"pid_file" doc:"dsn targets on this machine: the server's pid file (its pid-file option), read at each sample, so the server's own CPU, context switches and I/O are measured from /proc (proc.* and cost.* columns). Sandboxes are measured without it."`
	Links   Refused  `yaml:"links,skip" doc:"Not here: links are a sandbox's (sandbox.links), between parts quadrant starts. Between servers of your own, the network is the real one: shape it on the hosts (tc qdisc netem, where the kernel has it) or put a proxy such as toxiproxy in front and name its address in the dsn; run.json records each target's address."`
	Pid     int      `yaml:"pid" min:"1" doc:"dsn targets on this machine: the server's process id, when there is no pid file to read. Prefer pid_file: a restarted server gets a new pid."`
	Restart string   `yaml:"restart" doc:"Shell command run by restart steps and by server_config changes on a dsn target (needs --allow-shell). Quadrant does not own that server's my.cnf: the options to apply reach the command as QUADRANT_MY_CNF (a [mysqld] section) and QUADRANT_CONFIG_<OPTION>=VALUE."`
	TLS     *TLS     `yaml:"tls" doc:"dsn targets: how every connection quadrant opens to the server (steps, workloads, samplers) uses TLS, in the mysql client's --ssl-mode words, with the provider's CA. Instead of the DSN's tls= parameter, which cannot name a CA file. A sandbox has tls: on instead."`
	// AllowPublicKeyRetrieval lets caching_sha2_password / sha256_password ask the server for its RSA key.
	AllowPublicKeyRetrieval bool `yaml:"allow_public_key_retrieval" doc:"dsn targets of MySQL 8 without TLS (no tls:, or tls.mode disabled or preferred): let an account of caching_sha2_password or sha256_password log in over plain TCP by fetching the server's RSA public key (the driver's allowPublicKeyRetrieval). Off by default: whoever sits on the network can hand over a key of its own and read the password. Over TLS the password goes encrypted and this is not needed."`

	// Host and Port come from the DSN, or from Options.Addrs for sandboxes (empty/0 until bound).
	Host string `yaml:"-"`
	Port int    `yaml:"-"`
}

// Sandbox describes a local throwaway server.
type Sandbox struct {
	Src         Source   `yaml:"-"`
	Flavor      string   `yaml:"flavor" default:"auto" enum:"auto,mariadb,mysql" doc:"Which server: auto uses whichever server binary is found."`
	Basedir     string   `yaml:"basedir" doc:"Where bin/ or sbin/ holds mariadbd or mysqld (default: search PATH, /usr/sbin)."`
	Config      Settings `yaml:"config" doc:"[mysqld] options of the generated my.cnf. true writes the bare option (log_bin: true -> log-bin), false leaves it out. Refused under any spelling the server accepts (a prefix such as bind_addr, dashes or underscores, loose-/skip-): the options the sandbox sets itself (datadir, socket, port, bind_address, pid_file, log_error, init_file, tmpdir, plugin_dir, ...), skip-grant-tables, a secure_file_priv outside the sandbox's directory, and a path with .. or ~ in any option; an absolute path (log_bin on other storage) is a write the run allows only inside the plan's folder or --allow-path. A relative file name lands in the sandbox's data directory (secure_file_priv: in the server's directory)."`
	Replicas    int      `yaml:"replicas" default:"0" min:"0" doc:"Number of replicas, addressable as targets NAME_replica1, NAME_replica2, ..."`
	Replication string   `yaml:"replication" default:"async" enum:"async,semisync" doc:"Replication mode of the replicas."`
	Galera      int      `yaml:"galera" default:"0" min:"0" doc:"A Galera cluster of this many MariaDB nodes instead of one server (the galera-4 provider, synchronous multi-primary replication): the target is node 1, which bootstraps the cluster, and the others are targets NAME_node2, NAME_node3, ..., each joining in turn by rsync SST (a copy of node 1's data, accounts included); each node listens on 127.0.0.1 only, with ports of its own for clients, group communication, IST and SST. The sandbox sets binlog_format=ROW, innodb_autoinc_lock_mode=2 and the wsrep options itself. Not with replicas, links or tls: on. See docs/servers.md."`
	RunAs       string   `yaml:"run_as" doc:"OS user the server runs as when quadrant runs as root (default mysql, the user the server package creates; never root). Without root the server runs as quadrant's own user."`
	TLS         string   `yaml:"tls" default:"off" enum:"on,off" doc:"on: quadrant makes a CA and a certificate for each server (ECDSA P-256, for 127.0.0.1 and localhost, valid for a week) in the sandbox's directory, starts the server with ssl_ca/ssl_cert/ssl_key and require_secure_transport=ON (plaintext TCP refused; replicas replicate over TLS), and every connection quadrant opens verifies the server against that CA (verify-identity); shell steps' QUADRANT_TARGET_<NAME>_CNF and QUADRANT_TARGET_<NAME>_CA point at it. The sandbox owns these settings: config, server_config and restart steps cannot change them. To compare TLS with plaintext, give the plan two sandbox targets, one with tls: on, and make the target the matrix axis (iteration: target: \"${{ matrix.target }}\")."`
	Dir         string   `yaml:"dir,skip" doc:"The parent of the sandbox's data directories: the storage under test (default: the system temp dir, $TMPDIR or /tmp). An existing, writable directory, relative to the plan. Expressions may use matrix.* and iteration.*: dir: \"${{ matrix.storage }}\" makes storage a matrix axis, and the sandbox moves there (data included, one restart) when the value changes."`
	Links       *Links   `yaml:"links,skip" doc:"The network between the sandbox's parts, as in production: client (quadrant to the primary), replicas (the primary to every replica), NAME_replicaN (one replica) and nodes (between a Galera sandbox's nodes), each with rtt or delay, jitter, bandwidth and loss. Each link is a proxy of quadrant's on 127.0.0.1 (TCP only; see docs/network.md). Values may use matrix.* and iteration.*: rtt: \"${{ matrix.rtt }}\" makes the round trip a matrix axis, set before each iteration and probed (run.json's links: configured and measured). Without links: every part talks over loopback directly."`
}

// TLS is how quadrant's connections to a dsn target use TLS.
type TLS struct {
	Src        Source `yaml:"-"`
	Mode       string `yaml:"mode" default:"verify-identity" enum:"disabled,preferred,required,verify-ca,verify-identity" doc:"The mysql client's --ssl-mode: disabled (plaintext), preferred (TLS when the server offers it, else plaintext; verifies nothing), required (TLS or fail; verifies nothing), verify-ca (TLS, the server's certificate signed by ca), verify-identity (verify-ca, and the certificate names the host, or server_name). Default verify-identity: a plan that writes tls: wants to know whom it talks to."`
	CA         string `yaml:"ca" doc:"PEM file of the CA certificates that sign the server's certificate (the provider's CA bundle), relative to the plan; verify-ca and verify-identity only. Without it, the system's CAs."`
	Cert       string `yaml:"cert" doc:"PEM file of a client certificate, for accounts created REQUIRE X509/SUBJECT/ISSUER; with key."`
	Key        string `yaml:"key" doc:"PEM file of the client certificate's private key; with cert. Only its name reaches the results, never its content."`
	ServerName string `yaml:"server_name" doc:"verify-identity: the name the server's certificate must hold when it differs from the DSN's host (a DSN by IP address, a tunnel, a proxy)."`
	MinVersion string `yaml:"min_version" default:"1.2" enum:"1.2,1.3" doc:"Lowest TLS version accepted."`

	// CAPath, CertPath and KeyPath are the files resolved against the plan's directory.
	CAPath, CertPath, KeyPath string `yaml:"-"`
	// Given says the tls: came from the command line (--tls): its files are the user's,
	// named there, read where they are; not the plan's, so no effect and no roots.
	Given bool `yaml:"-"`
}

// Verifies says the mode checks the server's certificate.
func (t *TLS) Verifies() bool { return t.Mode == "verify-ca" || t.Mode == "verify-identity" }

// SNMP is where and how to read a target host's metrics.
type SNMP struct {
	Src          Source `yaml:"-"`
	Address      string `yaml:"address,required" doc:"host:port of the agent, e.g. 127.0.0.1:161."`
	Version      string `yaml:"version" default:"2c" enum:"1,2c,3" doc:"SNMP version."`
	Community    string `yaml:"community" secret:"true" doc:"v1/v2c community (required for those versions)."`
	User         string `yaml:"user" doc:"v3 user name (required for v3)."`
	AuthProtocol string `yaml:"auth_protocol" enum:"MD5,SHA,SHA224,SHA256,SHA384,SHA512" doc:"v3 authentication protocol."`
	AuthPassword string `yaml:"auth_password" secret:"true" doc:"v3 authentication password (required with auth_protocol)."`
	PrivProtocol string `yaml:"priv_protocol" enum:"DES,AES,AES192,AES256,AES192C,AES256C" doc:"v3 privacy protocol (needs auth_protocol)."`
	PrivPassword string `yaml:"priv_password" secret:"true" doc:"v3 privacy password (required with priv_protocol)."`
}

// Settings is an ordered map of option names to scalar values (my.cnf options, globals, script options).
// Order is kept: my.cnf lines and SET GLOBAL statements follow the plan.
type Settings []Setting

// Setting is one option. Value is a string, int, float64 or bool.
type Setting struct {
	Name  string
	Value any
	Pos   Pos // of the value
}

// Lookup returns the value of name.
func (s Settings) Lookup(name string) (any, bool) {
	for _, kv := range s {
		if kv.Name == name {
			return kv.Value, true
		}
	}
	return nil, false
}

// Iteration is one run of a matrix cell: the resolved `iteration:` section.
type Iteration struct {
	Src Source `yaml:"-"`
	// Index is 1-based over the whole run; Cell is the 1-based matrix cell; Repeat the 1-based repeat of that cell.
	Index  int         `yaml:"-"`
	Cell   int         `yaml:"-"`
	Repeat int         `yaml:"-"`
	Matrix []AxisValue `yaml:"-"`
	// SandboxDirs is each sandbox target's sandbox.dir as this iteration resolves it (absolute),
	// by target name; a sandbox without dir: is not in it.
	SandboxDirs map[string]string `yaml:"-"`
	// Links is each sandbox target's links as this iteration resolves them (sandbox.links),
	// by target name; a sandbox without links: is not in it.
	Links map[string]SandboxLinks `yaml:"-"`

	Target       string    `yaml:"target" doc:"Default target of this iteration's steps and workload (optional with one target)."`
	Restore      *Restore  `yaml:"restore" doc:"setup: every iteration starts from the data as setup left it. Before each iteration but the first (which starts from setup's end as it is), each sandbox is stopped, its datadir put back from a copy taken when setup ended, and started; a dsn target is brought back by the plan's own restore steps. See restore."`
	ServerConfig Settings  `yaml:"server_config" doc:"my.cnf options for this iteration; a change restarts the target before the iteration."`
	Globals      Settings  `yaml:"globals" doc:"SET GLOBAL before the iteration; every changed global is restored when the run ends. Sizes like 256M are converted to bytes."`
	Before       []Step    `yaml:"before" doc:"Steps run before the workload."`
	Workload     *Workload `yaml:"workload,required" doc:"The measured workload."`
	During       []Step    `yaml:"during" doc:"Steps started at an offset (at:) into the measured workload, while it runs."`
	After        []Step    `yaml:"after" doc:"Steps run after the workload."`
	Assert       []Expr    `yaml:"assert" doc:"Expressions over the iteration's metrics; a false one marks the iteration failed."`

	env   map[string]any
	scope *scope
}

// Restore is an iteration's `restore:`: the targets brought back to the state at the end of
// setup before the iteration runs. `restore: setup` is short for `restore: {to: setup}`.
type Restore struct {
	Src     Source   `yaml:"-"`
	To      string   `yaml:"to" default:"setup" enum:"setup" doc:"The state every iteration starts from: the end of setup."`
	Targets []string `yaml:"targets" doc:"The targets brought back (default: every target of the plan). A sandbox comes back with its replicas: name the sandbox, not NAME_replicaN."`
	Steps   []Step   `yaml:"steps" doc:"Steps that bring the targets quadrant cannot copy (dsn targets) back, run before each iteration but the first, after the sandboxes' copies are put back: a sql_file of a dump, a shell step with your restore tool (--allow-shell). Every dsn target restored needs a step on it. A sql_file here may be one a setup shell step writes (its command names the file)."`
}

// RestoreSetup is the one state a restore goes back to: the end of setup.
const RestoreSetup = "setup"

// RestoreTargets are the targets restore r brings back, in plan order: its targets:, else
// every target of p (a sandbox's replicas come with it and are not listed).
func (p *Plan) RestoreTargets(r *Restore) []string {
	if r == nil {
		return nil
	}
	if len(r.Targets) > 0 {
		return r.Targets
	}
	out := make([]string, 0, len(p.Targets))
	for _, t := range p.Targets {
		out = append(out, t.Name)
	}
	return out
}

// AxisValue is one matrix axis' value in an iteration.
type AxisValue struct {
	Axis  string
	Value any
}

// Env returns the values the iteration's expressions see: vars, env, matrix, iteration, target.
// The workload engine compiles `args` against it (plus its generator functions, see Generators).
func (it *Iteration) Env() map[string]any { return it.env }

// Step is one action: the keys every step shares, and its kind's key, which the kind
// decodes into its own Body (StepKind).
type Step struct {
	Src Source `yaml:"-"`
	// Kind is the step's kind, as Options.Kinds decoded it; Body is what its key's value
	// decoded into (the kind's own type: StepBody[T]).
	Kind *StepKind `yaml:"-"`
	Body any       `yaml:"-"`

	Target       string        `yaml:"target" doc:"Target of sql, sql_file, set_global, restart, wait, workload, capture and generate steps (default: the iteration's target)."`
	IgnoreErrors []int         `yaml:"ignore_errors" doc:"sql/sql_file: MySQL error numbers that do not fail the step."`
	SaveAs       string        `yaml:"save_as" pattern:"^[a-z][a-z0-9_]*$" doc:"sql: keep the last result set in the results under this name."`
	Timeout      time.Duration `yaml:"timeout" doc:"Fail the step when it takes longer (shell, sql, sql_file, set_global, restart, workload, generate, verify; wait has its own)."`
	At           time.Duration `yaml:"at" doc:"during steps only: offset into the measured workload."`
	When         *bool         `yaml:"when" doc:"false: the step does not run in this iteration (the log says so), e.g. when: \"${{ matrix.cell == 'drill' }}\" runs a drill in one cell of the matrix only; default true."`
}

// Skipped reports whether the plan's when: leaves the step out of its iteration.
func (s *Step) Skipped() bool { return s.When != nil && !*s.When }

// KindKey is the key of the step's kind ("sql", "shell", ...; "" for an invalid step,
// which Load rejects).
func (s *Step) KindKey() string {
	if s.Kind == nil {
		return ""
	}
	return s.Kind.Key
}

// Workload is a load generator of one kind: the plan writes the kind's key (builtin:,
// transactions:, replay:, sysbench:, ...), which the kind decodes into its own Body, and
// the settings every kind shares.
type Workload struct {
	Src Source `yaml:"-"`
	// Kind is the workload's kind, as Options.Kinds decoded it; Body is what its key's
	// value decoded into (the kind's own type: Body[T]), Options what options: did (OptionsOf[T]).
	Kind *Kind `yaml:"-"`
	Body any   `yaml:"-"`
	// Names are what an expression may name at the workload's place in the plan (vars, env,
	// matrix and iteration in an iteration, target), as spec checked its expressions against
	// them: what a kind that evaluates expressions as it runs (transactions' args) gives them.
	// nil for a workload built in Go.
	Names           map[string]any `yaml:"-" json:"-"`
	Options         any            `yaml:"options,skip" doc:"The kind's own options (see the kind): the builtin scripts' sysbench options, tpcc's warehouses and mix."`
	Action          string         `yaml:"action" default:"run" enum:"run,prepare,cleanup,check" doc:"run, or what the kind has besides: prepare (create and load its tables), cleanup (drop them), check (verify its data's consistency, failing the step naming each broken condition)."`
	Threads         int            `yaml:"threads" default:"1" min:"1" doc:"Concurrent connections."`
	Duration        time.Duration  `yaml:"duration" doc:"How long the measured part runs. A run needs duration or events (or both: whichever comes first), unless its kind ends by itself."`
	Events          int64          `yaml:"events" min:"0" doc:"Stop after this many transactions."`
	Warmup          time.Duration  `yaml:"warmup" doc:"Run this long before measuring; not counted."`
	Rate            float64        `yaml:"rate" default:"0" min:"0" doc:"Transactions per second for the whole workload; 0 = as fast as possible (closed loop)."`
	ReportInterval  time.Duration  `yaml:"report_interval" default:"1s" doc:"Interval of the per-second time series."`
	OnError         OnError        `yaml:"on_error" doc:"What errors do to a transaction."`
	Stages          []Stage        `yaml:"stages" doc:"A load shape (kinds that run on quadrant's own loop): the measured part as consecutive stages, all {duration, threads} (closed loop) or all {duration, rate} (open loop, threads serving the rate); the stages' durations add up to the workload's duration. The time series gets a stage column and summary.csv one row per stage (its stage column set) besides the iteration's."`
	Ramp            string         `yaml:"ramp" default:"step" enum:"step,linear" doc:"With stages: step jumps to each stage's level at its start; linear moves from the previous stage's level to its own over the stage (the first stage holds its level)."`
	Connect         string         `yaml:"connect" default:"persistent" enum:"persistent,per_transaction" doc:"Kinds that run on quadrant's own loop: persistent keeps each thread's connection; per_transaction opens a new one for every transaction (statements prepared again on it), timed apart as connect_ms and not in the transaction's latency."`
	Nodes           Spread         `yaml:"nodes" doc:"A Galera sandbox target (sandbox: {galera: N}): which of its nodes the threads connect to. one (the default): every thread on the target, node 1; all: round robin, thread i on node i mod N; a list of nodes [db, db_node3]: round robin over those; a map of weights {db: 1, db_node2: 3}: each node's share of the threads. A matrix axis may give it (nodes: ${{ matrix.writers }}). On a Galera target each node's transactions, errors and cert_failures get columns of their own (node.NAME.*, 0 for a node without threads), which assertions may use (node.db_node2.cert_failures == 0). For builtin (OLTP and tpcc) and transactions workloads; idle_connections stay on the target."`
	IdleConnections int            `yaml:"idle_connections" min:"0" doc:"Extra connections that log in before the workload starts and stay idle until it ends (thread pools, max_connections); kinds that run on quadrant's own loop."`
}

// Stage is one level of a load shape: threads or a rate, for a duration.
type Stage struct {
	Src      Source        `yaml:"-"`
	Duration time.Duration `yaml:"duration,required" doc:"How long the stage runs; a multiple of report_interval, so every interval is in one stage."`
	Threads  int           `yaml:"threads" min:"1" doc:"Connections running events in this stage (closed loop)."`
	Rate     float64       `yaml:"rate" min:"0" doc:"Transactions per second in this stage (open loop)."`
}

// Type is the name of the workload's kind ("" before it is decoded).
func (w *Workload) Type() string {
	if w.Kind == nil {
		return ""
	}
	return w.Kind.Name
}

// OnError says which MySQL errors a workload tolerates.
type OnError struct {
	Src       Source `yaml:"-"`
	Ignore    []int  `yaml:"ignore" default:"[1213, 1020, 1205]" doc:"Errors that restart the transaction (counted as errors)."`
	Reconnect []int  `yaml:"reconnect" doc:"Errors after which the connection is re-opened, retried until the server answers, and the workload goes on (counted as reconnects); without, a lost connection fails the workload. Across a restart or a failover: [2013, 2006, 2003, 1927, 1053]. See docs/faults.md."`
	MaxErrors int    `yaml:"max_errors" default:"0" min:"0" doc:"Fail the workload after this many errors; 0 = no limit."`
}

// Watch says what is sampled during measured workloads.
type Watch struct {
	Src         Source        `yaml:"-"`
	Interval    time.Duration `yaml:"interval" default:"1s" doc:"Sampling interval."`
	Targets     []string      `yaml:"targets" doc:"Targets sampled (default: every target of the iteration)."`
	Status      []string      `yaml:"status" doc:"Globs over SHOW GLOBAL STATUS names (default: a curated set)."`
	Counters    []string      `yaml:"counters" doc:"Status names (globs) to treat as counters, overriding the built-in rule."`
	Gauges      []string      `yaml:"gauges" doc:"Status names (globs) to treat as gauges, overriding the built-in rule."`
	Replication bool          `yaml:"replication" doc:"Sample replica lag and thread state of replicas."`
	Queries     []WatchQuery  `yaml:"queries" doc:"Custom queries sampled each interval; the first column of the first row is the value."`
	Host        SNMPMetrics   `yaml:"host" doc:"Host metrics, columns host.NAME: a list of known names (load1, cpu_util, mem_avail, disk_write_kbs, net_rx_kbs, ...) or a map NAME: OID (SNMP only). Read over SNMP where the target has snmp:, from /proc where it runs on this machine (a sandbox, a dsn on 127.0.0.1/localhost, or with pid/pid_file)."`
	SNMP        SNMPMetrics   `yaml:"snmp" doc:"Another name for host, from before host metrics could come from /proc; give one of the two."`
	Digests     *TopN         `yaml:"digests" doc:"performance_schema statement digests: the top statement classes by total time during each iteration's workload, on its target, in digests.csv. Needs performance_schema=ON (sandboxes get it)."`
	Waits       *TopN         `yaml:"waits" doc:"performance_schema wait events: the top events by total time during each iteration's workload, on its target, in waits.csv. Needs performance_schema=ON (sandboxes get it)."`
	OnError     string        `yaml:"on_error" default:"gap" enum:"gap,fail" doc:"What a sampler that misses readings while a workload runs (its source did not answer: a lost connection, a server or SNMP agent down) does to the iteration. gap: those ticks' cells are empty, the sampler reconnects with backoff, log.txt says when it stopped and answered again, and run.json's iteration watch_gaps counts the missed readings; fail: the same, and the iteration fails once its workload ends, naming the samplers."`
}

// TopN asks for the N largest entries of a performance_schema summary.
type TopN struct {
	Src Source `yaml:"-"`
	Top int    `yaml:"top" default:"10" min:"1" doc:"How many entries per iteration, largest total time first."`
}

// HostMetrics are the host metrics the plan asks for, under either name; nil when it names none.
func (w *Watch) HostMetrics() SNMPMetrics {
	if len(w.Host) > 0 {
		return w.Host
	}
	return w.SNMP
}

// WantsHost reports whether the plan has a host: (or snmp:) list, even an empty one.
func (w *Watch) WantsHost() bool { return w.Src.Has("host") || w.Src.Has("snmp") }

// WatchQuery is a custom sampled query.
type WatchQuery struct {
	Src  Source `yaml:"-"`
	Name string `yaml:"name,required" pattern:"^[a-z][a-z0-9_]*$" doc:"Column name in the time series."`
	SQL  string `yaml:"sql,required" doc:"Query returning one value."`
}

// SNMPMetrics are watched host metrics in written order.
type SNMPMetrics []SNMPMetric

// SNMPMetric is a known metric name (OID empty: the executor knows it) or a custom NAME: OID.
type SNMPMetric struct {
	Name string
	OID  string
	Pos  Pos
}

// Report says which result files are written where.
type Report struct {
	Src         Source   `yaml:"-"`
	Formats     []string `yaml:"formats" default:"[csv, html, json]" enum:"csv,html,json" doc:"Reports written from the results: html = report.html; json = summary.json; csv = with per_variable, variables/NAME.csv. summary.csv, timeseries/*.csv, histograms/, run.json and log.txt are always written: they are the measurements every report is rebuilt from (quadrant report DIR)."`
	PerVariable bool     `yaml:"per_variable" doc:"Also variables/NAME.csv and variables/NAME.html for every watched variable (status.*, repl.*, query.*, snmp.*), as the formats allow."`
	Dir         string   `yaml:"dir" default:"results" doc:"Results go to DIR/NAME/YYYYmmdd-HHMMSS/ (relative to the working directory), on quadrant run of this plan; --out DIR overrides it. quadrant rerun of a results folder does not honour the folder's report.dir (the plan came with someone else's folder and could name any directory): its results go under --out DIR, or results/ in the working directory."`
}
