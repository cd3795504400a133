package plugins

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/debugpy-guard/debugpy-guard/internal/benchstat"
	"github.com/debugpy-guard/debugpy-guard/internal/scratch"
	"github.com/debugpy-guard/debugpy-guard/plugins/abi"
)

var (
	probeOnce sync.Once
	probeWasm []byte
	probeErr  error
)

// probe builds testdata/probe for wasip1 with the standard toolchain, once.
func probe(t testing.TB) []byte {
	t.Helper()
	probeOnce.Do(func() {
		out := filepath.Join(os.TempDir(), fmt.Sprintf("debugpy-guard-probe-%d.wasm", os.Getpid()))
		cmd := exec.Command("go", "build", "-buildmode=c-shared", "-trimpath", "-o", out, "./testdata/probe")
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
		if b, err := cmd.CombinedOutput(); err != nil {
			probeErr = fmt.Errorf("build probe: %v\n%s", err, b)
			return
		}
		probeWasm, probeErr = os.ReadFile(out)
		os.Remove(out)
	})
	if probeErr != nil {
		t.Fatal(probeErr)
	}
	return probeWasm
}

// wat assembles testdata/wat/NAME.wat with wabt's wat2wasm.
func wat(t testing.TB, name string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), name+".wasm")
	if b, err := exec.Command("wat2wasm", filepath.Join("testdata", "wat", name+".wat"), "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("wat2wasm %s (make deps installs wabt): %v\n%s", name, err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// scratchDir holds the package's compilation cache; TestMain removes it, so
// that runs leave nothing in the temporary directory.
var scratchDir string

func TestMain(m *testing.M) { scratch.Main(m, "debugpy-guard-plugins-test-", &scratchDir) }

var (
	rtOnce sync.Once
	rt     *Runtime
)

// runtime is one Runtime for the package's tests, with its cache in a
// directory of its own.
func testRuntime(t testing.TB) *Runtime {
	rtOnce.Do(func() {
		rt = NewRuntime(Options{CacheDir: filepath.Join(scratchDir, "cache"), Log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	})
	return rt
}

func request(do string, extra ...string) []byte {
	s := `{"abi":1,"phase":"call","tool":"debugpy_evaluate","category":"execute","arguments":{"do":"` + do + `"},"result":{"secret":"hunter2","keep":1},"session":{"id":"s1"},"settings":{"word":"hi"}}`
	return []byte(s)
}

// ownProbe is the probe module named name on a runtime of its own, whose
// host state (counters, secrets) a test may fill without touching other
// tests'; both close when the test ends.
func ownProbe(t *testing.T, name string) (*Runtime, *Module) {
	t.Helper()
	ctx := context.Background()
	r := NewRuntime(Options{CacheDir: t.TempDir()})
	t.Cleanup(func() { r.Close(ctx) })
	m, err := r.Load(ctx, Spec{Name: name, Wasm: probe(t), Limits: Limits{Timeout: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(ctx) })
	return r, m
}

func load(t *testing.T, name string, wasm []byte, l Limits) *Module {
	t.Helper()
	m, err := testRuntime(t).Load(context.Background(), Spec{Name: name, Wasm: wasm, Settings: json.RawMessage(`{"word":"hi"}`), Limits: l})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(context.Background()) })
	return m
}

func TestGoModuleDecides(t *testing.T) {
	m := load(t, "probe", probe(t), Limits{Timeout: time.Second})
	for _, v := range []string{"allow", "deny", "approve", "abstain"} {
		r, err := m.Evaluate(context.Background(), "s1", request(v))
		if err != nil || string(r.Verdict) != v || r.Reason != "as asked" {
			t.Fatalf("%s: %+v %v", v, r, err)
		}
	}
	r, err := m.Evaluate(context.Background(), "s1", request("echo"))
	if err != nil || r.Reason != "debugpy_evaluate/execute/call/hi" {
		t.Fatalf("typed access: %+v %v", r, err)
	}
	r, err = m.Evaluate(context.Background(), "s1", request("rewrite"))
	if err != nil || string(r.Result) != `{"secret":"***","keep":1}` {
		t.Fatalf("rewrite: %+v %s %v", r, r.Result, err)
	}
}

// deny_evaluate.wat, the module without a runtime of the round-trip
// benchmark, decides on the request as the host writes it: evaluate is
// denied, any other tool left to others, whatever its arguments say.
func TestDenyEvaluateWAT(t *testing.T) {
	m := load(t, "deny_evaluate", wat(t, "deny_evaluate"), Limits{Timeout: time.Second})
	for _, c := range []struct{ tool, args, want string }{
		{"debugpy_evaluate", `{"expression":"__import__('os')"}`, "deny"},
		{"debugpy_stack_trace", `{}`, "abstain"},
		{"debugpy_stack_trace", `{"x":"\",\"tool\":\"debugpy_evaluate\""}`, "abstain"},
		{"debugpy_evaluated", `{}`, "abstain"},
	} {
		r := abi.Request{Phase: "call", Tool: c.tool, Category: "read", Arguments: []byte(c.args)}
		req := append(r.AppendPrefix(nil), "null}"...)
		if !json.Valid(req) {
			t.Fatalf("not JSON: %s", req)
		}
		got, err := m.Evaluate(context.Background(), "s1", req)
		if err != nil || string(got.Verdict) != c.want {
			t.Errorf("%s %s: %+v %v, want %s", c.tool, c.args, got, err, c.want)
		}
	}
}
func TestCounterScopedBySession(t *testing.T) {
	m := load(t, "counter", probe(t), Limits{Timeout: time.Second})
	// The runtime and its counters are shared by the tests of the process:
	// sessions of their own, so that a run of go test -count=N counts anew.
	a, b := fmt.Sprint("a-", time.Now().UnixNano()), fmt.Sprint("b-", time.Now().UnixNano())
	for i := 1; i <= 3; i++ {
		r, err := m.Evaluate(context.Background(), a, request("count"))
		if err != nil || r.Reason != fmt.Sprintf("count=%d", i) {
			t.Fatalf("session a call %d: %+v %v", i, r, err)
		}
	}
	r, _ := m.Evaluate(context.Background(), b, request("count"))
	if r.Reason != "count=1" {
		t.Fatalf("session b: %+v", r)
	}
}

func TestSandbox(t *testing.T) {
	m := load(t, "sandbox", probe(t), Limits{Timeout: time.Second})
	r, err := m.Evaluate(context.Background(), "s1", request("file"))
	if err != nil || r.Verdict != "deny" || !strings.Contains(r.Reason, "no file access") {
		t.Fatalf("file: %+v %v", r, err)
	}
	r, err = m.Evaluate(context.Background(), "s1", request("env"))
	if err != nil || r.Reason != "env=;args=0" {
		t.Fatalf("env and args: %+v %v", r, err)
	}
}

// Hostile modules: each call fails with an error naming the module and the
// cause, and the next call to a healthy module, or the same one, still works.
func TestHostileCalls(t *testing.T) {
	m := load(t, "probe", probe(t), Limits{Timeout: 300 * time.Millisecond, Memory: 64 << 20, MaxInstances: 2})
	cases := []struct{ do, want string }{
		{"loop", "ran out of fuel"},
		{"panic", "module probe: trapped"},
		{"maybe", `unknown decision "maybe"`},
	}
	for _, c := range cases {
		start := time.Now()
		_, err := m.Evaluate(context.Background(), "s1", request(c.do))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: want an error with %q, got %v", c.do, c.want, err)
		}
		t.Logf("%s: %v (%v)", c.do, err, time.Since(start))
		if r, err := m.Evaluate(context.Background(), "s1", request("allow")); err != nil || r.Verdict != "allow" {
			t.Fatalf("after %s: the next call failed: %+v %v", c.do, r, err)
		}
	}
	bomb := load(t, "bomb", probe(t), Limits{Timeout: 5 * time.Second, Memory: 32 << 20})
	if _, err := bomb.Evaluate(context.Background(), "s1", request("bomb")); err == nil || !strings.Contains(err.Error(), "module bomb: hit its memory limit of 33554432 bytes") {
		t.Errorf("bomb: %v", err)
	} else {
		t.Logf("bomb: %v", err)
	}
	if r, err := bomb.Evaluate(context.Background(), "s1", request("allow")); err != nil || r.Verdict != "allow" {
		t.Fatalf("after the bomb: %+v %v", r, err)
	}
	for _, name := range []string{"badjson", "unknown_decision", "out_of_bounds", "module_error"} {
		w := load(t, name, wat(t, name), Limits{})
		_, err := w.Evaluate(context.Background(), "s1", []byte(`{}`))
		want := map[string]string{"badjson": "not a JSON response", "unknown_decision": "unknown decision",
			"out_of_bounds": "outside memory", "module_error": "returned 7: cannot decide"}[name]
		if err == nil || !strings.Contains(err.Error(), "module "+name) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: want %q, got %v", name, want, err)
		}
	}
	ok := load(t, "allow", wat(t, "allow"), Limits{})
	if r, err := ok.Evaluate(context.Background(), "s1", []byte(`{}`)); err != nil || r.Reason != "wat" {
		t.Fatalf("a WAT module: %+v %v", r, err)
	}
}

