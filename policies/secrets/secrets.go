// Package secrets says which names are a secret's: the built-ins share it,
// so that the name expressions refuses to read is the name redact masks.
package secrets

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// words make a name a secret's wherever they stand in it (lower-cased).
var words = []string{"password", "passwd", "passphrase", "secret", "token", "api_key", "apikey",
	"private_key", "privatekey", "access_key", "accesskey", "credential", "session_key", "signing_key"}

// parts make a name a secret's when they are a whole part of it (split at
// underscores, digits, dashes, dots and lower-to-upper case changes):
// "auth" is, "author" is not.
var parts = map[string]bool{"pwd": true, "auth": true, "authorization": true, "cookie": true,
	"dsn": true, "jwt": true, "bearer": true, "otp": true}

// IsName reports whether name, folded to NFKC, is a secret's name, or one
// of extra (lower-cased).
func IsName(name string, extra map[string]bool) bool {
	n := name
	if !ascii(n) {
		n = norm.NFKC.String(name)
	}
	l := strings.ToLower(n)
	if extra[l] {
		return true
	}
	for _, w := range words {
		if strings.Contains(l, w) {
			return true
		}
	}
	if len(l) < 3 {
		return false
	}
	start := 0
	rs := []rune(n)
	for i := 0; i <= len(rs); i++ {
		split := i == len(rs) || !unicode.IsLetter(rs[i]) ||
			i > 0 && unicode.IsLower(rs[i-1]) && unicode.IsUpper(rs[i])
		if split {
			if i > start && parts[strings.ToLower(string(rs[start:i]))] {
				return true
			}
			start = i
			if i < len(rs) && !unicode.IsLetter(rs[i]) {
				start = i + 1
			}
		}
	}
	return false
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
