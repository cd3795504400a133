package expressions

import (
	"maps"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/debugpy-guard/debugpy-guard/internal/pyrepr"
)

// A holder is a name of the frame a call reads whose value holds a secret
// the session has seen (plugins/ABI.md, derived.holders): alias = password. The
// host masks a secret wherever it shows whole, so reading a holder whole is
// safe: alias, (alias, 1), {'k': alias}. Any other read shows it in pieces
// that no mask can find: alias[1:], alias[::2], alias[0], alias < 'm' (one
// bit at a time), [*alias], f'{alias:.5}', len(alias), alias.upper().
//
// A holder read whole is a name at the top of the code, or an element of a
// tuple, list, set or dict display (a key, a value, a **mapping) that is
// itself read whole. Everything else reads part of it. TestParserAgreesWithCPython
// compares the names read other than whole with CPython's ast.

// A path is a name followed by attributes and subscripts by a string or
// another constant (a negative number too), a slice of constants, or a
// tuple of those: mod.cfg['db'].urls[0], items[-1].name, d[None],
// big[15:][5], d[1, 2]. A holder can be a path as well as a name: a
// listing shows a frame's names, not what is reached through them
// (another module's globals, sys.modules['__main__'].alias,
// os.environ['URL']), nor all of what it shows cut short (a list past its
// 15th element, the middle of a long string inside a container), so
// before code that reads a path other than whole runs, the host reads
// that path whole (PartPaths), and the path is a holder when what it
// showed holds a secret.

// Path is n's spelling as a path (names and attributes folded to NFKC as
// Python folds them, string keys as repr writes them, numbers as written),
// or "" when n is not a path. The host and the modules spell a code's paths
// alike, each from the same code (TestPathsAgreeWithCPython: the spelling
// reads, to CPython, as the node it came from).
func Path(n *Node) string {
	if !isPath(n) {
		return ""
	}
	var b strings.Builder // built once: a long chain costs its length, not its square
	writePath(&b, n)
	return b.String()
}

// writePath writes the spelling of n, a path.
func writePath(b *strings.Builder, n *Node) {
	switch n.Kind {
	case "Name":
		b.WriteString(n.Name)
	case "Attribute":
		writePath(b, n.Kids[0])
		b.WriteString(".")
		b.WriteString(n.Name)
	case "Subscript":
		writePath(b, n.Kids[0])
		b.WriteString("[")
		writeKey(b, n.Kids[1])
		b.WriteString("]")
	}
}

// isPath reports whether n is a path (Path(n) != ""), spelling nothing.
func isPath(n *Node) bool {
	for ; n.Kind == "Attribute" || n.Kind == "Subscript"; n = n.Kids[0] {
		if n.Kind == "Subscript" && !pathKeyOK(n.Kids[1]) {
			return false
		}
	}
	return n.Kind == "Name"
}

// pathKeyOK reports whether k is a path's key (pathKey(k) != ""): a
// constant, a slice of constants (x[1:], x[-3::2]), or a tuple of those
// (d[1, 2], a[1:2, ::3]).
func pathKeyOK(k *Node) bool {
	switch k.Kind {
	case "Slice":
		return all(k.Kids, constantKey)
	case "Tuple":
		return all(k.Kids, func(e *Node) bool { return constantKey(e) || e.Kind == "Slice" && all(e.Kids, constantKey) })
	}
	return constantKey(k)
}

// constantKey: a constant key, as pathKey spells it.
func constantKey(k *Node) bool {
	if k.Kind == "UnaryOp" && k.Name == "-" {
		return scalar(k.Kids[0])
	}
	return k.Kind == "Constant" && !k.Undecoded && (scalar(k) || k.Bytes || k.Str && utf8.ValidString(k.Value))
}

func all(ns []*Node, ok func(*Node) bool) bool {
	for _, n := range ns {
		if !ok(n) {
			return false
		}
	}
	return true
}

// pathKey is a subscript key's spelling in a path, or "" when the key
// makes no path: a str or bytes as repr writes it, another constant (a
// number, negative too: items[-1]) as written, a slice's parts with their
// colons (x[1:], x[::2]), a tuple's elements with commas (d[1, 2], d[1,]).
// A str that is not valid UTF-8 (a lone surrogate) has no spelling here:
// its base is read in part.
func pathKey(k *Node) string {
	if !pathKeyOK(k) {
		return ""
	}
	var b strings.Builder
	writeKey(&b, k)
	return b.String()
}

