package plugins

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// naive is what index.find must find: every place every string of 4
// bytes or more begins.
func naive(pats []string, s string) []string {
	var out []string
	for i := range len(s) {
		for _, p := range pats {
			if len(p) >= 4 && strings.HasPrefix(s[i:], p) {
				out = append(out, fmt.Sprint(i, ":", p))
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func found(m *index, s string) []string {
	var out []string
	m.find(s, func(at int, p string) bool {
		if s[at:at+len(p)] != p {
			out = append(out, fmt.Sprint("WRONG ", at, ":", p))
		}
		out = append(out, fmt.Sprint(at, ":", p))
		return true
	})
	slices.Sort(out)
	return slices.Compact(out)
}

// The index finds what trying every string at every place finds, on sets
// whose strings are prefixes, suffixes and infixes of one another over a
// small alphabet, shorter and longer than its keys, and stops when asked.
func TestIndexAgreesWithNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	word := func(alphabet string, n int) string { return randomWord(r, alphabet, n) }
	for k := range 3000 {
		alphabet := []string{"ab", "abc", "a\x00\xff", "abcdefghij"}[k%4]
		var pats []string
		for range 1 + r.IntN(12) {
			pats = append(pats, word(alphabet, 2+r.IntN(11)))
		}
		if len(pats) > 1 && r.IntN(2) == 0 { // one inside another
			p := pats[0]
			pats = append(pats, p[:len(p)/2], p[len(p)/3:], p)
		}
		s := word(alphabet, r.IntN(60))
		if got, want := found(newIndex(pats), s), naive(pats, s); !slices.Equal(got, want) {
			t.Fatalf("patterns %q in %q:\n got %v\nwant %v", pats, s, got, want)
		}
	}
	m, calls := newIndex([]string{"aaaa", "aaaaa"}), 0
	m.find("aaaaaaaa", func(int, string) bool { calls++; return calls < 3 })
	if calls != 3 {
		t.Fatalf("find went on after false: %d calls", calls)
	}
}

func FuzzIndex(f *testing.F) {
	f.Add("hers\x00shers\x00hishers", "ahishershishers")
	f.Add("aaab\x00aabaab\x00aaaba", "aaabaabaaaba")
	f.Fuzz(func(t *testing.T, set, s string) {
		if len(set) > 512 || len(s) > 512 {
			return
		}
		pats := strings.Split(set, "\x00")
		if got, want := found(newIndex(pats), s), naive(pats, s); !slices.Equal(got, want) {
			t.Fatalf("patterns %q in %q:\n got %v\nwant %v", pats, s, got, want)
		}
	})
}

// BenchmarkMasker: a session's masker, built, asked of and made to mask a
// 64 KB text of words (no secret in it), with 10 secrets and with 4,096, the most a
// session holds: random ones, ones that share their beginning as bcrypt's
// hashes do (the text full of that beginning), and random ones asked of a
// listing of strings pydevd cut short (a cut every 36 bytes).
func BenchmarkMasker(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	word := func(n int) string {
		return randomWord(r, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", n)
	}
	var plain, hashes, cuts strings.Builder
	for plain.Len() < 64<<10 {
		plain.WriteString(word(8) + " ")
		hashes.WriteString("$2b$12$" + word(8) + " ")
		cuts.WriteString("'" + word(20) + "..." + word(10) + "', ")
	}
	for _, c := range []struct {
		name, prefix, text string
		n                  int
	}{{"10", "", plain.String(), 10}, {"4096", "", plain.String(), 4096}, {"4096-bcrypt", "$2b$12$", hashes.String(), 4096},
		{"4096-cuts", "", cuts.String(), 4096}} {
		values := make([]string, c.n)
		for i := range values {
			values[i] = c.prefix + word(22)
		}
		learn := func() *Secrets {
			s := NewSecrets()
			for _, v := range values {
				s.Add("s", v)
			}
			return s
		}
		b.Run("build-"+c.name, func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				s := learn()
				b.StartTimer()
				s.Masker("s")
			}
		})
		m := learn().Masker("s")
		b.Run("in-"+c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			for range b.N {
				if m.InString(c.text) && c.name != "4096-cuts" { // by chance, 3 bytes beside a cut begin or end some form
					b.Fatal("found a secret")
				}
			}
		})
		b.Run("replace-"+c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			for range b.N {
				m.Replace(c.text)
			}
		})
	}
}

