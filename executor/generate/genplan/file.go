package genplan

import "github.com/quadrant-bench/quadrant/spec"

// LoadGenerate reads the body of a generate: step from a YAML file of its own (quadrant
// generate --settings): the keys of generate: (schema, database, seed, threads, tables),
// decoded and checked as in a plan, every problem at file:line:col. schema: is relative to
// the file's directory, as it is to a plan's.
func LoadGenerate(path string) (*Generate, error) { return LoadGenerateWith(path, nil) }

// LoadGenerateWith is LoadGenerate with edit applied to the decoded settings before they
// are checked (quadrant generate --validate's --rows), so the checks see the rows asked; an
// error of edit is reported at the file.
func LoadGenerateWith(path string, edit func(*Generate) error) (*Generate, error) {
	g := &Generate{}
	err := spec.LoadBody(path, spec.BodyFile{Key: "generate", What: "the generate settings",
		Empty: "the generate settings file is empty; give at least tables: {TABLE: {rows: N}}"}, g,
		func(c *spec.Check) error {
			if edit != nil {
				if err := edit(g); err != nil {
					return err
				}
			}
			g.validate(c)
			return nil
		})
	if err != nil {
		return nil, err
	}
	return g, nil
}
