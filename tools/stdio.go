package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/debugpy-guard/debugpy-guard/plugins/abi"
)

// ServeStdio serves srv over stdio, one JSON-RPC message a line, until in
// ends or ctx is done; then it cancels the calls in flight and waits for
// them, so that each has answered (and handed over its audit records)
// before it returns.
//
// Why not mcp-go's StdioServer: measured on a denied call, it costs ~90 µs
// a round trip (docs/PERFORMANCE.md, issue 12): a goroutine started for
// every line read, five decodings of each message before it is routed, and
// a hand-over to a worker for every tools/call. Here a message is decoded
// once to route it, and a request is served at once on the goroutine that
// read it; a new reader takes over only when it takes longer than handOver
// (docs/RATIONALE.md, "The stdio transport"). mcp-go's MCPServer still
// does all of MCP.
func ServeStdio(ctx context.Context, srv *server.MCPServer, in io.Reader, out io.Writer, log *slog.Logger) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &stdio{srv: srv, out: out, log: log, in: bufio.NewReaderSize(in, 64<<10),
		notifications: make(chan mcp.JSONRPCNotification, 100), pending: map[int64]chan response{}, ended: make(chan error, 1)}
	if err := srv.RegisterSession(ctx, s); err != nil {
		return fmt.Errorf("stdio: %w", err)
	}
	defer srv.UnregisterSession(context.Background(), s.SessionID())
	ctx = srv.WithContext(ctx, s)
	go s.notify(ctx)
	go s.read(ctx)
	var err error
	select {
	case err = <-s.ended:
	case <-ctx.Done():
	}
	cancel()
	s.mu.Lock()
	s.closing = true // no message is served from now on
	s.mu.Unlock()
	s.serving.Wait()
	return err
}

// stdio is the one MCP session of a stdio server.
type stdio struct {
	srv *server.MCPServer
	log *slog.Logger

	in      *bufio.Reader // read by one goroutine at a time: the reader
	ended   chan error    // the reader's end: nil at EOF
	serving sync.WaitGroup

	wmu sync.Mutex // one message a write, whole lines
	out io.Writer

	notifications chan mcp.JSONRPCNotification
	initialized   atomic.Bool
	logLevel      atomic.Value // mcp.LoggingLevel

	mu      sync.Mutex
	closing bool // set once; serving is added to under mu while it is false
	client  mcp.Implementation
	caps    mcp.ClientCapabilities
	nextID  int64
	pending map[int64]chan response // requests to the client, by id
}

type response struct {
	result json.RawMessage
	err    *mcp.JSONRPCErrorDetails
}

// read reads messages and serves them, until a request it serves takes
// long enough for another reader to take over (serveFirst).
func (s *stdio) read(ctx context.Context) {
	for {
		line, over, err := s.readLine()
		if len(line) > 0 && err == io.EOF {
			err = nil // a last message without its newline
		}
		if over > 0 && err == nil {
			s.write(mcp.NewJSONRPCError(leadingID(line), mcp.INVALID_REQUEST,
				fmt.Sprintf("the message is %d bytes, over the %d-byte limit of a message (a tool's arguments take at most %d): it was not read", over, maxMessage, maxArguments), nil))
			continue
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			select {
			case s.ended <- err:
			default: // a reader after the end (a late hand-over): already said
			}
			return
		}
		var head struct {
			ID     json.RawMessage          `json:"id"`
			Method string                   `json:"method"`
			Result json.RawMessage          `json:"result"`
			Error  *mcp.JSONRPCErrorDetails `json:"error"`
		}
		err = json.Unmarshal(line, &head)
		switch {
		case err != nil && !json.Valid(line):
			if len(bytes.Trim(line, " \t\r\n")) > 0 { // not a blank line: JSON's whitespace only
				s.write(mcp.NewJSONRPCError(mcp.NewRequestId(nil), mcp.PARSE_ERROR, "Parse error", nil))
			}
		case err == nil && head.Method == "" && head.ID != nil:
			s.answer(head.ID, response{result: head.Result, err: head.Error})
		default:
			if !s.begin() {
				continue // closing: nothing more is served
			}
			if err == nil && (head.ID == nil || string(head.ID) == "null") {
				s.serve(ctx, line) // a notification: quick, and in order
			} else if !s.serveFirst(ctx, line) { // a request, or JSON that is not one (mcp-go says why)
				return // another goroutine reads now
			}
		}
	}
}

