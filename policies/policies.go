// Package policies holds the built-in policy modules, embedded: their Go
// sources (one directory each, built for wasip1 on plugins/sdk), the
// committed .wasm that `make policies` builds from them, and default.toml.
// A config refers to them as builtin:NAME.
package policies

import (
	"embed"
	"fmt"
	"sort"
	"strings"
)

//go:embed *.wasm default.toml
var files embed.FS

// Builtin returns the module NAME.
func Builtin(name string) ([]byte, error) {
	b, err := files.ReadFile(name + ".wasm")
	if err != nil {
		return nil, fmt.Errorf("no built-in module %q (built-in: %s)", name, strings.Join(Names(), ", "))
	}
	return b, nil
}

// Names lists the built-in modules.
func Names() []string {
	entries, _ := files.ReadDir(".")
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".wasm"); ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// DefaultConfig is default.toml.
func DefaultConfig() []byte {
	b, _ := files.ReadFile("default.toml")
	return b
}
