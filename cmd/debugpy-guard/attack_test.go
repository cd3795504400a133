package main

// The agent is the adversary (docs/SECURITY.md). These tests drive the real
// binary with the embedded default policy over stdio with a raw JSON-RPC
// client that sends exact bytes, against real debugpy, and check three
// things for each attack: the call was refused, the audit log says so, and
// nothing happened (no marker file written, nothing read, nothing dialled).

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdh"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/debugpy-guard/debugpy-guard/dap"
	"github.com/debugpy-guard/debugpy-guard/engine/audit"
	"github.com/debugpy-guard/debugpy-guard/internal/cpython"
	"github.com/debugpy-guard/debugpy-guard/internal/pyrepr"
)

// raw is `debugpy-guard serve` driven byte for byte.
type raw struct {
	t      testing.TB
	cmd    *exec.Cmd
	in     io.WriteCloser
	lines  chan []byte
	dir    string
	env    []string
	stderr *lockedBuffer
	audit  string
	id     int
	calls  int // tools/call requests answered: each has its decision record
	mu     sync.Mutex
	seen   lockedBuffer // every byte the server wrote to stdout: all the agent receives
}

type rawOpts struct {
	bin    string   // the server's binary; "" for the one under test
	config string   // TOML; "" for the embedded default
	wrap   []string // runs the server under this command (unshare ...)
	env    []string
}

func startRaw(t testing.TB, o rawOpts) *raw {
	t.Helper()
	skipInShort(t, "starts the server")
	r := &raw{t: t, dir: t.TempDir(), stderr: &lockedBuffer{}, lines: make(chan []byte, 64)}
	os.Mkdir(filepath.Join(r.dir, "run"), 0o700)
	r.env = append(testEnv(r.dir), o.env...)
	r.audit = filepath.Join(r.dir, "state", "debugpy-guard", "audit.jsonl")
	args := []string{"serve"}
	if o.config != "" {
		file := filepath.Join(r.dir, "guard.toml")
		os.WriteFile(file, []byte(o.config), 0o600)
		args = append(args, "--config", file)
	}
	bin := binary
	if o.bin != "" {
		bin = o.bin
	}
	argv := append(append(append([]string{}, o.wrap...), bin), args...)
	r.cmd = exec.Command(argv[0], argv[1:]...)
	r.cmd.Env = append(os.Environ(), r.env...)
	r.cmd.Stderr = r.stderr
	// Its own process group, so that a wrapper's helpers end with it.
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	r.cmd.WaitDelay = 10 * time.Second
	var err error
	if r.in, err = r.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := r.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			r.seen.Write(sc.Bytes())
			r.seen.Write([]byte("\n"))
			r.lines <- append([]byte(nil), sc.Bytes()...)
		}
		close(r.lines)
	}()
	t.Cleanup(func() {
		r.in.Close()
		done := make(chan struct{})
		go func() { r.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			r.cmd.Process.Kill()
			<-done
		}
		syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL) // a wrapper's helpers
		killUnder(r.dir)                                  // a program left running by a test that failed mid-way
		if t.Failed() {
			t.Logf("serve stderr:\n%s", r.stderr)
		}
	})
	r.request("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"attacker","version":"1"}}`)
	r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return r
}

func (r *raw) send(line string) {
	r.t.Helper()
	if _, err := io.WriteString(r.in, line+"\n"); err != nil {
		r.t.Fatalf("write: %v", err)
	}
}

// request sends a request with params as they are and returns its result.
func (r *raw) request(method, params string) json.RawMessage {
	r.t.Helper()
	return r.await(r.begin(method, params))[0]
}

// begin sends a request with params as they are, without waiting for its
// answer (await takes it): a call the test runs beside another.
func (r *raw) begin(method, params string) int {
	r.t.Helper()
	r.mu.Lock()
	r.id++
	id := r.id
	r.mu.Unlock()
	r.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
	return id
}

// await takes the results of the requests ids, in their order, whatever
// order they come in.
func (r *raw) await(ids ...int) []json.RawMessage {
	r.t.Helper()
	results := make([]json.RawMessage, len(ids))
	left := len(ids)
	deadline := time.After(90 * time.Second)
	for left > 0 {
		select {
		case line, ok := <-r.lines:
			if !ok {
				r.t.Fatalf("request %v: the server closed stdout\n%s", ids, r.stderr)
			}
			var msg struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(line, &msg) != nil || msg.ID == nil {
				continue // a notification, or a log line that must never be here
			}
			i := slices.Index(ids, *msg.ID)
			if i < 0 {
				continue
			}
			if msg.Error != nil {
				r.t.Fatalf("request %d: protocol error %s", *msg.ID, msg.Error)
			}
			results[i] = msg.Result
			left--
		case <-deadline:
			r.t.Fatalf("requests %v: no answer", ids)
		}
	}
	return results
}

// call sends tools/call with the arguments exactly as given.
func (r *raw) call(tool, args string) (text string, isError bool) {
	r.t.Helper()
	r.calls++
	return r.toolResult(tool, r.request("tools/call", `{"name":"`+tool+`","arguments":`+args+`}`))
}

// toolResult reads a tools/call result: its texts, and whether it is an
// error.
func (r *raw) toolResult(tool string, res json.RawMessage) (text string, isError bool) {
	r.t.Helper()
	var out struct {
		Content []struct{ Text string } `json:"content"`
		IsError bool                    `json:"isError"`
	}
	if err := json.Unmarshal(res, &out); err != nil {
		r.t.Fatalf("%s: result %s: %v", tool, res, err)
	}
	var parts []string
	for _, c := range out.Content {
		parts = append(parts, c.Text)
	}
	return strings.Join(parts, "\n"), out.IsError
}

func (r *raw) ok(tool, args string) string {
	r.t.Helper()
	text, isErr := r.call(tool, args)
	if isErr {
		r.t.Fatalf("%s %s: %s", tool, args, text)
	}
	return text
}

// refused calls a tool that must be refused with a text holding each of want.
func (r *raw) refused(tool, args string, want ...string) string {
	r.t.Helper()
	text, isErr := r.call(tool, args)
	if !isErr {
		r.t.Fatalf("%s %s: ran: %s", tool, args, text)
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			r.t.Fatalf("%s %s: %q lacks %q", tool, args, text, w)
		}
	}
	return text
}

// stopAtBreak launches src as app.py in r's directory (a person approves
// the launch), with a breakpoint at its line marked "# BREAK", and
// continues to it.
// outputWith reads the program's output from its start until it holds
// want, and returns it: debugpy's adapter sends what the program printed
// from the process's pipe, on its own, and a stop (or the program's exit)
// can come before the output printed before it (a loaded CI run's
// debugpy_output, right after the stop, had none). A test that checks
// what the output shows waits for its last line (of each stream it
// writes to), so that none of its checks passes on output not yet come.
// It fails the test after 30 s.
func (r *raw) outputWith(want string) string {
	r.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for pause := 50 * time.Millisecond; ; pause = min(2*pause, 2*time.Second) { // a few calls: the rate limit counts them
		text := r.ok("debugpy_output", `{}`)
		if strings.Contains(text, want) {
			return text
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("the program's output has no %q after 30 s: %s", want, text)
		}
		time.Sleep(pause)
	}
}

func (r *raw) stopAtBreak(src string) {
	r.t.Helper()
	prog := filepath.Join(r.dir, "app.py")
	os.WriteFile(prog, []byte(src), 0o644)
	line := strings.Count(src[:strings.Index(src, "# BREAK")], "\n") + 1
	r.approved("debugpy_launch", `{"program":`+q(prog)+`}`)
	r.ok("debugpy_set_breakpoint", fmt.Sprintf(`{"file":%s,"line":%d}`, q(prog), line))
	if text := r.ok("debugpy_continue", `{}`); !strings.Contains(text, "stopped (breakpoint)") {
		r.t.Fatalf("continue: %s", text)
	}
}

// rowRef is the variables reference of the row of name in text, a
// listing's.
func (r *raw) rowRef(text, name string) string {
	r.t.Helper()
	m := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(name) + `[: ].*\[ref (\d+)\]$`).FindStringSubmatch(text)
	if m == nil {
		r.t.Fatalf("no row of %s in %s", name, text)
	}
	return m[1]
}

// listRef lists the children of the variables reference ref, more
// arguments after it (`,"max_items":200`).
func (r *raw) listRef(ref, more string) string {
	r.t.Helper()
	return r.ok("debugpy_variables", `{"variables_reference":`+ref+more+`}`)
}

// approved runs a call that needs a person, approving it with the cli.
func (r *raw) approved(tool, args string) string {
	r.t.Helper()
	text := r.refused(tool, args, "needs a person's approval")
	if out, err := r.cli("approve", "--yes", id(r.t, text)); err != nil {
		r.t.Fatalf("approve: %v\n%s", err, out)
	}
	return r.ok(tool, args)
}

func (r *raw) cli(args ...string) (string, error) {
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), r.env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// lastDecision is the audit log's newest decision record, once every call
// answered has its record (a denied call's is written after its answer).
func (r *raw) lastDecision() audit.Entry {
	r.t.Helper()
	dec := waitDecisions(r.t, r.audit, r.calls)
	return dec[len(dec)-1]
}

// waitDecisions reads the audit log's decision records until there are at
// least n: a call that runs nothing is answered before its record is written.
func waitDecisions(t testing.TB, path string, n int) []audit.Entry {
	t.Helper()
	return waitRecords(t, path, fmt.Sprintf("%d decision records", n), func(dec []audit.Entry) bool { return len(dec) >= n })
}

// waitRecords reads the audit log's decision records until ok says they are
// all there.
func waitRecords(t testing.TB, path, want string, ok func([]audit.Entry) bool) []audit.Entry {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		data, _ := os.ReadFile(path)
		var out []audit.Entry
		for _, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			var e audit.Entry
			if json.Unmarshal(l, &e) == nil && e.Kind == "decision" {
				out = append(out, e)
			}
		}
		if ok(out) {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("audit log %s: %d decision records, not %s", path, len(out), want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func q(s string) string { b, _ := json.Marshal(s); return string(b) }

// noneSeen fails t for each secret in seen (all the agent received), with
// the bytes around it.
func noneSeen(t *testing.T, seen string, secrets ...string) {
	t.Helper()
	for _, secret := range secrets {
		if i := strings.Index(seen, secret); i >= 0 {
			t.Errorf("%q reached the agent: …%s…", secret, seen[max(0, i-200):min(len(seen), i+50)])
		}
	}
}

// evaluateEach evaluates each expression, each of which must run.
func (r *raw) evaluateEach(exprs ...string) {
	r.t.Helper()
	for _, e := range exprs {
		r.ok("debugpy_evaluate", `{"expression":`+q(e)+`}`)
	}
}

// masked evaluates each expression and fails unless its result shows the
// mask.
func (r *raw) masked(exprs ...string) {
	r.t.Helper()
	for _, e := range exprs {
		if text := r.ok("debugpy_evaluate", `{"expression":`+q(e)+`}`); !strings.Contains(text, "[redacted]") {
			r.t.Errorf("%s: %s", e, text)
		}
	}
}

// shown evaluates expr, which must run and show want.
func (r *raw) shown(expr, want string) {
	r.t.Helper()
	if text := r.ok("debugpy_evaluate", `{"expression":`+q(expr)+`}`); !strings.Contains(text, want) {
		r.t.Errorf("%s: %s", expr, text)
	}
}

// stopped launches the sample (approved by a person) and runs it to its
// breakpoint; it returns the program's path and its breakpoint line.
func (r *raw) stopped() (string, int) {
	r.t.Helper()
	prog, line := sample(r.t, r.dir)
	r.approved("debugpy_launch", `{"program":`+q(prog)+`}`)
	r.ok("debugpy_set_breakpoint", fmt.Sprintf(`{"file":%s,"line":%d}`, q(prog), line))
	if text := r.ok("debugpy_continue", `{}`); !strings.Contains(text, "stopped (breakpoint)") {
		r.t.Fatalf("continue: %s", text)
	}
	return prog, line
}

func noFile(t *testing.T, f, what string) {
	t.Helper()
	if _, err := os.Stat(f); err == nil {
		t.Fatalf("%s: it ran (%s exists)", what, f)
	}
}

// One reading of the arguments: a key in other case, a repeated key, an
// escaped repeat, a lone surrogate, invalid UTF-8 are refused as malformed
// before any module sees them, and nothing runs.
func TestAttackTwoReadings(t *testing.T) {
	r := startRaw(t, rawOpts{})
	prog, line := r.stopped()
	marker := filepath.Join(r.dir, "ran")
	code := q(`__import__('os').system('touch ` + marker + `')`)
	for _, c := range []struct{ tool, args string }{
		{"debugpy_evaluate", `{"EXPRESSION":` + code + `}`},
		{"debugpy_evaluate", `{"Expression":` + code + `}`},
		{"debugpy_evaluate", `{"expression":"1","expression":` + code + `}`},
		{"debugpy_evaluate", `{"expression":` + code + `,"expression":"1"}`},
		{"debugpy_evaluate", `{"expression":"1","expr\u0065ssion":` + code + `}`},
		{"debugpy_evaluate", `{"expression":"\ud800\u0022 + ` + code[1:] + `}`},
		{"debugpy_evaluate", "{\"expression\":\"1\xff\"}"},
		{"debugpy_evaluate", `{"expression":"1","context":"watch","Context":"repl"}`},
		{"debugpy_set_breakpoint", fmt.Sprintf(`{"file":%s,"line":%d,"Condition":%s}`, q(prog), line, code)},
		{"debugpy_set_breakpoint", fmt.Sprintf(`{"file":%s,"line":%d,"condition":"1","condition":%s}`, q(prog), line, code)},
		{"debugpy_set_variable", `{"name":"amount","value":"1","VALUE":` + code + `}`},
		{"debugpy_launch", `{"program":` + q(prog) + `,"program":"/tmp/other.py"}`},
		{"debugpy_session_start", `{"session":"b","HOST":"10.1.2.3"}`},
		{"debugpy_source", `{"File":"/etc/shadow"}`},
	} {
		text := r.refused(c.tool, c.args, "malformed arguments")
		if d := r.lastDecision(); d.Decision != "deny" || d.Tool != c.tool {
			t.Fatalf("%s %s: audit %+v", c.tool, c.args, d)
		}
		if strings.Contains(text, "root:") {
			t.Fatalf("%s: read: %s", c.tool, text)
		}
	}
	// The program runs on through the breakpoint line: no condition ran.
	for i := 0; i < 4; i++ {
		r.call("debugpy_continue", `{}`)
	}
	noFile(t, marker, "a second reading")
}

// Every argument debugpy runs as Python is judged: a hit condition is code,
// a repl statement is never a plain read, a set_variable name is code.
func TestAttackCodeNobodyJudged(t *testing.T) {
	r := startRaw(t, rawOpts{})
	prog, line := r.stopped()
	marker := filepath.Join(r.dir, "ran")
	run := `__import__('os').system('touch ` + marker + `')`
	for _, h := range []string{"%2 or " + run, "== 1 or " + run, run, ">0 and " + run} {
		r.refused("debugpy_set_breakpoint", fmt.Sprintf(`{"file":%s,"line":%d,"hit_condition":%s}`, q(prog), line, q(h)),
			"denied by policy", "hit_condition")
	}
	// A plain hit count is still Python that runs: a person decides.
	r.refused("debugpy_set_breakpoint", fmt.Sprintf(`{"file":%s,"line":%d,"hit_condition":"2"}`, q(prog), line), "needs a person's approval")
	// pydevd replaces @HIT@ by the hit count in the agent's own text too:
	// "s@HIT@[0]" would be judged as s1[0] and run as s12[0] at the twelfth
	// hit, a name nobody judged (before: a person was asked about s1).
	for _, h := range []string{`@HIT@ > 2 and s@HIT@[0] == 'p'`, `s@HIT\u0040`, `%2 or x@HIT@`} {
		r.refused("debugpy_set_breakpoint", fmt.Sprintf(`{"file":%s,"line":%d,"hit_condition":"%s"}`, q(prog), line, h),
			"malformed arguments", "by the hit count")
	}
	r.refused("debugpy_set_breakpoint", fmt.Sprintf(`{"file":%s,"line":%d,"log_message":%s}`, q(prog), line, q("{x) or ("+run+"}")), "denied by policy")
	for _, stmt := range []string{"for _ in [1]: pass", "del amount", "amount = 0", "amount"} {
		r.refused("debugpy_evaluate", `{"expression":`+q(stmt)+`,"context":"repl"}`, "needs a person's approval")
	}
	r.refused("debugpy_evaluate", `{"expression":"amount","context":"repl"}`, "it runs Python statements")
	r.refused("debugpy_evaluate", `{"expression":"amount@LINE@import os","context":"repl"}`, "denied by policy")
	r.refused("debugpy_set_variable", `{"name":"a.b;import os","value":"1"}`, "denied by policy")
	// A plain read still needs nobody.
	r.ok("debugpy_evaluate", `{"expression":"amount"}`)
	for i := 0; i < 4; i++ {
		r.call("debugpy_continue", `{}`)
	}
	noFile(t, marker, "unjudged code")
}

// A plain expression of constants asked the program for memory or time
// without bounds ('a' * 10**10 is 10 GB; 10**10**10, hours): the program
// froze or was killed, and the machine with it, with no person asked. Past
// the bounds a person decides. (The sizes sent here are harmless if they
// run: 20 MB, 20 million bits.)
func TestAttackSizes(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopped()
	for _, e := range []string{"len('a' * 20_000_000)", "(2 ** 20_000_000) > 0", "(1 << 20_000_000) > 0", "len('%020000000d' % 1)",
		"len(([0] * 6_000_000, [1] * 6_000_000))"} {
		r.refused("debugpy_evaluate", `{"expression":`+q(e)+`}`, "needs a person's approval", "a person decides")
	}
	if text := r.ok("debugpy_evaluate", `{"expression":"(len([0] * 80), 2 ** 64)"}`); !strings.Contains(text, "(80, 18446744073709551616)") {
		t.Fatalf("the control: %s", text)
	}
}

// Files are judged as they will be read: /proc, /sys and /dev never; a file
// outside the debug session, or a link out of it, only with a person.
func TestAttackFiles(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopped()
	secret := filepath.Join(t.TempDir(), ".env")
	os.WriteFile(secret, []byte("API_KEY=do-not-read-me\n"), 0o600)
	link := filepath.Join(r.dir, "innocent.py")
	os.Symlink(secret, link)
	for _, c := range []struct{ file, want string }{
		{"/proc/self/environ", "never allowed"},
		{"/proc/self/../self/environ", "never allowed"},
		{"/dev/stdin", "never allowed"},
		{"/sys/kernel/notes", "never allowed"},
		{"/etc/shadow", "needs a person's approval"},
		{secret, "needs a person's approval"},
		{link, "needs a person's approval"},
	} {
		text := r.refused("debugpy_source", `{"file":`+q(c.file)+`}`, c.want)
		if strings.Contains(text, "do-not-read-me") || strings.Contains(text, "root:") || strings.Contains(text, "PATH=") {
			t.Fatalf("%s: read: %s", c.file, text)
		}
	}
	// The program's own file, and a file beside it, need nobody.
	if text := r.ok("debugpy_source", `{}`); !strings.Contains(text, "BREAK") {
		t.Fatalf("own source: %s", text)
	}
	os.WriteFile(filepath.Join(r.dir, "helper.py"), []byte("x = 1\n"), 0o644)
	r.ok("debugpy_source", `{"file":`+q(filepath.Join(r.dir, "helper.py"))+`}`)
}

// A path mapping decides which local files the debuggee's frames and loaded
// sources name, and those belong to the session: an attach, which needs no
// person, that mapped the program's file to a secret file made
// debugpy_source read it with nobody asked (found 2026-12-05). A mapping of
// a file is malformed, a mapping of a directory needs a person, and one
// into /proc is denied; an attach without a mapping runs unasked.
func TestAttackPathMappings(t *testing.T) {
	r := startRaw(t, rawOpts{})
	app := filepath.Join(r.dir, "app")
	os.Mkdir(app, 0o755)
	prog := filepath.Join(app, "main.py")
	home := filepath.Join(r.dir, "home")
	os.Mkdir(home, 0o700)
	secret := filepath.Join(home, "notes.txt")
	os.WriteFile(secret, []byte("the vault's combination is 31-4-15\n"), 0o600)
	port := listening(t, prog)
	mapped := func(local string) string {
		return fmt.Sprintf(`{"port":%d,"path_mappings":[{"local_root":%s,"remote_root":%s}]}`, port, q(local), q(prog))
	}
	link := filepath.Join(r.dir, "innocent")
	os.Symlink(secret, link)
	for _, local := range []string{secret, link, home + "/./../home/notes.txt"} { // every spelling of the file
		r.refused("debugpy_session_start", mapped(local), "malformed arguments", "is a file")
	}
	// One reading of the arguments: a repeated key, a key in another case.
	for _, args := range []string{
		fmt.Sprintf(`{"port":%d,"path_mappings":[{"local_root":%s,"local_root":%s,"remote_root":%s}]}`, port, q(home), q(secret), q(prog)),
		fmt.Sprintf(`{"port":%d,"Path_Mappings":[{"local_root":%s,"remote_root":%s}]}`, port, q(secret), q(prog)),
	} {
		r.refused("debugpy_session_start", args, "malformed arguments")
	}
	r.refused("debugpy_session_start", mapped(home), "needs a person's approval", "the path mapping puts the debuggee's files under "+home)
	if d := r.lastDecision(); d.Decision != "approve" {
		t.Fatalf("a mapping of a directory: audit %+v", d)
	}
	r.refused("debugpy_session_start", mapped("/proc/self"), "never allowed")
	// Nothing connected: the program still waits for its first client.
	if text := r.ok("debugpy_session_start", fmt.Sprintf(`{"port":%d}`, port)); !strings.Contains(text, "attached") {
		t.Fatalf("attach: %s", text)
	}
	if text := r.ok("debugpy_wait_for_stop", `{"timeout_s":60}`); !strings.Contains(text, prog) {
		t.Fatalf("wait: %s", text)
	}
	r.refused("debugpy_source", `{"file":`+q(secret)+`}`, "needs a person's approval")
	noneSeen(t, r.seen.String(), "31-4-15")
}

// A launch's env that configures the debugger is refused before a person
// is asked: the server reads the program through it. With
// PYDEVD_CONTAINER_RANDOM_ACCESS_MAX_ITEMS=1, approved as a harmless
// setting, the stop's listing saw one item of each dict, and an alias of a
// password held past it came back in clear (found 2026-12-06). The same
// program launched with an env of its own is masked.
func TestAttackDebuggerSettings(t *testing.T) {
	r := startRaw(t, rawOpts{})
	src := "def main():\n    config = {('k%d' % i): i for i in range(20)}\n    config['db_password'] = 'Kx9-envsecret-pass-Q2'\n" +
		"    conn_arg = config['db_password']\n    n = 1  # BREAK\nmain()\n"
	prog := filepath.Join(r.dir, "app.py")
	os.WriteFile(prog, []byte(src), 0o644)
	launch := func(env string) string { return `{"program":` + q(prog) + `,"env":` + env + `}` }
	for _, env := range []string{
		`{"PYDEVD_CONTAINER_RANDOM_ACCESS_MAX_ITEMS":"1"}`,
		`{"PYDEVD\u005fCONTAINER_RANDOM_ACCESS_MAX_ITEMS":"1"}`, // escaped: the same name
		`{"pydevd_container_random_access_max_items":"1"}`,
		`{"APP_MODE":"test","PATHS_FROM_ECLIPSE_TO_PYTHON":"[[\"/root/.pgpass\",\"/app/app.py\"]]"}`,
		`{"PYDEVD_DEBUG_FILE":"/tmp/log.py","PYDEVD_DEBUG":"1"}`,
		`{"DEBUGPY_LOG_DIR":"/tmp"}`,
		`{"PYDEV_DEBUG":"1"}`,
	} {
		r.refused("debugpy_launch", launch(env), "malformed arguments", "is a setting of the debugger itself")
	}
	r.refused("debugpy_launch", launch(`{"A=B":"1"}`), "malformed arguments", "is not a variable's name")
	r.refused("debugpy_launch", launch(`{"A":"x\u0000y"}`), "malformed arguments", "NUL byte")
	r.refused("debugpy_launch", launch(`{"APP_MODE":"a","APP_MODE":"b"}`), "malformed arguments")
	if text := r.ok("debugpy_sessions", `{}`); strings.Contains(text, "app.py") {
		t.Fatalf("a refused launch started a session: %s", text)
	}
	r.approved("debugpy_launch", launch(`{"APP_MODE":"test"}`))
	r.ok("debugpy_set_breakpoint", fmt.Sprintf(`{"file":%s,"line":5}`, q(prog)))
	if text := r.ok("debugpy_continue", `{}`); !strings.Contains(text, "stopped (breakpoint)") {
		t.Fatalf("continue: %s", text)
	}
	r.shown("conn_arg", "[redacted]")
	noneSeen(t, r.seen.String(), "envsecret")
}

// The session's secrets are bounded (4,096), and the agent can make it
// learn values of its own: an evaluate of {'pw': ['fl000001', ...]} shows
// nine strings under a secret's name (debugpy cuts the rest). Once it was
// full, the session learned no more, silently: a secret the program held
// later, read through an innocent alias, came back in clear (found
// 2026-12-05). Now a result that would teach one more is withheld, and a
// call that needs the stop's listing does not run.
func TestAttackSecretStoreFlood(t *testing.T) {
	data, err := os.ReadFile("../../policies/default.toml")
	if err != nil {
		t.Fatal(err)
	}
	// The default policy, its rate limit raised so that the flood (~460
	// calls) does not take four minutes.
	r := startRaw(t, rawOpts{config: strings.Replace(string(data), "max = 120", "max = 1000000", 1)})
	src := "import time\n" +
		"def main():\n" +
		"    n = 1  # BREAK\n" +
		"    password = 'real-s3cret-value-42'\n" +
		"    alias = password\n" +
		"    return alias  # SECOND\n" +
		"main()\n"
	r.stopAtBreak(src)
	full := false
	for i := 0; i < 2000 && !full; i++ {
		// 14 values and the two lists that spell them: 16 guesses, the
		// most an expression writes unasked
		var vals []string
		for j := 0; j < 14; j++ {
			vals = append(vals, fmt.Sprintf("'fl%06d'", i*14+j))
		}
		text, _ := r.call("debugpy_evaluate", `{"expression":`+q("{'pw': ["+strings.Join(vals[:7], ", ")+"], 'pw2': ["+strings.Join(vals[7:], ", ")+"]}")+`}`)
		full = strings.Contains(text, "result withheld") && strings.Contains(text, "secrets, as many as it masks")
	}
	if !full {
		t.Fatal("2,000 calls did not fill the session's secrets")
	}
	prog := filepath.Join(r.dir, "app.py")
	second := strings.Count(src[:strings.Index(src, "# SECOND")], "\n") + 1
	r.ok("debugpy_set_breakpoint", fmt.Sprintf(`{"file":%s,"line":%d}`, q(prog), second))
	if text := r.ok("debugpy_continue", `{}`); !strings.Contains(text, "stopped (breakpoint)") {
		t.Fatalf("continue: %s", text)
	}
	for _, e := range []string{"alias", "(alias, 1)"} {
		text, _ := r.call("debugpy_evaluate", `{"expression":`+q(e)+`}`)
		if !strings.Contains(text, "did not run") || !strings.Contains(text, "a new server starts with none") {
			t.Errorf("%s: %s", e, text)
		}
	}
	noneSeen(t, r.seen.String(), "real-s3cret-value-42")
}

// A call that reads values runs where the program is stopped when its
// handler runs, and the secrets were learned where it was stopped when the
// call was judged. A stop in between (another call's continue, another
// thread's breakpoint) ran the code at a stop no one had listed: here the
// path the code reads, read whole first, starts a thread that stops at a
// breakpoint, and the code's alias[1:] then ran in that thread's frame,
// where alias holds a secret, and came back in clear (found 2026-12-05).
// Now a result made after the program stopped again is withheld.
func TestAttackStopBetweenListingAndRun(t *testing.T) {
	r := startRaw(t, rawOpts{})
	src := "import sys, threading, time\n" +
		"def worker():\n" +
		"    alias = 'real-s3cret-value-42'\n" +
		"    return alias  # WORKER\n" +
		"class Holder:\n" +
		"    def __getitem__(self, key):\n" +
		"        if key != 'go':\n" +
		"            return 'xx'\n" +
		"        t = threading.Thread(target=worker, daemon=True)\n" +
		"        t.start()\n" +
		"        # Until the thread waits at its breakpoint: its stop is sent.\n" +
		"        for _ in range(6000):\n" +
		"            f, names = sys._current_frames().get(t.ident), []\n" +
		"            while f is not None:\n" +
		"                names.append(f.f_code.co_name)\n" +
		"                f = f.f_back\n" +
		"            if '_do_wait_suspend' in names:\n" +
		"                break\n" +
		"            time.sleep(0.01)\n" +
		"        return 'go'\n" +
		"holder = Holder()\n" +
		"def main():\n" +
		"    n = 1  # BREAK\n" +
		"    return n\n" +
		"main()\n"
	prog := filepath.Join(r.dir, "app.py")
	worker := strings.Count(src[:strings.Index(src, "# WORKER")], "\n") + 1
	r.stopAtBreak(src)
	r.ok("debugpy_set_breakpoint", fmt.Sprintf(`{"file":%s,"line":%d}`, q(prog), worker))
	// Paths read after the one that starts the thread: the while in which
	// the session learns where that thread stopped.
	expr := "(alias[1:], holder['go'][0]"
	for i := range 20 {
		expr += fmt.Sprintf(", holder[%d][0]", i)
	}
	expr += ")"
	r.refused("debugpy_evaluate", `{"expression":`+q(expr)+`}`, "did not run", "stopped again after the call came")
	// A stop that comes while the code runs (the thread started by the
	// code's own read): its result is withheld.
	r.refused("debugpy_evaluate", `{"expression":"holder['go']"}`, "ran, but the program stopped again while it ran")
	noneSeen(t, r.seen.String(), "eal-s3cret-value-42")
}

// listening starts prog, a Python program that listens for debugpy's client
// on a port of 127.0.0.1 the system picks, waits for it, then stops at a
// breakpoint; it returns the port, which the program prints first (no
// other test can take it in between).
func listening(t *testing.T, prog string) int {
	t.Helper()
	os.WriteFile(prog, []byte("import debugpy, time\n"+
		"print(debugpy.listen(('127.0.0.1', 0))[1], flush=True)\n"+
		"debugpy.wait_for_client()\n"+
		"debugpy.breakpoint()\n"+
		"for _ in range(6000):\n    time.sleep(0.1)\n"), 0o644)
	py, err := dap.FindPython(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	_, line := cpython.Start(t, py, prog)
	port, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("the program printed no port: %q %v", line, err)
	}
	return port
}

// Any user of the machine can listen on loopback. An attach, which needs
// no person, to a debugpy another user runs (root's, another
// developer's) read that user's program, unasked (found 2026-12-06). It
// needs a person now; approved, it attaches.
func TestAttackAttachToAnotherUsersDebugpy(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("running a debugpy as another user needs root (CI runs as root)")
	}
	const python = "/usr/bin/python3" // Debian's, with python3-debugpy; one another user may run
	if err := exec.Command(python, "-c", "import debugpy").Run(); err != nil {
		t.Skipf("%s cannot import debugpy: make deps installs python3-debugpy", python)
	}
	r := startRaw(t, rawOpts{})
	dir, err := os.MkdirTemp("", "dg-other-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	prog := filepath.Join(dir, "theirs.py")
	os.WriteFile(prog, []byte("import debugpy, time\n"+
		"print(debugpy.listen(('127.0.0.1', 0))[1], flush=True)\n"+
		"debugpy.wait_for_client()\n"+
		"their_note = 'n0t-y0urs'\n"+
		"debugpy.breakpoint()\n"+
		"for _ in range(6000):\n    time.sleep(0.1)\n"), 0o644)
	cmd := exec.Command(python, prog)
	cmd.Dir, cmd.Env = "/", []string{"HOME=/", "PATH=/usr/bin:/bin"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	line := cpython.StartCmd(t, cmd)
	port, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("the program printed no port: %q %v", line, err)
	}
	args := fmt.Sprintf(`{"port":%d}`, port)
	text := r.refused("debugpy_session_start", args, "needs a person's approval", "runs as another user of this machine")
	if d := r.lastDecision(); d.Decision != "approve" {
		t.Fatalf("audit %+v", d)
	}
	if out, err := r.cli("approve", "--yes", id(t, text)); err != nil {
		t.Fatalf("approve: %v\n%s", err, out)
	}
	if text := r.ok("debugpy_session_start", args); !strings.Contains(text, "attached") {
		t.Fatalf("attach, approved: %s", text)
	}
	if text := r.ok("debugpy_wait_for_stop", `{"timeout_s":60}`); !strings.Contains(text, prog) {
		t.Fatalf("wait: %s", text)
	}
}

// An approval of an attach to one user's debugpy approved no other's. The
// agent has a person approve an attach to user 65534's listener; that
// listener goes and user 65533's takes the port; the same call retried
// went through on the approval (both are "other" to the modules, and the
// connection's check judged the new listener, found at the retry). Now
// the approval is bound to whose listener it was, and the retry asks a
// person again, naming that user.
func TestAttackApprovedAttachAnotherListener(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("listening as other users needs root (CI runs as root)")
	}
	r := startRaw(t, rawOpts{})
	// A listener that takes each connection and closes it: the attach, if
	// it ran, would fail at once, not wait for an answer.
	listen := func(uid uint32, port int) (*exec.Cmd, int) {
		cmd := exec.Command("/usr/bin/python3", "-c", `import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen()
print(s.getsockname()[1], flush=True)
while True:
    s.accept()[0].close()
`, strconv.Itoa(port))
		cmd.Dir = "/"
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: 65534}}
		line := cpython.StartCmd(t, cmd)
		got, err := strconv.Atoi(strings.TrimSpace(line))
		if err != nil {
			t.Fatalf("uid %d's listener printed no port: %q %v", uid, line, err)
		}
		return cmd, got
	}
	first, port := listen(65534, 0)
	args := fmt.Sprintf(`{"port":%d}`, port)
	text := r.refused("debugpy_session_start", args, "needs a person's approval", "runs as another user of this machine (uid 65534)")
	approved := id(t, text)
	if out, err := r.cli("approve", "--yes", approved); err != nil {
		t.Fatalf("approve: %v\n%s", err, out)
	}
	first.Process.Kill()
	first.Wait()
	listen(65533, port)
	text = r.refused("debugpy_session_start", args, "needs a person's approval", "runs as another user of this machine (uid 65533)")
	if id(t, text) == approved {
		t.Fatalf("the retry was held under the approval given for uid 65534: %s", text)
	}
}

