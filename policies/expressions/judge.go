package expressions

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/debugpy-guard/debugpy-guard/plugins/abi"
	"github.com/debugpy-guard/debugpy-guard/plugins/sdk"
	"github.com/debugpy-guard/debugpy-guard/policies/secrets"
)

// What each node of the tree gets (the strongest verdict of a tree wins:
// deny > approve > allow):
//
//	deny     a name or attribute that starts with "__" (dunders: the way
//	         from any object to os), a name in denyNames or deny_names, a
//	         name, attribute or literal subscript key that is a secret's
//	         (secrets.IsName: password, api_key, token ...), lambda, :=,
//	         await, yield; code that does not parse; in a statement, import
//	approve  a call (unless its callee is a name in allow_calls called
//	         with positional arguments only, and not type, map, filter,
//	         iter or help with the arguments that run code), a
//	         subscript by anything but a literal, an f-string (formatting
//	         runs __format__), a comprehension (a loop), an unpacking
//	         (*it and **m: a loop too, as list(it) is), in and not in but
//	         over a literal or a display (x in it iterates an iterator),
//	         a read in part of what the host has not read whole first
//	         (str(type(x).D)[5:]) or of the text a call returns
//	         (str(x)[5:]: holders.go, unknownPart), constants that make
//	         more than the program can afford (size.go: 'a' * 10**10,
//	         10**10**10, '%0999999999d' % 1), and any statement
//	allow    names, attributes, literals, literal subscripts and slices,
//	         operators, other comparisons, boolean operators, conditional
//	         expressions, tuples, lists, sets and dicts of those
type rules struct {
	deny   map[string]bool // settings.deny_names
	calls  map[string]bool // settings.allow_calls
	judged *judgements     // the last pieces of code judged with these rules
}

// judgements are the last judgements of code with one settings' rules, by
// the code's text and kind. Judging depends on those alone (judgeCode),
// and an agent has the same code judged again and again: a watch
// expression evaluated at each stop, a breakpoint's condition set again.
// Judged again, such code skips the tokenizer, the parser and the walk,
// whose code a Go wasm guest pays for in cold caches at every call
// (docs/PERFORMANCE.md). At most judgedSize pieces of at most judgedText
// bytes each, the oldest replaced first.
type judgements struct {
	mu   sync.Mutex // a policy's tests may decide from several goroutines
	last [judgedSize]judgement
	next int

	// The strings of the element of derived.code read last (judgeAt).
	arg, text, kind string
}

type judgement struct {
	text, kind string
	v          abi.Verdict
	reason     string
	// said is arg + ": " + reason, for the argument the code was in last:
	// the same string while the argument stays the same, whose JSON the SDK
	// then keeps (a new reason each call was encoded a byte at a time).
	arg, said string
}

const (
	judgedSize = 32
	judgedText = 1 << 10
)

// judgeAt is judge for an element of derived.code. Its argument, text
// and kind are read into the strings read last when they are the same
// (Value.StrAgain): an agent has the same code judged again and again, and
// a Go wasm guest between two calls pays more for an allocation than for
// the comparison (docs/PERFORMANCE.md, "A Go guest's deny without
// allocations").
func (r rules) judgeAt(c sdk.Value) (abi.Verdict, string) {
	a, t, k := c.Get("argument"), c.Get("text"), c.Get("kind")
	j := r.judged
	if j == nil {
		return r.judge(a.Str(), t.Str(), k.Str())
	}
	j.mu.Lock()
	j.arg, j.text, j.kind = a.StrAgain(j.arg), t.StrAgain(j.text), k.StrAgain(j.kind)
	arg, text, kind := j.arg, j.text, j.kind
	j.mu.Unlock()
	return r.judge(arg, text, kind)
}

