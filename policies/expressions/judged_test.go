package expressions

import (
	"math/rand/v2"
	"testing"
	"unsafe"

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
