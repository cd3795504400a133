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
	batch    []*Module // a batch call's modules, in order (guard.entry)
	opa      *opaInstance
	now      time.Time // an OPA module's time.now_ns, read once a call
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

// mayLog says whether the call may write one more line to the log, and
// counts it: 16 a call (guard.log, opa_println, trace), so that a module
// cannot flood the log.
func (st *callState) mayLog() bool {
	if st.log == nil || st.logged >= 16 {
		return false
	}
	st.logged++
	return true
}

// abort records a guest fault and stops the call with a trap.
func abort(st *callState, format string, args ...any) {
	st.fault = fmt.Errorf(format, args...)
	panic(st.fault)
}

// instantiateHost registers the "guard" host module of ABI v1 on rt. The
// functions are api.GoModuleFunc: they read their parameters off the stack,
// with no reflection and no allocation of their own.
func instantiateHost(ctx context.Context, rt wazero.Runtime) error {
	i32, i64 := api.ValueTypeI32, api.ValueTypeI64
	b := rt.NewHostModuleBuilder("guard")
	fn := func(name string, f api.GoModuleFunc, params, results []api.ValueType) {
		b.NewFunctionBuilder().WithGoModuleFunction(f, params, results).Export(name)
	}
	fn("input", hostInput, []api.ValueType{i32}, nil)
	fn("output", hostOutput, []api.ValueType{i32, i32}, nil)
	fn("log", hostLog, []api.ValueType{i32, i32, i32}, nil)
	fn("counter_add", hostCounterAdd, []api.ValueType{i32, i32, i64}, []api.ValueType{i64})
	fn("secret", hostSecret, []api.ValueType{i32, i32}, nil)
	fn("entry", hostEntry, []api.ValueType{i32}, nil)
	_, err := b.Instantiate(ctx)
	return err
}

// guard.input(ptr): the request into the guest's memory.
func hostInput(ctx context.Context, m api.Module, stack []uint64) {
	st, ptr := stateOf(ctx), api.DecodeU32(stack[0])
	if !m.Memory().Write(ptr, st.input) {
		abort(st, "guard.input: pointer %d + %d bytes is outside memory (%d bytes)", ptr, len(st.input), m.Memory().Size())
	}
}

// guard.output(ptr, len): the response, copied out of the guest's memory.
func hostOutput(ctx context.Context, m api.Module, stack []uint64) {
	st, ptr, n := stateOf(ctx), api.DecodeU32(stack[0]), api.DecodeU32(stack[1])
	if n > maxOutput {
		abort(st, "guard.output: %d bytes is over the %d-byte limit", n, maxOutput)
	}
	b, ok := m.Memory().Read(ptr, n)
	if !ok {
		abort(st, "guard.output: pointer %d + %d bytes is outside memory (%d bytes)", ptr, n, m.Memory().Size())
	}
	st.output = append(st.output[:0], b...)
}

// guard.log(level, ptr, len): at most 16 lines of 1 KiB a call.
func hostLog(ctx context.Context, m api.Module, stack []uint64) {
	st := stateOf(ctx)
	level, ptr, n := int32(api.DecodeU32(stack[0])), api.DecodeU32(stack[1]), api.DecodeU32(stack[2])
	if !st.mayLog() {
		return
	}
	if n > 1024 {
		n = 1024
	}
	b, ok := m.Memory().Read(ptr, n)
	if !ok {
		abort(st, "guard.log: pointer %d + %d bytes is outside memory", ptr, n)
	}
	lv := slog.LevelInfo
	switch {
	case level <= 0:
		lv = slog.LevelDebug
	case level >= 3:
		lv = slog.LevelError
	case level == 2:
		lv = slog.LevelWarn
	}
	st.log.Log(ctx, lv, "policy log", "text", string(b))
}

// guard.counter_add(key_ptr, key_len, window_ms) -> count.
func hostCounterAdd(ctx context.Context, m api.Module, stack []uint64) {
	st := stateOf(ctx)
	kptr, klen, windowMS := api.DecodeU32(stack[0]), api.DecodeU32(stack[1]), int64(stack[2])
	if klen > 256 {
		abort(st, "guard.counter_add: key of %d bytes is over 256", klen)
	}
	key, ok := m.Memory().Read(kptr, klen)
	if !ok {
		abort(st, "guard.counter_add: key pointer outside memory")
	}
	stack[0] = 0
	if st.counters == nil || windowMS <= 0 {
		return
	}
	windowMS = min(windowMS, maxWindowMS)
	n, err := st.counters.Add(st.module+"\x00"+st.session+"\x00"+string(key), time.Duration(windowMS)*time.Millisecond, time.Now())
	if err != nil {
		abort(st, "guard.counter_add: %v", err)
	}
	stack[0] = uint64(n)
}

