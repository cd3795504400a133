package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/debugpy-guard/debugpy-guard/engine"
	"github.com/debugpy-guard/debugpy-guard/engine/audit"
	"github.com/debugpy-guard/debugpy-guard/tools"
	"golang.org/x/sys/unix"
)

var binary string

// TestMain builds the real binary: these tests drive it over stdio with
// mcp-go's client, as an MCP client would, against real debugpy.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "debugpy-guard-e2e-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "debugpy-guard")
	build := []string{"build", "-o", binary}
	if d := os.Getenv("SERVER_GOCOVERDIR"); d != "" {
		// make cover: the server counts too (approval, elicitation, serve),
		// into the directory the unit tests write theirs (go test -cover
		// gives the test binary a GOCOVERDIR of its own).
		build = append(build, "-cover", "-coverpkg=github.com/debugpy-guard/debugpy-guard/...")
		os.Setenv("GOCOVERDIR", d)
	}
	if out, err := exec.Command("go", append(build, ".")...).CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// skipInShort skips a test of the full tier in `go test -short` (the fast
// tier: native tests, no server, no debugpy, no toolchain); make test runs
// the full tier.
func skipInShort(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		t.Skip(what + ": the full tier (make test) runs it")
	}
}

// proc is one `debugpy-guard serve` under test, with its own state (audit
// log) and runtime (approval socket) directories.
type proc struct {
	t      *testing.T
	c      *client.Client
	cmd    *exec.Cmd
	dir    string
	env    []string
	stderr *lockedBuffer
	audit  string
	calls  int // calls answered through call: each has its decision record
}

type serveOpts struct {
	config   string // TOML; "" for the embedded default
	prompter *prompter
	protocol string
	dir      string // the server's directories (its state: the audit log); "" for a new one
}

// testEnv gives a server or a CLI command its directories under dir.
func testEnv(dir string) []string {
	return []string{"XDG_STATE_HOME=" + filepath.Join(dir, "state"), "XDG_RUNTIME_DIR=" + filepath.Join(dir, "run"),
		"XDG_CACHE_HOME=" + filepath.Join(os.TempDir(), "debugpy-guard-e2e-cache")}
}

func startServe(t *testing.T, o serveOpts) *proc {
	skipInShort(t, "starts the server")
	t.Helper()
	p := &proc{t: t, dir: o.dir, stderr: &lockedBuffer{}}
	if p.dir == "" {
		p.dir = t.TempDir()
	}
	os.Mkdir(filepath.Join(p.dir, "run"), 0o700)
	p.env = testEnv(p.dir)
	p.audit = filepath.Join(p.dir, "state", "debugpy-guard", "audit.jsonl")
	var args []string
	if o.config != "" {
		file := filepath.Join(p.dir, "guard.toml")
		os.WriteFile(file, []byte(o.config), 0o600)
		args = []string{"--config", file}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, cmd, err := startClient(ctx, clientSpec{Bin: binary, Env: p.env, Prompter: o.prompter, Protocol: o.protocol, Stderr: p.stderr, Args: args})
	if err != nil {
		t.Fatalf("start serve: %v\n%s", err, p.stderr)
	}
	p.c, p.cmd = c, cmd
	t.Cleanup(func() {
		c.Close()
		if t.Failed() {
			t.Logf("serve stderr:\n%s", p.stderr)
		}
	})
	return p
}

func (p *proc) call(tool string, args map[string]any) *mcp.CallToolResult {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = tool, args
	res, err := p.c.CallTool(ctx, req)
	if err != nil {
		p.t.Fatalf("%s: %v", tool, err)
	}
	p.calls++
	return res
}

// ok calls a tool that must succeed.
func (p *proc) ok(tool string, args map[string]any) *mcp.CallToolResult {
	p.t.Helper()
	res := p.call(tool, args)
	if res.IsError {
		p.t.Fatalf("%s: %s", tool, textOf(res))
	}
	return res
}

// denied calls a tool that must fail with a text holding every one of want.
func (p *proc) denied(tool string, args map[string]any, want ...string) string {
	p.t.Helper()
	res := p.call(tool, args)
	text := textOf(res)
	if !res.IsError {
		p.t.Fatalf("%s: want an error, got %s", tool, text)
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			p.t.Fatalf("%s: %q lacks %q", tool, text, w)
		}
	}
	return text
}

