package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
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

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/debugpy-guard/debugpy-guard/internal/benchstat"
	"github.com/debugpy-guard/debugpy-guard/tools"
)

// Round trips through the real binary over stdio with the embedded default
// policy (docs/PERFORMANCE.md, issue 4). -benchtime sets the calls.
func benchServe(b *testing.B, tool string, args map[string]any, wantError bool) {
	dir := b.TempDir()
	os.Mkdir(filepath.Join(dir, "run"), 0o700)
	ctx := context.Background()
	c, _, err := startClient(ctx, clientSpec{Bin: binary, Env: testEnv(dir),
		// No rate limit in the way of the figures: the default policy with a
		// high max, the rest as it is.
		Args: []string{"--config", benchConfig(b, dir)}})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = tool, args
	c.CallTool(ctx, req) // warm: the modules are loaded
	benchstat.Run(b, func() {
		res, err := c.CallTool(ctx, req)
		if err != nil || res.IsError != wantError {
			b.Fatalf("%s: %v %+v", tool, err, res)
		}
	})
}

// benchConfig is the embedded default with the rate limit raised.
func benchConfig(b *testing.B, dir string) string {
	data, err := os.ReadFile("../../policies/default.toml")
	if err != nil {
		b.Fatal(err)
	}
	cfg := strings.Replace(string(data), "max = 120", "max = 100000000", 1)
	file := filepath.Join(dir, "bench.toml")
	os.WriteFile(file, []byte(cfg), 0o600)
	return file
}

func BenchmarkServeDenied(b *testing.B) {
	benchServe(b, "debugpy_evaluate", map[string]any{"expression": "__import__('os')"}, true)
}

// An allowed call whose handler answers without debugpy.
func BenchmarkServeAllowed(b *testing.B) {
	benchServe(b, "debugpy_sessions", nil, false)
}

// BenchmarkStartToToolsList times a fresh serve from exec to its tools/list
// answer, with an empty compilation cache (cold) and a warm one.
func BenchmarkStartToToolsList(b *testing.B) { benchStart(b, false) }

// BenchmarkStartToFirstCall goes on to the first tools/call, which waits
// for the modules of its chain to load: the cost tools/list does not pay.
func BenchmarkStartToFirstCall(b *testing.B) { benchStart(b, true) }

func benchStart(b *testing.B, firstCall bool) {
	for _, cold := range []bool{true, false} {
		name := "warm"
		if cold {
			name = "cold"
		}
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			env := []string{"XDG_STATE_HOME=" + filepath.Join(dir, "state"), "XDG_RUNTIME_DIR=" + filepath.Join(dir, "run"),
				"XDG_CACHE_HOME=" + filepath.Join(dir, "cache")}
			os.Mkdir(filepath.Join(dir, "run"), 0o700)
			if !cold { // fill the cache once
				start(b, env).Close()
			}
			lat := make([]time.Duration, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if cold {
					b.StopTimer()
					os.RemoveAll(filepath.Join(dir, "cache"))
					b.StartTimer()
				}
				t0 := time.Now()
				c := start(b, env)
				if firstCall {
					req := mcp.CallToolRequest{}
					req.Params.Name = "debugpy_sessions"
					if res, err := c.CallTool(context.Background(), req); err != nil || res.IsError {
						b.Fatalf("first call: %v %+v", err, res)
					}
				}
				lat[i] = time.Since(t0)
				b.StopTimer()
				c.Close()
				b.StartTimer()
			}
			b.StopTimer()
			benchstat.Report(b, lat)
		})
	}
}

func start(b *testing.B, env []string) *client.Client {
	ctx := context.Background()
	c, _, err := startClient(ctx, clientSpec{Bin: binary, Env: env, Protocol: mcp.LATEST_LEGACY_PROTOCOL_VERSION})
	if err != nil {
		b.Fatal(err)
	}
	if l, err := c.ListTools(ctx, mcp.ListToolsRequest{}); err != nil || len(l.Tools) != 24 {
		b.Fatalf("tools/list: %v", err)
	}
	return c
}

// BenchmarkRSS reports the server's resident memory with the default
// policy and one debug session stopped at a breakpoint, after a few calls
// (every built-in module has run), its compilation cache warm (the test
// runs' shared one). TestRSSAfterAColdStart holds a cold start to the
// budget.
func BenchmarkRSS(b *testing.B) {
	for i := 0; i < b.N; i++ {
		dir := b.TempDir()
		rss, hwm := rssAfterASession(b, dir, testEnv(dir))
		b.ReportMetric(hwm, "VmHWM-MB")
		b.ReportMetric(rss, "VmRSS-MB")
	}
}

