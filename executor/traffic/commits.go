package traffic

import (
	"strings"

	"github.com/quadrant-bench/quadrant/spec/sqltext"
)

// Commits follows each session's transactions through its statements, in captured order,
// to say which statements end a transaction that wrote: what replay's commit order
// (order: commit) keeps. Those are a COMMIT (or ROLLBACK) of a transaction that wrote, an
// autocommit write, a statement with an implicit commit (DDL, BEGIN or SET autocommit = 1
// inside a transaction that wrote), and a statement that ended in a deadlock (1213: the
// server rolled its transaction back). A rollback counts as a commit does: it releases the
// transaction's locks and takes its keys back, and a retry that reuses them (the NewOrder
// retried after a deadlock, with the same order id) collides when the replay puts it first.
// A statement that failed in the capture commits nothing, except as said of 1213.
type Commits struct {
	rule     *ReadOnly
	sessions map[uint64]*txState
}

type txState struct {
	inTx, wrote, manual bool // manual: autocommit = 0
}

// NewCommits starts with no session seen; rule is the read-only rule that says what writes.
func NewCommits(rule *ReadOnly) *Commits {
	return &Commits{rule: rule, sessions: map[uint64]*txState{}}
}

// errDeadlock is the error of a statement whose transaction the server rolled back.
const errDeadlock = 1213

// Ends says s ends a transaction that wrote, or is a write that commits by itself.
func (c *Commits) Ends(s *Statement) bool {
	st := c.sessions[s.Session]
	if st == nil {
		st = &txState{}
		c.sessions[s.Session] = st
	}
	words := strings.Fields(strings.ToUpper(sqltext.SkipComments(s.Text)))
	if len(words) == 0 {
		return false
	}
	open := st.wrote && (st.inTx || st.manual)
	if s.Error == errDeadlock {
		st.inTx, st.wrote = false, false
		return open
	}
	failed := s.Error > 0
	first := strings.TrimRight(words[0], ";")
	switch {
	case first == "BEGIN" || first == "START" && len(words) > 1 && words[1] == "TRANSACTION":
		st.inTx, st.wrote = !failed, false
		return open
	case first == "COMMIT" || first == "ROLLBACK" && !(len(words) > 1 && (words[1] == "TO" || words[1] == "WORK" && len(words) > 2 && words[2] == "TO")):
		st.inTx, st.wrote = false, false
		return open && !failed
	case first == "SET" && strings.Contains(strings.Join(words, ""), "AUTOCOMMIT="):
		on := !strings.Contains(strings.Join(words, ""), "AUTOCOMMIT=0") && !strings.Contains(strings.Join(words, ""), "AUTOCOMMIT=OFF")
		if failed {
			return false
		}
		st.manual = !on
		if on {
			st.inTx, st.wrote = false, false
			return open
		}
		return false
	}
	if !c.rule.Writes(s) || failed {
		return false
	}
	if implicitCommit(first) {
		st.inTx, st.wrote = false, false
		return true
	}
	if st.inTx || st.manual {
		st.wrote = true
		return false
	}
	return true
}

// implicitCommit: statements that commit the open transaction and themselves (DDL, and the
// account and lock statements the servers document with it).
func implicitCommit(first string) bool {
	switch first {
	case "CREATE", "ALTER", "DROP", "TRUNCATE", "RENAME", "GRANT", "REVOKE", "LOCK", "UNLOCK", "ANALYZE", "OPTIMIZE", "REPAIR":
		return true
	}
	return false
}
