package expressions

import (
	"strconv"
	"strings"
)

// A parser for Python expressions (the eval input of Python 3.8 to 3.13:
// CPython's Grammar/python.gram from `expressions` down), by recursive
// descent over the tokens. It builds a tree, and the policy's verdict is
// computed on the tree (judge.go). Anything it cannot parse is never
// allowed.

// Node is one node of an expression tree. Kind is the name of CPython's
// ast class for it, so that the tree compares with ast.dump.
type Node struct {
	// Kind is CPython's ast class name (Name, Attribute, Call, Subscript,
	// Constant, JoinedStr ...), but for a dict display's **mapping, which
	// CPython keeps as a None key: DoubleStarred, with the mapping its kid.
	Kind string
	// Name's id, Attribute's attr, keyword's arg, BinOp's and UnaryOp's
	// operator; a Slice's parts present, in order, of "lus" (lower, upper,
	// step: x[::2] is "s", its one kid the step).
	Name string
	// Constant: Str is set for a str or bytes constant whose value is
	// known (Value), for subscript keys and secret names.
	Str       bool
	Bytes     bool   // a bytes constant (Value holds its bytes)
	Value     string // another Constant (a number, None, True, False, ...): as written
	Undecoded bool   // a str constant with a \N{...} escape: its value is not known
	// Compare: its operators in order, one a right operand (Kids[i+1]):
	// "in" stands for in and not in, "is" for is and is not, the rest as
	// written. in iterates an operand that has no __contains__ (judge.go).
	Ops  []string
	Kids []*Node
}

type parser struct {
	toks  []token
	i     int
	depth int
}

// maxDepth bounds nesting: a module has a stack of its own to keep.
const maxDepth = 2000

// maxChain bounds a chain of attributes, calls and subscripts (a.b[0].c()):
// what reads a chain (holders.go) takes time in the square of its length.
const maxChain = 1000

// Parse parses src as Python's eval mode does.
func Parse(src string) (*Node, error) {
	toks, err := tokenize(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	n, err := p.expressions()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEnd {
		return nil, errAt(t.pos, "unexpected "+describe(t))
	}
	return n, nil
}

func describe(t *token) string {
	switch t.kind {
	case tEnd:
		return "end"
	case tString:
		return "string"
	}
	return "'" + t.text + "'"
}

// peek and next give a token by reference: a token is some hundred bytes,
// and a copy of one at each of the grammar's levels was much of a parse in
// WebAssembly, where a copy is a call (docs/PERFORMANCE.md).
func (p *parser) peek() *token { return &p.toks[p.i] }

func (p *parser) next() *token {
	t := &p.toks[p.i]
	if t.kind != tEnd {
		p.i++
	}
	return t
}

// is: the next token is the operator or ASCII keyword s.
func (p *parser) is(s string) bool {
	t := &p.toks[p.i]
	return (t.kind == tOp || t.keyword) && t.text == s
}

func (p *parser) accept(s string) bool {
	if p.is(s) {
		p.i++
		return true
	}
	return false
}

func (p *parser) expect(s string) error {
	if !p.accept(s) {
		return errAt(p.peek().pos, "expected '"+s+"', found "+describe(p.peek()))
	}
	return nil
}

func node(kind string, kids ...*Node) *Node { return &Node{Kind: kind, Kids: kids} }

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return errAt(p.peek().pos, "nested too deep")
	}
	return nil
}

// expressions: expression (',' expression)* [','] -- a tuple when a comma.
func (p *parser) expressions() (*Node, error) {
	return p.list(p.expression, startsExpr, true)
}

// list parses items separated by commas; with a comma (or a star item) it
// is a Tuple.
func (p *parser) list(item func() (*Node, error), starts func(*parser) bool, tuple bool) (*Node, error) {
	first, err := item()
	if err != nil {
		return nil, err
	}
	if !p.is(",") {
		if first.Kind == "Starred" {
			return nil, errAt(p.peek().pos, "can't use starred expression here")
		}
		return first, nil
	}
	t := node("Tuple", first)
	for p.accept(",") {
		if !starts(p) {
			break
		}
		n, err := item()
		if err != nil {
			return nil, err
		}
		t.Kids = append(t.Kids, n)
	}
	return t, nil
}

