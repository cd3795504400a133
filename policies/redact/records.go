package redact

import (
	"strings"

	"github.com/debugpy-guard/debugpy-guard/plugins/sdk"
	"github.com/debugpy-guard/debugpy-guard/policies/expressions"
	"github.com/debugpy-guard/debugpy-guard/policies/secrets"
)

// A secret is often held by a record that names it in one field and holds
// it in another: a container's environment (Kubernetes' `- name:
// DB_PASSWORD` then `value: ...`; ECS's and Lambda's {"name": ..., "value":
// ...}), a parameter store's answer (boto3's SSM get_parameter: {'Name':
// '/prod/db_password', 'Type': 'SecureString', 'Value': '...'}), a
// settings option ({'OptionName': 'API_KEY', 'Value': ...}). No key there
// names a secret, so no other reading masks it.
//
// maskRecords reads the objects of a text (a dict's repr, JSON, a call's
// keywords: Parameter(Name='db_password', Value='...')) and YAML's list
// items: when a name field (name, key, ParameterName, OptionName, ...)
// holds a string that names a secret (its last part, after a / or a .:
// /prod/db_password), or the record's Type is SecureString, the value
// field's (value, ParameterValue, OptionValue, ...) value is masked and
// handed to found. So is a cookie's value (http.cookiejar's Cookie(...,
// name=..., value=...) and <Cookie NAME=VALUE for DOMAIN>, http.cookies'
// <SimpleCookie: NAME='VALUE'> and <Morsel: NAME=VALUE>), whatever its
// name.
func maskRecords(s string, extra map[string]bool, found func(string)) (string, bool) {
	h := hidden{s: s, found: found}
	hide := h.hide
	cookies := strings.Contains(s, "<Cookie ") || strings.Contains(s, "Cookie: ") || strings.Contains(s, "<Morsel: ")
	// an element's text: <entry key="db.password">...</entry>, and cut
	// short before its end tag (elementText); xmltodict's
	xml := strings.Contains(s, "</") || strings.Contains(s, "#text") || strings.Contains(s, "\">") || strings.Contains(s, "'>")
	switch {
	case !strings.Contains(s, "alue") && !cookies && !xml: // value, Value, ParameterValue, OptionValue
	case !strings.Contains(s, "ame") && !strings.Contains(s, "ey") && !strings.Contains(s, "ariable") && !strings.Contains(s, "SecureString") && !cookies:
		// no name field: name, Name, key, Key, ParameterName, variable
	default:
		objectRecords(s, extra, hide)
		if xml {
			elementPairs(s, extra, hide)
		}
		yamlRecords(s, extra, hide)
		cookieStrings(s, hide)
		cookieReprs(s, hide)
	}
	if strings.Contains(s, "form-data") {
		formFields(s, extra, hide)
	}
	return h.masked()
}

// formFields hides the values of a multipart/form-data body's fields
// named for a secret, as requests builds one and a server's log or a
// program's bytes show it (RFC 7578): the part's header line
// Content-Disposition: form-data; name="password", a blank line, then the
// value, to its line's end (CRLF, or as a repr escapes it). A file's part
// (a filename) is left. Shown in clear until 2026-12-08.
func formFields(s string, extra map[string]bool, hide func(from, to int)) {
	for from := 0; ; {
		i := strings.Index(s[from:], "form-data")
		if i < 0 {
			return
		}
		i += from
		from = i + len("form-data")
		head := s[from:min(len(s), from+512)]
		head = head[:lineEndOrEscaped(head, 0)]
		n := strings.Index(head, "name=")
		if n < 0 || strings.Contains(head, "filename") {
			continue
		}
		name := strings.TrimLeft(head[n+len("name="):], "\\\"'")
		if q := strings.IndexAny(name, "\\\"';"); q >= 0 {
			name = name[:q]
		}
		if !namesSecretPath(name, extra) {
			continue
		}
		// the value: after the blank line that ends the part's headers
		rest := s[from+len(head) : min(len(s), from+len(head)+256)] // its headers: a type's, an encoding's
		b := -1
		for _, blank := range []string{"\r\n\r\n", "\n\n", `\r\n\r\n`, `\n\n`} {
			if k := strings.Index(rest, blank); k >= 0 && (b < 0 || k < b) {
				b = k + len(blank)
			}
		}
		if b < 0 {
			continue
		}
		vs := from + len(head) + b
		ve := vs + partEnd(s[vs:min(len(s), vs+maxElement)])
		if ve > vs {
			hide(vs, ve)
			from = ve
		}
	}
}

