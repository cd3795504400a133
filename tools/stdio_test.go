package tools

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// stdioPeer is a client of ServeStdio, byte for byte.
type stdioPeer struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan map[string]any
	done  chan error
}

// newStdioPeer serves a server with three tools: "echo" answers at once,
// "wait" answers when release is closed, "ask" asks the client by
// elicitation and answers with what it said.
func newStdioPeer(t *testing.T, release chan struct{}) *stdioPeer {
	srv := server.NewMCPServer("t", "1", server.WithToolCapabilities(true), server.WithElicitation())
	srv.AddTool(mcp.NewTool("echo", mcp.WithString("s")), func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("echo " + r.GetString("s", "")), nil
	})
	srv.AddTool(mcp.NewTool("wait"), func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-release:
			return mcp.NewToolResultText("released"), nil
		case <-ctx.Done():
			return mcp.NewToolResultError("cancelled"), nil
		}
	})
	srv.AddTool(mcp.NewTool("ask"), func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := srv.RequestElicitation(ctx, mcp.ElicitationRequest{Params: mcp.ElicitationParams{Message: "ok?",
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}}}})
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		return mcp.NewToolResultText(fmt.Sprint("said ", res.Action, " ", res.Content)), nil
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &stdioPeer{t: t, in: inW, lines: make(chan map[string]any, 100), done: make(chan error, 1)}
	go func() {
		p.done <- ServeStdio(context.Background(), srv, inR, outW, slog.New(slog.NewTextHandler(io.Discard, nil)))
		outW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("a line that is not JSON: %q", sc.Bytes())
			}
			if m == nil {
				m = map[string]any{}
			}
			m[rawKey] = sc.Text() // the line as it came (nextRaw)
			p.lines <- m
		}
		close(p.lines)
	}()
	p.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"p","version":"1"}}}`)
	if m := p.next(); m["id"] != 0.0 || m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return p
}

func (p *stdioPeer) send(s string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, s+"\n"); err != nil {
		p.t.Fatal(err)
	}
}

// rawKey holds, in each message the peer reads, its line as it came.
const rawKey = " raw"

// nextRaw is the next message's line as it came.
func (p *stdioPeer) nextRaw() string {
	p.t.Helper()
	return p.next()[rawKey].(string)
}

func (p *stdioPeer) next() map[string]any {
	p.t.Helper()
	select {
	case m, ok := <-p.lines:
		if !ok {
			p.t.Fatal("the server closed its output")
		}
		return m
	case <-time.After(30 * time.Second):
		p.t.Fatal("no message from the server")
	}
	return nil
}

func callLine(id int, tool, args string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args)
}

func textOfMsg(m map[string]any) string {
	res, _ := m["result"].(map[string]any)
	content, _ := res["content"].([]any)
	if len(content) == 0 {
		return ""
	}
	c, _ := content[0].(map[string]any)
	s, _ := c["text"].(string)
	return s
}

// A call that waits does not stop the reading: the calls after it are
// answered first, and it is answered when it is done.
func TestStdioServesPastAWaitingCall(t *testing.T) {
	release := make(chan struct{})
	p := newStdioPeer(t, release)
	p.send(callLine(1, "wait", `{}`))
	for i := 2; i < 5; i++ {
		p.send(callLine(i, "echo", fmt.Sprintf(`{"s":"%d"}`, i)))
		if m := p.next(); m["id"] != float64(i) || textOfMsg(m) != fmt.Sprint("echo ", i) {
			t.Fatalf("call %d: %v", i, m)
		}
	}
	close(release)
	if m := p.next(); m["id"] != 1.0 || textOfMsg(m) != "released" {
		t.Fatalf("the waiting call: %v", m)
	}
}

// An elicitation goes out while its call waits; the client's answer, read
// by another reader, comes back to it.
func TestStdioElicitation(t *testing.T) {
	p := newStdioPeer(t, nil)
	p.send(callLine(7, "ask", `{}`))
	req := p.next()
	if req["method"] != "elicitation/create" || req["id"] == nil {
		t.Fatalf("want an elicitation request, got %v", req)
	}
	// A response to no request of ours is dropped, and nothing else.
	p.send(`{"jsonrpc":"2.0","id":424242,"result":{"action":"accept"}}`)
	id, _ := json.Marshal(req["id"])
	p.send(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"action":"accept","content":{"ok":true}}}`)
	if m := p.next(); m["id"] != 7.0 || textOfMsg(m) != "said accept map[ok:true]" {
		t.Fatalf("ask: %v", m)
	}
}

