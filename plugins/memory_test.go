package plugins

import (
	"context"
	"encoding/json"
	"log/slog"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"
)

// heapInUse is the Go heap's bytes in spans in use, after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var s runtime.MemStats
	runtime.ReadMemStats(&s)
	return s.HeapInuse
}

// A guest's memory is reserved up to its limit and grows in place, with
// nothing beyond its length reachable; freeing it twice is harmless.
func TestLinearMemory(t *testing.T) {
	for name, m := range map[string]interface {
		Reallocate(uint64) []byte
		Free()
	}{"allocated": allocateMemory(0, 4*pageSize), "heap": newHeapMemory(0, 4*pageSize)} {
		b := m.Reallocate(pageSize)
		if len(b) != pageSize || cap(b) != pageSize {
			t.Fatalf("%s: one page is len %d cap %d", name, len(b), cap(b))
		}
		b[pageSize-1] = 7
		g := m.Reallocate(4 * pageSize)
		if len(g) != 4*pageSize || &g[0] != &b[0] || g[pageSize-1] != 7 {
			t.Fatalf("%s: grown memory moved or lost a byte", name)
		}
		g[4*pageSize-1] = 1
		if m.Reallocate(4*pageSize+1) != nil {
			t.Fatalf("%s: grew past its maximum", name)
		}
		m.Free()
		m.Free()
		if m.Reallocate(pageSize) != nil {
			t.Fatalf("%s: grew after it was freed", name)
		}
		g[4*pageSize-1] = 2 // a call still running when its module is closed writes on
		runtime.KeepAlive(m)
	}
}

// Instances' memories are not the Go heap's (on Linux): a module loaded
// with a 512 MiB limit, its instances at work, leaves the heap the
// collector paces itself by as it was, give or take a few MiB. With the
// memory in the Go heap, each instance added its whole limit.
func TestGuestMemoryOutsideTheGoHeap(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("guest memory is mapped outside the Go heap on Linux only (memory_other.go)")
	}
	before := heapInUse()
	m := load(t, "probe", probe(t), Limits{Timeout: 5 * time.Second, Memory: 512 << 20, MaxInstances: 2})
	done := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := m.Evaluate(context.Background(), "s1", request("allow"))
			done <- err
		}()
	}
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if grew := int64(heapInUse()) - int64(before); grew > 64<<20 {
		t.Fatalf("the Go heap grew by %d MiB with the module's instances", grew>>20)
	}
}

// signal is a log handler's writer that says when a line holds a word.
type signal struct {
	word string
	seen chan struct{}
}

func (s *signal) Write(p []byte) (int, error) {
	if strings.Contains(string(p), s.word) {
		select {
		case s.seen <- struct{}{}:
		default:
		}
	}
	return len(p), nil
}

// The runtime closed while a call runs (shutdown, after its wait for the
// calls in flight) frees the module's memory under it: the call runs on
// over zero pages until its deadline, and the process goes on. Were the
// memory unmapped on Free, the guest's next store would crash it.
func TestCloseUnderARunningCall(t *testing.T) {
	sig := &signal{word: "spinning", seen: make(chan struct{}, 1)}
	r := NewRuntime(Options{CacheDir: t.TempDir(), Log: slog.New(slog.NewTextHandler(sig, nil))})
	m, err := r.Load(context.Background(), Spec{Name: "spin_store", Wasm: wat(t, "spin_store"), Settings: json.RawMessage(`{}`),
		Limits: Limits{Timeout: 2 * time.Second, Fuel: math.MaxInt64 / 4}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := m.Evaluate(context.Background(), "s1", []byte("{}"))
		done <- err
	}()
	<-sig.seen // the guest is in its loop
	r.Close(context.Background())
	if err := <-done; err == nil {
		t.Fatal("the call ended without an error")
	}
}

// A Go guest whose calls each allocate 4 MB runs call after call within a
// 32 MiB memory: the SDK runs a collection to its end between calls once
// they have allocated enough. Without it a cycle could start and wait for
// the call's goroutine to yield, which a call that computes never does,
// while each call grew the heap: the redact policy on a 200 KB listing hit
// 32 MiB every ~80 calls.
func TestGoGuestCollectsBetweenCalls(t *testing.T) {
	m := load(t, "probe", probe(t), Limits{Timeout: 5 * time.Second, Memory: 32 << 20, MaxInstances: 1})
	for i := range 400 {
		d, err := m.Evaluate(context.Background(), "s1", request("churn"))
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if d.Verdict != "allow" {
			t.Fatalf("call %d: %+v", i, d)
		}
	}
}

// The SDK reads the heap's allocations only every few calls when calls
// allocate little; a call that then allocates much, on a small request,
// must still be followed by a reading, or the calls after it fill the
// memory while a cycle waits. Rounds of quiet calls (echo) and of 4 MB
// ones (churn) in a 32 MiB memory: with the readings spaced by the rate
// alone, the fourth round's seventh churn hit the limit; the SDK also reads
// after a call that grew the linear memory.
func TestGoGuestCollectsAfterQuietCalls(t *testing.T) {
	m := load(t, "probe", probe(t), Limits{Timeout: 5 * time.Second, Memory: 32 << 20, MaxInstances: 1})
	for round := range 5 {
		for i := range 40 {
			if _, err := m.Evaluate(context.Background(), "s1", request("echo")); err != nil {
				t.Fatalf("round %d, quiet call %d: %v", round, i, err)
			}
		}
		for i := range 60 {
			d, err := m.Evaluate(context.Background(), "s1", request("churn"))
			if err != nil || d.Verdict != "allow" {
				t.Fatalf("round %d, churn call %d: %+v %v", round, i, d, err)
			}
		}
	}
}
