package redact

import (
	"strings"

	"github.com/debugpy-guard/debugpy-guard/policies/secrets"
)

// maskSQL masks the values an INSERT gives to columns named for a secret,
// as a program's SQL log, a driver's expanded statement (sqlite3's trace,
// psycopg2's query, Django's) or a string of SQL in a variable shows them:
//
//	INSERT INTO users (name, password) VALUES ('ada', 'SECRET'), ('bob', 'SECRET')
//
// The columns are read as SQL names ("quoted", `quoted`, [quoted]), each
// row's values as SQL literals (strings, a quote doubled inside, and in a
// text with a backslash also as MySQL reads them, 'it\'s'; numbers, NULL,
// calls). When the
// statement gives a secret's column a placeholder (?, %s, :name, $1), the
// values are the parameters that SQLAlchemy's echo prints on the next line,
// a Python tuple (or a list of them): [generated in 0.0001s] ('ada',
// 'SECRET'). A named style's dict ({'password': ...}) is a pair's
// (maskPairs).
func maskSQL(s string, extra map[string]bool, found func(string)) (string, bool) {
	// Most texts hold no INSERT: two scans for rarer words, before one that
	// stops at every i (in WebAssembly it cost a 32 KiB output ~3 ms).
	insert := containsWord(s, "into") && containsWord(s, "values")
	update := containsWord(s, "update") && containsWord(s, "set")
	if !insert && !update {
		return s, false
	}
	var spans [][2]int
	backslash := strings.IndexByte(s, '\\') >= 0
	if update {
		spans = updates(s, backslash, extra, found)
	}
	for from := 0; insert; {
		i := indexFold(s[from:], "insert ")
		if i < 0 {
			break
		}
		at := from + i
		from = at + len("insert ")
		if at > 0 && isWord(s[at-1]) {
			continue
		}
		// A backslash escapes a quote in MySQL's strings (PyMySQL's and
		// mysqlclient's expanded statements: 'it\'s'), not in standard
		// SQL's: where the text holds one, a statement is read both ways
		// (chosen).
		std := readInsertRows(s, from, extra, false)
		reads := []sqlInsert{std}
		if backslash {
			reads = chosen(std, readInsertRows(s, from, extra, true))
		}
		for _, r := range reads {
			if r.ok {
				spans = append(spans, r.spans(s, found)...)
				from = max(from, r.next)
			}
		}
	}
	if len(spans) == 0 {
		return s, false
	}
	return writeSpans(s, spans, found), true
}

// sqlInsert is an INSERT read one way (readInsert): the indexes of its
// columns named for a secret, its rows, where it ends, and whether it is
// whole (each row a value a column, each value well formed, and what
// follows what may follow).
type sqlInsert struct {
	secret    []int
	rows      [][]sqlValue
	next      int
	ok, valid bool
}

func readInsertRows(s string, from int, extra map[string]bool, mysql bool) sqlInsert {
	cols, rows, next, ok := readInsert(s, from, mysql)
	r := sqlInsert{rows: rows, next: next, ok: ok, valid: ok && endsStatement(s, next)}
	for k, c := range cols {
		if secrets.IsName(c, extra) {
			r.secret = append(r.secret, k)
		}
	}
	for _, row := range rows {
		r.valid = r.valid && len(row) == len(cols)
		for _, v := range row {
			r.valid = r.valid && v.wellFormed(s)
		}
	}
	return r
}

func (r sqlInsert) whole() bool { return r.valid }

// spans masks the values r's rows give to columns named for a secret, and
// when they are placeholders, the parameters on the next line.
func (r sqlInsert) spans(s string, found func(string)) [][2]int {
	var spans [][2]int
	placeholders := false
	for _, row := range r.rows {
		var p bool
		spans, p = secretValues(s, row, r.secret, spans, found)
		placeholders = placeholders || p
	}
	if placeholders {
		spans = append(spans, parameters(s, r.next, r.rows[0], r.secret, found)...)
	}
	return spans
}

