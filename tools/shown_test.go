package tools

import (
	"os/exec"
	"slices"
	"testing"

	"github.com/debugpy-guard/debugpy-guard/engine"
)

func TestCodeRepr(t *testing.T) {
	for _, c := range []struct {
		shown string
		want  codeSource
		ok    bool
	}{
		{`<code object make at 0x7f2ca5e3b290, file "/tmp/app.py", line 1>`, codeSource{"/tmp/app.py", 1}, true},
		{`<code object <lambda> at 0x7f, file "/a b/x, file "y.py", line 12>`, codeSource{`/a b/x, file "y.py`, 12}, true}, // CPython does not escape the path
		{`<code object <module> at 0x7f, file "<string>", line 1>`, codeSource{"<string>", 1}, true},
		{`<code object make at 0x7f, file "/tmp/app.py", line x>`, codeSource{}, false},
		{`<function make at 0x7f>`, codeSource{}, false},
		{`code object make at 0x7f, file "/tmp/app.py", line 1`, codeSource{}, false},
	} {
		got, ok := codeRepr(c.shown)
		if ok != c.ok || ok && got != c.want {
			t.Errorf("codeRepr(%q) = %v, %v; want %v, %v", c.shown, got, ok, c.want, c.ok)
		}
	}
}

func TestCodeSources(t *testing.T) {
	shown := []variableView{
		{Name: "__code__", Type: "code", Value: `<code object make at 0x1, file "/app/a.py", line 3>`},
		{Name: "__defaults__", Type: "tuple", Value: "('x',)", Children: []variableView{
			{Name: "0", Type: "code", Value: `<code object <module> at 0x2, file "<frozen os>", line 1>`}, // no file to read
		}},
		{Name: "co", Type: "code", Value: `<code object make at 0x1, file "/app/a.py", line 3>`}, // the same, once
	}
	shown[1].dropped = []variableView{ // past max_items: not shown, read
		{Name: "1", Type: "code", Value: `<code object f at 0x3, file "/app/c.py", line 9>`},
	}
	ref := &variableView{Children: []variableView{ // a code object's attributes
		{Name: "co_filename", Type: "str", Value: `'/app/b.py'`},
		{Name: "co_firstlineno", Type: "int", Value: "7"},
	}}
	got := codeSources(shown, ref)
	want := []codeSource{{"/app/a.py", 3}, {"/app/c.py", 9}, {"/app/b.py", 7}}
	if !slices.Equal(got, want) {
		t.Errorf("codeSources = %v, want %v", got, want)
	}
}

// unrepr agrees with CPython's repr of the same strings.
func TestUnrepr(t *testing.T) {
	for _, c := range []struct{ shown, want string }{
		{`'/app/b.py'`, "/app/b.py"},
		{`"/app/it's.py"`, "/app/it's.py"},
		{`'/app/it\'s "q".py'`, `/app/it's "q".py`},
		{`'/app/\xa0\x7f\\n.py'`, "/app/\u00a0\x7f\\n.py"},
		{`'/app/é😀\u2028.py'`, "/app/é😀\u2028.py"},
	} {
		if got, ok := unrepr(c.shown); !ok || got != c.want {
			t.Errorf("unrepr(%s) = %q, %v; want %q", c.shown, got, ok, c.want)
		}
		if py, err := exec.Command("python3", "-c", "import sys; sys.stdout.write(repr(sys.argv[1]))", c.want).Output(); err != nil || string(py) != c.shown {
			t.Errorf("CPython writes %q as %s (%v), not %s", c.want, py, err, c.shown)
		}
	}
	for _, bad := range []string{`'`, `'a"`, `b'x'`, `/app/b.py`} {
		if got, ok := unrepr(bad); ok {
			t.Errorf("unrepr(%s) = %q, want none", bad, got)
		}
	}
}

// openedAt knows a container by its variables reference and path: the
// same path at a stop is another frame's value when the reference differs
// (a caller's, listed by its reference).
func TestOpenedAt(t *testing.T) {
	opened := func(path string, ref int) variableView {
		return variableView{Name: path, EvaluateName: path, VariablesReference: ref, Children: []variableView{{Name: "raw", Value: "'x'"}}}
	}
	listed := []engine.Seen{{Structured: variablesResult{Variables: []variableView{opened("token", 7)}}, Values: map[string]string{}}}
	l := &stopList{}
	l.keep(&l.parents, "box", []engine.Seen{{Structured: variablesResult{Variables: []variableView{opened("box", 8)}}}})
	l.keep(&l.parents, "plain", nil) // nothing to open
	l.keep(&l.shown, shownKey(opened("pair", 9)), nil)
	l.keep(&l.shown, "children "+shownKey(opened("holder", 10)), nil)
	for _, c := range []struct {
		path string
		ref  int
		want bool
	}{
		{"token", 7, true}, {"token", 17, false}, // by the listing
		{"box", 8, true}, {"box", 18, false}, // by pathsSeen
		{"plain", 0, false}, {"plain", 19, false},
		{"pair", 9, true}, {"pair", 29, false}, // shown cut short, opened
		{"holder", 10, true}, {"holder", 20, false}, // listed by its reference
		{"", 9, false}, {"other", 7, false},
	} {
		if got := openedAt(l, listed, variableView{EvaluateName: c.path, VariablesReference: c.ref}); got != c.want {
			t.Errorf("openedAt(%q, ref %d) = %v, want %v", c.path, c.ref, got, c.want)
		}
	}
	if openedAt(nil, listed, variableView{EvaluateName: "token", VariablesReference: 7}) {
		t.Error("openedAt with no listing of this stop: true")
	}
}
