package tools

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/debugpy-guard/debugpy-guard/dap"
)

// DefaultSession is the name a session gets when the call names none.
const DefaultSession = "default"

// Sessions are the named debug sessions of one server.
type Sessions struct {
	mu sync.Mutex
	m  map[string]*dap.Session
	// starting holds names reserved by a start in progress.
	starting map[string]bool
}

// NewSessions makes an empty set.
func NewSessions() *Sessions {
	return &Sessions{m: map[string]*dap.Session{}, starting: map[string]bool{}}
}

// Reserve claims name for a session being started; release with Add or Drop.
func (r *Sessions) Reserve(name string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.m[name]; ok || r.starting[name] {
		return fmt.Errorf("a debug session named %q exists: pass another session name, or call debugpy_session_stop first", name)
	}
	r.starting[name] = true
	return nil
}

// Add stores a started session under its reserved name.
func (r *Sessions) Add(s *dap.Session) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.starting, s.Name())
	r.m[s.Name()] = s
}

// Drop forgets name (a failed start, or a stopped session).
func (r *Sessions) Drop(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.starting, name)
	delete(r.m, name)
}

// Remove forgets s, if its name still names it: a call acts on the session
// it was judged for (pinKey), whose name another session may have taken
// since, and that one is not to be lost.
func (r *Sessions) Remove(s *dap.Session) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m[s.Name()] == s {
		delete(r.m, s.Name())
	}
}

// Get finds the session called name; with name empty, the only one.
func (r *Sessions) Get(name string) (*dap.Session, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if name != "" {
		if s, ok := r.m[name]; ok {
			return s, nil
		}
		if len(r.m) == 0 {
			return nil, fmt.Errorf("no debug session %q: call debugpy_session_start or debugpy_launch first", name)
		}
		return nil, fmt.Errorf("no debug session %q; open sessions: %s", name, strings.Join(r.namesLocked(), ", "))
	}
	switch len(r.m) {
	case 0:
		return nil, fmt.Errorf("no debug session: call debugpy_session_start or debugpy_launch first")
	case 1:
		for _, s := range r.m {
			return s, nil
		}
	}
	return nil, fmt.Errorf("several debug sessions are open (%s): pass session to say which", strings.Join(r.namesLocked(), ", "))
}

// pinKey carries a call's pin: the debug session it acts on, looked up
// once, when its arguments are read (def, catalogue.go). Its derive, its gate and
// its handler all use that one. Looked up again, a name can find another
// program: the session stopped and another started under its name, or the
// only one replaced, between the call's judgement and its run.
type pinKey struct{}

type pin struct {
	s   *dap.Session
	err error
}

// session is the debug session a call acts on: the one pinned in ctx when
// its arguments were read, else the one name finds now.
func (ts *Toolset) session(ctx context.Context, name string) (*dap.Session, error) {
	if p, ok := ctx.Value(pinKey{}).(pin); ok {
		return p.s, p.err
	}
	return ts.Sessions.Get(name)
}

// All lists the sessions by name.
func (r *Sessions) All() []*dap.Session {
	r.mu.Lock()
	defer r.mu.Unlock()
	var all []*dap.Session
	for _, n := range r.namesLocked() {
		all = append(all, r.m[n])
	}
	return all
}

func (r *Sessions) namesLocked() []string {
	names := make([]string, 0, len(r.m))
	for n := range r.m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// CloseAll disconnects every session, terminating the programs we launched.
func (r *Sessions) CloseAll(ctx context.Context) {
	for _, s := range r.All() {
		s.Close(ctx, s.Info().Kind == "launch")
		r.Remove(s)
	}
}
