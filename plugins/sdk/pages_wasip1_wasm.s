#include "textflag.h"

// func memoryPages() int32
TEXT ·memoryPages(SB), NOSPLIT, $0-4
	Get SP
	CurrentMemory
	I32Store ret+0(FP)
	RET
