package redact

import (
	"strings"

	"github.com/debugpy-guard/debugpy-guard/policies/expressions"
	"github.com/debugpy-guard/debugpy-guard/policies/secrets"
)

// maskPairs masks, in any text, the value of each pair whose key is a
// secret's name, reading the text's strings as Python reads a literal
// (expressions.ReadLiteral: any quote, prefix or escape), so that the reprs
// Python writes are read as Python wrote them:
//
//	a dict's       {'db_password': 's3cr3t'}, {b'api_key': b'k1'}, {"pin": 1234}
//	a keyword's    Config(user='bob', password='s3cr3t'): dataclasses,
//	               namedtuples, attrs, SimpleNamespace, argparse, pydantic
//	a pair's       OrderedDict([('password', 's3cr3t')]), headers.items()
//	an item's      settings['password'] = 's3cr3t', os.environ["API_KEY"] = "k1"
//	an element's   <password>s3cr3t</password>, and its elements' text:
//	               <password><primary>s3cr3t</primary></password>
//	a flag's       --token s3cr3t (and --token=s3cr3t, a keyword's), and in
//	               a command line's list: ['app.py', '--token', 's3cr3t'] (sys.argv)
//	a scheme's     Authorization: Bearer s3cr3t, Basic dXNlcjpwYXNz
//
// A value is a string literal (its body is masked; one the debugger cut
// short, to the end of its line), a word with a digit in it (a number, a
// bare token: <Conn password=hunter2>), or the string a call wraps
// (Secret('s3cr3t')). A word of letters alone is left: in code it is a name
// (connect(password=pw)). Each value masked is handed to found.
//
// A pair is looked for from every quote and word of each line, not only
// where a reading of the whole text says a token starts: text that is not
// Python (prose's apostrophes, a Windows path's 'C:\') would otherwise
// shift the reading off the pair. TestMaskReprs checks it against the
// reprs CPython writes, FuzzMaskPairs against any text before a pair.
func maskPairs(s string, extra map[string]bool, found func(string)) (string, bool) {
	h := hidden{s: s, found: found} // what to mask
	hide := h.hide
	// A container under a secret's name is read to its closing bracket,
	// past its key's line: json.dumps(indent=2) and pprint put its values
	// on lines of their own. covered is where the last one read ended (the
	// strings of a container inside it were hidden with it).
	full, covered := scanner{s: s}, 0
	// over reads a value past its line: one for the text, so that its
	// literals' ends are found once (a scanner a pair read them again, a
	// text's length a pair: 10,000 pairs on a line took seconds), its
	// record of quotes that open none forgotten at each use (that is a
	// line's, and a use may start on any line).
	var overText scanner
	over := func() *scanner {
		if overText.s == "" {
			overText.s = s
		}
		overText.opensNo = [2]int{}
		return &overText
	}
	headers := 0 // where the last cookie header hidden ended
	for line := 0; line < len(s); {
		end := line + strings.IndexAny(s[line:], "\n\r")
		if end < line {
			end = len(s)
		}
		if !secrets.Mentions(s[line:end], extra) { // most lines of a long text
			line = end + 1
			continue
		}
		sc := scanner{s: s[:end]} // no literal runs past its line
		for i := line; i < end; i++ {
			c := s[i]
			switch {
			case c == '(': // ('password', 'value')
				k, ok := sc.next(i + 1)
				if !ok || k.kind != 's' {
					continue
				}
				if !secretKey(s, k, extra) {
					tupleKey(s[:end], &sc, k, extra, hide, found)
					continue
				}
				// The value may be on the next line, and in pieces over
				// lines, as pprint writes a long one: [('password',\n  'a '\n  'b')].
				over := over()
				if comma, ok := over.nextOver(k.end); ok && comma.kind == ',' {
					if v, ok := over.nextOver(comma.end); ok && v.kind == 's' {
						last := over.run(v, nil, nil)
						if close, ok := over.nextOver(last); ok && close.kind == ')' && !dtypeField(s, i, literalValue(s, v)) {
							over.opensNo = [2]int{}
							over.run(v, hide, found)
						}
					}
				}
			case c == ',': // a call's last two arguments: parser.set('db', 'password', 'value'), r.hset(key, 'password', 'value')
				k, ok := sc.next(i + 1)
				if !ok || k.kind != 's' || !secretKey(s, k, extra) {
					continue
				}
				if comma, ok := sc.next(k.end); ok && comma.kind == ',' {
					if v, ok := sc.next(comma.end); ok && v.kind == 's' {
						if close, ok := sc.next(v.end); ok && close.kind == ')' && notNameOnly(literalValue(s, v)) {
							sc.hideValue(v, hide, found)
						}
					}
				}
			case c == '\'' || c == '"' || isWordByte(c) && (i == line || !isWordByte(s[i-1])):
				k, ok := sc.next(i)
				if !ok || k.kind != 's' && k.kind != 'w' {
					continue
				}
				if k.kind == 'w' {
					k.end = motDePasse(s[:end], k) // French's password, three words
					k.end = keyAfter(s[:end], k)   // API key, access key: two words
				}
				if k.kind == 'w' && scheme(s[k.start:k.end]) { // Authorization: Bearer TOKEN
					v := k.end + run(s[:end], k.end, isBlank)
					n := run(s[:end], v, isToken68)
					n += run(s[:end], v+n, func(c byte) bool { return c == '=' })
					if n > 0 && s[v+n-1] == '.' { // a sentence's end: the token rotated.
						n--
					}
					if v > k.end && v+n < end && !isSpace(s[v+n]) && strings.IndexByte("'\",;)]}>.\\", s[v+n]) < 0 {
						// Not an HTTP credential (token S3cr&t): a word of
						// prose, to its blank. (A backslash ends one: a
						// repr's \r\n after it.)
						n = 0
					}
					if v > k.end && n > 0 && credential(s[v:v+n]) {
						hide(v, v+n)
						continue
					}
				}
				if !secretKey(s, k, extra) {
					continue
				}
				sep, ok := sc.next(k.end)
				if ok && sep.kind == ':' && k.kind == 'w' && k.start > 0 && s[k.start-1] == '<' && strings.HasSuffix(s[k.start:k.end], "Cookie") {
					continue // <SimpleCookie: sid='VALUE'>, a repr: not a log's line; records.go's cookieReprs reads it
				}
				if ok && sep.kind == '=' && sep.end < end && s[sep.end] == '>' { // Ruby's, Perl's and PHP's 'password' => 'VALUE'
					if v, ok := sc.next(sep.end + 1); ok && v.kind == 'q' {
						// a string over lines (Data::Dumper's 'a\nb' as
						// written): to its quote, a backslash escaping
						e := escapedQuoteEnd(s, v.start)
						if s[e-1] == s[v.start] && e-1 > v.start {
							e-- // its quote stays
						}
						if e > v.end {
							hide(v.end, e)
						}
					} else if ok {
						sc.hideValue(v, hide, found)
					}
					continue
				}
				switch {
				case !ok:
				case sep.kind == '=' && k.kind == 'w' && separatorsOnly(s[:end], sep.end):
					// A word inside a string, its '=' the string's last
					// byte ("...PSk4IGM=", "conn": a base64 value's
					// padding): the quote after it closes that string, and
					// what stands to the next quote is a JSON's or a
					// repr's separator, no value (it masked ", ").
				case sep.kind == ':' && k.kind == 's' || sep.kind == '=' && k.kind == 'w' && lone(s, sep):
					v, ok := sc.next(sep.end)
					if !ok && sep.kind == ':' { // its value on the next line: {'password':\n 'x'}, as a hand or black writes a long one
						v, ok = over().nextOver(sep.end)
						ok = ok && (v.kind == 's' || v.kind == '{' || (v.kind == '[' || v.kind == '(') && credentialSequence(keyName(s, k)))
					}
					if ok {
						if v.kind == '{' || (v.kind == '[' || v.kind == '(') && credentialSequence(keyName(s, k)) {
							if v.start >= covered {
								covered = full.hideStrings(v, hide, found)
							}
						} else if v.kind == 's' { // with its pieces over the lines below
							over().run(v, hide, found)
						} else {
							sc.hideValue(v, hide, found)
						}
					}
				case k.kind == 'w' && sep.kind == ':' && hideHeader(s[:end], k, sep, hide, found):
					// 'X-Api-Key: VALUE': a header's line as a string of its
					// own (curl's -H, a list of headers), to its end.
				case k.kind == 'w' && (sep.kind == ':' || sep.kind == 's' && sep.start > k.end):
					// invalid password: 'VALUE' (an exception's text, a
					// JavaScript object), password 'VALUE' rejected: a
					// string literal after a secret's name.
					v := sep
					if sep.kind == ':' {
						v, ok = sc.next(sep.end)
						if ok && v.kind == 'w' && v.start == sep.end && strings.Trim(s[v.start:v.end], "*") == "" {
							v, ok = sc.next(v.end) // Markdown's **Password:** VALUE: its emphasis closed after the colon
						}
					}
					if ok && v.kind == 's' {
						over().run(v, hide, found)
					} else if ok && v.kind == 'w' && sep.kind == ':' && strings.EqualFold(s[k.start:k.end], "cookie") {
						// header: Set-Cookie: sid=VALUE; Path=/ (http.client's
						// debug lines): its pairs, to the line's end or the
						// repr's.
						if v.start >= headers { // not inside the header hidden before: a line of many is read once
							headers = cookieHeaderEnd(s[:end], v.start)
							hide(v.start, headers)
						}
					} else if ok && v.kind == 'w' && sep.kind == ':' {
						// INFO Generated password: VALUE for ada (a log's
						// line; at a line's start maskKeyValues reads it).
						// A word of letters alone (correcthorse) is masked
						// too, but not learned, and not when it reads as a
						// state (required, None, KeyError).
						hideWord(s, v, loggedValue, hide)
						if holdsWord(s[k.start:k.end]) {
							hideWord(s, v, lettersValue, func(from, to int) { h.spans = append(h.spans, [2]int{from, to}) })
						}
					}
				case k.kind == 'w' && sep.kind == 'w' && sep.start > k.end && (k.start == line || isBlank(s[k.start-1]) || strings.IndexByte(":([{'\"", s[k.start-1]) >= 0):
					// created user ada with password VALUE: in prose (the
					// name a word of its own: not --password, nor a
					// value's =libpqSecretValue), a word of 8 bytes or more
					// with a digit or a symbol; and after a verb (the
					// password is VALUE, of ada was reset to "VALUE"),
					// that or a string literal.
					if from, to, ok := promptAnswer(s, line, end, &sc, k, sep); ok {
						// Password for 'https://ada@host': VALUE (a prompt and
						// what was typed, as pexpect's log shows them): to the
						// line's end; learned when it reads as a credential.
						if to > from {
							h.spans = append(h.spans, [2]int{from, to})
							if found != nil && credential(s[from:to]) {
								found(s[from:to])
							}
						}
						continue
					}
					v, verbs := sep, 0
					for ; verbs < 6 && v.kind == 'w'; verbs++ {
						w := strings.ToLower(s[v.start:v.end])
						if !proseVerbs[w] && !whose[w] {
							break
						}
						next, ok := sc.next(v.end)
						if ok && whose[w] && (next.kind == 'w' || next.kind == 's') && next.start > v.end { // of ada, for 'app': whose
							next, ok = sc.next(next.end)
						}
						if !ok || next.start == v.end {
							break
						}
						v = next
					}
					if v.kind == 's' && verbs > 0 {
						over().run(v, hide, found)
					} else if v.kind == 'w' {
						hideWord(s, v, credential, hide)
					}
				case sep.kind == ']' && k.kind == 's': // settings['password'] = VALUE
					if eq, ok := sc.next(sep.end); ok && eq.kind == '=' && lone(s, eq) {
						if v, ok := sc.next(eq.end); ok {
							sc.hideValue(v, hide, found)
						}
					}
				case k.kind == 'w' && k.start > 0 && s[k.start-1] == '-' && sep.start > k.end && (sep.kind == 'w' || sep.kind == 's'): // --token VALUE
					sc.hideValue(sep, hide, found)
				case sep.kind == ',' && k.kind == 's' && isFlag(literalValue(s, k)): // ['--token', VALUE]: a command line's list (sys.argv)
					if v, ok := sc.next(sep.end); ok && v.kind == 's' {
						sc.hideValue(v, hide, found)
					}
				}
			}
		}
		line = end + 1
	}
	// Spans found from different starts may nest or repeat: masked merges them.
	return h.masked()
}

