package verify

import "github.com/quadrant-bench/quadrant/results"

// redactQueries is rows with their text masked by redact (nil: as they are): the
// statements come from the traffic and the differences quote the servers' rows, either of
// which may hold a secret a plan's setup put there.
func redactQueries(rows []results.QueryRow, redact func(string) string) []results.QueryRow {
	if redact == nil {
		return rows
	}
	out := make([]results.QueryRow, len(rows))
	for i, r := range rows {
		r.Fingerprint, r.Example, r.Differences = redact(r.Fingerprint), redact(r.Example), redact(r.Differences)
		out[i] = r
	}
	return out
}

// redactDetail is d with its statement, plans and rows masked by redact (nil: as it is).
func redactDetail(d results.QueryDetail, redact func(string) string) results.QueryDetail {
	if redact == nil {
		return d
	}
	d.Statement, d.FirstDifference = redact(d.Statement), redact(d.FirstDifference)
	d.BasePlan, d.Plan, d.Columns = redactAll(d.BasePlan, redact), redactAll(d.Plan, redact), redactAll(d.Columns, redact)
	d.BaseRows, d.Rows = redactRows(d.BaseRows, redact), redactRows(d.Rows, redact)
	return d
}

func redactAll(vs []string, redact func(string) string) []string {
	if vs == nil {
		return nil
	}
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = redact(v)
	}
	return out
}

func redactRows(rows [][]*string, redact func(string) string) [][]*string {
	if rows == nil {
		return nil
	}
	out := make([][]*string, len(rows))
	for i, row := range rows {
		out[i] = make([]*string, len(row))
		for j, c := range row {
			if c != nil {
				v := redact(*c)
				out[i][j] = &v
			}
		}
	}
	return out
}
