package main

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/debugpy-guard/debugpy-guard/engine/audit"
	"github.com/debugpy-guard/debugpy-guard/tools"
)

//go:embed sample/orders.py
var sampleProgram []byte

// sampleBreakLine is the line of the sample marked "# BREAK".
func sampleBreakLine() int {
	sc := bufio.NewScanner(bytes.NewReader(sampleProgram))
	for n := 1; sc.Scan(); n++ {
		if strings.HasSuffix(sc.Text(), "# BREAK") {
			return n
		}
	}
	return 0
}

// prompter answers the server's approval prompts (elicitation) as a person
// at the client would: it shows the question and gives the answer it holds.
type prompter struct {
	w      io.Writer
	mu     sync.Mutex
	answer mcp.ElicitationResponseAction
	delay  time.Duration // before answering: a person who takes their time
	asked  int
}

func (p *prompter) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked++
	time.Sleep(p.delay)
	if p.w != nil {
		first, _, _ := strings.Cut(req.Params.Message, "\n")
		fmt.Fprintf(p.w, "  ? the server asks a person: %s …\n  ! the demo answers: %s\n", first, p.answer)
	}
	res := &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: p.answer}}
	if p.answer == mcp.ElicitationResponseActionAccept {
		res.Content = map[string]any{"approve": true}
	}
	return res, nil
}

// clientSpec says how to start and connect to `debugpy-guard serve`.
type clientSpec struct {
	Bin      string
	Env      []string  // added to this process's environment
	Prompter *prompter // answers approval prompts; nil: the client declares no elicitation
	Protocol string    // the MCP version to ask for; "" for the newest
	Stderr   io.Writer // the server's stderr; nil drops it
	Args     []string  // after "serve"
}

