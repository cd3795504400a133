package redact

import (
	"strings"

	"github.com/debugpy-guard/debugpy-guard/internal/percent"
	"github.com/debugpy-guard/debugpy-guard/policies/secrets"
)

// Hand-written matchers for the secrets redact masks. They were regexps;
// Go's regexp package in a wasm guest cost ~70 ms to compile on an
// instance's first redaction and tens of µs a string after, enough to push
// a large result past the module's 100 ms limit. These scan each string
// once and allocate only when they mask.

func isB64URL(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

func isWord(c byte) bool { return isB64URL(c) && c != '-' }

// run is the length of the run of bytes of s from i that ok accepts.
func run(s string, i int, ok func(byte) bool) int {
	n := 0
	for i+n < len(s) && ok(s[i+n]) {
		n++
	}
	return n
}

// jwt finds a JSON web token: three base64url parts of 5 or more
// characters, joined by dots, the first starting with eyJ.
func jwt(s string, from int) (start, end int, ok bool) {
	for {
		i := strings.Index(s[from:], "eyJ")
		if i < 0 {
			return 0, 0, false
		}
		start = from + i
		end = start
		parts := 0
		for parts < 3 {
			n := run(s, end, isB64URL)
			if n < 5 {
				break
			}
			end += n
			parts++
			if parts < 3 {
				if end >= len(s) || s[end] != '.' {
					break
				}
				end++
			}
		}
		if parts == 3 {
			return start, end, true
		}
		from = start + 3
	}
}

// pem finds a PEM private key block, to its END line or the end of s.
func pem(s string, from int) (start, end int, ok bool) {
	for {
		i := strings.Index(s[from:], "-----BEGIN ")
		if i < 0 {
			return 0, 0, false
		}
		start = from + i
		j := start + len("-----BEGIN ")
		j += run(s, j, isUpperOrSpace)
		if !strings.HasSuffix(s[:j], "PRIVATE KEY") || !strings.HasPrefix(s[j:], "-----") {
			from = start + 1
			continue
		}
		rest := j + len("-----")
		k := strings.Index(s[rest:], "-----END ")
		if k < 0 {
			return start, len(s), true
		}
		e := rest + k + len("-----END ")
		e += run(s, e, isUpperOrSpace)
		if strings.HasPrefix(s[e:], "-----") {
			e += len("-----")
		}
		return start, e, true
	}
}

func isUpperOrSpace(c byte) bool { return c >= 'A' && c <= 'Z' || c == ' ' }

// awsKey finds an AWS access key id: AKIA or ASIA and 16 upper-case letters
// or digits, a word of its own.
func awsKey(s string, from int) (start, end int, ok bool) {
	for from < len(s) {
		a, b := strings.Index(s[from:], "AKIA"), strings.Index(s[from:], "ASIA")
		i := a
		if i < 0 || (b >= 0 && b < i) {
			i = b
		}
		if i < 0 {
			return 0, 0, false
		}
		start = from + i
		end = start + 4 + run(s, start+4, func(c byte) bool { return c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' })
		if end-start == 20 && (start == 0 || !isWord(s[start-1])) && (end == len(s) || !isWord(s[end])) {
			return start, end, true
		}
		from = start + 1
	}
	return 0, 0, false
}

// webhookPaths begin the path of a webhook URL that is its credential:
// whoever has the URL posts to the channel (Slack's, Discord's, Microsoft
// Teams'), whatever name the program keeps it under.
var webhookPaths = []string{"hooks.slack.com/services/", "hooks.slack.com/workflows/", "hooks.slack.com/triggers/",
	"discord.com/api/webhooks/", "discordapp.com/api/webhooks/", "webhook.office.com/webhookb2/"}

// webhook finds the ids and secret of a webhook URL: the path after one of
// webhookPaths, 16 bytes or more of letters, digits, -, _, /, @ and .
func webhook(s string, from int) (start, end int, ok bool) {
	if !strings.Contains(s[from:], "hook") { // in every one of webhookPaths: most texts are passed with one scan
		return 0, 0, false
	}
	for from < len(s) {
		at, place := -1, ""
		for _, p := range webhookPaths {
			if i := strings.Index(s[from:], p); i >= 0 && (at < 0 || i < at) {
				at, place = i, p
			}
		}
		if at < 0 {
			return 0, 0, false
		}
		start = from + at + len(place)
		if n := run(s, start, isPathByte); n >= 16 {
			return start, start + n, true
		}
		from = start
	}
	return 0, 0, false
}

func isPathByte(c byte) bool { return isB64URL(c) || c == '/' || c == '@' || c == '.' }

// maskShapes replaces every credential of a well-known shape in s (JWT,
// PEM private key, AWS key id, GitHub, Slack and Stripe tokens, a webhook
// URL's path, the password of a URL), and hands each to found; a URL's
// password as written and as the program holds it, percent-decoded (p%40ss
// is p@ss).
func maskShapes(s string, found func(string)) (string, bool) {
	changed := false
	for _, shape := range shapes {
		for from := 0; ; {
			start, end, ok := shape.find(s, from)
			if !ok {
				break
			}
			if found != nil {
				found(s[start:end])
				if d := percent.Decode(s[start:end], false); shape.percent && d != s[start:end] {
					found(d)
				}
			}
			var b strings.Builder // a PEM block's lines: a mask for each, its line ends kept
			b.WriteString(s[:start])
			writeMasked(&b, s[start:end])
			n := b.Len()
			b.WriteString(s[end:])
			s, from, changed = b.String(), n, true
		}
	}
	return s, changed
}

// tokenPrefixes are the prefixes of well-known tokens, with the shortest
// run of token characters that must follow.
var tokenPrefixes = []struct {
	prefix string
	min    int
}{
	{"ghp_", 30}, {"gho_", 30}, {"ghu_", 30}, {"ghs_", 30}, {"ghr_", 30}, {"github_pat_", 40},
	{"xoxa-", 10}, {"xoxb-", 10}, {"xoxp-", 10}, {"xoxo-", 10}, {"xoxr-", 10}, {"xoxs-", 10}, {"xapp-", 10},
	{"sk_live_", 16}, {"sk_test_", 16}, {"rk_live_", 16}, {"rk_test_", 16}, {"whsec_", 16},
	{"glpat-", 20}, {"npm_", 30}, {"AIza", 35},
	// AI providers' API keys: Anthropic's sk-ant-api03-..., OpenAI's
	// sk-proj-... and legacy sk-<48>, and others of the form; Hugging Face's hf_.
	{"sk-", 40}, {"hf_", 30},
}

// prefixed finds a token that starts with one of tokenPrefixes: the first
// in s, in one pass (a pass per prefix cost ~20 scans of every string).
func prefixed(s string, from int) (start, end int, ok bool) {
	for st := from; st < len(s); st++ {
		for _, t := range prefixesByFirst[s[st]] {
			if !strings.HasPrefix(s[st:], t.prefix) {
				continue
			}
			n := run(s, st+len(t.prefix), isB64URL)
			if n >= t.min && (st == 0 || !isB64URL(s[st-1])) {
				return st, st + len(t.prefix) + n, true
			}
		}
	}
	return 0, 0, false
}

// prefixesByFirst are tokenPrefixes by their first byte.
var prefixesByFirst = func() (t [256][]struct {
	prefix string
	min    int
}) {
	for _, p := range tokenPrefixes {
		t[p.prefix[0]] = append(t[p.prefix[0]], p)
	}
	return t
}()

// shapes are the credentials maskShapes finds; percent says the one found
// is percent-encoded (a URL's userinfo).
var shapes = []struct {
	find    func(string, int) (int, int, bool)
	percent bool
}{{jwt, false}, {pem, false}, {awsKey, false}, {prefixed, false}, {webhook, false}, {urlPassword, true}, {netlocPassword, true}}

// urlPassword finds the password of a URL: scheme://user:PASSWORD@host.
func urlPassword(s string, from int) (start, end int, ok bool) {
	for from < len(s) {
		i := strings.Index(s[from:], "://")
		if i < 0 {
			return 0, 0, false
		}
		u := from + i + 3
		// userinfo ends at '@', before any '/', space or quote
		j := u
		for j < len(s) && s[j] != '@' && s[j] != '/' && s[j] != ' ' && s[j] != '\n' && s[j] != '\'' && s[j] != '"' {
			j++
		}
		if j < len(s) && s[j] == '@' {
			if c := strings.IndexByte(s[u:j], ':'); c >= 0 && u+c+1 < j {
				return u + c + 1, j, true
			}
		}
		from = u
	}
	return 0, 0, false
}

// netlocPassword finds the password of a URL's network location without
// its scheme, as urllib.parse's results show it: ParseResult(scheme='postgres',
// netloc='app:PASSWORD@db:5432', ...), {'netloc': 'app:PASSWORD@db'}.
func netlocPassword(s string, from int) (start, end int, ok bool) {
	for from < len(s) {
		i := strings.Index(s[from:], "netloc")
		if i < 0 {
			return 0, 0, false
		}
		u := from + i + len("netloc")
		from = u
		if u < len(s) && (s[u] == '\'' || s[u] == '"') { // a dict's key
			u++
		}
		u += run(s, u, isBlank)
		if u >= len(s) || s[u] != '=' && s[u] != ':' {
			continue
		}
		u++
		u += run(s, u, isBlank)
		if u >= len(s) || s[u] != '\'' && s[u] != '"' {
			continue
		}
		q := s[u]
		u++
		j := u
		for j < len(s) && s[j] != '@' && s[j] != q && s[j] != '/' && s[j] != '\n' {
			j++
		}
		if j < len(s) && s[j] == '@' {
			if c := strings.IndexByte(s[u:j], ':'); c >= 0 && u+c+1 < j {
				return u + c + 1, j, true
			}
		}
	}
	return 0, 0, false
}

// maskAssignments masks the value of each line that assigns to a secret's
// name: DB_PASSWORD = "s3cr3t" in a source file, API_KEY=k in a .env file,
// password: x in a config, export TOKEN=t in a shell script. A quoted value
// is masked inside its quotes; an unquoted one when it is a single word.
// A YAML key with its value on the lines below (api_key: then a block
// indented under it, or its "- " items: what yaml.dump writes of a dict or
// a list) has every value of that block masked, keys kept; so have the
// lines that go on with a value past its key's column (a long value that
// yaml.dump folds, an INI value's continuation), and every value of an INI
// section or a TOML table named for a secret ([api_keys] then prod = k).
func maskAssignments(s string, found func(string)) (string, bool) {
	if !strings.ContainsAny(s, "=:") {
		return s, false
	}
	lines := strings.SplitAfter(s, "\n")
	changed := false
	hideAt := func(li, vs, ve int) {
		line := lines[li]
		if found != nil {
			found(line[vs:ve])
		}
		lines[li] = line[:vs] + mask + line[ve:]
		changed = true
	}
	block := -1      // the column of the secret's key whose block this is; -1: none
	open := byte(0)  // in the block, the quote of a value still open at the last line's end
	section := false // in an INI section or a TOML table named for a secret: [api_keys]
	for li, line := range lines {
		if h, ok := sectionHeader(line); ok {
			section = h
			block = -1
			continue
		}
		indent := run(line, 0, func(c byte) bool { return c == ' ' })
		if block >= 0 {
			content := strings.TrimRight(line[indent:], "\r\n")
			switch {
			case open != 0 && content != "":
				// A quoted value folded over lines: this line is its,
				// to its closing quote, which stays.
				vs, ve := indent, indent+len(strings.TrimRight(content, " \t"))
				if closes(line[vs:ve], open) {
					ve, open = ve-1, 0
				}
				if ve > vs {
					hideAt(li, vs, ve)
				}
				continue
			case content == "" || content[0] == '#': // a blank or a comment: the block goes on
				continue
			case indent > block || indent == block && (content == "-" || strings.HasPrefix(content, "- ")):
				if vs, ve, ok := blockValue(line, indent); ok {
					hideAt(li, vs, ve)
					open = opened(line, vs, ve)
				}
				continue
			}
			block, open = -1, 0
		}
		i := run(line, 0, isSpace)
		for strings.HasPrefix(line[i:], "- ") { // a YAML list's item: - password: x
			i += 2 + run(line, i+2, isBlank)
		}
		col := i // the key's column, which a YAML block below it is indented past
		if strings.HasPrefix(line[i:], "export ") {
			i += len("export ")
			i += run(line, i, isSpace)
		}
		q := byte(0)
		if i < len(line) && (line[i] == '"' || line[i] == '\'') {
			q = line[i]
			i++
		}
		n := run(line, i, func(c byte) bool { return isB64URL(c) || c == '.' })
		if n == 0 {
			continue
		}
		name := line[i : i+n]
		j := i + n
		if q != 0 {
			if j >= len(line) || line[j] != q {
				continue
			}
			j++
		}
		j += run(line, j, isBlank)
		if j >= len(line) || (line[j] != '=' && line[j] != ':') || strings.HasPrefix(line[j:], "==") || strings.HasPrefix(line[j:], ":=") ||
			!section && !secrets.IsName(name, nil) {
			continue
		}
		sep := line[j]
		j++
		j += run(line, j, isBlank)
		rest := strings.TrimRight(line[j:], "\r\n")
		if sep == ':' && (rest == "" || rest[0] == '#') {
			block = col // YAML: its value is the block below
			continue
		}
		var vs, ve int
		switch {
		case rest != "" && (rest[0] == '"' || rest[0] == '\''):
			vs, ve = quoted(line, j, j+len(rest))
		case sep == ':' && q == 0:
			// YAML's plain or flow value runs to the line's end: password:
			// it's "x", token: [a, b]. What reads as a comment (" # old")
			// is masked with it: configparser reads it as the value's.
			vs, ve = j, j+len(strings.TrimRight(rest, " \t"))
		default:
			// A word, to a blank, or to a ',' or ';' that ends it (JSON's
			// "pin": 1234, a statement's end); one inside it is the
			// value's (abc,def), as a '#' is (abc#def).
			vs, ve = j, j
			for ve < len(line) && line[ve] > ' ' && line[ve] != '(' && line[ve] != '[' && line[ve] != '{' &&
				!((line[ve] == ',' || line[ve] == ';') && (ve+1 == len(line) || line[ve+1] <= ' ')) {
				ve++
			}
			if ve < len(line) && (line[ve] == '(' || line[ve] == '[' || line[ve] == '{') {
				continue // code, not a value
			}
			// An INI value runs to the line's end, what reads as a
			// comment with it: password = two words # old. Not past code.
			if rest := strings.TrimRight(line[ve:], " \t\r\n"); ve < len(line) && isBlank(line[ve]) && rest != "" &&
				!strings.ContainsAny(rest, "()[]{}=,;'\"") {
				ve += len(rest)
			}
		}
		if ve <= vs || line[vs:ve] == mask {
			continue
		}
		hideAt(li, vs, ve)
		block = col // a value folded over the lines below it, indented past its key
		open = opened(line, vs, ve)
	}
	if !changed {
		return s, false
	}
	return strings.Join(lines, ""), true
}

// sectionHeader reads line as an INI section's or a TOML table's header
// ([name], [a.b."c"], [[name]]): ok when it is one, secret when a part of
// its name is a secret's ([api_keys], [credentials.prod]).
func sectionHeader(line string) (secret, ok bool) {
	t := strings.TrimSpace(line)
	if t == "" || t[0] != '[' { // most lines
		return false, false
	}
	if c := strings.Index(t, " #"); c >= 0 {
		t = strings.TrimSpace(t[:c])
	}
	if len(t) < 3 || t[len(t)-1] != ']' {
		return false, false
	}
	name := strings.Trim(t, "[]")
	if name == "" || strings.ContainsAny(name, "[]'=,(){}") { // a list's repr, code: not a header
		return false, false
	}
	for _, part := range strings.Split(name, ".") {
		if secrets.IsName(strings.Trim(strings.TrimSpace(part), `"`), nil) {
			return true, true
		}
	}
	return false, true
}

// blockValue is where the value of a line of a YAML block starts and ends,
// the line's content starting at i: after its "- " marks and its key
// ("prod: ", quoted or not), inside its quotes or to the line's end. ok
// is false when there is none: a key that opens a deeper block ("prod:"),
// a value already masked.
func blockValue(line string, i int) (vs, ve int, ok bool) {
	end := len(strings.TrimRight(line, "\r\n"))
	for i < end && line[i] == '-' && (i+1 == end || isBlank(line[i+1])) {
		i++
		i += run(line[:end], i, isBlank)
	}
	if i < end && (line[i] == '"' || line[i] == '\'') { // a quoted key, or a quoted value
		if e := strings.IndexByte(line[i+1:end], line[i]); e >= 0 && i+2+e < end && line[i+2+e] == ':' {
			i += 2 + e + 1
		}
	} else if c := strings.Index(line[i:end], ": "); c >= 0 {
		i += c + 2
	} else if strings.HasSuffix(line[i:end], ":") {
		return 0, 0, false
	}
	i += run(line[:end], i, isBlank)
	if i >= end || line[i] == '#' {
		return 0, 0, false
	}
	if q := line[i]; q == '"' || q == '\'' {
		vs, ve = quoted(line, i, end)
	} else {
		vs, ve = i, i+len(strings.TrimRight(line[i:end], " \t")) // a comment with it, as above
	}
	if ve <= vs || line[vs:ve] == mask {
		return 0, 0, false
	}
	return vs, ve, true
}

// quoted is where the quoted value that opens at line[i] lies, in a line
// that ends at end: to the last quote of its kind, an escaped one inside
// ("k\"x", YAML's doubled quote inside a single-quoted value) not ending
// it, when what follows that quote ends a value (a blank, ',', ';', a
// bracket, a comment); to the line's end when the quote closes nowhere on
// the line (YAML folds a long quoted value over lines: its lines below are
// masked as the block's).
func quoted(line string, i, end int) (vs, ve int) {
	vs, ve = i+1, len(strings.TrimRight(line[:end], " \t"))
	if e := strings.LastIndexByte(line[i+1:end], line[i]); e >= 0 {
		if after := strings.TrimSpace(line[i+2+e : end]); after == "" || strings.IndexByte(",;)]}#", after[0]) >= 0 {
			ve = i + 1 + e
		}
	}
	return vs, ve
}

// opened is the quote of a quoted value masked at line[vs:ve] when it
// does not close on its line (quoted: it runs to the line's end), or 0.
func opened(line string, vs, ve int) byte {
	if vs == 0 || line[vs-1] != '"' && line[vs-1] != '\'' {
		return 0
	}
	if ve < len(line) && line[ve] == line[vs-1] {
		return 0 // closed
	}
	return line[vs-1]
}

// closes reports whether text, a line of a quoted value folded over lines,
// ends with the value's closing quote q: a quote not escaped (an even run
// of backslashes before a ", an odd run of ' for YAML's doubled quotes).
func closes(text string, q byte) bool {
	n := 0
	for n < len(text) && text[len(text)-1-n] == q {
		n++
	}
	if n == 0 {
		return false
	}
	if q == '\'' {
		return n%2 == 1
	}
	b := 0
	for b < len(text)-1 && text[len(text)-2-b] == '\\' {
		b++
	}
	return b%2 == 0
}

// isBlank: a space or a tab (within a line).
func isBlank(c byte) bool { return c == ' ' || c == '\t' }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// toSemicolon is the ';' that ends a value with blanks in it, from i (a
// blank), or i: none comes before a quote, a line's end, '&' or another
// pair (a blank, then key=).
func toSemicolon(s string, i int) int {
	for k := i; k < len(s); k++ {
		switch c := s[k]; {
		case c == ';':
			return k
		case strings.IndexByte("'\"\n\r&", c) >= 0:
			return i
		case c == '=':
			ks := k
			for ks > i && (isB64URL(s[ks-1]) || s[ks-1] == '.') {
				ks--
			}
			if ks < k && isBlank(s[ks-1]) {
				return i
			}
		}
	}
	return i
}

// maskKeyValues masks the value of each key=value pair, with a secret's
// name for key, of a connection string or an option list, in any text:
// ODBC's and ADO's Server=db;PWD=s3cr3t; (a {braced} value may hold a ';'),
// libpq's host=db password=s3cr3t dbname=app, a query's password=s3cr3t&x.
// A pair that a ';' stands before or after is a connection string's: its
// value runs to the next ';'. Any other pair starts a line or a string, or
// follows a blank, '&' or '?', and its value runs to the next blank, '&',
// ';' or quote, and is left when it holds ',', '(' or ')': that is code (a
// call's keyword argument f(a, password=pw)), not a value.
func maskKeyValues(s string, extra map[string]bool, found func(string)) (string, bool) {
	if strings.IndexByte(s, '=') < 0 || !secrets.Mentions(s, extra) {
		return s, false
	}
	var spans [][2]int
	for i := 0; i < len(s); i++ {
		if s[i] != '=' || i > 0 && strings.IndexByte("=!<>:", s[i-1]) >= 0 {
			continue
		}
		ks := i
		for ks > 0 && (isB64URL(s[ks-1]) || s[ks-1] == '.') {
			ks--
		}
		if ks == i || !secrets.IsName(s[ks:i], extra) {
			continue
		}
		before := byte('\n')
		if ks > 0 {
			before = s[ks-1]
		}
		if i+1 < len(s) && s[i+1] == '=' && before != ';' {
			continue // a comparison, password == x; but ;Password==x; holds "=x"
		}
		vs := i + 1
		ve, conn := vs, before == ';'
		switch {
		case vs < len(s) && s[vs] == '{': // ODBC: {a;b}, a '}' doubled inside
			ve = vs + 1
			for ve < len(s) && (s[ve] != '}' || ve+1 < len(s) && s[ve+1] == '}') {
				if s[ve] == '}' {
					ve++
				}
				ve++
			}
			ve = min(ve+1, len(s))
			conn = true
		default:
			for ve < len(s) && !strings.ContainsRune(";&'\"\n\r", rune(s[ve])) && (conn || !isBlank(s[ve])) {
				ve++
			}
			// a value with blanks in it, then ';': Password=a b;Server=x
			if !conn && ve < len(s) && isBlank(s[ve]) {
				ve = toSemicolon(s, ve)
			}
			if ve < len(s) && s[ve] == ';' {
				conn = true
			}
		}
		if !conn {
			if strings.IndexByte(" \t&?'\"\n\r", before) < 0 || strings.ContainsAny(s[vs:ve], ",()") {
				continue
			}
		}
		if ve <= vs || strings.HasPrefix(s[vs:], mask) {
			continue
		}
		spans = append(spans, [2]int{vs, ve})
		i = ve - 1
	}
	if len(spans) == 0 {
		return s, false
	}
	if found != nil {
		for _, sp := range spans {
			found(s[sp[0]:sp[1]])
		}
	}
	return writeSpans(s, spans), true
}
