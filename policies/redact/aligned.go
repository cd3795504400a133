package redact

import (
	"strings"
	"unicode/utf8"

	"github.com/debugpy-guard/debugpy-guard/policies/secrets"
)

// maskAligned masks, in any text, the cells of each column of an aligned
// table whose header names a secret: columns lined up by blanks (pandas'
// DataFrame repr, tabulate's plain, simple and rst, `column -t`) or
// between bars (psql, Markdown, tabulate's github, pipe, grid, orgtbl,
// presto, fancy_grid):
//
//	      user    password        | user | password |
//	0      ada  s3cret-one   ->   |------|----------|
//	1      bob          xy        | ada  | s3cret   |
//
// A column is found by where its text is, not by what is between cells: a
// header's cell that names a secret (a word, or two with one blank between:
// API Key) is a column when, in the header and every row below it, the
// positions around it hold blanks or bars and nothing of another header's
// cell joins it (a cell as wide as its widest value, as every aligner
// pads). The rows are the lines below the header up to a blank line, or a
// line that would join the column with another's header (pandas' "[2 rows
// x 3 columns]", a line of prose); rule lines (---, +===+, |:--|) are
// passed over. A row's text in the column, and in the columns beside it
// that have no header (pandas' index, a value's words that the header
// does not reach), is masked and handed to found.
//
// It also masks a secret's value in pandas' Series repr: a line of a label
// and its value lined up with the lines around it (password    s3cret,
// the repr of a DataFrame's row), and every value above "Name: password,
// dtype: object" (a column's).
//
// TestAlignedAgreesWithPandasAndTabulate checks it against the tables
// those write.
func maskAligned(s string, extra map[string]bool, found func(string)) (string, bool) {
	if !strings.ContainsAny(s, "\n\r") || !secrets.Mentions(s, extra) { // a table is two lines or more
		return s, false
	}
	var lines [][2]int
	for i := 0; i < len(s); {
		end := lineEnd(s, i)
		lines = append(lines, [2]int{i, end})
		if end == len(s) {
			break
		}
		i = next(s, end)
	}
	var spans [][2]int
	mask := func(from, to int, learn bool) {
		if to > from {
			spans = append(spans, [2]int{from, to})
			if found != nil && learn && !dtype(s[from:to]) {
				found(s[from:to])
			}
		}
	}
	// pandas' Series: lines of a label and its value, then a footer
	// (Name: password, dtype: object). A value is masked when its label
	// names a secret, or every value when the Series' name does.
	series := make([]bool, len(lines)) // the line is a Series' (no header)
	row := make([]bool, len(lines))    // the line is a row of a table read
	for i, ln := range lines {
		name, ok := seriesFooter(s[ln[0]:ln[1]])
		if !ok {
			continue
		}
		all := name != "" && secrets.IsName(name, extra)
		for j := i - 1; j >= 0 && !series[j] && strings.TrimSpace(s[lines[j][0]:lines[j][1]]) != ""; j-- {
			series[j] = true
			text := s[lines[j][0]:lines[j][1]]
			if vs, ve, ok := labelValue(text); ok && (all || secrets.Mentions(text, extra) && secrets.IsName(underscored.Replace(strings.TrimSpace(text[:vs])), extra)) {
				mask(lines[j][0]+vs, lines[j][0]+ve, true)
			}
		}
		series[i] = true
	}
	for i, ln := range lines {
		line := s[ln[0]:ln[1]]
		// A row of a table read already is not read as a header (each line
		// once: a text of many lines that name a secret stays linear).
		if series[i] || row[i] || !secrets.Mentions(line, extra) {
			continue
		}
		if vs, ve, ok := barredLabel(line, extra); ok {
			mask(ln[0]+vs, ln[0]+ve, true)
			continue // a row of a name and its value, not a header: the names below it are no values
		}
		for _, cell := range secretCells(line, extra) {
			// A label and its value (password    s3cret), lined up with
			// the lines around it, reads as a header too (a table of two
			// columns, password then user): both readings are masked, and
			// what is masked is not learned, since which is meant cannot
			// be told (a table's next header, a block's next label).
			vs, ve, label := labelValue(line)
			label = label && cell[0] == firstRune(line) && utf8.RuneCountInString(strings.TrimLeft(line[:vs], " \t")) >= cell[1]-cell[0] && labelled(s, lines, i)
			var rows []int
			var own, whole [2]int
			if headerLike(line) {
				rows, own, whole = column(s, lines, i, cell)
			}
			for _, j := range rows {
				text := s[lines[j][0]:lines[j][1]]
				if vs, ve, ok := within(text, whole[0], whole[1]); ok {
					row[j] = true // a row with a value in the column: not a header
					mask(lines[j][0]+vs, lines[j][0]+ve, !label)
				}
				if vs, ve, ok := within(text, own[0], own[1]); ok && found != nil && !label && !dtype(text[vs:ve]) {
					found(text[vs:ve]) // the value alone, without an index beside it
				}
			}
			if label {
				mask(ln[0]+vs, ln[0]+ve, len(rows) == 0)
			}
		}
	}
	if len(spans) == 0 {
		return s, false
	}
	return writeSpans(s, spans, found), true
}

