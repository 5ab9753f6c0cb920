// Package ddl reads the CREATE TABLE statements of a schema file (what mysqldump and people
// write) into tables, columns, keys and foreign keys, each with its line and column in the
// file, and says which types the generator knows and how many distinct values a column can
// hold. spec checks a generate: step with it at validate; executor/generate shares its type
// rules. It reads what it can: a statement it does not understand makes its table (or the
// whole schema) unknown, never an error, because the server is the judge when the file runs.
// ReadSchemaFile scans what a file does as the server runs it (its last USE, its kinds of
// statements), for a generate step's privileges and its shards.
package ddl

import (
	"strconv"
	"strings"
)

// Schema is what a schema file creates.
type Schema struct {
	Tables []*Table // in the order created
	// Database is the one the file leaves current with USE ("" when none).
	Database string
	// Whole is false when a statement might have created or renamed tables unseen (a CALL, a
	// CREATE TABLE without a readable name...): a table not found may then exist.
	Whole bool
}

// Table is one created table. When Unread, something in its definition (or an ALTER TABLE
// of it) was not understood: only its name is known.
type Table struct {
	Database string // as written, else the current one ("" when none)
	Name     string
	Pos      Pos // of its name in CREATE TABLE
	Columns  []*Column
	Uniques  []Key // PRIMARY first, then in the order written
	Foreign  []ForeignKey
	Unread   bool
}

// Key is a primary or unique key.
type Key struct {
	Name    string // PRIMARY for the primary key
	Columns []string
	Pos     Pos
}

// ForeignKey is a FOREIGN KEY ... REFERENCES.
type ForeignKey struct {
	Name          string // as written, else the server's t_ibfk_N
	Columns       []string
	Parent        string
	ParentDB      string // "" when written without one
	ParentColumns []string
	Pos           Pos
}

// Column returns the column called name (names are case-insensitive), or nil.
func (t *Table) Column(name string) *Column {
	for _, c := range t.Columns {
		if strings.EqualFold(c.Name, name) {
			return c
		}
	}
	return nil
}

// Table returns the table name of database db, or nil. A table created before any USE
// is in the connection's database, which only the run knows: it matches any db, as db ""
// matches any table's. Names are compared as the server on Linux does: exactly.
func (s *Schema) Table(db, name string) *Table {
	var maybe *Table
	for _, t := range s.Tables {
		switch {
		case t.Name != name:
		case t.Database == db:
			return t
		case db == "" || t.Database == "":
			maybe = t
		}
	}
	return maybe
}

// Parse reads a schema file's text for a server not known (AnyServer).
func Parse(src string) *Schema { return ParseFor(src, AnyServer) }

// ParseFor reads a schema file's text as server srv reads its executable comments.
func ParseFor(src string, srv Server) *Schema {
	s := &Schema{Whole: true}
	for _, st := range lexStatements(src, srv) {
		if st.broken {
			s.Whole = false
			continue
		}
		before := len(s.Tables)
		p := &parser{toks: st.toks, s: s}
		p.statement()
		if st.varies {
			s.unread(st.toks, before)
		}
	}
	return s
}

// unread leaves to the run the tables a statement read differently by MariaDB and MySQL
// creates (those after the first before) or alters.
func (s *Schema) unread(toks []token, before int) {
	for _, t := range s.Tables[before:] {
		t.Unread = true
	}
	for i := 0; i+1 < len(toks); i++ {
		if !toks[i].is("table") && !toks[i].is("on") {
			continue
		}
		name := toks[i+1].text
		if i+3 < len(toks) && toks[i+2].text == "." {
			name = toks[i+3].text
		}
		for _, t := range s.Tables {
			if t.Name == name {
				t.Unread = true
			}
		}
	}
}

type parser struct {
	toks []token
	i    int
	s    *Schema
}

func (p *parser) peek() token {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	return token{}
}

func (p *parser) next() token {
	t := p.peek()
	if p.i < len(p.toks) {
		p.i++
	}
	return t
}

func (p *parser) done() bool { return p.i >= len(p.toks) }

