package tools

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/debugpy-guard/debugpy-guard/plugins/sdk"
)

// The arguments are read once, strictly: everything that two JSON readers
// could read two ways is refused, and what is accepted is re-encoded.
func TestDecodeStrictRefuses(t *testing.T) {
	for _, c := range []struct{ raw, want string }{
		{`{"EXPRESSION":"1"}`, `unknown argument "EXPRESSION"`},
		{`{"Expression":"1"}`, `did you mean "expression"`},
		{`{"expression":"1","expression":"2"}`, `"expression" is given twice`},
		{`{"expression":"1","expr\u0065ssion":"2"}`, `"expression" is given twice`},
		{`{"expression":"\ud800\u0022"}`, `unpaired surrogate`},
		{`{"expression":"\udc00"}`, `unpaired surrogate`},
		{`{"expression":"\ud800"}`, `unpaired surrogate`},
		{"{\"expression\":\"\xff\"}", `not valid UTF-8`},
		{"{\"expression\":\"\xed\xa0\x80\"}", `not valid UTF-8`},
		{`{"expression":null}`, `must be a string, not null`},
		{`{"expression":1}`, `must be a string, not a number`},
		{`{"frame_id":1.0}`, `must be an integer`},
		{`{"frame_id":1e2}`, `must be an integer`},
		{`{"frame_id":9223372036854775808}`, `must be an integer`},
		{`{"frame_id":"1"}`, `must be an integer, not a string`},
		{`{"expression":"1"} {}`, `followed by more JSON`},
		{`{"expression":"1"`, `not valid JSON`},
		{`[]`, `must be an object`},
		{`"x"`, `must be an object`},
	} {
		var a evaluateArgs
		_, err := decodeStrict([]byte(c.raw), &a)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.raw, err, c.want)
		}
	}
	var a launchArgs
	for _, raw := range []string{`{"program":"a","env":{"A":"1","A":"2"}}`, `{"program":"a","args":["x",1]}`,
		`{"program":"a","stop_on_entry":"true"}`, `{"program":"a","Program":"b"}`} {
		if _, err := decodeStrict([]byte(raw), &a); err == nil {
			t.Errorf("%s: accepted", raw)
		}
	}
}

