package redact

import (
	"testing"

	"github.com/debugpy-guard/debugpy-guard/plugins/sdk"
	"github.com/debugpy-guard/debugpy-guard/policies/internal/policytest"
)

func TestDecide(t *testing.T) {
	vars := `{"variables":[{"name":"password","value":"'hunter2x'","type":"str"},{"name":"n","value":"3","type":"int"}]}`
	policytest.Run(t, Decide, []policytest.Case{
		{Name: "phase call", Tool: "debugpy_variables", Want: "abstain"},
		{Name: "no result", Phase: "result", Tool: "debugpy_variables", Want: "allow", Reason: "no result"},
		{Name: "nothing to redact", Phase: "result", Tool: "debugpy_variables", Result: `{"variables":[{"name":"n","value":"3"}]}`, Want: "allow", Reason: "nothing to redact"},
		{Name: "a secret's name", Phase: "result", Tool: "debugpy_variables", Result: vars, Want: "allow", Reason: "redacted 1 secret value(s)",
			Output: `"result":{"variables":[{"name":"password","value":"[redacted]","type":"str"},{"name":"n","value":"3","type":"int"}]}`},
		{Name: "a name from the settings", Phase: "result", Tool: "debugpy_variables", Result: `{"variables":[{"name":"PIN","value":"'4321'"}]}`,
			Settings: `{"names":["pin"]}`, Want: "allow", Output: `"value":"[redacted]"`},
		{Name: "the same, other settings", Phase: "result", Tool: "debugpy_variables", Result: `{"variables":[{"name":"PIN","value":"'4321'"}]}`,
			Want: "allow", Reason: "nothing to redact"},
		{Name: "an evaluate of a secret", Phase: "result", Tool: "debugpy_evaluate", Args: `{"expression":"cfg.password"}`,
			Result: `{"result":"'s3cr3t!!'","type":"str"}`, Want: "allow", Output: `"result":"[redacted]"`},
		{Name: "a token in any string", Phase: "result", Tool: "debugpy_output",
			Result: `{"output":"key AKIAIOSFODNN7EXAMPLE end"}`, Want: "allow", Reason: "redacted"},
	})
	// What was masked is handed to the host, which masks it everywhere.
	if got := sdk.TakeSecrets(); len(got) == 0 {
		t.Error("no secret handed to the host")
	}
}

func TestValidate(t *testing.T) {
	policytest.Validate(t, Validate, []policytest.Setting{
		{JSON: `{"names":["pin"]}`},
		{JSON: `{"name":["pin"]}`, Err: `unknown setting "name"`},
		{JSON: `{"names":[true]}`, Err: "must be an array of strings"},
	})
}