// accept consumes the words ws if they come next, all of them.
func (p *parser) accept(ws ...string) bool {
	if p.i+len(ws) > len(p.toks) {
		return false
	}
	for k, w := range ws {
		if !p.toks[p.i+k].is(w) {
			return false
		}
	}
	p.i += len(ws)
	return true
}

func (p *parser) punct(c string) bool {
	if t := p.peek(); t.kind == tPunct && t.text == c {
		p.i++
		return true
	}
	return false
}

// name reads an identifier, quoted or not.
func (p *parser) name() (token, bool) {
	t := p.peek()
	if t.kind == tName || t.kind == tWord {
		p.i++
		return t, true
	}
	return t, false
}

// tableName reads [db.]table.
func (p *parser) tableName() (db string, name token, ok bool) {
	n, ok := p.name()
	if !ok {
		return "", n, false
	}
	if p.punct(".") {
		t, ok := p.name()
		return n.text, t, ok
	}
	return "", n, true
}

// skipParens skips a balanced ( ... ), the "(" next.
func (p *parser) skipParens() bool {
	if !p.punct("(") {
		return false
	}
	depth := 1
	for !p.done() {
		t := p.next()
		if t.kind == tPunct && t.text == "(" {
			depth++
		} else if t.kind == tPunct && t.text == ")" {
			depth--
			if depth == 0 {
				return true
			}
		}
	}
	return false
}

func (p *parser) statement() {
	switch {
	case p.accept("use"):
		if n, ok := p.name(); ok {
			p.s.Database = n.text
		}
	case p.accept("create"):
		p.create()
	case p.accept("drop", "table"), p.accept("drop", "temporary", "table"):
		p.accept("if", "exists")
		for {
			db, n, ok := p.tableName()
			if !ok {
				p.s.Whole = false
				return
			}
			p.drop(p.db(db), n.text)
			if !p.punct(",") {
				return
			}
		}
	case p.accept("alter"):
		p.accept("online")
		p.accept("ignore")
		if p.accept("table") {
			p.alter()
		}
	case p.accept("rename", "table"), p.accept("rename", "tables"):
		for {
			db, from, ok := p.tableName()
			if !ok || !p.accept("to") {
				p.s.Whole = false
				return
			}
			todb, to, ok := p.tableName()
			if !ok {
				p.s.Whole = false
				return
			}
			if t := p.s.Table(p.db(db), from.text); t != nil {
				t.Database, t.Name = p.db(todb), to.text
			} else {
				p.s.Whole = false
			}
			if !p.punct(",") {
				return
			}
		}
	default:
		// What creates no table is skipped: SET, INSERT, LOCK, DROP DATABASE, GRANT... A
		// statement that could create one out of sight makes the schema not whole.
		for _, w := range []string{"call", "execute", "source", "load", "import"} {
			if p.peek().is(w) {
				p.s.Whole = false
			}
		}
	}
}

// tableOption says whether t starts a table option (ENGINE=InnoDB...), which changes no
// column or key.
func tableOption(t token) bool {
	for _, w := range []string{"engine", "auto_increment", "comment", "default", "character", "charset", "collate", "row_format", "key_block_size", "avg_row_length", "stats_persistent", "stats_auto_recalc", "checksum", "pack_keys"} {
		if t.is(w) {
			return true
		}
	}
	return false
}

func (p *parser) db(written string) string {
	if written != "" {
		return written
	}
	return p.s.Database
}

func (p *parser) drop(db, name string) {
	for i, t := range p.s.Tables {
		if t.Name == name && t.Database == db {
			p.s.Tables = append(p.s.Tables[:i], p.s.Tables[i+1:]...)
			return
		}
	}
}

