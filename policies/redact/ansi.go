package redact

import "strings"

// A terminal's escape sequences (colours, bold, a link) stand between a
// secret's name and its value in coloured output: structlog's
// `\x1b[36mpassword\x1b[0m=\x1b[35mVALUE\x1b[0m`, jq -C's JSON, pytest
// --color=yes. maskText reads such a text twice: as it is (what a reader
// of the bytes sees: an escape's bytes may be a value's own), then without
// its escapes (what a terminal shows), and writes what the second reading
// masks back into the first (withoutEscapes, withEscapes).

// withoutEscapes is s without its escape sequences (CSI: ESC [ parameters
// intermediates final; OSC: ESC ] ... BEL or ESC \; ESC and one byte of
// 0x40-0x5F), and at, the offset in s of each byte of it (at[len] is
// len(s)). An ESC that starts no whole sequence stays.
func withoutEscapes(s string) (plain string, at []int) {
	var b strings.Builder
	b.Grow(len(s))
	at = make([]int, 0, len(s)+1)
	for i := 0; i < len(s); {
		if n := escapeLen(s[i:]); n > 0 {
			i += n
			continue
		}
		b.WriteByte(s[i])
		at = append(at, i)
		i++
	}
	return b.String(), append(at, len(s))
}

// escapeLen is the length of the escape sequence s starts with, 0 when it
// starts none.
func escapeLen(s string) int {
	if len(s) < 2 || s[0] != 0x1b {
		return 0
	}
	switch c := s[1]; {
	case c == '[': // CSI
		i := 2
		for i < len(s) && s[i] >= 0x30 && s[i] <= 0x3f {
			i++
		}
		for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
			i++
		}
		if i < len(s) && s[i] >= 0x40 && s[i] <= 0x7e {
			return i + 1
		}
		return 0
	case c == ']': // OSC, a link's (OSC 8) or a title's
		for i := 2; i < len(s); i++ {
			switch {
			case s[i] == 0x07:
				return i + 1
			case s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\':
				return i + 2
			case s[i] == '\n' || s[i] == '\r':
				return 0
			}
		}
		return 0
	case c >= 0x40 && c <= 0x5f:
		return 2
	}
	return 0
}

// withEscapes writes into s what masking its plain reading changed
// (plain, masked, at from withoutEscapes): line by line, the bytes of s
// from the first to the last that changed, with the escapes among them
// (not those before or after), are replaced by what masked has there.
// Were the two to differ in lines (no mask changes them), masked is
// returned whole: no escape kept is better than a secret shown.
func withEscapes(s, plain, masked string, at []int) string {
	if strings.Count(plain, "\n") != strings.Count(masked, "\n") || strings.Count(plain, "\r") != strings.Count(masked, "\r") {
		return masked
	}
	var b strings.Builder
	last := 0 // the offset in s up to which b holds s
	for p, m := 0, 0; p <= len(plain); {
		pe, me := lineEnd(plain, p), lineEnd(masked, m)
		if pl, ml := plain[p:pe], masked[m:me]; pl != ml {
			pre := 0
			for pre < len(pl) && pre < len(ml) && pl[pre] == ml[pre] {
				pre++
			}
			suf := 0
			for suf < len(pl)-pre && suf < len(ml)-pre && pl[len(pl)-1-suf] == ml[len(ml)-1-suf] {
				suf++
			}
			from, to := at[p+pre], at[p+pre] // the escapes around what changed are kept
			if pe-suf > p+pre {
				to = at[pe-suf-1] + 1
			}
			b.WriteString(s[last:from])
			b.WriteString(ml[pre : len(ml)-suf])
			last = to
		}
		if pe == len(plain) || me == len(masked) || plain[pe] != masked[me] {
			if pe != len(plain) || me != len(masked) {
				return masked // cannot happen: the counts of \r and \n agree
			}
			break
		}
		p, m = pe+1, me+1
	}
	b.WriteString(s[last:])
	return b.String()
}
