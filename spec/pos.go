package spec

import (
	"fmt"
	"sort"
	"strings"
)

// Pos is a place in a plan source: a file (or "builtin:NAME", or "--set"), a 1-based line and column.
// Line 0 means the position is unknown (e.g. a value given on the command line).
type Pos struct {
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"col,omitempty"`
}

func (p Pos) String() string {
	switch {
	case p.Line == 0:
		return p.File
	case p.Col == 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// IsValid reports whether the position points into a source.
func (p Pos) IsValid() bool { return p.File != "" }

// Error is one problem in a plan, at a position.
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string {
	if !e.Pos.IsValid() {
		return e.Msg
	}
	return e.Pos.String() + ": " + e.Msg
}

// Errors is every problem found in a plan, sorted by position. Load returns it as its error.
type Errors []*Error

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// errorList collects problems while a plan is loaded. The same problem found again
// (e.g. in every iteration of a matrix) is kept once.
type errorList struct {
	errs []*Error
	seen map[string]bool
}

func (l *errorList) add(p Pos, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	key := p.String() + "\x00" + msg
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	if l.seen[key] {
		return
	}
	l.seen[key] = true
	l.errs = append(l.errs, &Error{Pos: p, Msg: msg})
}

func (l *errorList) len() int { return len(l.errs) }

// result returns the sorted errors, or nil when there are none.
// files orders the sources: the plan first, then what it extends, then the rest by name.
func (l *errorList) result(files []string) error {
	if len(l.errs) == 0 {
		return nil
	}
	rank := map[string]int{}
	for i, f := range files {
		if _, ok := rank[f]; !ok {
			rank[f] = i
		}
	}
	es := append(Errors(nil), l.errs...)
	sort.SliceStable(es, func(i, j int) bool {
		a, b := es[i].Pos, es[j].Pos
		ra, oka := rank[a.File]
		rb, okb := rank[b.File]
		if !oka {
			ra = len(files)
		}
		if !okb {
			rb = len(files)
		}
		if ra != rb {
			return ra < rb
		}
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	return es
}

// Suggest returns `; did you mean "X"?` for the candidate closest to word, or "": the one
// spelling check every part of quadrant uses for names (kinds' options, status variables).
func Suggest(word string, candidates []string) string { return suggest(word, candidates) }

// Closest is the candidate nearest to word however far it is ("" for none): where the
// candidates are all a server has (its status variables), the nearest of them tells the user
// what to look for even when no spelling is close.
func Closest(word string, candidates []string) string {
	best, bestD := "", 1<<30
	for _, c := range candidates {
		d := editDistance(strings.ToLower(word), strings.ToLower(c))
		if d < bestD || (d == bestD && c < best) {
			best, bestD = c, d
		}
	}
	return best
}

// suggest returns ` did you mean "X"?` for the closest candidate, or "".
func suggest(word string, candidates []string) string {
	best, bestD := "", 1<<30
	for _, c := range candidates {
		d := editDistance(strings.ToLower(word), strings.ToLower(c))
		if d < bestD || (d == bestD && c < best) {
			best, bestD = c, d
		}
	}
	limit := 2
	if len(word) > 6 {
		limit = 3
	}
	if best == "" || bestD > limit || bestD >= len(word) {
		// "p99" for "p99_ms": a prefix is a likely abbreviation
		for _, c := range candidates {
			if len(word) >= 2 && strings.HasPrefix(c, word) {
				return fmt.Sprintf("; did you mean %q?", c)
			}
		}
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

// editDistance is the optimal string alignment distance: a swap of two neighbours
// ("thraeds") counts as one edit, as DBAs' typos usually are.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// Tidy returns es with repeats dropped (the same problem found in every iteration of a
// matrix) and sorted by position, or nil when there is none.
func (es Errors) Tidy() error {
	var l errorList
	for _, e := range es {
		l.add(e.Pos, "%s", e.Msg)
	}
	var files []string
	for _, e := range l.errs {
		files = append(files, e.Pos.File)
	}
	return l.result(files)
}
