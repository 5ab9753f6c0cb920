package ddl

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/quadrant-bench/quadrant/spec/sqltext"
)

// SchemaFile is what a schema file does, read without a server: the database its last USE
// leaves current, and the kinds of statements it runs (for the privileges they take).
type SchemaFile struct {
	// Database is the name of the file's last USE, "" without one.
	Database string
	// Verbs are the statements' first words, upper case and in first-seen order: CREATE
	// TABLE, CREATE DATABASE, CREATE INDEX, ALTER, DROP, INSERT... (CREATE with its object).
	Verbs []string
	// ForeignKeys says whether a statement declares a foreign key (REFERENCES).
	ForeignKeys bool
}

var (
	useStmt    = regexp.MustCompile("(?is)^USE\\s+`?([^`;\\s]+)`?")
	createWhat = regexp.MustCompile(`(?is)^CREATE\s+(?:OR\s+REPLACE\s+)?(?:TEMPORARY\s+)?(?:UNIQUE\s+|FULLTEXT\s+|SPATIAL\s+)?(TABLE|DATABASE|SCHEMA|INDEX|VIEW|TRIGGER|PROCEDURE|FUNCTION)\b`)
	references = regexp.MustCompile(`(?i)\bREFERENCES\b`)
)

// ReadSchemaFile scans the schema file at path (DELIMITER aware, as it is run), opened by
// open (nil: os.Open): executor/generate's shards read its USE, the generate step's
// privileges its statements.
func ReadSchemaFile(path string, open func(string) (*os.File, error)) (SchemaFile, error) {
	if open == nil {
		open = os.Open
	}
	var sf SchemaFile
	f, err := open(path)
	if err != nil {
		return sf, fmt.Errorf("schema: %w", err)
	}
	defer f.Close()
	seen := map[string]bool{}
	sp := sqltext.NewSplitter(f)
	for {
		stmt, line, err := sp.Next()
		if err == io.EOF {
			return sf, nil
		}
		if err != nil {
			return sf, fmt.Errorf("schema %s line %d: %w", path, line, err)
		}
		s := strings.TrimSpace(sqltext.SkipComments(string(stmt)))
		if m := useStmt.FindStringSubmatch(s); m != nil {
			sf.Database = m[1]
		}
		verb := ""
		if w := strings.Fields(s); len(w) > 0 {
			verb = strings.ToUpper(strings.TrimRight(w[0], ";"))
		}
		if m := createWhat.FindStringSubmatch(s); m != nil {
			verb = "CREATE " + strings.ToUpper(m[1])
		}
		if verb != "" && !seen[verb] {
			seen[verb] = true
			sf.Verbs = append(sf.Verbs, verb)
		}
		// a word in a string or comment counts too: a privilege asked for nothing beats a
		// load refused half-way
		if references.MatchString(s) {
			sf.ForeignKeys = true
		}
	}
}
