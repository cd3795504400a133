// Package policytest runs a built-in policy's Decide natively on table
// cases: the fast tier's check of each policy's logic (go test -short),
// beside the case files that run the compiled module (policies/testdata).
package policytest

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/debugpy-guard/debugpy-guard/internal/cpython"
	"github.com/debugpy-guard/debugpy-guard/plugins/sdk"
)

// Case is one call and the decision it must get.
type Case struct {
	Name     string
	Phase    string // "call" when empty
	Tool     string
	Category string // read when empty
	Args     string // the arguments' JSON ({} when empty)
	Derived  string // the derived member's JSON (no code, paths or addresses when empty)
	Result   string // phase result: the structured result's JSON
	Settings string // the module's settings' JSON ({} when empty)

	Want   string // the verdict
	Reason string // a part of the reason ("" to not check it)
	Code   string // the reason code
	Output string // a part of the response JSON (a rewritten result, say)
}

// Request is c as the host writes it (plugins/ABI.md).
func (c Case) Request() []byte {
	or := func(s, def string) string {
		if s == "" {
			return def
		}
		return s
	}
	var b strings.Builder
	b.WriteString(`{"abi":1,"phase":`)
	b.WriteString(quote(or(c.Phase, "call")))
	b.WriteString(`,"tool":` + quote(c.Tool) + `,"category":` + quote(or(c.Category, "read")))
	b.WriteString(`,"arguments":` + or(c.Args, "{}") + `,"result":` + or(c.Result, "null"))
	b.WriteString(`,"session":{"id":"s-1","client":{"name":"test","version":"1"}},"debug_session":null,"time":"2026-12-03T10:00:00Z"`)
	b.WriteString(`,"derived":` + or(c.Derived, `{"code":[],"paths":[],"addresses":[],"holders":[]}`))
	b.WriteString(`,"settings":` + or(c.Settings, "{}") + `}`)
	return []byte(b.String())
}

func quote(s string) string {
	q, _ := json.Marshal(s)
	return string(q)
}

// Run registers decide as the SDK's handler and checks every case.
func Run(t *testing.T, decide func(*sdk.Request) sdk.Decision, cases []Case) {
	t.Helper()
	sdk.Handle(decide)
	sdk.ResetCounters() // each run of the cases counts from none
	for _, c := range cases {
		req := c.Request()
		if !json.Valid(req) {
			t.Fatalf("%s: the case's request is not JSON: %s", c.Name, req)
		}
		if why := c.check(sdk.Evaluate(req)); why != "" {
			t.Error(why)
		}
	}
}

// check says how the response out fails c, or "".
func (c Case) check(out []byte, failed bool) string {
	var r struct{ Decision, Reason, Code string }
	if failed || json.Unmarshal(out, &r) != nil {
		return fmt.Sprintf("%s: %s (failed %v)", c.Name, out, failed)
	}
	if r.Decision != c.Want || !strings.Contains(r.Reason, c.Reason) || r.Code != c.Code || !strings.Contains(string(out), c.Output) {
		return fmt.Sprintf("%s: got %s\nwant %s (reason with %q, code %q, output with %q)", c.Name, out, c.Want, c.Reason, c.Code, c.Output)
	}
	return ""
}

// Prepared checks that the policy prepared once for each settings, as the
// built-in module runs it (sdk.HandlePrepared), answers every case as the
// case wants and as decide, which reads the settings at each call, does:
// the cases asked 20 times each in a random order, so that what a prepared
// policy keeps from one call meets every other call after it. For a policy
// whose decision does not depend on its own earlier calls (not ratelimit).
func Prepared(t *testing.T, prepare func(sdk.Value) func(*sdk.Request) sdk.Decision, decide func(*sdk.Request) sdk.Decision, cases []Case) {
	t.Helper()
	defer sdk.Handle(nil)
	sdk.Handle(decide)
	want := make([]string, len(cases))
	for i, c := range cases {
		out, _ := sdk.Evaluate(c.Request())
		want[i] = string(out)
	}
	sdk.HandlePrepared(prepare)
	rnd := rand.New(rand.NewPCG(uint64(len(cases)), 20))
	for range 20 * len(cases) {
		i := rnd.IntN(len(cases))
		out, failed := sdk.Evaluate(cases[i].Request())
		if why := cases[i].check(out, failed); why != "" {
			t.Fatalf("prepared: %s", why)
		}
		if string(out) != want[i] {
			t.Fatalf("%s, prepared: %s\nread at the call: %s", cases[i].Name, out, want[i])
		}
	}
}

// Literals are the string literals of the current directory's test files:
// the texts a package's tests know (each secret shape, each piece of code
// they judge), a corpus for tests that hold one reading to another.
func Literals(t *testing.T) []string {
	t.Helper()
	files, _ := filepath.Glob("*_test.go")
	var out []string
	fset := token.NewFileSet()
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if l, ok := n.(*ast.BasicLit); ok && l.Kind == token.STRING {
				if s, err := strconv.Unquote(l.Value); err == nil && s != "" {
					out = append(out, s)
				}
			}
			return true
		})
	}
	return out
}

// Setting is a module's settings and what its Validate must say of them.
type Setting struct {
	JSON string
	Err  string // a part of the error ("" when the settings are good)
}

// Validate checks validate on each settings.
func Validate(t *testing.T, validate func(sdk.Value) error, cases []Setting) {
	t.Helper()
	for _, c := range cases {
		v, err := sdk.Parse([]byte(c.JSON))
		if err != nil {
			t.Fatalf("%s: %v", c.JSON, err)
		}
		err = validate(v)
		switch {
		case c.Err == "" && err != nil:
			t.Errorf("%s: %v, want no error", c.JSON, err)
		case c.Err != "" && (err == nil || !strings.Contains(err.Error(), c.Err)):
			t.Errorf("%s: %v, want an error with %q", c.JSON, err, c.Err)
		}
	}
}

// Python3 is the CPython of the differential tests (internal/cpython).
func Python3(t testing.TB) string { t.Helper(); return cpython.Path(t) }