// partEnd is where a multipart body's value that starts v ends: at the
// line end before the next part's delimiter (--boundary), as written or as
// a repr escapes it (a backslash of the value's own is escaped there:
// \\r is no line end), or, when none follows (the text cut short), at its
// line's end.
func partEnd(v string) int {
	for j := 0; j < len(v); j++ {
		switch {
		case v[j] == '\r' && strings.HasPrefix(v[j+1:], "\n--"), v[j] == '\n' && strings.HasPrefix(v[j+1:], "--"):
			return j
		case v[j] == '\\' && (strings.HasPrefix(v[j:], `\r\n--`) || strings.HasPrefix(v[j:], `\n--`)):
			return j
		case v[j] == '\\' && j+1 < len(v) && v[j+1] != '\r' && v[j+1] != '\n':
			j++ // an escape: its byte is the value's
		}
	}
	return lineEndOrEscaped(v, 0)
}

// lineEndOrEscaped is where the line that starts at s[i] ends: its line
// end, as written or as a repr escapes it (\r, \n), or len(s).
func lineEndOrEscaped(s string, i int) int {
	for j := i; j < len(s); j++ {
		if s[j] == '\n' || s[j] == '\r' || s[j] == '\\' && j+1 < len(s) && (s[j+1] == 'n' || s[j+1] == 'r') {
			return j
		}
	}
	return len(s)
}

// cookieStrings hides the values of http.cookiejar's cookies as str
// writes them (and a CookieJar's repr of old): <Cookie sessionid=VALUE for
// example.org/>.
func cookieStrings(s string, hide func(from, to int)) {
	for from := 0; ; {
		i := strings.Index(s[from:], "<Cookie ")
		if i < 0 {
			return
		}
		i += from + len("<Cookie ")
		from = i
		e := strings.Index(s[i:], " for ")
		if nl := strings.IndexAny(s[i:], "\n\r>"); e < 0 || nl >= 0 && nl < e {
			continue
		}
		if eq := strings.IndexByte(s[i:i+e], '='); eq >= 0 && eq+1 < e {
			hide(i+eq+1, i+e)
		}
		from = i + e
	}
}

// cookieReprs hides the values of http.cookies' cookies as repr writes
// them (found 2026-12-08: shown in clear, and a SimpleCookie's name was
// read as a log line's "Cookie:" and its pair's key masked instead):
//
//   - a SimpleCookie's <SimpleCookie: sid='VALUE' theme="dark">, each
//     value's repr after its key (BaseCookie's __repr__, which a subclass
//     whose name ends in Cookie keeps);
//   - a Morsel's <Morsel: sid=VALUE; Path=/>, its value as a header codes
//     it (cookieValueEnd), its attributes after it shown.
//
// A cookie's value is a credential whatever its name, as http.cookiejar's
// are (objectRecords).
func cookieReprs(s string, hide func(from, to int)) {
	for from := 0; ; {
		c := strings.Index(s[from:], "Cookie: ")
		if c < 0 {
			break
		}
		c += from
		from = c + len("Cookie: ")
		start := c
		for start > 0 && isWordByte(s[start-1]) {
			start--
		}
		if start == 0 || s[start-1] != '<' {
			continue // a header's Set-Cookie: (pairs.go reads it)
		}
		for i := from; ; {
			eq := strings.IndexAny(s[i:], "= >\n")
			if eq <= 0 || s[i+eq] != '=' {
				break
			}
			v := i + eq + 1
			l, ok := expressions.ReadLiteral(s, v)
			if !ok { // cut short: to the line's end
				hide(v, lineEnd(s[:min(len(s), v+maxElement)], v))
				break
			}
			if l.BodyEnd > l.BodyStart {
				hide(l.BodyStart, l.BodyEnd)
			}
			if i = l.End; i >= len(s) || s[i] != ' ' {
				break
			}
			i++
		}
	}
	for from, covered := 0, 0; ; {
		m := strings.Index(s[from:], "<Morsel: ")
		if m < 0 {
			return
		}
		from = m + from + len("<Morsel: ")
		if from < covered {
			continue // inside the value hidden before: a text of many is read once
		}
		if eq := strings.IndexAny(s[from:min(len(s), from+maxElement)], "= >\n"); eq > 0 && s[from+eq] == '=' {
			v := from + eq + 1
			if e := cookieValueEnd(s, v); e > v {
				hide(v, e)
				covered = e
			}
		}
	}
}

