package expressions

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/debugpy-guard/debugpy-guard/plugins/sdk"
	"github.com/debugpy-guard/debugpy-guard/policies/internal/policytest"
)

// TestJudgementsAgreeWithJudgeCode: code judged again is judged as
// judgeCode judges it fresh: every string literal of this package's tests
// (each piece of code they judge or parse), as an expression and as a
// statement, with the default's allow_calls and with names denied, in a
// random order, half the time code judged lately, through one judgements.
func TestJudgementsAgreeWithJudgeCode(t *testing.T) {
	texts := policytest.Literals(t)
	if len(texts) < 1000 {
		t.Fatalf("%d texts: the corpus is not read", len(texts))
	}
	rnd := rand.New(rand.NewPCG(11, 12))
	for _, r := range []rules{
		{calls: map[string]bool{"len": true, "repr": true, "str": true, "type": true, "isinstance": true, "id": true}},
		{deny: map[string]bool{"cursor": true, "user": true}, calls: map[string]bool{"len": true}},
	} {
		r.judged = &judgements{}
		hits := 0
		var recent []int // half the time, code judged lately, as an agent's watches come again
		for range 3 * len(texts) {
			i := rnd.IntN(2 * len(texts)) // a text and a kind
			if len(recent) > 0 && rnd.IntN(2) == 0 {
				i = recent[rnd.IntN(len(recent))]
			}
			if recent = append(recent, i); len(recent) > 8 {
				recent = recent[1:]
			}
			text, kind := texts[i/2], []string{"expression", "statement"}[i%2]
			hit := false
			for _, e := range r.judged.last {
				hit = hit || (e.v != "" && e.text == text && e.kind == kind)
			}
			arg := []string{"expression", "condition", "log_message"}[rnd.IntN(3)]
			want, wantReason := judgeCode(text, kind, r)
			got, reason := r.judge(arg, text, kind)
			if got != want || reason != arg+": "+wantReason {
				t.Fatalf("%s %q in %s (judged before: %v): %s %q; judgeCode: %s %q", kind, text, arg, hit, got, reason, want, wantReason)
			}
			// Said again, it is the same string: its JSON is kept.
			if _, again := r.judge(arg, text, kind); unsafe.StringData(again) != unsafe.StringData(reason) && len(text) <= judgedText {
				t.Fatalf("%s %q in %s: said again as another string", kind, text, arg)
			}
			if hit {
				hits++
			}
		}
		if hits < len(texts) {
			t.Fatalf("%d of %d judged again: judgements keeps nothing", hits, 3*len(texts))
		}
	}
}

// TestJudgeAtReadsAsStr: an element of derived.code is judged as its
// strings read anew would be, whatever the strings read before it: the
// corpus's texts in a random order, half the time again, each string of
// the element written with or without escapes (a character as \u, a
// surrogate pair, \/ and the short escapes), so that the bytes of one
// element are now and then those of the last one's strings with a
// backslash in them. Decided from several goroutines too (-race).
func TestJudgeAtReadsAsStr(t *testing.T) {
	texts := policytest.Literals(t)
	rnd := rand.New(rand.NewPCG(13, 14))
	r := rules{calls: map[string]bool{"len": true, "repr": true}, judged: &judgements{}}
	var recent []int
	for range 2 * len(texts) {
		i := rnd.IntN(2 * len(texts))
		if len(recent) > 0 && rnd.IntN(2) == 0 {
			i = recent[rnd.IntN(len(recent))]
		}
		if recent = append(recent, i); len(recent) > 8 {
			recent = recent[1:]
		}
		text, kind := texts[i/2], []string{"expression", "statement"}[i%2]
		if !utf8.ValidString(text) {
			continue
		}
		arg := []string{"expression", "condition", `log\message`}[rnd.IntN(3)]
		textJSON := escapedJSON(rnd, text)
		if last := `"` + r.judged.text + `"`; rnd.IntN(4) == 0 && strings.Contains(last, `\`) {
			// The last text's bytes as this one's JSON: the same bytes,
			// another string (or none: then another text).
			v, err := sdk.Parse([]byte(last))
			if err != nil {
				continue
			}
			text, textJSON = v.Str(), last
		}
		elem := `{"argument":` + escapedJSON(rnd, arg) + `,"text":` + textJSON + `,"kind":` + escapedJSON(rnd, kind) + `}`
		c, err := sdk.Parse([]byte(elem))
		if err != nil {
			t.Fatalf("%s: %v", elem, err)
		}
		want, wantReason := judgeCode(text, kind, r)
		if got, reason := r.judgeAt(c); got != want || reason != arg+": "+wantReason {
			t.Fatalf("%s: %s %q; judgeCode: %s %q", elem, got, reason, want, wantReason)
		}
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for k := range 200 {
				text := texts[(g*7919+k*31)%len(texts)]
				if !utf8.ValidString(text) {
					continue
				}
				c, _ := sdk.Parse([]byte(`{"argument":"expression","text":` + escapedJSON(rand.New(rand.NewPCG(uint64(g), uint64(k))), text) + `,"kind":"expression"}`))
				want, wantReason := judgeCode(text, "expression", r)
				if got, reason := r.judgeAt(c); got != want || reason != "expression: "+wantReason {
					t.Errorf("%q: %s %q; judgeCode: %s %q", text, got, reason, want, wantReason)
					return
				}
			}
		})
	}
	wg.Wait()
}

// escapedJSON writes s as a JSON string, each character written as itself
// or, one time in three, escaped (as \u, a surrogate pair above U+FFFF, or
// its short escape).
func escapedJSON(rnd *rand.Rand, s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		short := map[rune]string{'"': `\"`, '\\': `\\`, '/': `\/`, '\b': `\b`, '\f': `\f`, '\n': `\n`, '\r': `\r`, '\t': `\t`}[c]
		switch {
		case rnd.IntN(3) != 0 && c >= 0x20 && c != '"' && c != '\\':
			b.WriteRune(c)
		case short != "" && rnd.IntN(2) == 0:
			b.WriteString(short)
		case c > 0xFFFF:
			hi, lo := utf16.EncodeRune(c)
			fmt.Fprintf(&b, `\u%04x\u%04X`, hi, lo)
		default:
			fmt.Fprintf(&b, `\u%04x`, c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
