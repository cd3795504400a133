package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// Every tool of the design's catalogue is listed with a schema, annotations,
// an outputSchema and its category.
func TestCatalogueListed(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	list, err := h.c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"debugpy_session_start": Write, "debugpy_launch": Execute, "debugpy_attach_pid": Execute,
		"debugpy_session_stop": Write, "debugpy_session_status": Read, "debugpy_sessions": Read,
		"debugpy_set_breakpoint": Write, "debugpy_remove_breakpoint": Write, "debugpy_list_breakpoints": Read,
		"debugpy_set_exception_breakpoints": Write, "debugpy_continue": Write, "debugpy_pause": Write,
		"debugpy_step_over": Write, "debugpy_step_in": Write, "debugpy_step_out": Write,
		"debugpy_wait_for_stop": Read, "debugpy_threads": Read, "debugpy_stack_trace": Read,
		"debugpy_variables": Read, "debugpy_evaluate": Execute, "debugpy_set_variable": Execute,
		"debugpy_source": Read, "debugpy_output": Read, "debugpy_exception_info": Read,
	}
	if len(list.Tools) != len(want) {
		t.Errorf("listed %d tools, want %d", len(list.Tools), len(want))
	}
	for _, tool := range list.Tools {
		raw, _ := json.Marshal(tool)
		var m map[string]any
		json.Unmarshal(raw, &m)
		cat, ok := want[tool.Name]
		if !ok {
			t.Errorf("unexpected tool %s", tool.Name)
			continue
		}
		if got := get(t, m, "_meta.category"); got != cat {
			t.Errorf("%s: category %v, want %s", tool.Name, got, cat)
		}
		if get(t, m, "outputSchema.type") != "object" || get(t, m, "inputSchema.type") != "object" {
			t.Errorf("%s: schemas missing: %s", tool.Name, raw)
		}
		ann := get(t, m, "annotations").(map[string]any)
		for _, k := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
			if _, ok := ann[k]; !ok {
				t.Errorf("%s: annotation %s missing", tool.Name, k)
			}
		}
		if (cat == Read) != (ann["readOnlyHint"] == true) {
			t.Errorf("%s: readOnlyHint %v for category %s", tool.Name, ann["readOnlyHint"], cat)
		}
		if strings.TrimSpace(tool.Description) == "" {
			t.Errorf("%s: no description", tool.Name)
		}
	}
}

// Every call goes through the gate, with the tool's category and arguments;
// a gate that answers itself keeps the handler from running.
func TestEveryCallPassesTheGate(t *testing.T) {
	h := newHarness(t)
	for _, spec := range Catalogue() {
		h.callRaw(spec.Tool.Name, map[string]any{"session": "nowhere"})
	}
	if len(h.gate.calls) != len(Catalogue()) {
		t.Fatalf("gate saw %d calls, want %d", len(h.gate.calls), len(Catalogue()))
	}
	for i, c := range h.gate.calls {
		spec := Catalogue()[i]
		if c.Tool != spec.Tool.Name || c.Category != spec.Category || c.Session != "nowhere" || !strings.Contains(string(c.Arguments), "nowhere") {
			t.Errorf("gate saw %+v for %s", c, spec.Tool.Name)
		}
	}
}

type denyAll struct{}

func (d *denyAll) Guard(ctx context.Context, call Call, run func(context.Context) *mcp.CallToolResult) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{mcp.NewTextContent("denied by test")}}
}

func TestGateCanStopACall(t *testing.T) {
	h := newHarness(t)
	res := h.callRaw("debugpy_launch", map[string]any{"program": progFile})
	if res.IsError {
		t.Fatalf("allow-all gate: %s", text(res))
	}
	// Same catalogue behind a gate that answers itself: no session is made.
	d := newHarnessWithGate(t, &denyAll{})
	res = d.callRaw("debugpy_launch", map[string]any{"program": progFile})
	if !res.IsError || text(res) != "denied by test" || len(d.ts.Sessions.All()) != 0 {
		t.Fatalf("deny gate: %v %s, sessions %d", res.IsError, text(res), len(d.ts.Sessions.All()))
	}
}

func TestRegisterWithoutGatePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Register with a nil gate did not panic")
		}
	}()
	Register(nil, NewToolset(nil), nil)
}

// Hidden tools are left out of tools/list; calling one is the gate's to deny
// (gate_test.go).
func TestHiddenToolsAreNotListed(t *testing.T) {
	h := newHarnessWithGate(t, &allowAll{}, "debugpy_attach_pid")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	list, _ := h.c.ListTools(ctx, mcp.ListToolsRequest{})
	for _, tool := range list.Tools {
		if tool.Name == "debugpy_attach_pid" {
			t.Fatal("hidden tool listed")
		}
	}
	if len(list.Tools) != len(Catalogue())-1 {
		t.Fatalf("%d tools listed, want %d", len(list.Tools), len(Catalogue())-1)
	}
}

func callReq(tool string, args any) mcp.CallToolRequest {
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = tool, args
	return req
}

// wait_for_stop sends progress notifications while it waits.
func TestWaitForStopProgress(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.launch("", "sleep")
	h.call("debugpy_continue", map[string]any{"wait_s": 0})
	req := callReq("debugpy_wait_for_stop", map[string]any{"timeout_s": 2.5})
	req.Params.Meta = &mcp.Meta{ProgressToken: "tok-1"}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := h.c.CallTool(ctx, req)
	if err != nil || res.IsError || !strings.Contains(text(res), "running") {
		t.Fatalf("wait: %v %v", err, res)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, note := range h.notes {
		if note.Method == "notifications/progress" && note.Params.AdditionalFields["progressToken"] == "tok-1" {
			n++
		}
	}
	if n < 2 {
		t.Fatalf("want at least 2 progress notifications in 2.5 s, got %d of %d notes", n, len(h.notes))
	}
}

// Every tool has an example, and each example decodes under its schema.
func TestExamples(t *testing.T) {
	for _, s := range Catalogue() {
		if _, ok := examples[s.Tool.Name]; !ok {
			t.Errorf("%s has no example", s.Tool.Name)
		}
	}
	if len(examples) != len(Catalogue()) {
		t.Errorf("%d examples for %d tools", len(examples), len(Catalogue()))
	}
	ts := NewToolset(nil)
	for _, s := range Catalogue() {
		if _, err := s.prepare(context.Background(), ts, Example(s.Tool.Name)); err != nil {
			t.Errorf("%s: its example is refused: %v", s.Tool.Name, err)
		}
	}
}