// With attach by PID on, a server run as root enters any process: one of
// another user's needs a person, before gdb is run.
func TestAttackAttachToAnotherUsersProcess(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("running a process as another user needs root (CI runs as root)")
	}
	data, err := os.ReadFile("../../policies/default.toml")
	if err != nil {
		t.Fatal(err)
	}
	cfg := strings.Replace(string(data), `settings = { hosts = ["loopback"], files = "approve" }`, `settings = { hosts = ["loopback"], files = "approve", allow_pid = true }`, 1)
	if cfg == string(data) {
		t.Fatal("the default config's targets line changed: update this test")
	}
	r := startRaw(t, rawOpts{config: cfg})
	cmd := exec.Command("sleep", "600")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	r.refused("debugpy_attach_pid", fmt.Sprintf(`{"pid":%d}`, cmd.Process.Pid), "needs a person's approval",
		fmt.Sprintf("process %d runs as another user of this machine", cmd.Process.Pid))
}

// A launch makes the files under the program's directory and its cwd the
// debug session's, read with nobody asked. A script in the home directory
// (or a cwd of / or ~) made every file of the user's the session's:
// ~/.pgpass read unasked. A directory that holds the home directory is
// not taken, and the person who approves a launch is told what it grants.
func TestAttackFilesUnderHome(t *testing.T) {
	home := t.TempDir()
	r := startRaw(t, rawOpts{env: []string{"HOME=" + home}})
	pgpass := filepath.Join(home, ".pgpass")
	os.WriteFile(pgpass, []byte("db:5432:app:app:pgpass-s3cret\n"), 0o600)
	prog := filepath.Join(home, "notes.py")
	os.WriteFile(prog, []byte("import time\nn = 1  # BREAK\n"), 0o644)
	for _, cwd := range []string{home, "/"} {
		args := `{"program":` + q(prog) + `,"cwd":` + q(cwd) + `}`
		text := r.refused("debugpy_launch", args, "needs a person's approval", "the files under "+home+" and "+cwd, "reads without asking")
		if out, err := r.cli("approve", "--yes", id(t, text)); err != nil {
			t.Fatalf("approve: %v\n%s", err, out)
		}
		r.ok("debugpy_launch", args)
		r.ok("debugpy_set_breakpoint", fmt.Sprintf(`{"file":%s,"line":2}`, q(prog)))
		if text := r.ok("debugpy_continue", `{}`); !strings.Contains(text, "stopped (breakpoint)") {
			t.Fatalf("cwd %s: continue: %s", cwd, text)
		}
		r.refused("debugpy_source", `{"file":`+q(pgpass)+`}`, "needs a person's approval")
		// The control: the program's own file is the session's.
		if text := r.ok("debugpy_source", `{}`); !strings.Contains(text, "BREAK") {
			t.Fatalf("own source: %s", text)
		}
		r.ok("debugpy_session_stop", `{"terminate":true}`)
	}
	// A person who approves reading a credential file approves the agent
	// reading it, not seeing its passwords: a .pgpass line's fifth field,
	// a .netrc line's password, masked by their formats, whole and in any
	// window of lines.
	netrc := filepath.Join(home, ".netrc")
	os.WriteFile(netrc, []byte("machine api.example.com\n  login ada\n  password netrc-s3cret-value\n"), 0o600)
	for _, args := range []string{`{"file":` + q(pgpass) + `}`, `{"file":` + q(netrc) + `}`, `{"file":` + q(netrc) + `,"line":3,"context_lines":0}`} {
		if text := r.approved("debugpy_source", args); !strings.Contains(text, "[redacted]") {
			t.Errorf("%s: %s", args, text)
		}
	}
	noneSeen(t, r.seen.String(), "pgpass-s3cret", "netrc-s3cret")
}

// A person approves a call where the program is stopped, seeing it: the
// approval runs the call there, not at a later stop the agent ran the
// program to before retrying it (where record.append(i) appends another i,
// and the same expression can reach other objects).
func TestAttackApprovalAtAnotherStop(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak("record = []\nfor i in range(5):\n    n = i  # BREAK\nprint('record', record, flush=True)\n")
	const call = `{"expression":"record.append(i * 10)"}`
	text := r.refused("debugpy_evaluate", call, "needs a person's approval", "while the program is where it is now")
	out, err := r.cli("approvals")
	stopNo := regexp.MustCompile(`stop \d+: `)
	first := stopNo.FindString(text)
	if err != nil || first == "" || !strings.Contains(out, first) || !strings.Contains(out, "app.py:3") {
		t.Fatalf("approvals does not say where the program is stopped: %v\n%s\n%s", err, out, text)
	}
	if out, err := r.cli("approve", "--yes", id(t, text)); err != nil {
		t.Fatalf("approve: %v\n%s", err, out)
	}
	if text := r.ok("debugpy_continue", `{}`); !strings.Contains(text, "stopped (breakpoint)") {
		t.Fatalf("continue: %s", text)
	}
	// At the next stop the approval does not hold: a person is asked again.
	text = r.refused("debugpy_evaluate", call, "needs a person's approval")
	if next := stopNo.FindString(text); next == "" || next == first {
		t.Fatalf("the second stop is named %q, the first %q: %s", next, first, text)
	}
	if out, err := r.cli("approve", "--yes", id(t, text)); err != nil {
		t.Fatalf("approve: %v\n%s", err, out)
	}
	r.ok("debugpy_evaluate", call)
	if text := r.ok("debugpy_evaluate", `{"expression":"record"}`); !strings.Contains(text, "[10]") {
		t.Fatalf("record: %s", text)
	}
}

// An approval binds to the debug session, not to its name. The agent
// ended the session, launched the program again under the same name and
// ran it to the same stop (the same number, the same place): the approval
// made for the first program ran in the second (found 2026-12-05). Each
// session now has a number of its own, in the binding and in the question.
func TestAttackApprovalInAnotherSession(t *testing.T) {
	r := startRaw(t, rawOpts{})
	const src = "record = []\nn = 1  # BREAK\nprint('record', record, flush=True)\n"
	r.stopAtBreak(src)
	const call = `{"expression":"record.append(7)"}`
	text := r.refused("debugpy_evaluate", call, "needs a person's approval", "session default #")
	if out, err := r.cli("approve", "--yes", id(t, text)); err != nil {
		t.Fatalf("approve: %v\n%s", err, out)
	}
	r.ok("debugpy_session_stop", `{"terminate":true}`)
	r.stopAtBreak(src)
	second := r.refused("debugpy_evaluate", call, "needs a person's approval")
	first := regexp.MustCompile(`session default #\d+, stop \d+`)
	if a, b := first.FindString(text), first.FindString(second); a == "" || a == b {
		t.Fatalf("the two sessions' stops read alike: %q and %q", a, b)
	}
}

// The same, for a call approved while its program runs: a breakpoint's
// condition, approved for one session, bound to no stop and to no
// session, ran unasked in the next session of the name (found 2026-12-05).
func TestAttackApprovalWhileRunningInAnotherSession(t *testing.T) {
	r := startRaw(t, rawOpts{})
	const src = "import time\nn = 0  # BREAK\nwhile True:\n    n += 1\n    time.sleep(0.05)\n"
	prog := filepath.Join(r.dir, "app.py")
	call := `{"file":` + q(prog) + `,"line":4,"condition":"n > 10**9"}`
	running := func() {
		r.stopAtBreak(src)
		if text := r.ok("debugpy_continue", `{"wait_s":0}`); !strings.Contains(text, "running") {
			t.Fatalf("continue: %s", text)
		}
	}
	running()
	text := r.refused("debugpy_set_breakpoint", call, "needs a person's approval", "session default #", "not stopped")
	if out, err := r.cli("approve", "--yes", id(t, text)); err != nil {
		t.Fatalf("approve: %v\n%s", err, out)
	}
	r.ok("debugpy_session_stop", `{"terminate":true}`)
	running()
	again := r.refused("debugpy_set_breakpoint", call, "needs a person's approval")
	// Approved in this session, it runs.
	if out, err := r.cli("approve", "--yes", id(t, again)); err != nil {
		t.Fatalf("approve: %v\n%s", err, out)
	}
	r.ok("debugpy_set_breakpoint", call)
}

// A person approves a call where the program is stopped, and it runs there
// only. The binding was checked before the call ran, and a continue that
// the agent sent beside it ran the program on in between: here the path
// the code reads, read whole first, waits in the program until pydevd marks
// the thread to run, so the continue lands in that while, and the approved
// record.append(i * 10) ran at the next stop (i = 1) or failed there, never
// where it was approved (found 2026-12-05). Now a continue, a step or a
// pause waits until a call that runs at the stop has its answer
// (dap.Session.Hold), and such a call does not run once the program has
// run on or stopped again since it came.
func TestAttackContinueBesideAnApprovedCall(t *testing.T) {
	r := startRaw(t, rawOpts{})
	reading := filepath.Join(r.dir, "reading")
	r.stopAtBreak("import threading, time\n" +
		"record = []\n" +
		"class Holder:\n" +
		"    waited = False\n" +
		"    def __getitem__(self, key):\n" +
		"        if key != 'go' or Holder.waited:\n" +
		"            return key\n" +
		"        Holder.waited = True\n" +
		"        open(" + q(reading) + ", 'w').close()\n" +
		"        # Until a continue marks this thread to run (pydevd's\n" +
		"        # STATE_RUN, set by its reader thread), or 5 s.\n" +
		"        info = threading.current_thread().additional_info\n" +
		"        for _ in range(500):\n" +
		"            if info.pydev_state == 1:\n" +
		"                break\n" +
		"            time.sleep(0.01)\n" +
		"        return key\n" +
		"holder = Holder()\n" +
		"for i in range(3):\n" +
		"    n = i  # BREAK\n")
	const call = `{"expression":"record.append(i * 10) or holder['go'][0:]"}`
	text := r.refused("debugpy_evaluate", call, "needs a person's approval")
	if out, err := r.cli("approve", "--yes", id(t, text)); err != nil {
		t.Fatalf("approve: %v\n%s", err, out)
	}
	evaluate := r.begin("tools/call", `{"name":"debugpy_evaluate","arguments":`+call+`}`)
	// The program says when the gate's read of holder['go'] has begun.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(reading); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the gate never read holder['go']\n%s", r.stderr)
		}
	}
	cont := r.begin("tools/call", `{"name":"debugpy_continue","arguments":{}}`)
	res := r.await(evaluate, cont)
	r.calls += 2
	if text, isErr := r.toolResult("debugpy_evaluate", res[0]); isErr || !strings.Contains(text, "go") {
		t.Errorf("the approved evaluate: %s", text)
	}
	if text, _ := r.toolResult("debugpy_continue", res[1]); !strings.Contains(text, "stopped (breakpoint)") {
		t.Fatalf("continue: %s", text)
	}
	if text := r.ok("debugpy_evaluate", `{"expression":"(i, record)"}`); !strings.Contains(text, "(1, [0])") {
		t.Fatalf("the approved code ran elsewhere than where it was approved (i = 0): %s", text)
	}
}

// A person sees every argument in full, escaped; arguments too long to show
// are refused, never cut.
func TestAttackApprovalShowsEverything(t *testing.T) {
	r := startRaw(t, rawOpts{})
	prog, _ := sample(t, r.dir)
	marker := filepath.Join(r.dir, "ran")
	evil := filepath.Join(r.dir, "evil.sh")
	os.WriteFile(evil, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755)
	args := `{"program":` + q(prog) + `,"args":["` + strings.Repeat(" ", 6000) + `"],"python":` + q(evil) + `}`
	text := r.refused("debugpy_launch", args, "needs a person's approval")
	out, err := r.cli("approvals")
	if err != nil {
		t.Fatalf("approvals: %v\n%s", err, out)
	}
	for _, want := range []string{`"python" = ` + q(evil), `⟨6000 spaces⟩`, `"program" = ` + q(prog)} {
		if !strings.Contains(out, want) {
			t.Fatalf("approvals lacks %q:\n%s", want, out)
		}
	}
	r.cli("deny", id(t, text))
	noFile(t, marker, "evil.sh")
	// Control characters and look-alike letters are shown escaped.
	r.refused("debugpy_launch", `{"program":`+q(prog)+`,"args":["a\u0000b\tc\u2028","ｅｖａｌ"]}`, "needs a person's approval")
	out, _ = r.cli("approvals")
	if !strings.Contains(out, `"a\u{0}b\tc\u{2028}"`) || !strings.Contains(out, `\u{ff45}\u{ff56}`) {
		t.Fatalf("approvals does not escape:\n%s", out)
	}
	// A reason quotes the path the agent gave; shown raw, its ESC's
	// sequences moved the cursor up and wrote a harmless path over the
	// arguments' line in the person's terminal.
	spoof := "/tmp/notes\x1b[2A\x1b[2K\r  \"file\" = \"/tmp/fine.py\"\n  why: a file of the session\u202e"
	r.refused("debugpy_source", `{"file":`+q(spoof)+`}`, "needs a person's approval")
	out, _ = r.cli("approvals")
	if strings.ContainsAny(out, "\x1b\r\u202e") || !strings.Contains(out, `why: targets: reading /tmp/notes\u{1b}[2A\u{1b}[2K\r  "file" = "/tmp/fine.py"\n  why: a file of the session\u{202e}, which`) {
		t.Fatalf("approvals shows the reason raw:\n%q", out)
	}
	// The arguments come after the reasons, next to the command that
	// answers: a long reason cannot push them off the screen.
	if why, args := strings.LastIndex(out, "why: targets: reading /tmp/notes"), strings.LastIndex(out, "arguments, each in full"); why < 0 || args < why {
		t.Fatalf("the reasons come after the arguments:\n%s", out)
	}
	long := `{"program":` + q(prog) + `,"args":[` + q(strings.Repeat("x", 9000)) + `]}`
	r.refused("debugpy_launch", long, "too long to approve")
	if d := r.lastDecision(); d.Approval == nil || d.Approval.State != "denied" {
		t.Fatalf("too long: audit %+v", d)
	}
}

// Hosts are judged as they will be dialled. In a private network namespace
// a listener on 10.99.0.1 records every connection: the refused attaches
// make none, and an allowed one (the control) does.
func TestAttackHosts(t *testing.T) {
	check := func(r *raw) {
		for _, args := range []string{
			`{"host":"10.99.0.1"}`, `{"HOST":"10.99.0.1"}`, `{"host":"127.0.0.1","host":"10.99.0.1"}`,
			`{"host":"10.99.0.1 "}`, `{"host":"127.0.0.1:80"}`, `{"host":"127.example.invalid"}`,
			`{"host":"::ffff:10.99.0.1"}`, `{"host":"0.0.0.0"}`, `{"host":"[::1]"}`, `{"host":"127.0.0.1%lo"}`,
		} {
			r.refused("debugpy_session_start", args, "denied")
		}
	}
	wrap, conns := namespace(t)
	check(startRaw(t, rawOpts{wrap: wrap}))
	if data, _ := os.ReadFile(conns); len(data) > 0 {
		t.Fatalf("a refused attach connected: %s", data)
	}
	// The control: allowed, it dials exactly the address that was judged.
	wrap, conns = namespace(t)
	r := startRaw(t, rawOpts{wrap: wrap, config: `
[modules.targets]
source = "builtin:targets"
settings = { hosts = ["10.99.0.0/24"] }
[[rules]]
tools = ["debugpy_*"]
call = ["targets"]
default = "allow"
`})
	r.refused("debugpy_session_start", `{"host":"10.99.0.1"}`, "10.99.0.1:5678")
	if data, _ := os.ReadFile(conns); !strings.Contains(string(data), "10.99.0.1") {
		t.Fatalf("the allowed attach did not connect: %q", data)
	}
}

// namespace is a command prefix that runs the server in a new network
// namespace of its own, where 10.99.0.1 is an address of lo and a listener
// on 10.99.0.1:5678 writes each connection it accepts to conns.
func namespace(t *testing.T) (wrap []string, conns string) {
	ns := t.TempDir()
	conns = filepath.Join(ns, "connections")
	ready := filepath.Join(ns, "ready")
	listener := `import socket,sys
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("10.99.0.1", 5678)); s.listen(8)
open(sys.argv[2], "w").close()
while True:
    c, a = s.accept()
    with open(sys.argv[1], "a") as f: f.write(str(a) + "\n")
    c.close()
`
	os.WriteFile(filepath.Join(ns, "listen.py"), []byte(listener), 0o644)
	return []string{"unshare", "-n", "sh", "-c", `ip link set lo up && ip addr add 10.99.0.1/32 dev lo && ` +
		`{ python3 ` + filepath.Join(ns, "listen.py") + ` ` + conns + ` ` + ready + ` </dev/null >/dev/null 2>&1 & } && ` +
		`while [ ! -e ` + ready + ` ]; do sleep 0.05; done && exec "$0" "$@"`}, conns
}

// A built-in refuses a mistyped setting: the server does not start, and the
// error names the file, line, key and module.
func TestAttackMistypedSetting(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "guard.toml")
	os.WriteFile(file, []byte("default = \"allow\"\n\n[modules.expressions]\nsource = \"builtin:expressions\"\nsettings = { deny_name = [\"secret\"] }\n"), 0o600)
	for _, args := range [][]string{{"check", "--config", file}, {"serve", "--config", file}} {
		cmd := exec.Command(binary, args...)
		cmd.Env = append(os.Environ(), testEnv(dir)...)
		stdin, _ := cmd.StdinPipe()
		out, err := cmd.CombinedOutput()
		stdin.Close()
		if err == nil || !strings.Contains(string(out), `guard.toml:5: modules.expressions.settings: expressions: unknown setting "deny_name"`) {
			t.Fatalf("%s: %v\n%s", args[0], err, out)
		}
	}
}

// A result phase that no rule covers is not judged: default = "deny" with
// only call rules still shows what ran.
func TestResultPhaseNotCovered(t *testing.T) {
	r := startRaw(t, rawOpts{config: `
default = "deny"
[modules.category]
source = "builtin:category"
settings = { read = "allow" }
[[rules]]
tools = ["debugpy_*"]
call = ["category"]
`})
	if text := r.ok("debugpy_sessions", `{}`); !strings.Contains(text, "no debug sessions") {
		t.Fatalf("sessions: %s", text)
	}
}

// What the server launched ends with it, however it ends; a stuck evaluate
// says so, and the session can still be stopped.
func TestNothingOutlivesTheServer(t *testing.T) {
	for _, how := range []string{"stdin closed", "SIGTERM", "SIGKILL"} {
		t.Run(how, func(t *testing.T) {
			var r *raw
			var pid int
			if how == "SIGKILL" {
				r, pid = stuck(t)
			} else {
				r = startRaw(t, rawOpts{env: []string{"DEBUGPY_GUARD_REQUEST_TIMEOUT=3s"}})
				r.stopped()
				pid = debuggeePID(t, r)
			}
			switch how {
			case "stdin closed":
				r.in.Close()
			case "SIGTERM":
				r.cmd.Process.Signal(syscall.SIGTERM)
			case "SIGKILL":
				r.cmd.Process.Kill()
			}
			gone(t, pid)
		})
	}
	// session_stop ends a stuck program. (A short name: the approval socket
	// lives in the test's directory, and a unix socket path has 108 bytes.)
	t.Run("stop", func(t *testing.T) {
		r, pid := stuck(t)
		r.ok("debugpy_session_stop", `{"terminate":true}`)
		gone(t, pid)
	})
	// A stuck program kept debugpy from answering the disconnect that ends
	// it once a second request had gone unanswered: the adapter, and the
	// program with it, outlived the server. The server now kills it.
	t.Run("stuck", func(t *testing.T) {
		r, pid := stuck(t)
		r.refused("debugpy_variables", `{}`, "no response from debugpy")
		r.in.Close()
		gone(t, pid)
	})
}

// stuck starts a server stopped in its program, and has the program run a
// repl input that never returns: approved, it answers that the program is
// stuck, and how to end it.
func stuck(t *testing.T) (*raw, int) {
	r := startRaw(t, rawOpts{env: []string{"DEBUGPY_GUARD_REQUEST_TIMEOUT=3s"}})
	r.stopped()
	pid := debuggeePID(t, r)
	text, _ := r.call("debugpy_evaluate", `{"expression":"while 1: pass","context":"repl"}`)
	r.cli("approve", "--yes", id(t, text))
	r.refused("debugpy_evaluate", `{"expression":"while 1: pass","context":"repl"}`, "stuck", "terminate=true")
	return r, pid
}

