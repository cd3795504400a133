package tools

import (
	"encoding/json"
	"unicode/utf16"
	"unicode/utf8"
)

// parseTree is decodeTreeAll's tree of raw, read in one pass over its
// bytes, for arguments that are valid JSON with no repeated key and no
// deeper than maxNesting (ok is false for any other, and decodeTreeAll
// reads them and says why). raw is valid UTF-8 with no unpaired surrogate
// escape (decodeStrict checks both first).
//
// Why a second reader of the arguments: encoding/json's Decoder, token by
// token, took half of the arguments' reading and a tenth of a denied
// call's allocations (docs/PERFORMANCE.md). It is held to that reading, tree
// for tree, by TestParseTreeAgrees and FuzzParseTree; and it accepts
// nothing that reading refuses, so it cannot widen what the gate lets in.
func parseTree(raw []byte) (any, bool) {
	p := treeParser{b: raw}
	v, ok := p.value(0)
	if !ok {
		return nil, false
	}
	p.space()
	return v, p.i == len(p.b)
}

type treeParser struct {
	b []byte
	i int
}

// space skips JSON's whitespace.
func (p *treeParser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// next skips whitespace and reports whether the next byte is c, taking it.
func (p *treeParser) next(c byte) bool {
	p.space()
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *treeParser) value(depth int) (any, bool) {
	if depth > maxNesting {
		return nil, false
	}
	p.space()
	if p.i >= len(p.b) {
		return nil, false
	}
	switch p.b[p.i] {
	case '{':
		p.i++
		return p.object(depth)
	case '[':
		p.i++
		arr := []any{}
		if p.next(']') {
			return arr, true
		}
		for {
			v, ok := p.value(depth + 1)
			if !ok {
				return nil, false
			}
			arr = append(arr, v)
			if p.next(']') {
				return arr, true
			}
			if !p.next(',') {
				return nil, false
			}
		}
	case '"':
		return p.str()
	case 't':
		return true, p.literal("true")
	case 'f':
		return false, p.literal("false")
	case 'n':
		return nil, p.literal("null")
	}
	return p.number()
}

// manyKeys is where an object's keys are looked up in a map rather than
// compared one by one.
const manyKeys = 16

func (p *treeParser) object(depth int) (any, bool) {
	ms := []member{}
	if p.next('}') {
		return ms, true
	}
	var seen map[string]bool
	for {
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return nil, false
		}
		k, ok := p.str()
		if !ok {
			return nil, false
		}
		if seen != nil {
			if seen[k] {
				return nil, false
			}
			seen[k] = true
		} else {
			for _, m := range ms {
				if m.key == k {
					return nil, false
				}
			}
			if len(ms) == manyKeys {
				seen = make(map[string]bool, 2*manyKeys)
				for _, m := range ms {
					seen[m.key] = true
				}
				seen[k] = true
			}
		}
		if !p.next(':') {
			return nil, false
		}
		v, ok := p.value(depth + 1)
		if !ok {
			return nil, false
		}
		ms = append(ms, member{k, v})
		if p.next('}') {
			return ms, true
		}
		if !p.next(',') {
			return nil, false
		}
	}
}

func (p *treeParser) literal(word string) bool {
	if len(p.b)-p.i < len(word) || string(p.b[p.i:p.i+len(word)]) != word {
		return false
	}
	p.i += len(word)
	return true
}

// number reads JSON's number grammar; its value is its text, as
// json.Decoder's UseNumber gives it.
func (p *treeParser) number() (any, bool) {
	b, start := p.b, p.i
	i := start
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i)
	default:
		return nil, false
	}
	if i < len(b) && b[i] == '.' {
		if i++; i >= len(b) || !isDigit(b[i]) {
			return nil, false
		}
		i = digits(b, i)
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		if i++; i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return nil, false
		}
		i = digits(b, i)
	}
	p.i = i
	return json.Number(b[start:i]), true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func digits(b []byte, i int) int {
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i
}

// str reads a string at its opening quote, unescaped as encoding/json
// unescapes it.
func (p *treeParser) str() (string, bool) {
	b := p.b
	i := p.i + 1
	for i < len(b) && b[i] != '"' && b[i] != '\\' && b[i] >= 0x20 {
		i++
	}
	if i < len(b) && b[i] == '"' { // no escape: the bytes as they are
		s := string(b[p.i+1 : i])
		p.i = i + 1
		return s, true
	}
	out := append(make([]byte, 0, i-p.i+16), b[p.i+1:i]...)
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			p.i = i + 1
			return string(out), true
		case c < 0x20:
			return "", false
		case c != '\\':
			out = append(out, c)
			i++
			continue
		}
		if i+1 >= len(b) {
			return "", false
		}
		i += 2
		switch b[i-1] {
		case '"', '\\', '/':
			out = append(out, b[i-1])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4Rune(b, i)
			if !ok {
				return "", false
			}
			i += 4
			if utf16.IsSurrogate(r) { // a pair (checkEscapes refused a lone one)
				lo, ok := rune(0), i+1 < len(b) && b[i] == '\\' && b[i+1] == 'u'
				if ok {
					lo, ok = hex4Rune(b, i+2)
				}
				r = utf16.DecodeRune(r, lo)
				if !ok || r == utf8.RuneError {
					return "", false
				}
				i += 6
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", false
		}
	}
	return "", false
}

// hex4Rune reads the four hex digits of a \u escape at b[at:].
func hex4Rune(b []byte, at int) (rune, bool) {
	if at+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[at : at+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
