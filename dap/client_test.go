package dap

import (
	"bufio"
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	godap "github.com/google/go-dap"

	"github.com/debugpy-guard/debugpy-guard/dap/daptest"
)

// noLeak fails the test if goroutines started during it outlive it.
func noLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > before {
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<16)
				t.Fatalf("goroutines left behind: %d > %d\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

func threadsReq() *godap.ThreadsRequest { return &godap.ThreadsRequest{Request: req("threads")} }

func TestClientRoutesResponsesOutOfOrder(t *testing.T) {
	noLeak(t)
	conn, a := daptest.New(t)
	c := NewClient(conn, conn, testLog(t), nil)
	defer c.Close()
	c1, c2 := c.Go(threadsReq()), c.Go(&godap.ScopesRequest{Request: req("scopes")})
	r1, r2 := a.ExpectRequest("threads"), a.ExpectRequest("scopes")
	a.Respond(r2, map[string]any{"scopes": []any{map[string]any{"name": "Locals", "variablesReference": 7}}})
	a.Respond(r1, map[string]any{"threads": []any{map[string]any{"id": 1, "name": "MainThread"}}})
	var tr godap.ThreadsResponse
	var sr godap.ScopesResponse
	if err := c1.Wait(context.Background(), &tr); err != nil || tr.Body.Threads[0].Name != "MainThread" {
		t.Fatalf("threads: %v %+v", err, tr)
	}
	if err := c2.Wait(context.Background(), &sr); err != nil || sr.Body.Scopes[0].VariablesReference != 7 {
		t.Fatalf("scopes: %v %+v", err, sr)
	}
}

func TestClientErrorResponse(t *testing.T) {
	conn, a := daptest.New(t)
	c := NewClient(conn, conn, testLog(t), nil)
	defer c.Close()
	call := c.Go(threadsReq())
	a.Fail(a.ExpectRequest("threads"), "Unable to find thread")
	var re *ResponseError
	if err := call.Wait(context.Background(), nil); !errors.As(err, &re) || !strings.Contains(err.Error(), "Unable to find thread") {
		t.Fatalf("want a ResponseError, got %v", err)
	}
}

func TestClientTimeout(t *testing.T) {
	noLeak(t)
	conn, a := daptest.New(t)
	c := NewClient(conn, conn, testLog(t), nil)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	done := make(chan error)
	go func() { done <- c.Do(ctx, threadsReq(), nil) }()
	a.ExpectRequest("threads") // and never answer
	err := <-done
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no response from debugpy") {
		t.Fatalf("want a timeout naming debugpy, got %v", err)
	}
	// The connection is still usable after a timeout.
	go func() { done <- c.Do(context.Background(), threadsReq(), nil) }()
	a.Respond(a.ExpectRequest("threads"), map[string]any{"threads": []any{}})
	if err := <-done; err != nil {
		t.Fatalf("after a timeout: %v", err)
	}
}

func TestClientAdapterClosesMidRequest(t *testing.T) {
	noLeak(t)
	conn, a := daptest.New(t)
	c := NewClient(conn, conn, testLog(t), nil)
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errs[i] = c.Do(context.Background(), threadsReq(), nil)
		}(i)
	}
	for range errs {
		a.ExpectRequest("threads")
	}
	a.Close()
	wg.Wait()
	for _, err := range errs {
		if !errors.Is(err, ErrDisconnected) || !strings.Contains(err.Error(), "connection closed by debugpy") {
			t.Fatalf("pending call: want ErrDisconnected, got %v", err)
		}
	}
	<-c.Done()
	if err := c.Do(context.Background(), threadsReq(), nil); !errors.Is(err, ErrDisconnected) {
		t.Fatalf("call after the end: %v", err)
	}
}

func TestClientMalformedFrame(t *testing.T) {
	noLeak(t)
	conn, a := daptest.New(t)
	c := NewClient(conn, conn, testLog(t), nil)
	call := c.Go(threadsReq())
	a.ExpectRequest("threads")
	a.Raw("Content-Length: banana\r\n\r\n{}")
	err := call.Wait(context.Background(), nil)
	if !errors.Is(err, ErrDisconnected) || !strings.Contains(err.Error(), "malformed frame") {
		t.Fatalf("want a malformed-frame disconnect, got %v", err)
	}
}

