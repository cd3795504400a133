package tools

// The session tools: attach, launch, attach by PID, stop, status, list.

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/debugpy-guard/debugpy-guard/dap"
	"github.com/debugpy-guard/debugpy-guard/internal/tcpowner"
)

// sessionView is a session as the tools report it.
type sessionView struct {
	dap.Info
	Stopped          []dap.Stop       `json:"stopped_threads"`
	Stop             *dap.Stop        `json:"stop,omitempty"`
	Breakpoints      []dap.Breakpoint `json:"breakpoints"`
	ExceptionFilters []string         `json:"exception_filters"`
	OutputNext       uint64           `json:"output_next"`
}

func view(s *dap.Session) sessionView {
	threads, last := s.Stops()
	v := sessionView{Info: s.Info(), Stopped: threads, Stop: last, Breakpoints: s.Breakpoints(),
		ExceptionFilters: s.ExceptionFilters(), OutputNext: s.Output().Next()}
	if v.Stopped == nil {
		v.Stopped = []dap.Stop{}
	}
	if v.Breakpoints == nil {
		v.Breakpoints = []dap.Breakpoint{}
	}
	return v
}

func describe(v sessionView) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "session %q (%s) is %s", v.Name, v.Kind, v.State)
	switch {
	case v.Host != "":
		fmt.Fprintf(&sb, ", attached to %s:%d", v.Host, v.Port)
	case v.Program != "":
		fmt.Fprintf(&sb, ", running %s", v.Program)
	}
	if v.PID != 0 {
		fmt.Fprintf(&sb, ", pid %d", v.PID)
	}
	if v.ExitCode != nil {
		fmt.Fprintf(&sb, ", exit code %d", *v.ExitCode)
	}
	if v.Error != "" {
		fmt.Fprintf(&sb, " (%s)", v.Error)
	}
	if v.NoDelay != "" {
		fmt.Fprintf(&sb, "\nspeed fix (nodelay): %s", v.NoDelay)
	}
	if v.Stop != nil {
		sb.WriteString("\n" + stopText(v.Stop))
	}
	fmt.Fprintf(&sb, "\n%d breakpoint(s)", len(v.Breakpoints))
	return sb.String()
}

func stopText(st *dap.Stop) string {
	s := fmt.Sprintf("stopped (%s) in thread %d at %s:%d in %s (frame %d)", st.Reason, st.ThreadID, st.File, st.Line, st.Function, st.FrameID)
	if st.Text != "" {
		s += ": " + st.Text
	}
	return s
}

// --- starting and ending sessions ---

type mappingArg struct {
	LocalRoot  string `json:"local_root" jsonschema:"directory on this machine"`
	RemoteRoot string `json:"remote_root" jsonschema:"the same directory as the debuggee sees it"`
}

type startArgs struct {
	Target
	Host         string       `json:"host,omitempty" jsonschema:"host debugpy listens on (default 127.0.0.1)"`
	Port         int          `json:"port,omitempty" jsonschema:"port debugpy listens on (default 5678)"`
	PathMappings []mappingArg `json:"path_mappings,omitempty" jsonschema:"local and remote roots, when the debuggee sees other paths"`
	JustMyCode   *bool        `json:"just_my_code,omitempty" jsonschema:"step only through user code (default true)"`
	// Set before the program is released: one started with
	// --wait-for-client runs as soon as the attach completes.
	Breakpoints      []startBreakpoint `json:"breakpoints,omitempty" jsonschema:"breakpoints set before the program is released (with --wait-for-client it runs once attached)"`
	ExceptionFilters []string          `json:"exception_filters,omitempty" jsonschema:"raised, uncaught or userUnhandled: stop on these exceptions from the start"`
	StopOnEntry      *bool             `json:"stop_on_entry,omitempty" jsonschema:"with --wait-for-client: stop at the program's first line (default false)"`

	// listener is the user id of the socket judged listening at
	// Host:Port, plus one (derive): 0, the zero value, is none judged, so
	// that args never derived accept no other user's peer.
	listener int
}

// startBreakpoint is a breakpoint set by debugpy_session_start.
type startBreakpoint struct {
	File         string `json:"file" jsonschema:"absolute source file path (on this machine)"`
	Line         int    `json:"line" jsonschema:"1-based line"`
	Condition    string `json:"condition,omitempty" jsonschema:"Python expression: stop only when true"`
	HitCondition string `json:"hit_condition,omitempty" jsonschema:"stop on the Nth hit, e.g. 3, >=3, %2"`
	LogMessage   string `json:"log_message,omitempty" jsonschema:"log this message instead of stopping; {expr} is interpolated"`
}

