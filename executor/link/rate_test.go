package link

import "testing"

func TestParseRate(t *testing.T) {
	for in, want := range map[string]int64{
		"1Mbit": 125000, "100 Mbit/s": 12500000, "1gbit": 125000000, "8bit": 1, "1Mbps": 125000,
		"10MB/s": 10000000, "64KiB/s": 65536, "1.5 MiB/s": 1572864, "12.5 kb/s": 12500,
	} {
		if got, err := ParseRate(in); err != nil || got != want {
			t.Errorf("%q: %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "Mbit", "1", "1 furlong", "-1Mbit", "0Mbit", "1e400Gbit", "1.2.3Mbit"} {
		if _, err := ParseRate(in); err == nil {
			t.Errorf("%q was taken", in)
		}
	}
}
