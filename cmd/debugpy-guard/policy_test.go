package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// run runs the binary in dir with env added, and returns its output and
// exit code.
func runIn(t *testing.T, dir string, env []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return string(out), code
}

func edit(t *testing.T, file, old, new string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s lacks %q", file, old)
	}
	os.WriteFile(file, []byte(strings.Replace(string(b), old, new, 1)), 0o644)
}

var sha = regexp.MustCompile(`sha256 ([0-9a-f]{64})`)

// A team that has never seen the project: a new policy, a changed rule,
// built and pinned, tested, then served, with no network (GOPROXY=off and
// an empty module cache: nothing can be downloaded).
func TestPolicyKitAsANewTeam(t *testing.T) {
	skipInShort(t, "builds a module with the Go toolchain and starts the server")
	dir := t.TempDir()
	offline := []string{"GOPROXY=off", "GOFLAGS=", "GOTOOLCHAIN=local", "GOMODCACHE=" + filepath.Join(dir, "empty-modcache")}
	if out, code := runIn(t, dir, offline, "policy", "new", "team"); code != 0 || !strings.Contains(out, "policy build") {
		t.Fatalf("policy new: %d\n%s", code, out)
	}
	team := filepath.Join(dir, "team")
	// The team's rule: never change a running program.
	edit(t, filepath.Join(team, "policy.go"), `return sdk.Approve("changing a variable of the running program needs a person")`,
		`return sdk.Deny("this team never changes a running program")`)
	edit(t, filepath.Join(team, "policy_test.go"), `"settings":{}}`+"`"+`, "approve"}`, `"settings":{}}`+"`"+`, "deny"}`)
	edit(t, filepath.Join(team, "cases", "team.toml"), `want = "approve"`, "want = \"deny\"\nreason = \"never changes a running program\"")

	gotest := exec.Command("go", "test", "./...")
	gotest.Dir, gotest.Env = team, append(os.Environ(), offline...)
	if out, err := gotest.CombinedOutput(); err != nil {
		t.Fatalf("go test in the new project: %v\n%s", err, out)
	}
	out, code := runIn(t, dir, offline, "policy", "build", "team")
	if code != 0 || !strings.Contains(out, "loads under ABI v1") || !strings.Contains(out, "[modules.team]") {
		t.Fatalf("policy build: %d\n%s", code, out)
	}
	sum := sha.FindStringSubmatch(out)[1]
	again, _ := runIn(t, dir, offline, "policy", "build", "team")
	if sha.FindStringSubmatch(again)[1] != sum {
		t.Fatalf("the build is not reproducible: %s then %s", sum, sha.FindStringSubmatch(again)[1])
	}
	if out, code := runIn(t, team, nil, "policy", "test", "-v", "cases"); code != 0 || !strings.Contains(out, "ok: 3 cases passed") {
		t.Fatalf("policy test: %d\n%s", code, out)
	}

	// Deployed: pinned and enforced, beside the built-in redactor.
	cfg := `default = "allow"
[modules.team]
source = "team/team.wasm"
sha256 = "` + sum + `"
[modules.redact]
source = "builtin:redact"
[[rules]]
tools = ["debugpy_*"]
call = ["team"]
result = ["redact"]
`
	os.WriteFile(filepath.Join(dir, "guard.toml"), []byte(cfg), 0o600)
	if out, code := runIn(t, dir, nil, "check", "--config", "guard.toml"); code != 0 || !strings.Contains(out, "team") {
		t.Fatalf("check: %d\n%s", code, out)
	}
	bad := filepath.Join(dir, "badpin.toml")
	os.WriteFile(bad, []byte(strings.Replace(cfg, sum, strings.Repeat("0", 64), 1)), 0o600)
	if out, code := runIn(t, dir, nil, "check", "--config", bad); code == 0 || !strings.Contains(out, "the config pins 0000") {
		t.Fatalf("a wrong pin: %d\n%s", code, out)
	}
	p := &proc{t: t, dir: dir, stderr: &lockedBuffer{}}
	os.Mkdir(filepath.Join(dir, "run"), 0o700)
	p.env = testEnv(dir)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, _, err := startClient(ctx, clientSpec{Bin: binary, Env: p.env, Stderr: p.stderr, Args: []string{"--config", filepath.Join(dir, "guard.toml")}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p.c = c
	p.denied("debugpy_set_variable", map[string]any{"name": "qty", "value": "4"}, "denied by policy (module team)", "never changes a running program")
	p.denied("debugpy_evaluate", map[string]any{"expression": "db.password"}, "module team", "mentions password")
	p.denied("debugpy_stack_trace", nil, "call debugpy_session_start or debugpy_launch") // allowed: reaches the handler
}

// The same in C, Rust and AssemblyScript: a new project, a changed rule,
// built with clang, rustc or asc (no network), tested with its case files,
// pinned and served.
func TestPolicyKitInOtherLanguages(t *testing.T) {
	skipInShort(t, "builds modules with clang, rustc, asc and opa, and starts the server")
	for _, c := range []struct{ lang, file, old, new, abi string }{
		{"rego", "policy.rego", `decision := {"decision": "approve", "reason": "changing a variable of the running program needs a person"} if {`,
			`decision := {"decision": "deny", "reason": "this team never changes a running program"} if {`, "opa"},
		{"c", "policy.c", `return guard_decide("approve", "changing a variable of the running program needs a person", "");`,
			`return guard_decide("deny", "this team never changes a running program", "");`, "v1"},
		{"rust", "policy.rs", `return decide("approve", "changing a variable of the running program needs a person", "");`,
			`return decide("deny", "this team never changes a running program", "");`, "v1"},
		{"assemblyscript", "policy.ts", `return decide("approve", "changing a variable of the running program needs a person", "");`,
			`return decide("deny", "this team never changes a running program", "");`, "v1"},
	} {
		t.Run(c.lang, func(t *testing.T) {
			dir := t.TempDir()
			if out, code := runIn(t, dir, nil, "policy", "new", "team", "--lang", c.lang); code != 0 || !strings.Contains(out, "policy build") {
				t.Fatalf("policy new --lang %s: %d\n%s", c.lang, code, out)
			}
			team := filepath.Join(dir, "team")
			edit(t, filepath.Join(team, c.file), c.old, c.new)
			edit(t, filepath.Join(team, "cases", "team.toml"), `want = "approve"`, "want = \"deny\"\nreason = \"never changes a running program\"")
			out, code := runIn(t, dir, nil, "policy", "build", "team")
			if code != 0 || !strings.Contains(out, "loads under ABI "+c.abi) {
				t.Fatalf("policy build (make deps installs the toolchain): %d\n%s", code, out)
			}
			sum := sha.FindStringSubmatch(out)[1]
			if out, code := runIn(t, team, nil, "policy", "test", "cases"); code != 0 || !strings.Contains(out, "ok: 3 cases passed") {
				t.Fatalf("policy test: %d\n%s", code, out)
			}
			cfg := filepath.Join(dir, "guard.toml")
			os.WriteFile(cfg, []byte(`default = "allow"
[modules.team]
source = "team/team.wasm"
sha256 = "`+sum+`"
abi = "`+c.abi+`"
[[rules]]
tools = ["debugpy_*"]
call = ["team"]
`), 0o600)
			p := &proc{t: t, dir: dir, stderr: &lockedBuffer{}}
			os.Mkdir(filepath.Join(dir, "run"), 0o700)
			p.env = testEnv(dir)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cl, _, err := startClient(ctx, clientSpec{Bin: binary, Env: p.env, Stderr: p.stderr, Args: []string{"--config", cfg}})
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			p.c = cl
			p.denied("debugpy_set_variable", map[string]any{"name": "qty", "value": "4"}, "denied by policy (module team)", "never changes a running program")
			p.denied("debugpy_evaluate", map[string]any{"expression": "db.Secret"}, "module team", "the expression mentions secret")
		})
	}
}

func TestPolicyTestExitCodes(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.toml")
	os.WriteFile(good, []byte(`[[case]]
name = "hostile expression"
tool = "debugpy_evaluate"
arguments = { expression = "__import__('os')" }
want = "deny"
`), 0o600)
	if out, code := runIn(t, dir, nil, "policy", "test", good); code != 0 {
		t.Fatalf("a passing case: %d\n%s", code, out)
	}
	wrong := filepath.Join(dir, "wrong.toml")
	os.WriteFile(wrong, []byte(strings.Replace(mustRead(t, good), `want = "deny"`, `want = "allow"`, 1)), 0o600)
	out, code := runIn(t, dir, nil, "policy", "test", wrong)
	if code != 2 || !strings.Contains(out, "FAIL") || !strings.Contains(out, "decision deny, want allow") || !strings.Contains(out, "expressions  enforce  deny") {
		t.Fatalf("a failing case: want exit 2 with the trace, got %d\n%s", code, out)
	}
	broken := filepath.Join(dir, "broken.toml")
	os.WriteFile(broken, []byte("[[case]]\nname = \"x\"\ntool = \"debugpy_evaluate\"\nwnat = \"deny\"\n"), 0o600)
	if out, code := runIn(t, dir, nil, "policy", "test", broken); code != 1 || !strings.Contains(out, "wnat") {
		t.Fatalf("a broken case file: want exit 1 naming the key, got %d\n%s", code, out)
	}
}

func mustRead(t *testing.T, f string) string {
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestPolicyEvalAndBench(t *testing.T) {
	out, code := runIn(t, ".", nil, "policy", "eval", "--tool", "debugpy_evaluate", "--args", `{"expression":"user.name"}`)
	if code != 0 || !strings.HasPrefix(out, "allow debugpy_evaluate") || !strings.Contains(out, "expressions  enforce  allow") {
		t.Fatalf("eval: %d\n%s", code, out)
	}
	out, code = runIn(t, ".", nil, "policy", "eval", "--tool", "debugpy_variables", "--phase", "result")
	if code != 0 || !strings.Contains(out, "rewritten result") || strings.Contains(out, "hunter2") {
		t.Fatalf("eval of a result: %d\n%s", code, out)
	}
	if out, code := runIn(t, ".", nil, "policy", "eval", "--tool", "gdb_run"); code != 1 || !strings.Contains(out, "not a tool") {
		t.Fatalf("eval of an unknown tool: %d\n%s", code, out)
	}
	out, code = runIn(t, ".", nil, "policy", "bench", "--n", "20")
	if code != 0 || !strings.Contains(out, "module expressions") || !strings.Contains(out, "chain call: ratelimit, category, targets, expressions") {
		t.Fatalf("bench: %d\n%s", code, out)
	}
}

// The second language: a policy written in WAT against plugins/ABI.md
// alone, assembled with wabt, tested with its case files, then served.
func TestWATPolicy(t *testing.T) {
	dir := t.TempDir()
	wasm := filepath.Join(dir, "policy.wasm")
	if out, err := exec.Command("wat2wasm", "../../plugins/examples/wat/policy.wat", "-o", wasm).CombinedOutput(); err != nil {
		t.Fatalf("wat2wasm (make deps installs wabt): %v\n%s", err, out)
	}
	if out, code := runIn(t, ".", nil, "policy", "test", "--module", wasm, "../../plugins/examples/wat/cases.toml"); code != 0 {
		t.Fatalf("policy test: %d\n%s", code, out)
	}
	p := startServe(t, serveOpts{config: `default = "allow"
[modules.wat]
source = "` + wasm + `"
[[rules]]
tools = ["debugpy_*"]
call = ["wat"]
`})
	p.denied("debugpy_attach_pid", map[string]any{"pid": os.Getpid()}, "denied by policy (module wat)", "attach by PID is off")
	p.denied("debugpy_launch", map[string]any{"program": "x.py"}, "needs a person's approval (module wat)")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if l, err := p.c.ListTools(ctx, mcp.ListToolsRequest{}); err != nil || len(l.Tools) != 24 {
		t.Fatalf("tools/list: %v", err)
	}
}

// The kit's rough edges, through the binary: a case file's absolute config
// path, a misspelled argument failing its case (and malformed = true for a
// refusal meant), a directory holding its config beside its cases, bench
// on one tool, and check's warnings.
func TestPolicyKitEdges(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "guard.toml")
	os.WriteFile(cfg, []byte(`default = "allow"
[modules.expressions]
source = "builtin:expressions"
[[rules]]
tools = ["debugpy_evaluate"]
call = ["expressions"]
`), 0o600)
	cases := filepath.Join(dir, "cases.toml")
	os.WriteFile(cases, []byte(`config = "`+cfg+`"
[[case]]
name = "an import"
tool = "debugpy_evaluate"
arguments = { expression = "__import__('os')" }
want = "deny"
`), 0o600)
	if out, code := runIn(t, dir, nil, "policy", "test", "-v", "."); code != 0 || !strings.Contains(out, "skipped guard.toml: a config") || !strings.Contains(out, "ok: 1 cases passed") {
		t.Fatalf("a directory with its config, an absolute config path: %d\n%s", code, out)
	}
	typo := filepath.Join(t.TempDir(), "typo.toml")
	os.WriteFile(typo, []byte(strings.Replace(mustRead(t, cases), "expression =", "expresion =", 1)), 0o600)
	if out, code := runIn(t, dir, nil, "policy", "test", typo); code != 2 || !strings.Contains(out, `unknown argument "expresion"`) || !strings.Contains(out, "add malformed = true") {
		t.Fatalf("a misspelled argument: want exit 2 naming it, got %d\n%s", code, out)
	}
	os.WriteFile(typo, []byte(strings.Replace(mustRead(t, typo), `want = "deny"`, "want = \"deny\"\nmalformed = true", 1)), 0o600)
	if out, code := runIn(t, dir, nil, "policy", "test", typo); code != 0 {
		t.Fatalf("malformed = true: %d\n%s", code, out)
	}
	if out, code := runIn(t, dir, nil, "policy", "bench", "--config", cfg, "--tool", "debugpy_evaluate", "--args", `{"expression":"a.b"}`, "--n", "20"); code != 0 ||
		!strings.Contains(out, "module expressions (debugpy_evaluate, call)") {
		t.Fatalf("bench --tool: %d\n%s", code, out)
	}
	opaSrc, err := filepath.Abs("../../plugins/testdata/opa/one.tar.gz")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(cfg, []byte(mustRead(t, cfg)+"[modules.team]\nsource = \""+opaSrc+"\"\nabi = \"opa\"\nmode = \"monitor\"\n"), 0o600)
	out, code := runIn(t, dir, nil, "check", "--config", cfg)
	if code != 0 || !strings.Contains(out, "warning: modules.team has no sha256 pin") || !strings.Contains(out, `warning: modules.team is in monitor mode, and [audit] arguments = "hash"`) {
		t.Fatalf("check's warnings: %d\n%s", code, out)
	}
}

// A rule's reason is what the agent reads when the rule's default denies,
// and tools --json gives each tool's record, derived from the catalogue
// and the default policy.
func TestRuleReasonAndToolRecords(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "guard.toml")
	os.WriteFile(cfg, []byte(`default = "allow"
[[rules]]
tools = ["debugpy_attach_pid"]
default = "deny"
reason = "attach by PID is off on this machine: start the program with python -m debugpy --listen"
`), 0o600)
	out, code := runIn(t, dir, nil, "policy", "eval", "--config", cfg, "--tool", "debugpy_attach_pid")
	if code != 0 || !strings.HasPrefix(out, "deny debugpy_attach_pid") || !strings.Contains(out, "because attach by PID is off on this machine") {
		t.Fatalf("the rule's reason: %d\n%s", code, out)
	}
	if out, _ := runIn(t, dir, nil, "policy", "eval", "--config", cfg, "--tool", "debugpy_threads"); !strings.HasPrefix(out, "allow debugpy_threads") || strings.Contains(out, "PID is off") {
		t.Fatalf("another tool: %s", out)
	}
	cmd := exec.Command(binary, "tools", "--json")
	raw, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var recs []struct {
		Name, Category, Risk string
		InputSchema          map[string]any `json:"input_schema"`
		Default              struct {
			Call                  []string
			Decision, Recommended string
		} `json:"default_policy"`
	}
	if err := json.Unmarshal(raw, &recs); err != nil {
		t.Fatal(err)
	}
	byName := map[string]int{}
	for i, r := range recs {
		byName[r.Name] = i
		if r.Risk == "" || r.InputSchema["type"] != "object" || len(r.Default.Call) == 0 || r.Default.Decision == "" || r.Default.Recommended == "" {
			t.Errorf("%s: an incomplete record: %+v", r.Name, r)
		}
	}
	for name, want := range map[string][3]string{
		"debugpy_stack_trace": {"read", "low", "allow"},
		"debugpy_launch":      {"execute", "high", "approve"},
		"debugpy_attach_pid":  {"execute", "high", "deny"},
	} {
		i, ok := byName[name]
		if !ok {
			t.Errorf("no record for %s", name)
			continue
		}
		if r := recs[i]; r.Category != want[0] || r.Risk != want[1] || r.Default.Decision != want[2] {
			t.Errorf("%s: %s %s %s, want %v", name, r.Category, r.Risk, r.Default.Decision, want)
		}
	}
	if len(recs) != 24 {
		t.Errorf("%d records", len(recs))
	}
}
