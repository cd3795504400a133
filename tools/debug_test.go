package tools

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/debugpy-guard/debugpy-guard/dap"
	"github.com/debugpy-guard/debugpy-guard/internal/cpython"
)

// These tests drive the tools through an MCP client against a real debugpy.

func TestLaunchBreakpointsSteps(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.launch("", "basic")
	bp := h.call("debugpy_set_breakpoint", map[string]any{"file": progFile, "line": line(t, "main")})
	if get(t, bp, "breakpoint.verified") != true || num(t, bp, "breakpoint.bound_line") != line(t, "main") {
		t.Fatalf("breakpoint not verified at its line: %v", bp)
	}
	st := h.call("debugpy_continue", nil)
	if str(t, st, "state") != "stopped" || num(t, st, "stop.line") != line(t, "main") || str(t, st, "stop.reason") != "breakpoint" {
		t.Fatalf("continue: want a stop at the breakpoint, got %v", st)
	}
	// step in: into compute()
	st = h.call("debugpy_step_in", nil)
	if str(t, st, "stop.function") != "compute" {
		t.Fatalf("step in: want compute, got %v", st)
	}
	st = h.call("debugpy_step_over", nil)
	if num(t, st, "stop.line") != line(t, "loop")-1 {
		t.Fatalf("step over: want line %d, got %v", line(t, "loop")-1, st)
	}
	st = h.call("debugpy_step_out", nil)
	if str(t, st, "stop.function") != "main" {
		t.Fatalf("step out: want main, got %v", st)
	}
	stack := h.call("debugpy_stack_trace", nil)
	if str(t, stack, "frames.0.function") != "main" || num(t, stack, "total_frames") < 2 {
		t.Fatalf("stack: %v", stack)
	}
	list := h.call("debugpy_list_breakpoints", nil)
	if len(get(t, list, "breakpoints").([]any)) != 1 {
		t.Fatalf("list: %v", list)
	}
	h.call("debugpy_remove_breakpoint", map[string]any{"breakpoint_id": num(t, bp, "breakpoint.id")})
	if msg := h.fail("debugpy_remove_breakpoint", map[string]any{"breakpoint_id": 99}); !strings.Contains(msg, "debugpy_list_breakpoints") {
		t.Fatalf("remove unknown: %s", msg)
	}
	st = h.call("debugpy_continue", nil)
	if str(t, st, "state") != "exited" || num(t, st, "exit_code") != 3 {
		t.Fatalf("continue to the end: want exited with 3, got %v", st)
	}
	out := h.call("debugpy_output", nil)
	// stdout and stderr interleave chunk by chunk: check each stream apart.
	stdout := h.outputText(map[string]any{"category": "stdout"})
	for _, want := range []string{"result 10", "counter 10 ada 3"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q: %s", want, stdout)
		}
	}
	if !strings.Contains(h.outputText(map[string]any{"category": "stderr"}), "stderr line") {
		t.Error("output by category stderr lacks the stderr line")
	}
	// Reading on from next gives nothing new.
	next := num(t, out, "next")
	if st := h.call("debugpy_session_status", nil); num(t, st, "output_next") != next {
		t.Errorf("status output_next %v, want the output's next %d", get(t, st, "output_next"), next)
	}
	again := h.call("debugpy_output", map[string]any{"since": next})
	if len(get(t, again, "entries").([]any)) != 0 {
		t.Errorf("output since next: want nothing, got %v", again)
	}
	if msg := h.fail("debugpy_stack_trace", nil); !strings.Contains(msg, "exited") {
		t.Errorf("stack after exit: %s", msg)
	}
}

func TestConditionalHitAndLogBreakpoints(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.launch("", "basic")
	// add(a, b) is called with b = 0..4.
	h.call("debugpy_set_breakpoint", map[string]any{"file": progFile, "line": line(t, "add"), "condition": "b == 3"})
	st := h.call("debugpy_continue", nil)
	if v := h.call("debugpy_evaluate", map[string]any{"expression": "b"}); str(t, v, "result") != "3" {
		t.Fatalf("conditional breakpoint: stopped with b = %v (stop %v)", v, st)
	}
	h.call("debugpy_remove_breakpoint", map[string]any{"file": progFile, "line": line(t, "add")})
	h.call("debugpy_set_breakpoint", map[string]any{"file": progFile, "line": line(t, "loop"), "log_message": "acc is {acc}"})
	h.call("debugpy_set_breakpoint", map[string]any{"file": progFile, "line": line(t, "after"), "hit_condition": "1"})
	st = h.call("debugpy_continue", nil)
	if num(t, st, "stop.line") != line(t, "after") {
		t.Fatalf("hit-count breakpoint: %v", st)
	}
	out := h.outputText(map[string]any{"category": "stdout"})
	if !strings.Contains(out, "acc is 6") {
		t.Errorf("logpoint message missing from output: %s", out)
	}
}

