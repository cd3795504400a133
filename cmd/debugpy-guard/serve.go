package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/debugpy-guard/debugpy-guard/engine"
	"github.com/debugpy-guard/debugpy-guard/engine/approval"
	"github.com/debugpy-guard/debugpy-guard/engine/audit"
	"github.com/debugpy-guard/debugpy-guard/plugins"
	"github.com/debugpy-guard/debugpy-guard/policies"
	"github.com/debugpy-guard/debugpy-guard/tools"
)

// loadConfig reads file, or the embedded default when file is "".
func loadConfig(file string) (*engine.Config, error) {
	if file == "" {
		return engine.ParseConfig("builtin:default.toml", policies.DefaultConfig(), tools.Names())
	}
	return engine.LoadConfig(file, tools.Names())
}

// loadEngine loads the config and starts loading its modules on rt.
func loadEngine(ctx context.Context, file string, rt *plugins.Runtime) (*engine.Engine, error) {
	cfg, err := loadConfig(file)
	if err != nil {
		return nil, err
	}
	return engine.New(ctx, cfg, engine.Options{Runtime: rt, Builtin: policies.Builtin})
}

// auditPath is [audit] path, relative to the config's directory, or the
// default under the user's state directory.
func auditPath(cfg *engine.Config) (string, error) {
	p := cfg.Audit.Path
	if p == "" {
		return audit.DefaultPath()
	}
	if !filepath.IsAbs(p) && cfg.File != "" && !strings.HasPrefix(cfg.File, "builtin:") {
		p = filepath.Join(filepath.Dir(cfg.File), p)
	}
	return p, nil
}

// serve runs the guarded MCP server on stdin and stdout. Nothing but MCP
// messages goes to stdout; logs go to stderr.
func serve(args []string, stdin io.Reader, stdout, stderr io.Writer, log *slog.Logger) int {
	fs := newFlags("serve")
	config := fs.String("config", "", "policy config (TOML); the embedded default when absent")
	if ok, code := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(stderr, "serve", fmt.Sprintf("unexpected argument %q", fs.Arg(0)))
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, "debugpy-guard serve:", err)
		return 1
	}
	if file := os.Getenv("DEBUGPY_GUARD_CPUPROFILE"); file != "" {
		stop, err := cpuProfile(file)
		if err != nil {
			return fail(err)
		}
		defer stop()
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)

	// One runtime for the server's life: reloads keep the compilation cache
	// and the rate-limit counters.
	rt := plugins.NewRuntime(plugins.Options{Log: log})
	defer rt.Close(context.Background())
	eng, err := loadEngine(ctx, *config, rt)
	if err != nil {
		return fail(err)
	}
	live := engine.NewLive(eng)
	defer func() {
		// A call still in flight holds its engine (Live.Acquire); its
		// context is cancelled with the server's, so it ends soon: wait a
		// little for it, not for ever.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		live.Close(ctx)
	}()
	path, err := auditPath(eng.Config())
	if err != nil {
		return fail(err)
	}
	alog, err := audit.Open(path)
	if err != nil {
		return fail(err)
	}
	defer func() {
		if err := alog.Close(); err != nil {
			log.Error("audit log", "err", err)
		}
	}()

	store := approval.NewStore()
	cli := false
	if slices.Contains(eng.Config().Approval.Channels, "cli") {
		asrv, err := approval.Listen(store, func() time.Duration { return live.Config().Approval.Wait() }, log)
		if err != nil {
			log.Warn("the cli approval channel is off", "err", err)
		} else {
			cli = true
			defer asrv.Close()
		}
	}
	ts := tools.NewToolset(log)
	ts.NoDelay = os.Getenv("DEBUGPY_GUARD_NODELAY") != "off"
	maxResult := engine.DefaultMaxResult
	if v := os.Getenv("DEBUGPY_GUARD_MAX_RESULT"); v != "" {
		n, err := engine.ParseSize(v)
		if err != nil || n < 1024 || n > 1<<30 {
			return fail(fmt.Errorf("DEBUGPY_GUARD_MAX_RESULT=%q: give a size between 1KiB and 1GiB, such as 64KiB", v))
		}
		maxResult = int(n)
	}
	if v := os.Getenv("DEBUGPY_GUARD_REQUEST_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return fail(fmt.Errorf("DEBUGPY_GUARD_REQUEST_TIMEOUT=%q is not a duration such as 15s", v))
		}
		ts.RequestTimeout = d
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		ts.Sessions.CloseAll(cctx)
	}()
	gate := tools.NewPolicyGate(ts, engine.NewGate(live, engine.GateOptions{Audit: alog, Approvals: store, Secrets: rt.Secrets(), CLI: cli, Log: log, MaxResult: maxResult}))
	srv := tools.NewServer(version, ts, gate, func(tool string) bool { return live.Config().Hides(tool) })

	// The modules compile in the background (tools/list does not wait);
	// one that fails to load stops the server, as a bad config does.
	sctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		if err := eng.Wait(sctx); err != nil {
			if sctx.Err() == nil {
				cancel(fmt.Errorf("policy module failed to load: %w", err))
			}
			return
		}
		freeCompilerMemory()
		log.Info("policy modules ready; their compilation's memory returned to the system")
	}()
	go watchFile(sctx, *config, time.Second, hup, func(why string) {
		reload(sctx, why, *config, live, srv, rt, log)
	})
	log.Info("serving on stdio", "config", eng.Config().File, "audit", alog.Path(), "cli_approval", cli)
	err = tools.ServeStdio(sctx, srv, stdin, stdout, log)
	if cause := context.Cause(sctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return fail(cause)
	}
	if err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) && !errors.Is(err, context.Canceled) {
		return fail(err)
	}
	return 0
}

