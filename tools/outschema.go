package tools

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
)

// shallowOutput keeps of a tool's output schema its top level: each
// member's name and JSON type (what a nested object or array holds is
// left out), required and additionalProperties. Clients compile output
// schemas to validate structuredContent; the reference TypeScript client
// spent ~200 ms on the full ones at every tools/list (docs/PERFORMANCE.md).
//
// Each schema also carries an $id named by its content: that client (and
// ajv, which it uses) keeps a schema with an $id compiled, so tools with the
// same result shape share one validator and a later tools/list compiles
// nothing. Named by content, an $id never stands for two schemas.
func shallowOutput(t *mcp.Tool) {
	raw := t.RawOutputSchema
	if raw == nil {
		raw, _ = json.Marshal(t.OutputSchema)
	}
	var s map[string]any
	if json.Unmarshal(raw, &s) != nil {
		return
	}
	props, _ := s["properties"].(map[string]any)
	out := map[string]any{"type": "object"}
	short := map[string]any{}
	for name, p := range props {
		pm, _ := p.(map[string]any)
		keep := map[string]any{}
		if ty, ok := pm["type"]; ok {
			keep["type"] = ty
		}
		if d, ok := pm["description"]; ok {
			keep["description"] = d
		}
		short[name] = keep
	}
	out["properties"] = short
	if r, ok := s["required"]; ok {
		out["required"] = r
	}
	if a, ok := s["additionalProperties"]; ok {
		out["additionalProperties"] = a
	}
	b, err := json.Marshal(out)
	if err != nil {
		return
	}
	sum := sha256.Sum256(b)
	out["$id"] = "urn:debugpy-guard:result:" + hex.EncodeToString(sum[:8])
	if b, err = json.Marshal(out); err != nil {
		return
	}
	t.OutputSchema, t.RawOutputSchema = mcp.ToolOutputSchema{}, b
}
