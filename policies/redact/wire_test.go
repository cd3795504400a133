package redact

import (
	"strings"
	"testing"
)

func TestMaskWire(t *testing.T) {
	for _, c := range []struct{ in, want, found string }{
		// redis-py's send_command args at a stop in on_connect, and a listing's row of them
		{"('AUTH', 'default', 'S3cretRd1')", "('AUTH', 'default', '[redacted]')", "S3cretRd1"},
		{"args: tuple = ('AUTH', 'S3cretRd1')", "args: tuple = ('AUTH', '[redacted]')", "S3cretRd1"},
		{"('HELLO', 3, 'AUTH', 'default', 'S3cretRd1')", "('HELLO', 3, 'AUTH', 'default', '[redacted]')", "S3cretRd1"},
		{"('HELLO', '3', 'AUTH', 'default', 'S3cretRd1', 'SETNAME', 'app')", "('HELLO', '3', 'AUTH', 'default', '[redacted]', 'SETNAME', 'app')", "S3cretRd1"},
		{"('ACL SETUSER', 'ada', 'reset', 'on', b'>S3cretRd1', '~*', '+@all')", "('ACL SETUSER', 'ada', 'reset', 'on', b'>[redacted]', '~*', '+@all')", "S3cretRd1"},
		{"['ACL', 'SETUSER', 'ada', '<0ldPassw0rd', '>n3wPassw0rd']", "['ACL', 'SETUSER', 'ada', '<[redacted]', '>[redacted]']", "0ldPassw0rd,n3wPassw0rd"},
		{"('MIGRATE', 'h', 6379, '', 0, 5000, 'AUTH2', 'ada', 'S3cretRd1', 'KEYS', 'a')", "('MIGRATE', 'h', 6379, '', 0, 5000, 'AUTH2', 'ada', '[redacted]', 'KEYS', 'a')", "S3cretRd1"},
		{"('MIGRATE', 'h', 6379, 'k', 0, 5000, 'AUTH', 'S3cretRd1')", "('MIGRATE', 'h', 6379, 'k', 0, 5000, 'AUTH', '[redacted]')", "S3cretRd1"},
		{"r.execute_command('AUTH', user, 'S3cretRd1')", "r.execute_command('AUTH', user, '[redacted]')", "S3cretRd1"},
		{"r.execute_command(\n    'AUTH',\n    'ada',\n    'S3cret\\'Rd1',\n)", "r.execute_command(\n    'AUTH',\n    'ada',\n    '[redacted]',\n)", "S3cret'Rd1"},
		{"('AUTH', 'letterspassword')", "('AUTH', '[redacted]')", "letterspassword"}, // a sequence: any password
		// lines: redis-cli's, a log's, a string that holds one
		{"127.0.0.1:6379> AUTH S3cretRd1\nOK", "127.0.0.1:6379> AUTH [redacted]\nOK", "S3cretRd1"},
		{"127.0.0.1:6379[2]> AUTH ada \"S3cret Rd1\"", "127.0.0.1:6379[2]> AUTH ada \"[redacted]\"", "S3cret Rd1"},
		{"AUTH default S3cretRd1", "AUTH default [redacted]", "S3cretRd1"},
		{"HELLO 3 AUTH default S3cretRd1 SETNAME app", "HELLO 3 AUTH default [redacted] SETNAME app", "S3cretRd1"},
		{"ACL SETUSER ada on >S3cretRd1 ~* +@all", "ACL SETUSER ada on >[redacted] ~* +@all", "S3cretRd1"},
		{"cmd = 'AUTH default S3cretRd1'", "cmd = 'AUTH default [redacted]'", "S3cretRd1"},
		{`'AUTH default "S3cret\\x41Rd1"\n'`, `'AUTH default "[redacted]"\n'`, "S3cretARd1"},
		// IRC's, as a bot writes them to its socket and hands them to the irc package
		{`b'PRIVMSG NickServ :IDENTIFY S3cretIrc1\r\n'`, `b'PRIVMSG NickServ :IDENTIFY [redacted]\r\n'`, "S3cretIrc1"},
		{"PRIVMSG NickServ :IDENTIFY adabot S3cretIrc1", "PRIVMSG NickServ :IDENTIFY adabot [redacted]", "S3cretIrc1"},
		{"NICKSERV IDENTIFY S3cretIrc1", "NICKSERV IDENTIFY [redacted]", "S3cretIrc1"},
		{"NS IDENTIFY adabot S3cretIrc1", "NS IDENTIFY adabot [redacted]", "S3cretIrc1"},
		{"PRIVMSG NickServ :REGISTER S3cretIrc1 ada@example.org", "PRIVMSG NickServ :REGISTER [redacted] ada@example.org", "S3cretIrc1"},
		{"text = 'IDENTIFY S3cretIrc1'", "text = 'IDENTIFY [redacted]'", "S3cretIrc1"},
		{"OPER ada S3cretIrc1", "OPER ada [redacted]", "S3cretIrc1"},
		{"PRIVMSG #chan :IDENTIFY yourself first1", "PRIVMSG #chan :IDENTIFY yourself first1", ""},
		{"Please IDENTIFY yourself", "Please IDENTIFY yourself", ""},
		{"IDENTIFY yourself", "IDENTIFY yourself", ""},
		// left: no command, or prose
		{"['auth', 'login', 'logout']", "['auth', 'login', 'logout']", ""},
		{"AUTH failed", "AUTH failed", ""},
		{"AUTH LOGIN", "AUTH LOGIN", ""},
		{"('AUTH',)", "('AUTH',)", ""},
		{"('AUTH', 'a', 'b', 'c')", "('AUTH', 'a', 'b', 'c')", ""},
		{"('AUTH', user, pw)", "('AUTH', user, pw)", ""},
		{"('HELLO', 3)", "('HELLO', 3)", ""},
		{"('ACL', 'LIST')", "('ACL', 'LIST')", ""},
		{"('AUTHOR', 'x', 'S3cretRd1')", "('AUTHOR', 'x', 'S3cretRd1')", ""},
		{"('AUTH', 'x' + y)", "('AUTH', 'x' + y)", ""},
		{"the AUTH command takes a password: AUTH default S3cretRd1", "the AUTH command takes a password: AUTH default S3cretRd1", ""},
		{"a > AUTH S3cretRd1", "a > AUTH S3cretRd1", ""},
	} {
		var found []string
		got, changed := maskWire(c.in, func(v string) { found = append(found, v) })
		if got != c.want || changed != (c.want != c.in) {
			t.Errorf("%q:\n got %q\nwant %q", c.in, got, c.want)
		}
		for _, f := range strings.Split(c.found, ",") {
			if f != "" && !strings.Contains(strings.Join(found, "\x00"), f) {
				t.Errorf("%q: found %q, want %q", c.in, found, f)
			}
		}
		if c.found == "" && len(found) > 0 {
			t.Errorf("%q: found %q, want none", c.in, found)
		}
	}
}

