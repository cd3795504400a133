// Package redact masks secrets in results (phase result): the value of a variable
// whose name looks like a secret (password, token, api_key ...), in any
// string the value of a pair with such a name (a dict's, a keyword's, in a
// repr read as Python writes it: pairs.go), JWTs, PEM blocks, AWS access
// keys and other token shapes, a JSON Web Key's private members and a
// private key's numbers (privatekeys.go), the passwords of credential
// files' lines (.pgpass, .netrc: files.go), and a table's column under a
// header that names a secret (CSV: table.go; columns lined up by blanks or
// bars, as pandas and tabulate write them: aligned.go). A read of a
// program's output is masked with the output it continues (output.go).
// settings.names adds names.
// It withholds the result of code that reads part of a name whose value
// holds a secret (derived.holders): alias[1:] after alias = password would
// show the secret in pieces that no mask finds; and of code that compares
// a value shown cut short in a session that has seen a secret
// (derived.cut): big < [0, ..., 'Zq'] reads, a bit at a time, what the
// listing of big did not show.
package redact

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/debugpy-guard/debugpy-guard/plugins/abi"
	"github.com/debugpy-guard/debugpy-guard/plugins/sdk"
	"github.com/debugpy-guard/debugpy-guard/policies/expressions"
	"github.com/debugpy-guard/debugpy-guard/policies/secrets"
	"github.com/debugpy-guard/debugpy-guard/policies/settings"
)

const mask = "[redacted]"

// Settings are the settings it takes, and their kinds (docs/CONFIG.md
// lists them; a test keeps the two the same).
var Settings = map[string]settings.Kind{"names": settings.Strings}

// Validate checks the settings.
func Validate(s sdk.Value) error {
	return settings.Check("redact", s, Settings)
}

// names are settings.names, lower-cased, read once per settings, and the
// texts read with them.
type names struct {
	extra map[string]bool
	texts *judgedTexts
}

func readNames(s sdk.Value) names {
	extra := map[string]bool{}
	for _, n := range s.Get("names").Elements() {
		extra[strings.ToLower(n.Str())] = true
	}
	return names{extra, &judgedTexts{}}
}

// judgedTexts are the texts maskText read, with one settings' names, and
// what it made of them, kept from call to call: an agent lists the same
// variables at each stop, and a Go wasm guest read each text again with
// every one of maskOnce's detectors (a listing of 40 variables took ~2 ms;
// its two texts with a secret, masked again at each call, were a third of
// what remained: docs/PERFORMANCE.md, "A listing read without copies"). A
// text read again gets the same masked text, and hands the host the same
// secrets again, in the same order: the host keeps them for one MCP
// session, and another session's result must have them masked too. This
// does all that reading the text again would, because maskText depends on
// the text and the names alone, and hands the host what it finds through
// found only (TestJudgedTextsDoWhatMaskTextDoes). Past its bounds every
// judgement kept is forgotten, all at once.
//
// The names judged (isSecretName) are kept beside them, with the same
// settings: a listing's names and its objects' keys come back at each stop.
type judgedTexts struct {
	mu    sync.Mutex // a policy's tests may decide from several goroutines
	texts map[string]judged
	bytes int             // the texts', their masked texts' and their secrets' bytes
	names map[string]bool // name -> isSecretName(name, extra)
}

// judged is maskText's reading of a text.
type judged struct {
	masked  string   // the text masked, when changed
	changed bool     // maskText changed the text
	handed  []string // the secrets it handed the host, in order
}

// At most textsBytes of texts and textsMax texts are kept (a map's entry
// costs some 50 bytes of its own: a module's memory is 32 MiB), and at
// most namesMax names, none over nameMax bytes.
const (
	textsBytes = 1 << 20
	textsMax   = 16 << 10
	namesMax   = 4096
	nameMax    = 128
)

// lookup is the judgement of v's text when it was read before, found
// without copying the text out of the request. Its secrets are handed to
// the host again.
func (c *judgedTexts) lookup(v sdk.Value) (judged, bool) {
	c.mu.Lock()
	j, ok := sdk.Lookup(c.texts, v)
	c.mu.Unlock()
	if ok {
		j.handAgain()
	}
	return j, ok
}

func (j judged) handAgain() {
	for _, h := range j.handed {
		remember(h)
	}
}

// maskText is maskText(s, extra), read from before when s was read
// before.
func (c *judgedTexts) maskText(s string, extra map[string]bool) (string, bool) {
	c.mu.Lock()
	j, ok := c.texts[s]
	c.mu.Unlock()
	if ok {
		j.handAgain()
		if !j.changed {
			return s, false
		}
		return j.masked, true
	}
	return c.judge(s, extra)
}

