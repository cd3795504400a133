// Package plugins runs policy modules compiled to WebAssembly under ABI v1
// (plugins/ABI.md) in wazero: one compilation cache, each module compiled
// once, a bounded pool of instances per module, never shared between
// goroutines, and limits (time, memory) that throw a faulty instance away.
//
// Lifecycle: NewRuntime, then Load each module (compile, check exports and
// imports, instantiate one instance, guard_validate the settings), Evaluate
// many times from any goroutine, Close.
package plugins

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// Defaults for modules whose config says nothing.
const (
	DefaultTimeout      = 100 * time.Millisecond
	DefaultMemory       = 32 << 20
	DefaultMaxInstances = 8
	maxOutput           = 1 << 20
	pageSize            = 64 << 10
)

// Limits bound one module.
type Limits struct {
	Timeout      time.Duration // per call, guard_evaluate or guard_validate
	Memory       uint64        // bytes of linear memory
	MaxInstances int           // instances alive at once
}

func (l Limits) withDefaults() Limits {
	if l.Timeout <= 0 {
		l.Timeout = DefaultTimeout
	}
	if l.Memory == 0 {
		l.Memory = DefaultMemory
	}
	if l.MaxInstances <= 0 {
		l.MaxInstances = DefaultMaxInstances
	}
	return l
}

// Options configure a Runtime.
type Options struct {
	// CacheDir holds compiled modules between runs. Empty: the user's cache
	// dir; when that is not writable, an in-memory cache.
	CacheDir string
	Log      *slog.Logger
	// Counters back counter_add; share one across reloads to keep counts.
	Counters *Counters
}

// Runtime owns the wazero runtimes, the compilation cache, and the compiled
// code and instance pools that modules share.
type Runtime struct {
	log      *slog.Logger
	cache    wazero.CompilationCache
	counters *Counters
	secrets  *Secrets
	CacheDir string // where compiled code is cached; empty when in memory

	mu    sync.Mutex
	rts   map[rtKey]wazero.Runtime // wazero sets the memory limit and interruption per runtime
	codes map[codeKey]*code
	pools map[poolKey]*pool
}

// NewRuntime makes a runtime with its compilation cache.
func NewRuntime(opts Options) *Runtime {
	log := opts.Log
	if log == nil {
		log = slog.Default()
	}
	r := &Runtime{log: log, counters: opts.Counters, rts: map[rtKey]wazero.Runtime{},
		codes: map[codeKey]*code{}, pools: map[poolKey]*pool{}}
	if r.counters == nil {
		r.counters = NewCounters()
	}
	r.secrets = NewSecrets()
	dir := opts.CacheDir
	if dir == "" {
		if base, err := os.UserCacheDir(); err == nil {
			dir = filepath.Join(base, "debugpy-guard", "wazero")
		}
	}
	if dir != "" {
		if err := os.MkdirAll(dir, 0o700); err == nil {
			if c, err := wazero.NewCompilationCacheWithDir(dir); err == nil {
				r.cache, r.CacheDir = c, dir
			}
		}
	}
	if r.cache == nil {
		log.Info("plugins: compilation cache in memory (cache dir not writable)", "dir", dir)
		r.cache = wazero.NewCompilationCache()
	}
	return r
}

// Counters are the sliding-window counters of counter_add.
func (r *Runtime) Counters() *Counters { return r.counters }

// Secrets are the values modules handed over with guard.secret, per MCP
// session: the gate masks them in every result.
func (r *Runtime) Secrets() *Secrets { return r.secrets }

// rtKey picks a wazero runtime: the memory limit in pages, and whether its
// code can be interrupted (termination checks in every function and loop:
// they cost ~3/4 of a Go module's call, so only trusted code goes without).
type rtKey struct {
	pages   uint32
	trusted bool
}

func (r *Runtime) runtime(ctx context.Context, key rtKey) (wazero.Runtime, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rt, ok := r.rts[key]; ok {
		return rt, nil
	}
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().
		WithCompilationCache(r.cache).
		WithMemoryLimitPages(key.pages).
		// Reserve the limit up front: without it, each memory.grow copies
		// the whole memory to a larger buffer, which cost a Go guest calls
		// of 10-450 ms as its heap grew. The reservation is address space;
		// pages count in RSS once the guest touches them.
		WithMemoryCapacityFromMax(true).
		WithCloseOnContextDone(!key.trusted))
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		rt.Close(ctx)
		return nil, err
	}
	if err := instantiateHost(ctx, rt); err != nil {
		rt.Close(ctx)
		return nil, err
	}
	r.rts[key] = rt
	return rt, nil
}

