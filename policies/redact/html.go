package redact

import (
	"html"
	"strconv"
	"strings"
)

// maskHTMLTables masks, in an HTML text, every cell of a table's column
// whose header names a secret: a header row is a row of <th> cells alone
// (pandas' to_html, tabulate's html, a page's table), and the rows after
// it in the same table have the cells at those columns masked, an index's
// <th> counted as a column, colspan too; in a row of data, the cells after
// a <th> that names a secret are masked (a table of labels and values). A cell's text is masked to its
// end tag, each text between the tags in it; each is handed to found as
// written and with its character references decoded (p&amp;ss is p&ss).
// TestHTMLTablesAgreeWithPandas reads the masked tables back with
// Python's html.parser.
func maskHTMLTables(s string, extra map[string]bool, found func(string)) (string, bool) {
	if !strings.Contains(s, "<th") && !strings.Contains(s, "<TH") {
		return s, false
	}
	var spans [][2]int
	var secretCols map[int]bool // the columns of the last header row that named a secret
	type cell struct {
		th         bool
		col, span  int
		start, end int // its content: from its start tag's end to its end tag
	}
	var row []cell
	col := 0
	endRow := func() {
		if len(row) == 0 {
			return
		}
		header, named := true, map[int]bool{}
		for _, c := range row {
			header = header && c.th
			if c.th && isSecretName(trimBlank(html.UnescapeString(tagsOut(s[c.start:c.end]))), extra) {
				for k := c.col; k < c.col+c.span; k++ {
					named[k] = true
				}
			}
		}
		switch {
		case header && len(named) > 0:
			secretCols = named
		case header:
			// A header row that names none keeps the columns named above
			// it: pandas writes an index's name in a second header row.
		default:
			// A data row: its cells under a secret's column, and those
			// after a <th> that names a secret (<tr><th>password</th>
			// <td>...</td></tr>, a table of labels and values).
			labelled := false
			for _, c := range row {
				if c.th {
					labelled = named[c.col]
					continue
				}
				hide := labelled
				for k := c.col; k < c.col+c.span && !hide; k++ {
					hide = secretCols[k]
				}
				if hide {
					spans = textSpans(s, c.start, c.end, spans, found)
				}
			}
		}
		row, col = row[:0], 0
	}
	for i := 0; i < len(s); {
		lt := strings.IndexByte(s[i:], '<')
		if lt < 0 {
			break
		}
		i += lt
		gt := strings.IndexByte(s[i:], '>')
		if gt < 0 {
			break
		}
		tag := s[i+1 : i+gt]
		i += gt + 1
		name, closing := tagName(tag)
		switch {
		case name == "table":
			endRow()
			secretCols = nil
		case name == "tr", name == "thead", name == "tbody", name == "tfoot":
			endRow()
		case (name == "td" || name == "th") && !closing:
			span := 1
			if n, err := strconv.Atoi(attribute(tag, "colspan")); err == nil && n > 1 && n <= 1000 {
				span = n
			}
			end := endTag(s, i, name)
			row = append(row, cell{th: name == "th", col: col, span: span, start: i, end: end})
			col += span
			i = end
		}
	}
	endRow()
	if len(spans) == 0 {
		return s, false
	}
	return writeSpans(s, spans, found), true
}

// tagName is a tag's name in lower case, and whether it closes (</td>).
func tagName(tag string) (string, bool) {
	closing := strings.HasPrefix(tag, "/")
	if closing {
		tag = tag[1:]
	}
	n := 0
	for n < len(tag) && (tag[n]|0x20 >= 'a' && tag[n]|0x20 <= 'z' || n > 0 && tag[n] >= '0' && tag[n] <= '9') {
		n++
	}
	return strings.ToLower(tag[:n]), closing
}

// attribute is the value of a tag's attribute name (colspan="2"), or "".
func attribute(tag, name string) string {
	i := indexFold(tag, name+"=") // an index into tag: ToLower's may not be one (a byte not UTF-8 grows to three)
	if i < 0 {
		return ""
	}
	v := strings.TrimLeft(tag[i+len(name)+1:], `"'`)
	n := 0
	for n < len(v) && v[n] >= '0' && v[n] <= '9' {
		n++
	}
	return v[:n]
}

// endTag is where the cell whose content starts at i ends: at its end
// tag, or at the next cell's or row's start (HTML lets a cell's end tag
// go), or at the text's end.
func endTag(s string, i int, name string) int {
	for j := i; j < len(s); {
		lt := strings.IndexByte(s[j:], '<')
		if lt < 0 {
			return len(s)
		}
		j += lt
		gt := strings.IndexByte(s[j:], '>')
		if gt < 0 {
			return len(s)
		}
		if n, _ := tagName(s[j+1 : j+gt]); n == "td" || n == "th" || n == "tr" || n == "table" || n == "thead" || n == "tbody" || n == "tfoot" {
			return j
		}
		j += gt + 1
	}
	return len(s)
}

// tagsOut is s without its tags.
func tagsOut(s string) string {
	var b strings.Builder
	for {
		lt := strings.IndexByte(s, '<')
		if lt < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:lt])
		gt := strings.IndexByte(s[lt:], '>')
		if gt < 0 {
			return b.String()
		}
		s = s[lt+gt+1:]
	}
}

// textSpans adds the spans of the texts between the tags of s[from:to],
// blanks at their ends left, and hands each to found.
func textSpans(s string, from, to int, spans [][2]int, found func(string)) [][2]int {
	for i := from; i < to; {
		te := to
		if lt := strings.IndexByte(s[i:to], '<'); lt >= 0 {
			te = i + lt
		}
		if v := strings.TrimSpace(s[i:te]); v != "" {
			vs := i + strings.Index(s[i:te], v)
			spans = append(spans, [2]int{vs, vs + len(v)})
			if found != nil {
				found(v)
				if u := html.UnescapeString(v); u != v {
					found(u)
				}
			}
		}
		if te == to {
			break
		}
		gt := strings.IndexByte(s[te:to], '>')
		if gt < 0 {
			break
		}
		i = te + gt + 1
	}
	return spans
}
