// Package fuel rewrites a WebAssembly module so that it runs on a budget: a
// mutable i64 global, exported as Global, is charged at the start of every
// function body and every loop iteration; when it goes below zero the
// module calls a refuel function the rewrite adds, which leaves compiled
// code for a moment (see Slice) and moves the next slice from a second
// global, exported as Budget, or traps (`unreachable`) when that is spent.
//
// Each charge is the number of instructions of the region it opens: the
// function body, or the loop body, without the loops nested in it. Within
// one region no instruction runs twice without passing a charge again
// (branches go forward, or back to a loop header, which charges; a call
// charges in the callee), so the fuel a call spends bounds the instructions
// it runs. The host fills the globals before each call and, to stop a call
// at its deadline, sets both below zero from another goroutine: the guest
// sees that at its next function entry or loop header.
//
// Why a rewrite and not wazero's WithCloseOnContextDone: that option leaves
// native code at every function entry and loop header to look at the
// context, which cost a Go guest 3/4 of its call time (docs/PERFORMANCE.md);
// the fuel check stays in native code, a load, a subtraction, a store and a
// branch, and leaves it once a slice.
//
// It also threads the jumps of a Go guest's dispatch loops (thread.go):
// a branch back to the loop that a br_table would send on to an enclosing
// block goes to that block at once, which skips the loop's charge and its
// indirect jump.
//
// The rewriter decodes only what it must: the section headers, the counts
// of every vector wazero sets room aside for (shape.go), the types,
// imports, functions and memories (to add the refuel function without
// moving an index), the global and export sections (to append to them)
// and every instruction of every body (to find the loops, count the
// instructions and refuse code that names the globals or the refuel
// function). The rest is copied byte for byte. It refuses what it does not
// know rather than guess: an unknown opcode is an error, not a
// pass-through.
package fuel

import (
	"errors"
	"fmt"
	"strings"
)

// Global is the name under which the instrumented module exports its fuel.
const Global = "guard_fuel"

// Budget is the name under which it exports the rest of a call's fuel,
// which it draws on a Slice at a time.
const Budget = "guard_fuel_budget"

// Slice is the fuel a module spends between two visits to the host's side
// of the runtime. Compiled code cannot be preempted: a guest that never
// left it would keep Go's garbage collector from stopping the world, and
// with it every goroutine of the server, the watchdog that must stop the
// guest included, until its fuel ran out. So each time a slice is spent,
// the module's refuel function (added by the rewrite) calls memory.grow 0,
// which leaves compiled code for wazero's Go side and comes back, and then
// takes the next slice from the budget, or traps when the budget is spent
// or the watchdog emptied it. A slice lasts ~10 ms of a guest without a
// runtime and ~0.1 ms of a Go guest (docs/RATIONALE.md, "Fuel").
const Slice = 10_000_000

// Section ids, and the order in which they must appear.
const (
	secCustom   = 0
	secType     = 1
	secImport   = 2
	secFunction = 3
	secTable    = 4
	secMemory   = 5
	secStart    = 8
	secGlobal   = 6
	secExport   = 7
	secCode     = 10
	secDataCnt  = 12
	kindGlobal  = 3
	valI64      = 0x7E
	opEnd       = 0x0B
	maxSections = 64
)

var order = map[byte]int{1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 13: 6, 6: 7, 7: 8, 8: 9, 9: 10, 12: 11, 10: 12, 11: 13}

type section struct {
	id      byte
	payload []byte
}

// Instrument returns wasm rewritten to run on fuel. initial is the fuel the
// module starts with, which its start function (if any) spends; the host
// sets the fuel before every call it makes. The input is not modified.
func Instrument(wasm []byte, initial int64) ([]byte, error) {
	out, _, err := instrument(wasm, initial)
	return out, err
}

