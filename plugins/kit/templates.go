package kit

// The files of a new policy project; NAME is replaced by the project's name.

const goMod = `module NAME

go 1.24

require github.com/debugpy-guard/debugpy-guard v0.0.0

// The guest SDK travels with the project (third_party/), so that it builds
// with no network: GOPROXY=off go build works.
replace github.com/debugpy-guard/debugpy-guard => ./third_party/debugpy-guard
`

const policyGo = `// Command NAME is a debugpy-guard policy: a WebAssembly module that
// debugpy-guard runs for each tool call an AI agent makes, and that answers
// allow, deny, approve (a person decides) or abstain (leave it to the other
// modules).
//
// The sample rule: an expression to evaluate that mentions one of the
// settings' words (password, secret, token by default) is denied; changing a
// variable needs a person; everything else is left to the other modules.
//
// Build it with ` + "`debugpy-guard policy build .`" + `, test it with
// ` + "`debugpy-guard policy test cases`" + ` (README.md).
package main

import (
	"errors"
	"strings"

	"github.com/debugpy-guard/debugpy-guard/plugins/sdk"
)

// A module is a WASI reactor: init registers the rule, main never runs.
func init() {
	sdk.Validate(validate)
	sdk.Handle(decide)
}

func main() {}

// validate checks the module's settings (its table in the config) once, when
// debugpy-guard loads it; an error refuses the config, with this text.
func validate(settings sdk.Value) error {
	w := settings.Get("words")
	if !w.Exists() {
		return nil
	}
	if w.Kind() != sdk.Array {
		return errors.New("NAME: words must be a list of strings")
	}
	for _, e := range w.Elements() {
		if e.Kind() != sdk.String || e.Str() == "" {
			return errors.New("NAME: words must be a list of non-empty strings")
		}
	}
	return nil
}

// decide is the rule. r holds the call: r.Tool(), r.Category() (read, write,
// execute), r.Arg("name"), r.Phase() ("call" before the tool runs, "result"
// after), r.Result(), r.Settings(), r.DebugSession(), r.Client().
func decide(r *sdk.Request) sdk.Decision {
	if r.Phase() != "call" {
		return sdk.Abstain()
	}
	switch r.Tool() {
	case "debugpy_evaluate":
		expr := strings.ToLower(r.Arg("expression").Str())
		for _, w := range words(r.Settings()) {
			if strings.Contains(expr, w) {
				return sdk.Deny("the expression mentions " + w)
			}
		}
	case "debugpy_set_variable":
		return sdk.Approve("changing a variable of the running program needs a person")
	}
	return sdk.Abstain()
}

func words(settings sdk.Value) []string {
	list := settings.Get("words")
	if !list.Exists() {
		return []string{"password", "secret", "token"}
	}
	var out []string
	for _, e := range list.Elements() {
		out = append(out, strings.ToLower(e.Str()))
	}
	return out
}
`

const policyTestGo = `package main

import (
	"strings"
	"testing"

	"github.com/debugpy-guard/debugpy-guard/plugins/sdk"
)

// The rule runs natively too: go test is the fastest loop. The case files
// (cases/) then test the built module as debugpy-guard runs it.
func TestDecide(t *testing.T) {
	for _, c := range []struct{ request, want string }{
		{` + "`" + `{"phase":"call","tool":"debugpy_evaluate","arguments":{"expression":"db.Password"},"settings":{}}` + "`" + `, "deny"},
		{` + "`" + `{"phase":"call","tool":"debugpy_evaluate","arguments":{"expression":"user.name"},"settings":{}}` + "`" + `, "abstain"},
		{` + "`" + `{"phase":"call","tool":"debugpy_evaluate","arguments":{"expression":"user.pin"},"settings":{"words":["pin"]}}` + "`" + `, "deny"},
		{` + "`" + `{"phase":"call","tool":"debugpy_set_variable","arguments":{"name":"x","value":"1"},"settings":{}}` + "`" + `, "approve"},
	} {
		out, failed := sdk.Evaluate([]byte(c.request))
		if failed || !strings.Contains(string(out), ` + "`" + `"decision":"` + "`" + `+c.want+` + "`" + `"` + "`" + `) {
			t.Errorf("%s: got %s, want %s", c.request, out, c.want)
		}
	}
	if _, failed := sdk.ValidateSettings([]byte(` + "`" + `{"words":"password"}` + "`" + `)); !failed {
		t.Error("words as a string was accepted")
	}
}
`

