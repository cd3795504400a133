package dap

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	godap "github.com/google/go-dap"
)

// InstallHint is what to run when no Python can import debugpy.
const InstallHint = "install it with `sudo apt-get install python3-debugpy` (Debian/Ubuntu) or `python3 -m pip install debugpy`"

// FindPython returns a Python interpreter that can import debugpy: asked when
// it is not empty, else python3 or python on PATH, else /usr/bin/python3.
func FindPython(ctx context.Context, asked string) (string, error) {
	var tried []string
	try := func(p string) (string, bool) {
		path, err := exec.LookPath(p)
		if err != nil {
			tried = append(tried, p+" (not found)")
			return "", false
		}
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if err := exec.CommandContext(cctx, path, "-c", "import debugpy").Run(); err != nil {
			tried = append(tried, path+" (cannot import debugpy)")
			return "", false
		}
		return path, true
	}
	if asked != "" {
		if p, ok := try(asked); ok {
			return p, nil
		}
		return "", fmt.Errorf("python %s: %s; %s, or pass another python", asked, strings.Join(tried, ", "), InstallHint)
	}
	for _, c := range []string{"python3", "python", "/usr/bin/python3"} {
		if p, ok := try(c); ok {
			return p, nil
		}
	}
	return "", fmt.Errorf("no Python can import debugpy (tried %s): %s", strings.Join(tried, ", "), InstallHint)
}

// LaunchConfig says what debugpy_launch runs.
type LaunchConfig struct {
	Program     string            // a script path, or
	Module      string            // a module, run as python -m
	Args        []string          //
	Cwd         string            //
	Env         map[string]string // added to the adapter's environment
	Python      string            // interpreter; found with FindPython when empty
	StopOnEntry bool
	JustMyCode  bool
	// NoDelay loads the one-write fix into the debuggee (nodelay.go); off,
	// the session is as debugpy makes it, ~40 ms a reply.
	NoDelay bool
}

// AttachConfig says where debugpy_session_start connects.
type AttachConfig struct {
	Host         string
	Port         int
	PathMappings []PathMapping
	JustMyCode   bool
	// Set before the program is released (a program started with
	// --wait-for-client runs no line of its own before configurationDone):
	// breakpoints, exception filters, and a stop at its first line of user
	// code.
	Breakpoints      []Breakpoint
	ExceptionFilters []string
	StopOnEntry      bool
	// Check, when set, is asked about the connection made before a byte
	// is sent on it (its two ends); an error ends the attach.
	Check func(local, remote netip.AddrPort) error
}

// Launch starts python -m debugpy.adapter over stdio and launches the program
// under it. The session is ready when Launch returns.
func Launch(ctx context.Context, name string, cfg LaunchConfig, log *slog.Logger) (*Session, error) {
	if (cfg.Program == "") == (cfg.Module == "") {
		return nil, errors.New("give exactly one of program or module")
	}
	py, err := FindPython(ctx, cfg.Python)
	if err != nil {
		return nil, err
	}
	args := map[string]any{
		"name": name, "type": "python", "request": "launch",
		"console": "internalConsole", "redirectOutput": true,
		"stopOnEntry": cfg.StopOnEntry, "justMyCode": cfg.JustMyCode,
		"python": []string{py}, "args": nonNil(cfg.Args),
	}
	if cfg.Program != "" {
		args["program"] = cfg.Program
	} else {
		args["module"] = cfg.Module
	}
	if cfg.Cwd != "" {
		args["cwd"] = cfg.Cwd
	}
	env := map[string]string{}
	for k, v := range cfg.Env {
		env[k] = v
	}
	s := newSession(name, log)
	s.nodelay = NoDelayDisabled
	if cfg.NoDelay {
		if err := s.withNoDelay(env); err != nil {
			s.log.Warn("the one-write fix is off", "err", err)
			s.nodelay = "off: " + err.Error()
		}
	}
	if len(env) > 0 {
		args["env"] = env
	}
	s.info.Kind, s.info.Python = "launch", py
	s.info.Program = cfg.Program
	if cfg.Program != "" {
		s.ownRoot(filepath.Dir(cfg.Program))
		s.programDir(filepath.Dir(cfg.Program))
	}
	if cfg.Cwd != "" {
		s.ownRoot(cfg.Cwd)
		s.programDir(cfg.Cwd)
	}
	if cfg.Module != "" {
		s.info.Program = "-m " + cfg.Module
	}
	if err := s.startAdapter(py); err != nil {
		s.dropNoDelay()
		return nil, err
	}
	if _, err := s.handshake(ctx, "launch", args, nil, nil); err != nil {
		s.c.Close()
		s.dropNoDelay()
		return nil, err
	}
	return s, nil
}