// instrument is Instrument, and how many branches it threaded (thread.go).
func instrument(wasm []byte, initial int64) ([]byte, int, error) {
	if len(wasm) < 8 || string(wasm[:8]) != "\x00asm\x01\x00\x00\x00" {
		return nil, 0, errors.New("not a WebAssembly module (no \\0asm version 1 header)")
	}
	var secs []section
	r := &reader{b: wasm, i: 8}
	last := 0
	for !r.done() {
		id := r.byte()
		n := r.u32()
		payload := r.bytes(int(n))
		if r.err != nil {
			return nil, 0, fmt.Errorf("%w: section %d: %w", errShape, id, r.err)
		}
		if id != secCustom {
			o, ok := order[id]
			if !ok {
				return nil, 0, fmt.Errorf("%w: unknown section id %d", errShape, id)
			}
			if o <= last {
				return nil, 0, fmt.Errorf("%w: section %d out of order or repeated", errShape, id)
			}
			last = o
		}
		secs = append(secs, section{id, payload})
	}

	if err := checkShape(secs); err != nil {
		return nil, 0, err
	}
	m := module{}
	var memories, bodies uint32
	for _, s := range secs {
		var err error
		var n uint32
		switch s.id {
		case secType:
			m.types, m.voidType, err = findVoidType(s.payload)
		case secImport:
			var imp imports
			imp, err = countImports(s.payload)
			m.importedGlobals, m.importedFuncs, memories = imp.globals, imp.funcs, memories+imp.memories
		case secFunction:
			m.definedFuncs, err = vecLen(s.payload)
		case secMemory:
			n, err = vecLen(s.payload)
			memories += n
		case secGlobal:
			m.definedGlobals, err = vecLen(s.payload)
		case secCode:
			bodies, err = vecLen(s.payload)
		}
		if err != nil {
			return nil, 0, fmt.Errorf("section %d: %w", s.id, err)
		}
	}
	m.fuel = m.importedGlobals + m.definedGlobals
	m.budget = m.fuel + 1
	// The refuel function goes after the module's own, so no index moves;
	// without a memory to grow (no ABI module lacks one) a charge traps
	// when the fuel is spent.
	m.refuel = bodies > 0 && memories > 0
	m.refuelFunc = m.importedFuncs + m.definedFuncs

	out := append(make([]byte, 0, len(wasm)+len(wasm)/8+64), wasm[:8]...)
	var haveGlobal, haveExport bool
	for _, s := range secs {
		if s.id != secCustom {
			// A section of ours that the module lacks goes before the
			// first section that must follow it.
			if !haveGlobal && order[s.id] > order[secGlobal] {
				out, haveGlobal = appendSection(out, secGlobal, m.globalSection(nil, initial)), true
			}
			if !haveExport && order[s.id] > order[secExport] {
				p, _ := m.exportSection([]byte{0})
				out, haveExport = appendSection(out, secExport, p), true
			}
		}
		var p []byte
		var err error
		switch s.id {
		case secCustom:
			name, _ := customName(s.payload)
			if strings.HasPrefix(name, ".debug_") {
				continue // DWARF names code offsets, which the rewrite moves
			}
			if name == "name" && !nameSection(s.payload) {
				continue // not whole: wazero would read past it (shape.go)
			}
			p = s.payload
		case secType:
			p = m.typeSection(s.payload)
		case secFunction:
			p = m.functionSection(s.payload)
		case secGlobal:
			p, haveGlobal = m.globalSection(s.payload, initial), true
		case secExport:
			p, err = m.exportSection(s.payload)
			haveExport = true
		case secTable:
			p = tableSection(s.payload)
		case secStart:
			p, err = m.startSection(s.payload)
		case secCode:
			p, err = m.codeSection(s.payload)
		default:
			p = s.payload
		}
		if err != nil {
			return nil, 0, fmt.Errorf("section %d: %w", s.id, err)
		}
		out = appendSection(out, s.id, p)
	}
	if !haveGlobal {
		out = appendSection(out, secGlobal, m.globalSection(nil, initial))
	}
	if !haveExport {
		p, _ := m.exportSection([]byte{0})
		out = appendSection(out, secExport, p)
	}
	return out, m.jumps, nil
}

type module struct {
	importedGlobals uint32
	definedGlobals  uint32
	fuel            uint32 // the index of the fuel global
	budget          uint32 // and of the budget's, after it

	importedFuncs, definedFuncs uint32
	types, voidType             uint32 // the type count; a () -> () type's index, or types when none
	refuel                      bool   // the rewrite adds the refuel function
	refuelFunc                  uint32 // its index

	jumps int // the branches thread rewrote

	// scratch, reused from body to body
	stack          []int
	threads        []threaded
	ins            []Instr
	costs          []int64
	regions, loops []int
	frames         []bool
}

// globalSection appends the fuel and budget globals, `(mut i64)`, to the
// section's entries (payload nil: a section of its own), holding initial
// between them as the host does before a call (Split).
func (m *module) globalSection(payload []byte, initial int64) []byte {
	var rest []byte
	if payload != nil {
		r := &reader{b: payload}
		r.u32()
		rest = payload[r.i:]
	}
	fuel, budget := Split(initial)
	p := appendU32(nil, m.definedGlobals+2)
	p = append(p, rest...)
	p = append(p, valI64, 1, 0x42)
	p = appendS64(p, fuel)
	p = append(p, opEnd, valI64, 1, 0x42)
	p = appendS64(p, budget)
	return append(p, opEnd)
}

