package redact

import (
	"strings"
	"testing"
)

func TestMaskCredentialLines(t *testing.T) {
	for _, c := range []struct{ in, want, found string }{
		// .pgpass: the fifth field, as written and as libpq reads it.
		{"db.example.com:5432:orders:app:pg-s3cret\n", "db.example.com:5432:orders:app:[redacted]\n", "pg-s3cret"},
		{"*:*:*:postgres:with\\:colon and space\r\n", "*:*:*:postgres:[redacted]\r\n", `with\:colon and space,with:colon and space`},
		{"  /var/run/postgresql:5432:*:ada:sock-s3cret", "  /var/run/postgresql:5432:*:ada:[redacted]", "sock-s3cret"},
		{"# host:5432:db:user:pw\nlocalhost:5432:db:u:two-s3cret\n", "# host:5432:db:user:pw\nlocalhost:5432:db:u:[redacted]\n", "two-s3cret"},
		// .netrc: the values of password and account, on a line of pairs.
		{"machine api.example.com login ada password nrc-s3cret\n", "machine api.example.com login ada password [redacted]\n", "nrc-s3cret"},
		{"machine m\n  login ada\n  password own-line-s3cret\n  account acct-s3cret\n", "machine m\n  login ada\n  password [redacted]\n  account [redacted]\n", "own-line-s3cret,acct-s3cret"},
		{"default login anon password \"quoted s3cret\"\n", "default login anon password \"[redacted]\"\n", "quoted s3cret"},
		// Not such lines: an IPv6 address, a time, code, prose, a URL.
		{"fe80::1:2:3:4\n2001:db8:85a3:0:0:8a2e:370:7334\n00:1a:2b:3c:4d:5e\n", "", ""},
		{"12:30:00\nx = a[1:2:3]\nd = {'a': 1, 'b': 2, 'c': 3, 'd': 4}\n", "", ""},
		{"host:port:db:user:pw\nh:5432:db:user:\nh:5432::user:pw\n", "", ""},
		{"Enter the password for the machine\npassword\nthe password is set\npassword =\npassword : x\n", "", ""},
		{"https://a:b@h:1/x:y:z\n", "", ""},
	} {
		var got []string
		out, changed := maskCredentialLines(c.in, func(v string) { got = append(got, v) })
		want := c.want
		if want == "" {
			want = c.in
		}
		if out != want || changed != (c.want != "") || strings.Join(got, ",") != c.found {
			t.Errorf("maskCredentialLines(%q) = %q %v %q, want %q %q", c.in, out, changed, got, want, c.found)
		}
	}
}

// Through all of redact: a credential file's values are read first and
// kept whole; a short one is not masked by value elsewhere.
func TestCredentialValuesThroughRedact(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		// two lines a table's reading took for a header and a row
		{"machine x.com login ada password s3cret1\nmachine y.com login bob password pw2xyz\n",
			"machine x.com login ada password [redacted]\nmachine y.com login [redacted] [redacted]\n"},
		{`'db.example.com:5432:app:ada:pg-s3cret\nh2.example.com:5432:*:bob:pg-two\n'`,
			`'db.example.com:5432:app:ada:[redacted]\nh2.example.com:5432:*:bob:[redacted]\n'`},
		{"machine a.com login ada password a\nthe a team\n", "machine a.com login ada password [redacted]\nthe a team\n"},
	} {
		if got, _ := maskText(c.in, nil); got != c.want {
			t.Errorf("maskText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzMaskCredentialLines: no text makes it fail; it keeps the lines, and
// what it hands over is no longer in its result.
func FuzzMaskCredentialLines(f *testing.F) {
	fuzzKeepsLines(f, func(t *testing.T, s string) string {
		out, _ := maskCredentialLines(s, func(v string) {
			if v == "" {
				t.Fatalf("%q: an empty secret handed over", s)
			}
		})
		return out
	}, "h:5432:db:u:p\\:w\nmachine m password \"q\\\"x\"\n", "password\n:::::\n")
}

// TestCredentialFilesAgreeWithPython: .netrc files of one to five
// machines, a machine a line (which read as a table's header and rows to
// the reading of lined-up tables), and .pgpass files, printed and as a
// repr: Python's netrc module and the .pgpass format name each password,
// and no 6 bytes of one are left; every machine's name is shown. A table's
// reading masked the second line's password keyword and left its value
// shown (found 2026-12-06).
func TestCredentialFilesAgreeWithPython(t *testing.T) {
	againstPython(t, credentialFileDocs, credentialFileCheck, 300, func(s string) string { out, _ := maskText(s, nil); return out })
}

const credentialFileDocs = `
import json, netrc, os, random, string, sys, tempfile
rng = random.Random(int(sys.argv[1]))
def tok(n):
    return "".join(rng.choice(string.ascii_letters + string.digits + "!#%&*+-./;<=>?@[]^_{|}~") for _ in range(n))
d = tempfile.mkdtemp()
for n in range(int(sys.argv[2])):
    hosts = ["host%d-%d.example.com" % (n, k) for k in range(rng.randint(1, 5))]
    if rng.randrange(2):
        text = "".join("machine %s login %s password %s\n" % (h, rng.choice(["ada", "bob", "deploy"]), tok(rng.randint(6, 16))) for h in hosts)
        path = os.path.join(d, "netrc")
        open(path, "w").write(text)
        os.chmod(path, 0o600)
        pws = [netrc.netrc(path).authenticators(h)[2] for h in hosts]
    else:
        pws = [tok(rng.randint(6, 16)).replace(":", "").replace("\\\\", "") + "x" for h in hosts]
        text = "".join("%s:5432:app:ada:%s\n" % (h, p) for h, p in zip(hosts, pws))
    if rng.randrange(2):
        text = repr(text)
    print(json.dumps([text, json.dumps(pws), json.dumps(hosts)]))
`

const credentialFileCheck = `
import json, sys
for line in sys.stdin:
    text, masked, pws, hosts = json.loads(line)
    left = [p for p in json.loads(pws) if any(p[i:i + 6] in masked for i in range(len(p) - 5))]
    lost = [h for h in json.loads(hosts) if h not in masked]
    print(json.dumps("left %r" % left if left else "controls masked %r" % lost if lost else ""))
`
