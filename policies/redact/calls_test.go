package redact

import (
	"strings"
	"testing"
)

func TestMaskCalls(t *testing.T) {
	for _, c := range []struct{ in, want, found string }{
		{`server.login("ada@example.com", "S3cretApp")`, `server.login("ada@example.com", "[redacted]")`, "S3cretApp"},
		{`    server.login(USER, "S3cret" "App")`, `    server.login(USER, "[redacted]" "[redacted]")`, "S3cret"},
		{"ftp = FTP('ftp.example.com', 'ada', 'S3cret\\'s')", "ftp = FTP('ftp.example.com', 'ada', '[redacted]')", "S3cret's"},
		{"ftp = FTP('ftp.example.com')", "ftp = FTP('ftp.example.com')", ""},
		{"auth = HTTPBasicAuth('ada', 'S3cretBas1')", "auth = HTTPBasicAuth('ada', '[redacted]')", "S3cretBas1"},
		{"keyring.set_password('svc', 'ada', 'S3cretKr1')", "keyring.set_password('svc', 'ada', '[redacted]')", "S3cretKr1"},
		{"user.set_password('S3cretDj1')", "user.set_password('[redacted]')", "S3cretDj1"},
		{"db = pymysql.connect('localhost', 'root', 'S3cretMy1', 'app')", "db = pymysql.connect('localhost', 'root', '[redacted]', 'app')", "S3cretMy1"},
		{"sqlite3.connect('a', 'b', 'c')", "sqlite3.connect('a', 'b', 'c')", ""},
		{"f = Fernet(b'S3cretKeyS3cretKey')", "f = Fernet(b'[redacted]')", "S3cretKeyS3cretKey"},
		{"hmac.new(b'k3y-bytes', msg, 'sha256')", "hmac.new(b'[redacted]', msg, 'sha256')", "k3y-bytes"},
		{"x.new(b'k3y-bytes')", "x.new(b'k3y-bytes')", ""},
		{"imap.login(get_user(cfg, 'x'), 'S3cretImap')", "imap.login(get_user(cfg, 'x'), '[redacted]')", "S3cretImap"},
		{"imap.login(user, pw)", "imap.login(user, pw)", ""},
		{"imap.login(user, 'S3cret' + suffix)", "imap.login(user, 'S3cret' + suffix)", ""},
		{"smtp.login('ada', password='S3cretKw1')", "smtp.login('ada', password='S3cretKw1')", ""}, // a keyword's: maskPairs
		{"server.login(\n    'ada',\n    'S3cret-multi',\n)", "server.login(\n    'ada',\n    '[redacted]',\n)", "S3cret-multi"},
		{"conn.simple_bind_s('cn=admin,dc=x', 'S3cretLdap')", "conn.simple_bind_s('cn=admin,dc=x', '[redacted]')", "S3cretLdap"},
		{"s.login('10.0.0.5', 'ada', 'S3cretSsh1')", "s.login('10.0.0.5', '[redacted]', '[redacted]')", "S3cretSsh1"},
		{"conn.bind('cn=admin,dc=x', 'S3cretLdap', ldap.AUTH_SIMPLE)", "conn.bind('cn=admin,dc=x', '[redacted]', ldap.AUTH_SIMPLE)", "S3cretLdap"},
		{"sock.bind(('127.0.0.1', 8080))", "sock.bind(('127.0.0.1', 8080))", ""},
		{"c.oper('ada', 'S3cretIrc1')", "c.oper('ada', '[redacted]')", "S3cretIrc1"},
	} {
		var found []string
		got, changed := maskCalls(c.in, func(v string) { found = append(found, v) })
		if got != c.want || changed != (c.want != c.in) {
			t.Errorf("%q:\n got %q\nwant %q", c.in, got, c.want)
		}
		if c.found != "" && !strings.Contains(strings.Join(found, ","), c.found) || c.found == "" && len(found) > 0 {
			t.Errorf("%q: found %q, want %q", c.in, found, c.found)
		}
	}
}

// TestCallsAgreeWithPython: calls of every callee of the table, with
// their secret and other arguments written as repr writes any string
// (quotes, escapes, letters that are not ASCII, bytes), pieces
// concatenated, nested calls, keywords after them, on one line or one
// argument a line with a trailing comma, are masked and read back with
// CPython's ast: the secret argument reads as the mask (each piece), every
// other argument as it was.
func TestCallsAgreeWithPython(t *testing.T) {
	againstPython(t, callDocs, callCheck, 3000, func(s string) string { out, _ := maskCalls(s, nil); return out })
}

