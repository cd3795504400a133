package sdk

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Kind is the JSON type of a Value.
type Kind uint8

// JSON kinds. The zero Value is Missing: what Get returns for an absent key.
const (
	Missing Kind = iota
	Null
	Bool
	Number
	String
	Array
	Object
)

// Value is a parsed JSON value. It is a plain tree, built and walked without
// reflection: encoding/json costs a Go wasm guest ~150 µs a call.
type Value struct {
	kind Kind
	b    bool
	s    string // the text of a string, or the literal of a number
	arr  []Value
	obj  []Member
}

// Member is one key of an object, in document order.
type Member struct {
	Key   string
	Value Value
}

// Constructors, for building results.
func NullValue() Value              { return Value{kind: Null} }
func BoolValue(b bool) Value        { return Value{kind: Bool, b: b} }
func StringValue(s string) Value    { return Value{kind: String, s: s} }
func IntValue(n int64) Value        { return Value{kind: Number, s: strconv.FormatInt(n, 10)} }
func ArrayValue(vs ...Value) Value  { return Value{kind: Array, arr: vs} }
func ObjectValue(ms ...Member) Value { return Value{kind: Object, obj: ms} }

// Kind is the value's JSON type.
func (v Value) Kind() Kind { return v.kind }

// Exists is false for the Value of an absent key or index.
func (v Value) Exists() bool { return v.kind != Missing }

// Str is the text of a string, "" otherwise.
func (v Value) Str() string {
	if v.kind == String {
		return v.s
	}
	return ""
}

// Int is a number as an integer (0 when it is not one).
func (v Value) Int() int64 {
	if v.kind != Number {
		return 0
	}
	n, err := strconv.ParseInt(v.s, 10, 64)
	if err != nil {
		f, _ := strconv.ParseFloat(v.s, 64)
		return int64(f)
	}
	return n
}

// Float is a number as a float64.
func (v Value) Float() float64 {
	f, _ := strconv.ParseFloat(v.s, 64)
	return f
}

// Bool is a boolean's value.
func (v Value) Bool() bool { return v.kind == Bool && v.b }

// Get is the member key of an object (a Missing Value when absent).
func (v Value) Get(key string) Value {
	for i := range v.obj {
		if v.obj[i].Key == key {
			return v.obj[i].Value
		}
	}
	return Value{}
}

// Path follows keys: v.Path("session", "client", "name").
func (v Value) Path(keys ...string) Value {
	for _, k := range keys {
		v = v.Get(k)
	}
	return v
}

// Len is the length of an array or object.
func (v Value) Len() int {
	if v.kind == Array {
		return len(v.arr)
	}
	return len(v.obj)
}

// Index is element i of an array.
func (v Value) Index(i int) Value {
	if i < 0 || i >= len(v.arr) {
		return Value{}
	}
	return v.arr[i]
}

// Members are the members of an object, in order. Changing a member's Value
// in place changes the object.
func (v Value) Members() []Member { return v.obj }

// Elements are the elements of an array; changing one changes the array.
func (v Value) Elements() []Value { return v.arr }

// Set replaces or adds member key of an object.
func (v *Value) Set(key string, val Value) {
	for i := range v.obj {
		if v.obj[i].Key == key {
			v.obj[i].Value = val
			return
		}
	}
	v.obj = append(v.obj, Member{Key: key, Value: val})
}

// Parse parses one JSON document.
func Parse(data []byte) (Value, error) {
	p := parser{b: data}
	p.ws()
	v, err := p.value(0)
	if err != nil {
		return Value{}, err
	}
	p.ws()
	if p.i != len(p.b) {
		return Value{}, p.err("trailing data")
	}
	return v, nil
}

const maxDepth = 200

type parser struct {
	b []byte
	i int
}

func (p *parser) err(msg string) error {
	return errors.New("json: " + msg + " at offset " + strconv.Itoa(p.i))
}

func (p *parser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) lit(word string) bool {
	if strings.HasPrefix(string(p.b[p.i:min(len(p.b), p.i+len(word))]), word) {
		p.i += len(word)
		return true
	}
	return false
}

