// Package plugins runs policy modules compiled to WebAssembly under ABI v1
// (plugins/ABI.md) in wazero: one compilation cache, each module compiled
// once, a bounded pool of instances per module, never shared between
// goroutines, and limits (time, fuel, memory) that throw a faulty instance
// away.
//
// Every module runs on fuel (plugins/internal/fuel): rewritten once at load
// to charge a budget at each function entry and loop header, it traps when
// the budget runs out, and a watchdog empties the budget at the call's
// deadline, so an endless loop ends either way without wazero's
// termination checks (docs/RATIONALE.md, "Fuel").
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
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/debugpy-guard/debugpy-guard/internal/owndir"
	"github.com/debugpy-guard/debugpy-guard/plugins/abi"
	"github.com/debugpy-guard/debugpy-guard/plugins/internal/fuel"
	"github.com/debugpy-guard/debugpy-guard/plugins/internal/opa"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// Defaults for modules whose config says nothing.
const (
	DefaultTimeout      = 100 * time.Millisecond
	DefaultMemory       = 32 << 20
	DefaultMaxInstances = 8
	// DefaultFuel is a call's budget in fuel units. A unit is one
	// instruction of the region a charge opens (a function body, or a loop
	// body), so a call spends at least the instructions it runs, and Go
	// guests, whose jumps all go back to one loop per function, spend ~100
	// times more: ~1e11 units a second on the machine of docs/PERFORMANCE.md,
	// where a runtime-free guest spends ~1e9. The default is ~0.3-0.5 s of Go
	// work: the 100 ms deadline stops a slow call first, and fuel stops a
	// runaway one deterministically, on any machine and load.
	DefaultFuel = 50_000_000_000
	maxOutput   = 1 << 20
	pageSize    = 64 << 10
)

// Limits bound one module.
type Limits struct {
	Timeout      time.Duration // per call, guard_evaluate or guard_validate
	Memory       uint64        // bytes of linear memory
	MaxInstances int           // instances alive at once
	Fuel         int64         // instructions per call (see DefaultFuel)
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
	if l.Fuel <= 0 {
		l.Fuel = DefaultFuel
	}
	return l
}

// Options configure a Runtime.
type Options struct {
	// CacheDir holds compiled modules between runs. Empty: the user's cache
	// dir; when that is not writable, or others could change it, an
	// in-memory cache.
	CacheDir string
	Log      *slog.Logger
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
	rts   map[uint32]wazero.Runtime // by memory limit in pages: wazero sets it per runtime
	codes map[codeKey]*code
	pools map[poolKey]*pool
}

// NewRuntime makes a runtime with its compilation cache.
func NewRuntime(opts Options) *Runtime {
	log := opts.Log
	if log == nil {
		log = slog.Default()
	}
	// The counters of counter_add live as long as the runtime: serve keeps
	// one runtime across reloads, so counts survive them.
	r := &Runtime{log: log, counters: NewCounters(), rts: map[uint32]wazero.Runtime{},
		codes: map[codeKey]*code{}, pools: map[poolKey]*pool{}}
	r.secrets = NewSecrets()
	dir := opts.CacheDir
	if dir == "" {
		if base, err := os.UserCacheDir(); err == nil {
			dir = filepath.Join(base, "debugpy-guard", "wazero")
		}
	}
	if dir != "" {
		// Its machine code runs in the server: a directory others can
		// change is not used (internal/owndir).
		err := os.MkdirAll(dir, 0o700)
		if err == nil {
			err = owndir.Check(dir)
		}
		if err != nil {
			log.Warn("plugins: the compilation cache dir is not used", "dir", dir, "err", err)
		} else if c, err := wazero.NewCompilationCacheWithDir(dir); err == nil {
			r.cache, r.CacheDir = c, dir
		}
	}
	if r.cache == nil {
		log.Info("plugins: compilation cache in memory", "dir", dir)
		r.cache = wazero.NewCompilationCache()
	}
	return r
}

// Secrets are the values modules handed over with guard.secret, per MCP
// session: the gate masks them in every result.
func (r *Runtime) Secrets() *Secrets { return r.secrets }

