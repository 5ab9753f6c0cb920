package ddl

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// describe writes what was read of a schema, one line a table, column or key.
func describe(s *Schema) string {
	var b strings.Builder
	fmt.Fprintf(&b, "database %q whole=%v\n", s.Database, s.Whole)
	for _, t := range s.Tables {
		fmt.Fprintf(&b, "table %s.%s %d:%d", t.Database, t.Name, t.Pos.Line, t.Pos.Col)
		if t.Unread {
			b.WriteString(" unread")
		}
		b.WriteString("\n")
		for _, c := range t.Columns {
			fmt.Fprintf(&b, "  %s %s [%s] %d:%d len=%d p=%d,%d", c.Name, c.Type, c.TypeText, c.Pos.Line, c.Pos.Col, c.Length, c.Precision, c.Scale)
			for _, f := range []struct {
				on   bool
				name string
			}{{!c.Nullable, "notnull"}, {c.AutoIncrement, "autoinc"}, {c.Generated, "generated"}, {c.Unsigned, "unsigned"}} {
				if f.on {
					b.WriteString(" " + f.name)
				}
			}
			if c.Members != nil {
				fmt.Fprintf(&b, " members=%q", c.Members)
			}
			b.WriteString("\n")
		}
		for _, k := range t.Uniques {
			fmt.Fprintf(&b, "  unique %s (%s) %d:%d\n", k.Name, strings.Join(k.Columns, ","), k.Pos.Line, k.Pos.Col)
		}
		for _, f := range t.Foreign {
			fmt.Fprintf(&b, "  foreign %s (%s) -> %s.%s (%s) %d:%d\n", f.Name, strings.Join(f.Columns, ","), f.ParentDB, f.Parent, strings.Join(f.ParentColumns, ","), f.Pos.Line, f.Pos.Col)
		}
	}
	return b.String()
}

func parseFile(t *testing.T, path string, srv Server) *Schema {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return ParseFor(string(data), srv)
}

func TestParseDump(t *testing.T) {
	got := describe(parseFile(t, "testdata/dump.sql", MySQL))
	want := `database "other" whole=true
table shop.customers 16:14
  id int [int unsigned] 17:3 len=0 p=0,0 notnull autoinc unsigned
  email varchar [varchar(120)] 18:3 len=120 p=0,0 notnull
  name varchar [varchar(60)] 19:3 len=60 p=0,0 notnull
  tier enum [enum('free','gold','it''s')] 20:3 len=0 p=0,0 notnull members=["free" "gold" "it's"]
  created_at datetime [datetime] 21:3 len=0 p=0,0 notnull
  updated_at timestamp [timestamp] 22:3 len=0 p=0,0
  email_domain varchar [varchar(120)] 23:3 len=120 p=0,0 generated
  doc json [json] 24:3 len=4294967295 p=0,0
  unique PRIMARY (id) 25:3
  unique email (email) 26:3
table shop.products 38:33
  id int [int unsigned] 39:3 len=0 p=0,0 notnull autoinc unsigned
  sku char [char(12)] 40:3 len=12 p=0,0 notnull
  price decimal [decimal(10,2)] 41:3 len=0 p=10,2 notnull
  weight float [float(7,3)] 42:3 len=0 p=0,0
  active tinyint [tinyint(1)] 43:3 len=0 p=1,0 notnull
  flags set [set('a','b')] 44:3 len=0 p=0,0 members=["a" "b"]
  bits bit [bit(3)] 45:3 len=0 p=3,0
  uid binary [binary(16)] 46:3 len=16 p=0,0
  spot point [point] 47:3 len=0 p=0,0
  unique PRIMARY (id) 39:47
  unique sku (sku) 40:25
table shop.orders 51:14
  id bigint [bigint] 52:3 len=0 p=0,0 notnull
  customer_id int [int unsigned] 53:3 len=0 p=0,0 notnull unsigned
  status enum [enum('new','paid')] 54:3 len=0 p=0,0 notnull members=["new" "paid"]
  total decimal [decimal(8,2)] 55:3 len=0 p=8,2
  yr year [year] 56:3 len=0 p=0,0
  code smallint [smallint] 57:3 len=0 p=0,0
  unique PRIMARY (id) 58:3
  unique code (code) 70:21
  foreign orders_customer (customer_id) -> .customers (id) 59:3
table shop.order_items 62:14
  order_id bigint [bigint] 63:3 len=0 p=0,0 notnull
  line smallint [smallint unsigned] 64:3 len=0 p=0,0 notnull unsigned
  product_id int [int unsigned] 65:3 len=0 p=0,0 notnull unsigned
  unique PRIMARY (order_id,line) 66:3
  foreign order_items_ibfk_1 (order_id) -> .orders (id) 67:3
  foreign order_items_ibfk_2 (product_id) -> .products (id) 68:3
table shop.copy 79:14
  id bigint [bigint] 52:3 len=0 p=0,0 notnull
  customer_id int [int unsigned] 53:3 len=0 p=0,0 notnull unsigned
  status enum [enum('new','paid')] 54:3 len=0 p=0,0 notnull members=["new" "paid"]
  total decimal [decimal(8,2)] 55:3 len=0 p=8,2
  yr year [year] 56:3 len=0 p=0,0
  code smallint [smallint] 57:3 len=0 p=0,0
  extra int [int] 83:29 len=0 p=0,0 notnull
  unique PRIMARY (id) 58:3
  unique code (code) 70:21
  foreign copy_parent (customer_id) -> .customers (id) 83:53
table shop.made 80:14 unread
table shop.altered 84:14 unread
  id int [int] 84:23 len=0 p=0,0
`
	if got != want {
		t.Errorf("read:\n%s\nwant:\n%s", got, want)
	}
}

