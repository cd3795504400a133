package expressions

import (
	"bufio"
	"encoding/json"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/debugpy-guard/debugpy-guard/policies/internal/policytest"
)

// summary is what a reader of an expression sees that matters to the
// policy: the names, the attributes, how many calls and subscripts, and
// whether it compiles at all.
type summary struct {
	OK         bool     `json:"ok"`
	Names      []string `json:"names"`
	Attrs      []string `json:"attrs"`
	Calls      int      `json:"calls"`
	Subscripts int      `json:"subscripts"`
	Mods       int      `json:"mods"` // % operators: a format reads a mapping's keys (judge.go)
	// Unpacks are the * and a dict display's ** (which iterate), Ins the
	// in and not in operators with what each tests (judge.go).
	Unpacks int      `json:"unpacks"`
	Ins     []string `json:"ins"`
	// Parts are the names read other than whole somewhere, Unknown whether
	// it reads in part a value the host does not read whole first
	// (holders.go).
	Parts   []string `json:"parts"`
	Unknown bool     `json:"unknown"`
	// Cuts are the names whose content is read (a value shown cut short,
	// compared: holders.go, cutRead).
	Cuts []string `json:"cuts"`
	// Kinds are the nodes the policy judges by kind alone (judge.go):
	// lambdas, :=, comprehensions, f-strings, await, yield.
	Kinds []string `json:"kinds"`
	// Keys are the str and bytes constants that subscript (bytes read as
	// Latin-1): the policy denies a secret's name among them.
	Keys []string `json:"keys"`
	// Exec is CPython's reading, as statements, of what does not compile
	// as an expression: "expression" (one expression statement, summed up
	// above), "statements", or "" (neither compiles).
	Exec string `json:"exec"`
}

// judgedKinds are the kinds summary.Kinds counts.
var judgedKinds = map[string]bool{"Lambda": true, "NamedExpr": true, "ListComp": true, "SetComp": true, "DictComp": true,
	"GeneratorExp": true, "JoinedStr": true, "Await": true, "Yield": true, "YieldFrom": true}

func summarize(n *Node, s *summary) {
	switch n.Kind {
	case "Name":
		s.Names = append(s.Names, n.Name)
	case "Attribute":
		s.Attrs = append(s.Attrs, n.Name)
	case "Call":
		s.Calls++
	case "BinOp":
		if n.Name == "%" {
			s.Mods++
		}
	case "Starred", "DoubleStarred":
		s.Unpacks++
	case "Compare":
		for i, op := range n.Ops {
			if op == "in" {
				s.Ins = append(s.Ins, n.Kids[i+1].Kind)
			}
		}
	case "Subscript":
		s.Subscripts++
		if k := n.Kids[1]; k.Kind == "Constant" && (k.Str || k.Undecoded) {
			v := k.Value
			if k.Bytes {
				v = latin1(v)
			}
			if k.Undecoded {
				v = "\\N?" // not known here (TestParserAgreesWithCPython)
			}
			v = surrogates(v)
			s.Keys = append(s.Keys, v)
		}
	}
	if judgedKinds[n.Kind] {
		s.Kinds = append(s.Kinds, n.Kind)
	}
	for _, k := range n.Kids {
		summarize(k, s)
	}
}