func (p *parser) create() {
	p.accept("or", "replace")
	p.accept("temporary")
	switch {
	case p.accept("table"):
	case p.accept("unique", "index"), p.accept("unique", "key"), p.accept("unique"):
		p.createIndex()
		return
	default:
		return // a database, view, index, trigger, routine, user...: no table
	}
	p.accept("if", "not", "exists")
	db, n, ok := p.tableName()
	if !ok {
		p.s.Whole = false
		return
	}
	t := &Table{Database: p.db(db), Name: n.text, Pos: n.pos}
	p.drop(t.Database, t.Name) // CREATE OR REPLACE
	p.s.Tables = append(p.s.Tables, t)
	if p.accept("like") || p.peek().text == "(" && p.i+1 < len(p.toks) && p.toks[p.i+1].is("like") && p.punct("(") && p.accept("like") {
		ldb, l, ok := p.tableName()
		src := p.s.Table(p.db(ldb), l.text)
		if !ok || src == nil {
			t.Unread = true
			return
		}
		for _, c := range src.Columns {
			cc := *c
			t.Columns = append(t.Columns, &cc)
		}
		t.Uniques, t.Unread = append([]Key(nil), src.Uniques...), src.Unread
		return // foreign keys are not copied by LIKE
	}
	if !p.punct("(") {
		t.Unread = true // CREATE TABLE ... AS SELECT: the columns come from the query
		return
	}
	for {
		if !p.definition(t) {
			t.Unread = true
			return
		}
		if p.punct(")") {
			break
		}
		if !p.punct(",") {
			t.Unread = true
			return
		}
	}
	// Table options follow; a query after them (CREATE TABLE t (...) SELECT ...) adds columns.
	for !p.done() {
		if tk := p.next(); tk.is("select") || tk.is("as") || tk.is("with") || tk.kind == tPunct && tk.text == "(" && p.peek().is("select") {
			t.Unread = true
			return
		}
	}
	p.settle(t)
}

// settle does what the server does after a definition: names the unnamed foreign keys and
// makes the primary key's columns NOT NULL.
func (p *parser) settle(t *Table) {
	p.numberForeignKeys(t)
	if len(t.Uniques) > 0 && t.Uniques[0].Name == "PRIMARY" {
		for _, n := range t.Uniques[0].Columns {
			if c := t.Column(n); c != nil {
				c.Nullable = false
			}
		}
	}
}

// numberForeignKeys names the unnamed foreign keys as InnoDB does: table_ibfk_1, _2...,
// counting from after the highest number already taken.
func (p *parser) numberForeignKeys(t *Table) {
	n := 0
	prefix := t.Name + "_ibfk_"
	for _, f := range t.Foreign {
		if strings.HasPrefix(f.Name, prefix) {
			if k, err := strconv.Atoi(f.Name[len(prefix):]); err == nil && k > n {
				n = k
			}
		}
	}
	for i := range t.Foreign {
		if t.Foreign[i].Name == "" {
			n++
			t.Foreign[i].Name = prefix + strconv.Itoa(n)
		}
	}
}

// createIndex reads the rest of CREATE UNIQUE INDEX name ON table (columns).
func (p *parser) createIndex() {
	n, ok := p.name()
	if !ok {
		return
	}
	if p.accept("using") {
		p.next()
	}
	if !p.accept("on") {
		return
	}
	db, tn, ok := p.tableName()
	t := p.s.Table(p.db(db), tn.text)
	if !ok || t == nil {
		return
	}
	cols, ok := p.keyColumns()
	if !ok {
		t.Unread = true
		return
	}
	t.Uniques = append(t.Uniques, Key{Name: n.text, Columns: cols, Pos: n.pos})
}