func TestHitCount(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.launch("", "basic")
	h.call("debugpy_set_breakpoint", map[string]any{"file": progFile, "line": line(t, "add"), "hit_condition": "3"})
	h.call("debugpy_continue", nil)
	if v := h.call("debugpy_evaluate", map[string]any{"expression": "b"}); str(t, v, "result") != "2" {
		t.Fatalf("hit count 3: want the third call (b = 2), got %v", v)
	}
}

func TestExceptionBreakpoints(t *testing.T) {
	t.Parallel()
	t.Run("raised", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t)
		h.launch("", "caught")
		h.call("debugpy_set_exception_breakpoints", map[string]any{"filters": []string{"raised"}})
		st := h.call("debugpy_continue", nil)
		if str(t, st, "stop.reason") != "exception" || num(t, st, "stop.line") != line(t, "raise") {
			t.Fatalf("raised: %v", st)
		}
		info := h.call("debugpy_exception_info", nil)
		if !strings.Contains(str(t, info, "exception_id"), "ValueError") || !strings.Contains(str(t, info, "description"), "boom") {
			t.Fatalf("exception info: %v", info)
		}
		if !strings.Contains(str(t, st, "stop.text"), "boom") {
			t.Errorf("stop text lacks the exception: %v", st)
		}
	})
	t.Run("uncaught", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t)
		h.launch("", "uncaught")
		h.call("debugpy_set_exception_breakpoints", map[string]any{"filters": []string{"uncaught"}})
		st := h.call("debugpy_continue", nil)
		if str(t, st, "stop.reason") != "exception" {
			t.Fatalf("uncaught: %v", st)
		}
		if msg := h.fail("debugpy_set_exception_breakpoints", map[string]any{"filters": []string{"sometimes"}}); !strings.Contains(msg, "raised, uncaught or userUnhandled") {
			t.Errorf("bad filter: %s", msg)
		}
	})
}

func TestPauseBusyLoop(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.launch("", "busy")
	st := h.call("debugpy_continue", map[string]any{"wait_s": 0.5})
	if str(t, st, "state") != "running" {
		t.Fatalf("busy loop: want running, got %v", st)
	}
	st = h.call("debugpy_pause", nil)
	if str(t, st, "stop.reason") != "pause" || str(t, st, "stop.function") != "busy" {
		t.Fatalf("pause: %v", st)
	}
}

