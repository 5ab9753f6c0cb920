package executor

import (
	"context"
	"fmt"
	"time"

	"github.com/quadrant-bench/quadrant/executor/target"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/confine"
)

// DescribeDSN connects to dsn target t and says what run.json would of it (its flavor,
// version, version_comment and machine, its global variables) before any run starts: a
// rerun compares it with the published run's target. It reads; it changes nothing.
func DescribeDSN(ctx context.Context, t spec.Target, roots confine.Roots) (results.TargetInfo, error) {
	dt, err := DSNTarget(t, roots)
	if err != nil {
		return results.TargetInfo{}, err
	}
	defer dt.Release()
	cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	db, err := dt.Open(cctx)
	if err != nil {
		return results.TargetInfo{}, fmt.Errorf("cannot connect: %w", err)
	}
	defer db.Close()
	info, err := target.Probe(cctx, db)
	if err != nil {
		return results.TargetInfo{}, err
	}
	vars, err := target.Variables(cctx, db)
	if err != nil {
		return results.TargetInfo{}, err
	}
	h := target.DetectHosting(vars)
	return results.TargetInfo{Name: t.Name, Kind: dt.Kind(), Address: dt.Redacted(), Flavor: info.Flavor, ServerVersion: info.Version,
		Hosting: h.Provider, HostingEvidence: h.Evidence, VariablesBefore: vars,
		VersionComment: vars["version_comment"], VersionMachine: vars["version_compile_machine"]}, nil
}

// ClientHost describes the machine quadrant runs on, as run.json's client_host does.
func ClientHost() *results.HostInfo {
	return clientHost(func(string, ...any) {})
}
