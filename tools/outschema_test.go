package tools

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// outputSchemas are the catalogue's output schemas by tool, as listed.
var outputSchemas = func() map[string]json.RawMessage {
	m := map[string]json.RawMessage{}
	for _, s := range Catalogue() {
		m[s.Tool.Name] = s.Tool.RawOutputSchema
	}
	return m
}()

// shallowSchema is what shallowOutput leaves of a schema.
type shallowSchema struct {
	ID         string `json:"$id"`
	Type       string `json:"type"`
	Properties map[string]struct {
		Type any `json:"type"`
	} `json:"properties"`
	Required             []string `json:"required"`
	AdditionalProperties *bool    `json:"additionalProperties"`
}

// conforms fails the test when a successful call's structuredContent is
// not what its tool's outputSchema says: a member it requires is missing,
// one it does not know is there, or one has another JSON type. Every
// harness call goes through it, so the schemas are checked against what
// the tools really return.
func conforms(t *testing.T, tool string, res *mcp.CallToolResult) {
	t.Helper()
	raw, ok := outputSchemas[tool]
	if !ok || res.StructuredContent == nil {
		return
	}
	var s shallowSchema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("%s: output schema %s: %v", tool, raw, err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%s: structuredContent %s is not an object", tool, b)
	}
	for _, k := range s.Required {
		if _, ok := got[k]; !ok {
			t.Errorf("%s: structuredContent %s lacks %q, which its output schema requires", tool, b, k)
		}
	}
	for k, v := range got {
		p, ok := s.Properties[k]
		if !ok {
			if s.AdditionalProperties != nil && !*s.AdditionalProperties {
				t.Errorf("%s: structuredContent has %q, which its output schema does not list", tool, k)
			}
			continue
		}
		if !hasType(p.Type, v) {
			t.Errorf("%s: structuredContent's %q is %v, not of type %v", tool, k, v, p.Type)
		}
	}
}

// hasType reports whether a decoded JSON value is of a JSON Schema type
// (one name or a list of them).
func hasType(want any, v any) bool {
	if want == nil {
		return true
	}
	names, ok := want.([]any)
	if !ok {
		names = []any{want}
	}
	for _, n := range names {
		switch x := v.(type) {
		case nil:
			ok = n == "null"
		case bool:
			ok = n == "boolean"
		case string:
			ok = n == "string"
		case float64:
			ok = n == "number" || n == "integer" && x == float64(int64(x))
		case []any:
			ok = n == "array"
		case map[string]any:
			ok = n == "object"
		}
		if ok {
			return true
		}
	}
	return false
}

// Each output schema is named by its content: the same $id is never two
// schemas, so a client that keeps compiled schemas by $id (the reference
// TypeScript client does) never validates with another tool's.
func TestOutputSchemaIDNamesContent(t *testing.T) {
	ids := map[string]string{}
	for name, raw := range outputSchemas {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		id, _ := m["$id"].(string)
		delete(m, "$id")
		rest, _ := json.Marshal(m)
		sum := sha256.Sum256(rest)
		if want := "urn:debugpy-guard:result:" + hex.EncodeToString(sum[:8]); id != want {
			t.Errorf("%s: $id %q, want %q", name, id, want)
		}
		if prev, ok := ids[id]; ok && prev != string(rest) {
			t.Errorf("%s: $id %s names two schemas", name, id)
		}
		ids[id] = string(rest)
	}
	t.Logf("%d tools, %d distinct output schemas", len(outputSchemas), len(ids))
}

func TestHasType(t *testing.T) {
	for _, c := range []struct {
		want any
		v    any
		ok   bool
	}{
		{"integer", 3.0, true}, {"integer", 3.5, false}, {"number", 3.5, true},
		{[]any{"null", "array"}, nil, true}, {[]any{"null", "array"}, []any{}, true},
		{[]any{"null", "array"}, "x", false}, {"object", map[string]any{}, true},
		{"string", 1.0, false}, {"boolean", false, true}, {"null", false, false},
	} {
		if got := hasType(c.want, c.v); got != c.ok {
			t.Errorf("hasType(%v, %v) = %v, want %v", c.want, c.v, got, c.ok)
		}
	}
}
