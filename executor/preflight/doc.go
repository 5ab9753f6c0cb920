// Package preflight is what the run checks before setup touches anything, as pure
// functions of the plan and what the targets say: what the plan needs of each dsn target's
// account and whether its grants hold it (CheckAccount; quadrant explain and quadrant
// generate ask it too), whether the workloads' connections and prepared statements fit the
// server's limits (CheckLimits), and whether the status an assertion reads is watched
// (AssertedStatus). What a step needs of an account its kind declares
// (spec.StepKind.Privileges), a workload's its kind (spec.Kind.Privileges, and the
// statements one connection prepares, spec.Kind.Prepared): this package imports no kind
// (TestDependsOnNoKind), and only it knows how privileges are called on each server.
package preflight
