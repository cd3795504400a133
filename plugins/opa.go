package plugins

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/debugpy-guard/debugpy-guard/plugins/abi"
	"github.com/debugpy-guard/debugpy-guard/plugins/internal/opa"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// The ABIs a module may follow (Spec.ABI).
const (
	// ABIV1 is debugpy-guard's own (plugins/ABI.md); the default.
	ABIV1 = "v1"
	// ABIOPA is Open Policy Agent's WebAssembly ABI, version 1.2 or later:
	// a module `opa build -t wasm` compiled from Rego, or the bundle it
	// wrote (plugins/ABI.md, "OPA modules").
	ABIOPA = "opa"
)

// An OPA module's exports the host calls, with their types.
var opaExports = []struct {
	name            string
	params, results int // all i32
}{
	{"opa_eval", 7, 1},
	{"opa_malloc", 1, 1},
	{"opa_json_parse", 2, 1},
	{"opa_json_dump", 1, 1},
	{"opa_heap_ptr_get", 0, 1},
	{"builtins", 0, 1},
	{"entrypoints", 0, 1},
}

// opaImports are the functions an OPA module may import from "env" (its
// memory import is made the module's own before it is compiled).
var opaImports = map[string]bool{"opa_abort": true, "opa_println": true,
	"opa_builtin0": true, "opa_builtin1": true, "opa_builtin2": true, "opa_builtin3": true, "opa_builtin4": true}

// opaBuiltin is a Rego builtin that the host provides to OPA modules: the
// ones `opa build` does not compile into the module and that a policy about
// tool calls needs. args are the builtin's operands as JSON values
// (numbers as json.Number).
type opaBuiltin func(st *callState, args []any) (any, error)

// opaBuiltins are the builtins the host provides, by Rego name. A module
// that needs another is refused at load, naming it. plugins/ABI.md lists
// them with what each does here.
var opaBuiltins = map[string]opaBuiltin{
	"sprintf":       regoSprintf,
	"trace":         regoTrace,
	"time.now_ns":   regoTimeNow,
	"crypto.sha256": regoSHA256,
	"hex.encode":    regoHexEncode,
	"hex.decode":    regoHexDecode,
}

// OPABuiltins lists the builtins the host provides to OPA modules.
func OPABuiltins() []string { return slices.Sorted(maps.Keys(opaBuiltins)) }

// instantiateOPAHost registers the "env" host module OPA modules import.
func instantiateOPAHost(ctx context.Context, rt wazero.Runtime) error {
	i32 := api.ValueTypeI32
	b := rt.NewHostModuleBuilder("env")
	b.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(hostOPAAbort), []api.ValueType{i32}, nil).Export("opa_abort")
	b.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(hostOPAPrintln), []api.ValueType{i32}, nil).Export("opa_println")
	for n := 0; n <= 4; n++ {
		params := make([]api.ValueType, n+2) // builtin id, reserved context, operands
		for i := range params {
			params[i] = i32
		}
		b.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(hostOPABuiltin), params, []api.ValueType{i32}).
			Export("opa_builtin" + strconv.Itoa(n))
	}
	_, err := b.Instantiate(ctx)
	return err
}

// checkOPA checks a compiled module against the OPA ABI: the exports the
// host calls, with their types, and the imports it provides.
func checkOPA(compiled wazero.CompiledModule) error {
	exports := compiled.ExportedFunctions()
	for _, e := range opaExports {
		f, ok := exports[e.name]
		if !ok {
			return fmt.Errorf("missing export %s: not a module of OPA's WebAssembly ABI 1.2 or later (build it with opa build -t wasm)", e.name)
		}
		if len(f.ParamTypes()) != e.params || len(f.ResultTypes()) != e.results ||
			slices.ContainsFunc(append(f.ParamTypes(), f.ResultTypes()...), func(t api.ValueType) bool { return t != api.ValueTypeI32 }) {
			return fmt.Errorf("export %s has the wrong type for OPA's ABI", e.name)
		}
	}
	if _, ok := compiled.ExportedMemories()["memory"]; !ok {
		return errors.New("missing export memory")
	}
	for _, imp := range compiled.ImportedFunctions() {
		mod, fn, _ := imp.Import()
		if mod != "env" || !opaImports[fn] {
			return fmt.Errorf("imports %s.%s, which the host does not give OPA modules (it gives env.opa_abort, env.opa_println, env.opa_builtin0 to 4, env.memory)", mod, fn)
		}
	}
	return nil
}

