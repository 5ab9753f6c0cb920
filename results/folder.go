// Package results writes and reads a quadrant results folder. Every report (HTML,
// per-variable files, compare) is rebuilt from what this package reads back, so a
// colleague's folder is as good as one's own.
package results

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// File names of the folder (docs/results.md).
const (
	PlanFile      = "plan.yaml"
	RunFile       = "run.json"
	SummaryFile   = "summary.csv"
	LogFile       = "log.txt"
	TimeseriesDir = "timeseries"
	HistogramsDir = "histograms"
	ReportFile    = "report.html"
	VariablesDir  = "variables"
	// ComparisonText and ComparisonPage are what a rerun writes: the folder it reran
	// against this one, as `quadrant compare` prints it and as a page.
	ComparisonText = "comparison.txt"
	ComparisonPage = "comparison.html"
	// GateMarkdown and GateJUnit are what run and rerun with --fail-on write: the CI gate's
	// summary and its JUnit XML.
	GateMarkdown = "gate.md"
	GateJUnit    = "gate-junit.xml"
	// SummaryJSON is summary.csv's rows as JSON objects, what the json report writes.
	SummaryJSON = "summary.json"
)

// Writer owns an open results folder while a run writes it.
type Writer struct {
	Dir string

	mu         sync.Mutex
	log        *os.File
	summary    *Table
	timeseries map[string]*Table
	extra      map[string]*Table  // digests.csv, waits.csv: opened when first written
	last       map[string]lastRow // per target
}

// NewDir picks DIR/NAME/YYYYmmdd-HHMMSS under root, adding -2, -3... when two runs
// start in the same second.
func NewDir(root, plan string, start time.Time) (string, error) {
	base := filepath.Join(root, plan, start.Format("20060102-150405"))
	dir := base
	for i := 2; ; i++ {
		err := os.MkdirAll(filepath.Dir(dir), 0o755)
		if err == nil {
			err = os.Mkdir(dir, 0o755)
		}
		if err == nil {
			return dir, nil
		}
		if !os.IsExist(err) {
			return "", fmt.Errorf("create results folder: %w", err)
		}
		dir = fmt.Sprintf("%s-%d", base, i)
	}
}

