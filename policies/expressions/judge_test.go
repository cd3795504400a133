package expressions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/debugpy-guard/debugpy-guard/policies/internal/policytest"
)

// TestJudge: the reproductions and their variants, natively.
func TestJudge(t *testing.T) {
	for _, c := range []struct{ code, kind, want, reason string }{
		// Python's reading of names, whitespace and numbers.
		{"_＿import＿＿('os').system('id')", "expression", "deny", "__import__"},
		{"ｅｖａｌ('1')", "expression", "deny", "eval"},
		{"𝐞𝐯𝐚𝐥('1')", "expression", "deny", "eval"},
		{"print\f('x')", "expression", "approve", "calls print"},
		{"1..__class__.__base__", "expression", "deny", "a dunder"},
		{"0x1.__class__", "expression", "deny", "__class__"},
		{"x.\f__class__", "expression", "deny", "__class__"},
		{"a\u00a0(b)", "expression", "deny", "not a Python expression"},
		{"f'{().__class__}'", "expression", "deny", "__class__"},
		{"f'{x:{y.__class__}}'", "expression", "deny", "__class__"},
		{"f'{x!r}'", "expression", "approve", "f-string"},
		// Secrets anywhere in the expression.
		{"{}[DB_PASSWORD]", "expression", "deny", "DB_PASSWORD"},
		{"password + ''", "expression", "deny", "password"},
		{"password * 2", "expression", "deny", "password"},
		{"password or 0", "expression", "deny", "password"},
		{"password if 1 else 0", "expression", "deny", "password"},
		{"(password, 1)", "expression", "deny", "password"},
		{"[*password, 0]", "expression", "deny", "password"},
		{"password[::-1]", "expression", "deny", "password"},
		{"cfg.api_secret + ''", "expression", "deny", "api_secret"},
		{"{}[password]", "expression", "deny", "password"},
		{"cfg['db_password']", "expression", "deny", "'db_password'"},
		{"cfg['pass\\x77ord']", "expression", "deny", "'password'"},
		{"cfg['\\N{LATIN SMALL LETTER P}assword']", "expression", "approve", "cannot decode"},
		{"user.ａｐｉ_ｋｅｙ", "expression", "deny", "api_key"},
		{"headers.Authorization", "expression", "deny", "Authorization"},
		{"book.author", "expression", "allow", ""},
		// A %-format reads a mapping's keys.
		{"'%(password)s' % cfg", "expression", "deny", "'password', a secret's name, through a %-format"},
		{"'%(pass\\x77ord).3s' % cfg", "expression", "deny", "'password'"},
		{"b'%(api_key)s' % cfg", "expression", "deny", "'api_key'"},
		{"'%(a(token)b)s' % cfg", "expression", "deny", "token"},
		{"'%(user)s, %s' % cfg", "expression", "approve", "beside a cut"}, // no key denied; a format builds text
		{"'%%(password)s' % cfg", "expression", "approve", "beside a cut"},
		{"n % 2 + 7 % n", "expression", "allow", ""},
		{"fmt % cfg", "expression", "approve", "may read any key"},
		{"('%(pass' + 'word)s') % cfg", "expression", "approve", "may read any key"},
		{"fmt % {'k': 1}", "expression", "approve", "may read any key"},
		{"'\\N{PERCENT SIGN}(password)s' % cfg", "expression", "approve", "cannot decode"},
		// Plain reads need nobody.
		{"user.name", "expression", "allow", ""},
		{"items[0] == 3", "expression", "allow", ""},
		{"items[-1][1:2, ::3]", "expression", "allow", ""},
		{"a if b else (c, [d], {e: f})", "expression", "allow", ""},
		{"not a in (1, 2) and c is not None and 'x' not in 'xyz'", "expression", "allow", ""},
		// What iterates without a call: an iterator consumed, an open file
		// read (its lines come back in the result).
		{"[*fh]", "expression", "approve", "unpacks with *"},
		{"(*gen,)", "expression", "approve", "unpacks with *"},
		{"{*fh} == {0}", "expression", "approve", "unpacks with *"},
		{"x[*it]", "expression", "approve", ""},
		{"{**m}", "expression", "approve", "unpacks a mapping"},
		{"{'a': 1, **m}", "expression", "approve", "unpacks a mapping"},
		{"'root' in fh", "expression", "approve", "membership with in"},
		{"a not in gen", "expression", "approve", "membership with in"},
		{"0 < a in b", "expression", "approve", "membership with in"},
		{"a in [b, c] and a in {b: c} and a in {b} and a in b''", "expression", "allow", ""},
		{"a is b is not c == d", "expression", "allow", ""},
		// Calls, comprehensions, non-literal subscripts: a person.
		{"len(x)", "expression", "approve", "calls len"},
		{"items[i]", "expression", "approve", "subscripts"},
		{"[x for x in y]", "expression", "approve", "comprehension"},
		// Never.
		{"lambda: 1", "expression", "deny", "lambda"},
		{"(x := 1)", "expression", "deny", ":="},
		{"await x", "expression", "deny", "awaits"},
		{"(yield)", "expression", "deny", "yields"},
		{"a; b", "expression", "deny", "not a Python expression"},
		{"a\nb", "expression", "deny", "not a Python expression"},
		// Statements: a person at least; denied names still denied.
		{"x", "statement", "approve", "statements"},
		{"for x in [1]: pass", "statement", "approve", "statements"},
		{"del x", "statement", "approve", "statements"},
		{"import os", "statement", "deny", "import"},
		{"x = 1\nimport os", "statement", "deny", "import"},
		{"x = __import__", "statement", "deny", "__import__"},
		{"while 1: password", "statement", "deny", "password"},
		{"x = f'{().__class__}'", "statement", "deny", "__class__"},
	} {
		v, reason := judgeCode(c.code, c.kind, rules{})
		if string(v) != c.want || !strings.Contains(reason, c.reason) {
			t.Errorf("%s %q: %s (%s), want %s with %q", c.kind, c.code, v, reason, c.want, c.reason)
		}
	}
	// The default's allow_calls: a listed name runs with positional
	// arguments only, and never as a way to call what it is handed.
	def := rules{calls: map[string]bool{"len": true, "repr": true, "str": true, "type": true, "isinstance": true, "id": true, "map": true, "iter": true, "help": true}}
	for _, c := range []struct{ code, want, reason string }{
		{"type(x)", "allow", ""},
		{"len(x) + id(y)", "allow", ""},
		{"isinstance(x, (int, str))", "allow", ""},
		{"str(b'', 'utf-8')", "allow", ""},
		{"type('X', (), {'__class_getitem__': logging.threading._os.system})['id']", "approve", "makes a class"},
		{"type('Y', (B,), {}, command='id')", "approve", "keyword"},
		{"type('X', (), {})", "approve", "makes a class"},
		{"type(*t)", "approve", "unpacked"},
		{"len(**k)", "approve", "keyword or unpacked"},
		{"ｔｙｐｅ('X', (), {})", "approve", "makes a class"},
		{"str(x, encoding='utf-8')", "approve", "keyword"},
		{"len(map(f, x))", "approve", "map calls"},
		{"iter(f, 1)", "approve", "calls f"},
		{"iter(x)", "allow", ""},
		{"help()", "approve", "imports"},
		{"type(x)('X', (), {})", "approve", "calls a function"},
		// A part of what no listing showed and no path names: a person.
		{"str(type(cfg).DEFAULTS)[14:]", "approve", "it reads part of"},
		{"len(type(cfg).S)", "approve", "not read whole first"},
		{"type(cfg).S[3]", "approve", "not read whole first"},
		{"type(cfg).S < 'm'", "approve", "not read whole first"},
		{"[a][0].b[1:]", "approve", "not read whole first"},
		{"(a or b).x[0]", "approve", "not read whole first"},
		{"x[1:3][0].conf[1:]", "allow", ""}, // a path: the host reads x[1:3][0].conf whole first
		{"x[0, 1].conf[3:]", "allow", ""},
		{"x[~1].conf[3:]", "approve", "not read whole first"}, // a literal key that makes no path
		{"x[(0, 1), 2][3:]", "approve", "not read whole first"},
		{"x['a':(1, 2)][0][1:]", "approve", "not read whole first"},
		{"x[1:3][0] + x[True][3:] + (cfg and alias[1:])", "approve", "beside a cut"}, // parts of names, or of paths the host reads: joined, they build text
		{"type(cfg).DEFAULTS", "allow", ""},                                          // whole: shown masked
		{"str(x)[14:]", "approve", "what a call returns"},                            // its __str__ is not its listed repr
		{"repr(x) < 'm'", "approve", "what a call returns"},
		{"len(str(x))", "approve", "what a call returns"},
		{"len(x) > 3 and type(x) is int and isinstance(x, str) and id(x) == 1", "allow", ""},
		{"str(x)", "allow", ""}, // whole: shown masked
		{"'%.5s' % conn", "approve", "precision"},
		{"b'%(k)-8.3r' % m", "approve", "precision"},
		{"'%5s %.2f %.3s' % (x, y, 'abc')", "approve", "precision"},
		{"'%5s %.2f' % (x, y) + '%.3s' % 'abc'", "approve", "beside a cut"}, // a precision on a literal is none on a value
		{"items[-1].name[:20]", "allow", ""},                                // a path, read whole first
		{"'abc'[1:][0] + ('a', 'b')[0][1:]", "approve", "beside a cut"},
		// Text the agent writes beside a cut, masked or not, would tell how
		// a secret begins (docs/SECURITY.md, "The mask answers guesses").
		{"'ghp_16C...'", "approve", "beside a cut"},
		{"['y' * 13 + 'ghp_16C' + 'y' * 30]", "approve", "beside a cut"},
		{"'gh' + 'p_16C'", "approve", "beside a cut"},
		{"'gh' 'p_16Cyyyyyyyyyyyyyyyyyyyyyyyyy'", "approve", "beside a cut"}, // joined: one long literal
		{"'%sp_16C' % 'gh'", "approve", "beside a cut"},
		{"[s[5] + s[12] + s[3]]", "approve", "beside a cut"},
		{"123 * 10 ** 30", "approve", "more than 20 digits"},
		{"[123456789012345678901234]", "approve", "more than 20 digits"},
		{"b'yyyyyyyyyyyyyyyyyyyyyyyy'", "approve", "beside a cut"},
		{"'\\N{FULL STOP}\\N{FULL STOP}\\N{FULL STOP}ghp'", "approve", "cannot decode"},
		{"[0xFFFFFFFFFFFFFFFFFFFFFFFFFF]", "approve", "more than 20 digits"}, // 29 digits shown
		{"x[0] + 1", "allow", ""},                                            // arithmetic
		{"n * 2 + 7 % n", "allow", ""},
		{"d['host'] == 'db.example.com'", "allow", ""},
		{"2 ** 64", "allow", ""}, // 20 digits
		{"(['hunter2', 'Summer2024!', 'password1', 'letmein', 'qwerty12', 'dragon1', 'monkey1', 'football', 'iloveyou'], ['admin123', 'welcome1', 'sunshine', 'princess', 'abc12345', 'trustno1', 'master12', 'shadow12'])",
			"approve", "19 strings"}, // a dictionary of guesses in one call (each list spells one more)
		{"d['host'] == 'db.example.com' and d['user'] != 'root'", "allow", ""},
		// A sequence spells what its items join to (plugins, sequence.go):
		// one the agent writes is a guess, and a long one stands beside
		// debugpy's cut.
		{"['a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'g', 'h', 'p', 'x']", "approve", "more than 10 items"},
		{"(104, 117, 110, 116, 101, 114, 50, 45, 83, 51, 99, 114, 101)", "approve", "more than 10 items"},
		{"['a'] * 12 + ['g', 'h', 'p', 'x']", "approve", "builds a sequence"},
		{"xs + ['g', 'h', 'p']", "approve", "builds a sequence"},
		{"('g', 'h') * 8", "approve", "builds a sequence"},
		{"((" + strings.Repeat("('h', 'u', 'n', 't'), ", 9) + "), (" + strings.Repeat("('h', 'u', 'n', 't'), ", 8) + "))", "approve", "17 strings"},
		{"((" + strings.Repeat("[104, 117, 110, 116], ", 9) + "), (" + strings.Repeat("['hun', 'ter2'], ", 9) + "))", "approve", "27 strings"}, // a pair's 'ter2' counts too
		{"[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]", "allow", ""},
		{"(a, b, c, d, e, f, g, h, i, j, k, l)", "allow", ""}, // the program's values only
		{"(a, b, c, d, e, f, g, h, i, j, k, 'l')", "approve", "more than 10 items"},
		{"len([0] * 80)", "allow", ""},
		{"{'g', 'h', 'p', 'x'} | s", "allow", ""},
		{"(" + strings.Repeat("{'h', 'u', 'n', 't'}, ", 9) + ")", "allow", ""},
		{"((" + strings.Repeat("{'h', 'u', 'n', 't'}, ", 9) + "), (" + strings.Repeat("{'h', 'u', 'n', 't'}, ", 8) + "))", "approve", "17 strings"},
		{"('a', 'b') + t", "approve", "builds a sequence"},
		{"x + y", "allow", ""},
		// Text a call makes of a literal stands beside debugpy's cut of a
		// long string in a container.
		{"(repr(('aaaaaaaaaaaaaaHun', 'xxxxxxxxxxxxxxx')),)", "approve", "makes text with repr"},
		{"(str(['abcd', 'Hun', 'x', 'y']),)", "approve", "makes text with str"},
		{"repr((x, 12345678901234567))", "approve", "makes text with repr"},
		{"repr(x[0]) + ''", "approve", "beside a cut"},
		{"repr(x[0])", "allow", ""},
		{"str(d['host'])", "allow", ""},
		{"str(x, 'utf-8')", "allow", ""},
		{"len(('aaaaaaaaaaaaaaHun', 'x'))", "allow", ""},
		{"isinstance(x, (int, str))", "allow", ""},
		{"str(None)", "allow", ""},
		{"(x, y, 'abc')", "allow", ""},
		{"[(1, 2), (3, 4)]", "allow", ""},
	} {
		v, reason := judgeCode(c.code, "expression", def)
		if string(v) != c.want || !strings.Contains(reason, c.reason) {
			t.Errorf("%q: %s (%s), want %s with %q", c.code, v, reason, c.want, c.reason)
		}
	}
	// A chain of attributes, calls and subscripts is read in the square of
	// its length (holders.go): past maxChain links it is refused.
	long := "len(a" + strings.Repeat(".b[0]", maxChain/2) + ")"
	if v, why := judgeCode(long, "expression", def); v != "allow" {
		t.Errorf("a chain of %d links: %s (%s)", maxChain, v, why)
	}
	if v, why := judgeCode(long[:len(long)-1]+".c)", "expression", def); v != "deny" || !strings.Contains(why, "chain of more than") {
		t.Errorf("a chain of %d links: %s (%s)", maxChain+1, v, why)
	}
	// settings: deny_names and allow_calls.
	r := rules{deny: map[string]bool{"cursor": true}, calls: map[string]bool{"len": true}}
	if v, _ := judgeCode("len(x)", "expression", r); v != "allow" {
		t.Errorf("allow_calls: %s", v)
	}
	if v, _ := judgeCode("len(cursor)", "expression", r); v != "deny" {
		t.Errorf("deny_names: %s", v)
	}
}

