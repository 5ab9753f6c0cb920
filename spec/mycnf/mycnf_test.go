package mycnf

import "testing"

func TestUnsafe(t *testing.T) {
	for _, c := range []struct {
		name, value string
		bare        bool
		unsafe      bool
	}{
		{"skip-grant-tables", "", true, true},
		{"skip_grant_tables", "1", false, true},
		{"skip_grant_tables", "ON", false, true},
		{"loose-skip-grant-tables", "", true, true},
		{"skip-grant-tab", "", true, true}, // MariaDB takes unique prefixes
		{"disable-grant-tables", "", true, true},
		{"grant_tables", "0", false, true},
		{"skip_grant_tables", "0", false, false},
		{"skip_grant_tables", "OFF", false, false},
		{"secure_file_priv", "", false, true},
		{"secure-file-priv", "", true, true},
		{"secure_file_priv", `""`, false, true},
		{"secure_file_priv", "/", false, true},
		{"secure-file", "", false, true},
		{"skip-secure-file-priv", "", true, true},
		{"secure_file_priv", "/var/lib/mysql-files", false, false},
		{"secure_auth", "", false, false},
		{"innodb_buffer_pool_size", "1G", false, false},
		{"skip-name-resolve", "", true, false},
	} {
		got := Unsafe(c.name, c.value, c.bare) != ""
		if got != c.unsafe {
			t.Errorf("Unsafe(%q, %q, %v) = %v, want %v", c.name, c.value, c.bare, got, c.unsafe)
		}
	}
}
