package tools

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/debugpy-guard/debugpy-guard/dap"
)

// The one-write fix changes nothing but speed: the same debugging flow
// gives the same results with it on and off, and session_status says which.
func TestNoDelayChangesNothingButSpeed(t *testing.T) {
	t.Parallel()
	on, statusOn := debugFlow(t, true)
	off, statusOff := debugFlow(t, false)
	if statusOn != dap.NoDelayOn || statusOff != dap.NoDelayDisabled {
		t.Fatalf("session_status nodelay: on %q, off %q", statusOn, statusOff)
	}
	if len(on) != len(off) {
		t.Fatalf("%d steps with the fix, %d without", len(on), len(off))
	}
	for i := range on {
		if !reflect.DeepEqual(on[i], off[i]) {
			a, _ := json.Marshal(on[i])
			b, _ := json.Marshal(off[i])
			t.Errorf("step %d differs:\nfix on:  %s\nfix off: %s", i, a, b)
		}
	}
}

// debugFlow runs prog.py through breakpoints, stack, variables, evaluate,
// set_variable, threads and steps, and returns each step's structured
// result without what differs from run to run (ids debugpy hands out, pids,
// how output was split into events), and the session's nodelay state.
func debugFlow(t *testing.T, noDelay bool) ([]any, string) {
	h := newHarness(t)
	h.ts.NoDelay = noDelay
	var steps []any
	keep := func(m map[string]any) { steps = append(steps, scrub(m)) }
	h.launch("", "basic")
	status := str(t, h.call("debugpy_session_status", nil), "nodelay")
	keep(h.call("debugpy_set_breakpoint", map[string]any{"file": progFile, "line": line(t, "main")}))
	keep(h.call("debugpy_continue", nil))
	keep(h.call("debugpy_stack_trace", nil))
	keep(h.call("debugpy_variables", map[string]any{"depth": 3}))
	keep(h.call("debugpy_evaluate", map[string]any{"expression": "counter + len(items)"}))
	keep(h.call("debugpy_evaluate", map[string]any{"expression": "items.append(4)", "context": "repl"}))
	keep(h.call("debugpy_variables", map[string]any{"depth": 2})) // items now has 4: nothing stale
	keep(h.call("debugpy_set_variable", map[string]any{"name": "counter", "value": "11"}))
	keep(h.call("debugpy_threads", map[string]any{"frames": 2}))
	keep(h.call("debugpy_step_in", nil))
	keep(h.call("debugpy_stack_trace", nil)) // a new stop: nothing stale
	keep(h.call("debugpy_step_out", nil))
	keep(h.call("debugpy_variables", nil))
	keep(h.call("debugpy_continue", nil))
	keep(map[string]any{"stdout": h.outputText(map[string]any{"category": "stdout"})})
	return steps, status
}

var volatile = map[string]bool{"frame_id": true, "variables_reference": true, "id": true, "pid": true,
	"nodelay": true, "python": true, "output_next": true}

func scrub(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if !volatile[k] {
				out[k] = scrub(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = scrub(e)
		}
		return out
	case string:
		// frame ids inside texts: "(frame 3)"; object addresses in reprs
		if i := strings.Index(x, "(frame "); i >= 0 {
			x = x[:i]
		}
		return address.ReplaceAllString(x, " at 0x…")
	}
	return v
}

var address = regexp.MustCompile(` at 0x[0-9a-f]+`)

// The fix is loaded through PYTHONPATH, and takes itself out again: the
// program sees its own PYTHONPATH (here, one the call sets) and sys.path,
// and none of debugpy-guard's variables.
func TestNoDelayLeavesTheProgramsEnvironment(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	extra := t.TempDir()
	out := h.call("debugpy_launch", map[string]any{"program": progFile, "args": []string{"basic"}, "env": map[string]string{"PYTHONPATH": extra}})
	if str(t, out, "nodelay") != dap.NoDelayOn {
		t.Fatalf("launch: %v", out)
	}
	h.call("debugpy_set_breakpoint", map[string]any{"file": progFile, "line": line(t, "main")})
	h.call("debugpy_continue", nil)
	for expr, want := range map[string]string{
		"__import__('os').environ.get('PYTHONPATH')":                    "'" + extra + "'",
		"[k for k in __import__('os').environ if 'DEBUGPY_GUARD' in k]": "[]",
		"[p for p in __import__('sys').path if 'pyshim' in p]":          "[]",
		"__import__('sys').path.count(" + strconvQuote(extra) + ") > 0": "True",
		"'debugpy_guard_nodelay' in __import__('sys').modules":          "True",
	} {
		if got := str(t, h.call("debugpy_evaluate", map[string]any{"expression": expr}), "result"); got != want {
			t.Errorf("%s = %s, want %s", expr, got, want)
		}
	}
}

func strconvQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `\'`) + "'" }