// startsExpr: the next token can begin an expression.
func startsExpr(p *parser) bool {
	t := p.peek()
	switch t.kind {
	case tName:
		if t.keyword {
			switch t.text {
			case "not", "lambda", "await", "None", "True", "False", "yield":
				return true
			}
			return false
		}
		return true
	case tNumber, tString:
		return true
	case tOp:
		switch t.text {
		case "(", "[", "{", "-", "+", "~", "*", "...":
			return true
		}
	}
	return false
}

// namedExpression: NAME ':=' expression | expression
func (p *parser) namedExpression() (*Node, error) {
	if t := p.peek(); t.kind == tName && !t.keyword && p.toks[p.i+1].kind == tOp && p.toks[p.i+1].text == ":=" {
		p.i += 2
		v, err := p.expression()
		if err != nil {
			return nil, err
		}
		return node("NamedExpr", &Node{Kind: "Name", Name: t.text}, v), nil
	}
	return p.expression()
}

// expression: disjunction ['if' disjunction 'else' expression] | lambdef
func (p *parser) expression() (*Node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	if p.is("lambda") {
		return p.lambda()
	}
	if p.is("yield") {
		return nil, errAt(p.peek().pos, "'yield' outside function")
	}
	body, err := p.disjunction()
	if err != nil {
		return nil, err
	}
	if !p.accept("if") {
		return body, nil
	}
	test, err := p.disjunction()
	if err != nil {
		return nil, err
	}
	if err := p.expect("else"); err != nil {
		return nil, err
	}
	orelse, err := p.expression()
	if err != nil {
		return nil, err
	}
	return node("IfExp", test, body, orelse), nil
}

// lambda: 'lambda' [params] ':' expression. The parameters' defaults are
// expressions too.
func (p *parser) lambda() (*Node, error) {
	p.next()
	n := node("Lambda")
	for !p.is(":") {
		switch {
		case p.accept("*"), p.accept("**"):
			if t := p.peek(); t.kind == tName && !t.keyword {
				p.next()
			}
		case p.accept("/"):
		case p.peek().kind == tName && !p.peek().keyword:
			p.next()
			if p.accept("=") {
				d, err := p.expression()
				if err != nil {
					return nil, err
				}
				n.Kids = append(n.Kids, d)
			}
		default:
			return nil, errAt(p.peek().pos, "invalid lambda parameters")
		}
		if !p.accept(",") {
			break
		}
	}
	if err := p.expect(":"); err != nil {
		return nil, err
	}
	body, err := p.expression()
	if err != nil {
		return nil, err
	}
	n.Kids = append(n.Kids, body)
	return n, nil
}

func (p *parser) disjunction() (*Node, error) { return p.boolOp("or", p.conjunction) }
func (p *parser) conjunction() (*Node, error) { return p.boolOp("and", p.inversion) }

func (p *parser) boolOp(op string, sub func() (*Node, error)) (*Node, error) {
	first, err := sub()
	if err != nil {
		return nil, err
	}
	if !p.is(op) {
		return first, nil
	}
	n := node("BoolOp", first)
	for p.accept(op) {
		k, err := sub()
		if err != nil {
			return nil, err
		}
		n.Kids = append(n.Kids, k)
	}
	return n, nil
}

func (p *parser) inversion() (*Node, error) {
	if p.accept("not") {
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer func() { p.depth-- }()
		n, err := p.inversion()
		if err != nil {
			return nil, err
		}
		return &Node{Kind: "UnaryOp", Name: "not", Kids: []*Node{n}}, nil
	}
	return p.comparison()
}

var compareOps = map[string]bool{"==": true, "!=": true, "<": true, "<=": true, ">": true, ">=": true, "in": true, "is": true}