// Lines that are not JSON get a parse error and the reading goes on; blank
// lines get nothing; JSON that is not a request gets mcp-go's answer; a
// line longer than the reader's buffer is read whole; a last message
// without its newline is served.
func TestStdioOddLines(t *testing.T) {
	p := newStdioPeer(t, nil)
	p.send(`{"jsonrpc":"2.0","id":1,"method":`)
	if m := p.next(); m["error"].(map[string]any)["code"] != float64(mcp.PARSE_ERROR) || m["id"] != nil {
		t.Fatalf("not JSON: %v", m)
	}
	p.send("")
	p.send(" \t\r")
	p.send(`[1,2]`)
	if m := p.next(); m["error"] == nil {
		t.Fatalf("an array: %v", m)
	}
	big := strings.Repeat("x", 200<<10)
	p.send(callLine(2, "echo", `{"s":"`+big+`"}`))
	if m := p.next(); m["id"] != 2.0 || textOfMsg(m) != "echo "+big {
		t.Fatalf("a long line: id %v, %d bytes", m["id"], len(textOfMsg(m)))
	}
	io.WriteString(p.in, callLine(3, "echo", `{"s":"last"}`))
	p.in.Close()
	if m := p.next(); m["id"] != 3.0 || textOfMsg(m) != "echo last" {
		t.Fatalf("the last message: %v", m)
	}
	if err := <-p.done; err != nil {
		t.Fatalf("ServeStdio at EOF: %v", err)
	}
}

// At the end of input a call in flight is cancelled and answered before
// ServeStdio returns.
func TestStdioEndCancelsCallsInFlight(t *testing.T) {
	p := newStdioPeer(t, make(chan struct{}))
	p.send(callLine(1, "wait", `{}`))
	p.send(callLine(2, "echo", `{"s":"x"}`))
	if m := p.next(); m["id"] != 2.0 { // the wait is being served
		t.Fatalf("echo: %v", m)
	}
	p.in.Close()
	if m := p.next(); m["id"] != 1.0 || textOfMsg(m) != "cancelled" {
		t.Fatalf("the call in flight: %v", m)
	}
	if err := <-p.done; err != nil {
		t.Fatal(err)
	}
}

// Answers written from many goroutines at once are whole lines.
func TestStdioConcurrentAnswersAreWholeLines(t *testing.T) {
	release := make(chan struct{})
	p := newStdioPeer(t, release)
	const n = 50
	for i := 1; i <= n; i++ {
		p.send(callLine(i, "wait", `{}`))
	}
	close(release)
	seen := map[float64]bool{}
	for len(seen) < n {
		m := p.next()
		if textOfMsg(m) != "released" {
			t.Fatalf("answer: %v", m)
		}
		seen[m["id"].(float64)] = true
	}
}