func TestDecodeStrictCanonical(t *testing.T) {
	var a evaluateArgs
	got, err := decodeStrict([]byte(" {\"frame_id\" : 3, \"expression\":\"x\\u0020< \\ud83d\\ude00\"} "), &a)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"expression":"x \u003c 😀","frame_id":3}`; string(got) != want {
		t.Fatalf("canonical %s, want %s", got, want)
	}
	if a.Expression != "x < 😀" || a.FrameID != 3 {
		t.Fatalf("decoded %+v", a)
	}
}

// FuzzOneReading: for any bytes the gate accepts, what a module reads
// through the SDK from the canonical arguments is, field by field, what the
// handler runs; and Go's own lenient decoder, on the bytes as sent, reads
// the same value (so nothing was left for leniency to act on).
func FuzzOneReading(f *testing.F) {
	for _, seed := range []string{
		`{"expression":"x"}`, `{"expression":"1","EXPRESSION":"2"}`, `{"expression":"1","expression":"2"}`,
		`{"expression":"\ud800\u0022"}`, `{"expression":"\ud83d\ude00\u0000\t"}`, `{"expression":"a\\\"b"}`,
		`{"file":"x.py","line":3,"condition":"a > 1","hit_condition":"%2","log_message":"{x}"}`,
		`{"program":"p.py","args":["a","b"],"env":{"K":"v","k":"w"},"stop_on_entry":false}`,
		`{"host":"127.0.0.1","port":5678,"path_mappings":[{"local_root":"/a","remote_root":"/b"}]}`,
		`{"frame_id":-0}`, `{"frame_id":12345678901234}`, `{"wait_s":1e-3}`, `{"wait_s":0.5,"thread_id":2}`,
		`{"Session":"x"}`, `{"session":"s\u00e9"}`, "{\"session\":\"\u212a\"}", `{"since":18446744073709551615}`,
	} {
		for i := range catalogue {
			f.Add(uint8(i), seed)
		}
	}
	ts := NewToolset(nil)
	f.Fuzz(func(t *testing.T, pick uint8, raw string) {
		spec := catalogue[int(pick)%len(catalogue)]
		strict := reflect.New(spec.args)
		canonical, err := decodeStrict([]byte(raw), strict.Interface())
		if err != nil {
			return // refused: no module sees it, the handler does not run
		}
		if _, err := spec.prepare(context.Background(), ts, json.RawMessage(raw)); err != nil && !isMalformed(err) {
			t.Fatalf("%s(%q): prepare: %v", spec.Tool.Name, raw, err)
		}
		lenient := reflect.New(spec.args)
		sent := raw
		if t := strings.Trim(raw, " \t\r\n"); t == "" || t == "null" {
			sent = "{}" // no arguments: the tool's defaults, for both readers
		}
		if err := json.Unmarshal([]byte(sent), lenient.Interface()); err != nil {
			t.Fatalf("%s(%q): accepted strictly, refused by encoding/json: %v", spec.Tool.Name, raw, err)
		}
		if !reflect.DeepEqual(strict.Interface(), lenient.Interface()) {
			t.Fatalf("%s(%q): two readings: strict %+v, lenient %+v", spec.Tool.Name, raw, strict.Elem(), lenient.Elem())
		}
		view, err := sdk.Parse(canonical)
		if err != nil {
			t.Fatalf("%s(%q): the SDK cannot parse the canonical %s: %v", spec.Tool.Name, raw, canonical, err)
		}
		sameAsSDK(t, spec.Tool.Name+"("+raw+")", "", strict.Elem(), view)
	})
}

func isMalformed(err error) bool {
	_, ok := err.(*malformedError)
	return ok
}

// sameAsSDK fails unless the SDK's view v holds exactly the Go value g.
func sameAsSDK(t *testing.T, call, at string, g reflect.Value, v sdk.Value) {
	t.Helper()
	if g.Kind() == reflect.Pointer {
		if g.IsNil() {
			if v.Exists() {
				t.Fatalf("%s: %s: the SDK sees %v where the handler has nothing", call, at, v.Kind())
			}
			return
		}
		g = g.Elem()
	}
	if !v.Exists() {
		empty := (g.Kind() == reflect.Slice || g.Kind() == reflect.Map) && g.Len() == 0
		if !g.IsZero() && !empty { // omitempty leaves out what is empty
			t.Fatalf("%s: %s: the handler has %v, the SDK sees nothing", call, at, g.Interface())
		}
		return
	}
	switch g.Kind() {
	case reflect.Struct:
		for name, f := range structFields(g) {
			sameAsSDK(t, call, at+"."+name, f, v.Get(name))
		}
	case reflect.Map:
		if v.Len() != g.Len() {
			t.Fatalf("%s: %s: %d keys for the handler, %d for the SDK", call, at, g.Len(), v.Len())
		}
		for _, m := range v.Members() {
			e := g.MapIndex(reflect.ValueOf(m.Key))
			if !e.IsValid() {
				t.Fatalf("%s: %s: the SDK sees key %q the handler lacks", call, at, m.Key)
			}
			sameAsSDK(t, call, at+"."+m.Key, e, m.Value)
		}
	case reflect.Slice:
		if v.Len() != g.Len() {
			t.Fatalf("%s: %s: %d elements for the handler, %d for the SDK", call, at, g.Len(), v.Len())
		}
		for i := 0; i < g.Len(); i++ {
			sameAsSDK(t, call, at, g.Index(i), v.Index(i))
		}
	case reflect.String:
		if v.Str() != g.String() {
			t.Fatalf("%s: %s: the handler has %q, the SDK %q", call, at, g.String(), v.Str())
		}
	case reflect.Bool:
		if v.Bool() != g.Bool() {
			t.Fatalf("%s: %s: bool %v vs %v", call, at, g.Bool(), v.Bool())
		}
	case reflect.Int, reflect.Int64:
		if v.Int() != g.Int() {
			t.Fatalf("%s: %s: the handler has %d, the SDK %d", call, at, g.Int(), v.Int())
		}
	case reflect.Uint64:
		if uint64(v.Float()) != g.Uint() && v.Int() != int64(g.Uint()) {
			t.Fatalf("%s: %s: the handler has %d, the SDK %v", call, at, g.Uint(), v.Float())
		}
	case reflect.Float64:
		if v.Float() != g.Float() {
			t.Fatalf("%s: %s: the handler has %v, the SDK %v", call, at, g.Float(), v.Float())
		}
	default:
		t.Fatalf("%s: %s: no comparison for %s", call, at, g.Kind())
	}
}

// structFields maps JSON names to field values, embedded structs flattened.
func structFields(g reflect.Value) map[string]reflect.Value {
	out := map[string]reflect.Value{}
	for i := 0; i < g.NumField(); i++ {
		f := g.Type().Field(i)
		if f.Anonymous {
			for k, v := range structFields(g.Field(i)) {
				out[k] = v
			}
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		out[name] = g.Field(i)
	}
	return out
}

// TestEnvName: a launch's variable that configures the debugger (any case)
// or that the program would not get as written is refused; the program's
// own variables, and the gevent switch a gevent program needs, are not.
func TestEnvName(t *testing.T) {
	for _, c := range []struct{ name, value, want string }{
		{"APP_MODE", "test", ""},
		{"GEVENT_SUPPORT", "True", ""},
		{"PYTHONPATH", "/srv/lib", ""},
		{"MY_PYDEVD_NOTES", "x", ""},
		{"PYDEVD_CONTAINER_RANDOM_ACCESS_MAX_ITEMS", "1", "setting of the debugger"},
		{"Pydevd_Pandas_Max_Rows", "0", "setting of the debugger"},
		{"PYDEV_DEBUG", "1", "setting of the debugger"},
		{"DEBUGPY_LOG_DIR", "/tmp", "setting of the debugger"},
		{"DEBUGPY_GUARD_NODELAY_STATUS", "/tmp/x", "setting of the debugger"},
		{"paths_from_eclipse_to_python", "[]", "setting of the debugger"},
		{"LIBRARY_ROOTS", "/", "setting of the debugger"},
		{"", "x", "not a variable's name"},
		{"A=B", "x", "not a variable's name"},
		{"A\x00", "x", "not a variable's name"},
		{"A", "x\x00y", "NUL byte"},
	} {
		err := envName(c.name, c.value)
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("envName(%q, %q) = %v, want %q", c.name, c.value, err, c.want)
		}
	}
}
