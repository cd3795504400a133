// Package settings checks a built-in policy's settings strictly, as the
// engine checks TOML keys: an unknown key or a value of the wrong type
// refuses the config at load, with the key named (a mistyped deny_name must
// not leave a policy allowing what it was meant to deny).
package settings

import (
	"sort"
	"strings"
	"sync"

	"github.com/debugpy-guard/debugpy-guard/plugins/sdk"
)

// Kind is what a setting holds.
type Kind int

const (
	String Kind = iota
	Integer
	Bool
	Strings // an array of strings
)

var names = map[Kind]string{String: "a string", Integer: "an integer", Bool: "a boolean", Strings: "an array of strings"}

// Check refuses settings keys other than known (and "policy", which the
// engine sets) and values of another kind.
func Check(policy string, s sdk.Value, known map[string]Kind) error {
	if s.Kind() != sdk.Object {
		return msg(policy + ": settings must be a table")
	}
	for _, m := range s.Members() {
		if m.Key == "policy" {
			continue
		}
		k, ok := known[m.Key]
		if !ok {
			keys := make([]string, 0, len(known))
			for key := range known {
				keys = append(keys, key)
			}
			sort.Strings(keys)
			return msg(policy + ": unknown setting " + quote(m.Key) + " (known: " + strings.Join(keys, ", ") + ")")
		}
		if !is(m.Value, k) {
			return msg(policy + ": setting " + quote(m.Key) + " must be " + names[k])
		}
	}
	return nil
}

func is(v sdk.Value, k Kind) bool {
	switch k {
	case String:
		return v.Kind() == sdk.String
	case Integer:
		f := v.Float()
		return v.Kind() == sdk.Number && f == float64(int64(f))
	case Bool:
		return v.Kind() == sdk.Bool
	case Strings:
		if v.Kind() != sdk.Array {
			return false
		}
		for _, e := range v.Elements() {
			if e.Kind() != sdk.String {
				return false
			}
		}
		return true
	}
	return false
}

func quote(s string) string { return `"` + s + `"` }

type msg string

func (m msg) Error() string { return string(m) }

// Cache keeps what was made of settings, by the settings' JSON, so that a
// call does not read them again: a module instance sees the same few
// settings on every call (one for each module of the config), and in a Go
// wasm guest reading them was a good part of a call's time
// (docs/PERFORMANCE.md). The built-in module keeps each policy prepared
// for its settings in one. The zero Cache is ready to use.
//
// The entries are a small array searched in turn, from the one after the
// entry found last: a batch asks for its modules' settings in the same
// order at every call, so the first comparison finds it. (A map cost a
// hash of the settings' bytes at each look-up, which a Go wasm guest
// computes a byte at a time: 8% of the default chain's time.)
type Cache[T any] struct {
	mu      sync.Mutex
	key     []byte
	entries [cacheSize]cached[T]
	n       int // entries in use
	last    int // the entry found last
	next    int // the entry a miss replaces once all are in use
}

type cached[T any] struct {
	key []byte
	t   T
}

// cacheSize bounds a Cache: past it, a new entry replaces the oldest.
const cacheSize = 16

// Get is read(s), called once for each settings' JSON.
func (c *Cache[T]) Get(s sdk.Value, read func(sdk.Value) T) T {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.key = s.AppendJSON(c.key[:0])
	for i := range c.n {
		j := (c.last + 1 + i) % c.n
		if string(c.entries[j].key) == string(c.key) {
			c.last = j
			return c.entries[j].t
		}
	}
	t := read(s)
	j := c.n
	if c.n < cacheSize {
		c.n++
	} else {
		j, c.next = c.next, (c.next+1)%cacheSize
	}
	c.entries[j] = cached[T]{append([]byte(nil), c.key...), t}
	c.last = j
	return t
}

// Prepared makes a built-in policy's two entry points from how it reads its
// settings and how it decides with them: prepare reads the settings once
// and returns the policy for them (the built-in module keeps it while the
// settings stay the same); decideOne reads each request's own settings
// (for a policy's tests).
func Prepared[C any](read func(sdk.Value) C, decide func(*sdk.Request, C) sdk.Decision) (
	prepare func(sdk.Value) func(*sdk.Request) sdk.Decision, decideOne func(*sdk.Request) sdk.Decision) {
	prepare = func(s sdk.Value) func(*sdk.Request) sdk.Decision {
		c := read(s)
		return func(r *sdk.Request) sdk.Decision { return decide(r, c) }
	}
	decideOne = func(r *sdk.Request) sdk.Decision { return decide(r, read(r.Settings())) }
	return prepare, decideOne
}