// writeKey writes the spelling of k, a key pathKeyOK takes.
func writeKey(b *strings.Builder, k *Node) {
	switch k.Kind {
	case "Slice":
		kids := k.Kids
		for _, part := range "lus" {
			if part != 'l' && (part == 'u' || strings.ContainsRune(k.Name, 's')) {
				b.WriteString(":")
			}
			if strings.ContainsRune(k.Name, part) {
				writeKey(b, kids[0])
				kids = kids[1:]
			}
		}
	case "Tuple":
		if len(k.Kids) == 0 {
			b.WriteString("()")
		}
		for i, e := range k.Kids {
			if i > 0 {
				b.WriteString(", ")
			}
			writeKey(b, e)
		}
		if len(k.Kids) == 1 {
			b.WriteString(",")
		}
	case "UnaryOp":
		b.WriteString("-")
		b.WriteString(k.Kids[0].Value)
	default:
		switch {
		case !k.Str:
			b.WriteString(k.Value)
		case k.Bytes:
			q := pyrepr.Quote(k.Value)
			b.WriteString("b" + string(q) + pyrepr.BytesBody(k.Value, q) + string(q))
		default:
			b.WriteString(pyrepr.Repr(k.Value))
		}
	}
}

// scalar: a constant other than a str or bytes: a number, None, True,
// False or ... (its Value as written).
func scalar(n *Node) bool { return n.Kind == "Constant" && !n.Str && n.Value != "" }

// PartPaths returns the paths other than names that an expression reads
// other than whole, each not part of a longer one read so, but for the
// base of a path's subscript by anything but a str, which is read in part
// (m.alias[3] is one character of m.alias, big[15:] a part of big): what
// the host reads whole before the
// expression runs (a name's value is in the listing already). Nothing for
// code that does not parse (Python refuses it) or for statements (a repl
// input, which a person approves).
func PartPaths(text string) []string {
	tree, err := Parse(text)
	if err != nil {
		return nil
	}
	return spell(partNodes(tree, pathNodes(tree)))
}

// partNodes are the nodes of tree whose paths PartPaths returns; paths
// says which nodes are paths (pathNodes).
func partNodes(tree *Node, paths map[*Node]bool) []*Node {
	var out []*Node
	var walk func(n *Node, whole, inPath bool)
	walk = func(n *Node, whole, inPath bool) {
		switch {
		case n.Kind == "Name" || !paths[n]:
			inPath = false
		case !whole && !inPath:
			out = append(out, n)
			fallthrough
		default: // what a path reaches through (its base) is shown in part only as the path
			inPath = true
		}
		if !display[n.Kind] {
			whole = false
		}
		for i, k := range n.Kids {
			// A number or a slice picks part of a str or bytes (s[3]
			// is one character, b[0].real one byte) or of a list: its
			// base is read in part even when the path it starts is
			// read whole.
			walk(k, whole, inPath && !(i == 0 && n.Kind == "Subscript" && !n.Kids[1].Str))
		}
	}
	walk(tree, true, false)
	return out
}

// pathNodes says which nodes of tree are paths (isPath), each found once
// from its base's: asked of each node of a chain, isPath took time in the
// square of its length.
func pathNodes(tree *Node) map[*Node]bool {
	paths := map[*Node]bool{}
	var walk func(n *Node)
	walk = func(n *Node) {
		for _, k := range n.Kids {
			walk(k)
		}
		switch n.Kind {
		case "Name":
			paths[n] = true
		case "Attribute":
			paths[n] = paths[n.Kids[0]]
		case "Subscript":
			paths[n] = paths[n.Kids[0]] && pathKeyOK(n.Kids[1])
		}
	}
	walk(tree)
	return paths
}

