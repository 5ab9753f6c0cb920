package results

import (
	"testing"
	"time"
)

func TestGridSeconds(t *testing.T) {
	for _, c := range []struct {
		elapsed, interval time.Duration
		want              float64
	}{
		{2025 * time.Millisecond, time.Second, 2},
		{8300 * time.Millisecond, time.Second, 8},
		{-4 * time.Second, time.Second, -4},
		{1480 * time.Millisecond, 500 * time.Millisecond, 1.5},
		{3 * time.Second, 0, 3},
	} {
		if got := GridSeconds(c.elapsed, c.interval); got != c.want {
			t.Errorf("GridSeconds(%s, %s) = %v, want %v", c.elapsed, c.interval, got, c.want)
		}
	}
}
