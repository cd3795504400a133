package engine

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestBoundCutsWhatIsTooLong(t *testing.T) {
	small := Result{Text: "ok", Structured: map[string]any{"result": "ok"}}
	if got, cut := bound(small, 1024); cut || got.Text != "ok" {
		t.Fatalf("a small result was cut: %+v", got)
	}
	long := strings.Repeat("é", 30_000) // 60,000 bytes, two a rune
	lines := strings.Repeat("line of text\n", 1000)
	res, cut := bound(Result{Text: lines, ReadMore: "evaluate a part of it",
		Structured: map[string]any{"result": long, "type": "str", "entries": []any{map[string]any{"n": json.Number("1")}}}}, 4096)
	if !cut {
		t.Fatal("not cut")
	}
	text, note, _ := strings.Cut(res.Text, "\n… [cut: ")
	if len(text) > 4096 || !strings.HasSuffix(text, "line of text") || !strings.Contains(note, "the text is 13000 bytes") ||
		!strings.Contains(note, "To read the rest: evaluate a part of it.]") || !strings.Contains(note, "the structured result is") {
		t.Fatalf("the text and its note:\n%s", res.Text[len(res.Text)-300:])
	}
	b, _ := json.Marshal(res.Structured)
	m := res.Structured.(map[string]any)
	if len(b) > 4096 || m["type"] != "str" || !strings.Contains(m["result"].(string), "…[cut: 60000 bytes]") || !utf8.ValidString(m["result"].(string)) ||
		len(m["entries"].([]any)) != 1 {
		t.Fatalf("the structured result: %d bytes, %.200s", len(b), b)
	}
	// Many small items: the arrays are kept to their first items.
	items := make([]any, 5000)
	for i := range items {
		items[i] = map[string]any{"cursor": json.Number("1"), "text": "x"}
	}
	res, _ = bound(Result{Text: "t", Structured: map[string]any{"entries": items, "next": json.Number("5001")}}, 4096)
	b, _ = json.Marshal(res.Structured)
	m = res.Structured.(map[string]any)
	if n := len(m["entries"].([]any)); len(b) > 4096 || n < 50 || n >= 5000 || m["next"] != json.Number("5001") || !strings.Contains(res.Text, "ask for less") {
		t.Fatalf("5000 items: kept %d, %d bytes; text %q", n, len(b), res.Text)
	}
}
