package redact

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/debugpy-guard/debugpy-guard/policies/internal/policytest"
)

func TestMaskPairs(t *testing.T) {
	for _, c := range []struct{ in, want, found string }{
		{"{'db_password': 's3cr3t', 'port': 5432}", "{'db_password': '[redacted]', 'port': 5432}", "s3cr3t"},
		// the value on the line after its key, as a hand or black writes a long one
		{"CONFIG = {\n    'password':\n        'hunter2-x',\n    'api_key': \n{'prod': 'k-2'}}", "CONFIG = {\n    'password':\n        '[redacted]',\n    'api_key': \n{'prod': '[redacted]'}}", "k-2"},
		{"{'password':\n ['a-1', 'b-2']}", "{'password':\n ['[redacted]', '[redacted]']}", "b-2"},
		{"{'password':\n\n 'x'}", "{'password':\n\n '[redacted]'}", "x"},
		{"'password':\nuser", "'password':\nuser", ""}, // no value: a word
		// a log's value of letters alone: masked, not learned; a state's word kept
		{"login ok, password: correcthorse", "login ok, password: [redacted]", ""},
		{"login failed, password: required; token: KeyError", "login failed, password: required; token: KeyError", ""},
		// Ruby's inspect, Perl's Data::Dumper, PHP's var_export: =>
		{"{:password=>\"S3cret-rb\", :user=>\"ada\"}", "{:password=>\"[redacted]\", :user=>\"ada\"}", "S3cret-rb"},
		{"$VAR1 = { 'password' => 'S3cret-pl', 'user' => 'ada' };", "$VAR1 = { 'password' => '[redacted]', 'user' => 'ada' };", "S3cret-pl"},
		{`{"API_KEY": "k-1", "name": "x"}`, `{"API_KEY": "[redacted]", "name": "x"}`, "k-1"},
		{"{'token':'a', 'secret' : \"b\"}", "{'token':'[redacted]', 'secret' : \"[redacted]\"}", "a"},
		{"{b'api_key': b'k\\x00ey'}", "{b'api_key': b'[redacted]'}", "k\x00ey"},
		{"{'password': 'it\\'s'}", "{'password': '[redacted]'}", "it's"},
		{`{'password': "it's"}`, `{'password': "[redacted]"}`, "it's"},
		{"{'pass\\x77ord': 'x1'}", "{'pass\\x77ord': '[redacted]'}", "x1"},
		{"{'pin_password': 12345678}", "{'pin_password': [redacted]}", "12345678"},
		// a key that is a tuple, its last string a secret's name
		{"{('db', 'password'): 'S3cret-tk', ('db', 'user'): 'ada'}", "{('db', 'password'): '[redacted]', ('db', 'user'): 'ada'}", "S3cret-tk"},
		{"<Conn AccountKey=Ab12Cd34==;x=1>", "<Conn AccountKey=[redacted];x=1>", "Ab12Cd34"}, // base64's padding with it; handed over with and without
		{"<Conn token=Ab12Cd34==x>", "<Conn token=[redacted]==x>", "Ab12Cd34"},
		// http.client's and smtplib's debug lines
		{"send: b'GET / HTTP/1.1\\r\\nAuthorization: Basic YWRhOnMzY3IzdA==\\r\\n'", "send: b'GET / HTTP/1.1\\r\\nAuthorization: Basic [redacted]\\r\\n'", "YWRhOnMzY3IzdA=="},
		{"header: Set-Cookie: sid=c0ok1e; Path=/", "header: Set-Cookie: [redacted]", "sid=c0ok1e; Path=/"},
		{"send: 'AUTH PLAIN AGFkYQBzM2NyM3Q=\\r\\n'", "send: 'AUTH PLAIN [redacted]\\r\\n'", "AGFkYQBzM2NyM3Q="},
		{"auth: plain text2023 here", "auth: plain text2023 here", ""}, // SASL's PLAIN is upper-case
		{"Config(user='bob', password='hunter2')", "Config(user='bob', password='[redacted]')", "hunter2"},
		{"namespace(name='n', token='t0k')", "namespace(name='n', token='[redacted]')", "t0k"},
		{"OrderedDict([('password', 'pw'), ('user', 'u')])", "OrderedDict([('password', '[redacted]'), ('user', 'u')])", "pw"},
		{"[('Authorization', 'Bearer abc')]", "[('Authorization', '[redacted]')]", "Bearer abc"},
		{"Settings(api_key=SecretStr('k-1'))", "Settings(api_key=SecretStr('[redacted]'))", "k-1"},
		{"<Conn password=hunter2 host=db>", "<Conn password=[redacted] host=db>", "hunter2"},
		{"{'password': 'cut short by the debugger...", "{'password': '[redacted]", "cut short by the debugger..."},
		{"{'password': 'cut\nnext': 'line'}", "{'password': '[redacted]\nnext': 'line'}", "cut"},
		// Source lines.
		{"settings['db_password'] = 'hunter2'", "settings['db_password'] = '[redacted]'", "hunter2"},
		{`os.environ["API_KEY"] = "k3y"  # set`, `os.environ["API_KEY"] = "[redacted]"  # set`, "k3y"},
		{`pw = os.getenv("DB_PASSWORD", "fallback-pw")`, `pw = os.getenv("DB_PASSWORD", "[redacted]")`, "fallback-pw"},
		{"if settings['password'] == 'x1': pass", "if settings['password'] == 'x1': pass", ""},
		// Headers, files and command lines.
		{"GET /v1?api_key=abc123def&x=1", "GET /v1?api_key=[redacted]&x=1", "abc123def"},
		{"Authorization: Bearer abc123def456", "Authorization: Bearer [redacted]", "abc123def456"},
		{"sending headers authorization: Basic dXNlcjpwYXNz== now", "sending headers authorization: Basic [redacted] now", "dXNlcjpwYXNz=="},
		{"{'X-Api-Key': 'k3y-value'}", "{'X-Api-Key': '[redacted]'}", "k3y-value"},
		{"['curl', '-H', 'X-Api-Key: k3y value', 'url']", "['curl', '-H', 'X-Api-Key: [redacted]', 'url']", "k3y value"},
		{`curl -H "X-Auth-Token:  k3y\"v" url`, `curl -H "X-Auth-Token:  [redacted]" url`, `k3y"v`},
		{"{'headers': ['Accept: json', 'Api-Key: key']}", "{'headers': ['Accept: json', 'Api-Key: [redacted]']}", "key"},
		{"'Api-Key: ' + key", "'Api-Key: ' + key", ""}, // no value in the string
		{"mysql --password=hunter2 -h db", "mysql --password=[redacted] -h db", "hunter2"},
		{"app --token hunter2 --verbose", "app --token [redacted] --verbose", "hunter2"},
		{"app --api-key 'k3y'", "app --api-key '[redacted]'", "k3y"},
		{"['app.py', '--password', 'hunter2', '-v']", "['app.py', '--password', '[redacted]', '-v']", "hunter2"}, // sys.argv
		{`['--name', 'ada', "--api-key", "k3y"]`, `['--name', 'ada', "--api-key", "[redacted]"]`, "k3y"},
		{"['--password', x]", "['--password', x]", ""}, // code: a name, not a value
		{"the token expired; a Bearer of bad news; see the --password option", "the token expired; a Bearer of bad news; see the --password option", ""},
		// In prose: apostrophes, a literal Python would refuse.
		{"can't connect, it's {'password': 'x1y2'}", "can't connect, it's {'password': '[redacted]'}", "x1y2"},
		{"the user's password='x1y2'", "the user's password='[redacted]'", "x1y2"},
		// A literal after a secret's name, in an exception's text or a
		// JavaScript object.
		{"ValueError: invalid password: 'x1y2'", "ValueError: invalid password: '[redacted]'", "x1y2"},
		{"AuthError: password 'x1y2' rejected", "AuthError: password '[redacted]' rejected", "x1y2"},
		{"{password: \"x1y2\", user: 'ada'}", "{password: \"[redacted]\", user: 'ada'}", "x1y2"},
		{"password_hint: 'ask ada'", "password_hint: 'ask ada'", ""},
		// A log's line: a value after a secret's name and a colon, or in
		// prose a word that reads as a credential; words are left.
		{"2026-12-05 INFO Generated password: Xy12abcd for ada", "2026-12-05 INFO Generated password: [redacted] for ada", "Xy12abcd"},
		{"INFO new token: 5f3a.", "INFO new token: [redacted].", "5f3a"},
		{"INFO password: None, token: Expired, secret: HTTPError", "INFO password: None, token: Expired, secret: HTTPError", ""},
		{"created user ada with password Xy12-abcd.", "created user ada with password [redacted].", "Xy12-abcd"},
		{"the password is Xy12-abcd, and the token was reset to 'Zz9-efgh'", "the password is [redacted], and the token was reset to '[redacted]'", "Zz9-efgh"},
		{"if password is None or token is not expired: password is required", "if password is None or token is not expired: password is required", ""},
		{"refresh token HTTPError raised; the password policy changed", "refresh token HTTPError raised; the password policy changed", ""},
		{"if password and user: pass", "if password and user: pass", ""},
		{"'host=db password=libpqSecretValue dbname=orders'", "'host=db password=libpqSecretValue dbname=orders'", ""}, // (maskKeyValues reads it)
		{"auth ok for token dXNlcjpwYXNz==", "auth ok for token [redacted]", "dXNlcjpwYXNz=="},
		// An element's elements, over lines, to its end tag.
		{"b'\u00e9' b'é' {'password': 'x1y2'}", "b'\u00e9' b'é' {'password': '[redacted]'}", "x1y2"},
		// Not pairs: kept.
		{"{'user': 'ada', 'tags': ['a']}", "{'user': 'ada', 'tags': ['a']}", ""},
		{"it's a 'password': list", "it's a 'password': list", ""},
		{"if password == 'x1': pass", "if password == 'x1': pass", ""},
		{"ok = password != 'x1'", "ok = password != 'x1'", ""},
		{"connect(password=pw)", "connect(password=pw)", ""}, // a name in code, not a value
		{"['password', 'email']", "['password', 'email']", ""},
		{"('password', 'email', 'x')", "('password', 'email', 'x')", ""},
		// A dict or a set under a secret's name: its strings (a listing
		// masks the name's own row whole); a config's block keeps its numbers.
		{"{'api_key': {'prod': 'k-9x', 'retries': 3}}", "{'api_key': {'prod': '[redacted]', 'retries': 3}}", "k-9x"},
		{"{'password': {'min_length': 8, 'mode': 'strict'}}", "{'password': {'min_length': 8, 'mode': '[redacted]'}}", "strict"},
		{"{'auth': {'type': 'basic'}}", "{'auth': {'type': '[redacted]'}}", "basic"},
		{`{"token": {"value": "t0k-v", "expires": 3600}}`, `{"token": {"value": "[redacted]", "expires": 3600}}`, "t0k-v"},
		{"Client(secret={'k1', 'k2'})", "Client(secret={'[redacted]', '[redacted]'})", "k2"},
		// Over its lines, as json.dumps(indent=2) and pprint write it.
		{"{\n  \"api_key\": {\n    \"dev\": \"k-1x\",\n    \"prod\": \"k-2x\"\n  },\n  \"n\": \"v\"\n}",
			"{\n  \"api_key\": {\n    \"dev\": \"[redacted]\",\n    \"prod\": \"[redacted]\"\n  },\n  \"n\": \"v\"\n}", "k-2x"},
		{"{'api_key': {'dev': 'k-1x',\n             'prod': 'k-2x'},\n 'n': 'v'}", "{'api_key': {'dev': '[redacted]',\n             'prod': '[redacted]'},\n 'n': 'v'}", "k-2x"},
		{"{\n \"password\": [\n  \"p-1x\",\n  \"p-2x\"\n ]\n}", "{\n \"password\": [\n  \"[redacted]\",\n  \"[redacted]\"\n ]\n}", "p-2x"},
		// A long string as pprint writes it, in pieces over lines; a pair's value on the next line.
		{"{'n': 1,\n 'password': 'p-1x a '\n             'p-2x b '}", "{'n': 1,\n 'password': '[redacted]'\n             '[redacted]'}", "p-2x b "},
		{"C(password='p-1x a '\n           'p-2x b ',\n  user='ada')", "C(password='[redacted]'\n           '[redacted]',\n  user='ada')", "p-2x b "},
		{"[('password',\n  'p-1x a '\n  'p-2x b ')]", "[('password',\n  '[redacted]'\n  '[redacted]')]", "p-2x b "},
		{"[('password',\n  x)]", "[('password',\n  x)]", ""}, // code: a name, not a value
		// An apostrophe that opens no literal says nothing of the next line's quotes.
		{"{'api_key': {'dev': can't\r\n  'prod': 'k-2x'}}", "{'api_key': {'dev': can't\r\n  'prod': '[redacted]'}}", "k-2x"},
		{"{'tokens': ['hello', 'world']}", "{'tokens': ['hello', 'world']}", ""}, // a language model's
		// A sequence under a secret's name: credentials (requests' auth=).
		{"{'auth': ('mailer', 'smtp-pw'), 'host': 'mx'}", "{'auth': ('[redacted]', '[redacted]'), 'host': 'mx'}", "smtp-pw"},
		{"Session(auth=['ada', \"it's\"])", "Session(auth=['[redacted]', \"[redacted]\"])", "it's"},
		{"{'password': ['old-pw', 'new-pw'], 'n': 2}", "{'password': ['[redacted]', '[redacted]'], 'n': 2}", "new-pw"},
		// A collection of secrets: its strings, to any depth, but a dict's keys.
		{"{'cookies': {'sessionid': 'c00kie', 'csrf': \"it's\"}}", "{'cookies': {'sessionid': '[redacted]', 'csrf': \"[redacted]\"}}", "c00kie"},
		{"Jar(creds=[('ada', 'pw-1'), ('bob', 'pw\\'2')], n=3)", "Jar(creds=[('[redacted]', '[redacted]'), ('[redacted]', '[redacted]')], n=3)", "pw'2"},
		{"{'API_SECRETS': ('k1x', ['k2x'])}", "{'API_SECRETS': ('[redacted]', ['[redacted]'])}", "k2x"},
		{"xpassword'abc'", "xpassword'abc'", ""},
		// Markdown's emphasis closed after the colon, and a name of two
		// words, API key (found 2026-12-08)
		{"**Password:** S3cr3t-x and **API key:** sk-9f3Qz81", "**Password:** [redacted] and **API key:** [redacted]", "sk-9f3Qz81"},
		{"Access Key: AbC-9x2 Sort key: name2", "Access Key: [redacted] Sort key: name2", "AbC-9x2"},
		// A call's last two arguments, a secret's name then its value
		// (found 2026-12-08: configparser's set, redis' hset, setattr).
		{"parser.set('database', 'password', 'S3cr3t-x')", "parser.set('database', 'password', '[redacted]')", "S3cr3t-x"},
		{`r.hset(f"user:{uid}", "api_token", "tok-9Zq")`, `r.hset(f"user:{uid}", "api_token", "[redacted]")`, "tok-9Zq"},
		{"cols = ('id', 'password', 'email_address')", "cols = ('id', 'password', 'email_address')", ""}, // a row of names
		{"setattr(cfg, 'password', 'Qv7x', 1)", "setattr(cfg, 'password', 'Qv7x', 1)", ""},               // not the last two
	} {
		var found []string
		got, _ := maskPairs(c.in, nil, func(v string) { found = append(found, v) })
		if got != c.want {
			t.Errorf("maskPairs(%q) = %q, want %q", c.in, got, c.want)
		}
		if c.found != "" && !slices.Contains(found, c.found) || c.found == "" && len(found) > 0 {
			t.Errorf("maskPairs(%q) handed over %q, want %q", c.in, found, c.found)
		}
	}
	var padded []string
	maskPairs("<Conn AccountKey=Ab12Cd34==;x=1>", nil, func(v string) { padded = append(padded, v) })
	if !slices.Equal(padded, []string{"Ab12Cd34==", "Ab12Cd34"}) {
		t.Errorf("a padded value handed over as %q, want with its padding and without", padded)
	}
	if got, _ := maskPairs("{'ssn': '123-45'}", map[string]bool{"ssn": true}, nil); got != "{'ssn': '[redacted]'}" {
		t.Errorf("settings.names: %q", got)
	}
}