// opaSpec is what each instance of an OPA module is set up with.
type opaSpec struct {
	entrypoint string // "" when the module must have one entrypoint
	data       []byte // JSON object: the bundle's data with the settings over it
}

// namedBuiltin is a builtin the module calls, with its Rego name (for
// errors).
type namedBuiltin struct {
	name string
	fn   opaBuiltin
}

// opaInstance is an OPA module instance's state, set up once: its exports,
// the entrypoint's id, the data and where each call's input goes.
type opaInstance struct {
	eval, malloc, parse, dump api.Function
	builtins                  []namedBuiltin // by the module's builtin id
	entrypoint                uint32
	data                      uint32 // address of the data value
	heap                      uint32 // the heap pointer after data: each call's input goes there
	stack                     [7]uint64
}

// setupOPA reads the module's ABI version, builtins and entrypoints and
// parses the data into it, with l's fuel and time for each step.
func (inst *instance) setupOPA(spec *opaSpec, l Limits) error {
	mod := inst.mod
	version, minor := mod.ExportedGlobal("opa_wasm_abi_version"), mod.ExportedGlobal("opa_wasm_abi_minor_version")
	if version == nil || minor == nil {
		return errors.New("no opa_wasm_abi_version or opa_wasm_abi_minor_version global: not a module built by opa build -t wasm")
	}
	if v, mv := int32(version.Get()), int32(minor.Get()); v != 1 || mv < 2 {
		return fmt.Errorf("OPA WebAssembly ABI %d.%d: the host runs ABI 1.2 and later 1.x (rebuild it with a newer opa build -t wasm)", v, mv)
	}
	o := &opaInstance{eval: mod.ExportedFunction("opa_eval"), malloc: mod.ExportedFunction("opa_malloc"),
		parse: mod.ExportedFunction("opa_json_parse"), dump: mod.ExportedFunction("opa_json_dump")}
	inst.opa = o
	inst.st.opa = o

	var ids map[string]int64
	if err := inst.opaValue(mod.ExportedFunction("builtins"), l, &ids); err != nil {
		return fmt.Errorf("builtins: %w", err)
	}
	var missing []string
	for name, id := range ids {
		f, ok := opaBuiltins[name]
		if !ok {
			missing = append(missing, name)
			continue
		}
		if id < 0 || id > 1<<16 {
			return fmt.Errorf("builtins: id %d of %s is out of range", id, name)
		}
		for int64(len(o.builtins)) <= id {
			o.builtins = append(o.builtins, namedBuiltin{})
		}
		o.builtins[id] = namedBuiltin{name, f}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return fmt.Errorf("it needs builtins the host does not provide: %s (the host provides %s; the rest of OPA's builtins are compiled into the module)",
			strings.Join(missing, ", "), strings.Join(OPABuiltins(), ", "))
	}

	var eps map[string]int64
	if err := inst.opaValue(mod.ExportedFunction("entrypoints"), l, &eps); err != nil {
		return fmt.Errorf("entrypoints: %w", err)
	}
	names := slices.Sorted(maps.Keys(eps))
	switch id, ok := eps[spec.entrypoint]; {
	case spec.entrypoint == "" && len(eps) == 1:
		o.entrypoint = uint32(eps[names[0]])
	case spec.entrypoint == "":
		return fmt.Errorf("it has %d entrypoints (%s): say which decides: entrypoint = \"...\" in the config (--entrypoint with --module)", len(eps), strings.Join(names, ", "))
	case !ok:
		return fmt.Errorf("no entrypoint %q: it has %s (opa build -e names them)", spec.entrypoint, strings.Join(names, ", "))
	default:
		o.entrypoint = uint32(id)
	}

	addr, err := inst.opaCall(o.malloc, l, uint64(len(spec.data)))
	if err != nil {
		return fmt.Errorf("opa_malloc: %w", err)
	}
	if !mod.Memory().Write(uint32(addr), spec.data) {
		return errors.New("opa_malloc returned an address outside memory")
	}
	data, err := inst.opaCall(o.parse, l, addr, uint64(len(spec.data)))
	if err != nil || data == 0 {
		return fmt.Errorf("opa_json_parse of the data failed (%v)", err)
	}
	heap, err := inst.opaCall(mod.ExportedFunction("opa_heap_ptr_get"), l)
	if err != nil {
		return fmt.Errorf("opa_heap_ptr_get: %w", err)
	}
	o.data, o.heap = uint32(data), uint32(heap)
	return nil
}

