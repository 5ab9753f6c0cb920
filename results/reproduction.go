package results

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// ReproductionFile is what a rerun writes into its own folder: its verdict on each effect
// of the folder it reran. ReproductionsDir, in a published folder, holds the records of its
// reruns (`rerun --record`, `compare --record`), one file each, committed next to it.
const (
	ReproductionFile = "reproduction.json"
	ReproductionsDir = "reproductions"
)

// maxReproductionBytes bounds a record read from a folder: a stranger's folder may hold
// anything under reproductions/, and a record of a large matrix is tens of kilobytes.
const maxReproductionBytes = 4 << 20

// Reproduction is one rerun's verdict on the effects a published folder states, with
// what it was run on, so the record explains itself next to the folder.
type Reproduction struct {
	Tool    string    `json:"tool"`
	Version string    `json:"version"` // quadrant's, of the rerun
	Created time.Time `json:"created"`
	// Rule says the rule's parameters in words (docs/reproduce.md).
	Rule      string             `json:"rule"`
	Published ReproducedFolder   `json:"published"`
	Rerun     ReproducedFolder   `json:"rerun"`
	Effects   []ReproducedEffect `json:"effects"`
	// Differences are the server variables whose values differ between the two folders'
	// targets of one name, "target.variable": [published, rerun] (at most a few dozen).
	Differences map[string][2]string `json:"differences,omitempty"`
	// Causes are the differences between the two runs most likely to move the numbers,
	// most likely first (compare's ranked differences, one line each): where to look first
	// when an effect did not reproduce.
	Causes []string `json:"candidate_causes,omitempty"`
	// File is where the record was read from (not written).
	File string `json:"-"`
}

// ReproducedFolder is one side of a reproduction: the folder, its identity and its
// environment as its run.json says it.
type ReproducedFolder struct {
	Dir         string      `json:"dir"`
	Identity    string      `json:"identity"` // FolderIdentity
	Plan        string      `json:"plan"`
	Start       time.Time   `json:"start"`
	Environment Environment `json:"environment"`
}

// Environment is what run.json records of where a run ran: the host, each target's server
// (its variables by digest) and whatever else run.json holds of the machine that this
// version does not know by name (Extra: run.json's other top-level fields, carried as they are).
type Environment struct {
	Host    string                     `json:"host"`
	Targets []TargetEnvironment        `json:"targets,omitempty"`
	Extra   map[string]json.RawMessage `json:"extra,omitempty"`
}

// TargetEnvironment is one target's server, its variables by digest (their differences
// between the folders are Reproduction.Differences).
type TargetEnvironment struct {
	Name            string                     `json:"name"`
	Kind            string                     `json:"kind,omitempty"`
	Flavor          string                     `json:"flavor,omitempty"`
	ServerVersion   string                     `json:"server_version,omitempty"`
	Hosting         string                     `json:"hosting,omitempty"`
	VariablesSHA256 string                     `json:"variables_sha256,omitempty"`
	Extra           map[string]json.RawMessage `json:"extra,omitempty"`
}

// ReproducedEffect is one published effect's verdict: which effect, both changes in
// percent with their 95% intervals, the difference's, and why.
type ReproducedEffect struct {
	Axis   string  `json:"axis"`
	Value  string  `json:"value"`
	Base   string  `json:"base"`
	At     []Field `json:"at,omitempty"`
	Target string  `json:"target"`
	Metric string  `json:"metric"`
	// Verdict is "reproduced", "not reproduced" or "inconclusive".
	Verdict   string      `json:"verdict"`
	Why       string      `json:"why"`
	Published EffectRange `json:"published"`
	Rerun     EffectRange `json:"rerun"`
	Diff      EffectRange `json:"difference"` // points
	Band      float64     `json:"band"`
	Marks     []string    `json:"marks,omitempty"`
}

// EffectRange is a change and its 95% interval; nil where there is none (JSON has no NaN).
type EffectRange struct {
	Change *float64 `json:"change"`
	Lo     *float64 `json:"lo"`
	Hi     *float64 `json:"hi"`
}

// Where is "threads=16" for the effect's other axes (and "@target" when it has one).
func (e ReproducedEffect) Where() string {
	var parts []string
	for _, f := range e.At {
		parts = append(parts, f.Name+"="+f.Value)
	}
	return strings.Join(parts, " ")
}

// Key matches a record's effect with an effect of the folder: pair, other axes, target, metric.
func (e ReproducedEffect) Key() string {
	return e.Axis + " " + e.Value + " vs " + e.Base + "\x00" + e.Where() + "\x00" + e.Target + "\x00" + e.Metric
}

// runJSONVolatile are run.json's fields that say how a folder was made or read, not what
// it measured: left out of its identity.
var runJSONVolatile = []string{"plan_file", "command"}

