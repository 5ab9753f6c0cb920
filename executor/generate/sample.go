package generate

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// sample is the value distribution of real data a `from_sample:` column draws from: values
// (points) or ranges between two values, each with a weight, and a share of NULLs.
type sample struct {
	source  string // db.table.column, for messages
	from    string // where the distribution came from, for the log
	buckets []bucket
	nulls   float64 // share of the rows that are NULL
	// counted is set when the weights are counts of sampled rows (not a histogram's shares):
	// the rows are then dealt as cards, without replacement (see deck)
	counted bool
	key     uint64 // of the deck's shuffles: seed, table and column
}

// deck deals [0, n) to rows as shuffled decks: rows 0..n-1 take each card once, the next n
// each once again in another order, and so on. A sample of n rows drawn this way keeps its
// counts exactly and repeats no row before it used them all (drawn with replacement, 200
// names of 200 gave 122 distinct).
type deck struct {
	n   uint64
	key uint64
}

func (d deck) at(row int64) uint64 {
	pass := uint64(row) / d.n
	return newPerm(d.n, d.key+pass*0x9e3779b97f4a7c15).at(uint64(row) % d.n)
}

// bucket is one value (lo == hi or point) or a range [lo, hi], with its weight.
type bucket struct {
	lo, hi string
	point  bool
	weight float64
}

// sampleSize bounds the rows read from a table: enough for the frequencies of values that
// matter (one in a thousand shows about 10 times), few enough to read in moments.
const sampleSize = 10000

// sampleChunks is how many places of a big table the sample reads sampleSize/sampleChunks
// consecutive rows at.
const sampleChunks = 1000

// samples reads the sources of the from_sample columns of tables, on the target.
func samples(ctx context.Context, q *sql.Conn, db string, seed int64, tables []Table, logf func(string, ...any)) ([]Table, error) {
	out := make([]Table, len(tables))
	for i, t := range tables {
		out[i] = t
		copied := false
		if t.RowSample != nil {
			cols, err := readRowSample(ctx, q, db, seed, t, logf)
			if err != nil {
				return nil, err
			}
			out[i].Columns, copied = maps.Clone(t.Columns), true
			if out[i].Columns == nil {
				out[i].Columns = map[string]Settings{}
			}
			maps.Copy(out[i].Columns, cols)
		}
		for _, name := range sortedKeys(t.Columns) {
			s := t.Columns[name]
			if s.FromSample == "" {
				continue
			}
			parts := strings.Split(s.FromSample, ".")
			src := [3]string{db, "", name}
			switch len(parts) {
			case 1:
				src[1] = parts[0]
			case 2:
				src[0], src[1] = parts[0], parts[1]
			default:
				src[0], src[1], src[2] = parts[0], parts[1], parts[2]
			}
			smp, err := readSample(ctx, q, src[0], src[1], src[2], seed)
			if err != nil {
				return nil, fmt.Errorf("tables: %s.%s: from_sample %s: %w", t.Name, name, s.FromSample, err)
			}
			if logf != nil {
				logf("generate: %s.%s draws from %s (%s, %d values or ranges)", t.Name, name, smp.source, smp.from, len(smp.buckets))
			}
			if !copied {
				// a copy: the map is the caller's
				out[i].Columns, copied = maps.Clone(t.Columns), true
			}
			smp.key = hashName(strconv.FormatInt(seed, 10), t.Name, name, "deck")
			s.sample = smp
			out[i].Columns[name] = s
		}
	}
	return out, nil
}

// readSample reads the distribution of db.table.column: a sample of its rows, else (an empty
// table) MariaDB's persistent histogram in mysql.column_stats, else MySQL's in
// information_schema.COLUMN_STATISTICS.
func readSample(ctx context.Context, q *sql.Conn, db, table, col string, seed int64) (*sample, error) {
	source := db + "." + table + "." + col
	var dataType, columnType string
	err := q.QueryRowContext(ctx, `SELECT LOWER(DATA_TYPE), LOWER(COLUMN_TYPE) FROM information_schema.COLUMNS
		WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND COLUMN_NAME = ?`, db, table, col).Scan(&dataType, &columnType)
	if err == sql.ErrNoRows {
		return nil, fmt.Errorf("no column %s on the target; name an existing table (and column, if its name differs): TABLE, DB.TABLE or DB.TABLE.COLUMN", source)
	}
	if err != nil {
		return nil, fmt.Errorf("read the type of %s: %w", source, err)
	}
	smp, err := sampleRows(ctx, q, db, table, col, seed)
	if err != nil {
		return nil, err
	}
	if smp == nil {
		smp, err = mariaDBHistogram(ctx, q, db, table, col, dataType)
		if err != nil {
			return nil, err
		}
	}
	if smp == nil {
		smp, err = mySQLHistogram(ctx, q, db, table, col, members(columnType))
		if err != nil {
			return nil, err
		}
	}
	if smp == nil {
		return nil, fmt.Errorf("%s has no rows to sample and no histogram; fill it, or keep its distribution while it has rows: on MariaDB ANALYZE TABLE %s.%s PERSISTENT FOR ALL (after SET SESSION histogram_type = JSON_HB for strings and dates), on MySQL ANALYZE TABLE %s.%s UPDATE HISTOGRAM ON %s", source, db, table, db, table, col)
	}
	smp.source = source
	return smp, nil
}