// TestParseMariaDBDump reads what mariadb-dump 10.11 wrote of a schema with the keys of
// executor/generate's TestKeys and more (recorded from a sandbox): its tables in name order
// with foreign keys to tables created later, version comments, a trigger in DELIMITER ;;, a
// view's stand-in, MariaDB's JSON as a checked LONGTEXT, UUID and INET6.
func TestParseMariaDBDump(t *testing.T) {
	got := describe(parseFile(t, "testdata/mariadb-dump.sql", MariaDB))
	want := `database "k" whole=true
table k.memberships 35:14
  person_id bigint [bigint(20)] 36:3 len=0 p=0,0 notnull
  team_id int [int(11)] 37:3 len=0 p=0,0 notnull
  unique PRIMARY (person_id,team_id) 38:3
  foreign m_person (person_id) -> .people (id) 40:3
  foreign m_team (team_id) -> .teams (id) 41:3
table k.parts 61:14
  id int [int(11)] 62:3 len=0 p=0,0 notnull
  unique PRIMARY (id) 63:3
table k.passports 85:14
  person_id bigint [bigint(20)] 86:3 len=0 p=0,0 notnull
  number char [char(9)] 87:3 len=9 p=0,0 notnull
  unique PRIMARY (person_id) 88:3
  foreign passports_ibfk_1 (person_id) -> .people (id) 89:3
table k.people 109:14
  id bigint [bigint(20)] 110:3 len=0 p=0,0 notnull
  handle varchar [varchar(20)] 111:3 len=20 p=0,0 notnull
  born date [date] 112:3 len=0 p=0,0
  upper_handle varchar [varchar(20)] 113:3 len=20 p=0,0 generated
  score decimal [decimal(5,2)] 114:3 len=0 p=5,2
  flags set [set('a','b','c')] 115:3 len=0 p=0,0 members=["a" "b" "c"]
  active tinyint [tinyint(1)] 116:3 len=0 p=0,0 notnull
  seen timestamp [timestamp] 117:3 len=0 p=0,0
  at time [time] 118:3 len=0 p=0,0
  yr year [year(4)] 119:3 len=0 p=0,0
  doc json [json] 120:3 len=4294967295 p=0,0
  raw varbinary [varbinary(16)] 121:3 len=16 p=0,0
  bits bit [bit(3)] 122:3 len=0 p=3,0
  amount double [double] 123:3 len=0 p=0,0
  token uuid [uuid] 124:3 len=0 p=0,0
  addr inet6 [inet6] 125:3 len=0 p=0,0
  boss bigint [bigint(20)] 126:3 len=0 p=0,0
  unique PRIMARY (id) 127:3
  unique handle (handle) 128:3
  foreign people_ibfk_1 (boss) -> .people (id) 132:3
table k.regions 169:14
  code char [char(4)] 170:3 len=4 p=0,0 notnull
  region tinyint [tinyint(4)] 171:3 len=0 p=0,0 notnull
  unique PRIMARY (code,region) 172:3
table k.stores 192:14
  id int [int(11)] 193:3 len=0 p=0,0 notnull
  code char [char(4)] 194:3 len=4 p=0,0 notnull
  region tinyint [tinyint(4)] 195:3 len=0 p=0,0 notnull
  opened datetime [datetime(3)] 196:3 len=0 p=0,0
  unique PRIMARY (id) 197:3
  foreign stores_ibfk_1 (code,region) -> .regions (code,region) 199:3
table k.teams 219:14
  id int [int(11)] 220:3 len=0 p=0,0 notnull autoinc
  name varchar [varchar(30)] 221:3 len=30 p=0,0 notnull
  unique PRIMARY (id) 222:3
table k.we` + "`" + `ird 257:14
  id int [int(10) unsigned] 258:3 len=0 p=0,0 notnull autoinc unsigned
  select varchar [varchar(5)] 259:3 len=5 p=0,0
  unique PRIMARY (id) 260:3
`
	if got != want {
		t.Errorf("read:\n%s\nwant:\n%s", got, want)
	}
}

