// Package daptest is a fake debug adapter for protocol tests: the errors a
// real debugpy cannot be made to produce on demand (a malformed frame, a
// response that never comes, a hang-up in the middle of a request).
//
// The fake is the peer of a loopback TCP connection (not net.Pipe, whose
// unbuffered writes would make every client write wait for the test to read);
// a test reads what the client sent with ExpectRequest and answers with
// Respond, Event or raw bytes.
package daptest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"testing"
	"time"

	godap "github.com/google/go-dap"
)

// Adapter is the adapter side of a connection.
type Adapter struct {
	t    *testing.T
	conn net.Conn
	r    *bufio.Reader
	seq  int
}

// New returns the client's end of a connection and the fake adapter on the
// other.
func New(t *testing.T) (net.Conn, *Adapter) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := l.Accept()
		accepted <- c
	}()
	client, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server := <-accepted
	if server == nil {
		t.Fatal("fake adapter: accept failed")
	}
	a := &Adapter{t: t, conn: server, r: bufio.NewReader(server)}
	t.Cleanup(func() { server.Close(); client.Close() })
	return client, a
}

// Request is a request as the fake received it.
type Request struct {
	Seq       int             `json:"seq"`
	Command   string          `json:"command"`
	Arguments json.RawMessage `json:"arguments"`
}

// ExpectRequest reads the next message, which must be a request for command.
func (a *Adapter) ExpectRequest(command string) Request {
	a.t.Helper()
	a.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	raw, err := godap.ReadBaseMessage(a.r)
	if err != nil {
		a.t.Fatalf("fake adapter: want a %s request: %v", command, err)
	}
	var r Request
	if err := json.Unmarshal(raw, &r); err != nil {
		a.t.Fatalf("fake adapter: %s: %v", raw, err)
	}
	if r.Command != command {
		a.t.Fatalf("fake adapter: want a %s request, got %s", command, raw)
	}
	return r
}

// Respond answers r successfully with body.
func (a *Adapter) Respond(r Request, body any) {
	a.t.Helper()
	a.send(map[string]any{"type": "response", "request_seq": r.Seq, "command": r.Command, "success": true, "body": body})
}

// Fail answers r with success=false.
func (a *Adapter) Fail(r Request, message string) {
	a.t.Helper()
	a.send(map[string]any{"type": "response", "request_seq": r.Seq, "command": r.Command, "success": false, "message": message})
}

// Event sends an event.
func (a *Adapter) Event(name string, body any) {
	a.t.Helper()
	a.send(map[string]any{"type": "event", "event": name, "body": body})
}

// ReverseRequest sends a request from the adapter to the client.
func (a *Adapter) ReverseRequest(command string) {
	a.t.Helper()
	a.send(map[string]any{"type": "request", "command": command, "arguments": map[string]any{}})
}

// ExpectResponse reads the next message, which must be a response to command.
func (a *Adapter) ExpectResponse(command string) (success bool) {
	a.t.Helper()
	a.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	raw, err := godap.ReadBaseMessage(a.r)
	if err != nil {
		a.t.Fatalf("fake adapter: want a %s response: %v", command, err)
	}
	var m struct {
		Type    string `json:"type"`
		Command string `json:"command"`
		Success bool   `json:"success"`
	}
	json.Unmarshal(raw, &m)
	if m.Type != "response" || m.Command != command {
		a.t.Fatalf("fake adapter: want a %s response, got %s", command, raw)
	}
	return m.Success
}

// Raw writes bytes as they are, frame or not.
func (a *Adapter) Raw(b string) {
	a.t.Helper()
	a.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if _, err := a.conn.Write([]byte(b)); err != nil {
		a.t.Fatalf("fake adapter: write: %v", err)
	}
}

// Write sends b as it is, and says whether the client took it: for a peer
// that keeps sending after the client hung up.
func (a *Adapter) Write(b []byte) (int, error) {
	a.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	return a.conn.Write(b)
}

// Close hangs up.
func (a *Adapter) Close() { a.conn.Close() }

func (a *Adapter) send(m map[string]any) {
	a.t.Helper()
	a.seq++
	m["seq"] = a.seq
	body, err := json.Marshal(m)
	if err != nil {
		a.t.Fatal(err)
	}
	a.Raw(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body))
}
