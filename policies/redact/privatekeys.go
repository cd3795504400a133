package redact

import (
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
var jwkPrivate = []string{"d", "p", "q", "dp", "dq", "qi", "oth", "k"}

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
	return withNames(extra, jwkPrivate...)
}

// privateRows are the rows of a listing that hold a private key, known by
// a row beside them: a JWK's members (kty beside: a dict's rows 'kty' and
// 'd', an object's kty and d; jwcrypto's JWK is a dict), and the private
// numbers of the cryptography package's keys (public_numbers beside: an
// RSA key's d, p, q, dmp1, dmq1, iqmp, an EC key's private_value, a DSA or
// DH key's x), which a plain attribute read showed (nums.d,
// ec_nums.private_value: found 2026-12-07).
var privateRows = []struct {
	beside string
	names  []string
}{
	{"kty", jwkPrivate},
	{"public_numbers", []string{"d", "p", "q", "dmp1", "dmq1", "iqmp", "private_value", "x"}},
}

// rowGroups and besideGroups are privateRows by the names debugpy gives
// the rows: a dict's item by its key's repr ('d', "d"), an object's
// attribute by its name (d). Each name's groups are a bit each.
var rowGroups, besideGroups = func() (rows, beside map[string]uint8) {
	rows, beside = map[string]uint8{}, map[string]uint8{}
	for i, g := range privateRows {
		for _, n := range g.names {
			for _, spelled := range []string{n, "'" + n + "'", `"` + n + `"`} {
				rows[spelled] |= 1 << i
			}
		}
		for _, spelled := range []string{g.beside, "'" + g.beside + "'", `"` + g.beside + `"`} {
			beside[spelled] |= 1 << i
		}
	}
	return rows, beside
}()

// privateRow returns the groups of privateRows whose names are a row's
// name: none for most rows.
func privateRow(name sdk.Value) uint8 {
	groups, _ := sdk.Lookup(rowGroups, name)
	return groups
}

// besideRows returns the groups of privateRows whose beside row is among
// rows.
func besideRows(rows sdk.Value) uint8 {
	var groups uint8
	for _, r := range rows.AllElements() {
		if r.Kind() == sdk.Object {
			g, _ := sdk.Lookup(besideGroups, r.Get("name"))
			groups |= g
		}
	}
	return groups
}
