package main

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/debugpy-guard/debugpy-guard/tools"
)

//go:embed sample/orders.py
var sampleProgram []byte

// demoGate prints every call and lets it through, and says so instead of
// pretending to decide. It is used by demo only, until issue 4 makes the demo
// a client of the real serve; serve always runs the policy engine.
type demoGate struct{ w io.Writer }

func (g demoGate) Guard(ctx context.Context, call tools.Call, run func(context.Context) *mcp.CallToolResult) *mcp.CallToolResult {
	fmt.Fprintf(g.w, "\n→ %s %s  [%s; no policy engine yet: not decided]\n", call.Tool, call.Arguments, call.Category)
	return run(ctx)
}

// demo drives the tools, through an MCP client, against the bundled sample.
func demo(w io.Writer, log *slog.Logger) error {
	dir, err := os.MkdirTemp("", "debugpy-guard-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	prog := filepath.Join(dir, "orders.py")
	if err := os.WriteFile(prog, sampleProgram, 0o644); err != nil {
		return err
	}
	breakLine := 0
	sc := bufio.NewScanner(bytes.NewReader(sampleProgram))
	for n := 1; sc.Scan(); n++ {
		if strings.HasSuffix(sc.Text(), "# BREAK") {
			breakLine = n
		}
	}

	srv := server.NewMCPServer("debugpy-guard", version, server.WithToolCapabilities(false))
	ts := tools.NewToolset(log)
	tools.Register(srv, ts, demoGate{w}, nil)
	c, err := client.NewInProcessClient(srv)
	if err != nil {
		return err
	}
	defer c.Close()
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		return err
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "debugpy-guard-demo", Version: version}
	if _, err := c.Initialize(ctx, init); err != nil {
		return err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		ts.Sessions.CloseAll(cctx)
	}()
	list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "debugpy-guard demo: %d tools; debugging %s\n", len(list.Tools), prog)

	call := func(tool string, args map[string]any) (map[string]any, error) {
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = tool, args
		cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		res, err := c.CallTool(cctx, req)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", tool, err)
		}
		text := tools.Text(res)
		for _, l := range strings.Split(text, "\n") {
			fmt.Fprintf(w, "  %s\n", l)
		}
		if res.IsError {
			return nil, fmt.Errorf("%s failed: %s", tool, text)
		}
		var out map[string]any
		raw, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(raw, &out)
		return out, nil
	}

	steps := []struct {
		tool string
		args map[string]any
	}{
		{"debugpy_launch", map[string]any{"program": prog}},
		{"debugpy_set_breakpoint", map[string]any{"file": prog, "line": breakLine, "condition": "qty < 0"}},
		{"debugpy_continue", nil},
		{"debugpy_stack_trace", nil},
		{"debugpy_variables", map[string]any{"depth": 2, "max_items": 10}},
		{"debugpy_evaluate", map[string]any{"expression": "qty * price"}},
		{"debugpy_set_variable", map[string]any{"name": "qty", "value": "4"}},
		{"debugpy_source", map[string]any{"context_lines": 2}},
		{"debugpy_remove_breakpoint", map[string]any{"file": prog, "line": breakLine}},
		{"debugpy_continue", nil},
		{"debugpy_output", nil},
		{"debugpy_session_stop", nil},
	}
	for _, s := range steps {
		if _, err := call(s.tool, s.args); err != nil {
			return err
		}
	}
	fmt.Fprintln(w, "\ndemo done: the qty of grape was fixed from -4 to 4 while the program ran.")
	return nil
}