// surrogates writes each lone surrogate of a str key (kept as its three
// bytes: tokens.go, writeCode) as U+FFFD, as the CPython summary does.
func surrogates(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0xED && i+2 < len(s) && s[i+1] >= 0xA0 && s[i+1] <= 0xBF {
			b.WriteRune(utf8.RuneError)
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// latin1 reads the bytes of b each as its own character, as Python's
// bytes.decode("latin-1") does.
func latin1(b string) string {
	r := make([]rune, len(b))
	for i := 0; i < len(b); i++ {
		r[i] = rune(b[i])
	}
	return string(r)
}

func ours(src string) summary {
	n, err := Parse(src)
	if err != nil {
		return summary{Names: []string{}, Attrs: []string{}, Parts: []string{}, Cuts: []string{}, Kinds: []string{}, Keys: []string{}, Ins: []string{}}
	}
	s := summary{OK: true, Names: []string{}, Attrs: []string{}, Parts: []string{}, Cuts: []string{}, Kinds: []string{}, Keys: []string{}, Ins: []string{}}
	summarize(n, &s)
	slices.Sort(s.Names)
	slices.Sort(s.Attrs)
	slices.Sort(s.Kinds)
	s.Kinds = slices.Compact(s.Kinds) // which kinds, not how many: CPython nests a JoinedStr for a format spec
	slices.Sort(s.Keys)
	slices.Sort(s.Ins)
	s.Unknown = unknownPart(n, true) != ""
	for _, name := range slices.Compact(slices.Clone(s.Names)) {
		if partRead(n, true, Held{Holders: map[string]bool{name: true}}) != "" {
			s.Parts = append(s.Parts, name)
		}
		if cutRead(n, shown, map[string]bool{name: true}) != "" {
			s.Cuts = append(s.Cuts, name)
		}
	}
	return s
}

// cpython parses each expression with CPython's own parser (eval mode, as
// pydevd compiles it) and reads the same summary off its ast. (Code that
// parses but that CPython's later checks refuse, such as := rebinding a
// comprehension's variable, never runs; the parser reads it all the same.)
const cpython = `
import ast, json, re, sys
KINDS = {"Lambda", "NamedExpr", "ListComp", "SetComp", "DictComp", "GeneratorExp", "JoinedStr", "Await", "Yield", "YieldFrom"}
ERRORS = (SyntaxError, ValueError, MemoryError, RecursionError)
def summarize(tree, out):
    for n in ast.walk(tree):
        if isinstance(n, ast.Name): out["names"].append(n.id)
        elif isinstance(n, ast.Attribute): out["attrs"].append(n.attr)
        elif isinstance(n, ast.Call): out["calls"] += 1
        elif isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod): out["mods"] += 1
        elif isinstance(n, ast.Starred): out["unpacks"] += 1
        elif isinstance(n, ast.Dict): out["unpacks"] += sum(k is None for k in n.keys)
        elif isinstance(n, ast.Compare):
            out["ins"] += [type(r).__name__ for o, r in zip(n.ops, n.comparators) if isinstance(o, (ast.In, ast.NotIn))]
        elif isinstance(n, ast.Subscript):
            out["subscripts"] += 1
            k = n.slice
            if isinstance(k, ast.Constant) and isinstance(k.value, (str, bytes)):
                out["keys"].append(k.value.decode("latin-1") if isinstance(k.value, bytes) else re.sub("[\ud800-\udfff]", "\ufffd", k.value))
        if type(n).__name__ in KINDS: out["kinds"].append(type(n).__name__)
    out["names"].sort(); out["attrs"].sort(); out["ins"].sort(); out["kinds"] = sorted(set(out["kinds"])); out["keys"].sort()
    parts = set()
    def read(n, whole):
        if isinstance(n, ast.Name):
            if not whole: parts.add(n.id)
            return
        whole = whole and isinstance(n, (ast.Tuple, ast.List, ast.Set, ast.Dict))
        for k in ast.iter_child_nodes(n): read(k, whole)
    read(tree.body, True)
    out["parts"] = sorted(parts)
    def scalar(k):  # a constant other than a str or bytes
        return isinstance(k, ast.Constant) and not isinstance(k.value, (str, bytes))
    def path(n):  # holders.go's Path, on CPython's tree
        if isinstance(n, ast.Name): return True
        if isinstance(n, ast.Attribute): return path(n.value)
        if not isinstance(n, ast.Subscript): return False
        def constant(k):
            if isinstance(k, ast.UnaryOp) and isinstance(k.op, ast.USub) and scalar(k.operand): k = k.operand
            if isinstance(k, ast.Constant) and isinstance(k.value, str):
                try: k.value.encode("utf-8")
                except UnicodeEncodeError: return False
            return scalar(k) or isinstance(k, ast.Constant) and isinstance(k.value, (str, bytes))
        def sliced(k):
            return isinstance(k, ast.Slice) and all(p is None or constant(p) for p in (k.lower, k.upper, k.step))
        k = n.slice
        key = constant(k) or sliced(k) or isinstance(k, ast.Tuple) and all(constant(e) or sliced(e) for e in k.elts)
        return key and path(n.value)
    def literal(n):
        if isinstance(n, ast.Constant): return True
        if isinstance(n, ast.UnaryOp): return literal(n.operand)
        if isinstance(n, (ast.Slice, ast.Tuple)): return all(literal(k) for k in ast.iter_child_nodes(n) if not isinstance(k, ast.expr_context))
        return False
    def of_literal(n):
        return literal(n) or isinstance(n, ast.Subscript) and literal(n.slice) and of_literal(n.value)
    def known(n):
        return isinstance(n, ast.Name) or path(n) or of_literal(n)
    def unknown(n, whole):
        if isinstance(n, (ast.Attribute, ast.Subscript)):
            if not whole and not known(n): return True
            whole = False
        elif isinstance(n, ast.Call):
            if not whole and not (isinstance(n.func, ast.Name) and n.func.id in ("len", "id", "isinstance", "type")): return True
            whole = False
        else:
            whole = whole and isinstance(n, (ast.Tuple, ast.List, ast.Set, ast.Dict))
        return any(unknown(k, whole) for k in ast.iter_child_nodes(n))
    out["unknown"] = unknown(tree.body, True)
    cuts = set()
    def cut_read(n, r):  # holders.go's cutRead: r is "shown", "truth" or "content"
        def each(ks, r):
            for k in ks: cut_read(k, r)
        if isinstance(n, ast.Name):
            if r == "content": cuts.add(n.id)
        elif isinstance(n, (ast.Attribute, ast.Subscript)) and path(n):
            cut_read(n.value, "shown")
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("len", "id", "isinstance", "type"):
            each(n.args + n.keywords, "truth")
        elif isinstance(n, (ast.BoolOp, ast.Tuple, ast.List, ast.Set, ast.Dict)):
            each(ast.iter_child_nodes(n), r)
        elif isinstance(n, ast.IfExp):
            cut_read(n.test, "truth"); each([n.body, n.orelse], r)
        elif isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not):
            cut_read(n.operand, "truth")
        elif isinstance(n, ast.Compare) and all(isinstance(o, (ast.Is, ast.IsNot)) for o in n.ops):
            each([n.left] + n.comparators, "truth")
        else:
            each(ast.iter_child_nodes(n), "content")
    cut_read(tree.body, "shown")
    out["cuts"] = sorted(cuts)
for line in sys.stdin:
    src = json.loads(line)
    out = {"ok": False, "names": [], "attrs": [], "calls": 0, "subscripts": 0, "mods": 0, "unpacks": 0, "ins": [], "parts": [], "unknown": False, "cuts": [], "kinds": [], "keys": [], "exec": ""}
    try:
        summarize(ast.parse(src, mode="eval"), out)
        out["ok"] = True
    except ERRORS:
        # What a repl input that does not compile as an expression runs
        # (pydevd execs it): one expression statement, or other statements.
        try:
            m = ast.parse(src, mode="exec")
            if len(m.body) == 1 and isinstance(m.body[0], ast.Expr):
                summarize(ast.Expression(m.body[0].value), out)
                out["exec"] = "expression"
            else:
                out["exec"] = "statements"
        except ERRORS:
            pass
    print(json.dumps(out), flush=True)
`

// TestParserAgreesWithCPython runs a corpus of generated and adversarial
// expressions through CPython and this parser and fails on any difference
// in whether it compiles, the names, the attributes, the calls and the
// subscripts each sees, and which names it reads other than whole (the
// reads of a holder that show part of it: holders.go).
func TestParserAgreesWithCPython(t *testing.T) {
	corpus := append(adversarial(), generated(2500, 1)...)
	corpus = append(corpus, mutated(corpus, 1500, 2)...)
	if len(corpus) < 2000 {
		t.Fatalf("corpus of %d", len(corpus))
	}
	theirs := runCPython(t, corpus)
	diffs := 0
	for i, src := range corpus {
		mine := ours(src)
		if mine.OK && !theirs[i].OK && strings.Contains(src, `\N{`) {
			// The one known difference: a \N{NAME} escape whose name
			// CPython does not know (this parser has no names table, so it
			// cannot tell). Such code never runs; and the policy never
			// allows a key it cannot decode (TestJudge).
			continue
		}
		if !agree(src, mine, theirs[i]) {
			diffs++
			if diffs <= 25 {
				_, err := Parse(src)
				t.Errorf("%q:\n  CPython %+v\n  ours    %+v (%v)", src, theirs[i], mine, err)
			}
		}
	}
	if diffs > 0 {
		t.Fatalf("%d of %d expressions read differently", diffs, len(corpus))
	}
	t.Logf("%d expressions, CPython and the parser agree on each", len(corpus))
}

// agree: the two summaries of src are the same. A key with a \N{...}
// escape is known to CPython only (the parser has no names table).
func agree(src string, mine, theirs summary) bool {
	if mine.OK != theirs.OK {
		return false
	}
	keys := slices.Equal(mine.Keys, theirs.Keys) || strings.Contains(src, `\N{`) && len(mine.Keys) == len(theirs.Keys)
	// A key the parser cannot decode ends a path: what it subscripts is not read whole first.
	unknown := mine.Unknown == theirs.Unknown || strings.Contains(src, `\N{`) && mine.Unknown
	// And its subscript is read for its content (not through a path): more names, never fewer.
	cuts := slices.Equal(mine.Cuts, theirs.Cuts) || strings.Contains(src, `\N{`) && !slices.ContainsFunc(theirs.Cuts, func(n string) bool { return !slices.Contains(mine.Cuts, n) })
	return !mine.OK || slices.Equal(mine.Names, theirs.Names) && slices.Equal(mine.Attrs, theirs.Attrs) && mine.Calls == theirs.Calls &&
		mine.Subscripts == theirs.Subscripts && mine.Mods == theirs.Mods && mine.Unpacks == theirs.Unpacks && slices.Equal(mine.Ins, theirs.Ins) && slices.Equal(mine.Parts, theirs.Parts) && cuts && slices.Equal(mine.Kinds, theirs.Kinds) && keys && unknown
}

func runCPython(t *testing.T, corpus []string) []summary {
	t.Helper()
	script := filepath.Join(t.TempDir(), "read.py")
	os.WriteFile(script, []byte(cpython), 0o644)
	var in strings.Builder
	for _, s := range corpus {
		b, _ := json.Marshal(s)
		in.Write(b)
		in.WriteByte('\n')
	}
	cmd := exec.Command(policytest.Python3(t), script)
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	var res []summary
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var s summary
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("python3 said %q", sc.Text())
		}
		res = append(res, s)
	}
	if len(res) != len(corpus) {
		t.Fatalf("python3 answered %d of %d", len(res), len(corpus))
	}
	return res
}

