package compare

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/quadrant-bench/quadrant/results"
)

// settingDifferences are the variables that differ between two targets' starting snapshots,
// each in its group, and how many were hidden (instance paths and ids, variables only one
// server has outside the known groups).
func settingDifferences(a, b results.TargetInfo) ([]Difference, int) {
	va, vb := a.VariablesBefore, b.VariablesBefore
	if len(va) == 0 || len(vb) == 0 {
		return nil, 0
	}
	ra, rb := instanceRoot(va), instanceRoot(vb)
	d := results.DiffVariables(va, vb)
	var out []Difference
	hidden := 0
	for _, list := range [][]results.VarChange{d.Changed, d.Removed, d.Added} {
		for _, c := range list {
			name := strings.ToLower(c.Name)
			g := groupOf(name)
			switch {
			case g == "" || instanceNoise(name, c.Before, c.After, ra, rb):
				hidden++
			case g == Other && (!has(va, name) || !has(vb, name)):
				hidden++ // a variable of one server's version or plugins: the version says it
			default:
				out = append(out, difference(g, a.Name, c.Name, c.Before, c.After))
			}
		}
	}
	return out, hidden
}

func has(vars map[string]string, name string) bool {
	_, ok := lookupVar(vars, name)
	return ok
}

// storageDifferences compare where a target's data and binary log were in each run (the
// iterations' storage, distinct filesystems in order).
func storageDifferences(target string, a, b *results.Run) []Difference {
	var out []Difference
	for _, what := range []string{"datadir", "binary log"} {
		sa, sb := storageOf(a, target, what), storageOf(b, target, what)
		if sa == sb || sa == "" && sb == "" {
			continue
		}
		out = append(out, difference("storage", target, what+" storage", recorded(sa), recorded(sb)))
	}
	return out
}