// A peer that sends bytes with no header's end (no \r) is hung up on once
// the reader's buffer is full; go-dap's ReadBaseMessage kept reading, and
// the server held every byte sent (64 MiB here, any amount in general).
func TestClientHeaderBounded(t *testing.T) {
	noLeak(t)
	conn, a := daptest.New(t)
	c := NewClient(conn, conn, testLog(t), nil)
	call := c.Go(threadsReq())
	a.ExpectRequest("threads")
	sent := make(chan int)
	go func() {
		chunk, n := []byte(strings.Repeat("x", 64<<10)), 0
		for ; n < 64<<20; n += len(chunk) {
			if _, err := a.Write(chunk); err != nil {
				break
			}
		}
		if n >= 64<<20 {
			a.Close() // all taken: end the call, which then fails below
		}
		sent <- n
	}()
	err := call.Wait(context.Background(), nil)
	if !errors.Is(err, ErrDisconnected) || !strings.Contains(err.Error(), "a header of more than 65536 bytes") {
		t.Fatalf("want a malformed-frame disconnect, got %v", err)
	}
	if n := <-sent; n >= 64<<20 {
		t.Fatalf("the client read all %d bytes of a header", n)
	}
}

// Frames as go-dap reads them are read alike: the header's form, its
// delimiter, the content's bound.
func TestReadFrameAgreesWithGoDAP(t *testing.T) {
	for _, in := range []string{
		"Content-Length: 2\r\n\r\n{}",
		"Content-Length: 0\r\n\r\n",
		"Content-Length: 02\r\n\r\n{}",
		"Content-Length: 2\r\n\r\n{",
		"Content-Length: 2\r\r\n\r\n{}",
		"Content-Length: 2\r\n\n{}",
		"Content-Length:2\r\n\r\n{}",
		"content-length: 2\r\n\r\n{}",
		"Content-Length: 2 \r\n\r\n{}",
		"Content-Length: -2\r\n\r\n{}",
		"Content-Length: 4194304\r\n\r\n",
		"Content-Length: 4194305\r\n\r\n{}",
		"Content-Length: 99999999999999999999\r\n\r\n{}",
		"Content-Length: 2\nContent-Type: x\r\n\r\n{}",
		"X: 1\r\nContent-Length: 2\r\n\r\n{}",
		"",
		"\r\n\r\n",
		"Content-Length: 2",
		"Content-Length: \u0662\r\n\r\n{}",
	} {
		want, wantErr := godap.ReadBaseMessage(bufio.NewReader(strings.NewReader(in)))
		got, err := readFrame(bufio.NewReaderSize(strings.NewReader(in), 64<<10))
		if (err == nil) != (wantErr == nil) || string(got) != string(want) {
			t.Errorf("%q: got %q, %v; go-dap %q, %v", in, got, err, want, wantErr)
		}
	}
}

