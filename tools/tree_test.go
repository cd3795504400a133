package tools

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestParseTreeAgrees holds parseTree to encoding/json's Decoder reading
// (decodeTreeAll) on random JSON documents, each cut at every byte and
// changed at random bytes: where parseTree reads a tree, the Decoder reads
// the same one; where it reads none, the Decoder refuses too. Inputs are
// what decodeStrict hands it: valid UTF-8, no unpaired surrogate escape.
func TestParseTreeAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 2026))
	var read, refused int
	for n := 0; n < 4000; n++ {
		var b strings.Builder
		genJSON(rng, &b, 0, rng.IntN(3) == 0)
		doc := b.String()
		inputs := []string{doc}
		for range 6 {
			inputs = append(inputs, mutateJSON(rng, doc))
		}
		if len(doc) < 200 {
			for i := range len(doc) {
				inputs = append(inputs, doc[:i])
			}
		}
		for _, in := range inputs {
			if ok, checked := agreeTree(t, []byte(in)); checked && ok {
				read++
			} else if checked {
				refused++
			}
		}
	}
	// Deep nesting, on both sides of the limit.
	for _, depth := range []int{maxNesting - 1, maxNesting, maxNesting + 1, maxNesting + 2} {
		for _, open := range []string{"[", `{"a":`} {
			doc := strings.Repeat(open, depth) + "1"
			for range depth {
				if open == "[" {
					doc += "]"
				} else {
					doc += "}"
				}
			}
			agreeTree(t, []byte(doc))
		}
	}
	// Objects of many keys (looked up in a map past manyKeys), with a key
	// repeated from before the map, from after it, and none.
	for _, dup := range []int{-1, 0, manyKeys - 1, manyKeys, manyKeys + 1, 3 * manyKeys} {
		for n := manyKeys - 1; n <= 3*manyKeys+2; n++ {
			var b strings.Builder
			b.WriteByte('{')
			for i := range n {
				fmt.Fprintf(&b, `"k%d":%d,`, i, i)
			}
			if dup >= 0 && dup < n {
				fmt.Fprintf(&b, `"k%d":0,`, dup)
			}
			b.WriteString(`"last":true}`)
			agreeTree(t, []byte(b.String()))
		}
	}
	t.Logf("%d inputs read, %d refused", read, refused)
	if read < 5000 || refused < 5000 {
		t.Fatalf("%d inputs read, %d refused: the cases do not test both ways", read, refused)
	}
}

// FuzzParseTree: the same agreement on any bytes.
func FuzzParseTree(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":"\u00e9\ud83d\ude00\n\/"}`, `[1,-0.5e+3,true,false,null]`,
		`{"a":{"b":[]},"a":2}`, `{"k\u0065y":1,"key":2}`, ` { } `, `01`, `1.`, `"\u12"`, "\"a\tb\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { agreeTree(t, raw) })
}

// agreeTree compares parseTree with decodeTreeAll on raw; checked is false
// when raw is not what decodeStrict would hand either.
func agreeTree(t *testing.T, raw []byte) (ok, checked bool) {
	t.Helper()
	if !utf8.Valid(raw) || checkEscapes(raw) != nil {
		return false, false
	}
	fast, ok := parseTree(raw)
	slow, err := decodeTreeAll(raw)
	switch {
	case ok && err != nil:
		t.Fatalf("%q: parseTree reads %#v, the Decoder refuses: %v", raw, fast, err)
	case !ok && err == nil:
		t.Fatalf("%q: parseTree refuses, the Decoder reads %#v", raw, slow)
	case ok && !reflect.DeepEqual(fast, slow):
		t.Fatalf("%q: two trees:\nparseTree %#v\nDecoder   %#v", raw, fast, slow)
	}
	return ok, true
}

