package expressions

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The tokenizer follows CPython's (Python 3.8 to 3.13, "Lexical analysis"),
// not a guess at it:
//   - whitespace between tokens is space, tab and form feed, and nothing
//     else: a no-break space or a vertical tab is a syntax error to Python,
//     and so it is here;
//   - a newline ends the expression unless it is inside brackets or after a
//     backslash (line joining); a comment runs to the end of its line;
//   - an identifier is a run of ASCII letters, digits and underscores and
//     any non-ASCII characters, folded to NFKC (so "ｅｖａｌ" is "eval" and
//     "_＿import＿＿" is "__import__"), then checked as Python checks it;
//   - numbers take every literal form (0x, 0o, 0b, underscores, 1., .5,
//     1e-3, 1j), so "1..__class__" is the float "1." and an attribute;
//   - strings take every prefix (r, b, u, f and their mixes, any case) and
//     quote, with backslash escapes decoded as Python decodes them.

type tokKind uint8

const (
	tName tokKind = iota + 1
	tNumber
	tString
	tOp
	tEnd
)

type token struct {
	kind tokKind
	text string // a name's NFKC form; an operator; a number's literal
	// strings
	prefix string // lower-cased: "", "r", "b", "br", "f", "fr", "u"
	body   string // between the quotes, as written
	value  string // decoded (str and bytes); valid when known
	known  bool   // value is known (false for an unknown \N{...})
	pos    int
	// asciiWord: a name spelled as it folds (so, for a keyword, in ASCII):
	// only such a name is a keyword.
	asciiWord bool
	keyword   bool // an asciiWord that is one of keywords
}

// keywords are Python's hard keywords: an ASCII-spelled one is a keyword, a
// name spelled otherwise that folds to one is a name (CPython 3.11 checks
// keywords before it normalises).
var keywords = map[string]bool{
	"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true, "async": true,
	"await": true, "break": true, "class": true, "continue": true, "def": true, "del": true, "elif": true,
	"else": true, "except": true, "finally": true, "for": true, "from": true, "global": true, "if": true,
	"import": true, "in": true, "is": true, "lambda": true, "nonlocal": true, "not": true, "or": true,
	"pass": true, "raise": true, "return": true, "try": true, "while": true, "with": true, "yield": true,
}

// operatorLen is the length of the operator that s starts with, the
// longest that matches, or 0 when s starts with none. Python's operators
// and delimiters:
//
//	**= //= >>= <<= ... != %= &= **  *= += -= -> // /= := << <= == >= >> @= ^= |=
//	( ) [ ] { } , : . ; @ = ~ < > + - * / % & | ^
//
// A byte at a time, not a search of that list: a tokenizer's every
// operator passes here (TestOperatorLen compares it with the list).
func operatorLen(s string) int {
	if s == "" {
		return 0
	}
	var c1, c2 byte
	if len(s) > 1 {
		c1 = s[1]
	}
	if len(s) > 2 {
		c2 = s[2]
	}
	switch c := s[0]; c {
	case '(', ')', '[', ']', '{', '}', ',', ';', '~':
		return 1
	case '.':
		if c1 == '.' && c2 == '.' {
			return 3
		}
		return 1
	case '*', '/', '<', '>': // doubled (** // << >>), and either with '='
		switch {
		case c1 == c && c2 == '=':
			return 3
		case c1 == c, c1 == '=':
			return 2
		}
		return 1
	case '-':
		if c1 == '=' || c1 == '>' {
			return 2
		}
		return 1
	case '+', '%', '&', '|', '^', '@', '=', ':':
		if c1 == '=' {
			return 2
		}
		return 1
	case '!':
		if c1 == '=' {
			return 2
		}
	}
	return 0
}

type syntaxError struct {
	msg string
	pos int
}

func (e *syntaxError) Error() string { return e.msg + " at offset " + strconv.Itoa(e.pos) }

func errAt(pos int, msg string) error { return &syntaxError{msg: msg, pos: pos} }

