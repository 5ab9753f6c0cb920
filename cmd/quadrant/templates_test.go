package main

import (
	"os"
	"strings"
	"testing"
)

// Every experiment of issue 11's list has a template, and an example that extends it.
func TestTemplatesOfTheExperiments(t *testing.T) {
	code, out, _ := runCLI("templates")
	if code != exitOK {
		t.Fatalf("templates: exit %d", code)
	}
	for name, example := range map[string]string{
		"tpcc": "tpcc", "replica-catchup": "replica-catchup", "replica-attach": "nfs-replica-attach", "cold-vs-warm": "cold-vs-warm",
	} {
		if !strings.Contains(out, "\n"+name+" ") && !strings.HasPrefix(out, name+" ") {
			t.Errorf("quadrant templates does not list %s:\n%s", name, out)
		}
		src, err := os.ReadFile("../../examples/" + example + ".yaml")
		if err != nil || !strings.Contains(string(src), "\nextends: builtin:"+name+"\n") {
			t.Errorf("examples/%s.yaml does not extend builtin:%s (%v)", example, name, err)
		}
	}
}
