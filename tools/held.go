package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/debugpy-guard/debugpy-guard/dap"
	"github.com/debugpy-guard/debugpy-guard/engine"
	"github.com/debugpy-guard/debugpy-guard/internal/pyrepr"
	"github.com/debugpy-guard/debugpy-guard/policies/expressions"
)

// What functions hold. A function keeps values with no name a listing
// shows: a closure's free variables (its cells, shown as cell_contents
// under its __closure__), its defaults (__defaults__: a lambda's
// pw=password), the positional arguments of a functools.partial (shown in
// its repr) and of a partialmethod (after self), of a thread's target (its
// _args), of a timer's function, of a callback asyncio will call (a
// Handle's, shown in its repr), of a function queued in a thread pool, of
// a scheduler's event (sched's, its argument shown in its repr), of a
// process's target (multiprocessing's: heldCallables) and of a call a
// closure defers (its cells args and one function). A token read from
// a file into a client factory's closure, or a password given to a
// partial, showed in clear (found 2026-12-07). So the host reads them
// itself, in the program, under the name that holds the function, a dot,
// and the variable's or the parameter's name ({'client.token': '...',
// 'conn.password': '...'}), for the result phase to learn:
//
//   - the frame's own names, in the listing's read of the environment
//     (started, stops.go): a module's functions are rows of no listing
//     (debugpy groups them under "function variables");
//   - and every function, method, partial, thread (and the like) a
//     variables or an evaluate response shows anywhere (heldSeen): in a
//     list of callbacks, an object's attribute, a dict's value. The stop's
//     listing, the openings, the paths read and the call's own result are
//     read for them before its result is shown. A function's closure and
//     defaults are reached only through a response that showed it, so
//     they are read before they can be shown; its row, in an object's
//     group of functions, has no path to read it by (found 2026-12-07: a
//     dict's client's closure, a list's partial, an object's thread
//     showed their secrets in clear). It reads the object by its
//     variables reference as debugpy itself resolves one (pydevd's
//     registry of the values it showed at the stop), so what it reads is
//     the object shown, whatever frame's name shows it.
//
// And an exception a response shows (a caught one kept in a list of
// errors) holds the locals of the functions its traceback went through:
// AuthError(token) showed the token in its repr, with no name (found
// 2026-12-07); they are read under the name that holds the exception, the
// function's and the local's (errors[0].login.token), 16 frames, not the
// module's (its globals, listed already). One never raised has no
// traceback: Denied("ada", token), kept in a list, showed the token
// (found 2026-12-07). Its args are read under the parameters of its
// class's own __init__ (errors[0].token), when there are as many of each.
//
// And a log record (logging's LogRecord, kept by a handler: a
// MemoryHandler's buffer, pytest's caplog.records) holds its message's
// arguments apart from it, in args: log.warning("login with password %s",
// pw) showed ('...',) in clear as records[0].args (found 2026-12-07).
// Its message is read as getMessage makes it (msg % args, of plain
// values only), under the name that holds it and .message, for the result
// phase to read as it reads a log line.
//
// And an object a result shows whole (shownSeen's readWhole) has its
// attributes read, and its attributes' a level more, by name
// (zclient._token): all of a result's objects in one request, where
// opening each took one. Its instance dict and its slots: an object of a
// class with __slots__ has no dict, and its <Client tok-...> showed the
// token its _token slot holds (found 2026-12-07). A slot is read through
// its class's own member descriptor (a C getter), which raises when the
// slot is not set: the read's one statement, a try, is a function exec
// defines once a read.
//
// Strings and bytes of at most 16 KiB, and lists, tuples and dicts of at
// most 64 of them (and of numbers and None: an auth pair ('ada', '...')
// in a closure's creds, whose repr runs no code of the program's). The
// Python reads the attributes of functions, methods, cells and
// heldCallables' classes, of exact types (threading's own Thread, not a
// subclass, whose __getattr__ could be the program's; no class of the
// program's that names itself "function"), an exception's traceback
// through BaseException's own attribute (not a property of a subclass's),
// and frames' and tracebacks' attributes: no code of the program's runs.
// A cell not yet filled is left out, a bound method's first parameter
// (self) is skipped, and arguments that are not a tuple or a list are not
// iterated (a generator would be consumed).