// updates reads the UPDATEs of s (UPDATE users SET password = 'SECRET',
// seen = ? WHERE id = ?): the values it sets to columns named for a
// secret are masked, and when they are placeholders, the parameters
// SQLAlchemy's echo prints on the next line (the SET's and the WHERE's, in
// order). Its strings are read as maskSQL reads an INSERT's: both ways
// where the text holds a backslash (backslash).
func updates(s string, backslash bool, extra map[string]bool, found func(string)) [][2]int {
	var spans [][2]int
	for from := 0; ; {
		i := indexFold(s[from:], "update ")
		if i < 0 {
			return spans
		}
		at := from + i
		from = at + len("update ")
		if at > 0 && isWord(s[at-1]) {
			continue
		}
		j := from + run(s, from, isBlank)
		for j < len(s) && !isBlank(s[j]) && s[j] != '\n' { // the table's name
			j++
		}
		j += run(s, j, isBlank)
		if !wordAt(s, j, "set") {
			continue
		}
		j += len("set")
		std := readSet(s, j, extra, false)
		sets := []sqlSet{std}
		if backslash {
			sets = chosen(std, readSet(s, j, extra, true))
		}
		for _, set := range sets {
			from = max(from, set.end)
			spans = append(spans, set.spans(s, found)...)
		}
	}
}

// sqlSet is an UPDATE's SET list, read one way: its values, the indexes of
// those set to a secret's column, where it ends, and whether what follows
// it is what may follow a SET list (its line's end, a ; or a word: WHERE,
// RETURNING ...).
type sqlSet struct {
	row    []sqlValue
	secret []int
	end    int
	valid  bool
}

// readSet reads the SET list that starts at s[j]: col = value, ...
func readSet(s string, j int, extra map[string]bool, mysql bool) sqlSet {
	var set sqlSet
	for {
		j += run(s, j, isBlank)
		c := j + run(s, j, func(c byte) bool { return isWordByte(c) || c == '"' || c == '`' || c == '[' || c == ']' || c == '.' })
		col := strings.Trim(s[j:c], "\"`[]")
		if k := strings.LastIndexByte(col, '.'); k >= 0 {
			col = col[k+1:]
		}
		c += run(s, c, isBlank)
		if col == "" || c >= len(s) || s[c] != '=' {
			break
		}
		vs := c + 1 + run(s, c+1, isBlank)
		ve := vs
		if ve < len(s) && s[ve] == '\'' { // to its closing quote, or its line's end (and the line end)
			line := len(s)
			if k := strings.IndexByte(s[ve:], '\n'); k >= 0 {
				line = ve + k
			}
			ve = min(sqlStringEnd(s[:line], ve, mysql)+1, len(s))
		} else {
			ve += run(s, ve, func(c byte) bool { return !isSpace(c) && c != ',' && c != ';' && c != ')' })
		}
		if secrets.IsName(col, extra) {
			set.secret = append(set.secret, len(set.row))
		}
		v := sqlValueOf(s, vs, ve)
		v.mysql = mysql
		set.row = append(set.row, v)
		j = ve + run(s, ve, isBlank)
		if j >= len(s) || s[j] != ',' {
			break
		}
		j++
	}
	set.end = j
	set.valid = len(set.row) > 0 && endsStatement(s, j)
	for _, v := range set.row {
		set.valid = set.valid && v.wellFormed(s)
	}
	return set
}

// spans masks the values set's secret columns take, and when they are
// placeholders, the parameters on the next line (parameters): the
// placeholders after the SET (WHERE id = ?) take parameters too.
func (set sqlSet) spans(s string, found func(string)) [][2]int {
	if len(set.secret) == 0 {
		return nil
	}
	row := set.row
	end := set.end + strings.IndexAny(s[set.end:]+";", ";\n")
	for _, w := range strings.FieldsFunc(s[set.end:end], func(r rune) bool { return r == ' ' || r == '\t' || r == '=' || r == '(' || r == ')' || r == ',' }) {
		if v := sqlValueOf(w, 0, len(w)); v.kind == '?' {
			row = append(row, sqlValue{kind: '?'})
		}
	}
	spans, placeholders := secretValues(s, row, set.secret, nil, found)
	if placeholders {
		spans = append(spans, parameters(s, end, row, set.secret, found)...)
	}
	return spans
}