// dropNoDelay removes the status file of a session that did not start.
func (s *Session) dropNoDelay() {
	if s.nodelayFile != "" {
		os.Remove(s.nodelayFile)
	}
}

// withNoDelay adds to the debuggee's env what loads the one-write fix: the
// shim directory first on PYTHONPATH (its sitecustomize gives the program
// its own PYTHONPATH back) and the status file.
func (s *Session) withNoDelay(env map[string]string) error {
	dir, err := shimDir()
	if err != nil {
		return fmt.Errorf("write the fix's files: %w", err)
	}
	status, err := nodelayStatus()
	if err != nil {
		return fmt.Errorf("status file: %w", err)
	}
	orig, ok := env["PYTHONPATH"]
	if !ok {
		orig = os.Getenv("PYTHONPATH")
	}
	env["DEBUGPY_GUARD_PYTHONPATH"] = orig
	env["DEBUGPY_GUARD_NODELAY_STATUS"] = status
	env["PYTHONPATH"] = dir
	if orig != "" {
		env["PYTHONPATH"] = dir + string(os.PathListSeparator) + orig
	}
	s.nodelay, s.nodelayFile = "", status
	return nil
}

// AttachPID injects debugpy into a running Python process and attaches.
//
// It runs `python -m debugpy --listen 127.0.0.1:PORT --pid PID` (through
// pyshim/debugpy_guard_attach_pid.py with noDelay, which adds the speed fix
// to the code debugpy injects), which uses gdb to start debugpy's server
// inside the process, then attaches to PORT as debugpy_session_start does.
// (The adapter's own "processId" attach hung on Debian's debugpy 1.6.6; this
// path is the one debugpy documents for the CLI.)
func AttachPID(ctx context.Context, name string, pid int, python string, noDelay bool, log *slog.Logger) (s *Session, err error) {
	if pid <= 0 {
		return nil, fmt.Errorf("pid %d: give the process id of a running Python program", pid)
	}
	if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err != nil {
		return nil, fmt.Errorf("pid %d: no such process", pid)
	}
	py, err := FindPython(ctx, python)
	if err != nil {
		return nil, err
	}
	if _, err := exec.LookPath("gdb"); err != nil {
		return nil, fmt.Errorf("attach to pid %d: debugpy injects itself with gdb, which is not installed: `sudo apt-get install gdb`", pid)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	cli := []string{"-m", "debugpy"}
	nodelay, nodelayFile := NoDelayDisabled, ""
	if noDelay {
		// debugpy's CLI, through a wrapper that adds the fix to the code it
		// injects (pyshim/debugpy_guard_attach_pid.py).
		dir, err := shimDir()
		if err == nil {
			nodelayFile, err = nodelayStatus()
		}
		if err != nil {
			nodelay = "off: " + err.Error()
		} else {
			cli, nodelay = []string{filepath.Join(dir, "debugpy_guard_attach_pid.py"), nodelayFile}, ""
		}
	}
	cli = append(cli, "--listen", "127.0.0.1:"+strconv.Itoa(port), "--pid", strconv.Itoa(pid))
	defer func() {
		if s == nil && nodelayFile != "" {
			os.Remove(nodelayFile) // not started: nobody reads it
		}
	}()
	out, err := exec.CommandContext(ctx, py, cli...).CombinedOutput()
	if err != nil && bytes.Contains(out, []byte(gdbCannotCall)) {
		return nil, fmt.Errorf("inject debugpy into pid %d: gdb attached but could not call a function in the process (it says %q: gdb 13 does on some newer CPUs, whose register state it cannot write back; a system call the process was in may have returned early); use a newer gdb, or start the program under debugpy (debugpy_launch; or python -m debugpy --listen PORT, then debugpy_session_start)", pid, gdbCannotCall)
	}
	if err != nil {
		return nil, fmt.Errorf("inject debugpy into pid %d (needs ptrace permission: same user, or root, and kernel.yama.ptrace_scope 0): %v: %s", pid, err, lastLines(out, 3))
	}
	for {
		s, err = Attach(ctx, name, AttachConfig{Host: "127.0.0.1", Port: port, JustMyCode: true}, log)
		if err == nil || !errors.Is(err, syscall.ECONNREFUSED) || ctx.Err() != nil {
			break
		}
		time.Sleep(50 * time.Millisecond) // the injected server is still starting
	}
	if err != nil {
		return nil, fmt.Errorf("attach to pid %d: %w", pid, err)
	}
	s.mu.Lock()
	s.info.Kind, s.info.PID, s.info.Python = "pid", pid, py
	s.nodelay, s.nodelayFile = nodelay, nodelayFile
	s.mu.Unlock()
	return s, nil
}

// gdbCannotCall is what gdb says when it cannot set a process's
// registers to call a function in it, as debugpy's injection does.
const gdbCannotCall = "Couldn't write extended state status"

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " / ")
}