// reprs writes, with CPython, the reprs of the containers a program holds
// secrets in (dicts with str and bytes keys, dataclasses, namedtuples,
// SimpleNamespace, argparse's Namespace, OrderedDict, lists of pairs,
// nested ones, and reprs cut short as a debugger cuts them), each with
// random values full of quotes, escapes and Unicode: which values are
// secrets, and which must stay.
const reprs = `
import argparse, collections, dataclasses, json, random, sys, types
rnd = random.Random(int(sys.argv[1]))
ALPHA = "ab\'\"\\\n\t\x00\x7fé日本🙂\u2028 :=,()[]{}<>xyz0123"
KEYS = ["password", "db_password", "API_KEY", "client_secret", "refresh_token", "Authorization", "authToken", "PASSWD"]
def val(tag):
    return tag + str(rnd.randrange(10**6)) + "".join(rnd.choice(ALPHA) for _ in range(rnd.randrange(1, 12)))
@dataclasses.dataclass
class Config:
    user: str
    password: str
    port: int = 5432
Creds = collections.namedtuple("Creds", ["user", "api_key"])
for i in range(int(sys.argv[2])):
    s, k = val("S3c"), val("K3p")
    key = rnd.choice(KEYS)
    shape = rnd.randrange(11)
    secrets, keep = [s], [k]
    if shape == 0: o = {key: s, "user": k}
    elif shape == 1: o = {"user": k, key.encode(): s.encode("utf-8", "backslashreplace")}; secrets = [s.encode("utf-8", "backslashreplace")]
    elif shape == 2: o = Config(k, s)
    elif shape == 3: o = Creds(k, s)
    elif shape == 4: o = types.SimpleNamespace(**{"user": k, key: s})
    elif shape == 5: o = argparse.Namespace(**{key: s, "user": k})
    elif shape == 6: o = collections.OrderedDict([(key, s), ("user", k)])
    elif shape == 7: o = [("user", k), (key, s)]
    elif shape == 8: o = {"cfg": [Config(k, s), {key: s}], "n": (k,)}
    elif shape == 9: n = rnd.randrange(1000, 10**9); o = {key: n, "user": k}; secrets = [n]
    else: o = {"user": k, key: s}
    r = repr(o)
    forms = [repr(x)[2:-1] if isinstance(x, bytes) else repr(x)[1:-1] if isinstance(x, str) else repr(x) for x in secrets]
    kept = [repr(x)[1:-1] for x in keep]
    values = [x.decode() if isinstance(x, bytes) else str(x) for x in secrets]
    cut = None
    if shape == 10:
        # as a debugger cuts a long repr: inside the secret
        at = r.index(forms[0]) + rnd.randrange(4, len(forms[0]))
        cut, r = r[r.index(forms[0]):at], r[:at]
        forms, values = [], []
    print(json.dumps({"repr": r, "forms": forms, "kept": kept, "values": values, "cut": cut, "shape": shape}), flush=True)
`