// heldBy is a Python function of a name, an object and whole: the pairs
// (name "." variable, value) the object holds, as above; a partial's or a
// thread's arguments as name ".args." parameter (conn.args.password),
// apart from the default of the same parameter (conn.password), which
// the partial does not change. With whole, the object's attributes too
// (shownSeen: an object a result shows), name "." attribute, and those of
// its attributes that are objects, a level more (zclient._token,
// conf.db.password), 1,024 at most. b is builtins.
const heldBy = `(lambda b, T, TB, IT, W, G, L: (lambda s, i: (lambda ok: (lambda A: lambda k, f, whole: [` +
	// functions and methods; partials, threads and the like (W)
	`(k + '.' + n, v) for g, args, sk in (` +
	`[(f, None, 0)] if b.any(b.type(f) is y for y in (T.FunctionType, T.MethodType)) else ` +
	`[(b.getattr(f, fa), b.getattr(f, aa), sk) for c, fa, aa, sk in W if b.type(f) is c and b.any(b.type(b.getattr(f, aa)) is y for y in (b.tuple, b.list))]) ` +
	`for g, skip in [(g.__func__, sk + 1) if b.type(g) is T.MethodType else (g, sk)] if b.type(g) is T.FunctionType ` +
	`for cs in [{n: c.cell_contents for n, c in b.zip(g.__code__.co_freevars, g.__closure__ or ()) if not b.repr(c).endswith('empty>')}] ` +
	`for n, v in [*cs.items()] + ` +
	`[*b.zip(g.__code__.co_varnames[g.__code__.co_argcount - b.len(g.__defaults__ or ()):g.__code__.co_argcount], g.__defaults__ or ())] + ` +
	`[*(g.__kwdefaults__ or {}).items()] + [('args.' + n, a) for n, a in b.zip(g.__code__.co_varnames[skip:g.__code__.co_argcount], args or ())] + ` +
	// a call deferred by a closure (ExitStack.callback's, a hand-written
	// defer(fn, *args)): its cells args and one function, whose parameters
	// name the arguments
	`[('args.' + n, a) for fs in [[x for x in cs.values() if b.any(b.type(x) is y for y in (T.FunctionType, T.MethodType))]] ` +
	`if args is None and b.any(b.type(cs.get('args')) is y for y in (b.tuple, b.list)) and b.len(fs) == 1 ` +
	`for h, hs in [(fs[0].__func__, 1) if b.type(fs[0]) is T.MethodType else (fs[0], 0)] if b.type(h) is T.FunctionType ` +
	`for n, a in b.zip(h.__code__.co_varnames[hs:h.__code__.co_argcount], cs['args'])] ` +
	`if ok(v)] + [` +
	// exceptions: the locals of the functions their traceback went through
	`(k + '.' + fr.f_code.co_name + '.' + n, v) for fr, _ in (IT.islice(TB.walk_tb(b.BaseException.__traceback__.__get__(f)), 16) ` +
	`if b.issubclass(b.type(f), b.BaseException) else ()) if fr.f_locals is not fr.f_globals ` +
	`for n, v in [*fr.f_locals.items()][:256] if ok(v)] + ` +
	// and their args, named by the parameters of their class's own
	// __init__ (a function of the program's) when as many
	`[(k + '.' + n, a) for c in ([b.type(f)] if b.issubclass(b.type(f), b.BaseException) else []) ` +
	`for i in [b.next((d['__init__'] for m in b.type.__dict__['__mro__'].__get__(c) for d in [b.type.__dict__['__dict__'].__get__(m)] if '__init__' in d), None)] ` +
	`if b.type(i) is T.FunctionType for xs in [b.BaseException.__dict__['args'].__get__(f)] ` +
	`if b.type(xs) is b.tuple and b.len(xs) == i.__code__.co_argcount - 1 ` +
	`for n, a in b.zip(i.__code__.co_varnames[1:i.__code__.co_argcount], xs) if ok(a)] + ` +
	// a log record's message, formatted (L)
	`[(k + '.message', m) for m in L(f, b)] + ([*IT.islice(A(A, k, f, 1), 1024)] if whole else []))` +
	// an object's attributes (whole), and its attributes' a level more, 256 each and
	// 1,024 in all, from its instance dict as the type's own __dict__ descriptor gives it,
	`(lambda A, k, o, depth: (p for n, v in IT.islice(IT.chain((nv for d in [b.next((g.__get__(o) for c in b.type.__dict__['__mro__'].__get__(b.type(o)) ` +
	`for g in [b.type.__dict__['__dict__'].__get__(c).get('__dict__')] if b.type(g) is b.type(b.type.__dict__['__dict__'])), None)] ` +
	`if d is not None and b.issubclass(b.type(d), b.dict) for nv in b.dict.items(d)), ` +
	// and its slots, through each class's own member descriptors, not Python's
	// own (__doc__, __weakref__: typing's objects hold their docstrings so)
	`(nv for c in b.type.__dict__['__mro__'].__get__(b.type(o)) for n, m in b.type.__dict__['__dict__'].__get__(c).items() ` +
	`if b.type(m) is T.MemberDescriptorType and not (n.startswith('__') and n.endswith('__')) for nv in G(n, m, o))), 256) if b.type(n) is b.str ` +
	`for p in ([(k + '.' + n, v)] if ok(v) else A(A, k + '.' + n, v, depth - 1) if depth > 0 else []))))` +
	`(lambda v: s(v) or b.any(b.type(v) is y for y in (b.tuple, b.list)) and b.len(v) <= 64 and b.all(b.map(i, v)) ` +
	`or b.type(v) is b.dict and b.len(v) <= 64 and b.all(b.type(x) is b.str and i(y) for x, y in v.items())))` +
	`(lambda x: b.any(b.type(x) is y for y in (b.str, b.bytes)) and b.len(x) <= 16384, ` +
	`lambda x: b.any(b.type(x) is y for y in (b.str, b.bytes)) and b.len(x) <= 16384 or b.any(b.type(x) is y for y in (b.int, b.float, b.bool)) or x is None))` +
	`(__import__('builtins'), __import__('types'), __import__('traceback'), __import__('itertools'), ` +
	`[(c, fa, aa, sk) for mn, cn, fa, aa, sk in ` + heldCallables + ` ` +
	`for c in [__import__('builtins').getattr(__import__('sys').modules.get(mn), '__dict__', {}).get(cn)] if c is not None], ` +
	// G: a slot's value, none when it is not set (a member descriptor
	// raises AttributeError then, and TypeError for an object of another
	// class, when a class holds another's: a lambda cannot catch them)
	`(lambda ns: exec('def g(n, m, o):\n    try:\n        return [(n, m.__get__(o))]\n    except Exception:\n        return []', ns) or ns['g'])({}), ` +
	// L: a log record's message as getMessage makes it, msg % args, when
	// it is logging's own LogRecord, its msg a str (no width of five
	// digits or more, no *) and its args a tuple, or a dict keyed by str,
	// of at most 64 plain values: str % them runs no code of the
	// program's. None when it raises.
	`(lambda ns: exec('def m(o, b):\n' ` +
	`'    L = b.getattr(__import__("sys").modules.get("logging"), "__dict__", {}).get("LogRecord")\n' ` +
	`'    if L is None or b.type(o) is not L:\n        return []\n' ` +
	`'    msg, args = o.__dict__.get("msg"), o.__dict__.get("args")\n' ` +
	`'    vs = b.list(args.values()) if b.type(args) is b.dict and b.all(b.type(k) is b.str for k in args) else args if b.type(args) is b.tuple else None\n' ` +
	`'    if b.type(msg) is not b.str or b.len(msg) > 4096 or "*" in msg or not vs or b.len(vs) > 64:\n        return []\n' ` +
	`'    if b.any(msg[i:i + 5].isdigit() for i in b.range(b.len(msg))):\n        return []\n' ` +
	`'    if not b.all(b.any(b.type(v) is y for y in (b.str, b.bytes, b.int, b.float, b.bool, b.type(None))) and not (b.any(b.type(v) is y for y in (b.str, b.bytes)) and b.len(v) > 16384) for v in vs):\n        return []\n' ` +
	`'    try:\n        return [msg % args]\n    except Exception:\n        return []', ns) or ns['m'])({}))`

