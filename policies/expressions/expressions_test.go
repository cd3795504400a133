package expressions

import (
	"testing"

	"github.com/debugpy-guard/debugpy-guard/policies/internal/policytest"
)

func code(pieces ...string) string {
	s := `{"code":[`
	for i := 0; i+2 < len(pieces); i += 3 {
		if i > 0 {
			s += ","
		}
		s += `{"argument":"` + pieces[i] + `","kind":"` + pieces[i+1] + `","text":` + jsonString(pieces[i+2]) + `}`
	}
	return s + `],"paths":[],"addresses":[]}`
}

func jsonString(s string) string {
	b := []byte{'"'}
	for _, c := range []byte(s) {
		if c == '"' || c == '\\' {
			b = append(b, '\\')
		}
		b = append(b, c)
	}
	return string(append(b, '"'))
}

// TestDecide: the policy on what the host derived, whichever tool and
// argument carries the code (judge_test.go has the judging of trees).
func TestDecide(t *testing.T) {
	eval := "debugpy_evaluate"
	cases := []policytest.Case{
		{Name: "no code", Tool: "debugpy_stack_trace", Want: "abstain"},
		// Not the host's: code that is not an array is no code (as
		// Elements reads it), not the pieces Len would count in it.
		{Name: "code not an array", Tool: eval, Derived: `{"code":{"argument":"expression","kind":"expression","text":"eval(s)"}}`, Want: "abstain"},
		{Name: "code null", Tool: eval, Derived: `{"code":null}`, Want: "abstain"},
		{Name: "a plain read", Tool: eval, Derived: code("expression", "expression", "user.name"), Want: "allow"},
		{Name: "a dunder", Tool: eval, Derived: code("expression", "expression", "__import__('os')"), Want: "deny",
			Reason: "expression: it uses __import__"},
		{Name: "a call, not allowed", Tool: eval, Derived: code("expression", "expression", "len(items)"), Want: "approve", Reason: "it calls len"},
		{Name: "a call, allowed", Tool: eval, Derived: code("expression", "expression", "len(items)"), Settings: `{"allow_calls":["len"]}`, Want: "allow"},
		{Name: "allow_calls is exact", Tool: eval, Derived: code("expression", "expression", "Len(items)"), Settings: `{"allow_calls":["len"]}`, Want: "approve"},
		{Name: "a denied name", Tool: eval, Derived: code("expression", "expression", "user.name"), Settings: `{"deny_names":["user"]}`, Want: "deny"},
		{Name: "a secret's name", Tool: eval, Derived: code("expression", "expression", "cfg.api_key"), Want: "deny", Reason: "a secret's name"},
		{Name: "not Python", Tool: eval, Derived: code("expression", "expression", "user.(name"), Want: "deny", Reason: "never allowed"},
		{Name: "a statement", Tool: "debugpy_repl", Category: "execute", Derived: code("statement", "statement", "x = 1"), Want: "approve", Reason: "statement: "},
		{Name: "a condition", Tool: "debugpy_set_breakpoint", Category: "execute", Derived: code("condition", "expression", "n > 3"), Want: "allow"},
		{Name: "the worst piece wins", Tool: "debugpy_set_breakpoint", Category: "execute",
			Derived:  code("condition", "expression", "n > 3", "log_message", "expression", "len(x)", "hit_condition", "expression", "eval(s)"),
			Settings: `{"allow_calls":["len"]}`, Want: "deny", Reason: "hit_condition: it uses eval"},
		{Name: "phase result", Phase: "result", Tool: eval, Result: `{}`, Derived: code("expression", "expression", "eval(s)"), Want: "abstain"},
	}
	policytest.Run(t, Decide, cases)
	// As the built-in module runs it: its settings read once, for every call.
	policytest.Prepared(t, Prepare, Decide, cases)
}

func TestValidate(t *testing.T) {
	policytest.Validate(t, Validate, []policytest.Setting{
		{JSON: `{"allow_calls":["len"],"deny_names":["user"]}`},
		{JSON: `{"deny_name":["user"]}`, Err: `unknown setting "deny_name"`},
		{JSON: `{"allow_calls":"len"}`, Err: "must be an array of strings"},
	})
}