// tupleKey masks the value of a dict's key that is a tuple of strings,
// the last of which names a secret: {('db', 'password'): '...'}, as a
// program keys its options by section (found 2026-12-08: shown in clear).
// k is the tuple's first string.
func tupleKey(s string, sc *scanner, k piece, extra map[string]bool, hide func(from, to int), found func(string)) {
	last := k
	for {
		p, ok := sc.next(last.end)
		if !ok {
			return
		}
		switch p.kind {
		case ',':
			n, ok := sc.next(p.end)
			if ok && n.kind == 's' {
				last = n
				continue
			}
			if !ok || n.kind != ')' {
				return
			}
			p = n // a trailing comma
		case ')':
		default:
			return
		}
		if last == k || !secretKey(s, last, extra) {
			return
		}
		if colon, ok := sc.next(p.end); ok && colon.kind == ':' {
			if v, ok := sc.next(colon.end); ok {
				sc.hideValue(v, hide, found)
			}
		}
		return
	}
}

// dtypeField: the tuple at s[i] whose second string is v is a field of a
// NumPy dtype, ('password', '<U20'), not a pair: v is a type's code
// (dtypeCode) and the tuple is in a dtype=[...] (an array's repr) or a
// dtype([...]) (its own).
func dtypeField(s string, i int, v string) bool {
	if !dtypeCode(v) {
		return false
	}
	before := s[max(0, i-maxDtype):i] // bounded: a text of many pairs is read once, not once a pair
	d := max(strings.LastIndex(before, "dtype=["), strings.LastIndex(before, "dtype(["))
	return d >= 0 && strings.IndexByte(before[d:], ']') < 0
}

