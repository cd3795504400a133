#include "textflag.h"

// The scans of json.go's skipSpaceGo, endGo and endStringGo, in
// WebAssembly's own blocks and loops (scan_wasm.go says why). Locals (i64):
// R0 the slice's base, R1 its length, R2 the offset, R3 the byte there, R4
// a container's depth, R5 and R6 a key's bounds, R7 and R8 a word of a
// string, R9 whether a key held a backslash, R10 a string's first byte. A byte is read only below the length: an offset at
// or past it ends the scan (compared unsigned, so that no offset reads
// outside the slice).

// ARGS loads the slice b and the offset named n into R0, R1 and R2.
#define ARGS(n) \
	MOVD b_base+0(FP), R0; MOVD b_len+8(FP), R1; MOVD n+24(FP), R2

// LOADC reads b[R2] into R3.
#define LOADC \
	Get R0; Get R2; I64Add; I32WrapI64; I64Load8U $0; Set R3

// INC adds one to a local.
#define INC(r) \
	Get r; I64Const $1; I64Add; Set r

// SKIPSPACE moves R2 past JSON's whitespace.
#define SKIPSPACE \
	Block; \
	Loop; \
	Get R2; Get R1; I64GeU; BrIf $1; \
	LOADC; \
	Get R3; I64Const $32; I64Eq; \
	Get R3; I64Const $9; I64Eq; I32Or; \
	Get R3; I64Const $10; I64Eq; I32Or; \
	Get R3; I64Const $13; I64Eq; I32Or; \
	I32Eqz; BrIf $1; \
	INC(R2); \
	Br $0; \
	End; \
	End

// SKIPSTRING moves R2 from a string's opening quote (its first byte in
// R10) to just past its closing one, or to R1+1 when it is not closed, as
// endStringGo does: to each quote, then back over the backslashes before
// it, and an even run of them escapes nothing. It reads eight bytes at a
// time while none of them is a quote (R7, R8: a word, and its bytes xor'ed
// with the byte looked for, which has a zero byte, (x-0x01..)&^x&0x80..
// non-zero, when it holds that byte; a borrow may flag a byte after it too,
// which only sends the scan to a byte at a time for it), so that the
// escapes of a long text (its lines' \n) do not slow it.
#define SKIPSTRING \
	INC(R2); \
	Get R2; Set R10; \
	Block; \
	Loop; \
	Block; \
	Loop; \
	Get R2; I64Const $8; I64Add; Get R1; I64GtU; BrIf $1; \
	Get R0; Get R2; I64Add; I32WrapI64; I64Load $0; I64Const $0x2222222222222222; I64Xor; Set R8; \
	Get R8; I64Const $0x0101010101010101; I64Sub; Get R8; I64Const $-1; I64Xor; I64And; \
	I64Const $-9187201950435737472; I64And; I64Eqz; I32Eqz; BrIf $1; \
	Get R2; I64Const $8; I64Add; Set R2; \
	Br $0; \
	End; \
	End; \
	Get R2; Get R1; I64GeU; If; Get R1; I64Const $1; I64Add; Set R2; Br $2; End; \
	LOADC; \
	INC(R2); \
	Get R3; I64Const $34; I64Ne; BrIf $0; \
	Get R2; I64Const $1; I64Sub; Set R8; \
	Block; \
	Loop; \
	Get R8; Get R10; I64LeU; BrIf $1; \
	Get R0; Get R8; I64Add; I64Const $1; I64Sub; I32WrapI64; I64Load8U $0; I64Const $92; I64Ne; BrIf $1; \
	Get R8; I64Const $1; I64Sub; Set R8; \
	Br $0; \
	End; \
	End; \
	Get R2; I64Const $1; I64Sub; Get R8; I64Sub; I64Const $1; I64And; I64Eqz; BrIf $1; \
	Br $0; \
	End; \
	End

