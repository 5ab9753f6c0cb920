package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The README says where the template datadirs go, as defaultCacheDir puts them: about
// 110 MB per server version land in the user's home, which must not come unannounced.
func TestReadmeSaysWhereTemplatesGo(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", "")
	inHome := "~" + strings.TrimPrefix(defaultCacheDir(), home)
	t.Setenv("XDG_CACHE_HOME", "/xdg")
	inXDG := "$XDG_CACHE_HOME" + strings.TrimPrefix(defaultCacheDir(), "/xdg")
	// the paragraph that introduces sandboxes' storage, not only the security notes
	_, storage, _ := strings.Cut(string(readme), "**The storage under test.**")
	storage, _, _ = strings.Cut(storage, "\n\n")
	for _, want := range []string{inHome, inXDG, "110 MB", "quadrant sandbox prune"} {
		if !strings.Contains(storage, want) {
			t.Errorf("README's storage paragraph does not say %q:\n%s", want, storage)
		}
	}
	if filepath.Base(defaultCacheDir()) != "templates" {
		t.Fatalf("defaultCacheDir %s", defaultCacheDir())
	}
}
