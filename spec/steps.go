package spec

import "strings"

// builtinSteps are the step kinds spec declares itself, in the order the plan reference
// lists them. This list is the one place that names them: decoding, validation, the docs,
// the effects and the files a plan reads all go through the declarations.
var builtinSteps = []*StepKind{
	{Key: "sql", DocType: "string", Doc: "Statements separated by ';' run on the step's target.",
		Body: func() any { return new(SQL) }, Target: true, Keys: []string{"ignore_errors", "save_as", "timeout"}},
	{Key: "sql_file", DocType: "string", Doc: "A file of statements, path relative to the plan; DELIMITER aware.",
		Body: func() any { return new(SQLFile) }, Target: true, Keys: []string{"ignore_errors", "timeout"},
		Check: checkBody((*SQLFile).validate), Reads: sqlFileReads},
	{Key: "set_global", DocType: "map NAME: scalar", Doc: "{NAME: VALUE}: SET GLOBAL with a validated name and a bound value; restored at the end of the run.",
		Body: func() any { return new(SetGlobal) }, Target: true, Keys: []string{"timeout"}, Check: checkBody((*SetGlobal).validate),
		Privileges: setGlobalPrivileges},
	{Key: "restart", Doc: "{config: {...}}: restart a sandbox with these my.cnf options, or run a dsn target's restart command.",
		Body: func() any { return new(Restart) }, Target: true, Keys: []string{"timeout"}, Restarts: true,
		Check: checkBody((*Restart).validate), Effects: effectsOf((*Restart).Effects)},
	{Key: "drop_caches", DocType: "`true`", Doc: "true: sync, then drop the OS page cache (needs root and --allow-shell).",
		Body: func() any { return new(DropCaches) }, Effects: effectsOf((*DropCaches).Effects)},
	{Key: "shell", DocType: "string", Doc: "A shell command (needs --allow-shell). Env: QUADRANT_ITERATION, QUADRANT_MATRIX_<AXIS>, QUADRANT_TARGET_<NAME>_HOST/_PORT, and for a sandbox QUADRANT_TARGET_<NAME>_CNF, a client option file with its credentials (mariadb --defaults-extra-file=$QUADRANT_TARGET_<NAME>_CNF), and QUADRANT_TARGET_<NAME>_OS_USER, the OS user its server runs as (chown to it what the server must write).",
		Body: func() any { return new(Shell) }, Keys: []string{"timeout"}, RestoresAny: true,
		Effects: effectsOf((*Shell).Effects), Names: shellNames},
	{Key: "sleep", DocType: "duration", Doc: "Wait this long (Go duration).", Body: func() any { return new(Sleep) }},
	{Key: "wait", Doc: "Poll until an expression is true.", Body: func() any { return new(Wait) }, Target: true,
		OwnTarget: waitTarget, Check: checkBody((*Wait).validate), RecordAs: waitRecordAs, Privileges: waitPrivileges},
	{Key: "workload", Doc: "Run a workload without measuring it (e.g. prepare data).",
		Body: func() any { return new(Workload) }, Target: true, Keys: []string{"timeout"},
		Check: checkBody((*Workload).validate), Workloads: workloadSteps, Splits: splitsPrepare},
	{Key: "capture", Doc: "Record what the step's target runs for a while into a capture file that replay: replays (see docs/replay.md).",
		Body: func() any { return new(Capture) }, Target: true, Check: checkBody((*Capture).validate),
		Writes: captureWrites, Workloads: captureWhile, Privileges: capturePrivileges},
	{Key: "generate", Doc: "Fill the user's own tables with generated rows, foreign, primary and unique keys kept (see docs/generate.md).",
		Body: func() any { return new(Generate) }, Target: true, Keys: []string{"timeout"},
		Check: checkBody((*Generate).validate), Reads: generateReads, Splits: func(*Step) bool { return true },
		Privileges: func(s *Step, srv AccountServer) []AccountNeed { return s.Body.(*Generate).Privileges(srv) }},
	{Key: "verify", Doc: "Run a capture's reads on two targets or more and compare each with the first: same rows, same plans? queries.csv in the results (see docs/verify.md).",
		Body: func() any { return new(Verify) }, Keys: []string{"timeout"},
		NoTarget: "which runs on several targets; name them in verify.targets: [base, new] (the first is the base)",
		// queries.csv has no iteration column: a verify run per iteration would pile rows
		// up that nothing tells apart.
		Once:  "its queries.csv rows say nothing of an iteration",
		Check: checkBody((*Verify).validate), Reads: verifyReads},
}

