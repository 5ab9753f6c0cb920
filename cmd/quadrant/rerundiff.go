package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/quadrant-bench/quadrant/executor"
	"github.com/quadrant-bench/quadrant/reporters/compare"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec"
)

// warnRerunDifferences says, before a rerun on a --target server starts, what the published
// run had that the target does not: the published sandbox's config (the my.cnf options
// --target drops) against the target's variables, then the differences known before running
// (version, settings, the client machine), ranked as compare ranks them. It warns; the run
// goes on. A target it cannot read is said, and the run's own connection reports the error.
func warnRerunDifferences(req runRequest, p *spec.Plan, overrides map[string]string, w io.Writer) {
	info, err := results.ReadRunInfo(req.rerunOf)
	if err != nil || len(overrides) == 0 {
		return
	}
	published := &results.Run{Dir: req.rerunOf, Info: info}
	var pub *spec.Plan
	if pp, err := loadPlan(req.plan, req.allow.options(req.plan, spec.Options{Set: req.sets})); err == nil {
		pub = pp
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, name := range sortedNames(overrides) {
		t := planTargetNamed(p, name)
		if t == nil || t.DSN == "" {
			continue
		}
		ti, err := executor.DescribeDSN(ctx, *t, p.Roots())
		if err != nil {
			fmt.Fprintf(w, "warning: target %s: its settings could not be read before the rerun, so they are not compared with %s's: %v\n", name, req.rerunOf, err)
			continue
		}
		lines := configLines(pub, name, ti.VariablesBefore)
		other := &results.Run{Dir: "target " + name, Info: &results.RunInfo{ClientHost: executor.ClientHost(), Targets: []results.TargetInfo{ti}}}
		ds := compare.KnownBeforeRun(onlyTarget(published, name), other)
		if len(lines) == 0 && len(ds) == 0 {
			continue
		}
		fmt.Fprintf(w, "warning: before this rerun starts, target %s (%s %s) differs from what %s ran on:\n", name, ti.Flavor, ti.ServerVersion, req.rerunOf)
		if len(lines) > 0 {
			fmt.Fprintf(w, "  the published sandbox's config (the my.cnf options --target %s leaves behind):\n", name)
			for _, l := range lines {
				fmt.Fprintln(w, "    "+results.Printable(l))
			}
		}
		if len(ds) > 0 {
			fmt.Fprintln(w, "  most likely to move the numbers first:")
			tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
			for _, d := range ds {
				fmt.Fprintf(tw, "    %s\t%s\n", d.Group, results.Printable(d.Text))
			}
			tw.Flush()
		}
		fmt.Fprintf(w, "  the comparison after the run will name these as candidate causes of any difference; set them on %s to reproduce the published conditions\n", name)
	}
}

func planTargetNamed(p *spec.Plan, name string) *spec.Target {
	for i := range p.Targets {
		if p.Targets[i].Name == name {
			return &p.Targets[i]
		}
	}
	return nil
}

// onlyTarget is the published run with its target name alone and its client machine: the
// rerun compares one --target at a time.
func onlyTarget(r *results.Run, name string) *results.Run {
	info := *r.Info
	info.Targets = nil
	for _, t := range r.Info.Targets {
		if t.Name == name {
			info.Targets = append(info.Targets, t)
		}
	}
	info.Iterations = nil
	return &results.Run{Dir: r.Dir, Info: &info}
}

// configLines are the published plan's sandbox config options of target name that the
// target's variables do not have: "innodb_flush_log_at_trx_commit = 2 in the published
// sandbox; the target has 1".
func configLines(pub *spec.Plan, name string, vars map[string]string) []string {
	if pub == nil {
		return nil
	}
	t := planTargetNamed(pub, name)
	if t == nil || t.Sandbox == nil {
		return nil
	}
	var out []string
	for _, kv := range t.Sandbox.Config {
		opt := strings.ToLower(strings.ReplaceAll(kv.Name, "-", "_"))
		want := fmt.Sprint(kv.Value)
		have, ok := lookupFold(vars, opt)
		switch {
		case !ok && kv.Value == false:
		case !ok:
			out = append(out, fmt.Sprintf("%s = %s in the published sandbox; target %s has no such variable", kv.Name, want, name))
		case !sameSetting(kv.Value, have):
			out = append(out, fmt.Sprintf("%s = %s in the published sandbox; target %s has %s", kv.Name, want, name, have))
		}
	}
	return out
}

func lookupFold(vars map[string]string, name string) (string, bool) {
	for k, v := range vars {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return "", false
}

// sameSetting says whether a my.cnf value and a server variable's value agree: a bare
// option (true) or ON/1 against ON, sizes with K/M/G suffixes against bytes, names
// regardless of case.
func sameSetting(want any, have string) bool {
	have = strings.TrimSpace(have)
	w := strings.TrimSpace(fmt.Sprint(want))
	if strings.EqualFold(w, have) {
		return true
	}
	on := map[string]bool{"on": true, "1": true, "true": true, "yes": true}
	off := map[string]bool{"off": true, "0": true, "false": true, "no": true}
	h := strings.ToLower(have)
	if h == "on" || h == "off" {
		return on[strings.ToLower(w)] && h == "on" || off[strings.ToLower(w)] && h == "off"
	}
	wb, okw := sizeBytes(w)
	hb, okh := sizeBytes(have)
	return okw && okh && wb == hb
}

// sizeBytes reads a my.cnf number with an optional K, M, G or T suffix.
func sizeBytes(s string) (float64, bool) {
	mult := 1.0
	if n := len(s); n > 1 {
		switch strings.ToUpper(s[n-1:]) {
		case "K":
			mult, s = 1<<10, s[:n-1]
		case "M":
			mult, s = 1<<20, s[:n-1]
		case "G":
			mult, s = 1<<30, s[:n-1]
		case "T":
			mult, s = 1<<40, s[:n-1]
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	return v * mult, err == nil
}
