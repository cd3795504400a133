package redact

import (
	"encoding/binary"
	"strconv"
	"strings"

	"github.com/debugpy-guard/debugpy-guard/policies/secrets"
)

// A pickle holds a dict's keys and values, and an object's attributes, as
// string constants one after another: pickle.dumps({'password': 'PW'}) is
// b'\x80\x04\x95...}\x94\x8c\x08password\x94\x8c\x02PW\x94s.'. django-redis
// caches, shelve, multiprocessing's queues and Celery's pickle serializer
// hand them around, and a listing shows them as a bytes repr, where each
// secret under its name was shown in clear (found 2026-12-08). So the bytes
// of a repr that begins as a pickle does are read as pickle's opcodes
// (protocols 0 to 5, as pickletools lists them), and a string constant
// right after one that names a secret (a memo's opcode between them aside)
// is masked; the repr is written again as Python writes it.

// pickleString is a string constant of a pickle: its value, and where its
// bytes are in the pickle (from < 0: a memo's, fetched by a get).
type pickleString struct {
	val      string
	from, to int
}

// pickleSecrets returns where the values under secrets' names are in the
// pickle p, read to its end, its STOP or an opcode it does not know.
func pickleSecrets(p string, extra map[string]bool) [][2]int {
	var out [][2]int
	memo := map[int]pickleString{}
	memoized := 0          // the memo's size: MEMOIZE stores at it
	var last *pickleString // the string constant just before, only memo opcodes since
	var prev pickleString
	named := false // last names a secret
	push := func(s pickleString) {
		if last != nil && named && s.from >= 0 && s.to > s.from {
			out = append(out, [2]int{s.from, s.to})
		}
		prev = s
		last, named = &prev, secrets.IsName(s.val, extra)
	}
	// The memo stores what is on top of the stack: a string constant when
	// the opcode before the memo's was one.
	put := func(i int) {
		if last != nil {
			memo[i] = *last
		}
	}
	line := func(i int) (string, int, bool) { // an argument to the line's end
		e := strings.IndexByte(p[i:], '\n')
		if e < 0 {
			return "", 0, false
		}
		return p[i : i+e], i + e + 1, true
	}
	counted := func(i, n int) (int, int, bool) { // a length of n bytes, then the data
		if i+n > len(p) {
			return 0, 0, false
		}
		var l uint64
		switch n {
		case 1:
			l = uint64(p[i])
		case 4:
			l = uint64(binary.LittleEndian.Uint32([]byte(p[i : i+4])))
		case 8:
			l = binary.LittleEndian.Uint64([]byte(p[i : i+8]))
		}
		from := i + n
		to := from + int(min(l, uint64(len(p)-from))) // cut short: the data to the end
		return from, to, l <= uint64(len(p)-from)
	}
	for i := 0; i < len(p); {
		op := p[i]
		i++
		memoOp := false
		switch op {
		case '.': // STOP
			return out
		case '(', '0', '1', '2', 'N', ')', ']', '}', 'a', 'e', 's', 'u', 'b', 't', 'l', 'd', 'o', 'R', 'Q',
			0x81, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8f, 0x90, 0x91, 0x92, 0x93, 0x97, 0x98:
		case 0x94: // MEMOIZE
			put(memoized)
			memoized++
			memoOp = true
		case 'K', 0x80, 0x82: // BININT1, PROTO, EXT1
			i++
		case 'q': // BINPUT
			if i < len(p) {
				put(int(p[i]))
			}
			i++
			memoOp = true
		case 'h': // BINGET
			if i < len(p) {
				if s, ok := memo[int(p[i])]; ok {
					i++
					push(pickleString{val: s.val, from: -1})
					continue
				}
			}
			i++
		case 'M', 0x83: // BININT2, EXT2
			i += 2
		case 'J', 0x84: // BININT, EXT4
			i += 4
		case 'r', 'j': // LONG_BINPUT, LONG_BINGET
			if i+4 > len(p) {
				return out
			}
			n := int(binary.LittleEndian.Uint32([]byte(p[i : i+4])))
			i += 4
			if op == 'r' {
				put(n)
				memoOp = true
			} else if s, ok := memo[n]; ok {
				push(pickleString{val: s.val, from: -1})
				continue
			}
		case 'G', 0x95: // BINFLOAT, FRAME
			i += 8
		case 'U', 0x8c, 'C', 0x8a, 'T', 'X', 'B', 0x8b, 0x8d, 0x8e, 0x96:
			n := 1
			switch op {
			case 'T', 'X', 'B', 0x8b:
				n = 4
			case 0x8d, 0x8e, 0x96:
				n = 8
			}
			from, to, whole := counted(i, n)
			if from == 0 && to == 0 {
				return out
			}
			i = to
			if op == 0x8a || op == 0x8b { // LONG1, LONG4: a number
				break
			}
			push(pickleString{val: p[from:to], from: from, to: to})
			if !whole {
				return out
			}
			continue
		case 'I', 'L', 'F', 'P', 'g', 'p', 'S', 'V': // an argument to the line's end
			arg, next, ok := line(i)
			if !ok {
				if op == 'S' || op == 'V' { // cut short: to the end
					push(pickleString{val: p[i:], from: i, to: len(p)})
				}
				return out
			}
			switch op {
			case 'p': // PUT
				if n, err := strconv.Atoi(arg); err == nil {
					put(n)
				}
				memoOp = true
			case 'g': // GET
				if n, err := strconv.Atoi(arg); err == nil {
					if s, ok := memo[n]; ok {
						i = next
						push(pickleString{val: s.val, from: -1})
						continue
					}
				}
			case 'V': // UNICODE, raw-unicode-escape: its bytes as they stand
				i = next
				push(pickleString{val: arg, from: next - 1 - len(arg), to: next - 1})
				continue
			case 'S': // STRING: a repr, its body inside its quotes
				if len(arg) >= 2 && (arg[0] == '\'' || arg[0] == '"') && arg[len(arg)-1] == arg[0] {
					i = next
					from := next - len(arg)
					push(pickleString{val: arg[1 : len(arg)-1], from: from, to: next - 2})
					continue
				}
			}
			i = next
		case 'c', 'i': // GLOBAL, INST: a module's and a name's lines
			_, next, ok := line(i)
			if !ok {
				return out
			}
			if _, next, ok = line(next); !ok {
				return out
			}
			i = next
		default:
			return out
		}
		if !memoOp {
			last = nil
		}
	}
	return out
}

