package policies_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/debugpy-guard/debugpy-guard/engine"
	"github.com/debugpy-guard/debugpy-guard/engine/cases"
	"github.com/debugpy-guard/debugpy-guard/internal/benchstat"
	"github.com/debugpy-guard/debugpy-guard/internal/pyrepr"
	"github.com/debugpy-guard/debugpy-guard/plugins"
	"github.com/debugpy-guard/debugpy-guard/policies"
	"github.com/debugpy-guard/debugpy-guard/tools"
)

func newEngine(t testing.TB, rt *plugins.Runtime, file string, data []byte, oneByOne ...bool) *engine.Engine {
	t.Helper()
	cfg, err := engine.ParseConfig(file, data, tools.Names())
	if err != nil {
		t.Fatal(err)
	}
	// The cases are about verdicts, not time: under -race, with the other
	// packages' tests running, a call can take longer than the 100ms default.
	cfg.Sandbox.Timeout = "10s"
	if len(oneByOne) > 0 && oneByOne[0] {
		// Modules of different limits are never asked in one call.
		for i, name := range slices.Sorted(maps.Keys(cfg.Modules)) {
			m := cfg.Modules[name]
			m.Timeout = strconv.Itoa(10000+i) + "ms"
			cfg.Modules[name] = m
		}
	}
	return startEngine(t, cfg, engine.Options{Runtime: rt, Builtin: policies.Builtin})
}

// startEngine is an engine for cfg with opts, its modules loaded, closed
// when t ends.
func startEngine(t testing.TB, cfg *engine.Config, opts engine.Options) *engine.Engine {
	t.Helper()
	e, err := engine.New(context.Background(), cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close(context.Background()) })
	if err := e.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	return e
}

func testRuntime(t testing.TB) *plugins.Runtime {
	rt := plugins.NewRuntime(plugins.Options{CacheDir: filepath.Join(os.TempDir(), "debugpy-guard-test-cache"),
		Log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))})
	t.Cleanup(func() { rt.Close(context.Background()) })
	return rt
}

// TestCases runs every case file of testdata/cases through the engine, with
// default.toml unless the file names its own config.
func TestCases(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "cases", "*.toml"))
	rt := testRuntime(t)
	n := 0
	for _, f := range files {
		if filepath.Ext(f[:len(f)-5]) == ".config" {
			continue
		}
		cf, err := cases.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		cfgFile, cfgData := "default.toml", policies.DefaultConfig()
		if cf.Config != "" {
			cfgFile = filepath.Join(filepath.Dir(f), cf.Config)
			if cfgData, err = os.ReadFile(cfgFile); err != nil {
				t.Fatal(err)
			}
		}
		// Each case runs twice: the built-ins of a chain asked in one call,
		// and one by one (a runtime of its own: its counters start at zero).
		// Both must pass, with the same trace.
		e := newEngine(t, rt, cfgFile, cfgData)
		alone := newEngine(t, testRuntime(t), cfgFile, cfgData, true)
		for _, c := range cf.Cases {
			n++
			d, fails := cases.Run(context.Background(), e, c, tools.PrepareCall)
			for _, fail := range fails {
				trace, _ := json.Marshal(d.Trace)
				t.Errorf("%s: %s: %s\ntrace: %s", filepath.Base(f), c.Name, fail, trace)
			}
			d2, _ := cases.Run(context.Background(), alone, c, tools.PrepareCall)
			if got, want := traceOf(d), traceOf(d2); got != want {
				t.Errorf("%s: %s: batched and one by one differ:\n%s\n%s", filepath.Base(f), c.Name, got, want)
			}
		}
	}
	if n < 30 {
		t.Fatalf("ran %d cases; the case files are missing", n)
	}
}

// traceOf is a decision's verdicts and reasons, without the durations.
func traceOf(d engine.Decision) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %q:", d.Verdict, d.Reasons)
	for _, st := range d.Trace {
		fmt.Fprintf(&b, " [%s %s %q %q]", st.Module, st.Verdict, st.Reason, st.Error)
	}
	return b.String()
}