func (p *parser) comparison() (*Node, error) {
	first, err := p.bitwiseOr()
	if err != nil {
		return nil, err
	}
	n := first
	for {
		var op string
		switch {
		case p.is("not") && p.toks[p.i+1].kind == tName && p.toks[p.i+1].text == "in" && p.toks[p.i+1].asciiWord:
			p.i += 2
			op = "in"
		case p.is("is"):
			p.next()
			p.accept("not")
			op = "is"
		case p.is("in"):
			p.next()
			op = "in"
		case p.peek().kind == tOp && compareOps[p.peek().text]:
			op = p.next().text
		default:
			return n, nil
		}
		right, err := p.bitwiseOr()
		if err != nil {
			return nil, err
		}
		if n == first {
			n = node("Compare", first)
		}
		n.Ops = append(n.Ops, op)
		n.Kids = append(n.Kids, right)
	}
}

// binary operator levels, loosest first.
var binLevels = [][]string{{"|"}, {"^"}, {"&"}, {"<<", ">>"}, {"+", "-"}, {"*", "/", "//", "%", "@"}}

func (p *parser) bitwiseOr() (*Node, error) { return p.binary(0) }

func (p *parser) binary(level int) (*Node, error) {
	if level == len(binLevels) {
		return p.factor()
	}
	left, err := p.binary(level + 1)
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		matched := false
		if t.kind == tOp {
			for _, op := range binLevels[level] {
				if t.text == op {
					matched = true
				}
			}
		}
		if !matched {
			return left, nil
		}
		p.next()
		right, err := p.binary(level + 1)
		if err != nil {
			return nil, err
		}
		left = node("BinOp", left, right)
		left.Name = t.text // the operator: % formats a str or bytes (judge.go)
	}
}

// factor: ('+' | '-' | '~') factor | power
func (p *parser) factor() (*Node, error) {
	if t := p.peek(); t.kind == tOp && (t.text == "+" || t.text == "-" || t.text == "~") {
		p.next()
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer func() { p.depth-- }()
		n, err := p.factor()
		if err != nil {
			return nil, err
		}
		return &Node{Kind: "UnaryOp", Name: t.text, Kids: []*Node{n}}, nil
	}
	return p.power()
}

// power: await_primary ['**' factor]
func (p *parser) power() (*Node, error) {
	var base *Node
	var err error
	if p.accept("await") {
		v, err := p.primary()
		if err != nil {
			return nil, err
		}
		base = node("Await", v)
	} else if base, err = p.primary(); err != nil {
		return nil, err
	}
	if p.accept("**") {
		exp, err := p.factor()
		if err != nil {
			return nil, err
		}
		n := node("BinOp", base, exp)
		n.Name = "**"
		return n, nil
	}
	return base, nil
}

// primary: atom followed by .NAME, (arguments), [slices].
func (p *parser) primary() (*Node, error) {
	n, err := p.atom()
	if err != nil {
		return nil, err
	}
	for links := 0; ; links++ {
		if links > maxChain {
			return nil, errAt(p.peek().pos, "a chain of more than "+strconv.Itoa(maxChain)+" attributes, calls and subscripts")
		}
		switch {
		case p.accept("."):
			t := p.next()
			if t.kind != tName {
				return nil, errAt(t.pos, "expected a name after '.'")
			}
			n = &Node{Kind: "Attribute", Name: t.text, Kids: []*Node{n}}
		case p.accept("("):
			call := node("Call", n)
			args, err := p.arguments()
			if err != nil {
				return nil, err
			}
			call.Kids = append(call.Kids, args...)
			n = call
		case p.accept("["):
			s, err := p.slices()
			if err != nil {
				return nil, err
			}
			if err := p.expect("]"); err != nil {
				return nil, err
			}
			n = node("Subscript", n, s)
		default:
			return n, nil
		}
	}
}

