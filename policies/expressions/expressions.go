// Package expressions judges the Python that a call would make debugpy run: the
// expression of debugpy_evaluate, the value of debugpy_set_variable, the
// condition and the {expressions} of a breakpoint's log message.
//
//   - deny: imports, dunder names (__import__, __class__ ...), exec, eval,
//     open, getattr and the other names in denyNames (plus settings.deny_names),
//     lambdas, walrus and statements chained with ';';
//   - allow: names, attribute chains, literal subscripts, literals,
//     arithmetic, comparisons and boolean operators: user.name, items[0] == 3;
//   - approve (a person decides): calls, unless the callee is listed in
//     settings.allow_calls (e.g. ["len"]), assignments, f-strings and
//     subscripts that are not literals.
package expressions

import (
	"strings"

	"github.com/debugpy-guard/debugpy-guard/plugins/sdk"
	"github.com/debugpy-guard/debugpy-guard/policies/settings"
)

var denyNames = map[string]bool{
	"exec": true, "eval": true, "compile": true, "open": true, "globals": true, "locals": true, "vars": true,
	"getattr": true, "setattr": true, "delattr": true, "breakpoint": true, "input": true, "exit": true, "quit": true,
	"os": true, "sys": true, "subprocess": true, "importlib": true, "builtins": true, "shutil": true, "socket": true,
	"import": true, "lambda": true, "pickle": true, "ctypes": true, "memoryview": true,
}

// Validate checks the settings.
func Validate(s sdk.Value) error {
	return settings.Check("expressions", s, map[string]settings.Kind{"allow_calls": settings.Strings, "deny_names": settings.Strings})
}

// Decide is the policy. It judges every piece of code the host derived from
// the call (plugins/ABI.md, derived.code), whichever tool and argument
// carries it: an expression to evaluate, a condition, a hit condition, a
// log message's expression, a value, a repl statement.
func Decide(r *sdk.Request) sdk.Decision {
	if r.Phase() != "call" {
		return sdk.Abstain()
	}
	code := r.Derived().Get("code").Elements()
	if len(code) == 0 {
		return sdk.Abstain()
	}
	s := r.Settings()
	extraDeny := map[string]bool{}
	for _, n := range s.Get("deny_names").Elements() {
		extraDeny[n.Str()] = true
	}
	okCalls := map[string]bool{}
	for _, n := range s.Get("allow_calls").Elements() {
		okCalls[n.Str()] = true
	}
	worst, why := "allow", "plain names, attributes, literal subscripts and comparisons"
	for _, c := range code {
		v, reason := judge(c.Get("text").Str(), extraDeny, okCalls)
		if v == "allow" && c.Get("kind").Str() != "expression" {
			// A statement (a repl input, an assignment) is never a plain
			// read, however plain it looks.
			v, reason = "approve", "it runs Python statements in the program ("+c.Get("argument").Str()+"), which can change it"
		}
		reason = c.Get("argument").Str() + ": " + reason
		if v == "deny" || (v == "approve" && worst == "allow") {
			worst, why = v, reason
		}
		if v == "deny" {
			break
		}
	}
	return sdk.Decision{Verdict: worst, Reason: why}
}

// logExpressions are the {expr} parts of a logpoint message.
func logExpressions(msg string) []string {
	var out []string
	for {
		i := strings.IndexByte(msg, '{')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(msg[i:], '}')
		if j < 0 {
			return append(out, msg[i+1:])
		}
		out = append(out, msg[i+1:i+j])
		msg = msg[i+j+1:]
	}
}

type token struct {
	kind byte // 'n' name, 'l' literal, 'o' operator or punctuation
	text string
}

func tokenize(s string) ([]token, string) {
	var toks []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			i++
		case c == '\n' || c == '\r' || c == ';':
			return nil, "several statements"
		case isIdentStart(c):
			j := i + 1
			for j < len(s) && isIdent(s[j]) {
				j++
			}
			word := s[i:j]
			if j < len(s) && (s[j] == '\'' || s[j] == '"') && len(word) <= 2 {
				if strings.ContainsAny(word, "fF") {
					return nil, "f-string (it runs the code in its braces)"
				}
				i = j // a prefix: r'', b''
				continue
			}
			toks = append(toks, token{'n', word})
			i = j
		case c >= '0' && c <= '9' || (c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9'):
			j := i + 1
			for j < len(s) && (isIdent(s[j]) || s[j] == '.') {
				j++
			}
			toks = append(toks, token{'l', s[i:j]})
			i = j
		case c == '\'' || c == '"':
			q := s[i : i+1]
			if strings.HasPrefix(s[i:], strings.Repeat(q, 3)) {
				q = strings.Repeat(q, 3)
			}
			j := i + len(q)
			for j < len(s) && !strings.HasPrefix(s[j:], q) {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(s) {
				return nil, "unterminated string"
			}
			toks = append(toks, token{'l', s[i : j+len(q)]})
			i = j + len(q)
		default:
			op := s[i : i+1]
			for _, two := range []string{"==", "!=", "<=", ">=", "**", "//", ":=", "<<", ">>", "->"} {
				if strings.HasPrefix(s[i:], two) {
					op = two
				}
			}
			toks = append(toks, token{'o', op})
			i += len(op)
		}
	}
	return toks, ""
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}
func isIdent(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

// judge classifies one expression.
func judge(e string, extraDeny, okCalls map[string]bool) (string, string) {
	if strings.TrimSpace(e) == "" {
		return "allow", "empty expression"
	}
	toks, bad := tokenize(e)
	if strings.HasPrefix(bad, "f-string") {
		return "approve", "it is an " + bad + ": a person decides"
	}
	if bad != "" {
		return "deny", "it has " + bad + ": not allowed"
	}
	for _, t := range toks {
		if t.kind == 'n' && (strings.HasPrefix(t.text, "__") || denyNames[t.text] || extraDeny[t.text]) {
			return "deny", "it uses " + t.text + ": never allowed"
		}
		if t.kind == 'o' && t.text == ":=" {
			return "deny", "it assigns with :=: never allowed"
		}
	}
	for i, t := range toks {
		if t.kind != 'o' {
			continue
		}
		prevValue := i > 0 && (toks[i-1].kind != 'o' || toks[i-1].text == ")" || toks[i-1].text == "]")
		switch t.text {
		case "=":
			return "approve", "it assigns a value: a person decides"
		case "(":
			if prevValue && toks[i-1].kind == 'n' && isKeyword(toks[i-1].text) {
				continue
			}
			if prevValue {
				callee := ""
				if toks[i-1].kind == 'n' {
					callee = toks[i-1].text
				}
				if callee != "" && okCalls[callee] {
					continue
				}
				return "approve", "it calls " + orDefault(callee, "a function") + " (it may run any code): a person decides; list it in expressions.allow_calls to allow it"
			}
		case "[":
			if prevValue {
				j := i + 1
				if j < len(toks) && toks[j].kind == 'o' && toks[j].text == "-" {
					j++
				}
				if !(j+1 < len(toks) && toks[j].kind == 'l' && toks[j+1].kind == 'o' && toks[j+1].text == "]") {
					return "approve", "it subscripts with something other than a literal: a person decides"
				}
			}
		}
	}
	return "allow", "plain names, attributes, literal subscripts and comparisons"
}

func isKeyword(w string) bool {
	switch w {
	case "and", "or", "not", "in", "is", "if", "else":
		return true
	}
	return false
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
