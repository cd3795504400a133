package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	godap "github.com/google/go-dap"

	"github.com/debugpy-guard/debugpy-guard/dap"
	"github.com/debugpy-guard/debugpy-guard/engine"
	"github.com/debugpy-guard/debugpy-guard/internal/pyrepr"
	"github.com/debugpy-guard/debugpy-guard/plugins"
	"github.com/debugpy-guard/debugpy-guard/policies/expressions"
)

// The secrets of a stop. A secret is masked once a result has shown it
// under its name (the result phase hands it to the host). An agent that
// reads it first through an innocent name (alias = password; a print of a
// secret-named global; an exception's text) would get it in clear, so the
// gate lists the locals and globals of the frame the call reads (the
// stopped frame, or the one its frame_id names) itself, and those of the
// other frames of its stack (a secret passed down: send(db_password) to
// def send(t)), and the result phase reads that listing before the call's
// own result (engine.Seen;
// docs/SECURITY.md, "secrets by value"). A listing runs the variables'
// __repr__ in the program, as a debugger's own view of a stop does.
//
// A call with code (an evaluate, a set_variable) gets the listing before
// it is decided (engine.ToolCall.Listing), so that its call phase knows
// which names hold a secret (derived.holders): code that would copy a part
// of one to another name is denied before it runs, where its result alone
// could be withheld after. The listing is the gate's own read, whatever
// the call carries; the paths the call's code names are read only for a
// call that may run (beforeRun).
//
// Each stop is listed once, when a call first needs it, and every call
// that needs it hands it to the result phase: the first learns it, a call
// that came at the same time waits for that (it must not show its result
// before the secrets are known), later ones find it learned
// (engine.Learned: a large listing took a module ~1 s to read). Not sooner:
// a listing started in the background as soon as the session stopped held
// up the next continue by ~40 ms when it came before the listing was done
// (pydevd serves a stopped thread's requests on its poll), and a run of
// steps needs no listing (docs/PERFORMANCE.md).

// readsValues are the tools whose results can carry the program's values:
// an innocent name's, what the program printed, a literal of its source
// (DEFAULT = "..." then connect(DEFAULT) to def connect(db_password): the
// source showed the password in clear until a listing had shown
// db_password). The listing of their session's stop is read before they
// run.
var readsValues = map[string]bool{
	"debugpy_evaluate": true, "debugpy_set_variable": true, "debugpy_variables": true,
	"debugpy_output": true, "debugpy_exception_info": true, "debugpy_source": true,
}

// atTheStop are the tools of readsValues whose result is made at the stop
// (its frame, its thread's exception) with values no module reads by name:
// one made at a later stop than the one listed is withheld (gate.go). A
// listing is read by name itself, and output comes from any frame.
var atTheStop = map[string]bool{"debugpy_evaluate": true, "debugpy_set_variable": true, "debugpy_exception_info": true}

// listedFirst are the tools, besides readsValues, whose call phase is told
// the stop's holders (beforeDecision): a breakpoint's code runs at each hit,
// and a person who approves a condition or a log message that reads part
// of a name holding a secret where the program is stopped is told so.
var listedFirst = map[string]bool{"debugpy_set_breakpoint": true}

// listing is the tool whose results the listings are.
const listing = "debugpy_variables"

// stopList is the listing of one stop. seen and err are written before
// done is closed.
type stopList struct {
	gen  uint64
	done chan struct{}
	seen []engine.Seen
	err  error

	mu sync.Mutex
	// parents holds what pathsSeen found of each parent it looked at, by
	// path: its opening, learned once, or nil for one with nothing to
	// open. Each of the agent's reads of a child (zlines[3], zlines[4] ...)
	// opened the parent again: 7 ms a call (docs/PERFORMANCE.md).
	parents map[string][]engine.Seen
	// shown holds what shownSeen read for the stop (shown.go): each value
	// a result showed cut short, opened, by its variables reference and
	// path (shownKey: "ref N PATH"); a container's children listed by its
	// reference ("children ref N PATH"); a function's source ("source
	// FILE:LINE"); what heldSeen read of an object (held.go: "held ref N",
	// and "object ref N" for one read whole). Each kind's word comes
	// first: the keys do not meet.
	shown map[string][]engine.Seen
}

// When a call's listings are read (stopsSeen).
type moment int

const (
	// beforeDecision: the listing of the stop the call reads, for the
	// call phase (engine.ToolCall.Listing); not the paths its code names,
	// which are read only for a call that may run.
	beforeDecision moment = iota
	// beforeRun: that listing again (read once a stop), and the paths.
	beforeRun
	// afterRun: every session's stop that carries an exception's text.
	afterRun
)