// spell is the paths of ns, sorted, each once.
func spell(ns []*Node) []string {
	out := make([]string, 0, len(ns))
	for _, n := range ns {
		out = append(out, Path(n))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Parents returns the paths, names included, whose children an
// expression's paths show: the base of each path it reads (zlines in
// zlines[3], cfg.db in cfg.db.url) and of each path the host reads whole
// first (PartPaths: zlines in zlines[3][0]). A child read alone shows none
// of its siblings, and a secret in pieces (a key file's lines, each an
// item of a list) is known only from its pieces read together: the host
// opens each parent that the stop's listing did not before the code runs,
// for the result phase to read its children joined. zlines[3] showed the
// fourth line of a private key in clear, and zlines[4] the fifth, when
// the listing's budget was spent on other values (found 2026-12-07).
// Nothing for code that does not parse, as PartPaths.
func Parents(text string) []string {
	tree, err := Parse(text)
	if err != nil {
		return nil
	}
	paths := pathNodes(tree)
	part := map[*Node]bool{}
	for _, n := range partNodes(tree, paths) {
		part[n] = true
	}
	var out []*Node
	var walk func(n *Node, base bool)
	walk = func(n *Node, base bool) {
		access := n.Kind == "Attribute" || n.Kind == "Subscript"
		// A path's base is shown only when the host reads the path
		// whole first; a base of anything else (zlines[i] in
		// zlines[i][0]) is, to the code, a child read.
		if access && paths[n.Kids[0]] && (!base || !paths[n] || part[n]) {
			out = append(out, n.Kids[0])
		}
		for i, k := range n.Kids {
			walk(k, i == 0 && access)
		}
	}
	walk(tree, false)
	return spell(out)
}

// display: the nodes whose elements are read whole when they are (a dict
// display's **mapping is copied whole into it).
var display = map[string]bool{"Tuple": true, "List": true, "Set": true, "Dict": true, "DoubleStarred": true}

// ReadsPart returns the first holder that code (of a kind, as in
// derived.code) reads other than whole, or "" when it reads none so.
// Statements (a repl input) read every holder they name other than whole,
// and code that does not tokenize reads every holder so: what it would do
// is not known (Python refuses such code, so it shows no value).
func ReadsPart(text, kind string, h Held) string {
	return reads(text, kind, h.Holders, func(n *Node, whole bool) string { return partRead(n, whole, h) })
}

// Held is what the host told of the names code reads (plugins/ABI.md,
// derived): which hold a secret (holders), and of those which it saw as an
// object or a container (objects) and as a list or a tuple (sequences).
type Held struct{ Holders, Objects, Sequences map[string]bool }

// ReadsCut returns the first name or path of cut (values the host saw cut
// short, derived.cut) whose content code reads, or "": compared, formatted,
// passed to a call, an operand. Not so a value shown as it is, read through
// a path (big[20], big[15:], big.count: the path's own value is read whole
// first when it is read in part), only for its truth or identity (not big,
// big is None, big or x), or by len, id, isinstance or type. Statements
// read every one they name so, as in ReadsPart.
func ReadsCut(text, kind string, cut map[string]bool) string {
	return reads(text, kind, cut, func(n *Node, whole bool) string {
		if whole {
			return cutRead(n, shown, cut)
		}
		return cutRead(n, content, cut)
	})
}

// ReadsTextPart returns the first name or path of texts (values shown cut
// short as text, derived.texts) that code subscripts past its first
// shownItems items, or "": a slice or an index (dump[100030:100400],
// dump[1::2], lines[2010], lines[-1], lines[i]) reads a part of the text
// that no one read, and a part of a text shows no shape a mask knows (a
// private key's lines below its BEGIN line: found 2026-12-07, a long
// string's hidden middle, a list of a file's lines past those the listing
// read, a slice or a line at a time). Statements read every one they name
// so, as in ReadsPart.
func ReadsTextPart(text, kind string, texts map[string]bool) string {
	var sub func(n *Node) string
	sub = func(n *Node) string {
		if n.Kind == "Subscript" && !withinShown(n.Kids[1]) {
			base := n.Kids[0]
			p := base.Name
			if base.Kind != "Name" {
				p = Path(base)
			}
			if p != "" && texts[p] {
				return p
			}
		}
		for _, k := range n.Kids {
			if t := sub(k); t != "" {
				return t
			}
		}
		return ""
	}
	return reads(text, kind, texts, func(n *Node, _ bool) string { return sub(n) })
}

// shownItems is how many of a text's first items a reading saw: debugpy
// shows a long string's first thousands of characters, and a list's first
// 100 items to a listing (pydevd's PYDEVD_CONTAINER_INITIAL_EXPANDED_ITEMS),
// which the stop's listing reads together (a key file's lines).
const shownItems = 100

// withinShown reports whether key, a subscript's, picks items among the
// first shownItems only: a constant index 0 to 99 (True and False too), or
// a slice with constant bounds 0 to 100, its upper one given, and a
// positive step. A negative index counts from an end no one read.
func withinShown(key *Node) bool {
	index := func(n *Node, lo, hi float64) bool {
		v, ok := 0.0, n.Kind == "Constant" && !n.Str
		switch {
		case !ok:
		case n.Value == "True":
			v = 1
		case n.Value == "False":
		default:
			v, ok = intLiteral(n.Value)
		}
		return ok && lo <= v && v <= hi
	}
	switch key.Kind {
	case "Constant":
		return index(key, 0, shownItems-1)
	case "Slice":
		for i, part := range key.Name {
			lo, hi := 0.0, float64(shownItems)
			if part == 's' {
				lo, hi = 1, math.Inf(1)
			}
			if !index(key.Kids[i], lo, hi) {
				return false
			}
		}
		return strings.Contains(key.Name, "u")
	}
	return false
}

// reads is what ReadsPart and ReadsCut share: walk judges an expression's
// tree (read whole at its top), or each field of a statement's f-strings
// (read other than whole).
func reads(text, kind string, names map[string]bool, walk func(n *Node, whole bool) string) string {
	if len(names) == 0 {
		return ""
	}
	if kind == "expression" {
		if tree, err := Parse(text); err == nil {
			return walk(tree, true)
		}
	}
	for _, line := range splitStatements(text) {
		toks, err := tokenize(line)
		if err != nil {
			return first(names)
		}
		for _, t := range toks {
			switch {
			case t.kind == tName && names[t.text]:
				return t.text
			case t.kind == tString && strings.Contains(t.prefix, "f"):
				fs, err := fields(t.body, t.pos, 0, false)
				if err != nil {
					return first(names)
				}
				for _, f := range fs {
					if h := walk(f, false); h != "" {
						return h
					}
				}
			}
		}
	}
	return ""
}

// first is the holder that sorts first (a reason names one).
func first(holders map[string]bool) string {
	return slices.Min(slices.Collect(maps.Keys(holders)))
}

// partRead returns the first holder n reads other than whole; whole says
// whether n itself is read whole.
func partRead(n *Node, whole bool, h Held) string {
	switch n.Kind {
	case "Name":
		if !whole && h.Holders[n.Name] {
			return n.Name
		}
		return ""
	case "Attribute", "Subscript":
		if p := Path(n); !whole && p != "" && h.Holders[p] {
			return p
		} else if whole && memberRead(n, h) {
			return ""
		}
	}
	whole = whole && display[n.Kind]
	for _, k := range n.Kids {
		if hd := partRead(k, whole, h); hd != "" {
			return hd
		}
	}
	return ""
}

// memberRead reports whether n, read whole, is a member of an object
// holder (derived.objects) reached by attributes and string keys:
// user.username, headers['Content-Type'], settings['db']['host']; and, on
// a holder shown as a list or a tuple (derived.sequences), a constant index
// or slice of it first: pair[1], orders[0].total. Such a member is the
// secret whole (shown masked) or another value, never a part of one: a
// string has no string keys, its attributes are its methods, and a list's
// index picks an element whole. A number or a slice anywhere else
// (user.tokens[0], which may be a str's character) is not a member's read,
// nor is one through a holder that is not an object (at the result phase,
// whose holders are paths too: cfg.password.real).
func memberRead(n *Node, h Held) bool {
	if len(h.Objects) == 0 {
		return false
	}
	paths := false // whether a holder is a path (the result phase's), not a name only
	for p := range h.Holders {
		if strings.ContainsAny(p, ".[") {
			paths = true
			break
		}
	}
	for {
		switch {
		case n.Kind == "Attribute", n.Kind == "Subscript" && n.Kids[1].Str:
		case n.Kind == "Subscript" && n.Kids[0].Kind == "Name" && h.Sequences[n.Kids[0].Name] && pathKeyOK(n.Kids[1]):
		default:
			return false
		}
		n = n.Kids[0]
		p := n.Name
		if n.Kind != "Name" {
			if !paths {
				continue
			}
			if p = Path(n); p == "" {
				return false
			}
		}
		switch {
		case h.Objects[p]:
			return true
		case h.Holders[p]:
			return false
		}
	}
}

// reading is how code reads a value (cutRead).
type reading int

const (
	shown   reading = iota // shown as it is (and masked where it holds a secret)
	truth                  // only its truth or its identity
	content                // its content: compared, formatted, an operand, an argument
)

// cutRead returns the first name or path of cut whose content n reads,
// read as r (ReadsCut).
func cutRead(n *Node, r reading, cut map[string]bool) string {
	kid := func(k *Node, r reading) string { return cutRead(k, r, cut) }
	kids := func(ks []*Node, r reading) string {
		for _, k := range ks {
			if h := kid(k, r); h != "" {
				return h
			}
		}
		return ""
	}
	switch n.Kind {
	case "Name":
		if r == content && cut[n.Name] {
			return n.Name
		}
		return ""
	case "Attribute", "Subscript":
		if p := Path(n); p != "" {
			if r == content && cut[p] {
				return p
			}
			return kid(n.Kids[0], shown) // read through the path, whose value is read whole first when its content is read
		}
	case "Call":
		if f := n.Kids[0]; f.Kind == "Name" && textless[f.Name] {
			return kids(n.Kids[1:], truth) // a number, a bool or a class of it
		}
	case "BoolOp", "Tuple", "List", "Set", "Dict", "DoubleStarred":
		return kids(n.Kids, r) // an operand or an element is what is read, as it is read
	case "IfExp":
		if h := kid(n.Kids[0], truth); h != "" {
			return h
		}
		return kids(n.Kids[1:], r)
	case "UnaryOp":
		if n.Name == "not" {
			return kid(n.Kids[0], truth)
		}
	case "Compare":
		if !slices.ContainsFunc(n.Ops, func(op string) bool { return op != "is" }) {
			return kids(n.Kids, truth)
		}
	}
	return kids(n.Kids, content)
}

// unknownPart returns why n, read whole or not (whole), reads other than
// whole a value whose secrets are not known, or "". The host reads names
// (the listing) and paths (PartPaths) whole before code runs, so that a
// secret in what they show makes them holders. Not so:
//
//   - a value reached through a call, an operator or a display, then an
//     attribute or a subscript: str(type(cfg).DEFAULTS)[14:] cut the repr
//     of a class's mapping, which no listing showed, past the key that
//     would have masked its value;
//   - the text a call returns (str(x), repr(x)): an object's __str__ is
//     not its repr, and a listing's repr stops short of a long value, so
//     str(x)[5:] or repr(x) < 'm' (a bit at a time) shows what no listing
//     did. But for the calls whose result holds no text (textless).
//
// judge.go has a person decide.
func unknownPart(n *Node, whole bool) string {
	switch n.Kind {
	case "Attribute", "Subscript":
		if !whole && !known(n) {
			return "it reads part of a value reached through a call, an operator, a display or a subscript that is not a path (str(type(x).D)[5:]), which is not read whole first to find the secrets in it"
		}
	case "Call":
		if f := n.Kids[0]; !whole && (f.Kind != "Name" || !textless[f.Name]) {
			return "it reads part of what a call returns (str(x)[5:], repr(x) < 'm'), which shows what no listing of the program's values did (an object's __str__, a long value's repr past where a listing stops)"
		}
	}
	whole = whole && display[n.Kind] // an element of a display read whole is read whole
	for _, k := range n.Kids {
		if why := unknownPart(k, whole); why != "" {
			return why
		}
	}
	return ""
}

// textless: builtins whose result holds no text of what they read (a
// number, a bool, a class), so a part of it shows nothing a mask missed.
var textless = map[string]bool{"len": true, "id": true, "isinstance": true, "type": true}

// known: a name or a path (alias[1:], x[0:2][0]: the host reads it whole
// first, so a holder marks it), or a literal or a literal subscript of one
// ('abc'[1:]). A literal subscript of a name that makes no path (x[~1],
// x[(1, 2), 3]) is not known: what it picks out is not read whole first.
func known(n *Node) bool {
	return n.Kind == "Name" || isPath(n) || ofLiteral(n)
}

func ofLiteral(n *Node) bool {
	return literal(n) || n.Kind == "Subscript" && literal(n.Kids[1]) && ofLiteral(n.Kids[0])
}