// maxDtype bounds how far back dtypeField looks for its dtype's start:
// a dtype of a hundred fields.
const maxDtype = 4096

// dtypeCode: v is a NumPy type's code, as its dtype writes it beside a
// field's name: a byte order, a kind, a size, a unit (<U20, |S8,
// <M8[ns]). A dtype's fields are listed without their dtype too (descr:
// [('password', '<U20')], fields: {'password': (dtype('<U20'), 40)}), and
// under a field's name a code was masked and learned, and masked in every
// array of strings after (found 2026-12-08): none is learned (remember),
// and a dtype's own repr masks none (dtypeField). The field's values are
// in the array's rows (tables.go).
func dtypeCode(v string) bool {
	if len(v) < 3 || len(v) > 16 || strings.IndexByte("<>|=", v[0]) < 0 {
		return false
	}
	v = v[1:]
	if !strings.ContainsRune("?bBhHiIlLqQpPefdgFDGSUVOMmacu", rune(v[0])) {
		return false
	}
	v = v[1:]
	if u := strings.IndexByte(v, '['); u >= 0 && strings.HasSuffix(v, "]") {
		v = v[:u]
	}
	return v != "" && strings.Trim(v, "0123456789") == ""
}

// maxHeader bounds a cookie header's pairs read: 64 KB, past any server's
// limit on a header's line.
const maxHeader = 65536

