//go:build !wasip1

package sdk

import (
	"sync"
	"time"
)

// Outside wasm (a policy's own go test), counters and the log are local.
var (
	mu       sync.Mutex
	counters = map[string][]time.Time{}
	secrets  []string
)

// Secret records a value seen under a secret's name; in wasm the host
// keeps it and masks it in every result (abi_wasip1.go).
func Secret(value string) {
	if len(value) < 4 || len(value) > 4<<10 {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	secrets = append(secrets, value)
}

// TakeSecrets returns the values Secret recorded, and forgets them: for a
// policy's own tests, outside wasm.
func TakeSecrets() []string {
	mu.Lock()
	defer mu.Unlock()
	out := secrets
	secrets = nil
	return out
}

// ResetCounters forgets every counter: for a policy's own tests, outside
// wasm, so that each run of a test starts from none (go test -count=N).
func ResetCounters() {
	mu.Lock()
	defer mu.Unlock()
	clear(counters)
}

// CounterAdd adds one to the sliding-window counter key and returns the
// count in the window. In wasm the host keeps it; here, this process does.
func CounterAdd(key string, window time.Duration) int64 {
	mu.Lock()
	defer mu.Unlock()
	now := time.Now()
	ts := counters[key]
	i := 0
	for i < len(ts) && !ts[i].After(now.Add(-window)) {
		i++
	}
	counters[key] = append(ts[i:], now)
	return int64(len(counters[key]))
}

// Log is a no-op outside wasm.
func Log(level int, msg string) {}