// alter reads ALTER TABLE t ADD ... / DROP FOREIGN KEY ...; a clause it does not read
// makes the table unread.
func (p *parser) alter() {
	db, n, ok := p.tableName()
	if !ok {
		p.s.Whole = false
		return
	}
	t := p.s.Table(p.db(db), n.text)
	if t == nil {
		return // a table the file did not create: not one it can tell about
	}
	for {
		switch {
		case p.accept("add"):
			p.accept("column")
			if p.punct("(") {
				t.Unread = true
				return
			}
			if !p.definition(t) {
				t.Unread = true
				return
			}
			p.settle(t)
		case p.accept("disable", "keys"), p.accept("enable", "keys"):
		case tableOption(p.peek()):
			if p.next().is("default") {
				p.next() // DEFAULT CHARSET, DEFAULT COLLATE
			}
			p.accept("set") // CHARACTER SET
			p.punct("=")
			p.next()
		case p.accept("drop", "foreign", "key"):
			p.accept("if", "exists")
			fk, _ := p.name()
			i := 0
			for i < len(t.Foreign) && t.Foreign[i].Name != fk.text {
				i++
			}
			if i == len(t.Foreign) {
				t.Unread = true
				return
			}
			t.Foreign = append(t.Foreign[:i], t.Foreign[i+1:]...)
		default:
			t.Unread = true
			return
		}
		if !p.punct(",") {
			if !p.done() {
				t.Unread = true
			}
			return
		}
	}
}

// definition reads one column or key definition of a CREATE TABLE (or ALTER TABLE ADD),
// up to the "," or ")" after it.
func (p *parser) definition(t *Table) bool {
	first := p.peek()
	constraint := ""
	if p.accept("constraint") {
		if tk := p.peek(); !tk.is("primary") && !tk.is("unique") && !tk.is("foreign") && !tk.is("check") {
			n, _ := p.name()
			constraint = n.text
		}
	}
	switch {
	case p.accept("primary", "key"):
		p.indexType()
		cols, ok := p.keyColumns()
		if !ok {
			return false
		}
		t.Uniques = append([]Key{{Name: "PRIMARY", Columns: cols, Pos: first.pos}}, t.Uniques...)
		return p.skipToEnd()
	case p.accept("unique"):
		if !p.accept("key") {
			p.accept("index")
		}
		name := constraint
		if tk := p.peek(); tk.kind == tName || tk.kind == tWord && !tk.is("using") {
			n, _ := p.name()
			name = n.text
		}
		p.indexType()
		cols, ok := p.keyColumns()
		if !ok {
			return false
		}
		if name == "" {
			name = cols[0] // the server's default name
		}
		t.Uniques = append(t.Uniques, Key{Name: name, Columns: cols, Pos: first.pos})
		return p.skipToEnd()
	case p.accept("foreign", "key"):
		name := constraint
		if tk := p.peek(); tk.kind == tName || tk.kind == tWord {
			n, _ := p.name()
			if constraint == "" {
				name = n.text
			}
		}
		cols, ok := p.keyColumns()
		if !ok || !p.accept("references") {
			return false
		}
		pdb, parent, ok := p.tableName()
		if !ok {
			return false
		}
		pcols, ok := p.keyColumns()
		if !ok {
			return false
		}
		t.Foreign = append(t.Foreign, ForeignKey{Name: name, Columns: cols, Parent: parent.text, ParentDB: pdb, ParentColumns: pcols, Pos: first.pos})
		return p.skipToEnd()
	case p.accept("check"):
		p.jsonCheck(t)
		return p.skipToEnd()
	case constraint != "":
		return false
	case p.accept("key"), p.accept("index"), p.accept("fulltext"), p.accept("spatial"), p.accept("period", "for"):
		return p.skipToEnd()
	}
	return p.column(t)
}

// jsonCheck reads CHECK (json_valid(col)): MariaDB's JSON is a LONGTEXT with that check.
func (p *parser) jsonCheck(t *Table) {
	if p.i+5 < len(p.toks) && p.toks[p.i].text == "(" && p.toks[p.i+1].is("json_valid") && p.toks[p.i+2].text == "(" && p.toks[p.i+4].text == ")" {
		if c := t.Column(p.toks[p.i+3].text); c != nil {
			c.Type, c.TypeText = "json", "json"
		}
	}
}

// skipToEnd skips to the "," or ")" that ends a definition, over parentheses.
func (p *parser) skipToEnd() bool {
	for !p.done() {
		tk := p.peek()
		if tk.kind == tPunct && (tk.text == "," || tk.text == ")") {
			return true
		}
		if tk.kind == tPunct && tk.text == "(" {
			if !p.skipParens() {
				return false
			}
			continue
		}
		p.next()
	}
	return true // ALTER TABLE ADD ... ends the statement
}