// arguments of a call, up to and including ')'. A keyword argument is a
// "keyword" node named by its argument.
func (p *parser) arguments() ([]*Node, error) {
	var out []*Node
	keyword, doubleStar, genexp := false, false, false
	for !p.accept(")") {
		var a *Node
		var err error
		if genexp {
			return nil, errAt(p.peek().pos, "generator expression must be parenthesized")
		}
		switch {
		case p.accept("*"):
			if doubleStar {
				return nil, errAt(p.peek().pos, "iterable argument unpacking follows keyword argument unpacking")
			}
			v, err := p.expression()
			if err != nil {
				return nil, err
			}
			a = node("Starred", v)
		case p.accept("**"):
			v, err := p.expression()
			if err != nil {
				return nil, err
			}
			a, doubleStar = node("keyword", v), true
		case p.peek().kind == tName && !p.peek().keyword && p.toks[p.i+1].kind == tOp && p.toks[p.i+1].text == "=":
			name := p.next().text
			p.next()
			v, err := p.expression()
			if err != nil {
				return nil, err
			}
			a, keyword = &Node{Kind: "keyword", Name: name, Kids: []*Node{v}}, true
		default:
			if keyword || doubleStar {
				return nil, errAt(p.peek().pos, "positional argument follows keyword argument")
			}
			if a, err = p.namedExpression(); err != nil {
				return nil, err
			}
			if p.is("for") || p.is("async") {
				if len(out) > 0 {
					return nil, errAt(p.peek().pos, "generator expression must be parenthesized")
				}
				g, err := p.comprehension("GeneratorExp", a, nil)
				if err != nil {
					return nil, err
				}
				a, genexp = g, true
			}
		}
		out = append(out, a)
		if !p.accept(",") {
			if err := p.expect(")"); err != nil {
				return nil, err
			}
			break
		}
	}
	return out, nil
}

// slices: slice | (slice | starred) (',' ...)* [',']
func (p *parser) slices() (*Node, error) {
	if p.is("*") { // a[*b] is a[(*b,)] (3.11)
		s, err := p.slice()
		if err != nil {
			return nil, err
		}
		t := node("Tuple", s)
		for p.accept(",") {
			if !startsExpr(p) && !p.is(":") {
				break
			}
			n, err := p.slice()
			if err != nil {
				return nil, err
			}
			t.Kids = append(t.Kids, n)
		}
		return t, nil
	}
	return p.list(p.slice, func(p *parser) bool { return startsExpr(p) || p.is(":") }, true)
}

func (p *parser) slice() (*Node, error) {
	if p.accept("*") {
		v, err := p.expression()
		if err != nil {
			return nil, err
		}
		return node("Starred", v), nil
	}
	var lower *Node
	if !p.is(":") {
		n, err := p.namedExpression()
		if err != nil {
			return nil, err
		}
		if !p.is(":") {
			return n, nil
		}
		lower = n
	}
	s := node("Slice")
	if lower != nil {
		s.Kids = append(s.Kids, lower)
		s.Name = "l"
	}
	for part := 0; part < 2 && p.accept(":"); part++ {
		if startsExpr(p) {
			n, err := p.expression()
			if err != nil {
				return nil, err
			}
			s.Kids = append(s.Kids, n)
			s.Name += "us"[part : part+1]
		}
	}
	return s, nil
}

// atom: NAME, True/False/None, strings, number, '...', (...), [...], {...}
func (p *parser) atom() (*Node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	t := p.peek()
	switch t.kind {
	case tName:
		if t.keyword {
			switch t.text {
			case "None", "True", "False":
				p.next()
				return &Node{Kind: "Constant", Value: t.text}, nil // a path's key (Path)
			}
			return nil, errAt(t.pos, "invalid syntax: '"+t.text+"'")
		}
		p.next()
		return &Node{Kind: "Name", Name: t.text}, nil
	case tNumber:
		p.next()
		return &Node{Kind: "Constant", Value: t.text}, nil // as written: a path's key (Path)
	case tString:
		return p.strings()
	case tOp:
		switch t.text {
		case "...":
			p.next()
			return &Node{Kind: "Constant", Value: "..."}, nil
		case "(":
			return p.group()
		case "[":
			return p.listDisplay()
		case "{":
			return p.dictOrSet()
		}
	case tEnd:
		return nil, errAt(t.pos, "unexpected end of the expression")
	}
	return nil, errAt(t.pos, "invalid syntax: "+describe(t))
}

