// Package engine makes the decision for each tool call: it matches the TOML
// rules to the tool, runs the modules of the phase through plugins, combines
// their verdicts (deny > approve > allow > abstain, monitor modules aside)
// and keeps a trace of every module's part.
package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/debugpy-guard/debugpy-guard/plugins"
	"github.com/debugpy-guard/debugpy-guard/plugins/abi"
)

// Phases of a call.
const (
	PhaseCall   = "call"
	PhaseResult = "result"
)

// Options wire an Engine to its surroundings.
type Options struct {
	Runtime *plugins.Runtime
	// Builtin returns the embedded module NAME of source "builtin:NAME".
	Builtin func(name string) ([]byte, error)
}

// Engine holds a loaded config. It is safe for concurrent callers.
//
// New checks the config and every module's source at once (read, sha256 pin,
// WebAssembly header) and compiles the modules in the background: a Go
// module takes ~1 s to compile cold, and the server answers tools/list
// without waiting. A decision waits only for the modules of its own chain;
// Wait waits for them all and reports the first that failed to load.
type Engine struct {
	cfg     *Config
	modules map[string]*module

	cancel  context.CancelFunc // stops loading
	closing atomic.Bool        // Close has begun: a load cut short by it is not a module's fault
	loaded  chan struct{}      // closed when every module is loaded or failed
	mu      sync.RWMutex       // held for reading by each decision, for writing by Close
	closed  bool

	chains  sync.Map // chainKey -> chain: Chain's answers, worked out once
	nchains atomic.Int64

	// Pins keep the engine open for calls that hold it from start to end
	// (Live.Acquire): Close waits for them (unpinned) before it closes.
	pinMu    sync.Mutex
	pins     int
	retiring bool          // Close has begun: no new pin
	unpinned chan struct{} // closed when the last pin goes, once retiring
}

type module struct {
	name     string
	monitor  bool
	settings json.RawMessage
	spec     plugins.Spec
	ready    chan struct{} // closed when loaded or failed
	m        *plugins.Module
	err      error
}

// New checks cfg and starts loading its modules; on a source that cannot be
// read or fails its pin, it returns an error that names the file and module.
func New(ctx context.Context, cfg *Config, opts Options) (*Engine, error) {
	e := &Engine{cfg: cfg, modules: map[string]*module{}, loaded: make(chan struct{}), unpinned: make(chan struct{})}
	sbTimeout, _ := duration(cfg.Sandbox.Timeout, plugins.DefaultTimeout)
	sbMemory, _ := ParseSize(cfg.Sandbox.Memory)
	for name, mc := range cfg.Modules {
		wasm, err := e.source(name, mc, opts)
		if err != nil {
			return nil, err
		}
		set := nonNilMap(mc.Settings)
		if b, ok := strings.CutPrefix(mc.Source, "builtin:"); ok {
			// The built-ins share one module, which dispatches on "policy".
			set = maps.Clone(set)
			set["policy"] = b
		}
		settings, err := json.Marshal(set)
		if err != nil {
			return nil, fmt.Errorf("%s: modules.%s.settings: %w", cfg.File, name, err)
		}
		l := plugins.Limits{Timeout: sbTimeout, Memory: sbMemory, Fuel: cfg.Sandbox.Fuel}
		if mc.Fuel > 0 {
			l.Fuel = mc.Fuel
		}
		if d, _ := duration(mc.Timeout, 0); d > 0 {
			l.Timeout = d
		}
		if s, _ := ParseSize(mc.Memory); s > 0 {
			l.Memory = s
		}
		builtin := strings.HasPrefix(mc.Source, "builtin:")
		spec := plugins.Spec{Name: name, Wasm: wasm, SHA256: mc.SHA256, Settings: settings,
			Limits: l, Shared: builtin, ABI: mc.ABI, Entrypoint: mc.Entrypoint}
		if err := plugins.Precheck(spec); err != nil {
			return nil, fmt.Errorf("%s: %w", cfg.File, err)
		}
		e.modules[name] = &module{name: name, monitor: mc.Mode == "monitor", settings: settings,
			spec: spec, ready: make(chan struct{})}
	}
	lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	e.cancel = cancel
	var wg sync.WaitGroup
	for _, m := range e.modules {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(m.ready)
			m.m, m.err = opts.Runtime.Load(lctx, m.spec)
			var se *plugins.SettingsError
			switch {
			case errors.As(m.err, &se):
				// Named as a TOML key is: file, line, key.
				m.err = &ConfigError{File: cfg.File, Line: cfg.Modules[m.name].settingsLine,
					Key: "modules." + m.name + ".settings", Msg: se.Msg}
			case m.err != nil:
				m.err = fmt.Errorf("%s: %w", cfg.File, m.err)
			}
			m.spec.Wasm = nil
		}()
	}
	go func() {
		wg.Wait()
		close(e.loaded)
	}()
	return e, nil
}

