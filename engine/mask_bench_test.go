package engine

import (
	"encoding/json"
	"fmt"
	"strconv"
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
// joined, for a secret spelled as its bytes or in pieces); and a
// container's 100 items, listed a row each (read together).
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
	// a listing of 40 values of one type, each format's %d its number
	listing := func(typ, format string) Result {
		vs := make([]variable, len(vars))
		for i := range vs {
			vs[i] = variable{Name: fmt.Sprintf("item_%d", i), Value: fmt.Sprintf(format, i), Type: typ}
		}
		r := Result{Text: strings.Repeat("item: "+typ+" = "+fmt.Sprintf(format, 1)+"\n", len(vs)), Structured: map[string]any{"variables": vs}}
		r.encoded, _ = json.Marshal(r.Structured)
		return r
	}
	cut := listing("list", "['value number %d of th...plain text']")
	url := listing("str", "'https://api.example/v1/items?q=value%%20number%%20%d&sort=asc'")
	num := listing("list", "[%d, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, ...]")
	word := listing("list", "['alpha %d', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', ...]")
	// a container's 100 items listed by its variables_reference, a row
	// each (numbers): read together, as the container's display
	type item struct {
		Name  string `json:"name"`
		Value string `json:"value"`
		Type  string `json:"type"`
	}
	rows := make([]item, 100)
	for i := range rows {
		rows[i] = item{Name: fmt.Sprintf("%02d", i), Value: strconv.Itoa(100 + i), Type: "int"}
	}
	items := Result{Text: strings.Repeat("00: int = 100\n", len(rows)), Structured: map[string]any{"variables": rows}}
	items.encoded, _ = json.Marshal(items.Structured)
	for _, c := range []struct {
		name, session string
		res           Result
	}{{"no-secrets", "t", res}, {"10-secrets", "s", res}, {"10-secrets-one-in-it", "s", hit}, {"10-secrets-cut-short", "s", cut}, {"10-secrets-escapes", "s", url}, {"10-secrets-numbers", "s", num}, {"10-secrets-words", "s", word},
		{"10-secrets-items", "s", items}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				g.mask(c.session, c.res)
			}
		})
	}
}