func sessionName(t Target) string {
	if t.Session == "" {
		return DefaultSession
	}
	return t.Session
}

func sessionStart(ctx context.Context, ts *Toolset, a startArgs) (sessionView, string, error) {
	if a.Host == "" {
		a.Host = "127.0.0.1"
	}
	if a.Port == 0 {
		a.Port = 5678
	}
	if a.Port < 0 || a.Port > 65535 {
		return sessionView{}, "", fmt.Errorf("port %d is not a TCP port (1-65535)", a.Port)
	}
	var maps []dap.PathMapping
	for _, m := range a.PathMappings {
		if m.LocalRoot == "" || m.RemoteRoot == "" {
			return sessionView{}, "", errors.New("each path mapping needs local_root and remote_root")
		}
		maps = append(maps, dap.PathMapping{LocalRoot: m.LocalRoot, RemoteRoot: m.RemoteRoot})
	}
	if err := checkFilters(a.ExceptionFilters); err != nil {
		return sessionView{}, "", err
	}
	var bps []dap.Breakpoint
	for i, b := range a.Breakpoints {
		if b.Line < 1 {
			return sessionView{}, "", fmt.Errorf("breakpoints[%d]: line is required: the 1-based line to stop at", i)
		}
		bps = append(bps, dap.Breakpoint{File: b.File, Line: b.Line, Condition: b.Condition, HitCondition: b.HitCondition, LogMessage: b.LogMessage})
	}
	name := sessionName(a.Target)
	return start(ts, name, func() (*dap.Session, error) {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		return dap.Attach(cctx, name, dap.AttachConfig{Host: a.Host, Port: a.Port, PathMappings: maps,
			JustMyCode: a.JustMyCode == nil || *a.JustMyCode, Breakpoints: bps, ExceptionFilters: a.ExceptionFilters,
			StopOnEntry: a.StopOnEntry != nil && *a.StopOnEntry, Check: peerJudged(a.listener - 1)}, ts.log)
	}, "attached")
}

// peerJudged checks the connection an attach made against the listener
// judged (derive): the socket at its far end must belong to the user whose
// listener was judged, or, when none listened then (judged is -1), to the
// server's user. A listener another user opened on the port in between
// would otherwise be attached to, unjudged. A peer not in this machine's
// socket tables is another machine's (or another network namespace's),
// whose address targets.hosts judged; but a loopback peer is always in
// them.
func peerJudged(judged int) func(local, remote netip.AddrPort) error {
	return func(local, remote netip.AddrPort) error {
		uid, ok := tcpowner.Peer(local, remote)
		switch {
		case !ok && !remote.Addr().Unmap().IsLoopback():
			return nil
		case !ok:
			return fmt.Errorf("the connection to %s is not in this machine's socket tables, so whose debugpy answered is not known: call again", remote)
		case uid == judged, judged < 0 && uid == os.Geteuid():
			return nil
		}
		want := "no one listening (so the server's own user)"
		if judged >= 0 {
			want = fmt.Sprintf("user %d", judged)
		}
		return fmt.Errorf("the debugpy that answered at %s runs as user %d, not as the call was judged (%s): another listener took the port in between; call again to have it judged", remote, uid, want)
	}
}

func start(ts *Toolset, name string, open func() (*dap.Session, error), verb string) (sessionView, string, error) {
	if err := ts.Sessions.Reserve(name); err != nil {
		return sessionView{}, "", err
	}
	s, err := open()
	if err != nil {
		ts.Sessions.Drop(name)
		return sessionView{}, "", err
	}
	ts.Sessions.Add(s)
	v := view(s)
	return v, verb + ": " + describe(v), nil
}

type launchArgs struct {
	Target
	Program     string            `json:"program,omitempty" jsonschema:"path of the Python script to run (or give module)"`
	Module      string            `json:"module,omitempty" jsonschema:"module to run as python -m (or give program)"`
	Args        []string          `json:"args,omitempty" jsonschema:"command-line arguments"`
	Cwd         string            `json:"cwd,omitempty" jsonschema:"working directory"`
	Env         map[string]string `json:"env,omitempty" jsonschema:"environment variables to add (not the debugger's own: PYDEVD_*, PYDEV_*, DEBUGPY_* are refused)"`
	Python      string            `json:"python,omitempty" jsonschema:"Python interpreter (default: the first of python3, python, /usr/bin/python3 that can import debugpy)"`
	StopOnEntry *bool             `json:"stop_on_entry,omitempty" jsonschema:"stop before the first line (default true)"`
	JustMyCode  *bool             `json:"just_my_code,omitempty" jsonschema:"step only through user code (default true)"`
}

