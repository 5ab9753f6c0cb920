package mycnf

import (
	"strings"
	"testing"
)

// A Galera node's config may repeat what Galera needs (binlog_format ROW), not change it,
// and not set what the sandbox names or addresses itself; a plain sandbox may set those.
func TestGaleraGuard(t *testing.T) {
	galera, plain := Guard{Known: recorded(t), Galera: true}, Guard{Known: recorded(t)}
	for _, c := range []struct {
		name, value string
		refused     string // "" when a Galera node may
	}{
		{"binlog_format", "ROW", ""},
		{"binlog-format", "statement", "sets binlog_format=ROW itself"},
		{"innodb_autoinc_lock_mode", "2", ""},
		{"innodb_autoinc_lock_mode", "1", "sets innodb_autoinc_lock_mode=2 itself"},
		{"wsrep_on", "1", ""},
		{"wsrep_on", "OFF", "sets wsrep_on=ON itself"},
		{"wsrep_node_name", "x", "after its target"},
		{"wsrep_provider", "/usr/lib/galera/libgalera_smm.so", "gives each node its provider"},
	} {
		why := galera.Refuse(c.name, c.value, false)
		if (c.refused == "") != (why == "") || !strings.Contains(why, c.refused) {
			t.Errorf("Galera node: %s = %s: %q, want refused with %q", c.name, c.value, why, c.refused)
		}
	}
	for _, name := range []string{"binlog_format", "wsrep_node_name", "innodb_autoinc_lock_mode"} {
		if why := plain.Refuse(name, "1", false); why != "" {
			t.Errorf("plain sandbox: %s refused: %s", name, why)
		}
	}
	if why := plain.Refuse("wsrep_provider", "/usr/lib/galera/libgalera_smm.so", false); !strings.Contains(why, "not a Galera node") {
		t.Errorf("plain sandbox: wsrep_provider: %q, want refused as not a Galera node", why)
	}
}