// group: (), (yield), (named_expression), (tuple), (genexp)
func (p *parser) group() (*Node, error) {
	p.next()
	if p.accept(")") {
		return node("Tuple"), nil
	}
	if p.accept("yield") {
		y := node("Yield")
		if p.accept("from") {
			y.Kind = "YieldFrom"
		}
		if !p.is(")") {
			v, err := p.expressions()
			if err != nil {
				return nil, err
			}
			y.Kids = append(y.Kids, v)
		}
		return y, p.expect(")")
	}
	first, err := p.starOrNamed()
	if err != nil {
		return nil, err
	}
	if p.is("for") || p.is("async") {
		g, err := p.comprehension("GeneratorExp", first, nil)
		if err != nil {
			return nil, err
		}
		return g, p.expect(")")
	}
	if p.accept(")") {
		if first.Kind == "Starred" {
			return nil, errAt(p.peek().pos, "can't use starred expression here")
		}
		return first, nil
	}
	return p.rest(node("Tuple", first), ")")
}

// rest reads the ", item" of a display into n up to close (a trailing comma
// allowed), and close.
func (p *parser) rest(n *Node, close string) (*Node, error) {
	for p.accept(",") {
		if p.is(close) {
			break
		}
		k, err := p.starOrNamed()
		if err != nil {
			return nil, err
		}
		n.Kids = append(n.Kids, k)
	}
	return n, p.expect(close)
}

func (p *parser) starOrNamed() (*Node, error) {
	if p.accept("*") {
		v, err := p.bitwiseOr()
		if err != nil {
			return nil, err
		}
		return node("Starred", v), nil
	}
	return p.namedExpression()
}

func (p *parser) listDisplay() (*Node, error) {
	p.next()
	l := node("List")
	if p.accept("]") {
		return l, nil
	}
	first, err := p.starOrNamed()
	if err != nil {
		return nil, err
	}
	if p.is("for") || p.is("async") {
		c, err := p.comprehension("ListComp", first, nil)
		if err != nil {
			return nil, err
		}
		return c, p.expect("]")
	}
	l.Kids = append(l.Kids, first)
	return p.rest(l, "]")
}

func (p *parser) dictOrSet() (*Node, error) {
	p.next()
	if p.accept("}") {
		return node("Dict"), nil
	}
	// The first item says which: k: v or **d makes a dict.
	var key, val *Node
	var err error
	if p.accept("**") {
		if val, err = p.bitwiseOr(); err != nil {
			return nil, err
		}
		val = node("DoubleStarred", val)
	} else {
		parenthesized := p.is("(")
		if key, err = p.starOrNamed(); err != nil {
			return nil, err
		}
		if key.Kind == "NamedExpr" && !parenthesized && p.is(":") {
			return nil, errAt(p.peek().pos, "invalid dict key")
		}
		if !p.accept(":") {
			// a set
			if p.is("for") || p.is("async") {
				c, err := p.comprehension("SetComp", key, nil)
				if err != nil {
					return nil, err
				}
				return c, p.expect("}")
			}
			return p.rest(node("Set", key), "}")
		}
		if key.Kind == "Starred" {
			return nil, errAt(p.peek().pos, "invalid dict key")
		}
		if val, err = p.expression(); err != nil {
			return nil, err
		}
		if p.is("for") || p.is("async") {
			c, err := p.comprehension("DictComp", key, val)
			if err != nil {
				return nil, err
			}
			return c, p.expect("}")
		}
	}
	d := node("Dict")
	add := func(k, v *Node) {
		if k != nil {
			d.Kids = append(d.Kids, k)
		}
		d.Kids = append(d.Kids, v)
	}
	add(key, val)
	for p.accept(",") {
		if p.is("}") {
			break
		}
		if p.accept("**") {
			v, err := p.bitwiseOr()
			if err != nil {
				return nil, err
			}
			add(nil, node("DoubleStarred", v))
			continue
		}
		k, err := p.expression()
		if err != nil {
			return nil, err
		}
		if err := p.expect(":"); err != nil {
			return nil, err
		}
		v, err := p.expression()
		if err != nil {
			return nil, err
		}
		add(k, v)
	}
	return d, p.expect("}")
}