// TestRedisCommandsAgreeWithPython: redis-py's commands that carry a
// password (AUTH, HELLO ... AUTH, MIGRATE ... AUTH/AUTH2, ACL SETUSER
// >pw), their arguments as repr writes a tuple or a list of them (any
// string: quotes, escapes, letters that are not ASCII, bytes), pprint over
// lines, and as a call of execute_command, are masked and read back with
// CPython's ast: the password reads as the mask (one a piece), every other
// argument as it was. The same with the name in lower case, and a sequence of no such
// command, reads as it was.
func TestRedisCommandsAgreeWithPython(t *testing.T) {
	againstPython(t, redisDocs, redisCheck, 3000, func(s string) string { out, _ := maskWire(s, nil); return out })
}

const redisDocs = `
import json, pprint, random, sys
rng = random.Random(int(sys.argv[1]))
def text():
    chars = "abcXYZ0189 '\"\\\\\t\n%,()[]=:#>é€😀\x00"
    return "".join(rng.choice(chars) for _ in range(rng.randint(0, 10)))
def value(s):
    return s.encode() if rng.random() < 0.2 else s
def command():
    pw = "s3" + text()
    kind = rng.randrange(6)
    if kind == 0:
        return ["AUTH", value(pw)], 1, 0
    if kind == 1:
        return ["AUTH", value(text()), value(pw)], 2, 0
    if kind == 2:
        args = ["HELLO", rng.choice([3, "3", 2]), "AUTH", value(text()), value(pw)]
        return args + (["SETNAME", text()] if rng.random() < 0.5 else []), 4, 0
    if kind == 3:
        head = rng.choice([["ACL SETUSER"], ["ACL", "SETUSER"]])
        rules = [rng.choice(["on", "off", "~*", "+@all", "reset", "nopass"]) for _ in range(rng.randint(0, 3))]
        at = len(head) + 1 + len(rules)
        return head + [text()] + rules + [value(rng.choice(">") + pw)] + ["~k*"], at, 1
    if kind == 4:
        return ["MIGRATE", "h", 6379, text(), 0, 5000, "AUTH", value(pw), "KEYS", text()], 7, 0
    return ["MIGRATE", "h", 6379, "", 0, 5000, "COPY", "AUTH2", value(text()), value(pw)], 9, 0
n = int(sys.argv[2])
for i in range(n):
    args, at, skip = command()
    if rng.random() < 0.15:
        args[0] = args[0].lower()
        at = -1
    if rng.random() < 0.1:
        args[0] = rng.choice(["GET", "SET", "PING", "AUTHOR"])
        at = -1
    if isinstance(args[at], bytes) and skip and at >= 0 and not args[at][skip:]:
        at = -1
    form = rng.randrange(4)
    if form == 0:
        src = "args = " + repr(tuple(args))
    elif form == 1:
        src = "args = " + repr(list(args))
    elif form == 2:
        src = "args = " + pprint.pformat(tuple(args), width=rng.randint(20, 60))
    else:
        src = "r.execute_command(" + ", ".join(repr(a) for a in args) + ")"
    print(json.dumps([src, json.dumps([at, skip, len(args)])]))
`

