package executor

import (
	"github.com/quadrant-bench/quadrant/executor/generate"
	"github.com/quadrant-bench/quadrant/executor/target"
	"github.com/quadrant-bench/quadrant/spec"
)

// schemaPrivs are what a schema file's statements take, by their first words
// (generate.SchemaFile.Verbs). USE, SET and the like take nothing.
var schemaPrivs = map[string]string{
	"CREATE TABLE":     "CREATE",
	"CREATE DATABASE":  "CREATE",
	"CREATE SCHEMA":    "CREATE",
	"CREATE INDEX":     "INDEX",
	"CREATE VIEW":      "CREATE VIEW",
	"CREATE TRIGGER":   "TRIGGER",
	"CREATE PROCEDURE": "CREATE ROUTINE",
	"CREATE FUNCTION":  "CREATE ROUTINE",
	"ALTER":            "ALTER",
	"DROP":             "DROP",
	"TRUNCATE":         "DROP",
	"INSERT":           "INSERT",
	"UPDATE":           "UPDATE",
	"DELETE":           "DELETE",
}

// generateNeeds is what a generate: step at pos asks of the account on its database: what its
// schema file's statements take (CREATE for CREATE TABLE, ALTER, DROP... and, on MySQL,
// REFERENCES for a foreign key: MariaDB does not check it), then SELECT and INSERT on each
// table it fills (SELECT for the check that it is empty). LOAD DATA LOCAL INFILE takes only
// INSERT: FILE is for files on the server's side; the server's local_infile setting is not a
// privilege, and without it generate inserts instead. The database is the step's, else the
// schema file's last USE, else the DSN's; with none known nothing is asked (the step will
// say it has no database).
func generateNeeds(g *spec.Generate, f serverFacts) (needs []privilegeNeed) {
	db := g.Database
	var sf generate.SchemaFile
	if g.SchemaPath != "" {
		sf, _ = generate.ReadSchemaFile(g.SchemaPath) // unreadable: the step says so when it runs
	}
	if db == "" {
		db = sf.Database
	}
	if db == "" {
		db = f.schema
	}
	if db == "" {
		return nil
	}
	var schema []target.Privilege
	seen := map[string]bool{}
	want := func(name string) {
		if name != "" && !seen[name] {
			seen[name] = true
			schema = append(schema, target.Privilege{Names: []string{name}, DB: db})
		}
	}
	for _, v := range sf.Verbs {
		want(schemaPrivs[v])
	}
	if sf.ForeignKeys && f.flavor != "MariaDB" {
		want("REFERENCES")
	}
	if len(schema) > 0 {
		needs = append(needs, privilegeNeed{pos: g.Src.At("schema"), what: "generate schema", why: "run the statements of " + g.Schema, any: [][]target.Privilege{schema}})
	}
	for _, t := range g.Tables {
		needs = append(needs, privilegeNeed{pos: t.Src.Pos, what: "generate " + t.Name, why: "check it is empty, then insert its rows", any: [][]target.Privilege{{
			{Names: []string{"SELECT"}, DB: db, Table: t.Name},
			{Names: []string{"INSERT"}, DB: db, Table: t.Name},
		}}})
	}
	return needs
}
