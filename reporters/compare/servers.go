package compare

import (
	"fmt"

	"github.com/quadrant-bench/quadrant/results"
)

// hostNotes say which machine ran each run when they differ: the first question about a
// comparison across servers. Equal hosts say nothing.
func hostNotes(runs []*results.Run) []string {
	var out []string
	base := runs[0]
	for _, r := range runs[1:] {
		if r.Info.Host != base.Info.Host {
			out = append(out, fmt.Sprintf("host: %s ran on %s, %s on %s.", base.Dir, base.Info.Host, r.Dir, r.Info.Host))
		}
	}
	return out
}