// opaCall calls fn with args under l and returns its i32 result.
func (inst *instance) opaCall(fn api.Function, l Limits, args ...uint64) (uint64, error) {
	stack := make([]uint64, max(len(args), 1))
	copy(stack, args)
	if err := inst.run(fn, l, stack); err != nil {
		return 0, err
	}
	return uint64(uint32(stack[0])), nil
}

// opaValue calls fn, which returns a value, and decodes the value's JSON
// into v.
func (inst *instance) opaValue(fn api.Function, l Limits, v any) error {
	addr, err := inst.opaCall(fn, l)
	if err != nil {
		return err
	}
	s, err := inst.opaCall(inst.opa.dump, l, addr)
	if err != nil {
		return err
	}
	b, err := cString(inst.mod.Memory(), uint32(s))
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// cString is the NUL-terminated string at addr, at most maxOutput bytes.
func cString(mem api.Memory, addr uint32) ([]byte, error) {
	if addr == 0 || addr >= mem.Size() {
		return nil, fmt.Errorf("string address %d is outside memory (%d bytes)", addr, mem.Size())
	}
	b, _ := mem.Read(addr, min(mem.Size()-addr, maxOutput+1))
	n := bytes.IndexByte(b, 0)
	if n < 0 {
		return nil, fmt.Errorf("no string end within %d bytes", maxOutput)
	}
	return b[:n], nil
}

// evaluateOPA runs the entrypoint with req as input: the request is
// written at the heap pointer the data left, opa_eval parses it and
// evaluates, and each call starts from that heap pointer again.
func (m *Module) evaluateOPA(inst *instance, session string, req []byte) (Response, error) {
	o, mem := inst.opa, inst.mod.Memory()
	end := uint64(o.heap) + uint64(len(req))
	if size := uint64(mem.Size()); end > size {
		if _, ok := mem.Grow(uint32((end - size + pageSize - 1) / pageSize)); !ok {
			return Response{}, fmt.Errorf("hit its memory limit of %d bytes (a request of %d bytes)", m.limits.Memory, len(req))
		}
	}
	mem.Write(o.heap, req)
	inst.st = m.state(inst, req, session)
	inst.st.opa = o
	o.stack = [7]uint64{0, uint64(o.entrypoint), uint64(o.data), uint64(o.heap), uint64(len(req)), end, 0}
	if err := inst.run(o.eval, m.limits, o.stack[:]); err != nil {
		return Response{}, err
	}
	out, err := cString(mem, uint32(o.stack[0]))
	if err != nil {
		return Response{}, fmt.Errorf("opa_eval's result: %w", err)
	}
	return opaResponse(out)
}

// opaResponse reads opa_eval's result set: [] (undefined) is abstain, and
// [{"result": V}] holds the entrypoint's value V, a decision string or an
// object of decision, reason, result and code. Keys are compared exactly.
func opaResponse(out []byte) (Response, error) {
	var set []map[string]json.RawMessage
	if err := json.Unmarshal(out, &set); err != nil {
		return Response{}, fmt.Errorf("opa_eval's result is not a result set: %v: %q", err, abi.OutputText(out))
	}
	switch {
	case len(set) == 0:
		return Response{Verdict: abi.Abstain}, nil
	case len(set) > 1 || len(set[0]) != 1 || set[0]["result"] == nil:
		return Response{}, fmt.Errorf("opa_eval's result is not one value: %q", abi.OutputText(out))
	}
	v := bytes.TrimSpace(set[0]["result"])
	var r Response
	switch {
	case len(v) > 0 && v[0] == '"':
		if err := json.Unmarshal(v, &r.Verdict); err != nil {
			return Response{}, err
		}
	case len(v) > 0 && v[0] == '{':
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(v, &obj); err != nil {
			return Response{}, err
		}
		for k, e := range obj {
			var err error
			switch k {
			case "decision":
				err = json.Unmarshal(e, &r.Verdict)
			case "reason":
				err = json.Unmarshal(e, &r.Reason)
			case "result":
				r.Result = e
			case "code":
				err = json.Unmarshal(e, &r.Code)
			default:
				return Response{}, fmt.Errorf("the decision has a key %q: the keys are decision, reason, result and code", k)
			}
			if err != nil {
				return Response{}, fmt.Errorf("the decision's %s is not a string: %s", k, abi.OutputText(e))
			}
		}
	default:
		return Response{}, fmt.Errorf("the entrypoint's value is %s: want a decision (\"allow\", \"deny\", \"approve\", \"abstain\") or an object {\"decision\", \"reason\"}", abi.OutputText(v))
	}
	return r, r.Check()
}

// env.opa_abort(addr): the module gave up (a conflict, a bad builtin
// call); the call fails with its text.
func hostOPAAbort(ctx context.Context, m api.Module, stack []uint64) {
	st := stateOf(ctx)
	msg, err := cString(m.Memory(), api.DecodeU32(stack[0]))
	if err != nil {
		abort(st, "opa_abort (its text unreadable: %v)", err)
	}
	abort(st, "opa_abort: %s", abi.OutputText(msg))
}

// env.opa_println(addr): Rego's print, to the log (bounded as guard.log).
func hostOPAPrintln(ctx context.Context, m api.Module, stack []uint64) {
	st := stateOf(ctx)
	if !st.mayLog() {
		return
	}
	msg, err := cString(m.Memory(), api.DecodeU32(stack[0]))
	if err != nil {
		abort(st, "opa_println: %v", err)
	}
	st.log.Info("policy print", "text", abi.OutputText(msg[:min(len(msg), 1024)]))
}

// env.opa_builtinN(id, ctx, a1..aN) -> value: one of opaBuiltins, on the
// operands' JSON. An error fails the call (OPA's own wasm SDK does the
// same; its evaluator would make the expression undefined instead).
func hostOPABuiltin(ctx context.Context, m api.Module, stack []uint64) {
	st := stateOf(ctx)
	o := st.opa
	id := int32(api.DecodeU32(stack[0]))
	if o == nil || id < 0 || int(id) >= len(o.builtins) || o.builtins[id].fn == nil {
		abort(st, "opa_builtin: no builtin with id %d", id)
	}
	name := o.builtins[id].name
	args := make([]any, len(stack)-2)
	for i := range args {
		s, err := o.dump.Call(ctx, stack[2+i])
		if err != nil {
			abort(st, "%s: reading operand %d: %v", name, i+1, err)
		}
		b, err := cString(m.Memory(), api.DecodeU32(s[0]))
		if err != nil {
			abort(st, "%s: reading operand %d: %v", name, i+1, err)
		}
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		if err := d.Decode(&args[i]); err != nil {
			abort(st, "%s: operand %d is not JSON: %v", name, i+1, err)
		}
	}
	v, err := o.builtins[id].fn(st, args)
	if err != nil {
		abort(st, "%s: %v", name, err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		abort(st, "%s: %v", name, err)
	}
	addr, err := o.malloc.Call(ctx, uint64(len(out)))
	if err != nil {
		abort(st, "%s: opa_malloc: %v", name, err)
	}
	if !m.Memory().Write(api.DecodeU32(addr[0]), out) {
		abort(st, "%s: opa_malloc returned an address outside memory", name)
	}
	val, err := o.parse.Call(ctx, addr[0], uint64(len(out)))
	if err != nil || api.DecodeU32(val[0]) == 0 {
		abort(st, "%s: opa_json_parse of its value failed (%v)", name, err)
	}
	stack[0] = val[0]
}

// regoSprintf is OPA's sprintf (topdown's builtinSprintf): Go's
// fmt.Sprintf, with a number as int64, *big.Int or float64 as its text
// says, a string as itself, and anything else as Rego writes it. One
// difference: a set reaches the host as JSON, an array, and is written as
// one.
func regoSprintf(_ *callState, args []any) (any, error) {
	format, ok := args[0].(string)
	if !ok {
		return nil, fmt.Errorf("operand 1 must be a string, not %s", regoType(args[0]))
	}
	list, ok := args[1].([]any)
	if !ok {
		return nil, fmt.Errorf("operand 2 must be an array, not %s", regoType(args[1]))
	}
	if err := boundedFormat(format); err != nil {
		return nil, err
	}
	fargs := make([]any, len(list))
	for i, a := range list {
		switch v := a.(type) {
		case json.Number:
			ns := string(v)
			if strings.ContainsAny(ns, ".eE") {
				if f, err := strconv.ParseFloat(ns, 64); err == nil {
					fargs[i] = f
				} else {
					fargs[i] = ns
				}
			} else if x, err := strconv.ParseInt(ns, 10, 64); err == nil {
				fargs[i] = x
			} else if b, ok := new(big.Int).SetString(ns, 10); ok {
				fargs[i] = b
			} else {
				fargs[i] = ns
			}
		case string:
			fargs[i] = v
		default:
			fargs[i] = string(regoText(nil, a))
		}
	}
	return fmt.Sprintf(format, fargs...), nil
}

// maxWidth bounds a width or precision in a sprintf format: fmt would
// build the padded text in the host's memory, and a format that reaches
// the module from a call's arguments would let an agent ask for gigabytes.
const maxWidth = 1000

// boundedFormat refuses a format with a width or precision over maxWidth,
// or one taken from the operands (*).
func boundedFormat(format string) error {
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		for i++; i < len(format); i++ {
			c := format[i]
			switch {
			case c == '*':
				return errors.New("a width or precision taken from the operands (*) is not allowed")
			case c >= '0' && c <= '9':
				n := 0
				for ; i < len(format) && format[i] >= '0' && format[i] <= '9'; i++ {
					if n = n*10 + int(format[i]-'0'); n > maxWidth {
						return fmt.Errorf("a width or precision over %d is not allowed", maxWidth)
					}
				}
				i--
				continue
			case strings.IndexByte("+-# .[]", c) >= 0:
				continue
			}
			break // the verb
		}
	}
	return nil
}

// regoText appends v as Rego writes a value (ast.Value's String): strings
// quoted as Go quotes them, ", " between elements, object keys sorted.
func regoText(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, v)
	case json.Number:
		return append(b, v...)
	case string:
		return strconv.AppendQuote(b, v)
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = regoText(b, e)
		}
		return append(b, ']')
	case map[string]any:
		b = append(b, '{')
		for i, k := range slices.Sorted(maps.Keys(v)) {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(strconv.AppendQuote(b, k), ": "...)
			b = regoText(b, v[k])
		}
		return append(b, '}')
	}
	return fmt.Appendf(b, "%v", v)
}

