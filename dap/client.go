// Package dap is the Debug Adapter Protocol client of debugpy-guard, built on
// github.com/google/go-dap, and the debugpy sessions on top of it.
//
// The Client has net/rpc's client shape: every request gets the next seq and a
// slot in a pending map, writes are serialized, and one reader goroutine routes
// responses to their callers and events to the session. When the connection
// ends, every pending call fails at once with the cause.
package dap

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"strconv"
	"sync"

	godap "github.com/google/go-dap"
)

// ErrDisconnected is wrapped by every error of a call made on, or pending on,
// a connection that has ended.
var ErrDisconnected = errors.New("debug adapter disconnected")

// ResponseError is a DAP response with success=false.
type ResponseError struct {
	Command string
	Message string
}

func (e *ResponseError) Error() string {
	return fmt.Sprintf("debugpy refused %s: %s", e.Command, e.Message)
}

// envelope is the part of every DAP message needed to route it.
type envelope struct {
	Seq        int    `json:"seq"`
	Type       string `json:"type"`
	Command    string `json:"command"`
	Event      string `json:"event"`
	RequestSeq int    `json:"request_seq"`
	Success    bool   `json:"success"`
	Message    string `json:"message"`
	Body       struct {
		Error *struct {
			Format string `json:"format"`
		} `json:"error"`
	} `json:"body"`
}

// Call is one request in flight. Done is closed when the response arrived or
// the connection ended; then Err is set or Raw holds the response.
type Call struct {
	Command string
	Raw     []byte
	Err     error
	Done    chan struct{}
}

// Wait blocks until the call is answered, ctx ends, or the connection drops,
// and decodes a successful response into resp (which may be nil).
func (c *Call) Wait(ctx context.Context, resp any) error {
	select {
	case <-c.Done:
	case <-ctx.Done():
		return fmt.Errorf("%s: no response from debugpy: %w", c.Command, context.Cause(ctx))
	}
	if c.Err != nil {
		return c.Err
	}
	if resp == nil {
		return nil
	}
	if err := json.Unmarshal(c.Raw, resp); err != nil {
		return fmt.Errorf("%s: decode response: %w", c.Command, err)
	}
	return nil
}

// Client is a DAP connection to one debug adapter.
type Client struct {
	w      io.WriteCloser
	rc     io.Closer // the read side, when it can be closed apart from w
	r      *bufio.Reader
	codec  *godap.Codec
	log    *slog.Logger
	onEvt  func(godap.Message)
	wmu    sync.Mutex // serializes writes
	mu     sync.Mutex // guards the fields below
	seq    int
	pend   map[int]*Call
	err    error // set once the connection ended
	done   chan struct{}
	closer sync.Once
}

// NewClient starts the reader goroutine on conn. onEvent is called from the
// reader goroutine for every event, in order; it must not block on a call
// made on the same client.
func NewClient(r io.Reader, w io.WriteCloser, log *slog.Logger, onEvent func(godap.Message)) *Client {
	if log == nil {
		log = slog.Default()
	}
	c := &Client{
		w:     w,
		r:     bufio.NewReaderSize(r, 64<<10),
		codec: newCodec(),
		log:   log,
		onEvt: onEvent,
		pend:  make(map[int]*Call),
		done:  make(chan struct{}),
	}
	if rc, ok := r.(io.Closer); ok {
		c.rc = rc
	}
	go c.read()
	return c
}

// Done is closed when the connection has ended; Err then says why.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err is the reason the connection ended, or nil while it is up.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Go sends req without waiting for its response.
func (c *Client) Go(req godap.RequestMessage) *Call {
	r := req.GetRequest()
	call := &Call{Command: r.Command, Done: make(chan struct{})}
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		call.Err = fmt.Errorf("%s: %w", r.Command, c.err)
		close(call.Done)
		return call
	}
	c.seq++
	r.Seq = c.seq
	r.Type = "request"
	c.pend[r.Seq] = call
	c.mu.Unlock()

	c.wmu.Lock()
	err := godap.WriteProtocolMessage(c.w, req)
	c.wmu.Unlock()
	if err != nil {
		c.shutdown(fmt.Errorf("write %s: %v: %w", r.Command, err, ErrDisconnected))
	}
	return call
}

// Do sends req and waits for its response, decoded into resp.
func (c *Client) Do(ctx context.Context, req godap.RequestMessage, resp any) error {
	call := c.Go(req)
	err := call.Wait(ctx, resp)
	if err != nil && ctx.Err() != nil {
		c.forget(req.GetRequest().Seq)
	}
	return err
}

func (c *Client) forget(seq int) {
	c.mu.Lock()
	delete(c.pend, seq)
	c.mu.Unlock()
}

// Close ends the connection; pending calls fail with ErrDisconnected.
func (c *Client) Close() error {
	c.shutdown(fmt.Errorf("closed by debugpy-guard: %w", ErrDisconnected))
	<-c.done
	return nil
}

func (c *Client) shutdown(cause error) {
	c.closer.Do(func() {
		c.mu.Lock()
		c.err = cause
		pend := c.pend
		c.pend = map[int]*Call{}
		c.mu.Unlock()
		c.w.Close()
		if c.rc != nil {
			c.rc.Close() // unblocks the reader even when the peer never hangs up
		}
		for _, call := range pend {
			call.Err = fmt.Errorf("%s: %w", call.Command, cause)
			close(call.Done)
		}
	})
}

