package expressions

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// Literals finds the same ends as LiteralEnd, read from every byte of a
// text in any order (what it keeps of one read serves the next), on
// random texts of quotes, escapes, prefixes and line ends, and on a line
// of escaped quotes three reprs deep.
func TestLiteralsAgreeWithLiteralEnd(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	const alphabet = `''''""""\\\\rbuRBUf a:,` + "\n\r"
	check := func(src string) {
		t.Helper()
		l := NewLiterals(src, rng.IntN(len(src)+1))
		for _, i := range rng.Perm(len(src) + 1) {
			got, gok := l.End(i)
			want, wok := LiteralEnd(src, i)
			if got != want || gok != wok {
				t.Fatalf("%q from %d: End %d %v, LiteralEnd %d %v", src, i, got, gok, want, wok)
			}
		}
	}
	for range 20000 {
		b := make([]byte, rng.IntN(60))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		check(string(b))
	}
	var b strings.Builder
	for i := range 200 {
		b.WriteString(`\\\'k` + strings.Repeat("x", i%7) + `\\\': \\\'v\\\', `)
	}
	check(`'"{` + b.String() + `}"'`)
}