// stopsSeen returns the listings a call's result phase must read. Before
// the call (beforeDecision, beforeRun): its session's stop, when the call
// reads values (readsValues). After it: every session's stop that carries
// an exception's text, which every result that shows a stop shows (a step,
// a launch, the status, the list of sessions). Nothing is listed when no
// module reads a variables result (the config has no result phase for
// it). A listing that failed is an error (fail closed: what it would have
// masked is unknown), and the next call lists the stop again.
func (g *PolicyGate) stopsSeen(ctx context.Context, call Call, when moment) ([]engine.Seen, error) {
	var sessions []*dap.Session
	own := when != afterRun
	if own {
		if !readsValues[call.Tool] && !(when == beforeDecision && listedFirst[call.Tool]) {
			return nil, nil
		}
		if call.Debug == nil {
			return nil, nil // the call says so itself
		}
		sessions = []*dap.Session{call.Debug}
	} else {
		sessions = g.sessions.All()
	}
	var seen []engine.Seen
	var errs []error
	asked := false // whether a module reads listings: asked once, when a stop needs listing
	for _, s := range sessions {
		_, last := s.Stops()
		if last == nil || !own && last.Text == "" {
			continue
		}
		if !asked {
			if !g.gate.Learns(listing) {
				return nil, nil
			}
			asked = true
		}
		frame := last.FrameID
		if own {
			frame = callFrame(call, s) // a caller's frame: what the call reads
		}
		k := listKey{s, frame}
		l := g.listing(k, last)
		select {
		case <-l.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if l.err != nil {
			g.mu.Lock()
			if g.lists[k] == l {
				delete(g.lists, k)
			}
			g.mu.Unlock()
			g.ts.log.Warn("a frame's variables could not be read for the secrets they hold", "session", s.Name(), "frame", frame, "err", l.err)
			errs = append(errs, fmt.Errorf("session %s: %w", s.Name(), l.err))
			continue
		}
		seen = append(seen, l.seen...)
		if when == beforeRun {
			paths, err := g.pathsSeen(ctx, s, frame, call.Derived, l)
			if err != nil {
				errs = append(errs, fmt.Errorf("session %s: %w", s.Name(), err))
			}
			seen = append(seen, paths...)
		}
	}
	return seen, errors.Join(errs...)
}

// Bounds of openHiding: how deep below a frame's names it opens values,
// and how many it opens (each a round trip to debugpy). A value past them
// is not opened, and a secret it hides is not learned (docs/SECURITY.md,
// "What it cannot promise"). Depth costs nothing past the budget: the
// same 64 values are opened, deeper ones among them. At 512 values, the
// first read after each stop of a pandas program took 2.7 s, not 0.45
// (docs/PERFORMANCE.md, "Opening more values, measured and not kept").
const (
	maxOpenDepth = 6
	maxOpen      = 64
)

// opening is a set of rows whose values openHiding opens, within a budget
// of its own: a frame's names (maxOpen), its stack's others' (maxOpenStack).
type opening struct {
	vs     []variableView
	budget int
}

// openHiding lists, for the result phase to learn, the children of each
// variable whose shown value hides what it holds, and theirs in turn, to
// maxOpenDepth levels and each set's budget of containers (opened level
// by level, all sets together): a value debugpy showed cut
// short (a dict by its first 15 items: a secret under its name past them,
// env['DB_PASSWORD'] of a dict of 20, was never seen, so an alias of it,
// conn_arg = env['DB_PASSWORD'], was shown in clear), an object, whose
// repr shows what its class chose (header = self.api_key, in a method,
// showed the key: <app.Client object at 0x...>), and a module of the
// program's own (hides). A value debugpy cannot list
// (an error response) is left out, as it would be from a listing the
// agent asks for.
func openHiding(ctx context.Context, s *dap.Session, max int, sets ...opening) error {
	// Both rounds walk the same values: each is judged once (hides asks
	// the file system of a module's file).
	judged := map[*variableView]bool{}
	hiding := func(c *variableView) bool {
		h, ok := judged[c]
		if !ok {
			h = c.VariablesReference > 0 && hides(s, *c)
			judged[c] = h
		}
		return h
	}
	opened := map[*variableView]bool{}
	// Two rounds, each level by level: first the first value of each type
	// under each parent, then the others, the second of each before a
	// third of any (diverse). Taken in order, a list of 100 users' objects
	// took the budget, and settings.db, beside them, was never opened; 70
	// objects of one type among a module's names took it at the first
	// level, and settings.db, a level below, was never opened. Each set
	// has a budget of its own, and its levels are opened with the others'.
	used := make([]int, len(sets)) // values opened, of each set's budget
	for _, first := range []bool{true, false} {
		levels := make([][]*variableView, len(sets))
		for i, set := range sets {
			levels[i] = []*variableView{{Children: set.vs}}
		}
		for d := 0; d < maxOpenDepth; d++ {
			var all []*variableView
			for i, level := range levels {
				var next, pick []*variableView
				rank := map[*variableView]int{} // among its parent's children of its type
				for _, p := range level {
					of := map[string]int{}
					for j := range p.Children {
						if c := &p.Children[j]; hiding(c) {
							rank[c] = of[c.Type]
							of[c.Type]++
							next = append(next, c)
							if !opened[c] && (!first || rank[c] == 0) {
								pick = append(pick, c)
							}
						}
					}
				}
				levels[i] = next
				pick = diverse(pick, rank, sets[i].budget-used[i])
				used[i] += len(pick)
				for _, v := range pick {
					opened[v] = true
				}
				all = append(all, pick...)
			}
			if len(all) == 0 {
				continue
			}
			for _, err := range open(ctx, s, all, max) {
				if err != nil && !errors.As(err, new(*dap.ResponseError)) {
					return err
				}
			}
		}
	}
	return nil
}

// shownByLength picks the rows whose bytes readBytes reads: each value
// debugpy showed by its type and length alone (<bytearray, len() = 20>: it
// shows no more of a bytearray past 15 bytes, and lists none of its bytes
// as children), and each memoryview (<memory at 0x...>, whose bytes its
// listing shows under an attribute, obj, not a secret's name), for the
// result phase to learn: the value's row shows what bytes() of it shows,
// b'...'. Unread, str() of an alias of a secret-named bytearray showed its
// bytes in clear, and so did mv.obj of a memoryview's (found 2026-12-06).
// A stop reads at most maxOpen of them, of at most maxShownByLength bytes
// each and maxShownBytes together, in all the frames it lists: the counts
// are the stop's (one shownByLength), the rows a frame's (pick), since a
// frame's rows are read in that frame.
type shownByLength struct {
	rows, total int // picked so far, and the bytes they may hold
}

// pick returns the rows of vs, their children's included, to read, within
// what is left of the stop's bounds.
func (b *shownByLength) pick(vs []variableView) []*variableView {
	var rows []*variableView
	var walk func(vs []variableView)
	walk = func(vs []variableView) {
		for i := range vs {
			v := &vs[i]
			if b.rows < maxOpen && plainPath(v.EvaluateName) {
				size := -1
				if v.Type == "memoryview" && strings.HasPrefix(v.Value, "<memory at ") {
					size = maxShownByLength // at most: its size is checked in the debuggee
				} else if n, ok := ctypesText(v.Type); ok && n <= maxShownByLength {
					size = n
				} else if n, ok := plugins.ShownByLength(v.Value); ok && n <= maxShownByLength {
					size = int(n)
				}
				if size >= 0 && b.total+size <= maxShownBytes {
					rows = append(rows, v)
					b.rows, b.total = b.rows+1, b.total+size
				}
			}
			walk(v.Children)
		}
	}
	walk(vs)
	return rows
}

// ctypesText reports whether typ is the name ctypes gives an array of
// characters or bytes (c_char * 16: c_char_Array_16; a buffer of
// create_string_buffer or create_unicode_buffer), and the bytes it holds at
// most. Its repr shows none of them (<ctypes.c_char_Array_16 object at
// 0x...>), its index a byte: buf[0], buf[1] ... showed a secret a byte at
// a time (found 2026-12-07).
func ctypesText(typ string) (size int, ok bool) {
	elem, n, ok := strings.Cut(typ, "_Array_")
	if !ok {
		return 0, false // most
	}
	width := 0
	switch elem {
	case "c_char", "c_byte", "c_ubyte":
		width = 1
	case "c_wchar":
		width = 4
	}
	count, err := strconv.Atoi(n)
	if width == 0 || err != nil || count < 0 || count > maxShownByLength {
		return 0, false
	}
	return count * width, true
}

// plainPath reports whether name, an evaluate name debugpy wrote for a row,
// is a path: names, attributes, and subscripts by constants (a.b['k'][0]),
// so that evaluating it runs no code but the reads debugpy's listing ran.
// debugpy writes an attribute's evaluate name from the attribute's name as
// it is, and a program can name one anything (setattr(o, key, v) from a
// request's fields): "x)+__import__('os').system('id')+(y" is no path.
func plainPath(name string) bool {
	if name == "" {
		return false
	}
	n, err := expressions.Parse(name)
	return err == nil && expressions.Path(n) != ""
}

// readBytes reads rows' bytes (shownByLength) in one evaluate, in frame,
// through the buffer (memoryview), with the builtins module's own names,
// as started reads the environment (one evaluate each took ~4 ms); when
// debugpy refuses it (one row's evaluate name raises), each alone. A value
// that cannot be read so (not a bytearray; what came back was cut) is left
// as debugpy showed it.
func readBytes(ctx context.Context, s *dap.Session, frame int, rows []*variableView) error {
	if len(rows) == 0 {
		return nil
	}
	names := make([]string, len(rows))
	for i, v := range rows {
		names[i] = v.EvaluateName
	}
	body, err := s.Peek(ctx, bytesExpr(names), frame, "clipboard")
	if err != nil && !errors.As(err, new(*dap.ResponseError)) {
		return err
	}
	// A str's repr, of a list's: [b'...', None, ...]. Anything else is
	// an error's text (debugpy answers one as a result in some contexts).
	l, ok := expressions.ReadLiteral(body.Result, 0)
	if err != nil || body.Type != "str" || !ok || !l.Known || l.End != len(body.Result) {
		if len(rows) > 1 {
			for _, v := range rows {
				if err := readBytes(ctx, s, frame, []*variableView{v}); err != nil {
					return err
				}
			}
		}
		return nil
	}
	list, ok := strings.CutPrefix(l.Value, "[")
	for i := 0; ok && i < len(rows); i++ {
		if i > 0 {
			list, ok = strings.CutPrefix(list, ", ")
		}
		if rest, none := strings.CutPrefix(list, "None"); ok && none {
			list = rest
			continue
		}
		item, read := expressions.ReadLiteral(list, 0)
		if ok = read && item.Known; ok {
			if !strings.Contains(list[item.BodyStart:item.BodyEnd], "...") { // not what a cut left of it
				rows[i].Value = list[:item.End]
			}
			list = list[item.End:]
		}
	}
	return nil
}

// bytesExpr is the Python that readBytes evaluates: the repr of a list of
// what each of names holds, as bytes (a str for an array of wide
// characters), or None.
func bytesExpr(names []string) string {
	var expr strings.Builder
	// A ctypes array is read when ctypes made its class (c_char * 16): its
	// metaclass, its one base and its class's names are ctypes' own, so
	// that its buffer and its slice are C's, no code of the program's (A:
	// its element type, or False).
	// A bytearray's class, a subclass too, is read by identity and by its
	// mro, not isinstance (which looks __class__ up on the object), and
	// its buffer is bytearray's own when no class before it defines
	// __buffer__ (Python 3.12 lets a class write its own).
	fmt.Fprintf(&expr, "(lambda b, C, *vs: (lambda A: b.repr([b.bytes(b.memoryview(v)) if b.issubclass(b.type(v), b.bytearray) "+
		"and b.next((m for m in b.type.__dict__['__mro__'].__get__(b.type(v)) if '__buffer__' in b.type.__dict__['__dict__'].__get__(m)), b.bytearray) is b.bytearray "+
		"and b.bytearray.__len__(v) <= %[1]d or b.type(v) is b.memoryview and v.nbytes <= %[1]d "+
		"else v[:] if C is not None and A(v) is C.c_wchar and b.len(v) <= %[1]d "+
		"else b.bytes(b.memoryview(v)) if C is not None and (A(v) is C.c_char or A(v) is C.c_byte or A(v) is C.c_ubyte) and b.len(v) <= %[1]d "+
		"else None for v in vs]))("+
		"lambda v: (lambda t, n: C is not None and b.type(t) is b.type(C.Array) and (lambda bs: b.len(bs) == 1 and bs[0] is C.Array)(b.type.__dict__['__bases__'].__get__(t)) "+
		"and b.all(b.type(k) is b.str and k in n for k in b.type.__dict__['__dict__'].__get__(t)) "+
		"and b.type.__dict__['__dict__'].__get__(t)['_type_'])(b.type(v), {'_length_', '_type_', '__module__', '__dict__', '__weakref__', '__doc__', 'raw', 'value'})))"+
		"(__import__('builtins'), __import__('sys').modules.get('ctypes')", maxShownByLength)
	for _, name := range names {
		expr.WriteString(", (" + name + ")")
	}
	expr.WriteString(")")
	return expr.String()
}

// maxShownByLength bounds the bytes of a value readBytes reads, and
// maxShownBytes those of all it reads at a stop: a key in PEM is ~3 KB; a
// buffer of megabytes is no secret, and would make the one evaluate, and
// its answer, as long.
const (
	maxShownByLength = 16 << 10
	maxShownBytes    = 64 << 10
)

// diverse picks at most n of vs, lowest rank first, in their order
// otherwise.
func diverse(vs []*variableView, rank map[*variableView]int, n int) []*variableView {
	if len(vs) <= n {
		return vs
	}
	out := slices.Clone(vs)
	slices.SortStableFunc(out, func(a, b *variableView) int { return cmp.Compare(rank[a], rank[b]) })
	return out[:n]
}

// programModule reports whether shown is the repr of a module whose file
// is the session's: one of the program's own, its settings say
// (<module 'settings' from '/app/settings.py'>; conn_arg =
// settings.DB_PASSWORD showed the password). Not the standard library's,
// nor a site package's: they hold no secrets of the program's, and list
// hundreds of names.
func programModule(s *dap.Session, shown string) bool {
	const from = " from "
	if !strings.HasPrefix(shown, "<module ") || !strings.HasSuffix(shown, ">") {
		return false
	}
	i := strings.LastIndex(shown, from)
	if i < 0 {
		return false
	}
	l, ok := expressions.ReadLiteral(shown, i+len(from))
	return ok && l.Known && l.End == len(shown)-1 && s.Owns(realPath(l.Value))
}

// programClass reports whether shown is the repr of a class of the
// program's own: of its main script (<class '__main__.Settings'>) or of a
// module of its own (<class 'conf.Config'>, conf.py beside the program:
// k = Config.SECRET_KEY showed the key in clear, found 2026-12-06).
func programClass(s *dap.Session, shown string) bool {
	name, pre := strings.CutPrefix(shown, "<class '")
	name, suf := strings.CutSuffix(name, "'>")
	return pre && suf && (strings.HasPrefix(name, "__main__.") || s.ProgramModule(name))
}

// hides reports whether v's shown value may hide what v holds: a value
// cut short; an object, whose class writes its repr as it likes (a
// dataclass's field(repr=False) is not in it, <Conn db> shows nothing, nor
// does the default <app.Client object at 0x...>); a container whose repr
// shows such an object's ([<Client tok-...>]: debugpy shows an object's
// repr of at most 30 characters whole in a container; its token, held in
// the object's _token, showed in clear, found 2026-12-07); a module of the
// program's own; a class of its own (programClass: its attributes). And
// debugpy's rows that group a frame's classes, or an object's _protected
// attributes. Not a container shown whole that shows literals only, a
// number or a string, another module, another class.
func hides(s *dap.Session, v variableView) bool {
	switch {
	case groups[v.Name]: // debugpy's group rows: a frame's classes, an object's _protected attributes
		return v.Name == "class variables" || v.Name == "protected variables"
	case plugins.CutShort(v.Value):
		return true
	case v.Type == "module":
		return programModule(s, v.Value)
	case v.Type == "type":
		return programClass(s, v.Value) // the program's own class (Settings.SECRET_KEY)
	case displays[v.Type]:
		return !literalsOnly(v.Value)
	}
	return !shownWhole[v.Type]
}

// displays are the types of shownWhole whose repr shows their items'.
var displays = map[string]bool{
	"list": true, "tuple": true, "dict": true, "set": true, "frozenset": true,
	"OrderedDict": true, "defaultdict": true, "deque": true, "Counter": true,
}

// literalWords are the words a repr of literals shows outside its strings:
// True, False, None, floats' inf and nan (and a number's e and j), and the
// containers' own names and arguments (deque([...], maxlen=3)).
var literalWords = map[string]bool{
	"True": true, "False": true, "None": true, "inf": true, "nan": true, "infj": true, "nanj": true,
	"e": true, "j": true, "Ellipsis": true, "set": true, "frozenset": true,
	"OrderedDict": true, "defaultdict": true, "deque": true, "Counter": true, "maxlen": true,
}

// literalsOnly reports whether shown, a container's repr, shows nothing
// but strings, bytes, numbers, True, False, None and containers of them
// (and a builtin class, a defaultdict's factory: <class 'list'>): no
// object's repr, nor a class of a module's.
func literalsOnly(shown string) bool {
	for i := 0; i < len(shown); {
		c := shown[i]
		switch {
		case c == '\'' || c == '"' || isLetter(c):
			if l, ok := expressions.ReadLiteral(shown, i); ok {
				i = l.End
				continue
			}
			if c == '\'' || c == '"' {
				return false
			}
			j := i
			for j < len(shown) && (isLetter(shown[j]) || '0' <= shown[j] && shown[j] <= '9' || shown[j] == '_') {
				j++
			}
			if !literalWords[shown[i:j]] {
				return false
			}
			i = j
		case '0' <= c && c <= '9' || strings.IndexByte(" \n[](){},:=+-.", c) >= 0:
			i++
		case strings.HasPrefix(shown[i:], "<class '"): // a builtin class's; a program's (__main__.Settings) holds its attributes
			end := strings.Index(shown[i:], "'>")
			if end < 0 || strings.IndexByte(shown[i:i+end], '.') >= 0 {
				return false
			}
			i += end + 2
		default:
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' }

// shownWhole are the types whose repr shows all they hold (unless it is
// cut short), by the names debugpy gives them.
var shownWhole = map[string]bool{
	"list": true, "tuple": true, "dict": true, "set": true, "frozenset": true, "str": true, "bytes": true, "bytearray": true,
	"int": true, "float": true, "complex": true, "bool": true, "NoneType": true, "range": true,
	"OrderedDict": true, "defaultdict": true, "deque": true, "Counter": true,
	"function": true, "method": true, "builtin_function_or_method": true,
}

// maxPaths bounds the reads of one call's paths: each is a round trip to
// debugpy.
const maxPaths = 32

// pathsSeen reads whole, in frame, each path the call's expressions read
// other than whole (expressions.PartPaths: m.modules['__main__'].alias in
// m.modules['__main__'].alias[1:]), as a listing of one variable named by
// the path. A frame's listing shows its names, not what is reached through
// them; a path whose value shows a secret of the session is then a holder
// (derived.holders), and the result of code that reads it in part is
// withheld. Not cached: paths are the call's. A path debugpy cannot read
// (an AttributeError) is left out: the code reading it fails the same way.
// A read runs the path's properties once more, as the code itself does.
// Code that reads more than maxPaths paths in part does not run.
//
// And it opens each parent of what the code reads (expressions.Parents:
// zlines in zlines[3]) that the stop's listing (l) did not open and whose
// shown value hides what it holds (hides), its children only (the parent
// of a child's child is opened as a parent too: zlines[3] in
// zlines[3][0]), for the result phase to read a child the code reads with
// its siblings. The listing opens maxOpen values a stop; past them, a
// private key's lines in a list showed one by one, zlines[3], zlines[4]
// ..., each a line of base64 that no mask reads alone (found 2026-12-07).
// A parent the listing shows is not read again; one it does not show (a
// path, a name of no scope listed) is read as a path is, once for both.
// What was found of each parent is kept for the stop (l.parents).
func (g *PolicyGate) pathsSeen(ctx context.Context, s *dap.Session, frame int, d *engine.Derived, l *stopList) ([]engine.Seen, error) {
	if d == nil {
		return nil, nil
	}
	read := map[string]*variableView{} // the paths read, nil for one debugpy could not read
	reads := 0
	var bytesRead shownByLength // the call's
	readWhole := func(c engine.Code, path string) (*variableView, error) {
		if v, ok := read[path]; ok {
			return v, nil
		}
		if reads++; reads > maxPaths {
			return nil, fmt.Errorf("its %s reads more than %d paths the listing does not show, each read whole first (%s, ...): split it", c.Argument, maxPaths, path)
		}
		rctx, cancel := g.ts.rctx(ctx)
		body, err := s.Evaluate(rctx, path, frame, "watch")
		cancel()
		if errors.As(err, new(*dap.ResponseError)) {
			read[path] = nil
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s whole: %w", path, err)
		}
		vs := []variableView{{Name: path, Value: body.Result, Type: body.Type, EvaluateName: path, VariablesReference: body.VariablesReference}}
		v := &vs[0]
		// A buffer's bytes, as the stop's listing reads its names' (h.mv,
		// a memoryview under an attribute: h.mv[0], h.mv[1] ... showed a
		// secret a byte at a time, found 2026-12-07).
		if err := readBytes(ctx, s, frame, bytesRead.pick(vs)); err != nil {
			return nil, fmt.Errorf("reading %s whole: %w", path, err)
		}
		read[path] = v
		return v, nil
	}
	args, _ := json.Marshal(variablesArgs{Target: Target{Session: s.Name()}, FrameID: frame})
	var wholes, parents []variableView
	var seen []engine.Seen
	looked := map[string]bool{}
	for _, c := range d.Code {
		if c.Kind != "expression" {
			continue
		}
		paths := expressions.PartPaths(c.Text)
		if len(paths) > maxPaths {
			return nil, fmt.Errorf("its %s reads %d paths in part (%s, ...), more than the %d read whole first: split it", c.Argument, len(paths), paths[0], maxPaths)
		}
		for _, path := range paths {
			v, err := readWhole(c, path)
			if err != nil {
				return nil, err
			}
			if v != nil {
				wholes = append(wholes, variableView{Name: path, Value: v.Value, Type: v.Type})
			}
		}
		for _, path := range expressions.Parents(c.Text) {
			if looked[path] {
				continue
			}
			looked[path] = true
			if opened, known := l.kept(&l.parents, path); known {
				seen = append(seen, opened...)
				continue
			}
			v, shown := listedRow(l.seen, path)
			if !shown {
				r, err := readWhole(c, path)
				if err != nil {
					return nil, err
				}
				if r == nil { // debugpy cannot read it: the code fails the same way
					l.keep(&l.parents, path, nil)
					continue
				}
				v = *r
			}
			if v.VariablesReference > 0 && v.Children == nil && hides(s, v) { // not shown whole, nor opened
				parents = append(parents, variableView{Name: path, Value: v.Value, Type: v.Type, EvaluateName: path, VariablesReference: v.VariablesReference})
			} else {
				l.keep(&l.parents, path, nil)
			}
		}
	}
	if len(parents) > 0 {
		level := make([]*variableView, len(parents))
		for i := range parents {
			level[i] = &parents[i]
		}
		if err := g.openAll(ctx, s, level); err != nil {
			return nil, err
		}
		// Learned first, and with no holders' names: a parent is opened
		// for its children's secrets. Named, os.environ, opened for
		// os.environ['HOME'][1:], held the database's URL, and every
		// part of any of its values was withheld.
		for _, p := range parents {
			var opened []engine.Seen
			for _, part := range parts([]variableView{p}, maxLearn) {
				opened = append(opened, engine.Seen{Tool: listing, Category: Read, Arguments: args,
					Structured: variablesResult{FrameID: frame, Variables: part}, Learned: &engine.Learned{}})
			}
			l.keep(&l.parents, p.Name, opened)
			seen = append(seen, opened...)
		}
	}
	for _, v := range wholes {
		seen = append(seen, engine.Seen{Tool: listing, Category: Read, Arguments: args,
			Structured: variablesResult{FrameID: frame, Variables: []variableView{v}}, Values: map[string]string{v.Name: v.Value}})
	}
	// What the functions among them hold (held.go): a thread the code
	// reads the arguments of, svc.worker._args[0].
	var readRows []variableView
	for _, v := range read {
		if v != nil {
			readRows = append(readRows, *v)
		}
	}
	held, err := g.heldSeen(ctx, s, frame, l, nil, readRows, parents)
	if err != nil {
		return nil, err
	}
	return append(seen, held...), nil
}

// openAll opens each of level, all its children, for the result phase to
// learn: at most 500, all debugpy lists of a container. One debugpy cannot
// list (an error it answers) is left unopened.
func (g *PolicyGate) openAll(ctx context.Context, s *dap.Session, level []*variableView) error {
	rctx, cancel := g.ts.rctx(ctx)
	defer cancel()
	for i, err := range open(rctx, s, level, 500) {
		if err != nil && !errors.As(err, new(*dap.ResponseError)) {
			return fmt.Errorf("opening %s: %w", level[i].Name, err)
		}
	}
	return nil
}

// kept is what keep kept in m at path, and whether it kept any.
func (l *stopList) kept(m *map[string][]engine.Seen, path string) ([]engine.Seen, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	read, ok := (*m)[path]
	return read, ok
}

// keep keeps in m (l.parents, l.shown) what was read at path for the stop.
func (l *stopList) keep(m *map[string][]engine.Seen, path string, read []engine.Seen) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if *m == nil {
		*m = map[string][]engine.Seen{}
	}
	(*m)[path] = read
}

// listedRow finds the row of path in a stop's listing: a name of its
// scopes (locals first, as Python looks a name up), or a value opened
// below one, by the name debugpy gives it to evaluate. shown is false when
// the listing does not show it.
func listedRow(listed []engine.Seen, path string) (row variableView, shown bool) {
	var find func(vs []variableView, top bool) (variableView, bool)
	find = func(vs []variableView, top bool) (variableView, bool) {
		for _, v := range vs {
			name := v.EvaluateName
			if top && name == "" {
				name = v.Name
			}
			if name == path {
				return v, true
			}
			if name != "" && strings.HasPrefix(path, name) && len(v.Children) > 0 {
				if r, ok := find(v.Children, false); ok {
					return r, true
				}
			}
		}
		return variableView{}, false
	}
	for _, sn := range listed {
		r, ok := sn.Structured.(variablesResult)
		if !ok || sn.Values == nil { // a scope's names; not the environment, nor the other frames'
			continue
		}
		if v, ok := find(r.Variables, true); ok {
			return v, true
		}
	}
	return variableView{}, false
}

// changesVariables reports whether call can bind a name of the stopped
// frame: a set_variable, or statements (x = alias in a repl). After it, the
// stop's listing is stale: a name just bound to a secret would not be known
// to hold one (derived.holders).
func changesVariables(call Call) bool {
	if call.Tool == "debugpy_set_variable" {
		return true
	}
	if call.Derived != nil {
		for _, c := range call.Derived.Code {
			if c.Kind == "statement" {
				return true
			}
		}
	}
	return false
}

// forget drops the listings of a session's stop.
func (g *PolicyGate) forget(s *dap.Session) {
	if s == nil {
		return
	}
	g.mu.Lock()
	for k := range g.lists {
		if k.s == s {
			delete(g.lists, k)
		}
	}
	g.mu.Unlock()
}

// listKey names a listing: a session's frame (its stop's top frame, or
// the frame a call names).
type listKey struct {
	s     *dap.Session
	frame int
}

// listing returns the listing of k's frame at the stop last, started now
// when there is none yet (in a goroutine, so that calls that need it at
// once share it).
func (g *PolicyGate) listing(k listKey, last *dap.Stop) *stopList {
	g.mu.Lock()
	defer g.mu.Unlock()
	l, known := g.lists[k]
	if known && l.gen == last.Gen {
		return l
	}
	if !known {
		for o, ol := range g.lists { // forget the sessions that ended, and the stops gone
			if cur, err := g.sessions.Get(o.s.Name()); err != nil || cur != o.s || o.s == k.s && ol.gen != last.Gen {
				delete(g.lists, o)
			}
		}
	}
	l = &stopList{gen: last.Gen, done: make(chan struct{})}
	g.lists[k] = l
	go func() { // bounded by the request timeout (listFrame)
		defer close(l.done)
		l.seen, l.err = g.listFrame(context.Background(), k.s, k.frame, l)
	}()
	return l
}

// launchedSeen is what a launch started its program with, for the result
// phase to learn as it learns a stop's reading of it (started): the
// environment the program inherits (the server's, with the launch's env on
// top) and its command line. A program prints before any stop is listed
// (one that never stops, or runs on from its entry stop): its secrets are
// known from the launch on.
func launchedSeen(call Call) engine.Seen {
	var a launchArgs
	json.Unmarshal(call.Arguments, &a) // the canonical arguments: they decode
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	maps.Copy(env, a.Env)
	var b strings.Builder
	b.WriteString("({")
	for i, k := range slices.Sorted(maps.Keys(env)) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(pyrepr.Repr(k) + ": " + pyrepr.Repr(env[k]))
	}
	b.WriteString("}, [")
	for i, arg := range append([]string{cmp.Or(a.Program, a.Module)}, a.Args...) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(pyrepr.Repr(arg))
	}
	b.WriteString("])")
	r := variablesResult{Variables: []variableView{{Name: "(os.environ, sys.argv)", Value: b.String(), Type: "tuple"}}}
	args, _ := json.Marshal(variablesArgs{Target: a.Target})
	return engine.Seen{Tool: listing, Category: Read, Arguments: args, Structured: r}
}

// started is how the listing reads what the process was started with, its
// environment and its command line, and what the frame's functions hold
// (held.go: heldBy, of the frame's names, locals over globals): the host's
// own code, run in the frame, in one request. Their reprs in one string, a
// line each (in the clipboard context, which does not cut a string short),
// not the mapping, whose repr debugpy cuts after 15 items and whose
// opening is a round trip more; through builtins, which a name of the
// program's (a global dict) does not shadow. At a stop on an exception,
// pydevd's __exception__ among the frame's locals, (type, exception,
// traceback), is read for what the exception holds, its attributes too
// (read whole): AuthError(token), raised with the token and nothing else
// holding it, showed it in the stop's text and in debugpy_exception_info,
// from its args or from its self.token through its __str__ (found
// 2026-12-07).
const started = "(lambda b, H, ns: b.repr((b.dict(b.__import__('os').environ), b.__import__('sys').argv)) + '\\n' + " +
	heldLines + "([p for k, f in ns for g in ([f[1]] if k == '__exception__' and b.type(f) is b.tuple and b.len(f) == 3 else [f]) " +
	"for p in H(k, g, g is not f)]))" +
	"(__import__('builtins'), " + heldBy + ", [*{**globals(), **locals()}.items()])"

// startedRows are the rows of what started read: the environment and
// command line, as debugpy shows a str (its repr), as if read alone; and
// what the frame's functions hold, a row each (heldRows). A result not
// read so (an error's text) is one row, as it came.
func startedRows(shown, typ string) []variableView {
	l, ok := expressions.ReadLiteral(shown, 0)
	env, held, two := strings.Cut(l.Value, "\n") // a repr has no raw line end
	rows, lines := heldRows(held)
	if !ok || !l.Known || l.End != len(shown) || typ != "str" || !two || !lines {
		return []variableView{{Name: "(os.environ, sys.argv)", Value: shown, Type: typ}}
	}
	return append([]variableView{{Name: "(os.environ, sys.argv)", Value: pyrepr.Repr(env), Type: typ}}, rows...)
}

// maxListed bounds the variables of a scope the listing reads. Every one
// is read, not the first 500 a person would look at: a secret's name past
// them (a module with a star import holds ~600 globals, numpy's) was never
// listed, so an innocent alias that sorts before it showed its value in
// clear. A scope with more is not read at all: the calls that need it
// fail closed.
const maxListed = 20000

// listFrame lists frame's locals and globals as debugpy_variables would
// (depth 1, all of them, at most maxListed each), those of the other
// frames of its stack (listStack), and the process's environment and
// command line, then opens what their values hide (openHiding). The
// second scopeRef is answered from the session's snapshot.
func (g *PolicyGate) listFrame(ctx context.Context, s *dap.Session, frame int, l *stopList) ([]engine.Seen, error) {
	ctx, cancel := g.ts.rctx(ctx)
	defer cancel()
	// The process's environment and command line, where a program's
	// secrets come from (conn_arg = os.environ["DB_PASSWORD"] showed the
	// password, as would sys.argv[2] after --password), read as the frame
	// reads them now (a .env loaded at run time included), while the
	// scopes are listed: one string that shows it all, whose pairs redact
	// reads as a repr inside a str's.
	type peeked struct {
		body godap.EvaluateResponseBody
		err  error
	}
	envc := make(chan peeked, 1)
	go func() {
		body, err := s.Peek(ctx, started, frame, "clipboard")
		envc <- peeked{body, err}
	}()
	// The names of the other frames of its stack: a secret passed down
	// under an innocent parameter's name (send(db_password) to def
	// send(t)) is a caller's to name, and one passed to a secret-named
	// parameter (connect(copy1) to def connect(password)) a callee's, for
	// a call that reads the caller; listed from the frame alone, t and
	// copy1 showed it in clear. Read while the frame's scopes are: their
	// requests share pydevd's polls.
	type listedStack struct {
		rows []scopeRows
		err  error
	}
	callc := make(chan listedStack, 1)
	go func() {
		rows, err := listStack(ctx, s, frame)
		callc <- listedStack{rows, err}
	}()
	var seen []engine.Seen
	for _, scope := range []string{"locals", "globals"} {
		ref, vs, err := listScope(ctx, s, frame, scope)
		if err != nil {
			return nil, err
		}
		a := variablesArgs{Target: Target{Session: s.Name()}, FrameID: frame, Scope: scope, MaxItems: maxListed}
		r := variablesResult{FrameID: frame, Scope: scope, VariablesReference: ref, Variables: vs}
		args, _ := json.Marshal(a)
		values := make(map[string]string, len(r.Variables))
		for _, v := range r.Variables {
			values[v.Name] = v.Value
		}
		seen = append(seen, engine.Seen{Tool: listing, Category: Read, Arguments: args, Structured: r, Values: values})
	}
	switch env := <-envc; {
	case env.err == nil:
		r := variablesResult{FrameID: frame, Variables: startedRows(env.body.Result, env.body.Type)}
		args, _ := json.Marshal(variablesArgs{Target: Target{Session: s.Name()}, FrameID: frame})
		seen = append(seen, engine.Seen{Tool: listing, Category: Read, Arguments: args, Structured: r})
	case !errors.As(env.err, new(*dap.ResponseError)):
		return nil, env.err
	}
	listed := <-callc
	if listed.err != nil {
		return nil, listed.err
	}
	others := listed.rows
	// All at once: a level's containers share one poll of the thread.
	var all, theirs []variableView
	for _, sn := range seen {
		all = append(all, sn.Structured.(variablesResult).Variables...)
	}
	for _, o := range others {
		theirs = append(theirs, o.vs...)
	}
	if err := openHiding(ctx, s, 500, opening{all, maxOpen}, opening{theirs, maxOpenStack}); err != nil {
		return nil, err
	}
	var bytesRead shownByLength // one budget for the stop's frames
	if err := readBytes(ctx, s, frame, bytesRead.pick(all)); err != nil {
		return nil, err
	}
	i := 0
	for _, sn := range seen { // the children opened, back in their scopes
		r := sn.Structured.(variablesResult)
		i += copy(r.Variables, all[i:i+len(r.Variables)])
	}
	i = 0
	for _, o := range others { // and in their frames, whose bytes are read there
		i += copy(o.vs, theirs[i:i+len(o.vs)])
		if err := readBytes(ctx, s, o.frame, bytesRead.pick(o.vs)); err != nil {
			return nil, err
		}
	}
	if len(theirs) > 0 {
		// One result of them all, learned together (a result each cost
		// the result phase a module call each), with no holders' names:
		// the call's code names the frame's names, not another frame's.
		var rows []variableView
		for _, o := range others {
			rows = append(rows, o.vs...)
		}
		args, _ := json.Marshal(variablesArgs{Target: Target{Session: s.Name()}, FrameID: frame, MaxItems: maxListed})
		seen = append(seen, engine.Seen{Tool: listing, Category: Read, Arguments: args, Structured: variablesResult{FrameID: frame, Variables: rows}})
	}
	var out []engine.Seen
	for _, sn := range seen { // learned a part at a time
		r := sn.Structured.(variablesResult)
		for _, part := range parts(r.Variables, maxLearn) {
			pr := r
			pr.Variables = part
			var values map[string]string // the scopes' names (holders); none for the environment, nor the other frames'
			if sn.Values != nil {
				values = make(map[string]string, len(part))
				for _, v := range part {
					values[v.Name] = v.Value
				}
			}
			out = append(out, engine.Seen{Tool: sn.Tool, Category: sn.Category, Arguments: sn.Arguments, Structured: pr, Values: values,
				Learned: &engine.Learned{}}) // every call of the stop reads it; it is learned once
		}
	}
	// What the functions among them hold (held.go): below the frame's
	// names, whose own values started has read, and in the other frames.
	var below []variableView
	for _, v := range all {
		below = append(below, v.Children...)
	}
	held, err := g.heldSeen(ctx, s, frame, l, nil, below, theirs)
	if err != nil {
		return nil, err
	}
	return append(out, held...), nil
}

// Bounds of listStack: the other frames of a frame's stack it lists,
// nearest first, and the values below their names openHiding opens
// (besides the frame's own maxOpen). A secret held further away is not
// learned (docs/SECURITY.md, "What it cannot promise").
const (
	maxStack     = 32
	maxOpenStack = 32
)

// listStack lists the locals of the other frames of frame's stack (its
// thread's) that are the program's own code (pydevd shows a library's
// frame as "subtle": the standard library's, a site package's), at most
// maxStack of them, nearest first (a caller and the frame it called, each
// as near, alike), and the globals of each of their modules other than
// frame's, as debugpy_variables would (depth 1). A frame debugpy cannot
// list (an error response) is left out, as it would be from a listing the
// agent asks for.
func listStack(ctx context.Context, s *dap.Session, frame int) ([]scopeRows, error) {
	stack, at, err := stackOf(ctx, s, frame)
	if err != nil || len(stack) < 2 {
		return nil, err
	}
	type scope struct {
		frame int
		name  string
	}
	var scopes []scope
	files := map[string]bool{sourcePath(stack[at]): true} // the frame's globals are listed already
	n := 0
	for d := 1; d < len(stack) && n < maxStack; d++ {
		for _, i := range []int{at - d, at + d} { // the callee, then the caller
			if i < 0 || i >= len(stack) || stack[i].PresentationHint == "subtle" || n == maxStack {
				continue // a library's frame: pydevd's own reading of the program's code
			}
			n++
			f := stack[i]
			p := sourcePath(f)
			if f.Name != "<module>" || p == "" { // a module's code: its locals are its globals
				scopes = append(scopes, scope{f.Id, "locals"})
			}
			if p != "" && !files[p] {
				files[p] = true
				scopes = append(scopes, scope{f.Id, "globals"})
			}
		}
	}
	rows := make([]scopeRows, len(scopes))
	errs := make([]error, len(scopes))
	var wg sync.WaitGroup
	for i := 0; i < len(scopes); {
		j := i + 1 // a frame's scopes are side by side: [i, j)
		for j < len(scopes) && scopes[j].frame == scopes[i].frame {
			j++
		}
		wg.Add(1)
		go func(i, j int) { // the frames at once; a frame's scopes in turn, the second from its scopes request's answer
			defer wg.Done()
			for k := i; k < j; k++ {
				rows[k].frame = scopes[k].frame
				_, rows[k].vs, errs[k] = listScope(ctx, s, scopes[k].frame, scopes[k].name)
			}
		}(i, j)
		i = j
	}
	wg.Wait()
	var out []scopeRows
	for k, err := range errs {
		switch {
		case err == nil:
			out = append(out, rows[k])
		case !errors.As(err, new(*dap.ResponseError)):
			return nil, err
		}
	}
	return out, nil
}

// listScope lists a frame's scope (locals or globals) as debugpy_variables
// would, depth 1, all of it: a scope of more than maxListed variables is
// not read, and the calls that need it fail closed.
func listScope(ctx context.Context, s *dap.Session, frame int, scope string) (ref int, vs []variableView, err error) {
	if ref, err = scopeRef(ctx, s, frame, scope); err != nil {
		return 0, nil, err
	}
	root, err := expand(ctx, s, ref, 1, maxListed)
	vs = root.Children
	if err == nil && root.Truncated {
		err = fmt.Errorf("frame %d's %s hold more than %d variables, too many to read for the secrets they hold", frame, scope, maxListed)
	}
	return ref, vs, err
}

// scopeRows are the variables of a frame's scope.
type scopeRows struct {
	frame int
	vs    []variableView
}

// stackOf is the stack of the thread whose frame is frame, and frame's
// place in it: the stop's thread first, whose first frames the session
// fetched at the stop (answered from its snapshot: a listing with no other
// frame to read costs no request), then the others. None when no stopped
// thread has it.
func stackOf(ctx context.Context, s *dap.Session, frame int) ([]godap.StackFrame, int, error) {
	tried := -1 // no thread tried yet
	if _, last := s.Stops(); last != nil {
		tried = last.ThreadID
		if frames, at, err := frameIn(ctx, s, tried, frame); err != nil || at >= 0 {
			return frames, at, err
		}
	}
	threads, err := s.Threads(ctx)
	if err != nil {
		return nil, 0, err
	}
	for _, t := range threads {
		if t.Id == tried {
			continue
		}
		if frames, at, err := frameIn(ctx, s, t.Id, frame); err != nil || at >= 0 {
			return frames, at, err
		}
	}
	return nil, 0, nil
}

// frameIn is thread's stack, all of it, and frame's place in it: -1 when
// frame is not in it, or the thread is not stopped (or gone).
func frameIn(ctx context.Context, s *dap.Session, thread, frame int) ([]godap.StackFrame, int, error) {
	frames, total, err := s.StackTrace(ctx, thread, 0, dap.PrefetchFrames)
	if err == nil && total > len(frames) {
		frames, _, err = s.StackTrace(ctx, thread, 0, 0) // all of them
	}
	if errors.As(err, new(*dap.ResponseError)) {
		return nil, -1, nil
	}
	if err != nil {
		return nil, -1, err
	}
	for j, f := range frames {
		if f.Id == frame {
			return frames, j, nil
		}
	}
	return nil, -1, nil
}

// sourcePath is a frame's file, "" when it has none.
func sourcePath(f godap.StackFrame) string {
	if f.Source == nil {
		return ""
	}
	return f.Source.Path
}

// maxLearn bounds the variables, children included, of one result the
// result phase learns from: a module reads it within its deadline (64
// objects of 500 attributes, in one result, took redact past 100 ms, and
// a result no module can read withholds the call's).
const maxLearn = 2000

// parts splits vs into runs of at most max variables, children included.
// A variable with more is split in turn: each run of its children, split
// so, goes with a copy of it (its name, value and type, what its
// children's rows are read under); max is far above the listing's depth,
// so the copies above a run never fill its part. Never no run: an empty
// scope is one.
func parts(vs []variableView, max int) [][]variableView {
	var out [][]variableView
	start, n := 0, 0
	for i, v := range vs {
		size := count(v)
		if size > max && len(v.Children) > 0 {
			if i > start {
				out = append(out, vs[start:i])
			}
			for _, p := range parts(v.Children, max-1) {
				w := v
				w.Children = p
				out = append(out, []variableView{w})
			}
			start, n = i+1, 0
			continue
		}
		if n > 0 && n+size > max {
			out = append(out, vs[start:i])
			start, n = i, 0
		}
		n += size
	}
	if start < len(vs) || len(out) == 0 {
		out = append(out, vs[start:])
	}
	return out
}

// count is v and its children, theirs included.
func count(v variableView) int {
	n := 1
	for _, c := range v.Children {
		n += count(c)
	}
	return n
}
