// Package category decides by the tool's category: settings name the verdict for
// read, write and execute. A breakpoint with a condition or a log message is
// execute (debugpy evaluates both as Python). Tools listed in "defer" are
// left to other modules (abstain), such as expressions for debugpy_evaluate.
package category

import "github.com/debugpy-guard/debugpy-guard/plugins/sdk"

// Validate checks the settings.
func Validate(s sdk.Value) error {
	for _, k := range []string{"read", "write", "execute"} {
		switch v := s.Get(k); v.Str() {
		case "", "allow", "deny", "approve":
		default:
			return bad("category: " + k + " must be allow, deny or approve, not " + v.Str())
		}
	}
	return nil
}

// Decide is the policy.
func Decide(r *sdk.Request) sdk.Decision {
	if r.Phase() != "call" {
		return sdk.Abstain()
	}
	for _, t := range r.Settings().Get("defer").Elements() {
		if t.Str() == r.Tool() {
			return sdk.Abstain()
		}
	}
	cat := r.Category()
	why := "category " + cat
	if r.Tool() == "debugpy_set_breakpoint" && (r.Arg("condition").Str() != "" || r.Arg("log_message").Str() != "") {
		cat, why = "execute", "a breakpoint condition or log message runs Python: category execute"
	}
	verdict := r.Settings().Get(cat).Str()
	if verdict == "" {
		verdict = map[string]string{"read": "allow", "write": "allow"}[cat]
		if verdict == "" {
			verdict = "approve"
		}
	}
	return sdk.Decision{Verdict: verdict, Reason: why + " is " + verdict}
}

type bad string

func (b bad) Error() string { return string(b) }