// secretValues adds to spans those of row's values at the indexes secret
// (a string's body, a mask a line in writeSpans; a number whole) and
// hands each string's value to found; placeholders says one of them is a
// placeholder, whose value is a parameter.
func secretValues(s string, row []sqlValue, secret []int, spans [][2]int, found func(string)) (_ [][2]int, placeholders bool) {
	for _, k := range secret {
		if k >= len(row) {
			continue
		}
		switch v := row[k]; v.kind {
		case 's':
			spans = append(spans, [2]int{v.from + 1, v.to - 1})
			if found != nil {
				found(sqlStringValue(s[v.from+1:v.to-1], v.mysql))
			}
		case 'n':
			spans = append(spans, [2]int{v.from, v.to})
		case 'c': // cut short: its piece, learned (a container's item shows it beside pydevd's cut: 'INSERT INTO users (n...PIECE')
			spans = append(spans, [2]int{v.from + 1, v.to})
			if found != nil {
				found(sqlStringValue(s[v.from+1:v.to], v.mysql))
			}
		case '?':
			placeholders = true
		}
	}
	return spans, placeholders
}

// chosen is which of a statement's two readings, standard SQL's and
// MySQL's, to mask by: those that read a statement that is whole (valid),
// and both when neither does (a mask too many rather than a secret left).
func chosen[R interface{ whole() bool }](std, mysql R) []R {
	switch {
	case std.whole() && !mysql.whole():
		return []R{std}
	case mysql.whole() && !std.whole():
		return []R{mysql}
	}
	return []R{std, mysql}
}

func (set sqlSet) whole() bool { return set.valid }

// endsStatement: what follows s[j] may follow a statement's SET list or
// VALUES rows: its line's end, a ; or a clause's word (WHERE, RETURNING,
// ON DUPLICATE KEY UPDATE ...).
func endsStatement(s string, j int) bool {
	j += run(s, j, isBlank)
	if j >= len(s) || s[j] == ';' || s[j] == '\n' || s[j] == '\r' {
		return true
	}
	for _, w := range []string{"where", "returning", "from", "order", "limit", "on", "as"} {
		if wordAt(s, j, w) {
			return true
		}
	}
	return false
}

// sqlValue is one value of an INSERT's row: a string literal ('s', its
// quotes included), a number ('n'), a placeholder ('?'), or anything else
// (0: NULL, a call).
type sqlValue struct {
	from, to int
	kind     byte
	mysql    bool // a string read as MySQL reads it (sqlStringEnd)
}

// readInsert reads what follows INSERT: [OR ...] INTO table (columns)
// VALUES (row), (row)...; next is where it ends.
func readInsert(s string, i int, mysql bool) (cols []string, rows [][]sqlValue, next int, ok bool) {
	i += run(s, i, isBlank)
	j := indexFold(s[i:], "into ")
	if j < 0 || j > 24 { // INSERT OR REPLACE INTO
		return nil, nil, 0, false
	}
	i += j + len("into ")
	i += run(s, i, isBlank)
	for i < len(s) && s[i] != '(' && !isBlank(s[i]) && s[i] != '\n' { // the table's name
		i++
	}
	i += run(s, i, isBlank)
	if i >= len(s) || s[i] != '(' {
		return nil, nil, 0, false
	}
	end := strings.IndexByte(s[i:], ')')
	if end < 0 {
		return nil, nil, 0, false
	}
	for _, c := range strings.Split(s[i+1:i+end], ",") {
		c = strings.TrimSpace(c)
		if len(c) >= 2 && (c[0] == '"' || c[0] == '`' || c[0] == '[') {
			c = c[1 : len(c)-1]
		}
		cols = append(cols, c)
	}
	i += end + 1
	i += run(s, i, isBlank)
	if !strings.HasPrefix(strings.ToLower(s[i:min(len(s), i+6)]), "values") {
		return nil, nil, 0, false
	}
	i += len("values")
	i += run(s, i, isBlank)
	for i < len(s) && s[i] == '(' {
		row, j, ok := readRow(s, i, mysql)
		if !ok {
			break
		}
		rows = append(rows, row)
		if j == len(s) && s[j-1] != ')' { // a row cut short (cutRow): the text ends in it
			return cols, rows, j, true
		}
		i = j + run(s, j, isBlank)
		if i < len(s) && s[i] == ',' {
			i++
			i += run(s, i, isBlank)
		}
	}
	return cols, rows, i, len(rows) > 0
}

