package plugins

import (
	"math"
	"runtime"
	"sync/atomic"
	"syscall"

	"github.com/tetratelabs/wazero/experimental"
)

// allocateMemory backs a guest's linear memory with an anonymous mapping of
// its whole limit, outside the Go heap: the guest's pages count in RSS once
// it touches them, memory.grow only lengthens the slice, and the Go
// runtime's heap is what the host itself allocates.
//
// Why not a Go []byte of that capacity (wazero's own way, with
// WithMemoryCapacityFromMax): its bytes count toward the Go heap the
// collector paces itself by. One instance's 32 MiB reservation doubled the
// heap goal, so for a second or more after a start (longer with the
// default chain's instances) the collector did not run, and the garbage of
// each call landed on pages never touched before: page faults on every
// call, ~40-60 µs of a denied call's round trip (docs/PERFORMANCE.md).
//
// When the mapping cannot be made (an address-space limit, say), the
// memory is a Go []byte as before.
func allocateMemory(capacity, max uint64) experimental.LinearMemory {
	if max == 0 || max > math.MaxInt {
		return newHeapMemory(capacity, max)
	}
	b, err := syscall.Mmap(-1, 0, int(max), syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS|syscall.MAP_NORESERVE)
	if err != nil {
		return newHeapMemory(capacity, max)
	}
	m := &mappedMemory{buf: b}
	runtime.AddCleanup(m, func(b []byte) { syscall.Munmap(b) }, b)
	return m
}

// mappedMemory is one mapping. Free gives its pages back at once
// (madvise), but the mapping itself goes only when nothing refers to the
// memory any more (a cleanup): wazero frees a module's memory when the
// module is closed, and a module can be closed while a call of it is
// still running (the runtime closed at shutdown under a call past its
// wait); that call's accesses then find zero pages, never an unmapped
// address. The instance that owns the memory keeps it reachable
// (instance.mem), and so does every call on it.
type mappedMemory struct {
	buf   []byte      // the whole mapping
	freed atomic.Bool // by the goroutine that closes the module, maybe under a call
}

// Reallocate returns the first size bytes (their capacity, too: nothing
// beyond the guest's memory is reachable through the slice).
func (m *mappedMemory) Reallocate(size uint64) []byte {
	if m.freed.Load() || size > uint64(len(m.buf)) {
		return nil
	}
	return m.buf[:size:size]
}

// Free gives the pages back (best effort: a failed madvise leaves them to
// the cleanup). A memory.grow after it fails, as at the limit.
func (m *mappedMemory) Free() {
	if m.freed.Swap(true) {
		return
	}
	syscall.Madvise(m.buf, syscall.MADV_DONTNEED)
}