// deepBlocks is a module whose one function nests n blocks.
func deepBlocks(n int) []byte {
	body := "\x00" + strings.Repeat("\x02\x40", n) + strings.Repeat("\x0b", n+1)
	leb := func(v int) string {
		var b []byte
		for ; v >= 0x80; v >>= 7 {
			b = append(b, byte(v)|0x80)
		}
		return string(append(b, byte(v)))
	}
	code := "\x01" + leb(len(body)) + body
	return []byte("\x00asm\x01\x00\x00\x00\x01\x04\x01\x60\x00\x00\x03\x02\x01\x00\x0a" + leb(len(code)) + code)
}

func TestLoadErrors(t *testing.T) {
	rt := testRuntime(t)
	ctx := context.Background()
	sum := sha256.Sum256(probe(t))
	cases := []struct {
		name, want string
		wasm       []byte
		pin        string
		settings   string
	}{
		{"no_evaluate", "missing export guard_evaluate", wat(t, "no_evaluate"), "", ""},
		{"bad_import", "imports guard.exec, which ABI v1 does not have", wat(t, "bad_import"), "", ""},
		{"bad_wasi", "sock_steal", wat(t, "bad_wasi"), "", ""},
		{"garbage", "not a WebAssembly module", []byte("\x00asm garbage"), "", ""},
		{"garbage-body", "not a valid WebAssembly module", []byte("\x00asm\x01\x00\x00\x00garbage"), "", ""},
		// 2^31 imports in a few bytes: wazero would set aside gigabytes for
		// them and end the process (plugins/internal/fuel/shape.go).
		{"huge-count", "malformed module: import section: a count of 2147483647 with 1 bytes left",
			[]byte("\x00asm\x01\x00\x00\x00\x02\x06\xff\xff\xff\xff\x07\x00"), "", ""},
		// The fuzzer's: wazero asked for 26 GB.
		{"fuzz-crasher", "malformed module", []byte("\x00asm\x01\x00\x00\x00\x01\t\x02`\x01\x7f\x01\x7f`\x00\x00\x02\x7f\xff\xff\xff" +
			"nv\x01e\xff\xff\xecenv\x01g\x03\x7f\x00\x03env\x01h\x03~\x00\x80evv\x01t\x01p\x00\x01\x03env\x01m\x02\x00\x01"), "", ""},
		// 2^32-1 locals in five bytes.
		{"huge-locals", "declare 4294967295 locals", []byte("\x00asm\x01\x00\x00\x00\x01\x04\x01\x60\x00\x00\x03\x02\x01\x00" +
			"\x0a\x0a\x01\x08\x01\xff\xff\xff\xff\x0f\x7f\x0b"), "", ""},
		// Three functions of 40,000 locals each: the compiler's work is the
		// sum, bounded by the code's size (plugins/internal/fuel/shape.go).
		{"many-locals", "declare 80000 locals or more, over the 65558 this host allows a module with 22 bytes of code", []byte("\x00asm\x01\x00\x00\x00\x01\x04\x01\x60\x00\x00\x03\x04\x03\x00\x00\x00" +
			"\x0a\x16\x03" + strings.Repeat("\x06\x01\xc0\xb8\x02\x7f\x0b", 3)), "", ""},
		// 5,000 nested blocks: wazero's compiler takes time in the square
		// of the depth.
		{"deep", "blocks nested more than 4096 deep", deepBlocks(5000), "", ""},
		// A table of 2^27 elements, wazero's most: 1 GB an instance, which
		// no memory limit counts.
		{"big-table", "a table of 134217728 elements, over the 1048576 this host allows",
			[]byte("\x00asm\x01\x00\x00\x00\x04\x07\x01\x70\x00\x80\x80\x80\x40"), "", ""},
		// A custom section of 17 bytes whose name claims 2.9 GB: wazero
		// sets the room aside before it reads (FuzzDefineMemory found it).
		{"custom-name", "custom section: its name", []byte("\x00asm\x01\x00\x00\x00\x00\x11\x80\xff\xff\xff\x0a" + strings.Repeat("\x00", 12)), "", ""},
		{"pinned", "the config pins 00", probe(t), strings.Repeat("00", 32), ""},
		{"rejects", "settings rejected: settings say reject", probe(t), "", `{"reject":true}`},
	}
	for _, c := range cases {
		_, err := rt.Load(ctx, Spec{Name: c.name, Wasm: c.wasm, SHA256: c.pin, Settings: json.RawMessage(c.settings)})
		if err == nil || !strings.Contains(err.Error(), "module "+c.name+": ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: want an error with %q, got %v", c.name, c.want, err)
		}
	}
	if m, err := rt.Load(ctx, Spec{Name: "pinned-ok", Wasm: probe(t), SHA256: hex.EncodeToString(sum[:])}); err != nil {
		t.Errorf("right pin refused: %v", err)
	} else {
		m.Close(ctx)
	}
}