// maxMessage bounds a message's line: a tool's arguments are at most
// maxArguments, and no other message of MCP comes close. A longer line is
// not kept: it is read through to its end and answered with an error, so
// that a client cannot make the server hold many times a line of gigabytes
// (a 300 MB line took 1.5 GB and 12 s to refuse: docs/PERFORMANCE.md).
const maxMessage = 4 << 20

// readLine reads the next line. One longer than maxMessage is read to its
// end and dropped: over is its length, and line its first bytes (where a
// request's id may be found).
func (s *stdio) readLine() (line []byte, over int, err error) {
	for {
		chunk, err := s.in.ReadSlice('\n')
		n := len(chunk) // the message's bytes, without its newline
		if n > 0 && chunk[n-1] == '\n' {
			n--
		}
		switch {
		case over > 0:
			over += n
		case len(line)+n > maxMessage: // keep the first idPrefix bytes only
			over = len(line) + n
			if len(line) < idPrefix {
				line = append(line, chunk[:idPrefix-len(line)]...)
			}
			line = slices.Clone(line[:idPrefix])
		default:
			line = append(line, chunk...)
		}
		if err != bufio.ErrBufferFull {
			return line, over, err
		}
	}
}

// idPrefix is how much of a line too long is kept to find its id.
const idPrefix = 4 << 10

// leadingID is the id of a request whose line begins with it before its
// params ({"jsonrpc":"2.0","id":7,"method":...): prefix is the line's first
// bytes. Otherwise the answer's id is null.
func leadingID(prefix []byte) mcp.RequestId {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return mcp.NewRequestId(nil)
	}
	for {
		key, err := dec.Token()
		if err != nil {
			return mcp.NewRequestId(nil)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return mcp.NewRequestId(nil)
		}
		if key != "id" {
			continue
		}
		var id any
		num := json.NewDecoder(bytes.NewReader(v))
		num.UseNumber() // an id past 2**53 as it was sent
		if num.Decode(&id) == nil {
			switch id := id.(type) {
			case json.Number:
				if n, err := id.Int64(); err == nil {
					return mcp.NewRequestId(n)
				}
			case string:
				return mcp.NewRequestId(id)
			}
		}
		return mcp.NewRequestId(nil)
	}
}

// handOver is how long a request is served on the reading goroutine before
// another goroutine takes up the reading.
const handOver = time.Millisecond

// serveFirst serves a request (begun) on the reading goroutine, and reports
// whether this goroutine is still the reader when the request is done. A
// request served within handOver (a denied call, a quick read) costs no
// goroutine and no hand-over; one that takes longer (a debuggee's answer,
// a person's) lets a new reader start, so that reading never waits for a
// handler, which may need a message still unread (an elicitation answer).
func (s *stdio) serveFirst(ctx context.Context, line []byte) bool {
	var state atomic.Int32 // serving, then done or handed over
	const serving, done, handedOver = 0, 1, 2
	t := time.AfterFunc(handOver, func() {
		if state.CompareAndSwap(serving, handedOver) {
			s.read(ctx)
		}
	})
	s.serve(ctx, line)
	t.Stop()
	return state.CompareAndSwap(serving, done)
}

// begin counts a message read as being served, unless the server is
// closing. It is called by the reader before a request can be handed over:
// a reader that takes over and finds the end of input then cannot close the
// server before a request read earlier is answered (it is cancelled, and
// answered so).
func (s *stdio) begin() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.serving.Add(1)
	return true
}

