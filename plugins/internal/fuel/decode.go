package fuel

import (
	"errors"
	"fmt"
)

// Instr is one decoded instruction: its opcode (the prefix for 0xFC, 0xFD
// and 0xFE instructions), its first immediate when the rewriter needs it
// (a global, local or function index, a branch's depth, an i32.const's
// value), a br_table's labels (the default last), and where it lies in the
// code.
type Instr struct {
	Op         byte
	Imm        uint64
	Labels     []uint32
	Start, End int
}

// Decode splits a function body's expression (after its locals) into
// instructions. It knows the instruction set wazero runs: the core
// instructions with sign extension, saturating conversion, bulk memory,
// reference types, SIMD and threads (atomics). Anything else is an error.
// The expression must end with the end of the function: the `end` that
// closes the body is the last instruction, and nothing follows it.
func Decode(code []byte) ([]Instr, error) { return decode(nil, code) }

// decode is Decode appending to ins.
func decode(ins []Instr, code []byte) ([]Instr, error) {
	r := &reader{b: code}
	ins, err := decodeExpr(r, ins, true)
	if err != nil {
		return nil, err
	}
	if r.i != len(code) {
		return nil, errors.New("bytes after the body's end instruction")
	}
	return ins, nil
}

// skipExpr reads an expression up to and with its end (a constant
// expression: a global's value, a segment's offset).
func skipExpr(r *reader) error {
	_, err := decodeExpr(r, nil, false)
	return err
}

// decodeExpr reads instructions from r, appending them to ins when keep,
// up to and with the end that closes the expression.
func decodeExpr(r *reader, ins []Instr, keep bool) ([]Instr, error) {
	depth := 1 // the expression itself
	for depth > 0 {
		if r.i >= len(r.b) {
			return nil, errors.New("the body ends before its end instruction")
		}
		start := r.i
		op := r.byte()
		in := Instr{Op: op, Start: start}
		switch {
		case op == 0x02 || op == 0x03 || op == 0x04: // block, loop, if
			r.blockType()
			if depth++; depth > maxDepth {
				return nil, fmt.Errorf("%w: offset %d: blocks nested more than %d deep", errShape, start, maxDepth)
			}
		case op == opEnd:
			depth--
		case op <= 0x01, op == 0x05, op == 0x0F, op == 0x1A, op == 0x1B, op == 0xD1:
			// unreachable, nop, else, return, drop, select, ref.is_null
		case op == 0x0C || op == 0x0D || op == 0x10 || op == 0xD2 || (op >= 0x20 && op <= 0x26):
			// br, br_if, call, ref.func, local.*, global.*, table.get/set
			in.Imm = uint64(r.u32())
		case op == 0x0E: // br_table: vec(label) default
			n := r.u32()
			if n > maxBrTable {
				return nil, fmt.Errorf("%w: offset %d: a br_table of %d labels, over the %d this host allows", errShape, start, n, maxBrTable)
			}
			if keep {
				in.Labels = make([]uint32, 0, n+1)
			}
			for n++; n > 0 && r.err == nil; n-- { // the labels, then the default
				if l := r.u32(); keep {
					in.Labels = append(in.Labels, l)
				}
			}
		case op == 0x11: // call_indirect: type, table
			r.u32()
			r.u32()
		case op == 0x1C: // select t*
			for n := r.u32(); n > 0 && r.err == nil; n-- {
				r.byte()
			}
		case op >= 0x28 && op <= 0x3E: // loads and stores
			r.memarg()
		case op == 0x3F || op == 0x40: // memory.size, memory.grow: memory index
			r.u32()
		case op == 0x41: // i32.const
			in.Imm = uint64(r.s64(5))
		case op == 0x42: // i64.const
			r.s64(10)
		case op == 0x43: // f32.const
			r.bytes(4)
		case op == 0x44: // f64.const
			r.bytes(8)
		case op >= 0x45 && op <= 0xC4: // numeric, sign extension
		case op == 0xD0: // ref.null t
			r.byte()
		case op == 0xFC:
			r.prefixFC()
		case op == 0xFD:
			r.prefixFD()
		case op == 0xFE:
			r.prefixFE()
		default:
			return nil, fmt.Errorf("offset %d: opcode 0x%02x is not one this host runs", start, op)
		}
		if r.err != nil {
			return nil, fmt.Errorf("offset %d: opcode 0x%02x: %w", start, op, r.err)
		}
		in.End = r.i
		if keep {
			ins = append(ins, in)
		}
	}
	return ins, nil
}