// adversarial are the forms an attacker reaches for.
func adversarial() []string {
	out := []string{
		"1..__class__", "1 .__class__", "1.__class__", "0x1.real", "0b1_0", "0o17", "1_000.000_1e-1_0j", "1e5", "1E+5", ".5", "5.", "0_0", "00", "01", "1__0", "1_",
		"ｅｖａｌ", "_＿import＿＿", "ｉｆ", "𝐞𝐯𝐚𝐥('1')", "ﬁle", "x²", "ℌ", "Ⅸ", "ǅ", "a·b", "a·", "·a", "١", "x١", "µ", "ª",
		"print\f('x')", "a\tb", "a\vb", "a\u00a0b", "a\u3000b", "a\u2028b", "a\u0085b", "a\ufeffb", "\ufeffa", "a\u200bb", "a\u2003b", "a\r\nb", "(a\r\nb)", "(a\rb)",
		"{}[DB_PASSWORD]", "{}['password']", "d['pass\\x77ord']", "d['\\N{LATIN SMALL LETTER A}']", "d[b'x']", "d[rb'\\x']", "u'x'", "Rb'x'", "bR'x'", "f'x' 'y'", "'a' f'{b}'", "b'a' 'b'",
		"f'{x}'", "f'{x!r}'", "f'{x=}'", "f'{x = }'", "f'{x!r:>{w}}'", "f'{x:{y:{z}}}'", "f'{{x}}'", "f'{{{x}}}'", "f'{x!}'", "f'{x!z}'", "f'{}'", "f'{ }'", "f'{x'", "f'}'",
		"f'{a[\"b\"]}'", "f\"{a['b']}\"", "f'{a!=b}'", "f'{a==b}'", "f'{(lambda: 1)()}'", "f'{x:=1}'", "f'{(x:=1)}'", "f'{f\"{y}\"}'", "f'''{x\n}'''", "f'{x#}'", "f'{\\n}'",
		"a if b else c", "a if b", "lambda: 1", "lambda x, *y, z=1, **k: x", "(x := 1)", "x := 1", "await x", "(yield)", "(yield x)", "yield",
		"a[1:2, ::3]", "a[*b]", "a[*b, c]", "a[b:=1]", "a[:]", "a[::]", "a[1:2:3:4]", "a[]", "*a", "*a,", "(*a,)", "(*a)", "[*a, *b]", "{*a}", "{**a, 'b': 1}", "{**a: 1}",
		"[x for x in y]", "[x async for x in y]", "{x: y for x, y in z if x if y}", "(x for x in y)", "f(x for x in y)", "f(x for x in y, 1)", "[*x for x in y]", "[x for x.y in z]", "[x for f() in z]",
		"not a in b", "a not in b", "a is not b", "a < b < c", "a <> b", "a === b", "not not a", "- - a", "~a ** -b", "a ** b ** c", "a @ b", "a // b", "a<<b>>c",
		"f(a, *b, c=1, **d)", "f(a=1, b)", "f(**a, *b)", "f(a for a in b)", "f(,)", "f(a,)", "f(a b)", "f(*)", "f(=1)", "f(a.b=1)", "f(__class__=1)",
		"a.b.c(d)[e].f", "a.__dict__['password']", "type(x).__mro__", "x.__class__.__base__.__subclasses__()", "getattr(x, 'y')", "vars(x)", "().__class__", "[].__class__",
		"True", "None", "False.real", "...", "....__class__", "Ellipsis", "__debug__", "print", "match", "case", "_", "type",
		"a\\\n+ b", "(a\n+ b)", "a\n", "a\n\n", "a # c", "# c\na", "a\n# c", "a\nb", "a; b", "a;", "\\\n1", "  a", "\ta", "\fa",
		"'''a\nb'''", "'a\nb'", "'a\\\nb'", "\"a'b\"", "'a\\'b'", "r'a\\'", "r'\\'", "'\\'", "'\\x4'", "'\\u00'", "'\\U0010ffff'", "'\\U00110000'", "'\\777'",
		strings.Repeat("(", 100) + "1" + strings.Repeat(")", 100), strings.Repeat("-", 300) + "1", strings.Repeat("[", 50) + strings.Repeat("]", 50),
		strings.Repeat("a.", 300) + "b", "x" + strings.Repeat("[0]", 200), strings.Repeat("not ", 150) + "a",
		"é", "e\u0301", "\u0301e", "ĳ", "ℕ", "ｘ.ｙ", "ｆ'{x}'", "ｂ'x'", "𝔣'{x}'", "０", "ｘ０", "x\u200d", "x\u00ad",
		"a or b and c", "(a, b) = c", "a = 1", "a == 1", "del a", "import os", "exec('x')", "__builtins__", "globals()['x']",
		// what is read in part whole first or not (holders.go, unknownPart)
		"'abc'[1:][0]", "(1).real.imag", "('a', 'b')[0][1:]", "('a', x)[0][1:]", "(-1).real", "b'x'[0].real", "'a'[0:1:2][0]",
		"[a][0].b[1:]", "[a][0].b", "str(type(c).D)[14:]", "type(c).D", "type(c).D['k'][0]", "(a or b).x.y", "(a or b).x",
		"{'a': x}['a'][1:]", "x[1:3][0]", "x[True].c[3:]", "x[...].y.z", "x['\\ud800'].y.z", "x[b'\\xff'].y[0]", "x['\\N{BULLET}'].y[0]",
		"x[-1].y[2:]", "x[- 1].y[0]", "x[-(1)].y.z", "x[~1].y.z", "x[+1].y.z", "x[--1].y.z", "x[-True].y.z", "x[-'k'].y.z", "x[-1.5j].y.z",
		"-x.y[1]", "len(x[-1].y)", "f(x).y < 1", "x.y[0] if c else d", "(x if c else d).y[0]", "x[0,1].y[0]", "x[0][1][2]",
	}
	// Every Unicode space and line separator between two names and before a call.
	for _, r := range []rune{' ', '\t', '\f', '\v', 0x1c, 0x1d, 0x1e, 0x1f, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0x180e, 0x200b, 0xfeff} {
		out = append(out, "a"+string(r)+"(b)", "a"+string(r)+"+b", string(r)+"a", "a"+string(r), "x."+string(r)+"y")
	}
	return out
}