// startClient runs `debugpy-guard serve` as a subprocess and connects to it
// over stdio, as an MCP client does. It returns the server's process too.
func startClient(ctx context.Context, spec clientSpec) (*client.Client, *exec.Cmd, error) {
	var cmd *exec.Cmd
	opts := []transport.StdioOption{transport.WithCommandFunc(func(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
		cmd = exec.Command(command, args...) // not ctx: the server outlives the start
		cmd.Env = append(os.Environ(), env...)
		return cmd, nil
	})}
	if spec.Stderr != nil {
		opts = append(opts, transport.WithCommandStderrWriter(spec.Stderr))
	}
	tr := transport.NewStdioWithOptions(spec.Bin, spec.Env, append([]string{"serve"}, spec.Args...), opts...)
	var copts []client.ClientOption
	if spec.Prompter != nil {
		copts = append(copts, client.WithElicitationHandler(spec.Prompter))
	}
	c := client.NewClient(tr, copts...)
	// Not ctx: the transport keeps the context it starts with, for the
	// requests the server sends later (elicitation).
	if err := c.Start(context.Background()); err != nil {
		return nil, nil, err
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = spec.Protocol
	if spec.Protocol == "" {
		init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	}
	init.Params.ClientInfo = mcp.Implementation{Name: "debugpy-guard-demo", Version: version}
	if _, err := c.Initialize(ctx, init); err != nil {
		c.Close()
		return nil, nil, err
	}
	return c, cmd, nil
}

// lockedBuffer is a bytes.Buffer that goroutines may share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// demo starts the real serve on the embedded default policy and walks a
// debugging session through it, printing each call and the decision the
// server recorded in its audit log.
func demo(w io.Writer, stderr io.Writer) error {
	dir, err := os.MkdirTemp("", "debugpy-guard-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	prog := filepath.Join(dir, "orders.py")
	if err := os.WriteFile(prog, sampleProgram, 0o644); err != nil {
		return err
	}
	bin, err := os.Executable()
	if err != nil {
		return err
	}
	// The server's audit log goes to the demo's directory (XDG_STATE_HOME),
	// so the demo can show each decision and verify the log at the end.
	logPath := filepath.Join(dir, "state", "debugpy-guard", "audit.jsonl")
	env := []string{"XDG_STATE_HOME=" + filepath.Join(dir, "state"), "XDG_RUNTIME_DIR=" + filepath.Join(dir, "run")}
	os.MkdirAll(filepath.Join(dir, "run"), 0o700)
	ctx := context.Background()
	p := &prompter{w: w, answer: mcp.ElicitationResponseActionAccept}
	var serveErr lockedBuffer
	c, _, err := startClient(ctx, clientSpec{Bin: bin, Env: env, Prompter: p, Stderr: &serveErr})
	if err != nil {
		return fmt.Errorf("start serve: %w\n%s", err, serveErr.String())
	}
	defer c.Close()
	list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "debugpy-guard demo: `debugpy-guard serve` with the embedded default policy, %d tools listed.\n", len(list.Tools))
	fmt.Fprintf(w, "The default policy: reads and writes allowed, Python-running calls need a person, attach to loopback only,\n120 calls a minute, secrets masked in results. Debugging %s.\n", prog)

	tail := &auditTail{path: logPath}
	var decisions []string // of the last call, from the audit log
	call := func(tool string, args map[string]any, quiet bool) (*mcp.CallToolResult, error) {
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = tool, args
		if !quiet {
			var a bytes.Buffer
			enc := json.NewEncoder(&a)
			enc.SetEscapeHTML(false)
			enc.Encode(args)
			if args == nil {
				a.Reset()
				a.WriteString("{}")
			}
			fmt.Fprintf(w, "\n→ %s %s\n", tool, strings.TrimSpace(a.String()))
		}
		cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		res, err := c.CallTool(cctx, req)
		if err != nil {
			return nil, fmt.Errorf("%s: %w\n%s", tool, err, serveErr.String())
		}
		decisions = tail.read()
		if !quiet {
			for _, d := range decisions {
				fmt.Fprintf(w, "  audit: %s\n", d)
			}
			for _, l := range strings.Split(tools.Text(res), "\n") {
				fmt.Fprintf(w, "  %s\n", l)
			}
		}
		return res, nil
	}
	must := func(tool string, args map[string]any) error {
		res, err := call(tool, args, false)
		if err == nil && res.IsError {
			err = fmt.Errorf("%s failed: %s", tool, tools.Text(res))
		}
		return err
	}
	mustDeny := func(tool string, args map[string]any) error {
		res, err := call(tool, args, false)
		if err == nil && !res.IsError {
			err = fmt.Errorf("%s should have been denied", tool)
		}
		return err
	}
	line := sampleBreakLine()
	steps := []func() error{
		func() error { return must("debugpy_launch", map[string]any{"program": prog}) },
		func() error {
			return must("debugpy_set_breakpoint", map[string]any{"file": prog, "line": line, "condition": "qty < 0"})
		},
		func() error { return must("debugpy_continue", nil) },
		func() error { return must("debugpy_stack_trace", nil) },
		func() error { return must("debugpy_variables", map[string]any{"scope": "globals"}) },
		func() error { return must("debugpy_evaluate", map[string]any{"expression": "qty * price"}) },
		func() error {
			return mustDeny("debugpy_evaluate", map[string]any{"expression": "__import__('os').system('id')"})
		},
		func() error {
			return mustDeny("debugpy_session_start", map[string]any{"host": "10.0.0.5", "session": "remote"})
		},
		func() error { return must("debugpy_set_variable", map[string]any{"name": "qty", "value": "4"}) },
		func() error { return must("debugpy_remove_breakpoint", map[string]any{"file": prog, "line": line}) },
		func() error { return must("debugpy_continue", nil) },
		func() error { return must("debugpy_output", nil) },
		func() error { return must("debugpy_session_stop", map[string]any{"terminate": true}) },
		func() error {
			fmt.Fprintf(w, "\n→ debugpy_sessions, again and again, until the rate limit (120 calls a minute) stops it\n")
			for i := 1; i <= 200; i++ {
				res, err := call("debugpy_sessions", nil, true)
				if err != nil {
					return err
				}
				if res.IsError {
					fmt.Fprintf(w, "  calls 1 to %d of the burst were allowed; call %d was stopped:\n", i-1, i)
					for _, d := range decisions {
						fmt.Fprintf(w, "  audit: %s\n", d)
					}
					fmt.Fprintf(w, "  %s\n", tools.Text(res))
					return nil
				}
			}
			return fmt.Errorf("the rate limit never applied")
		},
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return err
		}
	}
	c.Close()
	f, err := os.Open(logPath)
	if err != nil {
		return err
	}
	defer f.Close()
	sum, err := audit.Verify(f)
	if err != nil {
		return fmt.Errorf("audit verify %s: %w", logPath, err)
	}
	fmt.Fprintf(w, "\naudit log: %d hash-chained records, verified (`debugpy-guard audit verify FILE`).\n", sum.Records)
	fmt.Fprintf(w, "demo done: the qty of grape was fixed from -4 to 4 while the program ran; the person approved %d calls.\n", p.asked)
	return nil
}

// auditTail reads the decision records appended to an audit log since the
// last read, in a line each.
type auditTail struct {
	path string
	off  int64
}

func (t *auditTail) read() []string {
	f, err := os.Open(t.path)
	if err != nil {
		return nil
	}
	defer f.Close()
	f.Seek(t.off, io.SeekStart)
	data, _ := io.ReadAll(f)
	data = data[:bytes.LastIndexByte(data, '\n')+1]
	t.off += int64(len(data))
	var out []string
	for _, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var r audit.Entry
		if json.Unmarshal(l, &r) != nil || r.Kind != "decision" {
			continue
		}
		s := r.Decision
		if r.Approval != nil {
			s += fmt.Sprintf(" → %s by %s", r.Approval.State, r.Approval.Channel)
		}
		if len(r.Reasons) > 0 {
			s += " (" + strings.Join(r.Reasons, "; ") + ")"
		}
		out = append(out, s)
	}
	return out
}
