package redact

import (
	"strings"

	"github.com/debugpy-guard/debugpy-guard/policies/expressions"
	"github.com/debugpy-guard/debugpy-guard/policies/secrets"
)

// maskSource masks, in Python source (a debugpy_source result's lines,
// joined), the string literals of every assignment to a secret's name,
// over the whole logical line the assignment is: a value in brackets over
// several lines, a triple-quoted string, a line continued by a backslash,
// an annotation (password: str = '...'), a concatenation ('a' + '...'),
// a target's attribute or string key (self.api_key, cfg['password']). A
// literal whose value is itself a secret's name (os.environ['DB_PASSWORD'])
// names the secret and is left. A masked literal keeps its line ends, so
// that the lines can be split again (each of its lines is handed over
// too, as a result can show one alone). It is to the line-by-line masks
// what a tokenizer is to a grep: the lines of a source do not stand alone.
func maskSource(src string, extra map[string]bool, found func(string)) (string, bool) {
	if !strings.Contains(src, "=") || !secrets.Mentions(src, extra) {
		return src, false
	}
	type lit struct {
		start, end int  // its body
		named      bool // its value is a secret's name
	}
	var spans []lit
	for i := 0; i < len(src); {
		// One logical line: its words and literals, its last '=' at depth 0.
		var lits []lit
		var words [][2]int
		eq, depth, lineStart := -1, 0, i
	line:
		for i < len(src) {
			c := src[i]
			switch {
			case c == '\n' || c == '\r':
				i++
				if depth <= 0 {
					break line
				}
			case c == '#':
				for i < len(src) && src[i] != '\n' && src[i] != '\r' {
					i++
				}
			case c == '\\' && i+1 < len(src) && (src[i+1] == '\n' || src[i+1] == '\r'):
				i += 2
			case c == '\'' || c == '"' || isWordStart(c):
				if l, ok := expressions.ReadLiteral(src, i); ok {
					v := l.Value
					if !l.Known {
						v = src[l.BodyStart:l.BodyEnd]
					}
					lits = append(lits, lit{l.BodyStart, l.BodyEnd, namesSecret(v, extra)})
					i = l.End
					continue
				}
				if c == '\'' || c == '"' {
					// a literal that does not end (the lines shown stop
					// inside it): the rest is its body
					lits = append(lits, lit{i + 1, len(src), false})
					i = len(src)
					continue
				}
				j := i
				for j < len(src) && (isB64URL(src[j]) || src[j] >= 0x80) {
					j++
				}
				words = append(words, [2]int{i, j})
				i = j
			case c == '(' || c == '[' || c == '{':
				depth++
				i++
			case c == ')' || c == ']' || c == '}':
				depth--
				i++
			case c == '=' && depth <= 0 && (i+1 >= len(src) || src[i+1] != '=') && (i == lineStart || strings.IndexByte("=!<>:", src[i-1]) < 0):
				eq = i
				i++
			case c == '=' && i+1 < len(src) && src[i+1] == '=':
				i += 2
			default:
				i++
			}
		}
		if eq < 0 {
			continue
		}
		secret := false // the target names a secret: PASSWORD, self.api_key, cfg['password']
		for _, w := range words {
			secret = secret || w[1] <= eq && secrets.IsName(src[w[0]:w[1]], extra)
		}
		for _, l := range lits {
			secret = secret || l.end <= eq && l.named
		}
		for _, l := range lits {
			if secret && l.start > eq && !l.named && l.end > l.start {
				spans = append(spans, l)
			}
		}
	}
	if len(spans) == 0 {
		return src, false
	}
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		body := src[sp.start:sp.end]
		if body == mask {
			continue
		}
		if found != nil {
			found(body)
		}
		b.WriteString(src[last:sp.start])
		// each line of the body masked on its own: the line ends stay, a
		// '\r' too (a body cut short at a CRLF's '\r' lost it)
		for rest := body; ; {
			e := strings.IndexAny(rest, "\r\n")
			part := rest
			if e >= 0 {
				part = rest[:e]
			}
			if strings.TrimSpace(part) != "" {
				if found != nil && part != body {
					found(strings.TrimSpace(part))
				}
				b.WriteString(mask)
			}
			if e < 0 {
				break
			}
			b.WriteByte(rest[e])
			rest = rest[e+1:]
		}
		last = sp.end
	}
	if last == 0 {
		return src, false
	}
	b.WriteString(src[last:])
	return b.String(), true
}

// isWordStart: a byte a name, a number or a literal's prefix starts with.
func isWordStart(c byte) bool { return isB64URL(c) && c != '-' || c >= 0x80 }

// namesSecret: v, a string in code, names a secret rather than holds one:
// a secret's name (secrets.IsName) spelled as a key or a variable is
// (DB_PASSWORD, api_key, X-Api-Key, password), a value with a secret's
// word in it is not (MySecretPassword1, 'secret sauce').
func namesSecret(v string, extra map[string]bool) bool {
	if v == "" || !secrets.IsName(v, extra) {
		return false
	}
	upper, lower, sep := false, false, false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= 'a' && c <= 'z':
			lower = true
		case c == '_' || c == '-' || c == '.':
			sep = true
		case c < '0' || c > '9':
			return false
		}
	}
	return !upper || !lower || sep
}