// sampleRows reads up to sampleSize values of the column. A table that holds no more is read
// whole. A bigger one is read where its integer primary key is at sampleChunks points spread
// over its range (one index dive each, never a scan or a sort: ORDER BY RAND() reads and sorts
// the whole table); without such a key, by a scan keeping each row with a probability that
// gives about sampleSize rows. Nil when the table is empty.
func sampleRows(ctx context.Context, q *sql.Conn, db, table, col string, seed int64) (*sample, error) {
	got, how, err := readRows(ctx, q, db, table, []string{col}, seed)
	if err != nil || len(got) == 0 {
		return nil, err
	}
	counts := map[string]float64{}
	nulls := 0.0
	for _, v := range got {
		if !v[0].Valid {
			nulls++
			continue
		}
		counts[v[0].String]++
	}
	smp := &sample{from: how, nulls: nulls / float64(len(got)), counted: true}
	for v, w := range counts {
		smp.buckets = append(smp.buckets, bucket{lo: v, hi: v, point: true, weight: w})
	}
	sort.Slice(smp.buckets, func(i, j int) bool { return smp.buckets[i].lo < smp.buckets[j].lo })
	return smp, nil
}

// readRows reads up to about sampleSize rows of columns cols of db.table, as sampleRows
// tells, and says how.
func readRows(ctx context.Context, q *sql.Conn, db, table string, cols []string, seed int64) ([][]sql.NullString, string, error) {
	from := quoteID(db) + "." + quoteID(table)
	quoted := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = quoteID(c)
	}
	c := strings.Join(quoted, ", ")
	var got [][]sql.NullString
	read := func(query string, args ...any) error {
		rows, err := q.QueryContext(ctx, query, args...)
		if err != nil {
			return fmt.Errorf("sample %s.%s: %w", table, strings.Join(cols, ", "), err)
		}
		defer rows.Close()
		for rows.Next() {
			v := make([]sql.NullString, len(cols))
			ptrs := make([]any, len(cols))
			for i := range v {
				ptrs[i] = &v[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				return err
			}
			got = append(got, v)
		}
		return rows.Err()
	}
	if err := read("SELECT " + c + " FROM " + from + " LIMIT " + strconv.Itoa(sampleSize+1)); err != nil {
		return nil, "", err
	}
	how := fmt.Sprintf("all %d rows", len(got))
	if len(got) <= sampleSize {
		return got, how, nil
	}
	got = nil
	var pk, pkType string
	err := q.QueryRowContext(ctx, `SELECT s.COLUMN_NAME, LOWER(c.DATA_TYPE) FROM information_schema.STATISTICS s
		JOIN information_schema.COLUMNS c ON c.TABLE_SCHEMA = s.TABLE_SCHEMA AND c.TABLE_NAME = s.TABLE_NAME AND c.COLUMN_NAME = s.COLUMN_NAME
		WHERE s.TABLE_SCHEMA = ? AND s.TABLE_NAME = ? AND s.INDEX_NAME = 'PRIMARY' AND s.SEQ_IN_INDEX = 1`, db, table).Scan(&pk, &pkType)
	if err != nil && err != sql.ErrNoRows {
		return nil, "", fmt.Errorf("read the primary key of %s.%s: %w", db, table, err)
	}
	if _, _, isInt := intRange(&column{dataType: pkType}); isInt {
		var lo, hi int64
		if err := q.QueryRowContext(ctx, "SELECT MIN("+quoteID(pk)+"), MAX("+quoteID(pk)+") FROM "+from).Scan(&lo, &hi); err != nil {
			return nil, "", fmt.Errorf("read the key range of %s.%s: %w", db, table, err)
		}
		// one column's name keeps the key of the samples read before columns went together
		r := newStream(hashName(strconv.FormatInt(seed, 10), db, table, strings.Join(cols, ","), "sample"), 0)
		span := float64(hi-lo) + 1
		for i := range sampleChunks {
			at := lo + int64(span*(float64(i)+r.float())/sampleChunks)
			if err := read("SELECT "+c+" FROM "+from+" WHERE "+quoteID(pk)+" >= ? ORDER BY "+quoteID(pk)+" LIMIT "+strconv.Itoa(sampleSize/sampleChunks), at); err != nil {
				return nil, "", err
			}
		}
		return got, fmt.Sprintf("%d rows at %d places of its primary key", len(got), sampleChunks), nil
	}
	var est sql.NullFloat64
	_ = q.QueryRowContext(ctx, "SELECT TABLE_ROWS FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?", db, table).Scan(&est)
	p := 1.0
	if est.Valid && est.Float64 > 0 {
		p = min(1, 1.5*sampleSize/est.Float64)
	}
	if err := read("SELECT "+c+" FROM "+from+" WHERE RAND(?) < ? LIMIT "+strconv.Itoa(sampleSize), seed, p); err != nil {
		return nil, "", err
	}
	return got, fmt.Sprintf("%d rows of a scan", len(got)), nil
}

