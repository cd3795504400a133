package dap

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	godap "github.com/google/go-dap"
)

// Session states, as session_status reports them.
const (
	StateStarting     = "starting"
	StateRunning      = "running"
	StateStopped      = "stopped"
	StateExited       = "exited"
	StateDisconnected = "disconnected"
)

// PathMapping maps a directory on this machine to the one the debuggee sees.
type PathMapping struct {
	LocalRoot  string `json:"localRoot"`
	RemoteRoot string `json:"remoteRoot"`
}

// Stop is where one thread stopped, and why.
type Stop struct {
	ThreadID    int    `json:"thread_id"`
	Reason      string `json:"reason"`
	Description string `json:"description,omitempty"`
	Text        string `json:"text,omitempty"` // exception text, when the reason is exception
	FrameID     int    `json:"frame_id,omitempty"`
	Function    string `json:"function,omitempty"`
	File        string `json:"file,omitempty"`
	Line        int    `json:"line,omitempty"`
	// Gen counts the stops of the session; WaitStop(since) returns a stop with
	// a larger Gen.
	Gen uint64 `json:"-"`
}

// Breakpoint is a source breakpoint as the agent asked for it and as debugpy
// bound it.
type Breakpoint struct {
	ID           int    `json:"id"`
	File         string `json:"file"`
	Line         int    `json:"line"`       // the line asked for
	BoundLine    int    `json:"bound_line"` // the line debugpy bound, 0 when unknown
	Verified     bool   `json:"verified"`
	Message      string `json:"message,omitempty"`
	Condition    string `json:"condition,omitempty"`
	HitCondition string `json:"hit_condition,omitempty"`
	LogMessage   string `json:"log_message,omitempty"`
	adapterID    int
}

// Info describes a session for session_status and sessions.
type Info struct {
	Name         string        `json:"name"`
	Kind         string        `json:"kind"` // attach, launch or pid
	State        string        `json:"state"`
	Host         string        `json:"host,omitempty"`
	Port         int           `json:"port,omitempty"`
	PID          int           `json:"pid,omitempty"`
	Program      string        `json:"program,omitempty"`
	Python       string        `json:"python,omitempty"`
	ExitCode     *int          `json:"exit_code,omitempty"`
	Error        string        `json:"error,omitempty"`
	PathMappings []PathMapping `json:"path_mappings"`
	// NoDelay says whether the debuggee runs the one-write fix: on, off with
	// why, or n/a for a debugpy started elsewhere (nodelay.go).
	NoDelay string `json:"nodelay"`
}

// Session is one debugpy debug session: its connection, the state kept from
// events, breakpoints and program output. It is safe for concurrent use.
type Session struct {
	name   string
	serial uint64 // Serial
	log    *slog.Logger
	c      *Client
	proc   *exec.Cmd // the adapter process we started, if any

	nodelay     string // the fix's state when fixed, else "" and:
	nodelayFile string // where the debuggee reports it

	snap snapshot // answers about the stopped program (cache.go)

	initialized chan struct{}
	initOnce    sync.Once
	out         *Output

	// turn is held to run the program on (a continue, a step, a pause),
	// and shared by a call that runs code at the stop (Hold).
	turn sync.RWMutex

	mu         sync.Mutex
	info       Info
	stops      map[int]*Stop // per thread, while stopped
	last       *Stop         // latest stop, complete with its top frame
	gen        uint64
	runs       uint64        // resumes: a continue or a step answered, a continued event
	changed    chan struct{} // closed and replaced on every state change
	bps        map[string][]*Breakpoint
	owned      ownedFiles // what the session may read (owns.go)
	nextBP     int
	excFilters []string
}

// serials numbers the sessions of this process (Serial).
var serials atomic.Uint64

func newSession(name string, log *slog.Logger) *Session {
	if log == nil {
		log = slog.Default()
	}
	return &Session{
		name:        name,
		serial:      serials.Add(1),
		log:         log.With("session", name),
		initialized: make(chan struct{}),
		out:         NewOutput(defaultOutputEntries, defaultOutputBytes),
		info:        Info{Name: name, State: StateStarting, PathMappings: []PathMapping{}},
		stops:       map[int]*Stop{},
		changed:     make(chan struct{}),
		bps:         map[string][]*Breakpoint{},
	}
}

// Serial is the session's number among the sessions of this process,
// from 1: a name is used again once its session ended, a number is not
// (an approval binds to the session by it, tools/gate.go).
func (s *Session) Serial() uint64 { return s.serial }

