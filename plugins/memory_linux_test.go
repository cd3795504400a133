package plugins

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

// Free gives a mapping's pages back and leaves it mapped: a call still
// running when its module is closed reads zero pages and writes on.
func TestMappedMemoryFreed(t *testing.T) {
	m := allocateMemory(0, 4*pageSize)
	if _, ok := m.(*mappedMemory); !ok {
		t.Fatalf("allocateMemory made a %T, not a mapping", m)
	}
	b := m.Reallocate(4 * pageSize)
	b[pageSize-1] = 7
	m.Free()
	if b[pageSize-1] != 0 {
		t.Fatal("a freed page kept its byte")
	}
	b[pageSize-1] = 2
	runtime.KeepAlive(m)
}

// A mapping goes once nothing refers to its memory: freed or not (a module
// that failed before wazero could close it is never freed).
func TestMappingUnmappedWhenUnreachable(t *testing.T) {
	// vma is the line of /proc/self/maps that holds addr: its range and
	// permissions ("" when no mapping holds it).
	vma := func(addr uintptr) string {
		maps, err := os.ReadFile("/proc/self/maps")
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(maps), "\n") {
			var lo, hi uintptr
			var perm string
			if _, err := fmt.Sscanf(l, "%x-%x %s", &lo, &hi, &perm); err == nil && lo <= addr && addr < hi {
				return fmt.Sprintf("%x-%x %s", lo, hi, perm)
			}
		}
		return ""
	}
	for _, free := range []bool{true, false} {
		m := allocateMemory(0, 256*pageSize)
		if _, ok := m.(*mappedMemory); !ok {
			t.Fatalf("allocateMemory made a %T, not a mapping", m)
		}
		addr := uintptr(unsafe.Pointer(unsafe.SliceData(m.Reallocate(pageSize))))
		ours := vma(addr)
		if !strings.HasSuffix(ours, " rw-p") {
			t.Fatalf("memory at %#x: mapping %q, want a private read-write one", addr, ours)
		}
		if free {
			m.Free()
			if vma(addr) != ours {
				t.Fatalf("Free unmapped the memory while it is still referred to")
			}
		}
		m = nil
		// Cleanups run after a collection, on a goroutine of their own:
		// collect until it has run (a bounded number of times, not a
		// time). The address may be mapped again by then (the race
		// detector maps memory of its own), never as the same mapping.
		for i := 0; i < 1000 && vma(addr) == ours; i++ {
			runtime.GC()
			runtime.Gosched()
		}
		if vma(addr) == ours {
			t.Fatalf("free=%v: the mapping %s outlived every reference to it", free, ours)
		}
	}
}