func (p *parser) indexType() {
	if p.accept("using") {
		p.next()
	}
}

// keyColumns reads (a, b(10), c DESC).
func (p *parser) keyColumns() ([]string, bool) {
	if !p.punct("(") {
		return nil, false
	}
	var cols []string
	for {
		if p.peek().kind == tPunct && p.peek().text == "(" {
			return nil, false // a functional key part: an expression, no column
		}
		n, ok := p.name()
		if !ok {
			return nil, false
		}
		cols = append(cols, n.text)
		if p.peek().kind == tPunct && p.peek().text == "(" {
			p.skipParens() // a prefix length
		}
		if !p.accept("asc") {
			p.accept("desc")
		}
		if p.punct(")") {
			return cols, true
		}
		if !p.punct(",") {
			return nil, false
		}
	}
}

// column reads a column definition: name, type, options.
func (p *parser) column(t *Table) bool {
	n, ok := p.name()
	if !ok {
		return false
	}
	c := &Column{Name: n.text, Pos: n.pos, Nullable: true}
	serial := p.peek().is("serial")
	if !p.columnType(c) {
		return false
	}
	t.Columns = append(t.Columns, c)
	if serial {
		t.Uniques = append(t.Uniques, Key{Name: c.Name, Columns: []string{c.Name}, Pos: c.Pos})
	}
	for {
		tk := p.peek()
		if tk.kind == tPunct && (tk.text == "," || tk.text == ")") || p.done() {
			return true
		}
		switch {
		case p.accept("not", "null"):
			c.Nullable = false
		case p.accept("null"):
		case p.accept("default"), p.accept("on", "update"):
			if !p.expr() {
				return false
			}
		case p.accept("auto_increment"):
			c.AutoIncrement = true
		case p.accept("unique"):
			p.accept("key")
			t.Uniques = append(t.Uniques, Key{Name: c.Name, Columns: []string{c.Name}, Pos: tk.pos})
		case p.accept("primary", "key"), p.accept("key"):
			c.Nullable = false
			t.Uniques = append([]Key{{Name: "PRIMARY", Columns: []string{c.Name}, Pos: tk.pos}}, t.Uniques...)
		case p.accept("comment"), p.accept("collate"), p.accept("character", "set"), p.accept("charset"),
			p.accept("column_format"), p.accept("storage"), p.accept("srid"), p.accept("engine_attribute"), p.accept("secondary_engine_attribute"):
			p.punct("=")
			p.next()
		case p.accept("generated", "always", "as"), p.accept("as"):
			if !p.skipParens() {
				return false
			}
			c.Generated = true
			for p.accept("virtual") || p.accept("stored") || p.accept("persistent") || p.accept("unique") || p.accept("key") {
			}
		case p.accept("check"):
			p.jsonCheck(t)
			if !p.skipParens() {
				return false
			}
		case p.accept("references"):
			// InnoDB ignores a foreign key written on the column: no key to read
			if _, _, ok := p.tableName(); !ok {
				return false
			}
			p.skipParens()
			for p.accept("on", "delete") || p.accept("on", "update") {
				if !p.accept("set", "null") && !p.accept("set", "default") && !p.accept("no", "action") {
					p.next()
				}
			}
		case p.accept("invisible"), p.accept("visible"), p.accept("compressed"), p.accept("with", "system", "versioning"),
			p.accept("without", "system", "versioning"), p.accept("serial", "default", "value"):
			if p.punct("=") {
				p.next()
			}
		case p.accept("constraint"):
			p.name()
		default:
			return false
		}
	}
}