// mariaDBHistogram reads db.table.column's histogram from mysql.column_stats (ANALYZE TABLE
// ... PERSISTENT FOR ...): nil when there is none or no such table (MySQL).
func mariaDBHistogram(ctx context.Context, q *sql.Conn, db, table, col, dataType string) (*sample, error) {
	var histType, minV, maxV sql.NullString
	var hist []byte
	var nullsRatio sql.NullFloat64
	err := q.QueryRowContext(ctx, `SELECT hist_type, histogram, min_value, max_value, nulls_ratio FROM mysql.column_stats
		WHERE db_name = ? AND table_name = ? AND column_name = ?`, db, table, col).Scan(&histType, &hist, &minV, &maxV, &nullsRatio)
	if err != nil || !histType.Valid || len(hist) == 0 {
		// no row, or no mysql.column_stats (MySQL), or no right to read it: no histogram here
		return nil, nil
	}
	smp, err := parseMariaDBHistogram(histType.String, hist, minV.String, maxV.String, dataType)
	if err != nil {
		return nil, fmt.Errorf("the %s histogram of %s.%s.%s in mysql.column_stats: %w", histType.String, db, table, col, err)
	}
	smp.nulls = nullsRatio.Float64
	smp.from = "MariaDB's " + histType.String + " histogram in mysql.column_stats"
	return smp, nil
}

