package tools

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/debugpy-guard/debugpy-guard/engine"
	"github.com/debugpy-guard/debugpy-guard/internal/pyrepr"
	"github.com/debugpy-guard/debugpy-guard/policies/expressions"
)

// TestParts: a listing is learned in runs of at most max variables,
// children included, in order, none lost; a variable with more is split,
// each run of its children under a copy of it, and theirs in turn.
func TestParts(t *testing.T) {
	v := func(name string, children ...variableView) variableView {
		return variableView{Name: name, Children: children}
	}
	many := func(n int, c variableView) []variableView { return slices.Repeat([]variableView{c}, n) }
	cg := v("c", v("g"))
	vs := []variableView{v("a"), v("b", cg, cg), v("big", many(10, cg)...), v("d"), v("e", cg), v("f"),
		v("deep", v("x", many(7, v("y", v("z")))...)), v("g")} // sizes 1, 5, 21, 1, 3, 1, 16, 1
	got := parts(vs, 6)
	var names [][]string
	for _, p := range got {
		var ns []string
		n := 0
		for _, x := range p {
			ns = append(ns, x.Name)
			n += count(x)
		}
		if n > 6 {
			t.Errorf("a part of %d variables: %v", n, ns)
		}
		names = append(names, ns)
	}
	want := [][]string{{"a", "b"}, {"big"}, {"big"}, {"big"}, {"big"}, {"big"}, {"d", "e", "f"},
		{"deep"}, {"deep"}, {"deep"}, {"deep"}, {"g"}}
	if !slices.EqualFunc(names, want, slices.Equal) {
		t.Fatalf("parts = %v, want %v", names, want)
	}
	// Every leaf, by its path, in order; and every variable is in a part.
	var leaves func(prefix string, vs []variableView, out *[]string, all map[string]bool)
	leaves = func(prefix string, vs []variableView, out *[]string, all map[string]bool) {
		for _, x := range vs {
			p := prefix + "/" + x.Name
			all[p] = true
			if len(x.Children) == 0 {
				*out = append(*out, p)
			}
			leaves(p, x.Children, out, all)
		}
	}
	var wantLeaves, gotLeaves []string
	wantAll, gotAll := map[string]bool{}, map[string]bool{}
	leaves("", vs, &wantLeaves, wantAll)
	for _, p := range got {
		leaves("", p, &gotLeaves, gotAll)
	}
	if !slices.Equal(gotLeaves, wantLeaves) || len(gotAll) != len(wantAll) {
		t.Fatalf("leaves %v, want %v; %d paths, want %d", gotLeaves, wantLeaves, len(gotAll), len(wantAll))
	}
	if got := parts(nil, 6); len(got) != 1 || len(got[0]) != 0 {
		t.Fatalf("parts of nothing = %v", got)
	}
}

// TestDiverse: the lowest ranks are taken first, in their order
// otherwise; all of them when they fit.
func TestDiverse(t *testing.T) {
	var vs []*variableView
	rank := map[*variableView]int{}
	for _, r := range []int{0, 1, 2, 0, 3, 0, 1} {
		v := &variableView{Name: fmt.Sprint(len(vs))}
		vs, rank[v] = append(vs, v), r
	}
	names := func(vs []*variableView) string {
		var out []string
		for _, v := range vs {
			out = append(out, v.Name)
		}
		return strings.Join(out, " ")
	}
	for n, want := range map[int]string{2: "0 3", 3: "0 3 5", 5: "0 3 5 1 6", 7: "0 1 2 3 4 5 6", 9: "0 1 2 3 4 5 6"} {
		if got := names(diverse(vs, rank, n)); got != want {
			t.Errorf("diverse(%d) = %s, want %s", n, got, want)
		}
	}
}