// linkDifferences compare the links of a sandbox target (sandbox.links) as each run
// configured them, link by link (its shapes over the iterations, distinct, in order): a
// round trip added between the primary and a replica moves a semi-synchronous commit by as
// much.
func linkDifferences(target string, a, b *results.Run) []Difference {
	sa, sb := linksOf(a, target), linksOf(b, target)
	var names []string
	for _, m := range []map[string][]string{sa, sb} {
		for name := range m {
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	slices.Sort(names)
	var out []Difference
	for _, name := range names {
		la, lb := strings.Join(sa[name], ", then "), strings.Join(sb[name], ", then ")
		if la != lb {
			out = append(out, difference("network", target, "link "+name, la, lb))
		}
	}
	return out
}

// linksOf is each link of target's sandbox in run r, by name ("primary -> primary_replica1"),
// with its distinct configured shapes in order.
func linksOf(r *results.Run, target string) map[string][]string {
	out := map[string][]string{}
	for _, it := range r.Info.Iterations {
		for _, l := range it.Links {
			if l.Target != target {
				continue
			}
			if text := l.Configured.String(); !slices.Contains(out[l.Name()], text) {
				out[l.Name()] = append(out[l.Name()], text)
			}
		}
	}
	return out
}

func recorded(s string) string {
	if s == "" {
		return "not recorded"
	}
	return s
}

// storageOf is the filesystems a target's datadir (or binary log) was on in run r's
// iterations, "" when none was recorded.
func storageOf(r *results.Run, target, what string) string {
	var seen []string
	for _, it := range r.Info.Iterations {
		for _, st := range it.Storage {
			if st.Target != target {
				continue
			}
			text := storageText(st)
			if what != "datadir" {
				text = binlogText(r, target, st)
			}
			if text != "" && !slices.Contains(seen, text) {
				seen = append(seen, text)
			}
		}
	}
	return strings.Join(seen, ", then ")
}

// binlogText is the filesystem of an iteration's binary log; "no binary log" when the
// server had log_bin off, "" when not recorded (a folder from before it was).
func binlogText(r *results.Run, target string, st results.Storage) string {
	if st.Binlog != nil {
		return pathStorageText(*st.Binlog)
	}
	if t := targetNamed(r, target); t != nil {
		if v, ok := lookupVar(t.VariablesBefore, "log_bin"); ok && strings.EqualFold(v, "OFF") {
			return "no binary log"
		}
	}
	return ""
}

func lookupVar(vars map[string]string, name string) (string, bool) {
	for k, v := range vars {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return "", false
}

func pathStorageText(p results.PathStorage) string {
	if p.Filesystem == "" {
		return p.Path + " (filesystem unknown)"
	}
	return fmt.Sprintf("%s (%s at %s)", p.Filesystem, p.Device, p.Mount)
}

// hostDifferences compare two machines fact by fact (who: "server" or "client"); a machine
// recorded in one run only is one difference, with the other's reason when it has one.
func hostDifferences(target, who string, a, b *results.HostInfo, whyA, whyB string) []Difference {
	switch {
	case a == nil && b == nil:
		return nil
	case a == nil || b == nil:
		sa, sb := hostText(a, whyA), hostText(b, whyB)
		return []Difference{difference("machine", target, who+" machine", sa, sb)}
	}
	var out []Difference
	facts := []struct{ name, a, b string }{
		{"CPU model", a.CPUModel, b.CPUModel},
		{"CPUs", count(a.CPUs), count(b.CPUs)},
		{"memory", gib(a.MemoryBytes), gib(b.MemoryBytes)},
		{"virtualization", a.Virtualization, b.Virtualization},
		{"kernel", a.Kernel, b.Kernel},
	}
	for _, f := range facts {
		if f.a != f.b && f.a != "" && f.b != "" {
			out = append(out, difference("machine", target, who+" "+f.name, f.a, f.b))
		}
	}
	return out
}

func hostText(h *results.HostInfo, why string) string {
	if h != nil {
		return h.String()
	}
	if why != "" {
		return "not recorded (" + why + ")"
	}
	return "not recorded"
}

func count(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

func gib(b uint64) string {
	if b == 0 {
		return ""
	}
	return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
}

// versionDifferences compare the servers' flavor and version (the full @@version when the
// numbers agree), version_comment and version_compile_machine; a version that differs only by
// MySQL's "-log" suffix (the general or binary log on) is no other server, and goes with the
// other differences.
func versionDifferences(a, b results.TargetInfo) []Difference {
	var out []Difference
	va, vb := strings.TrimSpace(a.Flavor+" "+a.ServerVersion), strings.TrimSpace(b.Flavor+" "+b.ServerVersion)
	if va == vb {
		va, vb = versionFact(a, "version", ""), versionFact(b, "version", "")
	}
	switch {
	case va == vb || va == "" || vb == "":
	case strings.TrimSuffix(va, "-log") == strings.TrimSuffix(vb, "-log"):
		d := difference(Other, a.Name, "version", va, vb)
		d.Text += " (only the -log suffix the server adds while a log is on: see log_bin and general_log)"
		out = append(out, d)
	default:
		out = append(out, difference("version", a.Name, "version", va, vb))
	}
	for _, f := range []struct{ name, a, b string }{
		{"version_comment", versionFact(a, "version_comment", a.VersionComment), versionFact(b, "version_comment", b.VersionComment)},
		{"version_compile_machine", versionFact(a, "version_compile_machine", a.VersionMachine), versionFact(b, "version_compile_machine", b.VersionMachine)},
	} {
		if f.a != f.b && f.a != "" && f.b != "" {
			out = append(out, difference("version", a.Name, f.name, f.a, f.b))
		}
	}
	return out
}

// versionFact is run.json's field, or for an older folder the variable of the same name.
func versionFact(t results.TargetInfo, name, field string) string {
	if field != "" {
		return field
	}
	for k, v := range t.VariablesBefore {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

// loadDifferences compare the client's load in each run (the median over iterations of the
// load average at their start, per CPU): a difference when either run started its
// iterations on a machine busier than its CPUs, or the two differ by half a CPU's load or more.
func loadDifferences(a, b *results.Run) []Difference {
	la, ca, oka := startLoad(a)
	lb, cb, okb := startLoad(b)
	if !oka && !okb {
		return nil
	}
	text := func(l float64, cpus int, ok bool) string {
		if !ok {
			return "not recorded"
		}
		return fmt.Sprintf("%.1f on %d CPUs", l, cpus)
	}
	busyA, busyB := oka && la > float64(ca), okb && lb > float64(cb)
	busy := busyA || busyB
	apart := oka && okb && math.Abs(la/float64(ca)-lb/float64(cb)) >= 0.5
	ta, tb := text(la, ca, oka), text(lb, cb, okb)
	if ta == tb || !apart && busyA == busyB && oka == okb {
		return nil // a load both runs had alike is said by loadNote
	}
	d := difference("host load", "", "client load average at the iterations' start", ta, tb)
	if busy {
		d.Text += " (more load than CPUs: the client competed for them, and its figures are likely lower and noisier)"
	}
	return []Difference{d}
}

// startLoad is the median of run r's iterations' one-minute load average at their start,
// and the client's CPUs.
func startLoad(r *results.Run) (float64, int, bool) {
	var ls []float64
	cpus := 0
	for _, it := range r.Info.Iterations {
		if hl := it.HostLoad; hl != nil && hl.Start != nil && hl.CPUs > 0 {
			ls = append(ls, hl.Start.Load1)
			cpus = hl.CPUs
		}
	}
	if len(ls) == 0 {
		return 0, 0, false
	}
	sort.Float64s(ls)
	return ls[len(ls)/2], cpus, true
}

// loadNote says the client's load in each run when any of them started its iterations with
// more load than CPUs: even two equally busy runs measured a client short of CPU.
func loadNote(runs []*results.Run) string {
	var parts []string
	busy := false
	for _, r := range runs {
		l, cpus, ok := startLoad(r)
		if !ok {
			parts = append(parts, r.Dir+": not recorded")
			continue
		}
		busy = busy || l > float64(cpus)
		parts = append(parts, fmt.Sprintf("%s: %.1f on %d CPUs", r.Dir, l, cpus))
	}
	if !busy {
		return ""
	}
	return "client load average at the iterations' start (median): " + strings.Join(parts, "; ") +
		": more load than CPUs, so quadrant's workers competed for them and the figures are likely lower and noisier than the server's."
}
