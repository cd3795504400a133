package plugins

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// callState is what the host functions of one call see. It travels in the
// call's context, so instances stay stateless between calls.
type callState struct {
	input    []byte
	output   []byte
	fault    error // a host function found the guest at fault (bad pointer, ...)
	module   string
	session  string
	log      *slog.Logger
	counters *Counters
	secrets  *Secrets
	logged   int
}

type stateKey struct{}

func withState(ctx context.Context, st *callState) context.Context {
	return context.WithValue(ctx, stateKey{}, st)
}

func stateOf(ctx context.Context) *callState {
	st, _ := ctx.Value(stateKey{}).(*callState)
	if st == nil {
		return &callState{} // outside a call (during _initialize): nothing to read
	}
	return st
}

// abort records a guest fault and stops the call with a trap.
func abort(st *callState, format string, args ...any) {
	st.fault = fmt.Errorf(format, args...)
	panic(st.fault)
}

// instantiateHost registers the "guard" host module of ABI v1 on rt.
func instantiateHost(ctx context.Context, rt wazero.Runtime) error {
	_, err := rt.NewHostModuleBuilder("guard").
		NewFunctionBuilder().WithFunc(func(ctx context.Context, m api.Module, ptr uint32) {
		st := stateOf(ctx)
		if !m.Memory().Write(ptr, st.input) {
			abort(st, "guard.input: pointer %d + %d bytes is outside memory (%d bytes)", ptr, len(st.input), m.Memory().Size())
		}
	}).Export("input").
		NewFunctionBuilder().WithFunc(func(ctx context.Context, m api.Module, ptr, n uint32) {
		st := stateOf(ctx)
		if n > maxOutput {
			abort(st, "guard.output: %d bytes is over the %d-byte limit", n, maxOutput)
		}
		b, ok := m.Memory().Read(ptr, n)
		if !ok {
			abort(st, "guard.output: pointer %d + %d bytes is outside memory (%d bytes)", ptr, n, m.Memory().Size())
		}
		st.output = append(st.output[:0], b...)
	}).Export("output").
		NewFunctionBuilder().WithFunc(func(ctx context.Context, m api.Module, level, ptr, n uint32) {
		st := stateOf(ctx)
		if st.log == nil || st.logged >= 16 {
			return // bounded: a module cannot flood the log
		}
		st.logged++
		if n > 1024 {
			n = 1024
		}
		b, ok := m.Memory().Read(ptr, n)
		if !ok {
			abort(st, "guard.log: pointer %d + %d bytes is outside memory", ptr, n)
		}
		lv := slog.LevelInfo
		switch {
		case int32(level) <= 0:
			lv = slog.LevelDebug
		case level >= 3:
			lv = slog.LevelError
		case level == 2:
			lv = slog.LevelWarn
		}
		st.log.Log(ctx, lv, "policy log", "text", string(b))
	}).Export("log").
		NewFunctionBuilder().WithFunc(func(ctx context.Context, m api.Module, kptr, klen uint32, windowMS int64) int64 {
		st := stateOf(ctx)
		if klen > 256 {
			abort(st, "guard.counter_add: key of %d bytes is over 256", klen)
		}
		key, ok := m.Memory().Read(kptr, klen)
		if !ok {
			abort(st, "guard.counter_add: key pointer outside memory")
		}
		if st.counters == nil || windowMS <= 0 {
			return 0
		}
		return int64(st.counters.Add(st.module+"\x00"+st.session+"\x00"+string(key), time.Duration(windowMS)*time.Millisecond, time.Now()))
	}).Export("counter_add").
		NewFunctionBuilder().WithFunc(func(ctx context.Context, m api.Module, ptr, n uint32) {
		st := stateOf(ctx)
		if n > maxSecretLen {
			abort(st, "guard.secret: a value of %d bytes is over %d", n, maxSecretLen)
		}
		v, ok := m.Memory().Read(ptr, n)
		if !ok {
			abort(st, "guard.secret: pointer outside memory")
		}
		if st.secrets != nil {
			st.secrets.Add(st.session, string(v))
		}
	}).Export("secret").
		Instantiate(ctx)
	return err
}

// Counters are sliding-window counters, safe for concurrent use.
type Counters struct {
	mu sync.Mutex
	m  map[string][]time.Time
}

// NewCounters makes an empty set.
func NewCounters() *Counters { return &Counters{m: map[string][]time.Time{}} }

// Add counts one event for key at now and returns the events within window.
func (c *Counters) Add(key string, window time.Duration, now time.Time) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	ts := c.m[key]
	cut := now.Add(-window)
	i := 0
	for i < len(ts) && !ts[i].After(cut) {
		i++
	}
	ts = append(ts[i:], now)
	if len(ts) > 100000 { // bound memory for a runaway key
		ts = ts[len(ts)-100000:]
	}
	c.m[key] = ts
	return len(ts)
}

// logWriter sends a module's WASI stdout or stderr to the log, bounded: at
// most 1 KiB a write and 64 writes an instance, then it drops silently.
type logWriter struct {
	log    *slog.Logger
	stream string
	writes atomic.Int32
}

func (w *logWriter) Write(p []byte) (int, error) {
	n := len(p)
	if w.writes.Add(1) > 64 {
		return n, nil
	}
	if len(p) > 1024 {
		p = p[:1024]
	}
	w.log.Info("policy output", "stream", w.stream, "text", strings.TrimRight(string(p), "\n"))
	return n, nil
}