func TestBuiltinsAndDefault(t *testing.T) {
	if len(policies.Names()) != 5 {
		t.Fatalf("built-ins: %v", policies.Names())
	}
	if _, err := policies.Builtin("nope"); err == nil {
		t.Fatal("unknown built-in found")
	}
}

// BenchmarkDefaultChain is one call-phase decision with default.toml
// (ratelimit, category, targets, expressions) on a stack_trace, in two
// cases. "allowed": the rate limit raised, so that each decision is a
// read's allow, the call the budget is for. "rate-limited": the config as
// shipped, its 120 calls a minute made first, so that each decision is the
// rate limit's deny. Until the nineteenth session this benchmark timed that
// alone (past the 120th call of a loop, every decision was the deny), and
// the figures of then are of it (docs/PERFORMANCE.md, "The default chain's
// benchmark timed the rate limit"). With DEBUGPY_GUARD_PEER_BUILTIN naming
// another build of builtin.wasm, the allowed calls run on it too, in the
// same run.
func BenchmarkDefaultChain(b *testing.B) {
	call := engine.Call{Phase: engine.PhaseCall, Tool: "debugpy_stack_trace", Category: tools.Read,
		Arguments: json.RawMessage(`{"thread_id":1,"levels":20}`), MCPSession: "bench"}
	b.Run("allowed", func(b *testing.B) {
		benchDefault(b, benchDefaultConfig(b), call, func(d engine.Decision) bool { return d.Verdict == engine.Allow })
	})
	b.Run("rate-limited", func(b *testing.B) {
		e := benchEngine(b, "default.toml", policies.DefaultConfig(), policies.Builtin)
		limited := func(d engine.Decision) bool {
			return d.Verdict == engine.Deny && slices.Equal(d.Modules, []string{"ratelimit"})
		}
		for range 120 { // the minute's calls (max = 120)
			e.Decide(context.Background(), call)
		}
		if d := e.Decide(context.Background(), call); !limited(d) {
			b.Fatalf("the 121st call in a minute is not the rate limit's deny: %+v", d)
		}
		b.ReportAllocs()
		benchstat.Run(b, decider(b, e, call, limited))
	})
}

// BenchmarkExpressionsCold is BenchmarkExpressions's deny of
// __import__('os') with the caches cooled between decisions, as a server's
// are between two calls (the client, the kernel and the rest of the server
// run in between): before each decision, one write to every cache line of
// "other" memory (not timed). A Go guest touches much memory a decision (its
// heap, its code), so it pays more for cold caches than a decision in a loop
// shows (docs/PERFORMANCE.md).
func BenchmarkExpressionsCold(b *testing.B) {
	wat := filepath.Join(b.TempDir(), "deny_evaluate.wasm")
	if msg, err := exec.Command("wat2wasm", "../plugins/testdata/wat/deny_evaluate.wat", "-o", wat).CombinedOutput(); err != nil {
		b.Fatalf("wat2wasm (make deps installs wabt): %v\n%s", err, msg)
	}
	call, err := tools.PrepareCall(context.Background(), "debugpy_evaluate", json.RawMessage(`{"expression":"__import__('os')"}`))
	if err != nil {
		b.Fatal(err)
	}
	call.Phase, call.MCPSession = engine.PhaseCall, "bench"
	// The same decision by Go modules, on the SDK and without it
	// (plugins/testdata/denygo, denylean): what the SDK's code costs a
	// cold call, apart from the Go runtime's.
	modules := []struct{ name, source string }{{"expressions", "builtin:expressions"}, {"wat", wat}}
	for _, name := range []string{"denygo", "denylean"} {
		out := filepath.Join(b.TempDir(), name+".wasm")
		cmd := exec.Command("go", "build", "-buildmode=c-shared", "-trimpath", "-o", out, "../plugins/testdata/"+name)
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
		if msg, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("go build %s: %v\n%s", name, err, msg)
		}
		modules = append(modules, struct{ name, source string }{name, out})
	}
	other := make([]byte, 32<<20)
	for _, m := range modules {
		cfg := "[modules.m]\nsource = " + strconv.Quote(m.source) + "\n[[rules]]\ntools = [\"debugpy_*\"]\ncall = [\"m\"]\n"
		e := benchEngine(b, "bench.toml", []byte(cfg), policies.Builtin)
		for _, mb := range []int{0, 4, 16, 32} {
			b.Run(m.name+"/other="+strconv.Itoa(mb)+"MB", func(b *testing.B) {
				lat := make([]time.Duration, 0, b.N)
				for b.Loop() {
					for j := 0; j < mb<<20; j += 64 {
						other[j]++
					}
					t0 := time.Now()
					if d := e.Decide(context.Background(), call); d.Verdict != engine.Deny {
						b.Fatal(d)
					}
					lat = append(lat, time.Since(t0))
				}
				benchstat.Report(b, lat)
			})
		}
	}
}

