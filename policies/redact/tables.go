package redact

import (
	"strings"
)

// A table held as a sequence of rows, its header first: csv.reader's rows
// ([['user', 'password'], ['ada', '...']]), a list of tuples a program
// writes with its column names first, and a NumPy structured array, whose
// dtype names its fields after its rows ([('ada', '...')],
// dtype=[('user', '<U10'), ('password', '<U20')]). No key stands beside a
// value: its column's name is in the header, and each showed in clear
// (found 2026-12-08). The cells under a header that names a secret are
// masked in every row, and handed to found.

// maskTableRows masks the cells under a secret's column of the tables in
// s (tableRows), each handed to found.
func maskTableRows(s string, extra map[string]bool, found func(string)) (string, bool) {
	if !strings.ContainsAny(s, "[(") {
		return s, false
	}
	h := hidden{s: s, found: found}
	tableRows(s, extra, h.hide)
	return h.masked()
}

// tableRows hides the cells under a secret's column of each sequence of
// rows in s whose first row is a header (string literals only, one of
// which names a secret), and of each NumPy structured array's rows.
func tableRows(s string, extra map[string]bool, hide func(from, to int)) {
	sc := &scanner{s: s}
	for i := 0; i < len(s); i++ {
		if s[i] != '[' && s[i] != '(' {
			continue
		}
		sc.opensNo = [2]int{} // a line's record, and i may be on another line than the last read (pairs.go's over)
		first, ok := sc.nextOver(i + 1)
		if !ok || first.kind != '[' && first.kind != '(' {
			continue
		}
		cols, end, ok := headerRow(sc, first, extra)
		if !ok {
			continue
		}
		for {
			sep, ok := sc.nextOver(end)
			if !ok || sep.kind != ',' {
				break
			}
			open, ok := sc.nextOver(sep.end)
			if !ok || open.kind != '[' && open.kind != '(' {
				break
			}
			e, ok := row(sc, open, cols, hide)
			if !ok { // a row of other than plain cells: the table is read to there
				break
			}
			end = e
		}
		i = max(i, end-1) // on past the rows read (a row that failed once sent i back to the text's start, for ever)
	}
	structuredArrays(s, sc, extra, hide)
}

// headerRow reads the row that opens at open: string literals only, and
// returns which of them name a secret, where the row ends, and whether it
// is a header with a secret's column.
func headerRow(sc *scanner, open piece, extra map[string]bool) (cols []bool, end int, ok bool) {
	secret := false
	p := open
	for {
		v, ok := sc.nextOver(p.end)
		if !ok || v.kind != 's' {
			return nil, 0, false
		}
		named := namesSecretPath(keyName(sc.s, v), extra)
		cols, secret = append(cols, named), secret || named
		if p, ok = sc.nextOver(v.end); !ok {
			return nil, 0, false
		}
		switch p.kind {
		case ',':
			if n, ok := sc.nextOver(p.end); ok && closesRow(open, n) { // a trailing comma
				return cols, n.end, secret && !pair(cols)
			}
		case ']', ')':
			return cols, p.end, secret && !pair(cols) && closesRow(open, p)
		default:
			return nil, 0, false
		}
	}
}

// pair: a first row of cols, whose first names a secret and second does
// not, is a pair of a list of pairs ([('code', '...'), ('state', 'x')],
// werkzeug's ImmutableMultiDict), not a header: its name's value is its
// second (pairs.go), and the next pair's first is a name, no value.
func pair(cols []bool) bool { return len(cols) == 2 && cols[0] && !cols[1] }

// row hides the cells of the row that opens at open under cols' secret
// columns, and returns where it ends; ok is false when it is no row of
// plain cells (a nested container, a row cut short).
func row(sc *scanner, open piece, cols []bool, hide func(from, to int)) (end int, ok bool) {
	p := open
	for k := 0; ; k++ {
		v, ok := sc.nextOver(p.end)
		if !ok {
			return 0, false
		}
		if closesRow(open, v) { // an empty row, or after a trailing comma
			return v.end, true
		}
		switch v.kind {
		case 's':
			if k < len(cols) && cols[k] {
				sc.hideLiteral(v, hide, nil)
			}
		case 'w':
			if k < len(cols) && cols[k] {
				hide(v.start, v.end)
			}
		default:
			return 0, false
		}
		if p, ok = sc.nextOver(v.end); !ok {
			return 0, false
		}
		switch {
		case p.kind == ',':
		case closesRow(open, p):
			return p.end, true
		default:
			return 0, false
		}
	}
}

