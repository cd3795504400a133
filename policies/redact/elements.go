package redact

import (
	"strings"

	"github.com/debugpy-guard/debugpy-guard/policies/secrets"
)

// XML's elements named for a secret: <password>VALUE</password>, as a
// Maven settings.xml, a SOAP request or a program's XML config holds one.
// The element is read as XML writes it, not as one spelling of it:
//
//   - a namespace's prefix: WS-Security's <wsse:Password Type="...">,
//     the local name read (Password); the end tag is the same qualified
//     name;
//   - attributes on its start tag (<password type="plain">);
//   - its text on lines of its own, as a pretty printer writes it, and in
//     the elements it holds (<password><primary>VALUE</primary></password>);
//   - CDATA (<password><![CDATA[VALUE]]></password>);
//   - cut short, with no end tag: a log's payload[:100], a slice of a
//     string, a repr cut by the debugger (<config><password>VAL). Its text
//     right after the tag is masked, to the next tag or the line's end.
//
// Until 2026-12-08 the pairs' reading took <password> for a pair's key and
// '>' for its separator, on one line: a prefix, an attribute, CDATA, a
// value on the next line and a text cut before its end tag each showed the
// value (TestAttackSecretsInElements, TestElementsAgreeWithElementTree).
func maskElements(s string, extra map[string]bool, found func(string)) (string, bool) {
	h := hidden{s: s, found: found}
	hide := h.hide
	var unclosed map[string]bool // made at the first element named for a secret
	covered := 0                 // where the last element's text hidden ends: a text of many is read once
	for from := 0; ; {
		i := strings.IndexByte(s[from:], '<')
		if i < 0 {
			break
		}
		i += from
		from = i + 1
		if i < covered {
			continue
		}
		name, end, ok := startTag(s, i)
		if !ok || !secrets.IsName(name[strings.LastIndexByte(name, ':')+1:], extra) {
			continue
		}
		if unclosed == nil {
			unclosed = map[string]bool{}
		}
		covered = max(covered, elementText(s, name, end, false, unclosed, hide))
	}
	labelValues(s, extra, h.spans, hide) // after the elements: a secret's text is no label
	return h.masked()
}

// labelValues hides the values a page shows after a label that names a
// secret, as a program's HTML does (a settings page, a rendered
// template): <dt>API key</dt><dd>VALUE</dd>, <td>Password</td><td>VALUE</td>,
// <label>Token</label><span>VALUE</span>, <b>API key:</b> VALUE (shown in
// clear until 2026-12-08). A label is an element's whole text (a colon
// after it dropped); its value the next text, after tags alone, within
// 256 bytes: one word of 4 bytes or more with a digit or a symbol, so that
// a page's prose (<h2>Password</h2><p>Choose a strong one</p>) is left;
// and none in a header's cell, a table's next column's name
// (<th>Password</th><th>last_login</th>). hidden is what maskElements hid,
// in order: a secret's text is no label (a random value's ...Pw reads as
// a name of one).
func labelValues(s string, extra map[string]bool, hidden [][2]int, hide func(from, to int)) {
	k := 0 // the first of hidden (in order) that does not end before the label
	for from := 0; ; {
		i := strings.Index(s[from:], "</")
		if i < 0 {
			return
		}
		i += from
		from = i + 2
		gt := strings.LastIndexByte(s[max(0, i-64):i], '>')
		if gt < 0 {
			continue
		}
		gt += max(0, i-64)
		for k < len(hidden) && hidden[k][1] <= gt {
			k++
		}
		if k < len(hidden) && hidden[k][0] < i {
			continue // a value hidden: <password>...pw</password>
		}
		label := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s[gt+1:i]), ":"))
		if label == "" || !plainName(label) || !secrets.IsName(underscored.Replace(label), extra) {
			continue
		}
		j, lim := i, min(len(s), i+256) // the next text, after tags alone
		header := false                 // in a header's cell: a table's next column's name
		for j < lim && s[j] == '<' {
			e := strings.IndexAny(s[j+1:lim], "<>")
			if e < 0 || s[j+1+e] != '>' {
				j = lim
				break
			}
			header = strings.HasPrefix(s[j+1:], "th>") || strings.HasPrefix(s[j+1:], "th ")
			j += 1 + e + 1
			j += blanks(s[j:lim])
		}
		if header {
			continue
		}
		e := j
		for e < lim && s[e] != '<' && blanks(s[e:min(lim, e+2)]) == 0 {
			e++
		}
		if k := e + blanks(s[e:lim]); k < len(s) && (k >= lim || s[k] != '<') {
			continue // not one word before the next tag
		}
		if v := s[j:e]; len(v) >= 4 && notLettersOnly(v) {
			hide(j, e)
			from = e
		}
	}
}