// BenchmarkRedact is one result-phase decision with default.toml (redact)
// on a variables listing of a stop: 40 variables, most of them plain, a
// dict and a dataclass that hold a secret. With DEBUGPY_GUARD_PEER_BUILTIN
// naming another build of builtin.wasm, the same calls run on it too.
func BenchmarkRedact(b *testing.B) {
	benchDefault(b, policies.DefaultConfig(), redactCall(0), func(d engine.Decision) bool { return d.Verdict == engine.Allow && d.Result != nil })
}

// BenchmarkRedactNew is BenchmarkRedact with other values at every call
// (3,000 listings in turn, each value with the listing's number): the texts
// are new to the policy, which keeps what it made of those it read
// (redact's judgedTexts), so this is a first reading's cost; BenchmarkRedact's is an
// agent's asking again at a stop where nothing changed.
func BenchmarkRedactNew(b *testing.B) {
	calls := make([]engine.Call, 3000)
	for i := range calls {
		calls[i] = redactCall(i + 1)
	}
	benchCycle(b, "default.toml", policies.DefaultConfig(), calls, func(d engine.Decision) bool { return d.Verdict == engine.Allow && d.Result != nil })
}

// BenchmarkExpressionsNew is BenchmarkExpressions with code new at every
// call (3,000 expressions in turn, user.name and a call of len on a name
// of its own): the expressions policy keeps the code it judged lately,
// so this is a first judgement's cost, BenchmarkExpressions's the cost of
// code judged again (a watch at each stop).
func BenchmarkExpressionsNew(b *testing.B) {
	const cfg = "[modules.expressions]\nsource = \"builtin:expressions\"\n[[rules]]\ntools = [\"debugpy_*\"]\ncall = [\"expressions\"]\n"
	calls := make([]engine.Call, 3000)
	for i := range calls {
		expr := "user" + strconv.Itoa(i) + ".name"
		if i%2 == 1 {
			expr = "len(items" + strconv.Itoa(i) + ")"
		}
		call, err := tools.PrepareCall(context.Background(), "debugpy_evaluate", json.RawMessage(`{"expression":`+strconv.Quote(expr)+`}`))
		if err != nil {
			b.Fatal(err)
		}
		call.Phase, call.MCPSession = engine.PhaseCall, "bench"
		calls[i] = call
	}
	benchCycle(b, "bench.toml", []byte(cfg), calls, func(d engine.Decision) bool { return d.Verdict != "" })
}

// benchCycle times one decision of each of calls in turn (then the first
// again) by an engine for the config, on the embedded builtin.wasm and, in
// turns, on DEBUGPY_GUARD_PEER_BUILTIN's when it names one.
func benchCycle(b *testing.B, file string, cfg []byte, calls []engine.Call, ok func(engine.Decision) bool) {
	cycle := func(e *engine.Engine) func() {
		i := 0
		return func() {
			decider(b, e, calls[i%len(calls)], ok)()
			i++
		}
	}
	b.Run("embedded", func(b *testing.B) {
		benchstat.Run(b, cycle(benchEngine(b, file, cfg, policies.Builtin)))
	})
	if peer := peerBuiltin(); peer != nil {
		b.Run("turns", func(b *testing.B) {
			benchstat.Turns(b, benchstat.Turn{Name: "embedded", Fn: cycle(benchEngine(b, file, cfg, policies.Builtin))},
				benchstat.Turn{Name: "peer", Fn: cycle(benchEngine(b, file, cfg, peer))})
		})
	}
}

