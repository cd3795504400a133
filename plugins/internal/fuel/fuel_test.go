package fuel

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// modules are every WebAssembly module the repository has: the built-in
// policies (Go), and every WAT module, the hostile ones included, assembled
// with wabt's wat2wasm (make deps installs it).
func modules(t testing.TB) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	b, err := os.ReadFile("../../../policies/builtin.wasm")
	if err != nil {
		t.Fatal(err)
	}
	out["builtin.wasm"] = b
	wats, _ := filepath.Glob("../../testdata/wat/*.wat")
	wats = append(wats, "../../examples/wat/policy.wat", "testdata/imports.wat")
	for _, w := range wats {
		out[filepath.Base(w)] = wat2wasm(t, w)
	}
	return out
}

func wat2wasm(t testing.TB, file string) []byte {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "m.wasm")
	if b, err := exec.Command("wat2wasm", file, "-o", dst).CombinedOutput(); err != nil {
		t.Fatalf("wat2wasm %s (make deps installs wabt): %v\n%s", file, err, b)
	}
	b, err := os.ReadFile(dst)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Every module the repository has instruments into a module that two
// validators accept, wabt's and wazero's, and wabt's own disassembly shows a
// charge at every function's start and after every loop header: the
// rewriter found the loops wabt finds.
func TestEveryModuleInstruments(t *testing.T) {
	ctx := context.Background()
	// wazero validates a module as it compiles it; its interpreter
	// compiles without making machine code, which under -race took most
	// of this test's time (the built-in module is 4 MB).
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer rt.Close(ctx)
	for name, wasm := range modules(t) {
		t.Run(name, func(t *testing.T) {
			out, jumps, err := instrument(wasm, 1000)
			if err != nil {
				t.Fatal(err)
			}
			// Go's compiler writes every function as a dispatch loop
			// (thread.go): most of its jumps are threaded.
			if name == "builtin.wasm" && jumps < 10000 {
				t.Errorf("%d branches threaded in the built-in module", jumps)
			}
			dir := t.TempDir()
			in, fueled := filepath.Join(dir, "in.wasm"), filepath.Join(dir, "out.wasm")
			os.WriteFile(in, wasm, 0o600)
			os.WriteFile(fueled, out, 0o600)
			if b, err := exec.Command("wasm-validate", fueled).CombinedOutput(); err != nil {
				t.Fatalf("wasm-validate: %v\n%s", err, b)
			}
			if c, err := rt.CompileModule(ctx, out); err != nil {
				t.Fatalf("wazero: %v", err)
			} else {
				c.Close(ctx)
			}
			before, after := disassemble(t, in), disassemble(t, fueled)
			// The rewrite adds one function (refuel) to a module with code
			// and a memory; it has no loop and no charge.
			if extra := after.funcs - before.funcs; extra < 0 || extra > 1 || after.loops != before.loops {
				t.Fatalf("functions %d -> %d, loops %d -> %d", before.funcs, after.funcs, before.loops, after.loops)
			}
			if after.charged != before.funcs+before.loops {
				t.Fatalf("%d charges for %d functions and %d loops", after.charged, before.funcs, before.loops)
			}
			t.Logf("%d functions, %d loops, %d branches threaded, %d -> %d bytes", before.funcs, before.loops, jumps, len(wasm), len(out))
		})
	}
}

type listing struct{ funcs, loops, charged int }

