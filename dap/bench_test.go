package dap

import (
	"context"
	"testing"
	"time"
)

// stoppedAtAfter launches prog.py and stops it at the "after" marker, where
// main's locals (user, items, counter, mode) are in scope.
func stoppedAtAfter(b *testing.B) (*Session, *Stop) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, err := Launch(ctx, "bench", LaunchConfig{Program: absTestdata(b, "prog.py"), Args: []string{"basic"}, StopOnEntry: true, JustMyCode: true}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close(context.Background(), true) })
	if _, err := s.WaitStop(ctx, 0); err != nil {
		b.Fatal(err)
	}
	if _, err := s.AddBreakpoint(ctx, Breakpoint{File: absTestdata(b, "prog.py"), Line: markerTB(b, "prog.py", "after")}); err != nil {
		b.Fatal(err)
	}
	g := s.Gen()
	_, last := s.Stops()
	if err := s.Continue(ctx, last.ThreadID); err != nil {
		b.Fatal(err)
	}
	st, err := s.WaitStop(ctx, g)
	if err != nil {
		b.Fatal(err)
	}
	return s, st
}

// BenchmarkStackTrace is one stackTrace round trip to a real debugpy.
func BenchmarkStackTrace(b *testing.B) {
	s, st := stoppedAtAfter(b)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := s.StackTrace(ctx, st.ThreadID, 0, 20); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVariables is one variables round trip (main's locals).
func BenchmarkVariables(b *testing.B) {
	s, st := stoppedAtAfter(b)
	ctx := context.Background()
	scopes, err := s.Scopes(ctx, st.FrameID)
	if err != nil {
		b.Fatal(err)
	}
	ref := scopes[0].VariablesReference
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Variables(ctx, ref, 0, 0); err != nil {
			b.Fatal(err)
		}
	}
}
