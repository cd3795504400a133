// Package pyrepr writes strings as Python's repr writes them. It is the one
// place the project spells Python's repr: the host masks a secret in that
// spelling (plugins), redact writes a string back after it masked what the
// string held, tools writes the expression pydevd makes of a log message.
// The tests hold it to CPython for every character.
package pyrepr

import (
	"strings"
	"unicode"
)

// Quote is the quote repr puts around s: ' unless s holds a ' and no ".
func Quote(s string) byte {
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		return '"'
	}
	return '\''
}

// Repr is Python's repr of the str s.
func Repr(s string) string {
	q := Quote(s)
	return string(q) + Body(s, q) + string(q)
}

// Body is repr's spelling of the str s between quotes q: a backslash and q
// escaped, \t \n \r, and every character Python does not print
// (str.isprintable: categories C* and Z* but the space; Go's
// unicode.IsPrint is the same set) as \xhh, \uhhhh or \Uhhhhhhhh.
func Body(s string, q byte) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\' || r == rune(q):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case unicode.IsPrint(r):
			b.WriteRune(r)
		case r < 0x100:
			b.WriteString(`\x`)
			Hex(&b, uint32(r), 2)
		case r < 0x10000:
			b.WriteString(`\u`)
			Hex(&b, uint32(r), 4)
		default:
			b.WriteString(`\U`)
			Hex(&b, uint32(r), 8)
		}
	}
	return b.String()
}

// BytesBody is repr's spelling of the bytes s between quotes q: printable
// ASCII as it is (a backslash and q escaped), \t \n \r, any other byte as
// \xhh.
func BytesBody(s string, q byte) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' || c == q:
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c >= 0x20 && c < 0x7f:
			b.WriteByte(c)
		default:
			b.WriteString(`\x`)
			Hex(&b, uint32(c), 2)
		}
	}
	return b.String()
}

// Hex writes v as n lower-case hex digits.
func Hex(b *strings.Builder, v uint32, n int) {
	const digits = "0123456789abcdef"
	for i := n - 1; i >= 0; i-- {
		b.WriteByte(digits[v>>(4*i)&15])
	}
}
