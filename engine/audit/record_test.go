package audit

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestRecordAgreesWithMarshal: appendRecord writes what json.Marshal
// writes, byte for byte, and fails where it fails, for records whose every
// field is filled or left empty at random, by reflection: a field added to
// Entry, Verdict or Approval that appendRecord does not write makes them
// differ. The strings hold what encoding/json escapes, the arguments
// spaces and HTML to compact and escape (or are not JSON), the duration
// every magnitude json writes in each of its two forms.
func TestRecordAgreesWithMarshal(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"a", "<", ">", "&", "\u2028", "\u2029", "\x00", "\x1f", "\x7f", "\n", "\t", `"`, `\`, "é", "\xff", "\xe2\x80", "😀"}
	str := func() string {
		if rnd.IntN(3) == 0 {
			return ""
		}
		var sb strings.Builder
		for range rnd.IntN(8) + 1 {
			sb.WriteString(pieces[rnd.IntN(len(pieces))])
		}
		return sb.String()
	}
	floats := []float64{0, 1, -1, 0.5, 1.25, 12345.678, 1e-6, 9.99e-7, 1e-7, 1.5e-9, 1e20, 1e21, 1.5e21, -2e-8, 123456789012345680000, math.MaxFloat64,
		math.SmallestNonzeroFloat64, math.NaN(), math.Inf(1)}
	var fill func(v reflect.Value)
	fill = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.String:
			v.SetString(str())
		case reflect.Float64:
			if rnd.IntN(3) == 0 {
				v.SetFloat(floats[rnd.IntN(len(floats))])
			} else {
				v.SetFloat(rnd.Float64() * math.Pow(10, float64(rnd.IntN(30)-10)))
			}
		case reflect.Uint64:
			v.SetUint(rnd.Uint64())
		case reflect.Struct:
			for i := range v.NumField() {
				fill(v.Field(i))
			}
		case reflect.Pointer:
			if rnd.IntN(2) == 0 {
				v.Set(reflect.New(v.Type().Elem()))
				fill(v.Elem())
			}
		case reflect.Slice:
			if v.Type() == reflect.TypeFor[json.RawMessage]() {
				raw := []string{"", `{"a" : [1, 2.5e3, null, true], "b":"<x>&\u2028"}`, ` "é" `, `null`, `{"a":`, `[ ]`,
					`{"e":"a&b"}`, "[\"\u2029\"]", `">"`, `{"k":"x"}`}[rnd.IntN(10)]
				v.SetBytes([]byte(raw))
				return
			}
			n := rnd.IntN(3)
			s := reflect.MakeSlice(v.Type(), n, n)
			for i := range n {
				fill(s.Index(i))
			}
			v.Set(s)
		default:
			t.Fatalf("a field of kind %s (%s): teach appendRecord and this test to write it", v.Kind(), v.Type())
		}
	}
	var failed int
	for range 20000 {
		var rec record
		fill(reflect.ValueOf(&rec).Elem())
		want, werr := json.Marshal(rec)
		got, gerr := appendRecord(nil, &rec)
		if (werr != nil) != (gerr != nil) {
			t.Fatalf("json.Marshal: %v, appendRecord: %v\n%+v", werr, gerr, rec)
		}
		if werr != nil {
			failed++
			continue
		}
		if string(got) != string(want) {
			t.Fatalf("appendRecord:\n%s\njson.Marshal:\n%s", got, want)
		}
	}
	if failed == 0 || failed > 10000 {
		t.Fatalf("%d of 20000 records could not be encoded: the test's mix is off", failed)
	}
}

// BenchmarkEncodeRecord times a denied call's decision record encoded by
// json.Marshal and by appendRecord.
func BenchmarkEncodeRecord(b *testing.B) {
	rec := record{Seq: 1234, Time: "2026-12-06T16:03:14.123456789Z", Prev: strings.Repeat("ab", 32), Entry: Entry{
		Kind: "decision", Call: "c-1234", Session: "stdio", Client: "claude-code", Tool: "debugpy_evaluate", Category: "execute",
		ArgumentsSHA256: strings.Repeat("cd", 32), Arguments: json.RawMessage(`{"expression":"__import__('os')"}`), Decision: "deny",
		Reasons: []string{"expressions: expression: a call of __import__, which is not in expressions.allow_calls"}, Modules: []string{"expressions"}}}
	b.Run("marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(rec); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("appendRecord", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			var err error
			if buf, err = appendRecord(buf[:0], &rec); err != nil {
				b.Fatal(err)
			}
		}
	})
}