// parseMariaDBHistogram reads a histogram of mysql.column_stats. JSON_HB (10.8+) holds the
// values themselves; SINGLE_PREC_HB and DOUBLE_PREC_HB hold only where each bucket ends as a
// fraction of min..max, by a measure MariaDB computes per type: read for numbers only.
func parseMariaDBHistogram(histType string, hist []byte, minV, maxV, dataType string) (*sample, error) {
	smp := &sample{}
	switch histType {
	case "JSON_HB":
		var h struct {
			Buckets []struct {
				Start    *string `json:"start"`
				StartHex *string `json:"start_hex"`
				End      *string `json:"end"`
				EndHex   *string `json:"end_hex"`
				Size     float64 `json:"size"`
				NDV      int64   `json:"ndv"`
			} `json:"histogram_hb"`
		}
		if err := json.Unmarshal(hist, &h); err != nil {
			return nil, fmt.Errorf("not the JSON of a JSON_HB histogram: %w", err)
		}
		text := func(s, hex *string) (string, bool) {
			if s != nil {
				return *s, true
			}
			if hex != nil {
				b := make([]byte, len(*hex)/2)
				for i := range b {
					x, err := strconv.ParseUint((*hex)[2*i:2*i+2], 16, 8)
					if err != nil {
						return "", false
					}
					b[i] = byte(x)
				}
				return string(b), true
			}
			return "", false
		}
		for i, b := range h.Buckets {
			lo, ok := text(b.Start, b.StartHex)
			if !ok {
				return nil, fmt.Errorf("bucket %d has no start", i+1)
			}
			hi, ok := text(b.End, b.EndHex)
			if i+1 < len(h.Buckets) {
				hi, ok = text(h.Buckets[i+1].Start, h.Buckets[i+1].StartHex)
			}
			if !ok {
				hi = lo
			}
			smp.buckets = append(smp.buckets, bucket{lo: lo, hi: hi, point: b.NDV <= 1 || lo == hi, weight: b.Size})
		}
	case "SINGLE_PREC_HB", "DOUBLE_PREC_HB":
		if !isNumeric(dataType) {
			return nil, fmt.Errorf("a %s histogram keeps where buckets end as fractions, which generate reads back for numbers only, and the column is %s; collect a JSON_HB one: SET SESSION histogram_type = JSON_HB, then ANALYZE TABLE ... PERSISTENT FOR ALL", histType, dataType)
		}
		lo, err1 := strconv.ParseFloat(minV, 64)
		hi, err2 := strconv.ParseFloat(maxV, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("min_value %q or max_value %q is not a number", minV, maxV)
		}
		var pos []float64
		if histType == "SINGLE_PREC_HB" {
			for _, b := range hist {
				pos = append(pos, float64(b)/math.MaxUint8)
			}
		} else {
			for i := 0; i+1 < len(hist); i += 2 {
				pos = append(pos, float64(binary.LittleEndian.Uint16(hist[i:]))/math.MaxUint16)
			}
		}
		// n endpoints cut n+1 buckets of the same height
		prev := lo
		for _, p := range append(pos, 1) {
			end := lo + (hi-lo)*p
			smp.buckets = append(smp.buckets, bucket{lo: formatFloat(prev), hi: formatFloat(end), point: prev == end, weight: 1})
			prev = end
		}
	default:
		return nil, fmt.Errorf("unknown histogram type %s", histType)
	}
	if len(smp.buckets) == 0 {
		return nil, fmt.Errorf("the histogram has no buckets")
	}
	return smp, nil
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func isNumeric(dataType string) bool {
	if _, _, ok := intRange(&column{dataType: dataType}); ok {
		return true
	}
	switch dataType {
	case "decimal", "numeric", "float", "double", "real":
		return true
	}
	return false
}

// mySQLHistogram reads db.table.column's histogram from MySQL 8's
// information_schema.COLUMN_STATISTICS (ANALYZE TABLE ... UPDATE HISTOGRAM): nil when there
// is none or no such table (MariaDB).
func mySQLHistogram(ctx context.Context, q *sql.Conn, db, table, col string, members []string) (*sample, error) {
	var js []byte
	err := q.QueryRowContext(ctx, `SELECT HISTOGRAM FROM information_schema.COLUMN_STATISTICS
		WHERE SCHEMA_NAME = ? AND TABLE_NAME = ? AND COLUMN_NAME = ?`, db, table, col).Scan(&js)
	if err != nil {
		return nil, nil
	}
	smp, err := parseMySQLHistogram(js, members)
	if err != nil {
		return nil, fmt.Errorf("the histogram of %s.%s.%s in information_schema.COLUMN_STATISTICS: %w", db, table, col, err)
	}
	return smp, nil
}

// parseMySQLHistogram reads a MySQL 8 histogram: singleton buckets [value, cumulative
// frequency] or equi-height ones [lower, upper, cumulative frequency, distinct values].
// Strings come as "base64:typeNNN:...", ENUM values as their member's number.
func parseMySQLHistogram(js []byte, members []string) (*sample, error) {
	var h struct {
		Buckets    [][]json.RawMessage `json:"buckets"`
		NullValues float64             `json:"null-values"`
		Type       string              `json:"histogram-type"`
		DataType   string              `json:"data-type"`
	}
	d := json.NewDecoder(bytes.NewReader(js))
	d.UseNumber()
	if err := d.Decode(&h); err != nil {
		return nil, fmt.Errorf("not the JSON of a histogram: %w", err)
	}
	if h.DataType == "set" {
		return nil, fmt.Errorf("SET histograms hold bit masks, which generate does not read; give the column values: [...]")
	}
	value := func(raw json.RawMessage) (string, error) {
		var v any
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		if err := d.Decode(&v); err != nil {
			return "", err
		}
		switch v := v.(type) {
		case json.Number:
			if h.DataType == "enum" {
				i, err := strconv.Atoi(v.String())
				if err != nil || i < 1 || i > len(members) {
					return "", fmt.Errorf("enum value %s is not a member's number (1 to %d)", v, len(members))
				}
				return members[i-1], nil
			}
			return v.String(), nil
		case string:
			if rest, ok := strings.CutPrefix(v, "base64:type"); ok {
				_, b64, ok := strings.Cut(rest, ":")
				if !ok {
					return "", fmt.Errorf("%q is not base64:typeN:DATA", v)
				}
				b, err := base64.StdEncoding.DecodeString(b64)
				return string(b), err
			}
			return v, nil
		case bool:
			return strconv.FormatBool(v), nil
		}
		return "", fmt.Errorf("unexpected value %s", raw)
	}
	smp := &sample{nulls: h.NullValues, from: "MySQL's " + h.Type + " histogram in information_schema.COLUMN_STATISTICS"}
	prev := 0.0
	for i, b := range h.Buckets {
		want := map[string]int{"singleton": 2, "equi-height": 4}[h.Type]
		if want == 0 {
			return nil, fmt.Errorf("unknown histogram-type %q", h.Type)
		}
		if len(b) != want {
			return nil, fmt.Errorf("bucket %d has %d fields, a %s bucket %d", i+1, len(b), h.Type, want)
		}
		lo, err := value(b[0])
		if err != nil {
			return nil, fmt.Errorf("bucket %d: %w", i+1, err)
		}
		hi, cumAt := lo, 1
		if h.Type == "equi-height" {
			if hi, err = value(b[1]); err != nil {
				return nil, fmt.Errorf("bucket %d: %w", i+1, err)
			}
			cumAt = 2
		}
		cum, err := strconv.ParseFloat(string(b[cumAt]), 64)
		if err != nil {
			return nil, fmt.Errorf("bucket %d: cumulative frequency %s: %w", i+1, b[cumAt], err)
		}
		smp.buckets = append(smp.buckets, bucket{lo: lo, hi: hi, point: lo == hi, weight: max(cum-prev, 0)})
		prev = cum
	}
	if len(smp.buckets) == 0 {
		return nil, fmt.Errorf("the histogram has no buckets")
	}
	return smp, nil
}

// gen draws the sample's values for column c. NULLs come in the sample's share when c takes
// them; a bucket that is a range gives a value between its ends for numbers and dates, and
// its lower end for other types (strings cannot be interpolated).
func (s *sample) gen(c *column) (valueGen, error) {
	nulls := s.nulls
	if !c.nullable {
		nulls = 0
	}
	cum := make([]float64, len(s.buckets))
	total := 0.0
	longest := 0
	for i, b := range s.buckets {
		total += b.weight
		cum[i] = total
		longest = max(longest, len([]rune(b.lo)), len([]rune(b.hi)))
	}
	if total <= 0 {
		return nil, fmt.Errorf("from_sample: the distribution of %s has no weight", s.source)
	}
	if (isString(c) || isBinary(c)) && int64(longest) > c.charLen {
		return nil, fmt.Errorf("from_sample: %s has values up to %d characters long, and %s holds %d; widen the column", s.source, longest, c.columnType, c.charLen)
	}
	between := rangeGen(c)
	bs := s.buckets
	var cards *deck
	if s.counted && total >= 1 {
		cards = &deck{n: uint64(total), key: s.key}
	}
	return func(dst []byte, row int64, r *stream) []byte {
		if nulls > 0 && r.float() < nulls {
			return append(dst, "NULL"...)
		}
		x := r.float() * total
		if cards != nil {
			x = float64(cards.at(row)) + 0.5 // the card's row of the sample
		}
		b := bs[min(sort.SearchFloat64s(cum, x), len(bs)-1)]
		if b.point || between == nil {
			return appendQuoted(dst, b.lo)
		}
		return between(dst, b.lo, b.hi, r)
	}, nil
}

// rangeGen draws a value between two ends for the types that have values between: nil for
// the others.
func rangeGen(c *column) func(dst []byte, lo, hi string, r *stream) []byte {
	if _, _, ok := intRange(c); ok {
		return func(dst []byte, lo, hi string, r *stream) []byte {
			a, errA := strconv.ParseFloat(lo, 64)
			b, errB := strconv.ParseFloat(hi, 64)
			if errA != nil || errB != nil || b < a {
				return appendQuoted(dst, lo)
			}
			x, y := int64(math.Ceil(a)), int64(math.Floor(b))
			if y < x {
				return strconv.AppendInt(dst, int64(math.Round(a)), 10)
			}
			return strconv.AppendInt(dst, x+int64(r.intn(uint64(y-x)+1)), 10)
		}
	}
	switch c.dataType {
	case "decimal", "numeric", "float", "double", "real":
		scale := int(c.scale)
		if c.dataType != "decimal" && c.dataType != "numeric" {
			scale = 2
		}
		return func(dst []byte, lo, hi string, r *stream) []byte {
			a, errA := strconv.ParseFloat(lo, 64)
			b, errB := strconv.ParseFloat(hi, 64)
			if errA != nil || errB != nil || b < a {
				return appendQuoted(dst, lo)
			}
			return strconv.AppendFloat(dst, a+(b-a)*r.float(), 'f', scale, 64)
		}
	case "date", "datetime", "timestamp":
		unit, layout := time.Second, "2006-01-02 15:04:05"
		if c.dataType == "date" {
			unit, layout = 24*time.Hour, "2006-01-02"
		}
		return func(dst []byte, lo, hi string, r *stream) []byte {
			a, errA := parseTime(lo)
			b, errB := parseTime(hi)
			if errA != nil || errB != nil || b.Before(a) {
				return appendQuoted(dst, lo)
			}
			steps := uint64(b.Sub(a)/unit) + 1
			return appendQuoted(dst, a.Add(time.Duration(r.intn(steps))*unit).Format(layout))
		}
	}
	return nil
}

// rowSample is the rows of real data a table-level from_sample draws whole rows from; each
// of its columns takes value col of the row its stream picks.
type rowSample struct {
	source string
	rows   [][]sql.NullString
	key    uint64 // of the stream that picks the row: the same for every column of the group
	col    int
}

// readRowSample reads the rows t's from_sample draws from, and gives each of its columns the
// settings that draw from them.
func readRowSample(ctx context.Context, q *sql.Conn, db string, seed int64, t Table, logf func(string, ...any)) (map[string]Settings, error) {
	rs := t.RowSample
	srcDB, srcTable := db, rs.Table
	if d, n, ok := strings.Cut(rs.Table, "."); ok {
		srcDB, srcTable = d, n
	}
	for _, col := range rs.Columns {
		var one int
		err := q.QueryRowContext(ctx, `SELECT 1 FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND COLUMN_NAME = ?`, srcDB, srcTable, col).Scan(&one)
		if err == sql.ErrNoRows {
			return nil, fmt.Errorf("tables: %s: from_sample %s: no column %s.%s.%s on the target; list columns the sample has (of the same names)", t.Name, rs.Table, srcDB, srcTable, col)
		}
		if err != nil {
			return nil, fmt.Errorf("tables: %s: from_sample %s: read its columns: %w", t.Name, rs.Table, err)
		}
	}
	got, how, err := readRows(ctx, q, srcDB, srcTable, rs.Columns, seed)
	if err != nil {
		return nil, fmt.Errorf("tables: %s: from_sample %s: %w", t.Name, rs.Table, err)
	}
	if len(got) == 0 {
		return nil, fmt.Errorf("tables: %s: from_sample %s.%s has no rows; fill it, or draw the columns one by one (their from_sample can read a histogram)", t.Name, srcDB, srcTable)
	}
	if logf != nil {
		logf("generate: %s.(%s) draw whole rows from %s.%s (%s)", t.Name, strings.Join(rs.Columns, ", "), srcDB, srcTable, how)
	}
	key := hashName(strconv.FormatInt(seed, 10), t.Name, "from_sample", strings.Join(rs.Columns, ","))
	out := map[string]Settings{}
	for i, col := range rs.Columns {
		s := t.Columns[col]
		s.rows = &rowSample{source: srcDB + "." + srcTable + "." + col, rows: got, key: key, col: i}
		out[col] = s
	}
	return out, nil
}

// gen draws column c's value of the picked sample row: NULLs as they are, refused when c
// takes none.
func (rs *rowSample) gen(c *column) (valueGen, error) {
	longest := 0
	for _, r := range rs.rows {
		v := r[rs.col]
		if !v.Valid && !c.nullable {
			return nil, fmt.Errorf("from_sample: %s has NULLs, and the column is NOT NULL; make it nullable or sample rows without NULLs", rs.source)
		}
		longest = max(longest, len([]rune(v.String)))
	}
	if (isString(c) || isBinary(c)) && int64(longest) > c.charLen {
		return nil, fmt.Errorf("from_sample: %s has values up to %d characters long, and %s holds %d; widen the column", rs.source, longest, c.columnType, c.charLen)
	}
	rows, col := rs.rows, rs.col
	// the group's deck, not the column's: every column picks the same row
	cards := deck{n: uint64(len(rows)), key: rs.key}
	return func(dst []byte, row int64, _ *stream) []byte {
		v := rows[cards.at(row)][col]
		if !v.Valid {
			return append(dst, "NULL"...)
		}
		return appendQuoted(dst, v.String)
	}, nil
}
