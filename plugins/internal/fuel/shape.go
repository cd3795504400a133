package fuel

import (
	"errors"
	"fmt"
	"math"
)

// errShape marks a refusal of the module's shape: it was never handed to
// wazero (FuzzInstrument skips such input: the point is that it does not
// reach wazero's decoder).
var errShape = errors.New("malformed module")

// maxLocals is how many locals a module's functions may declare, all of
// them together: 65,536, and one more for each byte of its code section.
// WebAssembly allows 2^32-1 a function in five bytes, and what they cost is
// not in the bytes: wazero sets aside a byte for each before it reads
// them, its compiler spends about 30 bytes and 50 ns on each, its
// interpreter 400 bytes. Under a bound a function (1,048,576, the bound
// before), 341 bytes of 40 functions claiming 2^20 each cost the compiler
// 2 s and 356 MB, and the interpreter took 400 MB for one. A bound on the
// sum that grows with the code keeps what a module costs to load in
// proportion to its size. Real code uses what it declares, a local at
// least two bytes of instructions: the built-in module, 4 MB of Go,
// declares 10,765.
func maxLocals(code []byte) uint64 { return 1<<16 + uint64(len(code)) }

// maxDepth is how deep a function's blocks may nest, its body counted as
// one. wazero's compiler takes time in the square of the depth: 10,000
// nested loops (70 kB) took it 3 s, and 14 s once instrumented; by the
// square, a megabyte of them would take most of an hour to load. The
// built-in module's deepest is 549 (Go's resume points); a C switch nests
// a block a case.
const maxDepth = 4096

// maxBrTable is how many labels a br_table may list, V8's bound (a module
// that runs in a browser runs here). wazero's compiler spends 2.6 kB of
// memory on each label, and time more than in proportion: 10,000 took it
// 0.16 s, 65,520 1.4-2.8 s, 160,000 5-8 s and 424 MB for one function.
const maxBrTable = 65520

// maxTable is how many elements a table may hold. wazero sets aside 8
// bytes for each when it makes an instance, and neither [sandbox] memory
// nor a setting of wazero bounds it: a module declaring a table of 2^27
// elements, wazero's most, and filling it took 1 GB an instance. A table
// that starts larger is refused; every table's maximum is lowered to it,
// so a table.grow past it fails as the guest is told to expect (-1). The
// built-in module's table holds 6,500.
const maxTable = 1 << 20

// table is a table's type as tableType reads it.
type table struct {
	limStart, limEnd int // where its limits lie
	flag             byte
	min, max         uint32
}

// tableType reads a table's type as wazero does (decodeTable): an
// initializer's 0x40 0x00 prefix, the reference type (a heap type after
// 0x63 or 0x64), the limits (their flag's 2 is "shared"), the initializer.
func (r *reader) tableType() (t table) {
	b := r.byte()
	init := b == 0x40
	if init {
		if r.byte() != 0x00 {
			r.fail(errors.New("no 0x00 after a table's 0x40"))
			return t
		}
		b = r.byte()
	}
	if b == 0x63 || b == 0x64 {
		r.s33()
	}
	t.limStart = r.i
	if t.flag = r.byte(); t.flag > 3 {
		r.fail(fmt.Errorf("limits' flag 0x%02x", t.flag))
		return t
	}
	t.min = r.u32()
	t.max = math.MaxUint32
	if t.flag&1 != 0 {
		t.max = r.u32()
	}
	t.limEnd = r.i
	if init {
		r.expr()
	}
	return t
}

// checkShape reads every section wazero decodes with room set aside by a
// count it reads, and refuses a count larger than what is left of its
// section (each entry takes a byte at least, so such a module cannot be
// valid): wazero allocates before it reads, and a 67-byte module claiming
// 2^31 imports made it ask for 26 GB and end the process (found by
// FuzzInstrument). So is every custom section's name: wazero reads the
// name of each, whatever it is, into room its length sets aside (a 17-byte
// section claiming a name of 2.9 GB, found by FuzzDefineMemory). The code
// section's locals are bounded by maxLocals and a table's size by maxTable
// (the rewrite bounds the rest: maxDepth, maxBrTable). Everything else
// about validity is wazero's to check.
func checkShape(secs []section) error {
	if err := checkSections(secs); err != nil {
		return fmt.Errorf("%w: %w", errShape, err)
	}
	return nil
}