// cookieHeaderEnd is where a Cookie or Set-Cookie header's pairs that
// start at s[i] end: at the line's end, at a repr's (its \r\n), at the
// quote that closes the string they are in (openQuote), or maxHeader
// bytes on. A quote inside, in a value as a server may write it
// (sid=ab'cd) or quoted (sid="a/b==", as http.cookies writes one), does
// not end it (records.go's cookieValueEnd): the mask stopped there and
// showed the rest of the value (found 2026-12-08).
func cookieHeaderEnd(s string, i int) int {
	s = s[:min(len(s), i+maxHeader)]
	q := openQuote(s, i)
	for e := i; e < len(s); e++ {
		switch c := s[e]; c {
		case '"', '\'':
			if c == '"' && e > i && s[e-1] == '=' {
				e = cookieValueEnd(s, e) - 1
			} else if c == q && endsRepr(s, e+1, afterQuote) {
				return e
			}
		case '\\':
			if e+1 < len(s) && (s[e+1] == 'r' || s[e+1] == 'n') {
				return e // a repr's line end
			}
			e++ // a repr's escape (of a quote), or a backslash of the value's
		case '\r', '\n':
			return e
		}
	}
	return len(s)
}

// hideHeader masks the value of a string that is a header's line whose
// name is the word k (the string starts with it; sep is its colon), to
// the string's end, and reports whether k starts such a string.
func hideHeader(s string, k, sep piece, hide func(from, to int), found func(string)) bool {
	if k.start == 0 || quoteAt(s, k.start-1) < 0 {
		return false
	}
	l, ok := expressions.ReadLiteral(s, k.start-1)
	if !ok || l.BodyStart != k.start || sep.end >= l.BodyEnd {
		return false
	}
	vs := sep.end + run(s, sep.end, isBlank)
	if vs >= l.BodyEnd {
		return false
	}
	hide(vs, l.BodyEnd) // handed over as written; and decoded:
	if c := strings.IndexByte(l.Value, ':'); found != nil && l.Known && c >= 0 {
		if v := strings.TrimLeft(l.Value[c+1:], " \t"); v != s[vs:l.BodyEnd] {
			found(v)
		}
	}
	return true
}

// proseVerbs stand between a secret's name and its value in prose: the
// password is VALUE, was reset to VALUE, has been changed to VALUE.
var proseVerbs = map[string]bool{"is": true, "was": true, "are": true, "were": true, "now": true, "set": true, "reset": true,
	"changed": true, "updated": true, "to": true, "has": true, "been": true, "will": true, "be": true, "becomes": true, "became": true,
	// French: le mot de passe est VALUE, a été changé en VALUE
	"est": true, "était": true, "sera": true, "a": true, "été": true, "changé": true, "en": true}

// promptAnswer reads a prompt for a secret and its answer on the line
// s[line:end]: the name k, "for" (sep), whose it is in at most six pieces
// (ada, user postgres, 'https://ada@github.com', key '/root/.ssh/id_rsa'),
// a colon, then the answer, to the line's end or a repr's escaped line end
// (a quote that closes one opened before the name stays). ok says it is a
// prompt; from == to when no answer follows it.
func promptAnswer(s string, line, end int, sc *scanner, k, sep piece) (from, to int, ok bool) {
	if !strings.EqualFold(s[sep.start:sep.end], "for") {
		return 0, 0, false
	}
	p := sep
	for n := 0; n < 7; n++ {
		if p, ok = sc.next(p.end); !ok || p.kind == ':' {
			break
		}
		if w := strings.ToLower(s[p.start:p.end]); p.kind == 'w' && proseVerbs[w] && w != "a" && w != "en" { // not French's a and en, an article and a preposition in English
			return 0, 0, false // the password for ada is required: a sentence
		}
	}
	if !ok || p.kind != ':' {
		return 0, 0, false
	}
	from = p.end + run(s[:end], p.end, isBlank)
	to = from
	for to < end && !(s[to] == '\\' && to+1 < end && (s[to+1] == 'r' || s[to+1] == 'n')) {
		to++
	}
	for to > from && isSpace(s[to-1]) {
		to--
	}
	if to > from && (s[to-1] == '\'' || s[to-1] == '"') && strings.IndexByte(s[line:k.start], s[to-1]) >= 0 {
		to--
	}
	return from, to, true
}

// whose are the words before whose secret a sentence names: of ada, for
// 'app', de ada, pour ada.
var whose = map[string]bool{"of": true, "for": true, "de": true, "pour": true}

// motDePasse is where the name that starts with the word k ends: after
// French's "mot de passe" (a blank or a no-break space between its words,
// any case), which IsName reads as a secret's name, mot_de_passe; or at
// k's end.
func motDePasse(s string, k piece) int {
	if k.end-k.start != 3 || !strings.EqualFold(s[k.start:k.end], "mot") {
		return k.end
	}
	i := k.end
	for _, w := range []string{"de", "passe"} {
		switch {
		case strings.HasPrefix(s[i:], " "):
			i++
		case strings.HasPrefix(s[i:], "\u00a0"):
			i += len("\u00a0")
		default:
			return k.end
		}
		if len(s)-i < len(w) || !strings.EqualFold(s[i:i+len(w)], w) {
			return k.end
		}
		i += len(w)
	}
	if i < len(s) && isWordByte(s[i]) {
		return k.end
	}
	return i
}

