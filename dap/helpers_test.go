package dap

import (
	"bufio"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testLog sends session logs to the test log.
func testLog(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// progPath is the absolute path of a file under testdata.
func progPath(t *testing.T, rel string) string { return absTestdata(t, rel) }

func absTestdata(t testing.TB, rel string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", rel))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// marker is the line of "# LINE: name" in a testdata file.
func marker(t *testing.T, rel, name string) int { return markerTB(t, rel, name) }

func markerTB(t testing.TB, rel, name string) int {
	t.Helper()
	f, err := os.Open(absTestdata(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if strings.HasSuffix(sc.Text(), "# LINE: "+name) {
			return n
		}
	}
	t.Fatalf("no marker %q in %s", name, rel)
	return 0
}

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// launchProg launches testdata/prog.py in mode, stopped on entry when asked.
func launchProg(t *testing.T, mode string, stopOnEntry bool) *Session {
	t.Helper()
	s, err := Launch(ctxT(t, 30*time.Second), "t", LaunchConfig{
		Program: progPath(t, "prog.py"), Args: []string{mode},
		StopOnEntry: stopOnEntry, JustMyCode: true,
	}, testLog(t))
	if err != nil {
		t.Fatalf("launch: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.Close(ctx, true)
	})
	return s
}

func waitStop(t *testing.T, s *Session, since uint64) *Stop {
	t.Helper()
	st, err := s.WaitStop(ctxT(t, 20*time.Second), since)
	if err != nil {
		t.Fatalf("wait for stop: %v", err)
	}
	return st
}
