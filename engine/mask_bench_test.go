package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/debugpy-guard/debugpy-guard/plugins"
)

// BenchmarkMask: what the host's masking adds to a result of a few KB (a
// variables listing of 40 entries, ~4 KB of JSON), with 10 secrets known to
// the session (none of them in the result), beside the same result in a
// session with none; with one of them in the result; and with every value
// cut short by debugpy (a "..." in each: each is a cut whose neighbours
// are looked at for a piece of a secret); and with every value a URL with
// escapes (%20: each is read again decoded, for a secret percent-encoded);
// and with every value a list of numbers, and of words (each read
// joined, for a secret spelled as its bytes or in pieces).
func BenchmarkMask(b *testing.B) {
	type variable struct{ Name, Value, Type string }
	vars := make([]variable, 40)
	for i := range vars {
		vars[i] = variable{Name: fmt.Sprintf("item_%d", i), Value: fmt.Sprintf("'value number %d of the listing, plain text'", i), Type: "str"}
	}
	res := Result{Text: strings.Repeat("item: str = 'value number 1 of the listing, plain text'\n", 40), Structured: map[string]any{"variables": vars}}
	raw, _ := json.Marshal(res.Structured)
	res.encoded = raw // as the result phase leaves it
	secrets := plugins.NewSecrets()
	for i := 0; i < 10; i++ {
		secrets.Add("s", fmt.Sprintf("secret-value-%d-xyz", i))
	}
	alog := openAudit(b, b.TempDir())
	g := NewGate(&fakePolicy{cfg: &Config{}}, GateOptions{Audit: alog, Secrets: secrets})
	b.Logf("result: %d bytes of JSON, %d of text", len(raw), len(res.Text))
	hit := res
	hit.Text += "secret-value-3-xyz\n"
	hit.encoded = []byte(strings.Replace(string(raw), "plain text", "secret-value-3-xyz", 1))
	cuts := make([]variable, len(vars))
	for i := range cuts {
		cuts[i] = variable{Name: fmt.Sprintf("item_%d", i), Value: fmt.Sprintf("['value number %d of th...plain text']", i), Type: "list"}
	}
	cut := Result{Text: strings.Repeat("item: list = ['value number 1 of th...plain text']\n", 40), Structured: map[string]any{"variables": cuts}}
	cut.encoded, _ = json.Marshal(cut.Structured)
	urls := make([]variable, len(vars))
	for i := range urls {
		urls[i] = variable{Name: fmt.Sprintf("item_%d", i), Value: fmt.Sprintf("'https://api.example/v1/items?q=value%%20number%%20%d&sort=asc'", i), Type: "str"}
	}
	url := Result{Text: strings.Repeat("item: str = 'https://api.example/v1/items?q=value%20number%201&sort=asc'\n", 40), Structured: map[string]any{"variables": urls}}
	url.encoded, _ = json.Marshal(url.Structured)
	nums := make([]variable, len(vars))
	for i := range nums {
		nums[i] = variable{Name: fmt.Sprintf("item_%d", i), Value: fmt.Sprintf("[%d, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, ...]", i), Type: "list"}
	}
	num := Result{Text: strings.Repeat("item: list = [1, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, ...]\n", 40), Structured: map[string]any{"variables": nums}}
	num.encoded, _ = json.Marshal(num.Structured)
	words := make([]variable, len(vars))
	for i := range words {
		words[i] = variable{Name: fmt.Sprintf("item_%d", i), Value: fmt.Sprintf("['alpha %d', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', ...]", i), Type: "list"}
	}
	word := Result{Text: strings.Repeat("item: list = ['alpha 1', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', ...]\n", 40), Structured: map[string]any{"variables": words}}
	word.encoded, _ = json.Marshal(word.Structured)
	for _, c := range []struct {
		name, session string
		res           Result
	}{{"no-secrets", "t", res}, {"10-secrets", "s", res}, {"10-secrets-one-in-it", "s", hit}, {"10-secrets-cut-short", "s", cut}, {"10-secrets-escapes", "s", url}, {"10-secrets-numbers", "s", num}, {"10-secrets-words", "s", word}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				g.mask(c.session, c.res)
			}
		})
	}
}