// TestMaskReprs masks the reprs CPython writes (reprs above) and checks
// that no secret is left in any form, cut short or not, that each is handed
// to the host as the program holds it, and that the other values stay.
func TestMaskReprs(t *testing.T) {
	script := filepath.Join(t.TempDir(), "reprs.py")
	os.WriteFile(script, []byte(reprs), 0o644)
	out, err := exec.Command(policytest.Python3(t), script, "1", "1500").Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	n := 0
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var c struct {
			Repr                string
			Forms, Kept, Values []string
			Cut                 *string
			Shape               int
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("python3 said %q", sc.Text())
		}
		n++
		var found []string
		got, _ := maskPairs(c.Repr, nil, func(v string) { found = append(found, v) })
		for _, f := range c.Forms {
			if strings.Contains(got, f) {
				t.Errorf("shape %d: %q left in %q", c.Shape, f, got)
			}
		}
		if c.Cut != nil && strings.Contains(got, *c.Cut) {
			t.Errorf("shape %d, cut: %q left in %q", c.Shape, *c.Cut, got)
		}
		for _, k := range c.Kept {
			if !strings.Contains(got, k) {
				t.Errorf("shape %d: %q masked in %q", c.Shape, k, got)
			}
		}
		for _, v := range c.Values {
			if !slices.Contains(found, v) {
				t.Errorf("shape %d: %q not handed over (%q) from %q", c.Shape, v, found, c.Repr)
			}
		}
	}
	if n != 1500 {
		t.Fatalf("python3 wrote %d reprs", n)
	}
}