func regoType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

func stringOperand(args []any) (string, error) {
	s, ok := args[0].(string)
	if !ok {
		return "", fmt.Errorf("operand 1 must be a string, not %s", regoType(args[0]))
	}
	return s, nil
}

// regoTrace writes its note to the log and is true.
func regoTrace(st *callState, args []any) (any, error) {
	s, err := stringOperand(args)
	if err != nil {
		return nil, err
	}
	if st.mayLog() {
		st.log.Info("policy trace", "text", s[:min(len(s), 1024)])
	}
	return true, nil
}

// regoTimeNow is the time of the call in nanoseconds since the epoch: one
// reading per call, as OPA reads the clock once per query.
func regoTimeNow(st *callState, _ []any) (any, error) {
	if st.now.IsZero() {
		st.now = time.Now()
	}
	return st.now.UnixNano(), nil
}

func regoSHA256(_ *callState, args []any) (any, error) {
	s, err := stringOperand(args)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:]), nil
}

func regoHexEncode(_ *callState, args []any) (any, error) {
	s, err := stringOperand(args)
	if err != nil {
		return nil, err
	}
	return hex.EncodeToString([]byte(s)), nil
}

func regoHexDecode(_ *callState, args []any) (any, error) {
	s, err := stringOperand(args)
	if err != nil {
		return nil, err
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, err
	}
	return string(b), nil
}

