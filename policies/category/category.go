// Package category decides by the call's category: settings name the verdict
// for read, write and execute. The host counts any call that carries code
// (a breakpoint condition, a log message, a repl statement ...) as execute,
// whatever its tool (plugins/ABI.md, derived). Tools listed in "defer" are
// left to other modules (abstain), such as expressions for debugpy_evaluate.
package category

import (
	"github.com/debugpy-guard/debugpy-guard/plugins/sdk"
	"github.com/debugpy-guard/debugpy-guard/policies/settings"
)

// Settings are the settings it takes, and their kinds (docs/CONFIG.md
// lists them; a test keeps the two the same).
var Settings = map[string]settings.Kind{"read": settings.String, "write": settings.String, "execute": settings.String, "defer": settings.Strings}

// Validate checks the settings.
func Validate(s sdk.Value) error {
	if err := settings.Check("category", s, Settings); err != nil {
		return err
	}
	for _, k := range []string{"read", "write", "execute"} {
		switch v := s.Get(k); v.Str() {
		case "", "allow", "deny", "approve":
		default:
			return bad("category: " + k + " must be allow, deny or approve, not " + v.Str())
		}
	}
	return nil
}

// what a call of each category does, for the person who reads the reason.
var does = map[string]string{
	"read":    "reads the paused program",
	"write":   "changes the debug session (breakpoints, stepping, attaching)",
	"execute": "runs code in the program or starts a process",
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
	verdict := r.Settings().Get(cat).Str()
	if verdict == "" {
		verdict = map[string]string{"read": "allow", "write": "allow"}[cat]
		if verdict == "" {
			verdict = "approve"
		}
	}
	why := r.Tool() + " " + does[cat] + " (category " + cat + ")"
	if code := r.Derived().Get("code"); code.Len() > 0 && r.Tool() != "debugpy_evaluate" {
		why = r.Tool() + " carries Python that debugpy will run (" + code.Index(0).Get("argument").Str() + "): category execute"
	}
	return sdk.Decision{Verdict: verdict, Reason: why + ", " + verdict}
}

type bad string

func (b bad) Error() string { return string(b) }