// cookieValueEnd is where a cookie's value that starts at s[i] ends, as a
// header writes it (a Morsel's repr, Set-Cookie: ..., a server's line in
// http.client's debug output), bare or inside a repr:
//
//   - quoted, as http.cookies codes a value of other than its legal
//     characters, with its " and \ escaped: to the quote that closes it.
//     Inside a repr its escapes are escaped again (\\"), so the closing
//     quote is also one followed by what follows a value (; ' > a line's
//     end, a repr's \r\n): a quote inside is read as the value's.
//   - bare: to a line's end, a "; " and an attribute (Path, HttpOnly ...),
//     or a > that ends a repr (one followed by what follows one). A bare
//     value may hold a quote (a server's sid=ab'cd; a BaseCookie's any
//     character), a > and a blank. A header's line ends at its string's
//     quote too (pairs.go's cookieHeaderEnd).
func cookieValueEnd(s string, i int) int {
	s = s[:min(len(s), i+maxElement)] // a cookie is at most 4 KB: a text of many is read in time in proportion to it
	if i < len(s) && s[i] == '"' {
		for j := i + 1; j < len(s); j++ {
			switch s[j] {
			case '\\':
				j++
			case '\r', '\n':
				return j
			case '"':
				if n := j + 1; n == len(s) || strings.IndexByte(";'>,)]}\r\n", s[n]) >= 0 || s[n] == '\\' && n+1 < len(s) && (s[n+1] == 'r' || s[n+1] == 'n') {
					return n
				}
			}
		}
		return len(s)
	}
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '\r', '\n':
			return j
		case ';':
			if strings.HasPrefix(s[j:], "; ") && cookieAttribute(s[j+2:]) {
				return j
			}
		case '>':
			if endsRepr(s, j+1, afterBracket) {
				return j
			}
		case '\\':
			if j+1 < len(s) && (s[j+1] == 'r' || s[j+1] == 'n') {
				return j // a repr's line end
			}
			j++ // a repr's escape: of a quote, of a backslash
		}
	}
	return len(s)
}

// endsRepr: s[j:] is what follows a repr's end (its closing > or quote):
// the text's end, a line's end (a repr's \r\n too), or a byte of after.
func endsRepr(s string, j int, after string) bool {
	return j == len(s) || s[j] == '\r' || s[j] == '\n' || strings.IndexByte(after, s[j]) >= 0 ||
		s[j] == '\\' && j+1 < len(s) && (s[j+1] == 'r' || s[j+1] == 'n')
}