// cli runs a debugpy-guard command beside the server (same directories).
func (p *proc) cli(args ...string) (string, error) {
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), p.env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// decisions are the audit log's decision records, once every call answered
// through call has its record.
func (p *proc) decisions() []audit.Entry {
	p.t.Helper()
	return waitDecisions(p.t, p.audit, p.calls)
}

func textOf(res *mcp.CallToolResult) string { return tools.Text(res) }

// sample writes the demo's program into dir and returns it and its BREAK line.
func sample(t testing.TB, dir string) (string, int) {
	prog := filepath.Join(dir, "orders.py")
	if err := os.WriteFile(prog, sampleProgram, 0o644); err != nil {
		t.Fatal(err)
	}
	return prog, sampleBreakLine()
}

// stopAtBreak launches the sample and runs it to its breakpoint.
func (p *proc) stopAtBreak() string {
	p.t.Helper()
	prog, line := sample(p.t, p.dir)
	p.ok("debugpy_launch", map[string]any{"program": prog})
	p.ok("debugpy_set_breakpoint", map[string]any{"file": prog, "line": line})
	if res := p.ok("debugpy_continue", nil); !strings.Contains(textOf(res), "stopped (breakpoint)") {
		p.t.Fatalf("continue: %s", textOf(res))
	}
	return prog
}

func TestServeDefaultPolicy(t *testing.T) {
	p := startServe(t, serveOpts{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	list, err := p.c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	if len(list.Tools) != 24 {
		t.Fatalf("tools/list: %d tools", len(list.Tools))
	}
	p.denied("debugpy_session_start", map[string]any{"host": "10.1.2.3", "port": 5678},
		"denied by policy (module targets)", "10.1.2.3 is not allowed", "--config")
	p.denied("debugpy_evaluate", map[string]any{"expression": "__import__('os').system('id')"}, "module expressions", "__import__")
	// No elicitation here: a call that needs a person gets a pending id.
	first := p.denied("debugpy_launch", map[string]any{"program": "x.py"}, "needs a person's approval", "debugpy-guard approve ")
	again := p.denied("debugpy_launch", map[string]any{"program": "x.py"}, "needs a person's approval")
	if id(t, first) != id(t, again) {
		t.Fatalf("a retry before the answer got a new id: %s then %s", id(t, first), id(t, again))
	}
	// Allowed, reaches the handler, which says what to do.
	p.denied("debugpy_stack_trace", nil, "call debugpy_session_start or debugpy_launch")
}

// id is the approval id in a pending call's text.
func id(t testing.TB, text string) string {
	t.Helper()
	_, after, ok := strings.Cut(text, "Approval id: ")
	if !ok || len(after) < 8 {
		t.Fatalf("no approval id in %q", text)
	}
	return after[:8]
}

func TestServeBadConfigStops(t *testing.T) {
	for _, c := range []struct{ name, toml, want string }{
		{"unknown built-in", "[modules.x]\nsource = \"builtin:nope\"\n", "no built-in module \"nope\""},
		{"syntax", "default = \n", "guard.toml:1"},
		{"missing file", "[modules.x]\nsource = \"missing.wasm\"\n", "modules.x.source"},
		// Found only once the module loads, in the background: the server
		// stops then, with the module's name and the reason.
		{"settings rejected", "[modules.cat]\nsource = \"builtin:category\"\nsettings = { read = \"maybe\" }\n", "guard.toml:3: modules.cat.settings: category: read must be allow, deny or approve"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "guard.toml")
			os.WriteFile(file, []byte(c.toml), 0o600)
			cmd := exec.Command(binary, "serve", "--config", file)
			cmd.Env = append(os.Environ(), testEnv(dir)...)
			stdin, _ := cmd.StdinPipe() // held open: the server must stop on its own
			defer stdin.Close()
			var stdout, stderr lockedBuffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if err == nil || stdout.String() != "" || !strings.Contains(stderr.String(), c.want) {
				t.Fatalf("err %v, stdout %q, stderr %q", err, stdout.String(), stderr.String())
			}
		})
	}
}