const callDocs = `
import json, random, sys
rng = random.Random(int(sys.argv[1]))
CALLS = [("server.login", 1, 2), ("imaplib.IMAP4_SSL(h).login", 1, 2), ("ssh.login", (1, 2), 3), ("pop.pass_", 0, 1), ("FTP", 2, 3),
         ("ftplib.FTP_TLS", 2, 3), ("requests.auth.HTTPBasicAuth", 1, 2), ("HTTPDigestAuth", 1, 2),
         ("aiohttp.BasicAuth", 1, 2), ("conn.simple_bind_s", 1, 2), ("keyring.set_password", 2, 3),
         ("user.set_password", 0, 1), ("mgr.add_password", 3, 4), ("Fernet", 0, 1), ("hmac.new", 0, 3),
         ("jwt.encode", 1, 3), ("pymysql.connect", 2, 4), ("SMBConnection", 1, 4), ("CommunityData", 0, 1),
         ("pysnmp.hlapi.UsmUserData", (1, 2), 3), ("transport.auth_password", 1, 2), ("pika.PlainCredentials", 1, 2),
         ("Minio", 2, 3), ("pymssql.connect", 2, 4), ("cx_Oracle.connect", 1, 3), ("redis.Redis", 3, 4), ("db.authenticate", 1, 2),
         ("conn.bind", 1, 2), ("conn.rebind", 1, 2), ("connection.oper", 1, 2)]
def text():
    chars = "abcXYZ0189 '\"\\\\\t\n%,()=:#é€😀\x00"
    return "".join(rng.choice(chars) for _ in range(rng.randint(0, 10)))
def literal(secret):
    v = ("s3" if secret else "") + text()
    if rng.random() < 0.2:
        return repr(v.encode())
    if rng.random() < 0.2:
        cut = rng.randint(0, len(v))
        return repr(v[:cut]) + rng.choice([" ", "\n    "]) + repr(v[cut:])
    return repr(v)
def other():
    return rng.choice([lambda: literal(False), lambda: "user", lambda: "22", lambda: "get(cfg, 'k')",
                       lambda: "[1, (2, 'x')]", lambda: "{'a': 'b'}", lambda: "'a' + b"])()
n = int(sys.argv[2])
for i in range(n):
    name, at, count = rng.choice(CALLS)
    args = [other() for _ in range(count)]
    at = at if isinstance(at, tuple) else (at,)
    for k in at:
        args[k] = literal(True)
    if rng.random() < 0.3:
        args.append(rng.choice(["timeout=5", "port='x'", "verbose=True"]))
    if rng.random() < 0.5:
        call = name + "(" + ", ".join(args) + ")"
    else:
        call = name + "(\n" + "".join("    " + a + ",\n" for a in args) + ")"
    text_ = rng.choice(["x = ", "", "    return "]) + call
    src = text_ if not text_.startswith("    ") else "def f():\n" + text_
    print(json.dumps([src, name, json.dumps(at)]))
`

const callCheck = `
import ast, json, sys
M = "[redacted]"
def calls(src, name):
    out = []
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.Call) and ast.unparse(node.func).split("(")[0].endswith(name.split("(")[0].split(".")[-1]) and ast.unparse(node.func).replace(" ", "") == name.replace(" ", "").replace("(h)", "(h)"):
            out.append(node)
    return out
for line in sys.stdin:
    src, masked, name, at = json.loads(line)
    at = json.loads(at)
    try:
        a, b = calls(src, name), calls(masked, name)
        if len(a) != 1 or len(b) != 1:
            raise ValueError("calls: %d, %d" % (len(a), len(b)))
        a, b = a[0], b[0]
        why = ""
        for k, (x, y) in enumerate(zip(a.args, b.args)):
            if k in at:
                if not isinstance(y, ast.Constant) or y.value.replace(M if isinstance(y.value, str) else M.encode(), type(y.value)()) != type(y.value)() or (y.value == type(y.value)()) != (x.value == type(x.value)()):
                    why = "the secret reads %r" % (y.value,)
            elif ast.dump(x) != ast.dump(y):
                why = "argument %d reads %s, was %s" % (k, ast.unparse(y), ast.unparse(x))
        if ast.dump(a.func) != ast.dump(b.func) or len(a.args) != len(b.args) or [ast.dump(k) for k in a.keywords] != [ast.dump(k) for k in b.keywords]:
            why = why or "the call changed"
    except Exception as e:
        why = "does not parse: %r" % e
    print(json.dumps(why))
`

// FuzzMaskCalls: any text is masked without a panic and keeps its line
// ends; what is handed over is a piece of the text or one decoded.
func FuzzMaskCalls(f *testing.F) {
	fuzzKeepsLines(f, func(t *testing.T, s string) string { out, _ := maskCalls(s, func(string) {}); return out },
		"server.login(\n 'a',\n 'b' 'c',\n)", "FTP('h', u, '\\x41')", "login(login(login('a', ", "hmac.new(b'k', m)")
}

// BenchmarkMaskCalls: calls nested without end, or many on a line, are
// read in a bounded time a call.
func BenchmarkMaskCalls(b *testing.B) {
	for _, c := range []struct{ name, s string }{
		{"nested", strings.Repeat("login(", 20000)},
		{"many", strings.Repeat("server.login('ada', 'S3cret'); ", 5000)},
		{"other", strings.Repeat("Timestamp('2026-12-05 10:00:00'), ", 5000)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.s)))
			for b.Loop() {
				maskCalls(c.s, nil)
			}
		})
	}
}
