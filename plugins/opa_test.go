package plugins

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/debugpy-guard/debugpy-guard/plugins/internal/opa"
)

// The OPA fixtures (testdata/opa/README.md says how they were built).
func opaFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "opa", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func loadOPA(t testing.TB, src []byte, entrypoint, settings string, l Limits) (*Module, error) {
	t.Helper()
	if l.Timeout == 0 {
		l.Timeout = 5 * time.Second // a test is not a test of time under load
	}
	m, err := testRuntime(t).Load(context.Background(), Spec{Name: "rego", Wasm: src, ABI: ABIOPA,
		Entrypoint: entrypoint, Settings: json.RawMessage(settings), Limits: l})
	if err == nil {
		t.Cleanup(func() { m.Close(context.Background()) })
	}
	return m, err
}

func mustOPA(t testing.TB, src []byte, entrypoint, settings string) *Module {
	t.Helper()
	m, err := loadOPA(t, src, entrypoint, settings, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func opaRequest(phase, tool string, args, result any) []byte {
	b, err := json.Marshal(map[string]any{"abi": 1, "phase": phase, "tool": tool, "category": "read",
		"arguments": args, "result": result, "session": map[string]any{"id": "s1"}, "settings": map[string]any{}})
	if err != nil {
		panic(err)
	}
	return b
}

// TestOPADecides runs the fixture's decision rule, from the bundle and from
// the module alone, as a team's Rego rule would run: every shape of answer.
func TestOPADecides(t *testing.T) {
	bundle := opaFixture(t, "guard.tar.gz")
	b, err := opa.ReadBundle(bundle)
	if err != nil {
		t.Fatal(err)
	}
	for src, wasm := range map[string][]byte{"bundle": bundle, "module": b.Wasm} {
		t.Run(src, func(t *testing.T) {
			m := mustOPA(t, wasm, "guard/decision", `{"words":["password","token"]}`)
			for _, c := range []struct {
				req            []byte
				want, reason   string
				result         string
				undefinedValue bool
			}{
				{req: opaRequest("call", "debugpy_stack_trace", map[string]any{}, nil), want: "allow"},
				{req: opaRequest("call", "debugpy_evaluate", map[string]any{"expression": "db.password"}, nil),
					want: "deny", reason: "db.password is off limits (2 words)"},
				{req: opaRequest("call", "debugpy_evaluate", map[string]any{"expression": "x + 1"}, nil), want: "abstain"},
				{req: opaRequest("call", "debugpy_set_variable", map[string]any{"name": "x"}, nil), want: "approve", reason: "a person decides"},
				{req: opaRequest("result", "debugpy_output", map[string]any{}, map[string]any{"text": "quiet"}),
					want: "allow", reason: "rewritten", result: `{"text":"QUIET"}`},
			} {
				r, err := m.Evaluate(context.Background(), "s1", c.req)
				if err != nil || string(r.Verdict) != c.want || r.Reason != c.reason || string(r.Result) != c.result {
					t.Errorf("%s: got %+v (result %s) %v; want %s %q %s", c.req, r, r.Result, err, c.want, c.reason, c.result)
				}
			}
			// The settings are the module's data, set per module.
			m2 := mustOPA(t, wasm, "guard/decision", `{}`)
			r, err := m2.Evaluate(context.Background(), "s1", opaRequest("call", "debugpy_evaluate", map[string]any{"expression": "db.password"}, nil))
			if err != nil || r.Reason != "db.password is off limits (1 words)" {
				t.Errorf("default words: %+v %v", r, err)
			}
		})
	}
	// An entrypoint with no value is abstain.
	m := mustOPA(t, bundle, "guard/undefined", `{}`)
	if r, err := m.Evaluate(context.Background(), "s1", opaRequest("call", "debugpy_evaluate", map[string]any{}, nil)); err != nil || r.Verdict != "abstain" {
		t.Errorf("undefined: %+v %v", r, err)
	}
}

func TestOPAEntrypointIsChecked(t *testing.T) {
	bundle := opaFixture(t, "guard.tar.gz")
	for _, c := range []struct{ entrypoint, want string }{
		{"", "it has 9 entrypoints (guard/bad, guard/conflict, guard/decision, guard/echo, guard/formats, guard/hashes, guard/now, guard/undefined, guard/wrong): say which decides: entrypoint"},
		{"guard/nope", `no entrypoint "guard/nope": it has guard/bad, guard/conflict`},
	} {
		_, err := loadOPA(t, bundle, c.entrypoint, `{}`, Limits{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "module rego: ") {
			t.Errorf("entrypoint %q: %v; want %q", c.entrypoint, err, c.want)
		}
	}
	// With one entrypoint, it needs no name.
	m := mustOPA(t, opaFixture(t, "one.tar.gz"), "", "{}")
	r, err := m.Evaluate(context.Background(), "s1", opaRequest("call", "debugpy_evaluate", map[string]any{}, nil))
	if err != nil || r.Verdict != "deny" || r.Reason != "debugpy_evaluate: not from Rego" {
		t.Errorf("one entrypoint: %+v %v", r, err)
	}
}

// TestOPAConcurrent: instances of one OPA module serve calls at once, each
// in its own memory, and each call gets its own answer.
func TestOPAConcurrent(t *testing.T) {
	m := mustOPA(t, opaFixture(t, "guard.tar.gz"), "guard/decision", `{"words":["password"]}`)
	errs := make(chan error, 16)
	for g := range 16 {
		go func() {
			var err error
			for i := 0; i < 40 && err == nil; i++ {
				expr := fmt.Sprintf("g%d.i%d", g, i)
				want := "abstain"
				if (g+i)%2 == 0 {
					expr, want = expr+".password", "deny"
				}
				r, e := m.Evaluate(context.Background(), "s1", opaRequest("call", "debugpy_evaluate", map[string]any{"expression": expr}, nil))
				switch {
				case e != nil:
					err = e
				case string(r.Verdict) != want || (want == "deny" && r.Reason != expr+" is off limits (1 words)"):
					err = fmt.Errorf("%s: got %+v, want %s", expr, r, want)
				}
			}
			errs <- err
		}()
	}
	for range 16 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestOPAFailsClosed: a module that cannot decide is an error naming it
// (the engine denies), and the instance is thrown away.
func TestOPAFailsClosed(t *testing.T) {
	bundle := opaFixture(t, "guard.tar.gz")
	for _, c := range []struct{ entrypoint, want string }{
		{"guard/conflict", "module rego: opa_abort: "},
		{"guard/bad", "module rego: the entrypoint's value is 42: want a decision"},
		{"guard/wrong", `module rego: the decision has a key "Reason": the keys are decision, reason, result and code`},
	} {
		m := mustOPA(t, bundle, c.entrypoint, `{}`)
		r, err := m.Evaluate(context.Background(), "s1", opaRequest("call", "debugpy_evaluate", map[string]any{}, nil))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: %+v %v; want %q", c.entrypoint, r, err, c.want)
		}
	}
	_, err := loadOPA(t, opaFixture(t, "needs_http.tar.gz"), "", `{}`, Limits{})
	if err == nil || !strings.Contains(err.Error(), "module rego: it needs builtins the host does not provide: http.send (the host provides crypto.sha256, hex.decode, hex.encode, sprintf, time.now_ns, trace;") {
		t.Errorf("http.send: %v", err)
	}
	// An ABI v1 module is not an OPA one, and the other way round.
	if _, err := loadOPA(t, wat(t, "allow"), "", `{}`, Limits{}); err == nil || !strings.Contains(err.Error(), "missing export opa_eval") {
		t.Errorf("ABI v1 module as OPA: %v", err)
	}
	_, err = testRuntime(t).Load(context.Background(), Spec{Name: "v1", Wasm: bundle})
	if err == nil || !strings.Contains(err.Error(), "not a WebAssembly module") {
		t.Errorf("bundle as ABI v1: %v", err)
	}
	_, err = testRuntime(t).Load(context.Background(), Spec{Name: "v1", Wasm: wat(t, "allow"), Entrypoint: "x"})
	if err == nil || !strings.Contains(err.Error(), "an entrypoint is for an OPA module") {
		t.Errorf("entrypoint on ABI v1: %v", err)
	}
	// The pin covers the bundle's bytes.
	sum := sha256.Sum256(bundle)
	_, err = testRuntime(t).Load(context.Background(), Spec{Name: "pinned", Wasm: bundle, ABI: ABIOPA, Entrypoint: "guard/decision", SHA256: hex.EncodeToString(sum[:])})
	if err != nil {
		t.Errorf("pinned bundle: %v", err)
	}
	_, err = testRuntime(t).Load(context.Background(), Spec{Name: "pinned", Wasm: append(bundle[:len(bundle):len(bundle)], 0), ABI: ABIOPA, Entrypoint: "guard/decision", SHA256: hex.EncodeToString(sum[:])})
	if err == nil || !strings.Contains(err.Error(), "the config pins") {
		t.Errorf("pinned bundle, changed: %v", err)
	}
}

// sprintf's format is bounded: a width from a call's arguments must not
// make the host build gigabytes.
func TestOPASprintfIsBounded(t *testing.T) {
	for _, c := range []struct {
		format string
		ok     bool
	}{
		{"%s and %d", true}, {"%-10s|%5.2f|%[1]v|%%", true}, {"%1000d", true},
		{"%1001d", false}, {"%.2000000000f", false}, {"%*d", false}, {"%2000000000d", false}, {"%[1]*d", false},
	} {
		_, err := regoSprintf(&callState{}, []any{c.format, []any{json.Number("1"), json.Number("2")}})
		if (err == nil) != c.ok {
			t.Errorf("%q: %v", c.format, err)
		}
	}
}

// TestOPABuiltins: the builtins the host provides, against Go's own.
func TestOPABuiltins(t *testing.T) {
	bundle := opaFixture(t, "guard.tar.gz")
	m := mustOPA(t, bundle, "guard/hashes", `{}`)
	for _, s := range []string{"", "db.password", "é\x00\"\u2028😀"} {
		r, err := m.Evaluate(context.Background(), "s1", opaRequest("call", "debugpy_evaluate", map[string]any{"expression": s}, nil))
		sum := sha256.Sum256([]byte(s))
		want := strings.Join([]string{hex.EncodeToString(sum[:]), hex.EncodeToString([]byte(s)), s, strconv.Itoa(len([]rune(s)))}, "|")
		if err != nil || r.Reason != want {
			t.Errorf("%q: got %q %v; want %q", s, r.Reason, err, want)
		}
	}
	m = mustOPA(t, bundle, "guard/now", `{}`)
	before := time.Now().UnixNano()
	r, err := m.Evaluate(context.Background(), "s1", opaRequest("call", "debugpy_evaluate", map[string]any{}, nil))
	after := time.Now().UnixNano()
	var a, b int64
	if _, serr := fmt.Sscanf(r.Reason, "%d %d", &a, &b); err != nil || serr != nil || a != b || a < before || a > after {
		t.Errorf("time.now_ns: %q %v (want one reading within [%d, %d])", r.Reason, err, before, after)
	}
}

// TestOPAHostile runs a hand-written module of OPA's ABI down the paths a
// module opa built cannot take: each is an error naming the module, and
// the next call of the same module works.
func TestOPAHostile(t *testing.T) {
	src := wat(t, "opa_like")
	for _, c := range []struct{ entrypoint, want string }{
		{"abort", "module rego: opa_abort: the policy gave up"},
		{"badbuiltin", "module rego: opa_builtin: no builtin with id 7"},
		{"noend", "module rego: opa_eval's result: no string end within"},
		{"outside", "module rego: opa_eval's result: string address 2147483647 is outside memory"},
		{"echo", "module rego: opa_eval's result is not a result set"},
		{"spin", "module rego: timed out after 300ms"},
	} {
		m, err := loadOPA(t, src, c.entrypoint, `{}`, Limits{Timeout: 300 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.Evaluate(context.Background(), "s1", request("x"))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.entrypoint, err, c.want)
		}
	}
	m := mustOPA(t, src, "print", `{}`)
	if r, err := m.Evaluate(context.Background(), "s1", request("x")); err != nil || r.Verdict != "allow" {
		t.Errorf("print: %+v %v", r, err)
	}
	// The fuel stops a spinning module too, whatever the clock.
	m, err := loadOPA(t, src, "spin", `{}`, Limits{Timeout: time.Minute, Fuel: 1_000_000})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Evaluate(context.Background(), "s1", request("x")); err == nil || !strings.Contains(err.Error(), "ran out of fuel") {
		t.Errorf("spin on fuel: %v", err)
	}
	// A request larger than the memory limit allows.
	m, err = loadOPA(t, src, "allow", `{}`, Limits{Memory: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	big := opaRequest("call", "debugpy_evaluate", map[string]any{"expression": strings.Repeat("x", 2<<20)}, nil)
	if _, err := m.Evaluate(context.Background(), "s1", big); err == nil || !strings.Contains(err.Error(), "hit its memory limit of 1048576 bytes") {
		t.Errorf("big request: %v", err)
	}
	if r, err := m.Evaluate(context.Background(), "s1", request("x")); err != nil || r.Verdict != "allow" {
		t.Errorf("after a fault: %+v %v", r, err)
	}
}

// TestOPARefusesAtLoad: what the host cannot run is refused when the module
// loads, with the reason.
func TestOPARefusesAtLoad(t *testing.T) {
	base, err := os.ReadFile(filepath.Join("testdata", "wat", "opa_like.wat"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ from, to, want string }{
		{`(i32.const 3))`, `(i32.const 1))`, "OPA WebAssembly ABI 1.1: the host runs ABI 1.2 and later"},
		{`(global (export "opa_wasm_abi_version") i32 (i32.const 1))`, ``, "no opa_wasm_abi_version"},
		{`(import "env" "opa_println" (func $println (param i32)))`, `(import "env" "opa_println" (func $println (param i32)))
  (import "env" "opa_http" (func (param i32)))`, "imports env.opa_http, which the host does not give OPA modules"},
		{`(import "env" "memory" (memory 2))`, `(import "env" "mem" (memory 2))`, "imports memory env.mem"},
		{`"{\"sprintf\":0}\00"`, `"{\"sprintf\":0,\"net.lookup_ip_addr\":1}\00"`, "needs builtins the host does not provide: net.lookup_ip_addr"},
		{`(func (export "builtins")`, `(func (export "builtinz")`, "missing export builtins"},
		{`(func (export "opa_json_dump") (param $v i32) (result i32) (local.get $v))`, `(func (export "opa_json_dump") (param $v i32) (param i32) (result i32) (local.get $v))`, "export opa_json_dump has the wrong type"},
	} {
		if !bytes.Contains(base, []byte(c.from)) {
			t.Fatalf("opa_like.wat has no %q", c.from)
		}
		dir := t.TempDir()
		text := filepath.Join(dir, "m.wat")
		os.WriteFile(text, bytes.Replace(base, []byte(c.from), []byte(c.to), 1), 0o644)
		if out, err := exec.Command("wat2wasm", text, "-o", filepath.Join(dir, "m.wasm")).CombinedOutput(); err != nil {
			t.Fatalf("wat2wasm: %v\n%s", err, out)
		}
		src, _ := os.ReadFile(filepath.Join(dir, "m.wasm"))
		_, err := loadOPA(t, src, "allow", `{}`, Limits{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.to, err, c.want)
		}
	}
}

// TestOPAFixturesMatchTheirSources rebuilds the committed fixtures with the
// lines of testdata/opa/README.md and compares the bytes (opa build is
// reproducible), in a network namespace of its own where the machine
// allows one (so with no network). It needs opa on PATH: make deps
// installs it.
func TestOPAFixturesMatchTheirSources(t *testing.T) {
	opaBin, err := exec.LookPath("opa")
	if err != nil {
		t.Skip("no opa on PATH: make deps installs it (go install github.com/open-policy-agent/opa@v1.22.4)")
	}
	f, err := os.Open(filepath.Join("testdata", "opa", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	for sc := bufio.NewScanner(f); sc.Scan(); {
		line, ok := strings.CutPrefix(sc.Text(), "    opa build ")
		if !ok {
			continue
		}
		n++
		args := strings.Fields(line)
		dir := t.TempDir()
		var out string
		for i, a := range args {
			switch {
			case strings.HasSuffix(a, ".rego"):
				src, err := os.ReadFile(filepath.Join("testdata", "opa", a))
				if err != nil {
					t.Fatal(err)
				}
				os.WriteFile(filepath.Join(dir, a), src, 0o644)
			case i > 0 && args[i-1] == "-o":
				out = a
			}
		}
		argv := append([]string{opaBin, "build"}, args...)
		if exec.Command("unshare", "-n", "true").Run() == nil {
			argv = append([]string{"unshare", "-n"}, argv...)
		}
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("opa build %s: %v\n%s", line, err, b)
		}
		got, _ := os.ReadFile(filepath.Join(dir, out))
		if !bytes.Equal(got, opaFixture(t, out)) {
			t.Errorf("testdata/opa/%s is stale: run `opa build %s` in testdata/opa and commit it", out, line)
		}
	}
	if n != 3 {
		t.Fatalf("read %d build lines from testdata/opa/README.md, want 3", n)
	}
}

// TestOPAAgreesWithOPA is a differential test: random requests, written as
// the engine writes them (Go's encoder), go through the fixture's module
// on this host and through OPA's own evaluator (opa eval, in Go), and
// both must read the same input (echo), decide the same (decision) and
// format the same (formats: sprintf of every kind of value). It needs opa
// on PATH: make deps installs it.
func TestOPAAgreesWithOPA(t *testing.T) {
	opaBin, err := exec.LookPath("opa")
	if err != nil {
		t.Skip("no opa on PATH: make deps installs it (go install github.com/open-policy-agent/opa@v1.22.4)")
	}
	r := rand.New(rand.NewSource(1)) // the same requests each run: a failure in CI is one a run here repeats
	const n = 400
	reqs := make([][]byte, n)
	for i := range reqs {
		tool := []string{"debugpy_evaluate", "debugpy_stack_trace", "debugpy_set_variable", "debugpy_output"}[r.Intn(4)]
		expr := randString(r)
		if r.Intn(4) == 0 {
			expr += "password"
		}
		values := make([]any, 1+r.Intn(4))
		for j := range values {
			values[j] = randValue(r, 2)
		}
		args := map[string]any{"expression": expr, "values": values, randString(r): randValue(r, 3)}
		reqs[i] = opaRequest([]string{"call", "result"}[r.Intn(2)], tool, args, map[string]any{"text": randString(r)})
	}
	dir := t.TempDir()
	inputs := append([]byte{'['}, bytes.Join(reqs, []byte{','})...)
	os.WriteFile(filepath.Join(dir, "inputs.json"), append(inputs, ']'), 0o644)
	cmd := exec.Command(opaBin, "eval", "-f", "json", "-d", filepath.Join("testdata", "opa", "guard.rego"),
		"-i", filepath.Join(dir, "inputs.json"),
		`out := [[e, d, f] | some x in input; e := data.guard.echo with input as x; d := data.guard.decision with input as x; f := data.guard.formats with input as x]`)
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("opa eval: %v", err)
	}
	var res struct {
		Result []struct {
			Bindings struct {
				Out [][3]json.RawMessage `json:"out"`
			} `json:"bindings"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Result) != 1 || len(res.Result[0].Bindings.Out) != n {
		t.Fatalf("opa eval's output: %v: %.500s", err, raw)
	}
	bundle := opaFixture(t, "guard.tar.gz")
	mods := [3]*Module{mustOPA(t, bundle, "guard/echo", "{}"), mustOPA(t, bundle, "guard/decision", "{}"), mustOPA(t, bundle, "guard/formats", "{}")}
	fails := 0
	for i, req := range reqs {
		want := res.Result[0].Bindings.Out[i]
		for k, m := range mods {
			got, err := m.Evaluate(context.Background(), "s1", req)
			if err != nil {
				t.Fatalf("%s: %v", req, err)
			}
			w, err := opaResponse(append(append([]byte(`[{"result":`), want[k]...), "}]"...))
			if err != nil {
				t.Fatalf("opa eval's %s: %v", want[k], err)
			}
			same := got.Verdict == w.Verdict && got.Reason == w.Reason
			if k == 0 { // the module read the input as Go reads it
				same = same && reflect.DeepEqual(decodeAny(t, got.Result), decodeAny(t, w.Result)) &&
					reflect.DeepEqual(decodeAny(t, got.Result), decodeAny(t, req))
			}
			if !same {
				fails++
				t.Errorf("%s: %s: this host %+v (result %s), opa eval %+v (result %s)", req, m.name, got, got.Result, w, w.Result)
			}
			if fails > 5 {
				t.FailNow()
			}
		}
	}
}

func decodeAny(t *testing.T, b []byte) any {
	var v any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return v
}

// randString mixes what JSON and Rego escape or treat apart: quotes,
// backslashes, control characters, NUL, non-ASCII, astral runes, the line
// separators, HTML's <>&, invalid-looking escapes written as text.
func randString(r *rand.Rand) string {
	pieces := []string{"a", "Z", "0", " ", "\"", "\\", "\n", "\t", "\x00", "\x1f", "\x7f", "é", "ß", "İ", "中", "😀", "\u2028", "\u2029",
		"\ufeff", "\ufffd", "<", ">", "&", "%", "%d", "%v", "%!", "\\u0000", "\\ud800", "{", "}", "[", "]", ",", ":", "password", "true", "null", "1e9"}
	var b strings.Builder
	for k := r.Intn(8); k > 0; k-- {
		b.WriteString(pieces[r.Intn(len(pieces))])
	}
	return b.String()
}

// randValue is a random JSON value; numbers as the engine's encoder may
// write them: integers, big integers, fractions and exponents.
func randValue(r *rand.Rand, depth int) any {
	switch k := r.Intn(8); {
	case k == 0:
		return nil
	case k == 1:
		return r.Intn(2) == 0
	case k == 2:
		return json.Number([]string{"0", "-1", "42", "9007199254740993", "-9223372036854775808", "9223372036854775807",
			"18446744073709551616", "123456789012345678901234567890", "0.5", "-2.25", "1e3", "1E-7", "3.0", "1.5e300", "-0.0", "100.125"}[r.Intn(16)])
	case k == 3 || depth == 0:
		return randString(r)
	case k < 6:
		a := make([]any, r.Intn(4))
		for i := range a {
			a[i] = randValue(r, depth-1)
		}
		return a
	}
	o := map[string]any{}
	for i := r.Intn(4); i > 0; i-- {
		o[randString(r)] = randValue(r, depth-1)
	}
	return o
}

// BenchmarkOPAModule is a Rego rule's cost a call on this host (the
// fixture's decision rule): one that decides without a host builtin
// (abstain), one whose reason sprintf formats through env.opa_builtin2
// (deny), and the WAT module that only answers, in the same run, as the
// host's own share.
func BenchmarkOPAModule(b *testing.B) {
	bundle := opaFixture(b, "guard.tar.gz")
	ctx := context.Background()
	for _, c := range []struct {
		name string
		req  []byte
	}{
		{"abstain", opaRequest("call", "debugpy_evaluate", map[string]any{"expression": "user.name"}, nil)},
		{"deny-sprintf", opaRequest("call", "debugpy_evaluate", map[string]any{"expression": "db.password"}, nil)},
	} {
		b.Run(c.name, func(b *testing.B) {
			m := mustOPA(b, bundle, "guard/decision", `{"words":["password","token"]}`)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := m.Evaluate(ctx, "s1", c.req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("wat-peer", func(b *testing.B) {
		m, err := testRuntime(b).Load(ctx, Spec{Name: "bench-wat", Wasm: wat(b, "allow"), Limits: Limits{Timeout: time.Second}})
		if err != nil {
			b.Fatal(err)
		}
		defer m.Close(ctx)
		req := opaRequest("call", "debugpy_evaluate", map[string]any{"expression": "user.name"}, nil)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := m.Evaluate(ctx, "s1", req); err != nil {
				b.Fatal(err)
			}
		}
	})
}
