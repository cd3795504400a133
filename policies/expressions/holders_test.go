package expressions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"slices"
	"testing"

	"github.com/debugpy-guard/debugpy-guard/policies/internal/policytest"
)

// TestReadsPart: a holder read whole is shown masked; any other read of it
// (a slice, an index, a comparison, a call, an f-string, unpacking, a
// statement) is reported, whatever its spelling.
func TestReadsPart(t *testing.T) {
	holders := map[string]bool{"alias": true, "pair": true}
	for _, c := range []struct {
		code, kind, want string
	}{
		{"alias", "expression", ""},
		{"(alias)", "expression", ""},
		{"(alias, 1, [pair, {'k': alias, alias: 2, **pair}], {alias})", "expression", ""},
		{"other[1:]", "expression", ""},
		{"cfg.alias[1:]", "expression", ""}, // an attribute named alias is not the name
		{"alias[1:]", "expression", "alias"},
		{"alias[::2]", "expression", "alias"},
		{"(1, alias[0])", "expression", "alias"},
		{"alias < 'm'", "expression", "alias"},
		{"alias == alias", "expression", "alias"},
		{"[*alias]", "expression", "alias"},
		{"len(alias)", "expression", "alias"},
		{"alias.upper", "expression", "alias"},
		{"f'{alias:.5}'", "expression", "alias"},
		{"0 if alias else 1", "expression", "alias"},
		{"alias if 1 else 0", "expression", "alias"},
		{"pair[1]", "expression", "pair"},
		{"{}[alias[0]]", "expression", "alias"},
		{"ａｌｉａｓ[1:]", "expression", "alias"}, // NFKC, as Python reads it
		{"\\\nalias [\f1:]", "expression", "alias"},
		{"x = alias", "statement", "alias"},
		{"print(f'{pair!r}')", "statement", "pair"},
		{"x = 1; y = 2", "statement", ""},
		{"alias[1:", "expression", "alias"},  // not an expression: read as tokens
		{"'unclosed", "expression", "alias"}, // no tokens: every holder, the first named
	} {
		if got := ReadsPart(c.code, c.kind, Held{Holders: holders}); got != c.want {
			t.Errorf("ReadsPart(%q, %s) = %q, want %q", c.code, c.kind, got, c.want)
		}
	}
	if got := ReadsPart("alias[1:]", "expression", Held{}); got != "" {
		t.Errorf("with no holders: %q", got)
	}
}

// TestReadsPartOfObjects: a holder shown as an object or a container
// (derived.objects) has its members read whole by attributes and string
// keys, and one shown as a list or a tuple (derived.sequences) by a
// constant index or slice first: each is the secret whole, shown masked,
// or another value. Any other read of a member, or a number or a slice
// elsewhere on the way, reads part of it, as of any holder.
func TestReadsPartOfObjects(t *testing.T) {
	h := Held{
		Holders:   map[string]bool{"user": true, "headers": true, "alias": true, "pair": true, "orders": true, "m.cfg": true, "m.pw": true},
		Objects:   map[string]bool{"user": true, "headers": true, "pair": true, "orders": true, "m.cfg": true},
		Sequences: map[string]bool{"pair": true, "orders": true},
	}
	for _, c := range []struct{ code, want string }{
		{"user.username", ""},
		{"user.password", ""}, // the secret whole: shown masked
		{"headers['Content-Type']", ""},
		{"headers[b'k']", ""},
		{"(user.email, headers['Accept'], [user.profile.city])", ""},
		{"user.profile['address'].city", ""},
		{"m.cfg.db['host']", ""}, // a path holder that is an object (the result phase's)
		{"pair[1]", ""},          // a tuple's element, whole
		{"pair[-1]", ""},
		{"pair[0:1]", ""},
		{"orders[0].total", ""},
		{"orders[2]['id']", ""},
		{"user.password[1:]", "user"},
		{"user.password[0]", "user"},
		{"user.username == 'ada'", "user"},
		{"len(user.username)", "user"},
		{"user.password.upper()", "user"},
		{"headers['X-Trace'][7:]", "headers"},
		{"headers[k]", "headers"},
		{"headers[f'{k}']", "headers"},
		{"headers[0]", "headers"}, // a number on an object not shown as a sequence
		{"pair[1][1:]", "pair"},   // a slice of an element, which may be a str
		{"pair[1][0]", "pair"},
		{"pair[i]", "pair"},
		{"orders[0].items[0]", "orders"},
		{"user.tokens[0]", "user"},
		{"alias.upper", "alias"},       // not an object: its attributes are a str's
		{"alias['k']", "alias"},        // nor are its keys a member's
		{"m.pw.real", "m.pw"},          // through a holder that is not an object
		{"f'{user.username}'", "user"}, // formatted: other than whole
	} {
		if got := ReadsPart(c.code, "expression", h); got != c.want {
			t.Errorf("ReadsPart(%q) = %q, want %q", c.code, got, c.want)
		}
	}
	if got := ReadsPart("x = user.username", "statement", h); got != "user" {
		t.Errorf("a statement: %q", got)
	}
	// Without objects, a member is a part, as before.
	if got := ReadsPart("user.username", "expression", Held{Holders: h.Holders}); got != "user" {
		t.Errorf("no objects: %q", got)
	}
}

