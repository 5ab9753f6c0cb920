package watch

import (
	"fmt"
	"strings"
)

// ColumnsMarkdown is the part of docs/metrics.md that lists the columns the samplers of
// kinds name themselves (SamplerKind.Columns), one section per such sampler, in the order
// given: what each column is, its unit, and whether its time series is a per-second rate
// over the interval (a counter) or the value read at the tick (a gauge).
func ColumnsMarkdown(kinds []*SamplerKind) []byte {
	var b strings.Builder
	for _, k := range kinds {
		if len(k.Columns) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n## Watched: %s (`%s*`)\n\n%s.\n\n", k.Name, k.Produces, upperFirst(k.Doc))
		b.WriteString("A counter's time series is its increase over the interval per second; its summary, the increase over the measured part. " +
			"A gauge's time series is the value read at the tick; its summary, the last value read.\n\n" +
			"| column | kind | time series | summary | meaning |\n| --- | --- | --- | --- | --- |\n")
		for _, c := range k.Columns {
			ts, sum := c.Unit, c.Unit
			if c.Kind == Counter {
				ts = perSecond(c.Unit) + ", rate over the interval"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", c.Name, c.Kind, ts, sum, c.Doc)
		}
	}
	return []byte(b.String())
}

// perSecond is unit per second: s/s, 1/s for a count.
func perSecond(unit string) string {
	if unit == "" || unit == "count" {
		return "1/s"
	}
	return unit + "/s"
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
