package transactions

import (
	"fmt"
	"strings"

	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/sqltext"
)

// PlanTransaction is one weighted transaction of a custom mix as the plan writes it.
type PlanTransaction struct {
	Src        spec.Source     `yaml:"-" name:"transaction" def:"transaction"`
	Name       string          `yaml:"name,required" pattern:"^[a-z][a-z0-9_]*$" doc:"Name in reports."`
	Weight     int             `yaml:"weight" default:"1" min:"1" doc:"Relative frequency."`
	Statements []PlanStatement `yaml:"statements,required" doc:"Statements run in order at each execution of the transaction."`
}

// PlanDoc is the transaction's section of the plan reference.
func (PlanTransaction) PlanDoc() string { return "One weighted transaction of a custom mix." }

// PlanStatement is one statement of a custom transaction. Args are evaluated per execution,
// with the generator functions (spec.Generators) and the iteration's names.
type PlanStatement struct {
	Src  spec.Source `yaml:"-" name:"statement" def:"tx_statement"`
	SQL  string      `yaml:"sql,required" doc:"The statement, with ? placeholders."`
	Args []spec.Expr `yaml:"args" doc:"One expression per placeholder, evaluated per execution over the generator functions and the names an expression has at its place (vars, matrix and iteration in an iteration, env, target): rand_int(1, vars.rows), rand_int(1, matrix.span), ..."`
}

// PlanDoc is the statement's section of the plan reference.
func (PlanStatement) PlanDoc() string {
	return "A statement with `?` placeholders and one `args` expression per placeholder."
}

// Workload is a custom mix built in Go (benchmarks, tests), with the plan's defaults.
func Workload(txs []PlanTransaction) *spec.Workload {
	return spec.WithDefaults(&spec.Workload{Kind: &Kind.Spec, Body: &txs})
}

// Plan returns w's transactions as the plan wrote them.
func Plan(w *spec.Workload) []PlanTransaction {
	if txs := spec.Body[*[]PlanTransaction](w); txs != nil {
		return *txs
	}
	return nil
}

// check refuses duplicate names and a statement whose placeholders and args differ in
// number, and compiles each arg against the generator functions.
func check(c *spec.Check, w *spec.Workload) {
	txs := Plan(w)
	if len(txs) == 0 {
		c.Errorf(w.Src.At("transactions"), "transactions is empty; add at least one {name:, statements: [...]}")
		return
	}
	seen := map[string]bool{}
	for i := range txs {
		tx := &txs[i]
		if seen[tx.Name] {
			c.Errorf(tx.Src.At("name"), "two transactions are named %q; names must be unique", tx.Name)
		}
		seen[tx.Name] = true
		for j := range tx.Statements {
			st := &tx.Statements[j]
			if n := countPlaceholders(st.SQL); n != len(st.Args) && st.SQL != "" {
				c.Errorf(st.Src.Pos, "statement has %d ? placeholder(s) but %d args; give one arg per ?", n, len(st.Args))
			}
			for k := range st.Args {
				c.Compile(&st.Args[k], spec.Generators)
			}
		}
	}
}

// countPlaceholders counts ? outside quotes and comments.
func countPlaceholders(sql string) int {
	n := 0
	s := sql
	if parts, err := sqltext.Split(sql); err == nil && len(parts) > 0 {
		s = strings.Join(parts, ";") // comments dropped: a ? in a comment is no placeholder
	}
	var q byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case q != 0:
			if c == '\\' {
				i++
			} else if c == q {
				q = 0
			}
		case c == '\'' || c == '"' || c == '`':
			q = c
		case c == '?':
			n++
		}
	}
	return n
}

func describe(w *spec.Workload) string {
	txs := Plan(w)
	names := make([]string, len(txs))
	for i, t := range txs {
		names[i] = fmt.Sprintf("%s x%d", t.Name, t.Weight)
	}
	return "transactions " + strings.Join(names, ", ")
}

// explain lists every statement with its args.
func explain(w *spec.Workload) []string {
	var out []string
	for _, t := range Plan(w) {
		for _, st := range t.Statements {
			line := fmt.Sprintf("%s: %s", t.Name, strings.Join(strings.Fields(st.SQL), " "))
			if len(st.Args) > 0 {
				args := make([]string, len(st.Args))
				for i, a := range st.Args {
					args[i] = a.Source
				}
				line += "  <- " + strings.Join(args, ", ")
			}
			out = append(out, line)
		}
	}
	return out
}

func txNames(w *spec.Workload) []string {
	var out []string
	for _, t := range Plan(w) {
		out = append(out, t.Name)
	}
	return out
}