// benchText is a listing's strings as redact reads them: reprs of dicts,
// objects, lists and strings, and a line of prose; with one secret pair at
// its end, and without.
var benchText = strings.Repeat(`{'user': 'ada', 'port': 5432, 'tags': ['a', 'b', "it's"], 'when': datetime.datetime(2026, 12, 3, 10, 0)} `+
	`<app.models.Order object at 0x7f3a2c1d9e80> ['item-1', 'item-2', 'item-3'] 'a plain string value of some length' `+
	`can't connect to db:5432 (retry 3 of 5) Config(host='db', port=5432, debug=False) `, 20)

// BenchmarkMaskPairs: one pass of the pair masking over benchText (~6 KB
// on one line). With a secret's word on the line, the worst case: the line
// is read from each of its quotes and words; without, it is skipped.
func BenchmarkMaskPairs(b *testing.B) {
	for _, c := range []struct {
		name, text string
		masks      bool
	}{{"a pair", benchText + `{'db_password': 's3cr3t'}`, true}, {"no name", benchText, false}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			for b.Loop() {
				if _, ok := maskPairs(c.text, nil, nil); ok != c.masks {
					b.Fatal(ok)
				}
			}
		})
	}
}

// FuzzMaskPairs: any text is read without a panic, and a pair put into it
// after a separator is masked, whatever came before (an apostrophe, a
// quote that opens no literal, a broken escape).
func FuzzMaskPairs(f *testing.F) {
	for _, s := range []string{"", "'", "it's", "b'\\xff", "'''", "x = '\\", "{'a': 'b'", "password=", "(('token',"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, prefix string) {
		maskPairs(prefix, nil, nil)
		s := prefix + "\n{'db_password': 'S3cretV4lue'}"
		if got, _ := maskPairs(s, nil, nil); strings.Contains(got, "S3cretV4lue") && !strings.Contains(prefix, "S3cretV4lue") {
			t.Fatalf("%q: the pair after it is not masked: %q", prefix, got)
		}
	})
}

// nested writes secrets inside strings inside strings, as CPython writes
// them: repr of repr (to four levels), json.dumps of json.dumps, a dict's
// repr as bytes, in a list, in a tuple; a JSON line a text.
const nested = `
import json
secrets = ["nestSecretValue", "it's \"q\" k3y", "back\\slash\u00e9\u200bx", "tab\there"]
for s in secrets:
    d = {"password": s, "api_key": s, "user": "ada"}
    x = d
    for k in range(4):
        x = repr(x)
        print(json.dumps(x))
    j = d
    for k in range(3):
        j = json.dumps(j)
        print(json.dumps(repr(j)))
    print(json.dumps(repr(str(d).encode())))
    print(json.dumps(repr([str(d), 1])))
    print(json.dumps(repr((repr(d), 2))))
    # Deeper than maskNested reads: each literal past its depth that may
    # hold a secret is masked whole (a plain value reads the same at every
    # level of repr, so none may be left as it is).
    for k in range(4, 12):
        x = repr(x)
        print(json.dumps("DEEP" + x))
`

