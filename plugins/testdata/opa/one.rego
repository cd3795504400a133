# A policy with one entrypoint, which a config need not name.
package guard

decision := {"decision": "deny", "reason": sprintf("%s: not from Rego", [input.tool])} if input.tool == "debugpy_evaluate"
