package replay

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/internal/authretry"
)

// span widens a session's captured span [first start, last end] (µs) by one statement.
func (sc *scanned) span(w int, startUs int64, endUs int64) {
	for len(sc.spans) <= w {
		sc.spans = append(sc.spans, [2]int64{-1, -1})
	}
	s := &sc.spans[w]
	if s[0] < 0 || startUs < s[0] {
		s[0] = startUs
	}
	s[1] = max(s[1], endUs)
}

// connectionsNeeded is how many connections the replay holds at once: with timing: none
// every session runs at once, one connection each; with timing: original as many as the
// capture's sessions overlapped (each connects when it first runs).
func (sc *scanned) connectionsNeeded(original bool) int {
	if !original || len(sc.spans) < len(sc.sessions) {
		return len(sc.sessions)
	}
	type edge struct {
		at int64
		d  int
	}
	edges := make([]edge, 0, 2*len(sc.spans))
	for _, s := range sc.spans {
		if s[0] < 0 {
			return len(sc.sessions) // a session without start times: count them all
		}
		edges = append(edges, edge{s[0], 1}, edge{s[1], -1})
	}
	slices.SortFunc(edges, func(a, b edge) int {
		if a.at != b.at {
			return cmp.Compare(a.at, b.at)
		}
		return b.d - a.d // a session starting as another ends overlaps it
	})
	peak, n := 0, 0
	for _, e := range edges {
		n += e.d
		peak = max(peak, n)
	}
	return peak
}

// checkConnections refuses, before any session connects, a replay that needs more
// connections than the server allows: a 100k-session capture once opened one per session,
// met 72,145 errors 1040 and aborted after 34 s at 1.2 GB.
func checkConnections(ctx context.Context, cfg *mysql.Config, file string, sessions, need int) error {
	conn, err := authretry.NewConnector(cfg.Clone())
	if err != nil {
		return nil // the replay's own connections say what is wrong
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	var limit, connected int
	var name string
	if err := db.QueryRowContext(ctx, "SELECT @@max_connections").Scan(&limit); err != nil {
		return nil
	}
	if err := db.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Threads_connected'").Scan(&name, &connected); err != nil {
		return nil
	}
	if free := limit - connected + 1; need > free { // +1: the connection asking is closed before the replay
		return fmt.Errorf("%s: the replay would hold %d connections at once (of %d captured sessions, one connection each), and the server allows %d more (max_connections %d, %d connected): replay fewer sessions (include: {users: [...]} or {schemas: [...]}), split them across processes with --shard K/N, replay with timing: original so only overlapping sessions connect, or raise max_connections (a sandbox's config: max_connections: %d)",
			file, need, sessions, free, limit, connected, need+connected+10)
	}
	return nil
}