func (c *Client) read() {
	defer close(c.done)
	for {
		raw, err := readFrame(c.r)
		if err != nil {
			var cause error
			switch {
			case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
				cause = fmt.Errorf("connection closed by debugpy: %w", ErrDisconnected)
			default:
				var bpe *godap.BaseProtocolError
				if errors.As(err, &bpe) {
					cause = fmt.Errorf("malformed frame from debugpy (%s): %w", err, ErrDisconnected)
				} else {
					cause = fmt.Errorf("read: %v: %w", err, ErrDisconnected)
				}
			}
			c.shutdown(cause)
			return
		}
		c.route(raw)
	}
}

// readFrame reads one message of the base protocol ("Content-Length: N",
// a blank line, N bytes), as go-dap's ReadBaseMessage does, but with the
// header bounded too: ReadBaseMessage reads up to the header's \r however
// far it is, so a peer that sends bytes without one (a debuggee that
// writes to its debugger's socket, anything listening where an attach
// dialled) makes the server hold all of them. Here the header must end
// within the reader's buffer (64 KiB); content is at most go-dap's bound
// (4 MiB), as before.
func readFrame(r *bufio.Reader) ([]byte, error) {
	header, err := r.ReadSlice('\r')
	switch {
	case errors.Is(err, bufio.ErrBufferFull):
		return nil, &godap.BaseProtocolError{Err: fmt.Sprintf("a header of more than %d bytes", r.Size())}
	case err != nil:
		return nil, err
	}
	m := contentLength.FindSubmatch(header) // header is r's until the next read
	if m == nil {
		return nil, godap.ErrHeaderNotContentLength
	}
	n, err := strconv.ParseInt(string(m[1]), 10, 64)
	if err != nil || n > maxContent {
		return nil, godap.ErrHeaderContentTooLong
	}
	var end [3]byte
	if _, err := io.ReadFull(r, end[:]); err != nil {
		return nil, err
	}
	if string(end[:]) != "\n\r\n" {
		return nil, godap.ErrHeaderDelimiterNotCrLfCrLf
	}
	content := make([]byte, n)
	if _, err := io.ReadFull(r, content); err != nil {
		return nil, err
	}
	return content, nil
}

// contentLength is the one header of a frame, as go-dap reads it; a
// frame's content is at most maxContent bytes, go-dap's bound.
var contentLength = regexp.MustCompile(`^Content-Length: ([0-9]+)\r$`)

const maxContent = 4 << 20

func (c *Client) route(raw []byte) {
	var env envelope
	if err := json.Unmarshal(raw, &env); err != nil {
		c.log.Warn("dap: dropped a message that is not JSON", "err", err, "bytes", len(raw))
		return
	}
	switch env.Type {
	case "response":
		c.mu.Lock()
		call := c.pend[env.RequestSeq]
		delete(c.pend, env.RequestSeq)
		c.mu.Unlock()
		if call == nil {
			c.log.Debug("dap: response to no pending request", "request_seq", env.RequestSeq, "command", env.Command)
			return
		}
		if !env.Success {
			msg := env.Message
			if env.Body.Error != nil && env.Body.Error.Format != "" {
				msg = env.Body.Error.Format
			}
			call.Err = &ResponseError{Command: call.Command, Message: msg}
		} else {
			call.Raw = raw
		}
		close(call.Done)
	case "event":
		msg, err := c.codec.DecodeMessage(raw)
		if err != nil {
			c.log.Info("dap: event not decoded, ignored", "event", env.Event, "err", err)
			return
		}
		if c.onEvt != nil {
			c.onEvt(msg)
		}
	case "request":
		// Reverse requests (runInTerminal, startDebugging): we launch with the
		// internal console, so none is expected. Refuse so the adapter moves on.
		c.log.Info("dap: reverse request refused", "command", env.Command)
		resp := &godap.ErrorResponse{Response: godap.Response{
			ProtocolMessage: godap.ProtocolMessage{Type: "response"},
			Command:         env.Command, RequestSeq: env.Seq, Success: false,
			Message: "not supported by debugpy-guard",
		}}
		c.mu.Lock()
		c.seq++
		resp.Seq = c.seq
		c.mu.Unlock()
		c.wmu.Lock()
		_ = godap.WriteProtocolMessage(c.w, resp)
		c.wmu.Unlock()
	default:
		c.log.Warn("dap: message of unknown type ignored", "type", env.Type)
	}
}

// DebugpyEvent is one of debugpy's own events, outside the DAP schema.
type DebugpyEvent struct {
	godap.Event
	Body json.RawMessage `json:"body"`
}

// debugpyEvents are the events debugpy sends beyond the DAP specification.
var debugpyEvents = []string{
	"debugpyWaitingForServer", "debugpySockets", "debugpyAttach",
	"pydevdSystemInfo", "pydevdInputRequested",
}

func newCodec() *godap.Codec {
	c := godap.NewCodec()
	for _, name := range debugpyEvents {
		_ = c.RegisterEvent(name, func() godap.Message { return &DebugpyEvent{} })
	}
	return c
}