const flowConfig = `
default = "deny"
hide = ["debugpy_attach_pid"]

[audit]
arguments = "full"

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
// redacted from a result, a hidden tool, and the audit log verified, and
// found out once tampered with.
func TestServeDebugFlowRedacted(t *testing.T) {
	p := startServe(t, serveOpts{config: flowConfig})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	list, _ := p.c.ListTools(ctx, mcp.ListToolsRequest{})
	for _, tool := range list.Tools {
		if tool.Name == "debugpy_attach_pid" {
			t.Fatal("hidden tool is listed")
		}
	}
	p.denied("debugpy_attach_pid", map[string]any{"pid": os.Getpid()}, "is hidden by the policy config")
	prog := p.stopAtBreak()
	res := p.ok("debugpy_variables", map[string]any{"scope": "globals"})
	raw, _ := json.Marshal(res.StructuredContent)
	if strings.Contains(string(raw)+textOf(res), "s3cr3t-hunter2") || !strings.Contains(string(raw), "DB_PASSWORD") {
		t.Fatalf("globals not redacted: %s\n%s", raw, textOf(res))
	}
	// The redacted listing reads as a listing, with a short note.
	if text := textOf(res); !strings.Contains(text, "DB_PASSWORD: str = [redacted]") || strings.Contains(text, `"variables"`) ||
		!strings.HasPrefix(text, "(policy redact changed ") {
		t.Fatalf("the redacted listing's text:\n%s", text)
	}
	p.denied("debugpy_evaluate", map[string]any{"expression": "DB_PASSWORD"}, "a secret's name")
	if res := p.ok("debugpy_evaluate", map[string]any{"expression": "qty * price"}); !strings.Contains(textOf(res), "1.5") {
		t.Fatalf("evaluate: %s", textOf(res))
	}
	// A result too long to show whole is cut, saying how to read the rest.
	// ('ab' * 60000 builds text, which a person reads first: approved here)
	bigArgs := map[string]any{"expression": "'ab' * 60000", "context": "clipboard"}
	if out, err := p.cli("approve", "--yes", id(t, p.denied("debugpy_evaluate", bigArgs, "needs a person's approval"))); err != nil {
		t.Fatalf("approve: %v\n%s", err, out)
	}
	big := p.ok("debugpy_evaluate", bigArgs)
	raw, _ = json.Marshal(big.StructuredContent)
	if text := textOf(big); len(text) > engine.DefaultMaxResult+512 || len(raw) > engine.DefaultMaxResult ||
		!strings.Contains(text, "[cut: the text is") || !strings.Contains(text, "evaluate a part of it") || !strings.Contains(string(raw), "…[cut: ") {
		t.Fatalf("a 120 KB result: text %d bytes, structured %d bytes:\n%.300s\n…%s", len(text), len(raw), text, text[max(0, len(text)-300):])
	}
	p.ok("debugpy_stack_trace", nil)
	p.ok("debugpy_step_over", nil)
	p.ok("debugpy_remove_breakpoint", map[string]any{"file": prog, "line": sampleBreakLine()})
	if res := p.ok("debugpy_continue", nil); !strings.Contains(textOf(res), "exited") {
		t.Fatalf("continue to the end: %s", textOf(res))
	}
	// debugpy splits a print into several output events: join them.
	var out strings.Builder
	raw, _ = json.Marshal(p.ok("debugpy_output", nil).StructuredContent)
	var o struct{ Entries []struct{ Text string } }
	json.Unmarshal(raw, &o)
	for _, e := range o.Entries {
		out.WriteString(e.Text)
	}
	if !strings.Contains(out.String(), "order 2 total") {
		t.Fatalf("output: %s", raw)
	}
	p.ok("debugpy_session_stop", nil)

	// The audit log: a decision and an outcome per call, arguments in full
	// as configured, the hidden call among them; it verifies.
	p.c.Close()
	dec := p.decisions()
	if len(dec) < 12 || dec[0].Decision != "hidden" || string(dec[0].Arguments) != fmt.Sprintf(`{"pid":%d}`, os.Getpid()) {
		t.Fatalf("decisions: %+v", dec)
	}
	if out, err := p.cli("audit", "verify", p.audit); err != nil || !strings.Contains(out, "ok,") {
		t.Fatalf("audit verify: %v %s", err, out)
	}
	data, _ := os.ReadFile(p.audit)
	tampered := filepath.Join(p.dir, "tampered.jsonl")
	os.WriteFile(tampered, bytes.Replace(data, []byte(`"decision":"hidden"`), []byte(`"decision":"allow"`), 1), 0o600)
	if out, err := p.cli("audit", "verify", tampered); err == nil || !strings.Contains(out, "line 1: seq 1: the hash does not match") {
		t.Fatalf("tampered log: %v %s", err, out)
	}
}

const approvalConfig = `
default = "deny"

