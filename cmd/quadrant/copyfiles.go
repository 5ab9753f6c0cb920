package main

import (
	"fmt"
	"strings"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec"
)

// defaultCopyLimit is the largest data file a run copies into its results folder without
// --copy-limit: 1 GiB holds any schema, traffic capture or dump a folder is shared with,
// and a stranger's folder naming a 1 GB sql_file once made every rerun copy it again.
const defaultCopyLimit = 1 << 30

// sizeFlag is a byte count given as 512M, 4G or a plain number; 0 means no limit.
type sizeFlag struct {
	n   int64
	set bool
}

func (s *sizeFlag) String() string {
	if s == nil || !s.set {
		return "1G"
	}
	return fmt.Sprint(s.n)
}

func (s *sizeFlag) Set(v string) error {
	n, ok := spec.ParseSize(v)
	if !ok {
		return fmt.Errorf("%q is not a size: give bytes, or a number with K, M, G or T, e.g. 4G (0: no limit)", v)
	}
	s.n, s.set = n, true
	return nil
}

// limit is the flag's value, the default when it was not given.
func (s *sizeFlag) limit() int64 {
	if !s.set {
		return defaultCopyLimit
	}
	return s.n
}

// checkCopies refuses, before anything runs, the data files the run would copy into its
// results folder that are larger than limit (0: none is) or that lead out of the plan's
// roots; it opens each through them, as copyPlanFiles will.
func checkCopies(p *spec.Plan, limit int64) error {
	roots := p.Roots()
	var big []string
	largest := int64(0)
	for _, f := range p.DataFiles() {
		in, err := roots.Open(f.Path)
		if err != nil {
			continue // the trust check or the step says why; copyPlanFiles warns
		}
		fi, err := in.Stat()
		in.Close()
		if err == nil && limit > 0 && fi.Size() > limit {
			largest = max(largest, fi.Size())
			big = append(big, fmt.Sprintf("%s (%s, %d bytes)", f.File, humanBytes(fi.Size()), fi.Size()))
		}
	}
	if len(big) == 0 {
		return nil
	}
	return fmt.Errorf("the run would copy into its results folder %s, larger than the %s --copy-limit allows; pass --copy-limit %s (or 0 for no limit) to copy it",
		strings.Join(big, ", "), humanBytes(limit), fmt.Sprintf("%dG", largest>>30+1))
}

// humanBytes says n in the largest binary unit that keeps it above 1.
func humanBytes(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	f, i := float64(n), 0
	for f >= 1024 && i < len(units)-1 {
		f, i = f/1024, i+1
	}
	return fmt.Sprintf("%.1f %s", f, units[i])
}

// copyPlanFiles copies the data files the plan reads (sql_file, replay) into the results
// folder at the same relative paths, so `quadrant rerun DIR` finds them there. Each is
// opened through the plan's roots: a symlink out (sql_file: shadowlink.sql to /etc/shadow)
// is refused, never followed, and a file others cannot read is copied 0600.
func copyPlanFiles(p *spec.Plan, w *results.Writer) error {
	roots := p.Roots()
	var missing []string
	for _, f := range p.DataFiles() {
		in, err := roots.Open(f.Path)
		if err != nil {
			missing = append(missing, fmt.Sprintf("%s (%v)", f.File, err))
			continue
		}
		err = w.CopyInFrom(f.File, in)
		in.Close()
		if err != nil {
			missing = append(missing, err.Error())
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("not copied into the results, a rerun will need them: %s", strings.Join(missing, ", "))
	}
	return nil
}
