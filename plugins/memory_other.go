//go:build !linux

package plugins

import "github.com/tetratelabs/wazero/experimental"

// allocateMemory is a Go []byte reserved up to the limit off Linux
// (memory_linux.go says why Linux maps it outside the Go heap).
func allocateMemory(capacity, max uint64) experimental.LinearMemory {
	return newHeapMemory(capacity, max)
}