// keyAfter is where the name that starts with the word k ends: after a
// blank and the word key, when one follows (API key, Access Key, secret
// key, as a page or a message writes a name IsName reads joined,
// api_key); or at k's end. (API key: VALUE showed its value: key alone
// names no secret, found 2026-12-08.)
func keyAfter(s string, k piece) int {
	i := k.end
	if i+4 > len(s) || s[i] != ' ' || !strings.EqualFold(s[i+1:i+4], "key") || i+4 < len(s) && isWordByte(s[i+4]) {
		return k.end
	}
	return i + 4
}

// hideWord masks the word that starts v, to a blank or a quote (a
// symbol such as & ends no value here), without one mark of punctuation
// or closing bracket that may end a sentence, a list or a parenthesis
// after it, when ok says it is a value.
func hideWord(s string, v piece, ok func(string) bool, hide func(from, to int)) {
	end := v.start
	for end < len(s) && !isSpace(s[end]) && s[end] != '\'' && s[end] != '"' {
		end++
	}
	if end > v.start && strings.IndexByte(".,;:!?)]}>", s[end-1]) >= 0 {
		end--
	}
	if eq := strings.IndexByte(s[v.start:end], '='); eq >= 0 && strings.Trim(s[v.start+eq:end], "=") != "" {
		return // dbname=orders: a pair, not a value (base64's = at the end is)
	}
	if end > v.start && ok(s[v.start:end]) {
		hide(v.start, end)
	}
}

// loggedValue: w, after a secret's name and a colon, reads as its value:
// 4 bytes or more with a digit or a symbol. A word of letters alone is
// left (None, required, Expired, HTTPError: masked, each would be learned
// and masked in every later result).
func loggedValue(w string) bool { return len(w) >= 4 && notLettersOnly(w) }

// lettersValue: w, after a secret's name and a colon, is a value of
// letters alone (correcthorse): 4 bytes or more, no word of a state
// (stateWords: password: required) nor an exception's name (KeyError),
// nor an HTTP scheme's (Bearer).
func lettersValue(w string) bool {
	l := strings.ToLower(w)
	return len(w) >= 4 && !notLettersOnly(w) && !stateWords[l] && !strings.HasSuffix(l, "error") && !strings.HasSuffix(l, "exception") &&
		!scheme(w) // Authorization: Basic ...: the credential follows it
}

// holdsWord: a value of letters alone under name is a secret's (a
// password, a key, a token), not a method's (auth: plain).
func holdsWord(name string) bool {
	n := strings.ToLower(name)
	return strings.Contains(n, "pass") || strings.Contains(n, "secret") || strings.Contains(n, "pw") ||
		strings.Contains(n, "key") || strings.Contains(n, "token")
}

// stateWords say what a secret is, not what it holds (password: required,
// token: expired, api_key: None).
var stateWords = map[string]bool{
	"none": true, "null": true, "true": true, "false": true, "required": true, "missing": true, "invalid": true, "expired": true,
	"incorrect": true, "wrong": true, "changed": true, "reset": true, "rotated": true, "unchanged": true, "empty": true, "unset": true,
	"hidden": true, "redacted": true, "masked": true, "provided": true, "given": true, "present": true, "absent": true, "updated": true,
	"accepted": true, "rejected": true, "denied": true, "failed": true, "success": true, "valid": true, "revoked": true, "disabled": true,
	"enabled": true, "unknown": true, "blank": true, "stored": true, "saved": true, "sent": true, "generated": true, "created": true,
	"deleted": true, "removed": true, "ignored": true, "skipped": true, "pending": true, "ok": true, "yes": true, "not": true, "too": true,
	"must": true, "should": true, "cannot": true, "does": true, "needs": true, "mismatch": true, "short": true, "long": true, "weak": true,
	"strong": true, "nil": true, "undefined": true, "default": true, "same": true, "new": true, "old": true, "current": true, "none.": true,
}

// notNameOnly: v has a digit or a symbol other than '_': no column's
// name, as a tuple of them holds a secret's beside others ('id',
// 'password', 'email_address').
func notNameOnly(v string) bool {
	return notLettersOnly(strings.ReplaceAll(v, "_", ""))
}

// notLettersOnly: w has a digit or a symbol (a byte of a letter that is
// not ASCII is a letter's).
func notLettersOnly(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i] | 0x20; (c < 'a' || c > 'z') && w[i] < 0x80 {
			return true
		}
	}
	return false
}

// isFlag: v is a command line's option, -x or --name-of-it: a PEM block's
// "-----BEGIN PRIVATE KEY-----\n..." before a JSON's next key is none (the
// key was masked as the flag's value).
func isFlag(v string) bool {
	name := strings.TrimPrefix(strings.TrimPrefix(v, "-"), "-")
	if len(name) == len(v) || name == "" || !isWord(name[0]) {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !isWord(name[i]) && name[i] != '-' && name[i] != '.' {
			return false
		}
	}
	return true
}

// trimBlank is v without the blanks and line ends at its ends, as
// written or escaped in a repr (\n, \t, \r): an element's text between
// its tags as repr shows an XML string.
func trimBlank(v string) string {
	for {
		t := strings.TrimSpace(v)
		for _, e := range []string{`\n`, `\r`, `\t`} {
			t = strings.TrimSuffix(strings.TrimPrefix(t, e), e)
		}
		if t == v {
			return t
		}
		v = t
	}
}