// Close closes every module and the runtimes.
func (r *Runtime) Close(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rt := range r.rts {
		rt.Close(ctx)
	}
	r.rts = map[rtKey]wazero.Runtime{}
	r.codes = map[codeKey]*code{}
	r.pools = map[poolKey]*pool{}
	return r.cache.Close(ctx)
}

// code is one module's compiled code, shared by every Module loaded from the
// same bytes with the same memory limit: wazero decodes and validates the
// whole binary on each CompileModule, even when the machine code comes from
// the cache (~60-140 ms for a Go module).
type code struct {
	key      codeKey
	rt       wazero.Runtime
	compiled wazero.CompiledModule
	hasInit  bool
	ready    chan struct{} // closed once compiled (or failed)
	err      error
	refs     int // guarded by Runtime.mu
}

type codeKey struct {
	sum [32]byte
	rt  rtKey
}

// compile returns the code for wasm, compiling it once for every caller, and
// checks it against ABI v1. Release it with release.
func (r *Runtime) compile(ctx context.Context, wasm []byte, sum [32]byte, rk rtKey) (*code, error) {
	rt, err := r.runtime(ctx, rk)
	if err != nil {
		return nil, err
	}
	key := codeKey{sum, rk}
	r.mu.Lock()
	c, ok := r.codes[key]
	if ok {
		c.refs++
		r.mu.Unlock()
		<-c.ready
		if c.err != nil {
			r.release(ctx, c)
			return nil, c.err
		}
		return c, nil
	}
	c = &code{key: key, rt: rt, ready: make(chan struct{}), refs: 1}
	r.codes[key] = c
	r.mu.Unlock()
	c.compiled, c.err = checkedCompile(ctx, rt, wasm)
	if c.err == nil {
		_, c.hasInit = c.compiled.ExportedFunctions()["_initialize"]
	}
	close(c.ready)
	if c.err != nil {
		r.release(ctx, c)
		return nil, c.err
	}
	return c, nil
}

// release drops one reference to c, closing it with the last.
func (r *Runtime) release(ctx context.Context, c *code) {
	r.mu.Lock()
	c.refs--
	last := c.refs == 0
	if last && r.codes[c.key] == c {
		delete(r.codes, c.key)
	}
	r.mu.Unlock()
	if last && c.compiled != nil {
		c.compiled.Close(ctx)
	}
}

func checkedCompile(ctx context.Context, rt wazero.Runtime, wasm []byte) (wazero.CompiledModule, error) {
	compiled, err := rt.CompileModule(ctx, wasm)
	if err != nil {
		return nil, fmt.Errorf("not a valid WebAssembly module: %w", err)
	}
	fail := func(err error) (wazero.CompiledModule, error) {
		compiled.Close(ctx)
		return nil, err
	}
	exports := compiled.ExportedFunctions()
	for _, want := range []string{"guard_abi_v1", "guard_evaluate"} {
		if _, ok := exports[want]; !ok {
			return fail(fmt.Errorf("missing export %s: not an ABI v1 policy module (see plugins/ABI.md)", want))
		}
	}
	if !sig(exports["guard_evaluate"], []api.ValueType{api.ValueTypeI32}, []api.ValueType{api.ValueTypeI32}) {
		return fail(errors.New("guard_evaluate must take (i32) and return i32"))
	}
	if v, ok := exports["guard_validate"]; ok && !sig(v, []api.ValueType{api.ValueTypeI32}, []api.ValueType{api.ValueTypeI32}) {
		return fail(errors.New("guard_validate must take (i32) and return i32"))
	}
	if _, ok := compiled.ExportedMemories()["memory"]; !ok {
		return fail(errors.New("missing export memory"))
	}
	for _, imp := range compiled.ImportedFunctions() {
		mod, fn, _ := imp.Import()
		if mod == wasi_snapshot_preview1.ModuleName {
			continue // checked at instantiation: a function wazero lacks fails it
		}
		if !allowedImports[mod][fn] {
			return fail(fmt.Errorf("imports %s.%s, which ABI v1 does not have (allowed: guard.input, guard.output, guard.log, guard.counter_add, guard.secret, wasi_snapshot_preview1)", mod, fn))
		}
	}
	return compiled, nil
}

// pool is a bounded set of instances of one code. It counts instances in
// use, not instances alive: get takes a slot (at most max in use), then an
// idle instance or a new one; put returns it; discard closes a faulty one.
// An instance is only ever in use by the goroutine that got it.
type pool struct {
	key  poolKey // zero for a pool of its own
	code *code
	log  *slog.Logger
	idle chan *instance
	slot chan struct{} // one token per instance in use
	refs int           // guarded by Runtime.mu
}

