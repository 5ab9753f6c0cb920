package spec

// builtinSteps are the step kinds spec declares itself, in the order the plan reference
// lists them. This list is the one place that names them: decoding, validation, the docs,
// the effects and the files a plan reads all go through the declarations.
var builtinSteps = []*StepKind{
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
