package link

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// rateUnits are the units a bandwidth is written in, as bytes per second each: bits as
// network people write them (decimal: 1Mbit is 1,000,000 bits a second, tc's mbit) and
// bytes per second (decimal MB/s, binary MiB/s).
var rateUnits = map[string]float64{
	"bit": 1.0 / 8, "kbit": 1e3 / 8, "mbit": 1e6 / 8, "gbit": 1e9 / 8,
	"bps": 1.0 / 8, "kbps": 1e3 / 8, "mbps": 1e6 / 8, "gbps": 1e9 / 8,
	"b/s": 1, "kb/s": 1e3, "mb/s": 1e6, "gb/s": 1e9,
	"kib/s": 1 << 10, "mib/s": 1 << 20, "gib/s": 1 << 30,
}

// ParseRate reads a bandwidth as a DBA writes it ("1Mbit", "100 Mbit/s", "10Gbit",
// "12.5MB/s", "64KiB/s"; case does not matter, bit units may end in /s) and returns
// bytes per second.
func ParseRate(s string) (int64, error) {
	t := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(s), " ", ""))
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i <= 0 {
		return 0, fmt.Errorf("bandwidth %q: give a number and a unit, e.g. 1Mbit, 100Mbit, 1Gbit or 10MB/s", s)
	}
	unit := t[i:]
	if strings.HasSuffix(unit, "bit/s") {
		unit = strings.TrimSuffix(unit, "/s")
	}
	per, ok := rateUnits[unit]
	if !ok {
		return 0, fmt.Errorf("bandwidth %q: unknown unit %q; use bit, Kbit, Mbit, Gbit (bits a second) or B/s, KB/s, MB/s, GB/s, KiB/s, MiB/s, GiB/s", s, t[i:])
	}
	v, err := strconv.ParseFloat(t[:i], 64)
	if err != nil || v <= 0 || math.IsInf(v*per, 0) || v*per > math.MaxInt64/2 {
		return 0, fmt.Errorf("bandwidth %q: %q is not a positive number", s, t[:i])
	}
	return max(1, int64(math.Round(v*per))), nil
}