// Wait waits until every module is loaded and returns the load errors (nil
// when all loaded), or ctx's error.
func (e *Engine) Wait(ctx context.Context) error {
	select {
	case <-e.loaded:
	case <-ctx.Done():
		return fmt.Errorf("%s: modules still loading: %w", e.cfg.File, ctx.Err())
	}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(e.modules)) {
		if err := e.modules[name].err; err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func nonNilMap(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

func (e *Engine) source(name string, mc ModuleConfig, opts Options) ([]byte, error) {
	if b, ok := strings.CutPrefix(mc.Source, "builtin:"); ok {
		if opts.Builtin == nil {
			return nil, fmt.Errorf("%s: modules.%s: no built-in modules in this build", e.cfg.File, name)
		}
		w, err := opts.Builtin(b)
		if err != nil {
			return nil, fmt.Errorf("%s: modules.%s: %w", e.cfg.File, name, err)
		}
		return w, nil
	}
	p := mc.Source
	if !filepath.IsAbs(p) && e.cfg.File != "" {
		p = filepath.Join(filepath.Dir(e.cfg.File), p)
	}
	w, err := readPolicy(p)
	if err != nil {
		return nil, fmt.Errorf("%s: modules.%s.source: %w", e.cfg.File, name, err)
	}
	return w, nil
}

// Config is the engine's config.
func (e *Engine) Config() *Config { return e.cfg }

// Close stops loading, waits for the decisions in flight, and closes the
// modules. Decisions asked for after Close are denied.
func (e *Engine) Close(ctx context.Context) {
	e.pinMu.Lock()
	wait := e.pins > 0 // every Close waits: a second one must not close it under a call
	e.retiring = true
	e.pinMu.Unlock()
	if wait {
		select { // the calls that hold it end first (ctx: shutdown cannot wait forever)
		case <-e.unpinned:
		case <-ctx.Done():
		}
	}
	e.closing.Store(true)
	e.cancel()
	<-e.loaded
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return
	}
	e.closed = true
	for _, m := range e.modules {
		if m.m != nil {
			m.m.Close(ctx)
		}
	}
}

// pin keeps e open until release is called, and is false once e is
// closing. release may be called more than once.
func (e *Engine) pin() (release func(), ok bool) {
	e.pinMu.Lock()
	defer e.pinMu.Unlock()
	if e.retiring {
		return nil, false
	}
	e.pins++
	var once sync.Once
	return func() {
		once.Do(func() {
			e.pinMu.Lock()
			defer e.pinMu.Unlock()
			if e.pins--; e.pins == 0 && e.retiring {
				close(e.unpinned)
			}
		})
	}, true
}

// Chain is the modules that apply to tool in phase, in rule order, and the
// default of the first matching rule that has one ("" when none does).
// The caller must not change mods: the engine keeps each chain it worked
// out (its config does not change) and hands the same one to every call.
func (e *Engine) Chain(tool, phase string) (mods []string, def Verdict) {
	k := chainKey{tool, phase}
	if c, ok := e.chains.Load(k); ok {
		c := c.(chain)
		return c.mods, c.def
	}
	mods, def = e.chain(tool, phase)
	if e.nchains.Add(1) <= maxChains { // tools are the catalogue's: a few dozen
		e.chains.Store(k, chain{mods, def})
	}
	return mods, def
}

type chainKey struct{ tool, phase string }

type chain struct {
	mods []string
	def  Verdict
}

// maxChains bounds the chains an engine keeps.
const maxChains = 1024

func (e *Engine) chain(tool, phase string) (mods []string, def Verdict) {
	seen := map[string]bool{}
	for _, r := range e.cfg.Rules {
		if !matches(r.Tools, tool) {
			continue
		}
		if def == "" {
			def = r.Default
		}
		list := r.Call
		if phase == PhaseResult {
			list = r.Result
		}
		for _, m := range list {
			if !seen[m] {
				seen[m] = true
				mods = append(mods, m)
			}
		}
	}
	return mods, def
}

// ruleReason is the reason of the rule whose default applies to tool (the
// first matching rule with a default), "" when it gives none.
func (e *Engine) ruleReason(tool string) string {
	for _, r := range e.cfg.Rules {
		if r.Default != "" && matches(r.Tools, tool) {
			return r.Reason
		}
	}
	return ""
}

// Call is what a decision is about.
type Call struct {
	Phase        string
	Tool         string
	Category     string
	Arguments    json.RawMessage
	Result       json.RawMessage // phase result only
	MCPSession   string
	Client       ClientInfo
	DebugSession *DebugSession
	Time         time.Time
	Derived      *Derived // nil: nothing derived (empty lists in the request)
}

// Step is one module's part in a decision.
type Step struct {
	Module   string        `json:"module"`
	Verdict  Verdict       `json:"verdict"` // deny on error
	Reason   string        `json:"reason,omitempty"`
	Code     string        `json:"code,omitempty"` // the module's reason code (plugins/abi)
	Mode     string        `json:"mode"`           // enforce | monitor
	Duration time.Duration `json:"duration_ns"`
	Error    string        `json:"error,omitempty"`
	Rewrote  bool          `json:"rewrote,omitempty"`
}

// Decision is the combined verdict with its trace.
type Decision struct {
	Verdict Verdict         `json:"decision"` // allow, deny, approve
	Reasons []string        `json:"reasons,omitempty"`
	Modules []string        `json:"modules,omitempty"` // the modules that made it
	Default bool            `json:"default,omitempty"` // no module decided: a default applied
	Result  json.RawMessage `json:"result,omitempty"`  // rewritten result (phase result)
	Trace   []Step          `json:"trace"`
}

var rank = map[Verdict]int{Abstain: 0, Allow: 1, Approve: 2, Deny: 3}

// Decide runs the chain of call.Tool for call.Phase and combines the
// verdicts. Any module fault is a deny that names the module (fail closed).
func (e *Engine) Decide(ctx context.Context, call Call) Decision {
	d, _ := e.decide(ctx, call)
	return d
}

// ErrClosed is why an engine that was closed (a reload replaced it) denies:
// the reason of its decisions.
var ErrClosed = errors.New("engine: the policy config was closed")

// decide is Decide; ok is false when the engine was closed, so that a
// reloading caller can ask the engine that replaced it.
func (e *Engine) decide(ctx context.Context, call Call) (d Decision, ok bool) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.closed {
		return Decision{Verdict: Deny, Reasons: []string{ErrClosed.Error()}, Trace: []Step{}}, false
	}
	mods, ruleDefault := e.Chain(call.Tool, call.Phase)
	d = Decision{Trace: make([]Step, 0, len(mods))}
	var prefix []byte
	var err error
	if len(mods) > 0 {
		prefix, err = requestPrefix(call)
	} else {
		err = checkJSON(call) // what requestPrefix checks: no module reads a request here
	}
	if err != nil {
		d.Verdict, d.Reasons = Deny, []string{"engine: cannot encode the request: " + err.Error()}
		return d, true
	}
	best := Abstain
	result := call.Result
	var asked []answer // the call phase's answers, asked in batches
	if call.Phase == PhaseCall {
		asked = e.ask(ctx, call.MCPSession, mods, prefix)
	}
	for i, name := range mods {
		m := e.modules[name]
		st := Step{Module: name, Mode: "enforce"}
		if m.monitor {
			st.Mode = "monitor"
		}
		var resp plugins.Response
		var err error
		if asked != nil {
			resp, err, st.Duration = asked[i].resp, asked[i].err, asked[i].took
		} else {
			req := prefix
			if !bytes.Equal(result, call.Result) {
				// A module rewrote the result: later modules see the rewrite.
				if p, err := requestPrefix(withResult(call, result)); err == nil {
					req = p
				}
			}
			t0 := time.Now()
			resp, err = m.evaluate(ctx, call.MCPSession, m.request(req))
			st.Duration = time.Since(t0)
		}
		if err != nil && errors.Is(err, context.Canceled) && e.closing.Load() && ctx.Err() == nil {
			// Closed (a reload) before this module finished loading: ask
			// the engine in force instead of denying for it.
			return Decision{Verdict: Deny, Reasons: []string{ErrClosed.Error()}, Trace: []Step{}}, false
		}
		if err != nil {
			st.Verdict, st.Error = Deny, err.Error()
			st.Reason = err.Error()
		} else {
			st.Verdict, st.Reason, st.Code = resp.Verdict, resp.Reason, resp.Code
			if call.Phase == PhaseResult && st.Verdict == Approve {
				st.Verdict = Deny
				st.Reason = "approve in phase result counts as deny: " + st.Reason
			}
			if call.Phase == PhaseResult && len(resp.Result) > 0 && st.Verdict == Allow && !m.monitor {
				result, st.Rewrote = resp.Result, true
			}
		}
		d.Trace = append(d.Trace, st)
		if m.monitor || st.Verdict == Abstain {
			continue
		}
		switch {
		case rank[st.Verdict] > rank[best]:
			best, d.Modules, d.Reasons = st.Verdict, []string{name}, []string{reasonOf(st)}
		case st.Verdict == best:
			d.Modules, d.Reasons = append(d.Modules, name), append(d.Reasons, reasonOf(st))
		}
	}
	if best == Abstain && len(mods) == 0 && call.Phase == PhaseResult {
		// No rule names a module for this tool's results: the phase is not
		// judged. The call has run; withholding its result protects nothing.
		// (An uncovered call phase still gets the default below: before a
		// call runs, the default is what fail-closed means.)
		d.Default, d.Verdict = true, Allow
		d.Reasons = []string{"no rule judges the results of " + call.Tool + ": not judged"}
		return d, true
	}
	if best == Abstain {
		d.Default = true
		best = ruleDefault
		if best == "" {
			best = e.cfg.Default
		}
		why := "no module decided"
		if len(mods) == 0 {
			why = "no module applies to " + call.Tool + " in phase " + call.Phase
		}
		d.Reasons = []string{fmt.Sprintf("%s: default %s", why, best)}
		if r := e.ruleReason(call.Tool); r != "" {
			d.Reasons = []string{r} // the rule's own words for its default
		}
		if call.Phase == PhaseResult && best == Approve {
			best = Deny
		}
	}
	d.Verdict = best
	if call.Phase == PhaseResult && best == Allow && !bytes.Equal(result, call.Result) {
		d.Result = result
	}
	return d, true
}