// judge is judgeCode(text, kind, r) for code given in the argument arg,
// with its reason said as arg + ": " + reason: judged once for the same
// text and kind, and said once for the same argument, while r.judged keeps
// them.
func (r rules) judge(arg, text, kind string) (abi.Verdict, string) {
	j := r.judged
	if j == nil || len(text) > judgedText {
		v, reason := judgeCode(text, kind, r)
		return v, arg + ": " + reason
	}
	j.mu.Lock()
	for i := range j.last {
		if e := &j.last[i]; e.v != "" && len(e.text) == len(text) && e.text == text && e.kind == kind {
			if e.said == "" || e.arg != arg {
				e.arg, e.said = arg, arg+": "+e.reason
			}
			v, said := e.v, e.said
			j.mu.Unlock()
			return v, said
		}
	}
	j.mu.Unlock()
	v, reason := judgeCode(text, kind, r)
	said := arg + ": " + reason
	j.mu.Lock()
	defer j.mu.Unlock()
	j.last[j.next], j.next = judgement{text: text, kind: kind, v: v, reason: reason, arg: arg, said: said}, (j.next+1)%judgedSize
	return v, said
}

type verdict struct {
	v      abi.Verdict
	reason string
	// What the code's constants make, summed over the tree (size.go):
	// elements of sequences repeated, bits of powers and shifts; and the
	// nodes folded for them.
	repeated, bits float64
	folds          folds
	strs           int // the strings of 4 characters or more written (maxGuesses)
}

var rank = map[abi.Verdict]int{abi.Allow: 0, abi.Approve: 1, abi.Deny: 2}

func (v *verdict) add(w abi.Verdict, reason string) {
	if rank[w] > rank[v.v] {
		v.v, v.reason = w, reason
	}
}

// judgeCode judges one piece of code of a kind (expression or statement).
func judgeCode(text, kind string, r rules) (abi.Verdict, string) {
	v := verdict{v: abi.Allow, reason: "plain names, attributes, literal subscripts and comparisons"}
	tree, err := Parse(text)
	if err != nil {
		if kind == "expression" {
			return abi.Deny, "it is not a Python expression this policy can read (" + err.Error() + "): never allowed"
		}
		return judgeStatements(text, r)
	}
	r.walk(tree, &v)
	if n := v.strs; n > maxGuesses {
		v.add(abi.Approve, "it writes "+strconv.Itoa(n)+" strings of 4 characters or more (a display of constants counts as the string it spells), each of which the masks would answer if it were a secret of the session (more than "+strconv.Itoa(maxGuesses)+"): a person decides")
	}
	if why := unknownPart(tree, true); why != "" {
		v.add(abi.Approve, why+": a person decides")
	}
	if kind != "expression" && v.v == abi.Allow {
		v.v, v.reason = abi.Approve, "it runs Python statements in the program, which can change it"
	}
	return v.v, v.reason
}

func (r rules) name(n string, v *verdict, what string) {
	switch {
	case strings.HasPrefix(n, "__"):
		v.add(abi.Deny, "it uses "+n+" (a dunder: the way from any object to the rest of the program): never allowed")
	case denyNames[n] || r.deny[n]:
		v.add(abi.Deny, "it uses "+n+": never allowed")
	case secrets.IsName(n, nil):
		v.add(abi.Deny, "it reads "+what+" "+n+", a secret's name: secrets do not leave the program")
	}
}

func (r rules) walk(n *Node, v *verdict) {
	switch n.Kind {
	case "Name":
		r.name(n.Name, v, "the name")
	case "Attribute":
		r.name(n.Name, v, "the attribute")
	case "Call":
		r.call(n, v)
	case "Subscript":
		key := n.Kids[1]
		if !literal(key) {
			v.add(abi.Approve, "it subscripts with something other than a literal: a person decides")
		}
		if key.Kind == "Constant" && key.Undecoded {
			v.add(abi.Approve, "it subscripts with a string this policy cannot decode (a \\N{...} escape): a person decides")
		}
		if key.Kind == "Constant" && key.Str && secrets.IsName(key.Value, nil) {
			v.add(abi.Deny, "it reads the key "+quote(key.Value)+", a secret's name: secrets do not leave the program")
		}
	case "Constant":
		guessable(n, v)
	case "List", "Tuple", "Set":
		spells(n, v)
	case "BinOp":
		if n.Name == "%" {
			r.format(n, v)
		}
		size(n, v)
		builds(n, v)
	case "Compare":
		for i, op := range n.Ops {
			if k := n.Kids[i+1].Kind; op == "in" && k != "Constant" && !display[k] {
				v.add(abi.Approve, "it tests membership with in, which iterates what has no __contains__ (an iterator, an open file: consumed, and read a line at a time): a person decides")
			}
		}
	case "Starred":
		v.add(abi.Approve, "it unpacks with * (which iterates: an iterator is consumed, an open file read to its end): a person decides")
	case "DoubleStarred":
		v.add(abi.Approve, "it unpacks a mapping with ** (which runs its keys() and reads every key): a person decides")
	case "JoinedStr":
		v.add(abi.Approve, "it is an f-string (formatting runs the values' __format__): a person decides")
	case "ListComp", "SetComp", "DictComp", "GeneratorExp":
		v.add(abi.Approve, "it is a comprehension (a loop over the program's objects): a person decides")
	case "Lambda":
		v.add(abi.Deny, "it defines a lambda: never allowed")
	case "NamedExpr":
		v.add(abi.Deny, "it assigns with :=: never allowed")
	case "Await":
		v.add(abi.Deny, "it awaits: never allowed")
	case "Yield", "YieldFrom":
		v.add(abi.Deny, "it yields: never allowed")
	}
	for _, k := range n.Kids {
		r.walk(k, v)
	}
}

