package kube

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/quadrant-bench/quadrant/executor/kinds"
	"github.com/quadrant-bench/quadrant/spec"
)

func load(t *testing.T, dataSize int) (*spec.Plan, string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "load.sql"), []byte(strings.Repeat("-- x\n", dataSize/5)), 0o644); err != nil {
		t.Fatal(err)
	}
	plan := filepath.Join(dir, "plan.yaml")
	text := `version: 1
name: my_bench
targets:
  db: {dsn: "u:p@tcp(db:3306)/sbtest"}
setup:
  - sql_file: load.sql
iteration:
  workload: {builtin: oltp_read_only, threads: 8, duration: 1m}
`
	if err := os.WriteFile(plan, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := spec.Load(plan, spec.Options{Kinds: kinds.Registry()})
	if err != nil {
		t.Fatal(err)
	}
	return p, plan
}

// Without a results claim the pods hold their folders for quadrant pack, results are an
// emptyDir, and the data file rides in the ConfigMap at its path next to the plan.
func TestManifestsWithoutClaim(t *testing.T) {
	p, plan := load(t, 100)
	out, err := Manifests(Options{Plan: p, PlanFile: plan, Shards: 4, Image: "q:1", RunID: "Run_1", Deadline: time.Hour, Hold: 30 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(string(out), "\n---\n")
	var cm corev1.ConfigMap
	var job batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(docs[0]), &cm); err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict([]byte(docs[1]), &job); err != nil {
		t.Fatal(err)
	}
	args := strings.Join(job.Spec.Template.Spec.Containers[0].Args, " ")
	for _, want := range []string{"run /plan/plan.yaml", "--shard=$(JOB_COMPLETION_INDEX)/4", "--run-id=Run_1", "--out=/results", "--hold=30m0s"} {
		if !strings.Contains(args, want) {
			t.Errorf("args %q lack %q", args, want)
		}
	}
	if job.Name != "quadrant-my-bench-run-1" || *job.Spec.ActiveDeadlineSeconds != 3600 {
		t.Errorf("name %s deadline %d", job.Name, *job.Spec.ActiveDeadlineSeconds)
	}
	vols := job.Spec.Template.Spec.Volumes
	if vols[1].EmptyDir == nil {
		t.Errorf("results volume %+v, want an emptyDir", vols[1])
	}
	paths := map[string]string{}
	for _, it := range vols[0].ConfigMap.Items {
		paths[it.Path] = cm.Data[it.Key]
	}
	if !strings.HasPrefix(paths["load.sql"], "-- x") || !strings.Contains(paths["plan.yaml"], "name: my_bench") {
		t.Errorf("ConfigMap files %v", paths)
	}
}

// A plan whose files do not fit a ConfigMap is refused with the way out.
func TestManifestsTooBig(t *testing.T) {
	p, plan := load(t, MaxConfigMap+10)
	_, err := Manifests(Options{Plan: p, PlanFile: plan, Shards: 2, Image: "q:1", RunID: "r"})
	if err == nil || !strings.Contains(err.Error(), "over a ConfigMap's 1 MiB") || !strings.Contains(err.Error(), "PersistentVolumeClaim") {
		t.Fatalf("err %v", err)
	}
}