// cpuProfile starts a CPU profile of the process into file and returns
// what ends it (written when serve returns: on EOF, SIGINT or SIGTERM, not
// on SIGKILL). It is how the benchmarks profile a server end to end over
// stdio (docs/PERFORMANCE.md), where `go test -cpuprofile` sees only the
// client.
func cpuProfile(file string) (func(), error) {
	f, err := os.Create(file)
	if err != nil {
		return nil, fmt.Errorf("DEBUGPY_GUARD_CPUPROFILE: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("DEBUGPY_GUARD_CPUPROFILE=%s: %w", file, err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// reload loads the config again beside the one in force and swaps it in
// when every module loads; otherwise the old one stays and the log says why.
func reload(ctx context.Context, why, file string, live *engine.Live, srv *server.MCPServer, rt *plugins.Runtime, log *slog.Logger) {
	if file == "" {
		log.Warn("reload asked, but serve runs on the embedded default config: nothing to reload (start it with --config FILE)", "why", why)
		return
	}
	before := live.Config().Hide
	if err := live.Replace(ctx, func(ctx context.Context) (*engine.Engine, error) { return loadEngine(ctx, file, rt) }); err != nil {
		log.Error("reload failed; the config in force stays", "why", why, "err", err)
		return
	}
	log.Warn("config reloaded", "why", why, "file", file)
	freeCompilerMemory()
	if !slices.Equal(before, live.Config().Hide) {
		srv.SendNotificationToAllClients("notifications/tools/list_changed", nil)
	}
}

// freeCompilerMemory gives the OS back the memory that compiling the
// modules used: wazero's compiler leaves tens of MB of garbage once the
// code is compiled, which the Go runtime would otherwise keep and return
// only slowly. A start with an empty compilation cache (the first after an
// install or an upgrade, and every start where the cache cannot be
// written) read 112-119 MB of RSS after its first calls without it,
// against the budget of 80 (docs/PERFORMANCE.md, "RSS after a cold
// start"). One collection, once the modules are compiled.
func freeCompilerMemory() { debug.FreeOSMemory() }