// A program the user starts with `PYTHONPATH=$(debugpy-guard pyshim) python3
// -m debugpy --listen ...` runs the fix too (README); session_status, which
// cannot see into it, reports how long a reply took.
func TestNoDelayInAProgramTheUserStarts(t *testing.T) {
	t.Parallel()
	dir, err := dap.ShimDir()
	if err != nil {
		t.Fatal(err)
	}
	_, port := listen(t, "sleep", "PYTHONPATH="+dir) // it loops: a breakpoint set after attach is met
	h := newHarness(t)
	st := h.attach("mine", port, nil)
	if !strings.HasPrefix(str(t, st, "nodelay"), "unknown (attached to a debugpy started elsewhere): a reply took ") {
		t.Fatalf("attach: %v", st)
	}
	h.call("debugpy_set_breakpoint", map[string]any{"session": "mine", "file": progFile, "line": line(t, "sleep")})
	h.call("debugpy_wait_for_stop", map[string]any{"session": "mine", "timeout_s": 20})
	for expr, want := range map[string]string{
		"__import__('sys').modules['_pydevd_bundle.pydevd_net_command'].NetCommand.send._debugpy_guard": "True",
		"type(__import__('sys').modules['pydevd'].time).__name__":                                       "'_WakeableTime'",
		"[p for p in __import__('sys').path if 'pyshim' in p]":                                          "[]",
	} {
		if got := str(t, h.call("debugpy_evaluate", map[string]any{"session": "mine", "expression": expr}), "result"); got != want {
			t.Errorf("%s = %s, want %s", expr, got, want)
		}
	}
}

// The fix changes no error either: every tool's error paths (an unknown
// thread, frame or reference; a running program; an exited one) answer the
// same with it on and off, and put nothing in the program's stderr.
func TestNoDelayChangesNoError(t *testing.T) {
	t.Parallel()
	on := errorFlow(t, true)
	off := errorFlow(t, false)
	if len(on) != len(off) {
		t.Fatalf("%d steps with the fix, %d without", len(on), len(off))
	}
	for i := range on {
		if on[i] != off[i] {
			t.Errorf("step %d differs:\nfix on:  %s\nfix off: %s", i, on[i], off[i])
		}
	}
	if last := on[len(on)-1]; strings.Contains(last, "Traceback") || !strings.Contains(last, "stderr line") {
		t.Errorf("the error paths put debugpy's tracebacks into the program's stderr:\n%s", last)
	}
	for _, s := range on {
		if strings.Contains(s, "error=false") && !strings.Contains(s, "debugpy_set_variable") && !strings.Contains(s, "debugpy_threads") {
			t.Errorf("an error path answered success: %s", s)
		}
	}
}

var ids = regexp.MustCompile(`\b(frame|thread|reference|variables_reference|pid|id) \d+|\d+ ms|\d+(\.\d+)?m?s\b`)

// errorFlow calls each tool where it must fail and returns what each
// answered (error or not, its text with ids scrubbed), and the program's
// stderr at the end.
func errorFlow(t *testing.T, noDelay bool) []string {
	h := newHarness(t)
	h.ts.NoDelay = noDelay
	var steps []string
	try := func(tool string, args map[string]any) {
		res := h.callRaw(tool, args)
		steps = append(steps, fmt.Sprintf("%s %v: error=%v %s", tool, args, res.IsError, ids.ReplaceAllString(text(res), "$1 N")))
	}
	h.launch("", "basic")
	h.call("debugpy_set_breakpoint", map[string]any{"file": progFile, "line": line(t, "main")})
	h.call("debugpy_continue", nil)
	// Stopped: ids that are not there.
	try("debugpy_stack_trace", map[string]any{"thread_id": 7})
	try("debugpy_stack_trace", map[string]any{"thread_id": 7, "levels": 1})
	try("debugpy_variables", map[string]any{"frame_id": 99999})
	try("debugpy_variables", map[string]any{"variables_reference": 999999})
	try("debugpy_evaluate", map[string]any{"expression": "1", "frame_id": 99999})
	try("debugpy_set_variable", map[string]any{"name": "nope", "value": "1"})
	try("debugpy_set_variable", map[string]any{"name": "x", "value": "1", "variables_reference": 999999})
	try("debugpy_step_over", map[string]any{"thread_id": 7})
	try("debugpy_exception_info", nil)
	try("debugpy_threads", map[string]any{"frames": 2})
	// Running.
	h.call("debugpy_remove_breakpoint", map[string]any{"file": progFile, "line": line(t, "main")})
	h.call("debugpy_continue", nil)
	h.call("debugpy_wait_for_stop", map[string]any{"timeout_s": 20})
	// Running: a second session, in a loop.
	h.launch("run", "sleep")
	h.call("debugpy_continue", map[string]any{"session": "run"})
	try("debugpy_stack_trace", map[string]any{"session": "run"})
	try("debugpy_variables", map[string]any{"session": "run"})
	try("debugpy_evaluate", map[string]any{"session": "run", "expression": "1"})
	try("debugpy_exception_info", map[string]any{"session": "run"})
	try("debugpy_step_over", map[string]any{"session": "run"})
	h.call("debugpy_session_stop", map[string]any{"session": "run", "terminate": true})
	// Exited.
	try("debugpy_stack_trace", nil)
	try("debugpy_variables", nil)
	try("debugpy_evaluate", map[string]any{"expression": "1"})
	try("debugpy_continue", nil)
	out := h.outputText(map[string]any{"category": "stderr"})
	steps = append(steps, "stderr: "+ids.ReplaceAllString(out, "$1 N"))
	return steps
}
