package generate

import "testing"

// The client's cost of a row, without a server: an sbtest row, and an employee's salary
// (per_parent, two expr dates), as bench/generatebench's shapes. Run before and after a change
// to the planner (go test -run - -bench Row -count N), alternated.

func sbtestPlan(b *testing.B) *tablePlan {
	ti := &tableInfo{name: "sbtest1", cols: []*column{
		{name: "id", dataType: "int", columnType: "int(11)", autoInc: true},
		{name: "k", dataType: "int", columnType: "int(11)"},
		{name: "c", dataType: "char", columnType: "char(120)", charLen: 120},
		{name: "pad", dataType: "char", columnType: "char(60)", charLen: 60},
	}, uniques: []key{{name: "PRIMARY", cols: []string{"id"}}}}
	tp, err := planTable(1, ti, Table{Name: "sbtest1", Rows: 1_000_000}, map[string]*tablePlan{})
	if err != nil {
		b.Fatal(err)
	}
	return tp
}

func salariesPlan(b *testing.B) *tablePlan {
	emp := &tableInfo{name: "employees", cols: []*column{
		{name: "emp_no", dataType: "int", columnType: "int(11)"},
		{name: "birth_date", dataType: "date", columnType: "date"},
		{name: "first_name", dataType: "varchar", columnType: "varchar(14)", charLen: 14},
		{name: "hire_date", dataType: "date", columnType: "date"},
	}, uniques: []key{{name: "PRIMARY", cols: []string{"emp_no"}}}}
	ep, err := planTable(5, emp, Table{Name: "employees", Rows: 20000, Columns: map[string]Settings{
		"hire_date": {Min: "1985-01-01", Max: "2000-01-28"}}}, map[string]*tablePlan{})
	if err != nil {
		b.Fatal(err)
	}
	sal := &tableInfo{name: "salaries", cols: []*column{
		{name: "emp_no", dataType: "int", columnType: "int(11)"},
		{name: "salary", dataType: "int", columnType: "int(11)"},
		{name: "from_date", dataType: "date", columnType: "date"},
		{name: "to_date", dataType: "date", columnType: "date"},
	}, uniques: []key{{name: "PRIMARY", cols: []string{"emp_no", "from_date"}}},
		fks: []key{{name: "salaries_ibfk_1", cols: []string{"emp_no"}, parent: "employees", parentCols: []string{"emp_no"}}}}
	tp, err := planTable(5, sal, Table{Name: "salaries", PerParent: &PerParent{Min: 5, Max: 15}, Columns: map[string]Settings{
		"from_date": {Expr: "parent.hire_date + days(line * 365 + uniform(0, 300))"},
		"to_date":   {Expr: "from_date + days(uniform(1, 365))"},
		"salary":    {Min: "38000", Max: "160000", Distribution: "normal"},
	}}, map[string]*tablePlan{"employees": ep})
	if err != nil {
		b.Fatal(err)
	}
	return tp
}

func benchRows(b *testing.B, tp *tablePlan) {
	buf := make([]byte, 0, 1024)
	b.ResetTimer()
	for i := range b.N {
		buf = tp.appendRow(buf[:0], int64(i)%tp.rows)
	}
}

func BenchmarkRowSbtest(b *testing.B)   { benchRows(b, sbtestPlan(b)) }
func BenchmarkRowSalaries(b *testing.B) { benchRows(b, salariesPlan(b)) }
