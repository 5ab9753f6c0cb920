// Package verify answers "will my queries return the same rows and use the same plans on the
// new server": it runs captured reads on every target and compares each target with the
// first (the base), per statement fingerprint, into the results folder's queries.csv.
package verify

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/go-sql-driver/mysql"

	"github.com/quadrant-bench/quadrant/executor/traffic"
	"github.com/quadrant-bench/quadrant/results"
	"github.com/quadrant-bench/quadrant/spec/sqltext"
)

// Target is a server to run the reads on.
type Target struct {
	Name string
	DB   *sql.DB
}

// Options of a verification.
type Options struct {
	Traffic string // the captured traffic: slow log, general log, .qcap or SQL file
	Format  string // one of traffic.Formats; "" detects
	// Targets are compared with Targets[0], the base.
	Targets []Target
	// Sample is how many statements of each fingerprint run (at most), drawn with Seed.
	Sample int
	Seed   uint64
	// Repeat is how many timed runs each fingerprint has on each target (DefaultRepeat is
	// the command's default); 0 times nothing: latency is none.
	Repeat int
	// MinChange is the least change of the mean latency, in percent, that is faster or
	// slower (DefaultMinChange is the command's default); 0: any change whose 95% interval
	// leaves out 0.
	MinChange float64
	// Writes runs the captured writes too, in captured order, on every target
	// (WritesWarning).
	Writes bool
	Out    *results.Writer
	Logf   func(format string, args ...any)
	// Redact, when set, masks secrets in the text queries.csv and query-details.jsonl get
	// (a run's: the plan's secrets and its sandboxes' passwords), as its log does.
	Redact func(string) string
	// Open opens Traffic (the plan's roots' Open); nil is os.Open.
	Open func(path string) (*os.File, error)
}

// DefaultSample is --sample's default: enough to catch a difference that depends on the
// literals, few enough that a day of traffic verifies in minutes.
const DefaultSample = 20

// Summary is what a verification found, for the command's last line.
type Summary struct {
	Statements   int64 // read-only statements read
	Skipped      int64 // statements left out: writes and statements returning no rows
	Fingerprints int
	Different    int // rows of queries.csv with different results or plan
	Slower       int // rows of queries.csv whose latency is slower
	// SessionSetsDropped counts captured SET assignments and PREPAREs not carried (bounds,
	// forms not read): their statements ran without them.
	SessionSetsDropped int64
}

type sample struct {
	schema, text string
	set          *setContext // the captured session's settings (session.go)
}

type fingerprint struct {
	id, text string
	count    int64
	samples  []sample
	// noCompare: the statement calls a nondeterministic function; ordered: a top-level
	// ORDER BY makes the rows' order part of the result.
	noCompare, ordered, explain bool
	// write: a statement run for its effect (--writes): its rows are the rows affected.
	write bool
}

// outcome is one statement run on one target.
type outcome struct {
	ran      bool
	lost     string // the connection was gone: why
	code     int    // the error number, 0 for none
	rows     int64
	sum      string
	warnings string
	setup    string // the sample's session settings the target refused
}

type planOutcome struct {
	plan *Plan
	err  string
	lost bool // the target was gone: nothing to compare
}

// targetRun is everything one target ran, per fingerprint in order.
type targetRun struct {
	outcomes [][]outcome
	plans    [][]planOutcome // per fingerprint, of its first explainSamples samples
}