// killUnder kills every process whose command line names a path under
// dir: the programs a test started from its own directory, which live in
// process groups of their own (debugpy's launcher makes one), so that a
// test that failed before its program ended leaves none spinning.
func killUnder(dir string) {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range procs {
		cmdline, err := os.ReadFile(f)
		if err != nil || !strings.Contains(string(cmdline), dir+"/") {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(f))); err == nil && pid != os.Getpid() {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

func debuggeePID(t *testing.T, r *raw) int {
	t.Helper()
	text := r.ok("debugpy_session_status", `{}`)
	_, after, ok := strings.Cut(text, ", pid ")
	if !ok {
		t.Fatalf("no pid in %q", text)
	}
	pid, err := strconv.Atoi(strings.FieldsFunc(after, func(r rune) bool { return r < '0' || r > '9' })[0])
	if err != nil {
		t.Fatal(err)
	}
	// The control: it is the sample program, and it runs.
	if cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline"); err != nil || !strings.Contains(string(cmdline), "orders.py") {
		t.Fatalf("pid %d is not the debuggee: %q %v", pid, cmdline, err)
	}
	return pid
}

// gone waits for process pid to end (an event: it ends or the test fails
// after a minute, far past any machine's slowness).
func gone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil || strings.Contains(string(stat), ") Z ") {
			return // gone, or a zombie no one reaped yet: it runs no more
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the debuggee (pid %d) outlived the server", pid)
}

// secretsProgram holds secrets under secret names, an innocent alias of one,
// a dict and an object, and prints one; secretsEnv is the .env beside it.
const secretsProgram = `DB_PASSWORD = "s3cr3t-hunter2"


class Cfg:
    pass


cfg = Cfg()
cfg.api_secret = "api-s3cret-value"
cfg.name = "prod"
settings = {"db_password": "dict-s3cret-value", "port": 5432}


def main():
    password = "local-s3cret-value"
    alias = password
    entry = settings["db_password"]
    print("connecting with", DB_PASSWORD, flush=True)
    n = 1  # BREAK
    return n + len(alias)


main()
`

const secretsEnv = `AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE
AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY
DATABASE_URL=postgres://app:db-url-pa55word@db:5432/orders
STRIPE_KEY=sk_live_51HxYzAbCdEfGhIjKlMnOp
`

// A program that holds a secret as a sequence of its characters, bytes or
// pieces (list(password), list(password.encode()): a cipher's key, bytes
// written as JSON's list of numbers; password.split('-'), chunks of it)
// showed it in clear: ['H', 'u', 'n', ...] is no
// form of the secret, and the name holds none. Read whole, reversed or in
// slices, each showed the secret, or pieces of it (slices of a
// sequence picked "elements whole"). Now such a sequence is read joined
// for the session's secrets, and its name holds one: masked whole, refused
// in part.
func TestAttackSecretAsASequence(t *testing.T) {
	const secret = "Hunter2-S3cret-pass!"
	r := startRaw(t, rawOpts{})
	r.stopAtBreak("password = " + strconv.Quote(secret) + "\nchars = list(password)\ncodes = list(password.encode())\n" +
		"parts = password.split('-')\nchunks = [password[i:i + 4] for i in range(0, len(password), 4)]\nn = 1  # BREAK\n")
	text := r.ok("debugpy_variables", `{}`)
	for _, want := range []string{"chars: list = [[redacted], ...]", "parts: list = [[redacted]]", "chunks: list = [[redacted]]"} {
		if !strings.Contains(text, want) {
			t.Fatalf("the listing lacks %q: %s", want, text)
		}
	}
	for _, e := range []string{"chars", "codes", "(chars, 1)", "parts", "chunks"} {
		if text := r.ok("debugpy_evaluate", `{"expression":`+q(e)+`}`); !strings.Contains(text, "[redacted]") {
			t.Errorf("%s: %s", e, text)
		}
	}
	for _, e := range []string{"chars[::-1]", "chars[0:10]", "chars[10:]", "chars[3]", "codes[:8]", "codes[::-1]", "parts[1]", "chunks[2:]"} {
		r.refused("debugpy_evaluate", `{"expression":`+q(e)+`}`, "holds a secret the session has seen")
	}
	seen := r.seen.String()
	for i := 0; i+4 <= len(secret); i++ {
		var chars, codes []string
		for _, c := range secret[i : i+4] {
			chars, codes = append(chars, strconv.QuoteRune(c)), append(codes, strconv.Itoa(int(c)))
		}
		noneSeen(t, seen, strings.Join(chars, ", "), strings.Join(codes, ", "))
		slices.Reverse(chars)
		slices.Reverse(codes)
		noneSeen(t, seen, strings.Join(chars, ", "), strings.Join(codes, ", "))
	}
	noneSeen(t, seen, "S3cret", "Hunt", "er2-", "S3cr", "et-p", "ass!")
	// The masks answer guesses: a list the agent writes whose last shown
	// items stand beside debugpy's cut came back masked when they began
	// the secret, and as written when they did not, an oracle for its
	// first characters; and lists of characters are whole guesses the
	// count of strings did not see. A person decides.
	for _, e := range []string{
		"['a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'H', 'u', 'n', 'x']",
		"['a'] * 12 + ['H', 'u', 'n', 'x']",
		"['H', 'u', 'n', 't', 'e', 'r', '2', '-', 'S', 'x'] * 2",
		"((" + strings.Repeat("['p', 'a', 's', 's'], ", 9) + "), (" + strings.Repeat("['w', 'o', 'r', 'd'], ", 8) + "))",
		// repr of a literal makes a string long enough to be cut inside a
		// container, the literal beside the cut: it came back
		// ('aaaaaaaaaaaaaa[redacted]...) before the reading of sequences
		"(repr(('aaaaaaaaaaaaaaHun', 'xxxxxxxxxxxxxxx')),)",
		"(repr([['abcd', 'Hun', 'xxxxxxxxx'], 'abcd']),)",
	} {
		r.refused("debugpy_evaluate", `{"expression":`+q(e)+`}`, "needs a person's approval", "a person decides")
	}
}

// A container that spells a secret a character, a byte or a number an
// item, listed by its variables_reference (or nested, depth 2), showed
// the secret in clear, an item a row, while its display was masked
// (found 2026-12-07): list(password), its bytes' numbers, the list
// reversed, and a ctypes buffer (create_string_buffer, which pydevd lists
// byte by byte). The rows of a listing's items are read together, as the
// container's display: masked whole, and beside the cut of a listing
// max_items made shorter.
func TestAttackSecretListedAnItemARow(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(r.readsSecrets("QvU7itemsa93kdW") + `import ctypes
password = next(lines)
chars = list(password)
codes = tuple(password.encode())
rev = chars[::-1]
buf = ctypes.create_string_buffer(password.encode())
letters = list("abcdefghijklmno")
del lines
` + mainAtBreak)
	globals := r.ok("debugpy_variables", `{"scope":"globals"}`)
	// each name, and a max_items that shows its first 4 items (a ctypes
	// array's seven attributes come first)
	for name, cut := range map[string]int{"chars": 4, "codes": 4, "rev": 4, "buf": 11} {
		ref := r.rowRef(globals, name)
		for _, more := range []string{"", fmt.Sprintf(`,"max_items":%d`, cut)} {
			items := itemValues(t, r.listRef(ref, more))
			if name == "buf" && more == "" && len(items) > 0 && items[len(items)-1] == `b'\x00'` {
				items = items[:len(items)-1] // create_string_buffer's NUL after the secret
			}
			if len(items) < 4 || slices.ContainsFunc(items, func(v string) bool { return v != "[redacted]" }) {
				t.Errorf("%s%s: its items %q", name, more, items)
			}
		}
	}
	nested := r.ok("debugpy_variables", `{"scope":"globals","depth":2}`)
	letters := itemValues(t, r.listRef(r.rowRef(globals, "letters"), ""))
	if !slices.Equal(letters[:3], []string{"'a'", "'b'", "'c'"}) {
		t.Errorf("the control, a list that spells no secret: %q", letters)
	}
	for _, tell := range []string{"'Q', ", "'v'", "'U'", "b'Q'", ": int = 81", ": str = 'Q'", ": bytes = b'v'"} {
		noneSeen(t, nested+strings.Join(letters, ""), tell)
	}
	// The cut is max_items', the agent's: a list it writes of three
	// characters and a name (which runs unasked), listed cut after them,
	// answers alike whether the secret begins so or not.
	for _, guess := range []string{"zkX", "QvU"} {
		res := r.request("tools/call", `{"name":"debugpy_evaluate","arguments":{"expression":"['`+guess[:1]+`', '`+guess[1:2]+`', '`+guess[2:]+`', letters]"}}`)
		var out struct {
			Structured struct {
				Ref int `json:"variables_reference"`
			} `json:"structuredContent"`
		}
		if err := json.Unmarshal(res, &out); err != nil || out.Structured.Ref == 0 {
			t.Fatalf("the guess %s: %v %s", guess, err, res)
		}
		items := itemValues(t, r.listRef(strconv.Itoa(out.Structured.Ref), `,"max_items":3`))
		if want := []string{"'" + guess[:1] + "'", "'" + guess[1:2] + "'", "'" + guess[2:] + "'"}; !slices.Equal(items, want) {
			t.Errorf("the guess %s: its items %q, want %q as written", guess, items, want)
		}
	}
	noneSeen(t, r.seen.String(), "itemsa", `"b'v'"`, `"118"`)
}

// A container under a secret's name that spells the secret with its
// items, and nothing else holding the secret whole: its row was masked,
// and its items, listed by its variables_reference, showed the secret a
// character a row (found 2026-12-07): nothing had learned it whole, and
// a character is no secret alone. What it spells is learned.
func TestAttackSecretsContainerListedByItsReference(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(r.readsSecrets("QvU7chrsa93kdW", "Hy6wcodeb12abV") + `password_chars = list(next(lines))
secret_codes = [ord(c) for c in next(lines)]
del lines
` + mainAtBreak)
	globals := r.ok("debugpy_variables", `{"scope":"globals"}`)
	for _, name := range []string{"password_chars", "secret_codes"} {
		for _, more := range []string{"", `,"max_items":5`} {
			items := itemValues(t, r.listRef(r.rowRef(globals, name), more))
			if len(items) < 5 || slices.ContainsFunc(items, func(v string) bool { return v != "[redacted]" }) {
				t.Errorf("%s%s: its items %q", name, more, items)
			}
		}
	}
	noneSeen(t, r.seen.String(), "chrsa", "codeb", `"'Q'"`, `: str = 'v'`, `: int = 72`, `"121"`)
}

// A pandas Series of a secret's characters or of its bytes shows it a
// character a line in its repr, which the listing shows whole (found
// 2026-12-07): no form matched it, and no display's reading read it. Its
// lines are read together, as a sequence's items.
func TestAttackSecretDownASeries(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(r.readsSecrets("QvU7seriesa93kdW") + `import pandas as pd
password = next(lines)
chars = pd.Series(list(password))
codes = pd.Series(list(password.encode()), name="key")
long = pd.Series(list(password + "z" * 60))
letters = pd.Series(list("abcdefghij"))
del lines
` + mainAtBreak)
	globals := r.ok("debugpy_variables", `{"scope":"globals"}`)
	r.evaluateEach("chars", "codes", "long")
	if !strings.Contains(globals, "letters: Series = 0    a\n1    b\n") {
		t.Errorf("the control, a Series of no secret: %s", globals)
	}
	noneSeen(t, r.seen.String(), "seriesa", `0     Q\n1     v`, `0     Q\\n1     v`, `0     81\n1    118`, `0     81\\n1    118`)
}

// A buffer whose repr shows none of its bytes, read an index at a time,
// showed a secret a byte at a time (found 2026-12-07): a ctypes array of
// characters or bytes (create_string_buffer, create_unicode_buffer,
// c_ubyte * n), <ctypes.c_char_Array_16 object at 0x...>, as a frame's
// name; and it, a memoryview and a long bytearray under an attribute
// (h.mv[0]), which the stop's listing, reading only a frame's names'
// bytes, did not read. Their bytes are read wherever code reads them in
// part, so that they are holders of the secret.
func TestAttackBuffersReadAByteAtATime(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(r.readsSecrets("QvU7buffsa93kdW") + `import ctypes
password = next(lines).encode()
class H: pass
h = H()
h.mv = memoryview(password)
h.ba = bytearray(password + b"0123456789")
h.buf = ctypes.create_string_buffer(password)
h.wbuf = ctypes.create_unicode_buffer(password.decode())
h.ubuf = (ctypes.c_ubyte * len(password)).from_buffer_copy(password)
buf, wbuf, ubuf = h.buf, h.wbuf, h.ubuf
plain = ctypes.create_string_buffer(b"hello world")
del lines
` + mainAtBreak)
	for _, e := range []string{"h.mv[0]", "h.mv[1:3]", "h.ba[0]", "h.buf[0]", "h.wbuf[0]", "h.ubuf[0]", "buf[0]", "wbuf[1]", "ubuf[2]", "buf[:4]"} {
		r.refused("debugpy_evaluate", `{"expression":`+q(e)+`}`, "holds a secret the session has seen")
	}
	if text := r.ok("debugpy_evaluate", `{"expression":"plain[0]"}`); !strings.Contains(text, "b'h'") {
		t.Errorf("the control, a buffer of no secret: %s", text)
	}
	noneSeen(t, r.seen.String(), "buffsa", "b'Q'", "'Q'", ": 81")
}

// An exception made and kept, never raised, has no traceback to read the
// locals of: Denied("ada", token), kept in a list of errors, showed the
// token in its repr (found 2026-12-07). Its args are read under the
// parameters of its class's own __init__, when as many.
func TestAttackSecretsHeldByExceptionsNeverRaised(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(r.readsSecrets("QvU7denyda93kdW") + `class Denied(Exception):
    def __init__(self, user, token):
        super().__init__(user, token)
class NotFound(Exception):
    def __init__(self, path):
        super().__init__(path)
errors = [Denied("ada", next(lines)), NotFound("/srv/data.csv")]
del lines
` + mainAtBreak)
	globals := r.ok("debugpy_variables", `{"scope":"globals"}`)
	r.evaluateEach("errors", "errors[0]", "errors[0].args")
	if !strings.Contains(globals, "NotFound('/srv/data.csv')") {
		t.Errorf("the control, an exception of no secret: %s", globals)
	}
	noneSeen(t, r.seen.String(), "denyda")
}

// An exception raised with a secret that no name of the stop holds
// (raise AuthError(read_token())) showed it in the text of the stop on it
// and in debugpy_exception_info (found 2026-12-07): the stop's listing
// read the frames' names, and the exception, which pydevd keeps as
// __exception__ among the frame's locals, is in no group it reads. It is
// read for what it holds: its args under its __init__'s parameters, and
// its attributes (Expired keeps its token as self.token, which its
// __str__ shows).
func TestAttackSecretRaisedInAnException(t *testing.T) {
	r := startRaw(t, rawOpts{})
	src := r.readsSecrets("QvU7raisea93kdW", "Zr2xraiseb51xmP") + `class AuthError(Exception):
    def __init__(self, token):
        super().__init__(token)
class Expired(Exception):
    def __init__(self, *, token):
        super().__init__()
        self.token = token
    def __str__(self):
        return "expired: " + self.token
def login():
    raise AuthError(next(lines))
def renew():
    raise Expired(token=next(lines))
try:
    login()
except AuthError:
    pass
renew()
`
	prog := filepath.Join(r.dir, "raise.py")
	if err := os.WriteFile(prog, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r.approved("debugpy_launch", `{"program":`+q(prog)+`}`)
	r.ok("debugpy_set_exception_breakpoints", `{"filters":["raised"]}`)
	for _, class := range []string{"AuthError", "Expired"} {
		text := ""
		for i := 0; i < 3 && !strings.Contains(text, class+":"); i++ { // a stop in each frame it goes through
			if text = r.ok("debugpy_continue", `{}`); !strings.Contains(text, "stopped (exception)") {
				t.Fatalf("continue: %s", text)
			}
		}
		if info := r.ok("debugpy_exception_info", `{}`); !strings.Contains(info, class+":") || !strings.Contains(info, "raise "+class+"(") {
			t.Errorf("the control, the exception and its traceback: %s", info)
		}
	}
	noneSeen(t, r.seen.String(), "raisea", "raiseb")
}

// A log record a handler keeps holds its message's arguments apart from
// the message (found 2026-12-07): log.warning("login with password %s",
// pw), kept by a handler of the program's or a MemoryHandler's buffer,
// showed the password in clear as records[0].args. Its message is read
// formatted, as a log line.
func TestAttackSecretsHeldByLogRecords(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(r.readsSecrets("Zr2xlogrca51xmP", "Yq7wlogrdb62ynQ") + `import logging, logging.handlers
records = []
class Keep(logging.Handler):
    def emit(self, rec):
        records.append(rec)
log = logging.getLogger("app")
log.addHandler(Keep())
log.warning("login with password %s", next(lines))
log.warning("retry %d of %s", 2, "the job")
buffered = logging.handlers.MemoryHandler(100)
logging.getLogger("db").addHandler(buffered)
logging.getLogger("db").warning("connecting with password %s", next(lines))
del lines
` + mainAtBreak)
	r.evaluateEach("records[0].args", "records")
	// the buffer's record listed, its args a row
	globals := r.ok("debugpy_variables", `{"scope":"globals"}`)
	record := r.listRef(r.rowRef(r.listRef(r.rowRef(r.listRef(r.rowRef(globals, "buffered"), ""), "buffer"), ""), "0"), "")
	if !strings.Contains(record, "args: tuple = (") {
		t.Errorf("the control, the record's args: %s", record)
	}
	if text := r.ok("debugpy_evaluate", `{"expression":"records[1].args"}`); !strings.Contains(text, "(2, 'the job')") {
		t.Errorf("the control, a record of no secret: %s", text)
	}
	noneSeen(t, r.seen.String(), "logrca", "logrdb")
}

// A cookie of http.cookies showed its value in clear (found 2026-12-08):
// a SimpleCookie's repr, <SimpleCookie: sid='VALUE'>, was read as a log's
// "Cookie: VALUE" line, which masked its "sid=" and left the value; a
// Morsel's, <Morsel: sid=VALUE>, names no secret; and a Set-Cookie
// header with its value quoted (sid="a/b==", as http.cookies writes one
// with a / or an =, and some servers do), in http.client's debug lines,
// was masked to the quote. A cookie's value is a credential, as
// http.cookiejar's are.
func TestAttackSecretInACookie(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(r.readsSecrets("QvU7cookaa93kdW", "Zr2xcookb51xmP", "Yq7wcookc62ynQ") + `import http.cookies
jar = http.cookies.SimpleCookie()
jar["sid"] = next(lines)
jar["sid"]["path"] = "/"
jar["remember"] = next(lines) + "/x=="
morsel = jar["remember"]
print('header: Set-Cookie: remember_me="' + next(lines) + '=="; Path=/; HttpOnly', flush=True)
del lines
` + mainAtBreak)
	globals := r.ok("debugpy_variables", `{"scope":"globals"}`)
	r.evaluateEach("jar", "morsel", "jar['sid']", "morsel.value")
	r.listRef(r.rowRef(globals, "jar"), "")
	r.outputWith("header: Set-Cookie: ")
	if !strings.Contains(globals, "<SimpleCookie: remember='[redacted]' sid='[redacted]'>") || !strings.Contains(globals, "<Morsel: remember=[redacted]>") {
		t.Errorf("the control, the cookies' names: %s", globals)
	}
	noneSeen(t, r.seen.String(), "cookaa", "cookb5", "cookc6")
}

// A record names its secret in one field and holds it in another, and
// some of its forms were read by no reading (found 2026-12-08): an
// ElementTree element of <password>, whose repr shows its tag (root[1].text,
// and its text row when it is listed), and minidom's (its text node's
// repr shows its first ten characters, <DOM Text node "'Jn8ydomee4'...">,
// and its data row all of it); an XML config's <add key="ApiKey"
// value="..."/> and <property name="password" value="..."/>; and
// xmlrpc.client's ServerProxy, whose repr shows its URL's password without
// the scheme (<ServerProxy for ada:PW@host/RPC2>), a password with an @ in
// it too; and a dict keyed by tuples, {('db', 'password'): ...}; and a
// multipart/form-data body's field, and sshpass's SSHPASS beside a command
// (found later that day). (An object of the program's with a name and a
// value attribute, listed, was masked before: it stays so.)
func TestAttackSecretsInRecordsOfOtherForms(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(r.readsSecrets("QvU7xmlaa93kdW", "Zr2x@rpcbb51xmP", "Yq7wcfgcc62ynQ", "Wb5mrecdd83pLx", "Kp3zsprng71wQq", "Jn8ydomee42vRt", "Hm4tupff55sZu", "Gc6vformH28kYw", "Fd9usshpJ37nXv") + `import xml.etree.ElementTree as ET, xml.dom.minidom, xmlrpc.client
root = ET.fromstring("<config><user>ada</user><password>" + next(lines) + "</password></config>")
node = root[1]
rpc = xmlrpc.client.ServerProxy("https://ada:" + next(lines) + "@example.com/RPC2")
appconfig = '<appSettings><add key="Theme" value="dark" /><add key="ApiKey" value="' + next(lines) + '" /></appSettings>'
class Setting:
    def __init__(self, name, value):
        self.name, self.value = name, value
setting = Setting("db_password", next(lines))
beans = '<bean id="ds"><property name="user" value="ada"/><property name="password" value="' + next(lines) + '"/></bean>'
doc = xml.dom.minidom.parseString("<config><user>ada</user><password>" + next(lines) + "</password></config>")
element = doc.documentElement.childNodes[1]
text = element.firstChild
options = {("db", "user"): "ada", ("db", "password"): next(lines)}
form = ('--b0und\r\nContent-Disposition: form-data; name="username"\r\n\r\nada\r\n'
        '--b0und\r\nContent-Disposition: form-data; name="password"\r\n\r\n' + next(lines) + '\r\n--b0und--\r\n').encode()
command = "SSHPASS=" + next(lines) + " sshpass -e ssh ada@db.example.org"
del lines
` + mainAtBreak)
	globals := r.ok("debugpy_variables", `{"scope":"globals"}`)
	r.evaluateEach("root[1].text", "node.text", "rpc", "appconfig", "setting.value", "beans", "element.childNodes", "text.data", "options", "form", "command")
	for _, name := range []string{"node", "setting", "rpc", "element", "text", "options"} {
		r.listRef(r.rowRef(globals, name), "")
	}
	if !strings.Contains(globals, `<add key="Theme" value="dark" />`) || !strings.Contains(globals, `<property name="user" value="ada"/>`) {
		t.Errorf("the control, a record of no secret: %s", globals)
	}
	if !strings.Contains(globals, `\r\n\r\nada\r\n`) {
		t.Errorf("the control, a form's field of no secret: %s", globals)
	}
	noneSeen(t, r.seen.String(), "xmlaa9", "rpcbb5", "cfgcc6", "recdd8", "sprng7", "Jn8y", "domee", "mee4", "tupff5", "formH2", "sshpJ3")
}

// A copy a program makes of a secret, to compare it or to hand it to
// Windows, under a name of no secret, showed in clear (found 2026-12-08):
// its case folded (password.lower(), a hex key's upper()) and its UTF-16's
// bytes (an NTLM hash's input), b'Q\x00v\x00...'.
func TestAttackCopiesOfASecret(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(r.readsSecrets("QvU7copyA93kdW") + `password = next(lines)
folded = password.lower()
shouted = password.upper()
wide = password.encode("utf-16-le")
del lines
` + mainAtBreak)
	globals := r.ok("debugpy_variables", `{"scope":"globals"}`)
	r.evaluateEach("folded", "shouted", "wide", "[folded, shouted]")
	if !strings.Contains(globals, "password: str = [redacted]") {
		t.Errorf("the control, the secret under its name: %s", globals)
	}
	noneSeen(t, r.seen.String(), "qvu7copya", "QVU7COPYA", `Q\\x00v\\x00U\\x007`, "copya93", "COPYA93") // what the agent got is JSON: a backslash doubled
}

// A secret under a name in another language: a program written in
// Turkish, Vietnamese, Thai or Hebrew names its password so, and a JSON
// answer in German keys its secret so. These showed in clear (found
// 2026-12-08): no name was a secret's, and Thai's and Hindi's words were
// split at their vowel marks. A read of one is denied as a read of
// password is, and an alias of one is masked.
func TestAttackSecretsUnderNamesInOtherLanguages(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(r.readsSecrets("QvU7sifreA93kd", "Zr2xmatkhB51xm", "Yq7wthaiC62ynQ", "Wb5mgehD83pLxx") + `şifre = next(lines)
mật_khẩu = next(lines)
รหัสผ่าน = next(lines)
antwort = {"benutzer": "ada", "geheimnis": next(lines)}
kopie = [şifre, mật_khẩu, รหัสผ่าน]
del lines
` + mainAtBreak)
	globals := r.ok("debugpy_variables", `{"scope":"globals"}`)
	r.evaluateEach("kopie", "antwort")
	for _, e := range []string{"şifre", "mật_khẩu", "รหัสผ่าน", "antwort['geheimnis']"} {
		r.refused("debugpy_evaluate", `{"expression":`+q(e)+`}`, "secret")
	}
	if !strings.Contains(globals, "'benutzer': 'ada'") {
		t.Errorf("the control, a value of no secret beside them: %s", globals)
	}
	noneSeen(t, r.seen.String(), "sifreA", "matkhB", "thaiC6", "gehD83")
}

// A table held as rows, its header first, names a column and holds its
// values apart from the name (found 2026-12-08): csv.reader's rows, a
// list of tuples with its column names first, and a NumPy structured
// array, whose dtype names its fields after its rows; each showed its
// passwords in clear, as its display, as a row, and listed a row a
// child. (The array's dtype was masked instead: ('password', '<U20')
// read as a pair, and <U20 learned.)
func TestAttackSecretsInTables(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(r.readsSecrets("QvU7csvaaa93kd", "Zr2xnumpyb51xm", "Wb5mcsvdd83pLx") + `import csv, io, numpy as np
rows = list(csv.reader(io.StringIO("user,password\nada," + next(lines) + "\nbob,x\n")))
arr = np.array([("ada", next(lines))], dtype=[("user", "U10"), ("password", "U20")])
table = [("user", "api_key"), ("ada", next(lines))]
names = np.array(["ada", "bob"], dtype="<U20")
mixed = [["user", "password"], ["ada", ["x"]]]
del lines
` + mainAtBreak)
	globals := r.ok("debugpy_variables", `{"scope":"globals"}`)
	r.evaluateEach("rows", "arr", "table", "names")
	for _, name := range []string{"rows", "table"} {
		r.listRef(r.rowRef(globals, name), "")
	}
	for _, e := range []string{"rows[1]", "rows[1][1]", "table[1]", "arr[0]"} {
		if text, isErr := r.call("debugpy_evaluate", `{"expression":`+q(e)+`}`); !isErr && !strings.Contains(text, "[redacted]") {
			t.Errorf("%s: %s", e, text)
		}
	}
	// mixed, a table whose row is not plain, is read to there: the first
	// version went back to the text's start for ever, and the listing was
	// denied at the module's deadline
	if !strings.Contains(globals, "['ada', '[redacted]']") || !strings.Contains(globals, "('password', '<U20')") || !strings.Contains(globals, "dtype='<U20'") ||
		!strings.Contains(globals, "mixed: list = [['user', 'password'], ['ada', [...]]]") {
		t.Errorf("the control, the tables' other cells and their dtypes: %s", globals)
	}
	noneSeen(t, r.seen.String(), "csvaaa", "numpyb", "csvdd8")
}

// itemValues are the values of a listing's rows of items (named by their
// index), read from its text, or from the JSON the host shows when it
// masked some (engine: the text has a row each).
func itemValues(t *testing.T, text string) []string {
	t.Helper()
	if _, js, ok := strings.Cut(text, "the result as JSON)\n"); ok {
		var res struct {
			Variables []struct{ Name, Value string }
		}
		if err := json.Unmarshal([]byte(js), &res); err != nil {
			t.Fatalf("the result as JSON: %v\n%s", err, js)
		}
		var out []string
		for _, v := range res.Variables {
			if _, err := strconv.Atoi(v.Name); err == nil {
				out = append(out, v.Value)
			}
		}
		return out
	}
	var out []string
	for _, m := range regexp.MustCompile(`(?m)^\s*\d+: \S+ = (.*?)(?: \[ref \d+\])?$`).FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

// A secret's first read may come through an innocent name, before any
// result has shown it under its own: the program's output, an alias, a
// reversed alias, an alias of a dict's entry, an exception's text. The gate
// reads the stopped frame's variables first, so these are masked too.
func TestAttackSecretReadFirstThroughAnAlias(t *testing.T) {
	// A literal of the source under an innocent name, which the program
	// passes to a secret-named parameter: the first read of the source
	// showed it in clear (before: only once a listing had shown
	// db_password).
	t.Run("source", func(t *testing.T) {
		t.Parallel()
		r := startRaw(t, rawOpts{})
		r.stopAtBreak("DEFAULT = 'Zx8-hardcoded-s3cret-value-88'\ndef connect(db_password):\n    n = 1  # BREAK\nconnect(DEFAULT)\n")
		if text := r.ok("debugpy_source", `{"line":1,"context_lines":3}`); !strings.Contains(text, `DEFAULT = '[redacted]'`) {
			t.Fatalf("source: %s", text)
		}
		noneSeen(t, r.seen.String(), "hardcoded-s3cret")
	})
	t.Run("alias", func(t *testing.T) {
		t.Parallel()
		r := startRaw(t, rawOpts{})
		r.stopAtBreak(secretsProgram)
		if text := r.outputWith("connecting with"); !strings.Contains(text, "connecting with") {
			t.Fatalf("output: %s", text)
		}
		r.ok("debugpy_evaluate", `{"expression":"alias"}`)
		r.ok("debugpy_evaluate", `{"expression":"[alias]"}`)
		r.ok("debugpy_evaluate", `{"expression":"entry"}`)
		seen := r.seen.String()
		noneSeen(t, seen, "s3cr3t-hunter2", "local-s3cret-value", "eulav-terc3s-lacol", "dict-s3cret-value")
		if !strings.Contains(seen, "[redacted]") {
			t.Fatalf("nothing masked: %s", seen)
		}
	})
	// Read in part, an alias shows the secret in pieces no mask finds: a
	// slice, every other character, a comparison a bit at a time. The call
	// phase is told which names hold a secret (derived.holders) and denies
	// such code before it runs, from the first call after the stop, even
	// code that would wait for a person (unpacking iterates). Read whole,
	// the alias is masked.
	t.Run("in part", func(t *testing.T) {
		t.Parallel()
		r := startRaw(t, rawOpts{})
		r.stopAtBreak(secretsProgram)
		for _, e := range []string{"alias[1:]", "alias[::2]", "alias[0:3]", "alias < 'm'", "entry[1:]", "(1, alias[:-1])",
			"alias in ('x', 'y')", "alias[0] == 'l'", "ａｌｉａｓ[1:]", "alias[\f1:]", "cfg and alias[1:]", "[*alias]"} {
			r.refused("debugpy_evaluate", `{"expression":`+q(e)+`}`, "denied by policy", "other than whole")
		}
		if text := r.ok("debugpy_evaluate", `{"expression":"(alias, 1)"}`); !strings.Contains(text, "[redacted]") {
			t.Fatalf("a whole read of the alias, masked: %s", text)
		}
		if text := r.ok("debugpy_evaluate", `{"expression":"cfg.name[1:]"}`); !strings.Contains(text, "rod") {
			t.Fatalf("the control, a part of a name that holds no secret: %s", text)
		}
		// A name bound to a secret after the stop's listing (by a call a
		// person approved; here an AWS key, masked by its shape) is known to hold it: such a call makes the stop
		// be listed again. (A statement that names a holder is denied
		// before it runs: "copied in part".)
		text := r.refused("debugpy_set_variable", `{"name":"n","value":"'AKIAIOSFODNN7EXAMPLE'"}`, "needs a person's approval")
		if out, err := r.cli("approve", "--yes", id(t, text)); err != nil {
			t.Fatalf("approve: %v\n%s", err, out)
		}
		r.ok("debugpy_set_variable", `{"name":"n","value":"'AKIAIOSFODNN7EXAMPLE'"}`)
		r.refused("debugpy_evaluate", `{"expression":"n[1:]"}`, "denied by policy", "reads n other than whole")
		seen := r.seen.String()
		noneSeen(t, seen, "s3cr3t", "cal-s3c", "ocal", "lclsce", "ict-s3c")
	})
	// A person asked to approve code that copies a part of a holder to
	// another name (x = alias[1:], keep.append(alias[1:])), or passes it
	// on, was told only that it runs code; approved, the result was
	// withheld, but the part stayed under the new name, which holds no
	// form of the secret: shown in clear by the next read. Such code is
	// denied before it runs, and nobody is asked (derived.holders in the
	// call phase).
	t.Run("copied in part", func(t *testing.T) {
		t.Parallel()
		r := startRaw(t, rawOpts{})
		r.stopAtBreak(secretsProgram)
		for _, c := range []string{"x = alias[1:]", "y = alias[::-1]", "z = [ord(c) for c in alias]", "w = entry[1:]",
			"print(alias[1:])", "q = entry", "n = alias"} {
			text := r.refused("debugpy_evaluate", `{"expression":`+q(c)+`,"context":"repl"}`, "denied by policy", "holds a secret")
			if strings.Contains(text, "approval") {
				t.Fatalf("%s: a person is asked: %s", c, text)
			}
		}
		for _, e := range []string{"len(str(alias[1:]))", "str(alias)[1:]", "repr(alias[2:])"} {
			text := r.refused("debugpy_evaluate", `{"expression":`+q(e)+`}`, "denied by policy", "holds a secret")
			if strings.Contains(text, "approval") {
				t.Fatalf("%s: a person is asked: %s", e, text)
			}
		}
		for _, e := range []string{"x", "y", "z", "w", "q", "n"} {
			r.refused("debugpy_evaluate", `{"expression":`+q(e)+`}`, "NameError")
		}
		// A breakpoint's code runs at each hit, where names may be others:
		// a person decides, told which name holds a secret here (a log
		// message would print the part, a condition tell a bit a hit).
		prog := filepath.Join(r.dir, "app.py")
		for _, bp := range []string{`"log_message":"part {alias[1:]}"`, `"condition":"alias[0] == 'l'"`} {
			r.refused("debugpy_set_breakpoint", fmt.Sprintf(`{"file":%s,"line":12,%s}`, q(prog), bp), "needs a person's approval",
				"alias holds a secret the session has seen, where the program is stopped")
		}
		// The control: code that holds no holder is asked for as before.
		r.refused("debugpy_evaluate", `{"expression":"v = cfg.name[1:]","context":"repl"}`, "needs a person's approval")
		noneSeen(t, r.seen.String(), "s3cr3t", "cal-s3c", "eulav", "ict-s3c")
	})
	// An object shows what its class chose in its repr: Python's default
	// (<Client object at 0x...>) none of its attributes, a dataclass not
	// a field(repr=False), <Conn db> nothing; a class shows none of its
	// attributes. A secret held so under its name was never seen, and a
	// method's local copy of it was shown in clear. The listing opens
	// objects (self, and an object it holds) and the main script's classes.
	t.Run("object", func(t *testing.T) {
		t.Parallel()
		r := startRaw(t, rawOpts{})
		r.stopAtBreak(`import dataclasses
class Cfg:
    def __init__(self):
        self.db_password = "nested-obj-s3cret-value"
@dataclasses.dataclass
class Login:
    user: str
    password: str = dataclasses.field(repr=False)
class Conn:
    def __init__(self): self.secret_token = "conn-hidden-s3cret"
    def __repr__(self): return "<Conn db>"
class Settings:
    SECRET_KEY = "class-attr-s3cret-value"
class Client:
    def __init__(self):
        self.api_key = "sk-obj-hidden-s3cret-value"
        self.cfg = Cfg()
    def connect(self, login, conn):
        header = self.api_key
        value = self.cfg.db_password
        other = login.password
        last = conn.secret_token
        key = Settings.SECRET_KEY
        n = 1  # BREAK
        return header + value + other + last + key + str(n)
Client().connect(Login("app", "dc-norepr-s3cret-value"), Conn())
`)
		r.masked("header", "value", "[header, value]", "other", "last", "key")
		r.refused("debugpy_evaluate", `{"expression":"header[3:]"}`, "denied by policy", "other than whole")
		noneSeen(t, r.seen.String(), "obj-hidden-s3cret", "nested-obj-s3cret", "norepr-s3cret", "conn-hidden", "class-attr-s3cret")
	})
	// The process's environment is where secrets come from: a copy under
	// an innocent name of one the program was started with, or one it set
	// itself (a .env loaded at run time), was shown in clear. The listing
	// reads the environment as the frame reads it; a flag's word under a
	// secret-like name (TOKENIZERS_PARALLELISM=false) is not a secret, nor
	// is a place (PWD, the shell's directory, reads as ODBC's password:
	// masked, it hid every path under it).
	t.Run("environment", func(t *testing.T) {
		t.Parallel()
		r := startRaw(t, rawOpts{env: []string{"DB_PASSWORD=env-hidden-s3cret-value", "TOKENIZERS_PARALLELISM=false", "PWD=" + os.TempDir(), "JWT_EXPIRY=3600"}})
		r.stopAtBreak("import os\nos.environ['API_SECRET'] = 'runtime-env-s3cret'\nconn_arg = os.environ['DB_PASSWORD']\n" +
			"k = os.environ['API_SECRET']\ndelay = 3600\ndict, repr = {}, None  # the program's own names do not hide the builtins\nn = 1  # BREAK\n")
		r.masked("conn_arg", "k")
		if text := r.ok("debugpy_evaluate", `{"expression":"['false', 1 + 1]"}`); !strings.Contains(text, "['false', 2]") {
			t.Errorf("the control: %s", text)
		}
		if text := r.ok("debugpy_stack_trace", `{}`); !strings.Contains(text, filepath.Join(r.dir, "app.py")) {
			t.Errorf("the program's path, under PWD: %s", text)
		}
		// A short number under a secret-like name is a setting: an equal
		// value elsewhere is no holder, and is shown.
		if text := r.ok("debugpy_evaluate", `{"expression":"(delay, delay + 1)"}`); !strings.Contains(text, "(3600, 3601)") {
			t.Errorf("a number equal to a setting: %s", text)
		}
		noneSeen(t, r.seen.String(), "env-hidden-s3cret", "runtime-env-s3cret")
	})
	// A program that runs without stopping prints before any stop lists
	// it: the secrets it was started with (the environment it inherits,
	// the env and the args of the launch) are learned at the launch.
	t.Run("unstopped", func(t *testing.T) {
		t.Parallel()
		r := startRaw(t, rawOpts{env: []string{"DB_PASSWORD=inherited-s3cret-value"}})
		prog := filepath.Join(r.dir, "run.py")
		os.WriteFile(prog, []byte("import os, sys\nprint('env', os.environ['DB_PASSWORD'], os.environ['API_TOKEN'], sys.argv[2], flush=True)\n"), 0o644)
		r.approved("debugpy_launch", `{"program":`+q(prog)+`,"env":{"API_TOKEN":"launch-env-s3cret"},"args":["--password","launch-arg-s3cret"]}`)
		if text := r.ok("debugpy_continue", `{}`); !strings.Contains(text, "exited") { // from the entry stop, which nothing listed
			t.Fatalf("continue: %s", text)
		}
		if text := r.outputWith("env "); !strings.Contains(text, "env [redacted] [redacted] [redacted]") {
			t.Errorf("output: %s", text)
		}
		noneSeen(t, r.seen.String(), "inherited-s3cret", "launch-env-s3cret", "launch-arg-s3cret")
	})
	// A secret on the command line (--password VALUE), copied to an
	// innocent name: the listing reads sys.argv with the environment, and
	// redact reads a flag's value in its list.
	t.Run("command line", func(t *testing.T) {
		t.Parallel()
		r := startRaw(t, rawOpts{})
		prog := filepath.Join(r.dir, "cli.py")
		os.WriteFile(prog, []byte("import sys, logging\nconn_arg = sys.argv[2]\nn = 1  # BREAK\n"), 0o644)
		r.approved("debugpy_launch", `{"program":`+q(prog)+`,"args":["--password","argv-hidden-s3cret"]}`)
		r.ok("debugpy_set_breakpoint", fmt.Sprintf(`{"file":%s,"line":3}`, q(prog)))
		if text := r.ok("debugpy_continue", `{}`); !strings.Contains(text, "stopped (breakpoint)") {
			t.Fatalf("continue: %s", text)
		}
		r.masked("conn_arg")
		if text := r.ok("debugpy_evaluate", `{"expression":"logging.threading._sys.argv"}`); !strings.Contains(text, "'--password', '[redacted]'") {
			t.Errorf("argv: %s", text)
		}
		noneSeen(t, r.seen.String(), "argv-hidden-s3cret")
	})
	// A module of the program's own (its settings) is shown by its file:
	// the listing opens it, not the standard library's.
	t.Run("module", func(t *testing.T) {
		t.Parallel()
		r := startRaw(t, rawOpts{})
		os.WriteFile(filepath.Join(r.dir, "settings.py"), []byte("DB_PASSWORD = 'mod-hidden-s3cret-value'\nHOST = 'db'\n"), 0o644)
		r.stopAtBreak("import os, settings\nconn_arg = settings.DB_PASSWORD\nn = 1  # BREAK\n")
		r.masked("conn_arg")
		if text := r.ok("debugpy_evaluate", `{"expression":"settings.HOST"}`); !strings.Contains(text, "'db'") {
			t.Errorf("the control: %s", text)
		}
		noneSeen(t, r.seen.String(), "mod-hidden-s3cret")
	})
	// An evaluate in a caller's frame reads that frame's names: its
	// secrets are listed for it, not the top frame's only.
	t.Run("caller", func(t *testing.T) {
		t.Parallel()
		r := startRaw(t, rawOpts{})
		r.stopAtBreak("def inner():\n    n = 1  # BREAK\n    return n\n\n\ndef outer():\n    password = 'caller-s3cret-value'\n" +
			"    alias = password\n    return inner() + len(alias)\n\n\nouter()\n")
		m := regexp.MustCompile(`outer at .*\(frame (\d+)\)`).FindStringSubmatch(r.ok("debugpy_stack_trace", `{}`))
		if m == nil {
			t.Fatal("no frame of outer in the stack")
		}
		if text := r.ok("debugpy_evaluate", `{"expression":"alias","frame_id":`+m[1]+`}`); !strings.Contains(text, "[redacted]") {
			t.Fatalf("the caller's alias: %s", text)
		}
		r.refused("debugpy_evaluate", `{"expression":"alias[1:]","frame_id":`+m[1]+`}`, "denied by policy", "other than whole")
		r.refused("debugpy_evaluate", `{"expression":"alias","frame_id":999999}`, "did not run", "Wrong ID", "frame_id")
		noneSeen(t, r.seen.String(), "s3cret-value")
	})
	// An exception's text is shown by the continue that stops on it.
	t.Run("exception", func(t *testing.T) {
		t.Parallel()
		r := startRaw(t, rawOpts{})
		prog := filepath.Join(r.dir, "raise.py")
		os.WriteFile(prog, []byte("def check():\n    api_token = 'exc-s3cret-value'\n    raise ValueError('rejected ' + api_token)\n\n\ncheck()\n"), 0o644)
		r.approved("debugpy_launch", `{"program":`+q(prog)+`}`)
		r.ok("debugpy_set_exception_breakpoints", `{"filters":["raised"]}`)
		if text := r.ok("debugpy_continue", `{}`); !strings.Contains(text, "stopped (exception)") || !strings.Contains(text, "rejected") {
			t.Fatalf("continue: %s", text)
		}
		r.ok("debugpy_exception_info", `{}`)
		noneSeen(t, r.seen.String(), "exc-s3cret-value")
	})
	// A listing that cannot be read (a __repr__ slower than the request
	// timeout) leaves the secrets unknown: the call does not run, and
	// nothing is shown unmasked. (The __repr__ returns soon after, so that
	// the program ends quickly with the server.)
	t.Run("listing fails", func(t *testing.T) {
		t.Parallel()
		r := startRaw(t, rawOpts{env: []string{"DEBUGPY_GUARD_REQUEST_TIMEOUT=1s"}})
		prog := filepath.Join(r.dir, "slow.py")
		os.WriteFile(prog, []byte("import time\n\n\nclass Slow:\n    def __repr__(self):\n        time.sleep(3)\n        return 'slow'\n\n\n"+
			"slow = Slow()\npassword = 'slow-s3cret-value'\nalias = password\nn = 1  # BREAK\n"), 0o644)
		r.approved("debugpy_launch", `{"program":`+q(prog)+`}`)
		r.ok("debugpy_set_breakpoint", fmt.Sprintf(`{"file":%s,"line":13}`, q(prog)))
		r.ok("debugpy_continue", `{}`)
		r.refused("debugpy_evaluate", `{"expression":"alias"}`, "did not run", "could not be read")
		noneSeen(t, r.seen.String(), "slow-s3cret-value")
	})
}

// reprsProgram holds its secrets in the containers Python programs use,
// which show them in their reprs, under the secret's name but inside a
// value an innocent name holds: a dataclass, a namedtuple, a dict with bytes
// keys, an OrderedDict, a list of header pairs, a dict of HTTP headers; and
// it prints a config after an apostrophe, and an authorization header.
const reprsProgram = `import collections, dataclasses


@dataclasses.dataclass
class Config:
    user: str
    password: str


Creds = collections.namedtuple("Creds", "user api_key")


def main():
    cfg = Config("app", "dc-s3cret-'quoted'")
    login = Creds("app", "nt-s3cret-value")
    raw = {b"db_password": b"bytes-s3cret-value", "port": 5432}
    ordered = collections.OrderedDict([("client_secret", "od-s3cret-value")])
    headers = [("Authorization", "Bearer hdr-s3cret-value")]
    api_headers = {"X-Api-Key": "xak-s3cret-value"}
    keys = {"api_key": {"prod": "blk-s3cret-value", "retries": 3}}
    print("keys:", keys, flush=True)
    import json, pprint
    many = {"api_key": {"dev": "mld-s3cret-value-" + "x" * 30, "prod": "mlp-s3cret-value-" + "y" * 30}, "n": 1}
    print(json.dumps(many, indent=2), flush=True)  # the values on lines of their own
    pprint.pprint(many)
    print(json.dumps({"password": ["mll-s3cret-value", "other"]}, indent=1), flush=True)
    phrase = "ppr-s3cret correct horse battery staple " * 3 + "ppr-end-s3cret"
    pprint.pprint({"password": phrase, "n": 1})  # in pieces over lines
    pprint.pprint([("password", phrase)])  # the pair's value on the next line
    import csv, sys
    table = csv.writer(sys.stdout)  # a table: its header names the column
    table.writerow(["user", "password", "host"])
    table.writerow(["ada", "csv-s3cret-value", "db"])
    table.writerow(["bob", "csv-s3cret, \"quoted\"\nover lines", "db"])
    sys.stdout.flush()
    import configparser
    ini = configparser.ConfigParser()
    ini["api_keys"] = {"prod": "ini-s3cret-value # not a comment"}
    ini.write(sys.stdout)  # a section named for secrets: every value in it
    sys.stdout.flush()
    import yaml  # Debian's python3-yaml (make deps)
    print(yaml.dump({"db": {"token": {"value": "yml-s3cret-value", "ttl": 60}, "passwords": ["ylp-s3cret-value"],
                            "password": "ylf-s3cret " + "w0rd " * 20 + "ylf-end-s3cret"}}), flush=True)
    print("can't connect with", {"token": "out-s3cret-value"}, flush=True)
    print("GET /v1 Authorization: Bearer brr-s3cret-value42", flush=True)
    settings = {
        "api_key": {
            "prod": "src-s3cret-value",
        },
    }
    n = 1  # BREAK
    return n


main()
`

// Secrets in reprs: a value shown under an innocent name holds a secret
// under its own name, in the repr Python writes for it (a dataclass's
// password='...', a namedtuple's, a bytes key's, a pair's). redact reads
// those reprs as Python writes them: every listing, evaluate and output
// shows them masked; a dict under a secret's name has its strings masked
// (a listing's row for the name itself shows it masked whole).
func TestAttackSecretsInReprs(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(reprsProgram)
	users := filepath.Join(r.dir, "users.csv") // a data file: a person approves its reading, and its secrets are masked
	os.WriteFile(users, []byte("id,user,API Key\r\n1,ada,fil-s3cret-value\r\n"), 0o600)
	r.approved("debugpy_source", `{"file":`+q(users)+`}`)
	conf := filepath.Join(r.dir, "settings.yaml") // its lines read together: a key's block below it
	os.WriteFile(conf, []byte("db:\n  password:\n    primary: fiy-s3cret-value\n"), 0o600)
	r.approved("debugpy_source", `{"file":`+q(conf)+`}`)
	r.ok("debugpy_source", `{"context_lines":6}`) // the program's own: a dict over lines (its lines above print the others in code)
	r.outputWith("GET /v1 Authorization")
	r.ok("debugpy_variables", `{}`)
	r.evaluateEach("cfg", "login", "raw", "ordered", "headers", "api_headers", "[cfg, login]", "keys")
	seen := r.seen.String()
	noneSeen(t, seen, "dc-s3cret", "nt-s3cret", "bytes-s3cret", "od-s3cret", "hdr-s3cret", "out-s3cret", "xak-s3cret", "brr-s3cret", "blk-s3cret", "mld-s3cret", "mlp-s3cret", "mll-s3cret", "yml-s3cret", "ylp-s3cret", "ylf-end-s3cret", "ppr-end-s3cret", "csv-s3cret", "over lines", "fil-s3cret", "fiy-s3cret", "src-s3cret", "ini-s3cret", "not a comment")
	if !strings.Contains(seen, "Config(user='app'") || !strings.Contains(seen, "5432") || !strings.Contains(seen, "'retries': 3") {
		t.Fatalf("the control: the rest of each value is shown: %s", seen)
	}
}

// Secrets stay secret: reads of secret names anywhere in an expression are
// refused, and every value seen under a secret name, by any route, is
// masked in every later result, in every form. No secret byte reaches the
// agent, and none of the code ran.
func TestAttackSecrets(t *testing.T) {
	r := startRaw(t, rawOpts{})
	os.WriteFile(filepath.Join(r.dir, ".env"), []byte(secretsEnv), 0o600)
	r.stopAtBreak(secretsProgram)
	marker := filepath.Join(r.dir, "ran")
	run := `('os').system('touch ` + marker + `')`
	for _, e := range []string{
		"password + ''", "password * 2", "password or 0", "password if 1 else 0", "(password, 1)", "[*password, 0]",
		"password[::-1]", "cfg.api_secret + ''", "{}[password]", "{}[DB_PASSWORD]", "settings['db_password']",
		"settings['db_pass\\x77ord']", "cfg.ａｐｉ_ｓｅｃｒｅｔ", "_＿import＿＿" + run, "ｅｖａｌ('1')", "1..__class__.__base__",
		"__import__\f" + run, "f'{password}'",
	} {
		r.refused("debugpy_evaluate", `{"expression":`+q(e)+`}`, "denied by policy")
	}
	r.refused("debugpy_evaluate", `{"expression":"print\f('x')"}`, "needs a person's approval")
	// Every route by which a secret can come back: listings (an alias
	// included), the source, the .env beside it, the program's output, an
	// innocent name, a dict's repr (a reversed copy is a part: withheld).
	r.ok("debugpy_variables", `{"depth":2}`)
	r.ok("debugpy_variables", `{"scope":"globals","depth":2}`)
	r.ok("debugpy_source", `{"context_lines":40}`)
	r.approved("debugpy_source", `{"file":`+q(filepath.Join(r.dir, ".env"))+`}`) // not source: a person approves, and its values are masked still
	r.outputWith("connecting with")
	r.ok("debugpy_evaluate", `{"expression":"alias"}`)
	r.refused("debugpy_evaluate", `{"expression":"alias[::-1]"}`, "denied by policy") // a part, reversed: denied (derived.holders)
	r.ok("debugpy_evaluate", `{"expression":"settings"}`)
	r.ok("debugpy_evaluate", `{"expression":"cfg.name"}`)
	seen := r.seen.String()
	noneSeen(t, seen, "s3cr3t-hunter2", "api-s3cret-value", "dict-s3cret-value", "local-s3cret-value", "eulav-terc3s-lacol",
		"wJalrXUtnFEMI", "db-url-pa55word", "sk_live_51HxYz", "AKIAIOSFODNN7EXAMPLE")
	if !strings.Contains(seen, "[redacted]") || !strings.Contains(seen, "prod") {
		t.Fatalf("the control: masks and plain values both shown? %s", seen)
	}
	noFile(t, marker, "an expression")
}

// spellingsProgram holds secrets whose repr is not how the program holds
// them (a backslash, a tab, a line end, a no-break space, a zero-width
// space are escaped in a repr), and prints them after the stop, as they
// are and in JSON.
const spellingsProgram = `import json


def main():
    password = "bk\\sl-s3cret\u00a0nbsp\u200bzw"
    api_token = "tab\there-s3cret\nline2"
    alias = password
    passphrase = "p\u00e4ssphr\u00e4se-t0psecret-\u20ac"
    raw = passphrase.encode()
    n = 1  # BREAK
    print("out:", alias, flush=True)
    print("json:", json.dumps({"v": api_token, "w": alias}), flush=True)
    return n


main()
`

// A secret learned from a listing is masked in every spelling a later
// result can show it in: the repr the listing showed, the value the
// program prints, its JSON (json.dumps escapes what repr does not), the
// repr of its bytes.
func TestAttackSecretSpellings(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(spellingsProgram)
	for _, c := range []string{"watch", "clipboard"} {
		if text := r.ok("debugpy_evaluate", `{"expression":"alias","context":"`+c+`"}`); !strings.Contains(text, "[redacted]") {
			t.Fatalf("alias, context %s: %s", c, text)
		}
	}
	// Its UTF-8 bytes, escaped past ASCII in their repr (b'p\xc3\xa4...').
	if text := r.ok("debugpy_evaluate", `{"expression":"raw"}`); !strings.Contains(text, "[redacted]") {
		t.Fatalf("raw: %s", text)
	}
	if text := r.ok("debugpy_continue", `{}`); !strings.Contains(text, "exited") {
		t.Fatalf("continue: %s", text)
	}
	if text := r.outputWith(`json: {`); !strings.Contains(text, "out:") || !strings.Contains(text, `json: {`) {
		t.Fatalf("output: %s", text)
	}
	seen := r.seen.String()
	noneSeen(t, seen, "sl-s3cret", "here-s3cret", "line2", "t0psecret")
}

// A program encodes its secrets to send them: HTTP's Basic credentials
// (base64 of user:password), a URL-safe token, a key in hex. Under an
// innocent name the encoding showed the secret to anyone who decodes it.
// The host masks, for each secret, its base64 (both alphabets, at each of
// the three places it can start in a group of three bytes, so whatever
// comes before it) and its hex. A URL's password, percent-encoded in the
// URL, is the program's decoded elsewhere. A base64 broken into lines
// (base64.encodebytes), in a repr and printed, is masked across its line
// end.
func TestAttackSecretEncoded(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(`import base64, binascii
def main():
    password = "enc-s3cret-value"
    basic = base64.b64encode(b"ada:" + password.encode())
    basic2 = base64.b64encode(b"adam:" + password.encode()).decode()
    urlsafe = base64.urlsafe_b64encode(b"\xfb\xff" + password.encode() + b"?>")
    hexed = password.encode().hex()
    headers = [("X-Basic", basic2)]
    db_url = "postgres://app:p%40ss-s3cret%21@db/orders"
    conn_arg = "p@ss-s3cret!"
    mime = base64.encodebytes(b"x" * 50 + password.encode())
    n = 1  # BREAK
    print(mime.decode(), flush=True)
    return n
main()
`)
	r.masked("basic", "basic2", "urlsafe", "hexed", "headers", "db_url", "conn_arg", "mime")
	r.ok("debugpy_step_over", `{}`)
	r.ok("debugpy_step_over", `{}`) // it prints mime: its lines, each line end a real one
	if text := r.outputWith("eHh4"); !strings.Contains(text, "eHh4") || !strings.Contains(text, "[redacted]") {
		t.Fatalf("output: %s", text)
	}
	seen := r.seen.String()
	noneSeen(t, seen, "p@ss-s3cret", "p%40ss-s3cret", "bmMtczNj", "cmV0LXZhbHVl") // mime's pieces either side of its line end
	for _, enc := range encodings("enc-s3cret-value") {
		noneSeen(t, seen, enc)
	}
}

// A secret percent-encoded by the program itself, to go in a URL or a
// form body, under an innocent name: quote leaves the slashes of an AWS
// secret key and escapes the rest, quote with no safe character escapes
// them too, quote_plus writes a space as +, another encoder writes its hex
// in lower case. Shown, each spelled the key whole between its escapes.
func TestAttackSecretPercentEncoded(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(`from urllib.parse import quote, quote_plus, urlencode
def main():
    aws_secret_access_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    api_password = "p@ss w0rd+m\u00f6re&x=1"
    url = "https://s3.example/?sig=" + quote(aws_secret_access_key, safe="")
    path = "/keys/" + quote(aws_secret_access_key)
    body = urlencode({"user": "bob", "k": api_password})
    lower = quote(api_password).lower()
    pair = (quote_plus(api_password), "https://example.org/a%20b")
    plain = "https://example.org/a%20b?q=1+2"
    n = 1  # BREAK
    return n
main()
`)
	r.masked("url", "path", "body", "lower", "pair")
	if text := r.ok("debugpy_evaluate", `{"expression":"plain"}`); !strings.Contains(text, "a%20b?q=1+2") {
		t.Fatalf("the control, a URL without a secret: %s", text)
	}
	for _, e := range []string{"url[24:]", "pair[0][5:]"} { // parts of holders
		r.refused("debugpy_evaluate", `{"expression":`+q(e)+`}`, "denied by policy")
	}
	noneSeen(t, r.seen.String(), "wJalrXUtnFEMI", "bPxRfiCYEXAMPLEKEY", "w0rd", "m%C3%B6re", "m%c3%b6re")
}

// encodings are the runs of base64 (both alphabets, three alignments)
// and hex that hold only a secret's bits: what must never be seen.
func encodings(secret string) []string {
	var out []string
	for k := 0; k < 3; k++ {
		b := append(make([]byte, k), secret...)
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
			e := enc.EncodeToString(b)
			out = append(out, e[(8*k+5)/6:8*len(b)/6])
		}
	}
	return append(out, hex.EncodeToString([]byte(secret)))
}

// A language model's program counts tokens (pieces of text) everywhere:
// max_tokens, a tokenizer, token_ids, pad_token. Read as credentials, they
// were denied and their values masked in every result (4096, wherever it
// showed). A credential token is still one, plural or glued.
func TestLanguageModelTokens(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(`class Tokenizer:
    pad_token = "<pad>"
    def __repr__(self):
        return "Tokenizer(vocab=32000)"
def main():
    tokenizer = Tokenizer()
    max_tokens = 4096
    token_ids = [1, 4096, 17]
    prompt_tokens = 12
    access_token = "tok-s3cret-value"
    api_tokens = ["list-tok-s3cret"]
    n = 1  # BREAK
    return n
main()
`)
	if text := r.ok("debugpy_evaluate", `{"expression":"(max_tokens, token_ids, prompt_tokens, tokenizer, tokenizer.pad_token)"}`); !strings.Contains(text, "(4096, [1, 4096, 17], 12, Tokenizer(vocab=32000), '<pad>')") {
		t.Fatalf("a language model's tokens: %s", text)
	}
	if text := r.ok("debugpy_variables", `{}`); !strings.Contains(text, "4096") || strings.Contains(text, "tok-s3cret") {
		t.Fatalf("listing: %s", text)
	}
	r.refused("debugpy_evaluate", `{"expression":"access_token"}`, "a secret's name")
	r.refused("debugpy_evaluate", `{"expression":"api_tokens"}`, "a secret's name")
	noneSeen(t, r.seen.String(), "tok-s3cret")
}

// A program's names that say something about a secret (its length, its
// kind, its rules) are not a secret's: auth_method = "password" made the
// word a secret, masked in the field password_reset_required of every
// repr, and the listing's every order a holder, whose type was withheld;
// password_length was refused; a secretary's name was masked. The secrets
// beside them still are.
func TestNamesAboutSecrets(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(`import dataclasses, json
@dataclasses.dataclass
class Order:
    id: int
    auth_method: str = "password"
    password_reset_required: bool = False
def main():
    orders = [Order(i) for i in range(3)]
    password_length = 12
    PASSWORD_RESET_TIMEOUT = 259200
    staff = json.dumps({"secretary": "Grace Hopper"})
    password = "about-s3cret-value"
    password_reset_code = "reset-s3cret-value"
    n = 1  # BREAK
    return n
main()
`)
	r.ok("debugpy_variables", `{}`)
	for e, want := range map[string]string{
		"orders[0]":                      "Order(id=0, auth_method='password', password_reset_required=False)",
		"type(orders[0])":                "<class '__main__.Order'>",
		"password_length + 1":            "13",
		"PASSWORD_RESET_TIMEOUT // 3600": "72",
		"staff":                          `"secretary": "Grace Hopper"`,
	} {
		if text := r.ok("debugpy_evaluate", `{"expression":`+q(e)+`}`); !strings.Contains(text, want) {
			t.Errorf("%s: %s", e, text)
		}
	}
	r.refused("debugpy_evaluate", `{"expression":"password_reset_code"}`, "a secret's name")
	noneSeen(t, r.seen.String(), "about-s3cret-value", "reset-s3cret-value")
}

// An object that holds a secret in one field (a user and its password's
// hash, a request's headers, Django's DATABASES) had every member read
// refused: user.username, headers['Content-Type'], args.verbose. A member
// read whole by attributes and string keys (and a list's or a tuple's by
// its index first) is now shown, the secret whole masked; a part of one, a
// number further on the way, a comparison, stay denied.
func TestMembersOfObjectHolders(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(`import argparse, dataclasses
DATABASES = {"default": {"NAME": "app", "PASSWORD": "dbpw-s3cret-value", "HOST": "db"}}
@dataclasses.dataclass
class User:
    username: str
    password: str
def main():
    user = User("ada", "pbkdf2-s3cret-hash")
    alias = user.password
    args = argparse.Namespace(token="cli-t0ken-value", verbose=True)
    headers = {"Content-Type": "application/json", "Authorization": "Bearer hdr-s3cret-value", "X-Trace": "trace-1"}
    pair = ("ada", user.password)
    users = [user, User("bob", "bob-s3cret-hash")]
    n = 1  # BREAK
    return n
main()
`)
	for e, want := range map[string]string{
		"user.username":                "'ada'",
		"args.verbose":                 "True",
		"headers['Content-Type']":      "'application/json'",
		"DATABASES['default']['HOST']": "'db'",
		"(user, headers)":              "[redacted]",
		"pair[0]":                      "'ada'",
		"users[0].username":            "'ada'",
	} {
		if text := r.ok("debugpy_evaluate", `{"expression":`+q(e)+`}`); !strings.Contains(text, want) {
			t.Errorf("%s: %s", e, text)
		}
	}
	for _, e := range []string{"user.username == 'ada'", "headers['X-Trace'][1:]", "pair[1][1:]", "pair[1][0]", "users[0].username[1:]", "users[1][0]",
		"alias.upper()", "len(args.verbose)"} {
		r.refused("debugpy_evaluate", `{"expression":`+q(e)+`}`, "denied by policy", "other than whole")
	}
	r.masked("pair[1]", "users[1]")
	noneSeen(t, r.seen.String(), "dbpw-s3cret-value", "pbkdf2-s3cret-hash", "cli-t0ken-value", "hdr-s3cret-value", "bob-s3cret-hash")
}

// Files of the program's directory that are not source: a CSV whose
// password column no mask reads (its values are not beside their names), a
// SQLite database whose rows showed among its bytes. Read freely as files
// of the debug session, they showed every credential in them. Now a
// person decides (targets.data_files), and a file with a NUL byte is not
// shown at all; the program's source is read as before.
func TestAttackDataFiles(t *testing.T) {
	r := startRaw(t, rawOpts{})
	csv := filepath.Join(r.dir, "users.csv")
	db := filepath.Join(r.dir, "app.db")
	os.WriteFile(csv, []byte("email,password,role\nada@example.org,csvpw-s3cret-1,admin\n"), 0o600)
	os.WriteFile(db, []byte("SQLite format 3\x00\x10\x00\x01\x01\n\x00\x13adasqlite-s3cret-pw\n"), 0o600)
	r.stopAtBreak("def main():\n    n = 1  # BREAK\n    return n\nmain()\n")
	r.refused("debugpy_source", `{"file":`+q(csv)+`}`, "needs a person's approval", "not Python source")
	if out, err := r.cli("approve", "--yes", id(t, r.refused("debugpy_source", `{"file":`+q(db)+`}`, "not Python source"))); err != nil {
		t.Fatalf("approve: %v\n%s", err, out)
	}
	r.refused("debugpy_source", `{"file":`+q(db)+`}`, "not a text file")
	if text := r.ok("debugpy_source", `{}`); !strings.Contains(text, "# BREAK") {
		t.Fatalf("the program's source: %s", text)
	}
	noneSeen(t, r.seen.String(), "csvpw-s3cret-1", "sqlite-s3cret-pw")
}

// connProgram keeps credentials the way programs do besides password:
// short names (DB_PASS, smtp_pw), connection strings (ODBC's, libpq's)
// under innocent names, and prints one.
const connProgram = `def main():
    DB_PASS = "dbpass-s3cret"
    settings = {"smtp_pw": "smtp-s3cret"}
    conn_str = "Driver={ODBC Driver 18};Server=db;UID=sa;PWD=odbcSecretValue;"
    pg_opts = "host=db user=app password=libpqSecretValue dbname=orders"
    creds = ("app", "credsSecretValue")
    cookies = {"sessionid": "cookieSecretValue"}
    jar = {"cookies": {"sessionid": "jarCookieSecretValue"}, "domain": "example.org"}
    copy = jar["cookies"]["sessionid"]
    notify = "https://hooks.slack.com/services/T0AAA/B0BBB/slackHookSecretValue"
    mail = {"auth": ("mailer", "smtpAuthSecretValue"), "host": "mx"}
    print("connecting:", conn_str, flush=True)
    n = 1  # BREAK
    return n


main()
`

// Secrets under short names (DB_PASS, smtp_pw, creds, cookies), inside
// connection strings and in a webhook URL's path: the names are refused in
// expressions and masked in listings; a connection string's password and a
// webhook's path are masked wherever they are shown.
func TestAttackSecretNamesAndConnections(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(connProgram)
	r.refused("debugpy_evaluate", `{"expression":"DB_PASS"}`, "denied by policy", "secret's name")
	r.refused("debugpy_evaluate", `{"expression":"settings['smtp_pw']"}`, "denied by policy", "secret's name")
	r.refused("debugpy_evaluate", `{"expression":"creds[1]"}`, "denied by policy", "secret's name")
	r.refused("debugpy_evaluate", `{"expression":"cookies"}`, "denied by policy", "secret's name")
	r.ok("debugpy_variables", `{}`)
	r.evaluateEach("settings", "conn_str", "pg_opts", "jar", "copy", "notify", "mail")
	r.outputWith("connecting: Driver=")
	seen := r.seen.String()
	noneSeen(t, seen, "dbpass-s3cret", "smtp-s3cret", "odbcSecretValue", "libpqSecretValue", "credsSecretValue", "cookieSecretValue", "jarCookieSecretValue", "slackHookSecretValue", "smtpAuthSecretValue")
	if !strings.Contains(seen, "Server=db;UID=sa;PWD=[redacted]") || !strings.Contains(seen, "dbname=orders") || !strings.Contains(seen, "example.org") {
		t.Fatalf("the control: the rest of each value is shown: %s", seen)
	}
}

// nestedProgram keeps its settings in a module the stop's listing shows
// as <module 'cfgmod'>, so that no listing has shown its secrets first.
const nestedProgram = `import types

cfgmod = types.ModuleType("cfgmod")
cfgmod.SETTINGS = {"password": "nestedSecretValue", "api_key": "it's a \"nested\" k3y", "user": "ada"}
class Cfg:
    DEFAULTS = {"password": "deepSecretValue"}
cfgobj = Cfg()
n = 1  # BREAK
`

// A dict's repr inside a str's repr, and deeper: repr(repr(x)) shows the
// dict's pairs with their quotes escaped. redact reads the strings inside
// strings as Python decodes them. Of a path that holds a secret
// (cfgmod.SETTINGS, read whole by the host first) such a result is
// withheld; of a copy a person approved, it is shown masked.
func TestAttackSecretsNested(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(nestedProgram)
	// A part of what repr returns waits for a person; approved, the
	// result is withheld all the same.
	text := r.refused("debugpy_evaluate", `{"expression":"repr(repr(cfgmod.SETTINGS))"}`, "needs a person's approval", "what a call returns")
	if out, err := r.cli("approve", "--yes", id(t, text)); err != nil {
		t.Fatalf("approve: %v\n%s", err, out)
	}
	r.refused("debugpy_evaluate", `{"expression":"repr(repr(cfgmod.SETTINGS))"}`, "withheld", "cfgmod.SETTINGS holds a secret")
	for _, e := range []string{"repr(repr(cfgmod.SETTINGS.copy()))", "repr(repr(repr(cfgmod.SETTINGS.copy())))", "[repr(cfgmod.SETTINGS.copy())]",
		"repr((repr(cfgmod.SETTINGS.copy()), 1))", "str(repr(cfgmod.SETTINGS.copy()))"} {
		if text := r.approved("debugpy_evaluate", `{"expression":`+q(e)+`}`); !strings.Contains(text, "ada") {
			t.Fatalf("%s: %s", e, text)
		}
	}
	// Deeper than redact reads strings inside strings (seven reprs), of
	// what no path the host reads reaches (a class's attribute through
	// type()): a plain value is spelled the same at every level, so the
	// string that may hold it is masked whole. A person approves each (it
	// reads in part what no path names). From the deepest down: a value
	// masked once is known, and masked by its value in every later result.
	for i := 11; i >= 7; i-- {
		deep := strings.Repeat("repr(", i) + "type(cfgobj).DEFAULTS" + strings.Repeat(")", i)
		if text := r.approved("debugpy_evaluate", `{"expression":`+q(deep)+`}`); !strings.Contains(text, "[redacted]") {
			t.Fatalf("%d reprs: %s", i, text)
		}
	}
	seen := r.seen.String()
	noneSeen(t, seen, "nestedSecretValue", "nested\\", "k3y", "deepSecret")
}

// sourceProgram writes its secrets in source over several lines: a value
// in brackets, a triple-quoted string, an annotation, a concatenation.
const sourceProgram = `from typing import Optional

DB_PASSWORD = (
    "paren-s3cret-"
    "value"
)
PRIVATE_KEY = """
tq-s3cret-line
"""
api_token: Optional[str] = "annot-s3cret"
SECRET = "a" + "concat-s3cret"
user = "ada"
n = 1  # BREAK
def store(r, parser, key):
    parser.set("database", "password", "setpw-s3cret9")
    r.hset(key, "api_token", "hset-s3cret9")
    transport.auth_password("ada", "ssh-s3cret9")
    db.authenticate("ada", "mongo-s3cret9")
    subprocess.run(["powershell", "-Command", "ConvertTo-SecureString 'ps-s3cret9' -AsPlainText -Force"])
    conn.bind("cn=admin,dc=example,dc=org", "ldap-s3cret9", ldap.AUTH_SIMPLE)
    r.execute_command("AUTH", "default", "redis-s3cret9")
    irc.oper("ada", "irc-s3cret9")
    ssh.login("10.0.0.5", "ada", "pxlogin-s3cret9")
    return Minio("play.min.io", "Q3AMaccess", "minio-s3cret9")
`

// The program's source read as Python: an assignment to a secret's name
// is masked over its whole logical line; and a call's last two
// arguments, a secret's name and its value (configparser's set, redis'
// hset), the positional secrets of paramiko's auth_password, PyMongo's
// authenticate and MinIO's client, and PowerShell's ConvertTo-SecureString
// (each shown in clear until 2026-12-08), python-ldap's bind, a Redis
// AUTH through execute_command and the irc package's oper (shown in clear
// until later that day) and pexpect's pxssh login's third argument (its
// password), below the stop, where no listing learned them.
func TestAttackSecretsInSource(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(sourceProgram)
	text := r.ok("debugpy_source", `{"context_lines":20}`)
	seen := r.seen.String()
	noneSeen(t, seen, "paren-s3cret", "tq-s3cret", "annot-s3cret", "concat-s3cret", `"value"`, "setpw-s3cret", "hset-s3cret", "ssh-s3cret", "minio-s3cret", "mongo-s3cret", "ps-s3cret",
		"ldap-s3cret", "redis-s3cret", "irc-s3cret", "pxlogin-s3cret")
	if !strings.Contains(text, `user = "ada"`) || strings.Count(text, "\n") < 12 {
		t.Fatalf("the control: the rest of the source is shown, line by line: %s", text)
	}
}

// debugpy_source's windows from inside what a window alone cannot tell is
// a secret: a private key block in a fixture's string (a module the program
// never imports, so no listing learned it) and a password assigned over
// lines. Each window showed its lines, and windows one after another the
// whole key (found 2026-12-07). A window is read with the file's lines
// above it (derived.before).
func TestAttackSourceWindowInsideASecret(t *testing.T) {
	r := startRaw(t, rawOpts{})
	key, err := exec.Command("openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256").Output()
	if err != nil {
		t.Fatalf("openssl: %v", err)
	}
	body := strings.Split(strings.TrimSpace(string(key)), "\n")
	// and the same key's DER in base64 without its armor, a string
	// literal a line in a list (until later that day, its first line alone
	// was masked)
	der := exec.Command("openssl", "pkey", "-outform", "DER")
	der.Stdin = bytes.NewReader(key)
	derBytes, err := der.Output()
	if err != nil {
		t.Fatalf("openssl: %v", err)
	}
	b64 := base64.StdEncoding.EncodeToString(derBytes)
	var derLines []string
	for i := 0; i < len(b64); i += 64 {
		derLines = append(derLines, b64[i:min(i+64, len(b64))])
	}
	fixture := "import os\n\nFIXTURE = \"\"\"" + strings.TrimSpace(string(key)) + "\"\"\"\n\nDB_PASSWORD = (\n    \"first-piece-x1\"\n    \"second-piece-y2\"\n)\n" +
		"KEY_LINES = [\n    \"" + strings.Join(derLines, "\",\n    \"") + "\",\n]\nretries = 3\n"
	os.WriteFile(filepath.Join(r.dir, "fixtures.py"), []byte(fixture), 0o644)
	r.stopAtBreak("import os\nn = 1  # BREAK\n")
	lines := strings.Count(fixture, "\n")
	var shown strings.Builder
	for line := 4; line <= lines; line++ {
		shown.WriteString(r.ok("debugpy_source", fmt.Sprintf(`{"file":%s,"line":%d,"context_lines":0}`, q(filepath.Join(r.dir, "fixtures.py")), line)))
	}
	noneSeen(t, r.seen.String(), append(append([]string{"first-piece-x1", "second-piece-y2"}, body[1:len(body)-1]...), derLines...)...)
	if !strings.Contains(shown.String(), "retries = 3") {
		t.Errorf("the control: the code below is shown: %s", shown.String())
	}
}

// A text longer than debugpy shows (2**16 characters: it shows the ends)
// whose middle holds a private key, under an innocent name and as an
// object's attribute: the listing never read the middle, and slices of it
// read whole first showed the key's lines below its BEGIN line, which no
// mask knows apart from other text, a slice at a time (found 2026-12-07).
// A slice of the name waits for a person; of the path, its result is
// withheld. So for a list of a file's lines, the key's past its 100th
// (after), and among its first 100 (before), which the listing read
// together but learned as one: each line read alone showed.
func TestAttackLongTextReadInParts(t *testing.T) {
	r := startRaw(t, rawOpts{})
	key := rsaKeyFile(t, filepath.Join(r.dir, "k.pem"), "PEM")
	r.stopAtBreak(`import os
def load():
    with open(os.path.join(os.path.dirname(__file__), "k.pem")) as f:
        return "x" * 100000 + "\n" + f.read() + "\n" + "y" * 100000
class Page:
    pass
def lines(n):
    with open(os.path.join(os.path.dirname(__file__), "k.pem")) as f:
        return ["filler %d" % i for i in range(n)] + f.read().splitlines() + ["more"] * 10
after = lines(200)
before = lines(90)
dump = load()
page = Page()
page.html = dump
short = "a short text"
n = 1  # BREAK
`)
	start := 100001 + len("-----BEGIN PRIVATE KEY-----\n") + 65 // the second line of the key's base64: its first is known by how a key's DER begins
	for _, e := range []string{fmt.Sprintf("dump[%d:%d]", start, start+400), fmt.Sprintf("dump[%d::2][:300]", start), fmt.Sprintf("(1, dump[%d:%d])", start+64, start+500),
		fmt.Sprintf("ｄｕｍｐ[%d:%d]", start, start+400), fmt.Sprintf("dump[%#x:%#x]", start, start+400), fmt.Sprintf("dump [ %d : %d ]", start, start+400)} {
		r.refused("debugpy_evaluate", `{"expression":`+q(e)+`}`, "needs a person's approval", "reads part of dump, text that debugpy showed cut short")
	}
	for _, e := range []string{fmt.Sprintf("page.html[%d:%d]", start, start+400), fmt.Sprintf("page . ｈｔｍｌ[%d:%d]", start, start+400)} {
		r.refused("debugpy_evaluate", `{"expression":`+q(e)+`}`, "withheld by policy", "reads part of page.html")
	}
	for _, e := range []string{"after[202]", "after[201:205]", "after[-20]"} {
		r.refused("debugpy_evaluate", `{"expression":`+q(e)+`}`, "needs a person's approval", "reads part of after")
	}
	for _, e := range []string{"before[92]", "before[95]", "before[91:99]"} {
		if text := r.ok("debugpy_evaluate", `{"expression":`+q(e)+`}`); !strings.Contains(text, "[redacted]") {
			t.Errorf("%s: %s", e, text)
		}
	}
	if text := r.ok("debugpy_evaluate", `{"expression":"after[5]"}`); !strings.Contains(text, "filler 5") {
		t.Errorf("the control, an item among the first shown: %s", text)
	}
	if text := r.ok("debugpy_evaluate", `{"expression":"short[2:]"}`); !strings.Contains(text, "short text") {
		t.Errorf("the control, a slice of a text shown whole: %s", text)
	}
	r.ok("debugpy_evaluate", `{"expression":"dump"}`)
	body := strings.Split(strings.TrimSpace(string(key)), "\n")
	noneSeen(t, r.seen.String(), body[2:len(body)-2]...)
}

// A call the default allows is no way to call what it is handed: type with
// three arguments makes a class whose hooks the rest of the expression
// runs (a subscript runs __class_getitem__, a subclass __init_subclass__),
// and a keyword or unpacked argument can hand any allowed callee a
// function. Each waits for a person; the approved one shows the way is
// real in this debuggee.
func TestAttackCallsThatCallWhatTheyAreGiven(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak("import logging\nn = 1  # BREAK\n")
	marker := filepath.Join(r.dir, "ran")
	system := "logging.threading._os.system"
	touch := q("touch " + marker)
	codes := []string{
		"type('X', (), {'__class_getitem__': " + system + "})[" + touch + "]",
		"type('Y', (type('B', (), {'__init_subclass__': " + system + "}),), {}, command=" + touch + ")",
		"type(*('X', (), {'__class_getitem__': " + system + "}))[" + touch + "]",
		"type('X', (), {'__class_' + 'getitem__': " + system + "})[" + touch + "]",
		"ｔｙｐｅ('X', (), {'__class_getitem__': " + system + "})[" + touch + "]",
	}
	for _, code := range codes {
		r.refused("debugpy_evaluate", `{"expression":`+q(code)+`}`, "needs a person's approval")
	}
	noFile(t, marker, "an allowed call")
	// The controls: type of one argument needs nobody, and a person who
	// approves the first one gets what it does.
	if text := r.ok("debugpy_evaluate", `{"expression":"type(logging)"}`); !strings.Contains(text, "module") {
		t.Fatalf("type(logging): %s", text)
	}
	r.approved("debugpy_evaluate", `{"expression":`+q(codes[0])+`}`)
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the approved call did not run: %v", err)
	}
}

// A secret in pieces through a path: the stop's listing shows the frame's
// names, but the same value is reached through another module
// (sys.modules['__main__'].alias, through threading's own sys), and an
// environment variable through os.environ; read in part first, before
// anything showed it whole, neither may come back in pieces.
func TestAttackSecretThroughAPath(t *testing.T) {
	r := startRaw(t, rawOpts{env: []string{"DATABASE_URL=postgres://app:envpw-s3cret@db/x", "PLAIN_VALUE=plain-value"}})
	r.stopAtBreak(`import logging
password = "hunter2-s3cret-value"
alias = password
login = ("admin", password)
user = "admin"
def f():
    n = 1  # BREAK
f()
`)
	main := "logging.threading._sys.modules['__main__']"
	env := "logging.threading._os.environ"
	for _, code := range []string{
		main + ".alias[1:]", main + ".alias[::2]", main + ".alias < 'm'", main + ".login[1][2:]",
		main + ".login < ('admin', 'm')", "len(" + main + ".alias)", main + ".alias in ('x', 'y')",
		main + ".alias[3]", main + ".alias[-1]", main + ".login[1][0]", // one character, with no slice in the code
		env + "['DATABASE_URL'][15:]", env + "['DATABASE_URL'] < 'postgres://app:e'",
	} {
		r.refused("debugpy_evaluate", `{"expression":`+q(code)+`}`, "withheld by policy", "holds a secret")
	}
	noneSeen(t, r.seen.String(), "s3cret", "hntr", "nter2")
	// The controls: a part of what holds no secret, and the path whole.
	for code, want := range map[string]string{
		main + ".user[1:]":          "'dmin'",
		env + "['PLAIN_VALUE'][6:]": "'value'",
		main + ".alias":             "[redacted]",
	} {
		if text := r.ok("debugpy_evaluate", `{"expression":`+q(code)+`}`); !strings.Contains(text, want) {
			t.Errorf("%s: %s, want %s", code, text, want)
		}
	}
	// Each path is a round trip to debugpy: a code that reads too many in
	// part does not run.
	var many []string
	for i := range 33 {
		many = append(many, fmt.Sprintf("logging.a%d[1:]", i))
	}
	r.refused("debugpy_evaluate", `{"expression":`+q(strings.Join(many, ", "))+`}`, "did not run", "33 paths", "split it")
}

// The stop's listing read the first 500 variables of a scope, as a person
// would look at them: in a module of more (a star import brings numpy's
// ~600 names), a secret's name that sorts past them was never listed, and
// an innocent alias that sorts before it showed the secret in clear (found
// 2026-12-05). Every variable of a scope is read now.
func TestAttackSecretPastTheFirstVariables(t *testing.T) {
	r := startRaw(t, rawOpts{})
	var locals strings.Builder
	for i := range 600 {
		fmt.Fprintf(&locals, "    l%03d = %d\n", i, i)
	}
	r.stopAtBreak("globals().update(('g%03d' % i, i) for i in range(600))\n" +
		"zz_password = 'late-s3cret-value-99'\n" +
		"a_alias = zz_password\n" +
		"def f():\n" + locals.String() +
		"    zz_secret = 'local-s3cret-value-88'\n" +
		"    a_local = zz_secret\n" +
		"    n = 1  # BREAK\n" +
		"f()\n")
	r.masked("a_alias", "(a_alias, 1)", "a_local")
	for _, scope := range []string{"globals", "locals"} {
		if text := r.ok("debugpy_variables", `{"scope":"`+scope+`","max_items":5}`); !strings.Contains(text, "[redacted]") {
			t.Errorf("the %s the agent asks for: %s", scope, text)
		}
	}
	noneSeen(t, r.seen.String(), "late-s3cret", "local-s3cret")
}

// A row named for a secret is masked whole, and the strings of the
// container it showed were not learned: an alias of one of them, x =
// password[1] of password = [...], y = credentials['token'] of
// credentials = {...}, showed in clear (found 2026-12-05).
func TestAttackSecretsInAContainerUnderASecretsName(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak("password = ['alpha-s3cret-1', 'beta-s3cret-2']\n" +
		"x = password[1]\n" +
		"credentials = {'user': 'ada', 'token': 'tok-s3cret-9x', 'port': 5432}\n" +
		"y = credentials['token']\n" +
		"n = 1  # BREAK\n")
	r.masked("x", "y")
	noneSeen(t, r.seen.String(), "beta-s3cret", "tok-s3cret")
}

// The stop's listing opens the values that hide what they hold, to learn
// the secrets in them: at most 64 a stop, six levels deep, learned in
// parts of at most 2,000 rows. Each case is a program whose secret, held
// where the listing missed it, showed in clear through an innocent alias
// (found 2026-12-05 and 2026-12-06); shown is a value that must still show.
func TestAttackSecretsTheListingOpens(t *testing.T) {
	const classes = "class O:\n    pass\n" +
		"class User:\n    def __init__(self, i):\n        self.name = 'user%03d' % i\n"
	for _, c := range []struct {
		name, src               string
		files                   map[string]string // beside the program, by name
		masked, refused, secret []string
		shown                   [2]string // an expression, and what it shows
	}{{
		// A row named for a secret is masked whole and its children
		// dropped; they were not learned. Those not named for a secret
		// are still not learned: a field's value (a user's name) is shown.
		name: "under",
		src: "e = O(); e.credentials = O(); e.credentials.password = 'undersecret-s3cret-value'\n" +
			"e.credentials.user = 'ada-lovelace'\n" +
			"e1, who = e.credentials.password, e.credentials.user\n" +
			// Nor were those whose names say they hold its value (key,
			// pin_code): an alias of one was shown in clear (found
			// 2026-12-06).
			"e.credentials.aws = O(); e.credentials.aws.key = 'underkey-s3cret-value'\ne.credentials.pin_code = 48219377\n" +
			"e2, e3 = e.credentials.aws.key, e.credentials.pin_code\n",
		masked: []string{"e1", "e2", "e3"}, secret: []string{"undersecret-s3cret", "underkey-s3cret", "48219377"},
		shown: [2]string{"who", "ada-lovelace"},
	}, {
		// Taken in order, a list of 100 users' objects took the 64, and
		// settings.db, beside them, was never opened.
		name: "beside",
		src: "accounts = [User(i) for i in range(100)]\n" +
			"settings = O(); settings.db = O(); settings.db.password = 'beside-s3cret-value'\n" +
			"alias = settings.db.password\n",
		masked: []string{"alias"}, secret: []string{"beside-s3cret"}, shown: [2]string{"accounts[70].name", "user070"},
	}, {
		// 70 objects of one type among a module's names took the 64 at
		// the first level, and settings.db, a level below, was never
		// opened: the first of each type under each parent first, level
		// by level, now (settings and settings.db are of one type here).
		name: "below",
		src: "globals().update(('o%02d' % i, User(i)) for i in range(70))\n" +
			"settings = O(); settings.db = O(); settings.db.password = 'below-s3cret-value'\n" +
			"alias = settings.db.password\n",
		masked: []string{"alias"}, secret: []string{"below-s3cret"}, shown: [2]string{"o69.name", "user069"},
	}, {
		// Three levels deep, d.x.y.z.password was never learned.
		name: "deep",
		src: "d = O(); d.x = O(); d.x.y = O(); d.x.y.z = O(); d.x.y.z.password = 'lvl4-s3cret-value'\n" +
			"f = O(); f.a = O(); f.a.b = O(); f.a.b.c = O(); f.a.b.c.d = O(); f.a.b.c.d.e = O()\n" +
			"f.a.b.c.d.e.api_key = 'lvl6-s3cret-value'\n" +
			"d1, f1 = d.x.y.z.password, f.a.b.c.d.e.api_key\n",
		masked: []string{"d1", "f1"}, secret: []string{"lvl4-s3cret", "lvl6-s3cret"}, shown: [2]string{"d.x.y.z", "O object"},
	}, {
		// One variable whose opened values held more than a part's rows
		// (60 objects of 400 attributes) was learned as one part: redact
		// timed out on it, and the stop's every read was refused.
		name: "big",
		src: "big = O()\n" +
			"for i in range(60):\n" +
			"    o = O()\n" +
			"    for j in range(400):\n" +
			"        setattr(o, 'f%03d' % j, 'value-%03d-%03d-' % (i, j) + 'x' * 60)\n" +
			"    setattr(big, 'o%02d' % i, o)\n" +
			"big.o59.api_key = 'deep-in-big-s3cret'\n" +
			"alias = big.o59.api_key\n",
		masked: []string{"alias"}, secret: []string{"deep-in-big-s3cret"}, shown: [2]string{"big.o01.f002", "value-001-002-"},
	}, {
		// A list or dict under a secret's name shows its first 15 items;
		// the listing opened it, but its other items, named by an index
		// or a key, were dropped unlearned: an alias of the 18th password
		// was shown in clear (found 2026-12-06).
		name: "items",
		src: "passwords = ['pw-s3cret-%02d-value' % i for i in range(20)]\n" +
			"api_tokens = {('svc%d' % i): 'tk-s3cret-%02d-value' % i for i in range(20)}\n" +
			"a1, a2, count = passwords[17], api_tokens['svc18'], 20\n",
		masked: []string{"a1", "a2"}, secret: []string{"pw-s3cret-17", "tk-s3cret-18"}, shown: [2]string{"count", "20"},
	}, {
		// A dataclass under a secret's name shows its fields' values in
		// its repr; only the whole repr was learned, and an alias of a
		// field was shown in clear, as was one of a short bytearray's
		// (found 2026-12-06).
		name: "fields",
		src: "import dataclasses\n@dataclasses.dataclass\nclass DB:\n    host: str\n    key: str\n" +
			"db_secret = DB('db-host', 'dc-s3cret-value-22')\nk2 = db_secret.key\n" +
			"pwd = bytearray(b'sb-s3cret-v7')\nk3 = pwd.decode()\n" +
			// A display of a mask (pydantic's SecretStr('**********')):
			// its stars are no secret, nor is a rule of stars.
			"class Masked:\n    def __repr__(self):\n        return \"Masked('**********')\"\napi_secret = Masked()\nrule = '*' * 10\n",
		masked: []string{"k2", "k3"}, secret: []string{"dc-s3cret", "sb-s3cret"}, shown: [2]string{"rule", "'**********'"},
	}, {
		// debugpy shows a bytearray of more than 15 bytes as <bytearray,
		// len() = 20>, and lists none of its bytes: they were never
		// learned, and str() of an alias showed them in clear, as did a
		// str made of them (found 2026-12-06). An alias of the bytearray
		// now holds a secret: str() of it reads it in part.
		name: "bytearray",
		src: "api_key = bytearray(b'BA-s3cret-value-QQ77')\nba, text = api_key, api_key.decode()\n" +
			"api_keys = [bytearray(b'LB-s3cret-value-ZZ99')]\nlisted = api_keys[0].decode()\n" +
			// A bytearray whose read raises the second time: read with
			// the others, it failed them all.
			"class Flaky:\n    n = 0\n    @property\n    def blob(self):\n        Flaky.n += 1\n" +
			"        if Flaky.n > 1:\n            raise RuntimeError('once')\n        return bytearray(b'f' * 20)\nflaky = Flaky()\n" +
			// debugpy shows a memoryview as <memory at 0x...>, and its
			// bytes under its attribute obj: mv.obj showed them.
			"secret_view = memoryview(b'MV-s3cret-value-88')\nmv, mvtext = secret_view, bytes(secret_view).decode()\n",
		masked: []string{"text", "listed", "mvtext"}, refused: []string{"str(ba)", "repr(ba)", "mv.obj"},
		secret: []string{"BA-s3cret", "LB-s3cret", "MV-s3cret"},
		shown:  [2]string{"ba", "<bytearray, len() = 20>"},
	}, {
		// A class of a module of the program's own, not of its main
		// script, was never opened: imported (from pkg.conf import
		// Config), or among a program module's names (settings.Settings),
		// an alias of its attribute showed in clear (found 2026-12-06). A
		// class of the standard library's is not opened.
		name: "classes",
		files: map[string]string{"pkg/__init__.py": "", "pkg/conf.py": "class Config:\n    SECRET_KEY = 'Ck2-class-s3cret-value-91'\n",
			"settings.py": "class Settings:\n    API_TOKEN = 'St3-class-s3cret-value-92'\n"},
		src:    "from pkg.conf import Config\nimport settings\nfrom logging import Logger\nk1, k2 = Config.SECRET_KEY, settings.Settings.API_TOKEN\n",
		masked: []string{"k1", "k2"}, refused: []string{"k1[1:]"}, secret: []string{"Ck2-class-s3cret", "St3-class-s3cret"},
		shown: [2]string{"Logger", "<class 'logging.Logger'>"},
	}} {
		t.Run(c.name, func(t *testing.T) {
			r := startRaw(t, rawOpts{})
			for name, src := range c.files {
				os.MkdirAll(filepath.Join(r.dir, filepath.Dir(name)), 0o755)
				os.WriteFile(filepath.Join(r.dir, name), []byte(src), 0o644)
			}
			r.stopAtBreak(classes + c.src + "n = 1  # BREAK\n")
			r.masked(c.masked...)
			for _, e := range c.refused {
				r.refused("debugpy_evaluate", `{"expression":`+q(e)+`}`, "denied by policy")
			}
			r.shown(c.shown[0], c.shown[1])
			noneSeen(t, r.seen.String(), c.secret...)
		})
	}
}

// The listing evaluates what debugpy names a row by only when the name is
// a path: debugpy writes an attribute's evaluate name from the attribute's
// name as it is, and a program can name one anything (setattr from a
// request's fields). Read as the bytes of a bytearray, such a name ran
// its code in the program, unasked.
func TestListingRunsNoCodeOfARowsName(t *testing.T) {
	r := startRaw(t, rawOpts{})
	marker := filepath.Join(r.dir, "ran")
	r.stopAtBreak("class O:\n    pass\no = O()\n" +
		"setattr(o, \"__class__)+__import__('os').system('touch " + marker + "')+(0\", bytearray(b'z' * 20))\n" +
		"n = 1  # BREAK\n")
	r.shown("o", "O object")
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the listing ran the code an attribute's name spelled")
	}
}

