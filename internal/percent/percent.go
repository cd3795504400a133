// Package percent reads percent-encoded text as a URL's userinfo, its
// query and a form's body carry it: each %XX (two hex digits, either case)
// is the byte it names, and in a form (quote_plus, urlencode) each + is a
// space. Anything else is itself: a % without two hex digits after it
// stays a %. The host's masks (plugins) and the built-in redact (a URL's
// password, as the program holds it) read it alike.
package percent

import "strings"

// Decode is s read decoded; with plus, each + is a space too. s itself
// when it holds nothing to decode.
func Decode(s string, plus bool) string {
	special := "%"
	if plus {
		special = "%+"
	}
	i := strings.IndexAny(s, special)
	if i < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	for ; i >= 0; i = strings.IndexAny(s, special) {
		b = append(b, s[:i]...)
		switch {
		case s[i] == '+':
			b, s = append(b, ' '), s[i+1:]
		case EscapeLen(s, i) == 3:
			b, s = append(b, unhex(s[i+1])<<4|unhex(s[i+2])), s[i+3:]
		default:
			b, s = append(b, '%'), s[i+1:]
		}
	}
	return string(append(b, s...))
}

// EscapeLen is 3 when s[i:] begins with %XX, else 1: the bytes of s that
// one byte of its decoded reading stands for (a + read as a space is one).
func EscapeLen(s string, i int) int {
	if s[i] == '%' && i+2 < len(s) && IsHex(s[i+1]) && IsHex(s[i+2]) {
		return 3
	}
	return 1
}

// HasEscape reports whether s holds a %XX.
func HasEscape(s string) bool {
	for i := strings.IndexByte(s, '%'); i >= 0; {
		if EscapeLen(s, i) == 3 {
			return true
		}
		j := strings.IndexByte(s[i+1:], '%')
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

// IsHex reports whether c is a hex digit, in either case.
func IsHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'f' }

func unhex(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c | 0x20 - 'a' + 10
}