// heldCallables are the classes, of Python's own modules, whose objects
// hold a callable and the positional arguments it will be called with:
// (module, class, the callable's attribute, the arguments', the
// parameters the call fills before them: a partialmethod's function
// takes self first). A module the program has not imported has none; the
// classes are read from the modules' own dicts (no module __getattr__ of
// theirs runs).
const heldCallables = `(('functools', 'partial', 'func', 'args', 0), ('functools', 'partialmethod', 'func', 'args', 1), ` +
	`('threading', 'Thread', '_target', '_args', 0), ('threading', 'Timer', 'function', 'args', 0), ` +
	`('asyncio.events', 'Handle', '_callback', '_args', 0), ('asyncio.events', 'TimerHandle', '_callback', '_args', 0), ` +
	`('concurrent.futures.thread', '_WorkItem', 'fn', 'args', 0), ('sched', 'Event', 'action', 'argument', 0), ` +
	`('multiprocessing.context', 'Process', '_target', '_args', 0), ('multiprocessing.context', 'ForkProcess', '_target', '_args', 0), ` +
	`('multiprocessing.context', 'SpawnProcess', '_target', '_args', 0), ('multiprocessing.context', 'ForkServerProcess', '_target', '_args', 0))`

// heldTypes are the types (debugpy's names of them) of the values heldSeen
// reads, with exceptions (holdsOf); heldBy checks each object's exact
// type itself.
var heldTypes = map[string]bool{"function": true, "method": true, "partial": true, "partialmethod": true, "Thread": true,
	"Timer": true, "Handle": true, "TimerHandle": true, "_WorkItem": true, "Event": true, "Process": true,
	"ForkProcess": true, "SpawnProcess": true, "ForkServerProcess": true, "LogRecord": true}