// A scope with more variables than the listing reads (maxListed) is not
// read at all, and a call that needs it does not run (fail closed).
func TestListingOfTooManyVariablesFailsClosed(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak("globals().update(('g%05d' % i, i) for i in range(20001))\nn = 1  # BREAK\n")
	r.refused("debugpy_evaluate", `{"expression":"n"}`, "did not run", "more than 20000 variables")
}

// A value that no listing showed and no path names (a class's attribute
// reached through type(), an element of a display, an operator's result)
// is not read whole before the code runs, so the secrets in it are not
// known: str(type(cfgobj).DEFAULTS)[14:] gave the agent a secret past the
// key that would have masked it, and type(cfgobj).S[3] a character of one.
// Nor is the text a call returns: str(conn)[19:], or '%.25s' % conn, of an
// object whose __str__ is not the repr its listing shows. A part of such a
// value waits for a person; the value whole is shown masked.
func TestAttackSecretThroughAValueNoPathNames(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(`class Cfg:
    DEFAULTS = {"password": "deepSecretValue"}
    S = "dsn=postgres://app:pathless-s3cret@db/x"
cfgobj = Cfg()
class Conn:
    def __repr__(self): return "<Conn>"
    def __str__(self): return "postgres://app:strpart-s3cret@db/x"
conn = Conn()
n = 1  # BREAK
`)
	for _, code := range []string{"str(type(cfgobj).DEFAULTS)[14:]", "type(cfgobj).S[3]", "type(cfgobj).S[30:]", "len(type(cfgobj).S)",
		"type(cfgobj).S < 'm'", "[type(cfgobj).S][0][30:]", "(0 or type(cfgobj)).S[30:]", "repr(type(cfgobj).DEFAULTS)[-20:]",
		"str(conn)[19:]", "str(conn) < 'postgres://app:s'", "str(conn)[::-1]"} {
		r.refused("debugpy_evaluate", `{"expression":`+q(code)+`}`, "needs a person's approval", "it reads part of")
	}
	r.refused("debugpy_evaluate", `{"expression":"'%.25s' % conn"}`, "needs a person's approval", "precision")
	if text := r.ok("debugpy_evaluate", `{"expression":"type(cfgobj).DEFAULTS"}`); !strings.Contains(text, "[redacted]") {
		t.Errorf("whole: %s", text)
	}
	noneSeen(t, r.seen.String(), "deepSecretValue", "SecretValue", "pathless", "strpart", "terc3s")
}

