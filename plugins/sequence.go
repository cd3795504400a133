package plugins

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A value spelled as a sequence of its characters, bytes or pieces. A
// program that holds list(password), list(key) (the bytes, as numbers),
// [ord(c) for c in secret], bytes written as JSON's list of numbers,
// token.split('.') or a key cut into chunks shows the secret as a display
// of strings or of numbers, ['H', 'u', 'n', ...], [72, 117, 110, ...] or
// ['eyJh...', 'eyJz...', 'SflK...'], which no form matches. So each run
// of such elements is read joined: characters and numbers forwards and
// backwards (x[::-1]), strings of more than one character also with each
// of separators between them; and a value found there is masked where the
// run spells it, whole or the piece of it beside the cut that ends a long
// display (debugpy shows a list's first items, then "...").
// TestSequencesAgreeWithPython holds the reading to Python's repr, pprint
// and json.dumps of such sequences.
//
// A run of fewer than two elements is not read, nor one of fewer than
// minPiece when they are single characters or numbers; nor are numbers
// past U+10FFFF, a character written as two escapes (a JSON surrogate
// pair), or a string of more than maxElement bytes.
func (m *Masker) sequenceSpans(s string, each func(from, to int)) {
	var run []elem // reused from run to run
	var buf []byte // and what one spells
	// A run has a comma after its first element: each comma is looked
	// at, and the element before it read, if there is one.
	for c := 0; ; {
		k := strings.IndexByte(s[c:], ',')
		if k < 0 {
			return
		}
		c += k
		from := elementBefore(s, c)
		if from < 0 || !elementMayStart(s, from) {
			c++
			continue
		}
		var end int
		run, end = readRun(s, from, run[:0])
		if len(run) == 0 {
			c++
			continue
		}
		if len(run) >= 2 {
			buf = m.runSpans(s, run, end, buf, each)
		}
		c = max(c+1, run[len(run)-1].end)
	}
}

// elementBefore is where the element that ends before the comma at s[c]
// (and spaces) begins, or -1 when no element ends there.
func elementBefore(s string, c int) int {
	e := c - 1
	for e >= 0 && isSpace(s[e]) {
		e--
	}
	if e < 0 {
		return -1
	}
	switch q := s[e]; {
	case q == '\'' || q == '"':
		// its opening quote: the last quote before it that opens a string
		// ending there (escaped quotes passed over; two tries at most)
		lo := max(0, e-maxElement-2)
		for o, tries := e, 0; tries < 2; {
			if o = strings.LastIndexByte(s[lo:o], q); o < 0 {
				break
			}
			o += lo
			if escapedAt(s, o) {
				continue
			}
			tries++
			from := o
			if from > 0 && s[from-1] == 'b' {
				from--
			}
			if !opensElement(s, from) {
				continue // a JSON object's value, say: no run's element
			}
			if k, el := element(s, from); k != 0 && el.end == e+1 {
				return from
			}
		}
	case isHexDigit(q):
		o := e
		for o > 0 && (isHexDigit(s[o-1]) || s[o-1] == 'x' || s[o-1] == 'X') {
			o--
		}
		if k, el := element(s, o); k != 0 && el.end == e+1 {
			return o
		}
	}
	return -1
}

// InSequence reports whether a value of m is spelled in s as a sequence of
// its characters, bytes or pieces (sequenceSpans): an index or a slice of
// such a sequence picks a piece of the secret, not an element whole.
func (m *Masker) InSequence(s string) bool {
	found := false
	m.sequenceSpans(s, func(int, int) { found = true })
	return found
}

// Items reports which of items, a container's items as debugpy shows
// them (each an element's repr, in order: a listing's rows of a list, a
// tuple, a ctypes array), spell a piece of a value read together as the
// container's display does (sequenceSpans): [v0, v1, ...], cut after the
// last when more (the container has more items than shown) and the items
// there spell MinSecret characters or more (spelledLast). Shown a row at
// a time, list(password)'s characters, a bytes' numbers and a ctypes
// buffer's bytes showed the secret in clear, one item a row, while the
// container's own display was masked (found 2026-12-07).
func (m *Masker) Items(items []string, more bool) []bool {
	if len(items) < 2 {
		return nil
	}
	var b strings.Builder
	at := make([]int, len(items)) // where each item begins in the display
	b.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		at[i] = b.Len()
		b.WriteString(it)
	}
	if more && spelledLast(items) >= MinSecret {
		b.WriteString(", " + cut)
	}
	b.WriteByte(']')
	var out []bool
	m.sequenceSpans(b.String(), func(from, to int) {
		if out == nil {
			out = make([]bool, len(items))
		}
		for i, a := range at {
			if a < to && from < a+len(items[i]) {
				out[i] = true
			}
		}
	})
	return out
}