// barredLabel finds the value of a row of two cells between bars whose
// first names a secret, as Markdown, tabulate's pipe and github formats
// and a box's │ write a table of names and values: | password | VALUE |.
// The value is one word of 4 bytes or more with a digit or a symbol other
// than '_' (a table of fields and what they are, | password | required |,
// is left, and so is a header, | api_key | user_id |, read as one), as a
// page's label's is (labelValues). Such a row was read as a header, its
// value shown and the names below it masked (found 2026-12-08).
func barredLabel(line string, extra map[string]bool) (vs, ve int, ok bool) {
	bar := "|"
	if !strings.Contains(line, bar) {
		if bar = "│"; !strings.Contains(line, bar) {
			return 0, 0, false
		}
	}
	t := strings.TrimSpace(line)
	t = strings.TrimSuffix(strings.TrimPrefix(t, bar), bar)
	cells := strings.Split(t, bar)
	if len(cells) != 2 {
		return 0, 0, false
	}
	name, value := strings.TrimSpace(cells[0]), strings.TrimSpace(cells[1])
	if name == "" || len(name) > 64 || !plainName(name) || !secrets.IsName(underscored.Replace(name), extra) ||
		len(value) < 4 || strings.ContainsAny(value, " \t") || !notNameOnly(value) {
		return 0, 0, false
	}
	vs = strings.LastIndex(line, value) // the second cell's: the last of the line
	return vs, vs + len(value), true
}

// dtype reports whether v is the name of a pandas dtype (df.dtypes shows
// a password column's as "password    object"): masked there, but not a
// secret to mask in every result.
func dtype(v string) bool {
	switch v {
	case "object", "bool", "boolean", "category", "string", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
		"Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64", "float16", "float32", "float64", "Float32", "Float64",
		"complex64", "complex128":
		return true
	}
	return strings.HasPrefix(v, "datetime64[") || strings.HasPrefix(v, "timedelta64[") || strings.HasPrefix(v, "period[")
}

// isBar reports whether r stands between cells or draws a table's lines.
func isBar(r rune) bool {
	switch r {
	case '|', '│', '┃', '║', '┆', '┊':
		return true
	}
	return false
}

// isGap reports whether r is a gap between columns: a blank or a bar.
func isGap(r rune) bool { return r == ' ' || r == '\t' || isBar(r) }

// isRule reports whether line only draws a table's lines: ---, +===+,
// |:---|---:|, ╞════╪═══╡, with at least one dash or equals sign.
func isRule(line string) bool {
	drawn := false
	for _, r := range line {
		switch {
		case r == '-' || r == '=' || r == '─' || r == '━' || r == '═' || r == '┄' || r == '┈':
			drawn = true
		case r == '+' || r == ':' || isGap(r) || r >= '┌' && r <= '╿':
		default:
			return false
		}
	}
	return drawn
}

// firstRune is the rune position of line's first character that is not a
// gap.
func firstRune(line string) int {
	p := 0
	for _, r := range line {
		if !isGap(r) {
			return p
		}
		p++
	}
	return p
}

