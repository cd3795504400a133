# The policy of the OPA fixtures of plugins' tests (README.md there says
# how the committed module and bundle were built from it). Each
# entrypoint is one thing the host must do with an OPA module.
package guard

# decision: the rule a team writes. A string, an object with a reason
# made by sprintf (a builtin the host provides), undefined (abstain), and
# data (the settings) read.
default decision := "abstain"

decision := "allow" if input.tool == "debugpy_stack_trace"

decision := {"decision": "deny", "reason": sprintf("%s is off limits (%d words)", [input.arguments.expression, count(words)])} if {
	input.phase == "call"
	input.tool == "debugpy_evaluate"
	some w in words
	contains(input.arguments.expression, w)
}

decision := {"decision": "approve", "reason": "a person decides"} if input.tool == "debugpy_set_variable"

# A rewrite of the result, in the result phase.
decision := {"decision": "allow", "reason": "rewritten", "result": {"text": upper(input.result.text)}} if {
	input.phase == "result"
	input.tool == "debugpy_output"
}

default words := ["password"]

words := data.words if data.words

# undefined: no value, so the host abstains.
undefined := "deny" if input.tool == "no such tool"

# echo: the input as the module read it, for the differential JSON test.
echo := {"decision": "allow", "result": input}

# formats: sprintf of each of the input's values, for the differential
# sprintf test.
formats := {"decision": "allow", "reason": concat("|", [sprintf(f, [v]) |
	some f in ["%v", "%d", "%s", "%q", "%x", "%.2f", "%5v"]
	some v in input.arguments.values
])}

# hashes: the other builtins the host provides.
hashes := {"decision": "allow", "reason": concat("|", [crypto.sha256(s), hex.encode(s), hex.decode(hex.encode(s)), format_int(count(s), 10)])} if {
	s := input.arguments.expression
	trace(s)
}

# now: time.now_ns, read once a call.
now := {"decision": "allow", "reason": sprintf("%d %d", [time.now_ns(), time.now_ns()])}

# conflict: two values for one complete rule, which the module aborts on.
conflict := "allow" if input.tool

conflict := "deny" if input.tool

# bad: a value that is not a decision.
bad := 42

# wrong: an object with a key the host does not know.
wrong := {"decision": "deny", "Reason": "capitalised"}
