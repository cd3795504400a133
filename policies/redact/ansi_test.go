package redact

import (
	"strings"
	"testing"
)

func TestMaskEscapes(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		// structlog's ConsoleRenderer: a key's colour, then its value's
		{"\x1b[36muser\x1b[0m=\x1b[35mada\x1b[0m \x1b[36mpassword\x1b[0m=\x1b[35mS3cret-struct\x1b[0m",
			"\x1b[36muser\x1b[0m=\x1b[35mada\x1b[0m \x1b[36mpassword\x1b[0m=\x1b[35m[redacted]\x1b[0m"},
		// jq -C
		{"{\x1b[1;34m\"password\"\x1b[0m: \x1b[0;32m\"S3cret-jq\"\x1b[0m, \x1b[1;34m\"user\"\x1b[0m: \x1b[0;32m\"ada\"\x1b[0m}",
			"{\x1b[1;34m\"password\"\x1b[0m: \x1b[0;32m\"[redacted]\"\x1b[0m, \x1b[1;34m\"user\"\x1b[0m: \x1b[0;32m\"ada\"\x1b[0m}"},
		// pytest --color=yes
		{">       \x1b[94massert\x1b[39;49;00m c.password == \x1b[33m'\x1b[39;49;00m\x1b[33mx\x1b[39;49;00m\x1b[33m'\x1b[39;49;00m\n\x1b[1m\x1b[31mE       AssertionError: assert 'S3cret-py' == 'x'\x1b[0m\n",
			">       \x1b[94massert\x1b[39;49;00m c.password == \x1b[33m'\x1b[39;49;00m\x1b[33mx\x1b[39;49;00m\x1b[33m'\x1b[39;49;00m\n\x1b[1m\x1b[31mE       AssertionError: assert '[redacted]' == 'x'\x1b[0m\n"},
		// an escape inside the value, and a link (OSC 8) around a URL
		{"\x1b[1mDB_PASSWORD\x1b[0m: S3c\x1b[1mret-in\x1b[0m",
			"\x1b[1mDB_PASSWORD\x1b[0m: [redacted]\x1b[0m"},
		{"\x1b]8;;https://ada:S3cret-link@db.example\x1b\\db\x1b]8;;\x1b\\ password=S3cret-osc",
			"\x1b]8;;https://ada:[redacted]@db.example\x1b\\db\x1b]8;;\x1b\\ password=[redacted]"},
		// what the bytes show is masked though an escape's reading hides it
		{"password=\x1b[=S3cret-raw x", "password=[redacted] x"},
		// nothing to mask: the text as it was, escapes and all
		{"\x1b[31mERROR\x1b[0m user=ada\x1b", "\x1b[31mERROR\x1b[0m user=ada\x1b"},
	} {
		if got, _ := maskText(c.in, nil); got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

// TestColouredOutputAgreesWithStructlogAndJq: what structlog's
// ConsoleRenderer (colours on) and jq -C write of records that hold
// secrets under their names: no 8 bytes of a secret left, the other values
// shown, and colours kept.
func TestColouredOutputAgreesWithStructlogAndJq(t *testing.T) {
	againstPython(t, colouredDocs, colouredCheck, 300, func(s string) string { out, _ := maskText(s, nil); return out })
}

const colouredDocs = `
import io, json, random, string, subprocess, sys, structlog
rng = random.Random(int(sys.argv[1]))
SECRET = ["password", "api_key", "token", "db_password", "client_secret", "auth_token"]
OTHER = ["user", "host", "n", "region", "path"]
def secret():
    return "S" + "".join(rng.choice(string.ascii_letters + string.digits + "-_.") for _ in range(rng.randint(9, 16)))
for i in range(int(sys.argv[2])):
    secrets, controls = [], []
    def value(name):
        if name in SECRET:
            secrets.append(secret())
            return secrets[-1]
        controls.append("ctrl%dx%d" % (i, len(controls)))
        return controls[-1]
    names = rng.sample(SECRET, rng.randint(1, 3)) + rng.sample(OTHER, rng.randint(1, 3))
    rng.shuffle(names)
    doc = {n: value(n) for n in names}
    if rng.random() < 0.5:
        buf = io.StringIO()
        structlog.configure(processors=[structlog.processors.add_log_level, structlog.dev.ConsoleRenderer(colors=True, sort_keys=rng.random() < 0.5)],
                            logger_factory=structlog.PrintLoggerFactory(buf), cache_logger_on_first_use=False)
        structlog.get_logger().info(rng.choice(["login", "request done", "rotated"]), **doc)
        out = buf.getvalue()
    else:
        if rng.random() < 0.5:
            doc = {"items": [doc], "count": 1}
        args = ["jq", "-C"] + (["-c"] if rng.random() < 0.5 else []) + ["."]
        out = subprocess.run(args, input=json.dumps(doc), capture_output=True, text=True, check=True).stdout
    print(json.dumps([out, json.dumps(secrets), json.dumps(controls)]))
`

const colouredCheck = `
import json, sys
for line in sys.stdin:
    text, masked, secrets, controls = json.loads(line)
    bad = [s for s in json.loads(secrets) if any(s[i:i + 8] in masked for i in range(len(s) - 7))]
    lost = [c for c in json.loads(controls) if c not in masked]
    print(json.dumps("left %r" % bad if bad else "controls masked %r" % lost if lost else "" if "\x1b[" in masked else "colours lost"))
`

// FuzzEscapes: withEscapes gives the text back when nothing was masked,
// and maskText keeps a text's lines whatever its escapes.
func FuzzEscapes(f *testing.F) {
	for _, s := range []string{"\x1b[36mpassword\x1b[0m=\x1b[35mS3cret\x1b[0m\nx", "\x1b]8;;u\x07a\x1b]8;;\x1b\\", "\x1b[1;3", "\x1b\x1b[m\r\n\x1b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		plain, at := withoutEscapes(s)
		if len(at) != len(plain)+1 {
			t.Fatalf("%q: %d offsets for %d bytes", s, len(at), len(plain))
		}
		if got := withEscapes(s, plain, plain, at); got != s {
			t.Fatalf("%q: nothing masked, got %q", s, got)
		}
		got, _ := maskText(s, nil)
		if strings.Count(got, "\n") != strings.Count(s, "\n") {
			t.Fatalf("%q: lines changed: %q", s, got)
		}
	})
}