// expr skips a DEFAULT or ON UPDATE value: a literal, NULL, a word with its (arguments), or
// a parenthesized expression.
func (p *parser) expr() bool {
	tk := p.peek()
	switch {
	case tk.kind == tPunct && tk.text == "(":
		return p.skipParens()
	case tk.kind == tPunct && (tk.text == "-" || tk.text == "+"):
		p.next()
		return p.expr()
	case tk.kind == tWord && strings.HasPrefix(tk.text, "_") && p.i+1 < len(p.toks) && p.toks[p.i+1].kind == tString:
		p.i += 2 // a charset introducer: _utf8mb4'x'
		return true
	case tk.kind == tWord && p.i+1 < len(p.toks) && p.toks[p.i+1].kind == tString && (tk.is("x") || tk.is("b") || tk.is("date") || tk.is("timestamp") || tk.is("time")):
		p.i += 2
		return true
	case tk.kind == tWord || tk.kind == tString || tk.kind == tNumber:
		p.next()
		if nt := p.peek(); nt.kind == tPunct && nt.text == "(" {
			return p.skipParens()
		}
		return true
	}
	return false
}

// columnType reads a data type with its (length), members and attributes.
func (p *parser) columnType(c *Column) bool {
	tk := p.next()
	if tk.kind != tWord {
		return false
	}
	base := strings.ToLower(tk.text)
	switch {
	case base == "double" && p.accept("precision"):
	case base == "national":
		nt := p.next()
		base = strings.ToLower(nt.text)
		if base == "character" || base == "char" {
			base = "char"
			if p.accept("varying") {
				base = "varchar"
			}
		}
	case (base == "character" || base == "char") && p.accept("varying"):
		base = "varchar"
	case base == "long" && p.accept("varbinary"):
		base = "mediumblob"
	case base == "long" && p.accept("varchar"):
		base = "mediumtext"
	case base == "serial":
		c.Type, c.TypeText, c.Unsigned, c.Nullable, c.AutoIncrement = "bigint", "bigint unsigned", true, false, true
		return true
	}
	if m, ok := types[base]; ok {
		if base == "bool" || base == "boolean" {
			c.Precision = 1
		}
		base = m
	}
	c.Type = base
	var args []string
	if p.peek().kind == tPunct && p.peek().text == "(" {
		p.next()
		for {
			a := p.next()
			if a.kind != tNumber && a.kind != tString {
				return false
			}
			args = append(args, a.text)
			if p.punct(")") {
				break
			}
			if !p.punct(",") {
				return false
			}
		}
	}
	num := func(i int) int64 {
		if i >= len(args) {
			return 0
		}
		n, _ := strconv.ParseInt(args[i], 10, 64)
		return n
	}
	switch {
	case base == "enum" || base == "set":
		c.Members = args
	case base == "char" || base == "binary":
		c.Length = max(num(0), 1)
		if len(args) == 0 {
			c.Length = 1
		}
	case base == "varchar" || base == "varbinary":
		c.Length = num(0)
	case textLength[base] > 0:
		c.Length = textLength[base]
	case base == "decimal":
		c.Precision, c.Scale = 10, 0
		if len(args) > 0 {
			c.Precision, c.Scale = num(0), num(1)
		}
	case base == "bit":
		c.Precision = max(num(0), 1)
	}
	for {
		switch {
		case p.accept("unsigned"):
			c.Unsigned = true
		case p.accept("signed"), p.accept("zerofill"), p.accept("binary"), p.accept("ascii"), p.accept("unicode"), p.accept("byte"):
			if p.toks[p.i-1].is("zerofill") {
				c.Unsigned = true
			}
		case p.accept("character", "set"), p.accept("charset"), p.accept("collate"):
			p.punct("=")
			p.next()
		default:
			c.TypeText = typeText(c, args)
			return true
		}
	}
}

func typeText(c *Column, args []string) string {
	s := c.Type
	switch {
	case c.Type == "enum" || c.Type == "set":
		q := make([]string, len(args))
		for i, a := range args {
			q[i] = "'" + strings.ReplaceAll(a, "'", "''") + "'"
		}
		s += "(" + strings.Join(q, ",") + ")"
	case len(args) > 0:
		s += "(" + strings.Join(args, ",") + ")"
	case c.Type == "tinyint" && c.Precision == 1:
		s += "(1)"
	}
	if c.Unsigned {
		s += " unsigned"
	}
	return s
}
