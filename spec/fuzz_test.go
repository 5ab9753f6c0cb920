package spec

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/quadrant-bench/quadrant/templates"
)

// FuzzLoad feeds arbitrary bytes to the loader: it must return a plan or errors, never panic or hang.
// Seeds: the examples, the templates and the bad corpus.
func FuzzLoad(f *testing.F) {
	var seeds []string
	for _, pattern := range []string{"../examples/*.yaml", "../templates/*.yaml", "testdata/bad/*.yaml"} {
		files, _ := filepath.Glob(pattern)
		seeds = append(seeds, files...)
	}
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	inserts, _ := os.ReadFile("../examples/data/inserts.sql")
	base, _ := templates.Read("quickstart")
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64<<10 {
			t.Skip("over 64 KiB: the fuzzer's memory stays bounded; the loader's own limits have tests")
		}
		watchdog := time.AfterFunc(30*time.Second, func() {
			buf := make([]byte, 1<<20)
			n := runtime.Stack(buf, true)
			panic("hang:\n" + string(buf[:n]))
		})
		defer watchdog.Stop()
		fsys := fstest.MapFS{
			"plan.yaml":        {Data: data},
			"data/inserts.sql": {Data: inserts[:min(len(inserts), 200)]},
			"base.yaml":        {Data: base},
		}
		p, err := Load("plan.yaml", withKinds(Options{FS: fsys, Env: testEnv}))
		if err == nil {
			if len(p.Iterations) == 0 {
				t.Fatalf("a valid plan without iterations")
			}
			if _, err := p.Redacted(); err != nil {
				t.Fatalf("redacted: %v", err)
			}
			return
		}
		for _, e := range err.(Errors) {
			// %! in a message is a format bug, unless the plan itself wrote it
			if e.Msg == "" || strings.Contains(e.Msg, "%!") && !bytes.Contains(data, []byte("%!")) {
				t.Fatalf("bad message %q", e.Msg)
			}
		}
	})
}
