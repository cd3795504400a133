package category

import (
	"slices"
	"testing"

	"github.com/debugpy-guard/debugpy-guard/policies/internal/policytest"
)

func TestDecide(t *testing.T) {
	policytest.Run(t, Decide, cases)
}

// TestPreparedDecidesAsDecide: the prepared policy keeps the decision on a
// call that runs no code (config.last); asked in any order, it decides as
// Decide does.
func TestPreparedDecidesAsDecide(t *testing.T) {
	more := []policytest.Case{ // the same tool with code and without, a category changed
		{Name: "set_breakpoint, no code", Tool: "debugpy_set_breakpoint", Category: "write", Want: "allow", Reason: "changes the debug session"},
		{Name: "set_breakpoint, no code, execute", Tool: "debugpy_set_breakpoint", Category: "execute", Want: "approve", Reason: "(category execute)"},
		{Name: "stack_trace, write", Tool: "debugpy_stack_trace", Category: "write", Want: "allow", Reason: "(category write)"},
		{Name: "launch, no program", Tool: "debugpy_launch", Category: "execute", Args: `{"module":"m"}`, Want: "approve", Reason: "python -m m"},
		{Name: "attach_pid, another pid", Tool: "debugpy_attach_pid", Category: "execute", Args: `{"pid":7}`, Want: "approve", Reason: "process 7"},
	}
	policytest.Prepared(t, Prepare, Decide, append(slices.Clone(cases), more...))
}

var code = `{"code":[{"argument":"condition","kind":"expression","text":"n > 3"}],"paths":[],"addresses":[]}`

var cases = []policytest.Case{
	{Name: "read by default", Tool: "debugpy_stack_trace", Want: "allow", Reason: "debugpy_stack_trace reads the paused program: allowed (category read)"},
	{Name: "write by default", Tool: "debugpy_set_breakpoint", Category: "write", Want: "allow", Reason: "changes the debug session"},
	{Name: "execute by default", Tool: "debugpy_launch", Category: "execute", Want: "approve", Reason: "a person decides"},
	{Name: "write denied", Tool: "debugpy_step_over", Category: "write", Settings: `{"write":"deny"}`, Want: "deny", Reason: "denied by this config (category write)"},
	{Name: "read approved", Tool: "debugpy_variables", Settings: `{"read":"approve"}`, Want: "approve"},
	{Name: "the same tool, other settings", Tool: "debugpy_variables", Settings: `{"read":"deny"}`, Want: "deny"},
	{Name: "deferred", Tool: "debugpy_evaluate", Category: "execute", Settings: `{"defer":["debugpy_evaluate"]}`, Want: "abstain"},
	{Name: "deferred is exact", Tool: "debugpy_evaluate", Category: "execute", Settings: `{"defer":["debugpy_Evaluate","debugpy_evaluate "]}`, Want: "approve"},
	{Name: "code says what it runs", Tool: "debugpy_set_breakpoint", Category: "execute", Derived: code, Want: "approve",
		Reason: "debugpy_set_breakpoint would have debugpy run Python in the program (its condition: n > 3)"},
	{Name: "a log message says where its values go", Tool: "debugpy_set_breakpoint", Category: "execute",
		Derived: `{"code":[{"argument":"condition","kind":"expression","text":"n > 3"},{"argument":"log_message","kind":"expression","text":"'t=%s' % (t,)"}],"paths":[],"addresses":[]}`,
		Want:    "approve", Reason: "(its condition: n > 3); its log message prints what it reads at each hit to the program's output, which the agent reads with only the secrets the session already knows masked"},
	{Name: "a launch names its program", Tool: "debugpy_launch", Category: "execute",
		Derived: `{"code":[],"paths":[{"argument":"program","kind":"program","given":"app.py","resolved":"/srv/app.py","session":false}],"addresses":[]}`,
		Want:    "approve", Reason: "would start /srv/app.py on this machine"},
	{Name: "a launch of a module", Tool: "debugpy_launch", Category: "execute", Args: `{"module":"http.server"}`, Want: "approve", Reason: "would start python -m http.server"},
	{Name: "attach by pid", Tool: "debugpy_attach_pid", Category: "execute", Args: `{"pid":4242}`, Want: "approve", Reason: "inject the debugger into process 4242"},
	{Name: "phase result", Phase: "result", Tool: "debugpy_stack_trace", Result: `{}`, Want: "abstain"},
}

func TestValidate(t *testing.T) {
	policytest.Validate(t, Validate, []policytest.Setting{
		{JSON: `{"policy":"category","read":"allow","write":"approve","execute":"deny","defer":["debugpy_evaluate"]}`},
		{JSON: `{}`},
		{JSON: `{"read":"permit"}`, Err: "category: read must be allow, deny or approve, not permit"},
		{JSON: `{"execute":"Allow"}`, Err: "execute must be allow, deny or approve"},
		{JSON: `{"reed":"allow"}`, Err: `unknown setting "reed" (known: defer, execute, read, write)`},
		{JSON: `{"defer":"debugpy_evaluate"}`, Err: `setting "defer" must be an array of strings`},
		{JSON: `{"defer":[1]}`, Err: "must be an array of strings"},
		{JSON: `[]`, Err: "settings must be a table"},
	})
}