func TestVariablesEvaluateSetVariable(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.launch("", "basic")
	h.call("debugpy_set_breakpoint", map[string]any{"file": progFile, "line": line(t, "after")})
	h.call("debugpy_continue", nil)
	vars := h.call("debugpy_variables", map[string]any{"depth": 3})
	var user map[string]any
	for _, v := range get(t, vars, "variables").([]any) {
		if m := v.(map[string]any); m["name"] == "user" {
			user = m
		}
	}
	if user == nil || user["type"] != "User" {
		t.Fatalf("no user local: %v", vars)
	}
	// user -> profile -> address: three levels.
	var city string
	for _, c := range user["children"].([]any) {
		if c.(map[string]any)["name"] == "profile" {
			for _, d := range c.(map[string]any)["children"].([]any) {
				if strings.Contains(fmt.Sprint(d.(map[string]any)["name"]), "address") {
					city = fmt.Sprint(d.(map[string]any)["value"])
				}
			}
		}
	}
	if !strings.Contains(city, "Lyon") {
		t.Fatalf("depth 3 did not reach user.profile['address']: %v", user)
	}
	// At depth 1 the text shows how to expand user: its reference.
	res := h.callRaw("debugpy_variables", nil)
	var ref float64
	for _, v := range get(t, structured(t, res), "variables").([]any) {
		if m := v.(map[string]any); m["name"] == "user" {
			ref, _ = m["variables_reference"].(float64)
		}
	}
	if ref == 0 || !strings.Contains(text(res), "user: User = ") || !strings.Contains(text(res), fmt.Sprintf(" [ref %d]\n", int(ref))) && !strings.HasSuffix(text(res), fmt.Sprintf(" [ref %d]", int(ref))) {
		t.Fatalf("the text does not say how to expand user (ref %v):\n%s", ref, text(res))
	}
	// debugpy's group rows (special variables ...) do not use up max_items.
	members := h.call("debugpy_variables", map[string]any{"variables_reference": ref, "max_items": 1})
	var plain, grouped int
	for _, v := range get(t, members, "variables").([]any) {
		if strings.HasSuffix(v.(map[string]any)["name"].(string), " variables") {
			grouped++
		} else {
			plain++
		}
	}
	if plain != 1 || grouped == 0 || get(t, members, "truncated") != true {
		t.Fatalf("max_items 1 on user: %d members and %d group rows, want 1 and some: %v", plain, grouped, members)
	}
	one := h.call("debugpy_variables", map[string]any{"max_items": 2})
	if len(get(t, one, "variables").([]any)) != 2 || get(t, one, "truncated") != true {
		t.Fatalf("max_items 2: %v", one)
	}
	if g := h.call("debugpy_variables", map[string]any{"scope": "globals"}); !strings.Contains(fmt.Sprint(g), "threading") {
		t.Fatalf("globals: %v", g)
	}
	if v := h.call("debugpy_evaluate", map[string]any{"expression": "user.profile['address']['city']", "context": "watch"}); str(t, v, "result") != "'Lyon'" {
		t.Fatalf("watch: %v", v)
	}
	h.call("debugpy_evaluate", map[string]any{"expression": "extra = counter * 2", "context": "repl"})
	if v := h.call("debugpy_evaluate", map[string]any{"expression": "extra"}); str(t, v, "result") != "20" {
		t.Fatalf("repl statement: %v", v)
	}
	if msg := h.fail("debugpy_evaluate", map[string]any{"expression": "nope"}); !strings.Contains(msg, "NameError") {
		t.Fatalf("evaluate error: %s", msg)
	}
	set := h.call("debugpy_set_variable", map[string]any{"name": "counter", "value": "41 + 1"})
	if str(t, set, "result") != "42" {
		t.Fatalf("set_variable: %v", set)
	}
	src := h.call("debugpy_source", map[string]any{"context_lines": 1})
	lines := get(t, src, "lines").([]any)
	if len(lines) != 3 || get(t, lines[1], "current") != true {
		t.Fatalf("source: %v", src)
	}
	st := h.call("debugpy_continue", nil)
	if str(t, st, "state") != "exited" {
		t.Fatalf("%v", st)
	}
	if out := h.outputText(map[string]any{"category": "stdout"}); !strings.Contains(out, "counter 42 ada") {
		t.Fatalf("set_variable did not reach the program: %s", out)
	}
	if msg := h.fail("debugpy_variables", map[string]any{"frame_id": 12345}); !strings.Contains(msg, "exited") {
		t.Errorf("variables after exit: %s", msg)
	}
}

func TestLaunchModuleAndThreads(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	dir, _ := filepath.Abs(filepath.Join("..", "dap", "testdata"))
	out := h.call("debugpy_launch", map[string]any{"session": "mod", "module": "pkg", "cwd": dir, "args": []string{"agent"},
		"env": map[string]string{"PYTHONPATH": dir}})
	if str(t, out, "stop.reason") != "entry" {
		t.Fatalf("module launch: %v", out)
	}
	st := h.call("debugpy_continue", nil)
	if str(t, st, "state") != "exited" {
		t.Fatalf("module run: %v", st)
	}
	if o := h.outputText(map[string]any{"category": "stdout"}); !strings.Contains(o, "hello agent") {
		t.Fatalf("module output: %s", o)
	}
	h.call("debugpy_session_stop", nil)

	h.launch("thr", "threads")
	h.call("debugpy_set_breakpoint", map[string]any{"file": progFile, "line": line(t, "threads")})
	h.call("debugpy_continue", nil)
	th := h.call("debugpy_threads", map[string]any{"frames": 2})
	list := get(t, th, "threads").([]any)
	if len(list) != 4 {
		t.Fatalf("want 4 threads (main and 3 workers), got %v", th)
	}
	for _, x := range list {
		if len(x.(map[string]any)["frames"].([]any)) == 0 {
			t.Errorf("thread without frames: %v", x)
		}
	}
}