// generated are random expressions from the grammar.
func generated(n int, seed int64) []string {
	rnd := rand.New(rand.NewSource(seed))
	names := []string{"a", "b", "user", "password", "__import__", "ｅｖａｌ", "x1", "_", "self", "os", "ℌx", "é"}
	attrs := []string{"name", "__class__", "items", "api_key", "real", "ｓｙｓ"}
	atoms := []string{"1", "0x1F", "1.5e3", "2j", "'s'", "b'b'", "r'\\d'", "'''t'''", "None", "True", "...", "1_0", ".5", "\"q\""}
	var expr func(d int) string
	expr = func(d int) string {
		if d > 4 {
			if rnd.Intn(2) == 0 {
				return names[rnd.Intn(len(names))]
			}
			return atoms[rnd.Intn(len(atoms))]
		}
		e := func() string { return expr(d + 1) }
		switch rnd.Intn(24) {
		case 0:
			return e() + "." + attrs[rnd.Intn(len(attrs))]
		case 1:
			return e() + "(" + e() + ")"
		case 2:
			return e() + "(" + e() + ", k=" + e() + ", *" + e() + ", **" + e() + ")"
		case 3:
			return e() + "[" + e() + "]"
		case 4:
			return e() + "[" + e() + ":" + e() + "]"
		case 5:
			return e() + []string{" + ", " - ", " * ", " / ", " // ", " % ", " ** ", " @ ", " | ", " & ", " ^ ", " << ", " >> "}[rnd.Intn(13)] + e()
		case 6:
			return e() + []string{" == ", " != ", " < ", " <= ", " in ", " not in ", " is ", " is not "}[rnd.Intn(8)] + e()
		case 7:
			return e() + []string{" and ", " or "}[rnd.Intn(2)] + e()
		case 8:
			return []string{"not ", "-", "+", "~"}[rnd.Intn(4)] + e()
		case 9:
			return e() + " if " + e() + " else " + e()
		case 10:
			return "(" + e() + ", " + e() + ")"
		case 11:
			return "[" + e() + ", *" + e() + "]"
		case 12:
			return "{" + e() + ": " + e() + ", **" + e() + "}"
		case 13:
			return "{" + e() + "}"
		case 14:
			return "[" + e() + " for x in " + e() + " if " + e() + "]"
		case 15:
			return "f'{" + e() + "!r:>{" + e() + "}}'"
		case 16:
			return "f\"a{" + e() + "}b{{c}}\""
		case 17:
			return "lambda x=" + e() + ": " + e()
		case 18:
			return "(y := " + e() + ")"
		case 19:
			return "(" + e() + "\n)"
		case 20:
			return e() + "\f" + e()
		case 21:
			return "await " + e()
		case 22:
			return "(" + e() + " for y in " + e() + ")"
		}
		return names[rnd.Intn(len(names))]
	}
	out := make([]string, n)
	for i := range out {
		out[i] = expr(0)
	}
	return out
}

