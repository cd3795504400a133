// Package abi is ABI v1's wire format (plugins/ABI.md) for the host, the
// engine and the guest SDK alike: the request as the host writes it
// (Request), the response as the host reads it (Response, ParseResponse;
// host only), the four verdicts a module answers with and the reason codes
// it may add, and the one JSON string encoding both sides write
// (AppendString). What a Go guest (plugins/sdk) links of it imports only
// strconv, bytes and unicode/utf8; the response's reading (response.go)
// uses encoding/json and is not built for wasip1. Nothing else spells
// these words or reads these bytes.
package abi

import "strconv"

// Verdict is a module's answer, and a combined decision: one of the four
// below. A string of another value is not one (CheckVerdict).
type Verdict string

// The verdicts.
const (
	Allow   Verdict = "allow"   // the call may go on
	Deny    Verdict = "deny"    // the call stops
	Approve Verdict = "approve" // a person decides (in phase result: deny)
	Abstain Verdict = "abstain" // no opinion: the other modules and the defaults decide
)

// Reason codes: what a deny is, for the audit log, where its reason is
// words for a person. A module adds one in its response's "code" member;
// the host never reads a reason's text for it.
const (
	// RateLimited marks a deny that is a rate limit: when every module
	// that denied a call says so, the audit log records it as
	// rate-limited rather than deny.
	RateLimited = "rate_limited"
)

// CheckVerdict refuses a verdict other than the four.
func CheckVerdict(v Verdict) error {
	switch v {
	case Allow, Deny, Approve, Abstain:
		return nil
	}
	return errorf("unknown decision " + strconv.Quote(string(v)) + " (want allow, deny, approve or abstain)")
}

// CheckCode refuses a reason code ABI v1 does not have ("" is none).
func CheckCode(code string) error {
	switch code {
	case "", RateLimited:
		return nil
	}
	return errorf("unknown code " + strconv.Quote(code) + " (the codes are: " + RateLimited + ")")
}

type errorf string

func (e errorf) Error() string { return string(e) }
