package sandbox_test

import (
	"fmt"
	"net"
	"strconv"
	"testing"

	"github.com/quadrant-bench/quadrant/executor/link"
	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
)

// Options.Via puts a proxy between a replica and its primary: the replica's CHANGE MASTER
// names the proxy's port, writes reach it through the proxy, and so they still do after the
// replica's and the primary's restarts (the replica's own configuration keeps the port).
func TestReplicaReplicatesVia(t *testing.T) {
	t.Parallel()
	var proxy *link.Link
	var asked []string
	c := sandboxtest.Start(t, sandbox.Options{Name: "via", Replicas: 1, Via: func(replica, primary string) (string, error) {
		asked = append(asked, replica+" "+primary)
		var err error
		proxy, err = link.Listen(primary, link.Shape{})
		return proxy.Addr(), err
	}})
	t.Cleanup(func() { proxy.Close() })
	primary := net.JoinHostPort("127.0.0.1", strconv.Itoa(c.Primary.Port()))
	if len(asked) != 1 || asked[0] != "via_replica1 "+primary {
		t.Fatalf("Via asked %q, want once for via_replica1 and %s", asked, primary)
	}
	_, port, _ := net.SplitHostPort(proxy.Addr())
	r := open(t, c.Replicas[0])
	masterPort := func() string {
		rows, err := r.Query("SHOW SLAVE STATUS")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		for i := range vals {
			vals[i] = new(any)
		}
		if !rows.Next() {
			t.Fatal("SHOW SLAVE STATUS: no row")
		}
		if err := rows.Scan(vals...); err != nil {
			t.Fatal(err)
		}
		for i, col := range cols {
			if col == "Master_Port" {
				if b, ok := (*(vals[i].(*any))).([]byte); ok {
					return string(b)
				}
				return fmt.Sprint(*(vals[i].(*any)))
			}
		}
		t.Fatal("SHOW SLAVE STATUS has no Master_Port")
		return ""
	}
	p := open(t, c.Primary)
	for i, restart := range []*sandbox.Server{nil, c.Replicas[0], c.Primary} {
		if restart != nil {
			if err := restart.Restart(ctx(t), []sandbox.Option{{Name: "max_connections", Value: strconv.Itoa(60 + i)}}); err != nil {
				t.Fatal(err)
			}
		}
		if got := masterPort(); got != port {
			t.Fatalf("step %d: the replica's Master_Port %s, want the proxy's %s", i, got, port)
		}
		if _, err := p.Exec(fmt.Sprintf("CREATE DATABASE via%d", i)); err != nil {
			t.Fatal(err)
		}
		waitRows(t, r, fmt.Sprintf("SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name='via%d'", i), "1")
	}
}
