package approval

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"
)

func TestHoldAnswerUseOnce(t *testing.T) {
	s := NewStore()
	b := Bind("s1", "debugpy_evaluate", []byte(`{"expression":"f()"}`))
	r := s.Hold("cli", b, json.RawMessage(`{"expression":"f()"}`), []string{"calls need approval"}, time.Minute)
	if r.State != Pending || len(r.ID) != 8 {
		t.Fatalf("hold: %+v", r)
	}
	if again := s.Hold("cli", b, nil, nil, time.Minute); again.ID != r.ID || again.State != Pending {
		t.Fatalf("retried before an answer: %+v, want the same pending id", again)
	}
	other := s.Hold("cli", Bind("s1", "debugpy_evaluate", []byte(`{"expression":"g()"}`)), nil, nil, time.Minute)
	if other.ID == r.ID {
		t.Fatal("other arguments share the approval")
	}
	if _, err := s.Answer(r.ID, true, time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Answer(r.ID, false, time.Minute); err == nil || !strings.Contains(err.Error(), "already approved") {
		t.Fatalf("second answer: %v", err)
	}
	if got := s.Hold("cli", b, nil, nil, time.Minute); got.ID != r.ID || got.State != Approved {
		t.Fatalf("retried after approval: %+v", got)
	}
	if got := s.Hold("cli", b, nil, nil, time.Minute); got.ID == r.ID || got.State != Pending {
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
	b := Bind("s", "t", []byte(`{}`))
	r := s.Hold("cli", b, nil, nil, time.Minute)
	now = now.Add(2 * time.Minute)
	if _, err := s.Answer(r.ID, true, time.Minute); err == nil {
		t.Fatal("answered an expired request")
	}
	e := s.Hold("elicitation", b, nil, nil, time.Minute)
	if _, err := s.Answer(e.ID, true, time.Minute); err == nil || !strings.Contains(err.Error(), "elicitation") {
		t.Fatalf("cli answered an elicitation: %v", err)
	}
	now = now.Add(2 * time.Minute)
	if _, err := s.Take(e.ID, b); err != ErrExpired {
		t.Fatalf("late elicitation answer: %v", err)
	}
	e = s.Hold("elicitation", b, nil, nil, time.Minute)
	if _, err := s.Take(e.ID, Bind("s", "t", []byte(`{"x":1}`))); err == nil || !strings.Contains(err.Error(), "another call") {
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
	b := Bind("s", "debugpy_launch", []byte(`{"program":"x.py"}`))
	r := s.Hold("cli", b, json.RawMessage(`{"program":"x.py"}`), []string{"category execute is approve"}, time.Minute)
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
	if h := s.Hold("cli", b, nil, nil, time.Minute); h.State != Denied {
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