// Run reads the traffic, runs the sampled reads on every target and writes queries.csv.
func Run(ctx context.Context, o Options) (*Summary, error) {
	if len(o.Targets) < 2 {
		return nil, fmt.Errorf("verify needs two targets or more: the first is the base the others are compared with")
	}
	if o.Sample <= 0 {
		o.Sample = DefaultSample
	}
	logf := func(format string, args ...any) {
		if o.Logf != nil {
			o.Logf(format, args...)
		}
		if o.Out != nil && o.Redact != nil {
			o.Out.Logf("%s", o.Redact(fmt.Sprintf(format, args...)))
		} else if o.Out != nil {
			o.Out.Logf(format, args...)
		}
	}
	if o.Writes {
		logf("%s", WritesWarning)
	}
	fps, sum, err := read(o)
	if err != nil {
		return nil, err
	}
	sum.Fingerprints = len(fps)
	logf("verify: %s: %d read-only statements in %d fingerprints (%d other statements skipped)", o.Traffic, sum.Statements, len(fps), sum.Skipped)
	if sum.SessionSetsDropped > 0 {
		logf("verify: %d captured SET assignments or PREPAREs not carried into the sessions' context (over the bounds or not read)", sum.SessionSetsDropped)
	}
	runs := make([]*targetRun, len(o.Targets))
	var wg sync.WaitGroup
	for i, t := range o.Targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runs[i] = runTarget(ctx, t, fps, logf)
		}()
	}
	wg.Wait()
	lat := timeReads(ctx, o, fps, runs, logf)
	var rows []results.QueryRow
	det := newDetailer(o.Targets, o.Out)
	det.redact = o.Redact
	for ti := 1; ti < len(o.Targets); ti++ {
		for fi, fp := range fps {
			r := compare(fp, o.Targets[0].Name, o.Targets[ti].Name, runs[0], runs[ti], fi)
			judgeLatency(&r, lat.of(fi, 0), lat.of(fi, ti), o.MinChange, o.Seed)
			if r.Latency == results.VerifySlower {
				sum.Slower++
			}
			if r.Results == results.VerifyDifferent || r.Plan == results.VerifyDifferent {
				sum.Different++
				r = det.add(ctx, fp, fi, ti, runs, r)
			}
			rows = append(rows, r)
		}
	}
	if err := det.close(); err != nil {
		return nil, err
	}
	if o.Writes && ctx.Err() == nil {
		wrows, err := verifyWrites(ctx, o, logf)
		if err != nil {
			return nil, err
		}
		sum.Fingerprints += len(wrows) / (len(o.Targets) - 1)
		for _, r := range wrows {
			if r.Results == results.VerifyDifferent {
				sum.Different++
			}
		}
		rows = append(rows, wrows...)
	}
	if o.Out != nil {
		if err := o.Out.AppendQueries(redactQueries(rows, o.Redact)); err != nil {
			return nil, err
		}
	}
	return sum, ctx.Err()
}

// read keeps the traffic's reads, up to Sample per fingerprint drawn uniformly (a reservoir:
// the file is read once and never held).
func read(o Options) ([]*fingerprint, *Summary, error) {
	f, err := traffic.Open(o.Traffic, traffic.Options{Format: o.Format, Open: o.Open})
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	rnd := rand.New(rand.NewPCG(o.Seed, 0x5eed))
	ro := traffic.NewReadOnly()
	cs := newCapturedSessions()
	byFP := map[string]*fingerprint{}
	var fps []*fingerprint
	sum := &Summary{}
	for {
		s, err := f.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		if ro.Writes(s) {
			sum.Skipped++
			continue
		}
		var set *setContext
		set, s.Text = cs.follow(s)
		if !returnsRows(s.Text) {
			sum.Skipped++
			continue
		}
		sum.Statements++
		text := traffic.Fingerprint(s.Text)
		fp := byFP[text]
		if fp == nil {
			fp = &fingerprint{id: traffic.FingerprintID(text), text: text, noCompare: nondeterministic(s.Text),
				ordered: topLevelOrderBy(text), explain: explainable(s.Text)}
			byFP[text] = fp
			fps = append(fps, fp)
		}
		fp.count++
		smp := sample{schema: s.Schema, text: s.Text, set: set}
		if len(fp.samples) < o.Sample {
			fp.samples = append(fp.samples, smp)
		} else if j := rnd.Int64N(fp.count); j < int64(o.Sample) {
			fp.samples[j] = smp
		}
	}
	sum.SessionSetsDropped = cs.dropped
	groupByContext(fps)
	return fps, sum, nil
}

