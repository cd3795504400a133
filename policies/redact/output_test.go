package redact

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/debugpy-guard/debugpy-guard/policies/secrets"
)

func TestSplitMasked(t *testing.T) {
	for _, c := range []struct {
		pieces []string
		masked string
		want   []string
	}{
		{[]string{"user,password\n", "ada,s3cret\n"}, "user,password\nada,[redacted]\n", []string{"user,password\n", "ada,[redacted]\n"}},
		// A value cut between two pieces: the first holds the mask, the
		// second keeps only what follows the value.
		{[]string{"password: hun", "ter2\nport: 1\n"}, "password: [redacted]\nport: 1\n", []string{"password: [redacted]", "\nport: 1\n"}},
		{[]string{"a=1 password=x", "yz b=2\n"}, "a=1 password=[redacted] b=2\n", []string{"a=1 password=[redacted]", " b=2\n"}},
		// A piece inside the masked span keeps nothing of it.
		{[]string{"key: ab", "cd", "ef\n"}, "key: [redacted]\n", []string{"key: [redacted]", "", "\n"}},
		{[]string{"", "x: 1\n", ""}, "x: 1\n", []string{"", "x: 1\n", ""}},
		// Lines added or lost: each piece masked whole, line by line.
		{[]string{"-----BEGIN\nk\n", "-----END\n"}, "[redacted]\n", []string{"[redacted]\n[redacted]\n", "[redacted]\n"}},
	} {
		got := splitMasked(c.pieces, strings.Join(c.pieces, ""), c.masked)
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%q into %q: %q, want %q", c.pieces, c.masked, got, c.want)
		}
	}
}

// FuzzSplitMasked: for any text cut into pieces, and any spans of its
// lines masked, the pieces' parts join into the masked text, and a piece
// whose lines no mask changed keeps its text.
func FuzzSplitMasked(f *testing.F) {
	f.Add("user,password\nada,s3cret\nbob,other\n", uint64(1))
	f.Add("db:\n  password:\n    primary: x\n", uint64(7))
	f.Add("no newline at the end", uint64(3))
	f.Fuzz(func(t *testing.T, text string, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, seed>>7))
		var pieces []string
		for rest := text; ; {
			if rest == "" || rng.IntN(4) == 0 {
				pieces = append(pieces, rest)
				break
			}
			n := rng.IntN(len(rest) + 1)
			pieces, rest = append(pieces, rest[:n]), rest[n:]
		}
		lines := strings.SplitAfter(text, "\n")
		changed := make([]bool, len(lines))
		var m strings.Builder
		for i, l := range lines {
			body := strings.TrimSuffix(l, "\n")
			if rng.IntN(3) == 0 && l != "" { // a mask replaces what a line holds
				a := rng.IntN(len(body) + 1)
				b := a + rng.IntN(len(body)-a+1)
				body, changed[i] = body[:a]+mask+body[b:], true
			}
			m.WriteString(body + l[len(strings.TrimSuffix(l, "\n")):])
		}
		masked := m.String()
		got := splitMasked(pieces, text, masked)
		if len(got) != len(pieces) || strings.Join(got, "") != masked {
			t.Fatalf("%q into %q: %q", pieces, masked, got)
		}
		off := 0
		for k, p := range pieces {
			first := strings.Count(text[:off], "\n")
			last := first + strings.Count(strings.TrimSuffix(p, "\n"), "\n")
			same := true
			for i := first; i <= last && i < len(lines); i++ {
				same = same && !changed[i]
			}
			if same && got[k] != p {
				t.Fatalf("piece %d %q of unchanged lines became %q (pieces %q, masked %q)", k, p, got[k], pieces, masked)
			}
			off += len(p)
		}
	})
}

// FuzzMaskTextKeepsLines: every mask keeps the text's line ends, so that a
// text masked whole is cut back into its pieces line by line (splitMasked)
// and not masked whole.
func FuzzMaskTextKeepsLines(f *testing.F) {
	fuzzKeepsLines(f, func(t *testing.T, s string) string { out, _ := maskText(s, nil); return out },
		"user,password\nada,s3cret\n", "db:\n  password:\n    primary: x\n", "password = (\n  'a'\n  'b')\n",
		"{'api_key': {'prod': 'x',\n 'dev': 'y'}}\n", "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\n",
		"[secrets]\ntoken = abc # c\n", "machine h login u password p\n", "token: \"a\n  b\"\nnext: 1\n",
		"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmN\r\n",
		"'{\\'password\\': \\'x\\'}'\n", "env PASSWORD=abc#def\nnext\n", "postgres://app:pw@db/x\n",
		"GET /f?sv=1&amp;sig=Ab12%2BCd34\n#x\n", "SG.Ab12Cd34Ef56Gh78Ij90Kl.MnOpQrStUvWxYz0123456789abcdefghijklmnoPQ.\n",
		"sent https://ada:pw1... (truncated)\nINSERT INTO t (a, password) VALUES ('x', 'y\n", "<c>\n  <password>\n    x1\n**API key:** k-1\n",
		"x\\nglass collect suit access child oak spatial nerve loud oxygen program few\\n", "['abandon', 'ability', 'able', 'about', 'above', 'absent', 'absorb', 'abstract', 'absurd', 'abuse', 'access', 'accident']\r\n",
		"('AUTH', 'default', 'pw1')\r\nRsaKey(n=1, e=3, d=12345, p=5, q=7, u=1)\nPrivateKey(1, 2, 3, 4, 5)\r{'g': Integer(1), 'x': Integer(12...34)}")
}

// FuzzMaskNamedNeedsAName: the masks maskText skips on a text that names
// no secret (secrets.Mentions) find nothing in it: whatever a mask reads
// as a secret's name is in the text, or in it decoded (an escape, a
// letter folded: Mentions says yes to those), or with its blanks and
// dashes for underscores (Mentions reads them so).
func FuzzMaskNamedNeedsAName(f *testing.F) {
	for _, s := range []string{
		"| user | Api Key |\n|---|---|\n| a | b |\n", "user,Access Key\nada,k\n", "x  Private Key\n1  k\n",
		"user,password\nada,s3cret\n", "db:\n  pass-word:\n    primary: x\n", "[api keys]\nprod = k1\n", "Server=db;PWD=x;",
		"{'pass\\x77ord': 'x'}", "<pàssword>x</pàssword>", "--api-key k1", "Authorization: Bearer abcdefgh12345678",
		"AUTH_TOKEN=abc1", "'{\\'secret\\': \\'x\\'}'", "0    x\nName: API Key, dtype: object\n", "Cookie: session=abcd1234",
		"user  credential\nada   x1\n", "ApiKey: k1", "api.key=k1", "X-Api-Key: k1", "client secret: 'x'",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if secrets.Mentions(s, nil) {
			return
		}
		if m, changed := maskNamedAt(s, nil, remember, nestedDepth); changed || m != s {
			t.Fatalf("%q names no secret, but is masked %q", s, m)
		}
	})
}
