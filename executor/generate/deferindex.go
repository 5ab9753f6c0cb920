package generate

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// deferIndexes drops a table's plain secondary indexes (KEY, not UNIQUE, FULLTEXT or SPATIAL)
// before its rows go in, and returns what adds them back, in one ALTER TABLE. InnoDB then
// builds each index once by sorting instead of inserting every row's entry at a random
// place: the server's CPU per row of an sbtest-shaped table falls by about a third, and it is
// what sysbench's prepare does (CREATE INDEX after the rows). Each index comes back as SHOW
// CREATE TABLE wrote it (prefixes, order, comments, IGNORED...). An index the server will not
// drop (one a foreign key needs) stays; so do all of a table with no rows to load.
func deferIndexes(ctx context.Context, db *sql.DB, database string, tp *tablePlan, logf func(string, ...any)) (func(context.Context) error, error) {
	none := func(context.Context) error { return nil }
	if tp.rows == 0 {
		return none, nil
	}
	table := quoteID(database) + "." + quoteID(tp.name)
	var name, ddl string
	if err := db.QueryRowContext(ctx, "SHOW CREATE TABLE "+table).Scan(&name, &ddl); err != nil {
		return nil, fmt.Errorf("read the definition of %s: %w", tp.name, err)
	}
	var dropped, names []string
	for _, line := range strings.Split(ddl, "\n") {
		def := strings.TrimSuffix(strings.TrimSpace(line), ",")
		idx, ok := strings.CutPrefix(def, "KEY `")
		if !ok {
			continue
		}
		end := strings.Index(idx, "` (")
		if end < 0 {
			continue
		}
		idxName := strings.ReplaceAll(idx[:end], "``", "`")
		if _, err := db.ExecContext(ctx, "ALTER TABLE "+table+" DROP INDEX "+quoteID(idxName)); err != nil {
			logf("generate: %s keeps index %s during the load: %v", tp.name, idxName, err)
			continue
		}
		dropped = append(dropped, "ADD "+def)
		names = append(names, idxName)
	}
	if len(dropped) == 0 {
		return none, nil
	}
	logf("generate: %s: index %s dropped for the load, added back after it", tp.name, strings.Join(names, ", "))
	return func(ctx context.Context) error {
		if _, err := db.ExecContext(ctx, "ALTER TABLE "+table+" "+strings.Join(dropped, ", ")); err != nil {
			return fmt.Errorf("add back index %s of %s (dropped for the load): %w; add it yourself: ALTER TABLE %s %s",
				strings.Join(names, ", "), tp.name, err, table, strings.Join(dropped, ", "))
		}
		return nil
	}, nil
}