// firstWord is the statement's first word in upper case, a leading "(" dropped. It runs for
// every statement read and looks at that word only: upper-casing and splitting the whole
// text was a tenth of the CPU of reading a large capture.
func firstWord(text string) string {
	s := strings.TrimLeftFunc(sqltext.SkipComments(text), unicode.IsSpace)
	if end := strings.IndexFunc(s, unicode.IsSpace); end >= 0 {
		s = s[:end]
	}
	return strings.TrimLeft(strings.ToUpper(s), "(")
}

// returnsRows: of what read_only lets through, only the statements whose rows can be
// compared (USE, SET, BEGIN... change nothing to compare).
func returnsRows(text string) bool {
	switch firstWord(text) {
	case "SELECT", "WITH", "TABLE", "VALUES", "SHOW", "DESC", "DESCRIBE":
		return true
	}
	return false
}

func explainable(text string) bool {
	switch firstWord(text) {
	case "SELECT", "WITH", "TABLE", "VALUES":
		return true
	}
	return false
}

// nondeterministicCall are the functions whose value differs between two runs of the same
// statement, so rows compared would differ for no fault of the server.
var nondeterministicCall = regexp.MustCompile(`(?i)\b(?:(?:now|rand|uuid|uuid_short|sysdate|connection_id|curdate|curtime|utc_timestamp|utc_date|utc_time|last_insert_id|found_rows|row_count|sleep|benchmark|random_bytes|sys_guid)\s*\(|unix_timestamp\s*\(\s*\)|(?:current_timestamp|current_date|current_time|localtime|localtimestamp)\b)`)

// changingShow are SHOW statements of the server's state rather than the schema's.
var changingShow = regexp.MustCompile(`(?i)^\s*show\s+(?:(?:global|session|full|engine\s+\S+)\s+)*(?:status|processlist|variables|engine|engines|innodb|master|slave|replica|binary|binlog|open|table\s+status|events|plugins|profile|profiles|warnings|errors|privileges|grants)\b`)

func nondeterministic(text string) bool {
	return nondeterministicCall.MatchString(text) || changingShow.MatchString(sqltext.SkipComments(text))
}

// topLevelOrderBy reads a fingerprint (its literals are ?, so no quoted text remains) for an
// ORDER BY outside parentheses: an ORDER BY inside a subquery does not order the result.
func topLevelOrderBy(fp string) bool {
	up := strings.ToUpper(fp)
	depth := 0
	for i := 0; i < len(up); i++ {
		switch up[i] {
		case '(':
			depth++
		case ')':
			depth--
		case 'O':
			if depth == 0 && (i == 0 || !isIdent(up[i-1])) && strings.HasPrefix(up[i:], "ORDER") {
				rest := strings.TrimLeft(up[i+5:], " \t\r\n")
				if strings.HasPrefix(rest, "BY") && (i+5 == len(up) || !isIdent(up[i+5])) {
					return true
				}
			}
		}
	}
	return false
}

func isIdent(c byte) bool {
	return c == '_' || c == '`' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
}

// session is one connection to a target, kept so that the default database is set only
// when it changes.
type session struct {
	name   string
	db     *sql.DB
	conn   *sql.Conn
	schema string
	lost   string
	// applied is the captured context the connection is in; setupErr its SETs refused.
	applied  *setContext
	setupErr string
}