// spelledLast is how many characters the items at the end of items spell
// (strings and numbers, elements of a run, up to the first that is not
// one). A listing's cut is where max_items put it: the agent's. Beside it,
// a piece of a secret is read from MinSecret characters on, not minPiece:
// a list the agent writes of three characters and a name ('Q', 'v', 'U',
// x), listed with max_items 3, would have told whether a secret begins
// so, where its display of four characters waits for a person
// (expressions' guesses).
func spelledLast(items []string) int {
	n := 0
	for i := len(items) - 1; i >= 0; i-- {
		k, e := element(items[i], 0)
		if k == 0 || e.end != len(items[i]) {
			break
		}
		if k == 'n' || e.r >= 0 {
			n++
		} else {
			n += utf8.RuneCountInString(e.text)
		}
	}
	return n
}

// elem is one element of a run: where it is in the text, and what it
// stands for: a number's value, or a string's characters (UTF-8; a bytes
// literal's bytes).
type elem struct {
	from, end int
	r         rune // a number's value; a one-character string's character
	text      string
	bytes     bool // a bytes literal
}

// maxElement bounds a string element's length: longer strings are no
// piece of a secret a run is read for.
const maxElement = 4 << 10

// elementMayStart reports whether an element may start at s[i]: a quote, a
// b before one, or a digit, after an opening bracket or a comma (and
// spaces), or at the text's start.
func elementMayStart(s string, i int) bool {
	switch c := s[i]; {
	case c == '\'' || c == '"' || '0' <= c && c <= '9':
	case c == 'b' && i+1 < len(s) && (s[i+1] == '\'' || s[i+1] == '"'):
	default:
		return false
	}
	return opensElement(s, i)
}

// opensElement reports whether what is before s[i] (but spaces) is an
// opening bracket, a comma, or the text's start.
func opensElement(s string, i int) bool {
	j := i - 1
	for j >= 0 && isSpace(s[j]) {
		j--
	}
	return j < 0 || s[j] == '[' || s[j] == '(' || s[j] == '{' || s[j] == ','
}