// checkNested decodes each masked text as Python does, level by level
// (ast.literal_eval, json.loads), and fails on a secret left at any level,
// or on a text that no longer decodes, or that lost its other values.
const checkNested = `
import ast, json, sys
secrets = ["nestSecretValue", "it's \"q\" k3y", "back\\slash\u00e9\u200bx", "tab\there"]
bad = 0
def walk(x, depth):
    global bad
    if isinstance(x, bytes):
        x = x.decode("utf-8", "replace")
    if isinstance(x, str):
        for s in secrets:
            if s in x:
                print("secret left: %r" % (x,)); bad += 1
        if depth < 8:
            for parse in (ast.literal_eval, json.loads):
                try:
                    y = parse(x)
                except Exception:
                    continue
                if y != x:
                    walk(y, depth + 1)
                break
    elif isinstance(x, dict):
        for k, v in x.items():
            walk(k, depth); walk(v, depth)
    elif isinstance(x, (list, tuple)):
        for v in x:
            walk(v, depth)
for line in sys.stdin:
    text = json.loads(line)
    deep = text.startswith("DEEP")
    text = text[len("DEEP"):] if deep else text
    walk(text, 0)
    if "[redacted]" not in text or "ada" not in text and not deep:
        print("lost its values: %r" % (text,)); bad += 1
    try:
        ast.literal_eval(text)
    except Exception as e:
        print("no longer Python: %r (%s)" % (text, e)); bad += 1
sys.exit(1 if bad else 0)
`

// TestMaskNested: secrets in strings inside strings, CPython's spellings,
// masked at every level; CPython decodes what is shown and finds none.
func TestMaskNested(t *testing.T) {
	python := policytest.Python3(t)
	out, err := exec.Command(python, "-c", nested).Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	var masked bytes.Buffer
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var s string
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("python3 said %q", line)
		}
		s, _ = maskNested(s, nil, nil, nestedDepth)
		s, _ = maskPairs(s, nil, nil)
		b, _ := json.Marshal(s)
		masked.Write(b)
		masked.WriteByte('\n')
		n++
	}
	cmd := exec.Command(python, "-c", checkNested)
	cmd.Stdin = &masked
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("CPython read the %d masked texts: %v\n%s", n, err, out)
	}
}

// TestLinesInAStringAgreeWithPython: a text of lines held in a string, as a
// listing or an evaluate shows it (its repr, alone or as a dict's value:
// its line ends escaped), is read as the same text printed is: a CSV
// csv.writer writes, an INI file configparser writes, pandas'
// to_string(), yaml.dump's and json.dumps(indent=2)'s. Masked, the repr
// is still one CPython reads (ast.literal_eval), no 6 bytes of a secret are
// left in it, and the user beside the secret is shown.
func TestLinesInAStringAgreeWithPython(t *testing.T) {
	againstPython(t, linesInAStringDocs, linesInAStringCheck, 600, func(s string) string { out, _ := maskText(s, nil); return out })
}

const linesInAStringDocs = `
import configparser, csv, io, json, random, string, sys, yaml
import pandas as pd
rng = random.Random(int(sys.argv[1]))
def tok():
    return "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(rng.randint(10, 16)))
for n in range(int(sys.argv[2])):
    user, name, secret, k = "ctrl%d" % n, rng.choice(["password", "api_key", "token", "client_secret"]), tok(), rng.randrange(5)
    if k == 0:
        b = io.StringIO()
        w = csv.writer(b)
        w.writerow(["user", name])
        w.writerow([user, secret])
        text = b.getvalue()
    elif k == 1:
        c = configparser.ConfigParser()
        c["db"] = {"user": user, name: secret}
        b = io.StringIO()
        c.write(b)
        text = b.getvalue()
    elif k == 2:
        text = pd.DataFrame({"user": [user], "id": [n], name: [secret]}).to_string()  # a column between: aligned.go may mask the one beside a secret's
    elif k == 3:
        text = yaml.dump({"db": {"user": user, name: secret}})
    else:
        text = json.dumps({"user": user, name: secret}, indent=2)
    shown = repr(text) if rng.randrange(2) else repr({"report": text})
    print(json.dumps([shown, json.dumps([secret]), json.dumps([user])]))
`

const linesInAStringCheck = `
import ast, json, sys
for line in sys.stdin:
    shown, masked, secrets, controls = json.loads(line)
    try:
        v = ast.literal_eval(masked)
    except Exception as e:
        print(json.dumps("not Python any more: %r" % e))
        continue
    text = v if isinstance(v, str) else v["report"]
    left = [s for s in json.loads(secrets) if any(s[i:i + 6] in text for i in range(len(s) - 5))]
    lost = [c for c in json.loads(controls) if c not in text]
    print(json.dumps("left %r" % left if left else "controls masked %r" % lost if lost else ""))
`

// FuzzMaskNested: no text makes maskNested fail, and what it masks in a
// string's repr stays masked when the repr is read again.
func FuzzMaskNested(f *testing.F) {
	f.Add(`'{\'password\': \'x1\', "u": 1}'`)
	f.Add(`b"{'token': 'it\\'s'}"`)
	f.Add(`r'{\'api_key\': \'k\'}' '''{"secret": "v"}'''`)
	f.Fuzz(func(t *testing.T, s string) {
		out, changed := maskNested(s, nil, nil, nestedDepth)
		if !changed && out != s {
			t.Fatalf("unchanged, yet %q became %q", s, out)
		}
		if again, _ := maskNested(out, nil, nil, nestedDepth); changed && strings.Count(again, mask) < strings.Count(out, mask) {
			t.Fatalf("%q: masks lost on a second reading: %q then %q", s, out, again)
		}
	})
}