[approval]
timeout = "3s"

[modules.category]
source = "builtin:category"
settings = { read = "allow", write = "allow", execute = "allow", defer = ["debugpy_evaluate"] }

[modules.expressions]
source = "builtin:expressions"

[modules.redact]
source = "builtin:redact"

[[rules]]
tools = ["debugpy_*"]
call = ["category", "expressions"]
result = ["redact"]
`

// debugpy_evaluate of a call needs approval (expressions); the person
// answers through the client's prompt: accept, decline, cancel, or no answer
// in time. Both protocol eras: multi round-trip (2026-07-28) and a held
// call with a server-initiated request (2025-11-25).
func TestServeApprovalByElicitation(t *testing.T) {
	for _, protocol := range []string{"", mcp.LATEST_LEGACY_PROTOCOL_VERSION} {
		name := "modern"
		if protocol != "" {
			name = "legacy"
		}
		t.Run(name, func(t *testing.T) {
			pr := &prompter{answer: mcp.ElicitationResponseActionAccept}
			p := startServe(t, serveOpts{config: approvalConfig, prompter: pr, protocol: protocol})
			p.stopAtBreak()
			eval := map[string]any{"expression": "len(order.items)"}
			if res := p.ok("debugpy_evaluate", eval); !strings.Contains(textOf(res), "2") || pr.asked != 1 {
				t.Fatalf("accepted: %s (asked %d)", textOf(res), pr.asked)
			}
			pr.answer = mcp.ElicitationResponseActionDecline
			p.denied("debugpy_evaluate", eval, "was declined by the user")
			pr.answer = mcp.ElicitationResponseActionCancel
			p.denied("debugpy_evaluate", eval, "cancelled")
			pr.answer, pr.delay = mcp.ElicitationResponseActionAccept, 5*time.Second
			p.denied("debugpy_evaluate", eval, "did not answer within 3s")
			// A modern client's call is two records, held then answered.
			answered := func(dec []audit.Entry) (states []string) {
				for _, d := range dec {
					if d.Approval != nil && d.Approval.State != "pending" {
						states = append(states, d.Approval.State)
					}
				}
				return states
			}
			dec := waitRecords(t, p.audit, "four answers", func(dec []audit.Entry) bool { return len(answered(dec)) >= 4 })
			if states := answered(dec); strings.Join(states, ",") != "approved,declined,cancelled,timed out" {
				t.Fatalf("approval records: %v", states)
			}
		})
	}
}

// A client without elicitation: the call returns a pending id at once; a
// person approves it with the CLI; the retried call runs once.
func TestServeApprovalByCLI(t *testing.T) {
	p := startServe(t, serveOpts{config: approvalConfig})
	p.stopAtBreak()
	eval := map[string]any{"expression": "len(order.items)"}
	pending := p.denied("debugpy_evaluate", eval, "needs a person's approval (module expressions)")
	aid := id(t, pending)
	if out, err := p.cli("approvals"); err != nil || !strings.Contains(out, aid) || !strings.Contains(out, "len(order.items)") {
		t.Fatalf("approvals: %v %s", err, out)
	}
	// An argument cannot approve: other arguments are another call.
	other := p.denied("debugpy_evaluate", map[string]any{"expression": "len(order.items)", "context": "watch"}, "needs a person's approval")
	if id(t, other) == aid {
		t.Fatal("other arguments share the approval")
	}
	// approve shows the call, and approves it only on a person's yes: the
	// id came through the agent, whose words about it may be anything.
	// Without a terminal (here /dev/null), nothing is approved.
	if out, err := p.cli("approve", aid); err == nil || !strings.Contains(out, "len(order.items)") || !strings.Contains(out, "not approved: stdin is not a terminal") {
		t.Fatalf("approve without a terminal: %v %s", err, out)
	}
	if got := id(t, p.denied("debugpy_evaluate", eval, "needs a person's approval")); got != aid {
		t.Fatalf("after approve without a terminal: %s, want %s still waiting", got, aid)
	}
	if out, err := p.answerOnTerminal("no\n", "approve", aid); err == nil || !strings.Contains(out, "len(order.items)") ||
		!strings.Contains(out, "Approve this call?") || !strings.Contains(out, "not approved: "+aid+" still waits") {
		t.Fatalf("approve answered no: %v %s", err, out)
	}
	p.denied("debugpy_evaluate", eval, "needs a person's approval")
	if out, err := p.answerOnTerminal("y\n", "approve", aid); err != nil || !strings.Contains(out, "len(order.items)") || !strings.Contains(out, "approved "+aid) {
		t.Fatalf("approve answered yes: %v %s", err, out)
	}
	if res := p.ok("debugpy_evaluate", eval); !strings.Contains(textOf(res), "2") {
		t.Fatalf("approved call: %s", textOf(res))
	}
	// Used once: the next identical call waits for a person again.
	again := id(t, p.denied("debugpy_evaluate", eval, "needs a person's approval"))
	if again == aid {
		t.Fatal("an approval was used twice")
	}
	if out, err := p.cli("deny", again); err != nil {
		t.Fatalf("deny: %v %s", err, out)
	}
	p.denied("debugpy_evaluate", eval, "was denied by a person")
	if out, err := p.cli("approve", "deadbeef"); err == nil || !strings.Contains(out, "approvals") {
		t.Fatalf("approve of an unknown id: %v %s", err, out)
	}
	if out, err := p.cli("approve", "--yes", "deadbeef"); err == nil || !strings.Contains(out, "approvals") {
		t.Fatalf("approve --yes of an unknown id: %v %s", err, out)
	}
}

// answerOnTerminal runs the cli with a pseudo-terminal as its stdin, on
// which a person types typed; it returns what the command wrote.
func (p *proc) answerOnTerminal(typed string, args ...string) (string, error) {
	p.t.Helper()
	person, tty := openPTY(p.t)
	if _, err := person.WriteString(typed); err != nil {
		p.t.Fatal(err)
	}
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), p.env...)
	cmd.Stdin = tty
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// openPTY opens a pseudo-terminal: the side a person types on, and the
// terminal a command reads.
func openPTY(t *testing.T) (person, tty *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Fatalf("a pseudo-terminal (/dev/ptmx): %v", err)
	}
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlockpt: %v", err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("ptsname: %v", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("the terminal's side: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return m, s
}

// Killed with SIGKILL while calls are in flight, the server leaves an audit
// log that verifies: with calls that run (their records durable before
// they run) and with denied ones (their records written after the answer);
// a server started again on it goes on from it, a torn last line too (it
// failed here once: a kill in the middle of a write tore the last line,
// and verify refused it).
func TestServeAuditSurvivesSIGKILL(t *testing.T) {
	for _, def := range []string{"allow", "deny"} {
		t.Run(def, func(t *testing.T) {
			p := startServe(t, serveOpts{config: "default = \"" + def + "\"\n"})
			var wg sync.WaitGroup
			stop := make(chan struct{})
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
						ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
						req := mcp.CallToolRequest{}
						req.Params.Name = "debugpy_sessions"
						_, err := p.c.CallTool(ctx, req)
						cancel()
						if err != nil {
							return // the server is gone
						}
					}
				}()
			}
			waitDecisions(t, p.audit, 50)
			p.cmd.Process.Signal(syscall.SIGKILL)
			close(stop)
			wg.Wait()
			p.cmd.Wait() // gone: the file holds what it wrote (a line torn by the kill, maybe)
			out, err := p.cli("audit", "verify", p.audit)
			if err != nil || !strings.Contains(out, "ok,") {
				t.Fatalf("audit verify after SIGKILL: %v %s", err, out)
			}
			t.Log(out)
			// A kill in the middle of a write tears its last line (the
			// kernel stops a write between pages; engine/audit's package
			// doc), as it sometimes does here: as if it had.
			f, err := os.OpenFile(p.audit, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(`{"seq":999,"time":"2026-12-05T10:00:00Z","prev":"0f`)
			f.Close()
			// A server started again on the log goes on from it.
			q := startServe(t, serveOpts{config: "default = \"" + def + "\"\n", dir: p.dir})
			req := mcp.CallToolRequest{}
			req.Params.Name = "debugpy_sessions"
			if _, err := q.c.CallTool(context.Background(), req); err != nil {
				t.Fatalf("a call after the restart: %v\n%s", err, q.stderr)
			}
			q.c.Close()
			q.cmd.Wait()
			again, err := p.cli("audit", "verify", p.audit)
			if err != nil || !strings.Contains(again, "ok,") || !strings.Contains(again, "torn") || again == out {
				t.Fatalf("audit verify after the restart: %v %s (before it: %s)", err, again, out)
			}
			t.Log(again)
		})
	}
}