// escapedAt reports whether the byte at s[i] is escaped: an odd number of
// backslashes before it.
func escapedAt(s string, i int) bool {
	n := 0
	for i-n-1 >= 0 && s[i-n-1] == '\\' {
		n++
	}
	return n%2 == 1
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

// readRun reads the elements of one kind from s[i:] (an element starts
// there), each followed by a comma and spaces or by the display's end,
// appended to run; a cut (", ...") after the last sets end to the cut's
// end, else end is the last element's end.
func readRun(s string, i int, run []elem) ([]elem, int) {
	kind := byte(0)
	for {
		k, e := element(s, i)
		if k == 0 || kind != 0 && k != kind {
			break
		}
		// What follows an element: spaces, then a comma or a closing
		// bracket (or the text's end).
		t := e.end
		for t < len(s) && isSpace(s[t]) {
			t++
		}
		if t < len(s) && s[t] != ',' && s[t] != ']' && s[t] != ')' && s[t] != '}' {
			break
		}
		kind = k
		run = append(run, e)
		if t >= len(s) || s[t] != ',' {
			return run, e.end
		}
		t++
		for t < len(s) && isSpace(s[t]) {
			t++
		}
		if len(s)-t >= len(cut) && s[t:t+len(cut)] == cut {
			return run, t + len(cut)
		}
		i = t
	}
	if len(run) == 0 {
		return run, i
	}
	return run, run[len(run)-1].end
}

// element reads one element at s[i:]: a string or bytes literal, kind
// 's', or a whole number (decimal, or hex as debugpy's hex view writes
// it), kind 'n'. kind is 0 when there is none.
func element(s string, i int) (kind byte, e elem) {
	e.from = i
	if i >= len(s) {
		return 0, e
	}
	if c := s[i]; '0' <= c && c <= '9' {
		j := i
		base := rune(10)
		if c == '0' && i+2 < len(s) && (s[i+1] == 'x' || s[i+1] == 'X') && isHexDigit(s[i+2]) {
			base, j = 16, i+2
		}
		n := rune(0)
		for ; j < len(s); j++ {
			d := rune(s[j]) - '0'
			switch {
			case 0 <= d && d <= 9:
			case base == 16 && 'a' <= s[j]|0x20 && s[j]|0x20 <= 'f':
				d = rune(s[j]|0x20) - 'a' + 10
			default:
				d = -1
			}
			if d < 0 {
				break
			}
			if n = n*base + d; n > utf8.MaxRune {
				return 0, e
			}
		}
		if j < len(s) && (s[j] == '.' || s[j] == '_' || 'a' <= s[j]|0x20 && s[j]|0x20 <= 'z') {
			return 0, e // a float, a word
		}
		e.end, e.r = j, n
		return 'n', e
	}
	j := i
	if s[j] == 'b' {
		j++
		e.bytes = true
	}
	if j >= len(s) || s[j] != '\'' && s[j] != '"' {
		return 0, e
	}
	q := s[j]
	j++
	start, escaped, n := j, false, 0
	for ; j < len(s) && s[j] != q; n++ {
		switch c := s[j]; {
		case c == '\n' || j-start > maxElement:
			return 0, e
		case c == '\\':
			var ok bool
			if e.r, j, ok = unescape(s, j+1); !ok {
				return 0, e
			}
			escaped = true
		default:
			var size int
			e.r, size = utf8.DecodeRuneInString(s[j:])
			j += size
		}
	}
	if j >= len(s) || n == 0 {
		return 0, e
	}
	e.end, e.text = j+1, s[start:j]
	if escaped { // read again, decoded
		var b []byte
		for k := start; k < j; {
			r, size := utf8.DecodeRuneInString(s[k:])
			if r == '\\' {
				r, k, _ = unescape(s, k+1)
			} else {
				k += size
			}
			if e.bytes && r <= 0xff {
				b = append(b, byte(r))
			} else {
				b = utf8.AppendRune(b, r)
			}
		}
		e.text = string(b)
	}
	if n != 1 {
		e.r = -1
	}
	return 's', e
}

// The escapes of one letter Python's repr and JSON write, and what each
// stands for.
const escapeLetters = "\\'\"/nrtbfva0"

var escapeValues = [len(escapeLetters)]rune{'\\', '\'', '"', '/', '\n', '\r', '\t', '\b', '\f', '\v', '\a', 0}

// unescape reads the escape whose letter is at s[i:] (after its
// backslash), as Python's repr and JSON write one.
func unescape(s string, i int) (r rune, j int, ok bool) {
	if i >= len(s) {
		return 0, i, false
	}
	if k := strings.IndexByte(escapeLetters, s[i]); k >= 0 {
		return escapeValues[k], i + 1, true
	}
	digits := 0
	switch s[i] {
	case 'x':
		digits = 2
	case 'u':
		digits = 4
	case 'U':
		digits = 8
	default:
		return 0, i, false
	}
	if i+1+digits > len(s) {
		return 0, i, false
	}
	n, err := strconv.ParseUint(s[i+1:i+1+digits], 16, 32)
	if err != nil || n > utf8.MaxRune {
		return 0, i, false
	}
	return rune(n), i + 1 + digits, true
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'f'
}

// separators are what a program splits a secret at, or joins its pieces
// with: a token's dots, a credential's colon, a key's dashes, words.
var separators = []string{"", ".", ":", "-", "_", "/", " ", ",", "|", "@", ";", "=", "+", "\n"}

// runSpans masks the values a run spells. Characters and numbers are read
// joined, forwards and backwards, as characters (a number as the
// character it codes) and, when a number is past ASCII and none past a
// byte, as bytes (a value's UTF-8, listed); at least minPiece of them.
// Strings of more than one character are read joined with each of
// separators. A cut after the run (end past its last element) hides the
// rest of a list read forwards, and the start of one that was reversed.
func (m *Masker) runSpans(s string, run []elem, end int, buf []byte, each func(from, to int)) []byte {
	cutAfter := end > run[len(run)-1].end
	// every element one character (or a number); and, when one is past
	// ASCII and none past a byte, read as bytes too
	single, asBytes := true, false
	for _, e := range run {
		single = single && e.r >= 0
		asBytes = asBytes || e.r >= 0x80
	}
	asBytes = asBytes && single && !slices.ContainsFunc(run, func(e elem) bool { return e.r > 0xff })
	seps := separators[:1]
	if !single {
		seps, _ = m.sequenceTables()
	} else if len(run) < minPiece {
		return buf
	}
	for _, sep := range seps {
		for _, bytes := range []bool{false, true} {
			if bytes && !asBytes {
				continue
			}
			for _, reversed := range []bool{false, true} {
				if reversed && !single {
					break // a list of pieces is not read backwards
				}
				// Most runs hold no value, nor a piece of one beside the
				// cut, and are read no further.
				if buf = join(buf[:0], run, sep, bytes, reversed); !m.mayHold(buf, cutAfter, reversed) {
					continue
				}
				els := run
				if reversed {
					els = slices.Clone(run)
					slices.Reverse(els)
				}
				view, starts, ends := spell(els, sep, bytes)
				// els[a:b], as the text spells them
				span := func(a, b int) {
					if a >= b {
						return
					}
					first, last := els[a], els[b-1]
					if reversed {
						first, last = last, first
					}
					each(first.from, last.end)
				}
				m.valueIndex().find(view, func(i int, value string) bool {
					// One element that holds a value whole is the value's
					// own form, masked as such; its list picks it whole.
					if a, b := starts[i], ends[i+len(value)-1]+1; b-a >= 2 {
						span(a, b)
					}
					return true
				})
				if !cutAfter {
					continue
				}
				if reversed { // the cut is before what the run shows
					if n := m.valueEnd(view); n > 0 {
						span(0, ends[n-1]+1)
					}
				} else if n := m.valueStart(view); n > 0 {
					span(starts[len(view)-n], len(els))
				}
			}
		}
	}
	return buf
}

// join appends what els spell joined with sep to b (in reverse order,
// reversed).
func join(b []byte, els []elem, sep string, bytes, reversed bool) []byte {
	for k := range els {
		e := els[k]
		if reversed {
			e = els[len(els)-1-k]
		}
		if k > 0 {
			b = append(b, sep...)
		}
		b = e.appendTo(b, bytes)
	}
	return b
}

// appendTo appends what e spells: its characters (a number the character
// it codes, U+FFFD for a surrogate) or, with bytes, one byte.
func (e elem) appendTo(b []byte, bytes bool) []byte {
	switch {
	case e.text != "" && !(bytes && e.r >= 0):
		return append(b, e.text...)
	case bytes:
		return append(b, byte(e.r))
	}
	return utf8.AppendRune(b, e.r)
}

// spell is join's text, and for each of its bytes the element it is in,
// or for a separator's byte the element after it (starts) and before it
// (ends).
func spell(els []elem, sep string, bytes bool) (view string, starts, ends []int) {
	var b []byte
	for k, e := range els {
		if k > 0 {
			b = append(b, sep...)
			for range len(sep) {
				starts, ends = append(starts, k), append(ends, k-1)
			}
		}
		n := len(b)
		b = e.appendTo(b, bytes)
		for range len(b) - n {
			starts, ends = append(starts, k), append(ends, k)
		}
	}
	return string(b), starts, ends
}

// mayHold reports whether view may hold a value (two windows of minPiece
// bytes in a row that values hold: a value has four bytes or more), or a
// piece of one beside the cut (its window there: at view's end, or its
// start when the run was reversed). Hashed windows of the forms would
// not do: a session's hex and base64 forms hold most 3 bytes of a long
// view.
func (m *Masker) mayHold(view []byte, cutAfter, reversed bool) bool {
	_, values := m.sequenceTables()
	hit := func(i int) bool { return values.has(view[i], view[i+1], view[i+2]) }
	n := len(view) - minPiece + 1
	if n <= 0 {
		return false
	}
	if cutAfter && (!reversed && hit(n-1) || reversed && hit(0)) {
		return true
	}
	prev := false
	for i := range n {
		h := hit(i)
		if h && prev {
			return true
		}
		prev = h
	}
	return false
}

// sequenceTables makes, once, what the reading of sequences looks up:
// the separators of the package's that some value holds (and "", always;
// joined with another, pieces of the session's secrets make none of
// them), and every minPiece bytes of every value.
func (m *Masker) sequenceTables() (seps []string, values *triples) {
	m.sequenceOnce.Do(func() {
		for _, v := range m.values {
			m.valueTriples.add(v)
		}
		m.seps = []string{""}
		for _, sep := range separators[1:] {
			if slices.ContainsFunc(m.values, func(v string) bool { return strings.Contains(v, sep) }) {
				m.seps = append(m.seps, sep)
			}
		}
	})
	return m.seps, &m.valueTriples
}
