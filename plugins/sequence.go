package plugins

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A value spelled as a sequence of its characters or bytes. A program that
// holds list(password), list(key) (the bytes, as numbers), [ord(c) for c
// in secret], or bytes written as JSON's list of numbers shows the secret
// as a display of one-character strings or of numbers, ['H', 'u', 'n', ...]
// or [72, 117, 110, ...], which no form matches. So each run of such
// elements is read joined, forwards and backwards (x[::-1]), and a value
// found there is masked where the run spells it: whole, or the piece of it
// beside the cut that ends a long display (debugpy shows a list's first
// items, then "..."). TestSequencesAgreeWithPython holds the reading to
// Python's repr, pprint and json.dumps of such sequences.
//
// A run of fewer than minPiece elements is not read; nor are numbers past
// U+10FFFF, nor a character written as two escapes (a JSON surrogate pair).
func (m *Masker) sequenceSpans(s string, each func(from, to int)) {
	var run []elem // reused from run to run
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
		if len(run) >= minPiece {
			m.runSpans(s, run, end, each)
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
		// its opening quote: one character (or one escape) before
		for o := e - 1; o >= max(0, e-11); o-- {
			if s[o] != q {
				continue
			}
			from := o
			if from > 0 && s[from-1] == 'b' {
				from--
			}
			if _, _, j := element(s, from); j == e+1 {
				return from
			}
		}
	case isHexDigit(q):
		o := e
		for o > 0 && (isHexDigit(s[o-1]) || s[o-1] == 'x' || s[o-1] == 'X') {
			o--
		}
		if _, _, j := element(s, o); j == e+1 {
			return o
		}
	}
	return -1
}

// InSequence reports whether a value of m is spelled in s as a sequence of
// its characters or bytes (sequenceSpans): an index or a slice of such a
// sequence picks a piece of the secret, not an element whole.
func (m *Masker) InSequence(s string) bool {
	found := false
	m.sequenceSpans(s, func(int, int) { found = true })
	return found
}

// elem is one element of a run: where it is in the text, and the
// character or number it stands for.
type elem struct {
	from, end int
	r         rune // a character's, or a number's value
}

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
	j := i - 1
	for j >= 0 && isSpace(s[j]) {
		j--
	}
	return j < 0 || s[j] == '[' || s[j] == '(' || s[j] == '{' || s[j] == ','
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

// readRun reads the elements of one kind from s[i:] (an element starts
// there), each followed by a comma and spaces or by the display's end,
// appended to run; a cut (", ...") after the last sets end to the cut's
// end, else end is the last element's end.
func readRun(s string, i int, run []elem) ([]elem, int) {
	kind := byte(0)
	for {
		k, r, j := element(s, i)
		if k == 0 || kind != 0 && k != kind {
			break
		}
		// What follows an element: spaces, then a comma or a closing
		// bracket (or the text's end).
		t := j
		for t < len(s) && isSpace(s[t]) {
			t++
		}
		if t < len(s) && s[t] != ',' && s[t] != ']' && s[t] != ')' && s[t] != '}' {
			break
		}
		kind = k
		run = append(run, elem{i, j, r})
		if t >= len(s) || s[t] != ',' {
			return run, j
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
	return run, run[len(run)-1].end
}

// element reads one element at s[i:]: a string or bytes literal of one
// character (one escape at most), kind 's', or a whole number (decimal, or
// hex as debugpy's hex view writes it), kind 'n'. kind is 0 when there is
// none; j is the element's end.
func element(s string, i int) (kind byte, r rune, j int) {
	if i >= len(s) {
		return 0, 0, i
	}
	if c := s[i]; '0' <= c && c <= '9' {
		j = i
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
				return 0, 0, i
			}
		}
		if j < len(s) && (s[j] == '.' || s[j] == '_' || 'a' <= s[j]|0x20 && s[j]|0x20 <= 'z') {
			return 0, 0, i // a float, a word
		}
		return 'n', rune(n), j
	}
	j = i
	if s[j] == 'b' {
		j++
	}
	if j >= len(s) || s[j] != '\'' && s[j] != '"' {
		return 0, 0, i
	}
	q := s[j]
	j++
	if j >= len(s) {
		return 0, 0, i
	}
	switch c := s[j]; {
	case c == q || c == '\n':
		return 0, 0, i
	case c == '\\':
		var ok bool
		if r, j, ok = unescape(s, j+1); !ok {
			return 0, 0, i
		}
	default:
		var size int
		r, size = utf8.DecodeRuneInString(s[j:])
		j += size
	}
	if j >= len(s) || s[j] != q {
		return 0, 0, i
	}
	return 's', r, j + 1
}

