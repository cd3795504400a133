package expressions

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"

	"github.com/debugpy-guard/debugpy-guard/plugins/abi"
	"github.com/debugpy-guard/debugpy-guard/policies/internal/policytest"
)

// TestJudgeSizes: what a constant makes the program allocate or compute
// waits for a person past the bounds; below them, and what the program's
// own values make, as before.
func TestJudgeSizes(t *testing.T) {
	r := rules{calls: map[string]bool{"len": true}}
	for _, c := range []struct {
		code string
		want abi.Verdict
	}{
		{"10**10**10", abi.Approve},
		{"2 ** 20_000_000", abi.Approve},
		{"x ** 100_000_000", abi.Approve},
		{"1 << 10**8", abi.Approve},
		{"'a' * 10**10", abi.Approve},
		{"10**8 * [0]", abi.Approve},
		{"b'xy' * 6_000_000", abi.Approve},
		{"('ab' * 10**6) * 10", abi.Approve},
		{"(x * 9_000_000, y * 9_000_000)", abi.Approve},
		{"[0] * 10**5 * 10**5", abi.Approve},
		{"b'a' * 0X2540BE400", abi.Approve},
		{"-(-10**10) * 'a'", abi.Approve},
		{"(1 << 10**7) * (1 << 10**7)", abi.Approve},
		{"'%.*f' % (p, x)", abi.Approve},
		{"x * 0x1000000", abi.Approve},
		{"n * 10**9", abi.Approve}, // n may hold a sequence: a person knows
		{"'%0999999999d' % 1", abi.Approve},
		{"'%(a)s %.20000000f' % d", abi.Approve},
		{"'%*d' % (w, 1)", abi.Approve},
		// Within the bounds, or the program's own sizes.
		{"2 ** 64", abi.Allow},
		{"10 ** 1000", abi.Approve}, // within the memory budget; more than 20 digits (judge.go, builds)
		{"x ** 2", abi.Allow},
		{"1 << 63", abi.Allow},
		{"'-' * 80", abi.Approve}, // within the memory budget; text built (judge.go, builds)
		{"[0] * 10**6", abi.Allow},
		{"[0, 1] * 10**6", abi.Approve}, // within the memory budget; a sequence built from a display that spells two characters (judge.go, builds)
		{"x * y", abi.Allow},
		{"10**9 * 10**9", abi.Allow},
		{"'%5d %%99999999999d' % (1,)", abi.Approve}, // %% writes no width; text built
		{"(-2) ** 100", abi.Approve},                 // more than 20 digits
		{"x ** -10**9", abi.Allow},
	} {
		got, why := judgeCode(c.code, "expression", r)
		if got != c.want {
			t.Errorf("%s: %s (%s), want %s", c.code, got, why, c.want)
		}
	}
}

// TestFoldAgreesWithCPython: what fold makes of constant expressions (every
// spelling of an integer literal, unary operators, + - * ** <<, sequences
// and their repeats) is what CPython's eval makes of them: the integer's
// value, or the sequence's length.
func TestFoldAgreesWithCPython(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	lit := func() string {
		n := rng.IntN(40)
		switch rng.IntN(6) {
		case 0:
			return []string{"0x", "0X"}[rng.IntN(2)] + strings.ToUpper(strconvBase(n, 16))
		case 1:
			return []string{"0o", "0O"}[rng.IntN(2)] + strconvBase(n, 8)
		case 2:
			return []string{"0b", "0B"}[rng.IntN(2)] + strconvBase(n, 2)
		case 3:
			s := strconvBase(n, 10)
			if len(s) > 1 {
				s = s[:1] + "_" + s[1:]
			}
			return s
		case 4:
			return "True"
		}
		return strconvBase(n, 10)
	}
	var intExpr func(d int) string
	intExpr = func(d int) string {
		if d == 0 || rng.IntN(3) == 0 {
			return lit()
		}
		switch rng.IntN(6) {
		case 0:
			return "-(" + intExpr(d-1) + ")"
		case 1:
			return "~(" + intExpr(d-1) + ")"
		case 2:
			return "(" + intExpr(d-1) + ") ** " + strconvBase(rng.IntN(5), 10)
		case 3:
			return "(" + intExpr(d-1) + ") << " + strconvBase(rng.IntN(9), 10)
		}
		return "(" + intExpr(d-1) + ") " + []string{"+", "-", "*"}[rng.IntN(3)] + " (" + intExpr(d-1) + ")"
	}
	seqExpr := func() string {
		seq := []string{"'ab'", "b'xyz'", "(1, 2)", "[1]", "'é'", "()"}[rng.IntN(6)]
		n := strconvBase(rng.IntN(7), 10)
		switch rng.IntN(3) {
		case 0:
			return seq + " * " + n
		case 1:
			return n + " * " + seq
		}
		return "(" + seq + " * " + n + ") * (" + n + ")"
	}
	var codes []string
	for range 3000 {
		if rng.IntN(4) == 0 {
			codes = append(codes, seqExpr())
		} else {
			codes = append(codes, intExpr(3))
		}
	}
	src, _ := json.Marshal(codes)
	cmd := exec.Command(policytest.Python3(t), "-c", `
import json, sys
out = []
for c in json.load(sys.stdin):
    v = eval(c)
    out.append(float(v) if isinstance(v, int) else float(len(v)))
print(json.dumps(out))
`)
	cmd.Stdin = bytes.NewReader(src)
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("python: %v", err)
	}
	var want []float64
	if err := json.Unmarshal(got, &want); err != nil {
		t.Fatal(err)
	}
	bad := 0
	for i, c := range codes {
		tree, err := Parse(c)
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		f := folds{}.fold(tree)
		if !f.isInt && !f.isSeq || math.Abs(f.n-want[i]) > 1e-9*math.Max(1, math.Abs(want[i])) {
			if bad++; bad <= 10 {
				t.Errorf("%s: fold %+v, CPython %v", c, f, want[i])
			}
		}
	}
}

func strconvBase(n, base int) string {
	const digits = "0123456789abcdef"
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= base {
		b = append([]byte{digits[n%base]}, b...)
	}
	return string(b)
}