// sqlStringEnd is where the SQL string that opens at the quote s[i]
// closes: its closing quote's index, or len(s). A quote doubled inside does
// not close it; with mysql, nor does a quote after a backslash (MySQL's
// strings: a backslash escapes the byte after it), which standard SQL's
// strings do not read.
func sqlStringEnd(s string, i int, mysql bool) int {
	j := i + 1
	for ; j < len(s); j++ {
		switch {
		case s[j] == '\\' && mysql:
			j++
		case s[j] == '\'' && j+1 < len(s) && s[j+1] == '\'':
			j++
		case s[j] == '\'':
			return j
		}
	}
	return len(s)
}

// sqlStringValue is the value of a SQL string's body, read as
// sqlStringEnd read it.
func sqlStringValue(body string, mysql bool) string {
	if !mysql {
		return strings.ReplaceAll(body, "''", "'")
	}
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '\'' && i+1 < len(body) && body[i+1] == '\'':
			i++
		case c == '\\' && i+1 < len(body):
			i++
			c = body[i]
			if k := strings.IndexByte("0bnrtZ", c); k >= 0 {
				c = "\x00\b\n\r\t\x1a"[k]
			} else if c == '%' || c == '_' { // LIKE's escapes keep their backslash
				b.WriteByte('\\')
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// readRow reads a row of values from its '(' to its ')'; or, when the
// text ends in it, to the text's end (cutRow).
func readRow(s string, i int, mysql bool) ([]sqlValue, int, bool) {
	var row []sqlValue
	start, depth := i+1, 0
	for j := i + 1; j < len(s); j++ {
		switch c := s[j]; {
		case c == '\'': // 'it''s'
			if j = sqlStringEnd(s, j, mysql); j >= len(s) {
				return cutRow(s, row, start, mysql)
			}
		case c == '(':
			depth++
		case c == ')' && depth > 0:
			depth--
		case (c == ',' || c == ')') && depth == 0:
			v := sqlValueOf(s, start, j)
			v.mysql = mysql
			row = append(row, v)
			if c == ')' {
				return row, j + 1, true
			}
			start = j + 1
		case c == '\n':
			return nil, 0, false
		}
	}
	return cutRow(s, row, start, mysql)
}

// cutRow is a row the text ends in: a statement cut short (a log's
// sql[:80], a slice, a repr the debugger cut), its last value a string
// with no closing quote, kind 'c', to the text's end. Its values before
// are read as a whole row's, so that a secret's column among them is
// masked (until 2026-12-08 a row cut in its password's string showed
// it), and a cut value there is learned as the piece it is.
// A row is never whole (readInsertRows): it has fewer values than
// columns, or its last is cut.
func cutRow(s string, row []sqlValue, start int, mysql bool) ([]sqlValue, int, bool) {
	v := sqlValueOf(s, start, len(s))
	if v.to > v.from && s[v.from] == '\'' && v.kind != 's' {
		v.kind, v.to = 'c', literalEnd(s, v.from+1, v.to)
	}
	v.mysql = mysql
	return append(row, v), len(s), true
}

// wellFormed: v is one value (a string literal whole, a number, a
// placeholder, a word such as NULL or a call such as NOW()), not the
// pieces a string read the wrong way leaves.
func (v sqlValue) wellFormed(s string) bool {
	t := s[v.from:v.to]
	switch v.kind {
	case 's':
		return sqlStringEnd(s, v.from, v.mysql) == v.to-1
	case 'n', '?':
		return true
	}
	if t == "" || !isWordByte(t[0]) {
		return false
	}
	w := run(t, 0, func(c byte) bool { return isWordByte(c) || c == '.' })
	return w == len(t) || t[w] == '(' && t[len(t)-1] == ')'
}

func sqlValueOf(s string, from, to int) sqlValue {
	for from < to && isBlank(s[from]) {
		from++
	}
	for to > from && isBlank(s[to-1]) {
		to--
	}
	v := s[from:to]
	kind := byte(0)
	switch {
	case len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'':
		kind = 's'
	case v == "?" || v == "%s" || len(v) > 1 && (v[0] == ':' || v[0] == '$') || strings.HasPrefix(v, "%(") && strings.HasSuffix(v, ")s"):
		kind = '?'
	case v != "" && strings.Trim(v, "0123456789.-+eE") == "":
		kind = 'n'
	}
	return sqlValue{from: from, to: to, kind: kind}
}

// parameters masks, in the line after an INSERT whose secret columns have
// placeholders, the parameters that stand where they do: a tuple (or a
// list of tuples, one a row, executemany), as SQLAlchemy's echo prints
// them after its [generated in ...] or [cached since ...].
func parameters(s string, next int, row []sqlValue, secret []int, found func(string)) [][2]int {
	nl := strings.IndexByte(s[next:], '\n')
	if nl < 0 {
		return nil
	}
	line := next + nl + 1
	end := strings.IndexByte(s[line:], '\n')
	if end < 0 {
		end = len(s)
	} else {
		end += line
	}
	// the placeholders' places among a row's values, in order
	place := map[int]int{}
	n := 0
	for k, v := range row {
		if v.kind == '?' {
			place[k] = n
			n++
		}
	}
	var spans [][2]int
	for i := line; i < end; i++ {
		if s[i] != '(' || i > line && s[i-1] != ' ' && s[i-1] != '[' && s[i-1] != ',' {
			continue
		}
		elems, j, ok := tupleElements(s, i, end)
		if !ok || len(elems) != n {
			continue
		}
		for _, k := range secret {
			p, ok := place[k]
			if !ok {
				continue
			}
			e := elems[p]
			q := strings.IndexAny(s[e[0]:min(e[1], e[0]+3)], `'"`) // b'...', r"..."
			if _, l, ok := readString(s[:e[1]], e[0], e[0]+max(q, 0)); q >= 0 && ok && l.End == e[1] {
				spans = append(spans, [2]int{l.BodyStart, l.BodyEnd})
				if found != nil && l.Known {
					found(l.Value)
				}
			} else if strings.ContainsAny(s[e[0]:e[1]], "0123456789") && !strings.ContainsAny(s[e[0]:e[1]], "([{") {
				spans = append(spans, e)
			}
		}
		i = j - 1
	}
	return spans
}

// tupleElements splits the Python tuple that opens at s[i] into its
// elements' spans, reading its strings as Python does.
func tupleElements(s string, i, end int) ([][2]int, int, bool) {
	var out [][2]int
	start, depth := i+1, 0
	for j := i + 1; j < end; j++ {
		switch c := s[j]; {
		case c == '\'' || c == '"':
			_, l, ok := readString(s[:end], start, j)
			if !ok {
				return nil, 0, false
			}
			j = l.End - 1
		case c == '(' || c == '[' || c == '{':
			depth++
		case (c == ')' || c == ']' || c == '}') && depth > 0:
			depth--
		case (c == ',' || c == ')') && depth == 0:
			from, to := start, j
			for from < to && s[from] == ' ' {
				from++
			}
			for to > from && s[to-1] == ' ' {
				to--
			}
			if from < to {
				out = append(out, [2]int{from, to})
			}
			if c == ')' {
				return out, j + 1, true
			}
			start = j + 1
		}
	}
	return nil, 0, false
}

// containsWord: s holds word in lower case, upper case or capitalised.
func containsWord(s, word string) bool {
	return strings.Contains(s, word) || strings.Contains(s, strings.ToUpper(word)) ||
		strings.Contains(s, strings.ToUpper(word[:1])+word[1:])
}

// indexFold is strings.Index of an ASCII lower-case word, in any case.
func indexFold(s, word string) int {
	for i := 0; i+len(word) <= len(s); i++ {
		k := strings.IndexAny(s[i:], word[:1]+strings.ToUpper(word[:1]))
		if k < 0 {
			return -1
		}
		i += k
		if i+len(word) <= len(s) && strings.EqualFold(s[i:i+len(word)], word) {
			return i
		}
	}
	return -1
}

// maskIdentified masks the passwords that SQL's account statements give
// under no name: CREATE USER / ALTER USER / GRANT ... IDENTIFIED BY 'VALUE'
// (MySQL, MariaDB; Oracle's unquoted IDENTIFIED BY VALUE), IDENTIFIED WITH
// plugin BY 'VALUE', and SET PASSWORD [FOR 'u'@'h'] = 'VALUE' or =
// PASSWORD('VALUE'). The value is a literal (single or double quotes, a quote doubled or
// escaped inside) or a word, to a blank or a ;.
func maskIdentified(s string, found func(string)) (string, bool) {
	if !strings.Contains(s, "DENTIFIED") && !strings.Contains(s, "dentified") && !strings.Contains(s, "ASSWORD") && !strings.Contains(s, "assword") {
		return s, false
	}
	h := hidden{s: s, found: found}
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c != 'i' && c != 's' || i > 0 && isWordByte(s[i-1]) {
			continue // most bytes: no word of the two starts there
		}
		var at int
		switch {
		case wordAt(s, i, "identified"):
			at = i + len("identified")
			w := at + run(s, at, isSpace)
			if wordAt(s, w, "with") { // IDENTIFIED WITH plugin BY
				w += len("with")
				w += run(s, w, isSpace)
				w += run(s, w, func(c byte) bool { return isWordByte(c) || c == '\'' || c == '"' || c == '`' })
				w += run(s, w, isSpace)
			}
			if !wordAt(s, w, "by") {
				continue
			}
			at = w + len("by")
		case wordAt(s, i, "set") && (i == 0 || !isWordByte(s[i-1])):
			w := i + len("set")
			w += run(s, w, isSpace)
			if !wordAt(s, w, "password") {
				continue
			}
			// to the = of this statement (SET PASSWORD FOR 'u'@'h' = ...)
			e := strings.IndexAny(s[w:], "=;\n")
			if e < 0 || s[w+e] != '=' {
				continue
			}
			at = w + e + 1
			p := at + run(s, at, isSpace)
			if wordAt(s, p, "password") && strings.HasPrefix(s[p+len("password"):], "(") { // = PASSWORD('VALUE')
				at = p + len("password(")
			}
		default:
			continue
		}
		at += run(s, at, isSpace)
		if at >= len(s) {
			break
		}
		from, to := at, at
		if q := s[at]; q == '\'' || q == '"' {
			from, to = at+1, closingSQLQuote(s, at)
		} else if st := statementStart(s, i); !wordAt(s, st, "create") && !wordAt(s, st, "alter") && !wordAt(s, st, "grant") {
			continue // unquoted, outside a statement: prose (a user identified by email)
		} else {
			to = at + run(s, at, func(c byte) bool { return !isSpace(c) && c != ';' && c != ')' })
		}
		if to > from {
			h.hide(from, to)
		}
		i = to
	}
	return h.masked()
}

// statementStart is where the statement that holds s[i] starts: after
// the ; or the line end before it, and its blanks.
func statementStart(s string, i int) int {
	st := strings.LastIndexAny(s[:i], ";\n\r") + 1
	return st + run(s, st, isSpace)
}

// wordAt: s holds the word w (in any case) at i, a whole word.
func wordAt(s string, i int, w string) bool {
	return i+len(w) <= len(s) && strings.EqualFold(s[i:i+len(w)], w) &&
		(i == 0 || !isWordByte(s[i-1])) && (i+len(w) == len(s) || !isWordByte(s[i+len(w)]))
}

// closingSQLQuote is where the body of the literal that opens at s[i]
// ends (before its closing quote): a quote doubled or escaped by a
// backslash inside; the line's end when it does not close there.
func closingSQLQuote(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch {
		case s[j] == '\\':
			j++
		case s[j] == q && j+1 < len(s) && s[j+1] == q:
			j++
		case s[j] == q:
			return j
		case s[j] == '\n' || s[j] == '\r':
			return j
		}
	}
	return len(s)
}
