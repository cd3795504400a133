package redact

import (
	"strings"

	"github.com/debugpy-guard/debugpy-guard/policies/secrets"
)

// maskTables masks, in any text, the cells of each table column whose
// header names a secret: a CSV table as Python's csv.writer writes it
// (',', ';', a tab or '|' between fields; a field in double quotes, with "" for
// a quote and line ends inside), its header row first:
//
//	user,password,host        user,password,host
//	ada,hunter2,db       ->   ada,[redacted],db
//
// A header is a line of two fields or more, each of at most 64 bytes, one
// of them a secret's name, and a name only, once its blanks and dashes
// are underscores ("API Key" is API_Key). The rows that follow it with as
// many fields are the table's; it ends at the first that has not. Each cell masked is
// handed to found, as written and, when quoted, as the program holds it.
// TestTablesAgreeWithPythonCSV checks it against csv.reader.
func maskTables(s string, extra map[string]bool, found func(string)) (string, bool) {
	if !strings.ContainsAny(s, "\n\r") || !strings.ContainsAny(s, ",;\t|") { // a table is two lines or more
		return s, false
	}
	var spans [][2]int
	for i := 0; i < len(s); {
		end := lineEnd(s, i)
		var d byte
		var secret []bool
		if line := s[i:end]; strings.ContainsAny(line, ",;\t|") && secrets.Mentions(line, extra) { // API Key too
			d, secret = header(line, extra)
		}
		if secret == nil {
			i = next(s, end)
			continue
		}
		// The rows: each a record of as many fields, read as csv.reader
		// reads it (a quoted field may run over lines).
		j := next(s, end)
		var buf [16][2]int
		for j < len(s) {
			fields, after, ok := record(buf[:0], s, j, d)
			if !ok || len(fields) != len(secret) {
				break
			}
			for k, f := range fields {
				if !secret[k] || f[1] <= f[0] {
					continue
				}
				spans = append(spans, f)
				if found != nil {
					found(s[f[0]:f[1]])
					if v := s[f[0]:f[1]]; f[0] > 0 && s[f[0]-1] == '"' && strings.Contains(v, `""`) {
						found(strings.ReplaceAll(v, `""`, `"`))
					}
				}
			}
			j = after
		}
		i = j // on from the row that ended the table (a header, maybe)
	}
	if len(spans) == 0 {
		return s, false
	}
	return writeSpans(s, spans, found), true // a cell over lines: a mask a line
}

// underscored spells a header's name as a program's (API Key is API_Key).
var underscored = strings.NewReplacer(" ", "_", "-", "_")

// lineEnd is the end of the line that starts at i (its '\r' or '\n').
func lineEnd(s string, i int) int {
	if e := strings.IndexAny(s[i:], "\r\n"); e >= 0 {
		return i + e
	}
	return len(s)
}

// next is the start of the line after the line end at i.
func next(s string, i int) int {
	if strings.HasPrefix(s[i:], "\r\n") {
		return i + 2
	}
	return min(i+1, len(s))
}

// header reads line as a table's header: its delimiter, and which of its
// fields name a secret (nil when it is not a header, or names none).
func header(line string, extra map[string]bool) (byte, []bool) {
	for _, d := range []byte{',', ';', '\t', '|'} {
		if strings.IndexByte(line, d) < 0 {
			continue
		}
		var buf [16][2]int
		fields, after, ok := record(buf[:0], line, 0, d)
		if !ok || after < len(line) || len(fields) < 2 {
			continue
		}
		var secret []bool // made once a field names a secret
		for k, f := range fields {
			name := line[f[0]:f[1]]
			if len(name) > 64 {
				return 0, nil
			}
			if name = strings.TrimSpace(name); name == "" || !plainName(name) {
				continue
			}
			if strings.ContainsAny(name, " -") {
				name = underscored.Replace(name)
			}
			if secrets.IsName(name, extra) {
				if secret == nil {
					secret = make([]bool, len(fields))
				}
				secret[k] = true
			}
		}
		if secret != nil {
			return d, secret
		}
	}
	return 0, nil
}

// plainName reports whether a header's field is a column's name and
// nothing else: letters, digits, blanks, '_', '-' and '.' (a line of code
// or of a repr split at its commas has fields with a secret's name in
// them).
func plainName(name string) bool {
	for i := 0; i < len(name); i++ {
		if c := name[i]; !(c == '_' || c == '.' || c == '-' || c == ' ' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80) {
			return false
		}
	}
	return true
}

// record reads the CSV record that starts at i, as csv.reader reads it
// with delimiter d: each field's content (inside its quotes when quoted),
// appended to fields, and where the next record starts. ok is false when a
// quoted field does not close, or something other than d or a line end
// follows one.
func record(fields [][2]int, s string, i int, d byte) (_ [][2]int, after int, ok bool) {
	for {
		if i < len(s) && s[i] == '"' {
			j := i + 1
			for {
				q := strings.IndexByte(s[j:], '"')
				if q < 0 {
					return nil, 0, false
				}
				j += q
				if j+1 < len(s) && s[j+1] == '"' { // "" is a quote
					j += 2
					continue
				}
				break
			}
			fields = append(fields, [2]int{i + 1, j})
			i = j + 1
		} else {
			j := i
			for j < len(s) && s[j] != d && s[j] != '\n' && s[j] != '\r' {
				j++
			}
			fields = append(fields, [2]int{i, j})
			i = j
		}
		switch {
		case i >= len(s):
			return fields, i, true
		case s[i] == d:
			i++
		case s[i] == '\n' || s[i] == '\r':
			return fields, next(s, i), true
		default:
			return nil, 0, false
		}
	}
}
