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

// TestJudgedTextsDoWhatMaskTextDoes: a text read again through
// judgedTexts gets what maskText, read fresh, gives it, and hands the host
// the same secrets in the same order: every string literal of this
// package's tests (each secret shape they test, and the texts that must
// stay) and every string of the pandas listing, in a random order, three
// times each through one judgedTexts, with no names and with names. Most
// texts are read from before, those with a secret among them.
func TestJudgedTextsDoWhatMaskTextDoes(t *testing.T) {
	texts := policytest.Literals(t)
	var listing any
	data, err := os.ReadFile("../testdata/pandas_listing.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &listing); err != nil {
		t.Fatal(err)
	}
	// Each literal also as a named value, and beside a named value's
	// start: a mask that cuts a credential of a well-known shape short
	// hands the host the shape whole (wholeShapes), deep in the masks.
	for _, l := range policytest.Literals(t) {
		texts = append(texts, "password="+l+"\nuser=ada", "token: abc "+l+" x")
	}
	texts = append(texts, stringsOf(listing)...)
	t.Logf("%d texts", len(texts))
	if len(texts) < 5000 {
		t.Fatalf("%d texts: the corpus is not read", len(texts))
	}
	rnd := rand.New(rand.NewPCG(9, 10))
	for _, extra := range []map[string]bool{nil, {"pin": true, "acme": true}} {
		var c judgedTexts
		skipped, masked := 0, 0
		sdk.TakeSecrets()
		for range 3 * len(texts) {
			s := texts[rnd.IntN(len(texts))]
			want, wantChanged := maskText(s, extra)
			wantSecrets := sdk.TakeSecrets()
			c.mu.Lock()
			_, known := c.texts[s]
			c.mu.Unlock()
			// Half the time as walk reads a string: looked up first.
			var got string
			var changed bool
			if j, ok := c.lookup(parsedString(t, s)); ok && rnd.IntN(2) == 0 {
				got, changed = s, j.changed
				if j.changed {
					got = j.masked
				}
			} else {
				sdk.TakeSecrets() // the lookup's, when it found one
				got, changed = c.maskText(s, extra)
			}
			secrets := sdk.TakeSecrets()
			if got != want || changed != wantChanged || !slices.Equal(secrets, wantSecrets) {
				t.Fatalf("%q (read before: %v): %q %v %q; maskText: %q %v %q", s, known, got, changed, secrets, want, wantChanged, wantSecrets)
			}
			if known {
				skipped++
				if changed {
					masked++
				}
			}
		}
		if skipped < len(texts) || masked < 100 {
			t.Fatalf("%d texts read from before of %d read, %d of them masked: judgedTexts keeps too little", skipped, 3*len(texts), masked)
		}
	}
}

// parsedString is s as a request holds it (encoding/json's escapes: <, >
// and & among them).
func parsedString(t *testing.T, s string) sdk.Value {
	q, _ := json.Marshal(s)
	v, err := sdk.Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	return v
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

// TestJudgedTextsBounded: past its bounds judgedTexts forgets what it
// kept, however many and however short the texts an agent's program shows,
// and the names it judged likewise.
func TestJudgedTextsBounded(t *testing.T) {
	var c judgedTexts
	for i := range 3 * textsMax {
		c.maskText("n"+strconv.Itoa(i), nil)
		c.isSecretName("n"+strconv.Itoa(i), nil)
		if len(c.texts) > textsMax || c.bytes > textsBytes || len(c.names) > namesMax {
			t.Fatalf("%d texts, %d bytes, %d names kept", len(c.texts), c.bytes, len(c.names))
		}
	}
	long := strings.Repeat("plain words ", textsBytes/12/16+1) // over a sixteenth of textsBytes: not kept
	if _, changed := c.maskText(long, nil); changed {
		t.Fatal("plain words masked")
	}
	if _, kept := c.texts[long]; kept {
		t.Fatalf("a text of %d bytes kept", len(long))
	}
}
