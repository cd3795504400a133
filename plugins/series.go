package plugins

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// A value spelled down a pandas Series. pd.Series(list(password)), or of
// a key's bytes, shows the secret a character a line, its index before
// it, in the Series' repr, which a listing shows whole:
//
//	0     Q
//	1     v
//	...
//	dtype: object
//
// which no form matches, and no display's reading (sequenceSpans) reads
// (found 2026-12-07). So the lines of a Series' repr, up to the line that
// ends it (dtype: ..., after Name: or Length: too), are read as a run of
// elements: each line's value one character for an object Series, a
// whole number (the character it codes) for an integer one; forwards, cut
// after the last line before the ".." a long Series is shown with, and
// cut before its lines after it. A value found there, whole or the piece
// of it beside the cut (minPiece characters or more), is masked where the
// lines spell it (runSpans).
func (m *Masker) seriesSpans(s string, each func(from, to int)) {
	if !strings.Contains(s, "dtype: ") {
		return // most
	}
	var head, tail []seriesLine
	cutAt := false // a ".." line was seen in this block
	for start := 0; start < len(s); {
		end := strings.IndexByte(s[start:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += start
		}
		line := s[start:end]
		switch {
		case strings.TrimLeft(line, " ") == "..":
			cutAt = true
		case seriesEnd(line):
			_, dtype, _ := strings.Cut(line, "dtype: ")
			dtype, _, _ = strings.Cut(dtype, " ") // a listing's text goes on: [ref 8]
			heads := runs(head, dtype)
			for k, run := range heads { // the last one beside the cut
				m.runSpans(s, run, endIf(cutAt && k == len(heads)-1, len(s)), nil, each)
			}
			for k, run := range runs(tail, dtype) {
				m.runSpans(s, run, 0, nil, each)
				if k > 0 || len(run) < minPiece {
					continue
				}
				// the first one after the cut: its longest start that ends a value
				var view []byte
				for _, e := range run {
					view = utf8.AppendRune(view, e.r)
				}
				if n := m.valueEnd(string(view)); n > 0 {
					each(run[0].from, run[utf8.RuneCount(view[:n])-1].end)
				}
			}
			head, tail, cutAt = head[:0], tail[:0], false
		default:
			l, ok := seriesValue(line, start)
			switch {
			case !ok:
				head, tail, cutAt = head[:0], tail[:0], false
			case cutAt:
				tail = append(tail, l)
			default:
				head = append(head, l)
			}
		}
		start = end + 1
	}
}

// seriesLine is a Series' line's value, and where it is in the text.
type seriesLine struct {
	from, end int
	v         string
}

// endIf is past when cut (a cut after the run), else 0.
func endIf(cut bool, past int) int {
	if cut {
		return past + 1
	}
	return 0
}

// seriesEnd reports whether line is the last of a Series' repr: its dtype,
// after its name or its length.
func seriesEnd(line string) bool {
	if strings.HasPrefix(line, "dtype: ") {
		return true
	}
	return (strings.HasPrefix(line, "Name: ") || strings.HasPrefix(line, "Length: ")) && strings.Contains(line, ", dtype: ")
}

// seriesValue reads a Series' line: its index (on a listing's text, the
// row's name and type before it), two spaces or more, then its value.
func seriesValue(line string, start int) (seriesLine, bool) {
	i := strings.LastIndex(line, "  ")
	if i < 0 || i+2 == len(line) {
		return seriesLine{}, false
	}
	return seriesLine{start + i + 2, start + len(line), line[i+2:]}, true
}

// runs are the runs of elements ls spell as a Series of dtype holds them:
// one character each (object), or a number each (an integer dtype); a
// line that is neither ends a run.
func runs(ls []seriesLine, dtype string) [][]elem {
	ints := strings.HasPrefix(dtype, "int") || strings.HasPrefix(dtype, "uint")
	if !ints && dtype != "object" && dtype != "string" {
		return nil
	}
	var out [][]elem
	var run []elem
	for _, l := range ls {
		e := elem{from: l.from, end: l.end}
		ok := false
		if ints {
			n, err := strconv.ParseInt(l.v, 10, 32)
			ok = err == nil && n >= 0 && n <= utf8.MaxRune
			e.r = rune(n)
		} else {
			r, size := utf8.DecodeRuneInString(l.v)
			ok = size == len(l.v) && r != utf8.RuneError
			e.r, e.text = r, l.v
		}
		if ok {
			run = append(run, e)
			continue
		}
		if len(run) > 0 {
			out, run = append(out, run), nil
		}
	}
	if len(run) > 0 {
		out = append(out, run)
	}
	return out
}
