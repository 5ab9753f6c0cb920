package spec

import (
	"errors"
	"fmt"
	"io"

	"github.com/quadrant-bench/quadrant/spec/sqltext"
)

// The servers' default max_allowed_packet: MariaDB 10.11's 16 MiB and MySQL 8.0/8.4's
// 64 MiB (their manuals). A statement larger is refused by the server, after it was read
// whole and sent.
const (
	MariaDBMaxAllowedPacket = 16 << 20
	MySQLMaxAllowedPacket   = 64 << 20
)

// OversizedStatements reads, streaming and through the plan's roots, the sql_file of
// every step on a sandbox, and returns an error for each statement larger than the
// sandbox's max_allowed_packet (its config's, else the server's default): validate and
// explain say so before a run would send it. A dsn target's limit is known only once
// connected: the run checks it against @@max_allowed_packet before it sends a statement.
func (p *Plan) OversizedStatements() []error {
	var out []error
	seen := map[string]bool{}
	for ps := range p.Steps() {
		f := StepBody[*SQLFile](ps.Step)
		if f == nil || f.Path == "" {
			continue
		}
		limit, from := p.packetLimit(ps.Target)
		key := fmt.Sprint(f.Path, limit)
		if limit <= 1 || seen[key] {
			continue
		}
		seen[key] = true
		if err := p.scanStatements(f.Path, limit); err != nil {
			out = append(out, fmt.Errorf("%s: sql_file %s: %w; %s", ps.Step.Src.At("sql_file"), f.File, err, from))
		}
	}
	return out
}

// packetLimit is target name's max_allowed_packet when it is a sandbox, and where it
// comes from; 0 for a dsn target.
func (p *Plan) packetLimit(name string) (int64, string) {
	for _, t := range p.Targets {
		if t.Name != name || t.Sandbox == nil {
			continue
		}
		if v, ok := t.Sandbox.Config.Lookup("max_allowed_packet"); ok {
			if n, ok := ParseSize(fmt.Sprint(v)); ok {
				return n, fmt.Sprintf("sandbox %s's config sets max_allowed_packet %s: raise it there, or split the statement", name, fmt.Sprint(v))
			}
		}
		if t.Sandbox.Flavor == "mysql" {
			return MySQLMaxAllowedPacket, fmt.Sprintf("that is MySQL's default: set max_allowed_packet in sandbox %s's config (e.g. max_allowed_packet: 256M), or split the statement", name)
		}
		return MariaDBMaxAllowedPacket, fmt.Sprintf("that is MariaDB's default: set max_allowed_packet in sandbox %s's config (e.g. max_allowed_packet: 256M), or split the statement", name)
	}
	return 0, ""
}

// scanStatements splits the file at path with limit bytes (a COM_QUERY packet is the
// statement and one byte): the first statement over it is the error.
func (p *Plan) scanStatements(path string, limit int64) error {
	f, err := p.Roots().Open(path)
	if err != nil {
		return nil // the trust check and the step say what is wrong with it
	}
	defer f.Close()
	sp := sqltext.NewSplitter(f)
	sp.SetLimit(int(limit - 1))
	for {
		_, _, err := sp.Next()
		var tl *sqltext.TooLargeError
		switch {
		case err == io.EOF:
			return nil
		case errors.As(err, &tl):
			return fmt.Errorf("line %d: a statement of %d bytes is larger than max_allowed_packet (%d bytes)", tl.Line, tl.Size, limit)
		case err != nil:
			return nil // a syntax the splitter refuses is the step's to report
		}
	}
}