// mutated are expressions of base with a character inserted, deleted or
// replaced: most no longer compile, and both readers must say so.
func mutated(base []string, n int, seed int64) []string {
	rnd := rand.New(rand.NewSource(seed))
	alphabet := []string{"(", ")", "[", "]", "{", "}", "'", "\"", "\\", ".", ",", ":", "=", "!", "*", "#", "\n", "\f", " ", "\u00a0", "_", "ｅ", "0", "x", "f", "@", ";", "\t", "\v"}
	out := make([]string, 0, n)
	for len(out) < n {
		s := []rune(base[rnd.Intn(len(base))])
		if len(s) == 0 {
			continue
		}
		i := rnd.Intn(len(s))
		c := []rune(alphabet[rnd.Intn(len(alphabet))])
		switch rnd.Intn(3) {
		case 0:
			s = append(s[:i], append(c, s[i:]...)...)
		case 1:
			s = append(s[:i], s[i+1:]...)
		default:
			s = append(s[:i], append(c, s[i+1:]...)...)
		}
		out = append(out, string(s))
	}
	return out
}

// FuzzParse: the parser never panics, never loops, and what it accepts it
// judges.
func FuzzParse(f *testing.F) {
	for _, s := range adversarial() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if n, err := Parse(src); err == nil {
			var s summary
			summarize(n, &s)
		}
		judgeCode(src, "expression", rules{})
		judgeCode(src, "statement", rules{})
	})
}