// Attach connects to a debugpy started with python -m debugpy --listen HOST:PORT.
func Attach(ctx context.Context, name string, cfg AttachConfig, log *slog.Logger) (*Session, error) {
	addr := net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port))
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("connect to debugpy at %s: %w; start the program with `python3 -m debugpy --listen %s --wait-for-client program.py`", addr, err, addr)
	}
	if cfg.Check != nil {
		if err := cfg.Check(conn.LocalAddr().(*net.TCPAddr).AddrPort(), conn.RemoteAddr().(*net.TCPAddr).AddrPort()); err != nil {
			conn.Close()
			return nil, err
		}
	}
	s := newSession(name, log)
	s.info.Kind, s.info.Host, s.info.Port = "attach", cfg.Host, cfg.Port
	s.info.PathMappings = append([]PathMapping{}, cfg.PathMappings...)
	s.attachClient(NewClient(conn, conn, s.log, s.onEvent))
	args := map[string]any{"name": name, "type": "python", "request": "attach",
		"justMyCode": cfg.JustMyCode, "connect": map[string]any{"host": cfg.Host, "port": cfg.Port}}
	if len(cfg.PathMappings) > 0 {
		args["pathMappings"] = dirMappings(cfg.PathMappings)
	}
	since := s.Gen()
	reply, err := s.handshake(ctx, "attach", args, func(ctx context.Context) error {
		for _, bp := range cfg.Breakpoints {
			if _, err := s.AddBreakpoint(ctx, bp); err != nil {
				return fmt.Errorf("breakpoint at %s:%d: %w", bp.File, bp.Line, err)
			}
		}
		if !cfg.StopOnEntry {
			return nil
		}
		// pydevd stops on entry for a launch only: ask the main thread
		// to stop at its next line; it then steps into the program's own
		// code (below).
		threads, err := s.Threads(ctx)
		if err != nil {
			return err
		}
		for _, t := range threads {
			if t.Name == "MainThread" {
				return s.c.Do(ctx, &godap.PauseRequest{Request: req("pause"), Arguments: godap.PauseArguments{ThreadId: t.Id}}, nil)
			}
		}
		return errors.New("stop on entry: debugpy lists no MainThread")
	}, cfg.ExceptionFilters)
	if err != nil {
		s.c.Close()
		return nil, fmt.Errorf("attach to %s: %w", addr, err)
	}
	s.mu.Lock()
	s.nodelay = attachNoDelay(reply)
	s.mu.Unlock()
	if cfg.StopOnEntry {
		if err := s.stopAtEntry(ctx, since); err != nil {
			s.Close(context.Background(), false)
			return nil, fmt.Errorf("attach to %s: stop on entry: %w", addr, err)
		}
	}
	return s, nil
}

// stopAtEntry waits for the pause the attach asked for, and steps from
// where it landed (debugpy's or runpy's code, when the program had not
// started) into the program's own first line, which is then the stop,
// with reason entry.
func (s *Session) stopAtEntry(ctx context.Context, since uint64) error {
	st, err := s.WaitStop(ctx, since)
	if err != nil {
		return err
	}
	for i := 0; i < 3 && st.Reason == "pause"; i++ {
		gen := s.Gen()
		if err := s.Step(ctx, "in", st.ThreadID); err != nil {
			return err
		}
		if st, err = s.WaitStop(ctx, gen); err != nil {
			return err
		}
	}
	s.mu.Lock()
	if s.last != nil && s.last.Gen == st.Gen {
		s.last.Reason = "entry"
		if t := s.stops[st.ThreadID]; t != nil {
			t.Reason = "entry"
		}
	}
	s.mu.Unlock()
	return nil
}

