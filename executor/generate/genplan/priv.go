package genplan

import (
	"slices"

	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/ddl"
)

// schemaPrivs are what a schema file's statements take, by their first words
// (ddl.SchemaFile.Verbs). USE, SET and the like take nothing.
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

// Privileges are what g asks of the account on its database (its StepKind's Privileges,
// and quadrant generate's pre-flight): what its schema file's statements take (CREATE for
// CREATE TABLE, ALTER, DROP... and REFERENCES for a foreign key where the server checks
// it), then SELECT and INSERT on each table it fills (SELECT for the check that it is
// empty). LOAD DATA LOCAL INFILE takes only INSERT: FILE is for files on the server's side;
// the server's local_infile setting is not a privilege, and without it generate inserts
// instead. The database is the step's, else the schema file's last USE, else the DSN's;
// with none known nothing is asked (the step will say it has no database).
func (g *Generate) Privileges(srv spec.AccountServer) (needs []spec.AccountNeed) {
	db := g.Database
	var sf ddl.SchemaFile
	if g.SchemaPath != "" {
		sf, _ = ddl.ReadSchemaFile(g.SchemaPath, nil) // unreadable: the step says so when it runs
	}
	if db == "" {
		db = sf.Database
	}
	if db == "" {
		db = srv.Schema
	}
	if db == "" {
		return nil
	}
	var schema []spec.Privilege
	seen := map[string]bool{}
	want := func(name string) {
		if name != "" && !seen[name] {
			seen[name] = true
			schema = append(schema, spec.Privilege{Names: []string{name}, DB: db})
		}
	}
	for _, v := range sf.Verbs {
		want(schemaPrivs[v])
	}
	if sf.ForeignKeys && srv.ChecksReferences {
		want("REFERENCES")
	}
	if len(schema) > 0 {
		needs = append(needs, spec.AccountNeed{Pos: g.Src.At("schema"), What: "generate schema", Why: "run the statements of " + g.Schema, Any: [][]spec.Privilege{schema}})
	}
	if g.AfterPath != "" {
		af, _ := ddl.ReadSchemaFile(g.AfterPath, nil)
		var after []spec.Privilege
		for _, v := range af.Verbs {
			if name := schemaPrivs[v]; name != "" && !slices.ContainsFunc(after, func(p spec.Privilege) bool { return p.Names[0] == name }) {
				after = append(after, spec.Privilege{Names: []string{name}, DB: db})
			}
		}
		if af.ForeignKeys && srv.ChecksReferences {
			after = append(after, spec.Privilege{Names: []string{"REFERENCES"}, DB: db})
		}
		if len(after) > 0 {
			needs = append(needs, spec.AccountNeed{Pos: g.Src.At("after"), What: "generate after", Why: "run the statements of " + g.After, Any: [][]spec.Privilege{after}})
		}
	}
	for _, t := range g.Tables {
		needs = append(needs, spec.AccountNeed{Pos: t.Src.Pos, What: "generate " + t.Name, Why: "check it is empty, then insert its rows", Any: [][]spec.Privilege{{
			{Names: []string{"SELECT"}, DB: db, Table: t.Name},
			{Names: []string{"INSERT"}, DB: db, Table: t.Name},
		}}})
	}
	return needs
}