// The masks answer guesses (docs/SECURITY.md, "The mask answers
// guesses"): a piece of text beside a cut ("...") is masked when it begins
// or ends a secret of the session, so text the agent writes beside a cut
// tells it, when it comes back masked, how a secret begins: ['y' * 13 +
// 'ghp_16C' + 'y' * 30] shows its first 20 characters, then "...". So the
// expression may not make such text: a string of more than maxShown
// characters (debugpy cuts one of 30 inside a container to its first 20)
// or with "..." in it, a number of more than maxShown digits (cut alike),
// nor build one: +, * or % with a string, bytes or subscript operand (a
// literal repeated or joined, characters picked from the program's own
// strings), nor compute a number of more than maxShown digits. A person
// decides.
const maxShown = 20

// guessable judges a constant the expression writes, and counts it among
// the strings of 4 characters or more (maxGuesses).
func guessable(n *Node, v *verdict) {
	if n.Str && utf8.RuneCountInString(n.Value) >= 4 || n.Undecoded {
		v.strs++
	}
	switch {
	case n.Undecoded:
		v.add(abi.Approve, "it writes a string this policy cannot decode (a \\N{...} escape), which can stand beside a cut, where whether it is masked would tell how a secret begins: a person decides")
	case n.Str && (utf8.RuneCountInString(n.Value) > maxShown || strings.Contains(n.Value, "...")):
		v.add(abi.Approve, "it writes a string of more than 20 characters or with \"...\" in it, which can stand beside a cut, where whether it is masked would tell how a secret begins: a person decides")
	case !n.Str && longNumber(n.Value):
		v.add(abi.Approve, "it writes a number of more than 20 digits, which can stand beside a cut, where whether it is masked would tell how a secret begins: a person decides")
	}
}

// longNumber: a number literal whose decimal text (its repr) may have
// more than maxShown digits: an integer of 1e20 or more, in any base
// (0xFFFFFFFFFFFFFFFFFFFF is 25 digits shown); another number by the
// digits it is written with.
func longNumber(v string) bool {
	if f, ok := intLiteral(v); ok {
		return f >= 1e20
	}
	return digits(v) > maxShown
}

// digits counts the digits of a number as written.
func digits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if isDigitByte(s[i]) {
			n++
		}
	}
	return n
}

// builds judges an operator that can make text the agent chooses: a
// number of more than maxShown digits (folded: 123 * 10**30), or a string
// joined, repeated or formatted from a literal or a subscript (characters
// picked from the program's strings); a subscript beside a number is
// arithmetic (x[0] + 1).
func builds(n *Node, v *verdict) {
	if f := v.folds.fold(n); f.isInt && math.Abs(f.n) >= 1e20 {
		v.add(abi.Approve, "it computes a number of more than 20 digits, which can stand beside a cut, where whether it is masked would tell how a secret begins: a person decides")
		return
	}
	if joins(n) {
		v.add(abi.Approve, "it builds a string with "+n.Name+" (from a literal, or characters of the program's strings), which can stand beside a cut, where whether it is masked would tell how a secret begins: a person decides")
	}
	if (n.Name == "+" || n.Name == "*") && (spelled(n.Kids[0]) >= 2 || spelled(n.Kids[1]) >= 2) {
		v.add(abi.Approve, "it builds a sequence with "+n.Name+" from a display, whose items can stand beside the cut debugpy makes after a long one's first items, where whether they are masked would tell how a secret begins: a person decides")
	}
}