// TestPartPaths: the paths the host reads whole before the code runs are
// the longest ones read other than whole, in one spelling; and ReadsPart
// finds a path that holds a secret wherever it is read other than whole.
func TestPartPaths(t *testing.T) {
	for _, c := range []struct {
		code string
		want []string
	}{
		{"mod.alias", nil},
		{"(mod.alias, {'k': d['k']})", nil},
		{"mod.alias[1:]", []string{"mod.alias"}},
		{"m.modules['__main__'].alias[::2]", []string{"m.modules['__main__'].alias"}},
		{"os.environ['URL'][20:] + env[b'K\\x00'][0]", []string{"env[b'K\\x00']", "env[b'K\\x00'][0]", "os.environ['URL']", "os.environ['URL'][20:]"}},
		// A slice or a tuple of constants is a path's key: what a slice's
		// element holds is read whole first (a list's elements past the
		// 15th, a string's middle, are not in the listing of its name).
		{"big[15:][5][1:]", []string{"big[15:]", "big[15:][5]"}},
		{"big[-1:][0] < 'm'", []string{"big[-1:]", "big[-1:][0]"}},
		{"d[1, 2][31:]", []string{"d[1, 2]"}},
		{"d[(1,)][3]", []string{"d[1,]"}},
		{"a[1:2, ::3, 'k':][0] > 1", []string{"a[1:2, ::3, 'k':]", "a[1:2, ::3, 'k':][0]"}},
		{"a[()][1:]", []string{"a[()]"}},
		{"a[:-1:None][0][1:]", []string{"a[:-1:None]", "a[:-1:None][0]"}},
		{"a[(1, 2), 3][1:]", nil}, // a tuple in a tuple: not a path (its part waits for a person)
		{"ｍｏｄ.ａｌｉａｓ < 'm'", []string{"mod.alias"}},
		{"m.x['pass\\x77d\"'][0][1:]", []string{`m.x['passwd"']`, `m.x['passwd"'][0]`}},
		{"a.b[0].c[1:]", []string{"a.b", "a.b[0].c"}},
		{"a.b[-1].c[1:]", []string{"a.b", "a.b[-1].c"}},
		{"m.alias[3]", []string{"m.alias"}}, // a number picks part of a str: m.alias is read in part
		{"m.alias[- 0x1]", []string{"m.alias"}},
		{"m.b[0].real", []string{"m.b"}}, // one byte of a bytes
		{"m.d['k']", nil},                // a key picks a value whole
		{"m.d[+1]", []string{"m.d"}},     // not a path: its base is read in part
		{"f(x).y[1:]", nil},              // no path: a call's result
		{"len(a.b) + a.b.c", []string{"a.b", "a.b.c"}},
		{"x[0x1][1:]", []string{"x[0x1]"}},
		{"alias[1:]", nil}, // a name: the listing has it
		{"a.b.c", nil},     // read whole: what it reaches through is not shown
		{"x[1:", nil},      // not an expression
	} {
		got := PartPaths(c.code)
		if !slices.Equal(got, c.want) {
			t.Errorf("PartPaths(%q) = %q, want %q", c.code, got, c.want)
		}
	}
	holders := map[string]bool{"m.modules['__main__'].alias": true}
	for _, c := range []struct{ code, want string }{
		{"m.modules['__main__'].alias[1:]", "m.modules['__main__'].alias"},
		{"m.modules[\"__main__\"].ａｌｉａｓ < 'm'", "m.modules['__main__'].alias"},
		{"m.modules['__main__'].alias", ""},
		{"(1, m.modules['__main__'].alias)", ""},
		{"m.modules['__main__'].other[1:]", ""},
	} {
		if got := ReadsPart(c.code, "expression", Held{Holders: holders}); got != c.want {
			t.Errorf("ReadsPart(%q) = %q, want %q", c.code, got, c.want)
		}
	}
}

