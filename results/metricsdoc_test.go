package results

import (
	"bytes"
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/metrics.md")

func TestMetricsDoc(t *testing.T) {
	const path = "../docs/metrics.md"
	want := MetricsMarkdown()
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is out of date with results/measure/metrics.go; run go generate ./results and commit it", path)
	}
}