// opaData is the data an OPA module's instances are set up with: the
// bundle's data (nil for a bare module) with the settings' keys over it.
func opaData(bundle map[string]any, settings json.RawMessage) ([]byte, error) {
	data := map[string]any{}
	for k, v := range bundle {
		data[k] = v
	}
	if len(settings) > 0 {
		var set map[string]any
		d := json.NewDecoder(bytes.NewReader(settings))
		d.UseNumber()
		if err := d.Decode(&set); err != nil {
			return nil, fmt.Errorf("settings are not a JSON object: %w", err)
		}
		for k, v := range set {
			data[k] = v
		}
	}
	return json.Marshal(data)
}

// unpackOPA is the module of an OPA source (a module, or a bundle) and its
// bundle's data.
func unpackOPA(src []byte) (wasm []byte, data map[string]any, err error) {
	if !opa.IsBundle(src) {
		return src, nil, nil
	}
	b, err := opa.ReadBundle(src)
	if err != nil {
		return nil, nil, fmt.Errorf("bundle: %w", err)
	}
	return b.Wasm, b.Data, nil
}

// SourceABI is the ABI a module's source follows, as far as its bytes
// tell: ABIOPA for a bundle or a module that exports opa_eval, else ABIV1.
// For a config, the config says (abi); this is for running a module file
// on its own.
func SourceABI(src []byte) string {
	if opa.IsBundle(src) || opa.IsModule(src) {
		return ABIOPA
	}
	return ABIV1
}
