package measure

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// FormatLine renders iv like a sysbench interval line:
//
//	[ 10s ] thds: 16 tps: 1234.56 qps: 24691.20 (r/w/o: 17283.84/4938.24/2469.12) lat (ms,95%): 8.43 err/s: 0.00 reconn/s: 0.00
//
// Warmup intervals show a negative elapsed time and "(warmup)"; open-loop
// intervals append the backlog as sysbench's "queue".
func FormatLine(iv *Interval, openLoop bool) string {
	r := iv.Rates()
	var b strings.Builder
	fmt.Fprintf(&b, "[ %ss ] thds: %d tps: %.2f qps: %.2f (r/w/o: %.2f/%.2f/%.2f) lat (ms,95%%): %.2f err/s: %.2f reconn/s: %.2f",
		fmtSeconds(iv.Elapsed), iv.Threads, r.TPS, r.QPS, r.Reads, r.Writes, r.Other,
		Ms(iv.Lat.P95), r.Errors, r.Reconnects)
	if openLoop {
		fmt.Fprintf(&b, " queue: %d", iv.Backlog)
	}
	if iv.Warmup {
		b.WriteString(" (warmup)")
	}
	return b.String()
}

func fmtSeconds(d time.Duration) string {
	if d%time.Second == 0 {
		return strconv.FormatInt(int64(d/time.Second), 10)
	}
	return strconv.FormatFloat(d.Seconds(), 'f', 1, 64)
}