// comprehension: elt ('async'? 'for' targets 'in' disjunction ('if' disjunction)*)+
func (p *parser) comprehension(kind string, elt, val *Node) (*Node, error) {
	if elt.Kind == "Starred" {
		return nil, errAt(p.peek().pos, "iterable unpacking cannot be used in comprehension")
	}
	c := node(kind, elt)
	if val != nil {
		c.Kids = append(c.Kids, val)
	}
	for p.is("for") || p.is("async") {
		p.accept("async")
		if err := p.expect("for"); err != nil {
			return nil, err
		}
		target, err := p.targets()
		if err != nil {
			return nil, err
		}
		if err := p.expect("in"); err != nil {
			return nil, err
		}
		iter, err := p.disjunction()
		if err != nil {
			return nil, err
		}
		c.Kids = append(c.Kids, node("comprehension", target, iter))
		for p.accept("if") {
			cond, err := p.disjunction()
			if err != nil {
				return nil, err
			}
			c.Kids = append(c.Kids, cond)
		}
	}
	return c, nil
}

// targets of a for clause: star_targets, read as expressions of the forms
// Python allows there (names, attributes, subscripts, tuples, lists).
func (p *parser) targets() (*Node, error) {
	one := func() (*Node, error) {
		if p.accept("*") {
			v, err := p.primaryTarget()
			if err != nil {
				return nil, err
			}
			return node("Starred", v), nil
		}
		return p.primaryTarget()
	}
	return p.list(one, func(p *parser) bool { return !p.is("in") && startsExpr(p) }, true)
}

func (p *parser) primaryTarget() (*Node, error) {
	n, err := p.primary()
	if err != nil {
		return nil, err
	}
	switch n.Kind {
	case "Name", "Attribute", "Subscript", "Tuple", "List":
		return n, nil
	}
	return nil, errAt(p.peek().pos, "cannot assign to "+strings.ToLower(n.Kind))
}

// strings: implicitly concatenated literals; any f-string makes the whole a
// JoinedStr whose FormattedValues hold the parsed {expressions}.
func (p *parser) strings() (*Node, error) {
	first := p.peek()
	bytes := strings.Contains(first.prefix, "b")
	var parts []*token
	for p.peek().kind == tString {
		t := p.next()
		if strings.Contains(t.prefix, "b") != bytes {
			return nil, errAt(t.pos, "cannot mix bytes and nonbytes literals")
		}
		parts = append(parts, t)
	}
	fstring := false
	for _, t := range parts {
		fstring = fstring || strings.Contains(t.prefix, "f")
	}
	if !fstring {
		n := &Node{Kind: "Constant", Str: true, Bytes: bytes}
		known := true
		if len(parts) == 1 { // most often: its value as it is, not a copy
			n.Value, known = parts[0].value, parts[0].known
		} else {
			var b strings.Builder
			for _, t := range parts {
				b.WriteString(t.value)
				known = known && t.known
			}
			n.Value = b.String()
		}
		n.Str, n.Undecoded = known, !known
		return n, nil
	}
	j := node("JoinedStr")
	for _, t := range parts {
		if !strings.Contains(t.prefix, "f") {
			continue
		}
		vals, err := p.fstring(t)
		if err != nil {
			return nil, err
		}
		j.Kids = append(j.Kids, vals...)
	}
	return j, nil
}

// fstring parses the {replacement fields} of an f-string's body (the
// Python 3.8-3.11 reading: the body ends at the closing quote; no
// backslash inside the braces).
func (p *parser) fstring(t *token) ([]*Node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	return fields(t.body, t.pos, p.depth, false)
}