// TestLogLinesAgreeWithLogging: lines Python's logging writes (three
// formats), whose message gives a secret after a secret's name and a
// colon, or in prose after the name, are masked: the secret is gone and
// the rest of the line reads as it was; a word of letters after the name
// (None, Expired, an exception's name) is left.
func TestLogLinesAgreeWithLogging(t *testing.T) {
	againstPython(t, logDocs, logCheck, 3000, func(s string) string { out, _ := maskPairs(s, nil, nil); return out })
}

const logDocs = `
import io, json, logging, random, string, sys
rng = random.Random(int(sys.argv[1]))
M = "[redacted]"
FORMATS = ["%(asctime)s %(levelname)s %(name)s: %(message)s", "%(levelname)s:%(name)s:%(message)s", "[%(asctime)s] {%(module)s:%(lineno)d} %(levelname)s - %(message)s"]
NAMES = ["password", "Password", "db_password", "token", "api_key", "secret", "PASSWD", "client_secret", "access token",
         "mot de passe", "Mot de passe", "mot\u00a0de\u00a0passe"]
WORDS = ["None", "True", "Expired", "required", "HTTPError", "KeyError", "unchanged", "rotated", "reset", "missing"]
def secret():
    s = "".join(rng.choice(string.ascii_letters) for _ in range(rng.randint(3, 12)))
    i = rng.randint(0, len(s))
    return s[:i] + rng.choice(string.digits + "-_/+@!$%^&*~") + s[i:] + rng.choice(["", "9", "x1", "&"])
n = int(sys.argv[2])
for i in range(n):
    buf = io.StringIO()
    h = logging.StreamHandler(buf)
    h.setFormatter(logging.Formatter(rng.choice(FORMATS)))
    log = logging.getLogger("app%d" % i)
    log.handlers, log.propagate = [h], False
    name = rng.choice(NAMES)
    if rng.random() < 0.3:
        value, hidden = rng.choice(WORDS), ""
    else:
        value = hidden = secret()
        if value[-1] in "!":
            value = hidden = value + "x"  # a sentence's mark after a value is read as the sentence's
        value = hidden = value if len(value) >= 8 else value + "0" * (8 - len(value))
    old, new = (" " + hidden, " " + M) if hidden else ("", "")
    r = rng.random()
    if r < 0.4 and hidden and rng.random() < 0.3 and any(w in name.lower() for w in ("pass", "secret", "key", "token")):
        value = hidden = "".join(rng.choice(string.ascii_letters) for _ in range(rng.randint(8, 14)))  # letters alone: correcthorse
        old, new = " " + hidden, " " + M
    if r < 0.4:
        msg = rng.choice(["Generated %s: %s for ada", "login ok, %s: %s", "%s: %s", "compte créé, %s : %s"]) % (name, value)
    elif r < 0.8:
        msg = rng.choice(["created user ada with %s %s", "using the %s %s now", "%s %s.", "the %s is %s", "%s was reset to %s for ada",
                          "your %s has been changed to %s.", "%s for ada is %s", "votre %s est %s", "le %s de ada a été changé en %s"]) % (name, value)
    else:  # a string literal after the verbs: masked, whatever its letters
        msg = rng.choice(["the %s of bob was reset to %r", "%s is %r", "your %s has been set to %r."]) % (name, value)
        old, new = repr(value), "'" + M + "'"
    log.warning(msg)
    print(json.dumps([buf.getvalue(), old, new]))
`

const logCheck = `
import json, sys
for line in sys.stdin:
    text, masked, old, new = json.loads(line)
    want = text.replace(old, new, 1) if old else text
    print(json.dumps("" if masked == want else "want %r" % want))
`

// TestHTTPDebugAgreesWithHTTPClient: what http.client prints with
// set_debuglevel(1) (the requests a program sends, as a bytes repr with
// its \r\n escaped, and the headers of the reply), of requests that carry
// credentials in Authorization, Proxy-Authorization, X-Api-Key and Cookie
// and replies that set cookies, printed and as the repr of the captured
// text: no credential is left, and the request's line and Host are shown.
func TestHTTPDebugAgreesWithHTTPClient(t *testing.T) {
	againstPython(t, httpDebugDocs, httpDebugCheck, 600, func(s string) string { out, _ := maskText(s, nil); return out })
}

const httpDebugDocs = `
import base64, contextlib, http.client, io, json, random, string, sys
rng = random.Random(int(sys.argv[1]))
T68 = string.ascii_letters + string.digits + "-._~+/"
def token():
    return rng.choice(["s3", "K9", "x7"]) + "".join(rng.choice(T68) for _ in range(rng.randint(10, 30)))
def cookie():
    return rng.choice(["c0", "Z8"]) + "".join(rng.choice(string.ascii_letters + string.digits + "-_%") for _ in range(rng.randint(8, 24)))
class Sock:
    def __init__(self, reply): self.reply = reply
    def sendall(self, data): pass
    def makefile(self, mode): return io.BytesIO(self.reply)
    def close(self): pass
for i in range(int(sys.argv[2])):
    secrets, headers = [], {}
    kind = rng.choice(["bearer", "basic", "token", "key", "cookie", "proxy"])
    if kind == "bearer":
        s = token(); headers["Authorization"] = "Bearer " + s
    elif kind == "basic":
        s = "ada:" + token(); headers["Authorization"] = "Basic " + base64.b64encode(s.encode()).decode(); s = base64.b64encode(s.encode()).decode()
    elif kind == "token":
        s = token(); headers["Authorization"] = "token " + s
    elif kind == "key":
        s = token(); headers[rng.choice(["X-Api-Key", "X-Auth-Token", "Api-Key"])] = s
    elif kind == "cookie":
        s = cookie(); headers["Cookie"] = rng.choice(["sid=", "sessionid=", "_gh_sess="]) + s + rng.choice(["", "; theme=dark"])
    else:
        s = token(); headers["Proxy-Authorization"] = "Bearer " + s
    secrets.append(s)
    set_cookie = cookie()
    secrets.append(set_cookie)
    reply = ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nSet-Cookie: %s=%s; Path=/; HttpOnly\r\nContent-Length: 2\r\n\r\n{}" %
             (rng.choice(["sid", "session", "csrftoken"]), set_cookie)).encode()
    conn = http.client.HTTPConnection("api.example")
    conn.set_debuglevel(1)
    conn.sock = Sock(reply)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        conn.request(rng.choice(["GET", "POST"]), "/v1/orders?page=2", body=None, headers=headers)
        conn.getresponse().read()
    text = out.getvalue()
    if rng.random() < 0.4:
        text = repr(text)
    print(json.dumps([text] + secrets))
`