// serve answers one message (begun).
func (s *stdio) serve(ctx context.Context, line []byte) {
	defer s.serving.Done()
	if res := s.srv.HandleMessage(ctx, line); res != nil {
		s.write(res)
	}
}

// write sends one message as one line.
func (s *stdio) write(msg any) error {
	b, err := encode(msg)
	if err != nil {
		s.log.Error("stdio: a message cannot be encoded", "err", err)
		return err
	}
	b = append(b, '\n')
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if _, err := s.out.Write(b); err != nil {
		s.log.Error("stdio: write", "err", err)
		return err
	}
	return nil
}

// encode is json.Marshal(msg), byte for byte (TestEncodeAgreesWithMarshal),
// without its second pass over a tool call's result. encoding/json checks
// and compacts again whatever a MarshalJSON method returns, and mcp-go's
// CallToolResult has one, which already returns compact JSON escaped as
// json.Marshal escapes (it is json.Marshal's own output): so every tools/call
// answer was read twice, the length of a variables listing or a source
// file. A result of text alone and the id are written here (appendTextResult).
func encode(msg any) ([]byte, error) {
	r, res, ok := toolAnswer(msg)
	if !ok {
		return json.Marshal(msg)
	}
	// The head, then the id as json.Marshal writes it, without its
	// reflection and second pass; the result grows the buffer once.
	b := append(make([]byte, 0, 64), `{"jsonrpc":"2.0","id":`...)
	switch v := r.ID.Value().(type) {
	case int64:
		b = strconv.AppendInt(b, v, 10)
	case string:
		b = abi.AppendString(b, v)
	default:
		id, err := json.Marshal(r.ID)
		if err != nil {
			return nil, err
		}
		b = append(b, id...)
	}
	b = append(b, `,"result":`...)
	b, ok = appendTextResult(b, res)
	if !ok {
		body, err := res.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("a tool's result: %w", err)
		}
		b = append(slices.Grow(b, len(body)+2), body...)
	}
	return append(b, '}'), nil
}

// toolAnswer is the response and tool call result that msg is, if it is
// one: mcp-go's HandleMessage answers a tools/call with a
// *mcp.CallToolResult (TestHandleMessageAnswersAToolCallsResult); a value
// is taken too.
func toolAnswer(msg any) (r mcp.JSONRPCResponse, res mcp.CallToolResult, ok bool) {
	if r, ok = msg.(mcp.JSONRPCResponse); !ok || r.JSONRPC != mcp.JSONRPC_VERSION {
		return r, res, false
	}
	switch v := r.Result.(type) {
	case *mcp.CallToolResult:
		if v == nil {
			return r, res, false
		}
		return r, *v, true
	case mcp.CallToolResult:
		return r, v, true
	}
	return r, res, false
}

// appendTextResult appends to b res.MarshalJSON() for a result of text
// alone (a denied call's, an error's), byte for byte
// (TestEncodeAgreesWithMarshal), without its map of members, their sorting
// and reflection, in the answer's one buffer (with the id's, a denied
// call's answer is encoded in ~0.8 µs, against ~5.6 through json.Marshal:
// docs/PERFORMANCE.md). ok is false, and b as it was, for any other
// result, which MarshalJSON encodes.
func appendTextResult(b []byte, res mcp.CallToolResult) (_ []byte, ok bool) {
	if res.Meta != nil || res.StructuredContent != nil || len(res.RawStructuredContent) > 0 ||
		len(res.InputRequests) > 0 || res.RequestState != "" {
		return b, false
	}
	n := 64 + len(res.ResultType)
	for _, c := range res.Content {
		t, ok := c.(mcp.TextContent)
		if !ok || t.Annotations != nil || t.Meta != nil {
			return b, false
		}
		n += len(t.Type) + len(t.Text) + 32
	}
	b = slices.Grow(b, n+2) // 2: the answer's '}' and write's newline
	// MarshalJSON's members, in encoding/json's order of a map's keys; a
	// TextContent's, in its struct's order.
	b = append(b, `{"content":[`...)
	for i, c := range res.Content {
		t := c.(mcp.TextContent)
		if i > 0 {
			b = append(b, ',')
		}
		b = abi.AppendString(append(b, `{"type":`...), t.Type)
		b = abi.AppendString(append(b, `,"text":`...), t.Text)
		b = append(b, '}')
	}
	b = append(b, ']')
	if res.IsError {
		b = append(b, `,"isError":true`...)
	}
	if res.ResultType != "" {
		b = abi.AppendString(append(b, `,"resultType":`...), string(res.ResultType))
	}
	return append(b, '}'), true
}