// disassemble counts, in wasm-objdump's disassembly, the function bodies,
// the loops, and the charges: a body or loop whose next instruction is
// global.get of the exported fuel global.
func disassemble(t *testing.T, file string) listing {
	t.Helper()
	b, err := exec.Command("wasm-objdump", "-d", file).CombinedOutput()
	if err != nil {
		t.Fatalf("wasm-objdump: %v\n%s", err, b)
	}
	x, err := exec.Command("wasm-objdump", "-x", "-j", "Export", file).CombinedOutput()
	if err != nil {
		t.Fatalf("wasm-objdump -x: %v\n%s", err, x)
	}
	fuelIdx := ""
	if m := regexp.MustCompile(`global\[(\d+)\] -> "` + Global + `"`).FindSubmatch(x); m != nil {
		fuelIdx = string(m[1])
	}
	var l listing
	lines := strings.Split(string(b), "\n")
	instr := func(s string) string { // the instruction text of a disassembly line
		if i := strings.Index(s, "|"); i >= 0 {
			return strings.TrimSpace(s[i+1:])
		}
		return ""
	}
	for i, s := range lines {
		isFunc := strings.HasSuffix(s, ">:") && strings.Contains(s, " func[")
		isLoop := strings.HasPrefix(instr(s), "loop")
		if isFunc {
			l.funcs++
		}
		if isLoop {
			l.loops++
		}
		if (isFunc || isLoop) && fuelIdx != "" {
			for _, next := range lines[i+1:] {
				n := instr(next)
				if n == "" || strings.HasPrefix(n, "local[") {
					continue // the locals' declaration
				}
				if n == "global.get "+fuelIdx || strings.HasPrefix(n, "global.get "+fuelIdx+" ") {
					l.charged++
				}
				break
			}
		}
	}
	return l
}

// A rewrite never changes a result: random programs (nested blocks, loops,
// ifs, br_table, calls, memory, the module's own globals and an imported
// one) give the same value, or the same trap, instrumented and not; and
// with a budget too small they run out of fuel instead of finishing.
func TestRandomProgramsAgree(t *testing.T) {
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	if _, err := rt.InstantiateWithConfig(ctx, wat2wasm(t, "testdata/env.wat"), wazero.NewModuleConfig().WithName("env")); err != nil {
		t.Fatal(err)
	}
	seeds := 40
	if testing.Short() {
		seeds = 8
	}
	jumps := 0 // the branches thread rewrote, in all the programs
	defer func() {
		if !t.Failed() && jumps < seeds {
			t.Errorf("%d branches threaded in %d programs: the dispatch loops did not exercise thread.go", jumps, seeds)
		}
	}()
	for seed := range seeds {
		src := randomModule(rand.New(rand.NewPCG(uint64(seed), 7)), 12)
		file := filepath.Join(t.TempDir(), "r.wat")
		os.WriteFile(file, []byte(src), 0o600)
		wasm := wat2wasm(t, file)
		out, n, err := instrument(wasm, math.MaxInt64/4)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		jumps += n
		plain := instantiate(t, rt, wasm)
		fueled := instantiate(t, rt, out)

		for f := range 12 {
			for _, args := range [][2]uint64{{0, 0}, {1, 2}, {7, 3}, {123456, 99}, {math.MaxUint32, 5}} {
				name := "f" + strconv.Itoa(f)
				want, werr := plain.ExportedFunction(name).Call(ctx, args[0], args[1])
				fill(fueled, math.MaxInt64/4)
				got, gerr := fueled.ExportedFunction(name).Call(ctx, args[0], args[1])
				if fmt.Sprint(want) != fmt.Sprint(got) || (werr == nil) != (gerr == nil) ||
					(werr != nil && firstLine(werr) != firstLine(gerr)) {
					t.Fatalf("seed %d %s%v: plain %v %v, fueled %v %v\n%s", seed, name, args, want, werr, got, gerr, src)
				}
				if gerr == nil && args[0] == 7 {
					// On a fresh instance, a call spends some fuel; on
					// another, with half of it, the same call runs out.
					spent := math.MaxInt64/4 - call(t, rt, out, name, args, math.MaxInt64/4)
					if left := call(t, rt, out, name, args, spent/2); left >= 0 {
						t.Fatalf("seed %d %s%v: finished on half the fuel it spent (%d)", seed, name, args, spent)
					}
				}
			}
		}
		plain.Close(ctx)
		fueled.Close(ctx)
	}
}