// TestPathsAgreeWithCPython: each path PartPaths and Parents spell is, to
// CPython's ast, a node of the code it came from: the host reads whole the
// very value the code reads in part, and opens the very value whose child
// it reads, however the code spells it (NFKC names,
// every quote, prefix and escape of a key, every number form).
func TestPathsAgreeWithCPython(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 1))
	bases := []string{"m", "ｍｏｄ", "cfg", "_x", "µ", "ﬁle"}
	keys := []string{`'k'`, `"k"`, `'''a"b'''`, `r'\d'`, `'\x00\n\t\\'`, `'é\u00e9\U0001F600'`, `"it's"`, `'a' "b"`,
		`b'\xff"'`, `rb'\''`, `Rb"x"`, `u'x'`, `0`, `0x1F`, `1_000`, `0o7`, `1.5`, `1e3`, `2j`, `0b1`, `'\u2028'`, `' '`,
		`'\ud800'`, `'a\udfff\ud800'`, `None`, `True`, `...`, `-1`, `- 0x1F`, `-(1)`, `(-1)`, `-1.5`, `+1`, `~1`, `--1`, `-True`, `-'k'`,
		`1:`, `:2`, `::2`, `-1:`, `'a':b'b'`, `1:2:3`, `::`, `:`, `None:`, `::-1`, `( 1 ):`, `1, 2`, `(1, 2)`, `1:2, 3`, `()`, `(1,)`, `1,`,
		`(1, 2), 3`, `~1:`, `1:-(1)`, `'\ud800':`, `0x1:0o7, 'k', b'k'`}
	parts := []string{"%s[1:]", "%s[::2]", "%s < 'm'", "len(%s)", "[*%s]", "%s + 1", "(%s)[0:]", "f'{%s:.3}'", "%s.upper", "%s[-1]"}
	var codes []string
	for range 3000 {
		p := bases[rng.IntN(len(bases))]
		for range 1 + rng.IntN(4) {
			if rng.IntN(2) == 0 {
				p += "." + bases[rng.IntN(len(bases))]
			} else {
				p += "[" + keys[rng.IntN(len(keys))] + "]"
			}
		}
		codes = append(codes, fmt.Sprintf(parts[rng.IntN(len(parts))], p))
	}
	type pair struct {
		Code  string   `json:"code"`
		Paths []string `json:"paths"`
	}
	var in []pair
	n := 0
	for _, c := range codes {
		ps := append(PartPaths(c), Parents(c)...)
		n += len(ps)
		in = append(in, pair{c, ps})
	}
	if n < len(codes)/2 {
		t.Fatalf("only %d paths in %d codes", n, len(codes))
	}
	data, _ := json.Marshal(in)
	cmd := exec.Command(policytest.Python3(t), "-c", `
import ast, json, sys
def dumps(tree):  # u'x' and 'x' are one value: ast keeps the prefix as a kind
    for n in ast.walk(tree):
        if isinstance(n, ast.Constant):
            n.kind = None
    return [ast.dump(n) for n in ast.walk(tree)]
bad = []
for p in json.load(sys.stdin):
    try:
        tree = ast.parse(p["code"], mode="eval")
    except SyntaxError:  # an f-string this CPython reads as 3.11 does: not what this test is about
        continue
    nodes = set(dumps(tree))
    for path in p["paths"] or []:
        if dumps(ast.parse(path, mode="eval").body)[0] not in nodes:
            bad.append([p["code"], path])
print(json.dumps(bad))
`)
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, out)
	}
	var bad [][]string
	if err := json.Unmarshal(out, &bad); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, b := range bad[:min(len(bad), 10)] {
		t.Errorf("in %q the path %q is not a node CPython reads", b[0], b[1])
	}
}

