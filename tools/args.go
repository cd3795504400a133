package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// One reading of a call's arguments (docs/SECURITY.md, "one reading").
//
// The agent sends any bytes it likes. encoding/json alone reads them one way
// (keys folded to any case, the last of a repeated key, invalid UTF-8 and
// lone surrogates turned into U+FFFD) and a policy module's JSON reader may
// read them another. So the arguments are read once, strictly, against the
// tool's argument type: keys match exactly, a repeated key, an unknown key,
// a value of the wrong type (null included), invalid UTF-8 or an unpaired
// surrogate escape makes the call malformed. The decoded value is then
// encoded again (canonical), and those bytes are the only arguments anyone
// sees: the modules, the approval, the audit log. The handler runs the very
// value that was decoded.

// malformedError says why a call's arguments were refused before any module
// saw them.
type malformedError struct{ msg string }

func (e *malformedError) Error() string { return e.msg }

func malformed(format string, a ...any) error {
	return &malformedError{msg: fmt.Sprintf(format, a...)}
}

// decodeStrict reads raw into into (a pointer to an argument struct) as
// described above, and returns the canonical encoding of what it read.
func decodeStrict(raw []byte, into any) (canonical []byte, err error) {
	raw = bytes.Trim(raw, " \t\r\n") // JSON's whitespace, and nothing else
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	if !utf8.Valid(raw) {
		return nil, malformed("the arguments are not valid UTF-8")
	}
	if err := checkEscapes(raw); err != nil {
		return nil, err
	}
	tree, ok := parseTree(raw)
	if !ok { // not JSON, a repeated key, too deep: encoding/json's reading says which
		var err error
		if tree, err = decodeTreeAll(raw); err != nil {
			return nil, err
		}
	}
	if err := checkType("", tree, reflect.TypeOf(into).Elem()); err != nil {
		return nil, err
	}
	// Every key is now exactly a field's name, once, with a value of its
	// type: encoding/json's leniencies have nothing left to act on.
	if err := json.Unmarshal(raw, into); err != nil {
		return nil, malformed("arguments: %v", err)
	}
	return json.Marshal(into)
}

// checkEscapes refuses a \u escape of a lone surrogate (encoding/json turns
// it into U+FFFD; another reader may not).
func checkEscapes(raw []byte) error {
	in := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case !in:
			in = c == '"'
		case c == '"':
			in = false
		case c == '\\' && i+1 < len(raw):
			i++
			if raw[i] != 'u' {
				continue
			}
			r, ok := hex4(raw, i+1)
			if !ok {
				return malformed("the arguments hold a bad \\u escape")
			}
			i += 4
			switch {
			case r >= 0xDC00 && r <= 0xDFFF:
				return malformed("the arguments hold an unpaired surrogate escape (\\u%04x)", r)
			case r >= 0xD800 && r <= 0xDBFF:
				lo, ok := rune(0), i+2 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u'
				if ok {
					lo, ok = hex4(raw, i+3)
				}
				if !ok || lo < 0xDC00 || lo > 0xDFFF {
					return malformed("the arguments hold an unpaired surrogate escape (\\u%04x)", r)
				}
				i += 6
			}
		}
	}
	return nil
}

func hex4(b []byte, at int) (rune, bool) {
	if at+4 > len(b) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[at:at+4]), 16, 32)
	return rune(n), err == nil
}

// member is one key of an object as sent, in order.
type member struct {
	key string
	val any
}

// decodeTreeAll is the tree of raw (whitespace trimmed) as encoding/json's
// Decoder reads it, token by token: the reading that parseTree is held to
// (TestParseTreeAgrees), and the one that says why arguments are refused.
func decodeTreeAll(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree any
	if err := decodeTree(dec, &tree, 0); err != nil {
		return nil, err
	}
	// Nothing after the value: More alone would pass a stray ']' or '}',
	// which Token then refuses with an error of its own.
	if _, err := dec.Token(); dec.More() || err != io.EOF {
		return nil, malformed("the arguments are followed by more JSON")
	}
	return tree, nil
}

