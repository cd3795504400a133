//go:build !wasip1

package abi

import (
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// Response is a module's answer (ABI v1), as the host reads it. This file
// is the host's: a Go guest (GOOS=wasip1) does not build it, so that the
// SDK does not link encoding/json.
type Response struct {
	Verdict Verdict         `json:"decision"`
	Reason  string          `json:"reason"`
	Result  json.RawMessage `json:"result,omitempty"`
	Code    string          `json:"code,omitempty"` // a reason code (RateLimited), or ""
}

// Check refuses a verdict that is not one of the four and a reason code
// ABI v1 does not have.
func (r Response) Check() error {
	if err := CheckVerdict(r.Verdict); err != nil {
		return err
	}
	return CheckCode(r.Code)
}

// OutputText is a module's output for an error message: at most 512
// bytes, and words for none.
func OutputText(b []byte) string {
	if len(b) == 0 {
		return "(the module gave no reason)"
	}
	if len(b) > 512 {
		b = b[:512]
	}
	return string(b)
}

// A module's response is read by encoding/json, except in the shape almost
// every response has, which a quick reader takes at a fraction of the cost
// (encoding/json was most of the host's time in a batch of the built-ins:
// docs/PERFORMANCE.md): an object whose members are exactly "decision",
// "reason" and "code", each at most once, each a string with no escape and
// no control character, in valid UTF-8. Anything else (another key, a key
// in another case, "result", an escape, a repeated key, null) goes to
// encoding/json as before. FuzzQuickResponse checks that what the quick
// reader takes, encoding/json reads the same.

// ParseResponses reads a batch's answer: a JSON array of n responses.
func ParseResponses(out []byte, n int) ([]Response, error) {
	if resps, ok := quickResponses(out, n); ok {
		return resps, nil
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(out, &raw); err != nil {
		return nil, fmt.Errorf("output is not a JSON array of responses: %v: %q", err, OutputText(out))
	}
	if len(raw) != n {
		return nil, fmt.Errorf("%d responses for %d modules", len(raw), n)
	}
	resps := make([]Response, n)
	for i, r := range raw {
		var err error
		if resps[i], err = ParseResponse(r); err != nil {
			return nil, fmt.Errorf("response %d: %w", i, err)
		}
	}
	return resps, nil
}

// ParseResponse reads a module's answer: a JSON response.
func ParseResponse(out []byte) (Response, error) {
	if len(out) == 0 {
		return Response{}, errors.New("no output: guard_evaluate returned 0 without calling guard.output")
	}
	if r, end, ok := quickResponse(out, skipSpace(out, 0)); ok && skipSpace(out, end) == len(out) {
		return r, r.Check()
	}
	var r Response
	if err := json.Unmarshal(out, &r); err != nil {
		return Response{}, fmt.Errorf("output is not a JSON response: %v: %q", err, OutputText(out))
	}
	return r, r.Check()
}

// quickResponses reads out as n responses in the quick shape; ok is false
// when it is not that (then encoding/json reads it, and says what is wrong).
func quickResponses(out []byte, n int) ([]Response, bool) {
	i := skipSpace(out, 0)
	if i >= len(out) || out[i] != '[' {
		return nil, false
	}
	resps := make([]Response, 0, n)
	i = skipSpace(out, i+1)
	if i < len(out) && out[i] == ']' {
		return resps, n == 0 && skipSpace(out, i+1) == len(out)
	}
	for {
		r, end, ok := quickResponse(out, i)
		if !ok || r.Check() != nil {
			return nil, false
		}
		resps = append(resps, r)
		i = skipSpace(out, end)
		switch {
		case i < len(out) && out[i] == ',':
			i = skipSpace(out, i+1)
		case i < len(out) && out[i] == ']':
			return resps, len(resps) == n && skipSpace(out, i+1) == len(out)
		default:
			return nil, false
		}
	}
}

// quickResponse reads the response object at out[i:] in the quick shape,
// and where it ends; the caller checks its verdict and code.
func quickResponse(out []byte, i int) (r Response, end int, ok bool) {
	if i >= len(out) || out[i] != '{' {
		return r, 0, false
	}
	i = skipSpace(out, i+1)
	if i < len(out) && out[i] == '}' {
		return r, i + 1, true
	}
	var seen [3]bool
	for {
		key, next, ok := quickString(out, i)
		if !ok {
			return r, 0, false
		}
		i = skipSpace(out, next)
		if i >= len(out) || out[i] != ':' {
			return r, 0, false
		}
		val, next, ok := quickString(out, skipSpace(out, i+1))
		if !ok {
			return r, 0, false
		}
		switch string(key) {
		case "decision":
			r.Verdict = Verdict(word(val))
		case "reason":
			r.Reason = string(val)
		case "code":
			r.Code = word(val)
		default:
			return r, 0, false
		}
		n := len(string(key)) % 3 // decision 8, reason 6, code 4: 2, 0, 1
		if seen[n] {
			return r, 0, false
		}
		seen[n] = true
		i = skipSpace(out, next)
		switch {
		case i < len(out) && out[i] == ',':
			i = skipSpace(out, i+1)
		case i < len(out) && out[i] == '}':
			return r, i + 1, true
		default:
			return r, 0, false
		}
	}
}

// quickString reads the string at out[i:] when it has no escape, no
// control character and is valid UTF-8: then its text is its bytes.
func quickString(out []byte, i int) (s []byte, end int, ok bool) {
	if i >= len(out) || out[i] != '"' {
		return nil, 0, false
	}
	for j := i + 1; j < len(out); j++ {
		switch c := out[j]; {
		case c == '"':
			if !utf8.Valid(out[i+1 : j]) {
				return nil, 0, false
			}
			return out[i+1 : j], j + 1, true
		case c == '\\' || c < 0x20:
			return nil, 0, false
		}
	}
	return nil, 0, false
}

// word is b as a string, the ABI's own words without an allocation.
func word(b []byte) string {
	switch string(b) {
	case string(Allow):
		return string(Allow)
	case string(Deny):
		return string(Deny)
	case string(Approve):
		return string(Approve)
	case string(Abstain):
		return string(Abstain)
	case RateLimited:
		return RateLimited
	case "":
		return ""
	}
	return string(b)
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}