// A %-format reads a mapping's keys with no subscript in the code: a
// mapping whose repr hides its values gave up its secret to
// '%(password)s' % settings. A constant format's keys are judged as
// subscript keys; a format the policy cannot read waits for a person.
func TestAttackSecretThroughAFormat(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(`from collections.abc import Mapping
class Settings(Mapping):
    def __init__(self): self._d = {"password": "fmt-s3cret-value", "user": "ada"}
    def __getitem__(self, k): return self._d[k]
    def __iter__(self): return iter(self._d)
    def __len__(self): return len(self._d)
settings = Settings()
fmt = "%(pass" + "word)s"
n = 1  # BREAK
`)
	for _, code := range []string{"'%(password)s' % settings", "'%(pass\\x77ord).4s' % settings", "'%(db_(password))s' % settings"} {
		r.refused("debugpy_evaluate", `{"expression":`+q(code)+`}`, "denied by policy", "through a %-format")
	}
	for _, code := range []string{"fmt % settings", "('%(pass' + 'word)s') % settings"} {
		r.refused("debugpy_evaluate", `{"expression":`+q(code)+`}`, "needs a person's approval", "may read any key")
	}
	noneSeen(t, r.seen.String(), "fmt-s3cret")
	// The control: another key is not denied; formatting builds text, which
	// a person reads first (TestAttackMaskAnswersGuesses), and the
	// approved format shows the key's value.
	text := r.refused("debugpy_evaluate", `{"expression":"'%(user)s' % settings"}`, "needs a person's approval", "beside a cut")
	if out, err := r.cli("approve", "--yes", id(t, text)); err != nil {
		t.Fatalf("approve: %v\n%s", err, out)
	}
	if text := r.ok("debugpy_evaluate", `{"expression":"'%(user)s' % settings"}`); !strings.Contains(text, "ada") {
		t.Fatalf("the control: %s", text)
	}
}

