package pyrepr

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/debugpy-guard/debugpy-guard/internal/cpython"
)

// TestAgreesWithCPython: Repr against CPython's repr for every character
// Unicode has, and for strings that mix quotes and escapes; BytesBody
// against repr of every byte. The one disagreement allowed is a character
// this Python's Unicode tables do not have yet (category Cn there,
// assigned in Go's): repr escapes it, as an older Python would, while
// Body prints it.
func TestAgreesWithCPython(t *testing.T) {
	python := cpython.Path(t)
	var in []string
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if utf8.ValidRune(r) { // not a surrogate: no Go string holds one
			in = append(in, string(r))
		}
	}
	extra := []string{`it's`, `say "hi"`, `it's "both"`, `back\slash`, "tab\there\nnew\r", "nb\u00a0sp zw\u200bj",
		"astral \U0001F600 \U000E0001", "ctl \x00\x1b\x7f\u0085 end", "é's \"q\" \\", ""}
	in = append(in, extra...)
	// Python makes the same characters, then reads the extra values (a
	// JSON string a line); it answers a line a value, tab-separated:
	// repr, and whether a character is unknown to its tables (Cn) (repr
	// escapes tabs and line ends). Then a line a byte: repr of the bytes.
	outb := cpython.Run(t, python, `
import json, sys, unicodedata
def line(s):
    cn = any(unicodedata.category(c) == "Cn" for c in s)
    return "%s\t%d" % (repr(s), cn)
chars = (chr(c) for c in range(0x110000) if not 0xd800 <= c < 0xe000)
extra = (json.loads(l) for l in sys.stdin.read().split("\n") if l)
out = [line(s) for s in (*chars, *extra)]
out += [repr(bytes([c])) for c in range(256)] + [repr(b"it's"), repr(b"it's \"q\""), repr(b"a\\b")]
sys.stdout.buffer.write(("\n".join(out) + "\n").encode())
`, cpython.JSONLines(extra))
	var bs []string
	for c := range 256 {
		bs = append(bs, string([]byte{byte(c)}))
	}
	bs = append(bs, "it's", `it's "q"`, `a\b`)
	lines := strings.Split(strings.TrimSuffix(string(outb), "\n"), "\n")
	if len(lines) != len(in)+len(bs) {
		t.Fatalf("python answered %d of %d values", len(lines), len(in)+len(bs))
	}
	newer, bad := 0, 0
	for i, l := range lines[:len(in)] {
		repr, cn, _ := strings.Cut(l, "\t")
		if mine := Repr(in[i]); mine != repr {
			if cn == "1" {
				newer++
			} else if bad++; bad <= 10 {
				t.Errorf("repr of %q: CPython %s, Repr %s", in[i], repr, mine)
			}
		}
	}
	for i, repr := range lines[len(in):] {
		q := Quote(bs[i])
		if mine := "b" + string(q) + BytesBody(bs[i], q) + string(q); mine != repr {
			t.Errorf("repr of bytes %q: CPython %s, BytesBody %s", bs[i], repr, mine)
		}
	}
	t.Logf("%d values, %d bytes; %d characters newer than this Python's Unicode tables", len(in), len(bs), newer)
}
