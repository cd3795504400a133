package plugins

// heapMemory is a linear memory in a Go []byte reserved up to its maximum
// (what wazero's WithMemoryCapacityFromMax does), where allocateMemory maps
// none. Every instance's memory is reserved up to its limit up front:
// otherwise each memory.grow copies the whole memory to a larger buffer,
// which cost a Go guest calls of 10-450 ms as its heap grew. The
// reservation is address space; pages count in RSS once the guest touches
// them.
type heapMemory struct{ buf []byte }

func newHeapMemory(_, max uint64) *heapMemory { return &heapMemory{buf: make([]byte, 0, max)} }

func (m *heapMemory) Reallocate(size uint64) []byte {
	if size > uint64(cap(m.buf)) {
		return nil
	}
	return m.buf[:size:size]
}

// Free drops the buffer; a call still running keeps what it holds of it.
func (m *heapMemory) Free() { m.buf = nil }
