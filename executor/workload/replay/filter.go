package replay

import (
	"slices"

	"github.com/quadrant-bench/quadrant/executor/traffic"
)

// filter is a replay's include/exclude lists and read_only, applied to each captured statement.
type filter struct {
	// readOnly is read_only's rule (executor/traffic's, which verify uses too); nil without it.
	readOnly         *traffic.ReadOnly
	include, exclude *matcher
}

type matcher struct {
	schemas, users []string
	ids            map[string]bool // fingerprint ids
}

func newMatcher(f *ReplayFilter) *matcher {
	if f == nil {
		return nil
	}
	m := &matcher{schemas: f.Schemas, users: f.Users}
	if len(f.Fingerprints) > 0 {
		m.ids = map[string]bool{}
		for _, fp := range f.Fingerprints {
			if isID(fp) {
				m.ids[fp] = true
			} else {
				m.ids[traffic.FingerprintID(traffic.Fingerprint(fp))] = true
			}
		}
	}
	return m
}

func isID(s string) bool {
	if len(s) != 13 || s[0] != 'q' {
		return false
	}
	for _, c := range s[1:] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// all: every list given matches; any: one of them does.
func (m *matcher) match(s *traffic.Statement, id string, all bool) bool {
	results := []bool{}
	if len(m.schemas) > 0 {
		results = append(results, slices.Contains(m.schemas, s.Schema))
	}
	if len(m.users) > 0 {
		results = append(results, slices.Contains(m.users, s.User))
	}
	if m.ids != nil {
		results = append(results, m.ids[id])
	}
	if all {
		return !slices.Contains(results, false)
	}
	return slices.Contains(results, true)
}

func newFilter(r *Replay) *filter {
	f := &filter{include: newMatcher(r.Include), exclude: newMatcher(r.Exclude)}
	if r.ReadOnly {
		f.readOnly = traffic.NewReadOnly()
	}
	return f
}

// id is the fingerprint's id when a list names fingerprints ("" otherwise: hashing every
// statement costs the replay's reader time for nothing).
func (f *filter) id(fp string) string {
	if f.include != nil && f.include.ids != nil || f.exclude != nil && f.exclude.ids != nil {
		return traffic.FingerprintID(fp)
	}
	return ""
}

// skip names the filter that leaves s out ("" keeps it). Called once per statement in
// captured order: it follows PREPARE and DEALLOCATE.
func (f *filter) skip(s *traffic.Statement, id string) string {
	switch {
	case f.include != nil && !f.include.match(s, id, true):
		return "include"
	case f.exclude != nil && f.exclude.match(s, id, false):
		return "exclude"
	case f.readOnly != nil && f.readOnly.Writes(s):
		return "read_only"
	}
	return ""
}
