package redact

import (
	"slices"
	"strings"

	"github.com/debugpy-guard/debugpy-guard/policies/expressions"
	"github.com/debugpy-guard/debugpy-guard/policies/secrets"
)

// pytest's report of a failed assert shows the values an assert compared,
// under no name: its failing line, then the line that explains it, then
// what it unwrapped and the strings' difference, and a summary line:
//
//	>       assert cfg.password == "guess"
//	E       AssertionError: assert 'SECRET' == 'guess'
//	E         - guess
//	E         + SECRET
//	E        +  where 'SECRET' = <Config>.api_key
//	FAILED t.py::test_login - AssertionError: assert 'SECR...
//
// unittest's runner shows an assertion's call and its message:
//
//	    self.assertEqual(cfg.password, 'guess')
//	AssertionError: 'SECRET' != 'guess'
//	- SECRET
//	+ guess
//
// maskAssertions reads the failing line and its explanation together (in
// pytest's long, short and native tracebacks; a unittest assertion's
// arguments in the order its message shows them): the explanation's
// operands stand where the source's do, so an operand whose source reads a secret
// (cfg.password, settings['token'], os.getenv('API_KEY'),
// cfg.password.upper()) has its value masked wherever it shows (the
// difference's lines too) and handed to found. When the two do not line
// up (pytest cut it short; a value that is no constant; unittest's
// "'x' not found in '...'") the explanation is masked whole, with the rest
// of its block (the difference's lines; unittest's message to its
// separator); so are the strings of the "where" lines under such an
// assert, and the summary entry of its test: its line, which pytest cuts at
// the terminal's width, and the lines its message goes on over when pytest
// does not cut it (CI set). A test's summary entry whose block the text
// does not hold is masked the same way: what its block showed is not known.
// A "where VALUE = ...NAME" line is masked on its own when NAME is a
// secret's. A --tb=line report (PATH:LINE: AssertionError: MESSAGE)
// shows no source to place its values by: its message is masked.
func maskAssertions(s string, extra map[string]bool, found func(string)) (string, bool) {
	if !strings.Contains(s, "assert") && !strings.Contains(s, "where ") && !strings.Contains(s, "FAILED ") {
		return s, false
	}
	var spans [][2]int
	var values []string                   // the secrets the explanations showed, masked wherever they show
	var source []*expressions.Node        // the operands of the failing line's assert, until the block ends
	secret := false                       // the failing line reads a secret somewhere
	unit := false                         // the failing line calls a unittest assertion: its message follows "AssertionError: "
	whole := false                        // the explanation did not line up: the rest of the block is masked whole
	native := false                       // the explanation has no E (--tb=native): its lines go on indented
	test, leaked := "", map[string]bool{} // the test whose block this is; those whose blocks showed a secret
	seen := map[string]bool{}             // the tests whose blocks the text holds
	summary := false                      // in the summary's message of a test that showed a secret, or of one not seen
	for line := 0; line < len(s); {
		end := line + strings.IndexByte(s[line:], '\n')
		if end < line {
			end = len(s)
		}
		body := strings.TrimRight(s[line:end], "\r")
		t := strings.TrimLeft(body, " \t")
		to := line + len(body)
		u, pytestLine := t, strings.HasPrefix(t, "E ") || t == "E" // E: pytest's explanation (--tb=long, short)
		if pytestLine {
			u = strings.TrimLeft(t[1:], " \t")
		}
		where, isWhere := strings.CutPrefix(strings.TrimLeft(u, "+ "), "where ")
		isWhere = isWhere && strings.HasPrefix(u, "+")
		explanation, isExplanation := strings.CutPrefix(strings.TrimPrefix(u, "AssertionError: "), "assert ")
		isExplanation = isExplanation && (pytestLine || strings.HasPrefix(u, "AssertionError: ")) // --tb=native: no E
		if m, ok := strings.CutPrefix(u, "AssertionError: "); ok && unit {
			explanation, isExplanation = m, true // unittest's 'SECRET' != 'guess'
		}
		diff := pytestLine || strings.HasPrefix(u, "+") || strings.HasPrefix(u, "-") || strings.HasPrefix(u, "?") ||
			native && t != "" && t != body // --tb=native:   At index 0 diff: 'SECRET' != 'guess'
		if summary && endsSummary(t) {
			summary = false
		}
		k, lineReport := lineReport(t)
		switch {
		case lineReport:
			// --tb=line: /t/test_login.py:4: AssertionError: assert
			// 'SECRET' == 'guess'. No source to place its values by.
			spans = append(spans, [2]int{to - len(t) + k, to})
		case summary && t == "":
		case summary:
			// The message goes on over lines where pytest does not cut it
			// at the terminal's width (CI=true): - guess, + SECRET, where
			// lines, At index 0 diff: 'SECRET' != 'guess'.
			spans = append(spans, [2]int{to - len(t), to})
		case strings.HasPrefix(t, "___") && len(strings.Fields(strings.Trim(t, "_"))) > 0: // ____ test_login ____
			test, source, secret, unit, whole, native = strings.Fields(strings.Trim(t, "_"))[0], nil, false, false, false, false
			seen[test] = true
		case strings.HasPrefix(t, "FAILED ") && summaryTest(t) != "" && (leaked[summaryTest(t)] || !seen[summaryTest(t)]):
			// FAILED t.py::test_login - AssertionError: assert 'SECR...: its
			// explanation, cut to the terminal's width (a secret's start).
			// A test whose block the text does not hold (a read that
			// starts after it) may have shown one: masked too.
			if i := strings.Index(t, " - "); i >= 0 {
				spans = append(spans, [2]int{to - len(t) + i + 3, to})
			}
			summary = true
		case !pytestLine && !strings.HasPrefix(t, "AssertionError") && (strings.HasPrefix(t, ">") || strings.HasPrefix(t, "assert ") || strings.Contains(t, "assert") && strings.HasSuffix(t, ")")):
			// The failing line: >       assert ... (--tb=long), the
			// traceback's line (--tb=short, native), or a unittest
			// assertion's call: self.assertEqual(cfg.password, 'x').
			source, secret, unit, whole, native = nil, false, false, false, false
			e := strings.TrimLeft(strings.TrimPrefix(t, ">"), " \t")
			if x, ok := strings.CutPrefix(e, "assert "); ok {
				source = operands(x)
			} else {
				source, unit = assertionArguments(e)
			}
			secret = source == nil && secrets.Mentions(e, extra) // not Python: it may read one
			for _, n := range source {
				secret = secret || readsSecret(n, extra)
			}
		case isWhere && secret: // what the assert unwrapped of it: where <...> = 'SECRET'.startswith
			for _, l := range literals(s, to-len(where), to) {
				spans = append(spans, [2]int{l.BodyStart, l.BodyEnd})
			}
			leaked[test] = true
		case isWhere:
			if vs, ve, v, ok := whereValue(s, to-len(where), to, extra); ok {
				spans, values = append(spans, [2]int{vs, ve}), append(values, v)
				leaked[test] = true
			}
		case isExplanation && secret:
			var lined bool
			spans, values, lined = explained(s, to-len(explanation), to, source, operands(explanation), extra, spans, values)
			whole, native = !lined, !pytestLine
			leaked[test] = true
		case unit && endsMessage(t):
			source, secret, unit, whole = nil, false, false, false
		case (diff || unit) && whole && u != "": // the difference of values the explanation could not place
			spans = append(spans, [2]int{to - len(u), to})
		case diff || unit:
			// the explanation goes on (unittest's to its separator: Lists
			// differ: ..., First differing element 0:, its values' lines)
		default:
			source, secret, unit, whole, native = nil, false, false, false, false // the block's end
		}
		line = end + 1
	}
	// The difference's lines (- guess, + SECRET) and pytest's summary
	// (FAILED ... - AssertionError: assert 'SECRET' ...) show them too.
	for _, v := range values {
		if found != nil {
			found(v)
		}
		for i := 0; len(v) >= 4 && !strings.ContainsAny(v, "\n\r") && i < len(s); { // the host masks one over lines
			k := strings.Index(s[i:], v)
			if k < 0 {
				break
			}
			spans = append(spans, [2]int{i + k, i + k + len(v)})
			i += k + len(v)
		}
	}
	if len(spans) == 0 {
		return s, false
	}
	return writeSpans(s, spans, found), true
}