// A line longer than maxMessage is not kept: it is read to its end and
// answered with an error, with the request's id when the line begins with
// it; the reading goes on. A line of maxMessage is served.
func TestStdioLineTooLong(t *testing.T) {
	p := newStdioPeer(t, nil)
	big := strings.Repeat("x", maxMessage)
	p.send(callLine(5, "echo", `{"s":"`+big+`"}`))
	m := p.next()
	e, _ := m["error"].(map[string]any)
	if m["id"] != 5.0 || e["code"] != float64(mcp.INVALID_REQUEST) || !strings.Contains(e["message"].(string), "over the 4194304-byte limit") {
		t.Fatalf("a line too long: %v", m)
	}
	// The id after the params: not found in the line's beginning.
	p.send(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"s":"` + big + `"}},"id":6}`)
	if m := p.next(); m["id"] != nil || m["error"] == nil {
		t.Fatalf("a line too long, its id last: %v", m)
	}
	// A string id, and one past 2**53, as they were sent.
	p.send(`{"jsonrpc":"2.0","id":"a-1","method":"tools/call","params":{"name":"echo","arguments":{"s":"` + big + `"}}}`)
	if m := p.next(); m["id"] != "a-1" || m["error"] == nil {
		t.Fatalf("a string id: %v", m)
	}
	p.send(`{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/call","params":{"name":"echo","arguments":{"s":"` + big + `"}}}`)
	if raw := p.nextRaw(); !strings.Contains(raw, `"id":9007199254740993`) {
		t.Fatalf("a large id: %.200s", raw)
	}
	p.send(callLine(7, "echo", `{"s":"after"}`))
	if m := p.next(); m["id"] != 7.0 || textOfMsg(m) != "echo after" {
		t.Fatalf("after: %v", m)
	}
	fits := strings.Repeat("y", maxMessage-len(callLine(8, "echo", `{"s":""}`)))
	p.send(callLine(8, "echo", `{"s":"`+fits+`"}`))
	if m := p.next(); m["id"] != 8.0 || textOfMsg(m) != "echo "+fits {
		t.Fatalf("a line of maxMessage bytes: id %v %v", m["id"], m["error"])
	}
}

