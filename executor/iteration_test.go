package executor

import (
	"errors"
	"fmt"
	"testing"
)

// Workers that fail to start are told once per reason with a count.
func TestGroupWorkerErrors(t *testing.T) {
	var errs []error
	for i := range 398 {
		errs = append(errs, fmt.Errorf("oltp_point_select worker %d: connect: Error 1040 (08004): Too many connections", i+1))
	}
	errs = append(errs, fmt.Errorf("oltp_point_select worker 399: connect: dial tcp 127.0.0.1:3306: i/o timeout"),
		fmt.Errorf("oltp_point_select worker 400: connect: Error 1040 (08004): Too many connections"))
	err := groupWorkerErrors(errors.Join(errs...), 400)
	want := "400 of 400 workers could not connect: Error 1040 (08004): Too many connections (x399), dial tcp 127.0.0.1:3306: i/o timeout (x1)"
	if err.Error() != want {
		t.Fatalf("got  %s\nwant %s", err, want)
	}
	if !errors.Is(err, errs[0]) {
		t.Fatal("the grouped error lost the workers' errors")
	}
	single := errors.New("workload interrupted")
	if groupWorkerErrors(single, 4) != single {
		t.Fatal("a single error was changed")
	}
}
