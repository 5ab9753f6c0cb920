// Package kube writes the Kubernetes manifests of a sharded run (quadrant kube): a
// ConfigMap with the plan and the files it reads, and an Indexed Job whose pods run
// `quadrant run --shard=$(JOB_COMPLETION_INDEX)/N`. Kubernetes places, indexes and
// restarts nothing else: quadrant has no cluster protocol of its own. The manifests are
// built from the Kubernetes API types so that every field is one the API server knows.
package kube

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/quadrant-bench/quadrant/spec"
)

// MaxConfigMap is what a ConfigMap may hold (the API server refuses more than 1 MiB).
const MaxConfigMap = 1 << 20

// Paths inside the pod.
const (
	PlanDir    = "/plan"
	ResultsDir = "/results"
	// IndexEnv is the variable the Job controller sets to the pod's completion index.
	IndexEnv = "JOB_COMPLETION_INDEX"
)

// Options say what to run where.
type Options struct {
	Plan     *spec.Plan
	PlanFile string // the plan as given to quadrant kube; its text goes into the ConfigMap
	Shards   int
	Image    string
	RunID    string
	// Secret names a Secret whose keys become the containers' environment (the plan's
	// ${{ env.NAME }}: passwords stay out of the ConfigMap and the Job).
	Secret string
	// ResultsPVC names a PersistentVolumeClaim (ReadWriteMany) mounted at /results: every
	// shard's folder lands there side by side. Without one, the results stay in the pod,
	// which holds for Hold after its run so `kubectl exec ... quadrant pack` copies them.
	ResultsPVC string
	Namespace  string
	// Deadline is the Job's activeDeadlineSeconds: explain's estimate plus slack.
	Deadline       time.Duration
	Hold           time.Duration
	BarrierTimeout time.Duration
	// RunArgs are passed on to quadrant run (--set, --target).
	RunArgs []string
}

// Manifests returns the ConfigMap and the Job as one YAML stream for `kubectl apply -f -`.
func Manifests(o Options) ([]byte, error) {
	cm, items, err := configMap(o)
	if err != nil {
		return nil, err
	}
	job := Job(o, cm.Name, items)
	var out bytes.Buffer
	for i, obj := range []any{cm, job} {
		b, err := yaml.Marshal(obj)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			out.WriteString("---\n")
		}
		out.Write(b)
	}
	return out.Bytes(), nil
}

var notDNS = regexp.MustCompile(`[^a-z0-9-]+`)

// Name is the DNS-1123 name of the run's objects: quadrant-PLAN-RUNID, short enough for
// a Job (its pods' hostnames add the index).
func Name(plan, runID string) string {
	n := notDNS.ReplaceAllString(strings.ToLower("quadrant-"+plan+"-"+runID), "-")
	n = strings.Trim(n, "-")
	if len(n) > 52 {
		n = strings.TrimRight(n[:52], "-")
	}
	return n
}

func labels(o Options) map[string]string {
	v := notDNS.ReplaceAllString(strings.ToLower(o.RunID), "-")
	if len(v) > 63 {
		v = v[:63]
	}
	return map[string]string{"app.kubernetes.io/name": "quadrant", "quadrant/plan": Name(o.Plan.Name, ""), "quadrant/run-id": strings.Trim(v, "-")}
}