// redactCall is a variables listing's result phase: 40 variables, most of
// them plain, a dict and a dataclass that hold a secret; listing n > 0 has
// n in every value.
func redactCall(n int) engine.Call {
	var vars []map[string]any
	for i := range 36 {
		v := fmt.Sprintf("'a value of some length, number %d'", i)
		if n > 0 {
			v = fmt.Sprintf("'a value of some length, number %d of %d'", i, n)
		}
		vars = append(vars, map[string]any{"name": "v" + strconv.Itoa(i), "type": "str", "value": v})
	}
	vars = append(vars,
		map[string]any{"name": "order", "type": "Order", "value": "<app.models.Order object at 0x7f3a2c1d9e80>"},
		map[string]any{"name": "items", "type": "list", "value": "['item-1', 'item-2', 'item-3', 'item-4']"},
		map[string]any{"name": "settings", "type": "dict", "value": "{'host': 'db', 'port': 5432, 'db_password': 's3cr3t-value', 'debug': False}"},
		map[string]any{"name": "cfg", "type": "Config", "value": "Config(user='app', password='dc-s3cret-value', port=5432)"})
	result, _ := json.Marshal(map[string]any{"scope": "locals", "variables_reference": 7, "variables": vars})
	return engine.Call{Phase: engine.PhaseResult, Tool: "debugpy_variables", Category: tools.Read,
		Arguments: json.RawMessage(`{"scope":"locals"}`), Result: result, MCPSession: "bench"}
}

// BenchmarkRedactSource is one result-phase decision with default.toml
// (redact) on a debugpy_source window of 21 lines in the middle of a
// 2,000-line module of plain code, with the 32 KiB of lines above it
// (derived.before) that redact reads the window with; a peer built before
// that reading (DEBUGPY_GUARD_PEER_BUILTIN) reads the window alone.
func BenchmarkRedactSource(b *testing.B) {
	var file []string
	for i := range 1000 {
		file = append(file, fmt.Sprintf("def handler_%d(request, retries=3):", i), fmt.Sprintf("    return request.get('item_%d', retries * %d)", i, i))
	}
	type line struct {
		Line int    `json:"line"`
		Text string `json:"text"`
	}
	var window []line
	for i := 990; i <= 1010; i++ {
		window = append(window, line{i, file[i-1]})
	}
	result, _ := json.Marshal(map[string]any{"file": "/app/handlers.py", "lines": window})
	above := strings.Join(file[:989], "\n") + "\n"
	above = above[len(above)-engine.MaxBefore:]
	above = above[strings.IndexByte(above, '\n')+1:]
	call := engine.Call{Phase: engine.PhaseResult, Tool: "debugpy_source", Category: tools.Read,
		Arguments: json.RawMessage(`{"file":"/app/handlers.py","line":1000}`), Result: result, MCPSession: "bench",
		Derived: &engine.Derived{Before: []engine.Before{{Category: engine.BeforeSource, Text: above}}}}
	benchDefault(b, policies.DefaultConfig(), call, func(d engine.Decision) bool { return d.Verdict == engine.Allow })
}

// BenchmarkRedactPandas is one result-phase decision with default.toml
// (redact) on the stop's listing the gate reads of a program that holds a
// pandas DataFrame and one of its rows (testdata/pandas_listing.json, as
// pydevd showed it: 211 KB, 4,470 strings; the objects opened, as the
// gate's listing opens them). With DEBUGPY_GUARD_PEER_BUILTIN naming another
// build of builtin.wasm, the same calls run on it too.
func BenchmarkRedactPandas(b *testing.B) {
	result, err := os.ReadFile("testdata/pandas_listing.json")
	if err != nil {
		b.Fatal(err)
	}
	call := engine.Call{Phase: engine.PhaseResult, Tool: "debugpy_variables", Category: tools.Read,
		Arguments: json.RawMessage(`{"depth":2}`), Result: result, MCPSession: "bench"}
	benchDefault(b, policies.DefaultConfig(), call, func(d engine.Decision) bool { return d.Verdict == engine.Allow && d.Result != nil })
}