// hideValue masks the value v of a pair: a literal's body (the host is
// handed it as written and as decoded: it masks each in its forms), a
// string cut short to the end of its line, the string a call wraps, or a
// word with a digit in it (with base64's padding after it).
func (sc *scanner) hideValue(v piece, hide func(from, to int), found func(string)) {
	s := sc.s
	lit := func(p piece) { sc.hideLiteral(p, hide, found) }
	switch v.kind {
	case 's':
		lit(v)
	case 'q':
		if v.end < len(s) {
			hide(v.end, len(s))
		}
	case 'w':
		if v.end = shellWord(s, v); v.end == v.start {
			return // a repr's line end
		}
		if _, ok := callSecret(s[v.start:v.end]); ok {
			return // auth = HTTPBasicAuth('ada', SECRET): its secret is its second (maskCalls)
		}
		if open, ok := sc.next(v.end); ok && open.kind == '(' {
			// Secret('s3cr3t'), but not os.getenv('DB_PASSWORD'): a
			// string that is itself a secret's name names one.
			if inner, ok := sc.next(open.end); ok && inner.kind == 's' && !namesSecret(literalValue(s, inner), nil) {
				lit(inner)
			}
		} else if strings.ContainsAny(s[v.start:v.end], "0123456789") {
			end := v.end // and base64's padding: AccountKey=k3y==;
			for end < len(s) && end < v.end+2 && s[end] == '=' {
				end++
			}
			if end < len(s) && (s[end] == '=' || isWordByte(s[end])) {
				end = v.end
			}
			hide(v.start, end)
			if end > v.end && found != nil {
				found(s[v.start:v.end]) // and as it may show without its padding
			}
		}
	}
}

// escapedQuoteEnd is where the string that opens at the quote s[i] ends,
// over lines, a backslash escaping the byte after it (Perl's, Ruby's and
// PHP's strings); the text's end when it does not close.
func escapedQuoteEnd(s string, i int) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case s[i]:
			return j + 1
		}
	}
	return len(s)
}

// shellWord is where the word v ends when a backslash escapes what would
// end it: the shell's quoting of a value, as printf %q and set write it
// (S3c\)r\;t\ x), or its repr (S3c\\)r): any backslashes are taken to
// escape the byte after them (a repr doubles them), but a repr's line end
// (\n, \r) ends it.
func shellWord(s string, v piece) int {
	e := v.start
	for e < len(s) {
		if s[e] != '\\' {
			if endsWord[s[e]] {
				break
			}
			e++
			continue
		}
		n := 1
		for e+n < len(s) && s[e+n] == '\\' {
			n++
		}
		if e+n < len(s) && n%2 == 1 && (s[e+n] == 'n' || s[e+n] == 'r') {
			break
		}
		e += n
		if e < len(s) && s[e] != '\n' && s[e] != '\r' {
			e++ // the byte escaped
		}
	}
	return e
}

// hideStrings masks the strings of the container that opens at v (a list,
// a tuple, a set, a dict: to any depth, but a dict's keys), the value of a
// secret's key: {'cookies': {'sessionid': '...'}}, {'api_key': {'prod':
// '...'}}. It reads sc's text to the container's closing bracket, over
// line ends, and returns where that is (the text's end when it does not
// close: a container cut short hides every string after it).
func (sc *scanner) hideStrings(v piece, hide func(from, to int), found func(string)) int {
	depth := 1
	sc.opensNo = [2]int{} // what a quote opened not is a line's (scanner)
	p, ok := sc.nextOver(v.end)
	for ; ok; p, ok = sc.nextOver(p.end) {
		switch p.kind {
		case '[', '(', '{':
			depth++
		case ']', ')', '}':
			if depth--; depth == 0 {
				return p.end
			}
		case 's':
			if n, ok := sc.next(p.end); ok && n.kind == ':' {
				continue // a dict's key names a part; it is none
			}
			sc.hideLiteral(p, hide, found)
		}
	}
	return len(sc.s)
}

// hideLiteral masks the body of the string literal p and hands found its
// value as the program holds it, when that is not as written (hide hands
// over what is written).
func (sc *scanner) hideLiteral(p piece, hide func(from, to int), found func(string)) {
	l, _ := expressions.ReadLiteral(sc.s, p.start)
	hide(l.BodyStart, l.BodyEnd)
	if l.Known && l.Value != sc.s[l.BodyStart:l.BodyEnd] && found != nil {
		found(l.Value)
	}
}

// credentialSequence reports whether a list or a tuple under name (a
// secret's) holds credentials: auth=('ada', 'pw'), {'password': ['old',
// 'new']}, {'cookies': [...]}. Not so a language model's tokens ({'tokens':
// ['hello']}). A dict or a set under a secret's name always has its strings
// masked, whatever the name: {'api_key': {'prod': '...'}} holds keys, and a
// config's block ({'password': {'min_length': 8, 'mode': 'strict'}}) shows
// its numbers and loses only its words. The listing masks such a name's row
// whole; a repr that spells the same value must not show what the row
// hides.
func credentialSequence(name string) bool {
	return !strings.Contains(strings.ToLower(name), "token")
}

// keyName is a key's name: a string key's value, or a keyword.
func keyName(s string, k piece) string {
	if k.kind == 's' {
		if l, _ := expressions.ReadLiteral(s, k.start); l.Known {
			return l.Value
		}
	}
	return s[k.start:k.end]
}