// rssAfterASession starts serve on the default policy with env added
// (testEnv(dir) at least), makes a debug session's first calls (a launch,
// a breakpoint, a stop, the stack, the globals, an evaluate), waits for
// the server to say that its modules are ready and their compilation's
// memory returned, and gives the server's VmRSS and VmHWM in MB then.
func rssAfterASession(tb testing.TB, dir string, env []string) (rss, hwm float64) {
	tb.Helper()
	os.Mkdir(filepath.Join(dir, "run"), 0o700)
	ctx := context.Background()
	stderr := &lockedBuffer{}
	c, cmd, err := startClient(ctx, clientSpec{Bin: binary, Env: append(slices.Clip(env), "DEBUGPY_GUARD_LOG=info"),
		Prompter: &prompter{answer: mcp.ElicitationResponseActionAccept}, Stderr: stderr})
	if err != nil {
		tb.Fatal(err)
	}
	defer c.Close()
	prog, line := sample(tb, dir)
	for _, step := range []struct {
		tool string
		args map[string]any
	}{
		{"debugpy_launch", map[string]any{"program": prog}},
		{"debugpy_set_breakpoint", map[string]any{"file": prog, "line": line}},
		{"debugpy_continue", nil},
		{"debugpy_stack_trace", nil},
		{"debugpy_variables", map[string]any{"scope": "globals"}},
		{"debugpy_evaluate", map[string]any{"expression": "qty * price"}},
	} {
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = step.tool, step.args
		if res, err := c.CallTool(ctx, req); err != nil || res.IsError {
			tb.Fatalf("%s: %v %+v", step.tool, err, res)
		}
	}
	// An event, not a time: the line serve logs once the memory is returned.
	for deadline := time.Now().Add(2 * time.Minute); !strings.Contains(stderr.String(), "compilation's memory returned"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			tb.Fatalf("serve never said its modules were ready:\n%s", stderr)
		}
	}
	status, err := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/status")
	if err != nil {
		tb.Fatal(err)
	}
	for _, l := range strings.Split(string(status), "\n") {
		if f := strings.Fields(l); len(f) == 3 && (f[0] == "VmRSS:" || f[0] == "VmHWM:") {
			kb, _ := strconv.Atoi(f[1])
			if f[0] == "VmRSS:" {
				rss = float64(kb) / 1024
			} else {
				hwm = float64(kb) / 1024
			}
		}
	}
	return rss, hwm
}

// BenchmarkDebugCalls times tool calls that reach debugpy, through the
// whole server over stdio with the default policy (rate limit raised), in
// launch mode, stopped at a breakpoint of dap/testdata/prog.py (bench mode:
// four threads, nested locals), with the one-write fix on and off.
// "repeat" asks the same again while stopped; "fresh" asks right after a
// new stop (the continue that makes it is not timed).
func BenchmarkDebugCalls(b *testing.B) {
	prog, line := benchProgram(b)
	for _, fix := range []string{"on", "off"} {
		b.Run("fix="+fix, func(b *testing.B) {
			call := benchClient(b, b.TempDir(), "DEBUGPY_GUARD_NODELAY="+fix)
			call("debugpy_launch", map[string]any{"program": prog, "args": []string{"bench"}})
			call("debugpy_set_breakpoint", map[string]any{"file": prog, "line": line})
			call("debugpy_continue", nil)
			if !strings.Contains(tools.Text(call("debugpy_session_status", nil)), "stopped") {
				b.Fatal("not stopped at the breakpoint")
			}
			for _, k := range []struct {
				name string
				tool string
				args map[string]any
			}{
				{"stack_trace", "debugpy_stack_trace", nil},
				{"variables_depth1", "debugpy_variables", map[string]any{"depth": 1}},
				{"variables_depth3", "debugpy_variables", map[string]any{"depth": 3}},
				{"evaluate", "debugpy_evaluate", map[string]any{"expression": "user.profile"}},
				// a path read in part: the host reads user.profile['tags'] whole first
				{"evaluate_part", "debugpy_evaluate", map[string]any{"expression": "user.profile['tags'][1:]"}},
				// a child of a value the listing did not open: the host
				// reads threading._main_thread and opens it first, and what its
				// attributes hide below it (openHiding)
				{"evaluate_unlisted_parent", "debugpy_evaluate", map[string]any{"expression": "threading._main_thread.name"}},
				// a value shown cut short that the listing did not open (its
				// threads' reprs, cut as items): opened before it is shown
				// (tools/shown.go)
				{"evaluate_cut", "debugpy_evaluate", map[string]any{"expression": "threading._active"}},
				{"threads_4", "debugpy_threads", map[string]any{"frames": 1}},
			} {
				for _, mode := range []string{"repeat", "fresh"} {
					b.Run(k.name+"/"+mode, func(b *testing.B) { timedAtStops(b, call, mode, k.tool, k.args) })
				}
			}
		})
	}
}

