package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/debugpy-guard/debugpy-guard/internal/scratch"
	"github.com/debugpy-guard/debugpy-guard/plugins"
)

var testTools = []string{"debugpy_evaluate", "debugpy_variables", "debugpy_launch", "debugpy_stack_trace"}

// scratchDir holds what the package's tests build once (the probe, the
// compilation cache); TestMain removes it, so that runs leave nothing in
// the temporary directory.
var scratchDir string

func TestMain(m *testing.M) { scratch.Main(m, "engine-test-", &scratchDir) }

var (
	probeOnce sync.Once
	probePath string
	probeErr  error
	rtOnce    sync.Once
	rt        *plugins.Runtime
)

// probe builds plugins/testdata/probe (a Go policy on the SDK) once.
func probe(t testing.TB) string {
	t.Helper()
	probeOnce.Do(func() {
		probePath = filepath.Join(scratchDir, "probe.wasm")
		cmd := exec.Command("go", "build", "-buildmode=c-shared", "-trimpath", "-o", probePath, "../plugins/testdata/probe")
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
		if b, err := cmd.CombinedOutput(); err != nil {
			probeErr = fmt.Errorf("build probe: %v\n%s", err, b)
		}
	})
	if probeErr != nil {
		t.Fatal(probeErr)
	}
	return probePath
}

func runtime(t testing.TB) *plugins.Runtime {
	rtOnce.Do(func() {
		rt = plugins.NewRuntime(plugins.Options{CacheDir: filepath.Join(scratchDir, "cache"), Log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))})
	})
	return rt
}