// openQuote is the quote that opened the string literal s[i] is inside,
// read from the start of its line, or 0 when it is inside none, or when
// its line starts more than maxElement bytes before it (a line of many
// headers is read in time in proportion to it: each is then masked to
// its line's end).
func openQuote(s string, i int) byte {
	start := strings.LastIndexAny(s[max(0, i-maxElement):i], "\r\n")
	if start < 0 && i > maxElement {
		return 0
	}
	var q byte
	for k := max(0, i-maxElement) + start + 1; k < i; k++ {
		switch c := s[k]; {
		case q != 0 && c == '\\':
			k++
		case q == 0 && (c == '\'' || c == '"'):
			q = c
		case c == q:
			q = 0
		}
	}
	return q
}

// What follows an object's repr, <Morsel: ...>, and a string's.
const (
	afterBracket = ",;)]}>'\" \t"
	afterQuote   = ",;:)]}"
)

// cookieAttribute: s starts with an attribute of a Set-Cookie header, as
// http.cookies writes one or a server does (any case): Path=/, HttpOnly.
func cookieAttribute(s string) bool {
	for _, a := range []string{"expires", "path", "comment", "domain", "max-age", "secure", "httponly", "version", "samesite", "partitioned", "priority"} {
		if len(s) >= len(a) && strings.EqualFold(s[:len(a)], a) && (len(s) == len(a) || strings.IndexByte("=;>'\"\\\r\n ", s[len(a)]) >= 0) {
			return true
		}
	}
	return false
}

// A record listed a row a field: an object's attributes or a dict's items
// (name and value, key and value, an XML element's tag and text). Its
// display was masked (objectRecords), and its value row, listed by its
// variables_reference, showed the secret: root[1] of <config><password>...
// listed its text (found 2026-12-08), as did minidom's element (its
// first child's display shows its text's first ten characters) and its
// text node (data, beside a parentNode shown as <DOM Element: password
// at 0x...>). The value rows' kinds, a bit each:
const (
	recordValue uint8 = 1 << iota // value, ParameterValue ...: beside a name field (nameFields)
	recordText                    // an element's text (ElementTree's), its children (minidom's): beside its tag
	recordData                    // a minidom text node's data: beside its parent element
)

// valueRow returns the kind of value row a row's name (a listing's:
// value, 'value', "Value", '@value') makes it, or 0.
func valueRow(name sdk.Value) uint8 {
	kind, _ := sdk.Lookup(valueRows, name)
	return kind
}

// recordRows returns the kinds of value rows that rows' name rows make
// secret: a name field holding a string that names a secret, or a Type
// that is SecureString; an element's tag (ElementTree's tag, minidom's
// tagName, nodeName, localName) that names one; a text node's parent
// element whose tag names one.
func recordRows(rows sdk.Value, extra map[string]bool) uint8 {
	var kinds uint8
	for _, r := range rows.AllElements() {
		if r.Kind() != sdk.Object {
			continue
		}
		field, ok := sdk.Lookup(nameRows, r.Get("name"))
		if !ok {
			continue
		}
		shown := r.Get("value").Str()
		if field == parentField {
			const dom = "<DOM Element: "
			if tag, _, ok := strings.Cut(strings.TrimPrefix(shown, dom), " at 0x"); ok && len(tag) < len(shown)-len(dom) && namesSecretPath(tag, extra) {
				kinds |= recordData
			}
			continue
		}
		l, ok := expressions.ReadLiteral(shown, 0)
		if !ok || l.End != len(shown) || !l.Known {
			continue
		}
		switch {
		case field == typeField:
			if l.Value == "SecureString" {
				kinds |= recordValue
			}
		case !namesSecretPath(l.Value, extra):
		case field == tagField:
			kinds |= recordText
		default:
			kinds |= recordValue
		}
	}
	return kinds
}

// mayHoldText: a value row's display may show a record's value, a text: a
// string or bytes literal, a minidom node or its list of them. Other rows
// of those names (a pandas object's _data, a BlockManager) do not make
// walkArray read their rows' names (recordRows) again.
func mayHoldText(shown string) bool {
	shown = strings.TrimPrefix(strings.TrimPrefix(shown, "["), "b")
	return strings.HasPrefix(shown, "'") || strings.HasPrefix(shown, `"`) || strings.HasPrefix(shown, "<DOM ")
}