// looksPickled: b, a bytes value, begins as a pickle does: a PROTO opcode
// (protocol 2 and later), or protocol 0's and 1's first opcodes of a dict,
// a list, an object or a string.
func looksPickled(b string) bool {
	if len(b) < 4 {
		return false
	}
	switch {
	case b[0] == 0x80 && b[1] <= 5:
		return true
	case strings.HasPrefix(b, "}q") || strings.HasPrefix(b, "(dp") || strings.HasPrefix(b, "]q") || strings.HasPrefix(b, "(lp") ||
		strings.HasPrefix(b, "(i") || strings.HasPrefix(b, "ccopy_reg") || strings.HasPrefix(b, "c__main__"):
		return true
	}
	return false
}

// mayHoldPickle: s may hold a bytes repr of a pickle (looksPickled), as
// repr writes its first bytes.
func mayHoldPickle(s string) bool {
	if !strings.Contains(s, "b'") && !strings.Contains(s, `b"`) { // no bytes literal: most texts
		return false
	}
	return strings.Contains(s, `'\x80\x0`) || strings.Contains(s, `"\x80\x0`) || strings.Contains(s, `'}q\x00`) ||
		strings.Contains(s, `']q\x00`) || strings.Contains(s, `'(dp0`) || strings.Contains(s, `'(lp0`) || strings.Contains(s, `'(i`) ||
		strings.Contains(s, `'ccopy_reg`) || strings.Contains(s, `'c__main__`)
}

// maskPickles masks, in each bytes literal of s that holds a pickle, the
// values under secrets' names (pickleSecrets), writes the literal again as
// Python's repr writes it, and hands each value to found.
func maskPickles(s string, extra map[string]bool, found func(string)) (string, bool) {
	var edits []edit
	for line := 0; line < len(s); {
		end := lineEnd(s, line)
		for _, l := range literals(s, line, end) {
			pre := s[l.start:l.BodyStart]
			if !l.Known || !strings.ContainsAny(pre, "bB") || !looksPickled(l.Value) {
				continue
			}
			spans := pickleSecrets(l.Value, extra)
			if len(spans) == 0 {
				continue
			}
			var b strings.Builder
			at := 0
			for _, sp := range spans {
				if sp[0] < at {
					continue
				}
				b.WriteString(l.Value[at:sp[0]])
				b.WriteString(mask)
				if found != nil {
					found(l.Value[sp[0]:sp[1]])
				}
				at = sp[1]
			}
			b.WriteString(l.Value[at:])
			edits = append(edits, edit{l.BodyStart, l.BodyEnd, writeBody(b.String(), pre)})
		}
		if end == len(s) {
			break
		}
		line = next(s, end)
	}
	if len(edits) == 0 {
		return s, false
	}
	return applyEdits(s, edits), true
}
