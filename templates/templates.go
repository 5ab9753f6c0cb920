// Package templates holds the built-in plan templates (`extends: builtin:NAME`, `quadrant init --template NAME`).
// Each NAME.yaml here is a complete plan that validates on its own.
package templates

import (
	"embed"
	"io/fs"
	"sort"
	"strings"
)

//go:embed *.yaml
var files embed.FS

// Template is a built-in plan template.
type Template struct {
	Name        string
	Description string // the template's description: line
}

// Names lists the templates, sorted.
func Names() []string {
	entries, _ := fs.Glob(files, "*.yaml")
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e, ".yaml"))
	}
	sort.Strings(names)
	return names
}

// List returns every template with its one-line description.
func List() []Template {
	var out []Template
	for _, n := range Names() {
		data, _ := Read(n)
		out = append(out, Template{Name: n, Description: description(string(data))})
	}
	return out
}

// Read returns the source of template name.
func Read(name string) ([]byte, error) {
	if name == "" || strings.ContainsAny(name, "/\\.") {
		return nil, fs.ErrNotExist
	}
	return files.ReadFile(name + ".yaml")
}

// description reads the top-level `description:` line; templates keep it on one line.
func description(src string) string {
	for _, l := range strings.Split(src, "\n") {
		if v, ok := strings.CutPrefix(l, "description:"); ok {
			return strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return ""
}