// Split is how fuel for a call is held: a first slice in the fuel global,
// the rest in the budget.
func Split(fuel int64) (first, budget int64) {
	first = min(fuel, Slice)
	return first, fuel - first
}

// typeSection adds a () -> () type when the module has none.
func (m *module) typeSection(payload []byte) []byte {
	if !m.refuel || m.voidType < m.types {
		return payload
	}
	p := appendU32(nil, m.types+1)
	p = append(p, afterCount(payload)...)
	return append(p, 0x60, 0, 0)
}

// functionSection declares the refuel function.
func (m *module) functionSection(payload []byte) []byte {
	if !m.refuel {
		return payload
	}
	p := appendU32(nil, m.definedFuncs+1)
	p = append(p, afterCount(payload)...)
	return appendU32(p, m.voidType)
}

// startSection refuses a start function the module does not have (the
// refuel function's index).
func (m *module) startSection(payload []byte) ([]byte, error) {
	r := &reader{b: payload}
	if f := r.u32(); r.err == nil && m.refuel && f >= m.refuelFunc {
		return nil, fmt.Errorf("the start function %d is not one of the module's", f)
	}
	return payload, r.err
}

// refuelBody is the refuel function: leave compiled code and come back
// (memory.grow 0: wazero grows memories on its Go side), take a slice from
// the budget, trap when that leaves it below zero (spent, or emptied at the
// deadline), else add the slice to the fuel.
func (m *module) refuelBody() []byte {
	b := []byte{0, 0x41, 0, 0x40, 0, 0x1A} // no locals; i32.const 0, memory.grow 0, drop
	b = append(b, 0x23)                    // global.get budget
	b = appendU32(b, m.budget)
	b = append(b, 0x42)
	b = appendS64(b, Slice)
	b = append(b, 0x7D, 0x24) // i64.sub, global.set budget
	b = appendU32(b, m.budget)
	b = append(b, 0x23) // global.get budget
	b = appendU32(b, m.budget)
	b = append(b, 0x42, 0, 0x53, 0x04, 0x40, 0x00, opEnd) // i64.const 0, i64.lt_s, if, unreachable, end
	b = append(b, 0x23)                                   // global.get fuel
	b = appendU32(b, m.fuel)
	b = append(b, 0x42)
	b = appendS64(b, Slice)
	b = append(b, 0x7C, 0x24) // i64.add, global.set fuel
	b = appendU32(b, m.fuel)
	return append(b, opEnd)
}