// exceptionEnds are how the names of exception classes end, by Python's
// convention (PEP 8: an error's ends with Error) and its builtins'
// (SystemExit, KeyboardInterrupt, StopIteration, ExceptionGroup).
var exceptionEnds = []string{"Error", "Exception", "Warning", "Exit", "Interrupt", "Iteration", "Group"}

// holdsOf reports whether heldSeen reads v: a function, a partial, a
// thread and the like (heldTypes); an exception, known by its class's
// name (exceptionEnds) or by its repr, which begins with the class's
// name, as BaseException writes it (Unauthorized('...')) and as a class
// may write its own (<Denied ...>): an exception of a class named
// otherwise, kept in a list, showed the token it was raised with (found
// 2026-12-07). Not a record's repr (Point(x=1): a dataclass's, a
// namedtuple's, their fields named, which redact reads by name), nor a
// value of Python's own whose repr begins so (valueTypes): heldBy tells
// an exception by its class, and read, they would cost the stop's listing
// a request for nothing (docs/PERFORMANCE.md). An object of another class
// whose repr begins with its name is read for nothing.
func holdsOf(v variableView) bool {
	if heldTypes[v.Type] {
		return true
	}
	for _, end := range exceptionEnds {
		if strings.HasSuffix(v.Type, end) {
			return true
		}
	}
	if v.Type == "" || shownWhole[v.Type] || valueTypes[v.Type] || v.Type == "type" || v.Type == "module" {
		return false
	}
	rest, ok := strings.CutPrefix(strings.TrimPrefix(v.Value, "<"), v.Type)
	if !ok || rest != "" && isNameByte(rest[0]) {
		return false
	}
	args, ok := strings.CutPrefix(rest, "(")
	if !ok {
		return true
	}
	i := 0 // Point(x=...): a record, its first field named
	for i < len(args) && isNameByte(args[i]) && args[i] != '.' {
		i++
	}
	return i == 0 || '0' <= args[0] && args[0] <= '9' || !strings.HasPrefix(args[i:], "=") || strings.HasPrefix(args[i:], "==")
}

