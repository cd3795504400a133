// Package settings checks a built-in policy's settings strictly, as the
// engine checks TOML keys: an unknown key or a value of the wrong type
// refuses the config at load, with the key named (a mistyped deny_name must
// not leave a policy allowing what it was meant to deny).
package settings

import (
	"sort"
	"strings"

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
