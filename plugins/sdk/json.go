package sdk

import (
	"bytes"
	"encoding/binary"
	"errors"
	"iter"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/debugpy-guard/debugpy-guard/plugins/abi"
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

// Value is a JSON value. A parsed Value is a view of the request's bytes,
// read lazily: Parse validates the document once without allocating, and an
// accessor scans only what it needs. No reflection, few allocations: in a Go
// wasm guest, encoding/json costs ~150 µs a call and a parsed tree of the
// request ~110 µs; a scan is a few µs. Values built with the constructors (or
// changed with Set) are trees. A parsed Value is valid during the call only.
type Value struct {
	raw []byte // a parsed value's JSON text; nil for a built one
	t   *tree  // a built value; nil for a parsed one and for Missing
}

// tree is a built value. It is apart from Value so that a Value is two
// words: a Go wasm guest copies a struct of more than four words with a
// call to memmove at each assignment, argument and result, and a policy
// passes Values everywhere (with the built fields inline, those memmoves
// were ~8% of a small call: docs/PERFORMANCE.md).
type tree struct {
	kind Kind
	b    bool
	s    string // a built string, or a built number's literal
	arr  []Value
	obj  []Member
}

// Member is one key of an object, in document order.
type Member struct {
	Key   string
	Value Value
}

// Constructors, for building results.
func NullValue() Value               { return Value{t: &tree{kind: Null}} }
func BoolValue(b bool) Value         { return Value{t: &tree{kind: Bool, b: b}} }
func StringValue(s string) Value     { return Value{t: &tree{kind: String, s: s}} }
func IntValue(n int64) Value         { return Value{t: &tree{kind: Number, s: strconv.FormatInt(n, 10)}} }
func ArrayValue(vs ...Value) Value   { return Value{t: &tree{kind: Array, arr: vs}} }
func ObjectValue(ms ...Member) Value { return Value{t: &tree{kind: Object, obj: ms}} }

// built is v's tree, or an empty one (Missing) for a parsed value.
func (v Value) built() *tree {
	if v.t == nil {
		return &missing
	}
	return v.t
}

var missing tree

// Kind is the value's JSON type.
func (v Value) Kind() Kind {
	if v.raw == nil {
		return v.built().kind
	}
	switch v.raw[0] {
	case '{':
		return Object
	case '[':
		return Array
	case '"':
		return String
	case 't', 'f':
		return Bool
	case 'n':
		return Null
	}
	return Number
}

// Exists is false for the Value of an absent key or index.
func (v Value) Exists() bool { return v.Kind() != Missing }

// Str is the text of a string, "" otherwise.
func (v Value) Str() string {
	if v.raw == nil {
		if t := v.built(); t.kind == String {
			return t.s
		}
		return ""
	}
	if v.raw[0] != '"' || len(v.raw) < 2 { // a lone quote: a string cut short, in a malformed view
		return ""
	}
	body := v.raw[1 : len(v.raw)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return string(body)
	}
	p := parser{b: v.raw}
	return p.str()
}

// StrLen is len(v.Str()), without making the string when it holds no
// escape: a policy that reads only strings of some lengths skips the
// others without a copy of each (in a Go wasm guest the copy costs more
// than the count).
func (v Value) StrLen() int {
	n := len(v.raw)
	if n >= 2 && v.raw[0] == '"' && bytes.IndexByte(v.raw[1:n-1], '\\') < 0 {
		return n - 2
	}
	return len(v.Str())
}

// StrAgain is Str, but when v is the string prev as it is (no escape in
// it) it returns prev itself, not a copy. A policy that reads the same
// strings call after call (the code of an evaluate the agent sends again,
// a tool's name) passes the one it read last: in a Go wasm guest between
// two calls, an allocation costs more than the comparison
// (docs/PERFORMANCE.md, "A Go guest's deny without allocations").
func (v Value) StrAgain(prev string) string {
	n := len(v.raw)
	if n == len(prev)+2 && v.raw[0] == '"' && v.raw[n-1] == '"' && string(v.raw[1:n-1]) == prev &&
		strings.IndexByte(prev, '\\') < 0 {
		return prev
	}
	return v.Str()
}

func (v Value) literal() string {
	if v.raw == nil {
		if t := v.built(); t.kind == Number {
			return t.s
		}
		return ""
	}
	if v.Kind() != Number {
		return ""
	}
	return string(v.raw)
}

// Int is a number as an integer (0 when it is not one).
func (v Value) Int() int64 {
	lit := v.literal()
	if lit == "" {
		return 0
	}
	n, err := strconv.ParseInt(lit, 10, 64)
	if err != nil {
		f, _ := strconv.ParseFloat(lit, 64)
		return int64(f)
	}
	return n
}

// Float is a number as a float64.
func (v Value) Float() float64 {
	f, _ := strconv.ParseFloat(v.literal(), 64)
	return f
}

// Bool is a boolean's value.
func (v Value) Bool() bool {
	if v.raw == nil {
		t := v.built()
		return t.kind == Bool && t.b
	}
	return v.raw[0] == 't'
}

// Get is the member key of an object (a Missing Value when absent).
func (v Value) Get(key string) Value {
	if v.raw == nil {
		obj := v.built().obj
		for i := range obj {
			if obj[i].Key == key {
				return obj[i].Value
			}
		}
		return Value{}
	}
	b := v.raw
	if b[0] != '{' {
		return Value{}
	}
	// members' loop, without its closure: Get is the accessor a policy
	// calls most, and a closure's call is dear in a Go wasm guest.
	for i := 1; ; {
		k, vs, esc, ok := memberAt(b, i)
		if !ok {
			return Value{}
		}
		ve := end(b, vs)
		if ve <= vs {
			return Value{}
		}
		if (!esc && string(k) == key) || (esc && unescape(k) == key) {
			return Value{raw: b[vs:ve]}
		}
		i = afterValue(b, ve)
	}
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
	if v.raw == nil {
		t := v.built()
		if t.kind == Array {
			return len(t.arr)
		}
		return len(t.obj)
	}
	n := 0
	if v.raw[0] == '{' {
		v.members(func([]byte, bool, []byte) bool { n++; return true })
	} else if v.raw[0] == '[' {
		v.elements(func([]byte) bool { n++; return true })
	}
	return n
}

// Index is element i of an array.
func (v Value) Index(i int) Value {
	if v.raw == nil {
		arr := v.built().arr
		if i < 0 || i >= len(arr) {
			return Value{}
		}
		return arr[i]
	}
	var found Value
	n := 0
	v.elements(func(e []byte) bool {
		if n == i {
			found = Value{raw: e}
			return false
		}
		n++
		return true
	})
	return found
}

// Members are the members of an object, in order. Changing a member's Value
// of a built object in place changes the object; call Set to change a
// parsed one.
func (v Value) Members() []Member {
	if v.raw == nil {
		return v.built().obj
	}
	var ms []Member
	v.members(func(k []byte, escaped bool, val []byte) bool {
		key := unescapedKey(k, escaped)
		if ms == nil {
			ms = make([]Member, 0, 8) // one allocation for most objects, not four as it grows from one
		}
		ms = append(ms, Member{Key: key, Value: Value{raw: val}})
		return true
	})
	return ms
}

// AllMembers yields the members of an object, in order, as Members has
// them, without making their slice: a walk over every object of a large
// result (a variables listing) allocated one slice an object. Stopping the
// loop stops the scan.
func (v Value) AllMembers() iter.Seq2[string, Value] {
	return func(yield func(string, Value) bool) {
		if v.raw == nil {
			for _, m := range v.built().obj {
				if !yield(m.Key, m.Value) {
					return
				}
			}
			return
		}
		v.members(func(k []byte, escaped bool, val []byte) bool {
			key := unescapedKey(k, escaped)
			return yield(key, Value{raw: val})
		})
	}
}

// AllElements yields the elements of an array with their indexes, as
// Elements has them, without making their slice.
func (v Value) AllElements() iter.Seq2[int, Value] {
	return func(yield func(int, Value) bool) {
		if v.raw == nil {
			for i, e := range v.built().arr {
				if !yield(i, e) {
					return
				}
			}
			return
		}
		i := 0
		v.elements(func(e []byte) bool {
			i++
			return yield(i-1, Value{raw: e})
		})
	}
}

// unescapedKey is a member name's string: read through its escapes, or the
// copy kept from before (keys).
func unescapedKey(k []byte, escaped bool) string {
	if escaped {
		return unescape(k)
	}
	return keys.get(k)
}

// keys are the member names read before (Members, AllMembers), each the
// one copy of its bytes: a result's objects repeat a few names (a
// variables listing's name, value, type, ... for each variable), and in a
// Go wasm guest a string's copy costs more than the look-up
// (docs/PERFORMANCE.md, "A listing read without copies"). A name is the
// string copied out of the request at its first reading, never a view of
// the request's bytes: the request's buffer is written over at the next
// call. At most keysMax names of at most keyMax bytes are kept; past that
// a name is copied at each reading.
var keys = keyTable{m: map[string]string{}}

const (
	keysMax = 1024
	keyMax  = 64
)

type keyTable struct {
	mu sync.Mutex // a policy's own tests may call Evaluate from several goroutines
	m  map[string]string
}

// get is string(k), the copy kept from before when there is one.
func (t *keyTable) get(k []byte) string {
	if len(k) > keyMax {
		return string(k)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if s, ok := t.m[string(k)]; ok {
		return s
	}
	s := string(k)
	if len(t.m) < keysMax {
		t.m[s] = s
	}
	return s
}

// Lookup is m[v.Str()], without copying the string out of the request when
// it holds no escape (a policy that keeps the texts it has judged looks each
// new one up first: in a Go wasm guest the copy costs more than the look-up).
func Lookup[V any](m map[string]V, v Value) (V, bool) {
	n := len(v.raw)
	if n < 2 || v.raw[0] != '"' { // a built value, or no string
		val, ok := m[v.Str()]
		return val, ok
	}
	var buf [256]byte // a short text with escapes is read into it
	b := v.raw[1 : n-1]
	if bytes.IndexByte(b, '\\') >= 0 {
		p := parser{b: v.raw}
		var ok bool
		if b, ok = p.appendStr(buf[:0]); !ok {
			b = nil // as Str: ""
		}
	}
	val, ok := m[string(b)]
	return val, ok
}

// Elements are the elements of an array.
func (v Value) Elements() []Value {
	if v.raw == nil {
		return v.built().arr
	}
	var es []Value
	v.elements(func(e []byte) bool {
		if es == nil {
			es = make([]Value, 0, 8) // as Members
		}
		es = append(es, Value{raw: e})
		return true
	})
	return es
}

// Set replaces or adds member key of an object (a parsed object becomes a
// built one, its other members still views). It changes v only: a copy of
// v made before sees a replaced member (they share the members) but not an
// added one, as with a slice.
func (v *Value) Set(key string, val Value) {
	if v.raw != nil {
		if v.raw[0] != '{' {
			return
		}
		*v = Value{t: &tree{kind: Object, obj: v.Members()}}
	}
	if v.t != nil {
		for i := range v.t.obj {
			if v.t.obj[i].Key == key {
				v.t.obj[i].Value = val
				return
			}
		}
	}
	t := *v.built()
	t.kind = Object
	t.obj = append(t.obj, Member{Key: key, Value: val})
	v.t = &t
}

// members calls fn for each member of a parsed object until fn returns false.
// A parsed value was validated by Parse or written by the host (view), so
// members and elements read it with the quick scans below (end, endString):
// one tight loop a value, where the validating skip is a call a token (in a
// Go wasm guest that was most of a batch's time: docs/PERFORMANCE.md). On a
// malformed document they stop early; they never loop or panic.
func (v Value) members(fn func(key []byte, escaped bool, val []byte) bool) {
	b := v.raw
	if len(b) == 0 || b[0] != '{' {
		return
	}
	for i := 1; ; {
		key, vs, esc, ok := memberAt(b, i)
		if !ok {
			return // '}'
		}
		ve := end(b, vs)
		if ve <= vs {
			return
		}
		if !fn(key, esc, b[vs:ve]) {
			return
		}
		i = afterValue(b, ve)
	}
}

// memberAtGo is memberAt in Go (see skipSpaceGo): it reads the key of the
// object member that starts at b[i] (after spaces): the key's bytes
// between its quotes, escapes unread, whether they hold a backslash (an
// escape), and the offset of its value. ok is false when no member starts
// there (the object's '}', or malformed input).
func memberAtGo(b []byte, i int) (key []byte, value int, esc, ok bool) {
	i = skipSpaceGo(b, i)
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false, false
	}
	ke := endStringGo(b, i)
	if ke > len(b) {
		return nil, 0, false, false
	}
	v := skipSpaceGo(b, ke)
	if v >= len(b) || b[v] != ':' {
		return nil, 0, false, false
	}
	key = b[i+1 : ke-1]
	return key, skipSpaceGo(b, v+1), hasBackslash(key), true
}

// afterValueGo is afterValue in Go (see skipSpaceGo): where the next member
// or element begins after a value that ends at b[ve], past the spaces and
// a ','.
func afterValueGo(b []byte, ve int) int {
	i := skipSpaceGo(b, ve)
	if i < len(b) && b[i] == ',' {
		i++
	}
	return i
}

// elements calls fn for each element of a parsed array until it returns false.
func (v Value) elements(fn func(val []byte) bool) {
	b := v.raw
	if len(b) == 0 || b[0] != '[' {
		return
	}
	for i := 1; ; {
		i = skipSpace(b, i)
		ve := end(b, i)
		if ve <= i {
			return // ']'
		}
		if !fn(b[i:ve]) {
			return
		}
		i = afterValue(b, ve)
	}
}

// elementsAsBefore is elements for an array whose elements are mostly the
// same from one call to the next (a batch's settings): before[i] holds
// element i as it was last time, and same tells fn it is so. An element
// that starts with those bytes ends where they do, if they are an object or
// an array: it ends at its own closing bracket, whatever follows it; so
// one comparison finds it (hasPrefix, eight bytes at a time), where end's
// scan stops at each string and bracket. Other elements are scanned, compared,
// and kept for the next call (a copy: the array's bytes are the caller's).
func (v Value) elementsAsBefore(before *[][]byte, fn func(i int, val []byte, same bool) bool) {
	b := v.raw
	if len(b) == 0 || b[0] != '[' {
		return
	}
	for i, k := 1, 0; ; k++ {
		i = skipSpace(b, i)
		var known []byte
		if k < len(*before) {
			known = (*before)[k]
		}
		var ve int
		same := len(known) > 0 && (known[0] == '{' || known[0] == '[') && hasPrefix(b[i:], known)
		if same {
			ve = i + len(known)
		} else {
			if ve = end(b, i); ve <= i {
				return // ']'
			}
			// A number is compared whole: 1 is the start of 12.
			if same = string(b[i:ve]) == string(known); !same {
				for len(*before) <= k {
					*before = append(*before, nil)
				}
				(*before)[k] = bytes.Clone(b[i:ve])
			}
		}
		if !fn(k, b[i:ve], same) {
			return
		}
		i = afterValue(b, ve)
	}
}

// hasPrefixGo is hasPrefix in Go (see skipSpaceGo): bytes.HasPrefix(b, p),
// eight bytes at a time: Go's WebAssembly compares a byte at a time in
// bytes.HasPrefix (memeqbody), and reads eight with
// binary.LittleEndian.Uint64 (one i64.load).
func hasPrefixGo(b, p []byte) bool {
	if len(b) < len(p) {
		return false
	}
	b = b[:len(p)]
	i := 0
	for ; i+8 <= len(p); i += 8 {
		if binary.LittleEndian.Uint64(b[i:]) != binary.LittleEndian.Uint64(p[i:]) {
			return false
		}
	}
	for ; i < len(p); i++ {
		if b[i] != p[i] {
			return false
		}
	}
	return true
}

// skipSpaceGo is skipSpace in Go: what it is outside WebAssembly, and what
// the assembly of scan_wasm.s is held to (TestScanAgrees).
func skipSpaceGo(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// endGo is end in Go (see skipSpaceGo): the offset just past the value of
// a valid document that starts at b[i]: i itself when none starts there (a
// ',', a closing bracket or the end), len(b) when it is cut short.
func endGo(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return min(endStringGo(b, i), len(b))
	case '{', '[':
		depth := 0
		for i < len(b) {
			for i < len(b) && !structural[b[i]] {
				i++
			}
			if i >= len(b) {
				break
			}
			switch b[i] {
			case '"':
				i = endStringGo(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(b)
	case ',', '}', ']', ':':
		return i
	}
	for i < len(b) { // a number, true, false or null
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// structural marks the bytes a container's scan stops at.
var structural = [256]bool{'"': true, '{': true, '[': true, '}': true, ']': true}

// endStringGo is endString in Go (see skipSpaceGo): the offset just past
// the string that starts at b[i] (a '"'), or len(b)+1 when it is not
// closed. It looks for the quotes with bytes.IndexByte, a word at a time.
func endStringGo(b []byte, i int) int {
	start := i + 1
	for i = start; ; i++ {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return len(b) + 1
		}
		i += j
		k := i // an even run of backslashes before the quote escapes nothing
		for k > start && b[k-1] == '\\' {
			k--
		}
		if (i-k)%2 == 0 {
			return i + 1
		}
	}
}

// hasBackslash is bytes.IndexByte(k, '\\') >= 0 for a key, without the call
// (a key is short).
func hasBackslash(k []byte) bool {
	for _, c := range k {
		if c == '\\' {
			return true
		}
	}
	return false
}

func unescape(k []byte) string {
	q := make([]byte, 0, len(k)+2)
	q = append(append(append(q, '"'), k...), '"')
	p := parser{b: q}
	return p.str()
}

// view wraps JSON the host wrote (so valid: it comes from encoding/json)
// without validating it first: a policy then scans only what it reads. The
// scans stop, never loop or panic, on malformed input.
func view(data []byte) Value {
	b := bytes.TrimSpace(data)
	if len(b) == 0 {
		return Value{}
	}
	return Value{raw: b}
}

// Parse validates one JSON document and returns a view of it. data must not
// change while the Value is in use.
func Parse(data []byte) (Value, error) {
	p := parser{b: data}
	p.ws()
	start := p.i
	if err := p.skip(0); err != nil {
		return Value{}, err
	}
	end := p.i
	p.ws()
	if p.i != len(p.b) {
		return Value{}, p.err("trailing data")
	}
	return Value{raw: data[start:end]}, nil
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
	if len(p.b)-p.i >= len(word) && string(p.b[p.i:p.i+len(word)]) == word {
		p.i += len(word)
		return true
	}
	return false
}

// skip validates one value and moves past it, allocating nothing.
func (p *parser) skip(depth int) error {
	if depth > maxDepth {
		return p.err("nested too deep")
	}
	if p.i >= len(p.b) {
		return p.err("unexpected end")
	}
	switch c := p.b[p.i]; {
	case c == '{':
		p.i++
		p.ws()
		if p.i < len(p.b) && p.b[p.i] == '}' {
			p.i++
			return nil
		}
		for {
			p.ws()
			if p.i >= len(p.b) || p.b[p.i] != '"' {
				return p.err("want a key")
			}
			if _, err := p.skipString(); err != nil {
				return err
			}
			p.ws()
			if p.i >= len(p.b) || p.b[p.i] != ':' {
				return p.err("want ':'")
			}
			p.i++
			p.ws()
			if err := p.skip(depth + 1); err != nil {
				return err
			}
			if done, err := p.next('}'); done || err != nil {
				return err
			}
		}
	case c == '[':
		p.i++
		p.ws()
		if p.i < len(p.b) && p.b[p.i] == ']' {
			p.i++
			return nil
		}
		for {
			p.ws()
			if err := p.skip(depth + 1); err != nil {
				return err
			}
			if done, err := p.next(']'); done || err != nil {
				return err
			}
		}
	case c == '"':
		_, err := p.skipString()
		return err
	case c == 't':
		if p.lit("true") {
			return nil
		}
	case c == 'f':
		if p.lit("false") {
			return nil
		}
	case c == 'n':
		if p.lit("null") {
			return nil
		}
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	return p.err("unexpected character")
}

// next moves past the ',' after a member or element (done false) or the
// closing bracket (done true).
func (p *parser) next(closing byte) (done bool, err error) {
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == ',' {
		p.i++
		return false, nil
	}
	if p.i < len(p.b) && p.b[p.i] == closing {
		p.i++
		return true, nil
	}
	return false, p.err("want ',' or '" + string(closing) + "'")
}

// number checks JSON's number grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *parser) number() error {
	digits := func() int {
		n := 0
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.b[p.i] == '-' {
		p.i++
	}
	if p.i < len(p.b) && p.b[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return p.err("bad number")
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return p.err("bad number")
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return p.err("bad number")
		}
	}
	if p.i < len(p.b) {
		switch p.b[p.i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
		default:
			return p.err("bad number")
		}
	}
	return nil
}

// skipString validates a string and moves past it; escaped says whether it
// holds escapes.
func (p *parser) skipString() (escaped bool, err error) {
	p.i++
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return escaped, nil
		case c < 0x20:
			return false, p.err("control character in string")
		case c == '\\':
			escaped = true
			p.i++
			if p.i >= len(p.b) {
				return false, p.err("unterminated string")
			}
			switch p.b[p.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.i++
			case 'u':
				p.i++
				if _, ok := p.hex4(); !ok {
					return false, p.err("bad \\u escape")
				}
			default:
				return false, p.err("bad escape")
			}
		default:
			p.i++
		}
	}
	return false, p.err("unterminated string")
}

// str is the string that starts at p.i (appendStr), in memory of its own.
func (p *parser) str() string {
	b, ok := p.appendStr(make([]byte, 0, len(p.b)-p.i))
	if !ok || len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b)) // b is this string's alone
}

// appendStr appends the string that starts at p.b[p.i] (its opening
// quote), read through its escapes as encoding/json reads them, to dst, and
// moves p.i past it. The bytes between escapes are copied a run at a time.
// ok is false for a string cut short or a bad escape. The document was
// validated before (Parse) or written by the host: control characters are
// not looked for.
func (p *parser) appendStr(dst []byte) (_ []byte, ok bool) {
	p.i++ // opening quote
	for p.i < len(p.b) {
		j := p.i
		for j < len(p.b) && p.b[j] != '"' && p.b[j] != '\\' {
			j++
		}
		dst = append(dst, p.b[p.i:j]...)
		if p.i = j; j >= len(p.b) {
			break
		}
		p.i++
		if p.b[j] == '"' {
			return dst, true
		}
		if p.i >= len(p.b) {
			break
		}
		e := p.b[p.i]
		p.i++
		switch e {
		case '"', '\\', '/':
			dst = append(dst, e)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return dst, false
			}
			if utf16.IsSurrogate(r) {
				// As encoding/json reads it: a high surrogate takes the
				// next escape only when that is a low one; any other lone
				// surrogate is U+FFFD, and what follows is read on its own.
				r2, ok := rune(0), false
				if r < 0xDC00 && p.i+5 < len(p.b) && p.b[p.i] == '\\' && p.b[p.i+1] == 'u' {
					save := p.i
					p.i += 2
					if r2, ok = p.hex4(); !ok || r2 < 0xDC00 || r2 > 0xDFFF {
						p.i, ok = save, false
					}
				}
				if ok {
					r = utf16.DecodeRune(r, r2)
				} else {
					r = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, r)
		default:
			return dst, false
		}
	}
	return dst, false
}

func (p *parser) hex4() (rune, bool) {
	if p.i+4 > len(p.b) {
		return 0, false
	}
	var r rune
	for _, c := range p.b[p.i : p.i+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	p.i += 4
	return r, true
}

// AppendJSON appends v's JSON encoding to b.
func (v Value) AppendJSON(b []byte) []byte {
	if v.raw != nil {
		return append(b, v.raw...)
	}
	t := v.built()
	switch t.kind {
	case Missing, Null:
		return append(b, "null"...)
	case Bool:
		if t.b {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case Number:
		return append(b, t.s...)
	case String:
		return abi.AppendString(b, t.s)
	case Array:
		b = append(b, '[')
		for i, e := range t.arr {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.AppendJSON(b)
		}
		return append(b, ']')
	default:
		b = append(b, '{')
		for i, m := range t.obj {
			if i > 0 {
				b = append(b, ',')
			}
			b = abi.AppendString(b, m.Key)
			b = append(b, ':')
			b = m.Value.AppendJSON(b)
		}
		return append(b, '}')
	}
}