// secretCells returns the header cells of line that name a secret, as rune
// positions [from, to): a word between gaps, or two words with one blank
// between them (API Key), whose name, its blanks and dashes as
// underscores, is a secret's.
func secretCells(line string, extra map[string]bool) [][2]int {
	type word struct {
		from, to   int // rune positions
		bFrom, bTo int // byte offsets
	}
	var words []word
	p, start, bStart := 0, -1, 0
	for b, r := range line {
		if isGap(r) {
			if start >= 0 {
				words = append(words, word{start, p, bStart, b})
				start = -1
			}
		} else if start < 0 {
			start, bStart = p, b
		}
		p++
	}
	if start >= 0 {
		words = append(words, word{start, p, bStart, len(line)})
	}
	if len(words) < 1 || len(words) > 64 {
		return nil
	}
	var cells [][2]int
	for k, w := range words {
		name := line[w.bFrom:w.bTo]
		if len(name) <= 64 && plainName(name) && secrets.IsName(underscored.Replace(name), extra) {
			cells = append(cells, [2]int{w.from, w.to})
			continue
		}
		if k+1 < len(words) && words[k+1].from == w.to+1 && line[w.bTo] == ' ' {
			two := line[w.bFrom:words[k+1].bTo]
			if len(two) <= 64 && plainName(two) && secrets.IsName(underscored.Replace(two), extra) {
				cells = append(cells, [2]int{w.from, words[k+1].to})
			}
		}
	}
	return cells
}

// headerLike reports whether line can be a table's header: each of its
// words is a name (plainName), between blanks or bars. A line of code
// (SECRET = "...", api_token: str, a traceback's assert cfg.password is
// None) is not, though its lines look aligned.
func headerLike(line string) bool {
	words := strings.FieldsFunc(line, isGap)
	for _, w := range words {
		if !plainName(w) {
			return false
		}
	}
	if len(words) > 1 && statementKeywords[words[0]] {
		k := strings.Index(line, words[0]) + len(words[0])
		return !strings.HasPrefix(line[k:], " "+words[1]) // a statement: one blank, then its expression
	}
	return true
}

// statementKeywords start a Python statement whose expression follows
// after one blank; a header's cells stand further apart.
var statementKeywords = map[string]bool{
	"assert": true, "return": true, "del": true, "raise": true, "yield": true, "await": true,
	"if": true, "elif": true, "while": true, "with": true, "not": true, "lambda": true,
}

// column reads the column of the header cell at line h: the rows below it
// (their line numbers), the rune positions [from, to) of the column (own),
// and of it with the columns beside it that have no header (whole). No
// rows: no column.
func column(s string, lines [][2]int, h int, cell [2]int) (rows []int, own, whole [2]int) {
	header := []rune(s[lines[h][0]:lines[h][1]])
	// filled[p]: some line of the table so far has a character at p; the
	// header's cell is one whole, its blanks too.
	filled := make([]bool, len(header))
	for p, r := range header {
		filled[p] = !isGap(r) || p >= cell[0] && p < cell[1]
	}
	named := func(p int) bool { return p < len(header) && !isGap(header[p]) }
	barred := strings.ContainsFunc(s[lines[h][0]:lines[h][1]], isBar)
	for j := h + 1; j < len(lines); j++ {
		line := s[lines[j][0]:lines[j][1]]
		if strings.TrimSpace(line) == "" || tableFooter(line) {
			break
		}
		// A table between bars has bars on every line, one lined up by
		// blanks none: a line that differs starts another table.
		if isRule(line) {
			if !barred && strings.IndexFunc(line, func(r rune) bool { return r != '-' && r != '=' && !isGap(r) }) >= 0 {
				break
			}
			continue
		}
		if strings.ContainsFunc(line, isBar) != barred {
			break
		}
		with := make([]bool, max(len(filled), utf8.RuneCountInString(line)))
		copy(with, filled)
		p := 0
		for _, r := range line {
			with[p] = with[p] || !isGap(r)
			p++
		}
		// The column: the run of filled positions around the cell. A row
		// that joins it with another header's cell is not this table's.
		a, b := columnRun(with, cell)
		joined := false
		for p := a; p < b; p++ {
			if (p < cell[0] || p >= cell[1]) && named(p) {
				joined = true
				break
			}
		}
		if joined {
			break
		}
		filled = with
		rows = append(rows, j)
	}
	if len(rows) == 0 {
		return nil, own, whole
	}
	// The runs of filled positions: the column is the one that holds the
	// cell, with the runs beside it that have no header's character (a
	// value's words the header does not reach, an index).
	var runs [][2]int
	col := -1
	for p := 0; p < len(filled); {
		if !filled[p] {
			p++
			continue
		}
		a := p
		for p < len(filled) && filled[p] {
			p++
		}
		if a <= cell[0] && cell[0] < p {
			col = len(runs)
		}
		runs = append(runs, [2]int{a, p})
	}
	lo, hi := col, col
	for lo > 0 && !hasNamed(header, runs[lo-1][0], runs[lo-1][1]) {
		lo--
	}
	for hi+1 < len(runs) && !hasNamed(header, runs[hi+1][0], runs[hi+1][1]) {
		hi++
	}
	return rows, runs[col], [2]int{runs[lo][0], runs[hi][1]}
}

