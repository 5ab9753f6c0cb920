// Package builtin is the builtin: workload kind (but builtin: tpcc, executor/workload/tpcc):
// it implements sysbench 1.0.20's OLTP Lua scripts (oltp_*.lua, select_random_*.lua,
// bulk_insert.lua) natively: same schema, data format, statements, option names and
// defaults, so tables prepared here run under sysbench and the other way round.
package builtin

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/quadrant-bench/quadrant/executor/workload/sbrand"
)

// Builtins are the supported script names.
var Builtins = []string{
	"oltp_read_only", "oltp_read_write", "oltp_write_only", "oltp_point_select",
	"oltp_update_index", "oltp_update_non_index", "oltp_insert", "oltp_delete",
	"select_random_points", "select_random_ranges", "bulk_insert",
}

// Params are the script options (sysbench names in comments).
type Params struct {
	Tables, TableSize, RangeSize                                 int // tables, table_size, range_size
	PointSelects, SimpleRanges, SumRanges, OrderRanges           int
	DistinctRanges, IndexUpdates, NonIndexUpdates, DeleteInserts int
	RangeSelects, AutoInc, SkipTrx, Secondary, CreateSecondary   bool
	Engine                                                       string // mysql_storage_engine
	RandomPoints                                                 int    // select_random_points
	NumberOfRanges, Delta                                        int    // select_random_ranges
	Prepared                                                     bool   // ps_mode (db_ps_mode) auto=true, disable=false
	// StatementStats (statement_stats, quadrant's own): time every statement by class
	// for the stmt.CLASS.* columns. Off by default: bench/oltp_vs_sysbench.sh -ref
	// statement_stats=off could not show its client CPU per transaction under 3%.
	StatementStats bool
	Rand           sbrand.Options
}

// DefaultParams are sysbench 1.0.20's defaults.
func DefaultParams() Params {
	return Params{
		Tables: 1, TableSize: 10000, RangeSize: 100,
		PointSelects: 10, SimpleRanges: 1, SumRanges: 1, OrderRanges: 1, DistinctRanges: 1,
		IndexUpdates: 1, NonIndexUpdates: 1, DeleteInserts: 1,
		RangeSelects: true, AutoInc: true, CreateSecondary: true, Engine: "innodb",
		RandomPoints: 10, NumberOfRanges: 10, Delta: 5, Prepared: true, Rand: sbrand.DefaultOptions(),
	}
}

var randOptions = []string{"rand_type", "rand_spec_iter", "rand_spec_pct", "rand_spec_res", "rand_pareto_h", "rand_zipfian_exp", "rand_seed"}

// ParseParams reads options (sysbench names; '-' and '_' both accepted) for script name.
// Unknown options are errors naming the known ones.
func ParseParams(name string, opts map[string]string) (Params, error) {
	if !slices.Contains(Builtins, name) {
		return Params{}, fmt.Errorf("unknown builtin %q; known: %s", name, strings.Join(Builtins, ", "))
	}
	p := DefaultParams()
	ints, bools := fields(&p, name)
	norm := map[string]string{}
	for k, v := range opts {
		norm[strings.ReplaceAll(k, "-", "_")] = v
	}
	var errs []string
	for k, v := range norm {
		switch {
		case ints[k] != nil:
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n < 0 {
				errs = append(errs, fmt.Sprintf("option %s: %q is not a non-negative integer", k, v))
				continue
			}
			*ints[k] = n
		case bools[k] != nil:
			b, ok := parseBool(v)
			if !ok {
				errs = append(errs, fmt.Sprintf("option %s: %q is not on/off", k, v))
				continue
			}
			*bools[k] = b
		case k == "mysql_storage_engine":
			if !isIdent(v) {
				errs = append(errs, fmt.Sprintf("option %s: %q is not an engine name", k, v))
				continue
			}
			p.Engine = v
		case k == "ps_mode" || k == "db_ps_mode":
			switch v {
			case "auto":
				p.Prepared = true
			case "disable":
				p.Prepared = false
			default:
				errs = append(errs, fmt.Sprintf("option %s: %q is not auto or disable", k, v))
			}
		case slices.Contains(randOptions, k):
		default:
			errs = append(errs, fmt.Sprintf("unknown option %q for %s; known: %s", k, name, strings.Join(KnownOptions(name), ", ")))
		}
	}
	r, err := sbrand.ParseOptions(func(n string) (string, bool) { v, ok := norm[n]; return v, ok })
	if err != nil {
		errs = append(errs, err.Error())
	}
	p.Rand = r
	if p.Tables < 1 {
		errs = append(errs, "option tables: must be at least 1")
	}
	if (name == "select_random_points" || name == "select_random_ranges") && p.Tables != 1 {
		errs = append(errs, name+" does not support tables > 1 (as in sysbench)")
	}
	if name == "select_random_points" && p.RandomPoints < 1 || name == "select_random_ranges" && p.NumberOfRanges < 1 {
		errs = append(errs, name+": random_points/number_of_ranges must be at least 1")
	}
	if len(errs) > 0 {
		sort.Strings(errs)
		return p, fmt.Errorf("%s options: %s", name, strings.Join(errs, "; "))
	}
	return p, nil
}

// fields are the integer and on/off options of builtin name, pointing into p.
func fields(p *Params, name string) (map[string]*int, map[string]*bool) {
	ints := map[string]*int{
		"tables": &p.Tables, "table_size": &p.TableSize, "range_size": &p.RangeSize,
		"point_selects": &p.PointSelects, "simple_ranges": &p.SimpleRanges, "sum_ranges": &p.SumRanges,
		"order_ranges": &p.OrderRanges, "distinct_ranges": &p.DistinctRanges, "index_updates": &p.IndexUpdates,
		"non_index_updates": &p.NonIndexUpdates, "delete_inserts": &p.DeleteInserts,
	}
	bools := map[string]*bool{
		"range_selects": &p.RangeSelects, "auto_inc": &p.AutoInc, "skip_trx": &p.SkipTrx,
		"secondary": &p.Secondary, "create_secondary": &p.CreateSecondary,
		"statement_stats": &p.StatementStats,
	}
	switch name {
	case "select_random_points":
		ints["random_points"] = &p.RandomPoints
	case "select_random_ranges":
		ints["number_of_ranges"] = &p.NumberOfRanges
		ints["delta"] = &p.Delta
	}
	return ints, bools
}

// KnownOptions are the option names builtin name takes, sorted.
func KnownOptions(name string) []string {
	var p Params
	ints, bools := fields(&p, name)
	known := []string{"mysql_storage_engine", "ps_mode"}
	for n := range ints {
		known = append(known, n)
	}
	for n := range bools {
		known = append(known, n)
	}
	known = append(known, randOptions...)
	sort.Strings(known)
	return known
}

func parseBool(v string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "on", "true", "yes", "1":
		return true, true
	case "off", "false", "no", "0":
		return false, true
	}
	return false, false
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}