// blockType reads a block type as wazero does: an s33, whatever its
// encoding's length (0x7F and 0xFF 0xFF 0xFF 0x7F are both i32), a value
// type when negative (a reference type's heap type after -28 or -29),
// else a type index.
func (r *reader) blockType() {
	switch v := r.s33(); {
	case v == -28 || v == -29: // (ref ht), (ref null ht)
		r.s33()
	case v < 0 && v != -64 && v != -1 && v != -2 && v != -3 && v != -4 && v != -5 && v != -16 && v != -17 && v != -23:
		r.fail(errors.New("bad block type"))
	}
}

// s33 reads a signed 33-bit LEB128 as wazero's compilers and validation do
// (leb128.DecodeInt33AsInt64 in wazero 1.12): five bytes at most, and a
// continuation bit on the fifth is not read as one. So 0xFF 0xFF 0xFF 0xFF
// 0xFF is -1 in five bytes, and wazero runs the byte after it as the next
// instruction (FuzzInstrument found it: a stricter reading refused a module
// wazero runs). The fifth byte's unused bits must agree with the sign, as
// wazero checks.
func (r *reader) s33() int64 {
	var v int64
	var b byte
	shift, n := 0, 0
	for shift < 35 {
		b = r.byte()
		if r.err != nil {
			return 0
		}
		v |= int64(b&0x7F) << shift
		shift += 7
		n++
		if b&0x80 == 0 {
			break
		}
	}
	if shift < 33 && b&0x40 != 0 {
		v |= (1<<33 - 1) << shift
	}
	v &= 1<<33 - 1
	if v&(1<<32) != 0 {
		v -= 1 << 33
	}
	if n == 5 && (v < 0) != (b&0x20 != 0) {
		r.fail(errors.New("s33 out of range"))
		return 0
	}
	return v
}

// memarg reads alignment and offset, as wazero does: two u32s, the
// alignment below 32 (wazero has no multi-memory, so no memory index).
func (r *reader) memarg() {
	if r.u32() >= 32 {
		r.fail(errors.New("invalid memory alignment"))
	}
	r.u32()
}

// The 0xFC instructions' sub-opcode is a u32, as the specification says;
// wazero reads the 0xFD (SIMD) and 0xFE (atomics) ones as one byte, and the
// rewriter must read instructions exactly as wazero runs them: a
// redundant encoding such as 0xFD 0x85 0x00 is one load with a memarg to a
// reader of u32s, and an instruction without immediates followed by
// `unreachable` to wazero. (For the canonical two-byte encoding of 128-255,
// the byte wazero reads is the sub-opcode itself, and the 0x01 after it is
// a nop.) Found by FuzzInstrument.
func (r *reader) prefixFC() {
	sub := r.u32()
	switch {
	case sub <= 7: // saturating truncation
	case sub == 8: // memory.init: data, memory
		r.u32()
		r.u32()
	case sub == 9, sub == 13, sub == 15, sub == 16, sub == 17: // data.drop, elem.drop, table.grow/size/fill
		r.u32()
	case sub == 10, sub == 12, sub == 14: // memory.copy, table.init, table.copy
		r.u32()
		r.u32()
	case sub == 11: // memory.fill
		r.u32()
	default:
		r.fail(fmt.Errorf("0xfc %d is not an instruction this host runs", sub))
	}
}

func (r *reader) prefixFD() {
	sub := uint32(r.byte())
	switch {
	case sub <= 11, sub == 92, sub == 93: // v128 loads and stores
		r.memarg()
	case sub == 12, sub == 13: // v128.const, i8x16.shuffle
		r.bytes(16)
	case sub >= 21 && sub <= 34: // extract and replace lane
		r.byte()
	case sub >= 84 && sub <= 91: // load and store lane
		r.memarg()
		r.byte()
	case sub != 154 && sub != 162 && sub != 165 && sub != 166 && sub != 175 &&
		sub != 176 && sub != 178 && sub != 179 && sub != 180 && sub != 187 && sub != 194 &&
		sub != 197 && sub != 198 && sub != 207 && sub != 208 && sub != 210 && sub != 211 &&
		sub != 212 && sub != 226 && sub != 238:
		// the other SIMD instructions take no immediate
	default:
		r.fail(fmt.Errorf("0xfd %d is not an instruction this host runs", sub))
	}
}

func (r *reader) prefixFE() {
	sub := uint32(r.byte())
	switch {
	case sub == 3: // atomic.fence
		r.byte()
	case sub <= 2, sub >= 16 && sub <= 78:
		r.memarg()
	default:
		r.fail(fmt.Errorf("0xfe %d is not an instruction this host runs", sub))
	}
}