type poolKey struct {
	code codeKey
	max  int
}

type instance struct {
	mod  api.Module
	eval api.Function
}

// Module is a loaded policy module: a name, its limits, and the pool of
// instances it draws from.
type Module struct {
	name     string
	log      *slog.Logger
	rt       *Runtime
	limits   Limits
	counters *Counters
	pool     *pool
	trusted  bool
}

// Name is the module's name in the config.
func (m *Module) Name() string { return m.name }

// Limits are the module's limits, defaults filled in.
func (m *Module) Limits() Limits { return m.limits }

// allowedImports are the host functions of ABI v1, by module and name.
var allowedImports = map[string]map[string]bool{
	"guard": {"input": true, "output": true, "log": true, "counter_add": true, "secret": true},
}

// Spec says what to load.
type Spec struct {
	Name     string
	Wasm     []byte
	SHA256   string          // the pin, hex; empty for none
	Settings json.RawMessage // passed to guard_validate; {} when nil
	Limits   Limits
	// Shared lets modules of the same code and limits draw from one pool of
	// instances. Only for code that keeps nothing between calls that depends
	// on its settings, such as the built-ins: an instance may serve another
	// module's call next.
	Shared bool
	// Trusted code runs without termination checks, ~4x faster: a call past
	// its timeout is still denied at the deadline, but the instance cannot
	// be stopped; it keeps its pool slot until it ends (never, for an
	// endless loop). Only for code built from this repository and tested to
	// finish: the built-ins.
	Trusted bool
}

// Load compiles the module (once per distinct code) and checks it against
// ABI v1: the sha256 pin (when given), the exports, the imports, one
// instantiation and guard_validate with the settings. Every error names the
// module.
func (r *Runtime) Load(ctx context.Context, spec Spec) (*Module, error) {
	m, err := r.load(ctx, spec)
	if err != nil {
		return nil, fmt.Errorf("module %s: %w", spec.Name, err)
	}
	return m, nil
}

// Precheck runs the checks of Load that need no compilation: the sha256 pin,
// the WebAssembly header, the memory limit. It is fast, so a caller can
// refuse a bad config at once and compile in the background.
func Precheck(spec Spec) error {
	if _, _, err := precheck(spec); err != nil {
		return fmt.Errorf("module %s: %w", spec.Name, err)
	}
	return nil
}

func precheck(spec Spec) (sum [32]byte, pages uint32, err error) {
	sum = sha256.Sum256(spec.Wasm)
	if spec.SHA256 != "" {
		if got := hex.EncodeToString(sum[:]); !strings.EqualFold(got, spec.SHA256) {
			return sum, 0, fmt.Errorf("sha256 is %s, the config pins %s: rebuild the module or update the pin", got, spec.SHA256)
		}
	}
	if len(spec.Wasm) < 8 || string(spec.Wasm[:8]) != "\x00asm\x01\x00\x00\x00" {
		return sum, 0, errors.New("not a WebAssembly module (no \\0asm version 1 header)")
	}
	limits := spec.Limits.withDefaults()
	pages = uint32((limits.Memory + pageSize - 1) / pageSize)
	if pages == 0 || pages > 65536 {
		return sum, 0, fmt.Errorf("memory limit %d bytes is out of range (64KiB to 4GiB)", limits.Memory)
	}
	return sum, pages, nil
}

func (r *Runtime) load(ctx context.Context, spec Spec) (*Module, error) {
	sum, pages, err := precheck(spec)
	if err != nil {
		return nil, err
	}
	limits := spec.Limits.withDefaults()
	c, err := r.compile(ctx, spec.Wasm, sum, rtKey{pages, spec.Trusted})
	if err != nil {
		return nil, err
	}
	m := &Module{name: spec.Name, log: r.log.With("module", spec.Name), rt: r, limits: limits, counters: r.counters, trusted: spec.Trusted}
	m.pool = r.pool(ctx, c, limits.MaxInstances, spec.Shared, m.log)
	inst, err := m.pool.get(ctx, limits.Timeout)
	if err != nil {
		m.Close(ctx)
		return nil, err
	}
	if _, ok := c.compiled.ExportedFunctions()["guard_validate"]; ok {
		settings := spec.Settings
		if settings == nil {
			settings = json.RawMessage("{}")
		}
		st := &callState{input: settings}
		rc, err := m.call(ctx, inst, inst.mod.ExportedFunction("guard_validate"), st)
		if err != nil {
			if !errors.Is(err, errAbandoned) { // an abandoned one is discarded when it ends
				m.pool.discard(inst)
			}
			m.Close(ctx)
			return nil, fmt.Errorf("guard_validate: %w", err)
		}
		if rc != 0 {
			m.pool.put(inst)
			m.Close(ctx)
			return nil, &SettingsError{Module: spec.Name, Msg: outputText(st.output)}
		}
	}
	m.pool.put(inst)
	return m, nil
}