// judge is maskText(s, extra) for a text not read before, kept for the
// next reading.
func (c *judgedTexts) judge(s string, extra map[string]bool) (string, bool) {
	var j judged
	before := remembered.Load()
	j.masked, j.changed = maskTextTo(s, extra, func(v string) { j.handed = append(j.handed, v); remember(v) })
	out := j.masked
	size := len(s)
	if j.changed {
		size += len(j.masked)
	}
	for _, h := range j.handed {
		size += len(h)
	}
	// Not kept: a long text, which would crowd out the rest; and a
	// reading during which the host was handed a secret other than through
	// found (another goroutine's, in a policy's tests: the judgement may
	// have missed one).
	if size > textsBytes/16 || remembered.Load() != before+int64(len(j.handed)) {
		return out, j.changed
	}
	if !j.changed {
		j.masked = "" // s itself
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.texts == nil || c.bytes+size > textsBytes || len(c.texts) >= textsMax {
		c.texts, c.bytes = map[string]judged{}, 0
	}
	c.texts[s] = j
	c.bytes += size
	return out, j.changed
}

// isSecretValue is isSecretName(v.Str(), extra), the name judged before
// read without a copy.
func (c *judgedTexts) isSecretValue(v sdk.Value, extra map[string]bool) bool {
	c.mu.Lock()
	secret, ok := sdk.Lookup(c.names, v)
	c.mu.Unlock()
	if ok {
		return secret
	}
	return c.isSecretName(v.Str(), extra)
}

// isSecretName is isSecretName(name, extra), kept for the next reading.
func (c *judgedTexts) isSecretName(name string, extra map[string]bool) bool {
	c.mu.Lock()
	secret, ok := c.names[name]
	c.mu.Unlock()
	if ok {
		return secret
	}
	secret = isSecretName(name, extra)
	if len(name) <= nameMax {
		c.mu.Lock()
		if c.names == nil || len(c.names) >= namesMax {
			c.names = map[string]bool{}
		}
		c.names[name] = secret
		c.mu.Unlock()
	}
	return secret
}

// Decide is the policy.
//
// Prepare is the same policy with its settings read once (the built-in
// module keeps it while the settings stay the same).
var Prepare, Decide = settings.Prepared(readNames, decide)

func decide(r *sdk.Request, ns names) sdk.Decision {
	extra := ns.extra
	if r.Phase() != "result" {
		return sdk.Abstain()
	}
	if d, part := partRead(r); part {
		return d
	}
	if !r.Result().Exists() || r.Result().Kind() == sdk.Null {
		return sdk.Allow("no result")
	}
	res := r.Result()
	n := 0
	switch r.Tool() {
	case "debugpy_source":
		res = sourceMasked(res, r.Derived().Get("before"), extra, &n)
	case "debugpy_output":
		res = outputMasked(res, r.Derived().Get("before"), extra, &n)
	}
	out, _ := walk(res, extra, ns.texts, &n)
	// An evaluate result carries no name: judge it by the expression.
	if r.Tool() == "debugpy_evaluate" && isSecretName(lastName(r.Arg("expression").Str()), extra) && out.Get("result").Exists() {
		out.Set("result", sdk.StringValue(mask))
		n++
	}
	if n == 0 {
		// Allow, not abstain: when every module of a phase abstains the
		// config's default (deny) applies, and a clean result must pass.
		return sdk.Allow("nothing to redact")
	}
	return sdk.Rewrite("redacted "+strconv.Itoa(n)+" secret value(s)", out)
}

// partRead denies the result of code that reads part of a holder, or
// the content of a value shown cut short (expressions.Withheld), error
// results included: an exception's text can quote the part (KeyError: 'h').
func partRead(r *sdk.Request) (sdk.Decision, bool) {
	if why := expressions.Withheld(r.Derived()); why != "" {
		return sdk.Deny(why), true
	}
	return sdk.Decision{}, false
}

// writeMasked writes the mask in place of v, a mask for each of its lines
// with its line ends kept where they were: a masked text keeps its lines
// (debugpy_source's lines are masked read together, then split again).
func writeMasked(b *strings.Builder, v string) { writeMaskedFrom(b, v, true) }

// writeMaskedFrom is writeMasked, with no mask for v's first line unless
// first (v goes on a span already masked on that line).
func writeMaskedFrom(b *strings.Builder, v string, first bool) {
	for {
		e := strings.IndexAny(v, "\r\n")
		if e < 0 {
			if v != "" && first {
				b.WriteString(mask)
			}
			return
		}
		if e > 0 && first {
			b.WriteString(mask)
		}
		first = true
		n := 1
		if strings.HasPrefix(v[e:], "\r\n") {
			n = 2
		}
		b.WriteString(v[e : e+n])
		v = v[e+n:]
	}
}

// hidden is what a reading of s hides: the spans it hides, each handed to
// found when it is hidden, and at the end written masked (masked).
type hidden struct {
	s     string
	spans [][2]int
	found func(string)
}

// hide hides s[from:to] and hands it to found.
func (h *hidden) hide(from, to int) {
	h.spans = append(h.spans, [2]int{from, to})
	if h.found != nil {
		h.found(h.s[from:to])
	}
}

// masked is s with what was hidden masked (writeSpans, which merges spans
// that nest or repeat), and whether anything was.
func (h *hidden) masked() (string, bool) {
	if len(h.spans) == 0 {
		return h.s, false
	}
	return writeSpans(h.s, h.spans, h.found), true
}

// writeSpans writes s with each span masked, each line's mask once: spans
// may come in any order, and nest or overlap (found from different
// starts). A span that cuts a credential of a well-known shape short is
// widened to hold it (wholeShapes).
func writeSpans(s string, spans [][2]int, found func(string)) string {
	spans = wholeShapes(s, spans, found)
	slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		if sp[1] <= last {
			continue
		}
		from := max(sp[0], last)
		b.WriteString(s[last:from])
		writeMaskedFrom(&b, s[from:sp[1]], from == sp[0])
		last = sp[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// wholeShapes widens spans so that none cuts a credential of a well-known
// shape (maskShapes') or a credential file's value (credentialValues)
// short: the spans and the shapes that overlap, in a
// chain, are masked as one. A named value's reading ends where its syntax
// says (a pair's value at the next '='), and the credential may go on past
// it: $argon2id$v=19$m=65536,t=3,p=4$salt$hash after password= had its
// salt and hash shown, as the rest read as no hash any more. A shape
// widened to is handed to the host as the shapes' mask hands it.
func wholeShapes(s string, spans [][2]int, found func(string)) [][2]int {
	if len(spans) == 0 {
		return spans
	}
	type part struct {
		span  [2]int
		shape bool
		held  func(string) string
	}
	var parts []part
	eachShape(s, func(start, end int, held func(string) string) {
		parts = append(parts, part{[2]int{start, end}, true, held})
	})
	// A credential file's values too: a mask that cut a .netrc password
	// short left its end shown, and no reading found it again.
	eachCredential(s, func(vs, ve int) { parts = append(parts, part{span: [2]int{vs, ve}, shape: true}) })
	if len(parts) == 0 {
		return spans
	}
	for _, sp := range spans {
		parts = append(parts, part{span: sp})
	}
	slices.SortFunc(parts, func(a, b part) int { return a.span[0] - b.span[0] })
	out := spans[:0:0]
	for i := 0; i < len(parts); {
		group, named := parts[i].span, !parts[i].shape
		j := i + 1
		for ; j < len(parts) && parts[j].span[0] < group[1]; j++ {
			group[1] = max(group[1], parts[j].span[1])
			named = named || !parts[j].shape
		}
		if named {
			for _, p := range parts[i:j] {
				if p.shape && !slices.ContainsFunc(parts[i:j], func(q part) bool { return !q.shape && q.span[0] <= p.span[0] && p.span[1] <= q.span[1] }) {
					handShape(s[p.span[0]:p.span[1]], p.held, found)
				}
			}
			out = append(out, group)
		}
		i = j
	}
	return out
}

func isSecretName(name string, extra map[string]bool) bool { return secrets.IsName(name, extra) }

// remember hands a masked value to the host, which masks it in every
// result of the session from then on (sdk.Secret).
func remember(v string) {
	if dtypeCode(v) {
		// a field's type beside its name (pairs.go): a listing of a
		// dtype's fields (descr: [('password', '<U20')]) masks it, but
		// learned, every array of strings showed its dtype masked
		return
	}
	remembered.Add(1)
	sdk.Secret(v)
}

// remembered counts the values handed to the host (judgedTexts).
var remembered atomic.Int64

// rememberShown hands the host the secret in a variable's displayed value
// (a repr): as shown, and as the program holds it, decoded as Python reads
// the repr (a backslash, a tab or a no-break space is escaped in the repr
// but not when the program prints the value). Nothing for None, booleans,
// and containers or objects, whose parts are judged on their own.
func rememberShown(display string) {
	switch display {
	case "", "None", "True", "False", mask:
		return
	}
	if l, ok := expressions.ReadLiteral(display, 0); ok && l.End == len(display) {
		rememberLiteral(display, l)
		return
	}
	switch display[0] {
	case '<', '{', '[', '(':
		return
	}
	remember(display)
	if digits, ok := strings.CutPrefix(display, "Integer("); ok && strings.HasSuffix(digits, ")") {
		// PyCryptodome's Integer: its number, as an int of the same key
		// shows it (dsa.x)
		if digits = digits[:len(digits)-1]; digits != "" && run(digits, 0, isDigit) == len(digits) {
			remember(digits)
		}
	}
}

// walk returns v with secrets masked, counting the masks in n, and whether
// it changed anything (if not, v itself comes back: nothing is rebuilt). An
// object with a "name" that looks like a secret has its "value" and
// "result" masked, and its "children" dropped.
func walk(v sdk.Value, extra map[string]bool, texts *judgedTexts, n *int) (sdk.Value, bool) {
	switch v.Kind() {
	case sdk.String:
		if j, ok := texts.lookup(v); ok {
			if !j.changed {
				return v, false
			}
			*n++
			return sdk.StringValue(j.masked), true
		}
		s, changed := texts.judge(v.Str(), extra)
		if !changed {
			return v, false
		}
		*n++
		return sdk.StringValue(s), true
	case sdk.Array:
		return walkArray(v, extra, texts, n, values)
	case sdk.Object:
		return walkObject(v, v.Get("name"), extra, texts, n, nil, false)
	}
	return v, false
}

// rows says what an array walked is, and so which of its rows' values
// walkArray also reads together (childPieces).
type rows uint8

const (
	values    rows = iota // no listing's: each element alone
	variables             // a listing's variables (a scope's, a container's): an AWS secret beside its id
	children              // a variable's children: also their strings joined
)

// walkArray is walk for an array of the kind of rows: a listing's
// variables and children are also read together (childPieces).
func walkArray(v sdk.Value, extra map[string]bool, texts *judgedTexts, n *int, kind rows) (sdk.Value, bool) {
	var out []sdk.Value // made at the first change, as an object's members below
	pieces := kind != values
	ps := childPieces{joined: kind == children}
	besides := -1      // the groups of privateRows whose beside row v holds (besideRows), read at the first row that needs them
	record := -1       // the value rows of v that its name rows make secret (recordRows), read at the first value row
	var columns []bool // a table's secret columns, from its header, its item 0 (tables.go)
	for i, e := range v.AllElements() {
		var shown sdk.Value // a child's display
		var changed bool
		if e.Kind() == sdk.Object {
			name := e.Get("name")
			secret := false // a private key's row (privateRows), a record's value (recordRows)
			if groups := privateRow(name); groups != 0 {
				if besides < 0 {
					besides = int(besideRows(v))
				}
				secret = groups&uint16(besides) != 0
			}
			if field := valueRow(name); field != 0 && mayHoldText(e.Get("value").Str()) {
				if record < 0 {
					record = int(recordRows(v, extra))
				}
				secret = secret || field&uint8(record) != 0
			}
			shownTo := &shown
			if !pieces {
				shownTo = nil
			}
			e, changed = walkObject(e, name, extra, texts, n, shownTo, secret)
			if _, first := sdk.Lookup(firstItem, name); first && pieces {
				columns = headerCells(e.Get("value").Str(), extra)
			} else if columns != nil && itemName(name) {
				if cells, ok := rowCells(e.Get("value").Str(), columns); ok {
					e.Set("value", sdk.StringValue(cells))
					changed = true
					*n++
				}
			}
		} else {
			e, changed = walk(e, extra, texts, n)
		}
		if changed && out == nil {
			out = append(make([]sdk.Value, 0, i+4), v.Elements()[:i]...)
		}
		if out != nil {
			out = append(out, e)
		}
		if pieces {
			ps.add(i, e.Get("name"), shown, extra, texts)
		}
	}
	if masks := ps.end(extra, texts); len(masks) > 0 {
		if out == nil {
			out = slices.Clone(v.Elements())
		}
		for _, i := range masks {
			if c := out[i]; c.Get("value").Str() != mask { // not masked already, under a secret's name
				c.Set("value", sdk.StringValue(mask))
				out[i] = c
				*n++
			}
		}
	}
	if out == nil {
		return v, false
	}
	return sdk.ArrayValue(out...), true
}

// walkObject is walk for an object, whose "name" member is name; shown,
// when not nil, gets its "value" member as the object had it (a listing's
// child's display). With secret set, the object is a row that holds a
// secret whatever its name (a JWK's d beside its kty: privateRows).
func walkObject(v, name sdk.Value, extra map[string]bool, texts *judgedTexts, n *int, shown *sdk.Value, secret bool) (sdk.Value, bool) {
	secret = secret || texts.isSecretValue(name, extra) || cipherKey(name, v)
	var out []sdk.Member // made at the first change: most objects have none
	i := 0               // the member's index
	for key, val := range v.AllMembers() {
		m := sdk.Member{Key: key, Value: val}
		keep, changed := true, false
		if key == "value" && shown != nil {
			*shown = val
		}
		switch {
		case secret && (m.Key == "value" || m.Key == "result"):
			rememberShown(m.Value.Str())
			learnContainer(m.Value.Str())
			learnSpelled(displayItems(m.Value.Str()))
			*n++
			m.Value, changed = sdk.StringValue(mask), true
		case secret && m.Key == "children":
			// Dropped: the parts of a secret are secret too. Those
			// named for a secret are learned, as anywhere else: an
			// alias of one (e1 = e.credentials.password) showed in
			// clear (found 2026-12-05). The others are not: a field
			// name's value (user) is no secret, and learned it masked
			// every text it is in.
			walk(m.Value, extra, texts, new(int))
			learnItems(m.Value)
			learnValues(m.Value)
			learnSpelled(itemValues(m.Value))
			keep, changed = false, true
		case m.Value.Kind() == sdk.String && texts.isSecretName(m.Key, extra):
			rememberShown(m.Value.Str())
			*n++
			m.Value, changed = sdk.StringValue(mask), true
		case m.Key == "children" && m.Value.Kind() == sdk.Array:
			m.Value, changed = walkArray(m.Value, extra, texts, n, children)
		case m.Key == "variables" && m.Value.Kind() == sdk.Array:
			m.Value, changed = walkArray(m.Value, extra, texts, n, variables)
		default:
			m.Value, changed = walk(m.Value, extra, texts, n)
		}
		if changed && out == nil { // the members before this one, as they were
			out = append(make([]sdk.Member, 0, i+4), v.Members()[:i]...)
		}
		if out != nil && keep {
			out = append(out, m)
		}
		i++
	}
	if out == nil {
		return v, false
	}
	return sdk.ObjectValue(out...), true
}

// cipherKey reports whether the row v, named name, is the key a cipher's
// object holds: cryptography's AESGCM, AESCCM and ChaCha20Poly1305 keep
// theirs in _key, its algorithms.AES and ChaCha20 in key. A key alone names
// no secret (a dict's, a cache's), but bytes of a cipher key's length
// under it (16, 24 or 32; AES-SIV's 64) are one: an AESGCM object,
// listed, showed its key in clear (found 2026-12-08).
func cipherKey(name, v sdk.Value) bool {
	if l := name.StrLen(); l != 3 && l != 4 {
		return false
	}
	if n := name.Str(); n != "key" && n != "_key" {
		return false
	}
	d := v.Get("value").Str()
	if len(d) < 3 || d[0] != 'b' && d[0] != 'B' {
		return false
	}
	l, ok := expressions.ReadLiteral(d, 0)
	return ok && l.End == len(d) && l.Known && (len(l.Value) == 16 || len(l.Value) == 24 || len(l.Value) == 32 || len(l.Value) == 64)
}

// childPieces reads the values of a listing's children together, in
// order: each run of children whose values are string literals, read as
// the program holds them, joined (a list of a key file's lines, from
// readlines or split, each line a child), and end tells which children
// hold a byte of what maskText masks in the joined text (splitMasked).
// Read one at a time, a PEM key's lines showed all but the BEGIN line: no
// line alone has a credential's shape (found 2026-12-06).
//
// And a child whose value has an AWS secret access key's shape, among
// children one of which is an access key id, is masked: the tuple
// ('AKIA...', 'wJalr...') shows the secret cut in its repr, whole in its
// child (awsSecret reads them in one text). So is a variable among a
// listing's variables (a frame's locals, a module's globals): key_id =
// 'AKIA...' and key = 'wJalr...', names of no secret, showed the secret in
// clear (found 2026-12-07). Those are not joined: a scope's variables,
// listed by name, are not the pieces of one value.
type childPieces struct {
	joined bool     // whether runs of string values are read joined
	run    []int    // the indexes of the run's children
	pieces []string // their values as the program holds them
	keyed  bool     // whether a child of the run is named by other than an index (itemName)
	masks  []int    // the children to mask
	awsID  bool     // whether a child is an AWS access key id
	aws    []int    // the children that have an AWS secret access key's shape
	awsAt  []string // and their displays
}

// add reads child i's display (its "value", as walkObject found it), and
// its name.
func (ps *childPieces) add(i int, name, display sdk.Value, extra map[string]bool, texts *judgedTexts) {
	if !ps.joined {
		ps.addVariable(i, display)
		return
	}
	d := display.Str()
	l, ok := expressions.ReadLiteral(d, 0)
	if !ok || l.End != len(d) || !l.Known || d == mask {
		ps.endRun(extra, texts)
		return
	}
	ps.run, ps.pieces = append(ps.run, i), append(ps.pieces, l.Value)
	ps.keyed = ps.keyed || !itemName(name)
	ps.addAWS(i, l.Value, d)
}

// itemName reports whether name is a sequence's item's, as debugpy names
// it: its index ("0", "17").
func itemName(name sdk.Value) bool {
	if n := name.StrLen(); n == 0 || n > 20 {
		return false
	}
	var buf [24]byte
	j := name.AppendJSON(buf[:0]) // "17": no copy of a string on the heap, for each child
	if len(j) < 3 || j[0] != '"' {
		return false
	}
	for _, c := range j[1 : len(j)-1] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func (ps *childPieces) addAWS(i int, value, display string) {
	switch {
	case isAWSKeyID(value):
		ps.awsID = true
	case isAWSSecret(value):
		ps.aws, ps.awsAt = append(ps.aws, i), append(ps.awsAt, display)
	}
}

// addVariable reads variable i's display for an AWS access key id or
// secret only, from its JSON, and copies it out only when it has their
// alphabet: a listing's variables are many, and in a Go wasm guest a copy
// of each cost a listing read again 5-10% (docs/PERFORMANCE.md). Their
// literals ('...', b'...') need no escape, in Python or in JSON.
func (ps *childPieces) addVariable(i int, display sdk.Value) {
	if !awsLiteralLen(display.StrLen()) {
		return // most
	}
	var buf [48]byte
	j := display.AppendJSON(buf[:0]) // "'...'": StrLen says 22 to 43 bytes
	if len(j) < 2+2 || j[0] != '"' {
		return
	}
	d := j[1 : len(j)-1]
	body := bytes.TrimPrefix(d, []byte("b"))
	if len(body) < 2 || body[0] != '\'' || body[len(body)-1] != '\'' {
		return
	}
	body = body[1 : len(body)-1]
	for _, c := range body {
		if !isB64Std(c) {
			return
		}
	}
	ps.addAWS(i, string(body), string(d))
}

// awsLiteralLen: a string or bytes literal of n bytes can be an AWS
// access key id (20 bytes) or secret access key (40) as a repr shows it:
// in quotes, after a b.
func awsLiteralLen(n int) bool { return n == 22 || n == 23 || n == 42 || n == 43 }

// endRun reads the run's pieces joined: a sequence's items as they are
// (a text's chunks, a file's lines from readlines or splitlines), a
// mapping's values or an object's attributes each on a line of its own.
// Those are not one text's pieces, and read end to end they made words
// that no value holds: os.environ's values, a path's end and a URL's
// start, read as a URL whose authority ran on into the next value, so
// PLAIN_VALUE's value was learned as a secret (found 2026-12-07).
func (ps *childPieces) endRun(extra map[string]bool, texts *judgedTexts) {
	if len(ps.run) >= 2 {
		pieces := ps.pieces
		if ps.keyed {
			pieces = make([]string, len(ps.pieces))
			for k, p := range ps.pieces {
				if !strings.HasSuffix(p, "\n") {
					p += "\n"
				}
				pieces[k] = p
			}
		}
		ps.readJoined(pieces, extra, texts)
		if len(ps.pieces) >= 3 && strings.HasPrefix(ps.pieces[0], "eyJ") {
			// A JWT's parts (token.split('.')): read with their dots.
			// Joined without them they are no JWT, and a program that
			// held only the parts showed the signature in clear (found
			// 2026-12-07).
			dotted := make([]string, len(ps.pieces))
			for k, p := range ps.pieces {
				if k < len(ps.pieces)-1 {
					p += "."
				}
				dotted[k] = p
			}
			ps.readJoined(dotted, extra, texts)
		}
	}
	ps.run, ps.pieces, ps.keyed = ps.run[:0], ps.pieces[:0], false
}

// readJoined reads the run's pieces, each as written in pieces (with what
// joins it to the next), joined: a child that holds a byte of what
// maskText masks is masked, and learned alone when it is long enough.
func (ps *childPieces) readJoined(pieces []string, extra map[string]bool, texts *judgedTexts) {
	joined := strings.Join(pieces, "")
	masked, changed := texts.maskText(joined, extra)
	if !changed {
		return
	}
	for k, part := range splitMasked(pieces, joined, masked) {
		if part != pieces[k] && !slices.Contains(ps.masks, ps.run[k]) {
			ps.masks = append(ps.masks, ps.run[k])
			if len(ps.pieces[k]) >= minPiece {
				remember(ps.pieces[k])
			}
		}
	}
}

// minPiece is the shortest child a joined reading masks that is learned
// on its own: a key file's line, read later alone (lines[92]), is masked;
// a token's prefix in a child of its own ('ghp_') masks nothing else.
const minPiece = 8

// end ends the last run and returns the children to mask.
func (ps *childPieces) end(extra map[string]bool, texts *judgedTexts) []int {
	ps.endRun(extra, texts)
	if ps.awsID {
		for k, i := range ps.aws {
			rememberShown(ps.awsAt[k])
			ps.masks = append(ps.masks, i)
		}
	}
	return ps.masks
}

// rememberLiteral hands the host the string literal l of display: as
// shown, and as the program holds it (rememberShown).
func rememberLiteral(display string, l expressions.Literal) {
	if shown := display[l.BodyStart:l.BodyEnd]; shown != "" && shown != mask {
		remember(shown)
		if l.Known && l.Value != shown {
			remember(l.Value)
		}
	}
}

// learnContainer hands the host the strings of a container shown under a
// secret's name (a listing's `password: list = ['...', '...']`): every
// string literal of its display but a dict's keys, as for a repr in any
// text, and but one cut short by the debugger (`'abc...xyz'` is no value
// of the program's). The row is masked whole; without this, an alias of
// one of its strings (x = password[1]) was shown in clear (found
// 2026-12-05). So for a display written as a call of its type, which
// shows its fields' values: a dataclass's, a namedtuple's, a namespace's,
// a short bytearray's (db_secret = DB(host='h', key='...'): an alias of
// db_secret.key was shown in clear, found 2026-12-06). One scan of the
// display, no other reading: a listing can hold many such rows.
func learnContainer(display string) {
	if !shownAsContainer(display) {
		return
	}
	for i := 0; i < len(display); {
		l, ok := expressions.ReadLiteral(display, i)
		if !ok {
			i++
			continue
		}
		rest := strings.TrimLeft(display[l.End:], " ")
		if !strings.HasPrefix(rest, ":") && !strings.Contains(display[l.BodyStart:l.BodyEnd], "...") {
			rememberLiteral(display, l)
		}
		i = l.End
	}
}

// shownAsContainer reports whether display is a container's display
// ({...}, [...], (...)) or one written as a call of its type: a dotted
// name, then (...).
func shownAsContainer(display string) bool {
	if bracketed(display) {
		return true
	}
	name, _, ok := strings.Cut(display, "(")
	if !ok || name == "" || !strings.HasSuffix(display, ")") {
		return false
	}
	for _, part := range strings.Split(name, ".") {
		if !identifier(part) {
			return false
		}
	}
	return true
}

// bracketed reports whether display is a container's own display: {...},
// [...] or (...).
func bracketed(display string) bool {
	return display != "" && strings.IndexByte("{[(", display[0]) >= 0
}

// identifier reports whether s is an ASCII identifier (a type's name as a
// repr writes it).
func identifier(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

// learnItems hands the host the strings of the items of a container
// shown under a secret's name, as learnContainer does for its display:
// the items past those the display shows (a list's 16th, a dict's value
// past its 15th key) are learned from its children, which the stop's
// listing opened. An item's row is named by its index or its key's repr
// (0, 'svc18', 18); an object's attribute by an identifier, which
// learnItems leaves to walk (a secret-named one is learned, a user's name
// is not). Items of items are learned too. Without it, an alias of a
// list's 18th password, or of a dict's 19th token, was shown in clear
// (found 2026-12-06).
func learnItems(children sdk.Value) {
	for _, c := range children.Elements() {
		if !item(c.Get("name").Str()) {
			continue
		}
		shown := c.Get("value").Str()
		if l, ok := expressions.ReadLiteral(shown, 0); ok && l.End == len(shown) && !strings.Contains(shown[l.BodyStart:l.BodyEnd], "...") {
			rememberLiteral(shown, l)
		}
		if bracketed(shown) {
			// A container's display, not an object's written as a call
			// of its type: an item is an object, whose attributes are
			// learned by their names (a cookie jar's Cookie(...,
			// domain='example.org') masked the domain everywhere).
			learnContainer(shown)
		}
		learnItems(c.Get("children"))
	}
}

// learnSpelled hands the host what a container shown under a secret's
// name spells with its items, in order: each run of characters (a
// string of up to three, a number as the character it codes) joined,
// when it is at least minSpelled characters. learnContainer learns its
// strings one by one, and a character is no secret alone: password_chars
// = list(password), listed by its variables_reference, showed the secret
// a character a row, since nothing had learned it whole (found
// 2026-12-07). Learned, the host masks the rows that spell it
// (plugins.Masker.Items) and every form of it.
func learnSpelled(items []string) {
	var run strings.Builder
	end := func() {
		if utf8.RuneCountInString(run.String()) >= minSpelled {
			remember(run.String())
		}
		run.Reset()
	}
	for _, it := range items {
		if c, ok := spelledBy(it); ok {
			run.WriteString(c)
			continue
		}
		end()
	}
	end()
}

// minSpelled is the fewest characters learnSpelled learns: the host keeps
// no secret shorter (plugins.MinSecret).
const minSpelled = 4

// spelledBy is what an item spells, shown as it: a string literal of up to
// three characters, or a whole number (decimal, or hex) as the character
// it codes.
func spelledBy(item string) (string, bool) {
	if l, ok := expressions.ReadLiteral(item, 0); ok {
		if l.End != len(item) || !l.Known || l.Value == "" || utf8.RuneCountInString(l.Value) > 3 {
			return "", false
		}
		return l.Value, true
	}
	n, err := strconv.ParseInt(item, 0, 32)
	if err != nil || n < 0 || n > utf8.MaxRune || strings.HasPrefix(item, "0") && len(item) > 1 && item[1] != 'x' {
		return "", false
	}
	return string(rune(n)), true
}

// displayItems are the items of a list's or a tuple's display, as shown,
// up to the first that is no literal nor number (a nested display, an
// object's repr) or the cut of a long one (...).
func displayItems(display string) []string {
	if len(display) < 2 || !(display[0] == '[' && display[len(display)-1] == ']' || display[0] == '(' && display[len(display)-1] == ')') {
		return nil
	}
	var out []string
	inner := display[1 : len(display)-1]
	for i := 0; i < len(inner); {
		for i < len(inner) && inner[i] == ' ' {
			i++
		}
		j := i
		if l, ok := expressions.ReadLiteral(inner, i); ok {
			j = l.End
		} else {
			for j < len(inner) && inner[j] != ',' && inner[j] != ' ' {
				j++
			}
		}
		if j == i {
			break
		}
		out = append(out, inner[i:j])
		for j < len(inner) && inner[j] == ' ' {
			j++
		}
		if j < len(inner) && inner[j] != ',' {
			break
		}
		i = j + 1
	}
	return out
}

// itemValues are the values of a listing's rows of items (itemName: named
// by their index), in order.
func itemValues(children sdk.Value) []string {
	var out []string
	for _, c := range children.Elements() {
		if itemName(c.Get("name")) {
			out = append(out, c.Get("value").Str())
		}
	}
	return out
}

// learnValues hands the host the values of the attributes below an
// object named for a secret whose names say they hold its value
// (secrets.HoldsValue: key, value, data, pin ...), at any depth: an alias
// of e.credentials.key, or of a cookie's value under a jar's _cookies, was
// shown in clear (found 2026-12-06). The others (user, host, domain) say
// who and where, and are not learned: learned, a user's name masked every
// text it is in.
func learnValues(children sdk.Value) {
	for _, c := range children.Elements() {
		name := c.Get("name").Str()
		if identifier(name) && secrets.HoldsValue(name) {
			shown := c.Get("value").Str()
			if l, ok := expressions.ReadLiteral(shown, 0); !ok || !strings.Contains(shown[l.BodyStart:l.BodyEnd], "...") {
				rememberShown(shown)
			}
			learnContainer(shown)
		}
		learnValues(c.Get("children"))
	}
}

// item reports whether name is how debugpy names an item of a container:
// an index or a set item's id (digits), a key's repr ('k', b'k', 1.5, -1,
// (1, 2)). Not an attribute, not debugpy's own rows (len(), the "Unable to
// handle:" note past a container's 500th item, its groups of special or
// protected variables).
func item(name string) bool {
	if name == "" {
		return false
	}
	switch c := name[0]; {
	case c >= '0' && c <= '9', c == '-', c == '\'', c == '"', c == '(':
		return true
	case c == 'b' || c == 'B':
		return len(name) > 1 && (name[1] == '\'' || name[1] == '"')
	}
	return false
}

// maskText masks the secrets in a text: as values of pairs and of
// assignments, in tables, by their shapes, in credential files' lines, in
// command lines' options and in calls' arguments. The masks that find a
// value by a secret's name are not run on a text that names none (one
// scan, where each scanned it: most strings of a large listing name none);
// FuzzMaskNamedNeedsAName checks that they find nothing there. A text
// with a terminal's escape sequences is read again without them (ansi.go).
// The secrets it finds are handed to the host (remember).
func maskText(s string, extra map[string]bool) (string, bool) { return maskTextTo(s, extra, remember) }

// maskTextTo is maskText, the secrets it finds handed to found: every
// mask it runs hands them to found, and to nothing else (judgedTexts).
func maskTextTo(s string, extra map[string]bool, found func(string)) (string, bool) {
	s, changed := maskOnce(s, extra, found)
	if strings.IndexByte(s, 0x1b) >= 0 {
		if plain, at := withoutEscapes(s); len(plain) < len(s) {
			if masked, ok := maskOnce(plain, extra, found); ok {
				return withEscapes(s, plain, masked, at), true
			}
		}
	}
	return s, changed
}

// maskOnce is maskText's reading of s as it is.
func maskOnce(s string, extra map[string]bool, found func(string)) (string, bool) {
	var named bool
	if codeGrant(s) { // a token request's body: its code is the credential (oauth.go)
		extra = withNames(extra, "code")
	}
	extra = withKeyNames(s, extra) // a JSON Web Key's and a PyCryptodome key's private members, a Kubernetes Secret's data (privatekeys.go)
	fileValues := credentialValues(s)
	mentions := secrets.Mentions(s, extra)
	if mentions {
		s, named = maskNamedAt(s, extra, found, nestedDepth)
	} else {
		var summary, secure bool
		if strings.Contains(s, "FAILED ") {
			s, summary = maskAssertions(s, extra, found) // pytest's summary, read without the blocks it sums up
		}
		if strings.Contains(s, "SecureString") || strings.Contains(s, "Cookie") || strings.Contains(s, "<Morsel: ") {
			s, secure = maskRecords(s, extra, found) // a parameter store's record, a cookie: under any name
		}
		named = summary || secure
	}
	s, shapes := maskShapes(s, found)
	s, files := maskCredentialLinesAfter(s, fileValues, found)
	s, commands := maskCommands(s, found)
	var codes bool
	if strings.Contains(s, "code=") {
		s, codes = maskQueryCodes(s, found) // OAuth's ?code=
	}
	s, calls := maskCalls(s, found)
	var identified bool
	if mentions || strings.Contains(s, "DENTIFIED") || strings.Contains(s, "dentified") {
		s, identified = maskIdentified(s, found) // SET PASSWORD names a secret; IDENTIFIED BY need not
	}
	var login, smtp bool
	if strings.Contains(s, " LOGIN ") {
		s, login = maskIMAPLogin(s, found)
	}
	if strings.Contains(s, "AUTH ") && strings.Contains(s, "send: ") {
		s, smtp = maskSMTPAuth(s, found)
	}
	s, phrases := maskSeedPhrases(s, found) // a wallet's seed phrase, under any name (seedphrase.go)
	var pickled bool
	if mayHoldPickle(s) {
		s, pickled = maskPickles(s, extra, found) // a pickle's values under secrets' names (pickle.go)
	}
	var rsaKeys, dsaKeys bool
	if strings.Contains(s, "PrivateKey(") {
		s, rsaKeys = maskPythonRSAKeys(s, found) // python-rsa's PrivateKey(n, e, d, p, q) (privatekeys.go)
	}
	if strings.Contains(s, "'x': Integer(") {
		s, dsaKeys = maskDSAKeys(s, found) // PyCryptodome's DsaKey's dict of numbers
	}
	var wire bool
	if mayNameWire(s) {
		s, wire = maskWire(s, found) // AUTH default PASSWORD, NickServ's IDENTIFY, under no name (wire.go)
	}
	return s, named || shapes || files || commands || codes || calls || identified || login || smtp || wire || rsaKeys || dsaKeys || phrases || pickled
}

// credentialValues reads the values of a text's credential files' lines
// (maskCredentialLines) on the text as it is, before any mask. A reading
// of lines as a table's took two .netrc lines for a header and a row,
// masked the second's "password" keyword, and left its value to no
// reading (found 2026-12-06); masked first, these values would move a
// table's columns instead ("password city" read as a .netrc pair). So they
// are read first and masked last (maskCredentialLinesAfter).
func credentialValues(s string) []string {
	var values []string
	eachCredential(s, func(vs, ve int) {
		// As the host learns a secret: one of fewer than 4 characters
		// (password a) would mask that word everywhere (a.com).
		if utf8.RuneCountInString(s[vs:ve]) >= 4 {
			values = append(values, s[vs:ve])
		}
	})
	return values
}

// maskCredentialLinesAfter masks the credential files' lines of s, and
// the values read from them before the masks between (credentialValues)
// wherever those masks left them; and the lines of a string literal's
// value, a file's text as a listing shows it (its line ends escaped: a
// .pgpass file read into a variable names no secret, and its repr's one
// line held no .pgpass line).
func maskCredentialLinesAfter(s string, values []string, found func(string)) (string, bool) {
	s, lines := maskCredentialLines(s, found)
	s, left := maskWords(s, values, found)
	s, inStrings := maskInStrings(s, maskCredentialLines, found, nestedDepth)
	return s, lines || left || inStrings
}

// maskWords masks each of values where it stands in s as a word of its own
// (no letter, digit or '_' against either end that is one), and hands
// each it masks to found.
func maskWords(s string, values []string, found func(string)) (string, bool) {
	var spans [][2]int
	for _, v := range values {
		if v == "" || v == mask {
			continue
		}
		for from := 0; ; {
			i := strings.Index(s[from:], v)
			if i < 0 {
				break
			}
			start, end := from+i, from+i+len(v)
			from = start + 1
			if start > 0 && isWord(v[0]) && isWord(s[start-1]) || end < len(s) && isWord(v[len(v)-1]) && isWord(s[end]) {
				continue
			}
			spans = append(spans, [2]int{start, end})
			if found != nil {
				found(v)
			}
		}
	}
	if spans == nil {
		return s, false
	}
	return writeSpans(s, spans, found), true
}

// maskNamedAt is maskNamed for a text depth strings deep (maskNested).
func maskNamedAt(s string, extra map[string]bool, found func(string), depth int) (string, bool) {
	s, aligned := maskAligned(s, extra, found) // first: another mask may take a header's cell for a value
	s, rows := maskTableRows(s, extra, found)  // and a row's cell: a value with pw= in it is a pair's to maskPairs
	s, nested := maskNested(s, extra, found, depth)
	s, elements := maskElements(s, extra, found) // before the pairs: <password ...> is no pair's key
	s, pairs := maskPairs(s, extra, found)
	s, listed := maskKeyValues(s, extra, found)
	s, assigned := maskAssignments(s, extra, found)
	s, tables := maskTables(s, extra, found)
	s, htmlTables := maskHTMLTables(s, extra, found)
	s, asserted := maskAssertions(s, extra, found)
	s, inserted := maskSQL(s, extra, found)
	s, records := maskRecords(s, extra, found)
	return s, aligned || rows || nested || elements || pairs || listed || assigned || tables || htmlTables || asserted || inserted || records
}

// lastName is the last identifier of an expression such as user.password.
func lastName(e string) string {
	e = strings.TrimRight(strings.TrimSpace(e), "'\"])")
	i := strings.LastIndexAny(e, ".['\" ")
	return e[i+1:]
}

// sourceMasked masks a debugpy_source result's lines read together as
// Python and as text (maskSourceLines), alone and with the file's lines
// above them (before, the host's derived.before): lines shown from inside
// a value assigned over lines, a private key block in a string, a YAML
// key's block or a table's rows showed it all, a window at a time, when
// no line of the window said what they were (found 2026-12-07). The
// window is read alone too, for what it shows of itself: the text above
// is cut at 32 KiB, where a string may seem to begin that does not. A
// line that each reading masks its own way is masked whole.
func sourceMasked(res, before sdk.Value, extra map[string]bool, n *int) sdk.Value {
	lines := res.Get("lines").Elements()
	texts := make([]string, len(lines))
	for i, l := range lines {
		texts[i] = l.Get("text").Str()
		if strings.ContainsAny(texts[i], "\n\r") {
			return res // not lines of a file: left to the line masks
		}
	}
	joined := strings.Join(texts, "\n")
	after, changed := maskSourceLines(joined, len(texts), extra)
	if above := sourceAbove(before); above != "" {
		masked, ok := maskSourceText(above+joined, extra)
		if ok {
			// the window's lines: past as many line ends as above has (every mask keeps them)
			for range strings.Count(above, "\n") {
				masked = masked[strings.IndexByte(masked, '\n')+1:]
			}
			with := strings.Split(masked, "\n")
			if len(with) != len(texts) { // cannot happen, as in maskSourceLines
				with = slices.Repeat([]string{mask}, len(texts))
			}
			for i, w := range with { // after is maskSourceLines' own
				switch {
				case w == texts[i] || w == after[i]:
				case after[i] == texts[i]:
					after[i] = w
				default:
					after[i] = mask
				}
			}
			changed = true
		}
	}
	if !changed {
		return res
	}
	out := make([]sdk.Value, len(lines))
	for i, l := range lines {
		out[i] = l
		if after[i] == texts[i] {
			continue
		}
		*n++
		out[i].Set("text", sdk.StringValue(after[i]))
	}
	res.Set("lines", sdk.ArrayValue(out...))
	return res
}

// sourceAbove is the text of a debugpy_source's derived.before: the file's
// lines above those shown, each ended by a newline ("" when none).
func sourceAbove(before sdk.Value) string {
	for _, b := range before.Elements() {
		if b.Get("category").Str() == abi.BeforeSource {
			if t := b.Get("text").Str(); strings.HasSuffix(t, "\n") {
				return t
			}
		}
	}
	return ""
}

// maskSourceLines masks the n lines of a file joined (by "\n") read
// together (maskSourceText), and splits them again: each comes back masked
// where it holds a secret.
func maskSourceLines(joined string, n int, extra map[string]bool) ([]string, bool) {
	masked, changed := maskSourceText(joined, extra)
	after := strings.Split(masked, "\n")
	if len(after) != n {
		// Cannot happen (every mask keeps line ends); were it to, every
		// line is masked rather than one shown unmasked.
		after = slices.Repeat([]string{mask}, n)
	}
	return after, changed
}

// maskSourceText masks lines of a file joined, read together: Python's
// assignments over lines, a dict's or a list's values on the lines below
// its secret's key, a YAML key's block, a table's rows under its header (a
// CSV file's), and the credentials of a well-known shape over lines. Every
// mask keeps the text's line ends.
func maskSourceText(joined string, extra map[string]bool) (string, bool) {
	extra = withKeyNames(joined, extra) // a JWK or a Kubernetes Secret in a file, its members on lines of their own
	masked, aligned := maskAligned(joined, extra, remember)
	masked, changed := maskSource(masked, extra, remember)
	masked, pairs := maskPairs(masked, extra, remember)
	masked, assigned := maskAssignments(masked, extra, remember)
	masked, tables := maskTables(masked, extra, remember)
	masked, calls := maskCalls(masked, remember) // a call's arguments over lines
	masked, htmlTables := maskHTMLTables(masked, extra, remember)
	// A PEM or PGP private key block in a file (a test's fixture, a
	// settings module) had its BEGIN line masked and its key's lines
	// shown, each read alone (found 2026-12-06).
	masked, shapes := maskShapes(masked, remember)
	return masked, changed || pairs || assigned || tables || aligned || calls || htmlTables || shapes
}
