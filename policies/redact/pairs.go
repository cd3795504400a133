package redact

import (
	"strings"

	"github.com/debugpy-guard/debugpy-guard/policies/expressions"
	"github.com/debugpy-guard/debugpy-guard/policies/secrets"
)

// maskPairs masks, in any text, the value of each pair whose key is a
// secret's name, reading the text's strings as Python reads a literal
// (expressions.ReadLiteral: any quote, prefix or escape), so that the reprs
// Python writes are read as Python wrote them:
//
//	a dict's       {'db_password': 's3cr3t'}, {b'api_key': b'k1'}, {"pin": 1234}
//	a keyword's    Config(user='bob', password='s3cr3t'): dataclasses,
//	               namedtuples, attrs, SimpleNamespace, argparse, pydantic
//	a pair's       OrderedDict([('password', 's3cr3t')]), headers.items()
//
// A value is a string literal (its body is masked; one the debugger cut
// short, to the end of its line), a word with a digit in it (a number, a
// bare token: <Conn password=hunter2>), or the string a call wraps
// (Secret('s3cr3t')). A word of letters alone is left: in code it is a name
// (connect(password=pw)). Each value masked is handed to found. TestMaskReprs
// checks it against the reprs CPython writes.
func maskPairs(s string, extra map[string]bool, found func(string)) (string, bool) {
	if !strings.ContainsAny(s, ":=,") {
		return s, false
	}
	var spans [][2]int // to mask, in order
	hide := func(from, to int, value string) {
		spans = append(spans, [2]int{from, to})
		if found != nil {
			found(value)
		}
	}
	// A literal's body is masked; the host is handed it as written and
	// as decoded (it masks each in its forms).
	hideLit := func(l expressions.Literal) {
		hide(l.BodyStart, l.BodyEnd, s[l.BodyStart:l.BodyEnd])
		if l.Known && l.Value != s[l.BodyStart:l.BodyEnd] && found != nil {
			found(l.Value)
		}
	}
	var p1, p2, p3 piece // the last three pieces read
	sc := scanner{s: s}
	for i := 0; ; {
		cur, ok := sc.next(i)
		if !ok {
			break
		}
		i = cur.end
		pair := p1.kind == '=' && lone(s, p1) && p2.kind == 'w' && secretKey(s, p2, extra) || // keyword
			p1.kind == ':' && p2.kind == 's' && secretKey(s, p2, extra) // dict
		if !pair && cur.kind == 's' && p1.kind == ',' && p2.kind == 's' && p3.kind == '(' && secretKey(s, p2, extra) {
			next, ok := sc.next(cur.end)
			pair = ok && next.kind == ')'
		}
		if pair {
			switch v := cur; v.kind {
			case 's':
				hideLit(v.lit)
			case 'q': // a string that does not end: cut short
				end := strings.IndexAny(s[v.end:], "\n\r")
				if end < 0 {
					end = len(s) - v.end
				}
				hide(v.end, v.end+end, s[v.end:v.end+end])
				i = v.end + end
			case 'w':
				if open, ok := sc.next(v.end); ok && open.kind == '(' {
					if inner, ok := sc.next(open.end); ok && inner.kind == 's' {
						hideLit(inner.lit)
						i = inner.end
					}
				} else if w := s[v.start:v.end]; strings.ContainsAny(w, "0123456789") {
					hide(v.start, v.end, w)
				}
			}
		}
		p3, p2, p1 = p2, p1, cur
	}
	if len(spans) == 0 {
		return s, false
	}
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		b.WriteString(s[last:sp[0]])
		b.WriteString(mask)
		last = sp[1]
	}
	b.WriteString(s[last:])
	return b.String(), true
}

// piece is a token of a text read as a repr: a string literal ('s'), a
// word ('w': a run of anything but spaces, quotes and the punctuation
// below), a quote that opens no literal ('q'), or one punctuation byte.
type piece struct {
	kind       byte
	start, end int
	lit        expressions.Literal // kind 's'
}

const punctuation = "()[]{}<>,:;="

// scanner reads pieces. A quote that opened no literal means no later
// quote of its kind on its line does (each one after it is escaped), so
// those are not read again: text full of apostrophes is read in one pass.
type scanner struct {
	s       string
	opensNo [2]int // for ' and ": the end of the line where a quote opened no literal
}

func (sc *scanner) next(i int) (piece, bool) {
	s := sc.s
	i += run(s, i, isSpace)
	if i >= len(s) {
		return piece{}, false
	}
	// A quote right after a letter or digit is an apostrophe (don't, it's):
	// Python never writes a string there, prose does.
	if q := quoteAt(s, i); q >= 0 && i >= sc.opensNo[q] && (i == 0 || !isWordByte(s[i-1])) {
		if lit, ok := expressions.ReadLiteral(s, i); ok {
			return piece{kind: 's', start: i, end: lit.End, lit: lit}, true
		}
		if s[i] == '\'' || s[i] == '"' {
			end := strings.IndexAny(s[i:], "\n\r")
			if end < 0 {
				end = len(s) - i
			}
			sc.opensNo[q] = i + end
		}
	}
	switch c := s[i]; {
	case c == '\'' || c == '"':
		return piece{kind: 'q', start: i, end: i + 1}, true
	case strings.IndexByte(punctuation, c) >= 0:
		return piece{kind: c, start: i, end: i + 1}, true
	}
	// A word ends before a space, a punctuation byte or a quote (a string
	// prefix, b or r, was read with its literal above).
	j := i + 1
	for j < len(s) && !isSpace(s[j]) && strings.IndexByte(punctuation, s[j]) < 0 && s[j] != '\'' && s[j] != '"' {
		j++
	}
	return piece{kind: 'w', start: i, end: j}, true
}

func isWordByte(c byte) bool { return isWord(c) || c >= 0x80 }

// quoteAt is the kind of quote (0 for ', 1 for ") at s[i], or after a
// string prefix of one or two letters at s[i]; -1 when there is none.
func quoteAt(s string, i int) int {
	for j := i; j < len(s) && j <= i+2; j++ {
		switch s[j] {
		case '\'':
			return 0
		case '"':
			return 1
		}
		if strings.IndexByte("rRbBuU", s[j]) < 0 {
			return -1
		}
	}
	return -1
}

// secretKey: k is a string or a word that is a secret's name.
func secretKey(s string, k piece, extra map[string]bool) bool {
	switch k.kind {
	case 's':
		if !k.lit.Known { // as written, then
			return secrets.IsName(s[k.lit.BodyStart:k.lit.BodyEnd], extra)
		}
		return secrets.IsName(k.lit.Value, extra)
	case 'w':
		return secrets.IsName(s[k.start:k.end], extra)
	}
	return false
}

// lone: an '=' that is not part of ==, !=, <=, >=, := (a comparison in
// code is not a pair).
func lone(s string, p piece) bool {
	return (p.start == 0 || strings.IndexByte("=!<>:", s[p.start-1]) < 0) && (p.end >= len(s) || s[p.end] != '=')
}