func TestParseShop(t *testing.T) {
	s := parseFile(t, "../../examples/shop.sql", AnyServer)
	if s.Database != "shop" || !s.Whole {
		t.Errorf("database %q whole=%v, want shop and whole", s.Database, s.Whole)
	}
	items := s.Table("shop", "order_items")
	if items == nil || items.Unread {
		t.Fatalf("order_items not read: %s", describe(s))
	}
	got := describe(&Schema{Database: s.Database, Whole: s.Whole, Tables: []*Table{s.Table("", "orders"), items}})
	want := `database "shop" whole=true
table shop.orders 22:14
  id int [int unsigned] 23:3 len=0 p=0,0 notnull autoinc unsigned
  customer_id int [int unsigned] 24:3 len=0 p=0,0 notnull unsigned
  status enum [enum('new','paid','shipped')] 25:3 len=0 p=0,0 notnull members=["new" "paid" "shipped"]
  placed_at datetime [datetime] 26:3 len=0 p=0,0 notnull
  note varchar [varchar(200)] 27:3 len=200 p=0,0
  unique PRIMARY (id) 23:43
  foreign orders_ibfk_1 (customer_id) -> .customers (id) 28:3
table shop.order_items 31:14
  order_id int [int unsigned] 32:3 len=0 p=0,0 notnull unsigned
  line smallint [smallint unsigned] 33:3 len=0 p=0,0 notnull unsigned
  product_id int [int unsigned] 34:3 len=0 p=0,0 notnull unsigned
  quantity tinyint [tinyint unsigned] 35:3 len=0 p=0,0 notnull unsigned
  unique PRIMARY (order_id,line) 36:3
  foreign order_items_ibfk_1 (order_id) -> .orders (id) 37:3
  foreign order_items_ibfk_2 (product_id) -> .products (id) 38:3
`
	if got != want {
		t.Errorf("read:\n%s\nwant:\n%s", got, want)
	}
	for _, n := range []string{"customers", "products"} {
		if tb := s.Table("shop", n); tb == nil || tb.Unread || len(tb.Uniques) != 2 {
			t.Errorf("%s: want it read with its primary and unique keys: %s", n, describe(s))
		}
	}
}

