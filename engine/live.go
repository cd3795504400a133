package engine

import (
	"context"
	"sync/atomic"
)

// Live is the engine in force, replaced whole on reload: a decision runs on
// one engine from start to end, and an engine is closed only once its
// decisions in flight are done. It is safe for concurrent use.
type Live struct {
	cur atomic.Pointer[Engine]
}

// NewLive puts e in force.
func NewLive(e *Engine) *Live {
	l := &Live{}
	l.cur.Store(e)
	return l
}

// Config is the config in force.
func (l *Live) Config() *Config { return l.cur.Load().cfg }

// Decide decides on the engine in force.
func (l *Live) Decide(ctx context.Context, call Call) Decision {
	for {
		e := l.cur.Load()
		d, ok := e.decide(ctx, call)
		if ok || l.cur.Load() == e {
			return d // decided, or closed while still in force (shutdown)
		}
		// Closed by a reload between the load and the decision: ask the new one.
	}
}

// Replace loads a new engine with load and, once every module of it has
// loaded, puts it in force and closes the old one after its decisions in
// flight. On any error the old engine stays in force and the error says why.
func (l *Live) Replace(ctx context.Context, load func(context.Context) (*Engine, error)) error {
	e, err := load(ctx)
	if err != nil {
		return err
	}
	if err := e.Wait(ctx); err != nil {
		e.Close(ctx)
		return err
	}
	old := l.cur.Swap(e)
	go old.Close(context.WithoutCancel(ctx))
	return nil
}

// Acquire returns the engine in force, kept open until release is called
// even when a reload replaces it: a call's journey (its decision, a
// person's approval, the tool's run, the decision on its result) reads one
// config and runs on one engine. The engine in force while it closes
// (shutdown) comes back unpinned; its decisions deny with ErrClosed.
func (l *Live) Acquire() (Decider, func()) {
	for {
		e := l.cur.Load()
		if release, ok := e.pin(); ok {
			return e, release
		}
		if l.cur.Load() == e {
			return e, func() {}
		}
		// Replaced while being closed: take the new one.
	}
}

// Close closes the engine in force.
func (l *Live) Close(ctx context.Context) { l.cur.Load().Close(ctx) }
