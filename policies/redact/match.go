package redact

import "strings"

// Hand-written matchers for the secrets redact masks. They were regexps;
// Go's regexp package in a wasm guest cost ~70 ms to compile on an
// instance's first redaction and tens of µs a string after, enough to push
// a large result past the module's 100 ms limit. These scan each string
// once and allocate only when they mask.

// secretWords are the parts of a name that make it a secret's (matched
// lower-cased, anywhere in the name).
var secretWords = []string{"password", "passwd", "secret", "token", "api_key", "apikey", "private_key",
	"privatekey", "access_key", "accesskey", "credential", "auth"}

// reprWords are those that make a key inside a repr ('db_password': ...)
// a secret's.
var reprWords = []string{"password", "passwd", "secret", "token", "api_key", "apikey", "private_key",
	"privatekey", "access_key", "accesskey"}

func hasWord(s string, words []string) bool {
	l := strings.ToLower(s)
	for _, w := range words {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

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

// maskShapes replaces every JWT, PEM private key and AWS key id in s.
func maskShapes(s string) (string, bool) {
	changed := false
	for _, find := range []func(string, int) (int, int, bool){jwt, pem, awsKey} {
		for from := 0; ; {
			start, end, ok := find(s, from)
			if !ok {
				break
			}
			s = s[:start] + mask + s[end:]
			from, changed = start+len(mask), true
		}
	}
	return s, changed
}

// maskReprPairs masks the value of each 'key': 'value' pair inside a repr
// whose key holds a secret word: {'db_password': 's3cr3t'}.
func maskReprPairs(s string) (string, bool) {
	var b strings.Builder
	last, changed := 0, false
	for i := 0; i < len(s); i++ {
		q := s[i]
		if q != '\'' && q != '"' {
			continue
		}
		// a quoted key of word characters and dashes
		k := i + 1 + run(s, i+1, isB64URL)
		if k >= len(s) || s[k] != q || k == i+1 {
			continue
		}
		key := s[i+1 : k]
		j := k + 1
		j += run(s, j, isSpace)
		if j >= len(s) || s[j] != ':' {
			continue
		}
		j++
		j += run(s, j, isSpace)
		if j >= len(s) || (s[j] != '\'' && s[j] != '"') {
			continue
		}
		vq := s[j]
		e := strings.IndexByte(s[j+1:], vq)
		if e < 0 {
			continue
		}
		e += j + 1 // the closing quote
		if hasWord(key, reprWords) {
			b.WriteString(s[last:j])
			b.WriteString("'" + mask + "'")
			last, changed = e+1, true
		}
		i = e
	}
	if !changed {
		return s, false
	}
	b.WriteString(s[last:])
	return b.String(), true
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