const httpDebugCheck = `
import json, sys
for line in sys.stdin:
    text, masked, *secrets = json.loads(line)
    bad = [s for s in secrets if s in masked]
    if bad:
        print(json.dumps("left %r" % bad))
    elif "/v1/orders?page=2 HTTP/1.1" not in masked or "Host: api.example" not in masked or "Content-Type: application/json" not in masked:
        print(json.dumps("the request's line, Host or Content-Type masked"))
    else:
        print(json.dumps(""))
`

// TestArrowPairsAgreeWithPerl: what Perl's Data::Dumper writes of hashes
// that hold secrets (key => value: single or double quotes, indented over
// lines or on one, a value with quotes, backslashes, dollars and line
// ends in it): no run of 8 letters and digits of a secret left, the other
// values shown.
func TestArrowPairsAgreeWithPerl(t *testing.T) {
	againstPython(t, perlDocs, shellCheck, 300, func(s string) string { out, _ := maskText(s, nil); return out })
}

const perlDocs = `
import json, random, string, subprocess, sys
rng = random.Random(int(sys.argv[1]))
SECRET = ["password", "api_key", "db_password", "token", "client_secret"]
def secret():
    s = "S"
    for _ in range(rng.randint(12, 24)):
        s += rng.choice(" '\"\\\\$@\n\t{}=>,;") if rng.random() < 0.15 else rng.choice(string.ascii_letters + string.digits)
    return s
for n in range(int(sys.argv[2])):
    secrets = {k: secret() for k in rng.sample(SECRET, rng.randint(1, 3))}
    control = "ctrl%dvalue" % n
    doc = dict(secrets, user=control)
    if rng.random() < 0.3:
        doc = {"config": doc, "port": 5432}
    script = "use Data::Dumper; $Data::Dumper::Sortkeys = 1; $Data::Dumper::Useqq = %d; $Data::Dumper::Indent = %d; local $/; my $d = eval(<STDIN>); print Dumper($d);" % (rng.random() < 0.5, rng.choice([0, 1, 2]))
    # the hash as Perl source: each string single-quoted, ' and \ escaped
    def perl(v):
        if isinstance(v, dict):
            return "{" + ", ".join("%s => %s" % (perl(k), perl(x)) for k, x in v.items()) + "}"
        if isinstance(v, int):
            return str(v)
        return "'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'"
    out = subprocess.run(["perl", "-e", script], input=perl(doc), capture_output=True, text=True, check=True).stdout
    print(json.dumps([out, json.dumps(list(secrets.values())), control]))
`

// TestMaskMotDePasse: French's password, three words apart (a blank or a
// no-break space between them), is a secret's name as mot_de_passe is.
func TestMaskMotDePasse(t *testing.T) {
	for in, want := range map[string]string{
		"Mot de passe : S3cr3t-fr":                            "Mot de passe : [redacted]",
		"INFO compte créé, mot\u00a0de\u00a0passe: S3cr3t-fr": "INFO compte créé, mot\u00a0de\u00a0passe: [redacted]",
		"le mot de passe de ada a été changé en S3cr3t-fr.":   "le mot de passe de ada a été changé en [redacted].",
		"{'mot de passe': 'lettresseules'}":                   "{'mot de passe': '[redacted]'}",
		"mot de passe oublié ? Cliquez ici":                   "mot de passe oublié ? Cliquez ici",
		"un mot de passage: S3cr3t-fr":                        "un mot de passage: S3cr3t-fr",
		"demot de passe: S3cr3t-fr":                           "demot de passe: S3cr3t-fr",
	} {
		if got, _ := maskText(in, nil); got != want {
			t.Errorf("%q:\n got %q\nwant %q", in, got, want)
		}
	}
}

// TestPromptAnswersAgreeWithPexpect: a program driven by pexpect, its
// logfile on (what the child writes and what is sent to it, as a test
// harness or an automation script logs them), answers getpass's prompts
// for a secret (Password for ada:, [sudo] password for ada:, Password for
// 'https://ada@github.com':, Enter passphrase for key '...':) with
// passwords of any printable byte but a backslash: masked, the log is the
// same log with each answer replaced by the mask, and no 6 bytes of a
// password are left. A sentence with a colon after it (the password for
// ada is required: ...) is left.
func TestPromptAnswersAgreeWithPexpect(t *testing.T) {
	againstPython(t, promptDocs, promptCheck, 16, func(s string) string { out, _ := maskText(s, nil); return out })
}