func launch(ctx context.Context, ts *Toolset, a launchArgs) (sessionView, string, error) {
	if (a.Program == "") == (a.Module == "") {
		return sessionView{}, "", errors.New("give exactly one of program (a script path) or module")
	}
	if a.Program != "" {
		abs, err := filepath.Abs(a.Program)
		if err != nil {
			return sessionView{}, "", err
		}
		a.Program = abs
	}
	name := sessionName(a.Target)
	entry := a.StopOnEntry == nil || *a.StopOnEntry
	v, text, err := start(ts, name, func() (*dap.Session, error) {
		cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		return dap.Launch(cctx, name, dap.LaunchConfig{Program: a.Program, Module: a.Module, Args: a.Args, Cwd: a.Cwd,
			Env: a.Env, Python: a.Python, StopOnEntry: entry, JustMyCode: a.JustMyCode == nil || *a.JustMyCode, NoDelay: ts.NoDelay}, ts.log)
	}, "launched")
	if err != nil || !entry {
		return v, text, err
	}
	s, err := ts.Sessions.Get(name)
	if err != nil {
		return v, text, err
	}
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if _, err := s.WaitStop(wctx, 0); err == nil {
		v = view(s)
		text = "launched: " + describe(v) + "\nset breakpoints, then call debugpy_continue"
	}
	return v, text, nil
}

type attachPIDArgs struct {
	Target
	PID    int    `json:"pid" jsonschema:"process id of a running Python program"`
	Python string `json:"python,omitempty" jsonschema:"Python interpreter that runs debugpy's adapter"`

	// ids are the user ids of the process judged (derive), nil when it
	// could not be read; judged says derive ran.
	ids    []int
	judged bool
}

func attachPID(ctx context.Context, ts *Toolset, a attachPIDArgs) (sessionView, string, error) {
	// The process judged must be the one entered: a process of another
	// user may have taken the id since (or the arguments were never
	// judged).
	if now := processIDs(a.PID); !a.judged || !slices.Equal(now, a.ids) {
		return sessionView{}, "", fmt.Errorf("process %d is not the process judged (its user ids were %v, are %v): call again to have it judged", a.PID, a.ids, now)
	}
	name := sessionName(a.Target)
	return start(ts, name, func() (*dap.Session, error) {
		cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		return dap.AttachPID(cctx, name, a.PID, a.Python, ts.NoDelay, ts.log)
	}, "attached")
}

type stopArgs struct {
	Target
	Terminate bool `json:"terminate,omitempty" jsonschema:"also end the program (default false: it runs on)"`
}

type stopResult struct {
	Session    string `json:"session"`
	Terminated bool   `json:"terminated"`
	Warning    string `json:"warning,omitempty"`
}

func sessionStop(ctx context.Context, ts *Toolset, s *dap.Session, a stopArgs) (stopResult, string, error) {
	cctx, cancel := ts.rctx(ctx)
	defer cancel()
	exited := s.Info().State == dap.StateExited
	err := s.Close(cctx, a.Terminate)
	ts.Sessions.Remove(s)
	r := stopResult{Session: s.Name(), Terminated: a.Terminate}
	text := fmt.Sprintf("session %q ended; the program runs on", s.Name())
	switch {
	case exited:
		text = fmt.Sprintf("session %q ended (its program had already exited)", s.Name())
	case a.Terminate:
		text = fmt.Sprintf("session %q ended and its program terminated", s.Name())
	}
	if err != nil {
		r.Warning = err.Error()
		text += " (debugpy said: " + err.Error() + ")"
	}
	return r, text, nil
}

func sessionStatus(ctx context.Context, ts *Toolset, s *dap.Session, a Target) (sessionView, string, error) {
	v := view(s)
	return v, describe(v), nil
}

type sessionList struct {
	Sessions []sessionView `json:"sessions"`
}

func sessions(ctx context.Context, ts *Toolset, _ Target) (sessionList, string, error) {
	l := sessionList{Sessions: []sessionView{}}
	var lines []string
	for _, s := range ts.Sessions.All() {
		v := view(s)
		l.Sessions = append(l.Sessions, v)
		lines = append(lines, fmt.Sprintf("%s: %s %s", v.Name, v.Kind, v.State))
	}
	if len(lines) == 0 {
		return l, "no debug sessions: call debugpy_session_start or debugpy_launch", nil
	}
	return l, strings.Join(lines, "\n"), nil
}