// Name is the session's name.
func (s *Session) Name() string { return s.name }

// Output is the session's program output.
func (s *Session) Output() *Output { return s.out }

// Info is a snapshot of the session.
func (s *Session) Info() Info {
	s.mu.Lock()
	in := s.info
	in.PathMappings = append([]PathMapping{}, s.info.PathMappings...)
	in.NoDelay = s.nodelay
	file := s.nodelayFile
	s.mu.Unlock()
	if in.NoDelay == "" {
		in.NoDelay = readNoDelay(file)
	}
	return in
}

// Stops lists the threads stopped now, and the latest stop.
func (s *Session) Stops() (threads []Stop, last *Stop) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, st := range s.stops {
		threads = append(threads, *st)
	}
	sort.Slice(threads, func(i, j int) bool { return threads[i].ThreadID < threads[j].ThreadID })
	if s.last != nil && s.info.State == StateStopped {
		l := *s.last
		last = &l
	}
	return threads, last
}

// Gen is the number of the latest stop; pass it to WaitStop to wait for the
// next one.
func (s *Session) Gen() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen
}

// Known is the number of the latest stop whose details are known (Stops
// has it): a stop event is counted (Gen) before its top frame is fetched,
// so to wait for a stop that may already be under way, wait for one newer
// than Known.
func (s *Session) Known() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.knownLocked()
}

func (s *Session) knownLocked() uint64 {
	if s.last == nil {
		return 0
	}
	return s.last.Gen
}

// Still returns a report of whether the program is still where it is now:
// stopped where Stops says, with no stop since, nor one that had come but
// was not yet known, and not run on. A stop is counted (Gen) when its
// event comes and known (Known, Stops) once its top frame is fetched; one
// whose thread ran on before that no longer counts. A call that reads the
// program's values at a stop takes it before it is judged and asks it
// before and after it runs: a stop in between may be where it would run
// (tools/gate.go).
func (s *Session) Still() func() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	gen, known, runs := s.gen, s.knownLocked(), s.runs
	settled := true
	for _, st := range s.stops {
		settled = settled && st.Gen <= known
	}
	return func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return settled && s.gen == gen && s.knownLocked() == known && s.runs == runs
	}
}

// Hold keeps the program where it is until release is called: a
// continue, a step or a pause of another call waits until then. A call
// that runs code at the stop holds it from its last Still check to its
// answer, so that no call of the agent's runs the program on in between
// and the code runs at the stop it was judged (and approved) at
// (tools/gate.go). Calls that hold it run side by side.
func (s *Session) Hold() (release func()) {
	s.turn.RLock()
	return s.turn.RUnlock
}

// attach connects the client and wires its events to the session.
func (s *Session) attachClient(c *Client) {
	s.c = c
	go func() {
		<-c.Done()
		s.mu.Lock()
		if s.info.State != StateExited {
			s.info.State = StateDisconnected
			if err := c.Err(); err != nil {
				s.info.Error = err.Error()
			}
		}
		s.stops = map[int]*Stop{}
		s.broadcastLocked()
		s.mu.Unlock()
		if s.proc != nil {
			// Reap the adapter; it exits once its stdio is closed.
			done := make(chan struct{})
			go func() { s.proc.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				s.proc.Process.Kill()
				<-done
			}
		}
	}()
}