// guard.entry(i): in a batch call, the host functions called from now on
// are for the batch's module i (its counters, its log).
func hostEntry(ctx context.Context, _ api.Module, stack []uint64) {
	st, i := stateOf(ctx), api.DecodeU32(stack[0])
	if int64(i) >= int64(len(st.batch)) {
		abort(st, "guard.entry: entry %d of a batch of %d", i, len(st.batch))
	}
	m := st.batch[i]
	st.module, st.log, st.logged = m.name, m.log, 0
}

// guard.secret(ptr, len): a value the gate masks in this session's results.
func hostSecret(ctx context.Context, m api.Module, stack []uint64) {
	st, ptr, n := stateOf(ctx), api.DecodeU32(stack[0]), api.DecodeU32(stack[1])
	if n > maxSecretLen {
		abort(st, "guard.secret: a value of %d bytes is over %d", n, maxSecretLen)
	}
	v, ok := m.Memory().Read(ptr, n)
	if !ok {
		abort(st, "guard.secret: pointer outside memory")
	}
	if st.secrets != nil {
		if _, err := st.secrets.Add(st.session, string(v)); err != nil {
			abort(st, "guard.secret: %v", err)
		}
	}
}

// Counters are sliding-window counters, safe for concurrent use. What they
// hold is bounded, in all and whatever a module counts: a module keying its
// counts by what the agent sends (an expression, a path) would otherwise
// make a key a call, each kept for the server's life, and one key with a
// long window holds an event a call.
type Counters struct {
	mu     sync.Mutex
	m      map[string]*counter
	events int // held, over every key
}

// counter is one key's events, oldest first, and the window of its last Add.
type counter struct {
	ts     []int64 // Unix nanoseconds
	window time.Duration
}

const (
	// maxCounterKeys and maxCounterEvents bound what Counters hold: 8 MB
	// of times, and the keys (256 bytes at most) with them. When either is
	// reached, every key's events outside its window are dropped; a count
	// that finds no room then fails its module's call (it is denied).
	maxCounterKeys   = 1 << 16
	maxCounterEvents = 1 << 20
	// maxKeyEvents bounds one key's events: a runaway key.
	maxKeyEvents = 100000
	// maxWindowMS is the longest window, about 34 years: longer ones would
	// overflow a time.Duration.
	maxWindowMS = 1 << 40
)

// NewCounters makes an empty set.
func NewCounters() *Counters { return &Counters{m: map[string]*counter{}} }

// Add counts one event for key at now and returns the events within window.
// It fails, counting nothing, when the counters hold their most.
func (c *Counters) Add(key string, window time.Duration, now time.Time) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := c.m[key]
	if k != nil {
		c.events -= len(k.ts)
		k.ts = expire(k.ts, now.UnixNano()-int64(window))
		c.events += len(k.ts)
	}
	// Whether this event adds to what is held (a runaway key's drops its
	// oldest instead).
	full := func() bool {
		return k == nil && len(c.m) >= maxCounterKeys || (k == nil || len(k.ts) < maxKeyEvents) && c.events >= maxCounterEvents
	}
	if full() {
		c.sweep(now)
		if k = c.m[key]; full() {
			return 0, fmt.Errorf("the host holds %d counted events under %d keys, its most, none outside its window: a module counts too many keys or events", c.events, len(c.m))
		}
	}
	if k == nil {
		k = &counter{}
		c.m[key] = k
	}
	k.window = window
	k.ts = append(k.ts, now.UnixNano())
	c.events++
	if len(k.ts) > maxKeyEvents {
		k.ts = k.ts[1:]
		c.events--
	}
	return len(k.ts), nil
}

// sweep drops every key's events outside its last window, and the keys
// left with none.
func (c *Counters) sweep(now time.Time) {
	for key, k := range c.m {
		c.events -= len(k.ts)
		k.ts = expire(k.ts, now.UnixNano()-int64(k.window))
		c.events += len(k.ts)
		if len(k.ts) == 0 {
			delete(c.m, key)
		}
	}
}

// expire drops the events at or before cut.
func expire(ts []int64, cut int64) []int64 {
	i := 0
	for i < len(ts) && ts[i] <= cut {
		i++
	}
	return ts[i:]
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