// endsMessage: t ends a unittest failure's message (its separators, the
// next failure's header or traceback, the count of tests run).
func endsMessage(t string) bool {
	for _, p := range []string{"=====", "-----", "Traceback ", "FAIL: ", "ERROR: ", "Ran "} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// lineReport: t is pytest's --tb=line report of a failed assert
// (PATH:LINE: AssertionError: MESSAGE, or PATH:LINE: assert ...); k is
// where what follows PATH:LINE: starts.
func lineReport(t string) (k int, ok bool) {
	for i := 0; ; {
		c := strings.Index(t[i:], ": ")
		if c < 0 {
			return 0, false
		}
		c += i
		d := strings.LastIndexByte(t[:c], ':')
		if rest := t[c+2:]; d > 0 && d+1 < c && strings.Trim(t[d+1:c], "0123456789") == "" &&
			(strings.HasPrefix(rest, "AssertionError: ") || strings.HasPrefix(rest, "assert ")) {
			return c + 2, true
		}
		i = c + 2
	}
}

// endsSummary: t starts the summary's next entry (FAILED, ERROR, ...), its
// separator or the count of tests (12 failed in 0.06s, -q's last line),
// ending the message of the entry before it.
func endsSummary(t string) bool {
	for _, p := range []string{"FAILED ", "ERROR ", "PASSED ", "SKIPPED ", "XFAIL ", "XPASS ", "==="} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	n, rest, _ := strings.Cut(t, " ")
	return n != "" && strings.Trim(n, "0123456789") == "" && strings.Contains(rest, " in ") && strings.HasSuffix(t, "s")
}

// summaryTest is the test a summary line names (FAILED t.py::TestC::test_m
// - ...) as its block's header does (TestC.test_m).
func summaryTest(t string) string {
	id, _, _ := strings.Cut(strings.TrimPrefix(t, "FAILED "), " - ")
	_, name, ok := strings.Cut(id, "::")
	if !ok {
		return ""
	}
	return strings.ReplaceAll(name, "::", ".")
}

// assertionArguments are the positional arguments of e when it is a call
// of a unittest assertion (self.assertEqual(a, b), assertIn), in the
// order its message shows them.
func assertionArguments(e string) ([]*expressions.Node, bool) {
	n, err := expressions.Parse(e)
	if err != nil || n.Kind != "Call" || n.Kids[0].Kind != "Attribute" && n.Kids[0].Kind != "Name" || !strings.HasPrefix(n.Kids[0].Name, "assert") {
		return nil, false
	}
	var args []*expressions.Node
	for _, a := range n.Kids[1:] {
		if a.Kind != "keyword" { // msg=...: shown after the values, and read whole below
			args = append(args, a)
		}
	}
	return args, true
}

// operands are an assert's compared operands (one when it compares none),
// or nil when e does not read as Python.
func operands(e string) []*expressions.Node {
	n, err := expressions.Parse(strings.TrimSpace(e))
	if err != nil {
		return nil
	}
	if n.Kind == "Compare" {
		return n.Kids
	}
	return []*expressions.Node{n}
}

// secretOperand reports whether n reads a secret: a path whose last name
// or string key is a secret's (cfg.password, settings['token']), or a
// call given a secret's name (os.getenv('API_KEY')).
func secretOperand(n *expressions.Node, extra map[string]bool) bool {
	switch n.Kind {
	case "Name", "Attribute":
		return secrets.IsName(n.Name, extra)
	case "Subscript":
		k := n.Kids[1]
		return k.Kind == "Constant" && k.Str && secrets.IsName(k.Value, extra)
	case "Call":
		for _, a := range n.Kids[1:] {
			if a.Kind == "Constant" && a.Str && namesSecret(a.Value, extra) {
				return true
			}
		}
	}
	return false
}

// readsSecret reports whether n reads a secret anywhere in it:
// db_password.startswith('x') does.
func readsSecret(n *expressions.Node, extra map[string]bool) bool {
	if secretOperand(n, extra) {
		return true
	}
	for _, k := range n.Kids {
		if readsSecret(k, extra) {
			return true
		}
	}
	return false
}

// explained masks, in the explanation s[from:to], the values of the
// operands that read a secret, and appends them to values: the string
// literal (or number) that stands where such an operand does. When the
// explanation does not line up with the source (pytest cut it short, or
// an operand's value is no constant: <Secret object at 0x...>, a
// comparison inside an and), the whole explanation is masked.
func explained(s string, from, to int, source, shown []*expressions.Node, extra map[string]bool, spans [][2]int, values []string) ([][2]int, []string, bool) {
	all := len(shown) != len(source)
	var mine []string
	for i, n := range source {
		if all || !readsSecret(n, extra) {
			continue
		}
		switch v := shown[i]; {
		case v.Kind == "Constant" && v.Str:
			mine = append(mine, v.Value)
		case v.Kind == "Constant" && strings.ContainsAny(v.Value, "0123456789"): // a PIN
			values = append(values, v.Value)
		default:
			all = true
		}
	}
	if all {
		return append(spans, [2]int{from, to}), values, false
	}
	for _, l := range literals(s, from, to) {
		if l.Known && slices.Contains(mine, l.Value) {
			spans = append(spans, [2]int{l.BodyStart, l.BodyEnd})
		}
	}
	return spans, append(values, mine...), true
}

// whereValue reads a "where VALUE = EXPR" line (s[from:to] is what
// follows "where "): VALUE's span and value when EXPR ends with a secret's
// name or key (<Config>.api_key, settings['token']), VALUE a string or a
// word with a digit (a PIN).
func whereValue(s string, from, to int, extra map[string]bool) (vs, ve int, value string, ok bool) {
	if from >= to {
		return 0, 0, "", false
	}
	if q := strings.IndexAny(s[from:to], `'"`); q >= 0 && q <= 2 {
		start, l, ok := readString(s[:to], from, from+q)
		if !ok || start != from || !l.Known || !strings.HasPrefix(s[l.End:to], " = ") {
			return 0, 0, "", false
		}
		vs, ve, value = l.BodyStart, l.BodyEnd, l.Value
		from = l.End + len(" = ")
	} else {
		eq := strings.Index(s[from:to], " = ")
		if eq < 0 || !strings.ContainsAny(s[from:from+eq], "0123456789") || strings.ContainsAny(s[from:from+eq], " ()<>") {
			return 0, 0, "", false
		}
		vs, ve, value = from, from+eq, s[from:from+eq]
		from += eq + len(" = ")
	}
	expr := strings.TrimRight(s[from:to], " ")
	name := ""
	if strings.HasSuffix(expr, "]") { // ...['token']
		if q := strings.LastIndexByte(expr, '['); q >= 0 {
			if l, ok := expressions.ReadLiteral(expr, q+1); ok && l.Known && l.End == len(expr)-1 {
				name = l.Value
			}
		}
	} else if d := strings.LastIndexByte(expr, '.'); d >= 0 {
		name = expr[d+1:]
	}
	if name == "" || !secrets.IsName(name, extra) {
		return 0, 0, "", false
	}
	return vs, ve, value, true
}