func (s *Session) broadcastLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// onEvent runs on the client's reader goroutine.
func (s *Session) onEvent(m godap.Message) {
	switch m.(type) {
	case *godap.OutputEvent, *godap.BreakpointEvent, *godap.InitializedEvent, *DebugpyEvent, *godap.LoadedSourceEvent:
	default:
		s.snap.invalidate() // the program may have changed: forget what it looked like
	}
	switch e := m.(type) {
	case *godap.InitializedEvent:
		s.initOnce.Do(func() { close(s.initialized) })
	case *godap.LoadedSourceEvent:
		if e.Body.Source.Path != "" {
			go s.noteFile(e.Body.Source.Path) // resolving it touches the disk: not on the reader
		}
	case *godap.StoppedEvent:
		s.mu.Lock()
		s.gen++
		st := &Stop{ThreadID: e.Body.ThreadId, Reason: e.Body.Reason, Description: e.Body.Description, Text: e.Body.Text, Gen: s.gen}
		s.stops[st.ThreadID] = st
		s.mu.Unlock()
		// The top frame needs a request, which must not run on the reader.
		go s.completeStop(st)
	case *godap.ContinuedEvent:
		s.mu.Lock()
		if e.Body.AllThreadsContinued {
			s.stops = map[int]*Stop{}
		} else {
			delete(s.stops, e.Body.ThreadId)
		}
		if len(s.stops) == 0 && s.info.State == StateStopped {
			s.info.State = StateRunning
		}
		s.runs++
		s.broadcastLocked()
		s.mu.Unlock()
	case *godap.ThreadEvent:
		if e.Body.Reason == "exited" {
			s.mu.Lock()
			delete(s.stops, e.Body.ThreadId)
			s.mu.Unlock()
		}
	case *godap.OutputEvent:
		if e.Body.Category == "telemetry" {
			return
		}
		cat := e.Body.Category
		if cat == "" {
			cat = "console"
		}
		s.out.Add(cat, e.Body.Output)
	case *godap.BreakpointEvent:
		s.mu.Lock()
		for _, list := range s.bps {
			for _, bp := range list {
				if bp.adapterID != 0 && bp.adapterID == e.Body.Breakpoint.Id {
					bp.Verified = e.Body.Breakpoint.Verified
					if e.Body.Breakpoint.Line != 0 {
						bp.BoundLine = e.Body.Breakpoint.Line
					}
					bp.Message = e.Body.Breakpoint.Message
				}
			}
		}
		s.mu.Unlock()
	case *godap.ProcessEvent:
		s.mu.Lock()
		if e.Body.SystemProcessId != 0 {
			s.info.PID = e.Body.SystemProcessId
		}
		s.mu.Unlock()
	case *godap.ExitedEvent:
		// The state turns to exited on terminated, which debugpy sends after
		// the program's last output: a caller told "exited" can read it all.
		s.mu.Lock()
		code := e.Body.ExitCode
		s.info.ExitCode = &code
		s.stops = map[int]*Stop{}
		s.mu.Unlock()
	case *godap.TerminatedEvent:
		s.mu.Lock()
		if s.info.State != StateExited {
			s.info.State = StateExited
		}
		s.stops = map[int]*Stop{}
		s.broadcastLocked()
		s.mu.Unlock()
	}
}

// PrefetchFrames is how many frames of a stopped thread the session asks
// for when the stop arrives.
const PrefetchFrames = 20

