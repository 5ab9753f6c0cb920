package authretry

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every connection quadrant opens to a user's server logs in through NewConnector: a plain
// mysql.NewConnector fails one ed25519 login in 256. The sandboxes' own root login (the
// sandbox package) is mysql_native_password, which the driver reads right, and tests open
// what they like.
func TestEveryConnectorRetries(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	allowed := map[string]bool{
		filepath.Join("executor", "internal", "authretry"): true,
		filepath.Join("executor", "sandbox"):               true,
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() && (allowed[rel] || rel == "bench" || strings.HasPrefix(d.Name(), ".")) && rel != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.Contains(string(src), "mysql.NewConnector(") {
			t.Errorf("%s calls mysql.NewConnector: use authretry.NewConnector (target.NewConnector outside executor)", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