// BenchmarkValuesShownCutShort times debugpy_variables of a scope right
// after a stop, in a program with more values that hide what they hold
// than the stop's listing opens (80 objects, and 100 lists of lists whose
// items debugpy shows cut short): each row shown cut short is opened, and
// its items cut short, before the result is shown (tools/shown.go).
// max_items 20 opens 20 rows and their 14 items each shown; 100, the
// default, 100 rows. "repeat" asks again at the same stop, where what was
// opened is known. And an object's attributes, listed by reference, a
// function's special variables (its code object's source read first), and
// an evaluate of a dict of closures (what they hold read first).
func BenchmarkValuesShownCutShort(b *testing.B) {
	dir := b.TempDir()
	prog := filepath.Join(dir, "many.py")
	os.WriteFile(prog, []byte(`objs = [type("C%d" % i, (), {})() for i in range(80)]
for i, o in enumerate(objs):
    globals()["o%02d" % i] = o
for i in range(100):
    globals()["g%03d" % i] = [["y%d" % j + "x" * 40] * 3 for j in range(20)]
zbig = type("Big", (), {})()
for i in range(100):
    setattr(zbig, "a%03d" % i, "v%d" % i)
def make(user, pw="dflt-value"):
    password = "body-value"
    return password
def client(token):
    def call():
        return token
    return call
zfns = {"f%02d" % i: client("v%d" % i) for i in range(50)}
zobjs = [type("K", (), {"__repr__": lambda s: "<K>"})() for i in range(14)]
while True:
    n = 1  # BREAK
`), 0o600)
	call := benchClient(b, dir)
	call("debugpy_launch", map[string]any{"program": prog})
	call("debugpy_set_breakpoint", map[string]any{"file": prog, "line": 20})
	call("debugpy_continue", nil)
	// An object's 100 attributes, listed by its variables_reference: read
	// whole under its name by the result phase, the listing having not
	// opened it.
	// byReference times debugpy_variables of the reference refOf finds,
	// right after a stop (fresh) or at the same stop (repeat).
	byReference := func(name string, refOf func() any, more map[string]any) {
		for _, mode := range []string{"fresh", "repeat"} {
			b.Run(name+"/"+mode, func(b *testing.B) {
				lat := make([]time.Duration, 0, b.N)
				var ref any
				for i := 0; i < b.N; i++ {
					if mode == "fresh" || ref == nil {
						if mode == "fresh" {
							call("debugpy_continue", nil) // to the next stop
						}
						ref = refOf()
					}
					args := map[string]any{"variables_reference": ref}
					maps.Copy(args, more)
					t0 := time.Now()
					call("debugpy_variables", args)
					lat = append(lat, time.Since(t0))
				}
				benchstat.Report(b, lat)
			})
		}
	}
	byReference("object_by_reference", func() any {
		return call("debugpy_evaluate", map[string]any{"expression": "zbig"}).StructuredContent.(map[string]any)["variables_reference"]
	}, nil)
	// A function's special variables, among them its code object: the
	// result phase reads the function's source first.
	specialRef := func() any {
		fn := call("debugpy_evaluate", map[string]any{"expression": "make"}).StructuredContent.(map[string]any)["variables_reference"]
		rows := call("debugpy_variables", map[string]any{"variables_reference": fn}).StructuredContent.(map[string]any)["variables"].([]any)
		for _, r := range rows {
			if r := r.(map[string]any); r["name"] == "special variables" {
				return r["variables_reference"]
			}
		}
		b.Fatal("no special variables")
		return nil
	}
	byReference("function_special_variables", specialRef, map[string]any{"max_items": 200})
	// A dict of 50 closures, evaluated: shown cut short, opened, and what
	// its closures hold read (tools/held.go), in one request. And a list of
	// 14 objects whose short reprs debugpy shows whole: opened, and each
	// object (they hide what they hold).
	for _, e := range []struct{ name, expr string }{{"evaluate_dict_of_closures", "zfns"}, {"evaluate_list_of_objects", "zobjs"}} {
		for _, mode := range []string{"fresh", "repeat"} {
			b.Run(e.name+"/"+mode, func(b *testing.B) {
				timedAtStops(b, call, mode, "debugpy_evaluate", map[string]any{"expression": e.expr})
			})
		}
	}
	for _, items := range []int{20, 100} {
		for _, mode := range []string{"fresh", "repeat"} {
			b.Run(fmt.Sprintf("max_items=%d/%s", items, mode), func(b *testing.B) {
				timedAtStops(b, call, mode, "debugpy_variables", map[string]any{"scope": "globals", "max_items": items})
			})
		}
	}
}