// completeStop fills in the top frame of a stop (and the exception text), then
// publishes it to waiters.
func (s *Session) completeStop(st *Stop) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// The frames an agent asks for first (debugpy_stack_trace's default of
	// 20), not just the top one: the snapshot keeps them for that call.
	frames, _, err := s.StackTrace(ctx, st.ThreadID, 0, PrefetchFrames)
	var top Stop
	if err == nil && len(frames) > 0 {
		f := frames[0]
		top.FrameID, top.Function, top.Line = f.Id, f.Name, f.Line
		if f.Source != nil {
			top.File = f.Source.Path
		}
	}
	if st.Reason == "exception" && st.Text == "" {
		var ex godap.ExceptionInfoResponse
		if s.c.Do(ctx, &godap.ExceptionInfoRequest{Request: req("exceptionInfo"),
			Arguments: godap.ExceptionInfoArguments{ThreadId: st.ThreadID}}, &ex) == nil {
			top.Text = ex.Body.ExceptionId
			if top.Description == "" {
				top.Description = ex.Body.Description
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, ok := s.stops[st.ThreadID]
	if !ok || cur.Gen != st.Gen {
		return // the thread ran on before we finished
	}
	cur.FrameID, cur.Function, cur.File, cur.Line = top.FrameID, top.Function, top.File, top.Line
	if top.Text != "" {
		cur.Text = top.Text
	}
	if cur.Reason == "exception" && cur.Description != "" && !strings.Contains(cur.Text, cur.Description) {
		// debugpy puts the type in text and the message in description.
		cur.Text = strings.TrimSpace(cur.Text + ": " + cur.Description)
	}
	if s.last == nil || cur.Gen > s.last.Gen {
		c := *cur
		s.last = &c
	}
	if s.info.State != StateExited && s.info.State != StateDisconnected {
		s.info.State = StateStopped
	}
	s.broadcastLocked()
}

// ErrExited is returned by WaitStop when the program ended instead.
var ErrExited = errors.New("the program has exited")

// WaitStop waits until a stop newer than since is known (and returns it), the
// program exits (ErrExited), the connection ends, or ctx ends (ctx's error).
func (s *Session) WaitStop(ctx context.Context, since uint64) (*Stop, error) {
	for {
		s.mu.Lock()
		if s.last != nil && s.last.Gen > since && s.info.State == StateStopped {
			st := *s.last
			s.mu.Unlock()
			return &st, nil
		}
		switch s.info.State {
		case StateExited:
			s.mu.Unlock()
			return nil, ErrExited
		case StateDisconnected:
			err := s.c.Err()
			s.mu.Unlock()
			return nil, err
		}
		ch := s.changed
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func req(command string) godap.Request {
	return godap.Request{Command: command}
}

// usable fails when the session can no longer take requests.
func (s *Session) usable() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch s.info.State {
	case StateDisconnected:
		return fmt.Errorf("session %q is disconnected (%s): start a new one with debugpy_session_start or debugpy_launch", s.name, s.info.Error)
	case StateExited:
		code := "unknown"
		if s.info.ExitCode != nil {
			code = fmt.Sprint(*s.info.ExitCode)
		}
		return fmt.Errorf("session %q: the program has exited (code %s): call debugpy_session_stop, then debugpy_launch to run it again", s.name, code)
	}
	return nil
}

func (s *Session) do(ctx context.Context, r godap.RequestMessage, resp any) error {
	if err := s.usable(); err != nil {
		return err
	}
	return s.c.Do(ctx, r, resp)
}

// Threads lists the debuggee's threads.
func (s *Session) Threads(ctx context.Context) ([]godap.Thread, error) {
	var resp godap.ThreadsResponse
	if err := s.read(ctx, &godap.ThreadsRequest{Request: req("threads")}, &resp); err != nil {
		return nil, err
	}
	return resp.Body.Threads, nil
}

// StackTrace returns up to levels frames of a stopped thread (0 = all), and the
// total number of frames.
func (s *Session) StackTrace(ctx context.Context, threadID, start, levels int) ([]godap.StackFrame, int, error) {
	var resp godap.StackTraceResponse
	err := s.read(ctx, &godap.StackTraceRequest{Request: req("stackTrace"),
		Arguments: godap.StackTraceArguments{ThreadId: threadID, StartFrame: start, Levels: levels}}, &resp)
	if err != nil {
		return nil, 0, err
	}
	s.noteFrames(resp.Body.StackFrames)
	return resp.Body.StackFrames, resp.Body.TotalFrames, nil
}

// Scopes lists the scopes of a frame.
func (s *Session) Scopes(ctx context.Context, frameID int) ([]godap.Scope, error) {
	var resp godap.ScopesResponse
	if err := s.read(ctx, &godap.ScopesRequest{Request: req("scopes"),
		Arguments: godap.ScopesArguments{FrameId: frameID}}, &resp); err != nil {
		return nil, err
	}
	return resp.Body.Scopes, nil
}

// Variables lists the children of a variables reference, count of them from
// start (count 0 = all).
func (s *Session) Variables(ctx context.Context, ref, start, count int) ([]godap.Variable, error) {
	var resp godap.VariablesResponse
	if err := s.read(ctx, &godap.VariablesRequest{Request: req("variables"),
		Arguments: godap.VariablesArguments{VariablesReference: ref, Start: start, Count: count}}, &resp); err != nil {
		return nil, err
	}
	return resp.Body.Variables, nil
}

// Evaluate evaluates expression in a frame.
func (s *Session) Evaluate(ctx context.Context, expression string, frameID int, evalContext string) (godap.EvaluateResponseBody, error) {
	var resp godap.EvaluateResponse
	err := s.change(ctx, &godap.EvaluateRequest{Request: req("evaluate"),
		Arguments: godap.EvaluateArguments{Expression: expression, FrameId: frameID, Context: evalContext}}, &resp)
	return resp.Body, err
}

// Peek evaluates expression in a frame, for the host's own reading of an
// expression that changes nothing in the program (os.environ): unlike
// Evaluate, it keeps the snapshot of the stop (an evaluate empties it, and
// every read after it would ask debugpy again).
func (s *Session) Peek(ctx context.Context, expression string, frameID int, evalContext string) (godap.EvaluateResponseBody, error) {
	var resp godap.EvaluateResponse
	err := s.do(ctx, &godap.EvaluateRequest{Request: req("evaluate"),
		Arguments: godap.EvaluateArguments{Expression: expression, FrameId: frameID, Context: evalContext}}, &resp)
	return resp.Body, err
}

// SetVariable assigns value (a Python expression) to name in a container.
func (s *Session) SetVariable(ctx context.Context, ref int, name, value string) (godap.SetVariableResponseBody, error) {
	var resp godap.SetVariableResponse
	err := s.change(ctx, &godap.SetVariableRequest{Request: req("setVariable"),
		Arguments: godap.SetVariableArguments{VariablesReference: ref, Name: name, Value: value}}, &resp)
	return resp.Body, err
}

// ExceptionInfo describes the exception a thread stopped on.
func (s *Session) ExceptionInfo(ctx context.Context, threadID int) (godap.ExceptionInfoResponseBody, error) {
	var resp godap.ExceptionInfoResponse
	err := s.do(ctx, &godap.ExceptionInfoRequest{Request: req("exceptionInfo"),
		Arguments: godap.ExceptionInfoArguments{ThreadId: threadID}}, &resp)
	return resp.Body, err
}

// Continue resumes a thread (debugpy resumes all of them).
func (s *Session) Continue(ctx context.Context, threadID int) error {
	s.turn.Lock()
	defer s.turn.Unlock()
	before := s.Gen()
	err := s.change(ctx, &godap.ContinueRequest{Request: req("continue"),
		Arguments: godap.ContinueArguments{ThreadId: threadID}}, nil)
	if err == nil {
		s.resumed(threadID, true, before)
	}
	return err
}

// Pause asks a thread to stop; the stop arrives later as an event.
func (s *Session) Pause(ctx context.Context, threadID int) error {
	s.turn.Lock()
	defer s.turn.Unlock()
	return s.change(ctx, &godap.PauseRequest{Request: req("pause"),
		Arguments: godap.PauseArguments{ThreadId: threadID}}, nil)
}

// Step runs one step of kind "over", "in" or "out" on a thread.
func (s *Session) Step(ctx context.Context, kind string, threadID int) error {
	var r godap.RequestMessage
	switch kind {
	case "over":
		r = &godap.NextRequest{Request: req("next"), Arguments: godap.NextArguments{ThreadId: threadID}}
	case "in":
		r = &godap.StepInRequest{Request: req("stepIn"), Arguments: godap.StepInArguments{ThreadId: threadID}}
	case "out":
		r = &godap.StepOutRequest{Request: req("stepOut"), Arguments: godap.StepOutArguments{ThreadId: threadID}}
	default:
		return fmt.Errorf("unknown step %q", kind)
	}
	s.turn.Lock()
	defer s.turn.Unlock()
	before := s.Gen()
	err := s.change(ctx, r, nil)
	if err == nil {
		s.resumed(threadID, false, before)
	}
	return err
}

// resumed marks threads running after a successful continue or step; debugpy
// does not always send continued for requests we made. Stops newer than
// before arrived while the request was answered (a breakpoint hit at once)
// and are kept.
func (s *Session) resumed(threadID int, all bool, before uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, st := range s.stops {
		if st.Gen <= before && (all || id == threadID) {
			delete(s.stops, id)
		}
	}
	if len(s.stops) == 0 && s.info.State == StateStopped {
		s.info.State = StateRunning
	}
	s.runs++
	s.broadcastLocked()
}

// SetExceptionBreakpoints replaces the exception filters (raised, uncaught,
// userUnhandled).
func (s *Session) SetExceptionBreakpoints(ctx context.Context, filters []string) error {
	if filters == nil {
		filters = []string{}
	}
	err := s.do(ctx, &godap.SetExceptionBreakpointsRequest{Request: req("setExceptionBreakpoints"),
		Arguments: godap.SetExceptionBreakpointsArguments{Filters: filters}}, nil)
	if err == nil {
		s.mu.Lock()
		s.excFilters = append([]string{}, filters...)
		s.mu.Unlock()
	}
	return err
}

// ExceptionFilters are the exception filters in force.
func (s *Session) ExceptionFilters() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string{}, s.excFilters...)
}

// AddBreakpoint adds a breakpoint to file (a local path) and returns it as
// debugpy bound it.
func (s *Session) AddBreakpoint(ctx context.Context, bp Breakpoint) (Breakpoint, error) {
	s.mu.Lock()
	s.nextBP++
	nb := bp
	nb.ID = s.nextBP
	list := append(append([]*Breakpoint{}, s.bps[bp.File]...), &nb)
	s.mu.Unlock()
	if err := s.sendBreakpoints(ctx, bp.File, list); err != nil {
		return Breakpoint{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return nb, nil
}

// RemoveBreakpoint removes the breakpoint with id, or those at file:line when
// id is 0. It returns the removed breakpoints.
func (s *Session) RemoveBreakpoint(ctx context.Context, id int, file string, line int) ([]Breakpoint, error) {
	hit := func(f string, bp *Breakpoint) bool {
		if id != 0 {
			return bp.ID == id
		}
		return f == file && (bp.Line == line || bp.BoundLine == line)
	}
	s.mu.Lock()
	var removed []Breakpoint
	var target string
	for f, list := range s.bps {
		for _, bp := range list {
			if hit(f, bp) {
				removed = append(removed, *bp)
				target = f
			}
		}
	}
	var keep []*Breakpoint
	for _, bp := range s.bps[target] {
		if !hit(target, bp) {
			keep = append(keep, bp)
		}
	}
	s.mu.Unlock()
	if len(removed) == 0 {
		return nil, nil
	}
	return removed, s.sendBreakpoints(ctx, target, keep)
}

func (s *Session) sendBreakpoints(ctx context.Context, file string, list []*Breakpoint) error {
	args := setBreakpointsArguments{Source: godap.Source{Path: file}, Breakpoints: []godap.SourceBreakpoint{}}
	for _, bp := range list {
		args.Breakpoints = append(args.Breakpoints, godap.SourceBreakpoint{Line: bp.Line,
			Condition: bp.Condition, HitCondition: bp.HitCondition, LogMessage: bp.LogMessage})
	}
	var resp godap.SetBreakpointsResponse
	if err := s.do(ctx, &setBreakpointsRequest{Request: req("setBreakpoints"), Arguments: args}, &resp); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, bp := range list {
		if i < len(resp.Body.Breakpoints) {
			got := resp.Body.Breakpoints[i]
			bp.adapterID, bp.Verified, bp.BoundLine, bp.Message = got.Id, got.Verified, got.Line, got.Message
		}
	}
	if len(list) == 0 {
		delete(s.bps, file)
	} else {
		s.bps[file] = list
	}
	return nil
}

// setBreakpointsRequest always sends "breakpoints", even empty: go-dap omits an
// empty list, and pydevd then fails the request instead of clearing the file.
type setBreakpointsRequest struct {
	godap.Request
	Arguments setBreakpointsArguments `json:"arguments"`
}

type setBreakpointsArguments struct {
	Source      godap.Source             `json:"source"`
	Breakpoints []godap.SourceBreakpoint `json:"breakpoints"`
}

// Breakpoints lists the breakpoints of the session, by id.
func (s *Session) Breakpoints() []Breakpoint {
	s.mu.Lock()
	defer s.mu.Unlock()
	var all []Breakpoint
	for _, list := range s.bps {
		for _, bp := range list {
			all = append(all, *bp)
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].ID < all[j].ID })
	return all
}

// kill ends a program we launched whose adapter did not answer the
// disconnect that terminates it: a program stuck in code it runs for us
// (an evaluate's endless loop) keeps debugpy from ending it, and the
// adapter then outlives us, and the program with it. Not a program we
// attached to: it was running before us, and runs on.
func (s *Session) kill() {
	s.mu.Lock()
	pid, kind := s.info.PID, s.info.Kind
	s.mu.Unlock()
	if kind == "launch" && pid > 0 {
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
			s.log.Warn("the program did not answer its end, and cannot be killed", "pid", pid, "err", err)
		}
	}
}

// Close disconnects from debugpy. With terminate, the debuggee is ended too;
// without it, the program runs on and another client may attach.
func (s *Session) Close(ctx context.Context, terminate bool) error {
	var err error
	if s.usable() == nil {
		err = s.c.Do(ctx, &godap.DisconnectRequest{Request: req("disconnect"),
			Arguments: &godap.DisconnectArguments{TerminateDebuggee: terminate}}, nil)
		if errors.Is(err, ErrDisconnected) {
			err = nil // the adapter may hang up before it answers
		}
		if err != nil && terminate {
			s.kill()
		}
	}
	s.c.Close()
	s.mu.Lock()
	if s.info.State != StateExited {
		s.info.State = StateDisconnected
		s.info.Error = "closed by debugpy_session_stop"
	}
	if s.nodelay == "" {
		s.nodelay = readNoDelay(s.nodelayFile) // kept: the file goes
	}
	file := s.nodelayFile
	s.mu.Unlock()
	if file != "" {
		os.Remove(file)
	}
	return err
}
