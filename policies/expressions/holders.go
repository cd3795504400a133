package expressions

import (
	"maps"
	"slices"
	"strings"
)

// A holder is a name of the frame a call reads whose value holds a secret
// the session has seen (plugins/ABI.md, derived.holders): alias = password. The
// host masks a secret wherever it shows whole, so reading a holder whole is
// safe: alias, (alias, 1), {'k': alias}. Any other read shows it in pieces
// that no mask can find: alias[1:], alias[::2], alias[0], alias < 'm' (one
// bit at a time), [*alias], f'{alias:.5}', len(alias), alias.upper().
//
// A holder read whole is a name at the top of the code, or an element of a
// tuple, list, set or dict display (a key, a value, a **mapping) that is
// itself read whole. Everything else reads part of it. TestParserAgreesWithCPython
// compares the names read other than whole with CPython's ast.

// ReadsPart returns the first holder that code (of a kind, as in
// derived.code) reads other than whole, or "" when it reads none so.
// Statements (a repl input) read every holder they name other than whole,
// and code that does not tokenize reads every holder so: what it would do
// is not known (Python refuses such code, so it shows no value).
func ReadsPart(text, kind string, holders map[string]bool) string {
	if len(holders) == 0 {
		return ""
	}
	if kind == "expression" {
		if tree, err := Parse(text); err == nil {
			return partRead(tree, true, holders)
		}
	}
	for _, line := range splitStatements(text) {
		toks, err := tokenize(line)
		if err != nil {
			return first(holders)
		}
		for _, t := range toks {
			switch {
			case t.kind == tName && holders[t.text]:
				return t.text
			case t.kind == tString && strings.Contains(t.prefix, "f"):
				fs, err := fields(t.body, t.pos, 0, false)
				if err != nil {
					return first(holders)
				}
				for _, f := range fs {
					if h := partRead(f, false, holders); h != "" {
						return h
					}
				}
			}
		}
	}
	return ""
}

// first is the holder that sorts first (a reason names one).
func first(holders map[string]bool) string {
	return slices.Min(slices.Collect(maps.Keys(holders)))
}

// partRead returns the first holder n reads other than whole; whole says
// whether n itself is read whole.
func partRead(n *Node, whole bool, holders map[string]bool) string {
	switch n.Kind {
	case "Name":
		if !whole && holders[n.Name] {
			return n.Name
		}
		return ""
	case "Tuple", "List", "Set", "Dict":
	default:
		whole = false
	}
	for _, k := range n.Kids {
		if h := partRead(k, whole, holders); h != "" {
			return h
		}
	}
	return ""
}