// A sequence spells what its items join to: the host masks a secret
// spelled as a list of its characters, bytes or pieces, whole or beside
// the cut debugpy makes after a long list's first items (plugins,
// sequence.go). So a display the agent writes is a guess when its
// constants spell 4 characters or more (['h', 'u', 'n', 't'],
// [104, 117, 110, 116], ['hun', 'ter2']), counted with the strings
// (maxGuesses); and one of more than maxItems items can be cut, its last
// shown items beside the cut: a person decides.
const maxItems = 10

// spells judges a list, tuple or set display the expression writes: one
// of more than maxItems items with a literal among them, and one of
// constants only that spells 4 characters or more.
func spells(n *Node, v *verdict) {
	if len(n.Kids) > maxItems && slices.ContainsFunc(n.Kids, writesLiteral) {
		v.add(abi.Approve, "it writes a display of more than "+strconv.Itoa(maxItems)+" items, which debugpy shows cut after its first items, where whether they are masked would tell how a secret begins: a person decides")
	}
	if len(n.Kids) > 1 && !slices.ContainsFunc(n.Kids, func(k *Node) bool { return k.Kind != "Constant" }) && spelled(n) >= 4 {
		v.strs++
	}
}

// spelled counts the characters the constants of a list, tuple or set
// display spell; 0 for anything else.
func spelled(n *Node) int {
	if n.Kind != "List" && n.Kind != "Tuple" && n.Kind != "Set" {
		return 0
	}
	chars := 0
	for _, k := range n.Kids {
		chars += chosen(k)
	}
	return chars
}

// chosen is how many characters of text the agent chose a constant
// writes: a string's (an undecoded one's counted as long), one for a
// number (the character it codes), none for None, True, False, ... (or
// for what is no constant).
func chosen(n *Node) int {
	switch {
	case n.Kind != "Constant":
		return 0
	case n.Undecoded:
		return maxShown
	case n.Str:
		return utf8.RuneCountInString(n.Value)
	case n.Value == "None" || n.Value == "True" || n.Value == "False" || n.Value == "...":
		return 0
	}
	return 1
}

// maker: k, an operand beside other, can make text the agent chooses.
func maker(k, other *Node) bool {
	switch k.Kind {
	case "Constant":
		return k.Str || k.Undecoded
	case "Subscript":
		return other.Kind != "Constant" || other.Str || other.Undecoded
	case "BinOp":
		return joins(k)
	}
	return false
}

// joins: n, a binary operation, joins, repeats or formats text the agent
// chooses (builder, maker).
func joins(n *Node) bool {
	return builder[n.Name] && (maker(n.Kids[0], n.Kids[1]) || maker(n.Kids[1], n.Kids[0]))
}

// maxGuesses bounds the strings an expression may write: a whole string
// that is a secret of the session comes back masked, so a list of many
// ['hunter2', 'Summer2024!', ...] would try a dictionary of passwords in
// one call (docs/SECURITY.md, "The mask answers guesses"); 4 characters is
// the shortest value the masks hide.
const maxGuesses = 16

// builder are the operators that join or repeat strings.
var builder = map[string]bool{"+": true, "*": true, "%": true}

// runsWhatItIsGiven: builtins that, called with at least this many
// arguments, run code the caller hands them, so listing the name in
// allow_calls does not let them run unasked. type with three arguments
// makes a class, and the rest of the expression runs its hooks:
// type('X', (), {'__class_getitem__': f})['arg'] calls f('arg'), and
// type('Y', (that,), {}, k=v) calls its __init_subclass__(k=v).
var runsWhatItIsGiven = map[string]struct {
	args int
	why  string
}{
	"type":   {2, "type with more than one argument makes a class, whose hooks (__class_getitem__, __init_subclass__, a metaclass) run code it is given"},
	"map":    {1, "map calls the function it is given"},
	"filter": {1, "filter calls the function it is given"},
	"iter":   {2, "iter(f, sentinel) calls f"},
	"help":   {0, "help imports the modules it is asked about and may start a pager"},
}

