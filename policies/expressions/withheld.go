package expressions

import (
	"strings"

	"github.com/debugpy-guard/debugpy-guard/plugins/sdk"
)

// Withheld returns why the code of a call (d: the request's derived
// member) must not run, nor show its result, or "" when it may: it reads
// part of a holder (ReadsPart; derived.holders, of which derived.objects
// and derived.sequences may have their members read whole), or the content
// of a value shown cut short (ReadsCut; derived.cut). Both phases ask it: the call
// phase (this policy), before code that would copy a part of a holder to
// another name (x = alias[1:]) or pass it on runs, and the result phase
// (redact), whose holders include the paths the code reads, read whole once
// the call may run.
//
// And, in the result phase, it reads part of a path whose value was shown
// cut short as text (derived.texts): a name's was known to the call phase,
// which asks a person (textPart), a path's only once read, after the
// decision.
func Withheld(d sdk.Value) string {
	if h, ok := readHeld(d); ok {
		if w := h.withheld(d.Get("code").Elements(), func(string) bool { return true }, false); w != "" {
			return w
		}
	}
	paths := set(d.Get("texts"))
	for p := range paths {
		if !strings.ContainsAny(p, ".[") {
			delete(paths, p) // a name: the call phase's (textPart)
		}
	}
	if w := textPart(d.Get("code").Elements(), paths); w != "" {
		return w + ": its result is withheld. Read the path whole, or run the code with a person (debugpy_evaluate in the repl context)"
	}
	return ""
}

// heldNames is what withheld judges code by: the holders, with the objects
// and sequences among them, and the names shown cut short.
type heldNames struct {
	held Held
	cut  map[string]bool
}

// readHeld reads d's holders and cut once for every piece of code (each is
// a scan of d); ok is false when there are neither, and no code is
// withheld.
func readHeld(d sdk.Value) (h heldNames, ok bool) {
	holders, cut := set(d.Get("holders")), set(d.Get("cut"))
	if len(holders) == 0 && len(cut) == 0 {
		return h, false
	}
	return heldNames{held: Held{Holders: holders, Objects: set(d.Get("objects")), Sequences: set(d.Get("sequences"))}, cut: cut}, true
}

// withheld is Withheld for the code (derived.code's elements) of the
// arguments that of accepts. For a breakpoint's code (atHits), which runs
// at each hit wherever the breakpoint is, the reason says what a person
// approving it must know.
func (h heldNames) withheld(code []sdk.Value, of func(argument string) bool, atHits bool) string {
	held, cut := h.held, h.cut
	for _, c := range code {
		text, kind, arg := c.Get("text").Str(), c.Get("kind").Str(), c.Get("argument").Str()
		if !of(arg) {
			continue
		}
		if h := ReadsPart(text, kind, held); h != "" {
			if atHits {
				return "its " + arg + " reads " + h + " other than whole, and " + h + " holds a secret the session has seen, where the program is stopped: " +
					"a log message would print a part of it, a condition tell a bit of it at each hit, where no mask finds it"
			}
			return "its " + arg + " reads " + h + " other than whole, and " + h +
				" holds a secret the session has seen: a part of it would show unmasked. Read " + h +
				" whole (it is shown masked), or the other variables with debugpy_variables"
		}
		if h := ReadsCut(text, kind, cut); h != "" {
			if atHits {
				return "its " + arg + " reads what " + h + " holds, and " + h + " was shown cut short (...) in a session that has seen a secret: " +
					"a log message would print what was not shown, a condition tell a bit of it at each hit"
			}
			return "its " + arg + " reads what " + h + " holds (compares it, formats it, passes it on), and " + h +
				" was shown cut short (...) in a session that has seen a secret: what was not shown may hold one, and would show a bit at a time. Read " +
				h + "'s elements or slices (" + h + "[15:], " + h + "[20]: each is read whole first, and shown masked)"
		}
	}
	return ""
}

// runsAtHits reports whether the code of argument is a breakpoint's (a
// condition, a hit condition, a log message: breakpoints[0].condition at an
// attach), which runs at each hit, not now.
func runsAtHits(argument string) bool {
	_, last, _ := strings.Cut(argument, ".")
	if last == "" {
		last = argument
	}
	return last == "condition" || last == "hit_condition" || last == "log_message"
}

// set reads a list of strings (derived.holders, derived.cut,
// derived.objects, derived.sequences) as a set.
func set(v sdk.Value) map[string]bool {
	es := v.Elements()
	if len(es) == 0 {
		return nil
	}
	out := make(map[string]bool, len(es))
	for _, e := range es {
		out[e.Str()] = true
	}
	return out
}