// TestIsPath: isPath, which spells nothing, says of every node of the
// parser's corpus whether it is a path as its spelling does: a key
// pathKeyOK takes is one pathKey spells, and no other.
func TestIsPath(t *testing.T) {
	corpus := append(adversarial(), generated(2000, 3)...)
	corpus = append(corpus, "x[-1][None][True][...][b'k']['k'][0x1].y", "x[-'k']", "x[+1]", "x['\\ud800']", "x[-1.5j]",
		"x[1:][:2][::3][1:2:3][-1::][:, 1][1, 2][()][(1,)].y", "x[(1, 2), 3]", "x[~1:]", "x['\\ud800':]", "x[1:f()]")
	paths := 0
	for _, src := range corpus {
		n, err := Parse(src)
		if err != nil {
			continue
		}
		var walk func(n *Node)
		walk = func(n *Node) {
			if n.Kind == "Subscript" {
				if k := n.Kids[1]; pathKeyOK(k) != (pathKey(k) != "") {
					t.Errorf("%q: pathKeyOK says %v of a %s key spelled %q", src, pathKeyOK(k), k.Kind, pathKey(k))
				}
			}
			if isPath(n) {
				paths++
			}
			for _, k := range n.Kids {
				walk(k)
			}
		}
		walk(n)
	}
	if paths < 1000 {
		t.Fatalf("only %d paths", paths)
	}
}

// TestReadsCut: which reads of a value shown cut short read its content
// (derived.cut): a comparison, a format, an operand, a call's argument; not
// a read through a path, of its truth or identity, by len, or whole.
// TestReadsTextPart: a slice or an index of a text shown cut short, or of
// a path to one, in any spelling Python reads as it, is a read of its part,
// but among its first 100 items, which were shown; the text whole, its
// length, another name's part are not.
func TestReadsTextPart(t *testing.T) {
	texts := map[string]bool{"dump": true, "obj.html": true}
	for code, want := range map[string]string{
		"dump[100030:100400]": "dump",
		"dump[1::2]":          "dump",
		"dump[-1]":            "dump",
		"dump[i]":             "dump",
		"(1, dump[5:])":       "dump",
		"dump[5:][::-1]":      "dump",
		"ｄｕｍｐ[5:]":            "dump",
		"dump [ 5 : ]":        "dump",
		"obj.html[100:200]":   "obj.html",
		"obj . html[100]":     "obj.html",
		"[obj.html[3:]][0]":   "obj.html",
		"x[dump[300]]":        "dump",
		"dump[100]":           "dump",
		"dump[:101]":          "dump",
		"dump[0:50:0]":        "dump",
		"dump[0:50:-1]":       "dump",
		"dump[2,]":            "dump",
		"dump[5]":             "",
		"dump[99]":            "",
		"dump[0x10]":          "",
		"dump[True]":          "",
		"dump[:100]":          "",
		"dump[10:20]":         "",
		"dump[0:50:2]":        "",
		"obj.html[0]":         "",
		"dump":                "",
		"(dump, 1)":           "",
		"len(dump)":           "",
		"dump == 'x'":         "",
		"obj.html":            "",
		"obj.other[3:]":       "",
		"short[1:]":           "",
		"dump.count":          "",
		"{'dump': 1}['dump']": "",
		"dumpster[1:]":        "",
	} {
		checkReads(t, "ReadsTextPart", ReadsTextPart, texts, code, want)
	}
	checkNames(t, "ReadsTextPart", ReadsTextPart, texts, "dump", "dump[5:]")
}

