package fuel

// Go's WebAssembly compiler writes each function as a dispatch loop: the
// function's basic blocks are the cases of a br_table at the top of a loop,
// on a local that holds the block to run next, and a jump from one block to
// another is
//
//	i32.const K
//	local.set $pc
//	br $loop
//
// back to the loop's top, where the br_table sends it on to case K. (The
// loop is what lets a goroutine's function be left and resumed at any
// block.) So every jump of a Go guest, forward ones included, costs an
// indirect jump through a table, and, once instrumented, a charge at the
// loop's header: a Go guest spent most of its time there
// (docs/PERFORMANCE.md, "A Go guest's jumps, threaded").
//
// thread finds the jumps whose case encloses the jump: the forward ones,
// and those to an enclosing loop or block. Such a `br $loop` is rewritten
// to branch where the br_table would send it: a br to that block. The
// const and the local.set stay, so the local holds what it held, and the
// instructions the jump would have passed between the loop's header and
// its br_table are block openings, a local.get and the br_table itself,
// none of which changes anything. Only the charge at the loop's header is
// skipped, and the fuel's bound holds without it (see the package doc): the
// new branch goes forward, or back to a loop, whose header charges.
//
// It rewrites only what it proves: the three instructions adjacent, the
// loop and every block it passes with no parameters or results (0x40), the
// local the br_table reads the one just set, K written in its shortest
// encoding, and the block the br_table picks for K open where the jump is.
func thread(ins []Instr, code []byte, stack []int, out []threaded) ([]int, []threaded) {
	stack = stack[:0] // the open blocks, loops and ifs: their instruction indexes
	for i, in := range ins {
		switch in.Op {
		case 0x02, 0x03, 0x04: // block, loop, if
			stack = append(stack, i)
		case opEnd:
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case 0x0C: // br
			if d, ok := redirect(ins, code, stack, i); ok {
				out = append(out, threaded{at: i, depth: d})
			}
		}
	}
	return stack, out
}

// threaded is a br to rewrite: the instruction's index and its new depth.
type threaded struct {
	at    int
	depth uint32
}

// redirect is the depth a br at ins[i] can branch to instead of its
// dispatch loop, if it is one thread can rewrite.
func redirect(ins []Instr, code []byte, stack []int, i int) (uint32, bool) {
	if i < 2 || ins[i-1].Op != 0x21 || ins[i-2].Op != 0x41 { // local.set, i32.const
		return 0, false
	}
	d := int(ins[i].Imm)
	if d >= len(stack) {
		return 0, false
	}
	pl := len(stack) - 1 - d // the loop's place on the stack
	l := stack[pl]
	if ins[l].Op != 0x03 || !void(ins[l], code) {
		return 0, false
	}
	j := l + 1 // past the blocks the loop opens before its br_table
	for j < len(ins) && ins[j].Op == 0x02 && void(ins[j], code) {
		j++
	}
	blocks := j - (l + 1)
	if j+1 >= len(ins) || ins[j].Op != 0x20 || ins[j].Imm != ins[i-1].Imm || ins[j+1].Op != 0x0E {
		return 0, false
	}
	k, ok := shortConst(ins[i-2], code)
	if !ok {
		return 0, false
	}
	labels := ins[j+1].Labels
	k = min(k, uint64(len(labels)-1)) // past the br_table's labels: its default, the last

	t := int(labels[k]) // a depth at the br_table
	var s int           // the target's place on the stack here
	if t < blocks {
		// One of the blocks opened after the loop: open here too only if
		// it is at the same place.
		q := l + blocks - t
		s = pl + (q - l)
		if s >= len(stack) || stack[s] != q {
			return 0, false
		}
	} else {
		// The loop itself or a block around it, open here as it is there.
		s = pl - (t - blocks)
		if s < 0 {
			return 0, false // the function's own label: a return
		}
	}
	if !void(ins[stack[s]], code) {
		return 0, false
	}
	return uint32(len(stack) - 1 - s), true
}

// void says whether a block, loop or if has the empty block type, written
// as the one byte 0x40.
func void(in Instr, code []byte) bool {
	return in.End == in.Start+2 && code[in.Start+1] == 0x40
}

// shortConst is an i32.const's value when it is not negative and written
// in its shortest encoding, which every reader of LEB128 reads alike.
func shortConst(in Instr, code []byte) (uint64, bool) {
	v := int64(in.Imm)
	if v < 0 || v > 1<<31-1 {
		return 0, false
	}
	var buf [8]byte
	enc := appendS64(buf[:0], v)
	return uint64(v), string(code[in.Start+1:in.End]) == string(enc)
}