// startTag reads the start tag that opens at s[i] ('<'): its qualified
// name, and where the tag ends (after its '>'). A tag that closes itself
// (<password/>) holds no text, and is no start tag here; nor is a tag
// that does not end within maxElement bytes, before another '<'.
func startTag(s string, i int) (name string, end int, ok bool) {
	j := i + 1
	if j >= len(s) || !nameStart(s[j]) {
		return "", 0, false
	}
	for j < len(s) && (nameStart(s[j]) || s[j] >= '0' && s[j] <= '9' || s[j] == '-' || s[j] == '.') {
		j++
	}
	name = s[i+1 : j]
	if j >= len(s) || s[j] != '>' && s[j] != '/' && blanks(s[j:min(len(s), j+2)]) == 0 {
		return "", 0, false // not a name's end: <password=...
	}
	gt := strings.IndexAny(s[j:min(len(s), j+maxElement)], "<>") // to the next '<' at most: each '<' of a text is read once
	if gt < 0 || s[j+gt] != '>' || s[j+gt-1] == '/' {
		return "", 0, false
	}
	return name, j + gt + 1, true
}

// nameStart: c may start an XML name (a letter, '_', ':', or a byte of a
// character past ASCII) and stand in one.
func nameStart(c byte) bool {
	return 'a' <= c|0x20 && c|0x20 <= 'z' || c == '_' || c == ':' || c >= 0x80
}

// elementText hides the text of the element name whose start tag ends
// at s[from]: every text and CDATA section up to its end tag, inside the
// elements it holds too. Where no end tag follows (the text cut short), it
// hides its first text (cutElementText): right after a tag, or after
// blanks too where it is held, known to hold a value; a text after a blank
// is not an element's (a usage line's `-p <password> registry`, docopt's
// `<password>` at a line's end). It returns where the text it read ends.
// unclosed remembers the names no end tag follows, so that a text of many
// such tags is searched once.
func elementText(s, name string, from int, held bool, unclosed map[string]bool, hide func(from, to int)) int {
	end := -1
	if !unclosed[name] {
		if c := strings.Index(s[from:], "</"+name+">"); c >= 0 {
			end = from + c
		} else {
			unclosed[name] = true
		}
	}
	if end < 0 {
		return cutElementText(s, from, held, hide)
	}
	text := func(a, b int) {
		if v := trimBlank(s[a:b]); v != "" {
			vs := a + strings.Index(s[a:b], v)
			hide(vs, vs+len(v))
		}
	}
	for i := from; i < end; {
		lt := strings.IndexByte(s[i:end], '<')
		if lt < 0 {
			text(i, end)
			break
		}
		text(i, i+lt)
		i += lt
		switch {
		case strings.HasPrefix(s[i:end], "<![CDATA["):
			cs := i + len("<![CDATA[")
			ce := strings.Index(s[cs:end], "]]>")
			if ce < 0 {
				text(cs, end)
				return end
			}
			text(cs, cs+ce)
			i = cs + ce + len("]]>")
		case strings.HasPrefix(s[i:end], "<!--"):
			ce := strings.Index(s[i:end], "-->")
			if ce < 0 {
				return end
			}
			i += ce + len("-->")
		default:
			gt := strings.IndexByte(s[i:end], '>')
			if gt < 0 {
				return end
			}
			i += gt + 1
		}
	}
	return end
}