// call runs name on a fresh instance of wasm with fuel, and returns the fuel
// left (negative: it ran out).
func call(t *testing.T, rt wazero.Runtime, wasm []byte, name string, args [2]uint64, fuel int64) int64 {
	m := instantiate(t, rt, wasm)
	defer m.Close(context.Background())
	fill(m, fuel)
	_, err := m.ExportedFunction(name).Call(context.Background(), args[0], args[1])
	tank, budget := m.ExportedGlobal(Global).Get(), m.ExportedGlobal(Budget).Get()
	if err != nil && int64(budget) < 0 {
		return -1 // the refuel function trapped: the budget is spent
	}
	return int64(tank) + int64(budget)
}

// fill gives an instance fuel as the host does: a slice, and the budget.
func fill(m api.Module, fuel int64) {
	first, budget := Split(fuel)
	m.ExportedGlobal(Global).(api.MutableGlobal).Set(uint64(first))
	m.ExportedGlobal(Budget).(api.MutableGlobal).Set(uint64(budget))
}

func firstLine(err error) string { return strings.SplitN(err.Error(), "\n", 2)[0] }

func instantiate(t *testing.T, rt wazero.Runtime, wasm []byte) api.Module {
	t.Helper()
	m, err := rt.InstantiateWithConfig(context.Background(), wasm, wazero.NewModuleConfig().WithName(""))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// randomModule writes a module of n functions f0..f(n-1), (i32, i32) -> i32,
// each calling only those before it, with bounded loops: every program ends.
func randomModule(r *rand.Rand, n int) string {
	var b strings.Builder
	b.WriteString("(module\n (import \"env\" \"g\" (global $imp i32))\n (memory 1)\n (global $g (mut i32) (i32.const 5))\n (global $h (mut i64) (i64.const 9))\n")
	for f := range n {
		fmt.Fprintf(&b, " (func $f%d (export \"f%d\") (param $a i32) (param $b i32) (result i32) (local $acc i32) (local $c0 i32) (local $c1 i32) (local $c2 i32) (local $pc0 i32) (local $pc1 i32) (local $pc2 i32) (local $pc3 i32) (local $s0 i32) (local $s1 i32) (local $s2 i32) (local $s3 i32)\n", f, f)
		g := gen{r: r, b: &b, f: f}
		g.stmts(0, 4)
		b.WriteString("  (i32.add (local.get $acc) (global.get $g)))\n")
	}
	b.WriteString(")\n")
	return b.String()
}

type gen struct {
	r      *rand.Rand
	b      *strings.Builder
	f      int
	labels int
}

func (g *gen) expr(depth int) string {
	if depth > 2 {
		switch g.r.IntN(4) {
		case 0:
			return "(local.get $a)"
		case 1:
			return "(local.get $b)"
		case 2:
			return "(local.get $acc)"
		}
		return fmt.Sprintf("(i32.const %d)", g.r.Int32N(1000)-500)
	}
	switch g.r.IntN(9) {
	case 0:
		return fmt.Sprintf("(i32.add %s %s)", g.expr(depth+1), g.expr(depth+1))
	case 1:
		return fmt.Sprintf("(i32.mul %s %s)", g.expr(depth+1), g.expr(depth+1))
	case 2:
		return fmt.Sprintf("(i32.xor %s %s)", g.expr(depth+1), g.expr(depth+1))
	case 3:
		return fmt.Sprintf("(select %s %s %s)", g.expr(depth+1), g.expr(depth+1), g.expr(depth+1))
	case 4:
		return fmt.Sprintf("(i32.load (i32.and %s (i32.const 0xFFC)))", g.expr(depth+1))
	case 5:
		return "(i32.wrap_i64 (global.get $h))"
	case 6:
		return "(global.get $imp)"
	case 7:
		return fmt.Sprintf("(i32.div_u %s (i32.or %s (i32.const 1)))", g.expr(depth+1), g.expr(depth+1))
	}
	return g.expr(depth + 1)
}

func (g *gen) stmts(depth, n int) {
	for range 1 + g.r.IntN(n) {
		g.stmt(depth)
	}
}

func (g *gen) label() string {
	g.labels++
	return "$l" + strconv.Itoa(g.labels)
}

func (g *gen) stmt(depth int) {
	w := func(format string, args ...any) { fmt.Fprintf(g.b, format, args...) }
	k := g.r.IntN(11)
	if depth >= 3 {
		k = g.r.IntN(3)
	}
	switch k {
	case 0:
		w("(local.set $acc (i32.add (local.get $acc) %s))\n", g.expr(0))
	case 1:
		w("(i32.store (i32.and %s (i32.const 0xFFC)) %s)\n", g.expr(0), g.expr(0))
	case 2:
		w("(global.set $g (i32.add (global.get $g) %s)) (global.set $h (i64.add (global.get $h) (i64.const 3)))\n", g.expr(1))
	case 3, 4: // a loop of at most 7 turns on this depth's counter
		c, exit, top := fmt.Sprintf("$c%d", depth), g.label(), g.label()
		w("(local.set %s (i32.and %s (i32.const 7)))\n(block %s (loop %s (br_if %s (i32.eqz (local.get %s))) (local.set %s (i32.sub (local.get %s) (i32.const 1)))\n", c, g.expr(1), exit, top, exit, c, c, c)
		g.stmts(depth+1, 3)
		w("(br %s)))\n", top)
	case 5:
		l := g.label()
		w("(block %s\n", l)
		g.stmts(depth+1, 3)
		w("(br_if %s %s)\n", l, g.expr(1))
		g.stmts(depth+1, 3)
		w(")\n")
	case 6:
		w("(if %s (then\n", g.expr(1))
		g.stmts(depth+1, 3)
		w(") (else\n")
		g.stmts(depth+1, 3)
		w("))\n")
	case 7:
		x, y := g.label(), g.label()
		w("(block %s (block %s (br_table %s %s %s (i32.and %s (i32.const 3))))\n", x, y, x, y, x, g.expr(1))
		g.stmt(depth + 1)
		w(")\n")
	case 8:
		if g.f > 0 {
			w("(local.set $acc (i32.xor (local.get $acc) (call $f%d %s (local.get $a))))\n", g.r.IntN(g.f), g.expr(1))
		}
	case 9: // a loop left by a branch from inside a nested block
		c, top, out := fmt.Sprintf("$c%d", depth), g.label(), g.label()
		w("(local.set %s (i32.const 3))\n(block %s (loop %s (block (br_if %s (i32.eqz (local.get %s))))\n(local.set %s (i32.sub (local.get %s) (i32.const 1)))\n", c, out, top, out, c, c, c)
		g.stmts(depth+1, 2)
		w("(br %s)))\n", top)
	case 10:
		g.dispatch(depth)
	}
}

// dispatch writes a loop as Go's compiler writes a function (thread.go):
// its cases are the blocks a br_table on its $pc picks, and a case goes on
// to another by setting $pc and branching to the loop, forward or back,
// directly or from inside an if or a block of its own, and now and then
// with a label past the br_table's own (its default), a branch to a label
// other than the loop's, another local set, or something between the set
// and the branch, which thread must leave alone. Its $s bounds the turns;
// each depth has its own $pc and $s.
func (g *gen) dispatch(depth int) {
	w := func(format string, args ...any) { fmt.Fprintf(g.b, format, args...) }
	pc, steps := fmt.Sprintf("$pc%d", depth), fmt.Sprintf("$s%d", depth)
	n := 2 + g.r.IntN(4)
	out, loop := g.label(), g.label()
	cases := make([]string, n)
	for i := range cases {
		cases[i] = g.label()
	}
	w("(local.set %s (i32.const 9)) (local.set %s (i32.and %s (i32.const 3)))\n(block %s (loop %s\n", steps, pc, g.expr(1), out, loop)
	for i := n - 1; i >= 0; i-- {
		w("(block %s ", cases[i])
	}
	w("(br_table %s %s %s (local.get %s)))\n", strings.Join(cases, " "), out, cases[g.r.IntN(n)], pc) // the default: a case
	for i := range cases {
		w("(br_if %s (i32.eqz (local.get %s))) (local.set %s (i32.sub (local.get %s) (i32.const 1)))\n", out, steps, steps, steps)
		g.stmts(depth+1, 2)
		for range 1 + g.r.IntN(2) {
			k := g.r.IntN(n + 3) // n: out, through the br_table; n+1, n+2: its default, a case
			jump := fmt.Sprintf("(local.set %s (i32.const %d)) (br %s)", pc, k, loop)
			switch g.r.IntN(7) {
			case 3:
				jump = fmt.Sprintf("(local.set $acc (i32.const %d)) (br %s)", k, loop)
			case 0:
				jump = fmt.Sprintf("(local.set %s (i32.const %d)) (nop) (br %s)", pc, k, loop)
			case 1:
				jump = fmt.Sprintf("(local.set %s (i32.const %d)) (br %s)", pc, k, out)
			case 2:
				l := g.label()
				jump = fmt.Sprintf("(block %s (local.set %s (i32.const %d)) (br %s))", l, pc, k, loop)
			}
			w("(if %s (then %s))\n", g.expr(1), jump)
		}
		if i < n-1 {
			w(")\n") // the case's block ends: the next case begins
		}
	}
	w("(local.set %s (i32.const %d)) (br %s)))\n", pc, g.r.IntN(n+1), loop)
}

// Code that names the fuel global, which only the rewrite makes valid, is
// refused: a module cannot read or refill its own tank. So is a module that
// exports the reserved name, or exports a global it does not have.
func TestRefusesWhatWouldReachTheTank(t *testing.T) {
	// wat2wasm refuses a global index out of range, so these are written as
	// bytes: one function, `global.set 0` (there is no global 0 before the
	// rewrite; the fuel global is 0 after it).
	body := []byte{0x00, 0x42, 0x00, 0x24, 0x00, 0x0B}
	mod := func(extra ...[]byte) []byte {
		m := []byte("\x00asm\x01\x00\x00\x00")
		m = appendSection(m, 1, []byte{1, 0x60, 0, 0})
		m = appendSection(m, 3, []byte{1, 0})
		for _, e := range extra {
			m = append(m, e...)
		}
		code := appendU32(nil, 1)
		code = appendU32(code, uint32(len(body)))
		return appendSection(m, 10, append(code, body...))
	}
	if _, err := Instrument(mod(), 10); err == nil || !strings.Contains(err.Error(), "global 0: the module has 0 globals") {
		t.Fatalf("global.set of the tank: %v", err)
	}
	body = []byte{0x00, 0x0B}
	exp := func(name string, kind byte, idx uint32) []byte {
		p := appendU32(nil, 1)
		p = appendU32(p, uint32(len(name)))
		p = append(append(p, name...), kind)
		return appendSection(nil, 7, appendU32(p, idx))
	}
	if _, err := Instrument(mod(exp(Global, 0, 0)), 10); err == nil || !strings.Contains(err.Error(), "a name the host reserves") {
		t.Fatalf("export of the reserved name: %v", err)
	}
	if _, err := Instrument(mod(exp("g", kindGlobal, 0)), 10); err == nil || !strings.Contains(err.Error(), "names global 0, which the module does not have") {
		t.Fatalf("export of the tank: %v", err)
	}
	if _, err := Instrument(mod(exp(Budget, 0, 0)), 10); err == nil || !strings.Contains(err.Error(), "a name the host reserves") {
		t.Fatalf("export of the budget's name: %v", err)
	}
	// With a memory, the rewrite adds the refuel function (index 1 here):
	// the module's own code may not name it, nor export it.
	memory := appendSection(nil, 5, []byte{1, 0, 1})
	body = []byte{0x00, 0x10, 0x01, 0x0B} // call 1
	if _, err := Instrument(mod(memory), 10); err == nil || !strings.Contains(err.Error(), "function 1: the module has 1 functions") {
		t.Fatalf("a call of refuel: %v", err)
	}
	body = []byte{0x00, 0x0B}
	if _, err := Instrument(mod(memory, exp("r", 0, 1)), 10); err == nil || !strings.Contains(err.Error(), "names function 1, which the module does not have") {
		t.Fatalf("an export of refuel: %v", err)
	}
	if _, err := Instrument(mod(memory, appendSection(nil, 8, []byte{1})), 10); err == nil || !strings.Contains(err.Error(), "the start function 1 is not one of the module's") {
		t.Fatalf("refuel as the start function: %v", err)
	}
	out, err := Instrument(mod(), 10)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	if _, err := rt.CompileModule(ctx, out); err != nil {
		t.Fatalf("a module with no global, export or loop: %v", err)
	}
}

// A function's blocks nest at most maxDepth deep, its body counted: deeper
// costs wazero's compiler time in the square of the depth (shape.go). The
// deepest allowed compiles; one more is refused before wazero sees it.
func TestNestingBound(t *testing.T) {
	nested := func(blocks int) []byte {
		body := []byte{0x00}
		for range blocks {
			body = append(body, 0x02, 0x40) // block
		}
		for range blocks {
			body = append(body, 0x0B)
		}
		body = append(body, 0x0B)
		m := []byte("\x00asm\x01\x00\x00\x00")
		m = appendSection(m, 1, []byte{1, 0x60, 0, 0})
		m = appendSection(m, 3, []byte{1, 0})
		code := appendU32(appendU32(nil, 1), uint32(len(body)))
		return appendSection(m, 10, append(code, body...))
	}
	out, err := Instrument(nested(maxDepth-1), 10)
	if err != nil {
		t.Fatalf("%d blocks in a body: %v", maxDepth-1, err)
	}
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	if _, err := rt.CompileModule(ctx, out); err != nil {
		t.Fatalf("the deepest allowed does not compile: %v", err)
	}
	_, err = Instrument(nested(maxDepth), 10)
	if !errors.Is(err, errShape) || !strings.Contains(err.Error(), "blocks nested more than 4096 deep") {
		t.Fatalf("%d blocks in a body: %v", maxDepth, err)
	}
}

// A table holds at most maxTable elements: one that starts larger is
// refused, and table.grow past it fails (-1) whether the module wrote no
// maximum or a larger one, while a growth to it works and a smaller
// maximum stays.
func TestTableBound(t *testing.T) {
	dir := t.TempDir()
	module := func(limits string) []byte {
		file := filepath.Join(dir, "t.wat")
		os.WriteFile(file, []byte(`(module (table `+limits+` funcref)
			(func (export "grow") (param i32) (result i32) (table.grow 0 (ref.null func) (local.get 0))))`), 0o644)
		return wat2wasm(t, file)
	}
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	grow := func(wasm []byte, by uint32) int32 {
		t.Helper()
		out, err := Instrument(wasm, math.MaxInt32)
		if err != nil {
			t.Fatal(err)
		}
		m := instantiate(t, rt, out)
		defer m.Close(ctx)
		r, err := m.ExportedFunction("grow").Call(ctx, uint64(by))
		if err != nil {
			t.Fatal(err)
		}
		return int32(r[0])
	}
	for _, c := range []struct {
		limits string
		by     uint32
		want   int32
	}{
		{"1", 1 << 27, -1},
		{"1", maxTable - 1, 1},
		{"1", maxTable, -1},
		{"1 134217728", 1 << 26, -1},
		{"1 10", 10, -1},
		{"1 10", 9, 1},
		{"0x100000", 1, -1},
	} {
		if got := grow(module(c.limits), c.by); got != c.want {
			t.Errorf("(table %s) grown by %d: %d, want %d", c.limits, c.by, got, c.want)
		}
	}
	if _, err := Instrument(module("1048577"), 10); !errors.Is(err, errShape) || !strings.Contains(err.Error(), "a table of 1048577 elements, over the 1048576 this host allows") {
		t.Fatalf("a table of 2^20+1: %v", err)
	}
}

// A block type is read as wazero reads it (leb128.DecodeInt33AsInt64):
// five bytes at most, the fifth's continuation bit not read as one, its
// unused bits agreeing with the sign.
func TestS33ReadsAsWazero(t *testing.T) {
	for _, c := range []struct {
		in   string
		v    int64
		n    int
		fail bool
	}{
		{"\x7f", -1, 1, false},
		{"\x40", -64, 1, false},
		{"\x03", 3, 1, false},
		{"\xff\xff\xff\xff\x7f", -1, 5, false},
		{"\xff\xff\xff\xff\xff\x00", -1, 5, false}, // the 0x00 is the next instruction
		{"\x80\x80\x80\x80\x80\x0b", 0, 5, false},
		{"\x80\x80\x80\x80\x0f", 0xF0000000, 5, false},
		{"\x80\x80\x80\x80\x10", 0, 0, true},           // negative, bit 5 clear
		{"\xff\xff\xff\xff\x4f", 0xFFFFFFFF, 5, false}, // bit 6 is not checked, only bit 5
		{"\x80\x80\x80\x80\x20", 0, 0, true},           // non-negative, bit 5 set
		{"\x80\x80", 0, 0, true},                       // ends inside
	} {
		r := &reader{b: []byte(c.in)}
		v := r.s33()
		if (r.err != nil) != c.fail || !c.fail && (v != c.v || r.i != c.n) {
			t.Errorf("% x: %d after %d bytes (err %v), want %d after %d (fail %v)", c.in, v, r.i, r.err, c.v, c.n, c.fail)
		}
	}
}

// A br_table lists at most maxBrTable labels (V8's bound): wazero's
// compiler spends memory on each and time more than in proportion.
func TestBrTableBound(t *testing.T) {
	table := func(labels int) []byte {
		body := appendU32([]byte{0x00, 0x02, 0x40, 0x41, 0x00, 0x0E}, uint32(labels))
		body = append(body, make([]byte, labels)...) // every label 0
		body = append(body, 0x00, 0x0B, 0x0B)        // the default, the block's end, the body's
		m := []byte("\x00asm\x01\x00\x00\x00")
		m = appendSection(m, 1, []byte{1, 0x60, 0, 0})
		m = appendSection(m, 3, []byte{1, 0})
		code := appendU32(appendU32(nil, 1), uint32(len(body)))
		return appendSection(m, 10, append(code, body...))
	}
	out, err := Instrument(table(1000), 10)
	if err != nil {
		t.Fatalf("a br_table of 1000 labels: %v", err)
	}
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer rt.Close(ctx)
	if _, err := rt.CompileModule(ctx, out); err != nil {
		t.Fatalf("it does not compile: %v", err)
	}
	if _, err := Instrument(table(maxBrTable), 10); err != nil {
		t.Fatalf("a br_table of %d labels: %v", maxBrTable, err)
	}
	_, err = Instrument(table(maxBrTable+1), 10)
	if !errors.Is(err, errShape) || !strings.Contains(err.Error(), "a br_table of 65521 labels, over the 65520 this host allows") {
		t.Fatalf("%d labels: %v", maxBrTable+1, err)
	}
}

// Malformed input is an error, never a panic or an invalid module that
// looks fine: whatever wazero accepts, the rewrite accepts and keeps valid;
// a module whose counts wazero would allocate by, but cannot be valid, is
// refused before wazero sees it (testdata/fuzz holds the 67-byte module
// that made wazero ask for 26 GB).
func FuzzInstrument(f *testing.F) {
	for _, w := range modules(f) {
		if len(w) < 64<<10 {
			f.Add(w)
		}
	}
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer rt.Close(ctx)
	f.Fuzz(func(t *testing.T, wasm []byte) {
		out, err := Instrument(wasm, 100)
		if errors.Is(err, errShape) {
			return // refused before wazero's decoder, which must never see it (shape.go)
		}
		c, alloc, verr := compile(ctx, rt, wasm)
		if alloc > allocBound(len(wasm)) {
			t.Fatalf("wazero allocated %d bytes for a module of %d the shape check passed", alloc, len(wasm))
		}
		if verr != nil {
			return // invalid input: an error or a module wazero refuses, either is fine
		}
		c.Close(ctx)
		if err != nil {
			if strings.Contains(err.Error(), Global) {
				return // the reserved name
			}
			t.Fatalf("wazero accepts the module, the rewrite refuses it: %v", err)
		}
		c2, _, err := compile(ctx, rt, out)
		if err != nil {
			t.Fatalf("the rewrite of a valid module is invalid: %v", err)
		}
		c2.Close(ctx)
		if !bytes.Equal(wasm[:8], out[:8]) {
			t.Fatal("header changed")
		}
	})
}

// compile is rt.CompileModule with a panic made an error: wazero 1.12
// panics on some malformed modules (testdata/fuzz/FuzzInstrument), and the
// host recovers the same way (plugins.compileRecovered). alloc is what the
// process allocated meanwhile (runtime/metrics: a fuzz worker runs one
// input at a time, so it is wazero's).
func compile(ctx context.Context, rt wazero.Runtime, wasm []byte) (c wazero.CompiledModule, alloc uint64, err error) {
	sample := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(sample)
	before := sample[0].Value.Uint64()
	defer func() {
		metrics.Read(sample)
		alloc = sample[0].Value.Uint64() - before
		if p := recover(); p != nil {
			c, err = nil, fmt.Errorf("wazero panicked: %v", p)
		}
	}()
	c, err = rt.CompileModule(ctx, wasm)
	return c, 0, err
}

// allocBound is the most wazero may allocate to compile a module of n bytes
// the shape check passed: its interpreter takes about 400 bytes a local
// and a module declares 65,536 and one a byte of code (maxLocals); its
// compiler 2.6 kB a br_table's label, a byte each (maxBrTable); 25 bytes a
// byte of the built-in module. Over it, a count in the bytes sized
// wazero's room, the very thing checkShape is there to stop (a custom
// section's name of 2.9 GB: testdata/fuzz/FuzzInstrument).
func allocBound(n int) uint64 { return 128<<20 + 4096*uint64(n) }

// BenchmarkInstrument is the rewrite of the built-in module (3 MB of Go),
// done once per load.
func BenchmarkInstrument(b *testing.B) {
	wasm, err := os.ReadFile("../../../policies/builtin.wasm")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(wasm)))
	for b.Loop() {
		if _, err := Instrument(wasm, 1000); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGoGuest runs a Go guest's loops (testdata/goscan: a JSON
// request walked byte by byte 20 times, 19 strings each) as wazero
// compiles the module as built, instrumented without threading, and
// instrumented, the three in turn at each iteration (the machines are
// noisy: one run compares them): what the fuel's charges cost a Go guest,
// and what thread.go takes back. It reports each one's mean µs a call.
func BenchmarkGoGuest(b *testing.B) {
	dir := b.TempDir()
	out := filepath.Join(dir, "goscan.wasm")
	cmd := exec.Command("go", "build", "-buildmode=c-shared", "-trimpath", "-o", out, "./testdata/goscan")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if msg, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, msg)
	}
	plain, err := os.ReadFile(out)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	rt := wazero.NewRuntime(ctx)
	defer rt.Close(ctx)
	wasi_snapshot_preview1.MustInstantiate(ctx, rt)
	variants := []struct {
		name          string
		fuel, threads bool
		scan          api.Function
		took          time.Duration
	}{{name: "as-built"}, {name: "fuel-unthreaded", fuel: true}, {name: "fuel", fuel: true, threads: true}}
	for i := range variants {
		v := &variants[i]
		wasm := plain
		if v.fuel {
			threadJumps = v.threads
			wasm, err = Instrument(plain, math.MaxInt64/4)
			threadJumps = true
			if err != nil {
				b.Fatal(err)
			}
		}
		m, err := rt.InstantiateWithConfig(ctx, wasm, wazero.NewModuleConfig().WithName(v.name).WithStartFunctions("_initialize"))
		if err != nil {
			b.Fatal(err)
		}
		if v.fuel {
			fill(m, math.MaxInt64/4)
		}
		v.scan = m.ExportedFunction("scan")
	}
	for b.Loop() {
		for i := range variants {
			v := &variants[i]
			t0 := time.Now()
			r, err := v.scan.Call(ctx, 20)
			v.took += time.Since(t0)
			if err != nil || r[0] != 20*19 {
				b.Fatal(v.name, r, err)
			}
		}
	}
	for _, v := range variants {
		b.ReportMetric(float64(v.took.Microseconds())/float64(b.N), v.name+"-µs")
	}
}