// decodeTree reads one JSON value, keeping objects as ordered members so
// that a repeated key is seen.
func decodeTree(dec *json.Decoder, out *any, depth int) error {
	if depth > maxNesting {
		return malformed("the arguments nest more than %d levels deep", maxNesting)
	}
	tok, err := dec.Token()
	if err != nil {
		return malformed("the arguments are not valid JSON: %v", err)
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			var ms []member
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return malformed("the arguments are not valid JSON: %v", err)
				}
				k := kt.(string)
				if seen[k] {
					return malformed("argument %q is given twice", k)
				}
				seen[k] = true
				var v any
				if err := decodeTree(dec, &v, depth+1); err != nil {
					return err
				}
				ms = append(ms, member{k, v})
			}
			if _, err := dec.Token(); err != nil { // '}'
				return malformed("the arguments are not valid JSON: %v", err)
			}
			if ms == nil {
				ms = []member{}
			}
			*out = ms
		case '[':
			arr := []any{}
			for dec.More() {
				var v any
				if err := decodeTree(dec, &v, depth+1); err != nil {
					return err
				}
				arr = append(arr, v)
			}
			if _, err := dec.Token(); err != nil { // ']'
				return malformed("the arguments are not valid JSON: %v", err)
			}
			*out = arr
		}
	default:
		*out = t
	}
	return nil
}

// checkType checks a decoded value against the Go type it will be read into.
// at names the value for the message ("" for the arguments themselves).
func checkType(at string, v any, t reflect.Type) error {
	name := at
	if name == "" {
		name = "the arguments"
	} else {
		name = "argument " + strconv.Quote(at)
	}
	want := func(kind string) error {
		return malformed("%s must be %s, not %s; see the tool's inputSchema", name, kind, jsonKindOf(v))
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		ms, ok := v.([]member)
		if !ok {
			return want("an object")
		}
		fields := fieldsOf(t)
		for _, m := range ms {
			f, ok := fields[m.key]
			if !ok {
				return malformed("unknown argument %s; see the tool's inputSchema%s", strconv.Quote(join(at, m.key)), didYouMean(m.key, fields))
			}
			if err := checkType(join(at, m.key), m.val, f); err != nil {
				return err
			}
		}
	case reflect.Map:
		ms, ok := v.([]member)
		if !ok {
			return want("an object")
		}
		for _, m := range ms {
			if err := checkType(join(at, m.key), m.val, t.Elem()); err != nil {
				return err
			}
		}
	case reflect.Slice:
		arr, ok := v.([]any)
		if !ok {
			return want("an array")
		}
		for i, e := range arr {
			if err := checkType(at+"["+strconv.Itoa(i)+"]", e, t.Elem()); err != nil {
				return err
			}
		}
	case reflect.String:
		if _, ok := v.(string); !ok {
			return want("a string")
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			return want("a boolean")
		}
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Uint64:
		n, ok := v.(json.Number)
		if !ok {
			return want("an integer")
		}
		if _, err := strconv.ParseInt(n.String(), 10, 64); err != nil {
			return malformed("%s must be an integer, not %s", name, n)
		}
	case reflect.Float64:
		n, ok := v.(json.Number)
		if !ok {
			return want("a number")
		}
		if _, err := strconv.ParseFloat(n.String(), 64); err != nil {
			return malformed("%s is out of range: %s", name, n)
		}
	default:
		return malformed("%s: no tool takes a %s", name, t.Kind())
	}
	return nil
}

func join(at, key string) string {
	if at == "" {
		return key
	}
	return at + "." + key
}

// fieldCache holds jsonFields of each argument type met, made once: every call
// checks its arguments against them (a map built a call was a tenth of a
// denied call's allocations).
var fieldCache sync.Map // reflect.Type -> map[string]reflect.Type, read only

func fieldsOf(t reflect.Type) map[string]reflect.Type {
	if f, ok := fieldCache.Load(t); ok {
		return f.(map[string]reflect.Type)
	}
	f, _ := fieldCache.LoadOrStore(t, jsonFields(t))
	return f.(map[string]reflect.Type)
}

// jsonFields maps the JSON names of t's fields (embedded structs flattened)
// to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			for k, v := range jsonFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// didYouMean suggests the field whose name differs from key only in case.
func didYouMean(key string, fields map[string]reflect.Type) string {
	for f := range fields {
		if strings.EqualFold(f, key) {
			return " (names are exact: did you mean " + strconv.Quote(f) + "?)"
		}
	}
	return ""
}

func jsonKindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []member:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}