// pool returns the shared pool of c (making it when needed), or a new one.
// The pool takes over the caller's reference to c.
func (r *Runtime) pool(ctx context.Context, c *code, max int, shared bool, log *slog.Logger) *pool {
	key := poolKey{c.key, max}
	r.mu.Lock()
	if p, ok := r.pools[key]; ok && shared {
		p.refs++
		r.mu.Unlock()
		r.release(ctx, c) // the pool holds a reference of its own
		return p
	}
	p := &pool{code: c, log: log, refs: 1, idle: make(chan *instance, max), slot: make(chan struct{}, max)}
	if shared {
		p.key = key
		r.pools[key] = p
	}
	r.mu.Unlock()
	return p
}

func sig(f api.FunctionDefinition, params, results []api.ValueType) bool {
	return string(f.ParamTypes()) == string(params) && string(f.ResultTypes()) == string(results)
}

func outputText(b []byte) string {
	if len(b) == 0 {
		return "(the module gave no reason)"
	}
	if len(b) > 512 {
		b = b[:512]
	}
	return string(b)
}

// instantiate makes a new instance; the caller holds a slot. _initialize
// (a Go reactor's package inits) runs under ten times the call timeout.
func (p *pool) instantiate(ctx context.Context, timeout time.Duration) (*instance, error) {
	cfg := wazero.NewModuleConfig().WithName("").
		WithStdout(&logWriter{log: p.log, stream: "stdout"}).WithStderr(&logWriter{log: p.log, stream: "stderr"}).
		WithStartFunctions() // _initialize is called below, under the timeout
	ictx, cancel := context.WithTimeout(ctx, timeout*10)
	defer cancel()
	mod, err := p.code.rt.InstantiateModule(ictx, p.code.compiled, cfg)
	if err != nil {
		return nil, fmt.Errorf("instantiate: %w", err)
	}
	if p.code.hasInit {
		if _, err := mod.ExportedFunction("_initialize").Call(ictx); err != nil {
			mod.Close(ctx)
			return nil, fmt.Errorf("_initialize: %w", cause(ictx, err, Limits{Timeout: timeout * 10}))
		}
	}
	return &instance{mod: mod, eval: mod.ExportedFunction("guard_evaluate")}, nil
}

// get takes a slot, then an idle instance or a new one.
func (p *pool) get(ctx context.Context, timeout time.Duration) (*instance, error) {
	select {
	case p.slot <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("no free instance: %w", ctx.Err())
	}
	select {
	case inst := <-p.idle:
		return inst, nil
	default:
	}
	inst, err := p.instantiate(ctx, timeout)
	if err != nil {
		<-p.slot
		return nil, err
	}
	return inst, nil
}

// put returns a healthy instance to the pool.
func (p *pool) put(inst *instance) {
	select {
	case p.idle <- inst:
	default:
		inst.mod.Close(context.Background())
	}
	<-p.slot
}

// discard throws away an instance that faulted (trap, timeout, memory).
func (p *pool) discard(inst *instance) {
	inst.mod.Close(context.Background())
	<-p.slot
}

// Response is a module's answer (ABI v1).
type Response struct {
	Decision string          `json:"decision"`
	Reason   string          `json:"reason"`
	Result   json.RawMessage `json:"result,omitempty"`
}

// Evaluate runs guard_evaluate with req (the ABI v1 request JSON) for the MCP
// session. Any fault is an error naming the module and the cause; the
// instance that faulted is thrown away.
func (m *Module) Evaluate(ctx context.Context, session string, req []byte) (Response, error) {
	resp, err := m.evaluate(ctx, session, req)
	if err != nil {
		return Response{}, fmt.Errorf("module %s: %w", m.name, err)
	}
	return resp, nil
}