// call judges a call: a person decides, unless the callee is a name in
// allow_calls called with positional arguments only (a keyword, *args or
// **kwargs can hand it a function to call: sorted(x, key=f), a class's
// keywords) and not one of runsWhatItIsGiven at its arity.
func (r rules) call(n *Node, v *verdict) {
	callee, args := n.Kids[0], n.Kids[1:]
	what := "a function"
	if callee.Kind == "Name" || callee.Kind == "Attribute" {
		what = callee.Name
	}
	if callee.Kind != "Name" || !r.calls[callee.Name] {
		v.add(abi.Approve, "it calls "+what+" (which may run any code): a person decides; list it in expressions.allow_calls to allow it")
		return
	}
	for _, a := range args {
		if a.Kind == "keyword" || a.Kind == "Starred" {
			v.add(abi.Approve, "it calls "+what+" with a keyword or unpacked argument (which can hand it code to run): a person decides")
			return
		}
	}
	if g, ok := runsWhatItIsGiven[what]; ok && len(args) >= g.args {
		v.add(abi.Approve, "it calls "+what+" ("+g.why+"): a person decides")
	}
	if !noText[what] && len(args) > 0 && writesLiteral(args[0]) { // str's other arguments name an encoding
		v.add(abi.Approve, "it makes text with "+what+" from a literal it writes, which can stand beside the cut debugpy makes in a long string, where whether it is masked would tell how a secret begins: a person decides")
	}
}

// noText are the callees of the default's allow_calls whose result holds
// no text of their arguments (a length, an id, a class, a truth). Another
// allowed callee (repr, str) makes text of what it is given: a literal the
// agent writes there, formatted into a string longer than debugpy shows
// inside a container, stood beside its cut, masked when it began a secret
// (repr(('aaaaaaaaaaaaaaHun', 'x' * 15)) in a tuple showed [redacted]
// for Hun, found 2026-12-06; docs/SECURITY.md, "The mask answers
// guesses").
var noText = map[string]bool{"len": true, "id": true, "isinstance": true, "type": true}

// writesLiteral reports whether n holds a literal the agent chose (a
// string, bytes or a number) other than as a subscript's key or slice,
// which picks from a value rather than writing text.
func writesLiteral(n *Node) bool {
	switch n.Kind {
	case "Constant":
		return chosen(n) > 0
	case "Subscript":
		return writesLiteral(n.Kids[0])
	}
	return slices.ContainsFunc(n.Kids, writesLiteral)
}

// format judges a % that may format a str or bytes: '%(password)s' % cfg
// reads cfg['password'] with no subscript in the tree. A constant format's
// keys are judged as a literal subscript's; a format this policy cannot
// read (not a constant) with a right operand that may be a mapping (not a
// literal other than a dict display) may read any key: a person decides.
func (r rules) format(n *Node, v *verdict) {
	left, right := n.Kids[0], n.Kids[1]
	switch {
	case left.Kind == "Constant" && left.Undecoded:
		v.add(abi.Approve, "it formats with a string this policy cannot decode (a \\N{...} escape): a person decides")
	case left.Kind == "Constant" && left.Str:
		keys, cuts, width := formatKeys(left.Value)
		if width > maxRepeat {
			v.add(abi.Approve, "it formats to a width of more than "+strconv.FormatFloat(maxRepeat, 'f', 0, 64)+
				" characters, or one it takes from its values ('%*d'), which can take the program's memory: a person decides")
		}
		for _, k := range keys {
			if secrets.IsName(k, nil) {
				v.add(abi.Deny, "it reads the key "+quote(k)+", a secret's name, through a %-format: secrets do not leave the program")
			}
		}
		if cuts && !literal(right) {
			v.add(abi.Approve, "it formats with a precision ('%.5s'), which shows part of a value's text, where no mask finds a secret: a person decides")
		}
	case left.Kind == "Constant": // a number: the remainder
	case !literal(right): // a dict display is not a literal here
		v.add(abi.Approve, "it formats with % a format this policy cannot read, which may read any key of a mapping: a person decides")
	}
}

