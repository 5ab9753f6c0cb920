package sandbox_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/quadrant-bench/quadrant/executor/sandbox"
	"github.com/quadrant-bench/quadrant/executor/sandbox/sandboxtest"
)

// Issue 34: a config handed straight to the sandbox (quadrant sandbox up --config, no plan and
// no validation) spelt the guarded options around: bind_addr=0.0.0.0 listened on every
// address, secure_file_priv=// let LOAD_FILE read /etc/passwd. The sandbox resolves names with
// its own server's option list and refuses them before anything starts; a harmless option
// starts as before, and a restart is held to the same rule.
func TestSandboxRefusesSpeltAroundOptions(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a MariaDB server binary (skipped under -short)")
	}
	t.Parallel()
	for _, bad := range []sandbox.Option{
		{Name: "bind_addr", Value: "0.0.0.0"},
		{Name: "secure_file_priv", Value: "//"},
		{Name: "loose-general-log-file", Value: "/tmp/quadrant-general.log"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		c, err := sandbox.Start(ctx, sandbox.Options{Name: "refuse", Dir: sandboxtest.Dir(t), Config: []sandbox.Option{bad}, Logf: t.Logf})
		cancel()
		if err == nil {
			c.Stop(context.Background())
			t.Fatalf("%s: the sandbox started", bad)
		}
		if !strings.Contains(err.Error(), "refused") || !strings.Contains(err.Error(), bad.Name) {
			t.Errorf("%s: %v, want a refusal naming the option", bad, err)
		}
	}

	c := sandboxtest.Start(t, sandbox.Options{Name: "harmless", Config: []sandbox.Option{{Name: "max_connections", Value: "50"}}})
	db := sandboxtest.DB(t, c.Primary.DSN(""), 1)
	var n int
	if err := db.QueryRow("SELECT @@max_connections").Scan(&n); err != nil || n != 50 {
		t.Fatalf("max_connections = %d, %v; want 50", n, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err := c.Primary.Restart(ctx, []sandbox.Option{{Name: "max_connections", Value: "60"}, {Name: "bind-addr", Value: "0.0.0.0"}})
	if err == nil || !strings.Contains(err.Error(), "bind_address") {
		t.Fatalf("restart with bind-addr: %v, want refused as bind_address", err)
	}
	var bind string
	if err := db.QueryRow("SELECT @@max_connections, @@bind_address").Scan(&n, &bind); err != nil || n != 50 || bind != "127.0.0.1" {
		t.Errorf("after the refused restart: max_connections %d, bind_address %q, %v", n, bind, err)
	}
}