func runTarget(ctx context.Context, t Target, fps []*fingerprint, logf func(string, ...any)) *targetRun {
	s := &session{name: t.Name, db: t.DB}
	defer s.close()
	tr := &targetRun{outcomes: make([][]outcome, len(fps)), plans: make([][]planOutcome, len(fps))}
	var n int
	for i, fp := range fps {
		tr.outcomes[i] = make([]outcome, len(fp.samples))
		for j, smp := range fp.samples {
			if ctx.Err() != nil {
				break
			}
			tr.outcomes[i][j] = s.run(ctx, smp, fp.ordered)
			if tr.outcomes[i][j].ran {
				n++ // the log's "lost after N statements" counts what the target did run
			}
		}
		if fp.explain {
			for _, smp := range fp.samples[:min(len(fp.samples), explainSamples)] {
				if ctx.Err() != nil {
					break
				}
				tr.plans[i] = append(tr.plans[i], s.explain(ctx, smp))
			}
		}
	}
	if s.lost != "" {
		logf("verify: target %s lost after %d statements: %s", t.Name, n, s.lost)
	} else {
		logf("verify: target %s ran %d statements", t.Name, n)
	}
	return tr
}

func (s *session) close() {
	if s.applied != nil {
		s.discard()
	}
	if s.conn != nil {
		s.conn.Close()
	}
}

// ready has a connection in the sample's default database. A failed connection is tried
// once more, then the target counts as gone: only what it had not done fails.
func (s *session) ready(ctx context.Context, schema string) (code int, ok bool) {
	if s.lost != "" {
		return 0, false
	}
	if s.conn == nil {
		c, err := s.db.Conn(ctx)
		if err != nil {
			s.lost = err.Error()
			return 0, false
		}
		s.conn, s.schema = c, ""
	}
	if schema != "" && schema != s.schema {
		if _, err := s.conn.ExecContext(ctx, "USE "+quoteIdent(schema)); err != nil {
			if code, ok := errorCode(err); ok {
				return code, true
			}
			s.drop(err)
			return s.ready(ctx, schema)
		}
		s.schema = schema
	}
	return 0, true
}

// drop forgets a connection that failed outside SQL; a second failure in a row is the
// target gone.
func (s *session) drop(err error) {
	if s.conn == nil {
		s.lost = err.Error()
		return
	}
	s.discard()
}

func errorCode(err error) (int, bool) {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return int(me.Number), true
	}
	return 0, false
}

func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

func (s *session) run(ctx context.Context, smp sample, ordered bool) outcome {
	for attempt := 0; ; attempt++ {
		code, ok := s.readyFor(ctx, smp)
		if !ok {
			return outcome{lost: s.lost}
		}
		if code != 0 {
			return outcome{ran: true, code: code}
		}
		o, err := s.query(ctx, smp.text, ordered)
		if err == nil {
			o.setup = s.setupErr
			return o
		}
		if code, ok := errorCode(err); ok {
			return outcome{ran: true, code: code}
		}
		if ctx.Err() != nil {
			return outcome{lost: ctx.Err().Error()}
		}
		s.drop(err)
		if attempt > 0 {
			s.lost = err.Error()
			return outcome{lost: s.lost}
		}
	}
}

// query runs one statement, hashing its rows as they come: a result set is never held.
func (s *session) query(ctx context.Context, text string, ordered bool) (outcome, error) {
	rows, err := s.conn.QueryContext(ctx, text)
	if err != nil {
		return outcome{}, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return outcome{}, err
	}
	cells := make([]sql.RawBytes, len(cols))
	ptrs := make([]any, len(cols))
	for i := range cells {
		ptrs[i] = &cells[i]
	}
	o := outcome{ran: true}
	// Unordered: the rows' hashes added up, which no order changes and (unlike XOR) a
	// duplicated row does not cancel. Ordered: a chain of the rows' hashes.
	var bag [4]uint64
	chain := sha256.New()
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return outcome{}, err
		}
		h := sha256.New()
		var n [8]byte
		for _, c := range cells {
			if c == nil {
				h.Write([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
				continue
			}
			binary.LittleEndian.PutUint64(n[:], uint64(len(c)))
			h.Write(n[:])
			h.Write(c)
		}
		rh := h.Sum(nil)
		if ordered {
			chain.Write(rh)
		} else {
			for k := range bag {
				bag[k] += binary.LittleEndian.Uint64(rh[8*k:])
			}
		}
		o.rows++
	}
	if err := rows.Err(); err != nil {
		return outcome{}, err
	}
	rows.Close()
	if ordered {
		o.sum = hex.EncodeToString(chain.Sum(nil))
	} else {
		var b [32]byte
		for k, v := range bag {
			binary.LittleEndian.PutUint64(b[8*k:], v)
		}
		o.sum = hex.EncodeToString(b[:])
	}
	o.sum = strconv.Itoa(len(cols)) + ":" + o.sum
	w, err := s.warnings(ctx)
	if err != nil {
		return outcome{}, err
	}
	o.warnings = w
	return o, nil
}

