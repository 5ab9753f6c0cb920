package main

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/quadrant-bench/quadrant/cmd/quadrant/kube"
	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/shard"
)

func runKube(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("kube", "PLAN --shards N --image IMAGE [--secret NAME] [--results-pvc CLAIM] [--namespace NS] [--run-id ID] [--set K=V]... [--target NAME=DSN]...",
		"Prints the Kubernetes manifests of a sharded run, for kubectl apply -f -: a ConfigMap with the plan and the files it\n"+
			"reads, and an Indexed Job of N pods, one per node, each running quadrant run --shard=$(JOB_COMPLETION_INDEX)/N.\n"+
			"Failed pods are not replaced (the others went on without them; the merge marks their iterations failed).\n"+
			"Results go to --results-pvc (every shard's folder under RUN-ID/shard-K), or stay in each pod, which then holds\n"+
			"for --hold so that kubectl exec POD -- quadrant pack DIR > shard.tgz can copy them. See docs/distributed.md.", stdout, stderr)
	var sets, targets multiFlag
	fs.Var(&sets, "set", "override a var: `vars.NAME=VALUE` or NAME=VALUE (repeatable; passed on to the pods)")
	fs.Var(&targets, "target", "point a target at a server: `NAME=DSN` (repeatable; passed on to the pods as given: put the password in the Secret and write ${{ env.NAME }}, single-quoted, in the DSN or the plan)")
	shards := fs.Int("shards", 0, "how many shards (pods, on as many nodes)")
	image := fs.String("image", "", "the container `IMAGE` with quadrant (see the Dockerfile)")
	secret := fs.String("secret", "", "a Secret whose keys become the pods' environment (the plan's ${{ env.NAME }}), e.g. DB_PASSWORD")
	pvc := fs.String("results-pvc", "", "a ReadWriteMany PersistentVolumeClaim `CLAIM` mounted at /results for every shard's folder")
	ns := fs.String("namespace", "", "the `NS` of the ConfigMap and the Job (default: kubectl's)")
	runID := fs.String("run-id", "", "the run's `ID` (default: the time now, YYYYmmdd-HHMMSS)")
	hold := fs.Duration("hold", time.Hour, "without --results-pvc: how `long` each pod keeps its folder for quadrant pack after its run")
	barrierTimeout := fs.Duration("barrier-timeout", 10*time.Minute, "how `long` a shard waits for the others (pods may be scheduled minutes apart)")
	deadline := fs.Duration("deadline", 0, "the Job's activeDeadlineSeconds (default: explain's estimate x 1.5 + barrier timeout + hold + 10m; required when a workload is bounded by events only)")
	plans, code, stop := parseFlags(fs, args, stdout)
	if stop {
		return code
	}
	if len(plans) != 1 || *shards < 1 || *image == "" {
		fmt.Fprintln(stderr, "quadrant kube: give one plan, --shards N and --image IMAGE, e.g. quadrant kube plan.yaml --shards 3 --image registry.example/quadrant:1.0 | kubectl apply -f -")
		return exitInvalid
	}
	env, err := podEnv(plans[0])
	if err != nil {
		fmt.Fprintf(stderr, "quadrant kube: %v\n", err)
		return exitInvalid
	}
	overrides, err := podTargets(targets, env, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "quadrant kube: %v\n", err)
		return exitInvalid
	}
	p, err := loadPlan(plans[0], spec.Options{Set: sets, Targets: overrides, Env: env})
	if err == nil {
		if errs := shard.Validate(p, *shards); len(errs) > 0 {
			err = errs.Tidy()
		}
	}
	if err != nil {
		printLoadError(stderr, err)
		return exitInvalid
	}
	if *runID == "" {
		*runID = time.Now().UTC().Format("20060102-150405")
	}
	d := *deadline
	if d == 0 {
		upper, unbounded := estimate(p)
		if unbounded > 0 {
			fmt.Fprintf(stderr, "quadrant kube: %d workload(s) stop after events, not a duration: how long the Job may run is unknown; give --deadline (e.g. --deadline 2h)\n", unbounded)
			return exitInvalid
		}
		d = upper*3/2 + *barrierTimeout + 10*time.Minute
		if *pvc == "" {
			d += *hold
		}
	}
	var runArgs []string
	for _, s := range sets {
		runArgs = append(runArgs, "--set="+s)
	}
	for _, t := range targets {
		runArgs = append(runArgs, "--target="+t)
	}
	out, err := kube.Manifests(kube.Options{
		Plan: p, PlanFile: plans[0], Shards: *shards, Image: *image, RunID: *runID, Secret: *secret,
		ResultsPVC: *pvc, Namespace: *ns, Deadline: d, Hold: *hold, BarrierTimeout: *barrierTimeout, RunArgs: runArgs,
	})
	if err != nil {
		fmt.Fprintf(stderr, "quadrant kube: %v\n", err)
		return exitInvalid
	}
	stdout.Write(out)
	return exitOK
}

// podTargets checks the --target values the pods get as given: each pod expands their
// ${{ env.NAME }} from the Secret, so here a stand-in does, and a passwordFile= of this
// machine would not be there.
func podTargets(list []string, env map[string]string, stderr io.Writer) (map[string]string, error) {
	src := targetSource{why: "the pods cannot read a file of this machine: put the password in the Secret (--secret) and write ${{ env.NAME }} in the DSN",
		env: func(name string) (string, bool) {
			if v, ok := env[name]; ok {
				return v, true
			}
			return "set-in-the-pod", true
		}}
	args, err := targetArgs(list, src, stderrf(stderr, "quadrant kube: "))
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, t := range args {
		out[t.Name] = t.DSN
	}
	return out, nil
}

var envRef = regexp.MustCompile(`env\.([A-Za-z_][A-Za-z0-9_]*)`)

// podEnv is the environment the plan is checked with here: this one, plus a stand-in for
// every env.NAME it reads that is not set, since the pods get theirs from the Secret (a
// password need not be on the machine that writes the manifests).
func podEnv(plan string) (map[string]string, error) {
	text, err := os.ReadFile(plan)
	if err != nil {
		return nil, err
	}
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	for _, m := range envRef.FindAllStringSubmatch(string(text), -1) {
		if _, ok := env[m[1]]; !ok {
			env[m[1]] = "set-in-the-pod"
		}
	}
	return env, nil
}