// SKIPKEY is SKIPSTRING for a member's key, which also sets R9 when the
// key holds a backslash: a backslash takes the byte after it along (an
// even run of backslashes before a quote escapes nothing, as endStringGo
// counts). Eight bytes at a time while none of them is a quote or a
// backslash, then a byte at a time until the next such byte is read.
#define SKIPKEY \
	INC(R2); \
	Block; \
	Loop; \
	Block; \
	Loop; \
	Get R2; I64Const $8; I64Add; Get R1; I64GtU; BrIf $1; \
	Get R0; Get R2; I64Add; I32WrapI64; I64Load $0; Set R7; \
	Get R7; I64Const $0x2222222222222222; I64Xor; Set R8; \
	Get R8; I64Const $0x0101010101010101; I64Sub; Get R8; I64Const $-1; I64Xor; I64And; \
	Get R7; I64Const $0x5c5c5c5c5c5c5c5c; I64Xor; Set R8; \
	Get R8; I64Const $0x0101010101010101; I64Sub; Get R8; I64Const $-1; I64Xor; I64And; \
	I64Or; I64Const $-9187201950435737472; I64And; I64Eqz; I32Eqz; BrIf $1; \
	Get R2; I64Const $8; I64Add; Set R2; \
	Br $0; \
	End; \
	End; \
	Get R2; Get R1; I64GeU; If; Get R1; I64Const $1; I64Add; Set R2; Br $2; End; \
	LOADC; \
	INC(R2); \
	Get R3; I64Const $34; I64Eq; BrIf $1; \
	Get R3; I64Const $92; I64Eq; If; INC(R2); I64Const $1; Set R9; End; \
	Br $0; \
	End; \
	End

// func skipSpace(b []byte, i int) int
TEXT ·skipSpace(SB), NOSPLIT, $0-40
	ARGS(i)
	SKIPSPACE
	MOVD R2, ret+32(FP)
	RET

// func endString(b []byte, i int) int
TEXT ·endString(SB), NOSPLIT, $0-40
	ARGS(i)
	SKIPSTRING
	MOVD R2, ret+32(FP)
	RET

// func end(b []byte, i int) int
//
// (c|32) == '{' is c == '{' or c == '['; (c|32) == '}' is '}' or ']'.
TEXT ·end(SB), NOSPLIT, $0-40
	ARGS(i)
	Block // done: the result is R2
		Get R2; Get R1; I64GeU; BrIf $0
		LOADC

		// A string: its end, at most len(b).
		Get R3; I64Const $34; I64Eq
		If
			SKIPSTRING
			Get R2; Get R1; I64GtU
			If; Get R1; Set R2; End
			Br $1
		End

		// An object or an array: to its closing bracket, over strings.
		Get R3; I64Const $32; I64Or; I64Const $123; I64Eq
		If
			I64Const $0; Set R4
			Loop // at each quote or bracket
				Block // the next one found, in R3
					Loop
						Get R2; Get R1; I64GeU
						If; Get R1; Set R2; Br $5; End
						LOADC
						Get R3; I64Const $34; I64Eq
						Get R3; I64Const $32; I64Or; I64Const $123; I64Eq; I32Or
						Get R3; I64Const $32; I64Or; I64Const $125; I64Eq; I32Or
						BrIf $1
						INC(R2)
						Br $0
					End
				End
				Get R3; I64Const $34; I64Eq
				If
					SKIPSTRING
					Br $1
				End
				Get R3; I64Const $32; I64Or; I64Const $123; I64Eq
				If
					INC(R4)
				Else
					Get R4; I64Const $1; I64Sub; Tee R4
					I64Eqz
					If
						INC(R2)
						Br $4
					End
				End
				INC(R2)
				Br $0
			End
		End

		// ',', '}', ']' or ':': no value starts here.
		Get R3; I64Const $44; I64Eq
		Get R3; I64Const $32; I64Or; I64Const $125; I64Eq; I32Or
		Get R3; I64Const $58; I64Eq; I32Or
		BrIf $0

		// A number, true, false or null: to the next delimiter.
		Loop
			Get R2; Get R1; I64GeU; BrIf $1
			LOADC
			Get R3; I64Const $44; I64Eq
			Get R3; I64Const $32; I64Or; I64Const $125; I64Eq; I32Or
			Get R3; I64Const $32; I64Eq; I32Or
			Get R3; I64Const $9; I64Eq; I32Or
			Get R3; I64Const $10; I64Eq; I32Or
			Get R3; I64Const $13; I64Eq; I32Or
			BrIf $1
			INC(R2)
			Br $0
		End
	End
	MOVD R2, ret+32(FP)
	RET

