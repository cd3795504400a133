package sdk

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzReadsAsEncodingJSON holds the SDK's reading of a document the host
// could have written (valid JSON, valid UTF-8) to encoding/json's: every
// string's Str, every member's key (Members, AllMembers: in document
// order, repeated keys included), every element (Elements, AllElements),
// and Lookup, which must find in a map what m[v.Str()] finds, escapes or
// none, short or long (a text with escapes is read into a buffer on the
// stack when it is short).
func FuzzReadsAsEncodingJSON(f *testing.F) {
	for _, s := range []string{sample, `"a\nb"`, `"\ud83d\ude00 \ud800 \udc00x \u00e9\/\"\\"`, `{"a":1,"\u0061":2,"a":3}`,
		`["` + strings.Repeat(`x\t`, 200) + `", "` + strings.Repeat("y", 300) + `"]`, `{"k\"":{"v":["\u0000",""]}}`,
		`{"name":"password","value":"'s3cr\u0065t'","children":[{"name":"a","value":"1"}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !utf8.Valid(data) || !json.Valid(data) {
			return
		}
		if _, err := Parse(data); err != nil {
			t.Fatalf("%q: encoding/json reads it, Parse refuses it: %v", data, err)
		}
		readsAsJSON(t, view(data), 0)
	})
}

func readsAsJSON(t *testing.T, v Value, depth int) {
	t.Helper()
	if depth > 32 {
		return
	}
	var want any
	d := json.NewDecoder(bytes.NewReader(v.raw))
	d.UseNumber() // a number past float64's range is no error here
	if err := d.Decode(&want); err != nil {
		t.Fatalf("%q: %v", v.raw, err)
	}
	switch v.Kind() {
	case String:
		s := want.(string)
		if got := v.Str(); got != s {
			t.Fatalf("%q: Str %q, encoding/json %q", v.raw, got, s)
		}
		if n := v.StrLen(); n != len(s) {
			t.Fatalf("%q: StrLen %d, encoding/json's string has %d bytes", v.raw, n, len(s))
		}
		if _, ok := Lookup(map[string]bool{s: true}, v); !ok {
			t.Fatalf("%q: Lookup does not find %q", v.raw, s)
		}
		others := map[string]bool{s + "x": true} // and s cut short
		if len(s) > 0 {
			others[s[:len(s)-1]] = true
		}
		if _, ok := Lookup(others, v); ok {
			t.Fatalf("%q: Lookup finds another string", v.raw)
		}
	case Object:
		var keys []string // encoding/json's reading of each key, in order
		v.members(func(k []byte, _ bool, _ []byte) bool {
			var key string
			if err := json.Unmarshal([]byte(`"`+string(k)+`"`), &key); err != nil {
				t.Fatalf("%q: key %q: %v", v.raw, k, err)
			}
			keys = append(keys, key)
			return true
		})
		ms := v.Members()
		i := 0
		for key, val := range v.AllMembers() {
			if i >= len(ms) || i >= len(keys) || key != keys[i] || ms[i].Key != keys[i] || string(val.raw) != string(ms[i].Value.raw) {
				t.Fatalf("%q: member %d: AllMembers %q, Members %v, encoding/json %q", v.raw, i, key, ms, keys)
			}
			readsAsJSON(t, val, depth+1)
			i++
		}
		if i != len(ms) || i != len(keys) || i != len(want.(map[string]any)) && !repeated(keys) {
			t.Fatalf("%q: %d members read, Members %d, keys %d", v.raw, i, len(ms), len(keys))
		}
	case Array:
		es := v.Elements()
		i := 0
		for j, e := range v.AllElements() {
			if j != i || i >= len(es) || string(e.raw) != string(es[i].raw) {
				t.Fatalf("%q: element %d differs", v.raw, i)
			}
			readsAsJSON(t, e, depth+1)
			i++
		}
		if i != len(es) || i != len(want.([]any)) {
			t.Fatalf("%q: %d elements read, Elements %d, encoding/json %d", v.raw, i, len(es), len(want.([]any)))
		}
	}
}

func repeated(keys []string) bool {
	seen := map[string]bool{}
	for _, k := range keys {
		if seen[k] {
			return true
		}
		seen[k] = true
	}
	return false
}

// TestLookupCopiesNothing: Lookup of a string, with escapes or without,
// allocates nothing (a short one with escapes is read on the stack), and
// member names read a second time are not copied again.
func TestLookupCopiesNothing(t *testing.T) {
	m := map[string]bool{"a\nb": true, "plain": true}
	for _, raw := range []string{`"a\nb"`, `"plain"`, `"absent\u0021"`} {
		v := Value{raw: []byte(raw)}
		if n := testing.AllocsPerRun(100, func() { Lookup(m, v) }); n != 0 {
			t.Errorf("Lookup of %s: %v allocations", raw, n)
		}
	}
	obj := view([]byte(`{"name":"n","value":"v","type":"str"}`))
	obj.Members()
	if n := testing.AllocsPerRun(100, func() {
		for range obj.AllMembers() {
		}
	}); n != 0 {
		t.Errorf("AllMembers over names read before: %v allocations", n)
	}
}
