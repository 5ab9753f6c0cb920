package compare

import (
	"strings"
	"testing"

	"github.com/quadrant-bench/quadrant/results"
)

// A rerun from verified TLSv1.3 to plaintext, or from a sandbox to a DSN, or by another
// quadrant, is said among what differed around the numbers: the server's settings do not
// show the client's side.
func TestNotesNameTheClientSide(t *testing.T) {
	tls := &results.TLSInfo{Mode: "verify-identity", Version: "TLSv1.3", Cipher: "TLS_AES_256_GCM_SHA384",
		CA: &results.TLSFile{Name: "ca.pem", SHA256: "3f2a9c0d5e6b77aa"}}
	base := &results.Run{Dir: "published", Info: &results.RunInfo{Version: "v1.4.0",
		Targets: []results.TargetInfo{{Name: "prod", Kind: "dsn", TLS: tls}}}}
	rerun := &results.Run{Dir: "mine", Info: &results.RunInfo{Version: "v1.5.0",
		Targets: []results.TargetInfo{{Name: "prod", Kind: "dsn"}}}}
	text := strings.Join(notes([]*results.Run{base, rerun}), "\n")
	for _, want := range []string{
		"target prod: the client's connection was dsn over TLS verify-identity (TLSv1.3, TLS_AES_256_GCM_SHA384, CA sha256 3f2a9c0d5e6b) in published, dsn over plaintext in mine.",
		"quadrant: v1.4.0 in published, v1.5.0 in mine.",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("notes lack %q:\n%s", want, text)
		}
	}
	if same := notes([]*results.Run{base, base}); strings.Contains(strings.Join(same, "\n"), "client's connection") {
		t.Errorf("the same connection is said to differ: %v", same)
	}
}