// The name rows of a record (recordRows).
const (
	nameField   uint8 = iota + 1 // name, key ... (nameFields)
	tagField                     // an element's tag
	typeField                    // a parameter's Type
	parentField                  // a minidom node's parentNode
)

// valueRows and nameRows are the rows of records by the names debugpy
// gives them, looked up without a copy of each row's name (a listing's
// rows are many): an attribute's (value), a dict's key's repr ('value',
// "Value"; xmltodict's '@value'), as a program spells the field (value,
// Value, VALUE, ParameterValue).
var valueRows, nameRows = func() (values, names map[string]uint8) {
	values, names = map[string]uint8{}, map[string]uint8{}
	spell := func(m map[string]uint8, kind uint8, fields ...string) {
		for _, f := range fields {
			for _, c := range []string{f, strings.ToLower(f), strings.ToUpper(f), strings.ToUpper(f[:1]) + f[1:]} {
				m[c] = kind
				for _, q := range []string{"'", `"`} {
					m[q+c+q] = kind
					m[q+"@"+c+q] = kind
				}
			}
		}
	}
	spell(values, recordValue, "value", "ParameterValue", "OptionValue", "SecretValue", "EnvValue", "#text", "param-value", "env-entry-value")
	spell(values, recordText, "text", "firstChild", "lastChild", "childNodes")
	spell(values, recordData, "data", "nodeValue", "wholeText", "_data")
	spell(names, nameField, "name", "key", "ParameterName", "OptionName", "variable", "SecretName", "EnvName", "param-name", "env-entry-name")
	spell(names, tagField, "tag", "tagName", "nodeName", "localName")
	spell(names, typeField, "type")
	spell(names, parentField, "parentNode")
	return values, names
}()

// maxElement bounds how far an element's reading looks for its other
// tag: each search is of a bounded window, so that a text of many
// elements is read in time in proportion to it (an element's text is
// masked to its next tag when its end tag is further).
const maxElement = 4096

// elementPairs hides the text of a value element that follows a name
// element whose text names a secret: a record in two elements, as
// web.xml writes a context's parameter and an environment entry
// (<param-name>db.password</param-name><param-value>...</param-value>,
// <env-entry-name>, <env-entry-type>, then <env-entry-value>), and as
// <key>, <name> then <value> do. The value element is the next one whose
// name ends in value, within 256 bytes; after a <key>, the next element
// whatever its name: a property list's (macOS's plist, plistlib's
// <key>Password</key><string>...</string>: shown in clear until
// 2026-12-08).
func elementPairs(s string, extra map[string]bool, hide func(from, to int)) {
	var unclosed map[string]bool // elementText's
	for from, covered := 0, 0; ; {
		i := strings.Index(s[from:], "</")
		if i < 0 {
			return
		}
		i += from
		from = i + 2
		if i < covered {
			continue // inside the text hidden before: a text of many is read once
		}
		gt := strings.IndexByte(s[from:min(len(s), from+64)], '>')
		if gt < 0 {
			continue
		}
		tag := s[from : from+gt]
		l := strings.ToLower(tag)
		if l != "key" && !strings.HasSuffix(l, "name") {
			continue
		}
		open := strings.LastIndex(s[max(0, i-maxElement):i], "<"+tag+">")
		if open >= 0 {
			open += max(0, i-maxElement)
		}
		if open < 0 || !namesSecretPath(trimBlank(s[open+len(tag)+2:i]), extra) {
			continue
		}
		after := from + gt + 1
		window := s[after:min(len(s), after+256)]
		for j := 0; ; {
			lt := strings.IndexByte(window[j:], '<')
			if lt < 0 {
				break
			}
			j += lt + 1
			e := strings.IndexByte(window[j:], '>')
			if e < 0 {
				break
			}
			name := window[j : j+e]
			if strings.HasPrefix(name, "/") || !strings.HasSuffix(strings.ToLower(name), "value") && l != "key" {
				continue
			}
			if unclosed == nil {
				unclosed = map[string]bool{}
			}
			covered = elementText(s, name, after+j+e+1, true, unclosed, hide)
			break
		}
	}
}

