package sdk

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/debugpy-guard/debugpy-guard/plugins/abi"
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

// TestEndStringAgreesWithEncodingJSON: strings of every length up to 80
// bytes, with quotes, backslashes and \u escapes at every place, as
// encoding/json writes them, end where encoding/json's own reading says
// (json.Decoder's InputOffset).
func TestEndStringAgreesWithEncodingJSON(t *testing.T) {
	pieces := []string{"a", `"`, `\`, `\\`, `\"`, "é", "<", "\n", "\u2028", "x\\"}
	rnd := rand.New(rand.NewPCG(1, 2))
	for n := range 3000 {
		var sb strings.Builder
		for sb.Len() < n%80 {
			sb.WriteString(pieces[rnd.IntN(len(pieces))])
		}
		enc, err := json.Marshal(sb.String())
		if err != nil {
			t.Fatal(err)
		}
		doc := append(append([]byte{}, enc...), `,"tail\""`...)
		d := json.NewDecoder(strings.NewReader(string(doc)))
		var s string
		if err := d.Decode(&s); err != nil {
			t.Fatal(err)
		}
		if got, want := endString(doc, 0), int(d.InputOffset()); got != want {
			t.Fatalf("endString(%s) = %d, encoding/json ends it at %d", doc, got, want)
		}
		if got := endString(enc[:len(enc)-1], 0); got != len(enc) {
			t.Fatalf("endString(%s), cut before its quote = %d, want %d (not closed)", enc[:len(enc)-1], got, len(enc))
		}
	}
}

// TestElementsAsBeforeAgrees: a batch's elements found by comparison with
// the last call's (elementsAsBefore) are the elements a scan finds, call
// after call, whatever changes between two calls: an element replaced, one
// that starts with the last one's bytes (12 after 1, a longer object), a
// shorter or longer array, spaces; and it says an element is the same as
// the last call's exactly when it is.
func TestElementsAsBeforeAgrees(t *testing.T) {
	pool := []string{`{"a":1}`, `{"a":12}`, `{"a":1,"b":[2]}`, `{}`, `[]`, `[1]`, `[1,2]`, `1`, `12`, `-1.5e3`,
		`"x"`, `"x\"y"`, `{"s":"}"}`, `{"s":"]\""}`, `null`, `true`, `{"policy":"category","read":"allow"}`}
	rnd := rand.New(rand.NewPCG(3, 4))
	var before [][]byte
	var last []string
	lastAt := map[int]string{} // each index's element, as the calls that had one last had it
	for range 5000 {
		elems := last
		if len(elems) == 0 || rnd.IntN(3) == 0 { // a new array now and then; mostly the last one again
			elems = nil
			for range rnd.IntN(6) {
				elems = append(elems, pool[rnd.IntN(len(pool))])
			}
		} else if rnd.IntN(2) == 0 {
			elems = slices.Clone(elems)
			elems[rnd.IntN(len(elems))] = pool[rnd.IntN(len(pool))]
		}
		last = elems
		sep := ","
		if rnd.IntN(4) == 0 {
			sep = " , "
		}
		doc := "[" + strings.Join(elems, sep) + "]"
		var want, got []string
		view([]byte(doc)).elements(func(raw []byte) bool { want = append(want, string(raw)); return true })
		view([]byte(doc)).elementsAsBefore(&before, func(k int, raw []byte, same bool) bool {
			got = append(got, string(raw))
			if was, ok := lastAt[k]; same != (ok && was == string(raw)) {
				t.Fatalf("%s: element %d %s: same %v, and the last call's element %d was %q", doc, k, raw, same, k, was)
			}
			lastAt[k] = string(raw)
			return true
		})
		if !slices.Equal(got, want) || !slices.Equal(want, elems) {
			t.Fatalf("%s: elementsAsBefore read %q, elements %q", doc, got, want)
		}
	}
}

// TestHasPrefixAgreesWithBytes: hasPrefix is bytes.HasPrefix, for prefixes
// of every length up to 40 that differ from b at each place in turn.
func TestHasPrefixAgreesWithBytes(t *testing.T) {
	b := []byte(`{"policy":"targets","hosts":["loopback"],"files":"approve"}`)
	for n := 0; n <= 40; n++ {
		p := bytes.Clone(b[:n])
		for _, q := range [][]byte{p, append(bytes.Clone(p), 'x'), b[:0], nil} {
			if hasPrefix(b, q) != bytes.HasPrefix(b, q) || hasPrefix(q, b) != bytes.HasPrefix(q, b) {
				t.Fatalf("hasPrefix(%q, %q) disagrees with bytes.HasPrefix", b, q)
			}
		}
		for i := range n {
			p[i] ^= 0x20
			if hasPrefix(b, p) || hasPrefix(b[:n], p) {
				t.Fatalf("hasPrefix(%q, %q): true", b, p)
			}
			p[i] ^= 0x20
		}
	}
}

// TestHandlePreparedReadsEachSettingsOnce: a policy registered with
// HandlePrepared reads each settings once, whether calls come one by one
// or in batches, in the same order or not (two chains of one config take
// turns); past the bound on kept settings it still answers each call with
// its own; and a handler that keeps its settings Value sees them intact
// after the request's bytes are overwritten.
func TestHandlePreparedReadsEachSettingsOnce(t *testing.T) {
	defer Handle(nil)
	reads := 0
	HandlePrepared(func(s Value) func(*Request) Decision {
		reads++
		return func(r *Request) Decision { return Allow(r.Tool() + ":" + s.Get("k").Str()) }
	})
	req := func(settings string) []byte {
		return []byte(`{"abi":1,"phase":"call","tool":"t","settings":` + settings + `}`)
	}
	one := func(settings, want string) {
		t.Helper()
		in := req(settings)
		out, failed := Evaluate(in)
		copy(in, strings.Repeat("#", len(in))) // the host's buffer, reused
		if failed || !strings.Contains(string(out), `"reason":"t:`+want+`"`) {
			t.Fatalf("settings %s: %s", settings, out)
		}
	}
	batch := func(want string, settings ...string) {
		t.Helper()
		in := []byte(`{"abi":1,"phase":"call","tool":"t","settings":null,"batch":[` + strings.Join(settings, ",") + `]}`)
		out, failed := EvaluateBatch(in, func(int) {})
		copy(in, strings.Repeat("#", len(in)))
		var got []struct{ Reason string }
		if err := json.Unmarshal(out, &got); failed || err != nil {
			t.Fatalf("batch %v: %s", settings, out)
		}
		var reasons []string
		for _, g := range got {
			reasons = append(reasons, g.Reason)
		}
		if strings.Join(reasons, " ") != want {
			t.Fatalf("batch %v: %q, want %q", settings, reasons, want)
		}
	}
	for range 3 {
		one(`{"k":"a"}`, "a")
		one(`{"k":"b"}`, "b")
		batch("t:a t:b", `{"k":"a"}`, `{"k":"b"}`)
		batch("t:b", `{"k":"b"}`) // another chain: its first entry changes
		batch("t:b t:a t:c", `{"k":"b"}`, `{"k":"a"}`, `{"k":"c"}`)
	}
	if reads != 3 {
		t.Fatalf("%d reads of three settings", reads)
	}
	for i := range 3 * preparedSize {
		k := strconv.Itoa(i)
		one(`{"k":"`+k+`"}`, k)
		batch("t:"+k+" t:x", `{"k":"`+k+`"}`, `{"k":"x"}`)
	}
	if prepared.n > preparedSize {
		t.Fatalf("%d settings kept, bound %d", prepared.n, preparedSize)
	}
	// Another policy registered forgets the first's handlers.
	HandlePrepared(func(s Value) func(*Request) Decision {
		return func(r *Request) Decision { return Deny("other:" + s.Get("k").Str()) }
	})
	last := strconv.Itoa(3*preparedSize - 1) // the loop's last settings, kept
	if out, _ := Evaluate(req(`{"k":"` + last + `"}`)); !strings.Contains(string(out), `"other:`+last+`"`) {
		t.Fatalf("after HandlePrepared again: %s", out)
	}
	out, _ := EvaluateBatch([]byte(`{"abi":1,"phase":"call","tool":"t","settings":null,"batch":[{"k":"`+last+`"},{"k":"x"}]}`), func(int) {})
	if !strings.Contains(string(out), `"other:`+last+`"`) {
		t.Fatalf("a batch after HandlePrepared again: %s", out)
	}
	HandlePrepared(func(s Value) func(*Request) Decision {
		return func(r *Request) Decision { return Allow(r.Tool() + ":" + s.Get("k").Str()) }
	})
	// A policy's own tests may call from several goroutines (make test
	// runs with -race).
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 50 {
				k := strconv.Itoa((g + i) % 20)
				if out, failed := Evaluate(req(`{"k":"` + k + `"}`)); failed || !strings.Contains(string(out), `"t:`+k+`"`) {
					t.Errorf("settings %s: %s", k, out)
				}
				in := []byte(`{"abi":1,"phase":"call","tool":"t","settings":null,"batch":[{"k":"` + k + `"},{"k":"x"}]}`)
				if out, failed := EvaluateBatch(in, func(int) {}); failed || !strings.Contains(string(out), `"t:`+k+`"`) {
					t.Errorf("batch %s: %s", k, out)
				}
			}
		})
	}
	wg.Wait()
}

