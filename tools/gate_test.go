package tools

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/debugpy-guard/debugpy-guard/engine"
	"github.com/debugpy-guard/debugpy-guard/engine/audit"
	"github.com/debugpy-guard/debugpy-guard/plugins"
	"github.com/debugpy-guard/debugpy-guard/policies"
)

var (
	gateRTOnce sync.Once
	gateRT     *plugins.Runtime
)

// newPolicyGate is the real policy gate on cfg (the embedded default when
// empty), with an audit log in a temp dir.
func newPolicyGate(tb testing.TB, cfg string) (*PolicyGate, *Toolset, *audit.Log, *engine.Config) {
	tb.Helper()
	gateRTOnce.Do(func() {
		gateRT = plugins.NewRuntime(plugins.Options{CacheDir: filepath.Join(os.TempDir(), "debugpy-guard-test-cache")})
	})
	file, data := "builtin:default.toml", policies.DefaultConfig()
	if cfg != "" {
		file, data = filepath.Join(tb.TempDir(), "guard.toml"), []byte(cfg)
	}
	c, err := engine.ParseConfig(file, data, Names())
	if err != nil {
		tb.Fatal(err)
	}
	c.Sandbox.Timeout = "10s" // not a test of time; -race is slow
	e, err := engine.New(context.Background(), c, engine.Options{Runtime: gateRT, Builtin: policies.Builtin})
	if err != nil {
		tb.Fatal(err)
	}
	if err := e.Wait(context.Background()); err != nil {
		tb.Fatal(err)
	}
	live := engine.NewLive(e)
	tb.Cleanup(func() { live.Close(context.Background()) })
	alog, err := audit.Open(filepath.Join(tb.TempDir(), "audit.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { alog.Close() })
	ts := NewToolset(nil)
	return NewPolicyGate(ts, engine.NewGate(live, engine.GateOptions{Audit: alog})), ts, alog, c
}

// policyHarness is the in-process harness behind the real policy gate.
func policyHarness(t *testing.T, cfg string) (*harness, *audit.Log) {
	t.Helper()
	gate, _, alog, c := newPolicyGate(t, cfg)
	return newHarnessWithGate(t, gate, c.Hide...), alog
}

// records reads the audit log's entries.
func records(t *testing.T, path string) []audit.Entry {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := audit.Verify(f); err != nil {
		t.Fatalf("audit log: %v", err)
	}
	f.Seek(0, 0)
	var out []audit.Entry
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		var e audit.Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

const hideConfig = `
default = "allow"
hide = ["debugpy_attach_pid"]
[audit]
arguments = "full"
`

// A hidden tool is not listed, and a call to it is denied and recorded,
// decision and outcome, with the arguments as configured.
func TestGateHiddenToolDeniedAndAudited(t *testing.T) {
	h, alog := policyHarness(t, hideConfig)
	msg := h.fail("debugpy_attach_pid", map[string]any{"pid": 1})
	if !strings.Contains(msg, "debugpy_attach_pid is hidden by the policy config") || !strings.Contains(msg, "hide") {
		t.Fatalf("hidden call: %s", msg)
	}
	alog.Close()
	recs := records(t, alog.Path())
	if len(recs) != 2 || recs[0].Kind != "decision" || recs[0].Decision != "hidden" || string(recs[0].Arguments) != `{"pid":1}` ||
		recs[1].Kind != "outcome" || recs[1].Outcome != "not run" || recs[1].Call != recs[0].Call {
		t.Fatalf("records: %+v", recs)
	}
}

// A call that cannot be recorded does not run.
func TestGateDeniesWhenTheAuditLogFails(t *testing.T) {
	h, alog := policyHarness(t, hideConfig)
	alog.Close()
	msg := h.fail("debugpy_sessions", nil)
	if !strings.Contains(msg, "audit log cannot record it") {
		t.Fatalf("unrecorded call: %s", msg)
	}
}

func TestGateLimits(t *testing.T) {
	h, alog := policyHarness(t, `
default = "allow"
[modules.ratelimit]
source = "builtin:ratelimit"
settings = { max = 2, window = "1m" }
[[rules]]
tools = ["debugpy_*"]
call = ["ratelimit"]
`)
	msg := h.fail("debugpy_sessions", map[string]any{"session": strings.Repeat("x", maxArguments)})
	if !strings.Contains(msg, "over the 1048576-byte limit") {
		t.Fatalf("huge arguments: %s", msg)
	}
	msg = h.fail("debugpy_sessions", map[string]any{"session": json.RawMessage(strings.Repeat("[", 65) + strings.Repeat("]", 65))})
	if !strings.Contains(msg, "nest more than 64 levels deep") {
		t.Fatalf("deep arguments: %s", msg)
	}
	h.call("debugpy_sessions", nil)
	h.call("debugpy_sessions", nil)
	msg = h.fail("debugpy_sessions", nil)
	if !strings.Contains(msg, "rate limit: 3 calls in 1m0s, at most 2") {
		t.Fatalf("third call: %s", msg)
	}
	alog.Close()
	var decisions []string
	for _, r := range records(t, alog.Path()) {
		if r.Kind == "decision" {
			decisions = append(decisions, r.Decision)
		}
	}
	if strings.Join(decisions, ",") != "deny,deny,allow,allow,rate-limited" {
		t.Fatalf("decisions: %v", decisions)
	}
}

// Without elicitation and without the cli channel, a call that needs a
// person is denied and says why.
func TestGateApproveWithoutAChannel(t *testing.T) {
	h, _ := policyHarness(t, "")
	msg := h.fail("debugpy_launch", map[string]any{"program": "x.py"})
	if !strings.Contains(msg, "no approval channel is available") {
		t.Fatalf("launch: %s", msg)
	}
}

// FuzzGate sends malformed and hostile arguments through the gate and the
// default policy: never a panic, always a result, and an error result
// always says something.
func FuzzGate(f *testing.F) {
	for _, seed := range []string{
		`{}`, `null`, `[]`, `"x"`, `{"expression":1}`, `{"expression":"__import__('os')"}`,
		`{"program":{"a":[1,2,{"b":null}]}}`, `{"session":"` + strings.Repeat("s", 5000) + `"}`,
		`{"thread_id":1e309}`, `{"line":-1,"file":"\u0000"}`, strings.Repeat(`{"a":`, 2000) + "1" + strings.Repeat("}", 2000),
		`{"expression":"` + strings.Repeat("(", 10000) + `"}`, `{"host":"10.0.0.1","port":"x"}`, `{"frame_id":9007199254740993}`,
	} {
		f.Add(uint8(0), seed)
	}
	// The default policy, but attach goes nowhere: a fuzzed session_start
	// must not connect to whatever listens on this machine's loopback.
	cfg := strings.Replace(string(policies.DefaultConfig()), `hosts = ["loopback"]`, `hosts = []`, 1)
	if !strings.Contains(cfg, "hosts = []") {
		f.Fatal("default.toml changed: update FuzzGate")
	}
	gate, ts, _, _ := newPolicyGate(f, cfg)
	f.Fuzz(func(t *testing.T, pick uint8, args string) {
		spec := catalogue[int(pick)%len(catalogue)]
		req := mcp.CallToolRequest{}
		req.Params.Name = spec.Tool.Name
		req.Params.RawArguments = json.RawMessage(args)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		res, err := handler(spec, ts, gate)(ctx, req)
		if err != nil {
			t.Fatalf("%s(%s): protocol error %v", spec.Tool.Name, args, err)
		}
		if res == nil || (res.IsError && strings.TrimSpace(Text(res)) == "") {
			t.Fatalf("%s(%s): %+v", spec.Tool.Name, args, res)
		}
	})
}

// A module in monitor mode does not count, and its verdict is in the audit
// log: that is how a team watches a new policy before enforcing it.
func TestGateRecordsMonitorVerdicts(t *testing.T) {
	h, alog := policyHarness(t, `
default = "allow"
[modules.watch]
source = "builtin:expressions"
mode = "monitor"
[[rules]]
tools = ["debugpy_*"]
call = ["watch"]
`)
	msg := h.fail("debugpy_evaluate", map[string]any{"expression": "__import__('os')"})
	if strings.Contains(msg, "denied") {
		t.Fatalf("a monitor-mode module decided: %s", msg)
	}
	alog.Close()
	recs := records(t, alog.Path())
	if len(recs) < 1 || recs[0].Decision != "allow" || len(recs[0].Monitor) != 1 ||
		recs[0].Monitor[0].Module != "watch" || recs[0].Monitor[0].Verdict != "deny" || !strings.Contains(recs[0].Monitor[0].Reason, "__import__") {
		t.Fatalf("records: %+v", recs)
	}
}