// warnings are the codes SHOW WARNINGS gives for the statement just run ("1265:2").
func (s *session) warnings(ctx context.Context) (string, error) {
	rows, err := s.conn.QueryContext(ctx, "SHOW WARNINGS")
	if err != nil {
		return "", err
	}
	defer rows.Close()
	codes := map[int]int64{}
	for rows.Next() {
		var level, msg string
		var code int
		if err := rows.Scan(&level, &code, &msg); err != nil {
			return "", err
		}
		codes[code]++
	}
	return results.ErrorCodes(codes), rows.Err()
}

func (s *session) explain(ctx context.Context, smp sample) planOutcome {
	code, ok := s.readyFor(ctx, smp)
	if !ok {
		return planOutcome{err: "target lost: " + s.lost, lost: true}
	}
	if code != 0 {
		return planOutcome{err: fmt.Sprintf("error %d", code)}
	}
	var js []byte
	if err := s.conn.QueryRowContext(ctx, "EXPLAIN FORMAT=JSON "+smp.text).Scan(&js); err != nil {
		if code, ok := errorCode(err); ok {
			return planOutcome{err: fmt.Sprintf("error %d", code)}
		}
		s.drop(err)
		return planOutcome{err: err.Error()}
	}
	p, err := ReducePlan(js)
	if err != nil {
		return planOutcome{err: err.Error()}
	}
	return planOutcome{plan: p}
}

// explainSamples is how many of a fingerprint's samples EXPLAIN sees on each target: a plan
// can hang on the literals (a range of ten rows, or of half the table), and a few samples
// catch a change that only some of them show, for a few EXPLAINs more.
const explainSamples = 3

// plansOf is the pair of fingerprint fi's plans to compare: of the first sample whose
// plans differ between base and other, else of the first sample.
func plansOf(base, other *targetRun, fi int) (bp, op planOutcome) {
	bs, ots := base.plans[fi], other.plans[fi]
	for k := 0; k < min(len(bs), len(ots)); k++ {
		b, o := bs[k], ots[k]
		if b.lost || o.lost {
			continue
		}
		if b.plan != nil && o.plan != nil && len(b.plan.Diff(o.plan)) > 0 || (b.plan == nil) != (o.plan == nil) {
			return b, o
		}
	}
	if len(bs) > 0 {
		bp = bs[0]
	}
	if len(ots) > 0 {
		op = ots[0]
	}
	return bp, op
}

// maxDifferences bounds the differences cell: the first few say what kind of change it is.
const maxDifferences = 3

// compare lays out fingerprint fi of base and other as a queries.csv row.
func compare(fp *fingerprint, baseName, otherName string, base, other *targetRun, fi int) results.QueryRow {
	nan := math.NaN()
	r := results.QueryRow{FingerprintID: fp.id, Fingerprint: fp.text, Target: otherName, Base: baseName, Count: fp.count,
		BaseErrors: map[int]int64{}, Errors: map[int]int64{},
		Latency: results.VerifyNoLatency, BaseP95: nan, P95: nan, Change: nan, ChangeLo: nan, ChangeHi: nan}
	v := verdict{example: -1}
	for j := range fp.samples {
		v.sample(fp, j, baseName, otherName, base.outcomes[fi][j], other.outcomes[fi][j], &r)
	}
	switch {
	case v.lost:
		r.Results = results.VerifyError
	case fp.noCompare:
		r.Results = results.VerifyNotComparable
	case v.differ:
		r.Results = results.VerifyDifferent
	case v.errored:
		r.Results = results.VerifyError
	default:
		r.Results = results.VerifySame
	}
	if len(fp.samples) > 0 {
		r.Example = fp.samples[max(v.example, 0)].text
	}
	r.Plan = results.VerifyNoPlan
	if fp.explain && len(fp.samples) > 0 {
		r.Plan = v.plans(base, other, fi)
	}
	diffs := v.diffs
	if len(diffs) > maxDifferences {
		diffs = append(diffs[:maxDifferences], fmt.Sprintf("%d more", len(diffs)-maxDifferences))
	}
	r.Differences = strings.Join(diffs, "; ")
	return r
}