// BenchmarkRedactOutput is one result-phase decision with default.toml
// (redact) on a debugpy_output read of 20 log lines: alone ("none"), and
// after the 32 KiB of output it continues (derived.before: the most the
// host gives), which redact masks with it. With DEBUGPY_GUARD_PEER_BUILTIN
// naming another build of builtin.wasm, the same calls run on it too.
func BenchmarkRedactOutput(b *testing.B) {
	var lines strings.Builder
	for i := range 20 {
		fmt.Fprintf(&lines, "2026-12-05 10:00:%02d INFO processed order %d for ada@example.org in 12 ms\n", i, 1000+i)
	}
	result, _ := json.Marshal(map[string]any{"entries": []any{map[string]any{"cursor": 900, "category": "stdout", "text": lines.String()}}, "next": 901})
	var before strings.Builder
	for before.Len() < engine.MaxBefore-200 {
		before.WriteString(lines.String()[:90])
		before.WriteString("\n")
	}
	for _, ctx := range []struct {
		name   string
		before []engine.Before
	}{{"none", nil}, {"32KiB", []engine.Before{{Category: "stdout", Text: before.String()}}}} {
		b.Run(ctx.name, func(b *testing.B) {
			call := engine.Call{Phase: engine.PhaseResult, Tool: "debugpy_output", Category: tools.Read,
				Arguments: json.RawMessage(`{"since":900}`), Result: result, MCPSession: "bench", Derived: &engine.Derived{Before: ctx.before}}
			benchDefault(b, policies.DefaultConfig(), call, func(d engine.Decision) bool { return d.Verdict == engine.Allow })
		})
	}
}

// BenchmarkExpressions is one call-phase decision by the expressions policy
// alone on an evaluate, read by the parser (the last, the deny that the
// round trip of BenchmarkDeniedVsIntercept times). With DEBUGPY_GUARD_PEER_BUILTIN
// naming another build of builtin.wasm (an earlier commit's, say), the
// sub-benchmarks "turns/..." time both, one decision of each in turn
// (benchstat.Turns), so that both see the same machine.
func BenchmarkExpressions(b *testing.B) {
	const cfg = "[modules.expressions]\nsource = \"builtin:expressions\"\n[[rules]]\ntools = [\"debugpy_*\"]\ncall = [\"expressions\"]\n"
	embedded := benchEngine(b, "bench.toml", []byte(cfg), policies.Builtin)
	var other *engine.Engine
	if peer := peerBuiltin(); peer != nil {
		other = benchEngine(b, "bench.toml", []byte(cfg), peer)
	}
	verdict := func(d engine.Decision) bool { return d.Verdict != "" }
	for _, expr := range []string{"user.name", "user.profile['city'] != 'Lyon' and not done", "ｅｖａｌ(x)", "__import__('os')"} {
		call, err := tools.PrepareCall(context.Background(), "debugpy_evaluate", json.RawMessage(`{"expression":`+strconv.Quote(expr)+`}`))
		if err != nil {
			b.Fatal(err)
		}
		call.Phase, call.MCPSession = engine.PhaseCall, "bench"
		size := strconv.Itoa(len(expr)) + "B"
		b.Run("embedded/"+size, func(b *testing.B) {
			b.ReportAllocs()
			benchstat.Run(b, decider(b, embedded, call, verdict))
		})
		if other != nil {
			b.Run("turns/"+size, func(b *testing.B) {
				benchstat.Turns(b, benchstat.Turn{Name: "embedded", Fn: decider(b, embedded, call, verdict)},
					benchstat.Turn{Name: "peer", Fn: decider(b, other, call, verdict)})
			})
		}
	}
}

// benchDefault times one decision of call with cfg (default.toml, or a
// variant of it) on the embedded builtin.wasm; ok checks each decision. With
// DEBUGPY_GUARD_PEER_BUILTIN naming another build of it, the sub-benchmark
// "turns" times both, one decision of each in turn (benchstat.Turns), so
// that both see the same machine.
func benchDefault(b *testing.B, cfg []byte, call engine.Call, ok func(engine.Decision) bool) {
	b.Run("embedded", func(b *testing.B) {
		e := benchEngine(b, "default.toml", cfg, policies.Builtin)
		b.ReportAllocs()
		benchstat.Run(b, decider(b, e, call, ok))
	})
	peer := peerBuiltin()
	if peer == nil {
		return
	}
	b.Run("turns", func(b *testing.B) {
		embedded := benchEngine(b, "default.toml", cfg, policies.Builtin)
		other := benchEngine(b, "default.toml", cfg, peer)
		benchstat.Turns(b, benchstat.Turn{Name: "embedded", Fn: decider(b, embedded, call, ok)},
			benchstat.Turn{Name: "peer", Fn: decider(b, other, call, ok)})
	})
}

