// Package policies holds the built-in policy modules, embedded: their Go
// sources (one package each, on plugins/sdk), builtin/ which puts the five in
// one wasip1 module, the committed builtin.wasm that `make policies` builds
// from them, and default.toml. A config refers to them as builtin:NAME.
package policies

import (
	_ "embed"
	"fmt"
	"slices"
	"strings"
)

//go:embed builtin.wasm
var builtinWasm []byte

//go:embed default.toml
var defaultConfig []byte

var names = []string{"category", "expressions", "ratelimit", "redact", "targets"}

// Builtin returns the module of builtin:NAME. The five policies share one
// module (see builtin/main.go); the engine passes NAME in the settings as
// "policy".
func Builtin(name string) ([]byte, error) {
	if !slices.Contains(names, name) {
		return nil, fmt.Errorf("no built-in module %q (built-in: %s)", name, strings.Join(names, ", "))
	}
	return builtinWasm, nil
}

// Names lists the built-in modules.
func Names() []string { return slices.Clone(names) }

// DefaultConfig is default.toml.
func DefaultConfig() []byte { return defaultConfig }