// cpythonProc is one CPython reading expressions for a fuzzing process (a
// line out, a summary back), started at its first use.
var cpythonProc struct {
	sync.Mutex
	in  io.Writer
	out *bufio.Scanner
}

func cpythonSummary(t *testing.T, src string) summary {
	p := &cpythonProc
	p.Lock()
	defer p.Unlock()
	if p.out == nil {
		script := filepath.Join(os.TempDir(), "debugpy-guard-read.py")
		os.WriteFile(script, []byte(cpython), 0o644)
		cmd := exec.Command(policytest.Python3(t), script)
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatalf("python3: %v", err)
		}
		p.in, p.out = in, bufio.NewScanner(out)
		p.out.Buffer(make([]byte, 1<<20), 1<<24)
	}
	b, _ := json.Marshal(src)
	if _, err := p.in.Write(append(b, '\n')); err != nil || !p.out.Scan() {
		p.out = nil
		t.Fatalf("python3 stopped reading (%v) at %q", err, src)
	}
	var s summary
	if err := json.Unmarshal(p.out.Bytes(), &s); err != nil {
		t.Fatalf("python3 said %q", p.out.Text())
	}
	return s
}

// FuzzParserAgreesWithCPython is TestParserAgreesWithCPython guided by
// coverage: any input the fuzzer makes that the parser reads is read by
// CPython too, and the two summaries must agree (go test -fuzz finds
// inputs the corpus has not thought of).
func FuzzParserAgreesWithCPython(f *testing.F) {
	for _, s := range adversarial() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if !utf8.ValidString(src) {
			return // no evaluate carries it: the MCP request is JSON, and JSON's strings are UTF-8
		}
		mine := ours(src)
		if !mine.OK {
			// What the parser refuses is denied (fail closed), whatever
			// CPython makes of it: a number that runs into a keyword
			// (0x0or 1), which 3.8-3.11 take with a warning, say.
			return
		}
		theirs := cpythonSummary(t, src)
		if !theirs.OK && strings.Contains(src, `\N{`) {
			return // a \N{NAME} CPython does not know (TestParserAgreesWithCPython)
		}
		switch {
		case !theirs.OK && theirs.Exec == "":
			return // nothing runs: debugpy answers a syntax error
		case !theirs.OK && theirs.Exec == "expression":
			// pydevd runs a repl input as statements when it does not
			// compile as an expression ("0\n " does not): the one
			// expression it holds must be what the parser read.
			theirs.OK = true
		}
		if !agree(src, mine, theirs) {
			_, err := Parse(src)
			t.Fatalf("%q:\n  CPython %+v\n  ours    %+v (%v)", src, theirs, mine, err)
		}
	})
}