const promptDocs = `
import io, json, random, string, sys, pexpect
rng = random.Random(int(sys.argv[1]))
PROMPTS = ["Password for %s: ", "[sudo] password for %s: ", "Password for 'https://%s@github.com': ", "Enter passphrase for key '/home/%s/.ssh/id_ed25519': ",
           "Enter password for user %s: ", "passphrase for %s: "]
CHILD = """
import getpass, json, sys
for prompt, control in json.loads(sys.argv[1]):
    if control:
        input("the password for ada is required: see the docs (Enter) ")
    else:
        getpass.getpass(prompt)
    print("ok")
"""
for i in range(int(sys.argv[2])):  # a session of prompts
    items = []
    for k in range(rng.randint(8, 30)):
        user = rng.choice(["ada", "bob", "postgres", "svc-%d" % i])
        pw = "".join(rng.choice(string.ascii_letters + string.digits + " !#$%&()*+,-./:;<=>?@[]^_{|}~'\"") for _ in range(rng.randint(6, 20))).strip() + rng.choice(string.ascii_letters)
        items.append((rng.choice(PROMPTS) % user, pw, rng.random() < 0.15))
    log = io.StringIO()
    child = pexpect.spawn(sys.executable, ["-c", CHILD, json.dumps([(p, c) for p, _, c in items])], encoding="utf-8", timeout=30)
    child.logfile = log
    child.delaybeforesend = None  # pexpect's default waits 50 ms before each send
    child.delayafterclose = child.delayafterterminate = 0
    for prompt, pw, control in items:
        child.expect_exact("(Enter) " if control else prompt)
        child.sendline("" if control else pw)
        child.expect_exact("ok\r\n")
    child.expect(pexpect.EOF)
    print(json.dumps([log.getvalue(), json.dumps([pw for _, pw, control in items if not control])]))
`

const promptCheck = `
import json, sys
M = "[redacted]"
for line in sys.stdin:
    text, masked, pws = json.loads(line)
    pws = json.loads(pws)
    if any(pw[i:i + 6] in masked for pw in pws for i in range(len(pw) - 5)):
        print(json.dumps("left"))
        continue
    want = text
    for pw in pws:
        want = want.replace(": " + pw + "\n", ": " + M + "\n", 1)
    print(json.dumps("" if masked == want else "want %r" % want))
`

func TestPromptAnswers(t *testing.T) {
	for in, want := range map[string]string{
		"Password for 'https://ada@github.com': S3 cr3t!":                "Password for 'https://ada@github.com': [redacted]",
		"ok\r\n[sudo] password for ada: S3cr3t-x\r\nok":                  "ok\r\n[sudo] password for ada: [redacted]\r\nok",
		`'Password for ada: S3cr3t-x\r\n'`:                               `'Password for ada: [redacted]\r\n'`,
		"Enter passphrase for key '/home/ada/.ssh/id_rsa': ":             "Enter passphrase for key '/home/ada/.ssh/id_rsa': ",
		"the password for ada is required: see the docs":                 "the password for ada is required: see the docs",
		"ok\npassword was reset to S3cr3t-x9 for ada":                    "ok\npassword was reset to [redacted] for ada", // a name at a line's start
		"Enter password for a new user: S3cr3t-x9":                       "Enter password for a new user: [redacted]",
		"Password for user postgres: correct horse battery staple\nnext": "Password for user postgres: [redacted]\nnext",
	} {
		if got, _ := maskText(in, nil); got != want {
			t.Errorf("%q:\n got %q\nwant %q", in, got, want)
		}
	}
}

// TestCallNamePairsAgreeWithPython: calls whose last two arguments are a
// secret's name and its value, as a program's source writes them
// (configparser's set, redis' hset, setattr), values of any character in
// either quote: read back by CPython's ast, the value is the mask and
// every other argument as it was; a tuple of names is left.
func TestCallNamePairsAgreeWithPython(t *testing.T) {
	againstPython(t, callNamePairDocs, callNamePairCheck, 600, func(s string) string { out, _ := maskPairs(s, nil, nil); return out })
}

const callNamePairDocs = `
import json, random, sys
rng = random.Random(int(sys.argv[1]))
CHARS = "abcXYZ0189 '\"\\\\\t%,()=:#é€"
for n in range(int(sys.argv[2])):
    value = "S" + "".join(rng.choice(CHARS) for _ in range(rng.randint(3, 12))) + "9"
    name = rng.choice(["password", "api_token", "DB_PASSWORD", "client_secret"])
    first = rng.choice(["'database'", "cfg", "f'user:{uid}'", "section"])
    callee = rng.choice(["parser.set", "r.hset", "setattr", "store.put"])
    if rng.random() < 0.2:  # a tuple of names: left
        src = "cols = (%r, %r, %r)" % (rng.choice(["id", "user"]), name, rng.choice(["email", "email_address", "created_at"]))
        want = None
    else:
        src = "%s(%s, %r, %r)" % (callee, first, name, value)
        want = value
    print(json.dumps([src, json.dumps(want)]))
`

const callNamePairCheck = `
import ast, json, sys
for line in sys.stdin:
    src, masked, want = json.loads(line)
    want = json.loads(want)
    a, b = ast.parse(src).body[0].value, ast.parse(masked).body[0].value
    if want is None:
        print(json.dumps("" if src == masked else "a tuple of names changed"))
        continue
    why = ""
    if ast.unparse(a.args[:-1] and ast.Tuple(a.args[:-1])) != ast.unparse(b.args[:-1] and ast.Tuple(b.args[:-1])):
        why = "other arguments changed"
    elif not isinstance(b.args[-1], ast.Constant) or b.args[-1].value != "[redacted]":
        why = "value left: %r" % ast.unparse(b.args[-1])
    print(json.dumps(why))
`

// TestFlagsInLists: a list's string read as a command line's option is
// one (--token, -p), not any string that begins with a '-': a PEM block's
// value in a service account's JSON made the next key, "client_email", the
// flag's value, masked.
func TestFlagsInLists(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"['app.py', '--token', 'k3y-v4lue']", "['app.py', '--token', '[redacted]']"},
		{`{"pk": "-----BEGIN PRIVATE KEY-----\nMIIEvQ\n-----END PRIVATE KEY-----\n", "client_email": "x@y"}`,
			`{"pk": "-----BEGIN PRIVATE KEY-----\nMIIEvQ\n-----END PRIVATE KEY-----\n", "client_email": "x@y"}`},
		{"['- password list', 'x1']", "['- password list', 'x1']"},
	} {
		if got, _ := maskPairs(c.in, nil, nil); got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}