// BenchmarkListingOfRecords times the stop's listing of a frame of
// records, a dataclass's and a namedtuple's, whose reprs begin with their
// class's name, as an exception's do, and name their fields: heldSeen
// does not read them for what an exception holds (tools/held.go,
// holdsOf), which cost the listing a request.
func BenchmarkListingOfRecords(b *testing.B) {
	dir := b.TempDir()
	prog := filepath.Join(dir, "records.py")
	os.WriteFile(prog, []byte(`import collections, dataclasses
@dataclasses.dataclass
class Point:
    x: int
    y: int
Pair = collections.namedtuple("Pair", "a b")
def main():
    points = [Point(i, i) for i in range(3)]
    p0, p1 = Point(0, 1), Point(1, 2)
    pair = Pair(1, 2)
    while True:
        n = 1  # BREAK
main()
`), 0o600)
	call := benchClient(b, dir)
	call("debugpy_launch", map[string]any{"program": prog})
	call("debugpy_set_breakpoint", map[string]any{"file": prog, "line": 12})
	call("debugpy_continue", nil)
	b.Run("variables/fresh", func(b *testing.B) { timedAtStops(b, call, "fresh", "debugpy_variables", nil) })
}

// timedAtStops times call(tool, args) b.N times, each right after a stop
// (mode fresh: a continue to the next stop first) or at the same stop
// (repeat).
func timedAtStops(b *testing.B, call func(string, map[string]any) *mcp.CallToolResult, mode, tool string, args map[string]any) {
	lat := make([]time.Duration, 0, b.N)
	for i := 0; i < b.N; i++ {
		if mode == "fresh" {
			call("debugpy_continue", nil) // to the next stop
		}
		t0 := time.Now()
		call(tool, args)
		lat = append(lat, time.Since(t0))
	}
	benchstat.Report(b, lat)
}