// unescape reads the escape whose letter is at s[i:] (after its
// backslash), as Python's repr and JSON write one.
func unescape(s string, i int) (r rune, j int, ok bool) {
	if i >= len(s) {
		return 0, i, false
	}
	digits := 0
	switch c := s[i]; c {
	case '\\', '\'', '"', '/':
		return rune(c), i + 1, true
	case 'n':
		return '\n', i + 1, true
	case 'r':
		return '\r', i + 1, true
	case 't':
		return '\t', i + 1, true
	case 'b':
		return '\b', i + 1, true
	case 'f':
		return '\f', i + 1, true
	case 'v':
		return '\v', i + 1, true
	case 'a':
		return '\a', i + 1, true
	case '0':
		return 0, i + 1, true
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

// runSpans masks the values a run spells, read forwards and backwards, as
// characters (a number as the character it codes) and, when a number is
// past ASCII and none past a byte, as bytes (a value's UTF-8, listed).
// cutAfter: the run is followed by a cut, which hides the rest of a list
// read forwards (and the start of one that was reversed).
func (m *Masker) runSpans(s string, run []elem, end int, each func(from, to int)) {
	cutAfter := end > run[len(run)-1].end
	asBytes := false
	for _, e := range run {
		if e.r > 0xff {
			asBytes = false
			break
		}
		asBytes = asBytes || e.r >= 0x80
	}
	for _, bytes := range []bool{false, true} {
		if bytes && !asBytes {
			continue
		}
		view, starts := spell(run, bytes)
		// A value, or a piece of one beside the cut, has minPiece bytes
		// of a form (forms hold each value reversed too): most runs of
		// numbers hold none, and are read no further.
		hit := false
		for i := 0; i+minPiece <= len(view) && !hit; i++ {
			hit = m.triple(view[i : i+minPiece])
		}
		if !hit {
			continue
		}
		for _, reversed := range []bool{false, true} {
			els := run
			if reversed {
				els = slices.Clone(run)
				slices.Reverse(els)
				view, starts = spell(els, bytes)
			}
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
			m.valuesOnce.Do(func() { m.valuesAt = newIndex(m.values) })
			m.valuesAt.find(view, func(i int, value string) bool {
				span(starts[i], starts[i+len(value)-1]+1)
				return true
			})
			if !cutAfter {
				continue
			}
			if reversed { // the cut is before what the run shows
				if n := m.valueEnd(view); n > 0 {
					span(0, starts[n-1]+1)
				}
			} else if n := m.valueStart(view); n > 0 {
				span(starts[len(view)-n], len(els))
			}
		}
	}
}

// spell is what els spell joined, each a character (its UTF-8) or a
// byte, and for each byte of that the element it comes from; starts has
// one more entry, len(els).
func spell(els []elem, bytes bool) (string, []int) {
	view, starts := make([]byte, 0, len(els)), make([]int, 0, len(els)+1)
	for k, e := range els {
		n := len(view)
		if bytes {
			view = append(view, byte(e.r))
		} else {
			view = utf8.AppendRune(view, e.r)
		}
		for range len(view) - n {
			starts = append(starts, k)
		}
	}
	return string(view), append(starts, len(els))
}