// EvaluateModule runs one module alone on call, with the request Decide
// would give it: for `policy bench`, which times modules one by one.
func (e *Engine) EvaluateModule(ctx context.Context, name string, call Call) (plugins.Response, error) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	m, ok := e.modules[name]
	if !ok || e.closed {
		return plugins.Response{}, fmt.Errorf("no module %s in %s", name, e.cfg.File)
	}
	prefix, err := requestPrefix(call)
	if err != nil {
		return plugins.Response{}, err
	}
	return m.evaluate(ctx, call.MCPSession, m.request(prefix))
}

// answer is one module's part of a batch.
type answer struct {
	resp plugins.Response
	err  error
	took time.Duration // a batch's time, shared equally by its modules
}

// ask runs the modules of a call phase, each run of consecutive modules that
// batch with each other (the built-ins of one config) in one guest call,
// the others one by one. The answers are the same as asking each alone:
// in the call phase no module's answer changes another's request.
func (e *Engine) ask(ctx context.Context, session string, names []string, prefix []byte) []answer {
	out := make([]answer, len(names))
	for i := 0; i < len(names); {
		m := e.modules[names[i]]
		j := i + 1
		if m.wait(ctx) == nil {
			for j < len(names) && e.modules[names[j]].wait(ctx) == nil && m.m.Batches(e.modules[names[j]].m) {
				j++
			}
		}
		t0 := time.Now()
		if j-i == 1 {
			resp, err := m.evaluate(ctx, session, m.request(prefix))
			out[i] = answer{resp, err, time.Since(t0)}
			i = j
			continue
		}
		batch := make([]*plugins.Module, 0, j-i)
		size := len(prefix) + len(`null,"batch":[]}`) + j - i
		for k := i; k < j; k++ {
			size += len(e.modules[names[k]].settings)
		}
		// The batch's settings go after the prefix, in its spare room when it
		// has some: the prefix's own bytes stay as they are for the modules
		// after, and a request is not kept once its call returns.
		req := prefix
		if cap(req) < size {
			req = append(make([]byte, 0, size), prefix...)
		}
		req = append(req, `null,"batch":[`...)
		for k := i; k < j; k++ {
			mk := e.modules[names[k]]
			batch = append(batch, mk.m)
			if k > i {
				req = append(req, ',')
			}
			req = append(req, mk.settings...)
		}
		req = append(req, "]}"...)
		resps, err := plugins.EvaluateBatch(ctx, session, batch, req)
		took := time.Since(t0) / time.Duration(j-i)
		for k := i; k < j; k++ {
			if err != nil {
				out[k] = answer{err: err, took: took}
			} else {
				out[k] = answer{resp: resps[k-i], took: took}
			}
		}
		i = j
	}
	return out
}