// nameFields and valueFields are the fields of a record, in lower case;
// with web.xml's (param-name, env-entry-value: as xmltodict reads its
// elements), xmltodict's element's text beside its attributes
// ({'@name': 'token', '#text': ...}), and HTML's meta element's content
// (<meta name="api-key" content="...">: shown in clear until 2026-12-08).
var (
	nameFields = map[string]bool{"name": true, "key": true, "parametername": true, "optionname": true, "variable": true, "secretname": true, "envname": true,
		"param-name": true, "env-entry-name": true}
	valueFields = map[string]bool{"value": true, "parametervalue": true, "optionvalue": true, "secretvalue": true, "envvalue": true,
		"param-value": true, "env-entry-value": true, "#text": true, "content": true}
)

// namesSecretPath: v, a name field's value, names a secret, whole or by its
// last part (/prod/db_password, app.db.password, prod:api_key).
func namesSecretPath(v string, extra map[string]bool) bool {
	v = strings.TrimRight(v, "/.:")
	if i := strings.LastIndexAny(v, "/.:"); i >= 0 {
		v = v[i+1:]
	}
	return v != "" && len(v) <= 64 && secrets.IsName(underscored.Replace(v), extra)
}

// objectRecords reads the text's objects ({...}, a call's (...)) as pieces
// (pairs.go's scanner), over lines, and hides the value fields' values of
// those whose name field names a secret, when the object closes or the
// text ends inside it.
func objectRecords(s string, extra map[string]bool, hide func(from, to int)) {
	type frame struct {
		secret bool
		values []piece
		tag    string // an XML element's name: <add key="ApiKey" value="..."/>
	}
	sc := &scanner{s: s}
	var stack []frame
	var unclosed map[string]bool // elementText's, made at the first element it reads
	flush := func(f frame) {
		if f.secret {
			for _, v := range f.values {
				if v.kind == 's' {
					sc.hideLiteral(v, hide, nil)
				} else {
					hide(v.start, v.end)
				}
			}
		}
	}
	var prev piece
	p, ok := sc.nextOver(0)
	for ; ok; p, ok = sc.nextOver(p.end) {
		before := prev
		prev = p
		switch p.kind {
		case '<':
			if t, ok := sc.next(p.end); ok && t.kind == 'w' && t.start == p.end && isWordByte(s[t.start]) {
				stack = append(stack, frame{tag: s[t.start:t.end]})
				prev = t
				p = t
			}
			continue
		case '>':
			if n := len(stack); n > 0 && stack[n-1].tag != "" {
				f := stack[n-1]
				stack = stack[:n-1]
				flush(f)
				if f.secret && len(f.values) == 0 && s[p.start-1] != '/' {
					if unclosed == nil {
						unclosed = map[string]bool{}
					}
					elementText(s, f.tag, p.end, true, unclosed, hide)
				}
			}
			continue
		case '{', '(', '[':
			// http.cookiejar's Cookie(version=0, name='sessionid',
			// value='...'): a cookie's value is a credential, whatever
			// its name.
			stack = append(stack, frame{secret: p.kind == '(' && before.kind == 'w' && before.end == p.start && s[before.start:before.end] == "Cookie"})
			continue
		case '}', ')', ']':
			if len(stack) > 0 {
				flush(stack[len(stack)-1])
				stack = stack[:len(stack)-1]
			}
			continue
		case 's', 'w':
		default:
			continue
		}
		if len(stack) == 0 {
			continue
		}
		sep, ok := sc.next(p.end)
		if !ok || sep.kind != ':' && sep.kind != '=' {
			continue
		}
		v, ok := sc.next(sep.end)
		if !ok || v.kind != 's' && v.kind != 'w' && v.kind != 'q' {
			continue
		}
		key := strings.TrimPrefix(strings.ToLower(keyName(s, p)), "@") // xmltodict's attribute: {'@key': 'ApiKey', '@value': ...}
		f := &stack[len(stack)-1]
		switch {
		case nameFields[key] && namesSecretPath(keyName(s, v), extra),
			key == "type" && keyName(s, v) == "SecureString":
			f.secret = true
		case valueFields[key]:
			switch v.kind {
			case 'w': // a plain scalar (YAML's flow style: {name: x, value: a=b/c}) to its , or bracket
				v.end = v.start + strings.IndexAny(s[v.start:]+"\n", ",}])\n\r")
				v.end = v.start + len(strings.TrimRight(s[v.start:v.end], " \t"))
			case 'q': // a quote that closes on a later line (YAML's flow style folds a long value)
				v.end = closingQuote(s, v.start)
			}
			f.values = append(f.values, v)
		}
		p = v // the value is no key
	}
	for _, f := range stack { // cut short: what is read of it
		flush(f)
	}
}

