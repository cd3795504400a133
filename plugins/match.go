package plugins

// A session's masker looks for its secrets' forms in every result, and
// for pieces of them beside every cut. Tried each at every place (whole
// forms) or at every length (pieces), 4,096 secrets, 28,000 forms, took
// 9 s for a 64 KB text and 31 s for a 64 KB listing of cut strings
// (docs/PERFORMANCE.md). So the forms are indexed by a few of their bytes,
// and only those whose bytes are there are tried. An automaton
// (Aho-Corasick) reads a text in one pass whatever the set, but it takes a
// node a byte of every form: a gigabyte for 256 secrets of 4 KB, where
// these indexes take a few megabytes.

// index finds where a set of strings of 4 bytes or more occurs in a text:
// they are kept by their first 8 bytes (a shorter one by its first 4), and
// a bit for their first two bytes passes most places of a text with one
// test.
type index struct {
	pairs [1 << 16 / 64]uint64
	long  map[uint64][]string
	short map[uint32][]string
}

func newIndex(strs []string) *index {
	x := &index{long: map[uint64][]string{}, short: map[uint32][]string{}}
	for _, f := range strs {
		if len(f) < 4 {
			continue
		}
		p := uint16(f[0])<<8 | uint16(f[1])
		x.pairs[p>>6] |= 1 << (p & 63)
		if len(f) >= 8 {
			x.long[key8(f)] = append(x.long[key8(f)], f)
		} else {
			x.short[key4(f)] = append(x.short[key4(f)], f)
		}
	}
	return x
}

// find calls each with every place in s where one of the strings begins,
// and that string, until each returns false.
func (x *index) find(s string, each func(at int, f string) bool) {
	for i := 0; i+4 <= len(s); i++ {
		p := uint16(s[i])<<8 | uint16(s[i+1])
		if x.pairs[p>>6]&(1<<(p&63)) == 0 {
			continue
		}
		if i+8 <= len(s) {
			for _, f := range x.long[key8(s[i:])] {
				if len(s)-i >= len(f) && s[i:i+len(f)] == f && !each(i, f) {
					return
				}
			}
		}
		for _, f := range x.short[key4(s[i:])] {
			if len(s)-i >= len(f) && s[i:i+len(f)] == f && !each(i, f) {
				return
			}
		}
	}
}

// ends finds the pieces of a set of strings that a cut leaves: the
// longest end of a text that begins one of them, and the longest start
// that ends one. They are kept by their first 3 bytes and by their last 3
// (minPiece: no piece is shorter), so only those are tried at a place.
type ends struct {
	heads, tails map[uint32][]string
	longest      int
}

func newEnds(strs []string) *ends {
	e := &ends{heads: map[uint32][]string{}, tails: map[uint32][]string{}}
	for _, f := range strs {
		if len(f) < minPiece {
			continue
		}
		e.heads[key3(f)] = append(e.heads[key3(f)], f)
		e.tails[key3(f[len(f)-minPiece:])] = append(e.tails[key3(f[len(f)-minPiece:])], f)
		e.longest = max(e.longest, len(f))
	}
	return e
}

// head is the length of the longest end of t that begins one of the
// strings, and is not all of it when proper, minPiece bytes or more, or 0.
func (e *ends) head(t string, proper bool) int {
	for k := max(0, len(t)-e.longest); k+minPiece <= len(t); k++ {
		n := len(t) - k
		for _, f := range e.heads[key3(t[k:])] {
			if (n < len(f) || !proper && n == len(f)) && t[k:] == f[:n] {
				return n
			}
		}
	}
	return 0
}

// tail is the length of the longest start of t that ends one of the
// strings, and is not all of it when proper, minPiece bytes or more, or 0.
func (e *ends) tail(t string, proper bool) int {
	for n := min(len(t), e.longest); n >= minPiece; n-- {
		for _, f := range e.tails[key3(t[n-minPiece:])] {
			if (n < len(f) || !proper && n == len(f)) && t[:n] == f[len(f)-n:] {
				return n
			}
		}
	}
	return 0
}

func key3(s string) uint32 { return uint32(s[0])<<16 | uint32(s[1])<<8 | uint32(s[2]) }
func key4(s string) uint32 { return key3(s)<<8 | uint32(s[3]) }
func key8(s string) uint64 { return uint64(key4(s))<<32 | uint64(key4(s[4:])) }