// tokenize splits src into tokens. Newlines outside brackets end it: a
// second logical line makes the source more than one statement, which
// eval refuses (and which statements judges on its own terms).
func tokenize(src string) ([]token, error) {
	if strings.IndexByte(src, 0) >= 0 {
		return nil, errAt(strings.IndexByte(src, 0), "a null byte")
	}
	if !utf8.ValidString(src) {
		return nil, errAt(0, "invalid UTF-8")
	}
	// One allocation for most sources: a token is two or three bytes of
	// source on average (appends in wasm cost more than natively).
	toks := make([]token, 0, min(len(src)/2+2, 4096))
	depth := 0
	col := 0 // the column of a line's first token: an indent is refused
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t':
			col++
			i++
			continue
		case c == '\f':
			col = 0 // a form feed resets the indentation, as in CPython
			i++
			continue
		case c == '#':
			for i < len(src) && src[i] != '\n' && src[i] != '\r' {
				i++
			}
			continue
		case c == '\\':
			// Line joining: a backslash then a newline.
			switch {
			case strings.HasPrefix(src[i:], "\\\r\n"):
				i += 3
			case strings.HasPrefix(src[i:], "\\\n"), strings.HasPrefix(src[i:], "\\\r"):
				i += 2
			default:
				return nil, errAt(i, "unexpected character after line continuation character")
			}
			continue
		case c == '\n' || c == '\r':
			if depth > 0 {
				i++
				continue
			}
			if len(toks) == 0 { // a blank or comment line before it
				col = 0
				i++
				continue
			}
			// Trailing newlines (and blank or comment lines) end it;
			// anything after them is a second statement.
			j := i
			for j < len(src) && (src[j] == '\n' || src[j] == '\r' || src[j] == ' ' || src[j] == '\t' || src[j] == '\f') {
				j++
			}
			if j < len(src) && src[j] == '#' {
				for j < len(src) && src[j] != '\n' && src[j] != '\r' {
					j++
				}
				i = j
				continue
			}
			if j < len(src) {
				return nil, errAt(j, "more than one statement")
			}
			i = j
			continue
		}
		start := i
		if len(toks) == 0 && col > 0 {
			return nil, errAt(i, "unexpected indent")
		}
		switch {
		case isIdentByte(c) || c >= 0x80 && !isDigitByte(c):
			j := i
			for j < len(src) {
				if b := src[j]; b < 0x80 {
					if !isIdentByte(b) && !isDigitByte(b) {
						break
					}
					j++
					continue
				}
				_, size := utf8.DecodeRuneInString(src[j:])
				j += size
			}
			word := src[i:j]
			// A string prefix directly before a quote.
			if j < len(src) && (src[j] == '\'' || src[j] == '"') && isPrefix(word) {
				tok, end, err := readString(src, i, strings.ToLower(word), j)
				if err != nil {
					return nil, err
				}
				toks = append(toks, tok)
				i = end
				continue
			}
			name, err := identifier(word, start)
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{kind: tName, text: name, pos: start, asciiWord: name == word, keyword: name == word && keywords[name]})
			i = j
		case isDigitByte(c) || c == '.' && i+1 < len(src) && isDigitByte(src[i+1]):
			end, err := readNumber(src, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{kind: tNumber, text: src[i:end], pos: start})
			i = end
		case c == '\'' || c == '"':
			tok, end, err := readString(src, i, "", i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, tok)
			i = end
		default:
			op := src[i : i+operatorLen(src[i:])]
			if op == "" {
				if c == '!' {
					return nil, errAt(i, "a lone '!'")
				}
				r, _ := utf8.DecodeRuneInString(src[i:])
				return nil, errAt(i, "invalid character "+strconv.QuoteRune(r))
			}
			switch op {
			case "(", "[", "{":
				depth++
				if depth >= 200 {
					return nil, errAt(i, "too many nested parentheses")
				}
			case ")", "]", "}":
				depth--
				if depth < 0 {
					return nil, errAt(i, "unmatched "+op)
				}
			}
			toks = append(toks, token{kind: tOp, text: op, pos: start})
			i += len(op)
		}
	}
	if depth > 0 {
		return nil, errAt(len(src), "unclosed bracket")
	}
	return append(toks, token{kind: tEnd, pos: len(src)}), nil
}

func isHexDigit(c byte) bool { return isDigitByte(c) || c|0x20 >= 'a' && c|0x20 <= 'f' }
func isOctDigit(c byte) bool { return c >= '0' && c <= '7' }
func isBinDigit(c byte) bool { return c == '0' || c == '1' }

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }

