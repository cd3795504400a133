package redact

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/debugpy-guard/debugpy-guard/plugins/sdk"
	"github.com/debugpy-guard/debugpy-guard/policies/internal/policytest"
)

// A JWK's private members, as a program shows a key: a dict's repr, JSON
// (compact, indented, inside a string's repr), a class's repr with
// keywords, a JWKS. Each private value is masked and learned; the public
// members stay.
func TestJWKPrivateMembersMasked(t *testing.T) {
	const d, k = "Wx7bZgQm3yJ0o9nN2vTqK5rL8sH4cF6pA1eD3gU7iY0", "c2VjcmV0LWhtYWMta2V5LWZvci1qd3Q"
	public := []string{"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78", "AQAB", "sig-1", "P-256"}
	rsa := map[string]string{"kty": "RSA", "kid": "sig-1", "n": public[1], "e": "AQAB", "d": d + "d", "p": d + "p", "q": d + "q", "dp": d + "dp", "dq": d + "dq", "qi": d + "qi"}
	compact, _ := json.Marshal(rsa)
	indented, _ := json.MarshalIndent(rsa, "", "  ")
	texts := []string{
		"{'kty': 'EC', 'crv': 'P-256', 'x': '" + public[0] + "', 'd': '" + d + "'}",
		string(compact),
		string(indented),
		"'" + strings.ReplaceAll(string(indented), "\n", `\n`) + "'",
		"JWK(kty='EC', crv='P-256', x='" + public[0] + "', d='" + d + "')",
		"{'keys': [{'kty': 'oct', 'kid': 'sig-1', 'k': '" + k + "', 'alg': 'HS256'}]}",
		`{"kty":"OKP","crv":"Ed25519","x":"` + public[0] + `","d":"` + d + `"}`,
		`{"kty" : "EC", "d" : "` + d + `"}`,
	}
	for _, s := range texts {
		got, changed := maskTextTo(s, nil, nil)
		if !changed || strings.Contains(got, d[:20]) || strings.Contains(got, k[:20]) {
			t.Errorf("%.60q...: a private member shown: %q", s, got)
		}
		for _, p := range public {
			if strings.Contains(s, p) && !strings.Contains(got, p) {
				t.Errorf("%.60q...: a public member masked (%s): %q", s, p, got)
			}
		}
	}
	for _, s := range []string{ // no kty: one-letter names are no secrets' names
		"{'d': '" + d + "', 'p': 'Wx7bZgQm3yJ0o9nN2vTq'}",
		"Point(x=1, y=2, d='" + d + "')",
		"{'kty_hint': 1, 'd': '" + d + "'}",
		"polkty: 1, 'd': '" + d + "'",
	} {
		if got, changed := maskTextTo(s, nil, nil); changed {
			t.Errorf("%q masked: %q", s, got)
		}
	}
}

// A private key listed, its members rows: a JWK's (a dict's 'd', an
// object's d) beside a kty row, the cryptography package's private numbers
// (d, p ..., private_value, x) beside a public_numbers row, are masked, and
// not without that row beside them (an EC key's public numbers x and y),
// nor beside the other group's (a JWK's k beside public_numbers, x beside
// kty).
func TestPrivateKeyRowsMasked(t *testing.T) {
	const d = "Wx7bZgQm3yJ0o9nN2vTqK5rL8sH4cF6pA1eD3gU7iY0"
	listing := func(names ...string) string {
		var rows []map[string]any
		for _, n := range names {
			v := "'P-256'"
			if secret := strings.Trim(n, `'"`); secret == "d" || secret == "x" || secret == "private_value" || secret == "iqmp" || secret == "k" {
				v = "'" + d + "'"
			}
			rows = append(rows, map[string]any{"name": n, "value": v, "type": "str"})
		}
		res, _ := json.Marshal(map[string]any{"scope": "locals", "variables": rows})
		return string(res)
	}
	sdk.HandlePrepared(Prepare)
	defer sdk.Handle(nil)
	for _, names := range [][]string{{"'kty'", "'crv'", "'d'"}, {"'d'", "'kty'"}, {"kty", "crv", "d"}, {`"kty"`, `"d"`},
		{"d", "iqmp", "public_numbers", "crv"}, {"private_value", "public_numbers"}, {"public_numbers", "x", "crv"}} {
		out := shownResult(t, policytest.Case{Phase: "result", Tool: "debugpy_variables", Result: listing(names...)})
		if strings.Contains(out, d[:20]) || !strings.Contains(out, "P-256") {
			t.Errorf("%v: %s", names, out)
		}
	}
	for _, names := range [][]string{{"'crv'", "'d'"}, {"'kty_x'", "'d'"}, {"x", "d"}, {"x", "crv", "curve"}, {"x", "public_number"}, {"kty", "x"}, {"public_numbers", "k"}} {
		out, _ := sdk.Evaluate(policytest.Case{Phase: "result", Tool: "debugpy_variables", Result: listing(names...)}.Request())
		sdk.TakeSecrets()
		if !strings.Contains(string(out), "nothing to redact") {
			t.Errorf("%v: a row masked with nothing that marks it beside it: %s", names, out)
		}
	}
}

// A JWK written over a source file's lines (a fixture, a settings module):
// its lines are read together, kty above d.
func TestJWKInSourceMasked(t *testing.T) {
	const d = "Wx7bZgQm3yJ0o9nN2vTqK5rL8sH4cF6pA1eD3gU7iY0"
	file := []string{`JWK = {`, `    "kty": "EC",`, `    "crv": "P-256",`, `    "d": "` + d + `",`, `}`}
	var lines []map[string]any
	for i, l := range file {
		lines = append(lines, map[string]any{"line": i + 1, "text": l})
	}
	res, _ := json.Marshal(map[string]any{"file": "/app/keys.py", "lines": lines})
	sdk.HandlePrepared(Prepare)
	defer sdk.Handle(nil)
	if out := shownResult(t, policytest.Case{Phase: "result", Tool: "debugpy_source", Result: string(res)}); strings.Contains(out, d[:20]) || !strings.Contains(out, "P-256") {
		t.Errorf("%s", out)
	}
}