// TestOperatorLen compares operatorLen with a search of Python's operators
// and delimiters, longest first (the tokenizer's reading before
// operatorLen), on every string of up to four bytes over their characters
// and a few others.
func TestOperatorLen(t *testing.T) {
	operators := []string{
		"**=", "//=", ">>=", "<<=", "...", "!=", "%=", "&=", "**", "*=", "+=", "-=", "->", "//", "/=", ":=",
		"<<", "<=", "==", ">=", ">>", "@=", "^=", "|=",
		"(", ")", "[", "]", "{", "}", ",", ":", ".", ";", "@", "=", "~", "<", ">", "+", "-", "*", "/", "%", "&", "|", "^",
	}
	search := func(s string) int {
		for _, o := range operators {
			if strings.HasPrefix(s, o) {
				return len(o)
			}
		}
		return 0
	}
	alphabet := "()[]{},:.;@=~<>+-*/%&|^!a1 $?`\\'\"#\x00\x80"
	var all func(prefix string, n int)
	checked := 0
	all = func(prefix string, n int) {
		if got, want := operatorLen(prefix), search(prefix); got != want {
			t.Fatalf("operatorLen(%q) = %d, want %d", prefix, got, want)
		}
		checked++
		if n == 0 {
			return
		}
		for i := 0; i < len(alphabet); i++ {
			all(prefix+alphabet[i:i+1], n-1)
		}
	}
	all("", 4)
	if checked < 1_000_000 {
		t.Fatalf("checked %d strings", checked)
	}
}