// exportSection appends the exports of the fuel and budget globals; a
// module that already exports either name, or exports a global or function
// it does not have, is refused.
func (m *module) exportSection(payload []byte) ([]byte, error) {
	r := &reader{b: payload}
	n := r.u32()
	for i := uint32(0); i < n && r.err == nil; i++ {
		name := r.bytes(int(r.u32()))
		kind := r.byte()
		idx := r.u32()
		if r.err != nil {
			break
		}
		if string(name) == Global || string(name) == Budget {
			return nil, fmt.Errorf("the module exports %s, a name the host reserves", name)
		}
		if kind == kindGlobal && idx >= m.fuel {
			return nil, fmt.Errorf("export %q names global %d, which the module does not have", name, idx)
		}
		if kind == 0 && m.refuel && idx >= m.refuelFunc {
			return nil, fmt.Errorf("export %q names function %d, which the module does not have", name, idx)
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	if !r.done() {
		return nil, errors.New("trailing bytes")
	}
	p := appendU32(nil, n+2)
	p = append(p, afterCount(payload)...)
	p = appendU32(p, uint32(len(Global)))
	p = append(p, Global...)
	p = append(p, kindGlobal)
	p = appendU32(p, m.fuel)
	p = appendU32(p, uint32(len(Budget)))
	p = append(p, Budget...)
	p = append(p, kindGlobal)
	return appendU32(p, m.budget), nil
}

// codeSection instruments every function body.
func (m *module) codeSection(payload []byte) ([]byte, error) {
	r := &reader{b: payload}
	n := r.u32()
	total := n
	if m.refuel {
		total++
	}
	out := appendU32(make([]byte, 0, len(payload)+len(payload)/4), total)
	var body []byte
	for i := uint32(0); i < n; i++ {
		size := r.u32()
		b := r.bytes(int(size))
		if r.err != nil {
			return nil, fmt.Errorf("function %d: %w", i, r.err)
		}
		var err error
		body, err = m.body(body[:0], b)
		if err != nil {
			return nil, fmt.Errorf("function body %d: %w", i, err)
		}
		out = appendU32(out, uint32(len(body)))
		out = append(out, body...)
	}
	if !r.done() {
		return nil, errors.New("trailing bytes after the function bodies")
	}
	if m.refuel {
		b := m.refuelBody()
		out = appendU32(out, uint32(len(b)))
		out = append(out, b...)
	}
	return out, nil
}

// body rewrites one function body into out: its locals as they are, a charge
// for the body, a charge after each loop header, and the branches thread
// finds going straight to where a dispatch loop would send them.
func (m *module) body(out, b []byte) ([]byte, error) {
	r := &reader{b: b}
	for n := r.u32(); n > 0 && r.err == nil; n-- {
		r.u32()
		r.byte()
	}
	if r.err != nil {
		return nil, fmt.Errorf("locals: %w", r.err)
	}
	code := b[r.i:]
	ins, err := decode(m.ins[:0], code)
	if err != nil {
		return nil, err
	}
	m.ins = ins

	// First pass: the cost of each region. Region 0 is the body; each loop
	// opens one, closed by its end.
	costs := append(m.costs[:0], 0)
	regions := append(m.regions[:0], 0)   // open regions, innermost last
	frames := append(m.frames[:0], false) // open blocks: true for a loop
	loopRegion := m.loops[:0]
	defer func() { m.costs, m.regions, m.frames, m.loops = costs, regions, frames, loopRegion }()
	for _, in := range ins {
		costs[regions[len(regions)-1]]++
		switch in.Op {
		case 0x02, 0x04: // block, if
			frames = append(frames, false)
		case 0x03: // loop
			frames = append(frames, true)
			regions = append(regions, len(costs))
			loopRegion = append(loopRegion, len(costs))
			costs = append(costs, 0)
		case opEnd:
			if frames[len(frames)-1] {
				regions = regions[:len(regions)-1]
			}
			frames = frames[:len(frames)-1]
		case 0x23, 0x24: // global.get, global.set
			if in.Imm >= uint64(m.fuel) {
				return nil, fmt.Errorf("global %d: the module has %d globals", in.Imm, m.fuel)
			}
		case 0x10, 0xD2: // call, ref.func
			if m.refuel && in.Imm >= uint64(m.refuelFunc) {
				return nil, fmt.Errorf("function %d: the module has %d functions", in.Imm, m.refuelFunc)
			}
		}
	}

	// Second pass: copy, charging at the top and after each loop header,
	// and threading.
	m.stack, m.threads = thread(ins, code, m.stack, m.threads[:0])
	if !threadJumps {
		m.threads = m.threads[:0]
	}
	m.jumps += len(m.threads)
	out = append(out, b[:r.i]...)
	out = m.charge(out, costs[0])
	loops, from, next := 0, 0, 0
	for i, in := range ins {
		switch {
		case next < len(m.threads) && m.threads[next].at == i:
			out = append(out, code[from:in.Start]...)
			out = appendU32(append(out, 0x0C), m.threads[next].depth) // br
			next, from = next+1, in.End
		case in.Op == 0x03:
			out = append(out, code[from:in.End]...)
			out = m.charge(out, costs[loopRegion[loops]])
			loops, from = loops+1, in.End
		}
	}
	return append(out, code[from:]...), nil
}

// threadJumps is false only in BenchmarkGoGuest, to measure what thread
// takes back.
var threadJumps = true

// chargeCost is what a charge's own instructions count.
const chargeCost = 10

// charge appends: fuel -= cost; if fuel < 0 { refuel() } (or, without the
// refuel function, unreachable).
func (m *module) charge(out []byte, cost int64) []byte {
	out = append(out, 0x23) // global.get
	out = appendU32(out, m.fuel)
	out = append(out, 0x42) // i64.const
	out = appendS64(out, cost+chargeCost)
	out = append(out, 0x7D, 0x24) // i64.sub, global.set
	out = appendU32(out, m.fuel)
	out = append(out, 0x23) // global.get
	out = appendU32(out, m.fuel)
	out = append(out, 0x42, 0, 0x53, 0x04, 0x40) // i64.const 0, i64.lt_s, if (empty)
	if m.refuel {
		out = append(out, 0x10) // call
		out = appendU32(out, m.refuelFunc)
	} else {
		out = append(out, 0x00) // unreachable
	}
	return append(out, opEnd)
}

// afterCount is a vector's entries, without the count before them (which
// may be written in more bytes than it needs).
func afterCount(payload []byte) []byte {
	r := &reader{b: payload}
	r.u32()
	return payload[r.i:]
}

// tableSection lowers every table's maximum to maxTable, giving one to a
// table that has none (checkShape has read the section and refused a table
// that starts larger).
func tableSection(p []byte) []byte {
	r := &reader{b: p}
	n := r.u32()
	out := appendU32(make([]byte, 0, len(p)+8*int(n)), n)
	for ; n > 0; n-- {
		start := r.i
		t := r.tableType()
		out = append(out, p[start:t.limStart]...)
		out = append(out, t.flag|1)
		out = appendU32(out, t.min)
		out = appendU32(out, min(t.max, maxTable))
		out = append(out, p[t.limEnd:r.i]...)
	}
	return out
}

func appendSection(out []byte, id byte, payload []byte) []byte {
	out = append(out, id)
	out = appendU32(out, uint32(len(payload)))
	return append(out, payload...)
}

func customName(p []byte) (string, error) {
	r := &reader{b: p}
	name := r.bytes(int(r.u32()))
	return string(name), r.err
}

func vecLen(p []byte) (uint32, error) {
	r := &reader{b: p}
	n := r.u32()
	return n, r.err
}

// imports counts what an import section imports by kind (imports come
// first in each index space).
type imports struct{ funcs, memories, globals uint32 }

// countImports reads the import section.
func countImports(p []byte) (imports, error) {
	r := &reader{b: p}
	var c imports
	for n := r.vec(); n > 0 && r.err == nil; n-- {
		r.bytes(int(r.vec())) // module
		r.bytes(int(r.vec())) // name
		switch kind := r.byte(); kind {
		case 0: // func: type index
			r.u32()
			c.funcs++
		case 1: // table: reftype, limits
			r.byte()
			r.limits()
		case 2: // memory: limits
			r.limits()
			c.memories++
		case kindGlobal: // valtype, mutability
			r.byte()
			r.byte()
			c.globals++
		case 4: // tag: attribute, type index
			r.byte()
			r.u32()
		default:
			return c, fmt.Errorf("import kind %d", kind)
		}
	}
	if r.err == nil && !r.done() {
		return c, errors.New("trailing bytes after the imports")
	}
	return c, r.err
}

// findVoidType reads the type section for its count and the index of a
// () -> () type (the count when there is none).
func findVoidType(p []byte) (n, void uint32, err error) {
	r := &reader{b: p}
	n = r.vec()
	void = n
	for i := uint32(0); i < n && r.err == nil; i++ {
		r.byte() // 0x60
		params, results := r.vec(), uint32(0)
		r.bytes(int(params))
		results = r.vec()
		r.bytes(int(results))
		if params == 0 && results == 0 && void == n {
			void = i
		}
	}
	return n, void, r.err
}

// reader reads the binary format; the first error sticks and every read
// after it returns zero.
type reader struct {
	b   []byte
	i   int
	err error
}

var errShort = errors.New("unexpected end")

func (r *reader) done() bool { return r.err != nil || r.i >= len(r.b) }

func (r *reader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
	r.i = len(r.b)
}

func (r *reader) byte() byte {
	if r.i >= len(r.b) {
		r.fail(errShort)
		return 0
	}
	c := r.b[r.i]
	r.i++
	return c
}

func (r *reader) bytes(n int) []byte {
	if n < 0 || n > len(r.b)-r.i {
		r.fail(errShort)
		return nil
	}
	b := r.b[r.i : r.i+n]
	r.i += n
	return b
}

// leb reads an LEB128 number of at most max bytes and returns its raw bits.
func (r *reader) leb(max int) (v uint64, shift uint, last byte) {
	for k := 0; k < max; k++ {
		c := r.byte()
		if r.err != nil {
			return 0, 0, 0
		}
		v |= uint64(c&0x7F) << shift
		shift += 7
		if c&0x80 == 0 {
			return v, shift, c
		}
	}
	r.fail(errors.New("LEB128 number too long"))
	return 0, 0, 0
}

func (r *reader) u32() uint32 {
	v, _, _ := r.leb(5)
	if v > 0xFFFFFFFF {
		r.fail(errors.New("u32 out of range"))
		return 0
	}
	return uint32(v)
}

func (r *reader) u64() uint64 {
	v, _, _ := r.leb(10)
	return v
}

func (r *reader) s64(max int) int64 {
	v, shift, last := r.leb(max)
	if shift < 64 && last&0x40 != 0 {
		v |= ^uint64(0) << shift
	}
	return int64(v)
}

func (r *reader) limits() {
	flags := r.byte()
	r.u64()
	if flags&1 != 0 {
		r.u64()
	}
}

func appendU32(b []byte, v uint32) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func appendS64(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7F)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
