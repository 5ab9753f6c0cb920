package spec

import "testing"

// Secrets known only while running (a sandbox's generated password) go through the same
// redaction as the plan's own.
func TestRedactValues(t *testing.T) {
	got := RedactValues("dsn root:Ab12Cd34Ef56@tcp(127.0.0.1:3306)/ and Ab12Cd34Ef56xyz, pw abc", "Ab12Cd34Ef56", "Ab12Cd34Ef56xyz", "abc")
	if want := "dsn root:***@tcp(127.0.0.1:3306)/ and ***, pw abc"; got != want {
		t.Fatalf("RedactValues = %q, want %q", got, want)
	}
}