// cutElementText is elementText's reading of an element with no end tag:
// its first text, within maxElement bytes, to the next tag or the end of
// its line, and CDATA's to its end. The blanks between the tags that open
// after it are passed (a pretty printer's <password>\n  <value>VALUE);
// a text is taken when it starts right after a tag; or after blanks too
// when the element is known to hold a value (its record names a secret:
// held; plistlib's <data>\n\tBASE64), or when the text is on a line below
// its tag's, indented further, the tag first on its line (a pretty
// printer's <password>\n    VALUE; not a usage line's -p <password>
// registry, nor docopt's <password> at a line's end). It returns where it
// read to: the tags it passed open no other text (a text of many is read
// once).
func cutElementText(s string, from int, held bool, hide func(from, to int)) int {
	lim := min(len(s), from+maxElement)
	i, blank, cdata := from, false, false
	tag := strings.LastIndexByte(s[:from], '<') // the last tag passed
	for i < lim {
		if n := blanks(s[i:lim]); n > 0 {
			i, blank = i+n, true
			continue
		}
		if s[i] != '<' {
			break
		}
		if strings.HasPrefix(s[i:lim], "<![CDATA[") {
			i, blank, cdata = i+len("<![CDATA["), false, true // its text holds '<' as it is
			break
		}
		_, end, ok := startTag(s, i)
		if !ok {
			return i
		}
		tag, i, blank = i, end, false
	}
	if i >= lim || s[i] == '<' || blank && !held && !indentedBelow(s, tag, i) {
		return i
	}
	e := i + lineEndOrEscaped(s[i:lim], 0)
	if lt := strings.IndexByte(s[i:e], '<'); lt >= 0 && !cdata {
		e = i + lt
	}
	if ce := strings.Index(s[i:e], "]]>"); ce >= 0 {
		e = i + ce
	}
	e = literalEnd(s, i, e)
	if !hasAlnum(s[i:e]) {
		return i
	}
	hide(i, e)
	return e
}

// indentedBelow: the text at s[text] is on a line below the tag at
// s[tag], indented further, and the tag is the first thing on its line:
// an element's value as a pretty printer writes it. A line ends as
// written or as a repr escapes it (\n).
func indentedBelow(s string, tag, text int) bool {
	if tag < 0 {
		return false
	}
	ls, ok := lineStart(s, tag)
	if !ok || blanks(s[ls:tag]) != tag-ls {
		return false
	}
	ts, ok := lineStart(s, text)
	return ok && ts > tag && blanks(s[ts:text]) == text-ts && text-ts > tag-ls // indented, as written or escaped (\t)
}

// lineStart is where the line that holds s[i] starts, after a line end
// as written or as a repr escapes it, looked for 512 bytes back at most
// (ok false past that: a line of many is not read back).
func lineStart(s string, i int) (int, bool) {
	for j := i - 1; j >= max(0, i-512); j-- {
		switch {
		case s[j] == '\n' || s[j] == '\r':
			return j + 1, true
		case (s[j] == 'n' || s[j] == 'r') && j > 0 && s[j-1] == '\\':
			return j + 1, true
		}
	}
	return 0, i <= 512
}

// literalEnd is where the text s[from:to], cut short inside a string
// literal that holds it, ends: at the quote that closes the literal, one
// no backslash escapes, at the text's end or before a ',', ')', ']' or
// '}' (['<password>PIECE', 'other'], a repr's "INSERT ... 'PIECE"), when
// it is the first quote of its line within 512 bytes back, as a repr opens
// with one; or to. In a text that is no literal's, no quote ends it: a
// quote and a comma may be the secret's own. (A literal opened further
// back is masked to its line's end, its closing quote with it.)
func literalEnd(s string, from, to int) int {
	for i := from; i < to; i++ {
		if (s[i] == '\'' || s[i] == '"') && s[i-1] != '\\' && (i+1 == len(s) || strings.IndexByte(",)]}", s[i+1]) >= 0) {
			// a quote that may close a literal: the literal's when
			// the line opens one with it, read back a bounded way (a
			// line of many such quotes is read in proportion to it)
			back := max(0, from-512)
			line := back + strings.LastIndexAny(s[back:from], "\r\n") + 1
			if q := strings.IndexAny(s[line:from], "'\""); q >= 0 && s[line+q] == s[i] {
				return i
			}
		}
	}
	return to
}

// blanks is how many bytes of blanks and line ends v starts with, as
// written or as a repr escapes them.
func blanks(v string) int {
	n := 0
	for n < len(v) {
		switch {
		case v[n] == ' ' || v[n] == '\t' || v[n] == '\n' || v[n] == '\r':
			n++
		case v[n] == '\\' && n+1 < len(v) && strings.IndexByte("ntr", v[n+1]) >= 0:
			n += 2
		default:
			return n
		}
	}
	return n
}

// hasAlnum: v holds a letter or a digit (a text of brackets alone is no
// value: docopt's [<password>]).
func hasAlnum(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i] | 0x20; 'a' <= c && c <= 'z' || '0' <= v[i] && v[i] <= '9' || v[i] >= 0x80 {
			return true
		}
	}
	return false
}
