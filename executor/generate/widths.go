package generate

import (
	"errors"

	"github.com/quadrant-bench/quadrant/spec/ddl"
)

// checkWidths refuses, before any row, an auto-increment column too narrow for the rows
// (validate says the same from the schema file): generate numbers them 1..N, and the load
// would stop at the type's largest value, the table part-filled.
func (pl *planner) checkWidths() error {
	ti := pl.ti
	for _, c := range ti.cols {
		if c.autoInc && !c.generated {
			if why := ddl.AutoIncrementFits(ti.name+"."+c.name, c.columnType, c.dataType, c.unsigned, pl.t.Rows, false); why != "" {
				return errors.New("tables: " + why)
			}
		}
	}
	return nil
}