func (s *stdio) notify(ctx context.Context) {
	for {
		select {
		case n := <-s.notifications:
			s.write(n)
		case <-ctx.Done():
			return
		}
	}
}

// answer hands a client's response to the request waiting for it.
func (s *stdio) answer(id json.RawMessage, r response) {
	var n int64
	if json.Unmarshal(id, &n) != nil {
		s.log.Warn("stdio: a response to no request of ours", "id", string(id))
		return
	}
	s.mu.Lock()
	ch, ok := s.pending[n]
	delete(s.pending, n)
	s.mu.Unlock()
	if !ok {
		s.log.Warn("stdio: a response to no request of ours", "id", n)
		return
	}
	ch <- r // buffered: the asker may have given up
}

// request sends a request to the client and waits for its response.
func (s *stdio) request(ctx context.Context, method string, params, result any) error {
	ch := make(chan response, 1)
	s.mu.Lock()
	s.nextID++
	id := s.nextID
	s.pending[id] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.pending, id)
		s.mu.Unlock()
	}()
	msg := struct {
		JSONRPC string `json:"jsonrpc"`
		ID      int64  `json:"id"`
		Method  string `json:"method"`
		Params  any    `json:"params"`
	}{mcp.JSONRPC_VERSION, id, method, params}
	if err := s.write(msg); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case r := <-ch:
		if r.err != nil {
			return fmt.Errorf("%s request failed: %s", method, r.err.Message)
		}
		if err := json.Unmarshal(r.result, result); err != nil {
			return fmt.Errorf("%s: the client's response: %w", method, err)
		}
		return nil
	}
}

// The session: what mcp-go asks of one.

func (s *stdio) SessionID() string { return "stdio" }

func (s *stdio) NotificationChannel() chan<- mcp.JSONRPCNotification { return s.notifications }

func (s *stdio) Initialize() {
	s.logLevel.Store(mcp.LoggingLevelError)
	s.initialized.Store(true)
}

func (s *stdio) Initialized() bool { return s.initialized.Load() }

func (s *stdio) SetLogLevel(level mcp.LoggingLevel) { s.logLevel.Store(level) }

func (s *stdio) GetLogLevel() mcp.LoggingLevel {
	if l, ok := s.logLevel.Load().(mcp.LoggingLevel); ok {
		return l
	}
	return mcp.LoggingLevelError
}

func (s *stdio) GetClientInfo() mcp.Implementation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.client
}

func (s *stdio) SetClientInfo(c mcp.Implementation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.client = c
}

func (s *stdio) GetClientCapabilities() mcp.ClientCapabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps
}

func (s *stdio) SetClientCapabilities(c mcp.ClientCapabilities) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.caps = c
}

func (s *stdio) RequestElicitation(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	var res mcp.ElicitationResult
	if err := s.request(ctx, string(mcp.MethodElicitationCreate), req.Params, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

var (
	_ server.SessionWithLogging     = (*stdio)(nil)
	_ server.SessionWithClientInfo  = (*stdio)(nil)
	_ server.SessionWithElicitation = (*stdio)(nil)
)
