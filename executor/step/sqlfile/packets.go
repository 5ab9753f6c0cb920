package sqlfile

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/quadrant-bench/quadrant/executor/step"
	"github.com/quadrant-bench/quadrant/spec"
	"github.com/quadrant-bench/quadrant/spec/sqltext"
)

// oversized reads, streaming and through the plan's roots, the file of every sql_file step
// on a sandbox, and returns an error for each statement larger than the sandbox's
// max_allowed_packet (its config's, else the server's default): validate and explain say
// so before a run would send it. A dsn target's limit is known only once connected: the
// run checks it against @@max_allowed_packet before it sends a statement.
func oversized(p *spec.Plan, steps []spec.PlacedStep) []error {
	var out []error
	seen := map[string]bool{}
	for _, ps := range steps {
		b := Of(ps.Step)
		if b.Path == "" {
			continue
		}
		limit, from := p.PacketLimit(ps.Target)
		key := fmt.Sprint(b.Path, limit)
		if limit <= 1 || seen[key] {
			continue
		}
		seen[key] = true
		if err := scan(p, b.Path, limit); err != nil {
			out = append(out, fmt.Errorf("%s: sql_file %s: %w; %s", ps.Step.Src.At("sql_file"), b.File, err, from))
		}
	}
	return out
}

// scan splits the file at path with limit bytes (a COM_QUERY packet is the statement and
// one byte): the first statement over it is the error.
func scan(p *spec.Plan, path string, limit int64) error {
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

// packetLimit is the largest statement t accepts, from its @@max_allowed_packet (a
// COM_QUERY packet is the statement and one byte); 0 when it cannot be read, and the
// server says so itself.
func packetLimit(ctx context.Context, t step.Target) int {
	var n int64
	if err := t.DB().QueryRowContext(ctx, "SELECT @@max_allowed_packet").Scan(&n); err != nil || n <= 1 {
		return 0
	}
	return int(n - 1)
}

// tooLarge says a statement over the server's max_allowed_packet was refused before it
// was sent, and what to do.
func tooLarge(target string, err error) error {
	var tl *sqltext.TooLargeError
	if !errors.As(err, &tl) {
		return err
	}
	return fmt.Errorf("line %d: a statement of %d bytes is larger than %s's max_allowed_packet (%d bytes); it was not sent: split the statement, or raise max_allowed_packet on the server (a sandbox's config: max_allowed_packet: %dM)",
		tl.Line, tl.Size, target, tl.Limit+1, (tl.Size>>20)+2)
}
