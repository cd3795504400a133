package dap

import (
	"context"
	"testing"
	"time"
)

// stoppedAtAfter launches prog.py and stops it at the "after" marker, where
// main's locals (user, items, counter, mode) are in scope.
func stoppedAtAfter(b *testing.B, noDelay bool) (*Session, *Stop) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s := launchedWithBreakpoint(ctx, b, "basic", "after", noDelay)
	g := s.Gen()
	_, last := s.Stops()
	if err := s.Continue(ctx, last.ThreadID); err != nil {
		b.Fatal(err)
	}
	st, err := s.WaitStop(ctx, g)
	if err != nil {
		b.Fatal(err)
	}
	if want := map[bool]string{true: NoDelayOn, false: NoDelayDisabled}[noDelay]; s.Info().NoDelay != want {
		b.Fatalf("nodelay %q, want %q", s.Info().NoDelay, want)
	}
	return s, st
}

// launchedWithBreakpoint launches prog.py in mode, stopped on entry, with a
// breakpoint at its marker line; the session is closed when b ends.
func launchedWithBreakpoint(ctx context.Context, b *testing.B, mode, marker string, noDelay bool) *Session {
	b.Helper()
	s, err := Launch(ctx, "bench", LaunchConfig{Program: absTestdata(b, "prog.py"), Args: []string{mode}, StopOnEntry: true,
		JustMyCode: true, NoDelay: noDelay}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close(context.Background(), true) })
	if _, err := s.WaitStop(ctx, 0); err != nil {
		b.Fatal(err)
	}
	if _, err := s.AddBreakpoint(ctx, Breakpoint{File: absTestdata(b, "prog.py"), Line: markerTB(b, "prog.py", marker)}); err != nil {
		b.Fatal(err)
	}
	return s
}

// fixes runs a benchmark with the one-write fix on and off.
func fixes(b *testing.B, fn func(b *testing.B, noDelay bool)) {
	b.Run("fix=on", func(b *testing.B) { fn(b, true) })
	b.Run("fix=off", func(b *testing.B) { fn(b, false) })
}

// BenchmarkStackTrace is one stackTrace round trip to a real debugpy (the
// snapshot emptied before each).
func BenchmarkStackTrace(b *testing.B) { fixes(b, benchStackTrace) }

func benchStackTrace(b *testing.B, noDelay bool) {
	s, st := stoppedAtAfter(b, noDelay)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.snap.invalidate() // a round trip each time, not the snapshot
		if _, _, err := s.StackTrace(ctx, st.ThreadID, 0, 20); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVariables is one variables round trip (main's locals).
func BenchmarkVariables(b *testing.B) { fixes(b, benchVariables) }

func benchVariables(b *testing.B, noDelay bool) {
	s, st := stoppedAtAfter(b, noDelay)
	ctx := context.Background()
	scopes, err := s.Scopes(ctx, st.FrameID)
	if err != nil {
		b.Fatal(err)
	}
	ref := scopes[0].VariablesReference
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.snap.invalidate()
		if _, err := s.Variables(ctx, ref, 0, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEvaluateHeld is one evaluate round trip as is ("bare") and as
// a call that runs at the stop makes it ("held": Still taken, the program
// held, Still asked before and after), side by side in one run: what the
// hold (tools/gate.go) adds to a call.
func BenchmarkEvaluateHeld(b *testing.B) {
	s, st := stoppedAtAfter(b, true)
	ctx := context.Background()
	evaluate := func(b *testing.B) {
		if _, err := s.Evaluate(ctx, "user", st.FrameID, "watch"); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("bare", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			evaluate(b)
		}
	})
	b.Run("held", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			still := s.Still()
			release := s.Hold()
			if !still() {
				b.Fatal("not still")
			}
			evaluate(b)
			if !still() {
				b.Fatal("not still after")
			}
			release()
		}
	})
}

// BenchmarkContinue is one continue to the next stop, right after the last
// one (prog.py's bench loop, a breakpoint hit at every turn, three other
// threads): the continue's response, which pydevd sends once a stopped
// thread has left its poll, and the stopped event.
func BenchmarkContinue(b *testing.B) {
	fixes(b, func(b *testing.B, noDelay bool) { benchResume(b, noDelay, "continue") })
}

// BenchmarkStepOver is one step over to the next stop, in the same loop.
func BenchmarkStepOver(b *testing.B) {
	fixes(b, func(b *testing.B, noDelay bool) { benchResume(b, noDelay, "over") })
}

func benchResume(b *testing.B, noDelay bool, kind string) {
	ctx := context.Background()
	s := launchedWithBreakpoint(ctx, b, "bench", "bench", noDelay)
	next := func(kind string) {
		g := s.Gen()
		_, last := s.Stops()
		var err error
		if kind == "continue" {
			err = s.Continue(ctx, last.ThreadID)
		} else {
			err = s.Step(ctx, kind, last.ThreadID)
		}
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.WaitStop(ctx, g); err != nil {
			b.Fatal(err)
		}
	}
	next("continue") // to the loop's breakpoint
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		next(kind)
	}
}