// formatKeys are the mapping keys of a printf-style format, as Python's
// str % and bytes % read them: "%(" up to its balancing ")" (parentheses
// nest), then flags, width, precision, a length modifier and the
// conversion. Every key is returned, even past a spec Python would refuse
// (which stops the formatting, so it reads fewer): a key is judged before
// anything runs. cuts reports a precision on a conversion that writes a
// value's text (%.5s, %.3r, %.*a): the first characters of it. width is
// the largest width or precision written ('%0999999999d' writes a billion
// characters), +Inf for one taken from the values ('%*d').
func formatKeys(f string) (keys []string, cuts bool, width float64) {
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		i++
		if i < len(f) && f[i] == '(' {
			depth, start := 1, i+1
			for i++; i < len(f) && depth > 0; i++ {
				switch f[i] {
				case '(':
					depth++
				case ')':
					depth--
				}
			}
			if depth > 0 {
				return keys, cuts, width // an incomplete key: Python refuses the format
			}
			keys = append(keys, f[start:i-1])
		}
		for i < len(f) && strings.IndexByte("-+ #0", f[i]) >= 0 {
			i++
		}
		// number reads a width or a precision from f[i].
		number := func() {
			start := i
			for i < len(f) && (f[i] == '*' || f[i] >= '0' && f[i] <= '9') {
				i++
			}
			switch w := f[start:i]; {
			case strings.Contains(w, "*"):
				width = math.Inf(1)
			case w != "":
				n, err := strconv.ParseFloat(w, 64)
				if err != nil {
					n = math.Inf(1)
				}
				width = max(width, n)
			}
		}
		number()
		precision := i < len(f) && f[i] == '.'
		if precision {
			i++
			number()
		}
		if i < len(f) && strings.IndexByte("hlL", f[i]) >= 0 {
			i++
		}
		// f[i] is the conversion (or the format ends): the loop steps past it.
		cuts = cuts || precision && i < len(f) && strings.IndexByte("sra", f[i]) >= 0
	}
	return keys, cuts, width
}

// literal: a constant, a negated constant, or a slice or tuple of them.
func literal(n *Node) bool {
	switch n.Kind {
	case "Constant":
		return true
	case "UnaryOp":
		return literal(n.Kids[0])
	case "Slice", "Tuple":
		for _, k := range n.Kids {
			if !literal(k) {
				return false
			}
		}
		return true
	}
	return false
}

func quote(s string) string { return "'" + s + "'" }

// judgeStatements judges code that is not an expression (a repl input of
// statements): never allowed without a person, and denied when any of its
// names would be denied in an expression, or it imports.
func judgeStatements(text string, r rules) (abi.Verdict, string) {
	var toks []token
	for _, line := range splitStatements(text) {
		t, err := tokenize(line)
		if err != nil {
			return abi.Deny, "it is not Python this policy can read (" + err.Error() + "): never allowed"
		}
		toks = append(toks, t...)
	}
	v := verdict{v: abi.Approve, reason: "it runs Python statements in the program, which can change it"}
	for _, t := range toks {
		switch {
		case t.kind == tName && t.asciiWord && (t.text == "import" || t.text == "lambda" || t.text == "global" || t.text == "nonlocal"):
			v.add(abi.Deny, "it uses the statement "+t.text+": never allowed")
		case t.kind == tName && !t.keyword:
			r.name(t.text, &v, "the name")
		case t.kind == tString && strings.Contains(t.prefix, "f"):
			fs, err := fields(t.body, t.pos, 0, false)
			if err != nil {
				v.add(abi.Deny, "an f-string this policy cannot read: never allowed")
			}
			for _, f := range fs {
				r.walk(f, &v)
			}
		}
	}
	return v.v, v.reason
}

// splitStatements cuts text into logical lines at newlines and semicolons
// outside brackets and strings; each is tokenized on its own (a compound
// statement's body after ':' included).
func splitStatements(text string) []string {
	var out []string
	depth, start := 0, 0
	var quote string
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case quote != "":
			if c == '\\' {
				i++
			} else if strings.HasPrefix(text[i:], quote) {
				i += len(quote) - 1
				quote = ""
			}
		case c == '\'' || c == '"':
			quote = string(c)
			if strings.HasPrefix(text[i:], strings.Repeat(quote, 3)) {
				quote = strings.Repeat(quote, 3)
				i += 2
			}
		case c == '#':
			for i < len(text) && text[i] != '\n' {
				i++
			}
			i--
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case depth <= 0 && (c == '\n' || c == ';' || c == ':'):
			out = append(out, text[start:i])
			start = i + 1
		}
	}
	out = append(out, text[start:])
	for i, l := range out {
		out[i] = strings.Trim(l, " \t\f\r\n")
	}
	return out
}
