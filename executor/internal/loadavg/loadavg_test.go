package loadavg

import "testing"

func TestParse(t *testing.T) {
	if v, err := parse("3.18 1.42 0.54 1/108 10307\n"); err != nil || v != 3.18 {
		t.Fatalf("%v %v", v, err)
	}
	for _, bad := range []string{"", "x 1 2", "-1 0 0"} {
		if _, err := parse(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// On Linux the file is there: the run records a load for every iteration.
func TestOneMinuteReadsTheHost(t *testing.T) {
	if _, cpus, ok := OneMinute(); !ok || cpus < 1 {
		t.Fatalf("no load average on this host: %d %v", cpus, ok)
	}
}