// TestPlainPath: an evaluate name the listing evaluates is a path; one a
// program's attribute name makes code of is not.
func TestPlainPath(t *testing.T) {
	for name, want := range map[string]bool{
		"api_key": true, "self.blob": true, "d['k'][0]": true, "mod.cfg['a b'].x": true, "l[-1]": true,
		"": false, "x)+__import__('os').system('id')+(y": false, "o.f()": false, "a[b]": false, "a if b else c": false,
		"(lambda: 1)()": false, "a; b": false, "a\nb": false,
	} {
		if got := plainPath(name); got != want {
			t.Errorf("plainPath(%q) = %v, want %v", name, got, want)
		}
	}
}

// The bytes read at a stop are bounded for the stop, not for each frame
// it lists: the frame's rows take what they need, and the other frames'
// what is left (64 values, 64 KiB).
func TestShownByLengthBoundsTheStop(t *testing.T) {
	rows := func(prefix string, n, size int) []variableView {
		var vs []variableView
		for i := range n {
			vs = append(vs, variableView{Name: fmt.Sprint(prefix, i), EvaluateName: fmt.Sprint(prefix, i), Type: "bytearray",
				Value: fmt.Sprintf("<bytearray, len() = %d>", size)})
		}
		return vs
	}
	var b shownByLength
	if got := len(b.pick(rows("a", 40, 2000))); got != 32 { // 32 * 2000 bytes of the 64 KiB
		t.Fatalf("the frame's rows: %d picked, want 32", got)
	}
	if got := len(b.pick(rows("b", 40, 2000))); got != 0 {
		t.Fatalf("another frame's, after the bytes are spent: %d picked, want 0", got)
	}
	var c shownByLength
	if got := len(c.pick(rows("a", 50, 16))); got != 50 {
		t.Fatalf("small rows: %d picked, want 50", got)
	}
	if got := len(c.pick(rows("b", 50, 16))); got != maxOpen-50 {
		t.Fatalf("another frame's small rows: %d picked, want %d", got, maxOpen-50)
	}
}

// TestListedRow: a parent is found in the stop's listing by its name (a
// local before a global of that name) or, below a name, by the name
// debugpy gives a child to evaluate; not in the environment's row, nor in
// another frame's, which name no scope.
func TestListedRow(t *testing.T) {
	scope := func(values bool, vs ...variableView) engine.Seen {
		sn := engine.Seen{Structured: variablesResult{Variables: vs}}
		if values {
			sn.Values = map[string]string{}
		}
		return sn
	}
	lines := variableView{Name: "lines", Value: "['a', ...]", VariablesReference: 7}
	box := variableView{Name: "box", EvaluateName: "box", VariablesReference: 8, Children: []variableView{
		{Name: "lines", EvaluateName: "box.lines", Value: "['b', ...]", VariablesReference: 9},
		{Name: "kd", EvaluateName: "box.kd", Value: "{...}", VariablesReference: 10, Children: []variableView{{Name: "'k'", EvaluateName: "box.kd['k']", Value: "'v'"}}}}}
	global := variableView{Name: "lines", Value: "['global', ...]", VariablesReference: 11}
	listed := []engine.Seen{scope(false, variableView{Name: "env", Value: "{...}", VariablesReference: 3}),
		scope(true, lines, box), scope(true, global), scope(false, variableView{Name: "caller", VariablesReference: 12})}
	for _, c := range []struct {
		path string
		ref  int
	}{{"lines", 7}, {"box", 8}, {"box.lines", 9}, {"box.kd", 10}, {"box.kd['k']", 0}, {"env", -1}, {"caller", -1}, {"box.other", -1}, {"boxes", -1}} {
		v, shown := listedRow(listed, c.path)
		if !shown && c.ref >= 0 || shown && (c.ref < 0 || v.VariablesReference != c.ref) {
			t.Errorf("listedRow(%q) = %+v, %v; want ref %d", c.path, v, shown, c.ref)
		}
	}
}

