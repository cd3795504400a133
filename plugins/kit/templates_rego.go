package kit

import "strings"

// The files of a new policy project in Rego; NAME is replaced by the
// project's name. policy.rego is the same rule as the Go template's, and
// policy_test.rego its native tests (opa test). Tested with OPA v1.22.4.

// OPAVersion is the opa the Rego template was tested with, and the one
// debugpy-guard's make opa installs.
const OPAVersion = "v1.22.4"

// regoEntrypoint is the rule whose value is the decision.
const regoEntrypoint = "guard/decision"

const regoPolicy = `# NAME: a debugpy-guard policy in Rego. debugpy-guard runs the module
# opa build compiles from this file for each tool call an AI agent makes,
# and the value of decision is its answer: allow, deny, approve (a person
# decides) or abstain (leave it to the other modules), as a string or as
# {"decision": ..., "reason": ...}.
#
# input is the call (plugins/ABI.md in debugpy-guard's repository):
# input.tool, input.category (read, write, execute), input.arguments,
# input.phase ("call" before the tool runs, "result" after), input.result.
# data is the module's settings from the config.
#
# The sample rule: an expression to evaluate that mentions one of the
# settings' words (password, secret, token by default) is denied; changing
# a variable needs a person; everything else is left to the other modules.
package guard

default decision := "abstain"

decision := {"decision": "deny", "reason": sprintf("the expression mentions %s", [mentioned[0]])} if {
	input.phase == "call"
	input.tool == "debugpy_evaluate"
	count(mentioned) > 0
}

decision := {"decision": "approve", "reason": "changing a variable of the running program needs a person"} if {
	input.phase == "call"
	input.tool == "debugpy_set_variable"
}

# mentioned are the words the expression mentions, in the settings' order.
mentioned := [w | some w in words; contains(lower(input.arguments.expression), w)]

default words := ["password", "secret", "token"]

words := [lower(w) | some w in data.words] if data.words
`

const regoTest = `package guard_test

import data.guard

# opa test . runs these natively: the fastest loop. The case files (cases/)
# then test the built module as debugpy-guard runs it.

test_a_secret_is_denied if {
	guard.decision.decision == "deny" with input as {"phase": "call", "tool": "debugpy_evaluate", "arguments": {"expression": "db.Password"}}
}

test_a_plain_read_is_left_to_others if {
	guard.decision == "abstain" with input as {"phase": "call", "tool": "debugpy_evaluate", "arguments": {"expression": "user.name"}}
}

test_the_settings_words if {
	guard.decision.reason == "the expression mentions pin" with input as {"phase": "call", "tool": "debugpy_evaluate", "arguments": {"expression": "user.PIN"}}
		with data.words as ["pin"]
}

test_changing_a_variable_needs_a_person if {
	guard.decision.decision == "approve" with input as {"phase": "call", "tool": "debugpy_set_variable", "arguments": {"name": "x", "value": "1"}}
}
`

// regoToml is guardToml with the ABI the module follows.
var regoToml = strings.Replace(guardToml, "source = \"NAME.wasm\"\n",
	"source = \"NAME.wasm\"\nabi = \"opa\"                     # built by opa build -t wasm from policy.rego\n"+
		"entrypoint = \"guard/decision\"   # the rule whose value is the decision (settings are its data)\n", 1)

const regoReadme = `# NAME: a debugpy-guard policy in Rego

A policy module for [debugpy-guard](https://github.com/debugpy-guard/debugpy-guard), in Rego. OPA's
` + "`" + `opa build -t wasm` + "`" + ` compiles it to WebAssembly, and debugpy-guard runs that module (` + "`" + `abi = "opa"` + "`" + `
in the config): the build needs the ` + "`" + `opa` + "`" + ` command and nothing from a network.

## The loop

` + "```" + `sh
opa test .                             # the rule, natively (policy_test.rego): fast
debugpy-guard policy build .           # NAME.wasm, its sha256 and the config stanza to paste
debugpy-guard policy test cases        # the case files against the built module (exit 0: all pass)
debugpy-guard policy eval --config guard.toml --tool debugpy_evaluate --args '{"expression":"db.password"}'
debugpy-guard policy bench --config guard.toml   # what it costs a call
` + "```" + `

` + "`" + `policy build` + "`" + ` runs ` + "`" + `opa build -t wasm -e guard/decision policy.rego` + "`" + ` and takes the module out of the
bundle it writes (the same source and opa give the same bytes). Edit ` + "`" + `policy.rego` + "`" + `: ` + "`" + `decision` + "`" + `
is the answer, ` + "`" + `"allow"` + "`" + `, ` + "`" + `"deny"` + "`" + `, ` + "`" + `"approve"` + "`" + ` (a person decides) or ` + "`" + `"abstain"` + "`" + `, or an object
` + "`" + `{"decision": ..., "reason": ...}` + "`" + `; undefined is abstain. ` + "`" + `input` + "`" + ` is the call as plugins/ABI.md
in debugpy-guard's repository describes it, and ` + "`" + `data` + "`" + ` the module's ` + "`" + `settings` + "`" + ` (which nothing checks
at load: write the rule so that a wrong setting cannot widen what it allows). Most of OPA's
builtins are compiled into the module; of the others, debugpy-guard provides ` + "`" + `sprintf` + "`" + `, ` + "`" + `trace` + "`" + `,
` + "`" + `time.now_ns` + "`" + `, ` + "`" + `crypto.sha256` + "`" + `, ` + "`" + `hex.encode` + "`" + ` and ` + "`" + `hex.decode` + "`" + `, and refuses a module that needs
more (` + "`" + `http.send` + "`" + `, say) when it loads. A module gets no files, environment or network.

## The toolchain, on a machine with no network

The build needs OPA's ` + "`" + `opa` + "`" + ` command, ` + "`" + `` + OPAVersion + `` + "`" + ` or later (one static binary). On a machine with
network, either build it (Go 1.24 or later):

` + "```" + `sh
GOBIN=/media/usb go install github.com/open-policy-agent/opa@` + OPAVersion + `
` + "```" + `

or download the static binary of the same version from OPA's releases on GitHub
(` + "`" + `opa_linux_amd64_static` + "`" + `). On the machine with none: ` + "`" + `install -m 755 /media/usb/opa /usr/local/bin/opa` + "`" + `.

` + readmeDeploy
