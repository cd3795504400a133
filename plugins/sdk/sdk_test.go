package sdk

import (
	"strings"
	"testing"
)

const sample = `{"abi":1,"phase":"call","tool":"debugpy_evaluate","category":"execute","arguments":{"expression":"user.password","frame_id":3},"result":null,"session":{"id":"s-1","client":{"name":"claude-code","version":"2.1"}},"debug_session":{"name":"api","host":"127.0.0.1","port":5678,"pid":4242,"state":"stopped"},"time":"2026-12-02T10:00:00Z","settings":{"list":["a","b\u00e9\n"],"n":-1.5e3,"t":true}}`

func TestParseAndAccess(t *testing.T) {
	v, err := Parse([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	r := &Request{v: v}
	if r.Tool() != "debugpy_evaluate" || r.Category() != "execute" || r.Phase() != "call" ||
		r.Arg("expression").Str() != "user.password" || r.Arg("frame_id").Int() != 3 ||
		r.Client() != "claude-code" || r.SessionID() != "s-1" || r.DebugSession().Get("port").Int() != 5678 ||
		r.Settings().Get("list").Index(1).Str() != "bé\n" || r.Settings().Get("n").Float() != -1500 ||
		!r.Settings().Get("t").Bool() || r.Result().Kind() != Null || r.Arg("nope").Exists() || r.Time().IsZero() {
		t.Fatalf("accessors disagree with %s", sample)
	}
	// Round trip: encode, parse again, same encoding.
	enc := v.AppendJSON(nil)
	v2, err := Parse(enc)
	if err != nil || string(v2.AppendJSON(nil)) != string(enc) {
		t.Fatalf("round trip: %v\n%s\n%s", err, enc, v2.AppendJSON(nil))
	}
}

func TestParseRejects(t *testing.T) {
	for _, bad := range []string{``, `{`, `{"a"}`, `{"a":1,}`, `[1 2]`, `"abc`, `tru`, `nul`, `01x`, `{"a":1} x`, `"\q"`, "\"a\x01\"",
		strings.Repeat("[", 500) + strings.Repeat("]", 500)} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%q): want an error", bad)
		}
	}
}

func TestDecisionEncode(t *testing.T) {
	got := string(Deny(`quote " and <tag>`).Encode())
	want := `{"decision":"deny","reason":"quote \" and \u003ctag\u003e"}`
	if got != want {
		t.Fatalf("got %s want %s", got, want)
	}
	res := ObjectValue(Member{"a", StringValue("x")})
	if got := string(Rewrite("r", res).Encode()); got != `{"decision":"allow","reason":"r","result":{"a":"x"}}` {
		t.Fatalf("rewrite: %s", got)
	}
}

func BenchmarkEvaluateNative(b *testing.B) {
	Handle(func(r *Request) Decision { return Allow(r.Tool() + r.Settings().Get("list").Index(0).Str()) })
	in := []byte(sample)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Evaluate(in)
	}
}
