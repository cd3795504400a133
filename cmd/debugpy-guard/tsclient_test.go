package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/debugpy-guard/debugpy-guard/tools"
)

// progLine is the line of dap/testdata/prog.py marked `# LINE: name`.
func progLine(t testing.TB, prog, name string) int {
	t.Helper()
	b, err := os.ReadFile(prog)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if strings.HasSuffix(l, "# LINE: "+name) {
			return i + 1
		}
	}
	t.Fatalf("%s has no line marked # LINE: %s", prog, name)
	return 0
}

// The reference TypeScript MCP client (@modelcontextprotocol/sdk) drives a
// debug session through the binary: three programs (stopped at a
// breakpoint and stepped, stopped at a raised exception, paused while
// busy) and every tool but the two that attach to a program already
// running. That client checks each structured result against its tool's
// output schema (ajv) and throws when one does not match, so this is the
// schemas' test by the validator clients use; tools/outschema_test.go
// checks the same in the tools' own tests.
func TestReferenceTypeScriptClient(t *testing.T) {
	skipInShort(t, "starts node and the server")
	client, err := filepath.Abs("../../tools/testdata/tslist")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(client, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Fatalf("the reference TypeScript client is not installed (make deps runs npm ci in tools/testdata/tslist): %v", err)
	}
	prog, err := filepath.Abs("../../dap/testdata/prog.py")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "run"), 0o700)
	config := filepath.Join(dir, "allow.toml")
	os.WriteFile(config, []byte("default = \"allow\"\n"), 0o600)
	env := map[string]string{}
	for _, kv := range testEnv(dir) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	type call struct {
		Tool string         `json:"tool"`
		Args map[string]any `json:"args,omitempty"`
	}
	a := func(session string, kv ...any) map[string]any {
		m := map[string]any{"session": session}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	calls := []call{
		{"debugpy_sessions", nil},
		{"debugpy_launch", a("a", "program", prog, "args", []string{"basic"})},
		{"debugpy_set_breakpoint", a("a", "file", prog, "line", progLine(t, prog, "add"))},
		{"debugpy_list_breakpoints", a("a")},
		{"debugpy_continue", a("a")},
		{"debugpy_threads", a("a")},
		{"debugpy_stack_trace", a("a")},
		{"debugpy_variables", a("a", "scope", "locals")},
		{"debugpy_evaluate", a("a", "expression", "a + b")},
		{"debugpy_set_variable", a("a", "name", "b", "value", "5")},
		{"debugpy_source", a("a")},
		{"debugpy_session_status", a("a")},
		{"debugpy_step_over", a("a")},
		{"debugpy_step_out", a("a")},
		{"debugpy_step_in", a("a")},
		{"debugpy_continue", a("a", "wait_s", 0)},
		{"debugpy_wait_for_stop", a("a", "timeout_s", 30)},
		{"debugpy_remove_breakpoint", a("a", "file", prog, "line", progLine(t, prog, "add"))},
		{"debugpy_continue", a("a")},
		{"debugpy_output", a("a")},
		{"debugpy_session_stop", a("a")},
		{"debugpy_launch", a("b", "program", prog, "args", []string{"caught"})},
		{"debugpy_set_exception_breakpoints", a("b", "filters", []string{"raised"})},
		{"debugpy_continue", a("b")},
		{"debugpy_exception_info", a("b")},
		{"debugpy_session_stop", a("b")},
		{"debugpy_launch", a("c", "program", prog, "args", []string{"busy"})},
		{"debugpy_continue", a("c", "wait_s", 0)},
		{"debugpy_pause", a("c")},
		{"debugpy_session_stop", a("c", "terminate", true)},
	}
	plan, _ := json.Marshal(map[string]any{"env": env, "calls": calls})
	cmd := exec.Command("node", filepath.Join(client, "session.mjs"), binary, "serve", "--config", config)
	cmd.Dir = client
	cmd.Stdin = bytes.NewReader(plan)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node session.mjs: %v\n%s\n%s", err, out, stderr.Bytes())
	}
	ran := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	i := -1
	for sc.Scan() {
		var r struct {
			Listed  int    `json:"listed"`
			Tool    string `json:"tool"`
			IsError bool   `json:"isError"`
			Text    string `json:"text"`
			Thrown  string `json:"thrown"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("session.mjs wrote %q: %v", sc.Bytes(), err)
		}
		if i < 0 {
			if r.Listed != 24 {
				t.Fatalf("the client listed %d tools, want 24", r.Listed)
			}
			i++
			continue
		}
		if i >= len(calls) || r.Tool != calls[i].Tool {
			t.Fatalf("answer %d is for %q: %s", i, r.Tool, sc.Bytes())
		}
		switch {
		case r.Thrown != "":
			t.Errorf("%s %v: the client threw: %s", r.Tool, calls[i].Args, r.Thrown)
		case r.IsError:
			t.Errorf("%s %v: error result: %s", r.Tool, calls[i].Args, r.Text)
		default:
			ran[r.Tool] = true
		}
		i++
	}
	if i != len(calls) {
		t.Fatalf("%d of %d calls answered\n%s", i, len(calls), stderr.Bytes())
	}
	for _, name := range tools.Names() {
		if !ran[name] && name != "debugpy_session_start" && name != "debugpy_attach_pid" {
			t.Errorf("%s never succeeded through the client", name)
		}
	}
}
