package redact

import (
	"maps"
	"slices"
	"strings"

	"github.com/debugpy-guard/debugpy-guard/plugins/sdk"
)

// A JSON Web Key (RFC 7517) holds its private key under one-letter names:
// an RSA key's d, p, q, dp, dq, qi and oth (RFC 7518 6.3.2), an EC or an
// OKP key's d (RFC 7518 6.2.2, RFC 8037), a symmetric key's k (RFC 7518
// 6.4.1). None is a secret's name anywhere else ({'d': 4}, a point's x
// and y), so they are one only beside a kty, the member every JWK has:
// the JWKS a signing service loads showed its private keys in clear, in a
// dict's repr, in the JSON it was read from, and as the rows of a listing
// (found 2026-12-07).
var jwkPrivate = map[string]bool{"d": true, "p": true, "q": true, "dp": true, "dq": true, "qi": true, "oth": true, "k": true}

// holdsJWK: s names a member kty, as a key ('kty': and "kty": of a
// dict's repr or JSON, \"kty\": of JSON in a string) or a keyword (kty=,
// a class's repr).
func holdsJWK(s string) bool {
	for from := 0; ; {
		i := strings.Index(s[from:], "kty")
		if i < 0 {
			return false
		}
		at := from + i
		from = at + len("kty")
		if at > 0 && isWord(s[at-1]) {
			continue
		}
		j := from
		for j < len(s) && (s[j] == '\'' || s[j] == '"' || s[j] == '\\') {
			j++
		}
		j += run(s, j, isBlank)
		if j < len(s) && (s[j] == ':' || s[j] == '=') {
			return true
		}
	}
}

// withJWK is extra with a JWK's private members among the secrets' names,
// when s holds a JWK (holdsJWK), else extra.
func withJWK(s string, extra map[string]bool) map[string]bool {
	if !holdsJWK(s) {
		return extra
	}
	m := make(map[string]bool, len(extra)+len(jwkPrivate))
	for k, v := range extra {
		m[k] = v
	}
	for k := range jwkPrivate {
		m[k] = true
	}
	return m
}

// jwkRows: rows (a listing's) hold a member named kty: a JWK's dict (the
// rows 'kty', 'd' ...) or object (kty, d ...). So its rows named for a
// private member hold its key (jwkRow).
func jwkRows(rows sdk.Value) bool {
	for _, r := range rows.AllElements() {
		if r.Kind() == sdk.Object {
			if _, ok := sdk.Lookup(ktyRows, r.Get("name")); ok {
				return true
			}
		}
	}
	return false
}

// jwkRow: a row's name is a JWK's private member's.
func jwkRow(row sdk.Value) bool {
	_, ok := sdk.Lookup(jwkPrivateRows, row.Get("name"))
	return ok
}

// ktyRows and jwkPrivateRows are the names debugpy gives those members'
// rows: a dict's item by its key's repr ('d'), an object's attribute by
// its name (d).
var ktyRows, jwkPrivateRows = rowNames("kty"), rowNames(slices.Collect(maps.Keys(jwkPrivate))...)

func rowNames(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n], m["'"+n+"'"], m[`"`+n+`"`] = true, true, true
	}
	return m
}