// startedRows splits what the listing's own read returned, a str of the
// environment's repr and a line for each value the frame's functions hold
// (heldLines), into the rows debugpy would have shown for each.
func TestStartedRows(t *testing.T) {
	env := `({'HOME': '/root', 'Q': "it's"}, ['app.py'])`
	held := `'client.token' str 'cls-s3cret\n'` + "\n" + `"d['it\'s'].pw" tuple ('ada', 'x y')`
	got := startedRows(pyrepr.Repr(env+"\n"+held), "str")
	want := []variableView{{Name: "(os.environ, sys.argv)", Value: pyrepr.Repr(env), Type: "str"},
		{Name: "client.token", Value: `'cls-s3cret\n'`, Type: "str"}, {Name: "d['it's'].pw", Value: "('ada', 'x y')", Type: "tuple"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("startedRows = %+v, want %+v", got, want)
	}
	if got := startedRows(pyrepr.Repr(env+"\n"), "str"); len(got) != 1 || got[0].Value != pyrepr.Repr(env) {
		t.Errorf("startedRows of nothing held = %+v", got)
	}
	for _, c := range []struct{ shown, typ string }{
		{"Traceback (most recent call last): NameError", "str"}, // an error's text
		{pyrepr.Repr(env), "str"},                               // one line: a read of before
		{pyrepr.Repr(env + "\n" + held), "dict"},
		{pyrepr.Repr(env + "\n{'client.token': 'x'}"), "str"}, // not heldLines' lines
	} {
		if got := startedRows(c.shown, c.typ); len(got) != 1 || got[0].Value != c.shown {
			t.Errorf("startedRows(%q) = %+v, want it as it came", c.shown, got)
		}
	}
}

// literalsOnly holds to CPython: every repr it writes of containers of
// literals (strings of any character, bytes, numbers, True, False, None,
// nested, the collections' own) shows literals only; one that shows an
// object's repr (the default, a class's own, a function's, a date's, a
// program's class's) does not.
func TestLiteralsOnlyAgreesWithCPython(t *testing.T) {
	prog := `import collections, datetime, decimal, random, sys
random.seed(7)
def text():
    return "".join(random.choice("ab'\"\\\n\t é€\x00\U0001f600<>()[]{},:=") for _ in range(random.randrange(8)))
def literal(depth):
    k = random.randrange(12 if depth < 3 else 7)
    if k == 0: return text()
    if k == 1: return text().encode("utf-8", "surrogatepass")
    if k == 2: return random.choice([0, -3, 10**30, 1.5, -1e-05, float("inf"), float("-inf"), float("nan"), 2j, complex(1, -2), True, False, None])
    if k == 3: return random.random() * 10 ** random.randrange(-20, 20)
    if k in (4, 5, 6): return text()
    if k == 7: return [literal(depth + 1) for _ in range(random.randrange(4))]
    if k == 8: return tuple(literal(depth + 1) for _ in range(random.randrange(4)))
    if k == 9: return {text(): literal(depth + 1) for _ in range(random.randrange(4))}
    if k == 10: return random.choice([set, frozenset])(text() for _ in range(random.randrange(3)))
    return random.choice([collections.OrderedDict, lambda d: collections.defaultdict(list, d), collections.Counter])({text(): random.randrange(9) for _ in range(random.randrange(3))})
class C:
    pass
class Conn:
    def __repr__(self):
        return "Conn(pw)"
objects = [C(), Conn(), len, lambda: 0, datetime.date(2020, 1, 2), decimal.Decimal("1.5"), ValueError("x"), C]
for _ in range(1500):
    v = [literal(0) for _ in range(random.randrange(1, 4))]
    v = random.choice([list, tuple, lambda v: collections.deque(v, maxlen=5)])(v)
    sys.stdout.write("T" + repr(repr(v)) + "\n")
    v = list(v) + [random.choice(objects)]
    random.shuffle(v)
    sys.stdout.write("F" + repr(repr(random.choice([list, tuple])(v))) + "\n")
`
	out, err := exec.Command("python3", "-c", prog).Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		l, ok := expressions.ReadLiteral(line, 1)
		if !ok || !l.Known {
			t.Fatalf("cannot read %s", line)
		}
		if got, want := literalsOnly(l.Value), line[0] == 'T'; got != want {
			t.Errorf("literalsOnly(%s) = %v, want %v", l.Value, got, want)
			if n++; n > 10 {
				t.FailNow()
			}
		}
	}
}