// benchClient starts serve in dir with the default policy (rate limit
// raised) and env added, a person answering yes, until b ends; call makes
// a call that must succeed.
func benchClient(b *testing.B, dir string, env ...string) (call func(tool string, args map[string]any) *mcp.CallToolResult) {
	os.Mkdir(filepath.Join(dir, "run"), 0o700)
	ctx := context.Background()
	c, _, err := startClient(ctx, clientSpec{Bin: binary, Env: append(testEnv(dir), env...), Prompter: &prompter{answer: mcp.ElicitationResponseActionAccept},
		Args: []string{"--config", benchConfig(b, dir)}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return func(tool string, args map[string]any) *mcp.CallToolResult {
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = tool, args
		res, err := c.CallTool(ctx, req)
		if err != nil || res.IsError {
			b.Fatalf("%s: %v %+v", tool, err, res)
		}
		return res
	}
}

func mustReadB(b *testing.B, f string) string {
	data, err := os.ReadFile(f)
	if err != nil {
		b.Fatal(err)
	}
	return string(data)
}

// watModule assembles plugins/testdata/wat/NAME.wat into dir and returns
// the module's path.
func watModule(b *testing.B, dir, name string) string {
	out := filepath.Join(dir, name+".wasm")
	if msg, err := exec.Command("wat2wasm", "../../plugins/testdata/wat/"+name+".wat", "-o", out).CombinedOutput(); err != nil {
		b.Fatalf("wat2wasm (make deps installs wabt): %v\n%s", err, msg)
	}
	return out
}

// denyingModule is a config that asks the module at source alone about
// debugpy_evaluate.
func denyingModule(source string) string {
	return "default = \"allow\"\n[modules.deny]\nsource = " + strconv.Quote(source) + "\n[[rules]]\ntools = [\"debugpy_evaluate\"]\ncall = [\"deny\"]\n"
}

// goModule builds the Go module of plugins/testdata/NAME into dir.
func goModule(b *testing.B, dir, name string) string {
	out := filepath.Join(dir, name+".wasm")
	cmd := exec.Command("go", "build", "-buildmode=c-shared", "-trimpath", "-o", out, "../../plugins/testdata/"+name)
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if msg, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build %s: %v\n%s", name, err, msg)
	}
	return out
}

// BenchmarkDeniedVsIntercept times a denied debugpy_evaluate over stdio,
// byte for byte from one client (the raw one of the attack tests: a line
// out, a line in), through debugpy-guard with no module, with one module
// (the expressions policy), with the default chain, with a module without a
// runtime, with a Go module that decides as that one does (on the SDK, and
// without it), and through
// PolicyLayer's Intercept denying the same call with an
// `action: "deny"` rule in front of debugpy-guard. They take turns, one
// call each in an order shuffled at each round (benchstat.Rounds), so that
// the shared machine's noise, and the caches each call leaves the next,
// fall on all of them alike. Intercept is not on the Go module proxy:
// build it from its source (github.com/PolicyLayer/Intercept, `go build
// .`) and set INTERCEPT to the binary (docs/PERFORMANCE.md). -benchtime
// sets the calls of each.
// DEBUGPY_GUARD_PEER adds another build of debugpy-guard to the turns.
func BenchmarkDeniedVsIntercept(b *testing.B) {
	icpt := os.Getenv("INTERCEPT")
	if icpt == "" {
		b.Skip("set INTERCEPT to an Intercept binary (github.com/PolicyLayer/Intercept, `go build .`); docs/PERFORMANCE.md")
	}
	dir := b.TempDir()
	policy := filepath.Join(dir, "intercept.yaml")
	os.WriteFile(policy, []byte(`version: "1"
tools:
  debugpy_evaluate:
    rules:
      - name: "no evaluate"
        action: "deny"
        on_deny: "evaluate is not allowed"
`), 0o600)
	servers := []struct {
		name string
		o    rawOpts
		want string
	}{
		// No module: the config's default denies. The server's own share.
		{"guard-no-module", rawOpts{config: "default = \"deny\"\n"}, "denied by policy"},
		{"guard-one-module", rawOpts{config: `
default = "allow"
[modules.expressions]
source = "builtin:expressions"
[[rules]]
tools = ["debugpy_evaluate"]
call = ["expressions"]
`}, "denied by policy"},
		{"guard-default", rawOpts{config: mustReadB(b, benchConfig(b, dir))}, "denied by policy"},
		// A module without a runtime (WebAssembly text, no SDK) that reads
		// the request and denies: the host's cost of a module, apart from
		// what a Go guest's code costs.
		{"guard-wat", rawOpts{config: denyingModule(watModule(b, dir, "deny_evaluate"))}, "denied by policy"},
		// The same decision by a Go module on the SDK: what a Go guest
		// costs a round trip whatever its policy's code.
		{"guard-go", rawOpts{config: denyingModule(goModule(b, dir, "denygo"))}, "denied by policy"},
		// The same decision in Go without the SDK: a Go guest's runtime
		// apart from the SDK's code.
		{"guard-go-lean", rawOpts{config: denyingModule(goModule(b, dir, "denylean"))}, "denied by policy"},
		{"intercept", rawOpts{config: "default = \"allow\"\n", wrap: []string{icpt, "-c", policy, "--"},
			env: []string{"HOME=" + dir}}, "evaluate is not allowed"},
	}
	// DEBUGPY_GUARD_PEER names another build of debugpy-guard (an earlier
	// commit's, say): its no-module, one-module and default servers join
	// the turns.
	if peer := os.Getenv("DEBUGPY_GUARD_PEER"); peer != "" {
		for _, s := range servers[:3] {
			s.o.bin = peer
			servers = append(servers, struct {
				name string
				o    rawOpts
				want string
			}{"peer-" + strings.TrimPrefix(s.name, "guard-"), s.o, s.want})
		}
	}
	// DEBUGPY_GUARD_BENCH_SERVERS=NAME,... keeps only those servers in the
	// turns: each server between two calls of another cools the caches it
	// left warm, the more so the more servers take turns.
	if only := os.Getenv("DEBUGPY_GUARD_BENCH_SERVERS"); only != "" {
		names := strings.Split(only, ",")
		servers = slices.DeleteFunc(servers, func(s struct {
			name string
			o    rawOpts
			want string
		}) bool {
			return !slices.Contains(names, s.name)
		})
		if len(servers) == 0 {
			b.Fatalf("DEBUGPY_GUARD_BENCH_SERVERS=%s names none of the servers", only)
		}
	}
	// DEBUGPY_GUARD_PROFILE_DIR=DIR: each of our servers writes a CPU
	// profile of itself to DIR/NAME.pprof when it exits (run with -count 1:
	// each run writes over the last); `go tool pprof -focus ServeStdio`
	// keeps a call's path, without the modules' compilation at start.
	profiles := os.Getenv("DEBUGPY_GUARD_PROFILE_DIR")
	conns := make([]*raw, len(servers))
	for i, s := range servers {
		if profiles != "" && s.name != "intercept" {
			s.o.env = append(s.o.env, "DEBUGPY_GUARD_CPUPROFILE="+filepath.Join(profiles, s.name+".pprof"))
		}
		conns[i] = startRaw(b, s.o)
	}
	args := `{"expression":"__import__('os')"}`
	for i, r := range conns {
		for range 20 { // warm: the modules are loaded, the caches full
			r.refused("debugpy_evaluate", args, servers[i].want)
		}
	}
	lat := make([][]time.Duration, len(servers))
	b.ResetTimer()
	for _, order := range benchstat.Rounds(b.N, len(conns)) {
		for _, i := range order {
			r := conns[i]
			t0 := time.Now()
			text, isErr := r.call("debugpy_evaluate", args)
			lat[i] = append(lat[i], time.Since(t0))
			if !isErr || !strings.Contains(text, servers[i].want) {
				b.Fatalf("%s: %s", servers[i].name, text)
			}
		}
	}
	b.StopTimer()
	for i, s := range servers {
		p50, p99 := benchstat.Percentiles(lat[i])
		b.ReportMetric(float64(p50.Nanoseconds())/1e3, s.name+"-p50-µs")
		b.ReportMetric(float64(p99.Nanoseconds())/1e3, s.name+"-p99-µs")
	}
}

// benchProgram is dap/testdata/prog.py, and its bench-mode breakpoint line.
func benchProgram(b *testing.B) (string, int) {
	prog, err := filepath.Abs("../../dap/testdata/prog.py")
	if err != nil {
		b.Fatal(err)
	}
	return prog, progLine(b, prog, "bench")
}

// BenchmarkGateShare times debugpy_stack_trace right after a stop (and,
// apart, the continue that makes the stop), a call that reaches debugpy,
// through three servers that take turns, one call each in an order
// shuffled at each round (benchstat.Rounds): the default policy (rate
// limit raised) with its audit log on disk, no module (`default =
// "allow"`) with the log on disk, and no module with the log on tmpfs
// (/dev/shm), where an fsync costs nothing. The first minus the third is
// the gate's share (modules and audit); the second minus the third is the
// decision record's fsync (docs/PERFORMANCE.md).
func BenchmarkGateShare(b *testing.B) {
	prog, line := benchProgram(b)
	shm, err := os.MkdirTemp("/dev/shm", "debugpy-guard-bench-")
	if err != nil {
		b.Skipf("no tmpfs at /dev/shm: %v", err)
	}
	defer os.RemoveAll(shm)
	ctx := context.Background()
	type server struct {
		name string
		call func(tool string, args map[string]any)
		lat  []time.Duration
		cont []time.Duration // the continue to the stop
	}
	var servers []*server
	configs := []struct {
		name, state, bin string
		defaultPolicy    bool
	}{
		{"default-policy", "", binary, true},
		{"no-module", "", binary, false},
		{"no-module-tmpfs", shm, binary, false},
	}
	if peer := os.Getenv("DEBUGPY_GUARD_PEER"); peer != "" { // as in BenchmarkDeniedVsIntercept
		configs = append(configs, struct {
			name, state, bin string
			defaultPolicy    bool
		}{"peer-default-policy", "", peer, true})
	}
	for _, s := range configs {
		dir := b.TempDir()
		os.Mkdir(filepath.Join(dir, "run"), 0o700)
		env := testEnv(dir)
		if s.state != "" {
			env = append(env, "XDG_STATE_HOME="+s.state)
		}
		cfg := filepath.Join(dir, "allow.toml")
		os.WriteFile(cfg, []byte("default = \"allow\"\n"), 0o600)
		if s.defaultPolicy {
			cfg = benchConfig(b, dir)
		}
		c, _, err := startClient(ctx, clientSpec{Bin: s.bin, Env: env, Prompter: &prompter{answer: mcp.ElicitationResponseActionAccept},
			Args: []string{"--config", cfg}})
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		name := s.name
		call := func(tool string, args map[string]any) {
			req := mcp.CallToolRequest{}
			req.Params.Name, req.Params.Arguments = tool, args
			if res, err := c.CallTool(ctx, req); err != nil || res.IsError {
				b.Fatalf("%s: %s: %v %+v", name, tool, err, res)
			}
		}
		call("debugpy_launch", map[string]any{"program": prog, "args": []string{"bench"}})
		call("debugpy_set_breakpoint", map[string]any{"file": prog, "line": line})
		call("debugpy_continue", nil)
		servers = append(servers, &server{name: name, call: call})
	}
	b.ResetTimer()
	for _, order := range benchstat.Rounds(b.N, len(servers)) {
		for _, i := range order {
			s := servers[i]
			t0 := time.Now()
			s.call("debugpy_continue", nil) // to the next stop
			t1 := time.Now()
			s.call("debugpy_stack_trace", nil)
			s.cont, s.lat = append(s.cont, t1.Sub(t0)), append(s.lat, time.Since(t1))
		}
	}
	b.StopTimer()
	for _, s := range servers {
		p50, p99 := benchstat.Percentiles(s.lat)
		b.ReportMetric(float64(p50.Nanoseconds())/1e3, s.name+"-p50-µs")
		b.ReportMetric(float64(p99.Nanoseconds())/1e3, s.name+"-p99-µs")
		p50, _ = benchstat.Percentiles(s.cont)
		b.ReportMetric(float64(p50.Nanoseconds())/1e3, s.name+"-continue-p50-µs")
	}
}

// BenchmarkFirstEvaluateInABigModule times the first evaluate after a stop
// in a module of N globals (ints), or of N objects, each with attributes
// of its own, the one that pays the stop's listing (every variable of the
// frame, and what their values hide opened, tools/stops.go), in this build
// and, side by side in one run, in DEBUGPY_GUARD_PEER when set (an earlier
// build). The continue that makes each stop is not timed. One case stops
// N calls deep, for the callers' listing.
func BenchmarkFirstEvaluateInABigModule(b *testing.B) {
	servers := []string{"guard"}
	peer := os.Getenv("DEBUGPY_GUARD_PEER")
	if peer != "" {
		servers = append(servers, "peer")
	}
	// A stop N calls deep, each caller with locals of its own (an object
	// among them): the listing reads the callers' too.
	const stack = "class Cfg:\n    def __init__(self, d):\n        self.name, self.depth = 'svc', d\n" +
		"def f(d, cfg, seen):\n    name, data = 'level%%d' %% d, {'depth': d, 'tags': ['a', 'b']}\n    if d:\n        return f(d - 1, Cfg(d), seen + [d])\n" +
		"    while True:\n        n = 1  # BREAK\nf(%d, Cfg(0), [])\n"
	const objects = "class Cfg:\n    def __init__(self, i):\n        self.name, self.port, self.password = 'svc%%d' %% i, 8000 + i, 'pw-%%05d' %% i\n" +
		"globals().update(('o%%05d' %% i, Cfg(i)) for i in range(%d))\n"
	for _, c := range []struct {
		name string
		src  string
	}{
		{"globals=400", "globals().update(('g%%05d' %% i, i) for i in range(%d))\n"},
		{"globals=600", "globals().update(('g%%05d' %% i, i) for i in range(%d))\n"},
		{"globals=5000", "globals().update(('g%%05d' %% i, i) for i in range(%d))\n"},
		{"objects=80", objects},
		{"objects=400", objects},
		// N chains of six objects, each holding the next.
		{"chains=80", "class O:\n    pass\ndef chain(i):\n    root = o = O()\n    for d in range(5):\n        o.next, o.name = O(), 'n%%d' %% d\n        o = o.next\n    o.password = 'pw-%%05d' %% i\n    return root\n" +
			"globals().update(('c%%05d' %% i, chain(i)) for i in range(%d))\n"},
		{"items=20", "for i in range(%d):\n    globals()['api_keys%%02d' %% i] = ['k-%%05d-%%02d' %% (i, j) for j in range(20)]\n" +
			"    globals()['secret_b%%02d' %% i] = bytearray(b'b%%019d' %% i)\n"},
		{"stack=5", stack},
		{"stack=30", stack},
		// A DataFrame of N rows: its listing opens pandas' internals.
		{"pandas=50", "import pandas as pd\ndf = pd.DataFrame({'user': ['u%%d' %% i for i in range(%d)]})\ndf['password'] = 'pw-' + df['user']\n"},
	} {
		var n int
		fmt.Sscanf(c.name[strings.IndexByte(c.name, '=')+1:], "%d", &n)
		for _, server := range servers {
			b.Run(c.name+"/"+server, func(b *testing.B) {
				dir := b.TempDir()
				cfg, err := os.ReadFile(benchConfig(b, dir))
				if err != nil {
					b.Fatal(err)
				}
				o := rawOpts{config: string(cfg)}
				if server == "peer" {
					o.bin = peer
				}
				r := startRaw(b, o)
				r.stopAtBreak(fmt.Sprintf(c.src, n) + "while True:\n    n = 1  # BREAK\n")
				lat := make([]time.Duration, 0, b.N)
				for i := 0; i < b.N; i++ {
					if text := r.ok("debugpy_continue", `{}`); !strings.Contains(text, "stopped (breakpoint)") {
						b.Fatalf("continue: %s", text)
					}
					t0 := time.Now()
					r.ok("debugpy_evaluate", `{"expression":"n"}`)
					lat = append(lat, time.Since(t0))
				}
				benchstat.Report(b, lat)
			})
		}
	}
}

// BenchmarkDeniedInProcess is a denied call through serve in this process,
// over pipes: what the host's own path costs, with allocations, and a CPU
// profile of the server with -cpuprofile (the round trips over real
// stdio are BenchmarkDeniedVsIntercept's): with no module (the config's
// default denies), and with the expressions policy alone, as there.
func BenchmarkDeniedInProcess(b *testing.B) {
	b.Run("no-module", func(b *testing.B) { benchDeniedInProcess(b, "default = \"deny\"\n") })
	b.Run("one-module", func(b *testing.B) {
		benchDeniedInProcess(b, "default = \"allow\"\n[modules.expressions]\nsource = \"builtin:expressions\"\n[[rules]]\ntools = [\"debugpy_evaluate\"]\ncall = [\"expressions\"]\n")
	})
}

func benchDeniedInProcess(b *testing.B, cfg string) {
	dir := b.TempDir()
	os.Mkdir(filepath.Join(dir, "run"), 0o700)
	for _, kv := range testEnv(dir) {
		k, v, _ := strings.Cut(kv, "=")
		b.Setenv(k, v)
	}
	config := filepath.Join(dir, "deny.toml")
	os.WriteFile(config, []byte(cfg+"[approval]\nchannels = []\n"), 0o600)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int)
	var stderr strings.Builder
	go func() {
		code := serve([]string{"--config", config}, inR, outW, &stderr, slog.New(slog.DiscardHandler))
		inR.Close() // a server that ended reads and writes no more: the bench fails, not waits
		outW.Close()
		done <- code
	}()
	out := bufio.NewReader(outR)
	roundTrip := func(line string) string {
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			b.Fatalf("serve: %v (exit %d: %s)", err, <-done, stderr.String())
		}
		s, err := out.ReadString('\n')
		if err != nil {
			b.Fatalf("serve: %v (exit %d: %s)", err, <-done, stderr.String())
		}
		return s
	}
	roundTrip(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"debugpy_evaluate","arguments":{"expression":"__import__('os')"}}}`
	if s := roundTrip(call); !strings.Contains(s, "denied by policy") {
		b.Fatalf("not denied: %s", s)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		roundTrip(call)
	}
	b.StopTimer()
	inW.Close()
	if code := <-done; code != 0 {
		b.Fatalf("serve: exit %d", code)
	}
}