// NewShardDir creates the folder of shard k of n of run runID: ROOT/PLAN/RUNID/shard-K,
// a place known in advance, so the shards of one run sit side by side on a shared volume
// and `quadrant merge ROOT/PLAN/RUNID/shard-*` finds them. It refuses an existing folder:
// a run id is used once.
func NewShardDir(root, plan, runID string, k int) (string, error) {
	if runID == "" || strings.ContainsAny(runID, `/\`) || runID == "." || runID == ".." {
		return "", fmt.Errorf("run id %q: give a name without slashes, e.g. --run-id 20261130-1", runID)
	}
	dir := filepath.Join(root, plan, runID, fmt.Sprintf("shard-%d", k))
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", fmt.Errorf("create results folder: %w", err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		if os.IsExist(err) {
			return "", fmt.Errorf("%s exists: run id %s was used before; give each run its own --run-id", dir, runID)
		}
		return "", fmt.Errorf("create results folder: %w", err)
	}
	return dir, nil
}

// Create opens dir (made by NewDir, or an interrupted run's folder being resumed) for writing.
func Create(dir string) (*Writer, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create results folder: %w", err)
	}
	if err := checkOwnDirs(dir); err != nil {
		return nil, err
	}
	lf, err := openOwn(filepath.Join(dir, LogFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", LogFile, err)
	}
	sum, err := OpenTable(filepath.Join(dir, SummaryFile))
	if err != nil {
		lf.Close()
		return nil, err
	}
	return &Writer{Dir: dir, log: lf, summary: sum, timeseries: map[string]*Table{}, extra: map[string]*Table{}, last: map[string]lastRow{}}, nil
}

// WritePlan stores the resolved plan (secrets already replaced by ***).
func (w *Writer) WritePlan(yaml []byte) error {
	return WriteFileAtomic(filepath.Join(w.Dir, PlanFile), yaml)
}

// Logf appends one timestamped line to log.txt.
func (w *Writer) Logf(format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.log.WriteString(logLine(format, args...)) // its error is ignored: the log is best effort; measurements are not
}

// AppendLog appends one timestamped line to the log.txt of a folder whose Writer is closed:
// what happens after the run (the reports written from the folder) belongs in its log too.
func AppendLog(dir, format string, args ...any) error {
	f, err := openOwn(filepath.Join(dir, LogFile), os.O_WRONLY|os.O_APPEND)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(logLine(format, args...)); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func logLine(format string, args ...any) string {
	return time.Now().UTC().Format("2006-01-02T15:04:05.000Z ") + strings.TrimRight(fmt.Sprintf(format, args...), "\n") + "\n"
}

// Sync pushes every table to stable storage (end of an iteration).
func (w *Writer) Sync() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	err := w.summary.Sync()
	for _, t := range w.timeseries {
		if e := t.Sync(); err == nil {
			err = e
		}
	}
	for _, t := range w.extra {
		if e := t.Sync(); err == nil {
			err = e
		}
	}
	return err
}

// Close flushes and closes every file.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	err := w.summary.Close()
	for _, t := range w.timeseries {
		if e := t.Close(); err == nil {
			err = e
		}
	}
	for _, t := range w.extra {
		if e := t.Close(); err == nil {
			err = e
		}
	}
	if e := w.log.Close(); err == nil {
		err = e
	}
	return err
}

var safeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// FileName turns a variable name (status.Com_select) into a safe file name.
func FileName(name string) string { return safeName.ReplaceAllString(name, "_") }

// Targets lists the targets that have a time series in dir, sorted.
func Targets(dir string) ([]string, error) {
	entries, err := ReadDirIn(dir, TimeseriesDir)
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".csv"); ok && !e.IsDir() {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out, nil
}

// SavedDir holds the result sets of sql steps with save_as.
const SavedDir = "saved"

// SaveResult writes a result set kept by a step's save_as, as saved/NAME-iteration-N.csv
// (iteration 0 is setup and teardown).
func (w *Writer) SaveResult(name string, iteration int, columns []string, rows [][]string) error {
	var b strings.Builder
	cw := csv.NewWriter(&b)
	cw.Write(columns)
	cw.WriteAll(rows)
	if err := cw.Error(); err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(w.Dir, SavedDir, fmt.Sprintf("%s-iteration-%d.csv", FileName(name), iteration)), []byte(b.String()))
}

// KeepIterations rewrites summary.csv and every time series without the rows of
// iterations not in keep: a resumed run reruns those from the start.
func KeepIterations(dir string, keep map[int]bool) error {
	rels := []string{SummaryFile, DigestsFile, WaitsFile}
	targets, err := Targets(dir)
	if err != nil {
		return err
	}
	for _, t := range targets {
		rels = append(rels, filepath.Join(TimeseriesDir, t+".csv"))
	}
	for _, rel := range rels {
		p := filepath.Join(dir, rel)
		header, rows, err := ReadTableIn(dir, rel)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		col := -1
		for i, h := range header {
			if h == "iteration" {
				col = i
			}
		}
		if col < 0 {
			continue
		}
		var b strings.Builder
		cw := csv.NewWriter(&b)
		cw.Write(header)
		for _, row := range rows {
			if n, _ := strconv.Atoi(row[col]); keep[n] {
				cw.Write(row)
			}
		}
		cw.Flush()
		if err := WriteFileAtomic(p, []byte(b.String())); err != nil {
			return err
		}
	}
	return nil
}

// CopyIn copies a file the plan reads (rel, as the plan names it relative to itself; src,
// where it is) into the folder at the same relative path, so a rerun from the folder finds
// it. A path outside the plan's folder cannot be placed so and is refused.
func (w *Writer) CopyIn(rel, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("%s (%v)", rel, err)
	}
	defer in.Close()
	return w.CopyInFrom(rel, in)
}

// CopyInFrom copies the open file in (opened by the caller through the plan's roots) to
// rel in the folder, through the folder's root so no link planted in it is followed. A
// source others cannot read stays so: its copy is 0600, else 0644.
func (w *Writer) CopyInFrom(rel string, in *os.File) error {
	clean := filepath.Clean(rel)
	if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return fmt.Errorf("%s (outside the plan's folder)", rel)
	}
	mode := os.FileMode(0o644)
	if fi, err := in.Stat(); err != nil || fi.Mode().Perm()&0o004 == 0 {
		mode = 0o600
	}
	root, err := os.OpenRoot(w.Dir)
	if err != nil {
		return fmt.Errorf("%s (%v)", rel, err)
	}
	defer root.Close()
	if err := root.MkdirAll(filepath.Dir(clean), 0o755); err != nil {
		return fmt.Errorf("%s (%v)", rel, err)
	}
	root.Remove(clean) // a file or link already there is replaced, never written through
	out, err := root.OpenFile(clean, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return fmt.Errorf("%s (%v)", rel, err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("%s (%v)", rel, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("%s (%v)", rel, err)
	}
	return nil
}

// WriteError is a failure to write a file of the results folder, said so that a full disk
// reads as one: nothing measured after it can be kept, so a run stops on it.
type WriteError struct {
	Dir, File string // the folder, and the file's path inside it
	Err       error
}

func (e *WriteError) Error() string {
	if errors.Is(e.Err, syscall.ENOSPC) {
		return fmt.Sprintf("no space left on %s while writing %s", filesystemOf(e.Dir), e.File)
	}
	return fmt.Sprintf("cannot write %s in %s: %v", e.File, e.Dir, e.Err)
}

func (e *WriteError) Unwrap() error { return e.Err }

// writeError wraps err (nil stays nil) as a WriteError of file.
func (w *Writer) writeError(file string, err error) error {
	if err == nil {
		return nil
	}
	return &WriteError{Dir: w.Dir, File: file, Err: err}
}

// filesystemOf names the filesystem that holds dir by its mount point: the highest
// directory above dir on the same device.
func filesystemOf(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	var st syscall.Stat_t
	if syscall.Stat(abs, &st) != nil {
		return dir
	}
	mount := abs
	for p := filepath.Dir(abs); p != mount; p = filepath.Dir(p) {
		var up syscall.Stat_t
		if syscall.Stat(p, &up) != nil || up.Dev != st.Dev {
			break
		}
		mount = p
	}
	return "the filesystem mounted at " + mount
}