// TestEncodeAgreesWithMarshal: encode writes what json.Marshal writes, byte
// for byte, for tool results of every shape: text with HTML characters,
// U+2028, control characters and invalid UTF-8; structured content as a
// value and as raw JSON with spaces; an error result, _meta, ids of each
// kind; and for other messages. A result json.Marshal refuses, encode
// refuses too.
func TestEncodeAgreesWithMarshal(t *testing.T) {
	pieces := []string{"a", "<", ">", "&", "\u2028", "\u2029", "\x00", "\n", `"`, `\`, "é", "\xff", "\xe2\x80", "😀",
		"\x7f", "\b", "\f", "\t", "\x1f", "\r"}
	rnd := rand.New(rand.NewPCG(5, 6))
	text := func() string {
		var sb strings.Builder
		for range rnd.IntN(12) {
			sb.WriteString(pieces[rnd.IntN(len(pieces))])
		}
		return sb.String()
	}
	ids := []mcp.RequestId{mcp.NewRequestId(int64(7)), mcp.NewRequestId("a<b\u2028\xff"), mcp.NewRequestId(nil), mcp.NewRequestId(int64(-1)),
		mcp.NewRequestId(int64(math.MaxInt64)), mcp.NewRequestId(2.5), mcp.NewRequestId("")}
	for n := range 3000 {
		res := mcp.CallToolResult{IsError: rnd.IntN(2) == 0}
		for range rnd.IntN(3) {
			// Text alone (appendTextResult's), and what only MarshalJSON encodes.
			switch tc := mcp.NewTextContent(text()); rnd.IntN(8) {
			case 0:
				tc.Annotations = &mcp.Annotations{Priority: ptr(0.5)}
				res.Content = append(res.Content, tc)
			case 1:
				tc.Meta = mcp.NewMetaFromMap(map[string]any{"k": text()})
				res.Content = append(res.Content, tc)
			case 2:
				res.Content = append(res.Content, &tc)
			case 3:
				res.Content = append(res.Content, mcp.NewImageContent("aGk=", "image/png"))
			default:
				res.Content = append(res.Content, tc)
			}
		}
		switch rnd.IntN(5) {
		case 0:
			res.StructuredContent = map[string]any{"k": text(), "n": rnd.IntN(100), "l": []any{text(), nil, true}}
		case 1:
			res.RawStructuredContent = json.RawMessage(` { "k" : ` + strconv.Quote(text()) + ` , "x": [1, 2.5e3, null] } `)
		case 2:
			res.RawStructuredContent = json.RawMessage(`{"k":`) // not JSON: both refuse
		}
		if rnd.IntN(4) == 0 {
			res.Meta = mcp.NewMetaFromMap(map[string]any{"progressToken": text()})
		}
		if rnd.IntN(3) == 0 {
			res.ResultType = "complete"
		}
		if rnd.IntN(8) == 0 {
			res.RequestState = text()
		}
		var msg any = mcp.NewJSONRPCResultResponse(ids[n%len(ids)], &res) // as HandleMessage answers
		switch n % 10 {
		case 0: // other messages go to json.Marshal as they are
			msg = mcp.NewJSONRPCResultResponse(ids[n%len(ids)], map[string]any{"t": text()})
		case 1:
			msg = mcp.NewJSONRPCResultResponse(ids[n%len(ids)], (*mcp.CallToolResult)(nil))
		case 2, 3, 4:
			msg = mcp.NewJSONRPCResultResponse(ids[n%len(ids)], res)
		}
		want, werr := json.Marshal(msg)
		got, gerr := encode(msg)
		if (werr != nil) != (gerr != nil) {
			t.Fatalf("json.Marshal: %v, encode: %v", werr, gerr)
		}
		if string(got) != string(want) {
			t.Fatalf("encode:\n%s\njson.Marshal:\n%s", got, want)
		}
	}
}

// TestHandleMessageAnswersAToolCallsResult: mcp-go's HandleMessage answers
// a tools/call with the type encode writes itself (toolAnswer). An answer of
// another type would still be encoded, by json.Marshal, at twice the cost:
// this test is what says so (the earlier encode looked for a value, never
// found one in a server's answer, and its tests, which made their own
// answers, did not see it).
func TestHandleMessageAnswersAToolCallsResult(t *testing.T) {
	srv := server.NewMCPServer("t", "1", server.WithToolCapabilities(true))
	srv.AddTool(mcp.NewTool("no"), func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultError("denied by policy: no"), nil
	})
	ctx := context.Background()
	srv.HandleMessage(ctx, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"p","version":"1"}}}`))
	msg := srv.HandleMessage(ctx, []byte(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"no","arguments":{}}}`))
	_, res, ok := toolAnswer(msg)
	if !ok {
		t.Fatalf("HandleMessage answered a tools/call with %T (%T in it): encode would hand it to json.Marshal", msg, msg.(mcp.JSONRPCResponse).Result)
	}
	if _, ok := appendTextResult(nil, res); !ok {
		t.Fatalf("a denied call's result is not text alone: %+v", res)
	}
	got, err := encode(msg)
	if want, _ := json.Marshal(msg); err != nil || string(got) != string(want) {
		t.Fatalf("encode: %s %v\njson.Marshal: %s", got, err, want)
	}
}

// BenchmarkEncodeResult times a tools/call answer's encoding by
// json.Marshal and by encode, for a denied call's answer and for a
// listing of 200 variables (~30 KB, its structured content and its text).
func BenchmarkEncodeResult(b *testing.B) {
	vars := make([]any, 200)
	for i := range vars {
		vars[i] = map[string]any{"name": "v" + strconv.Itoa(i), "value": "'some <value> & more " + strings.Repeat("x", i%40) + "'",
			"type": "str", "evaluate_name": "frame.v" + strconv.Itoa(i), "variables_reference": i}
	}
	listing := map[string]any{"variables": vars}
	text, _ := json.Marshal(listing)
	for _, c := range []struct {
		name string
		res  mcp.CallToolResult
	}{
		{"denied", mcp.CallToolResult{IsError: true, Content: []mcp.Content{mcp.NewTextContent(
			"denied by policy: expressions: expression: a call of __import__, which is not in expressions.allow_calls (len, repr, str, type, isinstance, id)")}}},
		{"variables", mcp.CallToolResult{StructuredContent: listing, Content: []mcp.Content{mcp.NewTextContent(string(text))}}},
	} {
		msg := mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(42)), &c.res) // as HandleMessage answers
		for _, enc := range []struct {
			name string
			fn   func(any) ([]byte, error)
		}{{"marshal", json.Marshal}, {"encode", encode}} {
			b.Run(c.name+"/"+enc.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := enc.fn(msg); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func ptr[T any](v T) *T { return &v }