// closingQuote is where the string that opens at the quote s[i] ends,
// over lines: YAML's single quote doubled inside, a backslash's escape in
// double quotes; the text's end when it does not close.
func closingQuote(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch {
		case s[j] == '\\' && q == '"':
			j++
		case s[j] == q && q == '\'' && j+1 < len(s) && s[j+1] == '\'':
			j++
		case s[j] == q:
			return j + 1
		}
	}
	return len(s)
}

// yamlRecords reads YAML's list items of a name and a value (a line
// "- name: DB_PASSWORD", then "  value: s3cret" below it): an item's fields stand at the column of its first, to the next item or
// a line left of it; a line right of it goes on with the last field's
// value (value: | and its block).
func yamlRecords(s string, extra map[string]bool, hide func(from, to int)) {
	type field struct {
		col        int
		key        string
		from, to   int // the value
		startsItem bool
	}
	var item []field
	flushItem := func() {
		secret := false
		for _, f := range item {
			if nameFields[f.key] && namesSecretPath(trimQuotes(s[f.from:f.to]), extra) {
				secret = true
			}
		}
		if secret {
			for _, f := range item {
				if valueFields[f.key] && f.to > f.from {
					hide(f.from, f.to)
				}
			}
		}
		item = item[:0]
	}
	for line := 0; line < len(s); {
		end := lineEnd(s, line)
		t := s[line:end]
		col := len(t) - len(strings.TrimLeft(t, " "))
		indent := col
		body, dash := t[col:], false
		if rest, ok := strings.CutPrefix(body, "- "); ok {
			dash = true
			n := len(rest) - len(strings.TrimLeft(rest, " "))
			col, body = col+2+n, rest[n:]
		}
		key, value, ok := strings.Cut(body, ":")
		ok = ok && key != "" && !strings.ContainsAny(key, " \t'\"{[") && (value == "" || value[0] == ' ')
		switch {
		case strings.TrimSpace(t) == "" || strings.HasPrefix(strings.TrimSpace(t), "#"):
		case len(item) > 0 && indent > item[0].col:
			// the last field's value goes on (a block scalar's lines, a
			// map or a list under it)
			item[len(item)-1].to = end
		case !ok || dash || len(item) > 0 && col != item[0].col:
			flushItem()
			if ok && dash {
				v := strings.TrimSpace(value)
				from := end - len(strings.TrimLeft(value, " "))
				item = append(item, field{col, strings.ToLower(key), from, from + len(v), true})
			}
		default:
			v := strings.TrimSpace(value)
			from := end - len(strings.TrimLeft(value, " "))
			if len(item) > 0 {
				item = append(item, field{col, strings.ToLower(key), from, from + len(v), false})
			}
		}
		if end == len(s) {
			break
		}
		line = next(s, end)
	}
	flushItem()
}

// trimQuotes is a YAML scalar without its quotes.
func trimQuotes(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}
