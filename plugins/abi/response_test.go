//go:build !wasip1

package abi

import (
	"encoding/json"
	"fmt"
	"testing"
)

// FuzzQuickResponse: what the quick reader takes, encoding/json reads the
// same (a response alone, and a batch's array of them); what it leaves,
// encoding/json reads as before.
func FuzzQuickResponse(f *testing.F) {
	for _, s := range []string{`{"decision":"allow","reason":"fine"}`, ` { "decision" : "deny" , "reason" : "x" , "code" : "rate_limited" } `,
		`{"decision":"allow","Decision":"deny"}`, `{"decision":"allow","decision":"deny"}`, `{"decision":"a\u00e9"}`, `{"decision":null}`,
		`{"decision":"allow","result":{"a":1}}`, `{}`, `{"reason":"\xff"}`, `[{"decision":"allow","reason":""},{"decision":"deny","reason":"é"}]`, `[]`, `[{}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, out []byte) {
		if r, end, ok := quickResponse(out, skipSpace(out, 0)); ok && skipSpace(out, end) == len(out) {
			var want Response
			if err := json.Unmarshal(out, &want); err != nil || want.Verdict != r.Verdict || want.Reason != r.Reason || want.Code != r.Code || want.Result != nil {
				t.Fatalf("%q: quick %+v, encoding/json %+v %v", out, r, want, err)
			}
		}
		for n := 0; n < 3; n++ {
			if rs, ok := quickResponses(out, n); ok {
				var want []Response
				if err := json.Unmarshal(out, &want); err != nil || len(want) != n || fmt.Sprint(want) != fmt.Sprint(rs) {
					t.Fatalf("%q: quick %+v, encoding/json %+v %v", out, rs, want, err)
				}
			}
		}
		// Whichever way it is read, the answer is the same.
		a, errA := ParseResponse(out)
		var want Response
		if err := json.Unmarshal(out, &want); err == nil && errA == nil && fmt.Sprint(a) != fmt.Sprint(want) {
			t.Fatalf("%q: %+v, encoding/json %+v", out, a, want)
		}
	})
}