// piece is a token of a text read as a repr: a string literal ('s'), a
// word ('w': a run of anything but spaces, quotes and the punctuation
// below), a quote that opens no literal ('q'), or one punctuation byte.
type piece struct {
	kind       byte
	start, end int
}

const punctuation = "()[]{}<>,:;="

// endsWord: the bytes before which a word ends.
var endsWord = func() (t [256]bool) {
	for _, c := range []byte(punctuation + "&'\" \t\n\r") { // & ends a URL query's value
		t[c] = true
	}
	return t
}()

// scanner reads the pieces of one line (s ends with it), or of a container
// over its lines (hideStrings, which starts afresh at each line end). A
// quote that opened no literal means no later quote of its kind on the
// line does (each one after it is escaped: a scan from it sees what the
// first one's saw), so those are not read again: a line full of
// apostrophes is read once. A triple quote that opened none says nothing
// of a single one.
type scanner struct {
	s       string
	opensNo [2]int                // for ' and ": 1 + the first quote of the kind that opened no literal (0: none)
	lits    *expressions.Literals // where its literals end, from the first read on
	// the last run of word bytes read, [runFrom, runTo): a word read from
	// inside it ends where it does. maskPairs reads a word from every byte
	// after an escape, and a bytes repr's \x8c\x08... is one run: read to
	// its end each time, 170 KB of a pickle's repr took 0.8 s (found
	// 2026-12-08).
	runFrom, runTo int
}

func (sc *scanner) next(i int) (piece, bool) {
	s := sc.s
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	if i >= len(s) {
		return piece{}, false
	}
	if q := quoteAt(s, i); q >= 0 && (sc.opensNo[q] == 0 || i < sc.opensNo[q]) {
		if sc.lits == nil {
			sc.lits = expressions.NewLiterals(s, i)
		}
		if end, ok := sc.lits.End(i); ok {
			return piece{kind: 's', start: i, end: end}, true
		}
		if j := i + strings.IndexAny(s[i:], "'\""); !strings.HasPrefix(s[j:], s[j:j+1]+s[j:j+1]+s[j:j+1]) &&
			(sc.opensNo[q] == 0 || j+1 < sc.opensNo[q]) {
			// A quote that opens none: nor does any after it. But letters
			// before it that are no prefix Python reads (the bb' that ends
			// 'v\\bb') say nothing of the quote: read from it, it may open
			// one (taken for none, every quote after it on the line was
			// passed over, and a dict under a secret's name after it too,
			// found 2026-12-08).
			if _, ok := sc.lits.End(j); j == i || !ok {
				sc.opensNo[q] = j + 1
			}
		}
	}
	switch c := s[i]; {
	case c == '\'' || c == '"':
		return piece{kind: 'q', start: i, end: i + 1}, true
	case strings.IndexByte(punctuation, c) >= 0:
		return piece{kind: c, start: i, end: i + 1}, true
	}
	// A word ends before a space, a punctuation byte or a quote (a string
	// prefix, b or r, was read with its literal above).
	if sc.runFrom <= i && i < sc.runTo {
		return piece{kind: 'w', start: i, end: sc.runTo}, true
	}
	j := i + 1
	for j < len(s) && !endsWord[s[j]] {
		j++
	}
	sc.runFrom, sc.runTo = i, j
	return piece{kind: 'w', start: i, end: j}, true
}

// nextOver is next, over line ends: the text's pieces to any line (a
// container's, a value's pieces over lines). Each line's quotes are read
// afresh (what a quote opened not is a line's: scanner).
func (sc *scanner) nextOver(i int) (piece, bool) {
	for i < len(sc.s) && isSpace(sc.s[i]) {
		if sc.s[i] == '\n' || sc.s[i] == '\r' {
			sc.opensNo = [2]int{}
		}
		i++
	}
	return sc.next(i)
}

// run masks the string literal v and those that follow it with only
// blanks and line ends between (Python's implicit concatenation: pprint
// writes a long string as 'a '\n  'b'), each handed to found as hide
// does, and returns where the last ends. With hide nil it only finds
// where.
func (sc *scanner) run(v piece, hide func(from, to int), found func(string)) int {
	for {
		if hide != nil {
			sc.hideLiteral(v, hide, found)
		}
		n, ok := sc.nextOver(v.end)
		if !ok || n.kind != 's' {
			return v.end
		}
		v = n
	}
}

func isWordByte(c byte) bool { return isWord(c) || c >= 0x80 }

// quoteAt is the kind of quote (0 for ', 1 for ") at s[i], or after a
// string prefix of one or two letters at s[i]; -1 when there is none.
func quoteAt(s string, i int) int {
	for j := i; j < len(s) && j <= i+2; j++ {
		switch s[j] {
		case '\'':
			return 0
		case '"':
			return 1
		case 'r', 'R', 'b', 'B', 'u', 'U':
		default:
			return -1
		}
	}
	return -1
}

// scheme: an HTTP authorization scheme, whose credentials follow it after
// a space (Authorization: Bearer TOKEN, Basic B64), or SASL's PLAIN as SMTP
// and IMAP send it (AUTH PLAIN B64: smtplib's debug lines), upper-case.
func scheme(w string) bool {
	return strings.EqualFold(w, "bearer") || strings.EqualFold(w, "basic") || strings.EqualFold(w, "token") || w == "PLAIN"
}