// engineFor writes a config whose modules are probes with fixed verdicts.
func engineFor(t *testing.T, toml string) *Engine {
	t.Helper()
	toml = strings.ReplaceAll(toml, "PROBE", probe(t))
	file := filepath.Join(t.TempDir(), "guard.toml")
	os.WriteFile(file, []byte(toml), 0o600)
	cfg, err := LoadConfig(file, testTools)
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(context.Background(), cfg, Options{Runtime: runtime(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close(context.Background()) })
	if err := e.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	return e
}

const combining = `
default = "deny"
[sandbox]
timeout = "5s" # these tests are not about timeouts; -race under load is slow
[modules.yes]
source = "PROBE"
settings = { verdict = "allow", reason = "fine" }
[modules.no]
source = "PROBE"
settings = { verdict = "deny", reason = "not that" }
[modules.ask]
source = "PROBE"
settings = { verdict = "approve", reason = "a person decides" }
[modules.pass]
source = "PROBE"
settings = { verdict = "abstain" }
[modules.watch]
source = "PROBE"
mode = "monitor"
settings = { verdict = "deny", reason = "would deny" }
[modules.mask]
source = "PROBE"
settings = { verdict = "rewrite", field = "secret" }
[modules.broken]
source = "PROBE"
settings = { verdict = "maybe" }

[[rules]]
tools = ["debugpy_evaluate"]
call = ["yes", "ask", "pass"]
result = ["ask"]
[[rules]]
tools = ["debugpy_var*"]
call = ["yes", "watch", "pass"]
result = ["mask", "yes"]
[[rules]]
tools = ["debugpy_launch"]
call = ["pass", "broken", "yes"]
[[rules]]
tools = ["debugpy_stack_trace"]
call = ["pass"]
default = "allow"
`

func TestCombining(t *testing.T) {
	e := engineFor(t, combining)
	ctx := context.Background()
	cases := []struct {
		tool, phase string
		want        Verdict
		reason      string
		modules     []string
	}{
		{"debugpy_evaluate", PhaseCall, Approve, "ask: a person decides", []string{"ask"}},
		{"debugpy_evaluate", PhaseResult, Deny, "approve in phase result counts as deny", []string{"ask"}},
		{"debugpy_variables", PhaseCall, Allow, "yes: fine", []string{"yes"}}, // the monitor deny does not count
		{"debugpy_launch", PhaseCall, Deny, `module broken: unknown decision "maybe"`, []string{"broken"}},
		{"debugpy_stack_trace", PhaseCall, Allow, "no module decided: default allow", nil},
	}
	for _, c := range cases {
		d := e.Decide(ctx, Call{Phase: c.phase, Tool: c.tool, Category: "read", Arguments: json.RawMessage(`{"x":1}`), MCPSession: "s"})
		if d.Verdict != c.want || !strings.Contains(strings.Join(d.Reasons, "; "), c.reason) || fmt.Sprint(d.Modules) != fmt.Sprint(c.modules) {
			t.Errorf("%s/%s: got %s %v %v, want %s %q %v\ntrace %+v", c.tool, c.phase, d.Verdict, d.Reasons, d.Modules, c.want, c.reason, c.modules, d.Trace)
		}
	}
	d := e.Decide(ctx, Call{Phase: PhaseCall, Tool: "debugpy_variables", MCPSession: "s"})
	if len(d.Trace) != 3 || d.Trace[1].Module != "watch" || d.Trace[1].Mode != "monitor" || d.Trace[1].Verdict != Deny {
		t.Errorf("trace does not show the monitor module: %+v", d.Trace)
	}
	// No rule for the tool: the top-level default.
	d = e.Decide(ctx, Call{Phase: PhaseCall, Tool: "debugpy_unlisted"})
	if d.Verdict != Deny || !d.Default {
		t.Errorf("unmatched tool: %+v", d)
	}
	// Result rewrite.
	d = e.Decide(ctx, Call{Phase: PhaseResult, Tool: "debugpy_variables", Result: json.RawMessage(`{"secret":"hunter2","ok":1}`)})
	if d.Verdict != Allow || string(d.Result) != `{"secret":"***","ok":1}` || !d.Trace[0].Rewrote {
		t.Errorf("rewrite: %+v %s", d, d.Result)
	}
}

// Arguments or a result that are not JSON are denied, whether or not a
// module would read the request they go into, whatever the default.
func TestNotJSONIsDenied(t *testing.T) {
	ctx := context.Background()
	for _, toml := range []string{`default = "allow"`, combining} {
		e := engineFor(t, toml)
		for _, c := range []Call{
			{Phase: PhaseCall, Tool: "debugpy_stack_trace", Arguments: json.RawMessage(`{"x":`)},
			{Phase: PhaseCall, Tool: "debugpy_threads", Arguments: json.RawMessage(`{} {}`)},
			{Phase: PhaseResult, Tool: "debugpy_evaluate", Arguments: json.RawMessage(`{}`), Result: json.RawMessage(`{"r":1`)},
		} {
			d := e.Decide(ctx, c)
			if d.Verdict != Deny || !strings.Contains(strings.Join(d.Reasons, "; "), "not JSON") {
				t.Errorf("%.20q, %s %s %s: %s %v", toml, c.Tool, c.Arguments, c.Result, d.Verdict, d.Reasons)
			}
		}
	}
}

func TestConcurrentDecisions(t *testing.T) {
	e := engineFor(t, combining)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 30; i++ {
				if d := e.Decide(context.Background(), Call{Phase: PhaseCall, Tool: "debugpy_evaluate"}); d.Verdict != Approve {
					t.Errorf("concurrent: %+v", d)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestConfigErrors(t *testing.T) {
	cases := []struct{ name, toml, want string }{
		{"unknown key", "default = \"deny\"\ndefualt_mode = 1\n", "guard.toml:2: defualt_mode: unknown key"},
		{"unknown module key", "[modules.a]\nsource = \"x.wasm\"\nsorce = \"y\"\n", "guard.toml:3: modules.a.sorce: unknown key"},
		{"bad default", "default = \"maybe\"\n", "guard.toml:1: default: \"maybe\" is not allow, deny or approve"},
		{"unknown tool", "hide = [\"debugpy_nope\"]\n", "hide: unknown tool \"debugpy_nope\""},
		{"glob matches nothing", "[[rules]]\ntools = [\"gdb_*\"]\n", "rules[1].tools: \"gdb_*\" matches no tool"},
		{"unknown module", "[[rules]]\ntools = [\"debugpy_*\"]\ncall = [\"ghost\"]\n", "unknown module \"ghost\""},
		{"bad duration", "[sandbox]\ntimeout = \"fast\"\n", "guard.toml:2: sandbox.timeout: \"fast\" is not a positive duration"},
		{"bad size", "[sandbox]\nmemory = \"lots\"\n", "guard.toml:2: sandbox.memory: \"lots\" is not a size"},
		{"negative fuel", "[sandbox]\nfuel = -1\n", "guard.toml:2: sandbox.fuel: -1 is negative"},
		{"fuel as text", "[sandbox]\nfuel = \"lots\"\n", "guard.toml:2: sandbox.fuel: incompatible types: TOML value has type string; destination has type integer"},
		{"module fuel", "[modules.a]\nsource = \"x.wasm\"\nfuel = -5\n", "guard.toml:3: modules.a.fuel: -5 is negative"},
		{"bad mode", "[modules.a]\nsource = \"x.wasm\"\nmode = \"loud\"\n", "guard.toml:3: modules.a.mode"},
		{"syntax", "default = \n", "guard.toml:1"},
		{"bad pin", "[modules.a]\nsource = \"x.wasm\"\nsha256 = \"abc\"\n", "modules.a.sha256: not 64 hex digits"},
		{"reserved setting", "[modules.a]\nsource = \"builtin:category\"\nsettings = { policy = \"targets\" }\n", "modules.a.settings.policy: reserved"},
		{"unknown abi", "[modules.a]\nsource = \"x.wasm\"\nabi = \"OPA\"\n", "guard.toml:3: modules.a.abi: \"OPA\" is not v1 (plugins/ABI.md) or opa"},
		{"built-in as opa", "[modules.a]\nsource = \"builtin:category\"\nabi = \"opa\"\n", "guard.toml:3: modules.a.abi: the built-ins are ABI v1 modules"},
		{"reason without default", "[[rules]]\ntools = [\"debugpy_*\"]\nreason = \"no\"\n", "rules[1].reason: a rule's reason is what the agent reads when the rule's default decides: give the rule a default too"},
		{"entrypoint without opa", "[modules.a]\nsource = \"x.wasm\"\nentrypoint = \"guard/decision\"\n", "guard.toml:3: modules.a.entrypoint: an entrypoint is for an OPA module: add abi = \"opa\""},
	}
	for _, c := range cases {
		_, err := ParseConfig("guard.toml", []byte(c.toml), testTools)
		var ce *ConfigError
		if err == nil || !errors.As(err, &ce) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: want %q, got %v", c.name, c.want, err)
		}
	}
}

func TestLoadFailureNamesModule(t *testing.T) {
	file := filepath.Join(t.TempDir(), "guard.toml")
	os.WriteFile(file, []byte("[modules.good]\nsource = \""+probe(t)+"\"\n[modules.gone]\nsource = \"missing.wasm\"\n"), 0o600)
	cfg, err := LoadConfig(file, testTools)
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(context.Background(), cfg, Options{Runtime: runtime(t)})
	if err == nil || !strings.Contains(err.Error(), "modules.gone.source") {
		t.Fatalf("want an error naming modules.gone, got %v", err)
	}
}

// TestPolicyOthersCanChange: a config, or a module's file, that someone
// else could change decides every call for them; it is refused, naming the
// file (and module) and what to do. The same files, closed, load.
func TestPolicyOthersCanChange(t *testing.T) {
	wasm, err := os.ReadFile(probe(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	open := filepath.Join(dir, "open")
	os.Mkdir(open, 0o755)
	os.WriteFile(filepath.Join(open, "team.wasm"), wasm, 0o644)
	file := filepath.Join(dir, "guard.toml")
	os.WriteFile(file, []byte("[modules.team]\nsource = \"open/team.wasm\"\nsettings = { verdict = \"allow\" }\n[[rules]]\ntools = [\"debugpy_*\"]\ncall = [\"team\"]\n"), 0o644)
	cfg, err := LoadConfig(file, testTools)
	if err != nil {
		t.Fatalf("closed: %v", err)
	}
	e, err := New(context.Background(), cfg, Options{Runtime: runtime(t)})
	if err != nil {
		t.Fatalf("closed: %v", err)
	}
	e.Close(context.Background())

	os.Chmod(open, 0o777)
	_, err = New(context.Background(), cfg, Options{Runtime: runtime(t)})
	for _, want := range []string{"modules.team.source", open + " can be written by others", "chmod go-w"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("a module in a directory open to others: want %q in %v", want, err)
		}
	}
	os.Chmod(file, 0o646)
	_, err = LoadConfig(file, testTools)
	for _, want := range []string{"config: ", file + " can be written by others", "chmod go-w"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("a config open to others: want %q in %v", want, err)
		}
	}
}

func BenchmarkDecideOneModule(b *testing.B) {
	file := filepath.Join(b.TempDir(), "guard.toml")
	os.WriteFile(file, []byte("[modules.yes]\nsource = \""+probe(b)+"\"\nsettings = { verdict = \"allow\" }\n[[rules]]\ntools = [\"debugpy_*\"]\ncall = [\"yes\"]\n"), 0o600)
	cfg, err := LoadConfig(file, testTools)
	if err != nil {
		b.Fatal(err)
	}
	e, err := New(context.Background(), cfg, Options{Runtime: runtime(b)})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close(context.Background())
	if err := e.Wait(context.Background()); err != nil {
		b.Fatal(err)
	}
	call := Call{Phase: PhaseCall, Tool: "debugpy_evaluate", Category: "execute", Arguments: json.RawMessage(`{"expression":"user.name","frame_id":3}`), MCPSession: "s"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if d := e.Decide(context.Background(), call); d.Verdict != Allow {
			b.Fatal(d)
		}
	}
}

// A module that passes the quick checks but fails to load (here: settings
// its guard_validate rejects) is reported by Wait, and every decision whose
// chain holds it is denied, naming it; other chains still decide.
func TestLoadFailureInTheBackground(t *testing.T) {
	file := filepath.Join(t.TempDir(), "guard.toml")
	os.WriteFile(file, []byte(strings.ReplaceAll(`
default = "deny"
[modules.yes]
source = "PROBE"
settings = { verdict = "allow" }
[modules.picky]
source = "PROBE"
settings = { reject = true }
[[rules]]
tools = ["debugpy_evaluate"]
call = ["yes", "picky"]
[[rules]]
tools = ["debugpy_variables"]
call = ["yes"]
`, "PROBE", probe(t))), 0o600)
	cfg, err := LoadConfig(file, testTools)
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(context.Background(), cfg, Options{Runtime: runtime(t)})
	if err != nil {
		t.Fatalf("the quick checks should pass: %v", err)
	}
	defer e.Close(context.Background())
	err = e.Wait(context.Background())
	if err == nil || !strings.Contains(err.Error(), "guard.toml:8: modules.picky.settings: settings say reject") {
		t.Fatalf("Wait: %v", err)
	}
	d := e.Decide(context.Background(), Call{Phase: PhaseCall, Tool: "debugpy_evaluate", Arguments: json.RawMessage(`{}`)})
	if d.Verdict != Deny || !strings.Contains(strings.Join(d.Reasons, ";"), "module picky failed to load") {
		t.Fatalf("chain with the failed module: %+v", d)
	}
	if d := e.Decide(context.Background(), Call{Phase: PhaseCall, Tool: "debugpy_variables", Arguments: json.RawMessage(`{}`)}); d.Verdict != Allow {
		t.Fatalf("chain without it: %+v", d)
	}
}

// Replace swaps engines while decisions run on both: none is lost or denied
// for the swap, and the old engine is closed once they are done.
func TestLiveReplaceUnderLoad(t *testing.T) {
	verdict := func(v string) func(context.Context) (*Engine, error) {
		return func(ctx context.Context) (*Engine, error) {
			file := filepath.Join(t.TempDir(), "guard.toml")
			os.WriteFile(file, []byte(strings.ReplaceAll(`
[sandbox]
timeout = "10s"
[modules.m]
source = "PROBE"
settings = SETTINGS
[[rules]]
tools = ["debugpy_*"]
call = ["m"]
`, "PROBE", probe(t))), 0o600)
			settings := `{ verdict = "` + v + `" }`
			if v == "reject" {
				settings = `{ reject = true }`
			}
			data, _ := os.ReadFile(file)
			os.WriteFile(file, []byte(strings.ReplaceAll(string(data), "SETTINGS", settings)), 0o600)
			cfg, err := LoadConfig(file, testTools)
			if err != nil {
				return nil, err
			}
			return New(ctx, cfg, Options{Runtime: runtime(t)})
		}
	}
	first, err := verdict("allow")(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	live := NewLive(first)
	defer live.Close(context.Background())
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan string, 100)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				d := live.Decide(context.Background(), Call{Phase: PhaseCall, Tool: "debugpy_evaluate", Arguments: json.RawMessage(`{}`)})
				if d.Verdict != Allow && d.Verdict != Approve {
					select {
					case errs <- fmt.Sprintf("%s: %v", d.Verdict, d.Reasons):
					default:
					}
				}
			}
		}()
	}
	for i, v := range []Verdict{"approve", "allow", "approve"} {
		if err := live.Replace(context.Background(), verdict(string(v))); err != nil {
			t.Fatalf("replace %d: %v", i, err)
		}
		if d := live.Decide(context.Background(), Call{Phase: PhaseCall, Tool: "debugpy_evaluate", Arguments: json.RawMessage(`{}`)}); d.Verdict != v {
			t.Fatalf("after replace %d: %s, want %s", i, d.Verdict, v)
		}
	}
	// A config that fails keeps the one in force.
	if err := live.Replace(context.Background(), verdict("reject")); err == nil || !strings.Contains(err.Error(), "modules.m.settings: settings say reject") {
		t.Fatalf("a rejected config: %v", err)
	}
	close(stop)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if d := live.Decide(context.Background(), Call{Phase: PhaseCall, Tool: "debugpy_evaluate", Arguments: json.RawMessage(`{}`)}); d.Verdict != Approve {
		t.Fatalf("after a failed replace: %s", d.Verdict)
	}
	first.mu.RLock()
	closed := first.closed
	first.mu.RUnlock()
	if !closed {
		t.Error("the first engine is still open")
	}
}

// FuzzParseConfig: any bytes give a config or an error that names the file
// (a *ConfigError), never a panic.
func FuzzParseConfig(f *testing.F) {
	for _, seed := range []string{
		"", "default = \"deny\"\n", "[modules.a]\nsource = \"builtin:category\"\nsettings = { read = \"allow\" }\n[[rules]]\ntools = [\"debugpy_*\"]\ncall = [\"a\"]\n",
		"[sandbox]\ntimeout = \"1s\"\nmemory = \"1MiB\"\nfuel = 5\n", "[modules.o]\nsource = \"x.tar.gz\"\nabi = \"opa\"\nentrypoint = \"g/d\"\n",
		"[[rules]]\ntools = [\"[\"]\n", "default = \n", "[audit]\narguments = \"full\"\n[approval]\nchannels = [\"cli\"]\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		cfg, err := ParseConfig("fuzz.toml", b, testTools)
		if err == nil {
			if cfg == nil || cfg.Default == "" {
				t.Fatalf("no error and no config: %+v", cfg)
			}
			return
		}
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.File != "fuzz.toml" {
			t.Fatalf("an error that does not name the file: %T %v", err, err)
		}
	})
}