// Many goroutines at once, faults among them: instances are never shared,
// faulty ones are replaced, and the pool stays bounded.
func TestHammer(t *testing.T) {
	m := load(t, "hammer", probe(t), Limits{Timeout: 5 * time.Second, MaxInstances: 4})
	var wg sync.WaitGroup
	errs := make(chan error, 1000)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				do := "allow"
				if (g+i)%10 == 0 {
					do = "panic"
				}
				r, err := m.Evaluate(context.Background(), fmt.Sprint("s", g), request(do))
				switch {
				case do == "panic" && err == nil:
					errs <- fmt.Errorf("panic call succeeded")
				case do == "allow" && (err != nil || r.Verdict != "allow"):
					errs <- fmt.Errorf("allow call: %+v %v", r, err)
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := len(m.pool.slot); n != 0 {
		t.Errorf("%d slots still held", n)
	}
}

// The pool hands out the idle instance used last (its memory the warmest),
// not the one idle longest, and keeps at most its limit idle.
func TestPoolTakesTheInstanceUsedLast(t *testing.T) {
	m := load(t, "pool", probe(t), Limits{Timeout: 5 * time.Second, MaxInstances: 3})
	ctx, l := context.Background(), m.limits
	var insts []*instance
	for range 3 { // three in use at once: three instances
		inst, err := m.pool.get(ctx, l)
		if err != nil {
			t.Fatal(err)
		}
		insts = append(insts, inst)
	}
	if insts[0] == insts[1] || insts[1] == insts[2] || insts[0] == insts[2] {
		t.Fatal("an instance handed out twice")
	}
	for _, inst := range insts {
		m.pool.put(inst)
	}
	for range 5 { // one call at a time: always the one put back last
		inst, err := m.pool.get(ctx, l)
		if err != nil {
			t.Fatal(err)
		}
		if inst != insts[2] {
			t.Fatal("the pool did not hand out the instance used last")
		}
		m.pool.put(inst)
	}
	if n := len(m.pool.idle); n != 3 {
		t.Fatalf("%d idle instances, want 3", n)
	}
}

func benchModule(b *testing.B) *Module {
	m, err := testRuntime(b).Load(context.Background(), Spec{Name: "bench", Wasm: probe(b),
		Limits: Limits{Timeout: time.Second, MaxInstances: 8}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { m.Close(context.Background()) })
	return m
}

// BenchmarkGoModule is one guard_evaluate of a Go-built module (the SDK's
// parser on a typical request, a decision, the response).
func BenchmarkGoModule(b *testing.B) {
	m := benchModule(b)
	req := request("echo")
	ctx := context.Background()
	b.ReportAllocs()
	benchstat.Run(b, func() {
		if _, err := m.Evaluate(ctx, "s1", req); err != nil {
			b.Fatal(err)
		}
	})
}

func BenchmarkGoModuleParallel(b *testing.B) {
	m := benchModule(b)
	req := request("echo")
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			if _, err := m.Evaluate(ctx, "s1", req); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkWATModule is the host's share of a call: a WAT module that only
// answers, so the time is wazero's call, the host functions and the parse of
// the response.
func BenchmarkWATModule(b *testing.B) {
	m, err := testRuntime(b).Load(context.Background(), Spec{Name: "bench-wat", Wasm: wat(b, "allow"), Limits: Limits{Timeout: time.Second}})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close(context.Background())
	req := request("echo")
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := m.Evaluate(ctx, "s1", req); err != nil {
			b.Fatal(err)
		}
	}
}

func TestCompilationCache(t *testing.T) {
	dir := t.TempDir()
	r := NewRuntime(Options{CacheDir: dir})
	defer r.Close(context.Background())
	m, err := r.Load(context.Background(), Spec{Name: "allow", Wasm: wat(t, "allow")})
	if err != nil {
		t.Fatal(err)
	}
	m.Close(context.Background())
	if r.CacheDir != dir {
		t.Fatalf("cache dir %q, want %q", r.CacheDir, dir)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) == 0 {
		t.Fatal("nothing cached on disk")
	}
	// A cache dir that cannot be made falls back to memory, and still works.
	file := filepath.Join(t.TempDir(), "not-a-dir")
	os.WriteFile(file, nil, 0o600)
	mem := NewRuntime(Options{CacheDir: filepath.Join(file, "cache")})
	defer mem.Close(context.Background())
	if mem.CacheDir != "" {
		t.Fatalf("unwritable cache dir: CacheDir %q, want in-memory", mem.CacheDir)
	}
	m2, err := mem.Load(context.Background(), Spec{Name: "allow", Wasm: wat(t, "allow")})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := m2.Evaluate(context.Background(), "s", []byte(`{}`)); err != nil || r.Verdict != "allow" {
		t.Fatalf("in-memory cache: %+v %v", r, err)
	}
	m2.Close(context.Background())

	// A cache dir that others can write to is not used: its machine code
	// would run in the server (internal/owndir).
	open := filepath.Join(t.TempDir(), "open")
	os.Mkdir(open, 0o777)
	os.Chmod(open, 0o777)
	shared := NewRuntime(Options{CacheDir: open})
	defer shared.Close(context.Background())
	if shared.CacheDir != "" {
		t.Fatalf("a cache dir open to others: CacheDir %q, want in-memory", shared.CacheDir)
	}
}

// Modules of the same bytes share compiled code; Shared ones share a pool of
// instances too, each keeping its own name and settings. Closing one leaves
// the others working; the last one closes the code.
func TestSharedCodeAndPool(t *testing.T) {
	ctx := context.Background()
	rt := NewRuntime(Options{CacheDir: t.TempDir()})
	defer rt.Close(ctx)
	wasm := probe(t)
	load := func(name string, shared bool) *Module {
		t.Helper()
		m, err := rt.Load(ctx, Spec{Name: name, Wasm: wasm, Settings: json.RawMessage(`{}`),
			Limits: Limits{Timeout: 5 * time.Second, MaxInstances: 2}, Shared: shared})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	a, b, own := load("a", true), load("b", true), load("own", false)
	if a.pool != b.pool || a.pool == own.pool || a.pool.code != own.pool.code {
		t.Fatalf("want a and b in one pool and one code for all: %p %p %p", a.pool, b.pool, own.pool)
	}
	if n := len(rt.codes); n != 1 {
		t.Fatalf("%d compiled codes, want 1", n)
	}
	a.Close(ctx)
	for _, m := range []*Module{b, own} {
		if r, err := m.Evaluate(ctx, "s", request("allow")); err != nil || r.Verdict != "allow" {
			t.Fatalf("%s after a closed: %+v %v", m.name, r, err)
		}
	}
	b.Close(ctx)
	own.Close(ctx)
	if len(rt.codes) != 0 || len(rt.pools) != 0 {
		t.Fatalf("left behind: %d codes, %d pools", len(rt.codes), len(rt.pools))
	}
}

func TestSDKSourceComplete(t *testing.T) {
	files, _ := filepath.Glob("sdk/*.go")
	asm, _ := filepath.Glob("sdk/*.s")
	abiFiles, _ := filepath.Glob("abi/*.go")
	for _, f := range append(append(files, asm...), abiFiles...) {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		if _, err := fs.Stat(SDKSource(), f); err != nil {
			t.Errorf("%s is not embedded: add it to the go:embed line of sdksource.go", f)
		}
	}
}

// The deadline stops a call whose fuel would last: the watchdog empties the
// tank, for a Go guest and for the tightest loop a runtime-free guest can
// run (which writes the fuel back every iteration, so the watchdog's first
// write may be lost). The instance is thrown away; the next call works.
func TestDeadlineStopsAnEndlessLoop(t *testing.T) {
	l := Limits{Timeout: 200 * time.Millisecond, Fuel: math.MaxInt64, MaxInstances: 1}
	gom := load(t, "probe", probe(t), l)
	spin := load(t, "spin", wat(t, "spin"), l)
	for _, c := range []struct {
		m   *Module
		req []byte
	}{{gom, request("loop")}, {spin, []byte("{}")}} {
		_, err := c.m.Evaluate(context.Background(), "s1", c.req)
		if err == nil || !strings.Contains(err.Error(), "module "+c.m.name+": timed out after 200ms (the call was interrupted)") {
			t.Fatalf("%s: %v", c.m.name, err)
		}
		if n := len(c.m.pool.slot); n != 0 {
			t.Fatalf("%s: %d slots still held", c.m.name, n)
		}
	}
	if r, err := gom.Evaluate(context.Background(), "s1", request("allow")); err != nil || r.Verdict != "allow" {
		t.Fatalf("after the loop: %+v %v", r, err)
	}
}

// Fuel ends an endless loop whatever the deadline, and a start function
// that never ends.
func TestFuelEndsAnEndlessLoop(t *testing.T) {
	spin := load(t, "spin", wat(t, "spin"), Limits{Timeout: time.Hour, Fuel: 1_000_000})
	_, err := spin.Evaluate(context.Background(), "s1", []byte("{}"))
	if err == nil || !strings.Contains(err.Error(), "module spin: ran out of fuel (1000000 units a call") {
		t.Fatalf("spin: %v", err)
	}
	_, err = testRuntime(t).Load(context.Background(), Spec{Name: "start", Wasm: wat(t, "start_loop"), Limits: Limits{Fuel: 1000}})
	if err == nil || !strings.Contains(err.Error(), "module start: instantiate (a start function has 10000 units of fuel)") || !strings.Contains(err.Error(), "unreachable") {
		t.Fatalf("start loop: %v", err)
	}
	_, err = testRuntime(t).Load(context.Background(), Spec{Name: "validate", Wasm: wat(t, "validate_loop"), Limits: Limits{Timeout: time.Hour, Fuel: 1000}})
	if err == nil || !strings.Contains(err.Error(), "module validate: guard_validate: ran out of fuel (10000 units") {
		t.Fatalf("validate loop: %v", err)
	}
}

// guard_validate at load gets the setup's limits, ten calls' time (as
// _initialize): it runs once, a Go guest's first call builds what it
// keeps, and on a call's 100 ms a loaded machine failed to load the
// built-ins now and then. A validate that never ends still ends the load.
func TestValidateGetsTheSetupsTime(t *testing.T) {
	_, err := testRuntime(t).Load(context.Background(), Spec{Name: "validate", Wasm: wat(t, "validate_loop"), Limits: Limits{Timeout: 30 * time.Millisecond, Fuel: math.MaxInt64}})
	if err == nil || !strings.Contains(err.Error(), "module validate: guard_validate: timed out after 300ms (the call was interrupted)") {
		t.Fatalf("validate loop: %v", err)
	}
}

// Endless recursion in a runtime-free guest grows wazero's stack for it
// (not the module's memory) until wazero traps it, at 50 MB: the call is
// denied naming the module, the instance is thrown away, and the next call
// gets a new one, which fails the same way rather than finding a broken
// stack. What the stack costs is in docs/SECURITY.md ("What it cannot
// promise").
func TestEndlessRecursionDenies(t *testing.T) {
	m := load(t, "recurse", wat(t, "recurse"), Limits{Timeout: time.Minute, Fuel: math.MaxInt64, MaxInstances: 1})
	for range 2 {
		_, err := m.Evaluate(context.Background(), "s1", []byte("{}"))
		if err == nil || !strings.Contains(err.Error(), "module recurse: trapped: stack overflow") {
			t.Fatalf("recursion: %v", err)
		}
		if n := len(m.pool.slot); n != 0 {
			t.Fatalf("%d slots still held", n)
		}
	}
}

// Modules of one pool answer in one call (EvaluateBatch) what each would
// answer alone, each with its own settings and counters; a fault fails the
// whole batch and names every module in it.
func TestBatch(t *testing.T) {
	ctx := context.Background()
	rt := NewRuntime(Options{CacheDir: t.TempDir()})
	defer rt.Close(ctx)
	wasm := probe(t)
	load := func(name, settings string, l Limits) *Module {
		t.Helper()
		m, err := rt.Load(ctx, Spec{Name: name, Wasm: wasm, Settings: json.RawMessage(settings), Limits: l, Shared: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Close(ctx) })
		return m
	}
	l := Limits{Timeout: 5 * time.Second, MaxInstances: 2}
	a, b := load("a", `{"word":"x"}`, l), load("b", `{"word":"y"}`, l)
	other := load("c", `{}`, Limits{Timeout: 4 * time.Second, MaxInstances: 2})
	if !a.Batches(b) || a.Batches(other) {
		t.Fatalf("a batches b: %v (want true), a batches c (other limits): %v (want false)", a.Batches(b), a.Batches(other))
	}
	batch := func(do string, settings ...string) []byte {
		return []byte(`{"abi":1,"phase":"call","tool":"debugpy_evaluate","category":"execute","arguments":{"do":"` + do +
			`"},"result":null,"session":{"id":"s1"},"settings":null,"batch":[` + strings.Join(settings, ",") + `]}`)
	}
	resps, err := EvaluateBatch(ctx, "s1", []*Module{a, b}, batch("echo", `{"word":"x"}`, `{"word":"y"}`))
	if err != nil || len(resps) != 2 || resps[0].Reason != "debugpy_evaluate/execute/call/x" || resps[1].Reason != "debugpy_evaluate/execute/call/y" {
		t.Fatalf("echo: %+v %v", resps, err)
	}
	for i := 1; i <= 2; i++ { // each module's counter is its own
		resps, err = EvaluateBatch(ctx, "s1", []*Module{a, b, a}, batch("count", "{}", "{}", "{}"))
		if err != nil || resps[0].Reason != "count="+strconv.Itoa(2*i-1) || resps[1].Reason != "count="+strconv.Itoa(i) || resps[2].Reason != "count="+strconv.Itoa(2*i) {
			t.Fatalf("count, round %d: %+v %v", i, resps, err)
		}
	}
	if _, err := EvaluateBatch(ctx, "s1", []*Module{a, b}, batch("panic", "{}", "{}")); err == nil ||
		!strings.Contains(err.Error(), "modules a, b (asked in one call): trapped") {
		t.Fatalf("panic: %v", err)
	}
	if _, err := EvaluateBatch(ctx, "s1", []*Module{a, other}, batch("echo", "{}", "{}")); err == nil ||
		!strings.Contains(err.Error(), "module c cannot be asked in one call with a") {
		t.Fatalf("mixed limits: %v", err)
	}
	if _, err := EvaluateBatch(ctx, "s1", []*Module{a, b}, batch("echo", "{}")); err == nil || !strings.Contains(err.Error(), "1 responses for 2 modules") {
		t.Fatalf("short batch: %v", err)
	}
}

// A guest in an endless loop does not hold up the Go runtime: a collection
// that must stop the world while the guest spins completes, and the
// deadline stops the guest. (Compiled code cannot be preempted: a guest
// that never left it would keep the world from stopping, and the watchdog
// that must empty its tank from running, until its fuel ran out.)
func TestDeadlineWhileTheGCRuns(t *testing.T) {
	l := Limits{Timeout: 100 * time.Millisecond, Fuel: math.MaxInt64, MaxInstances: 1}
	spin := load(t, "spin", wat(t, "spin"), l)
	gom := load(t, "probe", probe(t), l)
	stop := make(chan struct{})
	gcs := make(chan int)
	go func() {
		n := 0
		for {
			select {
			case <-stop:
				gcs <- n
				return
			default:
				runtime.GC()
				n++
			}
		}
	}()
	for _, c := range []struct {
		m   *Module
		req []byte
	}{{spin, []byte("{}")}, {gom, request("loop")}} {
		_, err := c.m.Evaluate(context.Background(), "s1", c.req)
		if err == nil || !strings.Contains(err.Error(), "timed out after 100ms") {
			t.Fatalf("%s: %v", c.m.name, err)
		}
	}
	close(stop)
	if n := <-gcs; n == 0 {
		t.Fatal("no collection ran while the guests spun")
	}
}

// TestResponseCodes: a response's reason code is read exactly, in both
// ABIs; one ABI v1 does not have fails the module (closed), as an unknown
// decision does.
func TestResponseCodes(t *testing.T) {
	for _, c := range []struct {
		v1, opa   string
		code, err string
	}{
		{v1: `{"decision":"deny","reason":"r","code":"rate_limited"}`, opa: `[{"result":{"decision":"deny","reason":"r","code":"rate_limited"}}]`, code: abi.RateLimited},
		{v1: `{"decision":"deny","reason":"r"}`, opa: `[{"result":{"decision":"deny","reason":"r"}}]`},
		{v1: `{"decision":"deny","code":"throttled"}`, opa: `[{"result":{"decision":"deny","code":"throttled"}}]`, err: `unknown code "throttled"`},
		{v1: `{"decision":"deny","code":"Rate_Limited"}`, opa: `[{"result":{"decision":"deny","code":"Rate_Limited"}}]`, err: `unknown code "Rate_Limited"`},
		{v1: `{"decision":"allow","code":7}`, opa: `[{"result":{"decision":"allow","code":7}}]`, err: "code"},
	} {
		for abiName, out := range map[string]string{"v1": c.v1, "opa": c.opa} {
			read := abi.ParseResponse
			if abiName == "opa" {
				read = opaResponse
			}
			r, err := read([]byte(out))
			switch {
			case c.err == "" && (err != nil || r.Code != c.code):
				t.Errorf("%s %s: %+v %v, want code %q", abiName, out, r, err, c.code)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Errorf("%s %s: %+v %v, want an error with %q", abiName, out, r, err, c.err)
			}
		}
	}
}

// Precheck refuses a module whose bytes are not the pinned ones at once,
// before any compilation; without a pin it hashes nothing and passes.
func TestPrecheckPin(t *testing.T) {
	w := probe(t)
	sum := sha256.Sum256(w)
	for _, c := range []struct{ pin, want string }{
		{"", ""}, {hex.EncodeToString(sum[:]), ""}, {strings.ToUpper(hex.EncodeToString(sum[:])), ""},
		{strings.Repeat("ab", 32), "sha256 is " + hex.EncodeToString(sum[:]) + ", the config pins abab"},
	} {
		err := Precheck(Spec{Name: "p", Wasm: w, SHA256: c.pin})
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("pin %q: %v, want %q", c.pin, err, c.want)
		}
	}
}
