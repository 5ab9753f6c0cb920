package verify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
)

// Plan is an EXPLAIN FORMAT=JSON reduced to what decides a query's speed: how each table is
// reached, in join order, and whether a temporary table or a filesort is needed. Costs and
// filtered percentages are left out: they move between versions without the plan changing.
type Plan struct {
	Tables    []Access
	Temporary bool
	Filesort  bool
}

// Access is one table of a plan.
type Access struct {
	Table string
	Type  string // access_type: ALL, ref, eq_ref, range, index, const...
	Key   string // the index used, "" for none
	Rows  float64
}

// RowsFactor is how far two estimates of a table's rows may be apart (either way) and still
// be the same plan: statistics are sampled, so only an order of magnitude means something.
const RowsFactor = 10

// ReducePlan reads the JSON of EXPLAIN FORMAT=JSON, MariaDB's or MySQL's: both nest tables
// as "table" objects (in nested_loop arrays, subqueries, unions) in join order, which a walk
// in document order keeps.
func ReducePlan(explain []byte) (*Plan, error) {
	dec := json.NewDecoder(bytes.NewReader(explain))
	dec.UseNumber()
	p := &Plan{}
	if err := walk(dec, "", p); err != nil {
		return nil, fmt.Errorf("read EXPLAIN FORMAT=JSON: %w", err)
	}
	return p, nil
}

// walk reads one value whose key is key, noting the tables and flags it holds. The decoder's
// tokens are used instead of a map because a map would lose the join order.
func walk(dec *json.Decoder, key string, p *Plan) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		var a *Access
		if key == "table" {
			p.Tables = append(p.Tables, Access{})
			a = &p.Tables[len(p.Tables)-1]
		}
		idx := len(p.Tables) - 1
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return err
			}
			k, _ := kt.(string)
			switch k {
			case "temporary_table":
				// MariaDB names the step: its presence is the temporary table.
				p.Temporary = true
			case "filesort":
				p.Filesort = true
			}
			if a != nil {
				switch k {
				case "table_name", "access_type", "key", "rows", "rows_examined_per_scan":
					v, err := scalar(dec)
					if err != nil {
						return err
					}
					// p.Tables may have grown (and moved) while walking an earlier key.
					t := &p.Tables[idx]
					switch k {
					case "table_name":
						t.Table = v
					case "access_type":
						t.Type = v
					case "key":
						t.Key = v
					default:
						t.Rows, _ = parseFloat(v)
					}
					continue
				}
			}
			if k == "using_temporary_table" || k == "using_filesort" {
				v, err := scalar(dec)
				if err != nil {
					return err
				}
				if v == "true" {
					if k == "using_filesort" {
						p.Filesort = true
					} else {
						p.Temporary = true
					}
				}
				continue
			}
			if err := walk(dec, k, p); err != nil {
				return err
			}
		}
		_, err := dec.Token()
		return err
	case json.Delim('['):
		for dec.More() {
			if err := walk(dec, key, p); err != nil {
				return err
			}
		}
		_, err := dec.Token()
		return err
	}
	return nil
}

// scalar reads a string, number or boolean as text; an object or array is skipped ("").
func scalar(dec *json.Decoder) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", err
	}
	switch v := tok.(type) {
	case string:
		return v, nil
	case json.Number:
		return v.String(), nil
	case bool:
		return fmt.Sprint(v), nil
	case json.Delim:
		depth := 1
		for depth > 0 {
			t, err := dec.Token()
			if err == io.EOF {
				return "", io.ErrUnexpectedEOF
			}
			if err != nil {
				return "", err
			}
			switch t {
			case json.Delim('{'), json.Delim('['):
				depth++
			case json.Delim('}'), json.Delim(']'):
				depth--
			}
		}
	}
	return "", nil
}

func parseFloat(s string) (float64, bool) {
	var f float64
	_, err := fmt.Sscan(s, &f)
	return f, err == nil
}

// Diff says how other differs from base, one phrase per difference ("orders: ref on
// idx_customer → ALL"); none when they are the same plan.
func (base *Plan) Diff(other *Plan) []string {
	var out []string
	names := func(p *Plan) []string {
		n := make([]string, len(p.Tables))
		for i, t := range p.Tables {
			n[i] = t.Table
		}
		return n
	}
	bn, on := names(base), names(other)
	if strings.Join(bn, ",") != strings.Join(on, ",") {
		out = append(out, fmt.Sprintf("join order %s → %s", strings.Join(bn, ", "), strings.Join(on, ", ")))
	} else {
		for i, b := range base.Tables {
			o := other.Tables[i]
			if b.Type != o.Type || b.Key != o.Key {
				out = append(out, fmt.Sprintf("%s: %s → %s", b.Table, b.access(), o.access()))
				continue
			}
			if far(b.Rows, o.Rows) {
				out = append(out, fmt.Sprintf("%s: rows %s → %s", b.Table, fmtRows(b.Rows), fmtRows(o.Rows)))
			}
		}
	}
	flag := func(name string, b, o bool) {
		if b != o {
			out = append(out, fmt.Sprintf("%s %s → %s", name, yesNo(b), yesNo(o)))
		}
	}
	flag("temporary table", base.Temporary, other.Temporary)
	flag("filesort", base.Filesort, other.Filesort)
	return out
}

func (a Access) access() string {
	if a.Key == "" {
		return a.Type
	}
	return a.Type + " on " + a.Key
}

// far: estimates more than RowsFactor apart; below one row both count as one, so 0 → 3 is
// not a change.
func far(a, b float64) bool {
	a, b = math.Max(a, 1), math.Max(b, 1)
	return math.Max(a, b)/math.Min(a, b) > RowsFactor
}

func fmtRows(r float64) string { return fmt.Sprintf("%.0f", r) }

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// Lines is the plan for a person to read, as query-details.jsonl holds it: one line per
// table in join order ("orders: ref on idx_customer, rows ~12"), then its flags.
func (p *Plan) Lines() []string {
	var out []string
	for _, t := range p.Tables {
		out = append(out, fmt.Sprintf("%s: %s, rows ~%s", t.Table, t.access(), fmtRows(t.Rows)))
	}
	if p.Temporary {
		out = append(out, "temporary table")
	}
	if p.Filesort {
		out = append(out, "filesort")
	}
	return out
}