// isToken68: a byte of an HTTP credential (RFC 7235's token68, but its
// trailing '=').
func isToken68(c byte) bool {
	return isB64URL(c) || c == '.' || c == '~' || c == '+' || c == '/'
}

// credential: w looks like one, not like a word of prose (Bearer of bad
// news, a refresh token HTTPError): 8 bytes or more, with a digit or a
// symbol in it. (Mixed case alone once counted: HTTPError was masked, and
// learned, and masked in every later result.)
func credential(w string) bool { return len(w) >= 8 && notLettersOnly(w) }

// secretKey: k is a string or a word that is a secret's name.
func secretKey(s string, k piece, extra map[string]bool) bool {
	if k.end-k.start > maxKey || !secrets.Mentions(s[k.start:k.end], extra) { // most keys: at once
		return false
	}
	switch k.kind {
	case 's':
		l, _ := expressions.ReadLiteral(s, k.start)
		if !l.Known { // as written, then
			return secrets.IsName(s[l.BodyStart:l.BodyEnd], extra)
		}
		return secrets.IsName(l.Value, extra)
	case 'w':
		return secrets.IsName(s[k.start:k.end], extra)
	}
	return false
}

// maxKey bounds the keys secretKey reads, quotes and escapes included: a
// name is shorter. A long repr on one line (a dict's repr in a str's repr,
// its quotes escaped) read from each of its quotes is a literal to the
// line's end from each: 1,000 quotes of an 18 KB repr took redact 266 ms
// natively, and ran a debugpy_variables result out of its module's fuel
// (found 2026-12-07).
const maxKey = 256

// separatorsOnly: a string literal opens at s[i] whose body is a
// container's separators alone (", ", ": "), or none opens there and the
// line ends in separators (",", "},"): the quote at i closes a string, and
// what follows separates it from the next.
func separatorsOnly(s string, i int) bool {
	if i >= len(s) || s[i] != '\'' && s[i] != '"' {
		return false
	}
	l, ok := expressions.ReadLiteral(s, i)
	if !ok { // none closes on the line: what follows it is its end's separator (",\n" of JSON's lines)
		return strings.Trim(s[i+1:], ",:{}[] \t") == ""
	}
	body := s[l.BodyStart:l.BodyEnd]
	return body != "" && strings.Trim(body, ",: \t") == ""
}

// lone: an '=' that is not part of ==, !=, <=, >=, := (a comparison in
// code is not a pair).
func lone(s string, p piece) bool {
	return (p.start == 0 || strings.IndexByte("=!<>:", s[p.start-1]) < 0) && (p.end >= len(s) || s[p.end] != '=')
}

// nestedDepth bounds how deep maskNested reads strings inside strings.
const nestedDepth = 6

// maskNested masks the secrets of the strings a string holds, read as
// Python decodes them: repr(repr(settings)) shows a dict's repr inside a
// str's repr, its quotes escaped, where no pair reading of the outer text
// finds its pairs; json.dumps of json.dumps likewise. It reads the
// literals of s one after another from its first quote; one that holds a
// quote or a line end and may hold a secret's name (secrets.Mentions) is
// decoded, masked by every reading of a name's value (maskNamedAt: its lines
// read as lines), its own literals too, depth levels deep (one deeper that
// may hold a secret is masked whole), and written back as repr writes it
// (internal/pyrepr). A raw literal (r'...') cannot
// be written back so: its whole body is masked.
func maskNested(s string, extra map[string]bool, found func(string), depth int) (string, bool) {
	if !strings.ContainsAny(s, `'"`) || !secrets.Mentions(s, extra) {
		return s, false
	}
	if depth == 0 {
		// Deeper than this reads: a plain value is spelled the same at
		// every level of repr, so what may hold a secret is masked whole.
		return mask, true
	}
	changed := false
	for i := 0; i < len(s); i++ {
		if s[i] != '\'' && s[i] != '"' {
			continue
		}
		start, l, ok := readString(s, 0, i)
		if !ok {
			continue
		}
		v := l.Value
		// A string with a quote in it may hold a repr; one with a line
		// end, lines: a protocol's (http.client's send: b'...\r\nCookie:
		// ...'), a table's, a file's ('user,password\nada,...', a CSV's
		// text, pandas' to_string(), an INI file read), which the lines'
		// readings read only decoded.
		if !l.Known || !strings.ContainsAny(v, "'\"\n\r") || !secrets.Mentions(v, extra) {
			i = l.End - 1
			continue
		}
		files := credentialValues(v)
		v, c1 := maskNamedAt(v, extra, found, depth-1)
		v, c2 := maskCredentialLinesAfter(v, files, found)
		if !c1 && !c2 {
			i = l.End - 1
			continue
		}
		body := writeBody(v, s[start:l.BodyStart])
		s = s[:l.BodyStart] + body + s[l.BodyEnd:]
		changed = true
		i = l.BodyStart + len(body) + (l.End - l.BodyEnd) - 1
	}
	return s, changed
}

// literalValue is the value of the literal p, decoded (as written when it
// does not decode).
func literalValue(s string, p piece) string {
	l, _ := expressions.ReadLiteral(s, p.start)
	if !l.Known {
		return s[l.BodyStart:l.BodyEnd]
	}
	return l.Value
}