// runtime returns the wazero runtime for a memory limit in pages.
func (r *Runtime) runtime(ctx context.Context, pages uint32) (wazero.Runtime, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rt, ok := r.rts[pages]; ok {
		return rt, nil
	}
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().
		WithCompilationCache(r.cache).
		// Each instance's memory is reserved up to this limit by
		// allocateMemory (memory_linux.go), outside the Go heap.
		WithMemoryLimitPages(pages))
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		rt.Close(ctx)
		return nil, err
	}
	if err := instantiateHost(ctx, rt); err != nil {
		rt.Close(ctx)
		return nil, err
	}
	if err := instantiateOPAHost(ctx, rt); err != nil {
		rt.Close(ctx)
		return nil, err
	}
	r.rts[pages] = rt
	return rt, nil
}

// Close closes every module and the runtimes.
func (r *Runtime) Close(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rt := range r.rts {
		rt.Close(ctx)
	}
	r.rts = map[uint32]wazero.Runtime{}
	r.codes = map[codeKey]*code{}
	r.pools = map[poolKey]*pool{}
	return r.cache.Close(ctx)
}

// code is one module's compiled code, shared by every Module loaded from the
// same bytes with the same memory limit and fuel: wazero decodes and
// validates the whole binary on each CompileModule, even when the machine
// code comes from the cache (~60-140 ms for a Go module).
type code struct {
	key      codeKey
	rt       wazero.Runtime
	compiled wazero.CompiledModule
	hasInit  bool
	hasBatch bool          // exports guard_evaluate_batch
	ready    chan struct{} // closed once compiled (or failed)
	err      error
	refs     int // guarded by Runtime.mu
}

type codeKey struct {
	sum   [32]byte
	pages uint32
	fuel  int64  // the instrumented bytes start with ten calls' fuel
	abi   string // ABIV1 or ABIOPA: the same bytes are checked differently
}

