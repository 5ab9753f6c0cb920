package loadavg

import (
	"testing"
)

func TestParse(t *testing.T) {
	if r, err := Parse("3.18 1.42 0.54 7/108 10307\n"); err != nil || r.Load1 != 3.18 || r.Load5 != 1.42 || r.Load15 != 0.54 || r.Runnable != 7 {
		t.Fatalf("%+v %v", r, err)
	}
	for _, bad := range []string{"", "x 1 2 1/2 3", "-1 0 0 1/2 3", "1 1 1", "1 1 1 x/2 3", "1 y 1 1/2 3", "1 1 z 1/2 3"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// On Linux the file is there: a sampler counts at least its own reading thread.
func TestSamplerReadsTheHost(t *testing.T) {
	if _, ok := Read(); !ok {
		t.Fatal("no /proc/loadavg on this host")
	}
	s := Sample()
	mean, ok := s.Stop()
	if !ok || mean < 1 || CPUs() < 1 {
		t.Fatalf("mean runnable %v %v, cpus %d", mean, ok, CPUs())
	}
}