// request completes a phase's request prefix with the module's settings,
// in the prefix's spare room when it has enough (requestPrefix leaves
// some): the prefix's own bytes stay as they are for the modules after,
// which are asked one at a time, and a request is not kept once its call
// returns.
func (m *module) request(prefix []byte) []byte {
	return append(append(prefix, m.settings...), '}')
}

// wait waits for the module to be loaded, and says why it cannot run.
func (m *module) wait(ctx context.Context) error {
	select {
	case <-m.ready:
	case <-ctx.Done():
		return fmt.Errorf("module %s: still loading: %w", m.name, ctx.Err())
	}
	if m.err != nil {
		return fmt.Errorf("module %s failed to load: %w", m.name, m.err)
	}
	return nil
}

// evaluate waits for the module to be loaded, then runs it.
func (m *module) evaluate(ctx context.Context, session string, req []byte) (plugins.Response, error) {
	if err := m.wait(ctx); err != nil {
		return plugins.Response{}, err
	}
	return m.m.Evaluate(ctx, session, req)
}

func reasonOf(st Step) string {
	if st.Reason == "" {
		return st.Module + ": " + string(st.Verdict)
	}
	return st.Module + ": " + st.Reason
}

// checkJSON checks that the call's arguments and result, when given, are
// JSON: a request is written with them as they are.
func checkJSON(c Call) error {
	for _, raw := range [][]byte{c.Arguments, c.Result} {
		if len(bytes.TrimSpace(raw)) > 0 && !json.Valid(raw) {
			return fmt.Errorf("not JSON: %.80q", raw)
		}
	}
	return nil
}

func withResult(c Call, r json.RawMessage) Call {
	c.Result = r
	return c
}

// requestPrefix encodes the ABI v1 request up to `"settings":` so that each
// module's settings complete it: the bytes are the same for every module of
// a phase but for that last member.
func requestPrefix(c Call) ([]byte, error) {
	if err := checkJSON(c); err != nil {
		return nil, err
	}
	if c.Time.IsZero() {
		c.Time = time.Now()
	}
	r := abi.Request{Phase: c.Phase, Tool: c.Tool, Category: c.Category, Arguments: c.Arguments, Result: c.Result,
		MCPSession: c.MCPSession, Client: c.Client, DebugSession: c.DebugSession,
		Time: c.Time.UTC().Format(time.RFC3339Nano), Derived: c.Derived}
	// Room after the prefix for a batch's settings (ask appends them there).
	return r.AppendPrefix(make([]byte, 0, 1024+len(c.Arguments)+len(c.Result))), nil
}