func TestClientSurvivesOddMessages(t *testing.T) {
	conn, a := daptest.New(t)
	var mu sync.Mutex
	var got []string
	c := NewClient(conn, conn, testLog(t), func(m godap.Message) {
		mu.Lock()
		defer mu.Unlock()
		if e, ok := m.(godap.EventMessage); ok {
			got = append(got, e.GetEvent().Event)
		}
	})
	defer c.Close()
	a.Raw("Content-Length: 5\r\n\r\nnot{}")                       // a body that is not JSON
	a.Event("somethingNew", map[string]any{})                     // an event nobody knows
	a.Event("debugpyWaitingForServer", map[string]any{"port": 1}) // one of debugpy's own
	a.ReverseRequest("runInTerminal")
	if a.ExpectResponse("runInTerminal") {
		t.Fatal("reverse request: want a refusal")
	}
	a.Event("output", map[string]any{"category": "stdout", "output": "hi"})
	call := c.Go(threadsReq())
	a.Respond(a.ExpectRequest("threads"), map[string]any{"threads": []any{}})
	if err := call.Wait(context.Background(), nil); err != nil {
		t.Fatalf("connection did not survive: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(got, ",") != "debugpyWaitingForServer,output" {
		t.Fatalf("events delivered: %v", got)
	}
}

func TestOutputCursor(t *testing.T) {
	o := NewOutput(3, 1<<10)
	for _, s := range []string{"a\n", "b\n", "c\n", "d\n", "e\n"} {
		o.Add("stdout", s)
	}
	e, next, dropped := o.Read(0, "", 0)
	if len(e) != 3 || e[0].Text != "c\n" || next != 6 || dropped != 2 {
		t.Fatalf("read: %+v next %d dropped %d", e, next, dropped)
	}
	e, next, _ = o.Read(4, "", 1)
	if len(e) != 1 || e[0].Text != "d\n" || next != 5 {
		t.Fatalf("paged read: %+v next %d", e, next)
	}
	o.Add("stderr", "oops")
	e, next, _ = o.Read(next, "stderr", 0)
	if len(e) != 1 || e[0].Text != "oops" || next != 7 {
		t.Fatalf("category read: %+v next %d", e, next)
	}
	if o.Next() != 7 {
		t.Fatalf("Next: %d, want 7", o.Next())
	}
	big := NewOutput(100, 4)
	big.Add("stdout", "abcdef")
	if e, _, _ := big.Read(0, "", 0); e[0].Text != "cdef" {
		t.Fatalf("byte bound: %+v", e)
	}
}

// Pieces of one line join into one entry, until a newline, another
// category, or a read that has gone past the entry.
func TestOutputJoinsPiecesOfALine(t *testing.T) {
	o := NewOutput(100, 1<<10)
	for _, s := range []string{"order ", "0 total", " 2.7\n", "next"} {
		o.Add("stdout", s)
	}
	o.Add("stderr", "warn")
	o.Add("stdout", " line\n")
	e, next, _ := o.Read(0, "", 0)
	var got []string
	for _, x := range e {
		got = append(got, x.Category+":"+x.Text)
	}
	if strings.Join(got, "|") != "stdout:order 0 total 2.7\n|stdout:next|stderr:warn|stdout: line\n" {
		t.Fatalf("entries: %q", got)
	}
	// A read seals what it returned: a later piece starts a new entry, so
	// that the reader's cursor misses nothing.
	o.Add("stdout", "open")
	o.Read(next, "", 0)
	o.Add("stdout", "ed")
	if e, _, _ := o.Read(next, "", 0); len(e) != 2 || e[0].Text != "open" || e[1].Text != "ed" {
		t.Fatalf("after a read: %+v", e)
	}
}

// Before is what a read's entries continue: per category, the text before
// the read's first cursor, whole lines within its bound.
func TestOutputBefore(t *testing.T) {
	o := NewOutput(100, 1<<10)
	for _, x := range [][2]string{{"stdout", "name,password\n"}, {"stderr", "warn\n"}, {"stdout", "ann,"}, {"stdout", "x1\n"}, {"stdout", "bob,x2\n"}} {
		o.Add(x[0], x[1])
	}
	_, next, _ := o.Read(0, "", 0) // entries 1 to 4 ("ann," and "x1\n" joined)
	o.Add("stdout", "cy,x3\n")
	got := o.Before(next, []string{"stdout", "stderr", "console"}, 1<<10)
	if len(got) != 2 || got[0].Category != "stdout" || got[0].Text != "name,password\nann,x1\nbob,x2\n" || got[1].Text != "warn\n" {
		t.Fatalf("before %d: %+v", next, got)
	}
	if got := o.Before(3, []string{"stdout"}, 1<<10); len(got) != 1 || got[0].Text != "name,password\n" {
		t.Fatalf("before 3: %+v", got)
	}
	// Over the bound: the last lines that fit, from a line's start.
	if got := o.Before(next, []string{"stdout"}, 16); len(got) != 1 || got[0].Text != "ann,x1\nbob,x2\n" {
		t.Fatalf("bounded: %+v", got)
	}
	if got := o.Before(next, []string{"stdout"}, 10); len(got) != 1 || got[0].Text != "bob,x2\n" {
		t.Fatalf("bounded: %+v", got)
	}
	if got := o.Before(1, []string{"stdout"}, 1<<10); len(got) != 0 {
		t.Fatalf("before the first entry: %+v", got)
	}
}