// A denied call is answered before its records are written; on SIGTERM
// the server writes every one of them before it exits.
func TestServeDeniedRecordsSurviveSIGTERM(t *testing.T) {
	p := startServe(t, serveOpts{config: "default = \"deny\"\n"})
	const n = 200
	for i := 0; i < n; i++ {
		p.denied("debugpy_sessions", nil, "denied by policy")
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("serve after SIGTERM: %v\n%s", err, p.stderr)
	}
	out, err := p.cli("audit", "verify", p.audit)
	if err != nil || !strings.Contains(out, fmt.Sprintf("ok, %d record(s)", 2*n)) {
		t.Fatalf("audit verify after SIGTERM: %v %s", err, out)
	}
}

// DEBUGPY_GUARD_CPUPROFILE writes a CPU profile of serve when it exits
// (the benchmarks' end-to-end profile); a path that cannot be written stops
// the server with the variable's name.
func TestServeCPUProfile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "serve.pprof")
	r := startRaw(t, rawOpts{config: "default = \"deny\"\n", env: []string{"DEBUGPY_GUARD_CPUPROFILE=" + file}})
	r.refused("debugpy_evaluate", `{"expression":"x"}`, "denied by policy")
	r.in.Close()
	if err := r.cmd.Wait(); err != nil {
		t.Fatalf("serve: %v\n%s", err, r.stderr)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f) // a pprof profile is a gzipped protocol buffer
	if err != nil {
		t.Fatalf("not a profile: %v", err)
	}
	if data, err := io.ReadAll(zr); err != nil || len(data) == 0 {
		t.Fatalf("profile: %d bytes, %v", len(data), err)
	}

	dir := t.TempDir()
	cmd := exec.Command(binary, "serve")
	cmd.Env = append(os.Environ(), append(testEnv(dir), "DEBUGPY_GUARD_CPUPROFILE="+filepath.Join(dir, "no", "such", "dir", "p"))...)
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "DEBUGPY_GUARD_CPUPROFILE") {
		t.Fatalf("serve with an unwritable profile: %v %s", err, out)
	}
}