func TestTwoSessions(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.launch("a", "basic")
	h.launch("b", "basic")
	if msg := h.fail("debugpy_stack_trace", nil); !strings.Contains(msg, "several debug sessions") || !strings.Contains(msg, "a, b") {
		t.Fatalf("ambiguous session: %s", msg)
	}
	if msg := h.fail("debugpy_launch", map[string]any{"session": "a", "program": progFile}); !strings.Contains(msg, "exists") {
		t.Fatalf("duplicate name: %s", msg)
	}
	h.call("debugpy_set_breakpoint", map[string]any{"session": "a", "file": progFile, "line": line(t, "main")})
	h.call("debugpy_continue", map[string]any{"session": "a"})
	sa := h.call("debugpy_session_status", map[string]any{"session": "a"})
	sb := h.call("debugpy_session_status", map[string]any{"session": "b"})
	if num(t, sa, "stop.line") != line(t, "main") || str(t, sb, "stop.reason") != "entry" {
		t.Fatalf("sessions mixed up: a=%v b=%v", sa, sb)
	}
	all := h.call("debugpy_sessions", nil)
	if len(get(t, all, "sessions").([]any)) != 2 {
		t.Fatalf("sessions: %v", all)
	}
}

// swapGate runs each call as allowAll does, after doing, once, for the
// first call of tool, what another call may do between a call's judgement
// and its handler.
type swapGate struct {
	allowAll
	tool string
	swap func()
}

func (g *swapGate) Guard(ctx context.Context, call Call, run func(context.Context) *mcp.CallToolResult) *mcp.CallToolResult {
	if call.Tool == g.tool && g.swap != nil {
		g.swap()
		g.swap = nil
	}
	return g.allowAll.Guard(ctx, call, run)
}

// A call acts on the debug session it was judged for. The handler looked
// the session's name up again, and a session stopped and another started
// under its name in between (or the only one replaced, for a call that
// names none) put the call, judged with the first program's stop, on the
// second program.
func TestHandlerActsOnTheSessionJudged(t *testing.T) {
	t.Parallel()
	g := &swapGate{tool: "debugpy_evaluate"}
	h := newHarnessWithGate(t, g)
	h.launch("default", "basic")
	first, err := h.ts.Sessions.Get("default")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { first.Close(context.Background(), true) })
	// The swaps run in the server's goroutine, while the test waits for the
	// call: they report with Errorf, never FailNow.
	var second *dap.Session
	t.Cleanup(func() {
		if second != nil {
			second.Close(context.Background(), true)
		}
	})
	g.swap = func() {
		h.ts.Sessions.Drop("default")
		if _, _, err := launch(context.Background(), h.ts, launchArgs{Program: progFile, Args: []string{"caught"}}); err != nil {
			t.Errorf("the second launch: %v", err)
		}
		var err error
		if second, err = h.ts.Sessions.Get("default"); err != nil {
			t.Errorf("the second session: %v", err)
		}
	}
	// Named: the first program, though another answers to its name by
	// the time the handler runs.
	evaluated := func(args map[string]any, want string) {
		t.Helper()
		args["expression"] = "__import__('sys').argv[-1]"
		if out := h.call("debugpy_evaluate", args); str(t, out, "result") != want {
			t.Fatalf("%v: evaluated in %v, not in the program it was judged for (%s)", args, out, want)
		}
	}
	evaluated(map[string]any{"session": "default"}, "'basic'")
	// Unnamed: the only session when it was judged (the second), though
	// the only one is the first by the time the handler runs.
	g.swap = func() {
		h.ts.Sessions.Drop("default")
		h.ts.Sessions.Add(first)
	}
	evaluated(map[string]any{}, "'caught'")
	// A session_stop ends the session it was judged for, and leaves the one
	// that took its name since.
	g.tool, g.swap = "debugpy_session_stop", func() {
		h.ts.Sessions.Drop("default")
		h.ts.Sessions.Add(second)
	}
	h.call("debugpy_session_stop", map[string]any{"session": "default"})
	if s, err := h.ts.Sessions.Get("default"); s != second || first.Info().State != dap.StateExited {
		t.Fatalf("after the stop: default is %v (%v), the first session is %s", s, err, first.Info().State)
	}
}