// The pieces beside a cut, read as tries, are what trying every form (and
// every value, for the decoded reading) at every length finds (the code
// before the tries, kept here as the oracle): secrets over a small
// alphabet, some with "..." in them, texts full of cuts.
func TestCutPiecesAgreeWithTryingEveryForm(t *testing.T) {
	naiveBefore := func(m *Masker, s string, prev, i int) int {
		if i < minPiece || !m.triple(s[i-minPiece:i]) {
			return 0
		}
		best := 0
		for _, f := range m.forms {
			limit := min(len(f)-1, i)
			if prev >= 0 && !strings.Contains(f, cut) {
				limit = min(limit, i-prev-1)
			}
			for n := limit; n > best && n >= minPiece; n-- {
				if s[i-n] == f[0] && s[i-n:i] == f[:n] {
					best = n
					break
				}
			}
		}
		return best
	}
	naiveAfter := func(m *Masker, s string, j, end int) int {
		if len(s)-j < minPiece || !m.triple(s[j:j+minPiece]) {
			return 0
		}
		best := 0
		for _, f := range m.forms {
			limit := min(len(f)-1, len(s)-j)
			if !strings.Contains(f, cut) {
				limit = min(limit, end-j)
			}
			for n := limit; n > best && n >= minPiece; n-- {
				if s[j+n-1] == f[len(f)-1] && s[j:j+n] == f[len(f)-n:] {
					best = n
					break
				}
			}
		}
		return best
	}
	r := rand.New(rand.NewPCG(3, 5))
	word := func(alphabet string, n int) string { return randomWord(r, alphabet, n) }
	for k := range 2000 {
		alphabet := []string{"ab.", "abc.'\\", "abcdefgh."}[k%3]
		s := NewSecrets()
		for range 1 + r.IntN(6) {
			v := word(alphabet, 4+r.IntN(12))
			if r.IntN(4) == 0 {
				v = v[:2] + "..." + v[2:]
			}
			s.Add("s", v)
		}
		m := s.Masker("s")
		if m == nil {
			continue
		}
		text := word(alphabet, 10+r.IntN(80))
		for a := 0; a < len(text); a += 7 { // the values' pieces, as the decoded reading's cuts read them
			part := text[a:min(len(text), a+5+r.IntN(30))]
			if got, want := m.valueStart(part), naiveValueStart(m, part); got != want {
				t.Fatalf("values %q, %q: valueStart %d, want %d", m.values, part, got, want)
			}
			if got, want := m.valueEnd(part), naiveValueEnd(m, part); got != want {
				t.Fatalf("values %q, %q: valueEnd %d, want %d", m.values, part, got, want)
			}
		}
		prev := -1
		for i := strings.Index(text, cut); i >= 0; {
			next := strings.Index(text[i+1:], cut)
			if next >= 0 {
				next += i + 1
			}
			if got, want := m.before(text, prev, i), naiveBefore(m, text, prev, i); got != want {
				t.Fatalf("secrets %q, text %q, cut at %d: before %d, want %d", m.values, text, i, got, want)
			}
			end := len(text)
			if next >= 0 {
				end = next + len(cut) - 1
			}
			if got, want := m.after(text, i+len(cut), end), naiveAfter(m, text, i+len(cut), end); got != want {
				t.Fatalf("secrets %q, text %q, cut at %d: after %d, want %d", m.values, text, i, got, want)
			}
			prev, i = i, next
		}
	}
}

func naiveValueStart(m *Masker, t string) int {
	best := 0
	for _, v := range m.values {
		for n := min(len(v), len(t)); n > best && n >= minPiece; n-- {
			if t[len(t)-n:] == v[:n] {
				best = n
				break
			}
		}
	}
	return best
}

func naiveValueEnd(m *Masker, t string) int {
	best := 0
	for _, v := range m.values {
		for n := min(len(v), len(t)); n > best && n >= minPiece; n-- {
			if t[:n] == v[len(v)-n:] {
				best = n
				break
			}
		}
	}
	return best
}

// randomWord is n bytes of alphabet, drawn by r.
func randomWord(r *rand.Rand, alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}
