package plugins

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/debugpy-guard/debugpy-guard/internal/cpython"
	"github.com/debugpy-guard/debugpy-guard/internal/percent"
	"github.com/debugpy-guard/debugpy-guard/internal/pyrepr"
)

// TestFormsAgreeWithCPython holds the JSON forms a secret is masked in to
// the spellings json.dumps writes, for every character Unicode has and for
// strings that mix quotes and escapes, and to encoding/json's. (repr's
// spelling is internal/pyrepr's, and its tests hold it to CPython's.)
func TestFormsAgreeWithCPython(t *testing.T) {
	python := cpython.Path(t)
	var in []string
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if utf8.ValidRune(r) { // not a surrogate: no Go string holds one
			in = append(in, string(r))
		}
	}
	extra := []string{`it's`, `say "hi"`, `it's "both"`, `back\slash`, "tab\there\nnew\r", "nb\u00a0sp zw\u200bj",
		"astral \U0001F600 \U000E0001", "ctl \x00\x1b\x7f\u0085 end", `<&>`, "sep\u2028\u2029", "\b\f", "é's \"q\" \\"}
	in = append(in, extra...)
	// Python makes the same characters, then reads the extra values (a
	// JSON string a line); it answers a line a value: json.dumps (which
	// escapes line ends).
	outb := cpython.Run(t, python, `
import json, sys
def line(s):
    return json.dumps(s)[1:-1]
chars = (chr(c) for c in range(0x110000) if not 0xd800 <= c < 0xe000)
extra = (json.loads(l) for l in sys.stdin.read().split("\n") if l)
sys.stdout.buffer.write(("\n".join(line(s) for s in (*chars, *extra)) + "\n").encode())
`, cpython.JSONLines(extra))
	lines := strings.Split(strings.TrimSuffix(string(outb), "\n"), "\n")
	if len(lines) != len(in) {
		t.Fatalf("python answered %d of %d values", len(lines), len(in))
	}
	bad := 0
	for i, dumps := range lines {
		s := in[i]
		if mine := jsonInner(s, true); mine != dumps {
			if bad++; bad <= 10 {
				t.Errorf("json.dumps of %q: CPython %q, forms %q", s, dumps, mine)
			}
		}
		b, _ := json.Marshal(s)
		if mine, want := jsonInner(s, false), string(b[1:len(b)-1]); mine != want {
			if bad++; bad <= 10 {
				t.Errorf("encoding/json of %q: %q, forms %q", s, want, mine)
			}
		}
	}
	t.Logf("%d values", len(in))
}

// A secret is masked in every spelling a result can show it in: a
// listing's repr, the program's print and its JSON, reversed.
func TestSecretsMaskEveryForm(t *testing.T) {
	s := NewSecrets()
	secret := "bk\\sl-s3cret\u00a0nbsp\u200bzw 'q' \"d\""
	if !kept(s.Add("a", secret)) {
		t.Fatal("not kept")
	}
	m := s.Masker("a")
	for _, shown := range []string{
		secret, // printed
		`'bk\\sl-s3cret\xa0nbsp\u200bzw \'q\' "d"'`,           // repr
		`"bk\\sl-s3cret\u00a0nbsp\u200bzw 'q' \"d\""`,         // json.dumps
		"\"bk\\\\sl-s3cret\u00a0nbsp\u200bzw 'q' \\\"d\\\"\"", // encoding/json
		reverse(secret),
	} {
		if got := m.Replace(shown); strings.Contains(got, "s3cret") || strings.Contains(got, "terc3s") || !m.InString(shown) {
			t.Errorf("shown as %s: masked to %s", shown, got)
		}
	}
	if s.Masker("b") != nil {
		t.Error("another session's masker has the secret")
	}
	for _, flag := range []string{"false", "True", "NULL", "none"} {
		if kept(s.Add("a", flag)) {
			t.Errorf("%q kept as a secret: it would mask every %s shown", flag, flag)
		}
	}
	// Past ASCII, a value's bytes (pw.encode()) are escaped byte by byte
	// in their repr: CPython writes each of these for "pässwörd-s3cret€".
	s.Add("a", "pässwörd-s3cret€")
	m = s.Masker("a")
	for _, shown := range []string{`b'p\xc3\xa4ssw\xc3\xb6rd-s3cret\xe2\x82\xac'`, `"b'p\\xc3\\xa4ssw\\xc3\\xb6rd-s3cret\\xe2\\x82\\xac'"`} {
		if got := m.Replace(shown); strings.Contains(got, "s3cret") || !m.InString(shown) {
			t.Errorf("shown as %s: masked to %s", shown, got)
		}
	}
}