func (m *Module) evaluate(ctx context.Context, session string, req []byte) (Response, error) {
	inst, err := m.pool.get(ctx, m.limits.Timeout)
	if err != nil {
		return Response{}, err
	}
	st := &callState{input: req, session: session}
	rc, err := m.call(ctx, inst, inst.eval, st)
	switch {
	case errors.Is(err, errAbandoned):
		return Response{}, err // the instance still runs; call discards it when it ends
	case err != nil:
		m.pool.discard(inst)
		return Response{}, err
	}
	m.pool.put(inst)
	if rc != 0 {
		return Response{}, fmt.Errorf("guard_evaluate returned %d: %s", rc, outputText(st.output))
	}
	return parseResponse(st.output)
}

func parseResponse(out []byte) (Response, error) {
	if len(out) == 0 {
		return Response{}, errors.New("no output: guard_evaluate returned 0 without calling guard.output")
	}
	var r Response
	if err := json.Unmarshal(out, &r); err != nil {
		return Response{}, fmt.Errorf("output is not a JSON response: %v: %q", err, outputText(out))
	}
	switch r.Decision {
	case "allow", "deny", "approve", "abstain":
	default:
		return Response{}, fmt.Errorf("unknown decision %q (want allow, deny, approve or abstain)", r.Decision)
	}
	return r, nil
}

// call runs fn(len(input)) under the module's timeout with st as the host
// functions' state.
func (m *Module) call(ctx context.Context, inst *instance, fn api.Function, st *callState) (uint32, error) {
	st.module, st.log, st.counters, st.secrets = m.name, m.log, m.counters, m.rt.secrets
	cctx, cancel := context.WithTimeout(withState(ctx, st), m.limits.Timeout)
	defer cancel()
	var res []uint64
	var err error
	if m.trusted {
		// No termination checks: the call cannot be stopped, so it runs on a
		// goroutine of its own and is left behind at the deadline.
		done := make(chan struct{})
		go func() {
			defer close(done)
			res, err = fn.Call(cctx, uint64(len(st.input)))
		}()
		select {
		case <-done:
		case <-cctx.Done():
			m.log.Error("a trusted module ran past its deadline and cannot be interrupted: the call is denied and the instance left to finish", "timeout", m.limits.Timeout)
			p, log := m.pool, m.log
			go func() {
				<-done // a stall ends, and the slot comes back; an endless loop keeps it
				log.Warn("the instance left running has finished; it is thrown away")
				p.discard(inst)
			}()
			return 0, fmt.Errorf("%w after %v (%v)", errAbandoned, m.limits.Timeout, cctx.Err())
		}
	} else {
		res, err = fn.Call(cctx, uint64(len(st.input)))
	}
	if st.fault != nil {
		return 0, st.fault
	}
	if err != nil {
		// A guest that hit the limit sees memory.grow fail and dies its own
		// way (Go: "out of memory", then exit 2); its memory size tells.
		if mem := inst.mod.Memory(); mem != nil && uint64(mem.Size())+4*pageSize*16 > m.limits.Memory {
			return 0, fmt.Errorf("hit its memory limit of %d bytes (%v)", m.limits.Memory, firstLine(err.Error()))
		}
		return 0, cause(cctx, err, m.limits)
	}
	return uint32(res[0]), nil
}

// errAbandoned is the error of a trusted module's call that did not end in
// time.
var errAbandoned = errors.New("timed out; the instance cannot be interrupted and is left to finish")

// cause names why a call failed: timeout, memory limit, or trap.
func cause(ctx context.Context, err error, l Limits) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("timed out after %v (the call was interrupted)", l.Timeout)
	}
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted: %w", ctx.Err())
	}
	msg := err.Error()
	if strings.Contains(msg, "out of memory") || strings.Contains(msg, "memory limit") {
		return fmt.Errorf("hit its memory limit of %d bytes: %v", l.Memory, firstLine(msg))
	}
	return fmt.Errorf("trapped: %v", firstLine(msg))
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Close releases the module's pool: its idle instances and compiled code go
// with the last module that uses them. Call it once no Evaluate is in flight.
// SettingsError is a module's refusal of its settings (guard_validate).
type SettingsError struct {
	Module string
	Msg    string // the module's words: what is wrong and how to fix it
}

func (e *SettingsError) Error() string { return "settings rejected: " + e.Msg }

func (m *Module) Close(ctx context.Context) {
	if m.pool == nil {
		return
	}
	p, r := m.pool, m.rt
	m.pool = nil
	r.mu.Lock()
	p.refs--
	last := p.refs == 0
	if last && p.key != (poolKey{}) && r.pools[p.key] == p {
		delete(r.pools, p.key)
	}
	r.mu.Unlock()
	if !last {
		return
	}
	for {
		select {
		case inst := <-p.idle:
			inst.mod.Close(ctx)
		default:
			r.release(ctx, p.code)
			return
		}
	}
}