// columnRun is the run of filled positions that holds cell.
func columnRun(filled []bool, cell [2]int) (int, int) {
	a, b := cell[0], cell[1]
	for a > 0 && filled[a-1] {
		a--
	}
	for b < len(filled) && filled[b] {
		b++
	}
	return a, b
}

func hasNamed(header []rune, a, b int) bool {
	for p := a; p < b && p < len(header); p++ {
		if !isGap(header[p]) {
			return true
		}
	}
	return false
}

// within returns the byte offsets of row's text in rune positions [from,
// to), without the gaps at its ends.
func within(row string, from, to int) (vs, ve int, ok bool) {
	vs, ve = -1, -1
	for b, p := 0, 0; b < len(row) && p < to; p++ {
		r, n := utf8.DecodeRuneInString(row[b:])
		if p >= from && !isGap(r) {
			if vs < 0 {
				vs = b
			}
			ve = b + n
		}
		b += n
	}
	return vs, ve, vs >= 0
}

// seriesFooter reads pandas' Series footer: "Name: password, dtype:
// object", "Name: password, Length: 60, dtype: object", or "dtype: int64"
// alone (a Series with no name: name is "").
func seriesFooter(line string) (name string, ok bool) {
	if strings.HasPrefix(line, "dtype: ") {
		return "", true
	}
	rest, ok := strings.CutPrefix(line, "Name: ")
	if !ok || !strings.Contains(rest, "dtype: ") {
		return "", false
	}
	i := strings.Index(rest, ", dtype: ")
	if j := strings.Index(rest, ", Length: "); j >= 0 && (i < 0 || j < i) {
		i = j
	}
	if i <= 0 {
		return "", false
	}
	return underscored.Replace(rest[:i]), true
}

// tableFooter reports whether line closes a table: pandas' "[2 rows x 3
// columns]", psql's "(2 rows)".
func tableFooter(line string) bool {
	t := strings.TrimSpace(line)
	return strings.HasPrefix(t, "[") && strings.HasSuffix(t, " columns]") && strings.Contains(t, " rows x ") ||
		strings.HasPrefix(t, "(") && (strings.HasSuffix(t, " rows)") || strings.HasSuffix(t, " row)"))
}

// labelValue reads a line of a label and its value, two or more blanks
// between them (password    s3cret, 0    s3cret): the value's byte offsets.
func labelValue(line string) (vs, ve int, ok bool) {
	t := strings.TrimLeft(line, " \t")
	lead := len(line) - len(t)
	gap := strings.Index(t, "  ")
	if gap <= 0 {
		return 0, 0, false
	}
	v := strings.TrimLeft(t[gap:], " \t")
	if v = strings.TrimRight(v, " \t"); v == "" {
		return 0, 0, false
	}
	vs = lead + gap + strings.Index(t[gap:], v)
	return vs, vs + len(v), true
}

// labelled reports whether the line at i is in a block of lines of a
// label and its value (labelValue), two or more, its label starting where
// theirs does and its value lined up with one of theirs (ending, or
// starting, at the same position), as pandas lines up a Series.
func labelled(s string, lines [][2]int, i int) bool {
	line := s[lines[i][0]:lines[i][1]]
	vs, ve, _ := labelValue(line)
	vsr, ver := utf8.RuneCountInString(line[:vs]), utf8.RuneCountInString(line[:ve])
	for _, j := range []int{i - 1, i + 1} {
		if j < 0 || j >= len(lines) {
			continue
		}
		other := s[lines[j][0]:lines[j][1]]
		os, oe, ok := labelValue(other)
		if !ok {
			continue
		}
		if firstRune(other) != firstRune(line) {
			continue // a DataFrame's header over its index: not a label's line
		}
		if utf8.RuneCountInString(other[:oe]) == ver || utf8.RuneCountInString(other[:os]) == vsr {
			return true
		}
	}
	return false
}