// identifier checks a potential identifier as CPython does: ASCII is taken
// as it is; otherwise it must be a Python identifier as written (XID_Start
// or _, then XID_Continue), and is folded to NFKC.
func identifier(word string, pos int) (string, error) {
	ascii := true
	for i := 0; i < len(word); i++ {
		if word[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return word, nil
	}
	// Checked as written (CPython's _PyUnicode_ScanIdentifier), then
	// folded: "x²" is refused, "ｅｖａｌ" is eval.
	for i, r := range word {
		ok := r == '_' || isXIDStart(r)
		if i > 0 {
			ok = ok || isXIDContinue(r)
		}
		if !ok {
			return "", errAt(pos, "invalid character "+strconv.QuoteRune(r)+" in identifier")
		}
	}
	return norm.NFKC.String(word), nil
}

// XID_Start and XID_Continue, from Go's Unicode tables (ID_Start and
// ID_Continue less the few characters NFKC moves out of them).
func isXIDStart(r rune) bool {
	return unicode.In(r, unicode.L, unicode.Nl, unicode.Other_ID_Start) && !unicode.In(r, unicode.Pattern_Syntax, unicode.Pattern_White_Space)
}

func isXIDContinue(r rune) bool {
	return isXIDStart(r) || unicode.In(r, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc, unicode.Other_ID_Continue) &&
		!unicode.In(r, unicode.Pattern_Syntax, unicode.Pattern_White_Space)
}

// isPrefix: Python's string prefixes, in any case.
func isPrefix(w string) bool {
	switch strings.ToLower(w) {
	case "r", "u", "b", "br", "rb", "f", "fr", "rf":
		return true
	}
	return false
}

// readNumber reads a numeric literal at i (Python's integer, float and
// imaginary forms) and returns where it ends. A letter right after a
// number is a syntax error, as in Python 3.12 (3.8-3.11 warn).
func readNumber(src string, i int) (int, error) {
	start := i
	digits := func(ok func(byte) bool) bool {
		// digits with single underscores between them
		n := 0
		for i < len(src) {
			if ok(src[i]) {
				i++
				n++
				continue
			}
			if src[i] == '_' && n > 0 && i+1 < len(src) && ok(src[i+1]) {
				i++
				continue
			}
			break
		}
		return n > 0
	}
	dec := isDigitByte
	if src[i] == '0' && i+1 < len(src) && strings.ContainsRune("xXoObB", rune(src[i+1])) {
		base := src[i+1] | 0x20
		i += 2
		if i < len(src) && src[i] == '_' {
			i++
		}
		ok := isBinDigit
		switch base {
		case 'x':
			ok = isHexDigit
		case 'o':
			ok = isOctDigit
		}
		if !digits(ok) {
			return 0, errAt(start, "invalid number")
		}
	} else {
		intPart := false
		if src[i] != '.' {
			intPart = digits(dec)
		}
		float := false
		if i < len(src) && src[i] == '.' {
			i++
			float = true
			if i < len(src) && isDigitByte(src[i]) {
				digits(dec)
			} else if !intPart {
				return 0, errAt(start, "invalid number")
			}
		}
		if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
			j := i + 1
			if j < len(src) && (src[j] == '+' || src[j] == '-') {
				j++
			}
			if j < len(src) && isDigitByte(src[j]) {
				i = j
				digits(dec)
				float = true
			}
		}
		if !float && intPart {
			// A decimal integer: no leading zeros but for zero itself.
			lit := strings.ReplaceAll(src[start:i], "_", "")
			if len(lit) > 1 && lit[0] == '0' && strings.Trim(lit, "0") != "" {
				return 0, errAt(start, "leading zeros in a decimal integer")
			}
		}
		if i < len(src) && (src[i] == 'j' || src[i] == 'J') {
			i++
		}
	}
	if i < len(src) {
		r, _ := utf8.DecodeRuneInString(src[i:])
		if r == '_' || r < 0x80 && (isIdentByte(byte(r)) || isDigitByte(byte(r))) || r >= 0x80 && (isXIDContinue(r) || isXIDStart(r)) {
			return 0, errAt(i, "invalid literal: a number runs into a name")
		}
	}
	return i, nil
}