func nonNil(a []string) []string {
	if a == nil {
		return []string{}
	}
	return a
}

// startAdapter runs python -m debugpy.adapter and connects to it over stdio.
func (s *Session) startAdapter(py string) error {
	cmd := exec.Command(py, "-m", "debugpy.adapter")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s -m debugpy.adapter: %w", py, err)
	}
	go logLines(s.log, "debugpy.adapter", stderr)
	s.proc = cmd
	s.attachClient(NewClient(stdout, stdin, s.log, s.onEvent))
	return nil
}

func logLines(log *slog.Logger, src string, r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 64<<10)
	for sc.Scan() {
		log.Info("stderr", "from", src, "line", sc.Text())
	}
}

// handshake runs debugpy's start order: initialize, then launch or attach
// without waiting for its answer, then configuration once "initialized"
// arrives (the exception filters, then configure, when given), and only
// then the launch or attach response. reply is how long the first request
// pydevd answers (setExceptionBreakpoints) took.
func (s *Session) handshake(ctx context.Context, command string, args map[string]any, configure func(context.Context) error, filters []string) (reply time.Duration, err error) {
	var init godap.InitializeResponse
	err = s.c.Do(ctx, &godap.InitializeRequest{Request: req("initialize"), Arguments: godap.InitializeRequestArguments{
		ClientID: "debugpy-guard", ClientName: "debugpy-guard", AdapterID: "debugpy",
		LinesStartAt1: true, ColumnsStartAt1: true, PathFormat: "path",
		SupportsVariableType: true, SupportsVariablePaging: true,
	}}, &init)
	if err != nil {
		return 0, err
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return 0, err
	}
	var start *Call
	if command == "launch" {
		start = s.c.Go(&godap.LaunchRequest{Request: req("launch"), Arguments: raw})
	} else {
		start = s.c.Go(&godap.AttachRequest{Request: req("attach"), Arguments: raw})
	}
	select {
	case <-s.initialized:
	case <-start.Done:
		if start.Err != nil {
			return 0, start.Err
		}
		// Answered before initialized: wait for it still.
		select {
		case <-s.initialized:
		case <-ctx.Done():
			return 0, fmt.Errorf("debugpy never sent initialized: %w", ctx.Err())
		}
	case <-ctx.Done():
		return 0, fmt.Errorf("debugpy never sent initialized: %w", ctx.Err())
	}
	t0 := time.Now()
	if err := s.SetExceptionBreakpoints(ctx, filters); err != nil {
		return 0, err
	}
	reply = time.Since(t0)
	if configure != nil {
		if err := configure(ctx); err != nil {
			return 0, err
		}
	}
	if err := s.c.Do(ctx, &godap.ConfigurationDoneRequest{Request: req("configurationDone")}, nil); err != nil {
		return 0, err
	}
	if err := start.Wait(ctx, nil); err != nil {
		return 0, err
	}
	s.mu.Lock()
	if s.info.State == StateStarting {
		s.info.State = StateRunning
	}
	s.mu.Unlock()
	return reply, nil
}

// dirMappings is maps with every root ending in a separator, so that
// debugpy maps whole directories. Given roots that both end in one, pydevd
// matches a path at a separator only (pydevd_file_utils'
// setup_client_server_paths); otherwise it also matches any prefix: a
// remote root /app mapped /app2/x.py, and a root that is the program's
// file named a local file of the agent's choosing (docs/SECURITY.md).
func dirMappings(maps []PathMapping) []PathMapping {
	out := make([]PathMapping, len(maps))
	for i, m := range maps {
		out[i] = PathMapping{LocalRoot: withSep(m.LocalRoot), RemoteRoot: withSep(m.RemoteRoot)}
	}
	return out
}

// withSep is root ending in a separator: / or, for a Windows debuggee, \.
func withSep(root string) string {
	if strings.HasSuffix(root, "/") || strings.HasSuffix(root, `\`) {
		return root
	}
	return root + "/"
}
