package expressions

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/debugpy-guard/debugpy-guard/plugins/abi"
)

// Operators whose result's size the agent picks with a constant: 'a' *
// 10**10 asks the program for 10 GB, 10**10**10 for a number it computes
// for hours, 1 << 10**11 for a number of 12 GB. debugpy runs the code in
// the program, which freezes or is killed (and the machine with it, when
// it runs out of memory) with no person asked. Such code waits for one.
// Only constants are judged. An operand the program holds, or an
// allowed call returns, is left, though its value, not its size, can be
// what counts: x ** y, 1 << id(x) and items * (id(x) >> 22) can hang the
// program or take its memory. What they cost is the program's, which the
// agent may end unasked anyway (debugpy_session_stop with terminate); the
// machine's memory is the kernel's to guard (docs/SECURITY.md).
const (
	maxRepeat = 1e7 // a sequence repeated, or a width of a %-format: elements, characters
	maxBits   = 1e7 // an integer a power or a shift makes
)

// size judges the size of what n (a BinOp) makes, with what the rest of
// the tree makes: a tuple of ten repeats makes ten times one.
func size(n *Node, v *verdict) {
	if v.folds == nil {
		v.folds = folds{}
	}
	a, b := v.folds.fold(n.Kids[0]), v.folds.fold(n.Kids[1])
	switch n.Name {
	case "**":
		switch {
		case b.isInt && a.isInt && math.Abs(a.n) > 1:
			v.bits += math.Max(b.n, 0) * math.Log2(math.Abs(a.n))
		case b.isInt && !a.isInt:
			v.bits += math.Max(b.n, 0) // at least a bit a unit of the exponent, for a base of 2 or more
		}
		if v.bits > maxBits {
			v.add(abi.Approve, "it raises to a power whose result can take the program's memory and time (more than "+bits()+"): a person decides")
		}
	case "<<":
		if b.isInt {
			v.bits += math.Max(b.n, 0)
		}
		if v.bits > maxBits {
			v.add(abi.Approve, "it shifts by more than "+bits()+", which can take the program's memory: a person decides")
		}
	case "*":
		if n, ok := repeat(a, b); ok {
			v.repeated += math.Max(n, 0)
		}
		if v.repeated > maxRepeat {
			v.add(abi.Approve, "it repeats sequences into more than "+strconv.FormatFloat(maxRepeat, 'f', 0, 64)+" elements, which can take the program's memory: a person decides")
		}
	}
}

func bits() string { return strconv.FormatFloat(maxBits, 'f', 0, 64) + " bits" }

// repeat is the number of elements of a sequence repeated by a constant
// count (seq * n, n * seq): the count times the sequence's length when it
// is known, the count alone when not (a name may hold a sequence).
func repeat(a, b folded) (float64, bool) {
	if a.isInt && b.isInt {
		return 0, false // a product of numbers: small as its operands
	}
	if a.isInt {
		a, b = b, a
	}
	if !b.isInt {
		return 0, false
	}
	if a.isSeq {
		return a.n * b.n, true
	}
	return b.n, true
}

// folded is what a constant expression comes to: an integer's value, or a
// sequence's length, as a float that saturates at +Inf; neither when n is
// not a constant (or a float, a complex).
type folded struct {
	n            float64
	isInt, isSeq bool
}

// folds are the nodes of one tree folded so far: walk judges each BinOp
// of a chain (1*1*...*1), and each folds the chain below it, so without
// them a chain of n takes n*n/2 steps (a chain of 16,000: 4.5 s).
type folds map[*Node]folded

// fold is what n comes to (folded), each node folded once.
func (fs folds) fold(n *Node) folded {
	if f, ok := fs[n]; ok {
		return f
	}
	f := fs.folded(n)
	fs[n] = f
	return f
}

func (fs folds) folded(n *Node) folded {
	switch n.Kind {
	case "Constant":
		switch {
		case n.Str && n.Bytes:
			return folded{n: float64(len(n.Value)), isSeq: true}
		case n.Str:
			return folded{n: float64(utf8.RuneCountInString(n.Value)), isSeq: true} // len counts code points
		case n.Value == "True":
			return folded{n: 1, isInt: true}
		case n.Value == "False":
			return folded{isInt: true}
		}
		if f, ok := intLiteral(n.Value); ok {
			return folded{n: f, isInt: true}
		}
	case "Tuple", "List":
		return folded{n: float64(len(n.Kids)), isSeq: true}
	case "UnaryOp":
		k := fs.fold(n.Kids[0])
		if !k.isInt {
			return folded{}
		}
		switch n.Name {
		case "-":
			k.n = -k.n
		case "~":
			k.n = -k.n - 1
		}
		return k
	case "BinOp":
		a, b := fs.fold(n.Kids[0]), fs.fold(n.Kids[1])
		switch {
		case a.isInt && b.isInt:
			switch n.Name {
			case "+":
				return folded{n: a.n + b.n, isInt: true}
			case "-":
				return folded{n: a.n - b.n, isInt: true}
			case "*":
				return folded{n: a.n * b.n, isInt: true}
			case "**":
				if b.n >= 0 {
					return folded{n: math.Pow(a.n, b.n), isInt: true}
				}
			case "<<":
				if b.n >= 0 {
					return folded{n: a.n * math.Pow(2, b.n), isInt: true}
				}
			}
		case n.Name == "+" && a.isSeq && b.isSeq:
			return folded{n: a.n + b.n, isSeq: true}
		case n.Name == "*":
			if r, ok := repeat(a, b); ok && (a.isSeq || b.isSeq) {
				return folded{n: r, isSeq: true}
			}
		}
	}
	return folded{}
}

// intLiteral reads an integer literal as written (underscores, 0x, 0o, 0b),
// as a float: +Inf past what a float holds.
func intLiteral(s string) (float64, bool) {
	s = strings.ReplaceAll(s, "_", "")
	if s == "" || strings.ContainsAny(s, ".jJ") || (strings.ContainsAny(s, "eE") && !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X")) {
		return 0, false
	}
	if i, err := strconv.ParseInt(s, 0, 64); err == nil {
		return float64(i), true
	} else if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
		return math.Inf(1), true
	}
	return 0, false
}