func sqlFileReads(s *Step) []DataFile {
	f := s.Body.(*SQLFile)
	return []DataFile{{f.File, f.Path}}
}

func generateReads(s *Step) []DataFile {
	g := s.Body.(*Generate)
	if g.Schema == "" {
		return nil
	}
	return []DataFile{{g.Schema, g.SchemaPath}}
}

func verifyReads(s *Step) []DataFile {
	vf := s.Body.(*Verify)
	return []DataFile{{vf.Traffic, vf.TrafficPath}}
}

func captureWrites(s *Step) DataFile {
	c := s.Body.(*Capture)
	return DataFile{c.Out, c.Path}
}

func captureWhile(s *Step) []*Workload {
	if c := s.Body.(*Capture); c.While != nil {
		return []*Workload{c.While}
	}
	return nil
}

func workloadSteps(s *Step) []*Workload { return []*Workload{s.Body.(*Workload)} }

func shellNames(s *Step, file string) bool { return strings.Contains(s.Body.(*Shell).Command, file) }

func waitTarget(s *Step) (string, Pos) {
	w := s.Body.(*Wait)
	return w.Target, w.Src.At("target")
}

func waitRecordAs(s *Step) string { return s.Body.(*Wait).RecordAs }

// splitsPrepare: a prepare of a kind that splits it (each shard loads its tables, or its
// warehouses); any other workload step runs whole on the leader.
func splitsPrepare(s *Step) bool {
	w := s.Body.(*Workload)
	return w.Action == "prepare" && w.Kind != nil && w.Kind.SplitsPrepare
}

func setGlobalPrivileges(s *Step, srv AccountServer) []AccountNeed {
	return []AccountNeed{{Pos: s.Src.Pos, What: "set_global", Why: "SET GLOBAL", Any: [][]Privilege{{srv.SetGlobal}}}}
}

// waitPrivileges: only a wait that reads replica.NAME reads the replica status.
func waitPrivileges(s *Step, srv AccountServer) []AccountNeed {
	if !ReplicaRef.MatchString(s.Body.(*Wait).Until.Source) {
		return nil
	}
	return []AccountNeed{{Pos: s.Src.Pos, What: "wait", Why: "SHOW REPLICA STATUS for replica.*", Any: [][]Privilege{{srv.ReplicaStatus}}}}
}

// capturePrivileges are those of the capture's method; auto's are either method's, as it
// falls back from the slow log to performance_schema.
func capturePrivileges(s *Step, srv AccountServer) []AccountNeed {
	slow := []Privilege{srv.SetGlobal, {Names: []string{"SELECT"}, DB: "mysql", Table: "slow_log"}}
	ps := []Privilege{{Names: []string{"SELECT"}, DB: "performance_schema"}, {Names: []string{"UPDATE"}, DB: "performance_schema", Table: "setup_consumers"}}
	need := AccountNeed{Pos: s.Src.Pos, What: "capture"}
	switch s.Body.(*Capture).Method {
	case "slow_log":
		need.Why, need.Any = "the slow log to TABLE: SET GLOBAL log_output, long_query_time, then read mysql.slow_log", [][]Privilege{slow}
	case "performance_schema":
		need.Why, need.Any = "performance_schema: turn its statement consumers on, then read events_statements_history_long", [][]Privilege{ps}
	default:
		need.Why, need.Any = "the slow log to TABLE, else performance_schema", [][]Privilege{slow, ps}
	}
	return []AccountNeed{need}
}