// compile returns the code for wasm, instrumented for fuel and compiled once
// for every caller, and checks it against its ABI. Release it with release.
func (r *Runtime) compile(ctx context.Context, wasm []byte, key codeKey) (*code, error) {
	rt, err := r.runtime(ctx, key.pages)
	if err != nil {
		return nil, err
	}
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
	c.compiled, c.err = checkedCompile(ctx, rt, wasm, initFuel(key.fuel), key.abi)
	if c.err == nil {
		_, c.hasInit = c.compiled.ExportedFunctions()["_initialize"]
		_, c.hasBatch = c.compiled.ExportedFunctions()["guard_evaluate_batch"]
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

// setup is l for a module's setup: its start function, _initialize and,
// at load, guard_validate get ten calls' time and fuel.
func (l Limits) setup() Limits {
	return Limits{Timeout: l.Timeout * 10, Fuel: initFuel(l.Fuel), Memory: l.Memory}
}

// initFuel is what a module's start function and _initialize may spend: ten
// calls' worth, as they get ten calls' time.
func initFuel(call int64) int64 {
	if call > math.MaxInt64/10 {
		return math.MaxInt64
	}
	return call * 10
}

// compileRecovered is rt.CompileModule, with a panic in wazero made an
// error: wazero 1.12's validation panics on some malformed modules
// (plugins/internal/fuel/testdata/fuzz/FuzzInstrument holds one), and a
// module is loaded in the background, where a panic would end the server.
func compileRecovered(ctx context.Context, rt wazero.Runtime, wasm []byte) (c wazero.CompiledModule, err error) {
	defer func() {
		if p := recover(); p != nil {
			c, err = nil, fmt.Errorf("wazero failed on it (%v)", p)
		}
	}()
	return rt.CompileModule(ctx, wasm)
}

func checkedCompile(ctx context.Context, rt wazero.Runtime, wasm []byte, init int64, abi string) (wazero.CompiledModule, error) {
	if abi == ABIOPA {
		var err error
		if wasm, err = opa.DefineMemory(wasm); err != nil {
			return nil, fmt.Errorf("not a valid WebAssembly module: %w", err)
		}
	}
	fueled, err := fuel.Instrument(wasm, init)
	if err != nil {
		return nil, fmt.Errorf("not a valid WebAssembly module: %w", err)
	}
	compiled, err := compileRecovered(ctx, rt, fueled)
	if err != nil {
		return nil, fmt.Errorf("not a valid WebAssembly module: %w", err)
	}
	fail := func(err error) (wazero.CompiledModule, error) {
		compiled.Close(ctx)
		return nil, err
	}
	if abi == ABIOPA {
		if err := checkOPA(compiled); err != nil {
			return fail(err)
		}
		return compiled, nil
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
	for _, name := range []string{"guard_validate", "guard_evaluate_batch"} {
		if v, ok := exports[name]; ok && !sig(v, []api.ValueType{api.ValueTypeI32}, []api.ValueType{api.ValueTypeI32}) {
			return fail(fmt.Errorf("%s must take (i32) and return i32", name))
		}
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
			return fail(fmt.Errorf("imports %s.%s, which ABI v1 does not have (allowed: guard.input, guard.output, guard.log, guard.counter_add, guard.secret, guard.entry, wasi_snapshot_preview1)", mod, fn))
		}
	}
	return compiled, nil
}

// pool is a bounded set of instances of one code. It counts instances in
// use, not instances alive: get takes a slot (at most max in use), then an
// idle instance or a new one; put returns it; discard closes a faulty one.
// An instance is only ever in use by the goroutine that got it.
//
// The idle instances are a stack: a call takes the one used last, whose
// memory is likeliest still in the CPU's caches. Modules loaded together
// make several instances of a shared pool (four for the default config),
// and taken in turn each call found its instance's memory as cold as four
// calls ago (docs/PERFORMANCE.md).
type pool struct {
	key  poolKey // zero for a pool of its own
	code *code
	log  *slog.Logger
	mu   sync.Mutex
	idle []*instance   // guarded by mu; the last is the one used last
	max  int           // the most instances kept idle
	slot chan struct{} // one token per instance in use
	refs int           // guarded by Runtime.mu
	opa  *opaSpec      // how to set up each instance of an OPA module
}

type poolKey struct {
	code codeKey
	max  int
}

// instance is one instantiation with what its calls reuse: the host
// functions' state (in a context made once), the call stack, and the
// watchdog that stops a call at its deadline.
type instance struct {
	mod   api.Module
	eval  api.Function
	batch api.Function    // nil when the code has no guard_evaluate_batch
	ctx   context.Context // carries &st to the host functions
	st    callState
	stack [1]uint64
	dog   watchdog
	opa   *opaInstance              // an OPA module's: its exports, entrypoint and data
	mem   experimental.LinearMemory // its memory (memory.go), reachable while the instance is
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
}

// allowedImports are the host functions of ABI v1, by module and name.
var allowedImports = map[string]map[string]bool{
	"guard": {"input": true, "output": true, "log": true, "counter_add": true, "secret": true, "entry": true},
}

// Spec says what to load.
type Spec struct {
	Name string
	// Wasm is the module's source: a module's bytes, or for ABIOPA also
	// the bundle (.tar.gz) that opa build writes.
	Wasm   []byte
	SHA256 string // the pin of Wasm, hex; empty for none
	// Settings are passed to guard_validate (ABI v1), or are an OPA
	// module's data; {} when nil.
	Settings json.RawMessage
	Limits   Limits
	// ABI is ABIV1 (when empty) or ABIOPA.
	ABI string
	// Entrypoint is the OPA module's entrypoint that decides, such as
	// guard/decision; empty when it has only one.
	Entrypoint string
	// Shared lets modules of the same code and limits draw from one pool of
	// instances. Only for code that keeps nothing between calls that depends
	// on its settings, such as the built-ins: an instance may serve another
	// module's call next.
	Shared bool
}

// Load compiles the module (once per distinct code) and checks it against
// its ABI: the sha256 pin (when given), the exports, the imports, one
// instantiation and guard_validate with the settings (for an OPA module:
// its ABI version, builtins and entrypoint, and the data). Every error
// names the module.
func (r *Runtime) Load(ctx context.Context, spec Spec) (*Module, error) {
	m, err := r.load(ctx, spec)
	if err != nil {
		return nil, fmt.Errorf("module %s: %w", spec.Name, err)
	}
	return m, nil
}

// Precheck runs the checks of Load that need no compilation: the sha256 pin,
// the ABI, the WebAssembly header (inside a bundle: the bundle), the memory
// limit. It is fast, so a caller can refuse a bad config at once and
// compile in the background.
func Precheck(spec Spec) error {
	if _, err := precheck(spec, false); err != nil {
		return fmt.Errorf("module %s: %w", spec.Name, err)
	}
	return nil
}

// checked is what precheck found: the module, and how to compile it.
type checked struct {
	key  codeKey
	wasm []byte
	opa  *opaSpec // nil for ABI v1
}

// precheck checks spec; keyed, it also hashes the module for its code's
// key (Load). Without a pin and unkeyed (Precheck) it hashes nothing: the
// engine prechecks every module before it answers tools/list, and the
// built-ins' one module (3.4 MB) took ~3.4 ms a hash, five times.
func precheck(spec Spec, keyed bool) (checked, error) {
	var sum [sha256.Size]byte
	if keyed || spec.SHA256 != "" {
		sum = sha256.Sum256(spec.Wasm)
	}
	if spec.SHA256 != "" {
		if got := hex.EncodeToString(sum[:]); !strings.EqualFold(got, spec.SHA256) {
			return checked{}, fmt.Errorf("sha256 is %s, the config pins %s: rebuild the module or update the pin", got, spec.SHA256)
		}
	}
	c := checked{wasm: spec.Wasm}
	switch spec.ABI {
	case "", ABIV1:
		if spec.Entrypoint != "" {
			return checked{}, errors.New("an entrypoint is for an OPA module (abi = \"opa\")")
		}
		c.key.abi = ABIV1
	case ABIOPA:
		wasm, bundle, err := unpackOPA(spec.Wasm)
		if err != nil {
			return checked{}, err
		}
		data, err := opaData(bundle, spec.Settings)
		if err != nil {
			return checked{}, err
		}
		c.wasm, c.opa, c.key.abi = wasm, &opaSpec{entrypoint: spec.Entrypoint, data: data}, ABIOPA
	default:
		return checked{}, fmt.Errorf("unknown ABI %q (want %s or %s)", spec.ABI, ABIV1, ABIOPA)
	}
	if len(c.wasm) < 8 || string(c.wasm[:8]) != "\x00asm\x01\x00\x00\x00" {
		return checked{}, errors.New("not a WebAssembly module (no \\0asm version 1 header)")
	}
	limits := spec.Limits.withDefaults()
	pages := uint32((limits.Memory + pageSize - 1) / pageSize)
	if pages == 0 || pages > 65536 {
		return checked{}, fmt.Errorf("memory limit %d bytes is out of range (64KiB to 4GiB)", limits.Memory)
	}
	c.key.sum, c.key.pages, c.key.fuel = sum, pages, limits.Fuel
	return c, nil
}

func (r *Runtime) load(ctx context.Context, spec Spec) (*Module, error) {
	chk, err := precheck(spec, true)
	if err != nil {
		return nil, err
	}
	limits := spec.Limits.withDefaults()
	c, err := r.compile(ctx, chk.wasm, chk.key)
	if err != nil {
		return nil, err
	}
	m := &Module{name: spec.Name, log: r.log.With("module", spec.Name), rt: r, limits: limits, counters: r.counters}
	m.pool = r.pool(ctx, c, limits.MaxInstances, spec.Shared && chk.opa == nil, m.log, chk.opa)
	inst, err := m.pool.get(ctx, limits)
	if err != nil {
		m.Close(ctx)
		return nil, err
	}
	if _, ok := c.compiled.ExportedFunctions()["guard_validate"]; ok {
		settings := spec.Settings
		if settings == nil {
			settings = json.RawMessage("{}")
		}
		// On the setup's limits, as _initialize: it runs once, with no
		// call waiting on it, and a Go guest's first call builds what it
		// keeps. On a call's 100 ms, a loaded machine's CI run failed to
		// load the built-ins now and then (2026-12-07), and a server that
		// cannot load its policy denies every call.
		rc, err := m.callOn(inst, inst.mod.ExportedFunction("guard_validate"), settings, "", limits.setup())
		if err != nil {
			m.pool.discard(inst)
			m.Close(ctx)
			return nil, fmt.Errorf("guard_validate: %w", err)
		}
		if rc != 0 {
			msg := abi.OutputText(inst.st.output)
			m.pool.put(inst)
			m.Close(ctx)
			return nil, &SettingsError{Module: spec.Name, Msg: msg}
		}
	}
	m.pool.put(inst)
	return m, nil
}

// pool returns the shared pool of c (making it when needed), or a new one.
// The pool takes over the caller's reference to c.
func (r *Runtime) pool(ctx context.Context, c *code, max int, shared bool, log *slog.Logger, opa *opaSpec) *pool {
	key := poolKey{c.key, max}
	r.mu.Lock()
	if p, ok := r.pools[key]; ok && shared {
		p.refs++
		r.mu.Unlock()
		r.release(ctx, c) // the pool holds a reference of its own
		return p
	}
	p := &pool{code: c, log: log, refs: 1, max: max, slot: make(chan struct{}, max), opa: opa}
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

// instantiate makes a new instance; the caller holds a slot. A start
// function spends the fuel the module begins with; _initialize (a Go
// reactor's package inits) runs with ten calls' fuel and time.
func (p *pool) instantiate(ctx context.Context, l Limits) (*instance, error) {
	cfg := wazero.NewModuleConfig().WithName("").
		WithStdout(&logWriter{log: p.log, stream: "stdout"}).WithStderr(&logWriter{log: p.log, stream: "stderr"}).
		WithStartFunctions() // _initialize is called below, on its budget
	inst := &instance{}
	alloc := experimental.MemoryAllocatorFunc(func(capacity, max uint64) experimental.LinearMemory {
		inst.mem = allocateMemory(capacity, max)
		return inst.mem
	})
	inst.ctx = withState(experimental.WithMemoryAllocator(context.WithoutCancel(ctx), alloc), &inst.st)
	mod, err := p.code.rt.InstantiateModule(inst.ctx, p.code.compiled, cfg)
	if err != nil {
		// A start function runs here, on the fuel the module starts with;
		// running out of it traps at unreachable.
		return nil, fmt.Errorf("instantiate (a start function has %d units of fuel): %w", initFuel(l.Fuel), err)
	}
	inst.mod, inst.eval = mod, mod.ExportedFunction("guard_evaluate")
	if p.code.hasBatch {
		inst.batch = mod.ExportedFunction("guard_evaluate_batch")
	}
	g, ok := mod.ExportedGlobal(fuel.Global).(api.MutableGlobal)
	b, ok2 := mod.ExportedGlobal(fuel.Budget).(api.MutableGlobal)
	if !ok || !ok2 { // the rewrite adds them: a module without them was not rewritten
		mod.Close(ctx)
		return nil, errors.New("instantiate: no fuel globals")
	}
	inst.dog.fuel, inst.dog.budget = g, b
	init := l.setup()
	if p.code.hasInit {
		inst.stack[0] = 0
		if err := inst.run(mod.ExportedFunction("_initialize"), init, inst.stack[:]); err != nil {
			mod.Close(ctx)
			return nil, fmt.Errorf("_initialize: %w", err)
		}
	}
	if p.opa != nil {
		inst.st = callState{log: p.log}
		if err := inst.setupOPA(p.opa, init); err != nil {
			mod.Close(ctx)
			return nil, err
		}
	}
	return inst, nil
}

// get takes a slot, then an idle instance or a new one.
func (p *pool) get(ctx context.Context, l Limits) (*instance, error) {
	select {
	case p.slot <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("no free instance: %w", ctx.Err())
	}
	if inst := p.pop(); inst != nil {
		return inst, nil
	}
	inst, err := p.instantiate(ctx, l)
	if err != nil {
		<-p.slot
		return nil, err
	}
	return inst, nil
}

// pop takes the idle instance used last, or nil.
func (p *pool) pop() *instance {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.idle)
	if n == 0 {
		return nil
	}
	inst := p.idle[n-1]
	p.idle[n-1] = nil
	p.idle = p.idle[:n-1]
	return inst
}

// put returns a healthy instance to the pool.
func (p *pool) put(inst *instance) {
	p.mu.Lock()
	kept := len(p.idle) < p.max
	if kept {
		p.idle = append(p.idle, inst)
	}
	p.mu.Unlock()
	if !kept {
		inst.mod.Close(context.Background())
	}
	<-p.slot
}

// discard throws away an instance that faulted (trap, timeout, memory).
func (p *pool) discard(inst *instance) {
	inst.mod.Close(context.Background())
	<-p.slot
}

// Response is a module's answer (ABI v1; plugins/abi reads it).
type Response = abi.Response

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
	inst, err := m.pool.get(ctx, m.limits)
	if err != nil {
		return Response{}, err
	}
	if inst.opa != nil {
		resp, err := m.evaluateOPA(inst, session, req)
		if err != nil {
			m.pool.discard(inst)
			return Response{}, err
		}
		m.pool.put(inst)
		return resp, nil
	}
	rc, err := m.call(inst, inst.eval, req, session)
	if err != nil {
		m.pool.discard(inst)
		return Response{}, err
	}
	var resp Response
	if rc != 0 {
		err = fmt.Errorf("guard_evaluate returned %d: %s", rc, abi.OutputText(inst.st.output))
	} else {
		resp, err = abi.ParseResponse(inst.st.output)
	}
	m.pool.put(inst)
	return resp, err
}

// Batches reports whether m and o can be asked in one guest call
// (EvaluateBatch): they draw from one pool of instances, so they run the
// same code, and that code exports guard_evaluate_batch, and they have the
// same limits.
func (m *Module) Batches(o *Module) bool {
	return m.pool != nil && m.pool == o.pool && m.pool.code.hasBatch && m.limits == o.limits
}

// EvaluateBatch asks mods, which must batch with each other (Batches), in
// one call of guard_evaluate_batch: req is the ABI v1 request whose "batch"
// member holds the modules' settings, in order. A fault fails every module
// of the batch (each error names the module).
func EvaluateBatch(ctx context.Context, session string, mods []*Module, req []byte) ([]Response, error) {
	resps, err := evaluateBatch(ctx, session, mods, req)
	if err != nil {
		names := make([]string, len(mods))
		for i, m := range mods {
			names[i] = m.name
		}
		return nil, fmt.Errorf("modules %s (asked in one call): %w", strings.Join(names, ", "), err)
	}
	return resps, nil
}

func evaluateBatch(ctx context.Context, session string, mods []*Module, req []byte) ([]Response, error) {
	m := mods[0]
	for _, o := range mods[1:] {
		if !m.Batches(o) {
			return nil, fmt.Errorf("module %s cannot be asked in one call with %s", o.name, m.name)
		}
	}
	inst, err := m.pool.get(ctx, m.limits)
	if err != nil {
		return nil, err
	}
	inst.st = m.state(inst, req, session)
	inst.st.batch = mods
	inst.stack[0] = uint64(len(req))
	err = inst.run(inst.batch, m.limits, inst.stack[:])
	rc := uint32(inst.stack[0])
	if err != nil {
		m.pool.discard(inst)
		return nil, err
	}
	var resps []Response
	if rc != 0 {
		err = fmt.Errorf("guard_evaluate_batch returned %d: %s", rc, abi.OutputText(inst.st.output))
	} else {
		resps, err = abi.ParseResponses(inst.st.output, len(mods))
	}
	m.pool.put(inst)
	return resps, err
}

// call runs fn(len(input)) on the module's limits, with the host functions'
// state set for it.
func (m *Module) call(inst *instance, fn api.Function, input []byte, session string) (uint32, error) {
	return m.callOn(inst, fn, input, session, m.limits)
}

// callOn is call on the limits l.
func (m *Module) callOn(inst *instance, fn api.Function, input []byte, session string, l Limits) (uint32, error) {
	inst.st = m.state(inst, input, session)
	inst.stack[0] = uint64(len(input))
	if err := inst.run(fn, l, inst.stack[:]); err != nil {
		return 0, err
	}
	return uint32(inst.stack[0]), nil
}

// state is what the host functions see of a call of m with input, for the
// MCP session (inst's output buffer reused).
func (m *Module) state(inst *instance, input []byte, session string) callState {
	return callState{input: input, output: inst.st.output[:0], session: session,
		module: m.name, log: m.log, counters: m.counters, secrets: m.rt.secrets}
}

// run calls fn with its parameters on stack, which receives its results,
// with the fuel of l and a watchdog at its deadline, and names the cause of
// a failure: fuel, deadline, memory, a host function's finding, or a trap.
func (inst *instance) run(fn api.Function, l Limits, stack []uint64) error {
	inst.dog.start(l)
	err := fn.CallWithStack(inst.ctx, stack)
	expired, left := inst.dog.stop()
	st := &inst.st
	switch {
	case st.fault != nil:
		return st.fault
	case expired:
		return fmt.Errorf("timed out after %v (the call was interrupted)", l.Timeout)
	case err == nil:
		return nil
	case left < 0:
		return fmt.Errorf("ran out of fuel (%d units a call; [sandbox] fuel raises it)", l.Fuel)
	}
	// A guest that hit the limit sees memory.grow fail and dies its own
	// way (Go: "out of memory", then exit 2); its memory size tells.
	msg := err.Error()
	if mem := inst.mod.Memory(); (mem != nil && uint64(mem.Size())+4*pageSize*16 > l.Memory) ||
		strings.Contains(msg, "out of memory") || strings.Contains(msg, "memory limit") {
		return fmt.Errorf("hit its memory limit of %d bytes (%v)", l.Memory, firstLine(msg))
	}
	return fmt.Errorf("trapped: %v", firstLine(msg))
}

// watchdog refills an instance's fuel before a call and empties it at the
// call's deadline. The guest sees an empty tank at its next function entry
// or loop header, goes to refuel, finds the budget empty too, and traps.
// The guest writes both back as it spends them, and could write back a
// value read just before the watchdog's, so the watchdog empties them again
// every millisecond until the call ends. The watchdog runs even while the
// guest spins: the guest leaves compiled code at every slice
// (fuel.Slice), so the Go runtime is never held up for longer than one.
type watchdog struct {
	fuel    api.MutableGlobal // the slice being spent
	budget  api.MutableGlobal // the rest of the call's fuel
	mu      sync.Mutex
	timer   *time.Timer
	running bool
	expired bool
}

// empty is what the watchdog sets: far below zero, so that no charge takes
// it back above (i64 arithmetic wraps: the minimum itself would).
const empty = uint64(math.MaxUint64 - math.MaxInt64/2)

func (w *watchdog) start(l Limits) {
	first, budget := fuel.Split(l.Fuel)
	w.fuel.Set(uint64(first))
	w.budget.Set(uint64(budget))
	w.mu.Lock()
	w.running, w.expired = true, false
	if w.timer == nil {
		w.timer = time.AfterFunc(l.Timeout, w.fire)
	} else {
		w.timer.Reset(l.Timeout)
	}
	w.mu.Unlock()
}

func (w *watchdog) fire() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.running {
		return
	}
	w.expired = true
	w.budget.Set(empty)
	w.fuel.Set(empty)
	w.timer.Reset(time.Millisecond)
}

// stop ends the call's watch and says whether the deadline passed, and the
// budget left (negative: ran out).
func (w *watchdog) stop() (expired bool, left int64) {
	w.mu.Lock()
	w.running = false
	w.timer.Stop()
	expired = w.expired
	w.mu.Unlock()
	return expired, int64(w.budget.Get())
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// SettingsError is a module's refusal of its settings (guard_validate).
type SettingsError struct {
	Module string
	Msg    string // the module's words: what is wrong and how to fix it
}

func (e *SettingsError) Error() string { return "settings rejected: " + e.Msg }

// Close releases the module's pool: its idle instances and compiled code go
// with the last module that uses them. Call it once no Evaluate is in flight.
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
	for inst := p.pop(); inst != nil; inst = p.pop() {
		inst.mod.Close(ctx)
	}
	r.release(ctx, p.code)
}