// listen starts prog.py under python -m debugpy --listen on a free port,
// and returns once that debugpy serves the port. A port found free may be
// taken before debugpy binds it (other tests' adapters listen on ports of
// their own): an attach to it would reach another test's adapter and end
// its session. So the listener is checked to belong to this debugpy (its
// process or a child), and a debugpy that could not bind is started again
// on another port.
func listen(t *testing.T, mode string, env ...string) (*exec.Cmd, int) {
	t.Helper()
	skipInShort(t, "starts debugpy")
	py, err := dap.FindPython(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	for attempt := 0; attempt < 5; attempt++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		cmd := exec.Command(py, "-m", "debugpy", "--listen", fmt.Sprintf("127.0.0.1:%d", port), "--wait-for-client", progFile, mode)
		cmd.Env = append(os.Environ(), env...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		deadline := time.Now().Add(30 * time.Second)
		for !listensOn(cmd.Process.Pid, port) && !zombie(cmd.Process.Pid) {
			if time.Now().After(deadline) {
				t.Fatalf("debugpy --listen %d never listened", port)
			}
			time.Sleep(20 * time.Millisecond)
		}
		if !zombie(cmd.Process.Pid) {
			return cmd, port
		}
		// It could not bind the port: another one.
	}
	t.Fatal("debugpy --listen: no free port in 5 tries")
	return nil, 0
}

// listensOn reports whether 127.0.0.1:port is in LISTEN state with a socket
// held by pid or one of its descendants, or by the debugpy adapter that
// serves pid (Linux /proc). debugpy --listen daemonizes its adapter (its
// parent is then init), so the adapter is known by pid's connection to it:
// pid holds a socket connected to another port the adapter listens on.
func listensOn(pid, port int) bool {
	socks := tcpSockets()
	owner := 0
	for _, s := range socks {
		if s.local == port && s.listen {
			owner = s.owner
		}
	}
	if owner == 0 {
		return false
	}
	if descends(owner, pid) {
		return true
	}
	adapter := map[int]bool{}
	for _, s := range socks {
		if s.owner == owner && s.listen {
			adapter[s.local] = true
		}
	}
	for _, s := range socks {
		if adapter[s.remote] && s.owner != owner && descends(s.owner, pid) {
			return true
		}
	}
	return false
}

type tcpSocket struct {
	local, remote int // ports on 127.0.0.1 (0 for another address)
	listen        bool
	owner         int
}

// tcpSockets lists the IPv4 TCP sockets with the process that holds each.
func tcpSockets() []tcpSocket {
	b, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		return nil
	}
	port := func(addr string) int {
		host, p, ok := strings.Cut(addr, ":")
		if !ok || host != "0100007F" {
			return 0
		}
		n, _ := strconv.ParseInt(p, 16, 32)
		return int(n)
	}
	byInode := map[string]*tcpSocket{}
	var out []*tcpSocket
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) > 9 && f[9] != "0" {
			s := &tcpSocket{local: port(f[1]), remote: port(f[2]), listen: f[3] == "0A"}
			byInode["socket:["+f[9]+"]"] = s
			out = append(out, s)
		}
	}
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		fds, _ := filepath.Glob(p + "/fd/*")
		for _, fd := range fds {
			if target, _ := os.Readlink(fd); byInode[target] != nil {
				byInode[target].owner, _ = strconv.Atoi(filepath.Base(p))
			}
		}
	}
	res := make([]tcpSocket, 0, len(out))
	for _, s := range out {
		res = append(res, *s)
	}
	return res
}

// zombie reports whether pid has exited (and waits to be reaped).
func zombie(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(f) > 0 && f[0] == "Z"
}

