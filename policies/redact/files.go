package redact

import "strings"

// Credential files whose lines name no secret: a .pgpass line's password
// is its fifth field, a .netrc line's follows the word password. A person
// who approves reading such a file (debugpy_source, outside the session's
// directories) approves the agent reading it, not the agent seeing its
// passwords. Each line is judged alone: a window of a file can start at
// any line.

// maskCredentialLines masks, in each line of s, the password of a .pgpass
// line (pgpassPassword) and the password and account of a .netrc line
// (netrcValues), and hands each to found as written and as the program
// reads it (a .pgpass password's \: and \\ unescaped).
func maskCredentialLines(s string, found func(string)) (string, bool) {
	var spans [][2]int
	eachCredential(s, func(vs, ve int) {
		if found != nil {
			found(s[vs:ve])
			if u := unescape(s[vs:ve]); u != s[vs:ve] {
				found(u)
			}
		}
		spans = append(spans, [2]int{vs, ve})
	})
	if spans == nil {
		return s, false
	}
	return writeSpans(s, spans, found), true // a value is within its line: each line keeps its end
}

// eachCredential calls f with the span in s of each value
// maskCredentialLines masks (none that is the mask already).
func eachCredential(s string, f func(vs, ve int)) {
	pg, nrc := strings.Count(s, ":") >= 4, strings.Contains(s, "password") || strings.Contains(s, "account")
	if !pg && !nrc {
		return
	}
	for at := 0; at < len(s); {
		n := strings.IndexByte(s[at:], '\n') + 1
		if n == 0 {
			n = len(s) - at
		}
		line := s[at : at+n]
		var spans [][2]int
		if pg {
			if vs, ve, ok := pgpassPassword(line); ok {
				spans = append(spans, [2]int{vs, ve})
			}
		}
		if nrc && len(spans) == 0 {
			spans = netrcValues(line)
		}
		for _, sp := range spans {
			if line[sp[0]:sp[1]] != mask {
				f(at+sp[0], at+sp[1])
			}
		}
		at += n
	}
}

// pgpassPassword finds the password of a line written as libpq's password
// file writes one, hostname:port:database:username:password: the first
// four fields not empty and without blanks or quotes, the port a number
// or *, the password the rest of the line, with no colon but an escaped
// one (\:). An IPv6 address has an empty field (::) or more colons; a
// time of day has fewer.
func pgpassPassword(line string) (vs, ve int, ok bool) {
	i := run(line, 0, isBlank)
	end := len(strings.TrimRight(line, " \t\r\n"))
	if i >= end || line[i] == '#' {
		return 0, 0, false
	}
	field := 0
	start := i
	for ; i < end && field < 4; i++ {
		switch c := line[i]; {
		case c == '\\':
			i++
		case c == ':':
			f := line[start:i]
			if f == "" || field == 1 && f != "*" && (len(f) > 5 || run(f, 0, func(c byte) bool { return c >= '0' && c <= '9' }) != len(f)) {
				return 0, 0, false
			}
			field++
			start = i + 1
		case c == ' ' || c == '\t' || c == '"' || c == '\'':
			return 0, 0, false
		}
	}
	if field < 4 || start >= end {
		return 0, 0, false
	}
	for j := start; j < end; j++ {
		switch line[j] {
		case '\\':
			j++
		case ':':
			return 0, 0, false
		}
	}
	return start, end, true
}

// unescape reads a .pgpass field as libpq does: a backslash keeps the
// byte after it.
func unescape(v string) string {
	if !strings.Contains(v, `\`) {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			i++
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// netrcValues finds the values of password and account in a line made of
// .netrc's keyword-value pairs only (machine M login L password P, or a
// line of its own, password P; default takes no value): each a word, or a
// quoted string's inside.
func netrcValues(line string) [][2]int {
	var spans [][2]int
	i := 0
	for {
		i += run(line, i, isSpace)
		if i >= len(line) {
			return spans
		}
		kw := line[i : i+run(line, i, func(c byte) bool { return c > ' ' })]
		i += len(kw)
		switch kw {
		case "default":
			continue
		case "machine", "login", "password", "account":
		default:
			return nil // not a .netrc line
		}
		i += run(line, i, isBlank)
		if i >= len(line) || isSpace(line[i]) {
			return nil
		}
		vs, ve := i, i+run(line, i, func(c byte) bool { return c > ' ' })
		if line[i] == '"' {
			j := i + 1
			for j < len(line) && line[j] != '"' && line[j] != '\n' {
				if line[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(line) || line[j] != '"' {
				return nil
			}
			vs, ve = i+1, j
			i = j + 1
		} else {
			if v := line[vs:ve]; v == "=" || v == ":" {
				return nil // password = ... is an assignment (maskAssignments), not .netrc
			}
			i = ve
		}
		if (kw == "password" || kw == "account") && ve > vs {
			spans = append(spans, [2]int{vs, ve})
		}
	}
}
