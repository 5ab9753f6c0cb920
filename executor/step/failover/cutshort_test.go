package failover

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/step"
	"github.com/quadrant-bench/quadrant/spec"
)

// noServers is a run whose target is a dsn one at an address nobody listens on.
type noServers struct{}

func (noServers) Cluster(string) *sandbox.Cluster { return nil }
func (noServers) Config(string) (*mysql.Config, error) {
	c := mysql.NewConfig()
	c.Net, c.Addr, c.User = "tcp", "127.0.0.1:9", "u"
	return c, nil
}
func (noServers) Front(string) step.Front { return nil }

// A drill the end of the workload cut short says so as a warning, which the console shows
// even piped (it shows no other line of log.txt): else an assertion on its figures fails
// with an empty value and no reason.
func TestDrillCutShortWarns(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the workload ended
	var lines []string
	env := step.Env{Where: "iteration 1: during: failover (plan.yaml:9:7)", Servers: noServers{},
		Logf: func(f string, a ...any) { lines = append(lines, fmt.Sprintf(f, a...)) }}
	st := &spec.Step{Target: "db", Body: &Failover{Lead: time.Second, Writers: 1, Promote: &Promote{Shell: "true"}}}
	if err := (runner{}).Run(ctx, st, env); err == nil {
		t.Fatal("a drill whose context ended succeeded")
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "warning: iteration 1: during: failover") && strings.Contains(l, "cut short") && strings.Contains(l, "figures are missing") {
			return
		}
	}
	t.Errorf("no warning that the drill was cut short in %q", lines)
}