func checkSections(secs []section) error {
	var locals uint64
	for _, s := range secs {
		r := &reader{b: s.payload}
		var what string
		switch s.id {
		case secCustom:
			if _, err := customName(s.payload); err != nil {
				return fmt.Errorf("custom section: its name: %w", err)
			}
			continue // the name section's counts: nameSection
		case 1:
			what = "type"
			for n := r.vec(); n > 0 && r.err == nil; n-- {
				r.byte() // 0x60
				r.bytes(int(r.vec()))
				r.bytes(int(r.vec()))
			}
		case secImport:
			what = "import"
			if _, err := countImports(s.payload); err != nil {
				return fmt.Errorf("import section: %w", err)
			}
			continue // countImports reads it all
		case 3:
			what = "function"
			for n := r.vec(); n > 0 && r.err == nil; n-- {
				r.u32()
			}
		case secTable:
			what = "table"
			for n := r.vec(); n > 0 && r.err == nil; n-- {
				if t := r.tableType(); r.err == nil && t.min > maxTable {
					return fmt.Errorf("table section: a table of %d elements, over the %d this host allows", t.min, maxTable)
				}
			}
		case 5:
			what = "memory"
			for n := r.vec(); n > 0 && r.err == nil; n-- {
				r.limits()
			}
		case secGlobal:
			what = "global"
			for n := r.vec(); n > 0 && r.err == nil; n-- {
				r.byte()
				r.byte()
				r.expr()
			}
		case secExport:
			what = "export"
			for n := r.vec(); n > 0 && r.err == nil; n-- {
				r.bytes(int(r.vec()))
				r.byte()
				r.u32()
			}
		case 9:
			what = "element"
			for n := r.vec(); n > 0 && r.err == nil; n-- {
				r.element()
			}
		case secCode:
			what = "code"
			for n := r.vec(); n > 0 && r.err == nil; n-- {
				body := &reader{b: r.bytes(int(r.u32()))}
				for k := body.vec(); k > 0 && body.err == nil; k-- {
					locals += uint64(body.u32())
					body.byte()
				}
				if max := maxLocals(s.payload); body.err == nil && locals > max {
					return fmt.Errorf("code section: its functions declare %d locals or more, over the %d this host allows a module with %d bytes of code (65,536, and one a byte)", locals, max, len(s.payload))
				}
				if body.err != nil {
					r.fail(body.err)
				}
			}
		case 11:
			what = "data"
			for n := r.vec(); n > 0 && r.err == nil; n-- {
				switch r.u32() {
				case 0:
					r.expr()
				case 1:
				case 2:
					r.u32()
					r.expr()
				default:
					r.fail(errors.New("unknown data segment kind"))
				}
				r.bytes(int(r.vec()))
			}
		case 13:
			what = "tag"
			for n := r.vec(); n > 0 && r.err == nil; n-- {
				r.byte()
				r.u32()
			}
		default:
			continue // start, data count
		}
		if r.err == nil && r.i != len(r.b) {
			r.fail(errors.New("bytes after its last entry"))
		}
		if r.err != nil {
			return fmt.Errorf("%s section: %w", what, r.err)
		}
	}
	return nil
}

// nameSection reports whether a name section's subsections are whole: each
// within its size, every count within what is left of it. wazero reads
// them from the module's stream, past their sizes, and sets aside room by
// their counts; the rewriter drops one that is not whole (the names are
// for stack traces only).
func nameSection(p []byte) bool {
	r := &reader{b: p}
	r.bytes(int(r.u32())) // "name"
	for !r.done() {
		id := r.byte()
		sub := &reader{b: r.bytes(int(r.u32()))}
		switch id {
		case 0: // module name
			sub.bytes(int(sub.vec()))
		case 1: // function names: vec(index, name)
			for n := sub.vec(); n > 0 && sub.err == nil; n-- {
				sub.u32()
				sub.bytes(int(sub.vec()))
			}
		case 2: // local names: vec(index, vec(index, name))
			for n := sub.vec(); n > 0 && sub.err == nil; n-- {
				sub.u32()
				for k := sub.vec(); k > 0 && sub.err == nil; k-- {
					sub.u32()
					sub.bytes(int(sub.vec()))
				}
			}
		default:
			continue
		}
		if sub.err != nil || sub.i != len(sub.b) {
			return false
		}
	}
	return r.err == nil
}

// vec reads a count of entries (or bytes) and refuses one larger than what
// is left to read: every entry takes a byte at least.
func (r *reader) vec() uint32 {
	n := r.u32()
	if r.err == nil && int64(n) > int64(len(r.b)-r.i) {
		r.fail(fmt.Errorf("a count of %d with %d bytes left", n, len(r.b)-r.i))
		return 0
	}
	return n
}

// expr skips a constant expression, up to and with its end.
func (r *reader) expr() {
	if r.err != nil {
		return
	}
	rest := &reader{b: r.b[r.i:]}
	if err := skipExpr(rest); err != nil {
		r.fail(err)
		return
	}
	r.i += rest.i
}

// element skips an element segment (its eight encodings).
func (r *reader) element() {
	flags := r.u32()
	if flags > 7 {
		r.fail(fmt.Errorf("unknown element segment kind %d", flags))
		return
	}
	if flags&2 != 0 && flags&1 == 0 { // an explicit table index
		r.u32()
	}
	if flags&1 == 0 { // active: an offset
		r.expr()
	}
	if flags&3 != 0 { // an element kind or reference type
		r.byte()
	}
	n := r.vec()
	for ; n > 0 && r.err == nil; n-- {
		if flags&4 != 0 {
			r.expr()
		} else {
			r.u32()
		}
	}
}