// TestSecretsMaskedWholeWhenOneHoldsAnother: of two secrets where one is
// a piece of the other (a private number's ends, learned from a cut repr,
// and the whole number, learned later) or the two overlap in a text, the
// text is masked wherever either stands, whatever order they were learned
// in. The masker replaced the forms in its map's order, the first that
// matched at a place winning: a text of the whole number showed its middle,
// [redacted]4688248367387020483194661[redacted], about half the time
// (found 2026-12-08).
func TestSecretsMaskedWholeWhenOneHoldsAnother(t *testing.T) {
	const whole = "640373260289219288367897976726829177301168073206"
	for _, c := range []struct {
		secrets []string
		text    string
	}{
		{[]string{whole[:12], whole[len(whole)-9:], whole}, "int: " + whole + "."},
		{[]string{whole, whole[:12]}, "x = " + whole},
		{[]string{"abcdef12", "ef123456"}, "[abcdef123456]"},
		{[]string{"s3cret-one", "one-s3cret-two"}, "s3cret-one-s3cret-two"},
	} {
		for range 40 { // new secrets, in a new map's order each time
			s := NewSecrets()
			for _, v := range c.secrets {
				s.Add("a", v)
			}
			got := s.Masker("a").Replace(c.text)
			for _, v := range c.secrets {
				for i := 0; i+4 <= len(v); i++ {
					if strings.Contains(got, v[i:i+4]) {
						t.Fatalf("%q with %q: masked %q, %q of a secret left", c.text, c.secrets, got, v[i:i+4])
					}
				}
			}
		}
	}
}

