package tools

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// allowAll is the gate of these tests: it runs every call and records it.
// It lives only in tests; serve always runs the policy engine.
type allowAll struct {
	mu    sync.Mutex
	calls []Call
}

func (g *allowAll) Guard(ctx context.Context, call Call, run func(context.Context) *mcp.CallToolResult) *mcp.CallToolResult {
	g.mu.Lock()
	g.calls = append(g.calls, call)
	g.mu.Unlock()
	return run(ctx)
}

type harness struct {
	t     *testing.T
	c     *client.Client
	ts    *Toolset
	gate  *allowAll
	mu    sync.Mutex
	notes []mcp.JSONRPCNotification
}

// skipInShort skips a test of the full tier in `go test -short` (the fast
// tier: no debugpy); make test runs the full tier.
func skipInShort(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		t.Skip(what + ": the full tier (make test) runs it")
	}
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	return newHarnessWithGate(t, &allowAll{})
}

func newHarnessWithGate(t *testing.T, gate Gate, hide ...string) *harness {
	t.Helper()
	log := slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelInfo}))
	h := &harness{t: t, ts: NewToolset(log)}
	h.gate, _ = gate.(*allowAll)
	srv := NewServer("0", h.ts, gate, func(tool string) bool { return slices.Contains(hide, tool) })
	c, err := client.NewInProcessClient(srv)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		h.mu.Lock()
		h.notes = append(h.notes, n)
		h.mu.Unlock()
	})
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "tools-test", Version: "0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	h.c = c
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		h.ts.Sessions.CloseAll(ctx)
		c.Close()
	})
	return h
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// callRaw calls a tool and returns its result, failing on a protocol error.
func (h *harness) callRaw(tool string, args any) *mcp.CallToolResult {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := h.c.CallTool(ctx, req)
	if err != nil {
		h.t.Fatalf("%s: protocol error: %v", tool, err)
	}
	if !res.IsError {
		conforms(h.t, tool, res)
	}
	return res
}

// call calls a tool that must succeed and decodes its structured result.
func (h *harness) call(tool string, args any) map[string]any {
	h.t.Helper()
	res := h.callRaw(tool, args)
	if res.IsError {
		h.t.Fatalf("%s(%v): error result: %s", tool, args, text(res))
	}
	return structured(h.t, res)
}

// fail calls a tool that must fail and returns its message.
func (h *harness) fail(tool string, args any) string {
	h.t.Helper()
	res := h.callRaw(tool, args)
	if !res.IsError {
		h.t.Fatalf("%s(%v): want an error, got %s", tool, args, text(res))
	}
	return text(res)
}

func text(res *mcp.CallToolResult) string { return Text(res) }

func structured(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("structured content %s: %v", raw, err)
	}
	return m
}

// get walks a decoded JSON value by keys and indexes ("stop.line", "variables.0.name").
func get(t *testing.T, v any, path string) any {
	t.Helper()
	cur := v
	for _, k := range strings.Split(path, ".") {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[k]
		case []any:
			var i int
			if _, err := fmtSscan(k, &i); err != nil || i >= len(c) {
				t.Fatalf("path %s: bad index %s in %v", path, k, c)
			}
			cur = c[i]
		default:
			t.Fatalf("path %s: cannot index %T with %s", path, cur, k)
		}
	}
	return cur
}

func num(t *testing.T, v any, path string) int {
	t.Helper()
	f, ok := get(t, v, path).(float64)
	if !ok {
		t.Fatalf("path %s: %v is not a number", path, get(t, v, path))
	}
	return int(f)
}

func str(t *testing.T, v any, path string) string {
	t.Helper()
	s, _ := get(t, v, path).(string)
	return s
}

var progFile, _ = filepath.Abs(filepath.Join("..", "dap", "testdata", "prog.py"))

// line is the line of "# LINE: name" in prog.py.
func line(t *testing.T, name string) int {
	t.Helper()
	f, err := os.Open(progFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if strings.HasSuffix(sc.Text(), "# LINE: "+name) {
			return n
		}
	}
	t.Fatalf("no marker %q", name)
	return 0
}

// launch starts prog.py in mode, stopped on entry, as session name.
func (h *harness) launch(name, mode string) map[string]any {
	h.t.Helper()
	skipInShort(h.t, "starts debugpy")
	out := h.call("debugpy_launch", map[string]any{"session": name, "program": progFile, "args": []string{mode}})
	if str(h.t, out, "stop.reason") != "entry" {
		h.t.Fatalf("launch: want a stop on entry, got %v", out)
	}
	return out
}

func fmtSscan(s string, i *int) (int, error) { return fmt.Sscan(s, i) }

// outputText is the program's output so far, entries joined (debugpy splits
// one print into several output events).
func (h *harness) outputText(args map[string]any) string {
	h.t.Helper()
	out := h.call("debugpy_output", args)
	var sb strings.Builder
	for _, e := range get(h.t, out, "entries").([]any) {
		sb.WriteString(e.(map[string]any)["text"].(string))
	}
	return sb.String()
}