const redisCheck = `
import ast, json, sys
M = "[redacted]"
def items(src):
    node = ast.parse(src).body[0]
    v = node.value
    if isinstance(v, ast.Call):
        return [ast.literal_eval(a) for a in v.args]
    return list(ast.literal_eval(v))
for line in sys.stdin:
    src, masked, meta = json.loads(line)
    at, skip, count = json.loads(meta)
    try:
        a, b = items(src), items(masked)
        why = ""
        if len(a) != len(b):
            why = "%d arguments, was %d" % (len(b), len(a))
        for k, (x, y) in enumerate(zip(a, b)):
            if k == at and x[skip:]:
                m = M if isinstance(x, str) else M.encode()
                if type(y) != type(x) or y[:skip] != x[:skip] or not y[skip:] or y[skip:].replace(m, type(x)()):  # a mask a piece
                    why = "the password reads %r" % (y,)
            elif x != y:
                why = "argument %d reads %r, was %r" % (k, y, x)
    except Exception as e:
        why = "does not parse: %r" % e
    print(json.dumps(why))
`

// FuzzMaskWire: any text is masked without a panic and keeps its line
// ends.
func FuzzMaskWire(f *testing.F) {
	fuzzKeepsLines(f, func(t *testing.T, s string) string { out, _ := maskWire(s, func(string) {}); return out },
		"PRIVMSG NickServ :IDENTIFY a b", "('OPER', 'a', 'b')", "('AUTH', 'a', 'b')", "127.0.0.1:6379> AUTH \"a\\x4", "('ACL SETUSER', 'a', b'>x\\'y')", "AUTH a 'b", "HELLO 3 AUTH")
}