// TestFormatKeysAgreeWithCPython: the keys formatKeys reads from a
// %-format are those CPython's str % and bytes % look up in a mapping: all
// of them when the formatting succeeds, and at least those it looked up
// before it refused the format.
func TestFormatKeysAgreeWithCPython(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	pieces := []string{"%", "(", ")", "%(", "password", "a", "s", "d", "r", "c", "*", ".", "5", "-", "#", " ", "+", "0",
		"h", "l", "L", "%%", "é", "\x00", "b", "x", "f", "\\", "'", "%(a)s", "%(p(w)d)s", "%-5.2f", "%(x)*d",
		"%.5s", "%.2r", "%(a).3a", "%.*s", "%5s", "%.0s", "%-8.4r"}
	var fmts []string
	for range 5000 {
		var b strings.Builder
		for range 1 + rng.IntN(8) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		fmts = append(fmts, b.String())
	}
	data, _ := json.Marshal(fmts)
	cmd := exec.Command(policytest.Python3(t), "-c", `
import json, sys
MARK = "<" + "x" * 60 + ">"
out = []
for f in json.load(sys.stdin):
    for fmt in ([f, f.encode("latin-1")] if f.isascii() else [f]):
        keys = []
        class R(dict):
            def __getitem__(self, k):
                keys.append(k.decode("latin-1") if isinstance(k, bytes) else k)
                return 0
        try:
            fmt % R()
            ok = True
        except Exception:
            ok = False
        # Whether a precision cut a value's text: formatted with values
        # whose str, repr and bytes are one marker (an int of 3, for * and
        # %d), a marker left open shows its first characters only.
        class V(int):
            def __str__(self): return MARK
            __repr__ = __str__
            def __bytes__(self): return MARK.encode()
        class M(dict):
            def __getitem__(self, k): return V(3)
        cut = formatted = False
        for args in [M(), V(3)] + [(V(3),) * n for n in range(8)]:
            try:
                res = fmt % args
            except Exception:
                continue
            formatted = True
            res = res.decode("latin-1") if isinstance(res, bytes) else res
            cut = cut or res.count("<") != res.count(">")
        out.append({"f": f, "ok": ok, "keys": keys, "cut": cut, "formatted": formatted})
print(json.dumps(out))
`)
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, out)
	}
	var got []struct {
		F         string   `json:"f"`
		OK        bool     `json:"ok"`
		Cut       bool     `json:"cut"`
		Formatted bool     `json:"formatted"`
		Keys      []string `json:"keys"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %.300s", err, out)
	}
	bad, withKeys, cutBoth, cutOurs := 0, 0, 0, 0
	for _, g := range got {
		ours, cuts, _ := formatKeys(g.F)
		switch {
		case g.Cut && !cuts:
			if bad++; bad <= 10 {
				t.Errorf("%q: CPython shows part of a value's text, formatKeys says no precision cuts it", g.F)
			}
		case g.Cut:
			cutBoth++
		case cuts && g.Formatted:
			cutOurs++ // a precision of 0 (nothing shown), or a mapping's own str
		}
		if len(g.Keys) > 0 {
			withKeys++
		}
		if g.OK && !slices.Equal(ours, g.Keys) || !g.OK && (len(ours) < len(g.Keys) || !slices.Equal(ours[:len(g.Keys)], g.Keys)) {
			if bad++; bad <= 10 {
				t.Errorf("%q: ours %q, CPython's %q (formatted: %v)", g.F, ours, g.Keys, g.OK)
			}
		}
	}
	if withKeys < 500 {
		t.Fatalf("only %d formats read a key", withKeys)
	}
	// formatKeys may say a precision cuts where nothing shows (%.0s), but
	// not for most formats: a precision on %d or %f cuts no text.
	if cutBoth < 500 || cutOurs*4 > cutBoth {
		t.Fatalf("a precision cuts: %d formats by both, %d by formatKeys alone", cutBoth, cutOurs)
	}
}

// BenchmarkJudgeChain: a chain of attributes and subscripts, judged and
// its paths read (PartPaths, Parents), as long as a chain may be and a
// tenth of it.
func BenchmarkJudgeChain(b *testing.B) {
	def := rules{calls: map[string]bool{"len": true}}
	for _, n := range []int{100, 1000} {
		code := "len(a" + strings.Repeat(".b[0]", n/2) + ")"
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				judgeCode(code, "expression", def)
				PartPaths(code)
				Parents(code)
			}
		})
	}
}
