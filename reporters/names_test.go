package reporters

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/results/measure"
)

// columnNames are the names no reporter may spell itself: every column the metric table
// writes (measure.Metrics, the families' fixed names, measure.Costs and the counters they
// divide) and the row keys results names. A reporter asks results (Describe, the Col*
// constants, Throughput, Transactions) or measure instead, so that adding a metric row needs
// nothing else.
func columnNames() map[string]bool {
	names := map[string]bool{}
	for _, m := range measure.Metrics {
		names[m.Name] = true
	}
	for _, f := range measure.Families {
		for _, n := range f.Names {
			names[n] = true
		}
	}
	for _, c := range measure.Costs {
		names[c.Name] = true
		for _, f := range c.From {
			names[f] = true
		}
	}
	for _, n := range []string{results.ColIteration, results.ColRepeat, results.ColTarget, results.ColStatus, results.ColDuration,
		results.ColElapsed, results.ColTime, results.ColStage, results.ColWarmup, results.ColFingerprintID, results.ColFingerprint,
		results.ColFingerprintP95, results.ColErrorsByCode, results.ColStageThreads, results.ColStageRate} {
		names[n] = true
	}
	return names
}

// columnPrefixes start the names of the families and the watched columns: a literal that
// starts with one ("cost.", "status.Com_select") is a column name spelled by hand.
func columnPrefixes() []string {
	out := append([]string{results.CostPrefix, "snmp."}, results.WatchedPrefixes...)
	for _, f := range measure.Families {
		if f.Prefix != "" {
			out = append(out, f.Prefix+".")
		}
	}
	return out
}

// allowed are the literals that equal a column name without being one, by file (relative to
// reporters/) and literal, each with why.
var allowed = map[string]map[string]string{
	"verifyfolder/checks.go": {
		// The noun of the verdict sentence ("3 of 212 fingerprints return different
		// results"), English rather than a column read.
		"fingerprint": "verdict sentence's noun",
	},
	"html/assets/evidence.js": {
		// The heading of the digests table's column of performance_schema's SUM_ERRORS for a
		// statement class (digests.csv), drawn from the digest's own field: no metric column.
		"errors": "digests table heading",
	},
	"html/assets/report.js": {
		// The CSS class of a target's section of the over-time charts, which the page's
		// style and the tests select: no column.
		"target": "CSS class",
	},
	"sqlexport/sqlexport.go": {
		// quadrant_runs' status column holds run.json's status of the run, a column of the
		// SQL table (Schema) rather than of summary.csv.
		"status": "quadrant_runs.status",
	},
}

// writers are directories that write folders for the tests as the executor would (matrix
// axes, watched columns and their values by name): what they spell is the data under test,
// not a reporter reading a column.
var writers = map[string]string{
	"internal/fixture/": "the tests' folders, written as the executor writes them",
}

var jsString = regexp.MustCompile(`"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'`)

// TestReportersNameNoColumn fails when a non-test source of reporters/ (Go or the report's
// JavaScript) spells a column name of the metric table or a row key as a quoted literal.
// Struct tags (the page data's own JSON field names) and import paths are not literals here.
func TestReportersNameNoColumn(t *testing.T) {
	names, prefixes := columnNames(), columnPrefixes()
	bad := func(lit string) bool {
		if names[lit] {
			return true
		}
		for _, p := range prefixes {
			if strings.HasPrefix(lit, p) {
				return true
			}
		}
		return false
	}
	var hits []string
	used := map[string]bool{}
	check := func(rel string, line int, lit string) {
		if !bad(lit) {
			return
		}
		if _, ok := allowed[rel][lit]; ok {
			used[rel+"\x00"+lit] = true
			return
		}
		hits = append(hits, rel+":"+strconv.Itoa(line)+": "+strconv.Quote(lit))
	}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		rel := filepath.ToSlash(path)
		for dir := range writers {
			if strings.HasPrefix(rel, dir) {
				return nil
			}
		}
		switch {
		case strings.HasSuffix(rel, "_test.go"):
		case strings.HasSuffix(rel, ".go"):
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			tags := map[*ast.BasicLit]bool{}
			ast.Inspect(f, func(n ast.Node) bool {
				if fd, ok := n.(*ast.Field); ok && fd.Tag != nil {
					tags[fd.Tag] = true
				}
				return true
			})
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.ImportSpec:
					return false
				case *ast.BasicLit:
					if n.Kind == token.STRING && !tags[n] {
						if s, err := strconv.Unquote(n.Value); err == nil {
							check(rel, fset.Position(n.Pos()).Line, s)
						}
					}
				}
				return true
			})
		case strings.HasSuffix(rel, ".js") && !strings.HasSuffix(rel, ".min.js"):
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for i, line := range strings.Split(string(data), "\n") {
				if strings.HasPrefix(strings.TrimSpace(line), "//") {
					continue
				}
				for _, m := range jsString.FindAllStringSubmatch(line, -1) {
					check(rel, i+1, m[1]+m[2])
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) > 0 {
		sort.Strings(hits)
		t.Errorf("column names spelled in reporters (ask results.Describe, the results.Col* names, or hand the page the name):\n%s",
			strings.Join(hits, "\n"))
	}
	for file, lits := range allowed {
		for lit := range lits {
			if !used[file+"\x00"+lit] {
				t.Errorf("allowed %q in %s is no longer there: drop it from the allowlist", lit, file)
			}
		}
	}
}
