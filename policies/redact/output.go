package redact

import (
	"strings"

	"github.com/debugpy-guard/debugpy-guard/plugins/sdk"
)

// outputMasked masks a debugpy_output result's entries read as the program
// wrote them: the entries of each category one text, after the output they
// continue (derived.before). A table's rows are read under their header
// and a YAML key's block under its key though the read starts inside them
// (its since, its max_items), or an entry of another category comes in
// between. The text is masked whole (maskText), then cut back into the
// entries (splitMasked).
func outputMasked(res, before sdk.Value, extra map[string]bool, n *int) sdk.Value {
	entries := res.Get("entries").Elements()
	if len(entries) == 0 {
		return res
	}
	if len(before.Elements()) == 0 && len(entries) == 1 {
		return res // one entry, before nothing: walk reads it alone
	}
	type stream struct {
		pieces []string
		entry  []int // the entry of each piece; -1: before the read
	}
	streams := map[string]*stream{}
	var order []string
	add := func(cat, text string, entry int) {
		st := streams[cat]
		if st == nil {
			st = &stream{}
			streams[cat] = st
			order = append(order, cat)
		}
		st.pieces = append(st.pieces, text)
		st.entry = append(st.entry, entry)
	}
	for _, b := range before.Elements() {
		add(b.Get("category").Str(), b.Get("text").Str(), -1)
	}
	for i, e := range entries {
		add(e.Get("category").Str(), e.Get("text").Str(), i)
	}
	changed := false
	for _, cat := range order {
		st := streams[cat]
		if len(st.pieces) < 2 {
			continue // one entry, before nothing: walk reads it alone
		}
		text := strings.Join(st.pieces, "")
		masked, ok := maskText(text, extra)
		if !ok {
			continue
		}
		for k, part := range splitMasked(st.pieces, text, masked) {
			i := st.entry[k]
			if i < 0 || part == st.pieces[k] {
				continue
			}
			*n++
			changed = true
			entries[i].Set("text", sdk.StringValue(part))
		}
	}
	if changed {
		res.Set("entries", sdk.ArrayValue(entries...))
	}
	return res
}

// splitMasked cuts masked, text with its secrets masked, back into the
// pieces that text was joined from: line by line, each line's changed span
// (between the part it begins with and the part it ends with, which the
// mask left as they were) goes whole to the first piece that holds any of
// it, and each piece keeps its own bytes of the rest. What the pieces get
// is masked, joined, and nothing else: no piece shows a byte of a masked
// span. Were the mask to change the count of lines (every mask keeps line
// ends: writeMasked), every piece is masked whole.
func splitMasked(pieces []string, text, masked string) []string {
	out := make([]string, len(pieces))
	tl, ml := strings.SplitAfter(text, "\n"), strings.SplitAfter(masked, "\n")
	if len(tl) != len(ml) {
		for k, p := range pieces {
			var b strings.Builder
			writeMasked(&b, p)
			out[k] = b.String()
		}
		return out
	}
	bs := make([]strings.Builder, len(pieces))
	k, start := 0, 0 // the first piece that may hold the line, and its offset in text
	off := 0         // the line's offset in text
	for i, t := range tl {
		m := ml[i]
		p := 0 // t[:p] and t[te:] are m[:p] and m[me:]: the changed span is t[p:te], m[p:me]
		for p < len(t) && p < len(m) && t[p] == m[p] {
			p++
		}
		te, me := len(t), len(m)
		for te > p && me > p && t[te-1] == m[me-1] {
			te, me = te-1, me-1
		}
		give := t != m // m[p:me] is still to be given
		last := len(pieces) - 1
		end := off + len(t)
		for j, from := k, start; j < len(pieces) && from < end; j++ {
			to := from + len(pieces[j])
			if a, b := max(from, off)-off, min(to, end)-off; a < b { // the piece's bytes of the line
				last = j
				if a < p {
					bs[j].WriteString(t[a:min(b, p)])
				}
				if give && b > p {
					bs[j].WriteString(m[p:me])
					give = false
				}
				if b > te {
					bs[j].WriteString(m[max(a, te)-te+me : b-te+me])
				}
			}
			if to <= end {
				k, start = j+1, to
			}
			from = to
		}
		if give { // added at the line's end: to the last piece that holds it
			bs[last].WriteString(m[p:me])
		}
		off = end
	}
	for k := range out {
		out[k] = bs[k].String()
	}
	return out
}
