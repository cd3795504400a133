// Package category decides by the call's category: settings name the verdict
// for read, write and execute. The host counts any call that carries code
// (a breakpoint condition, a log message, a repl statement ...) as execute,
// whatever its tool (plugins/ABI.md, derived). Tools listed in "defer" are
// left to other modules (abstain), such as expressions for debugpy_evaluate.
package category

import (
	"path"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/debugpy-guard/debugpy-guard/plugins/abi"
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
		switch v := s.Get(k); abi.Verdict(v.Str()) {
		case "", abi.Allow, abi.Deny, abi.Approve:
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

// config is what Decide reads of a module's settings.
type config struct {
	verdicts map[string]abi.Verdict // read, write, execute: as set ("" when not)
	deferred []string
	// last is the last decision on a call that runs no code, starts and
	// enters nothing: it depends on the tool and its category alone, and an
	// agent asks the same tool many times in a row (a stack, a step, a
	// stack...), so it is not built again (a Go wasm guest spent a sixth of
	// the policy's time building the reason).
	last *atomic.Pointer[plainDecision]
}

type plainDecision struct {
	tool, cat string
	d         sdk.Decision
}

func readConfig(s sdk.Value) config {
	c := config{verdicts: map[string]abi.Verdict{}, last: new(atomic.Pointer[plainDecision])}
	for _, k := range []string{"read", "write", "execute"} {
		c.verdicts[k] = abi.Verdict(s.Get(k).Str())
	}
	for _, t := range s.Get("defer").Elements() {
		c.deferred = append(c.deferred, t.Str())
	}
	return c
}

// Decide is the policy.
//
// Prepare is the same policy with its settings read once (the built-in
// module keeps it while the settings stay the same).
var Prepare, Decide = settings.Prepared(readConfig, decide)

func decide(r *sdk.Request, c config) sdk.Decision {
	if r.Phase() != "call" {
		return sdk.Abstain()
	}
	tool, cat := r.Tool(), r.Category()
	for _, t := range c.deferred {
		if t == tool {
			return sdk.Abstain()
		}
	}
	plain := isPlain(r, tool)
	if m := c.last.Load(); plain && m != nil && m.tool == tool && m.cat == cat {
		return m.d
	}
	d := decideAnew(r, c, cat)
	if plain {
		c.last.Store(&plainDecision{tool, cat, d})
	}
	return d
}

func decideAnew(r *sdk.Request, c config, cat string) sdk.Decision {
	verdict, ok := c.verdicts[cat]
	if !ok { // not a category the host sends: read as before
		verdict = abi.Verdict(r.Settings().Get(cat).Str())
	}
	if verdict == "" {
		verdict = map[string]abi.Verdict{"read": abi.Allow, "write": abi.Allow}[cat]
		if verdict == "" {
			verdict = abi.Approve
		}
	}
	return sdk.Decision{Verdict: verdict, Reason: describe(r, cat) + ": " + verdicts[verdict] + " (category " + cat + ")"}
}

// verdicts say a verdict to the person who reads the reason.
var verdicts = map[abi.Verdict]string{abi.Allow: "allowed", abi.Deny: "denied by this config", abi.Approve: "a person decides"}

// isPlain reports whether describe tells the call by its tool and category
// alone: it runs no code, starts no program and enters no process. decide
// keeps the decision on such a call (config.last).
func isPlain(r *sdk.Request, tool string) bool {
	return tool != "debugpy_launch" && tool != "debugpy_attach_pid" && r.Derived().Get("code").Len() == 0
}

// describe says what the call would do, for the person who approves it or
// reads the audit log: the code it would run, the program it would start,
// the process it would enter; for any other call (isPlain), what its tool
// does.
func describe(r *sdk.Request, cat string) string {
	tool := r.Tool()
	if isPlain(r, tool) {
		return tool + " " + does[cat]
	}
	if code := r.Derived().Get("code"); code.Len() > 0 {
		c := code.Index(0)
		out := tool + " would have debugpy run Python in the program (its " + c.Get("argument").Str() + ": " + short(c.Get("text").Str()) + ")"
		for _, c := range code.Elements() {
			if strings.HasSuffix(c.Get("argument").Str(), "log_message") {
				// A logpoint prints at each hit, where the program runs
				// on: no stop is listed for the secrets it holds first.
				out += "; its log message prints what it reads at each hit to the program's output, which the agent reads with only the secrets the session already knows masked"
				break
			}
		}
		return out
	}
	switch tool {
	case "debugpy_launch":
		what := "a program"
		if m := r.Arg("module").Str(); m != "" {
			what = "python -m " + m
		}
		var dirs []string // what the session would read unasked (dap/owns.go)
		for _, p := range r.Derived().Get("paths").Elements() {
			switch p.Get("kind").Str() {
			case "program":
				what = p.Get("resolved").Str()
				dirs = append(dirs, path.Dir(what))
			case "directory":
				dirs = append(dirs, p.Get("resolved").Str())
			}
		}
		out := tool + " would start " + short(what) + " on this machine, which runs its code"
		if len(dirs) > 0 {
			out += "; the files under " + short(strings.Join(dirs, " and ")) + " would then be the debug session's, which the agent reads without asking (not a directory that holds the home directory)"
		}
		return out
	}
	// debugpy_attach_pid: the one call left that isPlain does not take.
	return tool + " would inject the debugger into process " + strconv.FormatInt(r.Arg("pid").Int(), 10) + ", which runs code in it"
}

// short is s, cut to 200 bytes (at a rune's start) for a reason's line.
func short(s string) string {
	if len(s) <= 200 {
		return s
	}
	i := 200
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i] + "…"
}

type bad string

func (b bad) Error() string { return string(b) }
