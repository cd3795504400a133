package dap

import (
	"bufio"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
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

func absTestdata(t testing.TB, rel string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", rel))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

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