var (
	jsonKeys    = []string{"a", "b", "expression", "expr\\u0065ssion", "A", "\\u0061", "k\\\\", "\\\"", "é", ""}
	jsonStrings = pieces{[]string{"", "x", "\\n\\t\\r\\b\\f\\/\\\\\\\"", "\\u0000", "\\u00e9", "\\uD83D\\uDE00",
		"\\ud83d\\ude00", "😀", "é", "\\u2028", "<>&", "\\uDBFF\\uDFFF", "\\\\u0041", "\u00a0", "'"},
		[]string{"\t", "\x01", "\x19", "\x1f", "\\x", "\\u12G4", "a\\", "\\U0041"}}
	jsonNumbers = pieces{[]string{"0", "-0", "1", "-1", "12", "1.5", "-0.0", "1e5", "1E+5", "1e-5", "0.5e3", "9223372036854775808"},
		[]string{"01", "1.", ".5", "-", "+1", "1e", "1e+", "0x1", "1_0", "Infinity", "NaN", "--1", "1.2.3"}}
	jsonSpaces   = pieces{[]string{"", " ", "\t", "\n", "\r", "  \n\t"}, []string{"\v", "\f", "\u00a0", "\u2028"}}
	jsonLiterals = pieces{[]string{"true", "false", "null"}, []string{"tru", "nul", "True", "nulll"}}
)

// pieces are valid spellings of a JSON part, and invalid ones (picked one
// time in ten).
type pieces [2][]string

func (p pieces) pick(rng *rand.Rand) string {
	l := p[0]
	if rng.IntN(10) == 0 {
		l = p[1]
	}
	return l[rng.IntN(len(l))]
}

// genJSON writes a random JSON-like value: mostly valid, with repeated
// keys, escapes of every kind, odd numbers and odd whitespace now and then.
func genJSON(rng *rand.Rand, b *strings.Builder, depth int, deep bool) {
	sp := func() {
		if rng.IntN(4) == 0 {
			b.WriteString(jsonSpaces.pick(rng))
		}
	}
	sp()
	limit := 4
	if deep {
		limit = maxNesting + 3
	}
	k := rng.IntN(10)
	if depth >= limit {
		k = 4 + rng.IntN(6)
	}
	switch {
	case k < 2:
		b.WriteByte('{')
		for i := range rng.IntN(5) {
			if i > 0 {
				b.WriteByte(',')
			}
			sp()
			b.WriteString(`"` + jsonKeys[rng.IntN(len(jsonKeys))] + `"`)
			sp()
			b.WriteByte(':')
			genJSON(rng, b, depth+1, deep)
		}
		sp()
		b.WriteByte('}')
	case k < 4:
		b.WriteByte('[')
		for i := range rng.IntN(5) {
			if i > 0 {
				b.WriteByte(',')
			}
			genJSON(rng, b, depth+1, deep)
		}
		sp()
		b.WriteByte(']')
	case k < 7:
		b.WriteByte('"')
		for range rng.IntN(4) {
			b.WriteString(jsonStrings.pick(rng))
		}
		b.WriteByte('"')
	case k < 9:
		b.WriteString(jsonNumbers.pick(rng))
	default:
		b.WriteString(jsonLiterals.pick(rng))
	}
	sp()
}

// mutateJSON changes, inserts or deletes a few bytes of doc.
func mutateJSON(rng *rand.Rand, doc string) string {
	b := []byte(doc)
	const alphabet = "{}[]:,\"\\ u0aeE.-+\t\n"
	for range 1 + rng.IntN(3) {
		c := alphabet[rng.IntN(len(alphabet))]
		switch i := rng.IntN(len(b) + 1); {
		case i == len(b) || rng.IntN(3) == 0:
			b = append(b[:i], append([]byte{c}, b[i:]...)...)
		case rng.IntN(2) == 0:
			b[i] = c
		default:
			b = append(b[:i], b[i+1:]...)
		}
	}
	return string(b)
}

// BenchmarkReadTree: the arguments' tree read by parseTree and by the
// Decoder's reading it stands in for (docs/PERFORMANCE.md), on a denied
// call's arguments and on a launch's.
func BenchmarkReadTree(b *testing.B) {
	for _, c := range []struct{ name, raw string }{
		{"evaluate", `{"expression":"__import__('os')"}`},
		{"launch", `{"program":"/home/a/p.py","args":["--n","3","-v"],"env":{"A":"1","LANG":"C.UTF-8"},"stop_on_entry":true,"cwd":"/home/a"}`},
	} {
		raw := []byte(c.raw)
		b.Run(c.name+"/parseTree", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := parseTree(raw); !ok {
					b.Fatal("refused")
				}
			}
		})
		b.Run(c.name+"/decoder", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := decodeTreeAll(raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
