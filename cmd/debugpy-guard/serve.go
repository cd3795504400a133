package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/debugpy-guard/debugpy-guard/engine"
	"github.com/debugpy-guard/debugpy-guard/plugins"
	"github.com/debugpy-guard/debugpy-guard/policies"
	"github.com/debugpy-guard/debugpy-guard/tools"
)

// loadEngine loads the config (the embedded default without a file) and
// every module it names. Any failure is returned before anything is served.
func loadEngine(ctx context.Context, file string, log *slog.Logger) (*engine.Engine, *plugins.Runtime, error) {
	var cfg *engine.Config
	var err error
	if file == "" {
		cfg, err = engine.ParseConfig("builtin:default.toml", policies.DefaultConfig(), tools.Names())
	} else {
		cfg, err = engine.LoadConfig(file, tools.Names())
	}
	if err != nil {
		return nil, nil, err
	}
	rt := plugins.NewRuntime(plugins.Options{Log: log})
	eng, err := engine.New(ctx, cfg, engine.Options{Runtime: rt, Builtin: policies.Builtin})
	if err != nil {
		rt.Close(ctx)
		return nil, nil, err
	}
	return eng, rt, nil
}

// serve runs the guarded MCP server on stdin and stdout. Nothing but MCP
// messages goes to stdout; logs go to stderr.
func serve(args []string, stdin io.Reader, stdout, stderr io.Writer, log *slog.Logger) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	config := fs.String("config", "", "policy config (TOML); the embedded default when absent")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	eng, rt, err := loadEngine(ctx, *config, log)
	if err != nil {
		fmt.Fprintln(stderr, "debugpy-guard serve:", err)
		return 1
	}
	defer rt.Close(context.Background())
	defer eng.Close(context.Background())

	srv := server.NewMCPServer("debugpy-guard", version, server.WithToolCapabilities(false))
	ts := tools.NewToolset(log)
	tools.Register(srv, ts, &policyGate{eng: eng, ts: ts, log: log}, eng.Config().Hide)
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		ts.Sessions.CloseAll(cctx)
	}()
	log.Info("serving on stdio", "config", eng.Config().File, "tools", len(tools.Catalogue())-len(eng.Config().Hide))
	stdio := server.NewStdioServer(srv)
	stdio.SetErrorLogger(logAdapter(log))
	if err := stdio.Listen(ctx, stdin, stdout); err != nil && ctx.Err() == nil && err != io.EOF {
		fmt.Fprintln(stderr, "debugpy-guard serve:", err)
		return 1
	}
	return 0
}

func logAdapter(l *slog.Logger) *log.Logger {
	return slog.NewLogLogger(l.Handler(), slog.LevelError)
}

// policyGate puts the engine in front of every tool: call phase, then the
// handler, then the result phase, which may withhold or rewrite the result.
// Approval and the audit log are not built yet (issue 4): a call that needs
// approval is denied, and says so.
type policyGate struct {
	eng *engine.Engine
	ts  *tools.Toolset
	log *slog.Logger
}

func (g *policyGate) Guard(ctx context.Context, call tools.Call, run func(context.Context) *mcp.CallToolResult) *mcp.CallToolResult {
	ec := engine.Call{Phase: engine.PhaseCall, Tool: call.Tool, Category: call.Category, Arguments: call.Arguments, Time: time.Now()}
	if cs := server.ClientSessionFromContext(ctx); cs != nil {
		ec.SessionID = cs.SessionID()
		if ci, ok := cs.(server.SessionWithClientInfo); ok {
			info := ci.GetClientInfo()
			ec.Client = engine.ClientInfo{Name: info.Name, Version: info.Version}
		}
	}
	if s, err := g.ts.Sessions.Get(call.Session); err == nil {
		in := s.Info()
		ec.DebugSession = &engine.DebugSession{Name: in.Name, Host: in.Host, Port: in.Port, PID: in.PID, State: in.State}
	}
	if g.eng.Hidden(call.Tool) {
		return denied(call.Tool, "hidden", []string{"the config hides " + call.Tool}, nil)
	}
	d := g.eng.Decide(ctx, ec)
	g.log.Info("decision", "phase", "call", "tool", call.Tool, "decision", d.Decision, "reasons", strings.Join(d.Reasons, "; "))
	switch d.Decision {
	case engine.Allow:
	case engine.Approve:
		return denied(call.Tool, "needs approval", d.Reasons, d.Modules)
	default:
		return denied(call.Tool, "denied", d.Reasons, d.Modules)
	}
	res := run(ctx)
	return g.checkResult(ctx, ec, res)
}

// checkResult runs the result phase on the structured result (or, for an
// error result, on its text).
func (g *policyGate) checkResult(ctx context.Context, ec engine.Call, res *mcp.CallToolResult) *mcp.CallToolResult {
	var body any = res.StructuredContent
	if res.IsError || body == nil {
		body = map[string]any{"error": tools.Text(res)}
	}
	raw, err := json.Marshal(body)
	if err != nil {
		return denied(ec.Tool, "result withheld", []string{"engine: cannot encode the result: " + err.Error()}, nil)
	}
	ec.Phase, ec.Result = engine.PhaseResult, raw
	d := g.eng.Decide(ctx, ec)
	g.log.Info("decision", "phase", "result", "tool", ec.Tool, "decision", d.Decision, "reasons", strings.Join(d.Reasons, "; "))
	if d.Decision != engine.Allow {
		return denied(ec.Tool, "result withheld", d.Reasons, d.Modules)
	}
	if d.Result == nil {
		return res
	}
	// Rewritten (redacted): the text shows the rewritten result too, since
	// the original text would repeat what was masked.
	var rewritten any
	if err := json.Unmarshal(d.Result, &rewritten); err != nil {
		return denied(ec.Tool, "result withheld", []string{"a module rewrote the result into invalid JSON"}, d.Modules)
	}
	out := &mcp.CallToolResult{IsError: res.IsError}
	text := string(d.Result)
	if m, ok := rewritten.(map[string]any); ok && res.IsError {
		text = fmt.Sprint(m["error"])
	} else {
		out.StructuredContent = rewritten
	}
	out.Content = []mcp.Content{mcp.NewTextContent("(rewritten by policy: " + strings.Join(d.Reasons, "; ") + ")\n" + text)}
	return out
}

// denied is the isError result of a call the policy stopped: the decision,
// the modules, the reasons, and what the user could change.
func denied(tool, what string, reasons, modules []string) *mcp.CallToolResult {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s by policy", tool, what)
	if len(modules) > 0 {
		fmt.Fprintf(&b, " (module %s)", strings.Join(modules, ", "))
	}
	fmt.Fprintf(&b, ": %s.", strings.Join(reasons, "; "))
	switch what {
	case "needs approval":
		b.WriteString(" Approval by a person is not available in this build yet, so the call is denied; a user can allow it in the policy config (--config).")
	default:
		b.WriteString(" A user can change this in the policy config (--config); `debugpy-guard tools` lists the tools.")
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{mcp.NewTextContent(b.String())}}
}
