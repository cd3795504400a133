package tools

import (
	"encoding/json"

	"github.com/debugpy-guard/debugpy-guard/plugins/sdk"
)

// parseTree is decodeTreeAll's tree of raw, for arguments that are valid
// JSON with no repeated key and no deeper than maxNesting (ok is false for
// any other, and decodeTreeAll reads them and says why). raw is valid
// UTF-8 with no unpaired surrogate escape (decodeStrict checks both first).
// It reads raw with the Go SDK's parser (sdk.Parse, the reader a Go module
// reads the canonical arguments with), which checks the grammar in one
// pass and then gives the members in order, repeated keys included.
//
// Why a second reader of the arguments: encoding/json's Decoder, token by
// token, took half of the arguments' reading and a tenth of a denied
// call's allocations (docs/PERFORMANCE.md). It is held to that reading, tree
// for tree, by TestParseTreeAgrees and FuzzParseTree; and it accepts
// nothing that reading refuses, so it cannot widen what the gate lets in.
func parseTree(raw []byte) (any, bool) {
	v, err := sdk.Parse(raw)
	if err != nil {
		return nil, false
	}
	return treeOf(v, 0)
}

// manyKeys is where an object's keys are looked up in a map rather than
// compared one by one.
const manyKeys = 16

// treeOf is v as decodeTree makes it: objects as their members in order
// ([]member), arrays as []any, numbers as json.Number.
func treeOf(v sdk.Value, depth int) (any, bool) {
	if depth > maxNesting {
		return nil, false
	}
	switch v.Kind() {
	case sdk.Object:
		members := v.Members()
		ms := make([]member, 0, len(members))
		var seen map[string]bool
		for _, m := range members {
			if seen != nil {
				if seen[m.Key] {
					return nil, false
				}
				seen[m.Key] = true
			} else {
				for _, e := range ms {
					if e.key == m.Key {
						return nil, false
					}
				}
				if len(ms) == manyKeys {
					seen = make(map[string]bool, 2*manyKeys)
					for _, e := range ms {
						seen[e.key] = true
					}
					seen[m.Key] = true
				}
			}
			val, ok := treeOf(m.Value, depth+1)
			if !ok {
				return nil, false
			}
			ms = append(ms, member{m.Key, val})
		}
		return ms, true
	case sdk.Array:
		elements := v.Elements()
		arr := make([]any, 0, len(elements))
		for _, e := range elements {
			val, ok := treeOf(e, depth+1)
			if !ok {
				return nil, false
			}
			arr = append(arr, val)
		}
		return arr, true
	case sdk.String:
		return v.Str(), true
	case sdk.Number:
		return json.Number(v.AppendJSON(nil)), true
	case sdk.Bool:
		return v.Bool(), true
	case sdk.Null:
		return nil, true
	}
	return nil, false
}
