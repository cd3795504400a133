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

// PyCryptodome's keys (pip's Crypto, Debian's Cryptodome) show their
// private numbers in their reprs, as keywords: RsaKey(n=..., e=...,
// d=..., p=..., q=..., u=...), EccKey(curve='NIST P-256', point_x=...,
// point_y=..., d=...) and an EdDSA key's seed=...; and in their
// attributes (privateRows). A program's signing key, listed, showed its
// private exponent and primes in clear (found 2026-12-08).
var pycryptodomePrivate = []string{"d", "p", "q", "u", "seed"}

// holdsPyCryptodomeKey: s holds the repr of a PyCryptodome key.
func holdsPyCryptodomeKey(s string) bool {
	return strings.Contains(s, "Key(") && (strings.Contains(s, "RsaKey(n=") || strings.Contains(s, "EccKey(curve="))
}

// A Kubernetes Secret holds its secrets under any keys of its data and
// stringData (the kubernetes client's V1Secret: data and string_data):
// a TLS secret's tls.key, a connection's url, base64 of a PEM key or of
// a URL with its password. As a manifest (YAML, JSON) and as the client's
// repr, each was shown in clear (found 2026-12-08), the keys naming no
// secret. Beside kind Secret, data and stringData are secrets' names.
var kubernetesSecretData = []string{"data", "stringdata", "string_data"} // as IsName looks them up: in lower case

// holdsKubernetesSecret: s holds a record of kind Secret: kind: Secret
// (YAML), "kind": "Secret" (JSON), 'kind': 'Secret' (a dict's repr).
func holdsKubernetesSecret(s string) bool {
	if !strings.Contains(s, "Secret") { // most texts, at once
		return false
	}
	return strings.Contains(s, "kind: Secret") || strings.Contains(s, `"kind": "Secret"`) || strings.Contains(s, `"kind":"Secret"`) ||
		strings.Contains(s, "'kind': 'Secret'")
}

// withKeyNames is extra with the private members of the keys s holds
// among the secrets' names: a JWK's (holdsJWK), a PyCryptodome key's
// repr's (holdsPyCryptodomeKey), a Kubernetes Secret's data
// (holdsKubernetesSecret); else extra.
func withKeyNames(s string, extra map[string]bool) map[string]bool {
	if holdsJWK(s) {
		extra = withNames(extra, jwkPrivate...)
	}
	if holdsPyCryptodomeKey(s) {
		extra = withNames(extra, pycryptodomePrivate...)
	}
	if holdsKubernetesSecret(s) {
		extra = withNames(extra, kubernetesSecretData...)
	}
	return extra
}

// maskDSAKeys masks the private number of PyCryptodome's DsaKey in the
// repr of the dict it keeps its numbers in (its _key: {'y': Integer(...),
// 'g': Integer(...), 'p': ..., 'q': ..., 'x': Integer(...)}), whole or
// as pydevd cuts it to its ends inside a container
// (Integer(640373260289...168073206)): each run of digits, handed to found.
func maskDSAKeys(s string, found func(string)) (string, bool) {
	if !strings.Contains(s, "'g': Integer(") {
		return s, false
	}
	h := hidden{s: s, found: found}
	const x = "'x': Integer("
	for from := 0; ; {
		i := strings.Index(s[from:], x)
		if i < 0 {
			break
		}
		at := from + i + len(x)
		for {
			n := run(s, at, isDigit)
			if n == 0 {
				break
			}
			h.hide(at, at+n)
			at += n
			if !strings.HasPrefix(s[at:], "...") {
				break
			}
			at += len("...")
		}
		from = at
	}
	return h.masked()
}

// maskPythonRSAKeys masks the private numbers of python-rsa's PrivateKey
// (the rsa package, which google-auth's signer holds) in its repr,
// PrivateKey(n, e, d, p, q): five numbers by position, the last three
// its private exponent and primes; and hands each to found.
func maskPythonRSAKeys(s string, found func(string)) (string, bool) {
	h := hidden{s: s, found: found}
	const open = "PrivateKey("
	for from := 0; ; {
		i := strings.Index(s[from:], open)
		if i < 0 {
			break
		}
		at := from + i + len(open)
		from = at
		var nums [5][2]int
		k := 0
		for ; k < 5; k++ {
			n := run(s, at, isDigit)
			if n == 0 {
				break
			}
			nums[k] = [2]int{at, at + n}
			at += n
			if k < 4 && strings.HasPrefix(s[at:], ", ") {
				at += 2
			} else if k < 4 {
				break
			}
		}
		if k == 5 && at < len(s) && s[at] == ')' {
			for _, sp := range nums[2:] {
				h.hide(sp[0], sp[1])
			}
			from = at
		}
	}
	return h.masked()
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
	value  string // when not "": the beside row's value must be this
	names  []string
}{
	{"kty", "", jwkPrivate},
	{"public_numbers", "", []string{"d", "p", "q", "dmp1", "dmq1", "iqmp", "private_value", "x"}},
	// PyCryptodome's RsaKey (its _e beside: the attributes, and the
	// properties debugpy lists with them), its EccKey (its _curve beside),
	// and python-rsa's PrivateKey (its exp1 beside, itself a private
	// number): found 2026-12-08
	{"_e", "", []string{"d", "p", "q", "u", "_d", "_p", "_q", "_u", "_dp", "_dq"}},
	{"_curve", "", []string{"d", "_d", "seed", "_seed"}},
	{"exp1", "", []string{"d", "p", "q", "exp1", "exp2", "coef"}},
	// PyCryptodome's DsaKey keeps its numbers in a dict ('x' beside 'g'),
	// its ElGamalKey in attributes (x beside g)
	{"g", "", []string{"x"}},
	// PyNaCl's SigningKey (an Ed25519 key: paramiko's Ed25519Key holds
	// one) keeps its seed, the private key, in _seed beside its
	// _signing_key (found 2026-12-08)
	{"_signing_key", "", []string{"_seed"}},
	// a Kubernetes Secret's data, listed (the client's V1Secret: its
	// properties and attributes beside its kind)
	{"kind", "'Secret'", []string{"data", "string_data", "_data", "_string_data"}},
	{"_kind", "'Secret'", []string{"data", "string_data", "_data", "_string_data"}},
}

// rowGroups and besideGroups are privateRows by the names debugpy gives
// the rows: a dict's item by its key's repr ('d', "d"), an object's
// attribute by its name (d). Each name's groups are a bit each (16 at
// most: TestPrivateRowsFit).
var rowGroups, besideGroups = func() (rows, beside map[string]uint16) {
	rows, beside = map[string]uint16{}, map[string]uint16{}
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
func privateRow(name sdk.Value) uint16 {
	groups, _ := sdk.Lookup(rowGroups, name)
	return groups
}

// besideRows returns the groups of privateRows whose beside row is among
// rows.
func besideRows(rows sdk.Value) uint16 {
	var groups uint16
	for _, r := range rows.AllElements() {
		if r.Kind() == sdk.Object {
			g, _ := sdk.Lookup(besideGroups, r.Get("name"))
			for i, pr := range privateRows {
				if g&(1<<i) != 0 && pr.value != "" && r.Get("value").Str() != pr.value {
					g &^= 1 << i
				}
			}
			groups |= g
		}
	}
	return groups
}