// TestEncodedReasonReusesOnlyTheSameString: a reason's kept JSON is used
// for the very string it was made from, never for another string, even
// one with the same bytes or at the same address with another length.
func TestEncodedReasonReusesOnlyTheSameString(t *testing.T) {
	var e encodedReason
	long := "a reason <with> \"quotes\", é and \u2028 in it"
	for i, r := range []string{long, long, strings.Clone(long), long[:20], long, strings.Repeat("b", len(long)), "short", long[1:], long[1:]} {
		if got, want := string(e.append(nil, r)), string(abi.AppendString(nil, r)); got != want {
			t.Fatalf("reason %d %q: %s, want %s", i, r, got, want)
		}
	}
	e.append(nil, long)
	e.json = []byte(`"kept"`) // what a later call of the same string appends
	if got := string(e.append(nil, long)); got != `"kept"` {
		t.Fatalf("the same string again was encoded again: %s", got)
	}
	if got := string(e.append(nil, strings.Clone(long))); got != string(abi.AppendString(nil, long)) {
		t.Fatalf("another string with the same bytes: %s", got)
	}
}

// TestSetChangesOnlyItsValue: a Value is two words, its built part shared
// by copies; Set keeps what it did when the parts were inline: a copy made
// before sees a replaced member (the members are shared, as a slice's
// elements) but not an added one.
func TestSetChangesOnlyItsValue(t *testing.T) {
	a := ObjectValue(Member{"k", StringValue("1")})
	b := a
	b.Set("k", StringValue("2"))
	b.Set("new", StringValue("3"))
	if got := string(a.AppendJSON(nil)); got != `{"k":"2"}` {
		t.Fatalf("a after b's Set: %s", got)
	}
	if got := string(b.AppendJSON(nil)); got != `{"k":"2","new":"3"}` {
		t.Fatalf("b: %s", got)
	}
	var m Value
	m.Set("x", IntValue(1))
	p, _ := Parse([]byte(`{"y":true}`))
	q := p
	p.Set("z", NullValue())
	if got := string(m.AppendJSON(nil)) + string(p.AppendJSON(nil)) + string(q.AppendJSON(nil)); got != `{"x":1}{"y":true,"z":null}{"y":true}` {
		t.Fatalf("Set on Missing and on a parsed object: %s", got)
	}
	if (Value{}).Kind() != Missing || NullValue().Kind() != Null || StringValue("s").Str() != "s" || !BoolValue(true).Bool() ||
		IntValue(7).Int() != 7 || ArrayValue(IntValue(1)).Len() != 1 || ArrayValue(IntValue(1)).Index(0).Int() != 1 {
		t.Fatal("built values read wrong")
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

// A Request reused from call to call gives each call its own phase, tool
// and category: the last call's string again only when the bytes are that
// string with no escape (StrAgain), and each one read as Str reads it.
func TestNamesOfEachCall(t *testing.T) {
	defer Handle(nil)
	var got []string
	Handle(func(r *Request) Decision {
		got = append(got, r.Phase()+"|"+r.Tool()+"|"+r.Category())
		return Abstain()
	})
	for _, c := range []struct{ phase, tool, category, want string }{
		{`"call"`, `"debugpy_evaluate"`, `"execute"`, "call|debugpy_evaluate|execute"},
		{`"call"`, `"debugpy_evaluate"`, `"execute"`, "call|debugpy_evaluate|execute"},
		{`"result"`, `"debugpy_evaluate"`, `"read"`, "result|debugpy_evaluate|read"},
		{`"result"`, `"debugpy_\u0065valuate"`, `"re\u0061d"`, "result|debugpy_evaluate|read"},
		{`"call"`, `"a\\b"`, `"read"`, "call|a\\b|read"}, // a, a backslash, b
		// The same bytes as the last tool's string, but a JSON escape: a
		// and a backspace.
		{`"call"`, `"a\b"`, `"read"`, "call|a\b|read"},
		{`"call"`, `null`, `"read"`, "call||read"},
		{`"call"`, `"debugpy_evaluat"`, `"read"`, "call|debugpy_evaluat|read"},
	} {
		got = got[:0]
		in := `{"abi":1,"phase":` + c.phase + `,"tool":` + c.tool + `,"category":` + c.category + `,"settings":{}}`
		if _, failed := Evaluate([]byte(in)); failed || len(got) != 1 {
			t.Fatalf("%s: failed", in)
		}
		if got[0] != c.want {
			t.Errorf("%s: %q, want %q", in, got[0], c.want)
		}
	}
}

// StrAgain reads what Str reads, and gives prev itself exactly when the
// value is prev's bytes with no escape: a string with an escape, a prefix
// of prev, a number, null, an absent key and a built string are read anew.
func TestStrAgain(t *testing.T) {
	// a, two backslashes, b: the bytes between the quotes of "a\\b", whose
	// value is a, one backslash, b.
	prev := strings.Clone("a\\\\b")
	for _, c := range []struct {
		json string
		prev string
		same bool // prev itself comes back
	}{
		{`"debugpy_evaluate"`, "debugpy_evaluate", true},
		{`"__import__('os')"`, "__import__('os')", true},
		{`""`, "", true},
		{`"debugpy_\u0065valuate"`, "debugpy_evaluate", false},
		{`"debugpy_evaluat"`, "debugpy_evaluate", false},
		{`"debugpy_evaluatf"`, "debugpy_evaluate", false},
		{`"debugpy_evaluate"`, "debugpy_evaluat", false},
		{`"a\\b"`, prev, false},
		{`"a\"b"`, "a\\\"b", false},
		{`"a\nb"`, "a\\nb", false},
		{`5`, "5", false},
		{`"5"`, "5", true},
		{`null`, "null", false},
		{`true`, "true", false},
	} {
		doc := `{"k":` + c.json + `}`
		for _, v := range []Value{view([]byte(doc)).Get("k"), mustParse(t, doc).Get("k")} {
			p := strings.Clone(c.prev)
			got := v.StrAgain(p)
			if got != v.Str() {
				t.Errorf("%s with %q: %q, Str reads %q", c.json, c.prev, got, v.Str())
			}
			if same := len(p) > 0 && unsafe.StringData(got) == unsafe.StringData(p); same != c.same && len(p) > 0 {
				t.Errorf("%s with %q: prev itself %v, want %v", c.json, c.prev, same, c.same)
			}
		}
	}
	if got := view([]byte(`{}`)).Get("k").StrAgain("x"); got != "" {
		t.Errorf("an absent key: %q", got)
	}
	if got := StringValue("x").StrAgain("x"); got != "x" {
		t.Errorf("a built string: %q", got)
	}
}

func mustParse(t *testing.T, doc string) Value {
	t.Helper()
	v, err := Parse([]byte(doc))
	if err != nil {
		t.Fatalf("%s: %v", doc, err)
	}
	return v
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

// FuzzScan checks the quick scans (end, members, elements) against the
// validating parser: on every document Parse accepts, end finds the end of
// each value where skip does, and members and elements see what a
// validating walk sees; on any input they stop without a panic.
func FuzzScan(f *testing.F) {
	for _, s := range []string{sample, `{"a":"\\\"}","b":[1,{"c":"]"}],"d\u0022":null}`, `[1,-2.5e3,true,false,null,"x\\\\"]`,
		` { "k" : [ ] , "l" : { } } `, `{"a":1,"\u0061":2,"A":3,"a":4}`, `{"a\\":1,"a\u005c":2}`, `{"a":}`, `{"a":1,}`, `["\"]`, `[1,`, `{"a`, `"\\`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v := view(data) // malformed: the scans must stop, whatever they find
		v.Len()
		v.Get("a")
		v.Index(3)
		for _, m := range v.Members() {
			m.Value.Len()
		}
		if _, err := Parse(data); err != nil {
			return
		}
		checkEnds(t, data, 0)
		// Get is the first member of that name, its escapes read: a
		// repeated key, or one spelled with \u escapes, finds what a
		// reading of every member finds first.
		ms := v.Members()
		for _, m := range ms {
			first := slices.IndexFunc(ms, func(o Member) bool { return o.Key == m.Key })
			if got := v.Get(m.Key); string(got.raw) != string(ms[first].Value.raw) {
				t.Fatalf("%q: Get(%q) = %q, the first member of that name holds %q", data, m.Key, got.raw, ms[first].Value.raw)
			}
		}
	})
}

// checkEnds walks the valid document b with the validating parser and, at
// each value's start, compares end with skip; for an object or an array it
// also compares the members or elements the scans report.
func checkEnds(t *testing.T, b []byte, depth int) {
	p := parser{b: b}
	p.ws()
	start := p.i
	if err := p.skip(0); err != nil {
		t.Fatalf("skip: %v", err)
	}
	if got := end(b, start); got != p.i {
		t.Fatalf("end(%q, %d) = %d, skip says %d", b, start, got, p.i)
	}
	if depth > 20 {
		return
	}
	v := Value{raw: b[start:p.i]}
	var want [][]byte // the values inside, found by the validating parser
	q := parser{b: v.raw, i: 1}
	switch v.raw[0] {
	case '{', '[':
		for {
			q.ws()
			if q.b[q.i] == '}' || q.b[q.i] == ']' {
				break
			}
			if v.raw[0] == '{' {
				if _, err := q.skipString(); err != nil {
					t.Fatal(err)
				}
				q.ws()
				q.i++ // ':'
				q.ws()
			}
			vs := q.i
			if err := q.skip(0); err != nil {
				t.Fatal(err)
			}
			want = append(want, v.raw[vs:q.i])
			if done, _ := q.next(v.raw[0] + 2); done { // '{'+2 is '}', '['+2 is ']'
				break
			}
		}
	default:
		return
	}
	var got [][]byte
	v.members(func(_ []byte, _ bool, val []byte) bool { got = append(got, val); return true })
	v.elements(func(val []byte) bool { got = append(got, val); return true })
	if len(got) != len(want) {
		t.Fatalf("%q: the scans found %d values, the parser %d", v.raw, len(got), len(want))
	}
	for i := range got {
		if string(got[i]) != string(want[i]) {
			t.Fatalf("%q: value %d is %q, the parser says %q", v.raw, i, got[i], want[i])
		}
		checkEnds(t, want[i], depth+1)
	}
}

// FuzzRequestIndex: the request's index finds what Value.Get finds (the
// first of repeated keys), in any order of asking, and the batch's
// elements read from its start are those of the whole "batch" value.
func FuzzRequestIndex(f *testing.F) {
	f.Add([]byte(sample), "tool")
	f.Add([]byte(`{"a":1,"batch":[{"x":"]"},[1]],"a":2,"z":"\"}"}`), "z")
	f.Add([]byte(`{"batch":[1,2`), "batch")
	f.Add([]byte(`{"b\u0061tch":[3],"batch":[4]}`), "a")
	f.Add([]byte(`{"Batch":[9],"BATCH":[8],"batch":[1],"Tool":"x","tool":"debugpy_evaluate"}`), "tool")
	f.Add([]byte(`{"":1,"batch":[a":2,"]"`), "batch") // malformed: elements cut differently, no panic
	f.Add([]byte(`{"derived":1,"d\u0065rived":2,"settings":{"s":1},"tool":"a","tool":"b","batch":[{}],"derived":3}`), "derived")
	f.Add([]byte(`{"phase":"call","batch":[1],"settings":[2],"arguments":{"x":1}}`), "arguments")
	f.Fuzz(func(t *testing.T, data []byte, key string) {
		v := view(data)
		r := &Request{v: v}
		b := r.batch()
		var got, want []string
		b.elements(func(e []byte) bool { got = append(got, string(e)); return true })
		v.Get("batch").elements(func(e []byte) bool { want = append(want, string(e)); return true })
		// On a malformed document (never the host's) the two may cut an
		// element differently; they must only stop, which reaching here shows.
		if _, err := Parse(data); err == nil && strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Fatalf("%q: batch elements %q, want %q", data, got, want)
		}
		// The members the accessors read (by their slots) and others, in
		// an order the inputs choose.
		keys := []string{key, "batch", "a", key, "phase", "tool", "category", "arguments", "result", "session",
			"debug_session", "time", "derived", "settings"}
		for i := len(keys) - 1; i > 0; i-- {
			j := (int(fold(data)) + i*7) % (i + 1)
			keys[i], keys[j] = keys[j], keys[i]
		}
		for _, k := range keys {
			if g, w := r.get(k), v.Get(k); string(g.raw) != string(w.raw) {
				t.Fatalf("%q: get(%q) = %q, Value.Get: %q", data, k, g.raw, w.raw)
			}
		}
		if r.Derived().raw == nil != (v.Get("derived").raw == nil) || string(r.Settings().raw) != string(v.Get("settings").raw) ||
			r.Tool() != v.Get("tool").Str() || string(r.Arguments().raw) != string(v.Get("arguments").raw) {
			t.Fatalf("%q: the accessors disagree with Value.Get", data)
		}
	})
}

// fold is a number of the bytes, to shuffle by.
func fold(b []byte) uint32 {
	h := uint32(2166136261)
	for _, c := range b {
		h = (h ^ uint32(c)) * 16777619
	}
	return h
}
