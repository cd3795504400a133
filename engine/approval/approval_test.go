package approval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestHoldAnswerUseOnce(t *testing.T) {
	s := NewStore()
	b := Bind("s1", "debugpy_evaluate", "", []byte(`{"expression":"f()"}`), "")
	r := held(s.Hold("cli", b, json.RawMessage(`{"expression":"f()"}`), []string{"calls need approval"}, time.Minute))
	if r.State != Pending || len(r.ID) != 8 {
		t.Fatalf("hold: %+v", r)
	}
	if again := held(s.Hold("cli", b, nil, nil, time.Minute)); again.ID != r.ID || again.State != Pending {
		t.Fatalf("retried before an answer: %+v, want the same pending id", again)
	}
	other := held(s.Hold("cli", Bind("s1", "debugpy_evaluate", "", []byte(`{"expression":"g()"}`), ""), nil, nil, time.Minute))
	if other.ID == r.ID {
		t.Fatal("other arguments share the approval")
	}
	if _, err := s.Answer(r.ID, true, time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Answer(r.ID, false, time.Minute); err == nil || !strings.Contains(err.Error(), "already approved") {
		t.Fatalf("second answer: %v", err)
	}
	if got := held(s.Hold("cli", b, nil, nil, time.Minute)); got.ID != r.ID || got.State != Approved {
		t.Fatalf("retried after approval: %+v", got)
	}
	if got := held(s.Hold("cli", b, nil, nil, time.Minute)); got.ID == r.ID || got.State != Pending {
		t.Fatalf("an approval ran twice: %+v", got)
	}
	if len(s.Pending()) != 2 {
		t.Fatalf("pending: %+v", s.Pending())
	}
}

func TestExpiry(t *testing.T) {
	now := time.Now()
	s := NewStore()
	s.now = func() time.Time { return now }
	b := Bind("s", "t", "", []byte(`{}`), "")
	r := held(s.Hold("cli", b, nil, nil, time.Minute))
	now = now.Add(2 * time.Minute)
	if _, err := s.Answer(r.ID, true, time.Minute); err == nil {
		t.Fatal("answered an expired request")
	}
	e := held(s.Hold("elicitation", b, nil, nil, time.Minute))
	if _, err := s.Answer(e.ID, true, time.Minute); err == nil || !strings.Contains(err.Error(), "elicitation") {
		t.Fatalf("cli answered an elicitation: %v", err)
	}
	now = now.Add(2 * time.Minute)
	if _, err := s.Take(e.ID, b); err != ErrExpired {
		t.Fatalf("late elicitation answer: %v", err)
	}
	e = held(s.Hold("elicitation", b, nil, nil, time.Minute))
	if _, err := s.Take(e.ID, Bind("s", "t", "", []byte(`{"x":1}`), "")); err == nil || !strings.Contains(err.Error(), "another call") {
		t.Fatalf("taken for other arguments: %v", err)
	}
	if _, err := s.Take(e.ID, b); err == nil {
		t.Fatal("a request was taken twice")
	}
}

func TestSocket(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	s := NewStore()
	srv, err := Listen(s, func() time.Duration { return time.Minute }, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if fi, err := os.Stat(srv.Path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode: %v %v", fi.Mode(), err)
	}
	b := Bind("s", "debugpy_launch", "", []byte(`{"program":"x.py"}`), "")
	r := held(s.Hold("cli", b, json.RawMessage(`{"program":"x.py"}`), []string{"category execute is approve"}, time.Minute))
	ctx := context.Background()
	l, err := List(ctx)
	if err != nil || len(l) != 1 || l[0].ID != r.ID || l[0].Tool != "debugpy_launch" || l[0].Server != srv.Path {
		t.Fatalf("list: %+v %v", l, err)
	}
	if _, err := Answer(ctx, "nope", true); err == nil || !strings.Contains(err.Error(), "approvals") {
		t.Fatalf("unknown id: %v", err)
	}
	got, err := Answer(ctx, r.ID, false)
	if err != nil || got.State != Denied {
		t.Fatalf("deny: %+v %v", got, err)
	}
	if h := held(s.Hold("cli", b, nil, nil, time.Minute)); h.State != Denied {
		t.Fatalf("after deny: %+v", h)
	}
}

func TestDirMustBePrivate(t *testing.T) {
	base := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", base)
	os.Mkdir(base+"/debugpy-guard", 0o755)
	if _, err := Dir(); err == nil || !strings.Contains(err.Error(), "0700") {
		t.Fatalf("open dir accepted: %v", err)
	}
}

// TestShow: what a person is shown of a call's arguments, every kind of
// value, and what cannot be shown.
func TestShow(t *testing.T) {
	got, err := Show(json.RawMessage(`{"a":[1,2.5e3,true,null,{"k":"v\n"}],"b":{},"c":"x      y","d":"ｅ\u00a0"}`))
	want := "  \"a\" = [1, 2.5e3, true, null, {\"k\": \"v\\n\"}]\n  \"b\" = {}\n  \"c\" = \"x⟨6 spaces⟩y\"\n  \"d\" = \"\\u{ff45}\\u{a0}\""
	if err != nil || got != want {
		t.Fatalf("Show:\n%s\nwant\n%s\n%v", got, want, err)
	}
	if got, err := Show(json.RawMessage(`{}`)); err != nil || got != "  (none)" {
		t.Fatalf("no arguments: %q %v", got, err)
	}
	for _, bad := range []string{`[1]`, `"s"`, ``, `{"a":[1,}`} {
		if _, err := Show(json.RawMessage(bad)); err == nil {
			t.Errorf("Show(%s): want an error", bad)
		}
	}
	long := `{"a":"` + strings.Repeat("é", MaxShown) + `"}`
	if _, err := Show(json.RawMessage(long)); err == nil || !strings.Contains(err.Error(), "too long to approve") {
		t.Fatalf("too long: %v", err)
	}
}

// Prose shows printable text as it is, the space too, and escapes every
// character that could act on a terminal or a screen: a control character
// (ESC's sequences), a line end, a bidirectional or other format
// character, another space, a backslash.
func TestProse(t *testing.T) {
	for in, want := range map[string]string{
		"reading /app/config.py, ok": "reading /app/config.py, ok",
		"é ｅ ü 日本":                   "é ｅ ü 日本",
		"a\x1b[2A\x1b[2Kb":           `a\u{1b}[2A\u{1b}[2Kb`,
		"a\nb\r\tc":                  `a\nb\r\tc`,
		"gnp.\u202eexe":              `gnp.\u{202e}exe`,
		"\u2066x\u2069\u200d\u00ad":  `\u{2066}x\u{2069}\u{200d}\u{ad}`,
		"a\u00a0b\u2028c\u3000d":     `a\u{a0}b\u{2028}c\u{3000}d`,
		`a\u{1b}b`:                   `a\\u{1b}b`,
		"\x00\x7f\u0085\U000e0001":   `\u{0}\u{7f}\u{85}\u{e0001}`,
	} {
		if got := Prose(in); got != want {
			t.Errorf("Prose(%q) = %q, want %q", in, got, want)
		}
	}
}

// Reasons cuts each reason at maxReason bytes, on a character's start,
// counting what it cut, and escapes what it shows.
func TestReasons(t *testing.T) {
	long := "reading /" + strings.Repeat("é", maxReason)
	got := Reasons([]string{"a\nb", long, "c"})
	parts := strings.Split(got, "; ")
	if len(parts) != 3 || parts[0] != `a\nb` || parts[2] != "c" {
		t.Fatalf("Reasons: %q", got)
	}
	cut := "reading /" + strings.Repeat("é", (maxReason-len("reading /"))/2)
	if want := cut + fmt.Sprintf("…⟨%d bytes more⟩", len(long)-len(cut)); parts[1] != want {
		t.Fatalf("the long reason: %q, want %q", parts[1], want)
	}
}

// TestHeldBounded: at most maxHeld requests are held; past that a new one
// is refused (the gate denies its call), a retry of a held one still finds
// it, and held elicitations that were never taken are forgotten once
// expired, as cli requests are.
func TestHeldBounded(t *testing.T) {
	now := time.Now()
	s := NewStore()
	s.now = func() time.Time { return now }
	bind := func(i int) Binding { return Bind("s", "t", "", []byte(`{"i":`+strconv.Itoa(i)+`}`), "") }
	fresh := held(s.Hold("elicitation", bind(-1), nil, nil, time.Hour))
	ids := map[string]bool{fresh.ID: true}
	for i := 1; i < maxHeld; i++ {
		r := held(s.Hold("elicitation", bind(i), nil, nil, time.Minute))
		if ids[r.ID] {
			t.Fatalf("two held requests have the id %s", r.ID)
		}
		ids[r.ID] = true
	}
	if _, err := s.Hold("cli", bind(maxHeld), nil, nil, time.Minute); !errors.Is(err, ErrFull) {
		t.Fatalf("hold past the bound: %v, want ErrFull", err)
	}
	if r := held(s.Hold("elicitation", bind(1), nil, nil, time.Minute)); r.State != Pending {
		t.Fatalf("a retry when full: %+v", r)
	}
	now = now.Add(2 * time.Minute)
	held(s.Hold("cli", bind(maxHeld), nil, nil, time.Minute)) // expires the rest
	s.mu.Lock()
	n := len(s.byID)
	_, kept := s.byID[fresh.ID]
	s.mu.Unlock()
	if n != 2 || !kept {
		t.Fatalf("%d requests kept (the fresh one: %v), want the fresh elicitation and the new cli request", n, kept)
	}
}

// held is a Hold's request; it panics on an error (none is expected).
func held(r Request, err error) Request {
	if err != nil {
		panic(err)
	}
	return r
}

// TestSocketEdges: a socket left by a killed server is skipped and
// removed; an unknown operation and a bad line are refused; approving works.
func TestSocketEdges(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", dir)
	ctx := context.Background()
	if _, err := Answer(ctx, "x", true); err == nil || !strings.Contains(err.Error(), "no debugpy-guard server is running") {
		t.Fatalf("no server: %v", err)
	}
	d, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(d, "serve-1.sock")
	ln, err := net.Listen("unix", stale)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close() // the file stays, nobody listens: a killed server's
	s := NewStore()
	srv, err := Listen(s, func() time.Duration { return time.Minute }, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	r := held(s.Hold("cli", Bind("s", "debugpy_evaluate", "", []byte(`{}`), ""), json.RawMessage(`{}`), []string{"why"}, time.Minute))
	l, err := List(ctx)
	if err != nil || len(l) != 1 || l[0].ID != r.ID {
		t.Fatalf("list with a stale socket: %+v %v", l, err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale socket is still there: %v", err)
	}
	for _, c := range []struct{ send, want string }{
		{`{"op":"nope"}` + "\n", `unknown op \"nope\"`},
		{"not json\n", "bad request"},
		{`{"op":"approve","id":"zzzz"}` + "\n", "no pending"},
	} {
		conn, err := net.Dial("unix", srv.Path)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(conn, c.send)
		reply, _ := io.ReadAll(conn)
		conn.Close()
		if !strings.Contains(string(reply), c.want) {
			t.Errorf("%q: reply %s, want %q", c.send, reply, c.want)
		}
	}
	got, err := Answer(ctx, r.ID, true)
	if err != nil || got.State != Approved {
		t.Fatalf("approve: %+v %v", got, err)
	}
}