const reloadConfig = `
default = "allow"
hide = []

[modules.ratelimit]
source = "builtin:ratelimit"
settings = { max = 3, window = "1m" }

[[rules]]
tools = ["debugpy_*"]
call = ["ratelimit"]
`

// SIGHUP, or a change to the file, loads the config again: a valid one is
// swapped in (rate-limit counts kept), a broken one is logged and the old
// one stays.
func TestServeReload(t *testing.T) {
	p := startServe(t, serveOpts{config: reloadConfig})
	file := filepath.Join(p.dir, "guard.toml")
	listed := func() int {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		l, err := p.c.ListTools(ctx, mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		return len(l.Tools)
	}
	// waitFor polls until cond holds (a reload is asynchronous).
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("no %s", what)
			}
		}
	}
	p.ok("debugpy_sessions", nil)
	p.ok("debugpy_sessions", nil)
	os.WriteFile(file, []byte(strings.Replace(reloadConfig, "hide = []", `hide = ["debugpy_attach_pid"]`, 1)), 0o600)
	p.cmd.Process.Signal(syscall.SIGHUP)
	waitFor("reload", func() bool { return listed() == 23 })
	p.ok("debugpy_sessions", nil) // the third call of the window: the count survived the reload
	p.denied("debugpy_sessions", nil, "rate limit: 4 calls in 1m0s, at most 3")

	// A broken config, noticed by the file watch: logged, the old one stays.
	os.WriteFile(file, []byte("default = \"maybe\"\n"), 0o600)
	waitFor("reload failure in the log", func() bool { return strings.Contains(p.stderr.String(), "reload failed") })
	if !strings.Contains(p.stderr.String(), `maybe\" is not allow, deny or approve`) {
		t.Fatalf("the reason is not logged:\n%s", p.stderr)
	}
	if n := listed(); n != 23 {
		t.Fatalf("after a failed reload: %d tools listed", n)
	}
	p.denied("debugpy_sessions", nil, "rate limit")

	// A valid config that someone else could change (renamed in whole, so
	// that no reload reads it before its mode): whoever can write it would
	// decide every call. Refused; the old one stays.
	failed := strings.Count(p.stderr.String(), "reload failed")
	open := file + ".new"
	os.WriteFile(open, []byte(reloadConfig), 0o600)
	os.Chmod(open, 0o646)
	os.Rename(open, file)
	waitFor("a second reload failure", func() bool { return strings.Count(p.stderr.String(), "reload failed") > failed })
	if !strings.Contains(p.stderr.String(), "guard.toml can be written by others") {
		t.Fatalf("the reason is not logged:\n%s", p.stderr)
	}
	if n := listed(); n != 23 {
		t.Fatalf("after a config open to others: %d tools listed", n)
	}
}

func TestCheck(t *testing.T) {
	out, err := exec.Command(binary, "check").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "builtin:default.toml: valid") ||
		!strings.Contains(string(out), "debugpy_evaluate") || !strings.Contains(string(out), "ratelimit, category, targets, expressions") {
		t.Fatalf("check: %v\n%s", err, out)
	}
	file := filepath.Join(t.TempDir(), "guard.toml")
	os.WriteFile(file, []byte("[modules.cat]\nsource = \"builtin:category\"\nsettings = { read = \"maybe\" }\n"), 0o600)
	out, err = exec.Command(binary, "check", "--config", file).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "guard.toml:3: modules.cat.settings: category: read must be") {
		t.Fatalf("check of a bad config: %v\n%s", err, out)
	}
	os.WriteFile(file, []byte("default = \"deny\"\n"), 0o600)
	os.Chmod(file, 0o646)
	out, err = exec.Command(binary, "check", "--config", file).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "guard.toml can be written by others") || !strings.Contains(string(out), "chmod go-w") {
		t.Fatalf("check of a config open to others: %v\n%s", err, out)
	}
}