// FolderIdentity is the sha256 of a folder's results: summary.csv as it is and run.json
// without the fields that say how it was invoked (runJSONVolatile), in a canonical form
// (compact, keys sorted).
// The same results give the same identity wherever the folder was copied to.
func FolderIdentity(dir string) (string, error) {
	h := sha256.New()
	sum, err := ReadFileIn(dir, SummaryFile)
	if err != nil {
		return "", fmt.Errorf("identity of %s: %w", dir, err)
	}
	fields, err := runJSONFields(dir)
	if err != nil {
		return "", err
	}
	for _, k := range runJSONVolatile {
		delete(fields, k)
	}
	run, err := json.Marshal(fields) // a map's keys are written sorted
	if err != nil {
		return "", err
	}
	fmt.Fprintf(h, "%s\x00%d\x00", SummaryFile, len(sum))
	h.Write(sum)
	fmt.Fprintf(h, "\x00%s\x00%d\x00", RunFile, len(run))
	h.Write(run)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// runJSONFields is run.json's top-level fields, their values as written.
func runJSONFields(dir string) (map[string]json.RawMessage, error) {
	data, err := ReadFileIn(dir, RunFile)
	if err != nil {
		return nil, fmt.Errorf("%s is not a quadrant results folder: %w", dir, err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil, fmt.Errorf("%s: run.json: %w", dir, err)
	}
	for k, v := range fields { // canonical: the identity depends on no indentation or key order
		if c, err := canonicalJSON(v); err == nil {
			fields[k] = c
		}
	}
	return fields, nil
}

// canonicalJSON is v compact, every object's keys sorted, numbers as written.
func canonicalJSON(v json.RawMessage) (json.RawMessage, error) {
	d := json.NewDecoder(bytes.NewReader(v))
	d.UseNumber()
	var x any
	if err := d.Decode(&x); err != nil {
		return nil, err
	}
	return json.Marshal(x)
}

// runJSONKnown are the top-level fields of run.json that are not the environment, or are
// read into Environment by name; the others are carried in Environment.Extra.
var runJSONKnown = []string{"tool", "version", "plan", "plan_file", "plan_sha256", "plan_identity", "overrides", "labels",
	"axes", "order", "host", "command", "start", "end", "status", "error", "report", "targets", "iterations", "shard",
	"snapshots", "metrics", "tables"}

// targetJSONKnown are the same for a target.
var targetJSONKnown = []string{"name", "kind", "address", "flavor", "server_version", "hosting", "hosting_evidence",
	"variables_before", "variables_after", "watched", "tls"}

// EnvironmentOf is the environment of the folder at dir as its run.json records it.
func EnvironmentOf(dir string) (Environment, error) {
	fields, err := runJSONFields(dir)
	if err != nil {
		return Environment{}, err
	}
	var info RunInfo
	if err := json.Unmarshal(mustJSON(fields), &info); err != nil {
		return Environment{}, fmt.Errorf("%s: run.json: %w", dir, err)
	}
	env := Environment{Host: info.Host, Extra: unknown(fields, runJSONKnown)}
	var rawTargets []map[string]json.RawMessage
	_ = json.Unmarshal(fields["targets"], &rawTargets)
	for i, t := range info.Targets {
		te := TargetEnvironment{Name: t.Name, Kind: t.Kind, Flavor: t.Flavor, ServerVersion: t.ServerVersion, Hosting: t.Hosting,
			VariablesSHA256: variablesDigest(t.VariablesBefore)}
		if i < len(rawTargets) {
			te.Extra = unknown(rawTargets[i], targetJSONKnown)
		}
		env.Targets = append(env.Targets, te)
	}
	return env, nil
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func unknown(fields map[string]json.RawMessage, known []string) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for k, v := range fields {
		if !contains(known, k) {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// variablesDigest is the sha256 of NAME=VALUE lines, sorted; "" for none.
func variablesDigest(vars map[string]string) string {
	if len(vars) == 0 {
		return ""
	}
	names := make([]string, 0, len(vars))
	for k := range vars {
		names = append(names, k)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, k := range names {
		fmt.Fprintf(h, "%s=%s\n", k, vars[k])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// RecordName is the file name of a record in a published folder's ReproductionsDir: the
// rerun's start and host, so several reruns sit side by side and sort by time.
func RecordName(r *Reproduction) string {
	return fmt.Sprintf("%s-%s.json", r.Rerun.Start.UTC().Format("20060102-150405"), FileName(r.Rerun.Environment.Host))
}

// WriteReproduction writes r to path (atomically).
func WriteReproduction(path string, r *Reproduction) error {
	return WriteJSON(path, r)
}

// RecordInto writes r into the published folder dir's ReproductionsDir under RecordName
// and returns the path. The folder may be a stranger's: a ReproductionsDir planted as a
// symbolic link (to /etc, say) is refused rather than written through.
func RecordInto(dir string, r *Reproduction) (string, error) {
	rd := filepath.Join(dir, ReproductionsDir)
	if fi, err := os.Lstat(rd); err == nil && !fi.IsDir() {
		return "", notOwn(rd, "not a directory (a symbolic link?)")
	}
	if err := os.Mkdir(rd, 0o755); err != nil && !os.IsExist(err) {
		return "", err
	}
	path := filepath.Join(rd, RecordName(r))
	return path, WriteReproduction(path, r)
}

// readReproduction reads the record rel of the folder dir through the folder's root (OpenIn:
// a symbolic or hard link out of a stranger's folder is refused), and no larger than a
// record can be.
func readReproduction(dir, rel string) (*Reproduction, error) {
	f, err := OpenIn(dir, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	path := filepath.Join(dir, rel)
	data, err := io.ReadAll(io.LimitReader(f, maxReproductionBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxReproductionBytes {
		return nil, fmt.Errorf("%s: larger than %d MiB, not a reproduction record", path, maxReproductionBytes>>20)
	}
	var r Reproduction
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: not a reproduction record: %w", path, err)
	}
	r.File = path
	return &r, nil
}

// Reproductions reads the records in dir's ReproductionsDir, oldest rerun first; a record
// that cannot be read is a warning, not an error: the folder's own results stand without it.
// The directory and each record are read through the folder's root, as every reader does.
func Reproductions(dir string) (recs []*Reproduction, warnings []string) {
	entries, err := ReadDirIn(dir, ReproductionsDir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, []string{err.Error()}
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		r, err := readReproduction(dir, filepath.Join(ReproductionsDir, e.Name()))
		if err != nil {
			warnings = append(warnings, err.Error())
			continue
		}
		recs = append(recs, r)
	}
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].Rerun.Start.Before(recs[j].Rerun.Start) })
	return recs, warnings
}