// valueTypes are types of Python's own whose repr begins with their name
// (Decimal('1.5'), PosixPath('/tmp')), that are no exceptions.
var valueTypes = map[string]bool{"Decimal": true, "Fraction": true, "UUID": true, "PosixPath": true, "PurePosixPath": true,
	"WindowsPath": true, "PureWindowsPath": true, "IPv4Address": true, "IPv6Address": true, "IPv4Network": true,
	"IPv6Network": true, "IPv4Interface": true, "IPv6Interface": true, "array": true, "namespace": true}

// isNameByte reports whether c can go on a Python name (ASCII; any byte
// of a non-ASCII letter's UTF-8 spelling) or a dotted one.
func isNameByte(c byte) bool {
	return c == '_' || c == '.' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80
}

// heldByReference reads what the objects of reads hold (heldBy), each
// under its name, and their attributes too for those read whole:
// pydevd's registry resolves a variables reference to the object it showed
// (BaseSchema's map of references to ids, then the suspended frames'
// variables). A reference it no longer holds is left out.
func heldByReference(reads []heldRead) string {
	var b strings.Builder
	b.WriteString(`(lambda b, H, S, M, refs: ` + heldLines + `([p for k, r, w in refs for o in [S._dap_id_to_obj_id.get(r)] if o is not None ` +
		`for t in [M._get_tracker_for_variable_reference(o)] if t is not None for p in H(k, b.getattr(t.get_variable(o), 'value', None), w)]))` +
		`(__import__('builtins'), ` + heldBy + `, __import__('sys').modules['_pydevd_bundle._debug_adapter.pydevd_base_schema'].BaseSchema, ` +
		`__import__('sys').modules['pydevd'].get_global_debugger().suspended_frames_manager, [`)
	for _, r := range reads {
		whole := "False"
		if r.whole {
			whole = "True"
		}
		fmt.Fprintf(&b, "(%s, %d, %s), ", pyrepr.Repr(r.name), r.ref, whole)
	}
	b.WriteString("])")
	return b.String()
}

// heldLines is a Python function (of b, builtins) of heldBy's pairs: a
// line each, the name's repr, the value's type and its repr (a repr has
// no raw line end), each name once. heldRows reads them back as rows, so
// the result phase judges each name as a row's: one dict's repr of them
// all was one line of escaped quotes as long as what they hold, which
// redact read as text (found 2026-12-07: 18 KB, read past its deadline,
// and a name past 256 bytes would not have been read as one).
const heldLines = `(lambda ps: '\n'.join(b.repr(k) + ' ' + b.type(v).__name__ + ' ' + b.repr(v) for k, v in b.dict(ps).items()))`

// heldRows are the rows of heldLines' lines: false when a line is not
// one.
func heldRows(text string) ([]variableView, bool) {
	if text == "" {
		return nil, true
	}
	var rows []variableView
	for line := range strings.SplitSeq(text, "\n") {
		l, ok := expressions.ReadLiteral(line, 0)
		if !ok || !l.Known || l.End >= len(line) || line[l.End] != ' ' {
			return nil, false
		}
		typ, value, ok := strings.Cut(line[l.End+1:], " ")
		if !ok || typ == "" || value == "" {
			return nil, false
		}
		rows = append(rows, variableView{Name: l.Value, Value: value, Type: typ})
	}
	return rows, true
}

// heldRead is an object heldSeen reads: its name, its variables
// reference, and whether its attributes are read too.
type heldRead struct {
	name  string
	ref   int
	whole bool
}

// maxHeld bounds the objects one read of heldSeen reads (one request,
// whose answer holds at most 1,024 values of an object read whole, each
// at most 16 KiB); more are read in more requests.
const maxHeld = 64

