package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/debugpy-guard/debugpy-guard/tools"
)

var binary string

// TestMain builds the real binary: these tests drive it over stdio with
// mcp-go's client, as an MCP client would.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "debugpy-guard-e2e-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "debugpy-guard")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func startServe(t *testing.T, args ...string) *client.Client {
	t.Helper()
	c, err := client.NewStdioMCPClient(binary, []string{"XDG_CACHE_HOME=" + filepath.Join(os.TempDir(), "debugpy-guard-e2e-cache"), "PATH=" + os.Getenv("PATH")}, append([]string{"serve"}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "e2e", Version: "0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	return c
}

func callTool(t *testing.T, c *client.Client, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = tool, args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

func textOf(res *mcp.CallToolResult) string { return tools.Text(res) }

func TestServeDefaultPolicy(t *testing.T) {
	c := startServe(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil || len(list.Tools) != 24 {
		t.Fatalf("tools/list: %v, %d tools", err, len(list.Tools))
	}
	res := callTool(t, c, "debugpy_session_start", map[string]any{"host": "10.1.2.3", "port": 5678})
	if !res.IsError || !strings.Contains(textOf(res), "denied by policy (module targets)") || !strings.Contains(textOf(res), "--config") {
		t.Fatalf("non-loopback attach: %s", textOf(res))
	}
	res = callTool(t, c, "debugpy_evaluate", map[string]any{"expression": "__import__('os').system('id')"})
	if !res.IsError || !strings.Contains(textOf(res), "module expressions") {
		t.Fatalf("hostile evaluate: %s", textOf(res))
	}
	res = callTool(t, c, "debugpy_launch", map[string]any{"program": "x.py"})
	if !res.IsError || !strings.Contains(textOf(res), "needs approval") {
		t.Fatalf("launch under the default policy: %s", textOf(res))
	}
	// Allowed, reaches the handler, which says what to do.
	res = callTool(t, c, "debugpy_stack_trace", nil)
	if !res.IsError || !strings.Contains(textOf(res), "call debugpy_session_start or debugpy_launch") {
		t.Fatalf("allowed read without a session: %s", textOf(res))
	}
}

func TestServeBadConfigStops(t *testing.T) {
	file := filepath.Join(t.TempDir(), "bad.toml")
	os.WriteFile(file, []byte("default = \"deny\"\n[modules.x]\nsource = \"builtin:nope\"\n"), 0o600)
	cmd := exec.Command(binary, "serve", "--config", file)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err == nil || stdout.Len() != 0 || !strings.Contains(stderr.String(), "no built-in module \"nope\"") {
		t.Fatalf("bad config: err %v, stdout %q, stderr %q", err, stdout.String(), stderr.String())
	}
}

const e2eConfig = `
default = "deny"
hide = ["debugpy_attach_pid"]

[modules.category]
source = "builtin:category"
settings = { read = "allow", write = "allow", execute = "allow" }

[modules.expressions]
source = "builtin:expressions"

[modules.redact]
source = "builtin:redact"

[[rules]]
tools = ["debugpy_*"]
call = ["category", "expressions"]
result = ["redact"]
`

// A full flow against real debugpy through the binary, with a secret
// redacted from a result and a hidden tool.
func TestServeDebugFlowRedacted(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "guard.toml")
	os.WriteFile(cfg, []byte(e2eConfig), 0o600)
	prog := filepath.Join(dir, "orders.py")
	os.WriteFile(prog, sampleProgram, 0o644)
	line := 0
	sc := bufio.NewScanner(bytes.NewReader(sampleProgram))
	for n := 1; sc.Scan(); n++ {
		if strings.HasSuffix(sc.Text(), "# BREAK") {
			line = n
		}
	}
	c := startServe(t, "--config", cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	list, _ := c.ListTools(ctx, mcp.ListToolsRequest{})
	for _, tool := range list.Tools {
		if tool.Name == "debugpy_attach_pid" {
			t.Fatal("hidden tool is listed")
		}
	}
	for _, step := range []struct {
		tool string
		args map[string]any
	}{
		{"debugpy_launch", map[string]any{"program": prog}},
		{"debugpy_set_breakpoint", map[string]any{"file": prog, "line": line}},
		{"debugpy_continue", nil},
	} {
		if res := callTool(t, c, step.tool, step.args); res.IsError {
			t.Fatalf("%s: %s", step.tool, textOf(res))
		}
	}
	res := callTool(t, c, "debugpy_variables", map[string]any{"scope": "globals"})
	raw, _ := json.Marshal(res.StructuredContent)
	if res.IsError || strings.Contains(string(raw)+textOf(res), "s3cr3t-hunter2") || !strings.Contains(string(raw), "DB_PASSWORD") {
		t.Fatalf("globals not redacted: %s\n%s", raw, textOf(res))
	}
	res = callTool(t, c, "debugpy_evaluate", map[string]any{"expression": "DB_PASSWORD"})
	if res.IsError || strings.Contains(textOf(res), "hunter2") {
		t.Fatalf("evaluate not redacted: %s", textOf(res))
	}
	res = callTool(t, c, "debugpy_evaluate", map[string]any{"expression": "qty * price"})
	if res.IsError || !strings.Contains(textOf(res), "1.5") {
		t.Fatalf("evaluate: %s", textOf(res))
	}
	if res := callTool(t, c, "debugpy_session_stop", map[string]any{"terminate": true}); res.IsError {
		t.Fatalf("stop: %s", textOf(res))
	}
}