// verdict is what a fingerprint's samples said on the two targets, as compare reads them.
type verdict struct {
	diffs                 []string
	lost, differ, errored bool
	example               int // the first sample that differs, -1 none
}

func (v *verdict) add(d string) {
	if !slices.Contains(v.diffs, d) {
		v.diffs = append(v.diffs, d)
	}
}

// sample compares sample j's outcomes on the base (b) and the other target (o), and counts
// their errors in r.
func (v *verdict) sample(fp *fingerprint, j int, baseName, otherName string, b, o outcome, r *results.QueryRow) {
	if b.code != 0 {
		r.BaseErrors[b.code]++
	}
	if o.code != 0 {
		r.Errors[o.code]++
	}
	switch {
	case !b.ran || !o.ran:
		v.lost = true
		for _, x := range []struct {
			name string
			o    outcome
		}{{baseName, b}, {otherName, o}} {
			if !x.o.ran {
				v.add(fmt.Sprintf("not run on %s: %s", x.name, x.o.lost))
			}
		}
		return
	case b.setup != o.setup:
		v.add(fmt.Sprintf("session settings: %s → %s", orNone(b.setup), orNone(o.setup)))
	case b.code != o.code:
		v.add(fmt.Sprintf("%s → %s", outcomeName(b.code), outcomeName(o.code)))
	case b.code != 0:
		v.errored = true
		return
	case fp.noCompare:
		return
	case b.sum != o.sum || b.rows != o.rows:
		what := "row checksum differs"
		if fp.ordered {
			what = "row checksum (in order) differs"
		}
		if fp.write {
			v.add(fmt.Sprintf("affected rows %d → %d", b.rows, o.rows))
		} else {
			v.add(fmt.Sprintf("%s, rows %d → %d", what, b.rows, o.rows))
		}
	case b.warnings != o.warnings:
		v.add(fmt.Sprintf("warnings %s → %s", orNone(b.warnings), orNone(o.warnings)))
	default:
		return
	}
	v.differ = true
	if v.example < 0 {
		v.example = j
	}
}

// plans compares the EXPLAIN plans of fingerprint fi on the two targets; a plan's
// differences go first.
func (v *verdict) plans(base, other *targetRun, fi int) string {
	bp, op := plansOf(base, other, fi)
	switch {
	case bp.plan != nil && op.plan != nil:
		if d := bp.plan.Diff(op.plan); len(d) > 0 {
			v.diffs = append(d, v.diffs...)
			return results.VerifyDifferent
		}
		return results.VerifySame
	case bp.plan == nil && op.plan == nil:
		// both could not explain it (the statement fails alike): no plan to compare
	case bp.lost || op.lost:
		// a target gone is not a plan that changed: results says it (not run on)
	default:
		v.add(fmt.Sprintf("EXPLAIN %s → %s", planName(bp), planName(op)))
		return results.VerifyDifferent
	}
	return results.VerifyNoPlan
}

func outcomeName(code int) string {
	if code == 0 {
		return "ok"
	}
	return fmt.Sprintf("error %d", code)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func planName(p planOutcome) string {
	if p.plan != nil {
		return "ok"
	}
	return p.err
}
