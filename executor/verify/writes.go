package verify

import (
	"context"
	"io"
	"sync"

	"github.com/quadrant-bench/quadrant/executor/traffic"
	"github.com/quadrant-bench/quadrant/results"
)

// WritesWarning is said on stderr and in log.txt when --writes is given.
const WritesWarning = "--writes: the captured writes are run on every target; use throwaway copies"

// writeRef is one captured write: sample j of write fingerprint fi.
type writeRef struct{ fi, j int }

// verifyWrites runs every captured write (what read_only's rule calls a write), in captured
// order, on every target, and compares their outcomes (affected rows, warnings, error) as
// reads are compared. Writes are never sampled, since a write left out changes what the next
// one finds, and never timed again, since running one twice changes the data. It runs after
// the reads and their timing, which thus see the data as it was. Each write commits on its
// own: the captured transactions are not rebuilt, and all run on one connection.
func verifyWrites(ctx context.Context, o Options, logf func(string, ...any)) ([]results.QueryRow, error) {
	fps, order, err := readWrites(o)
	if err != nil {
		return nil, err
	}
	logf("verify: --writes: %d writes in %d fingerprints", len(order), len(fps))
	runs := make([]*targetRun, len(o.Targets))
	var wg sync.WaitGroup
	for i, t := range o.Targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runs[i] = runWrites(ctx, t, fps, order, logf)
		}()
	}
	wg.Wait()
	var rows []results.QueryRow
	for ti := 1; ti < len(o.Targets); ti++ {
		for fi, fp := range fps {
			rows = append(rows, compare(fp, o.Targets[0].Name, o.Targets[ti].Name, runs[0], runs[ti], fi))
		}
	}
	return rows, nil
}

// readWrites keeps the traffic's writes, every one, grouped by fingerprint, and their
// captured order. They are held in memory: --writes is for a capture of a test, not a day
// of production traffic.
func readWrites(o Options) ([]*fingerprint, []writeRef, error) {
	f, err := traffic.Open(o.Traffic, traffic.Options{Format: o.Format, Open: o.Open})
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	ro := traffic.NewReadOnly()
	byFP := map[string]int{}
	var fps []*fingerprint
	var order []writeRef
	for {
		s, err := f.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		if !ro.Writes(s) {
			continue
		}
		text := traffic.Fingerprint(s.Text)
		fi, ok := byFP[text]
		if !ok {
			fi = len(fps)
			byFP[text] = fi
			// compared even when calling NOW() or RAND(): the rows affected by a write rarely
			// depend on them, and that they differ is the point
			fps = append(fps, &fingerprint{id: traffic.FingerprintID(text), text: text, write: true})
		}
		fp := fps[fi]
		fp.count++
		order = append(order, writeRef{fi, len(fp.samples)})
		fp.samples = append(fp.samples, sample{schema: s.Schema, text: s.Text})
	}
	return fps, order, nil
}

func runWrites(ctx context.Context, t Target, fps []*fingerprint, order []writeRef, logf func(string, ...any)) *targetRun {
	s := &session{name: t.Name, db: t.DB}
	defer s.close()
	tr := &targetRun{outcomes: make([][]outcome, len(fps)), plans: make([][]planOutcome, len(fps))}
	for i, fp := range fps {
		tr.outcomes[i] = make([]outcome, len(fp.samples))
	}
	n := 0
	for _, w := range order {
		if ctx.Err() != nil {
			tr.outcomes[w.fi][w.j] = outcome{lost: ctx.Err().Error()}
			continue
		}
		tr.outcomes[w.fi][w.j] = s.write(ctx, fps[w.fi].samples[w.j])
		if tr.outcomes[w.fi][w.j].ran {
			n++
		}
	}
	if s.lost != "" {
		logf("verify: target %s lost after %d writes: %s", t.Name, n, s.lost)
	} else {
		logf("verify: target %s ran %d writes", t.Name, n)
	}
	return tr
}

// write runs one write for its affected rows and warnings. A write whose connection failed
// is not sent again, as a read is: it may have been applied. The target counts as gone.
func (s *session) write(ctx context.Context, smp sample) outcome {
	code, ok := s.ready(ctx, smp.schema)
	if !ok {
		return outcome{lost: s.lost}
	}
	if code != 0 {
		return outcome{ran: true, code: code}
	}
	res, err := s.conn.ExecContext(ctx, smp.text)
	if err != nil {
		if code, ok := errorCode(err); ok {
			return outcome{ran: true, code: code}
		}
		s.lost = err.Error()
		return outcome{lost: s.lost}
	}
	o := outcome{ran: true}
	o.rows, _ = res.RowsAffected()
	if o.warnings, err = s.warnings(ctx); err != nil {
		s.lost = err.Error()
		o.warnings = "unknown"
	}
	return o
}