const guardToml = `# A config to try NAME on its own: it sees every call, and when it abstains
# the call is allowed. policy test and policy eval use it:
#   debugpy-guard policy eval --config guard.toml --tool debugpy_evaluate --args '{"expression":"db.password"}'
# To deploy NAME, paste the stanza policy build prints into your real config.
default = "allow"

[modules.NAME]
source = "NAME.wasm"
settings = { words = ["password", "secret", "token"] }

[[rules]]
tools = ["debugpy_*"]
call = ["NAME"]
`

const casesToml = `# Case files: each [[case]] is one tool call and the decision it must get.
# Keys: name, tool, arguments, session, phase (call or result), result and
# holders and cut (for phase result: derived.holders, derived.cut); want (allow, deny, approve, or abstain: no module decided),
# reason (a substring of the reasons), want_result (the rewritten result,
# exactly), result_has and result_lacks (substrings of it), malformed (true:
# the gate must refuse the arguments before any module sees them; without
# it, arguments the gate refuses, a misspelled key say, fail the case).
# Run them with: debugpy-guard policy test cases
config = "../guard.toml"

[[case]]
name = "an expression that names a secret is denied"
tool = "debugpy_evaluate"
arguments = { expression = "db.password" }
want = "deny"
reason = "NAME: the expression mentions password"

[[case]]
name = "a plain read is left to the other modules"
tool = "debugpy_evaluate"
arguments = { expression = "user.name" }
want = "abstain"

[[case]]
name = "changing a variable needs a person"
tool = "debugpy_set_variable"
arguments = { name = "retries", value = "3" }
want = "approve"
`

const readme = "# NAME: a debugpy-guard policy\n\n" +
	"A policy module for [debugpy-guard](https://github.com/debugpy-guard/debugpy-guard), in Go on its guest SDK.\n" +
	"It builds with the Go toolchain alone, with no network: the SDK is in `third_party/`.\n\n" +
	"## The loop\n\n" +
	"```sh\n" +
	"go test ./...                          # the rule, natively: fast\n" +
	"debugpy-guard policy build .           # NAME.wasm, its sha256 and the config stanza to paste\n" +
	"debugpy-guard policy test cases        # the case files against the built module (exit 0: all pass)\n" +
	"debugpy-guard policy eval --config guard.toml --tool debugpy_evaluate --args '{\"expression\":\"db.password\"}'\n" +
	"debugpy-guard policy bench --config guard.toml   # what it costs a call\n" +
	"```\n\n" +
	"Edit `policy.go`: `decide` gets each call (tool, category, arguments, phase, result, settings)\n" +
	"and returns `sdk.Allow`, `sdk.Deny`, `sdk.Approve` (a person decides) or `sdk.Abstain()`;\n" +
	"in phase result, `sdk.Rewrite` replaces the result (redaction). `validate` checks the settings\n" +
	"once at load. `sdk.CounterAdd(key, window)` counts calls per MCP session (rate limits);\n" +
	"`sdk.Log` writes to debugpy-guard's log. A module gets no files, environment or network.\n\n" +
	readmeDeploy + "\n" +
	"The ABI (what a module exports and imports, the request and response) is plugins/ABI.md\n" +
	"in debugpy-guard's repository.\n"

const sdkReadme = "This is a copy of debugpy-guard's guest SDK (plugins/sdk), written here by\n" +
	"`debugpy-guard policy new` so that the project builds with no network.\n" +
	"`debugpy-guard policy new` in a newer release writes the SDK of that release.\n"

// readmeLoop is the build-test-try loop of the README of a project in a
// language other than Go (Go's adds go test), and readmeDeploy the
// deployment steps of every project's README.
const readmeLoop = `## The loop

` + "`" + `` + "`" + `` + "`" + `sh
debugpy-guard policy build .           # NAME.wasm, its sha256 and the config stanza to paste
debugpy-guard policy test cases        # the case files against the built module (exit 0: all pass)
debugpy-guard policy eval --config guard.toml --tool debugpy_evaluate --args '{"expression":"db.password"}'
debugpy-guard policy bench --config guard.toml   # what it costs a call
` + "`" + `` + "`" + `` + "`" + `

`

const readmeDeploy = `## Deploy

1. ` + "`" + `debugpy-guard policy build .` + "`" + ` prints a stanza: paste it into your config (` + "`" + `serve --config` + "`" + `).
   The ` + "`" + `sha256` + "`" + ` pins these exact bytes: a rebuilt or swapped module is refused until you update it.
2. Keep ` + "`" + `mode = "monitor"` + "`" + ` first: the module runs on every call and its verdicts go to the
   audit log, but they do not count. Check with ` + "`" + `debugpy-guard check --config FILE` + "`" + `.
3. When the audit log shows it decides as you mean, remove the ` + "`" + `mode` + "`" + ` line to enforce it.
`