func (p *parser) value(depth int) (Value, error) {
	if depth > maxDepth {
		return Value{}, p.err("nested too deep")
	}
	if p.i >= len(p.b) {
		return Value{}, p.err("unexpected end")
	}
	switch c := p.b[p.i]; {
	case c == '{':
		p.i++
		v := Value{kind: Object}
		p.ws()
		if p.i < len(p.b) && p.b[p.i] == '}' {
			p.i++
			return v, nil
		}
		for {
			p.ws()
			if p.i >= len(p.b) || p.b[p.i] != '"' {
				return Value{}, p.err("want a key")
			}
			k, err := p.str()
			if err != nil {
				return Value{}, err
			}
			p.ws()
			if p.i >= len(p.b) || p.b[p.i] != ':' {
				return Value{}, p.err("want ':'")
			}
			p.i++
			p.ws()
			m, err := p.value(depth + 1)
			if err != nil {
				return Value{}, err
			}
			v.obj = append(v.obj, Member{Key: k, Value: m})
			p.ws()
			if p.i < len(p.b) && p.b[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.b) && p.b[p.i] == '}' {
				p.i++
				return v, nil
			}
			return Value{}, p.err("want ',' or '}'")
		}
	case c == '[':
		p.i++
		v := Value{kind: Array}
		p.ws()
		if p.i < len(p.b) && p.b[p.i] == ']' {
			p.i++
			return v, nil
		}
		for {
			p.ws()
			e, err := p.value(depth + 1)
			if err != nil {
				return Value{}, err
			}
			v.arr = append(v.arr, e)
			p.ws()
			if p.i < len(p.b) && p.b[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.b) && p.b[p.i] == ']' {
				p.i++
				return v, nil
			}
			return Value{}, p.err("want ',' or ']'")
		}
	case c == '"':
		s, err := p.str()
		return Value{kind: String, s: s}, err
	case c == 't' && p.lit("true"):
		return Value{kind: Bool, b: true}, nil
	case c == 'f' && p.lit("false"):
		return Value{kind: Bool}, nil
	case c == 'n' && p.lit("null"):
		return Value{kind: Null}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		start := p.i
		p.i++
		for p.i < len(p.b) {
			c := p.b[p.i]
			if (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-' {
				p.i++
				continue
			}
			break
		}
		lit := string(p.b[start:p.i])
		if _, err := strconv.ParseFloat(lit, 64); err != nil {
			return Value{}, p.err("bad number " + strconv.Quote(lit))
		}
		return Value{kind: Number, s: lit}, nil
	}
	return Value{}, p.err("unexpected character")
}

func (p *parser) str() (string, error) {
	p.i++ // opening quote
	start := p.i
	for p.i < len(p.b) { // fast path: no escapes
		c := p.b[p.i]
		if c == '"' {
			s := string(p.b[start:p.i])
			p.i++
			return s, nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
		p.i++
	}
	var sb strings.Builder
	sb.Write(p.b[start:p.i])
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return sb.String(), nil
		case c < 0x20:
			return "", p.err("control character in string")
		case c != '\\':
			sb.WriteByte(c)
			p.i++
			continue
		}
		p.i++
		if p.i >= len(p.b) {
			break
		}
		e := p.b[p.i]
		p.i++
		switch e {
		case '"', '\\', '/':
			sb.WriteByte(e)
		case 'b':
			sb.WriteByte('\b')
		case 'f':
			sb.WriteByte('\f')
		case 'n':
			sb.WriteByte('\n')
		case 'r':
			sb.WriteByte('\r')
		case 't':
			sb.WriteByte('\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return "", p.err("bad \\u escape")
			}
			if utf16.IsSurrogate(r) {
				if p.i+1 < len(p.b) && p.b[p.i] == '\\' && p.b[p.i+1] == 'u' {
					p.i += 2
					r2, ok := p.hex4()
					if !ok {
						return "", p.err("bad \\u escape")
					}
					r = utf16.DecodeRune(r, r2)
				} else {
					r = utf8.RuneError
				}
			}
			sb.WriteRune(r)
		default:
			return "", p.err("bad escape")
		}
	}
	return "", p.err("unterminated string")
}

func (p *parser) hex4() (rune, bool) {
	if p.i+4 > len(p.b) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(p.b[p.i:p.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	p.i += 4
	return rune(n), true
}

// AppendJSON appends v's JSON encoding to b.
func (v Value) AppendJSON(b []byte) []byte {
	switch v.kind {
	case Missing, Null:
		return append(b, "null"...)
	case Bool:
		if v.b {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case Number:
		return append(b, v.s...)
	case String:
		return appendString(b, v.s)
	case Array:
		b = append(b, '[')
		for i, e := range v.arr {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.AppendJSON(b)
		}
		return append(b, ']')
	default:
		b = append(b, '{')
		for i, m := range v.obj {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, m.Key)
			b = append(b, ':')
			b = m.Value.AppendJSON(b)
		}
		return append(b, '}')
	}
}

const hexDigits = "0123456789abcdef"

func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x80 {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, `\ufffd`...)
			} else {
				b = append(b, s[i:i+size]...)
			}
			i += size
			continue
		}
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c < 0x20 || c == '<' || c == '>' || c == '&':
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		default:
			b = append(b, c)
		}
		i++
	}
	return append(b, '"')
}
