package genplan

import "testing"

// TestFollowedParentColumn: only a bare parent.COLUMN is a foreign key that follows its parent
// row; anything computed from it is not.
func TestFollowedParentColumn(t *testing.T) {
	for src, want := range map[string]string{
		"parent.customer_id":     "customer_id",
		" parent.customer_id ":   "customer_id",
		`parent["customer_id"]`:  "customer_id",
		"parent.customer_id + 1": "",
		"customer_id":            "",
		"other.customer_id":      "",
		"parent?.customer_id":    "",
		"parent.customer_id()":   "",
		"parent.":                "",
	} {
		got, ok := FollowedParentColumn(src)
		if got != want || ok != (want != "") {
			t.Errorf("FollowedParentColumn(%q) = %q, %v; want %q", src, got, ok, want)
		}
	}
}