// func memberAt(b []byte, i int) (key []byte, value int, esc, ok bool)
//
// R5 is the key's opening quote, R6 the offset just past its closing one;
// SKIPKEY sets R9 at a backslash.
TEXT ·memberAt(SB), NOSPLIT, $0-66
	ARGS(i)
	Block // no member starts here
		SKIPSPACE
		Get R2; Get R1; I64GeU; BrIf $0
		LOADC
		Get R3; I64Const $34; I64Ne; BrIf $0
		Get R2; Set R5
		I64Const $0; Set R9
		SKIPKEY
		Get R2; Get R1; I64GtU; BrIf $0
		Get R2; Set R6
		SKIPSPACE
		Get R2; Get R1; I64GeU; BrIf $0
		LOADC
		Get R3; I64Const $58; I64Ne; BrIf $0
		INC(R2)
		SKIPSPACE
		Get SP; Get R0; Get R5; I64Add; I64Const $1; I64Add; I64Store key_base+32(FP)
		Get SP; Get R6; Get R5; I64Sub; I64Const $2; I64Sub; I64Store key_len+40(FP)
		Get SP; I64Load b_cap+16(FP); Get R5; I64Sub; I64Const $1; I64Sub; I64Store key_cap+48(FP)
		MOVD R2, value+56(FP)
		Get SP; Get R9; I64Store8 esc+64(FP)
		MOVB $1, ok+65(FP)
		RET
	End
	MOVD $0, key_base+32(FP)
	MOVD $0, key_len+40(FP)
	MOVD $0, key_cap+48(FP)
	MOVD $0, value+56(FP)
	MOVB $0, esc+64(FP)
	MOVB $0, ok+65(FP)
	RET

// func afterValue(b []byte, ve int) int
TEXT ·afterValue(SB), NOSPLIT, $0-40
	ARGS(ve)
	SKIPSPACE
	Block
		Get R2; Get R1; I64GeU; BrIf $0
		LOADC
		Get R3; I64Const $44; I64Ne; BrIf $0
		INC(R2)
	End
	MOVD R2, ret+32(FP)
	RET

// func hasPrefix(b, p []byte) bool
//
// Eight bytes a load while eight are left (R4 the offset), then one.
TEXT ·hasPrefix(SB), NOSPLIT, $0-49
	MOVD b_base+0(FP), R0
	MOVD b_len+8(FP), R1
	MOVD p_base+24(FP), R2
	MOVD p_len+32(FP), R3
	Block // they differ
		Get R1; Get R3; I64LtU; BrIf $0
		I64Const $0; Set R4
		Block
			Loop
				Get R4; I64Const $8; I64Add; Get R3; I64GtU; BrIf $1
				Get R0; Get R4; I64Add; I32WrapI64; I64Load $0
				Get R2; Get R4; I64Add; I32WrapI64; I64Load $0
				I64Ne; BrIf $2
				Get R4; I64Const $8; I64Add; Set R4
				Br $0
			End
		End
		Block
			Loop
				Get R4; Get R3; I64GeU; BrIf $1
				Get R0; Get R4; I64Add; I32WrapI64; I64Load8U $0
				Get R2; Get R4; I64Add; I32WrapI64; I64Load8U $0
				I64Ne; BrIf $2
				INC(R4)
				Br $0
			End
		End
		MOVB $1, ret+48(FP)
		RET
	End
	MOVB $0, ret+48(FP)
	RET