// fields parses the replacement fields of an f-string's body, or (spec) of
// a format spec, where "{{" does not stand for "{" (CPython 3.11).
func fields(body string, pos, depth int, spec bool) ([]*Node, error) {
	var out []*Node
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '}':
			if !spec && i+1 < len(body) && body[i+1] == '}' {
				i++
				continue
			}
			return nil, errAt(pos, "f-string: single '}' is not allowed")
		case '{':
			if !spec && i+1 < len(body) && body[i+1] == '{' {
				i++
				continue
			}
			n, end, err := field(body, i+1, pos, depth)
			if err != nil {
				return nil, err
			}
			out = append(out, n)
			i = end
		}
	}
	return out, nil
}

// field parses one {expr[=][!conv][:spec]} from just after its '{', and
// returns it and the index of its closing '}'.
func field(body string, i, pos, depth int) (*Node, int, error) {
	start, nest := i, 0
	var quote byte
	for ; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '\\':
			return nil, 0, errAt(pos, "f-string expression part cannot include a backslash")
		case quote != 0:
			if c == quote {
				quote = 0
			}
			continue
		case c == '\'' || c == '"':
			quote = c
			continue
		case c == '#':
			return nil, 0, errAt(pos, "f-string expression part cannot include '#'")
		case c == '(' || c == '[' || c == '{':
			nest++
			continue
		case (c == ')' || c == ']' || c == '}') && nest > 0:
			nest--
			continue
		case nest > 0:
			continue
		case c == '!' && i+1 < len(body) && body[i+1] == '=':
			i++
			continue
		case c == '=' && i+1 < len(body) && body[i+1] == '=':
			i++
			continue
		case c == '=' && i > start && strings.ContainsRune("<>!=", rune(body[i-1])):
			continue
		case c == '}' || c == '!' || c == ':' || c == '=':
		default:
			continue
		}
		break
	}
	if quote != 0 || i >= len(body) {
		return nil, 0, errAt(pos, "f-string: expecting '}'")
	}
	src := body[start:i]
	if strings.TrimSpace(strings.Trim(src, " \t\f\n\r")) == "" {
		return nil, 0, errAt(pos, "f-string: empty expression not allowed")
	}
	// The expression inside is parsed as if in parentheses.
	inner, err := parseNested("("+src+")", depth)
	if err != nil {
		return nil, 0, err
	}
	fv := node("FormattedValue", inner)
	if body[i] == '=' {
		i++
		for i < len(body) && (body[i] == ' ' || body[i] == '\t' || body[i] == '\f' || body[i] == '\n' || body[i] == '\r') {
			i++
		}
	}
	if i < len(body) && body[i] == '!' {
		if i+1 >= len(body) || !strings.ContainsRune("rsa", rune(body[i+1])) {
			return nil, 0, errAt(pos, "f-string: invalid conversion character")
		}
		i += 2
	}
	if i < len(body) && body[i] == ':' {
		// The format spec, with its own nested {fields}.
		j, level := i+1, 0
		for ; j < len(body); j++ {
			if body[j] == '{' {
				level++
			}
			if body[j] == '}' {
				if level == 0 {
					break
				}
				level--
			}
		}
		if j >= len(body) {
			return nil, 0, errAt(pos, "f-string: expecting '}'")
		}
		spec, err := fields(body[i+1:j], pos, depth+1, true)
		if err != nil {
			return nil, 0, err
		}
		for _, f := range spec {
			if len(f.Kids) > 1 { // a field of a spec with a spec of its own
				return nil, 0, errAt(pos, "f-string: expressions nested too deeply")
			}
		}
		if len(spec) > 0 {
			fv.Kids = append(fv.Kids, &Node{Kind: "JoinedStr", Kids: spec})
		}
		i = j
	}
	if i >= len(body) || body[i] != '}' {
		return nil, 0, errAt(pos, "f-string: expecting '}'")
	}
	return fv, i, nil
}

func parseNested(src string, depth int) (*Node, error) {
	toks, err := tokenize(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks, depth: depth}
	n, err := p.expressions()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEnd {
		return nil, errAt(t.pos, "unexpected "+describe(t))
	}
	return n, nil
}
