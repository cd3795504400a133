package redact

import (
	"strings"
	"testing"
)

// TestPicklesAgreeWithPython: objects pickled by CPython in every
// protocol (dicts with secrets' names among their keys, lists of them,
// whose repeated keys the memo fetches, an object's attributes, nested
// values), shown as a bytes repr (alone, as a listing's row, a bytearray's
// repr), are masked: read back by ast, no value under a secret's name is
// left in the bytes, and every other value is.
func TestPicklesAgreeWithPython(t *testing.T) {
	againstPython(t, pickleDocs, pickleCheck, 1500, func(s string) string { out, _ := maskPickles(s, nil, nil); return out })
}

const pickleDocs = `
import json, pickle, random, sys
rng = random.Random(int(sys.argv[1]))
class Cfg:
    pass
def text(secret):
    chars = "abcXYZ0189 '\"\\\\\t\n%,()=:#é€😀\x00.q"
    return ("s3" if secret else "v7") + "".join(rng.choice(chars) for _ in range(rng.randint(2, 12)))
SECRET = ["password", "api_key", "token", "db_password", "client_secret"]
PLAIN = ["user", "host", "name", "region", "mode"]
def record(secrets, plain):
    d = {}
    for _ in range(rng.randint(1, 4)):
        if rng.random() < 0.5:
            v = text(True); d[rng.choice(SECRET)] = v
        else:
            v = text(False); d[rng.choice(PLAIN)] = v
    for k, v in d.items():
        (secrets if k in SECRET else plain).append(v)
    if rng.random() < 0.3:
        d["n"] = rng.randint(0, 10**6)
    return d
n = int(sys.argv[2])
for i in range(n):
    secrets, plain = [], []
    shape = rng.randrange(4)
    if shape == 0:
        obj = record(secrets, plain)
    elif shape == 1:
        obj = [record(secrets, plain) for _ in range(rng.randint(2, 4))]
    elif shape == 2:
        obj = Cfg()
        obj.__dict__.update(record(secrets, plain))
    else:
        obj = {"inner": record(secrets, plain), "items": [1, 2]}
    data = pickle.dumps(obj, protocol=rng.randint(0, 5))
    form = rng.randrange(3)
    if form == 0:
        shown = repr(data)
    elif form == 1:
        shown = "data: bytes = " + repr(data)
    else:
        shown = repr(bytearray(data))
    print(json.dumps([shown, json.dumps([secrets, plain])]))
`

const pickleCheck = `
import ast, json, sys
def value(shown):
    if shown.startswith("data: bytes = "):
        shown = shown[len("data: bytes = "):]
    return bytes(ast.literal_eval(shown[len("bytearray("):-1] if shown.startswith("bytearray(") else shown))
def forms(v):
    out = [v.encode("utf-8")]
    try:
        e = v.replace("\\", "\\u005c").replace("\0", "\\u0000").replace("\n", "\\u000a").replace("\r", "\\u000d").replace("\x1a", "\\u001a")
        out.append(e.encode("raw-unicode-escape"))  # protocol 0's UNICODE, as pickle writes it
    except Exception:
        pass
    return out
for line in sys.stdin:
    shown, masked, meta = json.loads(line)
    secrets, plain = json.loads(meta)
    why = ""
    try:
        got = value(masked)
        for v in secrets:
            if any(f in got for f in forms(v)):
                why = "a secret left: %r" % v
        for v in plain:
            if not any(f in got for f in forms(v)):
                why = why or "a value of no secret masked: %r" % v
    except Exception as e:
        why = "does not parse: %r" % e
    print(json.dumps(why))
`

// FuzzPickleSecrets: any bytes are read without a panic, and every span
// is inside them.
func FuzzPickleSecrets(f *testing.F) {
	for _, s := range []string{"\x80\x04\x95\x00\x00\x00\x00\x00\x00\x00\x00}\x94(\x8c\x08password\x94\x8c\x02pw\x94s.", "(dp0\nVpassword\np1\nVx\np2\ns.",
		"}q\x00X\x05\x00\x00\x00tokenq\x01h\x01", "\x8c\xffpassword", "X\xff\xff\xff\xff", "\x8d\xff\xff\xff\xff\xff\xff\xff\xff", "r\x00\x00\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		for _, sp := range pickleSecrets(p, nil) {
			if sp[0] < 0 || sp[1] > len(p) || sp[0] > sp[1] {
				t.Fatalf("%q: span %v", p, sp)
			}
		}
		if !strings.Contains(p, "\n") {
			maskPickles("b'"+p+"'", nil, nil)
		}
	})
}