// TestParseStatements: what changes the tables a file leaves, and what makes a table or the
// file not read: never an error.
func TestParseStatements(t *testing.T) {
	for _, c := range []struct {
		name, sql, want string
	}{
		{"alter adds a cycle and drops a key", "CREATE TABLE a (id INT PRIMARY KEY, b_id INT);\nCREATE TABLE b (id INT PRIMARY KEY, a_id INT, FOREIGN KEY (a_id) REFERENCES a (id), CONSTRAINT keep FOREIGN KEY (a_id) REFERENCES a (id));\nALTER TABLE a ADD FOREIGN KEY (b_id) REFERENCES b (id);\nALTER TABLE b DROP FOREIGN KEY b_ibfk_1;",
			"a: a_ibfk_1->b | b: keep->a"},
		{"rename and create or replace", "CREATE TABLE x (id INT);\nRENAME TABLE x TO y;\nCREATE OR REPLACE TABLE y (id BIGINT, v INT);", "y: id,v"},
		{"delimiter", "DELIMITER //\nCREATE PROCEDURE p() BEGIN CREATE TABLE inner_t (id INT); END//\nCREATE TABLE t (id INT)//\nDELIMITER ;\nCREATE TABLE u (id INT);", "t: id | u: id"},
		{"call may create tables", "CREATE TABLE t (id INT);\nCALL make_tables();", "t: id | not whole"},
		{"an unclosed quote", "CREATE TABLE t (id INT);\nCREATE TABLE u (c VARCHAR(3) DEFAULT 'x);", "t: id | not whole"},
		{"a column it cannot read", "CREATE TABLE t (id INT, c INT MAGIC, d INT);", "t: unread"},
		{"a functional key", "CREATE TABLE t (id INT, UNIQUE KEY ((id + 1)));", "t: unread"},
		{"database-qualified and USE", "CREATE TABLE other.t (id INT);\nUSE shop;\nCREATE TABLE u (id INT);", "other.t: id | shop.u: id | use shop"},
		{"serial and national", "CREATE TABLE t (id SERIAL, n NATIONAL VARCHAR(10), d DOUBLE PRECISION, l LONG VARCHAR);", "t: id,n,d,l"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := Parse(c.sql)
			var parts []string
			for _, tb := range s.Tables {
				name := tb.Name
				if tb.Database != "" {
					name = tb.Database + "." + name
				}
				var what []string
				switch {
				case tb.Unread:
					what = []string{"unread"}
				case len(tb.Foreign) > 0:
					for _, f := range tb.Foreign {
						what = append(what, f.Name+"->"+f.Parent)
					}
				default:
					for _, col := range tb.Columns {
						what = append(what, col.Name)
					}
				}
				parts = append(parts, name+": "+strings.Join(what, ","))
			}
			if !s.Whole {
				parts = append(parts, "not whole")
			}
			if s.Database != "" {
				parts = append(parts, "use "+s.Database)
			}
			if got := strings.Join(parts, " | "); got != c.want {
				t.Errorf("got %q, want %q\n%s", got, c.want, describe(s))
			}
		})
	}
}

// TestVersionedComments: /*!NNNNN */ as each server reads it (issue 47: a /*!50705 GEOMETRY
// column read as SQL, though MariaDB skips it).
func TestVersionedComments(t *testing.T) {
	src := "CREATE TABLE a (id INT PRIMARY KEY, /*!50705 location GEOMETRY NOT NULL, */ /*!50003 n INT, */ /*M!100301 m INT, */ /*!100500 six INT, */ z INT) /*!80016 DEFAULT ENCRYPTION='N' */;\n" +
		"CREATE TABLE b (id INT PRIMARY KEY) /*!40101 ENGINE=InnoDB */;\n"
	for _, c := range []struct {
		srv    Server
		cols   string
		unread bool
	}{
		{MariaDB, "id n m six z", false},
		{MySQL, "id location n z", false},
		{AnyServer, "", true},
	} {
		s := ParseFor(src, c.srv)
		a, b := s.Table("", "a"), s.Table("", "b")
		if a == nil || b == nil || b.Unread || a.Unread != c.unread {
			t.Fatalf("server %d: tables %+v %+v, want a unread %v, b read", c.srv, a, b, c.unread)
		}
		if c.unread {
			continue
		}
		var names []string
		for _, col := range a.Columns {
			names = append(names, col.Name)
		}
		if got := strings.Join(names, " "); got != c.cols {
			t.Errorf("server %d reads columns %q, want %q", c.srv, got, c.cols)
		}
	}
}
