package dap

import (
	"context"
	"testing"

	"github.com/debugpy-guard/debugpy-guard/dap/daptest"
)

// The snapshot answers a repeated read without asking debugpy; an event, a
// run or an evaluate empties it; an answer that arrives after the program
// changed is not kept.
func TestSnapshot(t *testing.T) {
	noLeak(t)
	s, a := fakeSession(t)
	ctx := context.Background()
	vars := map[string]any{"variables": []any{map[string]any{"name": "x", "value": "1"}}}

	// variables answers through the fake; asked in a goroutine since the
	// fake answers on this one.
	ask := func(ref int) <-chan error {
		done := make(chan error, 1)
		go func() {
			_, err := s.Variables(ctx, ref, 0, 0)
			done <- err
		}()
		return done
	}
	// barrier: a request that is never kept; events sent before its answer
	// are handled before it returns.
	barrier := func(events ...string) {
		t.Helper()
		done := make(chan error, 1)
		go func() { _, err := s.ExceptionInfo(ctx, 1); done <- err }()
		r := a.ExpectRequest("exceptionInfo")
		for _, e := range events {
			a.Event(e, map[string]any{"threadId": 1, "allThreadsContinued": true})
		}
		a.Respond(r, map[string]any{"exceptionId": "E", "breakMode": "always"})
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}

	done := ask(7)
	a.Respond(a.ExpectRequest("variables"), vars)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := <-ask(7); err != nil { // from the snapshot: the fake sees nothing
		t.Fatal(err)
	}
	barrier() // had the second ask reached the fake, this would read "variables"

	barrier("continued")
	done = ask(7)
	a.Respond(a.ExpectRequest("variables"), vars) // asked again after the program ran
	<-done

	// An evaluate empties it (it may change any value).
	go s.Evaluate(ctx, "x.append(1)", 1, "repl")
	a.Respond(a.ExpectRequest("evaluate"), map[string]any{"result": "None"})
	done = ask(7)
	a.Respond(a.ExpectRequest("variables"), vars)
	<-done

	// An answer that arrives after the program changed is not kept.
	done = ask(8)
	r := a.ExpectRequest("variables")
	barrier("thread")
	a.Respond(r, vars)
	<-done
	done = ask(8)
	a.Respond(a.ExpectRequest("variables"), vars)
	<-done
}

// Still: asked while a stop is counted but not yet known, it never says
// still; asked once the stop is known, it says still until another stop
// comes, though one whose thread ran on before it was known leaves Gen
// ahead of Known.
func TestStill(t *testing.T) {
	noLeak(t)
	s, a := fakeSession(t)
	ctx := context.Background()
	frames := map[string]any{"stackFrames": []any{map[string]any{"id": 5, "name": "f", "line": 3}}, "totalFrames": 1}

	a.Event("stopped", map[string]any{"reason": "breakpoint", "threadId": 1})
	r := a.ExpectRequest("stackTrace") // sent once the event was handled
	pending := s.Still()
	a.Respond(r, frames)
	if _, err := s.WaitStop(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if pending() || s.Known() != 1 {
		t.Fatalf("asked while the stop was not yet known: still %v, known %d", pending(), s.Known())
	}
	still := s.Still()
	if !still() {
		t.Fatal("a known stop, and nothing since")
	}

	a.Event("stopped", map[string]any{"reason": "pause", "threadId": 2})
	r = a.ExpectRequest("stackTrace")
	if still() || s.Still()() {
		t.Fatal("thread 2's stop came: still")
	}
	a.Event("continued", map[string]any{"threadId": 2})
	a.Respond(r, frames)
	// A request answered after both: the events are handled.
	done := make(chan error, 1)
	go func() { _, err := s.ExceptionInfo(ctx, 1); done <- err }()
	a.Respond(a.ExpectRequest("exceptionInfo"), map[string]any{"exceptionId": "E", "breakMode": "always"})
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !s.Still()() || s.Gen() != 2 || s.Known() != 1 {
		t.Fatalf("after thread 2 ran on: still %v, gen %d, known %d", s.Still()(), s.Gen(), s.Known())
	}

	// Run on, with no stop since: not still.
	still = s.Still()
	go func() { done <- s.Continue(ctx, 1) }()
	a.Respond(a.ExpectRequest("continue"), map[string]any{"allThreadsContinued": true})
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if still() || s.Gen() != 2 {
		t.Fatalf("after a continue: still %v, gen %d", still(), s.Gen())
	}
}

// TestHold: a call that holds the program keeps a continue, a step and a
// pause out (they take turn whole), and calls that hold it run side by
// side.
func TestHold(t *testing.T) {
	s := newSession("t", testLog(t))
	release := s.Hold()
	other := s.Hold()
	if s.turn.TryLock() {
		t.Fatal("a continue could run while a call holds the program")
	}
	release()
	if s.turn.TryLock() {
		t.Fatal("a continue could run while another call holds the program")
	}
	other()
	if !s.turn.TryLock() {
		t.Fatal("released, a continue still waits")
	}
	s.turn.Unlock()
}

// fakeSession is a session whose adapter is the fake; its client closes
// when the test ends.
func fakeSession(t *testing.T) (*Session, *daptest.Adapter) {
	conn, a := daptest.New(t)
	s := newSession("t", testLog(t))
	s.attachClient(NewClient(conn, conn, testLog(t), s.onEvent))
	t.Cleanup(func() { s.c.Close() })
	return s, a
}