// heldSeen reads what the functions, methods, partials, threads and
// exceptions among trees hold (see above), and what the objects of whole
// hold and their attributes (heldBy), that l's stop has not read yet, for
// the result phase to learn; l, when not nil, keeps what was read for the
// stop, by variables reference. A read debugpy refuses is an error: what
// they hold would be shown unread (fail closed).
func (g *PolicyGate) heldSeen(ctx context.Context, s *dap.Session, frame int, l *stopList, whole []*variableView, trees ...[]variableView) ([]engine.Seen, error) {
	var reads []heldRead
	var seen []engine.Seen
	had := map[*engine.Learned]bool{} // kept reads, each handed once
	looked := map[int]bool{}
	use := func(v *variableView, all bool) {
		if v.VariablesReference <= 0 || looked[v.VariablesReference] {
			return
		}
		looked[v.VariablesReference] = true
		read, ok := l.keptHeld(v.VariablesReference, true)
		if !ok && !all {
			read, ok = l.keptHeld(v.VariablesReference, false)
		}
		if !ok {
			reads = append(reads, heldRead{cmp.Or(v.EvaluateName, v.Name), v.VariablesReference, all})
			return
		}
		for _, sn := range read {
			if !had[sn.Learned] {
				had[sn.Learned] = true
				seen = append(seen, sn)
			}
		}
	}
	for _, v := range whole {
		use(v, true)
	}
	var walk func(vs []variableView)
	walk = func(vs []variableView) {
		for i := range vs {
			if holdsOf(vs[i]) {
				use(&vs[i], false)
			}
			walk(vs[i].Children)
			walk(vs[i].dropped)
		}
	}
	for _, t := range trees {
		walk(t)
	}
	args, _ := json.Marshal(variablesArgs{Target: Target{Session: s.Name()}, FrameID: frame})
	for len(reads) > 0 {
		n := min(len(reads), maxHeld)
		rctx, cancel := g.ts.rctx(ctx)
		body, err := s.Peek(rctx, heldByReference(reads[:n]), frame, "clipboard")
		cancel()
		if err != nil {
			return nil, fmt.Errorf("reading what %d of its values hold: %w", n, err)
		}
		var read []engine.Seen
		held, ok := unrepr(body.Result)
		rows, lines := heldRows(held)
		switch {
		case !ok:
			return nil, fmt.Errorf("reading what %d of its values hold: debugpy answered %.100q, not a str", n, body.Result)
		case !lines:
			return nil, fmt.Errorf("reading what %d of its values hold: debugpy answered %.100q, not lines of names and values", n, held)
		case len(rows) > 0:
			read = []engine.Seen{{Tool: listing, Category: Read, Arguments: args, Learned: &engine.Learned{},
				Structured: variablesResult{FrameID: frame, Variables: rows}}}
		}
		for _, r := range reads[:n] {
			l.keepHeld(r.ref, r.whole, read)
		}
		seen = append(seen, read...)
		reads = reads[n:]
	}
	return seen, nil
}

// keptHeld is what heldSeen read of the object of ref at l's stop, its
// attributes too when whole; false when it was not read so (or l is nil:
// no stop kept).
func (l *stopList) keptHeld(ref int, whole bool) ([]engine.Seen, bool) {
	if l == nil {
		return nil, false
	}
	return l.kept(&l.shown, heldKey(ref, whole))
}

// keepHeld keeps what heldSeen read of the object of ref for l's stop; a
// read of its attributes too is a read of what it holds.
func (l *stopList) keepHeld(ref int, whole bool, read []engine.Seen) {
	if l != nil {
		l.keep(&l.shown, heldKey(ref, false), read)
		if whole {
			l.keep(&l.shown, heldKey(ref, true), read)
		}
	}
}

// heldKey names a read of heldSeen in stopList.shown.
func heldKey(ref int, whole bool) string {
	if whole {
		return "object ref " + strconv.Itoa(ref)
	}
	return "held ref " + strconv.Itoa(ref)
}
