package results

import (
	"sort"
	"strings"
)

// VolatileVariables move by themselves as transactions commit (GTID positions); DiffVariables ignores them so
// that a diff shows only settings. The snapshots still hold them.
var VolatileVariables = []string{
	"gtid_binlog_pos", "gtid_binlog_state", "gtid_current_pos", "gtid_slave_pos", "gtid_executed", "gtid_purged",
}

// VarChange is one variable that differs between two snapshots. Before is empty for an added variable
// (plugin loaded), After for a removed one.
type VarChange struct {
	Name   string `json:"name"`
	Before string `json:"before"`
	After  string `json:"after"`
}

// VarDiff is what changed between two snapshots, sorted by name, ready for run.json.
type VarDiff struct {
	Changed []VarChange `json:"changed,omitempty"`
	Added   []VarChange `json:"added,omitempty"`
	Removed []VarChange `json:"removed,omitempty"`
}

// Empty reports whether nothing changed.
func (d VarDiff) Empty() bool { return len(d.Changed)+len(d.Added)+len(d.Removed) == 0 }

// DiffVariables compares two snapshots, case-insensitively by name, ignoring VolatileVariables.
func DiffVariables(before, after map[string]string) VarDiff {
	skip := map[string]bool{}
	for _, n := range VolatileVariables {
		skip[n] = true
	}
	b, a := lowerKeys(before), lowerKeys(after)
	var d VarDiff
	for k, bv := range b {
		if skip[k] {
			continue
		}
		av, ok := a[k]
		switch {
		case !ok:
			d.Removed = append(d.Removed, VarChange{Name: bv.name, Before: bv.value})
		case av.value != bv.value:
			d.Changed = append(d.Changed, VarChange{Name: av.name, Before: bv.value, After: av.value})
		}
	}
	for k, av := range a {
		if _, ok := b[k]; !ok && !skip[k] {
			d.Added = append(d.Added, VarChange{Name: av.name, After: av.value})
		}
	}
	for _, l := range [][]VarChange{d.Changed, d.Added, d.Removed} {
		sort.Slice(l, func(i, j int) bool { return l[i].Name < l[j].Name })
	}
	return d
}

type namedValue struct{ name, value string }

func lowerKeys(m map[string]string) map[string]namedValue {
	out := make(map[string]namedValue, len(m))
	for k, v := range m {
		out[strings.ToLower(k)] = namedValue{k, v}
	}
	return out
}
