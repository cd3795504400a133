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
	conn, a := daptest.New(t)
	s := newSession("t", testLog(t))
	s.attachClient(NewClient(conn, conn, testLog(t), s.onEvent))
	defer s.c.Close()
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