// benchDefaultConfig is default.toml with its rate limit raised, as the
// stdio benchmarks have it (cmd/debugpy-guard's benchConfig): at 120 calls
// a minute, every decision of a loop past the 120th is the rate limit's
// deny. It fails when default.toml no longer says `max = 120`, so that the
// raise cannot go stale unseen.
func benchDefaultConfig(b *testing.B) []byte {
	cfg := bytes.Replace(policies.DefaultConfig(), []byte("max = 120"), []byte("max = 1000000000"), 1)
	if bytes.Equal(cfg, policies.DefaultConfig()) {
		b.Fatal("default.toml: no `max = 120` to raise; update benchDefaultConfig")
	}
	return cfg
}

// benchEngine is an engine for the config data (named file) on the built-in
// module that load gives, on a runtime of its own, closed when b ends.
func benchEngine(b *testing.B, file string, data []byte, load func(string) ([]byte, error)) *engine.Engine {
	c, err := engine.ParseConfig(file, data, tools.Names())
	if err != nil {
		b.Fatal(err)
	}
	return startEngine(b, c, engine.Options{Runtime: testRuntime(b), Builtin: load})
}

// peerBuiltin loads the builtin.wasm DEBUGPY_GUARD_PEER_BUILTIN names, or is
// nil when it names none.
func peerBuiltin() func(string) ([]byte, error) {
	peer := os.Getenv("DEBUGPY_GUARD_PEER_BUILTIN")
	if peer == "" {
		return nil
	}
	return func(string) ([]byte, error) { return os.ReadFile(peer) }
}

// decider is one decision of call by e, which ok checks.
func decider(b *testing.B, e *engine.Engine, call engine.Call, ok func(engine.Decision) bool) func() {
	return func() {
		if d := e.Decide(context.Background(), call); !ok(d) {
			b.Fatal(d)
		}
	}
}

// A long line of escaped quotes (a dict's repr of 600 entries inside a
// str's repr, inside another's: a listing's row as debugpy shows a held
// read's repr) is read in fuel bounded by its length. Read from each of
// its quotes, each a literal to the line's end, it ran redact out of the
// default's 50e9 units, and past its 100 ms deadline (found 2026-12-07);
// it now takes 4-8e9 (fuel is counted, not timed: the same on any machine).
func TestRedactReadsALongLineOfQuotesInFuel(t *testing.T) {
	var b strings.Builder
	b.WriteString("{'mod._OKP.privkey._name': 'privkey', ")
	for i := range 300 {
		fmt.Fprintf(&b, "'mod.Name%d._name': 'Name%d', 'mod.Name%d.doc': 'A generic version of collections.abc.Name%d.', ", i, i, i, i)
	}
	b.WriteString("'end': 1}")
	result, _ := json.Marshal(map[string]any{"scope": "locals", "variables_reference": 7,
		"variables": []map[string]any{{"name": "held", "type": "str", "value": pyrepr.Repr(pyrepr.Repr(b.String()))}}})
	cfg, err := engine.ParseConfig("default.toml", policies.DefaultConfig(), tools.Names())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Sandbox.Timeout = "60s"
	cfg.Sandbox.Fuel = 20_000_000_000
	e := startEngine(t, cfg, engine.Options{Runtime: testRuntime(t), Builtin: policies.Builtin})
	d := e.Decide(context.Background(), engine.Call{Phase: engine.PhaseResult, Tool: "debugpy_variables", Category: tools.Read,
		Arguments: json.RawMessage(`{"scope":"locals"}`), Result: result, MCPSession: "t"})
	if d.Verdict != engine.Allow {
		t.Fatalf("%s: %s", d.Verdict, d.Reasons)
	}
}
