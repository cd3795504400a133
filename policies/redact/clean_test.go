package redact

import (
	"encoding/json"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/debugpy-guard/debugpy-guard/plugins/sdk"
	"github.com/debugpy-guard/debugpy-guard/policies/internal/policytest"
)

// TestCleanTextsSkipOnlyWhatMaskTextWouldNotChange: a text that
// cleanTexts skips is one that maskText, read fresh, leaves as it is and
// learns nothing from: every string literal of this package's tests (each
// secret shape they test, and the texts that must stay) and every string of
// the pandas listing, in a random order, three times each through one
// cleanTexts, with no names and with names, give what maskText gives and
// hand the host the same secrets.
func TestCleanTextsSkipOnlyWhatMaskTextWouldNotChange(t *testing.T) {
	texts := policytest.Literals(t)
	var listing any
	data, err := os.ReadFile("../testdata/pandas_listing.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &listing); err != nil {
		t.Fatal(err)
	}
	texts = append(texts, stringsOf(listing)...)
	t.Logf("%d texts", len(texts))
	if len(texts) < 5000 {
		t.Fatalf("%d texts: the corpus is not read", len(texts))
	}
	rnd := rand.New(rand.NewPCG(9, 10))
	for _, extra := range []map[string]bool{nil, {"pin": true, "acme": true}} {
		var c cleanTexts
		skipped := 0
		sdk.TakeSecrets()
		for range 3 * len(texts) {
			s := texts[rnd.IntN(len(texts))]
			want, wantChanged := maskText(s, extra)
			wantSecrets := sdk.TakeSecrets()
			c.mu.Lock()
			_, known := c.set[s]
			c.mu.Unlock()
			got, changed := c.maskText(s, extra)
			secrets := sdk.TakeSecrets()
			if got != want || changed != wantChanged || !slices.Equal(secrets, wantSecrets) {
				t.Fatalf("%q (kept clean: %v): %q %v %q; maskText: %q %v %q", s, known, got, changed, secrets, want, wantChanged, wantSecrets)
			}
			if known {
				skipped++
			}
		}
		if skipped < len(texts) {
			t.Fatalf("%d texts skipped of %d read: cleanTexts keeps nothing", skipped, 3*len(texts))
		}
	}
}

func stringsOf(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, e := range v {
			out = append(out, stringsOf(e)...)
		}
		return out
	case map[string]any:
		var out []string
		for _, k := range slices.Sorted(maps.Keys(v)) {
			out = append(append(out, k), stringsOf(v[k])...)
		}
		return out
	}
	return nil
}

// TestCleanTextsBounded: past its bounds cleanTexts forgets what it kept,
// however many and however short the texts an agent's program shows.
func TestCleanTextsBounded(t *testing.T) {
	var c cleanTexts
	for i := range 3 * cleanTextsMax {
		c.maskText("n"+strconv.Itoa(i), nil)
		if len(c.set) > cleanTextsMax || c.bytes > cleanBytes {
			t.Fatalf("%d texts, %d bytes kept", len(c.set), c.bytes)
		}
	}
	long := strings.Repeat("plain words ", cleanBytes/12/16+1) // over a sixteenth of cleanBytes: not kept
	if _, changed := c.maskText(long, nil); changed {
		t.Fatal("plain words masked")
	}
	if _, kept := c.set[long]; kept {
		t.Fatalf("a text of %d bytes kept", len(long))
	}
}