// readString reads a string literal whose prefix starts at start and whose
// quote is at q.
func readString(src string, start int, prefix string, q int) (token, int, error) {
	qc := src[q]
	quote := src[q : q+1]
	if q+2 < len(src) && src[q+1] == qc && src[q+2] == qc {
		quote = src[q : q+3]
	}
	i := q + len(quote)
	for {
		if i >= len(src) {
			return token{}, 0, errAt(start, "unterminated string")
		}
		if src[i] == qc && (len(quote) == 1 || strings.HasPrefix(src[i:], quote)) {
			break
		}
		switch src[i] {
		case '\\':
			i += 2 // even in a raw string, a backslash keeps the next character in
			continue
		case '\n', '\r':
			if len(quote) == 1 {
				return token{}, 0, errAt(start, "unterminated string")
			}
		}
		i++
	}
	if i > len(src) {
		return token{}, 0, errAt(start, "unterminated string")
	}
	body := src[q+len(quote) : i]
	p := prefix
	if len(p) > 1 || p == "u" {
		p = strings.ReplaceAll(strings.ReplaceAll(prefix, "u", ""), "rb", "br")
		if p == "rf" {
			p = "fr"
		}
	}
	tok := token{kind: tString, prefix: p, body: body, pos: start}
	if !strings.Contains(p, "f") {
		v, known, err := decodeString(body, strings.Contains(p, "r"), strings.Contains(p, "b"), start)
		if err != nil {
			return token{}, 0, err
		}
		tok.value, tok.known = v, known
	}
	return tok, i + len(quote), nil
}

// decodeString decodes a string literal's body as Python does. known is
// false when it holds a \N{...} escape (the names table is not here).
func decodeString(body string, raw, bytes bool, pos int) (string, bool, error) {
	if bytes {
		for i := 0; i < len(body); i++ {
			if body[i] >= 0x80 {
				return "", false, errAt(pos, "bytes can only contain ASCII literal characters")
			}
		}
	}
	if raw || strings.IndexByte(body, '\\') < 0 {
		return normNewlines(body), true, nil
	}
	var b strings.Builder
	known := true
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' || i+1 >= len(body) {
			if c == '\r' {
				b.WriteByte('\n')
				if i+1 < len(body) && body[i+1] == '\n' {
					i++
				}
				continue
			}
			b.WriteByte(c)
			continue
		}
		i++
		e := body[i]
		switch e {
		case '\n':
		case '\r':
			if i+1 < len(body) && body[i+1] == '\n' {
				i++
			}
		case '\\', '\'', '"':
			b.WriteByte(e)
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(body) && j < i+3 && body[j] >= '0' && body[j] <= '7' {
				j++
			}
			n, _ := strconv.ParseUint(body[i:j], 8, 32)
			writeCode(&b, rune(n), bytes)
			i = j - 1
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			if bytes && e != 'x' {
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			if i+1+n > len(body) {
				return "", false, errAt(pos, "truncated \\"+string(e)+" escape")
			}
			v, err := strconv.ParseUint(body[i+1:i+1+n], 16, 32)
			if err != nil || v > unicode.MaxRune {
				return "", false, errAt(pos, "bad \\"+string(e)+" escape")
			}
			writeCode(&b, rune(v), bytes)
			i += n
		case 'N':
			if bytes {
				b.WriteString(`\N`)
				continue
			}
			end := strings.IndexByte(body[i:], '}')
			if i+1 >= len(body) || body[i+1] != '{' || end < 0 {
				return "", false, errAt(pos, "malformed \\N character escape")
			}
			known = false
			i += end
		default:
			b.WriteByte('\\')
			i--
		}
	}
	return b.String(), known, nil
}

// writeCode writes the code point r of an escape. A str's lone surrogate
// (\ud800: Python keeps it) is written as the three bytes UTF-8 would
// spell it with (WTF-8), not as U+FFFD, a character of its own that would
// make 'x\ud800' and 'x\ufffd' one key: the result is not valid UTF-8,
// so no path has such a key (holders.go, Path).
func writeCode(b *strings.Builder, r rune, bytes bool) {
	switch {
	case bytes || r < 0x80:
		b.WriteByte(byte(r))
	case r >= 0xD800 && r <= 0xDFFF:
		b.WriteByte(byte(0xE0 | r>>12))
		b.WriteByte(byte(0x80 | r>>6&0x3F))
		b.WriteByte(byte(0x80 | r&0x3F))
	default:
		b.WriteRune(r)
	}
}

