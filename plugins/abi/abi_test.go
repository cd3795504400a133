package abi

import "testing"

func TestChecks(t *testing.T) {
	for _, v := range []Verdict{Allow, Deny, Approve, Abstain} {
		if err := CheckVerdict(v); err != nil {
			t.Errorf("%s: %v", v, err)
		}
	}
	for _, v := range []Verdict{"", "Allow", "ALLOW", "allow ", "permit", "rate-limited"} {
		if err := CheckVerdict(v); err == nil {
			t.Errorf("%q: accepted", v)
		}
	}
	if CheckCode("") != nil || CheckCode(RateLimited) != nil {
		t.Error("a known code refused")
	}
	for _, c := range []string{"Rate_Limited", "rate-limited", "rate_limited ", "throttled"} {
		if err := CheckCode(c); err == nil {
			t.Errorf("%q: accepted", c)
		}
	}
}