// bytesExpr reads, in CPython, a bytearray (a subclass's too), a
// memoryview and the ctypes arrays of characters and bytes whose class
// ctypes made as their bytes (a wide one as its str), and no other value:
// not an array of another element, nor one of a class of the program's (a
// subclass, a class with a method of its own, an element type whose
// metaclass compares), nor a bytearray whose class writes its own buffer;
// no code of the program's runs (a __class__, a __len__ of its own).
func TestBytesExprAgreesWithCPython(t *testing.T) {
	prog := `import ctypes, sys
class Exits(type(ctypes.c_char)):
    def __eq__(self, o):
        sys.exit("ran the program's __eq__")
    __hash__ = type.__hash__
class MyChar(ctypes.c_char, metaclass=Exits):
    pass
class Sub(ctypes.c_char * 3):
    pass
class Own(ctypes.Array):
    _type_ = ctypes.c_char
    _length_ = 3
    def __getitem__(self, i):
        sys.exit("ran the program's __getitem__")
buf = ctypes.create_string_buffer(b"ab")
wide = ctypes.create_unicode_buffer("xy")
ubytes = (ctypes.c_ubyte * 3)(1, 2, 255)
sbytes = (ctypes.c_byte * 2)(1, -1)
ints = (ctypes.c_int * 2)(1, 2)
mine = (MyChar * 2)()
sub = Sub()
own = Own()
class BA(bytearray):
    @property
    def __class__(self):
        sys.exit("ran the program's __class__")
    def __len__(self):
        sys.exit("ran the program's __len__")
class BB(bytearray):
    def __buffer__(self, flags):
        sys.exit("ran the program's __buffer__")
ba = bytearray(b"ba")
sub_ba = BA(b"sub")
own_buffer = BB(b"own")
mv = memoryview(b"mv")
big = ctypes.create_string_buffer(20000)
print(eval(sys.argv[1]))
`
	names := []string{"buf", "wide", "ubytes", "sbytes", "ints", "mine", "sub", "own", "ba", "mv", "big", "b'x'", "sub_ba", "own_buffer"}
	out, err := exec.Command("python3", "-c", prog, bytesExpr(names)).CombinedOutput()
	if err != nil {
		t.Fatalf("python3: %v\n%s", err, out)
	}
	want := `[b'ab\x00', 'xy\x00', b'\x01\x02\xff', b'\x01\xff', None, None, None, None, b'ba', b'mv', None, None, b'sub', None]` + "\n"
	if string(out) != want {
		t.Errorf("read\n%s\nwant\n%s", out, want)
	}
}

// started reads, at a stop on an exception, the exception pydevd keeps
// among the frame's locals (__exception__: type, exception, traceback)
// for what it holds, its attributes too; a local of that name that is no
// such tuple is read as any value, and so is an exception that is a
// local (its attributes not read).
func TestStartedReadsTheException(t *testing.T) {
	prog := `import sys
class AuthError(Exception):
    def __init__(self, token):
        super().__init__(token)
class Kept(Exception):
    def __init__(self, *, key):
        super().__init__()
        self.key = key
try:
    raise AuthError("rz-s3cret")
except AuthError as e:
    info = (AuthError, e, e.__traceback__)
kept = Kept(key="kept-s3cret")
for l in [{"__exception__": info}, {"__exception__": (Kept, kept, None)}, {"__exception__": (1, 2)}, {"n": 1}, {"kept": kept}]:
    print(eval(sys.argv[1], {}, l).split("\n", 1)[1])
`
	out, err := exec.Command("python3", "-c", prog, started).CombinedOutput()
	if err != nil {
		t.Fatalf("python3: %v\n%s", err, out)
	}
	// the attributes of the exception only (read whole), not of a local
	if want := "'__exception__.token' str 'rz-s3cret'\n'__exception__.key' str 'kept-s3cret'\n\n\n\n"; string(out) != want {
		t.Errorf("read\n%q\nwant\n%q", out, want)
	}
}
