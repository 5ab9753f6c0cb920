package reproduce

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/quadrant-bench/quadrant/reporters/axiseffects"
	"github.com/quadrant-bench/quadrant/results"
)

// Claim is one effect a folder states, for one metric, with what each recorded rerun of
// the folder found of it.
type Claim struct {
	Line   axiseffects.Line
	Metric string
	Reruns []Rerun
}

// Rerun is one record's verdict on a claim and where the rerun ran.
type Rerun struct {
	Verdict string
	Effect  results.ReproducedEffect
	Record  *results.Reproduction
}

// On is where a rerun ran, in a few words: "dbhost (MariaDB 11.4.2)".
func (r Rerun) On() string { return On(r.Record.Rerun.Environment) }

// Differs is the server variables that differed between the published folder and the
// rerun, a few of them: "db.innodb_buffer_pool_size 8388608 -> 134217728"; "" for none.
func (r Rerun) Differs() string {
	d := r.Record.Differences
	if len(d) == 0 {
		return ""
	}
	names := make([]string, 0, len(d))
	for k := range d {
		names = append(names, k)
	}
	sort.Strings(names)
	var parts []string
	for _, k := range names[:min(len(names), maxDiffers)] {
		parts = append(parts, k+" "+d[k][0]+" -> "+d[k][1])
	}
	if len(names) > maxDiffers {
		parts = append(parts, fmt.Sprintf("%d more", len(names)-maxDiffers))
	}
	return strings.Join(parts, ", ")
}

// maxDiffers is how many differing variables a rerun's line names.
const maxDiffers = 3

// On says an environment in a few words: the host and each target's server.
func On(env results.Environment) string {
	var servers []string
	for _, t := range env.Targets {
		s := strings.TrimSpace(t.Flavor + " " + t.ServerVersion)
		if s != "" && !containsString(servers, s) {
			servers = append(servers, s)
		}
	}
	if len(servers) == 0 {
		return env.Host
	}
	return env.Host + " (" + strings.Join(servers, ", ") + ")"
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// History is every effect run states with the verdicts of recs, the folder's records;
// notes say which records were left out and why (made against other results). nil claims
// without records.
func History(run *results.Run, recs []*results.Reproduction) (claims []Claim, notes []string) {
	id, err := results.FolderIdentity(run.Dir)
	if err != nil {
		return nil, []string{err.Error()}
	}
	var kept []*results.Reproduction
	for _, r := range recs {
		if r.Published.Identity != id {
			notes = append(notes, fmt.Sprintf("%s was made against other results (identity %s, this folder's %s): left out",
				filepath.Base(r.File), short(r.Published.Identity), short(id)))
			continue
		}
		kept = append(kept, r)
	}
	if len(kept) == 0 {
		return nil, notes
	}
	for _, l := range axiseffects.Compute(run) {
		for _, e := range l.Effects {
			c := Claim{Line: l, Metric: e.Metric}
			key := results.ReproducedEffect{Axis: l.Axis, Value: l.Value, Base: l.Base, At: l.At, Target: l.Target, Metric: e.Metric}.Key()
			for _, r := range kept {
				for _, re := range r.Effects {
					if re.Key() == key {
						c.Reruns = append(c.Reruns, Rerun{Verdict: re.Verdict, Effect: re, Record: r})
					}
				}
			}
			claims = append(claims, c)
		}
	}
	return claims, notes
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// Tally is "2 reproduced, 1 not reproduced" over the claim's reruns; "not rerun" for none.
func (c Claim) Tally() string {
	n := map[string]int{}
	for _, r := range c.Reruns {
		n[r.Verdict]++
	}
	var parts []string
	for _, v := range []string{Reproduced, NotReproduced, Inconclusive} {
		if n[v] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[v], v))
		}
	}
	if len(parts) == 0 {
		return "not rerun"
	}
	return strings.Join(parts, ", ")
}

// WriteHistory prints each claim with its reruns' verdicts and where they ran, under a
// heading naming the records; nothing without records. Escaped for a terminal.
func WriteHistory(w io.Writer, dir string, recs []*results.Reproduction, claims []Claim, notes []string) error {
	if len(recs) == 0 && len(notes) == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nreproductions of %s (%d records in %s/):\n", dir, len(recs), results.ReproductionsDir)
	for _, c := range claims {
		head := c.Line.Pair()
		if w := c.Line.Where(); w != "" {
			head += " at " + w
		}
		fmt.Fprintf(&b, "  %s, %s: %s\n", head, c.Metric, c.Tally())
		for _, r := range c.Reruns {
			fmt.Fprintf(&b, "    %-15s on %s, %s: %s", Label(r.Verdict), r.On(), r.Record.Rerun.Start.UTC().Format("2006-01-02 15:04"), rangeText(r.Effect.Rerun))
			if d := r.Differs(); d != "" {
				fmt.Fprintf(&b, "; settings that differed: %s", d)
			}
			b.WriteString("\n")
		}
	}
	for _, n := range notes {
		fmt.Fprintf(&b, "  note: %s\n", n)
	}
	_, err := io.WriteString(w, results.PrintableText(b.String()))
	return err
}

func rangeText(r results.EffectRange) string {
	switch {
	case r.Change == nil:
		return "no value"
	case r.Lo == nil || r.Hi == nil:
		return fmt.Sprintf("%+.1f%% (no interval)", *r.Change)
	}
	return fmt.Sprintf("%+.1f%% (95%% CI %+.1f to %+.1f%%)", *r.Change, *r.Lo, *r.Hi)
}