// shownByPydevd runs script, which prints a JSON list of secrets and how
// pydevd's SafeRepr showed a value that holds each.
func shownByPydevd(t *testing.T, script string) []struct{ Secret, Shown string } {
	t.Helper()
	out := cpython.Run(t, cpython.Path(t), script, nil)
	var cases []struct{ Secret, Shown string }
	if err := json.Unmarshal(out, &cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

// TestCutPiecesAgreeWithPydevd holds the masking of a secret cut short to
// what pydevd shows: random secrets inside random strings (a string in a
// list, a dict, a tuple, two lists deep, an object's repr in a list, and
// now and then a string past 2**16 characters at the top), each shown by
// pydevd's own SafeRepr, the class debugpy writes every value with. No
// piece of minPiece bytes of any form of the secret survives the mask;
// where no piece was shown, the mask changes nothing. The secrets' bytes
// and the other characters are apart, so that a piece is the secret's.
func TestCutPiecesAgreeWithPydevd(t *testing.T) {
	cases := shownByPydevd(t, `
import json, random, sys
from _pydevd_bundle.pydevd_safe_repr import SafeRepr
rnd = random.Random(7)
secretChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-\u00e9\u20ac"
filler = "xy '\""
class Obj:
    def __init__(self, s): self.s = s
    def __repr__(self): return "<Obj " + self.s + ">"
out = []
for i in range(3000):
    secret = "".join(rnd.choice(secretChars) for _ in range(rnd.randint(4, 60)))
    a = "".join(rnd.choice(filler) for _ in range(rnd.randint(0, 50)))
    b = "".join(rnd.choice(filler) for _ in range(rnd.randint(0, 50)))
    v = a + secret + b
    kind = rnd.randrange(7)
    if kind == 0: value = [v]
    elif kind == 1: value = {"k": v}
    elif kind == 2: value = (1, v, 2)
    elif kind == 3: value = [[v]]
    elif kind == 4: value = [Obj(v)]
    elif kind == 5: value = v
    else: value = "x" * rnd.randint(43600, 43700) + v + "y" * rnd.randint(21800, 21900)
    out.append({"secret": secret, "shown": SafeRepr()(value)})
json.dump(out, sys.stdout)
`)
	cut, hidden, bad := 0, 0, 0
	for i, c := range cases {
		s := NewSecrets()
		if !kept(s.Add("a", c.Secret)) {
			continue // a short number: no secret (TestSecretsAShortNumberIsNotASecret)
		}
		m := s.Masker("a")
		var windows []string
		for _, f := range forms(c.Secret) {
			for j := 0; j+minPiece <= len(f); j++ {
				windows = append(windows, f[j:j+minPiece])
			}
		}
		shows := func(text string) string {
			for _, w := range windows {
				if strings.Contains(text, w) {
					return w
				}
			}
			return ""
		}
		got := m.Replace(c.Shown)
		if strings.Contains(c.Shown, "...") {
			cut++
		}
		switch {
		case shows(c.Shown) == "":
			hidden++
			if got != c.Shown || m.InString(c.Shown) {
				bad++
				t.Errorf("case %d: nothing of %q shown, yet masked: %.200q -> %.200q", i, c.Secret, c.Shown, got)
			}
		case shows(got) != "" || !m.InString(c.Shown):
			bad++
			t.Errorf("case %d: %q shows %q after the mask: %.300q -> %.300q", i, c.Secret, shows(got), c.Shown, got)
		}
		if bad > 10 {
			t.Fatal("too many")
		}
	}
	if cut < 1000 || hidden < 50 {
		t.Fatalf("the cases do not cover the cuts: %d of %d cut, %d hide the secret", cut, len(cases), hidden)
	}
	t.Logf("%d values, %d cut short, %d with the secret hidden", len(cases), cut, hidden)
}

// TestCutPiecesRandom: on random texts of dots, secrets' pieces and other
// bytes, In says whether Replace changes anything, and Replace leaves no
// form whole and no piece of minPiece bytes beside a cut (read plainly,
// every length tried), and no invalid UTF-8 where there was none.
func TestCutPiecesRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	secrets := []string{"abc...def-s3cr", "Q7zK9-long-secret-value", "päss€-wörd"}
	s := NewSecrets()
	for _, v := range secrets {
		s.Add("a", v)
	}
	m := s.Masker("a")
	parts := []string{".", "..", "...", "x", " ", "'", "\\"}
	for _, v := range secrets {
		for _, f := range forms(v) {
			for range 3 {
				i, j := rng.IntN(len(f)+1), rng.IntN(len(f)+1)
				parts = append(parts, f[min(i, j):max(i, j)], f[:i], f[i:], f)
			}
		}
	}
	for n := range 20000 {
		var b strings.Builder
		for range 1 + rng.IntN(8) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		text := b.String()
		got := m.Replace(text)
		if m.InString(text) != (got != text) {
			t.Fatalf("%d: In(%q) = %v, but Replace gives %q", n, text, m.InString(text), got)
		}
		if m.InString(got) {
			t.Fatalf("%d: %q masked to %q still holds a form or a piece", n, text, got)
		}
		// The same, read plainly: beside each "...", no piece of a form.
		for i := 0; i+3 <= len(got); i++ {
			if got[i:i+3] != "..." {
				continue
			}
			for _, f := range m.forms {
				for l := minPiece; l < len(f); l++ {
					if strings.HasSuffix(got[:i], f[:l]) || strings.HasPrefix(got[i+3:], f[len(f)-l:]) {
						t.Fatalf("%d: %q masked to %q keeps %q of %q beside a cut", n, text, got, f[:l], f)
					}
				}
			}
		}
		if !utf8.ValidString(text) || utf8.ValidString(got) {
			continue
		}
		t.Fatalf("%d: %q masked to invalid UTF-8 %q", n, text, got)
	}
}

// kase is a secret between other text, for CPython's encoders.
type kase struct{ Prefix, Secret, Suffix string }

// encodedByCPython makes n cases of random words from alphabet (prefix,
// secret and suffix of the lengths given, each [lo, hi] in runes), has
// CPython run script on each (a JSON line of the case in, a JSON list of
// strings out, one line a case), and returns the cases and their lines.
func encodedByCPython(t *testing.T, seed uint64, n int, alphabet string, lens [3][2]int, script string) ([]kase, [][]string) {
	t.Helper()
	python := cpython.Path(t)
	rng := rand.New(rand.NewPCG(seed, seed*7+1))
	runes := []rune(alphabet)
	word := func(l [2]int) string {
		rs := make([]rune, l[0]+rng.IntN(l[1]-l[0]+1))
		for i := range rs {
			rs[i] = runes[rng.IntN(len(runes))]
		}
		return string(rs)
	}
	cases := make([]kase, n)
	for i := range cases {
		cases[i] = kase{word(lens[0]), word(lens[1]), word(lens[2])}
	}
	out := cpython.Run(t, python, script, cpython.JSONLines(cases))
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != n {
		t.Fatalf("python answered %d of %d", len(lines), n)
	}
	encs := make([][]string, n)
	for i, l := range lines {
		if err := json.Unmarshal([]byte(l), &encs[i]); err != nil {
			t.Fatal(err)
		}
	}
	return cases, encs
}

// TestEncodedFormsAgreeWithCPython holds the encoded forms to what CPython
// writes: 2,000 secrets (ASCII, past it, astral), each after 0 to 7 bytes
// and before 0 to 4 (Basic credentials put user: first), encoded by
// base64.b64encode, base64.urlsafe_b64encode and bytes.hex (in both
// cases). In each encoding, every run of characters that holds the
// secret's bits only is masked, and an encoded secret is never left whole.
func TestEncodedFormsAgreeWithCPython(t *testing.T) {
	cases, all := encodedByCPython(t, 7, 2000, "abcXYZ019-_:+/=~ éß€\U0001F600", [3][2]int{{0, 7}, {6, 40}, {0, 4}}, `
import base64, json, sys
for l in sys.stdin:
    c = json.loads(l)
    b = (c["Prefix"] + c["Secret"] + c["Suffix"]).encode()
    print(json.dumps([base64.b64encode(b).decode(), base64.urlsafe_b64encode(b).decode(), b.hex(), b.hex().upper()]))
`)
	bad := 0
	for i, encs := range all {
		c := cases[i]
		s := NewSecrets()
		s.Add("s", c.Secret)
		m := s.Masker("s")
		// The characters of each encoding that hold the secret's bits only.
		// What is left unmasked is at most the characters around them.
		k, n := len(c.Prefix), len(c.Secret)
		spans := [][2]int{{(8*k + 5) / 6, 8 * (k + n) / 6}, {(8*k + 5) / 6, 8 * (k + n) / 6}, {2 * k, 2 * (k + n)}, {2 * k, 2 * (k + n)}}
		for j, enc := range encs {
			got := m.Replace(enc)
			left := len(got) - strings.Count(got, Mask)*len(Mask)
			if core := enc[spans[j][0]:spans[j][1]]; strings.Contains(got, core) || !strings.Contains(got, Mask) || left > len(enc)-len(core) {
				if bad++; bad <= 10 {
					t.Errorf("%+v: encoding %d %q masked as %q: the secret's run %q is not masked whole", c, j, enc, got, core)
				}
			}
		}
	}
}

// An absolute path that exists names a place, not a secret: PWD, the
// shell's directory, is a secret's name (ODBC's password), and masked it
// hid every path of the program's directory. A path that does not exist is
// kept, as any value.
func TestSecretsAPlaceIsNotASecret(t *testing.T) {
	s := NewSecrets()
	dir := t.TempDir()
	if kept(s.Add("s", dir)) || s.Masker("s") != nil {
		t.Fatalf("the directory %s is kept as a secret", dir)
	}
	if !kept(s.Add("s", dir+"/no-such-s3cret")) || !kept(s.Add("s", "relative/s3cret-path")) {
		t.Fatal("a value that is no place on this machine is not kept")
	}
	if got := s.Masker("s").Replace("at " + dir + "/app.py:7"); got != "at "+dir+"/app.py:7" {
		t.Fatalf("a path under the place is masked: %s", got)
	}
}

// A JWT learned is learned with its parts: a program that verifies one
// splits it (header, payload, sig = token.split(".")), and each part read
// alone showed (found 2026-12-07). Not so a value with dots that is no JWT,
// nor a part shorter than minJWTPart.
func TestSecretsLearnAJWTsParts(t *testing.T) {
	const h, p, sig = "eyJhbGciOiAiSFMyNTYiLCAidHlwIjogIkpXVCJ9", "eyJzdWIiOiAiMTIzNDU2Nzg5MCIsICJuYW1lIjogIkFkYSJ9", "LBpB1ZpfDctHBGHNycqidFVW67hopePmWGLTUbEntvY"
	s := NewSecrets()
	if !kept(s.Add("s", h+"."+p+"."+sig)) {
		t.Fatal("the JWT is not kept")
	}
	for _, part := range []string{h, p, sig} {
		if got := s.Masker("s").Replace("sig = '" + part + "'"); got != "sig = '"+Mask+"'" {
			t.Errorf("a part alone: %s", got)
		}
	}
	s = NewSecrets()
	for _, v := range []string{"eyJhbGciOiAiSFMyNTYi.not a part at all.LBpB1ZpfDctHBGHNycqidFVW67", "version.1234567890abcdef.tail-of-it-here",
		"eyJhbGciOiAiSFMyNTYiLCAidHlwIjogIkpXVCJ9.e30.sig"} {
		if !kept(s.Add("s", v)) {
			t.Fatalf("%q not kept", v)
		}
	}
	for _, part := range []string{"LBpB1ZpfDctHBGHNycqidFVW67", "1234567890abcdef", "e30"} {
		if got := s.Masker("s").Replace("x = '" + part + "'"); got != "x = '"+part+"'" {
			t.Errorf("%q masked alone: %s", part, got)
		}
	}
}

// A private key's block learned is learned with its base64 lines: a
// program that parses a key splits it (second = lines[2]), and each line
// read alone showed (found 2026-12-07). So is base64 over lines; not the
// lines of other text.
func TestSecretsLearnAKeysLines(t *testing.T) {
	body := []string{"MHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5owkRmkoVkHbIoAoGCCqGSM49",
		"AwEHoUQDQgAEcmC1oZMNnqANd8ad6u3x9f5OeHgV4CsYEEJRc1XJL+qGv3l0X3ce", "k2V7r0yFh3AFpbbHsX1yqYs0ZqDnYPE1Fg=="}
	for _, v := range []string{"-----BEGIN EC PRIVATE KEY-----\n" + strings.Join(body, "\n") + "\n-----END EC PRIVATE KEY-----\n",
		strings.Join(body, "\r\n"),
		"-----BEGIN PGP PRIVATE KEY BLOCK-----\nComment: a key\n\n" + strings.Join(body, "\n") + "\n=AbCd\n-----END PGP PRIVATE KEY BLOCK-----"} {
		s := NewSecrets()
		if !kept(s.Add("s", v)) {
			t.Fatalf("%q not kept", v)
		}
		for _, l := range body {
			if got := s.Masker("s").Replace("line = '" + l + "'"); got != "line = '"+Mask+"'" {
				t.Errorf("a line alone: %s", got)
			}
		}
	}
	s := NewSecrets()
	if !kept(s.Add("s", "a note of two lines\nAbCdEfGhIjKlMnOpQrStUvWx")) {
		t.Fatal("not kept")
	}
	if got := s.Masker("s").Replace("x = 'AbCdEfGhIjKlMnOpQrStUvWx'"); got != "x = 'AbCdEfGhIjKlMnOpQrStUvWx'" {
		t.Errorf("a line of other text masked alone: %s", got)
	}
}

// Values that are not secrets whatever their name: a number of fewer than
// 6 digits is a setting (JWT_EXPIRY=3600: masked, it hid that number
// everywhere), and a credential's label is a word (login_auth =
// "password" made the word a secret, masked in every field name that holds
// it). Longer numbers are kept (an OTP's 6 digits), as are short values
// with anything but digits, and values that hold a label among other
// characters. One character repeated is a mask, not a secret.
func TestSecretsNotKept(t *testing.T) {
	for _, c := range []struct{ dropped, kept []string }{
		{[]string{"3600", "86400", "04096"}, []string{"123456", "3600s", "-3600", "36.00"}},
		{[]string{"password", "Password", "BEARER", "Basic", "token", "oauth2"}, []string{"password1", "my-secret", "Bearer abc123", "tokenXYZ"}},
		// one character repeated is a mask (SecretStr('**********')), not a secret
		{[]string{"**********", "xxxxxxxx", "••••••••"}, []string{"*******1", "ab-ab-ab"}},
	} {
		s := NewSecrets()
		for _, v := range c.dropped {
			if kept(s.Add("s", v)) {
				t.Errorf("%s is kept as a secret", v)
			}
		}
		for _, v := range c.kept {
			if !kept(s.Add("s", v)) {
				t.Errorf("%s is not kept", v)
			}
		}
	}
}

// TestPercentFormsAgreeWithCPython holds the masking of a secret
// percent-encoded to what CPython's encoders write: 2,000 secrets (ASCII
// with the characters encoders differ on, a space, a %, past ASCII), each
// between other text, encoded by urllib.parse.quote (which leaves /),
// quote with no safe character, quote_plus, urlencode, and quote in lower
// case hex. Decoded again (net/url), no masked result holds the secret,
// and every one holds the mask; a text of escapes without it is left as
// it was.
func TestPercentFormsAgreeWithCPython(t *testing.T) {
	cases, all := encodedByCPython(t, 3, 2000, "abcXYZ019-_.~:+/=?&@#% !*'()éß€\U0001F600", [3][2]int{{0, 6}, {4, 30}, {0, 6}}, `
import json, re, sys
from urllib.parse import quote, quote_plus, urlencode
for l in sys.stdin:
    c = json.loads(l)
    s = c["Secret"]
    print(json.dumps([
        "https://h/p?a=" + quote(c["Prefix"]) + quote(s) + quote(c["Suffix"]),
        "x=" + quote(c["Prefix"] + s + c["Suffix"], safe=""),
        "q=" + quote_plus(c["Prefix"] + s + c["Suffix"]) + "&n=1",
        urlencode({"user": "bob", "k": c["Prefix"] + s + c["Suffix"]}),
        re.sub("%[0-9A-F]{2}", lambda m: m.group(0).lower(), quote(c["Prefix"] + s + c["Suffix"])),
    ]))
`)
	bad := 0
	for i, encs := range all {
		c := cases[i]
		s := NewSecrets()
		if !kept(s.Add("s", c.Secret)) {
			continue // too short, say: not kept
		}
		m := s.Masker("s")
		for j, enc := range encs {
			got := m.Replace(enc)
			plain, err := url.PathUnescape(got)
			if j == 2 || j == 3 { // quote_plus and urlencode write a space as +
				plain, err = url.QueryUnescape(got)
			}
			if err != nil || strings.Contains(plain, c.Secret) || !strings.Contains(got, Mask) || !m.InString(enc) {
				if bad++; bad <= 10 {
					t.Errorf("%+v: encoding %d %q masked as %q (decoded %q, %v)", c, j, enc, got, plain, err)
				}
			}
		}
	}
	// Nothing else is masked: a text of escapes without the secret, and
	// the secret's own spelling around a + that is not its space.
	s := NewSecrets()
	s.Add("s", "p@ss w0rd/x")
	m := s.Masker("s")
	for _, text := range []string{"a%20b%2Fc?q=1+2", "100%", "%zz%4", "p%40ss+w0rd", "p%40ss w0rd%2Fy"} {
		if got := m.Replace(text); got != text || m.InString(text) {
			t.Errorf("%q masked as %q", text, got)
		}
	}
}

// FuzzPercentSpans: whatever the text and the secret, a masked text read
// decoded (each %XX, and each + as a space) holds the secret nowhere.
func FuzzPercentSpans(f *testing.F) {
	f.Add("p@ss w0rd", "u=p%40ss+w0rd&x=%2")
	f.Add("a/b%c", "%61%2fb%25c%2Fb%25c")
	f.Add("ab cd", "ab+cd%20ab cd")
	f.Fuzz(func(t *testing.T, secret, text string) {
		s := NewSecrets()
		if !kept(s.Add("s", secret)) || strings.Contains(secret, "[") || strings.Contains(secret, "]") {
			return // not kept, or one the mask itself could spell
		}
		m := s.Masker("s")
		got := m.Replace(text)
		for _, plus := range []bool{false, true} {
			if view := percent.Decode(got, plus); strings.Contains(view, secret) {
				t.Fatalf("%q masked as %q: decoded %q", text, got, view)
			}
		}
	})
}

// TestPercentCutPiecesAgreeWithPydevd: a secret percent-encoded in a value
// that pydevd shows cut short (a string past 30 characters inside a
// container, an object's repr), the cut falling anywhere, inside an escape
// too. Read decoded (each %XX, and each + as a space), no three bytes of
// the secret are left beside the mask; and In says whether Replace masks.
func TestPercentCutPiecesAgreeWithPydevd(t *testing.T) {
	cases := shownByPydevd(t, `
import json, random, re, sys
from urllib.parse import quote, quote_plus
from _pydevd_bundle.pydevd_safe_repr import SafeRepr
rnd = random.Random(11)
secretChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/@+&=? \u00e9\u20ac"
filler = "xy'\""
class Obj:
    def __init__(self, s): self.s = s
    def __repr__(self): return "<Obj " + self.s + ">"
out = []
for i in range(3000):
    secret = "".join(rnd.choice(secretChars) for _ in range(rnd.randint(4, 40)))
    a = "".join(rnd.choice(filler) for _ in range(rnd.randint(0, 40)))
    b = "".join(rnd.choice(filler) for _ in range(rnd.randint(0, 40)))
    enc = rnd.randrange(4)
    if enc == 0: v = quote(a + secret + b)
    elif enc == 1: v = quote(a + secret + b, safe="")
    elif enc == 2: v = quote_plus(a + secret + b)
    else: v = re.sub("%[0-9A-F]{2}", lambda m: m.group(0).lower(), quote(a + secret + b))
    kind = rnd.randrange(4)
    if kind == 0: value = [v]
    elif kind == 1: value = {"k": v}
    elif kind == 2: value = [Obj(v)]
    else: value = (v, 1)
    out.append({"secret": secret, "shown": SafeRepr()(value)})
json.dump(out, sys.stdout)
`)
	escape := regexp.MustCompile(`%[0-9a-fA-F]{2}`)
	decode := func(s string, plus bool) string {
		if plus {
			s = strings.ReplaceAll(s, "+", " ")
		}
		return escape.ReplaceAllStringFunc(s, func(e string) string {
			b, _ := strconv.ParseUint(e[1:], 16, 8)
			return string([]byte{byte(b)})
		})
	}
	cut, bad := 0, 0
	for i, c := range cases {
		s := NewSecrets()
		if !kept(s.Add("a", c.Secret)) {
			continue
		}
		m := s.Masker("a")
		got := m.Replace(c.Shown)
		if strings.Contains(c.Shown, "...") {
			cut++
		}
		for _, plus := range []bool{false, true} {
			plain := decode(got, plus)
			for j := 0; j+minPiece <= len(c.Secret); j++ {
				if w := c.Secret[j : j+minPiece]; strings.Contains(plain, w) {
					if bad++; bad <= 10 {
						t.Errorf("case %d: %q shows %q after the mask: %q -> %q", i, c.Secret, w, c.Shown, got)
					}
					break
				}
			}
		}
		if m.InString(c.Shown) != (got != c.Shown) {
			if bad++; bad <= 10 {
				t.Errorf("case %d: In says %v of %q, Replace made %q", i, m.InString(c.Shown), c.Shown, got)
			}
		}
	}
	if cut < 1500 {
		t.Fatalf("the cases do not cover the cuts: %d of %d cut", cut, len(cases))
	}
}

// TestWrappedFormsAgreeWithCPython: a secret's base64 broken into lines,
// as CPython writes it: base64.encodebytes (a line end every 76
// characters) and PEM's 64 a line, shown as printed (newlines), as the
// repr of the bytes (\n), and as that repr inside JSON (\\n). 1,000
// secrets of 40 to 120 bytes after 0 to 80 others, so that most runs cross
// a line end. Read without its line ends, no masked text holds a run of
// the secret's bits (TestEncodedFormsAgreeWithCPython's spans).
func TestWrappedFormsAgreeWithCPython(t *testing.T) {
	cases, all := encodedByCPython(t, 9, 1000, "abcXYZ019-_:+/=~ éß€", [3][2]int{{0, 80}, {40, 120}, {0, 0}}, `
import base64, json, sys, textwrap
for l in sys.stdin:
    c = json.loads(l)
    b = (c["Prefix"] + c["Secret"]).encode()
    mime = base64.encodebytes(b)
    pem = "\n".join(textwrap.wrap(base64.b64encode(b).decode(), 64))
    print(json.dumps([mime.decode(), repr(mime), json.dumps(repr(mime)), pem, base64.b64encode(b).decode()]))
`)
	unwrap := func(s string) string {
		var b strings.Builder
		for i := 0; i < len(s); {
			if n := lineEnd(s, i); n > 0 {
				i += n
				continue
			}
			b.WriteByte(s[i])
			i++
		}
		return b.String()
	}
	bad, crossed := 0, 0
	for i, shown := range all {
		c := cases[i]
		s := NewSecrets()
		s.Add("s", c.Secret)
		m := s.Masker("s")
		k, n := len(c.Prefix), len(c.Secret)
		core := shown[4][(8*k+5)/6 : 8*(k+n)/6] // the run of the secret's bits only
		for j, text := range shown[:4] {
			if !strings.Contains(text, core) {
				crossed++
			}
			got := m.Replace(text)
			if strings.Contains(unwrap(got), core) || !m.InString(text) {
				if bad++; bad <= 10 {
					t.Errorf("%+v: shown %d %q masked as %q", c, j, text, got)
				}
			}
		}
	}
	if crossed < 2000 {
		t.Fatalf("the cases do not cross line ends: %d of %d", crossed, 4*len(cases))
	}
}

// kept is Add's report; it panics on an error (none is expected).
func kept(ok bool, err error) bool {
	if err != nil {
		panic(err)
	}
	return ok
}

// A session's secrets are bounded: past maxSecrets a new value fails with
// ErrFull, keeping nothing, while a value it holds is still found and a
// value it never keeps (too short) is refused as before; and a module that
// hands over a value then is denied, naming itself, so that its result is
// withheld (fail closed: a value not learned would not be masked).
func TestSecretsFull(t *testing.T) {
	s := NewSecrets()
	for i := range maxSecrets {
		if ok, err := s.Add("s", fmt.Sprintf("held-%06d", i)); !ok || err != nil {
			t.Fatalf("value %d: %v %v", i, ok, err)
		}
	}
	if !s.Full("s") || s.Full("other") {
		t.Fatal("Full")
	}
	if ok, err := s.Add("s", "one-too-many"); ok || !errors.Is(err, ErrFull) {
		t.Fatalf("past the bound: %v %v", ok, err)
	}
	if ok, err := s.Add("s", "held-000007"); !ok || err != nil {
		t.Fatalf("a held value: %v %v", ok, err)
	}
	if ok, err := s.Add("s", "abc"); ok || err != nil {
		t.Fatalf("a value never kept: %v %v", ok, err)
	}
	if ok, err := s.Add("other", "one-too-many"); !ok || err != nil {
		t.Fatalf("another session: %v %v", ok, err)
	}
	if m := s.Masker("s"); m.Replace("x one-too-many held-000007") != "x one-too-many "+Mask {
		t.Fatal("the masker of a full session")
	}

	ctx := context.Background()
	r, m := ownProbe(t, "learner")
	if res, err := m.Evaluate(ctx, "s1", request("secret")); err != nil || res.Reason != "handed" {
		t.Fatalf("with room: %+v %v", res, err)
	}
	for i := 1; i < maxSecrets; i++ {
		r.Secrets().Add("s1", fmt.Sprintf("held-%06d", i))
	}
	if res, err := m.Evaluate(ctx, "s1", request("secret")); err != nil || res.Reason != "handed" {
		t.Fatalf("a value held, when full: %+v %v", res, err)
	}
	for i := 0; i < maxSecrets; i++ {
		r.Secrets().Add("s3", fmt.Sprintf("held-%06d", i))
	}
	_, err := m.Evaluate(ctx, "s3", request("secret"))
	if err == nil || !strings.Contains(err.Error(), "module learner: ") || !strings.Contains(err.Error(), "guard.secret: the MCP session holds") {
		t.Fatalf("a new value, when full: %v", err)
	}
}

// TestCutShort: a value debugpy cut with "...", or showed by its type and
// length alone (a bytearray past 15 bytes), may hide what it holds; a
// value shown whole, or an object's repr, is not cut.
func TestCutShort(t *testing.T) {
	for shown, want := range map[string]bool{
		"['a', 'b', ...]": true, "'abc...xyz'": true, "<bytearray, len() = 20>": true, "<MyBytes, len() = 0x14>": true,
		"bytearray(b'short')": false, "<app.Client object at 0x7f00>": false,
		"[<bytearray, len() = 20>]": true, "": false,
	} {
		if got := CutShort(shown); got != want {
			t.Errorf("CutShort(%q) = %v, want %v", shown, got, want)
		}
	}
	for shown, want := range map[string]int64{ // the length shown, or -1
		"<bytearray, len() = 20>": 20, "<MyBytes, len() = 0x14>": 20, "['a', ...]": -1, "[<bytearray, len() = 20>]": -1,
		"<, len() = 3>": -1, "<bytearray, len() = >": -1, "bytearray, len() = 3": -1, "'<bytearray, len() = 20>'x": -1,
		"<bytearray, len() = abc>": -1, "<bytearray, len() = -1>": -1,
	} {
		n, ok := ShownByLength(shown)
		if !ok {
			n = -1
		}
		if n != want {
			t.Errorf("ShownByLength(%q) = %d, %v; want %d", shown, n, ok, want)
		}
	}
}

// TestShownByLengthAgreesWithPydevd holds ShownByLength and CutShort to
// pydevd's own SafeRepr: ShownByLength is true exactly when SafeRepr shows
// the value by its type and length alone (its _repr_long_iter, spied on),
// and CutShort whenever any part of the display was shown so, for values
// of every kind a program holds: bytearrays of every length up to 40 and a
// subclass's, and lists, tuples, dicts, sets, ranges, strings and bytes of
// them, nested.
func TestShownByLengthAgreesWithPydevd(t *testing.T) {
	cases := shownByPydevd(t, `
import collections, json, sys
from _pydevd_bundle.pydevd_safe_repr import SafeRepr
r = SafeRepr()
fired = []
orig = r._repr_long_iter
def spy(obj):
    fired.append(obj is top[0])
    return orig(obj)
r._repr_long_iter = spy
class Sub(bytearray): pass
values = []
for n in range(41):
    ba = bytearray(b'k' * n)
    values += [ba, Sub(ba), [ba], (1, ba), {'k': ba}, {n: [ba]}, bytes(ba), 'x' * n, list(range(n)), range(n),
               collections.deque(range(n)), collections.OrderedDict({'a': ba}), set(range(n)), frozenset(range(n))]
out = []
top = [None]
for v in values:
    top[0] = v
    fired.clear()
    shown = r(v)
    out.append({"secret": ("top" if True in fired else "nested" if fired else ""), "shown": shown})
json.dump(out, sys.stdout)
`)
	tops, nested := 0, 0
	for _, c := range cases {
		top := c.Secret == "top"
		if _, got := ShownByLength(c.Shown); got != top {
			t.Errorf("ShownByLength(%q) = %v, SafeRepr showed it by length: %v", c.Shown, got, top)
		}
		if c.Secret != "" && !CutShort(c.Shown) {
			t.Errorf("CutShort(%q) = false, SafeRepr showed a part by length", c.Shown)
		}
		if top {
			tops++
		} else if c.Secret == "nested" {
			nested++
		}
	}
	if tops < 40 || nested < 80 {
		t.Fatalf("too few values shown by length: %d whole, %d inside another", tops, nested)
	}
}

// TestCutReprsAgreeWithMinidom: minidom shows a text node (a comment, a
// CDATA section) by the repr of its first ten characters, then "...":
// <DOM Text node "'QvU7domaa9'...">. Random secrets held by such nodes,
// shown by CPython's minidom alone, in a list, and in a NodeList as
// pydevd's SafeRepr shows it (which cuts that repr again, inside a
// container: [<DOM Text node "'QvU...maa9'...">]), come back with no piece
// of minPiece+1 bytes of the secret's start; a node whose text is no
// secret's comes back as it was.
func TestCutReprsAgreeWithMinidom(t *testing.T) {
	cases := shownByPydevd(t, `
import json, random, string, xml.dom.minidom
from _pydevd_bundle.pydevd_safe_repr import SafeRepr
rng = random.Random(7)
doc = xml.dom.minidom.Document()
out = []
for n in range(400):
    secret = "".join(rng.choice(string.ascii_letters + string.digits + "-_!'\"\\") for _ in range(rng.randint(11, 30)))
    node = rng.choice([doc.createTextNode, doc.createComment, doc.createCDATASection])(secret)
    el = doc.createElement("x")
    el.appendChild(node)
    shown = rng.choice([repr(node), repr(el.childNodes), repr([node, node])])
    if rng.random() < 0.3:  # inside a container, as pydevd cuts a repr past 30 characters
        shown = SafeRepr()(el.childNodes)
    out.append({"Secret": secret, "Shown": shown})
print(json.dumps(out))
`)
	for _, c := range cases {
		head := pyrepr.Repr(c.Secret[:10])
		body := head[1 : len(head)-1]
		if !strings.Contains(c.Shown, head+"...") && !strings.Contains(c.Shown, "...") {
			t.Fatalf("minidom showed %q as %s, not by its first ten characters' repr %s", c.Secret, c.Shown, head)
		}
		got := maskerOf(t, c.Secret).Replace(c.Shown)
		const around = `[<DOM Text node "', <DOM Comment node "', <DOM CDATASection node "'...">]` // what minidom and pydevd write
		for i := 0; i+minPiece+1 <= len(body); i++ {
			if w := body[i : i+minPiece+1]; strings.Contains(got, w) && !strings.Contains(around, w) {
				t.Errorf("secret %q shown as %s: masked to %s", c.Secret, c.Shown, got)
				break
			}
		}
		if other := maskerOf(t, fmt.Sprintf("%x", sha256.Sum256([]byte(c.Secret)))); other.Replace(c.Shown) != c.Shown { // another secret
			t.Errorf("no secret's %s masked: %s", c.Shown, other.Replace(c.Shown))
		}
	}
}

// TestCopiesAgreeWithCPython: a copy a program makes of a secret (its
// case folded, its UTF-16's bytes), shown by CPython's repr, alone, in a
// list and in a dict, comes back masked; and a copy is masked whole only:
// a piece of it beside a cut is left (three bytes of a value in lower case
// would begin much of any text).
func TestCopiesAgreeWithCPython(t *testing.T) {
	cases := shownByPydevd(t, `
import json, random, string
rng = random.Random(11)
out = []
for n in range(300):
    secret = "".join(rng.choice(string.ascii_letters + string.digits + "-_!'\"\\") for _ in range(rng.randint(6, 30)))
    copy = rng.choice([secret.lower(), secret.upper(), secret.encode("utf-16-le")])
    out.append({"Secret": secret, "Shown": rng.choice([repr(copy), repr([copy, 1]), repr({"k": copy})])})
print(json.dumps(out))
`)
	masked := 0
	for _, c := range cases {
		got := maskerOf(t, c.Secret).Replace(c.Shown)
		if got == c.Shown && (strings.ToLower(c.Secret) != c.Secret || strings.ToUpper(c.Secret) != c.Secret || strings.Contains(c.Shown, `\x00`)) {
			t.Errorf("secret %q's copy shown as %s, not masked", c.Secret, c.Shown)
		}
		if got != c.Shown {
			masked++
		}
	}
	if masked < 250 {
		t.Errorf("%d of %d copies masked", masked, len(cases))
	}
	m := maskerOf(t, "QvU7pass93kdW")
	for _, shown := range []string{"'qvu7xxxxxxxxxxxxxxxxxxxxxxxxxxx...'", "'xxxxxxxxxxxxxxxxxxxxxxxxxxxx...3kdw'"} {
		if got := m.Replace(shown); got != shown {
			t.Errorf("%s: a copy's piece beside a cut masked: %s", shown, got)
		}
	}
}
