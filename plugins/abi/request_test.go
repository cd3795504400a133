package abi

import (
	"bytes"
	"encoding/json"
	"testing"
)

// reference is the request prefix as encoding/json writes it: what the host
// wrote before Request had its own encoder.
func reference(r *Request) ([]byte, error) {
	args, res := json.RawMessage(r.Arguments), json.RawMessage(r.Result)
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	if len(bytes.TrimSpace(res)) == 0 {
		res = json.RawMessage("null")
	}
	d := Derived{Code: []Code{}, Paths: []Path{}, Addresses: []Address{}, Processes: []Process{}, Holders: []string{}, Cut: []string{}, Objects: []string{}, Sequences: []string{}, Texts: []string{}, Before: []Before{}}
	if r.Derived != nil {
		d = *r.Derived
		if d.Code == nil {
			d.Code = []Code{}
		}
		if d.Paths == nil {
			d.Paths = []Path{}
		}
		if d.Addresses == nil {
			d.Addresses = []Address{}
		}
		if d.Processes == nil {
			d.Processes = []Process{}
		}
		if d.Holders == nil {
			d.Holders = []string{}
		}
		if d.Cut == nil {
			d.Cut = []string{}
		}
		if d.Objects == nil {
			d.Objects = []string{}
		}
		if d.Sequences == nil {
			d.Sequences = []string{}
		}
		if d.Texts == nil {
			d.Texts = []string{}
		}
		if d.Before == nil {
			d.Before = []Before{}
		}
	}
	head := struct {
		ABI          int             `json:"abi"`
		Phase        string          `json:"phase"`
		Tool         string          `json:"tool"`
		Category     string          `json:"category"`
		Arguments    json.RawMessage `json:"arguments"`
		Result       json.RawMessage `json:"result"`
		Session      any             `json:"session"`
		DebugSession *DebugSession   `json:"debug_session"`
		Time         string          `json:"time"`
		Derived      *Derived        `json:"derived"`
	}{1, r.Phase, r.Tool, r.Category, args, res,
		map[string]any{"id": r.MCPSession, "client": r.Client}, r.DebugSession, r.Time, &d}
	b, err := json.Marshal(head)
	if err != nil {
		return nil, err
	}
	return append(b[:len(b)-1], `,"settings":`...), nil
}

var tricky = []string{"", "plain", `quote " back \ slash`, "<tag> & </tag>", "\b\f\n\r\t\x00\x01\x1f\x7f", "é ü 日本 🙂",
	"\u2028 \u2029", "\xff\xfe bad \xed\xa0\x80 utf8", "%s %d {x}", "\\u0041 not an escape"}

func TestRequestAsEncodingJSON(t *testing.T) {
	raws := []string{``, `  `, `{}`, `{"a":1}`, " {\n \"a\" : [ 1 , 2 ] ,\t\"b\":\"x y\" } ", `{"s":"<>&\u2028"}`, "{\"s\":\"\u2028\u2029<\"}",
		`{"q":"\"\\","n":null,"t":true,"f":-1.5e3}`, `[]`, `"str"`, `null`}
	for i, s := range tricky {
		for j, raw := range raws {
			r := &Request{Phase: "call", Tool: s, Category: tricky[(i+1)%len(tricky)], Arguments: []byte(raw), Result: []byte(raws[(j+3)%len(raws)]),
				MCPSession: tricky[(i+2)%len(tricky)], Client: Client{Name: s, Version: tricky[(i+3)%len(tricky)]}, Time: s}
			if i%2 == 0 {
				r.DebugSession = &DebugSession{Name: s, Host: tricky[(i+4)%len(tricky)], Port: i * 100, PID: j, State: s}
			}
			if j%3 != 0 {
				r.Derived = &Derived{Code: []Code{{Argument: s, Kind: "expression", Text: tricky[(i+5)%len(tricky)]}},
					Paths:     []Path{{Argument: "file", Kind: "source", Given: s, Resolved: tricky[(i+6)%len(tricky)], Session: j%2 == 0}, {}},
					Addresses: []Address{{Argument: "host", Host: s, Address: "::1", Port: -j}}}
				if j%2 == 0 {
					r.Derived.Holders = []string{s, tricky[(i+7)%len(tricky)]}
					r.Derived.Cut = []string{tricky[(i+8)%len(tricky)]}
					r.Derived.Before = []Before{{Category: s, Text: tricky[(i+9)%len(tricky)]}, {}}
				}
			}
			compare(t, r)
		}
	}
}

func compare(t *testing.T, r *Request) {
	t.Helper()
	want, err := reference(r)
	if err != nil {
		t.Fatalf("reference: %v", err)
	}
	if got := r.AppendPrefix(nil); !bytes.Equal(got, want) {
		t.Fatalf("request prefix differs from encoding/json's:\n got %s\nwant %s", got, want)
	}
}

// FuzzRequest: for any strings and any valid JSON arguments, the prefix is
// encoding/json's, byte for byte.
func FuzzRequest(f *testing.F) {
	for _, s := range tricky {
		f.Add(s, s, []byte(`{"a":" <\u2028> "}`), 1, true)
	}
	f.Fuzz(func(t *testing.T, a, b string, raw []byte, n int, flag bool) {
		if !json.Valid(raw) && len(bytes.TrimSpace(raw)) > 0 {
			return // the host refuses it before (engine)
		}
		r := &Request{Phase: a, Tool: b, Category: a + b, Arguments: raw, MCPSession: b, Client: Client{Name: a, Version: b}, Time: a}
		if flag {
			r.Result = raw
			r.DebugSession = &DebugSession{Name: b, Host: a, Port: n, PID: -n, State: a}
			r.Derived = &Derived{Code: []Code{{a, b, a}}, Paths: []Path{{a, b, a, b, flag, !flag}}, Addresses: []Address{{b, a, b, n, a, -n}}, Processes: []Process{{a, -n, b, n}}, Holders: []string{b, a}, Cut: []string{a}, Objects: []string{b}, Sequences: []string{a}, Texts: []string{b, a}, Before: []Before{{a, b}, {b, a}}}
		}
		compare(t, r)
	})
}

// TestAppendVerdict: AppendVerdict is AppendString for every verdict and
// for strings that are none.
func TestAppendVerdict(t *testing.T) {
	for _, v := range []Verdict{Allow, Deny, Approve, Abstain, "", "Allow", "allow ", "<deny>", "\u2028"} {
		if got, want := AppendVerdict([]byte("x"), v), AppendString([]byte("x"), string(v)); !bytes.Equal(got, want) {
			t.Errorf("AppendVerdict(%q) = %s, AppendString: %s", v, got, want)
		}
	}
}

// FuzzAppendString: AppendString is encoding/json's encoding of a string.
func FuzzAppendString(f *testing.F) {
	for _, s := range tricky {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("%q: %s, encoding/json: %s", s, got, want)
		}
	})
}