// checkReads checks that reads (ReadsCut, ReadsTextPart), given names,
// finds want in the expression code.
func checkReads(t *testing.T, what string, reads func(text, kind string, names map[string]bool) string, names map[string]bool, code, want string) {
	t.Helper()
	if got := reads(code, "expression", names); got != want {
		t.Errorf("%s(%q) = %q, want %q", what, code, got, want)
	}
}

// checkNames checks that reads finds name in a statement that names it
// (x = name), and nothing in code with no names given.
func checkNames(t *testing.T, what string, reads func(text, kind string, names map[string]bool) string, names map[string]bool, name, code string) {
	t.Helper()
	if got := reads("x = "+name, "statement", names); got != name {
		t.Errorf("%s: a statement that names %s: %q", what, name, got)
	}
	if got := reads(code, "expression", nil); got != "" {
		t.Errorf("%s(%q), no names: %q", what, code, got)
	}
}

func TestReadsCut(t *testing.T) {
	cut := map[string]bool{"big": true, "m.items": true}
	for code, want := range map[string]string{
		"big < [0, 'Zq']":         "big",
		"big == [1]":              "big",
		"[big] < [[0]]":           "big",
		"(big or x) < [0]":        "big",
		"(big if c else x) > [0]": "big",
		"'%s' % (big,)":           "big",
		"f'{big}'":                "big",
		"sorted(big)":             "big",
		"big + [1]":               "big",
		"-big":                    "big",
		"big[i]":                  "big", // not a path: its content picks the element
		"m.items < [0]":           "m.items",
		"ｂｉｇ < [0]":               "big",
		"big":                     "",
		"(big, 1)":                "",
		"big[20]":                 "",
		"big[15:] < [0]":          "", // a path, read whole first: whether it shows a secret is its own
		"big[15:][5][1:]":         "",
		"big.count":               "",
		"len(big) > 20":           "",
		"not big":                 "",
		"big is None":             "",
		"big is not x":            "",
		"big or 0":                "",
		"x if big else y":         "",
		"type(big) == list":       "",
		"isinstance(big, list)":   "",
		"m.items[0] == 1":         "",
		"other < [0]":             "",
	} {
		checkReads(t, "ReadsCut", ReadsCut, cut, code, want)
	}
	checkNames(t, "ReadsCut", ReadsCut, cut, "big", "big < [0]")
}

// TestParents: the paths whose children the code's paths show, for the host
// to open before it runs.
func TestParents(t *testing.T) {
	for _, c := range []struct {
		code string
		want []string
	}{
		{"zlines[3]", []string{"zlines"}},
		{"zlines[3] < 'N'", []string{"zlines"}},
		{"zlines[2:5]", []string{"zlines"}},
		{"(zlines[7], zlines[8])", []string{"zlines"}},
		{"zlines[3][0]", []string{"zlines", "zlines[3]"}}, // zlines[3] is read whole first
		{"zlines[i]", []string{"zlines"}},
		{"zlines[i][0]", []string{"zlines"}},
		{"env['L3']", []string{"env"}},
		{"cfg.db.url", []string{"cfg.db"}},
		{"a.b[0].c[1:]", []string{"a", "a.b[0]", "a.b[0].c"}}, // a.b and a.b[0].c are read whole first
		{"ｃｆｇ.ｄｂ", []string{"cfg"}},
		{"len(m.d['k']) + x.y", []string{"m.d", "x"}},
		{"f(x).y[1]", nil},
		{"alias", nil},
		{"alias[1:", nil},
	} {
		if got := Parents(c.code); !slices.Equal(got, c.want) {
			t.Errorf("Parents(%q) = %q, want %q", c.code, got, c.want)
		}
	}
}