// descends reports whether p is pid or a descendant of it.
func descends(p, pid int) bool {
	for i := 0; i < 32 && p > 1; i++ {
		if p == pid {
			return true
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		if err != nil {
			return false
		}
		// pid (comm) state ppid ...: comm may hold spaces; it ends at the last ')'.
		rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
		f := strings.Fields(rest)
		if len(f) < 2 {
			return false
		}
		p, _ = strconv.Atoi(f[1])
	}
	return false
}

// attach retries session_start while debugpy is not listening yet. A refused
// connect reaches no debugpy, so it cannot upset the adapter.
func (h *harness) attach(name string, port int, extra map[string]any) map[string]any {
	h.t.Helper()
	args := map[string]any{"session": name, "port": port}
	for k, v := range extra {
		args[k] = v
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		res := h.callRaw("debugpy_session_start", args)
		if !res.IsError {
			return structured(h.t, res)
		}
		if !strings.Contains(text(res), "connection refused") || time.Now().After(deadline) {
			h.t.Fatalf("attach: %s", text(res))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestAttachSecondClientAndDetach(t *testing.T) {
	t.Parallel()
	cmd, port := listen(t, "sleep")
	h := newHarness(t)
	dir := filepath.Dir(progFile)
	at := h.attach("", port, map[string]any{"path_mappings": []map[string]string{{"local_root": dir, "remote_root": dir}}})
	if str(t, at, "kind") != "attach" || num(t, at, "port") != port || len(get(t, at, "path_mappings").([]any)) != 1 {
		t.Fatalf("attach: %v", at)
	}
	h.call("debugpy_set_breakpoint", map[string]any{"file": progFile, "line": line(t, "sleep")})
	st := h.call("debugpy_wait_for_stop", map[string]any{"timeout_s": 20})
	if num(t, st, "stop.line") != line(t, "sleep") || str(t, st, "stop.file") != progFile {
		t.Fatalf("attach: stop not at the breakpoint with a local path: %v", st)
	}
	// A second client is refused, and says so.
	h2 := newHarness(t)
	res := h2.callRaw("debugpy_session_start", map[string]any{"port": port})
	if !res.IsError || !strings.Contains(text(res), "already being debugged") {
		t.Fatalf("second client: want a refusal, got %v %s", res.IsError, text(res))
	}
	h.call("debugpy_remove_breakpoint", map[string]any{"file": progFile, "line": line(t, "sleep")})
	h.call("debugpy_continue", map[string]any{"wait_s": 0})
	h.call("debugpy_session_stop", map[string]any{"terminate": false})
	// The port is free for the next client, which finds the program alive:
	// terminate=false did not end it.
	again := h2.attach("", port, nil)
	if str(t, again, "state") == "disconnected" || zombie(cmd.Process.Pid) {
		t.Fatalf("re-attach: %v", again)
	}
}

func TestDebuggeeKilled(t *testing.T) {
	t.Parallel()
	cmd, port := listen(t, "sleep")
	h := newHarness(t)
	h.attach("", port, nil)
	h.call("debugpy_set_breakpoint", map[string]any{"file": progFile, "line": line(t, "sleep")})
	h.call("debugpy_wait_for_stop", map[string]any{"timeout_s": 20})
	cmd.Process.Kill()
	cmd.Wait()
	start := time.Now()
	msg := h.fail("debugpy_variables", nil)
	if time.Since(start) > 20*time.Second {
		t.Errorf("variables on a dead debuggee took %v", time.Since(start))
	}
	if !strings.Contains(msg, "debugpy") {
		t.Fatalf("dead debuggee: unclear error %q", msg)
	}
	// The adapter reports the end after the failed request: wait for it.
	deadline := time.Now().Add(20 * time.Second)
	for {
		st := h.call("debugpy_session_status", nil)
		s := str(t, st, "state")
		if s == "disconnected" || s == "exited" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("status 20s after the kill: %v", st)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestErrorsSayWhatToDo(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	if msg := h.fail("debugpy_stack_trace", nil); !strings.Contains(msg, "debugpy_session_start or debugpy_launch") {
		t.Errorf("no session: %s", msg)
	}
	if msg := h.fail("debugpy_set_breakpoint", map[string]any{"file": "x.py", "line": "ten"}); !strings.Contains(msg, `"line" must be an integer`) {
		t.Errorf("wrong type: %s", msg)
	}
	if msg := h.fail("debugpy_set_breakpoint", map[string]any{"file": progFile}); !strings.Contains(msg, "line is required: the 1-based line to stop at") {
		t.Errorf("no line: %s", msg)
	}
	if msg := h.fail("debugpy_set_breakpoint", map[string]any{"file": "prog.py", "line": 3}); !strings.Contains(msg, `file "prog.py" is relative: give its absolute path`) {
		t.Errorf("a relative file: %s", msg)
	}
	if msg := h.fail("debugpy_source", map[string]any{"file": "../prog.py"}); !strings.Contains(msg, `file "../prog.py" is relative`) {
		t.Errorf("a relative source: %s", msg)
	}
	for _, tool := range []string{"debugpy_source", "debugpy_set_breakpoint"} {
		if msg := h.fail(tool, map[string]any{"file": "/proc\x00/self/environ", "line": 1}); !strings.Contains(msg, `file "/proc\x00/self/environ" has a NUL byte`) {
			t.Errorf("%s, a NUL in a file: %s", tool, msg)
		}
	}
	if msg := h.fail("debugpy_launch", map[string]any{"program": progFile, "python": "/usr/bin/python3\x00x"}); !strings.Contains(msg, "has a NUL byte") {
		t.Errorf("a NUL in python: %s", msg)
	}
	if msg := h.fail("debugpy_launch", map[string]any{"program": "x.py", "bogus": 1}); !strings.Contains(msg, `unknown argument "bogus"`) {
		t.Errorf("unknown argument: %s", msg)
	}
	if msg := h.fail("debugpy_launch", map[string]any{"program": progFile, "python": "/nonexistent/python"}); !strings.Contains(msg, "apt-get install python3-debugpy") {
		t.Errorf("bad python: %s", msg)
	}
	if msg := h.fail("debugpy_session_start", map[string]any{"port": 1}); !strings.Contains(msg, "--listen") {
		t.Errorf("nothing listening: %s", msg)
	}
}

func TestAttachPID(t *testing.T) {
	t.Parallel()
	py, err := dap.FindPython(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	skipInShort(t, "starts a program and attaches debugpy to it")
	// The interpreter is up once the program says so ("start sleep").
	cmd, first := cpython.Start(t, py, progFile, "sleep")
	if !strings.HasPrefix(first, "start") {
		t.Fatalf("the program's first line: %q", first)
	}
	h := newHarness(t)
	// gdb 13 cannot call a function in any process on some newer CPUs
	// (debugpy's injection is such a call): there the attach must say so
	// and what to do instead, and nothing more can be tested here.
	if !gdbCanCall(t) {
		msg := h.fail("debugpy_attach_pid", map[string]any{"pid": cmd.Process.Pid})
		if !strings.Contains(msg, "could not call a function in the process") || !strings.Contains(msg, "debugpy_launch") {
			t.Fatalf("attach pid where gdb cannot call a function: %s", msg)
		}
		t.Logf("gdb cannot call a function in a process on this machine: attach by pid tested up to its error only")
		return
	}
	at := h.call("debugpy_attach_pid", map[string]any{"pid": cmd.Process.Pid})
	if str(t, at, "kind") != "pid" || num(t, at, "pid") != cmd.Process.Pid || str(t, at, "nodelay") != dap.NoDelayOn {
		t.Fatalf("attach pid (want the one-write fix on): %v", at)
	}
	h.call("debugpy_set_breakpoint", map[string]any{"file": progFile, "line": line(t, "sleep")})
	st := h.call("debugpy_wait_for_stop", map[string]any{"timeout_s": 20})
	if num(t, st, "stop.line") != line(t, "sleep") {
		t.Fatalf("attach pid: no stop at the breakpoint: %v", st)
	}
	if msg := h.fail("debugpy_attach_pid", map[string]any{"session": "x", "pid": 999999999}); !strings.Contains(msg, "no such process") {
		t.Errorf("bad pid: %s", msg)
	}
}

// gdbCanCall reports whether gdb can call a function in a process here
// (it tries on a process of its own: a failed call can end the process).
func gdbCanCall(t *testing.T) bool {
	sleeper := exec.Command("sleep", "60")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { sleeper.Process.Kill(); sleeper.Wait() }()
	out, _ := exec.Command("gdb", "--nw", "--nh", "--nx", "--batch", "--pid", strconv.Itoa(sleeper.Process.Pid), "--eval-command", "call (int)getpid()").CombinedOutput()
	return !strings.Contains(string(out), "Couldn't write extended state status")
}

// Path mappings work both ways: a breakpoint set on the local path binds in
// the debuggee's file, and the stop is reported with the local path. Here the
// "local" tree is a copy of the debuggee's file elsewhere, reached through a
// symlinked directory: the gate resolves the local root and the breakpoint
// file alike, so the mapping still applies.
func TestAttachPathMappings(t *testing.T) {
	t.Parallel()
	_, port := listen(t, "sleep")
	remote := filepath.Dir(progFile)
	tmp := t.TempDir()
	real := filepath.Join(tmp, "checkout")
	os.Mkdir(real, 0o755)
	src, _ := os.ReadFile(progFile)
	os.WriteFile(filepath.Join(real, filepath.Base(progFile)), src, 0o644)
	local := filepath.Join(tmp, "link")
	if err := os.Symlink(real, local); err != nil {
		t.Fatal(err)
	}
	localProg := filepath.Join(local, filepath.Base(progFile))
	realProg, _ := filepath.EvalSymlinks(localProg)
	h := newHarness(t)
	h.attach("", port, map[string]any{"path_mappings": []map[string]string{{"local_root": local, "remote_root": remote}}})
	bp := h.call("debugpy_set_breakpoint", map[string]any{"file": localProg, "line": line(t, "sleep")})
	if get(t, bp, "breakpoint.verified") != true {
		t.Fatalf("breakpoint on the local path not verified: %v", bp)
	}
	st := h.call("debugpy_wait_for_stop", map[string]any{"timeout_s": 20})
	if str(t, st, "stop.file") != realProg {
		t.Fatalf("stop file: want the local path %s, got %v", realProg, st)
	}
	frames := h.call("debugpy_stack_trace", nil)
	if str(t, frames, "frames.0.file") != realProg {
		t.Fatalf("stack: want local paths, got %v", frames)
	}
}

// A path mapping maps whole directories: pydevd, given roots without a
// trailing separator, also maps any path that merely begins with the remote
// root, so that a remote root cut short named a local file of the agent's
// choosing (dap.dirMappings). A remote root one letter short of the
// program's directory maps nothing.
func TestAttachPathMappingsMatchWholeDirectories(t *testing.T) {
	t.Parallel()
	_, port := listen(t, "sleep")
	remote := filepath.Dir(progFile)
	local := filepath.Join(t.TempDir(), "l")
	h := newHarness(t)
	h.attach("", port, map[string]any{"path_mappings": []map[string]string{{"local_root": local, "remote_root": remote[:len(remote)-1]}}})
	h.call("debugpy_pause", map[string]any{"wait_s": 20})
	frames := h.call("debugpy_stack_trace", nil)
	if f := str(t, frames, "frames.0.file"); f != progFile {
		t.Fatalf("stack: want the program's own path %s, got %s", progFile, f)
	}
}

// A program waiting for its debugger runs no line before the attach has
// set what it asked for: a stop at its first line, breakpoints, exception
// filters.
func TestAttachConfiguresBeforeTheProgramRuns(t *testing.T) {
	t.Parallel()
	_, port := listen(t, "basic")
	h := newHarness(t)
	at := h.attach("", port, map[string]any{"stop_on_entry": true, "exception_filters": []string{"uncaught"},
		"breakpoints": []map[string]any{{"file": progFile, "line": line(t, "main")}}})
	if str(t, at, "state") != "stopped" || str(t, at, "stop.reason") != "entry" || str(t, at, "stop.file") != progFile || num(t, at, "stop.line") > 10 {
		t.Fatalf("attach with stop_on_entry: want a stop at the program's first lines, got %v", at)
	}
	if got := h.call("debugpy_list_breakpoints", nil); len(get(t, got, "breakpoints").([]any)) != 1 {
		t.Fatalf("the attach's breakpoint: %v", got)
	}
	if f := fmt.Sprint(at["exception_filters"]); f != "[uncaught]" {
		t.Fatalf("the attach's exception filters: %s", f)
	}
	st := h.call("debugpy_continue", nil)
	if str(t, st, "stop.reason") != "breakpoint" || num(t, st, "stop.line") != line(t, "main") {
		t.Fatalf("continue: want the attach's breakpoint, got %v", st)
	}
	// Without stop_on_entry, a breakpoint given at the attach is hit too:
	// the program did not run past it before it was set.
	_, port2 := listen(t, "basic")
	h2 := newHarness(t)
	h2.attach("", port2, map[string]any{"breakpoints": []map[string]any{{"file": progFile, "line": line(t, "main")}}})
	st = h2.call("debugpy_wait_for_stop", map[string]any{"timeout_s": 20})
	if str(t, st, "stop.reason") != "breakpoint" || num(t, st, "stop.line") != line(t, "main") {
		t.Fatalf("a breakpoint given at the attach: %v", st)
	}
	if msg := h2.fail("debugpy_session_start", map[string]any{"session": "x", "port": port2, "breakpoints": []map[string]any{{"file": "prog.py", "line": 3}}}); !strings.Contains(msg, `breakpoints[0].file "prog.py" is relative`) {
		t.Errorf("a relative breakpoint file: %s", msg)
	}
}
