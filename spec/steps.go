package spec

// builtinSteps are the step kinds spec declares itself, in the order the plan reference
// lists them. This list is the one place that names them: decoding, validation, the docs,
// the effects and the files a plan reads all go through the declarations.
var builtinSteps = []*StepKind{
	{Key: "workload", Doc: "Run a workload without measuring it (e.g. prepare data).",
		Body: func() any { return new(Workload) }, Target: true, Keys: []string{"timeout"},
		Check: checkBody((*Workload).validate), Workloads: workloadSteps, Splits: splitsPrepare},
	{Key: "capture", Doc: "Record what the step's target runs for a while into a capture file that replay: replays (see docs/replay.md).",
		Body: func() any { return new(Capture) }, Target: true, Check: checkBody((*Capture).validate),
		Writes: captureWrites, Workloads: captureWhile},
	{Key: "generate", Doc: "Fill the user's own tables with generated rows, foreign, primary and unique keys kept (see docs/generate.md).",
		Body: func() any { return new(Generate) }, Target: true, Keys: []string{"timeout"},
		Check: checkBody((*Generate).validate), Reads: generateReads, Splits: func(*Step) bool { return true }},
	{Key: "verify", Doc: "Run a capture's reads on two targets or more and compare each with the first: same rows, same plans? queries.csv in the results (see docs/verify.md).",
		Body: func() any { return new(Verify) }, Keys: []string{"timeout"},
		NoTarget: "which runs on several targets; name them in verify.targets: [base, new] (the first is the base)",
		// queries.csv has no iteration column: a verify run per iteration would pile rows
		// up that nothing tells apart.
		Once:  "its queries.csv rows say nothing of an iteration",
		Check: checkBody((*Verify).validate), Reads: verifyReads},
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

// splitsPrepare: a prepare of a kind that splits it (each shard loads its tables, or its
// warehouses); any other workload step runs whole on the leader.
func splitsPrepare(s *Step) bool {
	w := s.Body.(*Workload)
	return w.Action == "prepare" && w.Kind != nil && w.Kind.SplitsPrepare
}
