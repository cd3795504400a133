package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// DefaultMaxResult bounds, in bytes, each of a result's text and its
// structured JSON (GateOptions.MaxResult).
const DefaultMaxResult = 32 << 10

// bound cuts a result over max bytes: the text at a line (or rune) with a
// note of what was cut and how to read the rest (res.ReadMore), and the
// structured result by shortening its longest strings and then dropping
// trailing array items, which keeps it to the tool's output schema. It
// runs after the secrets are masked, so no cut lands inside a secret that
// would then no longer be recognised.
func bound(res Result, max int) (Result, bool) {
	cut := false
	var note []string
	if res.Structured != nil {
		raw := res.encoded
		if raw == nil {
			raw, _ = json.Marshal(res.Structured)
		}
		if len(raw) > max {
			var v any
			d := json.NewDecoder(strings.NewReader(string(raw)))
			d.UseNumber()
			if d.Decode(&v) == nil {
				v = shrink(v, max)
				if b, err := json.Marshal(v); err == nil {
					res.Structured, res.encoded, cut = v, b, true
					note = append(note, fmt.Sprintf("the structured result is %d bytes: its longest strings were shortened and trailing items dropped to %d", len(raw), len(b)))
				}
			}
		}
	}
	if len(res.Text) > max {
		n := max
		for n > 0 && !utf8.RuneStart(res.Text[n]) {
			n--
		}
		if i := strings.LastIndexByte(res.Text[:n], '\n'); i > n-2048 && i > 0 {
			n = i
		}
		note = append([]string{fmt.Sprintf("the text is %d bytes; the first %d are shown", len(res.Text), n)}, note...)
		res.Text = res.Text[:n]
		cut = true
	}
	if cut {
		more := res.ReadMore
		if more == "" {
			more = "ask for less"
		}
		res.Text += "\n… [cut: " + strings.Join(note, "; ") + ". To read the rest: " + more + ".]"
	}
	return res, cut
}

// shrink makes v's JSON at most max bytes if it can: it cuts every string
// longer than some length to that length (marking each cut), the longest
// length that fits; when strings of 64 bytes do not fit, it also keeps
// only the first items of every array longer than some count, the largest
// count that fits.
func shrink(v any, max int) any {
	size := func(x any) int { b, _ := json.Marshal(x); return len(b) }
	longest, widest := extent(v)
	strLen := largest(64, longest, func(n int) bool { return size(cut(v, n, -1)) <= max })
	if w := cut(v, strLen, -1); size(w) <= max || widest <= 1 {
		return w
	}
	items := largest(1, widest, func(n int) bool { return size(cut(v, strLen, n)) <= max })
	return cut(v, strLen, items)
}

// largest is the largest n in [lo, hi] for which fits holds (fits is
// monotone: true up to some n), or lo when none.
func largest(lo, hi int, fits func(int) bool) int {
	if hi < lo {
		return lo
	}
	best := lo
	for lo <= hi {
		mid := lo + (hi-lo)/2
		if fits(mid) {
			best, lo = mid, mid+1
		} else {
			hi = mid - 1
		}
	}
	return best
}

// extent is the length of v's longest string and of its longest array.
func extent(v any) (str, arr int) {
	switch x := v.(type) {
	case string:
		return len(x), 0
	case []any:
		arr = len(x)
		for _, e := range x {
			s, a := extent(e)
			str, arr = max(str, s), max(arr, a)
		}
	case map[string]any:
		for _, e := range x {
			s, a := extent(e)
			str, arr = max(str, s), max(arr, a)
		}
	}
	return str, arr
}

// cut is a copy of v with each string longer than strLen cut to it (at a
// rune's start) and marked, and, when items >= 0, each array kept to its
// first items.
func cut(v any, strLen, items int) any {
	switch x := v.(type) {
	case string:
		if len(x) <= strLen {
			return x
		}
		n := strLen
		for n > 0 && !utf8.RuneStart(x[n]) {
			n--
		}
		return x[:n] + fmt.Sprintf("…[cut: %d bytes]", len(x))
	case []any:
		if items >= 0 && len(x) > items {
			x = x[:items]
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cut(e, strLen, items)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = cut(e, strLen, items)
		}
		return out
	}
	return v
}