func normNewlines(s string) string {
	if strings.IndexByte(s, '\r') < 0 {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// LiteralEnd is where the literal that starts at src[i] ends, as
// ReadLiteral reads it, without decoding it: a scan for a literal's
// extent read from each quote of a long text does not decode each.
func LiteralEnd(src string, i int) (int, bool) {
	_, _, end, ok := literalAt(src, i)
	return end, ok
}

// Literals finds where the literals of one text end, as LiteralEnd does,
// read from any of its quotes. A long line of escaped quotes (a dict's
// repr inside a str's repr, inside another's) read from each quote is a
// literal to the line's end from each: 1,200 quotes of a 32 KB line took
// redact 48 ms natively, and ran a module out of its fuel (found
// 2026-12-07). Two reads of a one-quote literal that reach the same byte
// outside an escape end at the same quote: where each read ended is kept
// for every such byte it read, and a read stops at one already known.
type Literals struct {
	src  string
	from int        // the bytes kept are src[from:]
	ends [2][]int32 // for ' and ": 1 + where a literal read from the byte ends, -1: none, 0: not known
}

// NewLiterals finds the ends of the literals of src that start at byte
// from or after it (those before it are read as LiteralEnd reads them).
func NewLiterals(src string, from int) *Literals { return &Literals{src: src, from: from} }

// End is LiteralEnd(src, i).
func (l *Literals) End(i int) (int, bool) {
	src := l.src
	if i < l.from {
		return LiteralEnd(src, i)
	}
	j, ok := literalQuote(src, i)
	if !ok {
		return 0, false
	}
	qc := src[j]
	if j+2 < len(src) && src[j+1] == qc && src[j+2] == qc { // triple-quoted: read as it is
		return LiteralEnd(src, i)
	}
	q := 0
	if qc == '"' {
		q = 1
	}
	if l.ends[q] == nil {
		l.ends[q] = make([]int32, len(src)-l.from+2)
	}
	ends := l.ends[q]
	at := func(k int) *int32 { return &ends[k-l.from] }
	from, k, end := j+1, j+1, int32(-1) // read as readString reads it
	for {
		if k < len(src)+2 && *at(k) != 0 {
			end = *at(k)
			break
		}
		if k >= len(src) {
			break
		}
		if c := src[k]; c == qc {
			end = int32(k + 2)
			break
		} else if c == '\\' {
			k += 2
			continue
		} else if c == '\n' || c == '\r' {
			break
		}
		k++
	}
	for k := from; k < len(src); { // the bytes it read outside an escape: the same end
		if *at(k) != 0 {
			break
		}
		*at(k) = end
		if src[k] == qc || src[k] == '\n' || src[k] == '\r' {
			break
		}
		if src[k] == '\\' {
			k += 2
		} else {
			k++
		}
	}
	if end < 0 {
		return 0, false
	}
	return int(end) - 1, true
}

// literalAt reads the literal that starts at src[i], raw: its token, where
// its quote is (after its prefix) and where it ends.
func literalAt(src string, i int) (tok token, j, end int, ok bool) {
	if j, ok = literalQuote(src, i); !ok {
		return token{}, 0, 0, false
	}
	// Where it ends does not depend on the prefix (a backslash keeps the
	// next character in, raw or not): read it raw, then decode it.
	tok, end, err := readString(src, i, "r", j)
	return tok, j, end, err == nil
}

// literalQuote is where the quote of the literal that starts at src[i] is,
// after its prefix (r, b, u, in any case and order Python takes); false
// when no literal starts at i.
func literalQuote(src string, i int) (int, bool) {
	j := i
	for j < len(src) && j-i < 2 && strings.IndexByte("rRbBuU", src[j]) >= 0 {
		j++
	}
	if j >= len(src) || src[j] != '\'' && src[j] != '"' || j > i && !isPrefix(src[i:j]) {
		return 0, false
	}
	return j, true
}

// Literal is a str or bytes literal read by ReadLiteral.
type Literal struct {
	BodyStart, BodyEnd int    // its body (between the quotes), as written
	End                int    // the offset after its closing quote
	Value              string // decoded, as Python decodes it
	Known              bool   // Value is known (false for an unknown \N{...})
}

// ReadLiteral reads the str or bytes literal that starts at src[i] (with
// its prefix: r, b, u, in any case and order Python takes) as CPython's
// tokenizer reads it; redact reads the strings of a repr with it. It
// reports false when no literal starts at i or when it does not end (an
// f-string is not a literal: it is code). A literal whose escapes do not
// decode (a syntax error to Python) is read with Known false.
func ReadLiteral(src string, i int) (Literal, bool) {
	tok, j, end, ok := literalAt(src, i)
	if !ok {
		return Literal{}, false
	}
	p := strings.ToLower(src[i:j])
	v, known, err := decodeString(tok.body, strings.Contains(p, "r"), strings.Contains(p, "b"), i)
	q := (end - j - len(tok.body)) / 2 // the quotes' length: 1 or 3
	return Literal{BodyStart: j + q, BodyEnd: j + q + len(tok.body), End: end, Value: v, Known: known && err == nil}, true
}