// closesRow: p closes the bracket open opened.
func closesRow(open, p piece) bool {
	return open.kind == '[' && p.kind == ']' || open.kind == '(' && p.kind == ')'
}

// structuredArrays hides the secret fields of each NumPy structured
// array's rows in s: array([('ada', '...'), ...], dtype=[('user',
// '<U10'), ('password', '<U20')]), its rows before its dtype.
func structuredArrays(s string, sc *scanner, extra map[string]bool, hide func(from, to int)) {
	d := -1 // the next dtype=[ after the array read, found again only past it: a text of many arrays is read once
	for from := 0; ; {
		a := strings.Index(s[from:], "array([")
		if a < 0 {
			return
		}
		a += from
		from = a + len("array([")
		if d < from {
			if d = strings.Index(s[from:], "dtype=["); d < 0 {
				return
			}
			d += from
		}
		var cols []bool
		secret := false
		sc.opensNo = [2]int{}
		for p := (piece{end: d + len("dtype=[")}); ; {
			open, ok := sc.nextOver(p.end)
			if !ok || open.kind != '(' {
				break
			}
			name, ok := sc.nextOver(open.end)
			if !ok || name.kind != 's' {
				break
			}
			named := namesSecretPath(keyName(s, name), extra)
			cols, secret = append(cols, named), secret || named
			for p, ok = sc.nextOver(name.end); ok && p.kind != ')'; p, ok = sc.nextOver(p.end) {
			}
			if !ok {
				break
			}
			if p, ok = sc.nextOver(p.end); !ok || p.kind != ',' {
				break
			}
		}
		if !secret {
			continue
		}
		sc.opensNo = [2]int{}
		p := piece{end: a + len("array([")}
		for {
			open, ok := sc.nextOver(p.end)
			if !ok || open.kind != '(' || open.start > d {
				break
			}
			end, ok := row(sc, open, cols, hide)
			if !ok {
				break
			}
			if p, ok = sc.nextOver(end); !ok || p.kind != ',' {
				break
			}
		}
	}
}

// A table listed a row a child: its header is item 0, and each item
// after it a row (walkArray).
var firstItem = map[string]bool{"0": true}

// headerCells returns the secret columns of shown, a row's display, when
// it is a header with one (headerRow), or nil.
func headerCells(shown string, extra map[string]bool) []bool {
	sc := &scanner{s: shown}
	open, ok := sc.nextOver(0)
	if !ok || open.kind != '[' && open.kind != '(' {
		return nil
	}
	cols, end, ok := headerRow(sc, open, extra)
	if !ok || strings.TrimSpace(shown[end:]) != "" {
		return nil
	}
	return cols
}

// rowCells returns shown, a row's display, with its cells under the
// secret columns cols masked and learned, and whether it masked any.
func rowCells(shown string, cols []bool) (string, bool) {
	sc := &scanner{s: shown}
	open, ok := sc.nextOver(0)
	if !ok || open.kind != '[' && open.kind != '(' {
		return shown, false
	}
	var spans [][2]int
	row(sc, open, cols, func(from, to int) { spans = append(spans, [2]int{from, to}) })
	if len(spans) == 0 {
		return shown, false
	}
	for _, sp := range spans {
		from, to := sp[0], sp[1]
		if q := shown[from-1]; (q == '\'' || q == '"') && to < len(shown) && shown[to] == q { // a literal's body: read with its quotes
			from, to = from-1, to+1
			if from > 0 && (shown[from-1] == 'b' || shown[from-1] == 'B') {
				from--
			}
		}
		rememberShown(shown[from:to])
	}
	return writeSpans(shown, spans, nil), true
}
