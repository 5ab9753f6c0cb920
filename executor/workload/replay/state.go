package replay

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/internal/authretry"
	"github.com/quadrant-bench/quadrant/executor/traffic"
	"github.com/quadrant-bench/quadrant/executor/workload"
)

// stateBudget bounds the CHECKSUM TABLE of the captured tables on the target, before the
// replay and again after it.
const stateBudget = time.Minute

// End states, as replay.csv's end_state says them.
const (
	endSame      = "same"
	endDifferent = "different"
)

// checksums reads the target's checksums of tables; the tables not read in time are apart.
func checksums(ctx context.Context, cfg *mysql.Config, tables []string) (traffic.Checksums, []string, error) {
	conn, err := authretry.NewConnector(cfg.Clone())
	if err != nil {
		return nil, nil, err
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	return traffic.Checksum(ctx, db, tables, stateBudget)
}

// checkStart compares the target's tables with the capture's start before anything is sent:
// a target without the capture's starting data is the first cause of replay errors. It stops
// the replay naming the tables that differ, or with start_state: warn (and read_only, whose
// replica holds later data) logs them.
func checkStart(ctx context.Context, r *Replay, env workload.Env, st *traffic.State) error {
	if st == nil || len(st.Start) == 0 || r.StartState == "off" {
		return nil
	}
	got, late, err := checksums(ctx, env.Server, slices.Sorted(maps.Keys(st.Start)))
	if err != nil {
		env.Logf("replay %s: warning: the target's tables not compared with the capture's start: %v", r.File, err)
		return nil
	}
	differ := st.Start.Differ(got)
	differ = slices.DeleteFunc(differ, func(t string) bool { return slices.Contains(late, t) })
	if len(late) > 0 {
		env.Logf("replay %s: %d tables not checksummed within %s, not compared with the capture's start: %s", r.File, len(late), stateBudget, strings.Join(late, ", "))
	}
	if len(differ) == 0 {
		env.Logf("replay %s: the target's %d captured tables are as at the capture's start (CHECKSUM TABLE)", r.File, len(st.Start)-len(late))
		return nil
	}
	msg := fmt.Sprintf("%s: the target does not hold the data the capture started from: %d of %d tables differ (CHECKSUM TABLE): %s",
		r.File, len(differ), len(st.Start), describeDiffer(differ, st.Start, got))
	if r.StartState == "stop" && !r.ReadOnly {
		return fmt.Errorf("%s; nothing was sent: restore the data as it was when the capture began (docs/replay.md, Every iteration from the same data), or set start_state: warn to replay anyway", msg)
	}
	env.Logf("replay: warning: %s", msg)
	return nil
}

// describeDiffer names the tables that differ and how: missing, unexpected, or another checksum.
func describeDiffer(tables []string, want, got traffic.Checksums) string {
	parts := make([]string, len(tables))
	for i, t := range tables {
		switch w, g := want[t], got[t]; {
		case w == nil:
			parts[i] = t + " (exists; the capture began without it)"
		case g == nil:
			parts[i] = t + " (missing)"
		default:
			parts[i] = fmt.Sprintf("%s (checksum %d, captured %d)", t, *g, *w)
		}
	}
	return strings.Join(parts, ", ")
}

// endState compares the target's tables after the replay with the capture's end: "same",
// or "different" and the tables; "" when there is nothing to compare (no checksums in the
// file, a read_only replay, one shard of several, tables not read in time).
func endState(ctx context.Context, r *Replay, env workload.Env, st *traffic.State) (string, []string) {
	if st == nil || len(st.End) == 0 || r.ReadOnly || env.Shard.Sharded() {
		return "", nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stateBudget)
	defer cancel()
	got, late, err := checksums(ctx, env.Server, slices.Sorted(maps.Keys(st.End)))
	if err != nil || len(late) > 0 {
		env.Logf("replay %s: end state not compared with the capture's: %v %s", r.File, err, strings.Join(late, ", "))
		return "", nil
	}
	if differ := st.End.Differ(got); len(differ) > 0 {
		env.Logf("replay %s: the end state differs from the capture's: %s", r.File, describeDiffer(differ, st.End, got))
		return endDifferent, differ
	}
	env.Logf("replay %s: the end state is the capture's: %d tables alike (CHECKSUM TABLE)", r.File, len(st.End))
	return endSame, nil
}