// Iteration with no call in the code: [*fh] is list(fh), which the default
// puts behind a person, and it read an open file's lines to the agent;
// 'x' in it consumes an iterator up to x. Unpacking, and in over anything
// but a literal or a display, wait for a person; the approved one shows
// the way is real in this debuggee.
func TestAttackIterationWithoutACall(t *testing.T) {
	r := startRaw(t, rawOpts{})
	private := filepath.Join(r.dir, "private.txt")
	if err := os.WriteFile(private, []byte("private-line-one\nprivate-line-two\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r.stopAtBreak("fh = open(" + q(private) + ")\nm = {'a': 1}\nn = 1  # BREAK\n")
	for _, code := range []string{"[*fh]", "(*fh,)", "{*fh}", "[0, *fh][1:]", "{**m, 'b': 2}"} {
		r.refused("debugpy_evaluate", `{"expression":`+q(code)+`}`, "needs a person's approval", "unpacks")
	}
	for _, code := range []string{"'private-line-one\\n' in fh", "'x' not in fh", "0 < 1 in fh"} {
		r.refused("debugpy_evaluate", `{"expression":`+q(code)+`}`, "needs a person's approval", "membership with in")
	}
	noneSeen(t, r.seen.String(), "private-line")
	// The controls: in over a display needs nobody, and a person who
	// approves the first one gets the file's lines.
	if text := r.ok("debugpy_evaluate", `{"expression":"m['a'] in (1, 2) and 'a' in 'abc'"}`); !strings.Contains(text, "True") {
		t.Fatalf("the control: %s", text)
	}
	if text := r.approved("debugpy_evaluate", `{"expression":"[*fh]"}`); !strings.Contains(text, "private-line-one") {
		t.Fatalf("the approved unpacking: %s", text)
	}
}

// A value cut short: debugpy shows a string inside a container as its
// first 20 and last 10 characters with "..." between them, and a list
// past its 15th element as "...". A secret the cut falls in showed its
// end (['yyyyyyyyyyyyyyyyyyyy...7Lm-s3cret']) or its beginning, pieces
// no whole form of it matches: each piece beside a cut is masked, and
// the name is a holder. What a cut hides whole (past a list's 15th
// element, the middle of a long string) is reached through a slice or a
// tuple key, or by comparing the value a bit at a time: such a slice is a
// path, read whole first; such a comparison is withheld (derived.cut).
// A secret's name past a dict's cut was never seen: the stop's listing
// opens what debugpy showed cut short.
func TestAttackSecretCutShort(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(`password = "Zq9VwKx7Lm-s3cret-value"
tail = ["y" * 30 + password]
head = [password + "y" * 30]
obj = [type("Conn", (), {"__repr__": lambda self: "<Conn " + "y" * 30 + password + ">"})()]
big = list(range(20)) + [password]
mid = {(1, 2): "x" * 30 + password + "y" * 30}
env = {("K%02d" % i): "v%d" % i for i in range(20)}
env["DB_PASSWORD"] = "hidden-s3cret-value"
conn_arg = env["DB_PASSWORD"]
config = {"db": {("K%02d" % i): i for i in range(12)}}
config["db"]["password"] = "nested-hidden-s3cret"
db_part = config["db"]["password"]
n = 1  # BREAK
`)
	// Past a dict's 15th item (or a nested one's 10th), a secret's name
	// and value are not in the listing: the stop's listing opens what it
	// saw cut short, so an innocent alias of such a secret is masked.
	r.masked("conn_arg", "db_part")
	r.ok("debugpy_variables", `{}`)
	for _, e := range []string{"tail", "head", "obj", "[tail, head]", "{'k': head}"} {
		if text := r.ok("debugpy_evaluate", `{"expression":`+q(e)+`}`); !strings.Contains(text, "...[redacted]") && !strings.Contains(text, "[redacted]...") {
			t.Errorf("%s: %s", e, text)
		}
	}
	r.refused("debugpy_evaluate", `{"expression":"tail < ['y']"}`, "denied by policy", "reads tail other than whole")
	// A secret the listing does not show (past a list's 15th element, in
	// the middle of a long string in a dict), reached through a slice or a
	// tuple key: the element is a path, read whole first.
	for _, e := range []string{"big[15:][5][1:]", "big[-1:][0][2:]", "big[15:][5] < 'm'", "mid[1, 2][31:]", "mid[(1, 2)][31:]", "mid[1, 2][30] == 'Z'"} {
		r.refused("debugpy_evaluate", `{"expression":`+q(e)+`}`, "result withheld by policy", "holds a secret")
	}
	r.refused("debugpy_evaluate", `{"expression":"mid[(1, 2), 3][31:]"}`, "denied by policy", "mid was shown cut short")
	// Compared whole, a value whose listing was cut short reads what the
	// listing did not show a bit at a time (big < [0, ..., 19, 'Zr'] is
	// True, with 'Z' False): denied in a session that has seen a secret
	// (derived.cut). Its elements, slices, length and truth need nobody.
	upTo19 := "0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19"
	for _, e := range []string{"big < [" + upTo19 + ", 'Zr']", "[big] < [[" + upTo19 + ", 'Z']]", "mid == {(1, 2): 'x'}"} {
		r.refused("debugpy_evaluate", `{"expression":`+q(e)+`}`, "denied by policy", "shown cut short")
	}
	if text := r.ok("debugpy_evaluate", `{"expression":"(len(big), big[3], not big, big is None, big[0:15][2:5])"}`); !strings.Contains(text, "(21, 3, False, False, [2, 3, 4])") {
		t.Errorf("the control, what a value shown cut short shows of itself: %s", text)
	}
	noneSeen(t, r.seen.String(), "Zq9", "q9V", "9Vw", "cret-value", "t-value", "Zq9VwKx7Lm-s3cret-va", "hidden-s3cret")
	if seen := r.seen.String(); !strings.Contains(seen, "yyyyyyyyyy") {
		t.Fatalf("the control: the rest of each value is shown: %s", seen)
	}
}

// outputProgram prints a table and a YAML block in parts: on stdout, a
// table's header and its row with a warning between them, and a YAML key
// before its first stop, its value after; on stderr, a table's header
// before the stop and its rows after.
const outputProgram = `import sys


def main():
    print("user,password", flush=True)
    print("a warning", file=sys.stderr, flush=True)
    print("ada,tbl-s3cret-one", flush=True)
    print("id,token", file=sys.stderr, flush=True)
    print("db:", flush=True)
    print("  password:", flush=True)
    n = 1  # BREAK
    print("    primary: yml-s3cret-two", flush=True)
    print("1,tok-s3cret-three", file=sys.stderr, flush=True)
    print("2,tok-s3cret-four", file=sys.stderr, flush=True)
    n = 2  # SECOND
    return n


main()
`

// A program's output read in parts: as an agent polls it (the rows after
// an earlier read showed their header), a page at a time (max_items), or
// from a cursor it chose (since), and with another category's entry
// between a header and its rows. Each part was masked alone, and a row
// with no header above it, a YAML value with no key, showed. The result
// phase reads each category's entries as one text, after what they
// continue (derived.before), which the agent is not shown again.
func TestAttackOutputReadInParts(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(outputProgram)
	r.outputWith("id,token") // the first part's last line on stderr, then on stdout
	first := r.outputWith("  password:")
	if !strings.Contains(first, "user,password") || !strings.Contains(first, "id,token") || !strings.Contains(first, "ada,[redacted]") {
		t.Fatalf("the first read: %s", first)
	}
	var next int
	if _, err := fmt.Sscanf(first[strings.LastIndex(first, "next cursor: "):], "next cursor: %d", &next); err != nil {
		t.Fatalf("no cursor in %q: %v", first, err)
	}
	prog := filepath.Join(r.dir, "app.py")
	r.ok("debugpy_set_breakpoint", fmt.Sprintf(`{"file":%s,"line":%d}`, q(prog), strings.Count(outputProgram[:strings.Index(outputProgram, "# SECOND")], "\n")+1))
	if text := r.ok("debugpy_continue", `{}`); !strings.Contains(text, "stopped (breakpoint)") {
		t.Fatalf("continue: %s", text)
	}
	r.outputWith("primary:") // the second part's last lines, on both streams
	r.outputWith("2,")
	var pages []string
	for since := next; ; {
		text := r.ok("debugpy_output", fmt.Sprintf(`{"since":%d,"max_items":1}`, since))
		if strings.Contains(text, "(no new output)") {
			break
		}
		pages = append(pages, text)
		fmt.Sscanf(text[strings.LastIndex(text, "next cursor: "):], "next cursor: %d", &since)
		if len(pages) > 20 {
			t.Fatalf("paging does not end: %q", pages)
		}
	}
	whole := r.ok("debugpy_output", fmt.Sprintf(`{"since":%d}`, next))
	rows := r.ok("debugpy_output", fmt.Sprintf(`{"since":%d,"category":"stderr"}`, next))
	seen := r.seen.String()
	noneSeen(t, seen, "tbl-s3cret", "yml-s3cret", "tok-s3cret")
	for _, want := range []string{"primary: [redacted]", "1,[redacted]", "2,[redacted]"} {
		if !strings.Contains(whole, want) || !strings.Contains(strings.Join(pages, "\n"), want) {
			t.Errorf("the control: %q shown, whole and page by page: %s\n%q", want, whole, pages)
		}
	}
	if !strings.Contains(rows, "1,[redacted]") || strings.Contains(rows, "primary") {
		t.Errorf("rows read from a cursor past their header: %s", rows)
	}
}

// tablesProgram keeps its users in a pandas DataFrame and prints tables as
// pandas and tabulate write them: columns lined up by blanks or between
// bars, no comma between cells.
const tablesProgram = `import pandas as pd
from tabulate import tabulate


def main():
    users = pd.DataFrame({"user": ["ada", "bob lee"], "password": ["pdpw-s3cret-one", "pdpw-s3cret-two"], "n": [1, 22]})
    first = users.iloc[0]
    print(users, flush=True)
    print(tabulate([["ada", "tbk-s3cret-one"]], headers=["user", "API Key"], tablefmt="psql"), flush=True)
    print(tabulate([["bob", "tbk-s3cret-two"]], headers=["user", "token"]), flush=True)
    n = 1  # BREAK
    return n, first


main()
`

// Tables lined up by blanks or between bars: a DataFrame's repr in the
// stop's listing and in an evaluate, a row of it (a Series: label and
// value), and tables printed as pandas, psql and tabulate write them. The
// masks read tables as CSV only, and every value showed.
func TestAttackSecretsInAlignedTables(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(tablesProgram)
	r.ok("debugpy_variables", `{}`)
	r.outputWith("user    token")
	for _, e := range []string{"users", "first", "users.to_dict()"} {
		r.call("debugpy_evaluate", `{"expression":`+q(e)+`}`)
	}
	seen := r.seen.String()
	noneSeen(t, seen, "pdpw-s3cret", "tbk-s3cret")
	if !strings.Contains(seen, "bob lee") || !strings.Contains(seen, "API Key") {
		t.Fatalf("the control: the other cells are shown: %s", seen)
	}
}

// messageProgram writes a secret into an exception's message under no
// name that the stop's listing shows: the frame that held it is gone.
const messageProgram = `def check(p):
    raise ValueError(f"invalid password: {p!r}")


def main():
    last = None
    try:
        check("msg" + "-s3cret-value")
    except ValueError as e:
        last = str(e)
        print("login failed:", e, flush=True)
    n = 1  # BREAK
    return n, last


main()
`

// A string literal after a secret's name in a message (invalid password:
// '...'): in the program's output and in a variable's value. It showed:
// only a quoted key's pair (a dict's) was read so.
func TestAttackSecretInAMessage(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(messageProgram)
	r.outputWith("login failed: invalid password")
	r.ok("debugpy_variables", `{}`)
	r.ok("debugpy_evaluate", `{"expression":"last"}`)
	seen := r.seen.String()
	noneSeen(t, seen, "msg-s3cret")
	if !strings.Contains(seen, "invalid password: '[redacted]'") {
		t.Fatalf("the control: the message is shown, its value masked: %s", seen)
	}
}

// commandProgram holds passwords in command lines' options, under no
// secret's name: a subprocess's list, a CalledProcessError's message, a
// line it logs as a shell would run it.
const commandProgram = `import shlex, subprocess


def main():
    cmd = ["mysql", "-uroot", "-p" + "cmd" + "-s3cret-mysql", "app"]
    ora = ["sqlplus", "-S", "ada/" + "ora" + "-s3cret" + "@db", "@report.sql"]  # short: pydevd cuts a long string in a list
    line = shlex.join(["curl", "-u", "ada:" + "cmd s3cret " + "curl", "-H", "X-Api-Key: " + "cmd-s3cret-" + "header", "https://example.invalid"])
    web = ["htpasswd", "-b", "/etc/pw", "ada", "htp" + "-s3cret"]
    win = "net user ada " + "net" + "-s3cret" + " /add"
    login = ["vault", "login", "hv" + "-s3cret"]
    snmp = "snmpwalk -v2c -c " + "snmp" + "-s3cret" + " 10.0.0.1; nmcli device wifi connect Home password " + "wifi" + "secretletters"
    rdp = ["xfreerdp", "/u:ada", "/p:" + "rdp" + "-s3cret", "/v:host"]
    admin = "mysqladmin -u root password " + "adm" + "-s3cret" + "; db2 connect to sample user ada using " + "db2" + "-s3cret"
    err = None
    try:
        subprocess.run(["false"] + cmd, check=True)
    except subprocess.CalledProcessError as e:
        err = str(e)
        print("failed:", e, flush=True)
    print("running:", line, flush=True)
    print("running:", shlex.join(web), win, shlex.join(login), flush=True)
    print("running:", snmp, flush=True)
    print("running:", shlex.join(rdp), admin, flush=True)
    n = 1  # BREAK
    return n, cmd, ora, line, err, web, win, login, snmp, rdp, admin


main()
`

// Passwords in command lines' options (mysql -pX, curl -u user:X, a
// header given to curl -H) and arguments (htpasswd -b, net user, vault
// login), in the stop's listing, an evaluate and the program's output.
// They showed: no option was read as a program reads it, a header only as
// a line of its own, and no argument that is no option. FreeRDP's /p:X,
// mysqladmin's password X and Db2's connect ... using X showed until
// 2026-12-08.
func TestAttackSecretsInCommandLines(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(commandProgram)
	r.outputWith("running: snmpwalk")
	r.ok("debugpy_variables", `{}`)
	r.evaluateEach("cmd", "ora", "line", "err", "[line, err]", "web", "win", "login", "snmp", "rdp", "admin")
	r.outputWith("running: xfreerdp")
	seen := r.seen.String()
	noneSeen(t, seen, "s3cret-mysql", "s3cret curl", "s3cret-header", "ora-s3cret", "htp-s3cret", "net-s3cret", "hv-s3cret", "snmp-s3cret", "wifisecretletters",
		"rdp-s3cret", "adm-s3cret", "db2-s3cret")
	for _, want := range []string{"-p[redacted]", "ada:[redacted]", "X-Api-Key: [redacted]"} {
		if !strings.Contains(seen, want) {
			t.Errorf("the control: the command lines are shown, their secrets masked: no %q in %s", want, seen)
		}
	}
}

// callProgram passes a password as a call's positional argument, under no
// secret's name; the call fails, and its traceback quotes the line.
const callProgram = `import traceback


class Server:
    def login(self, user, password):
        raise PermissionError("535 5.7.8 authentication failed")


def main():
    server = Server()
    tb = None
    try:
        server.login("ada@example.com", "call-s3cret-smtp")
    except PermissionError:
        tb = traceback.format_exc()
        print(tb, flush=True)
    n = 1  # BREAK
    return n, tb


main()
`

// A password given to a call by position (server.login(user, "...")), in
// the program's source and in the traceback that quotes the line, printed
// and kept in a variable. They showed: only a keyword's was read.
func TestAttackSecretInACallsArguments(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(callProgram)
	r.outputWith("PermissionError: 535 5.7.8 authentication failed")
	r.ok("debugpy_variables", `{}`)
	r.ok("debugpy_evaluate", `{"expression":"tb"}`)
	r.ok("debugpy_source", `{"context_lines":20}`)
	seen := r.seen.String()
	noneSeen(t, seen, "call-s3cret-smtp")
	if !strings.Contains(seen, `server.login(\"ada@example.com\", \"[redacted]\")`) {
		t.Errorf("the control: the call is shown, its password masked: %s", seen)
	}
}

// logProgram logs passwords in its messages, under no name the stop's
// listing shows: after a secret's name and a colon, and in prose.
const logProgram = `import logging


def main():
    logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s", level=logging.INFO)
    log = logging.getLogger("accounts")
    log.info("Generated password: %s for ada", "log1" + "-s3cret-" + "colon")
    log.info("created user bob with password %s", "log2" + "-s3cret-" + "prose")
    log.info("the password of carol was reset to %r", "log3" + "-s3cret-" + "verb")
    n = 1  # BREAK
    return n


main()
`

// A log's line with a password in its message, mid-line after a secret's
// name and a colon (a line that starts with the name was read), or in
// prose after the name, or after a verb (was reset to 'X'). They showed.
func TestAttackSecretInALogLine(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(logProgram)
	r.outputWith("the password of carol was reset to")
	seen := r.seen.String()
	noneSeen(t, seen, "log1-s3cret", "log2-s3cret", "log3-s3cret")
	if !strings.Contains(seen, "Generated password: [redacted] for ada") || !strings.Contains(seen, "created user bob with password [redacted]") {
		t.Errorf("the control: the lines are shown, their passwords masked: %s", seen)
	}
}

// htmlProgram builds an HTML report of its users, as a web app's view or
// pandas' to_html writes one, under no secret's name.
const htmlProgram = `def main():
    rows = [("ada", "html" + "-s3cret-" + "one"), ("bob", "html" + "-s3cret-" + "two")]
    page = "<table>\n  <tr><th>user</th><th>password</th></tr>\n"
    for user, pw in rows:
        page += "  <tr><td>" + user + "</td><td>" + pw + "</td></tr>\n"
    page += "</table>\n"
    del pw
    print(page, flush=True)
    n = 1  # BREAK
    return n, page


main()
`

// An HTML table's column under a secret's header, in an evaluate and the
// program's output. It showed: only text tables were read.
func TestAttackSecretsInHTMLTables(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(htmlProgram)
	r.outputWith("</table>")
	r.ok("debugpy_evaluate", `{"expression":"page"}`)
	seen := r.seen.String()
	noneSeen(t, seen, "html-s3cret")
	if !strings.Contains(seen, `\u003ctd\u003eada\u003c/td\u003e\u003ctd\u003e[redacted]`) { // <td>ada</td><td>[redacted], as JSON writes it
		t.Errorf("the control: the table is shown, its passwords masked: %s", seen)
	}
}

// tokenProgram holds credentials under no secret's name, each of a form
// that says what it is: a Vault token, a PyPI token, a SendGrid key (its
// secret after a dot), a SAS URL's signature, an Azure Storage connection
// string's AccountKey, a PGP private key; and prints them, as a program's
// log does.
const tokenProgram = `def main():
    vault = "hvs." + "CAESIJx8Lk2bQmP0aZ7yT4nW9" + "tk1q"
    pypi = "pypi-AgEIcHlwaS5vcmc" + "CJGFiY2RlZmdoTk2q" + "Zx9Yw8Vu7TsRq6PoNm5Lk4Jh3Gf2Ed1"
    grid = "SG." + "Ab12Cd34Ef56Gh78Ij90Kl" + "." + "MnOpQrStUvWxYz0123456789Tk3qabcdefghijklmno"
    blob = "https://acme.blob.core.windows.net/c/f.csv?sv=2022-11-02&sp=r&sig=" + "Tk4qAb12Cd34Ef56Gh78Ij%2BKl%3D"
    conn = "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=" + "Tk5qAb12Cd34Ef56Gh78Ij90KlMnOpQr==" + ";EndpointSuffix=core.windows.net"
    pgp = "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF0" + "Tk6qxyz\n-----END PGP PRIVATE KEY BLOCK-----\n"
    print("using", vault, pypi, grid, flush=True)
    print("fetching", blob, "from", conn, flush=True)
    print(pgp, flush=True)
    n = 1  # BREAK
    return n, vault, pypi, grid, blob, conn, pgp


main()
`

// Credentials known by their form, under no secret's name, in evaluates and
// the output. They showed: these prefixes were not in the table, a
// signed URL's signature and AccountKey were not read, a PGP block was not
// a private key's.
func TestAttackCredentialsKnownByTheirForm(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(tokenProgram)
	r.outputWith("fetching ")
	for _, name := range []string{"vault", "pypi", "grid", "blob", "conn", "pgp"} {
		r.ok("debugpy_evaluate", `{"expression":"`+name+`"}`)
	}
	seen := r.seen.String()
	noneSeen(t, seen, "tk1q", "Tk2q", "Tk3q", "Tk4q", "Tk5q", "Tk6q")
	for _, control := range []string{"sp=r\\u0026sig=[redacted]", "AccountName=acme;AccountKey=[redacted]", "fetching https://acme.blob.core.windows.net/c/f.csv"} {
		if !strings.Contains(seen, control) {
			t.Errorf("the control: %s is shown: %s", control, seen)
		}
	}
}

// linesProgram holds texts of lines in strings under innocent names: a
// CSV csv.writer wrote, an INI file, tokens one a line, an environment
// file's password hash. A listing and an evaluate show each as its repr,
// its line ends escaped.
const linesProgram = `import csv, io


def main():
    b = io.StringIO()
    w = csv.writer(b)
    w.writerow(["user", "password"])
    w.writerow(["ada", "csv" + "-pw-" + "l1n3"])
    report = b.getvalue()
    ini = "[db]\nuser = ada\npassword = " + "ini" + "-pw-" + "l1n3" + "\n"
    keys = "ghp_" + "a" * 36 + "\n" + "ghp_" + "L1n3" + "b" * 32
    env = "DEBUG=1\nADMIN_HASH=$6$s4lts4lt$" + "l1N3" + "Hx0jRkNwfcKL5GtWl7Te\n"
    n = 1  # BREAK
    return n, report, ini, keys, env


main()
`

// Texts of lines held in strings: the reprs a listing and an evaluate show
// were read as one line, so a CSV's password column, an INI file's
// password, the second token of a list of tokens (its "\nghp_..." no
// word's start) and a hash after "=" showed in clear.
func TestAttackLinesInAString(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(linesProgram)
	for _, name := range []string{"report", "ini", "keys", "env"} {
		r.ok("debugpy_evaluate", `{"expression":"`+name+`"}`)
	}
	r.ok("debugpy_variables", `{}`)
	seen := r.seen.String()
	noneSeen(t, seen, "l1n3", "L1n3", "l1N3")
	for _, control := range []string{`user,password\\r\\nada,[redacted]`, `user = ada`, `DEBUG=1`} {
		if !strings.Contains(seen, control) {
			t.Errorf("the control: %s is shown: %s", control, seen)
		}
	}
}

// httpDebugProgram calls a loopback HTTP server with http.client's debug
// lines on (set_debuglevel(1), what requests and urllib3 print through):
// the request, a bytes repr with its \r\n escaped, carries a bearer token
// and a cookie; the reply sets a session cookie. It keeps what it printed.
const httpDebugProgram = `import contextlib, http.client, http.server, io, threading


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Set-Cookie", "sid=" + "set" + "-c00kie-" + "h77p; Path=/; HttpOnly")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args):
        pass


def main():
    srv = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    conn = http.client.HTTPConnection("127.0.0.1", srv.server_address[1])
    conn.set_debuglevel(1)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        conn.request("GET", "/v1/orders", headers={"Authorization": "Bearer " + "bear" + "-t0ken-" + "h77p", "Cookie": "sessionid=" + "sent" + "-c00kie-" + "h77p"})
        conn.getresponse().read()
    debug = out.getvalue()
    print(debug, flush=True)
    srv.shutdown()
    n = 1  # BREAK
    return n, debug


main()
`

// http.client's debug lines, in the output and in a variable that keeps
// them. The cookies showed: a Cookie header inside the request's bytes
// repr (one line, its \r\n escaped) and the reply's "header: Set-Cookie:
// sid=..." were not read as headers.
func TestAttackSecretsInHTTPDebugLines(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(httpDebugProgram)
	r.outputWith("header: Content-Length: 2")
	r.ok("debugpy_evaluate", `{"expression":"debug"}`)
	seen := r.seen.String()
	noneSeen(t, seen, "t0ken-h77p", "c00kie-h77p")
	if !strings.Contains(seen, "GET /v1/orders HTTP/1.1") || !strings.Contains(seen, "Authorization: [redacted]") {
		t.Errorf("the control: the debug lines are shown, their credentials masked: %s", seen)
	}
}

// pytestProgram runs pytest on a test whose assert compares a password
// the program reads from its settings: pytest's report shows the value,
// under no name, in its explanation, its difference and its summary. It
// prints the report and keeps a copy.
const pytestProgram = `import contextlib, io, os, pytest, sys, unittest

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "test_login.py"), "w") as f:
    f.write("class Settings:\n    password = 'pyt' + '-s3cret-' + 'assert'\n    api_key = 'pyt' + '-s3cret-' + 'where'\n"
            "    db_password = 'pyt' + '-s3cret-' + 'unit'\n\n"
            "settings = Settings()\n\n"
            "def test_login():\n    assert settings.password == 'hunter2'\n\n"
            "def test_key():\n    assert 'live' in settings.api_key\n")
with open(os.path.join(here, "test_pair.py"), "w") as f:
    f.write("from test_login import settings\nsettings.token = 'pyt' + '-s3cret-' + 'pair'\n\n"
            "def test_pair():\n    assert (settings.token, 1) == ('hunter4', 1)\n\n"
            "def test_in():\n    assert ['hunter5'] == [settings.token]\n")
with open(os.path.join(here, "test_line.py"), "w") as f:
    f.write("from test_login import settings\nsettings.api_token = 'pyt' + '-s3cret-' + 'line'\n\n"
            "def test_line():\n    assert settings.api_token == 'hunter6'\n")
with open(os.path.join(here, "test_unit.py"), "w") as f:
    f.write("import unittest\nfrom test_login import settings\n\n"
            "class T(unittest.TestCase):\n    def test_login(self):\n        self.assertEqual(settings.db_password, 'hunter3')\n")


def main():
    pytest.main(["-p", "no:cacheprovider", "-q", os.path.join(here, "test_login.py")])
    sys.stdout.flush()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        pytest.main(["-p", "no:cacheprovider", "-q", "--tb=short", os.path.join(here, "test_login.py")])
    report = out.getvalue()
    os.environ["CI"] = "true"  # the summary's messages whole, over lines
    pytest.main(["-p", "no:cacheprovider", "-q", "--tb=native", os.path.join(here, "test_pair.py")])
    pytest.main(["-p", "no:cacheprovider", "-q", "--tb=line", os.path.join(here, "test_line.py")])
    sys.stdout.flush()
    unittest.TextTestRunner(stream=sys.stdout).run(unittest.defaultTestLoader.loadTestsFromName("test_unit"))
    sys.stdout.flush()
    n = 1  # BREAK
    return n, report


main()
`

// pytest's report of a failed assert, in the output and in a variable,
// and unittest's. It showed: the explanation's values stand under no name;
// then, with CI set (pytest does not cut its summary's messages) and
// --tb=native, the lines a summary's message and an explanation go on over;
// and --tb=line's one line a failure.
func TestAttackSecretsInPytestReports(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(pytestProgram)
	r.outputWith("FAILED (failures=1)")
	r.ok("debugpy_evaluate", `{"expression":"report"}`)
	seen := r.seen.String()
	noneSeen(t, seen, "s3cret-assert", "s3cret-where", "s3cret-unit", "s3cret-pair", "s3cret-line")
	if !strings.Contains(seen, "assert settings.password == 'hunter2'") || !strings.Contains(seen, "2 failed") ||
		!strings.Contains(seen, "assert (settings.token, 1) == ('hunter4', 1)") ||
		!strings.Contains(seen, "self.assertEqual(settings.db_password, 'hunter3')") {
		t.Errorf("the control: the report is shown, its secrets masked: %s", seen)
	}
}

// sqlProgram stores a user with sqlite3, printing each statement as
// sqlite3 expands it (set_trace_callback(print): a program's SQL log), and
// keeps the statement it built for another database.
const sqlProgram = `import sqlite3


def main():
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE users (name, password)")
    db.set_trace_callback(print)
    db.execute("INSERT INTO users (name, password) VALUES (?, ?)", ("ada", "sql" + "-s3cret-" + "trace"))
    stmt = "INSERT INTO users (name, password) VALUES ('bob', '%s')" % ("sql" + "-s3cret-" + "kept")
    n = 1  # BREAK
    return n, stmt


main()
`

// An INSERT's values in a program's SQL log and in a statement it built.
// They showed: a value's column was not read as a name.
func TestAttackSecretsInSQL(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(sqlProgram)
	r.outputWith("VALUES ('ada', ")
	r.ok("debugpy_evaluate", `{"expression":"stmt"}`)
	seen := r.seen.String()
	noneSeen(t, seen, "s3cret-trace", "s3cret-kept")
	if !strings.Contains(seen, "INSERT INTO users (name, password) VALUES ('ada', '[redacted]')") {
		t.Errorf("the control: the statements are shown, their passwords masked: %s", seen)
	}
}

// colourProgram logs with structlog's ConsoleRenderer, colours on (a key's
// escape, then its value's), and keeps jq -C's colouring of a JSON record.
const colourProgram = `import json, subprocess, sys
import structlog

structlog.configure(processors=[structlog.dev.ConsoleRenderer(colors=True)],
                    logger_factory=structlog.PrintLoggerFactory(sys.stdout))


def main():
    structlog.get_logger().info("login", user="ada", password="col" + "-s3cret-" + "log")
    sys.stdout.flush()
    doc = json.dumps({"user": "bob", "api_key": "col" + "-s3cret-" + "jq"})
    shown = subprocess.run(["jq", "-C", "."], input=doc, capture_output=True, text=True).stdout
    n = 1  # BREAK
    return n, shown


main()
`

// Coloured output: a terminal's escapes stand between a secret's name and
// its value. They showed: no reading saw the name next to its value.
func TestAttackSecretsInColouredOutput(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(colourProgram)
	r.outputWith("login")
	r.ok("debugpy_evaluate", `{"expression":"shown"}`)
	seen := r.seen.String()
	noneSeen(t, seen, "s3cret-log", "s3cret-jq")
	if !strings.Contains(seen, "ada") || !strings.Contains(seen, "bob") || !strings.Contains(seen, "[redacted]") {
		t.Errorf("the control: the records are shown, their secrets masked: %s", seen)
	}
}

// shellProgram asks bash for its variables as it writes them: declare -p
// ($'...' for a value with a control or a quote) and printf %q (a
// backslash before each blank, quote, ; or &).
const shellProgram = `import os, subprocess


def main():
    env = dict(os.environ, DB_PASSWORD="sh\t'" + "s3cret-ctl", API_TOKEN="sh; &" + "s3cret-esc", USER_NAME="ada")
    subprocess.run(["bash", "-c", "declare -p DB_PASSWORD USER_NAME; printf 'API_TOKEN=%q\\n' \"$API_TOKEN\""], env=env)
    shown = subprocess.run(["bash", "-c", "printf '%q' \"$API_TOKEN\""], env=env, capture_output=True, text=True).stdout
    line = "export API_TOKEN=" + shown
    n = 1  # BREAK
    return n, line


main()
`

// Values as bash quotes them. They showed: a pair's value was read to its
// first blank, quote or ; whatever escaped it, and $'...' not at all.
func TestAttackSecretsInShellQuoting(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(shellProgram)
	r.outputWith("API_TOKEN=")
	r.ok("debugpy_evaluate", `{"expression":"line"}`)
	seen := r.seen.String()
	noneSeen(t, seen, "s3cret-ctl", "s3cret-esc")
	if !strings.Contains(seen, "USER_NAME=\\\"ada\\\"") || !strings.Contains(seen, "export API_TOKEN=[redacted]") {
		t.Errorf("the control: the variables are shown, their secrets masked: %s", seen)
	}
}

// recordsProgram prints a container's environment as PyYAML dumps it and
// keeps a parameter store's answer as boto3 gives it: a record names the
// secret in one field and holds it in another.
const recordsProgram = `import yaml


def main():
    env = [{"name": "USER_NAME", "value": "ada"}, {"name": "DB_PASSWORD", "value": "rec" + "-s3cret-" + "yaml"}]
    print(yaml.dump({"env": env}, default_flow_style=False))
    answer = {"Parameter": {"Name": "/prod/db/endpoint", "Type": "SecureString", "Value": "rec" + "-s3cret-" + "ssm", "Version": 3}}
    n = 1  # BREAK
    return n, answer


main()
`

// Records that name a secret in one field and hold it in another. They
// showed: no key named a secret.
func TestAttackSecretsInRecords(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(recordsProgram)
	r.outputWith("name: DB_PASSWORD")
	r.ok("debugpy_evaluate", `{"expression":"answer"}`)
	seen := r.seen.String()
	noneSeen(t, seen, "s3cret-yaml", "s3cret-ssm")
	if !strings.Contains(seen, "value: ada") || !strings.Contains(seen, "/prod/db/endpoint") {
		t.Errorf("the control: the records are shown, their secrets masked: %s", seen)
	}
}

// arrowProgram prints a hash as Perl's Data::Dumper writes it: key =>
// value, a value with a line end in it written over two lines.
const arrowProgram = `import subprocess


def main():
    src = "use Data::Dumper; $Data::Dumper::Sortkeys = 1; print Dumper({user => 'ada', password => 'arr-s3cret-' . \"one\\n\" . 'arr-s3cret-two'});"
    subprocess.run(["perl", "-e", src])
    n = 1  # BREAK
    return n


main()
`

// key => value pairs (Perl's, Ruby's, PHP's). They showed: => was read as
// an assignment's = with > for its value, and a value over lines to its
// first line's end.
func TestAttackSecretsInArrowPairs(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(arrowProgram)
	r.outputWith("'user' => 'ada'")
	seen := r.seen.String()
	noneSeen(t, seen, "s3cret-one", "s3cret-two")
	if !strings.Contains(seen, `'user' =\u003e 'ada'`) || !strings.Contains(seen, `'password' =\u003e '[redacted]`) { // > as JSON spells it
		t.Errorf("the control: the hash is shown, its password masked: %s", seen)
	}
}

// accountProgram prints the account statements a migration runs, as a
// program's SQL log shows them.
const accountProgram = `def main():
    for st in ["CREATE USER 'app'@'%' IDENTIFIED BY 'acc-s3cret-create'",
               "ALTER USER app IDENTIFIED WITH caching_sha2_password BY 'acc-s3cret-alter'",
               "SET PASSWORD FOR 'ada'@'%' = 'acc-s3cret-set'"]:
        print("executing:", st)
    n = 1  # BREAK
    return n


main()
`

// SQL's account statements: the password stands under no name. They
// showed; SET PASSWORD FOR 'ada' masked the user and showed the password.
func TestAttackSecretsInAccountStatements(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(accountProgram)
	r.outputWith("SET PASSWORD FOR 'ada'@'%' = ")
	seen := r.seen.String()
	noneSeen(t, seen, "s3cret-create", "s3cret-alter", "s3cret-set")
	if !strings.Contains(seen, "CREATE USER 'app'@'%' IDENTIFIED BY '[redacted]'") || !strings.Contains(seen, "SET PASSWORD FOR 'ada'@'%' = '[redacted]'") {
		t.Errorf("the control: the statements are shown, their passwords masked: %s", seen)
	}
}

// hashesProgram prints the shadow line and the htpasswd line it wrote,
// and keeps a cookie jar as http.cookiejar holds one.
const hashesProgram = `import warnings

warnings.simplefilter("ignore")  # crypt is deprecated (gone in Python 3.13; Debian 12's is 3.11)
import crypt, http.cookiejar


def main():
    h = crypt.crypt("hunter2", "$6$saltsaltsalt$")  # $6$saltsaltsalt$/YcSJBZ1GwOaYU2XCNxvWBX3MbYsX7qkf0.0L28t35vap3Pr7yS0JA8iUjaUrIKpD1vbB841OQkrlcX47Jjuy/
    print("ada:" + h + ":19000:0:99999:7:::")
    jar = http.cookiejar.CookieJar()
    jar.set_cookie(http.cookiejar.Cookie(0, "sid", "coo" + "-s3cret-" + "sid", None, False, "example.org", True, False, "/", True, False, None, False, None, None, {}))
    shown = str(next(iter(jar)))
    n = 1  # BREAK
    return n, h, jar, shown


main()
`

// A password's hash (crypt(3)'s, in a shadow line) and a cookie's value:
// credentials under no secret's name. They showed.
func TestAttackSecretsInHashesAndCookies(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(hashesProgram)
	r.outputWith(":19000:0:99999:7:::")
	r.ok("debugpy_evaluate", `{"expression":"jar"}`)
	r.ok("debugpy_evaluate", `{"expression":"shown"}`)
	seen := r.seen.String()
	noneSeen(t, seen, "/YcSJBZ1GwOaYU2X", "s3cret-sid") // the hash's start, as crypt writes it (the comment above)
	if !strings.Contains(seen, "ada:[redacted]:19000") || !strings.Contains(seen, "domain='example.org'") {
		t.Errorf("the control: the line and the jar are shown, their secrets masked: %s", seen)
	}
}

// lettersProgram logs a password of letters alone mid-line.
const lettersProgram = `import logging, sys

logging.basicConfig(stream=sys.stdout, format="%(levelname)s %(message)s", level=logging.INFO)


def main():
    logging.info("login ok for ada, password: %s", "correct" + "horsebattery")
    logging.info("login failed for bob, password: required")
    sys.stdout.flush()
    n = 1  # BREAK
    return n


main()
`

// A password of letters alone after "password:" in a log's line. It
// showed: only a value with a digit or a symbol was taken for one there.
func TestAttackLettersOnlyPasswordInLog(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(lettersProgram)
	r.outputWith("login failed for bob, password: required")
	seen := r.seen.String()
	noneSeen(t, seen, "correcthorse")
	if !strings.Contains(seen, "password: required") || !strings.Contains(seen, "login ok for ada, password: [redacted]") {
		t.Errorf("the control: the lines are shown, the password masked: %s", seen)
	}
}

// wordsProgram prints and holds passwords named in other languages.
const wordsProgram = `def main():
    config = {"Benutzer": "ada", "Passwort": "wor" + "-s3cret-" + "de"}
    print("Anmeldung: Benutzer ada, Kennwort: " + "wor" + "-s3cret-" + "kw")
    print("usuario bob, contraseña: " + "wor" + "-s3cret-" + "es")
    n = 1  # BREAK
    return n, config


main()
`

// A password named in another language. It showed: the secrets' words
// were English only.
func TestAttackSecretsNamedInOtherLanguages(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(wordsProgram)
	r.outputWith("usuario bob, contrase")
	r.ok("debugpy_evaluate", `{"expression":"config"}`)
	seen := r.seen.String()
	noneSeen(t, seen, "s3cret-de", "s3cret-kw", "s3cret-es")
	if !strings.Contains(seen, "'Benutzer': 'ada'") || !strings.Contains(seen, "usuario bob") {
		t.Errorf("the control: the lines and the dict are shown, their passwords masked: %s", seen)
	}
}

// A second factor's backup codes, a wallet's seed phrase and a session
// cookie were no secret's names: `backup_codes` was read in clear, unasked,
// and so was an alias of one (found 2026-12-06).
func TestAttackSecretsOfSecondFactorsAndWallets(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(`def main():
    backup_codes = ['bk-s3cret-111', 'bk-s3cret-222']
    seed_phrase = 'abandon ability able about above absent absorb abstract absurd abuse access accident'
    visit = {'sessionid': 'sess-s3cret-xyz', 'name': 'ada'}
    first = backup_codes[0]
    words = seed_phrase
    n = 1  # BREAK
main()
`)
	r.refused("debugpy_evaluate", `{"expression":"backup_codes"}`, "a secret's name")
	r.refused("debugpy_evaluate", `{"expression":"seed_phrase"}`, "a secret's name")
	r.shown("first", "[redacted]")
	r.shown("words", "[redacted]")
	r.shown("visit", "'name': 'ada'")
	noneSeen(t, r.seen.String(), "bk-s3cret", "abandon ability", "sess-s3cret")
}

// echoProgram runs SQLAlchemy with echo on (its log on stdout): each
// statement's placeholders, then its parameters on the next line.
const echoProgram = `import sqlalchemy as sa


def main():
    e = sa.create_engine("sqlite://", echo=True)
    with e.begin() as c:
        c.execute(sa.text("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT, password TEXT)"))
        c.execute(sa.text("INSERT INTO users (name, password) VALUES (:n, :p)"), {"n": "ada", "p": "ech" + "-s3cret-" + "ins"})
        c.execute(sa.text("UPDATE users SET password = :p WHERE name = :n"), {"p": "ech" + "-s3cret-" + "upd", "n": "ada"})
    n = 1  # BREAK
    return n


main()
`

// SQLAlchemy's echo of an INSERT and an UPDATE with placeholders. The
// UPDATE's parameter showed: only an INSERT's columns were read.
func TestAttackSecretsInSQLAlchemyEcho(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(echoProgram)
	r.outputWith("sqlalchemy.engine.Engine COMMIT")
	seen := r.seen.String()
	noneSeen(t, seen, "s3cret-ins", "s3cret-upd")
	if !strings.Contains(seen, "UPDATE users SET password = ? WHERE name = ?") || !strings.Contains(seen, "'[redacted]', 'ada')") {
		t.Errorf("the control: the statements and their parameters are shown, the passwords masked: %s", seen)
	}
}

// mysqlProgram builds statements as PyMySQL's mogrify does (its own
// escape_string writes the values in, a quote escaped by a backslash):
// it logs an INSERT, from a function whose frame is gone at the stop, and
// keeps an UPDATE.
const mysqlProgram = `from pymysql.converters import escape_string


def store(name, secret):
    print("INSERT INTO users (name, password) VALUES ('%s', '%s')" % (escape_string(name), escape_string(secret)))


def main():
    store("o'neil", "it's" + "-s3cret-" + "ins")
    kept = "UPDATE users SET password = '%s' WHERE name = 'ada'" % escape_string("ma'" + "-s3cret-" + "upd")
    n = 1  # BREAK
    return n, kept


main()
`

// A statement as PyMySQL's mogrify writes it: standard SQL's reading ends
// a string at \', so the INSERT's row read as no row and its password
// showed whole. (The UPDATE's was masked before too, as a password = '...'
// pair.)
func TestAttackSecretsInMySQLStatements(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(mysqlProgram)
	r.outputWith(`VALUES ('o\'neil', `)
	kept := r.ok("debugpy_evaluate", `{"expression":"kept"}`)
	seen := r.seen.String()
	noneSeen(t, seen, "s3cret-ins", "s3cret-upd")
	if !strings.Contains(seen, `VALUES ('o\\'neil', '[redacted]')`) || !strings.Contains(kept, "UPDATE users SET password") {
		t.Errorf("the control: the statements are shown, the passwords masked: %s", seen)
	}
}

// oauthProgram handles an OAuth redirect as a web app's callback does:
// it logs the request's line and builds the token request's body with
// oauthlib, in a function whose frame is gone at the stop, and keeps a
// copy of the body under an innocent name.
const oauthProgram = `import logging, sys
from urllib.parse import parse_qsl
from werkzeug.datastructures import ImmutableMultiDict
from oauthlib.oauth2 import WebApplicationClient
from oauthlib.common import add_params_to_uri

logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(levelname)s %(message)s")


def callback(code):
    url = add_params_to_uri("/oauth/callback", [("code", code), ("state", "st4te")])
    logging.info('127.0.0.1 "GET %s HTTP/1.1" 302', url)
    body = WebApplicationClient("web-app").prepare_request_body(code=code, redirect_uri="https://app.example.com/cb",
                                                                 code_verifier="pk" + "-s3cret-" + "verifier-" + "x" * 30)
    logging.info("token request: %s", body)
    return body


def main():
    sent = callback("4/0A" + "-s3cret-" + "code")
    args = ImmutableMultiDict(parse_qsl("code=" + "4/0A" + "-s3cret-" + "args" + "&state=st4te"))  # Flask's request.args
    n = 1  # BREAK
    return n, sent, args


main()
`

// OAuth's authorization code and PKCE verifier, in a callback's log and
// the token request's body: "code" is no secret's name, so they showed.
func TestAttackSecretsInOAuthCallback(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(oauthProgram)
	r.outputWith("INFO token request: grant_type=authorization_code")
	sent := r.ok("debugpy_evaluate", `{"expression":"sent"}`)
	r.ok("debugpy_evaluate", `{"expression":"args"}`)
	seen := r.seen.String()
	noneSeen(t, seen, "s3cret-code", "s3cret-verifier", "s3cret-args")
	if !strings.Contains(seen, "/oauth/callback?code=[redacted]") || !strings.Contains(seen, "state=st4te HTTP/1.1") || !strings.Contains(sent, "grant_type=authorization_code") {
		t.Errorf("the control: the request's line and the body are shown, the code and the verifier masked: %s", seen)
	}
}

// pipedProgram builds the command lines an ops script runs, which hand
// a password to sudo -S and docker login on their input, logs them, and
// keeps the last under an innocent name; the password's frame is gone at
// the stop.
const pipedProgram = `import shlex


def restart(secret):
    cmd = "echo %s | sudo -S systemctl restart app" % shlex.quote(secret)
    print("running:", cmd)
    login = "printf '%%s\\n' %s | docker login -u ci --password-stdin ghcr.io" % shlex.quote(secret + "-dk")
    print("running:", login)
    return login


def main():
    last = restart("sud" + "-s3cret-" + "pipe")
    n = 1  # BREAK
    return n, last


main()
`

// A password handed to a program on its input (echo PW | sudo -S, printf
// PW | docker login --password-stdin): no option and no name carried it,
// so it showed.
func TestAttackSecretsPipedToStdin(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(pipedProgram)
	r.outputWith("docker login -u ci --password-stdin ghcr.io")
	last := r.ok("debugpy_evaluate", `{"expression":"last"}`)
	seen := r.seen.String()
	noneSeen(t, seen, "s3cret-pipe")
	if !strings.Contains(seen, "| sudo -S systemctl restart app") || !strings.Contains(last, "docker login -u ci --password-stdin ghcr.io") {
		t.Errorf("the control: the commands are shown, the passwords masked: %s", seen)
	}
}

// frenchProgram logs a new account's password in French, from a function
// whose frame is gone at the stop, and keeps the message.
const frenchProgram = `import logging, sys

logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(levelname)s %(message)s")


def create(user):
    pw = "Fr" + "-s3cret-" + "mdp"
    logging.info("compte créé pour %s, mot de passe : %s", user, pw)
    return "Votre mot de passe est %s" % ("Fr" + "-s3cret-" + "msg")


def main():
    note = create("ada")
    n = 1  # BREAK
    return n, note


main()
`

// French's "mot de passe", three words: no secret's name was read in
// them, so the password showed.
func TestAttackSecretsInFrench(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(frenchProgram)
	r.outputWith("compte créé pour ada, mot de passe")
	note := r.ok("debugpy_evaluate", `{"expression":"note"}`)
	seen := r.seen.String()
	noneSeen(t, seen, "s3cret-mdp", "s3cret-msg")
	if !strings.Contains(seen, "pour ada, mot de passe : [redacted]") || !strings.Contains(note, "Votre mot de passe est [redacted]") {
		t.Errorf("the control: the messages are shown, the passwords masked: %s", seen)
	}
}

// promptProgram answers a child's password prompt with pexpect, its log on
// stdout as an automation script keeps it, from a function whose frame is
// gone at the stop.
const promptProgram = `import sys
import pexpect


def login():
    child = pexpect.spawn(sys.executable, ["-c", "import getpass; getpass.getpass('[sudo] password for ada: '); print('ok')"],
                          encoding="utf-8", timeout=30)
    child.logfile_read = sys.stdout
    child.expect_exact("password for ada: ")
    child.logfile_send = sys.stdout
    child.sendline("pex" + "-s3cret-" + "answer")
    child.expect(pexpect.EOF)


def main():
    login()
    n = 1  # BREAK
    return n


main()
`

// A prompt for a password and what was typed, as pexpect's log shows them
// (and a line that starts with a secret's name, which the prose reading
// passed over): the answer showed.
func TestAttackSecretsInPromptAnswers(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(promptProgram)
	r.outputWith("[sudo] password for ada: ")
	seen := r.seen.String()
	noneSeen(t, seen, "s3cret-answer")
	if !strings.Contains(seen, "[sudo] password for ada: [redacted]") {
		t.Errorf("the control: the prompt is shown, the answer masked: %s", seen)
	}
}

// The masks answer guesses: a piece beside a cut is masked when it begins
// a secret of the session, so an agent that wrote its own text beside a
// cut learned, from whether it came back masked, how a secret begins
// ('ghp_16C...' came back as '[redacted]...', 'ghp_99X...' as it was), a
// character at a time. The expressions policy now asks a person for text
// that can stand beside a cut: a long or "..." literal, a string built with
// +, * or %, a number of more than 20 digits.
func TestAttackMaskAnswersGuesses(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak("api_key = \"ghp_16C7e42F292c6912E7710c838347Ae178B4a\"\nnames = ['ada', 'bob']\nn = 1  # BREAK\n")
	r.ok("debugpy_variables", `{}`)
	for _, e := range []string{"'ghp_16C...'", "'ghp_99X...'", "'gh' + 'p_16C...'", "'...C61_phg'[::-1]", "'%sp_16C...' % 'gh'",
		"['y' * 13 + 'ghp_16C' + 'y' * 30]", "('ghp_16C...', 1)", "{'ghp_16C...': 1}", "names[0][0] + names[1][0] + 'p'"} {
		r.refused("debugpy_evaluate", `{"expression":`+q(e)+`}`, "needs a person's approval", "beside a cut")
	}
	// A whole guess comes back masked when it is right: a dictionary of
	// them in one call needs a person too.
	var guesses []string
	for i := range 17 {
		guesses = append(guesses, fmt.Sprintf("'guess-%02d'", i))
	}
	r.refused("debugpy_evaluate", `{"expression":`+q("(["+strings.Join(guesses[:9], ", ")+"], ["+strings.Join(guesses[9:], ", ")+"])")+`}`,
		"needs a person's approval", "19 strings") // and the two lists that spell them
	// A breakpoint's answer repeats its file: a path of made-up directories
	// tried a guess a directory. A breakpoint needs a file that exists; the
	// error does not repeat the path.
	guessPath := "/tmp/nope/guess-01/ghp_16C7e42F292c6912E7710c838347Ae178B4a/guess-02/x.py"
	r.refused("debugpy_set_breakpoint", `{"file":`+q(guessPath)+`,"line":1}`, "is no file")
	r.refused("debugpy_remove_breakpoint", `{"file":`+q(guessPath)+`,"line":1}`, "is no file")
	if text := r.ok("debugpy_evaluate", `{"expression":"names[0]"}`); !strings.Contains(text, "'ada'") {
		t.Errorf("the control: a path is read: %s", text)
	}
	noneSeen(t, r.seen.String(), "[redacted]...", "/[redacted]/")
}

// imapProgram logs in to an IMAP server on loopback with imaplib's debug
// lines on (its protocol trace on stderr).
const imapProgram = `import imaplib, socket, threading


def serve(srv):
    c, _ = srv.accept()
    f = c.makefile("rwb")
    f.write(b"* OK ready\r\n"); f.flush()
    for line in f:
        tag, cmd = line.split()[:2]
        if cmd.upper() == b"CAPABILITY":
            f.write(b"* CAPABILITY IMAP4rev1\r\n")
        f.write(tag + b" OK done\r\n"); f.flush()
        if cmd.upper() == b"LOGOUT":
            break


def main():
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    threading.Thread(target=serve, args=(srv,), daemon=True).start()
    m = imaplib.IMAP4("127.0.0.1", srv.getsockname()[1])
    m.debug = 4
    m.login("ada", "ima" + "-s3cret-" + "login")
    m.logout()
    n = 1  # BREAK
    return n


main()
`

// IMAP's LOGIN in imaplib's debug lines: the password stands under no
// name. It showed.
func TestAttackSecretsInIMAPLogin(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(imapProgram)
	r.outputWith("LOGOUT")
	seen := r.seen.String()
	noneSeen(t, seen, "s3cret-login")
	if !strings.Contains(seen, `LOGIN ada \"[redacted]\"`) {
		t.Errorf("the control: the trace is shown, the password masked: %s", seen)
	}
}

// smtpProgram logs in to an SMTP server on loopback with AUTH LOGIN and
// smtplib's debug lines on (on stderr).
const smtpProgram = `import contextlib, io, smtplib, socket, threading


def serve(srv):
    c, _ = srv.accept()
    f = c.makefile("rwb")
    f.write(b"220 hi\r\n"); f.flush()
    for line in f:
        l = line.strip().upper()
        if l.startswith(b"EHLO"):
            f.write(b"250-hi\r\n250 AUTH LOGIN\r\n")
        elif l.startswith(b"AUTH LOGIN"):
            f.write(b"334 UGFzc3dvcmQ6\r\n")
        elif l.startswith(b"QUIT"):
            f.write(b"221 bye\r\n"); f.flush()
            break
        else:
            f.write(b"235 ok\r\n")
        f.flush()


def main():
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    threading.Thread(target=serve, args=(srv,), daemon=True).start()
    s = smtplib.SMTP("127.0.0.1", srv.getsockname()[1])
    s.set_debuglevel(1)
    s.login("ada", "smtp-s3cret-login")
    s.quit()
    srv2 = socket.socket()
    srv2.bind(("127.0.0.1", 0))
    srv2.listen(1)
    threading.Thread(target=serve, args=(srv2,), daemon=True).start()
    trace = io.StringIO()
    with contextlib.redirect_stderr(trace):  # a second login, its trace captured
        s = smtplib.SMTP("127.0.0.1", srv2.getsockname()[1])
        s.set_debuglevel(1)
        s.login("ada", "smtp-s3cret-kept")
        s.quit()
    kept = trace.getvalue()
    n = 1  # BREAK
    return n, kept


main()
`

// SMTP's AUTH LOGIN in smtplib's debug lines: the password's base64 on a
// line of its own. It showed in 24 of TestSMTPAuthAgreesWithSmtplib's 60
// logins; this one the module before masked but for its last bytes (4=),
// as a token's shape, which the control below catches.
func TestAttackSecretsInSMTPAuth(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(smtpProgram)
	r.outputWith("reply: retcode (221); Msg: b'bye'")
	kept := r.ok("debugpy_evaluate", `{"expression":"kept"}`) // the captured trace's repr: its line ends escaped
	if !strings.Contains(kept, `send: '[redacted]\\r\\n'`) {
		t.Errorf("the captured trace's repr: the password's base64 is masked whole: %s", kept) // its last bytes showed
	}
	seen := r.seen.String()
	noneSeen(t, seen, "c210cC1zM2NyZXQtbG9naW4", "c210cC1zM2NyZXQta2VwdA") // base64 of smtp-s3cret-login, -kept
	if !strings.Contains(seen, `send: '[redacted]\\r\\n'`) {
		t.Errorf("the control: the trace is shown, the password masked: %s", seen)
	}
}

// A secret passed down the stack under an innocent parameter's name: the
// stop in the callee showed it in clear (t, t[1:], the listing), since the
// stop's listing read only the frame the call reads, and the secret's name
// was a caller's: a local, a global of the program's module, an
// attribute of the caller's self (found 2026-12-06). The listing now reads
// the callers' frames too.
func TestAttackSecretPassedDown(t *testing.T) {
	r := startRaw(t, rawOpts{})
	lib := filepath.Join(r.dir, "lib.py")
	os.WriteFile(lib, []byte("def send(t, n):\n    m = len(t)  # BREAK\n    return m\n"), 0o644)
	prog := filepath.Join(r.dir, "app.py")
	os.WriteFile(prog, []byte("import lib\n"+
		"API_TOKEN = 'Gl5-global-s3cret-value-63'\n"+
		"class Client:\n"+
		"    def __init__(self):\n"+
		"        self.api_key = 'Ck7-client-s3cret-value-41'\n"+
		"    def get(self):\n"+
		"        return lib.send(self.api_key, 2)\n"+
		"def relay(v, depth):\n"+
		"    return lib.send(v, 4) if depth == 0 else relay(v, depth - 1)\n"+
		"def main():\n"+
		"    db_password = 'Lc3-local-s3cret-value-29'\n"+
		"    lib.send(db_password, 1)\n"+
		"    lib.send(API_TOKEN, 3)\n"+
		"    Client().get()\n"+
		"    deep_password = 'Dp4-deep-s3cret-value-57'\n"+
		"    relay(deep_password, 25)\n"+ // 28 frames below send: past the 20 the session fetched at the stop
		"main()\n"), 0o644)
	r.approved("debugpy_launch", `{"program":`+q(prog)+`}`)
	r.ok("debugpy_set_breakpoint", fmt.Sprintf(`{"file":%s,"line":2}`, q(lib)))
	for i, n := range []string{"1", "3", "2", "4"} {
		if text := r.ok("debugpy_continue", `{}`); !strings.Contains(text, "stopped (breakpoint)") {
			t.Fatalf("continue %d: %s", i, text)
		}
		r.shown("n", "int: "+n) // the stop is the one meant
		r.refused("debugpy_evaluate", `{"expression":"t[1:]"}`, "denied by policy", "holds a secret")
		r.masked("t")
		if text := r.ok("debugpy_variables", `{}`); !strings.Contains(text, "t: str = '[redacted]'") {
			t.Errorf("stop %d, the listing: %s", i, text)
		}
	}
	noneSeen(t, r.seen.String(), "local-s3cret", "global-s3cret", "client-s3cret", "deep-s3cret")
}

// The same, read in a frame of another thread than the one that stopped:
// the listing finds that frame's callers in its own thread's stack.
func TestAttackSecretPassedDownInAnotherThread(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak("import threading, time\n" +
		"def work(t, ev):\n    ev.set()\n    while True:\n        time.sleep(0.01)\n" +
		"def run(ev):\n    api_token = 'Th9-thread-s3cret-value-66'\n    work(api_token, ev)\n" +
		"ev = threading.Event()\nthreading.Thread(target=run, args=(ev,), daemon=True).start()\nev.wait()\n" +
		"n = 1  # BREAK\n")
	var frame string
	for _, th := range regexp.MustCompile(`thread (\d+) "Thread`).FindAllStringSubmatch(r.ok("debugpy_threads", `{}`), -1) {
		st := r.ok("debugpy_stack_trace", `{"thread_id":`+th[1]+`}`)
		if m := regexp.MustCompile(`#0 work at .*\(frame (\d+)\)`).FindStringSubmatch(st); m != nil {
			frame = m[1]
		}
	}
	if frame == "" {
		t.Fatal("no frame of work in the worker's stack")
	}
	r.refused("debugpy_evaluate", `{"expression":"t[1:]","frame_id":`+frame+`}`, "denied by policy", "holds a secret")
	if text := r.ok("debugpy_evaluate", `{"expression":"t","frame_id":`+frame+`}`); !strings.Contains(text, "[redacted]") {
		t.Errorf("t: %s", text)
	}
	noneSeen(t, r.seen.String(), "thread-s3cret")
}

// A secret held under its name only by the frame that stopped, passed in
// by a caller under an innocent one (connect(copy1) to def
// connect(password)): read first in the caller's frame, the listing of
// that frame and its callers did not see it, and copy1[1:] ran (found
// 2026-12-06). The listing reads the frames the frame called too.
func TestAttackSecretPassedToACallee(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak("def connect(password):\n    n = 1  # BREAK\n" +
		"def main():\n    copy1 = 'Cl8-callee-s3cret-value-13'\n    connect(copy1)\nmain()\n")
	m := regexp.MustCompile(`#1 main .*\(frame (\d+)\)`).FindStringSubmatch(r.ok("debugpy_stack_trace", `{}`))
	if m == nil {
		t.Fatal("no frame of main")
	}
	r.refused("debugpy_evaluate", `{"expression":"copy1[1:]","frame_id":`+m[1]+`}`, "denied by policy", "holds a secret")
	if text := r.ok("debugpy_evaluate", `{"expression":"copy1","frame_id":`+m[1]+`}`); !strings.Contains(text, "[redacted]") {
		t.Errorf("copy1: %s", text)
	}
	noneSeen(t, r.seen.String(), "callee-s3cret")
}

// A JSON Web Key holds its private key under one-letter names (d, p, q,
// dp, dq, qi; a symmetric key's k), no secret's name anywhere else: a
// JWKS the program loaded showed its private keys in clear, in the dict's
// repr, as the JSON text it dumps, as a listing's rows and through an
// innocent alias (found 2026-12-07). Beside a kty, they are secrets' names.
// The RSA key's d is cut in its dict's repr: only its row shows it whole.
// So are jwcrypto's JWK (a dict) and the cryptography package's private
// numbers (nums.d, ec_nums.private_value: a plain attribute read showed
// them), beside their public_numbers.
func TestAttackPrivateKeyMembersShown(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(`import json
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwcrypto import jwk
pub = rsa.RSAPublicNumbers(65537, int("9" * 300))
nums = rsa.RSAPrivateNumbers(p=int("1" + "31415926535897932384626433832795" * 3), q=3, d=int("2" + "16180339887498948482045868343656" * 3),
                             dmp1=5, dmq1=7, iqmp=11, public_numbers=pub)
ec_nums = ec.EllipticCurvePrivateNumbers(int("3" + "27182818284590452353602874713527" * 2), ec.EllipticCurvePublicNumbers(1, 2, ec.SECP256R1()))
jc = jwk.JWK(kty="oct", k="Jw4jwcryptoOctS3cret10abcdefghij")
jwks = json.loads('{"keys": [{"kty": "RSA", "kid": "sig1", "n": "0vx7-public-modulus-shown-Zz", "e": "AQAB", ' +
    '"d": "Jw4-rsa-private-exponent-s3cret-01", "p": "Jw4-rsa-prime-p-s3cret-02", "q": "Jw4-rsa-prime-q-s3cret-03", ' +
    '"dp": "Jw4-rsa-dp-s3cret-04", "dq": "Jw4-rsa-dq-s3cret-05", "qi": "Jw4-rsa-qi-s3cret-06"}, ' +
    '{"kty": "oct", "kid": "h1", "k": "Jw4-hmac-oct-key-s3cret-07"}]}')
signing = jwks["keys"][0]
hmac_jwk = jwks["keys"][1]
exponent = signing["d"]
text = json.dumps({"kty": "EC", "crv": "P-256", "d": "Jw4-ec-json-text-s3cret-09"}, indent=2)
class Key:
    pass
ec = Key()
ec.kty, ec.crv, ec.x, ec.d = "EC", "P-256", "public-x-shown-Yy", "Jw4-ec-d-attr-s3cret-08"
n = 1  # BREAK
`)
	r.masked("exponent", "signing['d']", "hmac_jwk['k']", "ec.d", "signing", "text", "nums.d", "nums.p", "ec_nums.private_value", "jc['k']")
	r.refused("debugpy_evaluate", `{"expression":"exponent[1:]"}`, "denied by policy", "holds a secret")
	r.refused("debugpy_evaluate", `{"expression":"nums.d > 5"}`, "withheld by policy", "holds a secret")
	r.ok("debugpy_variables", `{"depth": 3}`)
	noneSeen(t, r.seen.String(), "private-exponent-s3cret", "prime-p-s3cret", "prime-q-s3cret", "dp-s3cret", "dq-s3cret", "qi-s3cret",
		"oct-key-s3cret", "ec-d-attr-s3cret", "ec-json-text-s3cret", "31415926535897932384626433832795",
		"16180339887498948482045868343656", "27182818284590452353602874713527", "Jw4jwcryptoOctS3cret")
	for _, public := range []string{"0vx7-public-modulus-shown-Zz", "public-x-shown-Yy", "'sig1'"} {
		if !strings.Contains(r.seen.String(), public) {
			t.Errorf("the control: a JWK's public members are shown, %s is not", public)
		}
	}
}

// An AWS secret access key beside its access key id, under names that say
// neither: the id was masked (its shape is known) and the secret shown, in
// a tuple, a CSV row, a dict, and through an innocent alias (found
// 2026-12-07). The secret is masked where its id stands near it.
func TestAttackAWSSecretBesideItsID(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(`pair = ("AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
row = "ada,,AKIAI44QH8DHBEXAMPLE,je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY,https://console.aws.amazon.com/"
item = {"id": "ASIAIOSFODNN7EXAMPLF", "value": "Kq8LrYtuV3mZ/x9Wn2Pb+7sDfHjKl0QaZxCvBn1M"}
alias = pair[1]
n = 1  # BREAK
`)
	r.masked("pair", "pair[1]", "alias", "row", "item", "item['value']")
	r.refused("debugpy_evaluate", `{"expression":"alias[1:]"}`, "denied by policy", "holds a secret")
	r.ok("debugpy_variables", `{"depth": 2}`)
	noneSeen(t, r.seen.String(), "wJalrXUtnFEMI", "K7MDENG", "je7MtGbClwBF", "Kq8LrYtuV3mZ", "Pb+7sDfHjKl0")
	if !strings.Contains(r.seen.String(), "console.aws.amazon.com") {
		t.Error("the control: the rest of the row is shown")
	}
	// The pair in two variables of a frame, under names of no secret, and
	// in two of a module's globals: the secret was shown in clear, and
	// key[1:] ran (found 2026-12-07). A listing of the scope first, then
	// an evaluate, each in a server of its own.
	const scopes = `KEY_ID = "AKIA" + "I44QH8DHBEXAMPLE"
KEY = "je7MtGbClwBF/2Zp9Utk/h3yCo8nvb" + "EXAMPLEKEY"
def main():
    key_id = "AKIA" + "IOSFODNN7EXAMPLE"
    key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY"
    region = "eu-west-3"
    n = 1  # BREAK
    return n
main()
`
	t.Run("variables", func(t *testing.T) {
		r := startRaw(t, rawOpts{})
		r.stopAtBreak(scopes)
		if text := r.ok("debugpy_variables", `{}`); !strings.Contains(text, "eu-west-3") {
			t.Fatalf("the control: %s", text)
		}
		r.ok("debugpy_variables", `{"scope": "globals"}`)
		noneSeen(t, r.seen.String(), "wJalrXUtnFEMI", "K7MDENG", "je7MtGbClwBF", "h3yCo8nvb")
	})
	t.Run("evaluate", func(t *testing.T) {
		r := startRaw(t, rawOpts{})
		r.stopAtBreak(scopes)
		r.masked("key", "KEY", "(key_id, key)")
		r.refused("debugpy_evaluate", `{"expression":"key[1:]"}`, "denied by policy", "holds a secret")
		noneSeen(t, r.seen.String(), "wJalrXUtnFEMI", "K7MDENG", "je7MtGbClwBF", "h3yCo8nvb")
	})
}

// A private key's DER without its PEM armor, as a program holds it
// (key.private_bytes(Encoding.DER, ...), its base64, its hex) under
// innocent names: each was shown in clear (found 2026-12-07).
func TestAttackDERKeyShown(t *testing.T) {
	// The DER as OpenSSL writes it: PKCS#8 around SEC1, the private value
	// and the public point.
	d, _ := new(big.Int).SetString(strings.Repeat("27182818284590452353602874713527", 2), 10)
	priv, err := ecdh.P256().NewPrivateKey(d.FillBytes(make([]byte, 32)))
	if err != nil {
		t.Fatal(err)
	}
	der := slices.Concat(mustHex(t, "308187020100301306072a8648ce3d020106082a8648ce3d030107046d306b0201010420"), priv.Bytes(),
		mustHex(t, "a144034200"), priv.PublicKey().Bytes())
	b64, hexed := base64.StdEncoding.EncodeToString(der), hex.EncodeToString(der)
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(`import base64
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
k = ec.derive_private_key(int("27182818284590452353602874713527" * 2), ec.SECP256R1())
der = k.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
b64 = base64.b64encode(der).decode()
hexed = der.hex()
row = {"blob": b64, "note": "kept"}
spelled = b64 == "` + b64 + `"
n = 1  # BREAK
`)
	if text := r.ok("debugpy_evaluate", `{"expression":"spelled"}`); !strings.Contains(text, "True") {
		t.Fatalf("the key the program holds is not the one the test spells: %s", text)
	}
	r.masked("der", "b64", "hexed", "row")
	r.ok("debugpy_variables", `{"depth": 2}`)
	noneSeen(t, r.seen.String(), b64[60:90], b64[len(b64)-30:], hexed[80:120], hex.EncodeToString(priv.Bytes())[:24])
	if !strings.Contains(r.seen.String(), "kept") {
		t.Error("the control: the rest of the dict is shown")
	}
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A key's lines in a container the stop's listing did not open: it opens
// 64 values a stop, and a program with more (here 80 objects, each of a
// class of its own, and 70 lists, all before the key's) spends them
// before the key's list, dict or object. Each of its items, read alone,
// is a line of base64 that no mask reads as a key: zlines[3] showed the
// fourth line, zlines[2:5] the ends of three (found 2026-12-07). The host
// now opens the container an expression reads a child of, when the
// listing did not, so its children are read together.
func TestAttackKeyLinesPastTheListingsBudget(t *testing.T) {
	r := startRaw(t, rawOpts{})
	key := rsaKeyFile(t, filepath.Join(r.dir, "k.pem"), "PEM")
	r.stopAtBreak(pastTheListing + `with open(os.path.join(os.path.dirname(__file__), "k.pem")) as f:
    zlines = f.read().splitlines()
class Box:
    pass
zbox = Box()
zbox.lines = list(zlines)
zobj = Box()
for i, line in enumerate(zlines):
    setattr(zobj, "l%d" % i, line)
zkd = {"l%d" % i: line for i, line in enumerate(zlines)}
zfill = ["filler %d" % i for i in range(30)]
` + mainAtBreak)
	for _, e := range []string{"zlines[3]", "zlines[2:5]", "zlines[7], zlines[8]", "zlines[4] < 'N'", "[zlines[9]]", "zlines[3][0]",
		"zbox.lines[5]", "zobj.l6", "zkd['l10']", "ｚｌｉｎｅｓ[11]"} {
		r.call("debugpy_evaluate", `{"expression":`+q(e)+`}`) // masked or refused: what came back is checked below
	}
	if text := r.ok("debugpy_evaluate", `{"expression":"zfill[5]"}`); !strings.Contains(text, "filler 5") {
		t.Errorf("the control, an item of a list of no secret: %s", text)
	}
	var parts []string
	lines := strings.Split(strings.TrimSpace(string(key)), "\n")
	for _, l := range lines[1 : len(lines)-1] {
		if len(l) > 30 {
			parts = append(parts, l[:20], l[len(l)-10:]) // what debugpy shows of a line cut short
		} else {
			parts = append(parts, l)
		}
	}
	noneSeen(t, r.seen.String(), parts...)
}

// A private key's DER held as a list of its bytes (list(der), or JSON's
// list of numbers), under an innocent name: debugpy shows its first 15
// numbers, and slices showed the rest, 15 at a time (der[15:30],
// der[30:45] ...; found 2026-12-07). The numbers are now read as the
// bytes they spell, so der holds a secret and no part of it is read.
func TestAttackDERKeyAsNumbers(t *testing.T) {
	r := startRaw(t, rawOpts{})
	der := rsaKeyFile(t, filepath.Join(r.dir, "k.der"), "DER")
	r.stopAtBreak(`import os
with open(os.path.join(os.path.dirname(__file__), "k.der"), "rb") as f:
    blob = list(f.read())
n = 1  # BREAK
`)
	for _, e := range []string{"blob[15:30]", "blob[30:45]", "blob[200:215]", "(blob[40], blob[41], blob[42])", "blob[::-1][0:15]", "blob"} {
		r.call("debugpy_evaluate", `{"expression":`+q(e)+`}`) // refused or masked: what came back is checked below
	}
	r.call("debugpy_variables", `{}`)
	var windows []string
	for _, at := range []int{15, 30, 200, 40, len(der) - 15} {
		var ns []string
		for _, b := range der[at : at+12] {
			ns = append(ns, strconv.Itoa(int(b)))
		}
		windows = append(windows, strings.Join(ns, ", "))
	}
	noneSeen(t, r.seen.String(), windows...)
	if text := r.ok("debugpy_evaluate", `{"expression":"f.closed"}`); !strings.Contains(text, "True") {
		t.Errorf("the control: %s", text)
	}
}

// A JWT's parts (token.split('.')) in a program that holds no more of the
// token: read joined without their dots they were no JWT, and parts[2]
// showed the signature (found 2026-12-07).
func TestAttackJWTParts(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(jwtProgram + `parts = [h, p, s]
del h, p, s
` + mainAtBreak)
	for _, e := range []string{"parts[2]", "parts[1]", "(parts[0], parts[2])", "parts[2][1:]"} {
		r.call("debugpy_evaluate", `{"expression":`+q(e)+`}`) // refused or masked: what came back is checked below
	}
	_, p, sig := testJWT()
	noneSeen(t, r.seen.String(), sig[:16], sig[16:32], p[:16], p[16:32])
}

// A frame that verifies a token splits it: token is a secret's name, and
// its value was masked, but header, payload and sig, each read alone,
// showed the token's parts in clear (found 2026-12-07). A JWT learned is
// learned with its parts.
func TestAttackJWTSplitInAFrame(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(jwtProgram + `token = h + "." + p + "." + s
del h, p, s
def verify(token):
    header, payload, sig = token.split(".")
    n = 1  # BREAK
    return n
verify(token)
`)
	for _, e := range []string{"sig", "payload", "sig[1:]", "(header, sig)"} {
		r.call("debugpy_evaluate", `{"expression":`+q(e)+`}`) // refused or masked: what came back is checked below
	}
	r.call("debugpy_variables", `{}`)
	_, p, sig := testJWT()
	noneSeen(t, r.seen.String(), sig[:16], sig[16:32], p[:16], p[16:32])
}

// Values past what the stop's listing opens (its budget: a program with
// more values than it), shown in part: a value shown cut short showed the
// ends of what it held (a tuple (secret, key id) showed 20 and 10
// characters of an AWS secret key, a list of a key's body lines 30 of
// each), and a container listed with a low max_items showed its first
// children without the ones that tell what they are (an object's
// attributes, the secret before its key id; a key's second line without
// the first, which begins its DER). Found 2026-12-07. The result phase
// now reads every child of a container listed in part, and the host opens
// each value a result shows cut short that no listing of the stop opened.
func TestAttackValuesShownInPart(t *testing.T) {
	r := startRaw(t, rawOpts{})
	key := rsaKeyFile(t, filepath.Join(r.dir, "k.pem"), "PEM")
	key2 := rsaKeyFile(t, filepath.Join(r.dir, "k2.pem"), "PEM")
	r.stopAtBreak(pastTheListing + `def body(name):
    with open(os.path.join(os.path.dirname(__file__), name)) as f:
        return f.read().splitlines()[1:-1]
class Box:
    pass
zpair = ("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "AKIAIOSFODNN7EXAMPLE")
zbody = body("k.pem")
zrows = [["Pb+7sDfHjKl0Qw3ErTy6UiOp9AsDfGhJkL2zXcVb", "AKIAJ7Q2WXEXAMPLE0ID"]]
zholder = Box()
zholder.grid = [["aa"], ["Zx9Cv8Bn7Mm6Qa5Ws4Ed3Rf2Tg1Yh0Uj9Ik8Ol7P", "AKIAZ4Y3X2W1EXAMPLE9"]]
ztoken = Box()
ztoken.raw = "raw-s3cret-value-99"
zobj = Box()
zobj.a, zobj.b = "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY", "AKIAI44QH8DHBEXAMPLE"
zkey = Box()
for i, line in enumerate(body("k2.pem")):
    setattr(zkey, "l%02d" % i, line)
zfill = ["filler %d" % i for i in range(30)]
del i, line
` + mainAtBreak)
	refs := map[string]string{}
	text := r.ok("debugpy_variables", `{"scope":"globals","max_items":400}`)
	for _, name := range []string{"zobj", "zkey", "zholder", "ztoken"} { // objects: no listing opens them, their rows show nothing
		refs[name] = r.rowRef(text, name)
	}
	r.call("debugpy_variables", `{"variables_reference":`+refs["zobj"]+`,"max_items":1}`)
	r.call("debugpy_variables", `{"variables_reference":`+refs["zkey"]+`,"max_items":2}`)
	r.call("debugpy_variables", `{"variables_reference":`+refs["zkey"]+`,"max_items":3,"depth":2}`)
	r.call("debugpy_variables", `{"variables_reference":`+refs["zholder"]+`,"max_items":1,"depth":2}`) // grid's value, its first item a row
	r.call("debugpy_variables", `{"variables_reference":`+refs["ztoken"]+`}`)                          // raw, under an object named for a secret
	r.call("debugpy_evaluate", `{"expression":"zpair"}`)
	r.call("debugpy_evaluate", `{"expression":"zbody"}`)
	r.call("debugpy_evaluate", `{"expression":"zbody + []"}`)
	r.call("debugpy_evaluate", `{"expression":"zrows"}`) // its items' items shown cut short
	if text := r.ok("debugpy_evaluate", `{"expression":"zfill"}`); !strings.Contains(text, "'filler 0'") {
		t.Errorf("the control, a list of no secret shown cut short: %s", text)
	}
	if text := r.ok("debugpy_variables", `{"variables_reference":`+refs["zobj"]+`,"max_items":1}`); !strings.Contains(text, "a: str") {
		t.Errorf("the control, an object's first attribute: %s", text)
	}
	parts := []string{"wJalrXUtnFEMI/K7MDEN", "bPxRfiCYEXAMPLEKEY", "je7MtGbClwBF/2Zp9Utk", "Pb+7sDfHjKl0Qw3ErTy6", "hJkL2zXcVb", "Zx9Cv8Bn7Mm6Qa5Ws4Ed", "Uj9Ik8Ol7P", "raw-s3cret"}
	for _, k := range [][]byte{key, key2} {
		lines := strings.Split(strings.TrimSpace(string(k)), "\n")
		for _, l := range lines[2 : len(lines)-1] { // the body's lines but its first, whose DER beginning a mask knows
			if len(l) > 30 { // what debugpy shows of a line cut short in a container's repr
				parts = append(parts, l[:20], l[len(l)-10:])
			}
		}
	}
	noneSeen(t, r.seen.String(), parts...)
}

// A caller's container, listed by its variables reference with no
// frame_id, has rows whose paths are the caller's: its token and
// zholder.zpair were taken for the stopped frame's values of the same
// paths, opened already, and shown in clear and cut short (found
// 2026-12-07). What was opened is known by reference and path.
func TestAttackAnotherFramesContainerByReference(t *testing.T) {
	r := startRaw(t, rawOpts{})
	var past strings.Builder // past the budget of the caller's own listing, and of its stack's
	for i := range 80 {
		fmt.Fprintf(&past, "    o%02d = Box()\n", i)
	}
	r.stopAtBreak(`class Box:
    pass
ztoken = Box()
ztoken.raw = "innocent words here"
zholder = Box()
zholder.zpair = ("a plain tuple item of forty characters.", "and another")
def main():
    n = 1  # BREAK
    return n
def outer():
` + past.String() + `    ztoken = Box()
    ztoken.raw = "raw-s3cret-value-77"
    zholder = Box()
    zholder.zpair = ("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "AKIAIOSFODNN7EXAMPLE")
    main()
outer()
`)
	m := regexp.MustCompile(`outer at .*\(frame (\d+)\)`).FindStringSubmatch(r.ok("debugpy_stack_trace", `{}`))
	if m == nil {
		t.Fatal("no frame of outer")
	}
	caller := r.ok("debugpy_variables", `{"frame_id":`+m[1]+`,"scope":"locals"}`)
	r.listRef(r.rowRef(caller, "ztoken"), "")
	r.listRef(r.rowRef(caller, "zholder"), "")
	if text := r.ok("debugpy_evaluate", `{"expression":"zholder.zpair"}`); !strings.Contains(text, "a plain tuple item") {
		t.Errorf("the control, the stopped frame's value of the same path: %s", text)
	}
	noneSeen(t, r.seen.String(), "raw-s3cret", "wJalrXUtnFEMI/K7MDEN", "bPxRfiCYEXAMPLEKEY")
}

// A function's literals read through its objects: __defaults__ showed the
// default of its parameter pw, and its code object's co_consts the
// password its body assigns, in clear, where debugpy_source masks both
// (found 2026-12-07). A result that shows a code object (or its
// co_filename) has the function's source read first.
func TestAttackSecretsInCodeObjects(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(`def make(user, pw="dflt-s3cret-value-41"):
    password = "fn-s3cret-value-42"
    def inner():
        api_key = "inr-s3cret-value-43"
        return api_key
    return password, inner
` + mainAtBreak)
	ref, list := r.rowRef, r.listRef
	fn := list(ref(list(ref(r.ok("debugpy_variables", `{"scope":"globals"}`), "function variables"), ""), "make"), "")
	special := list(ref(fn, "special variables"), `,"max_items":200`)
	list(ref(special, "__defaults__"), "")
	code := list(ref(special, "__code__"), `,"max_items":200`)
	consts := list(ref(code, "co_consts"), "")
	list(ref(consts, "2"), `,"max_items":200`) // inner's code object
	if !strings.Contains(code, "co_varnames: tuple = ('user', 'pw', 'password', 'inner')") {
		t.Errorf("the control, the code object's names: %s", code)
	}
	noneSeen(t, r.seen.String(), "dflt-s3cret", "fn-s3cret", "inr-s3cret")
}

// A function's values with no name a listing shows: a closure's free
// variable (a token read from a file into a client factory's closure,
// shown as its cell's cell_contents), a functools.partial's positional
// arguments (shown in its repr, in the globals' listing itself), a
// thread's (its _args) and a lambda's default (__defaults__) were shown in
// clear (found 2026-12-07). The listing reads them under the names of the
// variables and parameters they are bound to (started).
func TestAttackSecretsHeldByFunctions(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(r.readsSecrets("cls-s3cret-value-51", "prt-s3cret-value-52", "mth-s3cret-value-53", "thr-s3cret-value-54", "dfl-s3cret-value-55") + `import functools, threading
def send(api_key, n):
    return n
def make_client(token):
    def call():
        return "GET /" + token
    return call
def connect(host, password):
    return host
class Account:
    def login(self, user, pw):
        return user
client = make_client(next(lines))
conn = functools.partial(connect, "db.example", next(lines))
login = functools.partial(Account().login, "ada", next(lines))
worker = threading.Thread(target=send, args=(next(lines), 3))
hook = lambda user, pw=next(lines): user
del lines
` + mainAtBreak)
	ref, list := r.rowRef, r.listRef
	globals := r.ok("debugpy_variables", `{"scope":"globals"}`)
	list(ref(globals, "conn"), "")
	list(ref(globals, "login"), "")
	fn := list(ref(list(ref(globals, "function variables"), ""), "client"), "")
	closure := list(ref(list(ref(fn, "special variables"), `,"max_items":200`), "__closure__"), "")
	list(ref(closure, "0"), "")
	r.call("debugpy_evaluate", `{"expression":"conn.args"}`)
	r.call("debugpy_evaluate", `{"expression":"hook"}`)
	list(ref(list(ref(globals, "worker"), ""), "_args"), "")
	list(ref(list(ref(list(ref(globals, "function variables"), ""), "hook"), ""), "special variables"), `,"max_items":200`) // its __defaults__
	if !strings.Contains(globals, "'db.example'") {
		t.Errorf("the control, the partial's host: %s", globals)
	}
	noneSeen(t, r.seen.String(), "cls-s3cret", "prt-s3cret", "mth-s3cret", "thr-s3cret", "dfl-s3cret")
}

// What functions hold where no name of the frame holds them (found
// 2026-12-07): a partial in a list showed its password's end in the
// globals' listing itself and whole in an evaluate of it; a client
// factory's closure in a dict, a thread in an object (read through a
// path), a closure of an object's method (in its group of functions,
// which has no path), a lambda's default in a dict, a closure's auth pair
// and a timer's arguments in a list each showed theirs in clear. Every
// function, partial, thread (and the like) a response shows is read for
// what it holds, by its variables reference.
func TestAttackSecretsHeldByFunctionsInContainers(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(r.readsSecrets("prt-s3cret-value-61", "cls-s3cret-value-62", "thr-s3cret-value-63", "obj-s3cret-value-64", "dfl-s3cret-value-65", "tpl-s3cret-value-66", "tmr-s3cret-value-67") + `import functools, threading
def connect(host, password):
    return host
def make_client(token):
    def call():
        return "GET /" + token
    return call
def send(api_key, n):
    return n
def session(creds):
    def get():
        return creds
    return get
class Svc:
    pass
a_hooks = [functools.partial(connect, "db.example", next(lines))]  # opened by the listing
` + pastTheListing + `zreg = {"client": make_client(next(lines))}
zsvc = Svc()
zsvc.worker = threading.Thread(target=send, args=(next(lines), 3))
zsvc.login = make_client(next(lines))
zhandlers = {"cb": lambda user, pw=next(lines): user}
zsessions = [session(("ada", next(lines)))]
ztimers = [threading.Timer(600, send, args=(next(lines), 3))]
del lines, i, o
` + mainAtBreak)
	ref, list := r.rowRef, r.listRef
	globals := r.ok("debugpy_variables", `{"scope":"globals","max_items":400}`)
	r.call("debugpy_evaluate", `{"expression":"a_hooks[0]"}`)
	special := func(fn string) string { return list(ref(fn, "special variables"), `,"max_items":200`) }
	closure := list(ref(special(list(ref(list(ref(globals, "zreg"), ""), "'client'"), "")), "__closure__"), "")
	list(ref(closure, "0"), "")
	r.call("debugpy_evaluate", `{"expression":"zsvc.worker._args[0]"}`)
	login := list(ref(list(ref(list(ref(globals, "zsvc"), ""), "function variables"), ""), "login"), "")
	list(ref(list(ref(special(login), "__closure__"), ""), "0"), "")
	r.ok("debugpy_evaluate", `{"expression":"zhandlers"}`)
	list(ref(special(list(ref(list(ref(globals, "zhandlers"), ""), "'cb'"), "")), "__defaults__"), "")
	r.ok("debugpy_evaluate", `{"expression":"zsessions"}`)
	cell := list(ref(list(ref(special(list(ref(list(ref(list(ref(globals, "zsessions"), ""), "function variables"), ""), "0"), "")), "__closure__"), ""), "0"), "")
	r.ok("debugpy_evaluate", `{"expression":"ztimers"}`)
	r.ok("debugpy_evaluate", `{"expression":"ztimers[0].args"}`)
	if !strings.Contains(cell, "cell_contents: tuple = ('") {
		t.Errorf("the control, the closure's pair: %s", cell)
	}
	if !strings.Contains(globals, "a_hooks: list = [functools.partial(<f...") {
		t.Errorf("the control, the partial shown in the list's repr: %s", globals)
	}
	noneSeen(t, r.seen.String(), "prt-s3cret", "value-61", "cls-s3cret", "thr-s3cret", "obj-s3cret", "dfl-s3cret", "tpl-s3cret", "tmr-s3cret")
}

// A caught exception kept in a list of errors showed the token it was
// raised with, AuthError('...'), with no name (found 2026-12-07): in the
// globals' listing (cut short) and in an evaluate (whole), within the
// listing's budget and past it. An exception a response shows has the
// locals of the functions its traceback went through read.
func TestAttackSecretsHeldByExceptions(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(r.readsSecrets("exc-s3cret-value-71", "exc-s3cret-value-72") + `class AuthError(Exception):
    pass
def login(token):
    if not token.startswith("ok"):
        raise AuthError(token)
def attempt(token, errors):
    try:
        login(token)
    except AuthError as e:
        errors.append(e)
a_errors = []  # opened by the listing
attempt(next(lines), a_errors)
` + pastTheListing + `zerrors = []
attempt(next(lines), zerrors)
del lines, i, o
` + mainAtBreak)
	globals := r.ok("debugpy_variables", `{"scope":"globals","max_items":400}`)
	r.evaluateEach("a_errors", "a_errors[0]", "a_errors[0].args", "zerrors", "zerrors[0]", "zerrors[0].args")
	if !strings.Contains(globals, "a_errors: list = [AuthError(") {
		t.Errorf("the control, the exception in the list's repr: %s", globals)
	}
	noneSeen(t, r.seen.String(), "exc-s3cre", "value-71", "value-72")
}

// A process not yet started (multiprocessing's) and a scheduler's event
// (sched's) hold the arguments their function will be called with: the
// process's showed in clear in its _args, the event's in its repr
// (found 2026-12-07). They are read as a thread's are, under the
// function's parameters' names.
func TestAttackSecretsHeldByProcessesAndEvents(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(r.readsSecrets("QvU7procaa93kdW", "Zr2xschedb51xmP") + `import multiprocessing, sched, time
def send(password, retries):
    return retries
zprocs = [multiprocessing.Process(target=send, args=(next(lines), 3))]
s = sched.scheduler(time.monotonic)
zevents = [s.enter(600, 1, send, argument=(next(lines), 3))]
del lines
` + mainAtBreak)
	r.ok("debugpy_variables", `{"scope":"globals"}`)
	r.evaluateEach("zprocs", "zprocs[0]._args", "zevents", "zevents[0]", "zevents[0].argument")
	seen := r.seen.String()
	if !strings.Contains(seen, "argument=('[redacted]', 3)") {
		t.Errorf("the control, the event's repr: %s", seen)
	}
	noneSeen(t, seen, "procaa", "schedb")
}

// A class's partialmethod holds the arguments its method will be called
// with, after self: read through the class, it is a function that keeps
// it as its _partialmethod, whose repr showed them in clear, in the
// function's special variables (its __dict__) and in an evaluate (found
// 2026-12-07). They are read as a partial's are, under the method's
// parameters' names, self skipped.
func TestAttackSecretsHeldByAPartialMethod(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(r.readsSecrets("QvU7pmetha93kdW") + `import functools
class Acct:
    def login(self, user, password):
        return user
    admin_login = functools.partialmethod(login, "admin", next(lines))
del lines
` + mainAtBreak)
	ref, list := r.rowRef, r.listRef
	acct := list(ref(list(ref(r.ok("debugpy_variables", `{"scope":"globals"}`), "class variables"), ""), "Acct"), "")
	list(ref(list(ref(list(ref(acct, "function variables"), ""), "admin_login"), ""), "special variables"), `,"max_items":200`)
	if shown := r.ok("debugpy_evaluate", `{"expression":"Acct.admin_login._partialmethod"}`); !strings.Contains(shown, "functools.partialmethod(") || !strings.Contains(shown, "'admin'") {
		t.Errorf("the control, the partialmethod's repr: %s", shown)
	}
	r.ok("debugpy_evaluate", `{"expression":"Acct.admin_login._partialmethod.args"}`)
	noneSeen(t, r.seen.String(), "pmetha")
}

// A call deferred by a closure holds its arguments in a cell named args,
// beside the function it will call (a hand-written defer(fn, *args);
// ExitStack.callback's wrapper too, TestHeldByAgreesWithCPython). The
// cell's tuple showed the password in clear (found 2026-12-07). The
// arguments are read under that function's parameters' names.
func TestAttackSecretsHeldByADeferredCall(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(r.readsSecrets("QvU7defera93kdW") + `def send(host, password):
    return host
def defer(fn, *args):
    def run():
        return fn(*args)
    return run
zcleanups = [defer(send, "db", next(lines))]
del lines
` + mainAtBreak)
	ref, list := r.rowRef, r.listRef
	special := func(fn string) string { return list(ref(fn, "special variables"), `,"max_items":200`) }
	globals := r.ok("debugpy_variables", `{"scope":"globals"}`)
	closure := list(ref(special(list(ref(list(ref(list(ref(globals, "zcleanups"), ""), "function variables"), ""), "0"), "")), "__closure__"), "")
	cells := list(ref(closure, "0"), "") + list(ref(closure, "1"), "")
	if !strings.Contains(cells, "cell_contents: tuple = ('db', ") {
		t.Errorf("the control, the cell of the arguments: %s", cells)
	}
	noneSeen(t, r.seen.String(), "defera")
}

// An object whose repr shows what it holds in a slot (__slots__, no
// instance dict: <Client ...>, its _token) showed it in clear, in a list
// and alone, past the listing's budget, and an object of its subclass
// with a dict of its own (found 2026-12-07): an object a result shows
// whole was read by its instance dict alone. Its slots are read too.
func TestAttackSecretsInObjectsSlots(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(r.readsSecrets("QvU7slotsa93kdW", "Zr2xslotsb51xmP", "Mk3pslotsc77qrT", "Hy6wslotsd12abV") + `class Client:
    __slots__ = ("_token", "user")
    def __init__(self, token):
        self._token = token
        self.user = "ada"
    def __repr__(self):
        return "<Client %s>" % self._token
class Sub(Client):
    __slots__ = ("__dict__",)
a_clients = [Client(next(lines))]  # opened by the listing
` + pastTheListing + `zclients = [Client(next(lines))]
zone = Client(next(lines))
zsub = Sub(next(lines))
zsub.extra = 1
del lines, i, o
` + mainAtBreak)
	globals := r.ok("debugpy_variables", `{"scope":"globals","max_items":400}`)
	r.evaluateEach("a_clients", "zclients", "zone", "[zone]", "zsub")
	if !strings.Contains(globals, "a_clients: list = [<Client ") || !strings.Contains(globals, "zone: Client = <Client ") {
		t.Errorf("the control, the objects' reprs: %s", globals)
	}
	noneSeen(t, r.seen.String(), "slotsa", "slotsb", "slotsc", "slotsd")
}

// An exception of a class named otherwise than Python's convention names
// them, kept in a list, showed the token it was raised with: in its repr
// as BaseException writes it (Unauthorized('...')) and in one its class
// writes (<Denied ...>), in the listing and in an evaluate (found
// 2026-12-07). An exception is known by its repr too, which begins with
// its class's name. (A program of its own: with an AuthError read, its
// like, the same spelling, is masked.)
func TestAttackSecretsHeldByExceptionsNamedOtherwise(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(r.readsSecrets("QvU7unauth93kdW", "Zr2xdenied51xmP") + `class Unauthorized(Exception):
    pass
class Denied(Exception):
    def __repr__(self):
        return "<Denied %s>" % self.args[0]
def login(token, kind):
    if not token.startswith("ok"):
        raise kind(token)
def attempt(token, errors, kind):
    try:
        login(token, kind)
    except Exception as e:
        errors.append(e)
b_errors, c_errors = [], []
attempt(next(lines), b_errors, Unauthorized)
attempt(next(lines), c_errors, Denied)
del lines
` + mainAtBreak)
	globals := r.ok("debugpy_variables", `{"scope":"globals"}`)
	r.evaluateEach("b_errors[0]", "b_errors", "c_errors", "c_errors[0]")
	if !strings.Contains(globals, "b_errors: list = [Unauthorized(") || !strings.Contains(globals, "c_errors: list = [<Denied ") {
		t.Errorf("the control, the exceptions in the lists' reprs: %s", globals)
	}
	noneSeen(t, r.seen.String(), "QvU7", "unauth93", "Zr2x", "denied51")
}

// An object whose repr shows what it holds under a secret's name
// (<Client tok-...>, its _token) showed it in clear (found 2026-12-07): in
// a list or a dict, which debugpy shows whole (an object's repr of at most
// 30 characters), within the listing's budget and past it, in a list in a
// list (the third level debugpy shows), and alone past it (not cut short,
// so not opened), and through an alias of it. A container that shows an
// object's repr hides what the object holds (the listing opens it), and a
// result's values that hide what they hold are opened (an object: read)
// before it is shown.
func TestAttackSecretsInObjectsReprs(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(r.readsSecrets("s3cret-value-81", "s3cret-value-82", "s3cret-value-83", "s3cret-value-84", "s3cret-value-85", "s3cret-value-87") + clientClass + `class Conn:
    def __init__(self, password):
        self.password = password
    def __repr__(self):
        return "Conn(" + self.password + ")"
a_list = [Client(next(lines))]  # opened by the listing
a_dict = {"c": Client(next(lines))}
` + pastTheListing + `zclient = Client(next(lines))
zconn = Conn(next(lines))
zlist = [Client(next(lines))]
znested = [[Client(next(lines))]]
del i, o, lines
` + mainAtBreak)
	globals := r.ok("debugpy_variables", `{"scope":"globals","max_items":400}`)
	r.evaluateEach("a_list", "a_dict", "zclient", "zconn", "zlist", "znested")
	if !strings.Contains(globals, "a_list: list = [<Client ") {
		t.Errorf("the control, the object's repr in the list's: %s", globals)
	}
	noneSeen(t, r.seen.String(), "value-81", "value-82", "value-83", "value-84", "value-85", "value-87")

	// Within the listing's budget, an alias of what the object holds: read
	// first, alone, it is masked only if the listing learned it.
	r = startRaw(t, rawOpts{})
	r.stopAtBreak(r.readsSecrets("s3cret-value-86") + clientClass + `clients = [Client(next(lines))]
alias = clients[0]._token
` + mainAtBreak)
	r.ok("debugpy_evaluate", `{"expression":"alias"}`)
	noneSeen(t, r.seen.String(), "value-86")
}

// readsSecrets writes secrets to token.txt in r's directory, a line each,
// and returns the Python that begins a program reading them: lines, an
// iterator of them (next(lines) is the next). Values the program reads at
// run time, which no literal of its source shows to the listing or to
// debugpy_source.
func (r *raw) readsSecrets(secrets ...string) string {
	r.t.Helper()
	if err := os.WriteFile(filepath.Join(r.dir, "token.txt"), []byte(strings.Join(secrets, "\n")+"\n"), 0o600); err != nil {
		r.t.Fatal(err)
	}
	return `import os
with open(os.path.join(os.path.dirname(__file__), "token.txt")) as f:
    lines = iter(f.read().split())
del f
`
}

// clientClass is a class whose repr shows the token it holds in _token.
const clientClass = `class Client:
    def __init__(self, token):
        self._token = token
    def __repr__(self):
        return "<Client %s>" % self._token
`

// mainAtBreak ends an attack program: its main stops at the line marked
// BREAK, the values the module defined above it in its globals.
const mainAtBreak = "def main():\n    n = 1  # BREAK\n    return n\nmain()\n"

// pastTheListing begins a program whose names hold more values that hide
// what they hold than the stop's listing opens (its budget, 64): 80
// objects of their own classes and 70 lists shown cut short. The values a
// test defines after it are not opened by the listing.
const pastTheListing = `import os
objs = [type("C%d" % i, (), {})() for i in range(80)]
for i, o in enumerate(objs):
    globals()["o%02d" % i] = o
for i in range(70):
    globals()["l%02d" % i] = ["x"] * 20
`

// rsaKeyFile writes a new RSA private key of 1024 bits to file, in form
// (PEM or DER), and returns its bytes.
func rsaKeyFile(t *testing.T, file, form string) []byte {
	t.Helper()
	key, err := exec.Command("openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024", "-outform", form).Output()
	if err != nil {
		t.Fatalf("openssl: %v", err)
	}
	if err := os.WriteFile(file, key, 0o600); err != nil {
		t.Fatal(err)
	}
	return key
}

// jwtProgram makes h, p and s, a JWT's parts (testJWT's), in the debuggee.
const jwtProgram = `import base64, json, hmac, hashlib
def b64(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()
h = b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
p = b64(json.dumps({"sub": "1234567890", "name": "Ada", "admin": True}).encode())
s = b64(hmac.new(b"k3y-material-xyz", (h + "." + p).encode(), hashlib.sha256).digest())
`

// testJWT is the JWT jwtProgram makes, its header, payload and signature.
func testJWT() (h, p, sig string) {
	b64 := base64.RawURLEncoding.EncodeToString
	h, p = b64([]byte(`{"alg": "HS256", "typ": "JWT"}`)), b64([]byte(`{"sub": "1234567890", "name": "Ada", "admin": true}`))
	mac := hmac.New(sha256.New, []byte("k3y-material-xyz"))
	mac.Write([]byte(h + "." + p))
	return h, p, b64(mac.Sum(nil))
}

// A frame that parses a key splits it into lines: the key, seen whole in
// its caller, was masked, but each line held alone (second, third) showed
// in clear (found 2026-12-07). A private key's block learned is learned
// with its lines.
func TestAttackKeyLinesSplitInAFrame(t *testing.T) {
	r := startRaw(t, rawOpts{})
	key := rsaKeyFile(t, filepath.Join(r.dir, "k.pem"), "PEM")
	r.stopAtBreak(`import os
def parse(text):
    lines = text.splitlines()
    first, second, third = lines[1], lines[2], lines[3]
    del lines
    n = 1  # BREAK
    return n
with open(os.path.join(os.path.dirname(__file__), "k.pem")) as f:
    private_key_pem = f.read()
parse(private_key_pem)
`)
	for _, e := range []string{"second", "third", "(first, second)"} {
		r.call("debugpy_evaluate", `{"expression":`+q(e)+`}`) // masked or refused: what came back is checked below
	}
	r.call("debugpy_variables", `{}`)
	lines := strings.Split(string(key), "\n")
	noneSeen(t, r.seen.String(), lines[2][:24], lines[3][:24])
}

// XML's elements named for a secret, as programs hold them: a SOAP
// request's WS-Security password (a namespace's prefix, a Type
// attribute), a Maven settings.xml's password on a line of its own, CDATA,
// and a property list's <key>Password</key><string>; texts cut short
// inside a secret, as a program's log of payload[:n] holds them: an XML
// element's, a URL's userinfo and an INSERT's string; and a page's value
// after its label (<dt>API key</dt><dd>...) and a meta element's content;
// a pretty printer's element cut short, its value on the line below; and
// Markdown's table of names and values and its **Password:** label. Each
// showed its secret in clear (found 2026-12-08).
func TestAttackSecretsInElements(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(r.readsSecrets("QvU7soapA93kdW", "Zr2xmvnB51xmPq", "Yq7wcdatC62ynQ", "Wb5mplstD83pLx", "Kp3zcutxE71wQq", "Jn8yurlxF42vRt", "Hm4tsqlxG55sZu", "Gc6vpageH28kYw", "Fd9umetaJ37nXv", "Bx7tprtyK19mWs", "Ay2rmdtbL46pQn", "Cz5smdbdM82rTv") + `import plistlib
soap = ('<soap:Envelope><soap:Header><wsse:Security><wsse:UsernameToken><wsse:Username>ada</wsse:Username>'
        '<wsse:Password Type="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordText">'
        + next(lines) + '</wsse:Password></wsse:UsernameToken></wsse:Security></soap:Header></soap:Envelope>')
settings = '<settings>\n  <servers>\n    <server>\n      <id>repo</id>\n      <password>\n        ' + next(lines) + '\n      </password>\n    </server>\n  </servers>\n</settings>'
cdata = '<config><password><![CDATA[' + next(lines) + ']]></password></config>'
plist = plistlib.dumps({"User": "ada", "Password": next(lines)}).decode()
head = '<login><user>ada</user><password>'
sent = (head + next(lines) + '</password></login>')[:len(head) + 10]
head = 'https://ada:'
url = (head + next(lines) + '@db.example.org/app')[:len(head) + 10]
head = "INSERT INTO users (name, password) VALUES ('ada', '"
statement = (head + next(lines) + "')")[:len(head) + 10]
logged = ['sent ' + sent + '... (truncated)', url, statement]
page = '<dl>\n  <dt>API key</dt>\n  <dd><code>' + next(lines) + '</code></dd>\n  <dt>Plan</dt>\n  <dd>pro</dd>\n</dl>'
meta = '<meta name="csrf-token" content="' + next(lines) + '">'
head = '<settings>\n  <server>\n    <password>\n      '
pretty = (head + next(lines) + '\n    </password>')[:len(head) + 10]
report = "| Setting | Value |\n|---|---|\n| API key | " + next(lines) + " |\n| region | eu-west-1 |\n"
note = "**Password:** " + next(lines)
del lines, head
` + mainAtBreak)
	globals := r.ok("debugpy_variables", `{"scope":"globals"}`)
	r.evaluateEach("soap", "settings", "cdata", "plist", "sent", "url", "statement", "logged", "page", "meta", "pretty", "report", "note")
	if !strings.Contains(globals, "<wsse:Username>ada</wsse:Username>") && !strings.Contains(globals, "<wsse:Username>[redacted]</wsse:Username>") {
		t.Errorf("the control, the SOAP request shown: %s", globals)
	}
	if !strings.Contains(globals, "<id>repo</id>") {
		t.Errorf("the control, an element of no secret: %s", globals)
	}
	noneSeen(t, r.seen.String(), "soapA9", "mvnB51", "cdatC6", "plstD8", "cutxE7", "urlxF4", "sqlxG5", "pageH2", "metaJ3", "prtyK1", "mdtbL4", "mdbdM8")
}

// A row named for a secret whose value is None (an OAuth client's
// refresh_token before a refresh) is masked, and nothing else: the text
// of the result changed every None of it, NoneType too, into the mask
// (found 2026-12-08: the tool's text had each changed value replaced
// wherever it stood). Where the text shows None elsewhere too, the
// result is shown as JSON, each value as it is.
func TestSecretRowOfNoneMasksNoOtherNone(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(r.readsSecrets("Kp3zoautE71wQq") + `class Client:
    def __init__(self):
        self.refresh_token = None
        self.access_token = next(lines)
        self.expires_in = 3600
class Other:
    def __init__(self):
        self.refresh_token = None
        self.expires_at = None
client, other = Client(), Other()
del lines
` + mainAtBreak)
	globals := r.ok("debugpy_variables", `{"scope":"globals"}`)
	text := r.listRef(r.rowRef(globals, "client"), "")
	for _, want := range []string{"refresh_token: NoneType = [redacted]", "expires_in: int = 3600", "access_token: str = [redacted]"} {
		if !strings.Contains(text, want) {
			t.Errorf("%q not in the listing: %s", want, text)
		}
	}
	text = r.listRef(r.rowRef(globals, "other"), "")
	if strings.Contains(text, "[redacted]Type") || !strings.Contains(text, `"name":"expires_at","value":"None"`) {
		t.Errorf("the other None masked: %s", text)
	}
	noneSeen(t, r.seen.String(), "oautE7")
}

// A cipher's object holds its key under no secret's name: cryptography's
// AESGCM in _key, its algorithms.AES (inside a Cipher) in key. Listed,
// each showed the key in clear (found 2026-12-08): bytes of a cipher key's
// length under key or _key are a key.
func TestAttackCipherKeys(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(r.readsSecrets("QvU7aesgA93kdWQvU7aesgA93kdWQv12", "Zr2xchacB51xmPZr2xchacB51xmP9876") + `from cryptography.hazmat.primitives.ciphers.aead import AESGCM, ChaCha20Poly1305
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
aead = AESGCM(next(lines).encode())
cipher = Cipher(algorithms.AES(next(lines).encode()), modes.GCM(b"0123456789ab"))
cache = {"key": b"short"}
del lines
` + mainAtBreak)
	globals := r.ok("debugpy_variables", `{"scope":"globals"}`)
	r.listRef(r.rowRef(globals, "aead"), "")
	algorithm := r.listRef(r.rowRef(globals, "cipher"), "")
	r.listRef(r.rowRef(algorithm, "algorithm"), "")
	r.evaluateEach("aead._key", "cipher.algorithm.key")
	if !strings.Contains(globals, `'key': b'short'`) {
		t.Errorf("the control, bytes of no key's length under key: %s", globals)
	}
	noneSeen(t, r.seen.String(), "aesgA9", "chacB5")
}

// The commands of line protocols carry a password under no secret's name.
// Redis's: redis-py's send_command holds ('AUTH', 'default', PASSWORD) at a
// stop in its connection's on_connect, acl_setuser hands execute_command
// ('ACL SETUSER', 'ada', 'on', b'>PASSWORD'), RESP3's handshake is
// ('HELLO', 3, 'AUTH', 'default', PASSWORD), and a program's log or
// redis-cli's transcript writes AUTH PASSWORD on a line. IRC's: a bot's
// PRIVMSG NickServ :IDENTIFY PASSWORD, as it writes it to its socket. Each
// showed its password in clear until 2026-12-08.
func TestAttackSecretsInProtocolCommands(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(r.readsSecrets("QvU7rdauA93kdW", "Zr2xrdacB51xmP", "Yq7wrdheC62ynQ", "Wb5mrdclD83pLx", "Kp3zrdmiE71wQq", "Jn8yircxF42vRt") + `acl = ('ACL SETUSER', 'ada', 'reset', 'on', b'>' + next(lines).encode(), '~cache:*', '+get')
hello = ('HELLO', 3, 'AUTH', 'default', next(lines), 'SETNAME', 'app')
transcript = '127.0.0.1:6379> AUTH ' + next(lines) + '\nOK\n127.0.0.1:6379> PING\nPONG'
migrate = ['MIGRATE', 'replica', 6379, '', 0, 5000, 'AUTH', next(lines), 'KEYS', 'a', 'b']
sent = [b'NICK adabot\r\n', b'USER adabot 0 * :Ada\r\n', ('PRIVMSG NickServ :IDENTIFY adabot ' + next(lines) + '\r\n').encode()]
def send_command(*args, **kwargs):
    n = 1  # BREAK
    return n
send_command('AUTH', 'default', next(lines))
`)
	locals := r.ok("debugpy_variables", `{}`)
	globals := r.ok("debugpy_variables", `{"scope":"globals"}`)
	r.evaluateEach("args", "acl", "hello", "transcript", "migrate", "args[0]", "sent")
	if !strings.Contains(locals, "'AUTH', 'default'") {
		t.Errorf("the control, the command's name and user shown: %s", locals)
	}
	if !strings.Contains(globals, "PONG") {
		t.Errorf("the control, the rest of the transcript shown: %s", globals)
	}
	if !strings.Contains(globals, `b'NICK adabot\r\n'`) {
		t.Errorf("the control, the bot's other lines shown: %s", globals)
	}
	// each secret's middle, and its end (a container's listing shows a long
	// item by its ends: b'PRIVMSG NickServ :ID...miE71wQq\r\n')
	noneSeen(t, r.seen.String(), "rdauA9", "rdacB5", "rdheC6", "rdclD8", "rdmiE7", "ircxF4",
		"uA93kdW", "cB51xmP", "eC62ynQ", "lD83pLx", "iE71wQq", "xF42vRt")
}

// PyNaCl's keys, as a program (and paramiko's Ed25519Key) holds them: a
// SigningKey's seed in _seed beside its _signing_key (the seed alone was
// shown in clear until 2026-12-08), a PrivateKey's _private_key, a
// SecretBox's _key.
func TestAttackNaClKeysShown(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(`import os
import nacl.public, nacl.secret, nacl.signing, nacl.utils
signer = nacl.signing.SigningKey.generate()
box_key = nacl.public.PrivateKey.generate()
box = nacl.secret.SecretBox(nacl.utils.random(32))
with open(os.path.join(os.path.dirname(__file__), "private.txt"), "w") as f:
    for k in (signer.encode(), bytes(box_key), box._key):
        print(k.hex(), file=f)
del f, k
` + mainAtBreak)
	globals := r.ok("debugpy_variables", `{"scope":"globals"}`)
	for _, name := range []string{"signer", "box_key", "box"} {
		r.listRef(r.rowRef(globals, name), "")
	}
	r.evaluateEach("signer._seed", "box._key", "signer.verify_key")
	b, err := os.ReadFile(filepath.Join(r.dir, "private.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var pieces []string // 12 bytes of each key's repr at a time, as JSON carries them
	for _, h := range strings.Fields(string(b)) {
		raw, _ := hex.DecodeString(h)
		body := pyrepr.BytesBody(string(raw), '\'')
		for i := 0; i+12 <= len(body); i += 6 {
			if p := body[i : i+12]; !strings.ContainsAny(p, `'"`) {
				j, _ := json.Marshal(p)
				pieces = append(pieces, string(j[1:len(j)-1]))
			}
		}
	}
	noneSeen(t, r.seen.String(), pieces...)
}

// PyCryptodome's keys show their private numbers in their reprs
// (RsaKey(n=..., e=..., d=..., p=..., q=..., u=...), EccKey(..., d=...))
// and their attributes (_d, _p ... and the properties d, p ...), and
// python-rsa's PrivateKey (google-auth's signer holds one) in its repr,
// PrivateKey(n, e, d, p, q), and its slots. Listed, evaluated, or read
// through a path no listing opened, each showed the private key in clear
// until 2026-12-08.
func TestAttackKeyObjectsShown(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(`import os, types
import rsa
from Cryptodome.PublicKey import RSA, ECC, DSA
signer = RSA.generate(1024)
ec = ECC.generate(curve='P-256')
dsa = DSA.generate(1024)
_, pk = rsa.newkeys(512)
app = types.SimpleNamespace(crypto=types.SimpleNamespace(vault=types.SimpleNamespace(signer=RSA.generate(1024))))
with open(os.path.join(os.path.dirname(__file__), "private.txt"), "w") as f:
    for k in (signer.d, signer.p, signer.q, signer.u, ec.d, dsa.x, pk.d, pk.p, pk.q, app.crypto.vault.signer.d, app.crypto.vault.signer.p):
        print(int(k), file=f)
del f, k
` + mainAtBreak)
	globals := r.ok("debugpy_variables", `{"scope":"globals"}`)
	r.listRef(r.rowRef(globals, "signer"), "")
	r.listRef(r.rowRef(globals, "ec"), "")
	r.listRef(r.rowRef(globals, "pk"), "")
	r.listRef(r.rowRef(r.listRef(r.rowRef(globals, "dsa"), ""), "_key"), "")
	r.evaluateEach("signer", "signer.d", "signer._p", "ec", "ec.d", "pk", "pk.d", "dsa.x", "app.crypto.vault.signer.d", "app.crypto.vault.signer._p")
	if !strings.Contains(globals, "e=65537") {
		t.Errorf("the control, the public exponent shown: %s", globals)
	}
	b, err := os.ReadFile(filepath.Join(r.dir, "private.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var pieces []string // 12 digits of each private number, at its start, middle and end
	for _, n := range strings.Fields(string(b)) {
		pieces = append(pieces, n[:12], n[len(n)/2:len(n)/2+12], n[len(n)-12:])
	}
	noneSeen(t, r.seen.String(), pieces...)
}

// A wallet's seed phrase (BIP 39) under names of no secret, as wallet
// libraries hold it: a string (mnemonic), its words (a list), a dict's
// value, a line the program prints. Each showed in clear until
// 2026-12-08: "mnemonic" and "seed" alone name other things, and the
// phrase has no other shape than its words.
func TestAttackSeedPhraseShown(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(`import os
from mnemonic import Mnemonic
mnemonic = Mnemonic("english").generate(128)
words = mnemonic.split()
wallet = {"phrase": Mnemonic("english").generate(256), "account": 0}
with open(os.path.join(os.path.dirname(__file__), "phrases.txt"), "w") as f:
    print(mnemonic, file=f)
    print(wallet["phrase"], file=f)
del f
print("wallet created; recovery phrase:\n" + mnemonic, flush=True)
` + mainAtBreak)
	globals := r.ok("debugpy_variables", `{"scope":"globals"}`)
	// its words listed a row each: each row is masked, the rows spelling
	// the phrase learned
	if items := r.listRef(r.rowRef(globals, "words"), ""); strings.Count(items, "[redacted]") < 12 {
		t.Errorf("the phrase's words listed: %s", items)
	}
	r.evaluateEach("mnemonic", "words", "wallet", "wallet['phrase']")
	r.refused("debugpy_evaluate", `{"expression":"words[3]"}`, "denied by policy", "holds a secret")
	r.outputWith("recovery phrase")
	b, err := os.ReadFile(filepath.Join(r.dir, "phrases.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var pieces []string // every three words in a row, as a phrase and as a list's
	for _, phrase := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		w := strings.Fields(phrase)
		for i := 0; i+3 <= len(w); i++ {
			pieces = append(pieces, strings.Join(w[i:i+3], " "), strings.Join(w[i:i+3], "', '"))
		}
	}
	if !strings.Contains(r.seen.String(), "'account': 0") {
		t.Errorf("the control, the wallet's other values shown")
	}
	noneSeen(t, r.seen.String(), pieces...)
}

// A pickle holds a dict's values and an object's attributes as string
// constants after their names: a cache's entry (django-redis pickles), a
// queue's message, shelve's record, shown as a bytes repr. Each secret in
// it showed in clear until 2026-12-08.
func TestAttackSecretsInPickles(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(r.readsSecrets("QvU7pklaA93kdW", "Zr2xpklbB51xmP", "Yq7wpklcC62ynQ") + `import pickle
class Account:
    def __init__(self, name, api_key):
        self.name, self.api_key = name, api_key
entry = pickle.dumps({"user": "ada", "password": next(lines), "region": "eu-west-1"})
accounts = pickle.dumps([Account("ada", next(lines)), Account("bob", next(lines))], protocol=2)
del lines
` + mainAtBreak)
	globals := r.ok("debugpy_variables", `{"scope":"globals"}`)
	r.evaluateEach("entry", "accounts")
	if !strings.Contains(globals, "eu-west-1") {
		t.Errorf("the control, the entry's other values shown: %s", globals)
	}
	noneSeen(t, r.seen.String(), "pklaA9", "pklbB5", "pklcC6", "aA93kdW", "bB51xmP", "cC62ynQ")
}

// A Kubernetes Secret holds its secrets under keys of any name in its
// data (base64) and stringData, as the kubernetes client's V1Secret, its
// manifest as YAML and as JSON. Each value showed in clear until
// 2026-12-08.
func TestAttackKubernetesSecretShown(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(r.readsSecrets("QvU7kubaA93kdW", "Zr2xkubbB51xmP", "Yq7wkubcC62ynQ") + `import base64, json, yaml
from kubernetes import client
b64 = lambda v: base64.b64encode(v.encode()).decode()
obj = client.V1Secret(api_version="v1", kind="Secret", metadata=client.V1ObjectMeta(name="db-creds"),
                         data={"url": b64("postgres://app:" + next(lines) + "@db/app")}, string_data={"tls.key": next(lines)}, type="Opaque")
manifest = client.ApiClient().sanitize_for_serialization(obj)
as_yaml = yaml.safe_dump(manifest)
as_json = json.dumps(dict(manifest, data={"conn": next(lines)}), indent=2)
del lines, b64
` + mainAtBreak)
	r.ok("debugpy_variables", `{"scope":"globals","depth":3}`)
	r.evaluateEach("obj", "obj.data", "obj._string_data", "as_yaml", "as_json")
	if !strings.Contains(r.seen.String(), "db-creds") {
		t.Errorf("the control, the secret's name shown")
	}
	seen := r.seen.String()
	noneSeen(t, seen, "kubaA9", "kubbB5", "kubcC6", "aA93kdW", "bB51xmP", "cC62ynQ")
	// and the first value's base64 (the URL's bytes from its password on)
	for _, v := range []string{"QvU7kubaA93kdW", "Zr2xkubbB51xmP"} {
		enc := base64.StdEncoding.EncodeToString([]byte("postgres://app:" + v + "@db/app"))
		noneSeen(t, seen, enc[16:32])
	}
}

// A wallet's keys have no prefix a token reading knew and no name that
// says a secret: a BIP 32 extended private key (python-mnemonic's
// to_hd_master_key: xprv...) and a Bitcoin key in wallet import format
// (5..., K..., L...), as a wallet's script holds and logs them. Each
// showed in clear until 2026-12-08.
func TestAttackWalletKeysShown(t *testing.T) {
	r := startRaw(t, rawOpts{})
	r.stopAtBreak(`import hashlib, os
from mnemonic import Mnemonic
m = Mnemonic("english")
master = Mnemonic.to_hd_master_key(m.to_seed(m.generate(128)))
A = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
def b58check(b):
    b += hashlib.sha256(hashlib.sha256(b).digest()).digest()[:4]
    n, out = int.from_bytes(b, "big"), ""
    while n:
        n, r = divmod(n, 58)
        out = A[r] + out
    return out
imported = [b58check(b"\x80" + os.urandom(32) + b"\x01"), b58check(b"\x80" + os.urandom(32))]
with open(os.path.join(os.path.dirname(__file__), "keys.txt"), "w") as f:
    print(master, *imported, file=f)
del f
print("imported", imported[0], flush=True)
` + mainAtBreak)
	r.ok("debugpy_variables", `{"scope":"globals"}`)
	r.evaluateEach("master", "imported")
	r.outputWith("imported")
	b, err := os.ReadFile(filepath.Join(r.dir, "keys.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var pieces []string
	for _, k := range strings.Fields(string(b)) {
		for i := 4; i+8 <= len(k); i += 8 {
			pieces = append(pieces, k[i:i+8])
		}
	}
	noneSeen(t, r.seen.String(), pieces...)
}