// configMap holds the plan file and the data files it reads, at their paths relative to it.
func configMap(o Options) (*corev1.ConfigMap, []corev1.KeyToPath, error) {
	if e := o.Plan.Extends; e != "" && !strings.HasPrefix(e, "builtin:") {
		return nil, nil, fmt.Errorf("the plan extends %s, a file of this machine: the pods would not find it; merge it into the plan (or extend a builtin:) first", e)
	}
	text, err := os.ReadFile(o.PlanFile)
	if err != nil {
		return nil, nil, err
	}
	planName := filepath.Base(o.PlanFile)
	cm := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: Name(o.Plan.Name, o.RunID), Namespace: o.Namespace, Labels: labels(o)},
		Data:       map[string]string{"plan.yaml": string(text)},
	}
	items := []corev1.KeyToPath{{Key: "plan.yaml", Path: planName}}
	size := len(text)
	for i, f := range o.Plan.DataFiles() {
		rel := filepath.ToSlash(filepath.Clean(f.File))
		if filepath.IsAbs(f.File) || rel == ".." || strings.HasPrefix(rel, "../") {
			return nil, nil, fmt.Errorf("%s is outside the plan's folder: the pods only get files under it; move it next to the plan", f.File)
		}
		data, err := os.ReadFile(f.Path)
		if err != nil {
			return nil, nil, err
		}
		key := fmt.Sprintf("file-%d", i+1)
		cm.Data[key] = string(data)
		items = append(items, corev1.KeyToPath{Key: key, Path: rel})
		size += len(data)
	}
	if size > MaxConfigMap {
		return nil, nil, fmt.Errorf("the plan and its data files are %d bytes, over a ConfigMap's 1 MiB: "+
			"put them on a volume instead (a ReadOnlyMany PersistentVolumeClaim, or COPY them into the image) and replace the Job's plan volume by it, "+
			"keeping the plan at %s/%s", size, PlanDir, planName)
	}
	return cm, items, nil
}

// Job is the Indexed Job: pod K runs shard K of N, on its own node.
func Job(o Options, configMap string, items []corev1.KeyToPath) *batchv1.Job {
	n := int32(o.Shards)
	l := labels(o)
	args := []string{"run", PlanDir + "/" + items[0].Path,
		fmt.Sprintf("--shard=$(%s)/%d", IndexEnv, o.Shards),
		"--run-id=" + o.RunID, "--out=" + ResultsDir}
	if o.BarrierTimeout > 0 {
		args = append(args, "--barrier-timeout="+o.BarrierTimeout.String())
	}
	if o.ResultsPVC == "" && o.Hold > 0 {
		args = append(args, "--hold="+o.Hold.String())
	}
	args = append(args, o.RunArgs...)
	c := corev1.Container{
		Name: "quadrant", Image: o.Image, Args: args,
		// The Job controller sets JOB_COMPLETION_INDEX too; declaring it here makes the
		// $(JOB_COMPLETION_INDEX) in args expand whatever the cluster's version.
		Env: []corev1.EnvVar{{Name: IndexEnv, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{
			FieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}}},
		VolumeMounts: []corev1.VolumeMount{{Name: "plan", MountPath: PlanDir, ReadOnly: true}, {Name: "results", MountPath: ResultsDir}},
	}
	if o.Secret != "" {
		c.EnvFrom = []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: o.Secret}}}}
	}
	results := corev1.Volume{Name: "results", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}
	if o.ResultsPVC != "" {
		results.VolumeSource = corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: o.ResultsPVC}}
	}
	mode := batchv1.IndexedCompletion
	replace := batchv1.Failed
	deadline := int64(o.Deadline.Seconds())
	return &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: Name(o.Plan.Name, o.RunID), Namespace: o.Namespace, Labels: l},
		Spec: batchv1.JobSpec{
			CompletionMode: &mode,
			Completions:    &n, Parallelism: &n,
			// A shard that fails is not restarted: the others have moved on without it,
			// and the merge marks its iterations failed.
			BackoffLimitPerIndex:  ptr(int32(0)),
			PodReplacementPolicy:  &replace,
			ActiveDeadlineSeconds: &deadline,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: l},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
						// One shard per node: two on one node would share its CPU and NIC,
						// which is what sharding is to get away from.
						RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
							LabelSelector: &metav1.LabelSelector{MatchLabels: l},
							TopologyKey:   "kubernetes.io/hostname",
						}},
					}},
					Containers: []corev1.Container{c},
					Volumes: []corev1.Volume{
						{Name: "plan", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
							LocalObjectReference: corev1.LocalObjectReference{Name: configMap}, Items: items}}},
						results,
					},
				},
			},
		},
	}
}

func ptr[T any](v T) *T { return &v }
