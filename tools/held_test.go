package tools

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// heldBy, run by CPython over what a program's functions hold: the values
// by the names of their variables and parameters (a container of
// strings, numbers and None, of builtins' own types, one level), the
// locals of the functions an exception's traceback went through (not the
// module's: its globals), and nothing of an
// object of another type, or of a type of the program's that only names
// itself so, whose attributes are its code (it would exit if it ran);
// read whole, an object's attributes and its attributes' (a level more),
// from its instance dict (not a __dict__ property of its class's, nor a
// dict subclass's items: neither runs) and its slots (a slot not set
// left out; not through a __getattribute__ of its class's); a
// thread whose arguments are not a tuple (a generator, which a read
// would consume) is left whole.
func TestHeldByAgreesWithCPython(t *testing.T) {
	prog := `import asyncio, concurrent.futures.thread, contextlib, functools, logging, multiprocessing, sched, sys, threading, time
H = ` + heldBy + `
def make_client(token, retries=3):
    def call():
        return token + str(retries)
    return call
def connect(host, password="dflt-pw"):
    return host
def kw(a, *, pw="kw-s3cret"):
    return a
def star(a, *rest):
    return a
class Acct:
    def login(self, user, pw):
        return user
    bound_login = functools.partialmethod(login, "ada", "pm-s3cret")
    def m(self, x, secret=b"m-dflt"):
        return x
def empty():
    def inner():
        return later
    later = None
    del later
    return inner
class function:
    def __getattr__(self, n):
        sys.exit("ran the program's __getattr__ for " + n)
class Th(threading.Thread):
    def __getattr__(self, n):
        sys.exit("ran the program's __getattr__ for " + n)
def session(creds, opts):
    def get():
        return creds, opts
    return get
class S(str):
    def __repr__(self):
        sys.exit("ran the program's __repr__")
class AuthError(Exception):
    pass
class Evil(Exception):
    @property
    def __traceback__(self):
        sys.exit("ran the program's __traceback__")
def login(token, n=3):
    key = ("ada", token)
    raise AuthError(token)
def caught(cls=AuthError):
    try:
        if cls is AuthError:
            login("exc-s3cret")
        raise cls("evil")
    except Exception as e:
        return e
try:
    raise ValueError("at the module")
except ValueError as e:
    module_level = e
loop = asyncio.new_event_loop()
exit_stack = contextlib.ExitStack()
exit_stack.callback(Acct().login, "ada", "ex-s3cret")
exit_stack = exit_stack._exit_callbacks[0][1]
def defer(fn, *args):
    def run():
        return fn(*args)
    return run
def two_fns():
    f, g, args = connect, kw, ("x",)
    def run():
        return f(*args) or g
    return run
big = "x" * 16385
class Denied(Exception):
    def __init__(self, user, token):
        super().__init__(user, token)
class Worded(Exception):
    def __init__(self, token):
        super().__init__("bad", token)
class OwnArgs(Denied):
    @property
    def args(self):
        sys.exit("ran the program's args")
class EqMeta(type):  # a class's type compared by == runs it
    def __eq__(self, o):
        sys.exit("ran the program's metaclass __eq__")
    __hash__ = type.__hash__
class Odd(metaclass=EqMeta):
    pass
def rec(msg, *args, cls=logging.LogRecord):
    return cls("app", 30, "app.py", 1, msg, args, None)
class SubRecord(logging.LogRecord):  # a class of the program's: its getMessage may be its own
    pass
records = [("record", rec("login with password %s", "log-s3cret")), ("record_dict", rec("%(user)s:%(pw)s", {"user": "ada", "pw": "logd-s3cret"})),
           ("record_num", rec("%d tries, key %r", 3, b"logb-s3cret")), ("record_wide", rec("%099999d %s", 1, "w-s3cret")),
           ("record_star", rec("%*s", 5, "x")), ("record_short", rec("%s %s", "one")), ("record_obj", rec("%s", Acct())),
           ("record_sub", rec("%s", "sub", cls=SubRecord)), ("record_strsub", rec(S("%s"), "x")), ("record_none", rec("no args")),
           ("record_many", rec("%s" * 65, *range(65))), ("denied", Denied("ada", "den-s3cret")), ("worded", Worded("w-s3cret")),
           ("own_args", OwnArgs("bob", "oa-s3cret")), ("odd_closure", make_client(Odd())), ("odd_partial", functools.partial(connect, "h", Odd())),
           ("odd_record", rec("%s", Odd())), ("odd_exc", Denied("ada", Odd())), ("odd_keys", rec("%(a)s", {"a": "x", Odd(): "y"}))]
for k, f in records + [("client", make_client("cls-s3cret")), ("conn", functools.partial(connect, "db", "prt-s3cret")),
             ("login", functools.partial(Acct().login, "ada", "mth-s3cret")), ("kw", kw), ("meth", Acct().m),
             ("star", functools.partial(star, "s", "extra")), ("pfn", functools.partial(make_client("in-partial"))),
             ("worker", threading.Thread(target=connect, args=("h", "thr-s3cret"))),
             ("gen", threading.Thread(target=connect, args=(x for x in "ab"))), ("big", make_client(big)),
             ("empty", empty()), ("fake", function()), ("sub", Th(target=connect, args=("h", "sub-s3cret"))),
             ("n", 3), ("lam", lambda user, pw="lam-s3cret": user), ("builtin", functools.partial(print, "b-s3cret")),
             ("pair", session(("ada", "pair-s3cret"), {"password": "dict-s3cret", "port": 5432, "tls": None})),
             ("mixed", session(["ok", S("sub")], {1: "x"})), ("long", session(tuple("x" * 65), [big])),
             ("nested", session((("in", "tuple"),), {"a": {"b": "c"}})),
             ("exc", caught()), ("evil", caught(Evil)), ("unraised", AuthError("x")), ("module", module_level),
             ("timer", threading.Timer(60, connect, args=("h", "tmr-s3cret"))),
             ("soon", loop.call_soon(connect, "h", "soon-s3cret")), ("later", loop.call_later(60, Acct().login, "ada", "later-s3cret")),
             ("work", concurrent.futures.thread._WorkItem(concurrent.futures.Future(), connect, ["h", "work-s3cret"], {})),
             ("event", sched.scheduler(time.monotonic).enter(60, 1, connect, ("h", "sch-s3cret"))),
             ("proc", multiprocessing.Process(target=connect, args=("h", "proc-s3cret"))),
             ("spawned", multiprocessing.get_context("spawn").Process(target=connect, args=("h", "spawn-s3cret"))),
             ("pmeth", Acct.__dict__["bound_login"]), ("pbound", functools.partial(Acct().login, "ada", "pb-s3cret")),
             ("exit", exit_stack), ("deferred", defer(connect, "h", "dfr-s3cret")), ("two_fns", two_fns())]:
    print(k, H(k, f, False))
class Client:
    def __init__(self, token):
        self._token = token
        self.n = 3
class DB:
    def __init__(self, password):
        self.password = password
        self.mod = sys
        self.cls = Client
class Conf:
    def __init__(self):
        self.db = DB("db-s3cret")
        self.deep = Conf2()
class Conf2:
    def __init__(self):
        self.inner = Conf3()
class Conf3:
    def __init__(self):
        self.too_deep = "not read"
class Guarded:
    @property
    def __dict__(self):
        sys.exit("ran the program's __dict__")
class Slots:
    __slots__ = ("secret", "unset", "__token", "db")
    def __init__(self):
        self.secret = "slot-s3cret"
        self.__token = "mangled-s3cret"
        self.db = DB("slot-db-s3cret")
    def __getattribute__(self, n):
        sys.exit("ran the program's __getattribute__ for " + n)
class DocSlot:
    __slots__ = ("__doc__", "kept")  # as typing's special forms hold their docstrings
    def __init__(self):
        self.__doc__ = "a long docstring, not read"
        self.kept = "kept-s3cret"
class Borrowed:
    secret = Slots.secret  # another class's slot: it does not apply to this one's objects
class SubSlots(Slots):
    __slots__ = ("own",)
    def __init__(self):
        Slots.__init__(self)
        object.__setattr__(self, "own", "sub-s3cret")
class OwnDict(dict):
    def items(self):
        sys.exit("ran the program's items")
weird = Client("own-dict-s3cret")
weird.__dict__ = OwnDict(weird.__dict__)
for k, f in [("odd_obj", Client(Odd())), ("client", Client("obj-s3cret")), ("conf", Conf()), ("guarded", Guarded()), ("slots", Slots()), ("sub_slots", SubSlots()), ("borrowed", Borrowed()), ("doc_slot", DocSlot()), ("weird", weird),
             ("n", 3), ("mod", sys)]:
    print(k, "whole", sorted(H(k, f, True)))
`
	out, err := exec.Command("python3", "-c", prog).CombinedOutput()
	if err != nil {
		t.Fatalf("python3: %v\n%s", err, out)
	}
	want := `record [('record.message', 'login with password log-s3cret')]
record_dict [('record_dict.message', 'ada:logd-s3cret')]
record_num [('record_num.message', "3 tries, key b'logb-s3cret'")]
record_wide []
record_star []
record_short []
record_obj []
record_sub []
record_strsub []
record_none []
record_many []
denied [('denied.user', 'ada'), ('denied.token', 'den-s3cret')]
worded []
own_args [('own_args.user', 'bob'), ('own_args.token', 'oa-s3cret')]
odd_closure []
odd_partial [('odd_partial.password', 'dflt-pw'), ('odd_partial.args.host', 'h')]
odd_record []
odd_exc [('odd_exc.user', 'ada')]
odd_keys []
client [('client.token', 'cls-s3cret')]
conn [('conn.password', 'dflt-pw'), ('conn.args.host', 'db'), ('conn.args.password', 'prt-s3cret')]
login [('login.args.user', 'ada'), ('login.args.pw', 'mth-s3cret')]
kw [('kw.pw', 'kw-s3cret')]
meth [('meth.secret', b'm-dflt')]
star [('star.args.a', 's')]
pfn [('pfn.token', 'in-partial')]
worker [('worker.password', 'dflt-pw'), ('worker.args.host', 'h'), ('worker.args.password', 'thr-s3cret')]
gen []
big []
empty []
fake []
sub []
n []
lam [('lam.pw', 'lam-s3cret')]
builtin []
pair [('pair.creds', ('ada', 'pair-s3cret')), ('pair.opts', {'password': 'dict-s3cret', 'port': 5432, 'tls': None})]
mixed []
long []
nested []
exc [('exc.login.token', 'exc-s3cret'), ('exc.login.key', ('ada', 'exc-s3cret'))]
evil []
unraised []
module []
timer [('timer.password', 'dflt-pw'), ('timer.args.host', 'h'), ('timer.args.password', 'tmr-s3cret')]
soon [('soon.password', 'dflt-pw'), ('soon.args.host', 'h'), ('soon.args.password', 'soon-s3cret')]
later [('later.args.user', 'ada'), ('later.args.pw', 'later-s3cret')]
work [('work.password', 'dflt-pw'), ('work.args.host', 'h'), ('work.args.password', 'work-s3cret')]
event [('event.password', 'dflt-pw'), ('event.args.host', 'h'), ('event.args.password', 'sch-s3cret')]
proc [('proc.password', 'dflt-pw'), ('proc.args.host', 'h'), ('proc.args.password', 'proc-s3cret')]
spawned [('spawned.password', 'dflt-pw'), ('spawned.args.host', 'h'), ('spawned.args.password', 'spawn-s3cret')]
pmeth [('pmeth.args.user', 'ada'), ('pmeth.args.pw', 'pm-s3cret')]
pbound [('pbound.args.user', 'ada'), ('pbound.args.pw', 'pb-s3cret')]
exit [('exit.args', ('ada', 'ex-s3cret')), ('exit.kwds', {}), ('exit.args.user', 'ada'), ('exit.args.pw', 'ex-s3cret')]
deferred [('deferred.args', ('h', 'dfr-s3cret')), ('deferred.args.host', 'h'), ('deferred.args.password', 'dfr-s3cret')]
two_fns [('two_fns.args', ('x',))]
odd_obj whole []
client whole [('client._token', 'obj-s3cret')]
conf whole [('conf.db.password', 'db-s3cret')]
guarded whole []
slots whole [('slots._Slots__token', 'mangled-s3cret'), ('slots.db.password', 'slot-db-s3cret'), ('slots.secret', 'slot-s3cret')]
sub_slots whole [('sub_slots._Slots__token', 'mangled-s3cret'), ('sub_slots.db.password', 'slot-db-s3cret'), ('sub_slots.own', 'sub-s3cret'), ('sub_slots.secret', 'slot-s3cret')]
borrowed whole []
doc_slot whole [('doc_slot.kept', 'kept-s3cret')]
weird whole [('weird._token', 'own-dict-s3cret')]
n whole []
mod whole []
`
	if string(out) != want {
		t.Errorf("heldBy read\n%s\nwant\n%s", out, want)
	}
}

// heldByReference is one Python expression whatever the names debugpy
// gives the objects (a key's repr, quotes and line ends in it).
func TestHeldByReferenceCompiles(t *testing.T) {
	expr := heldByReference([]heldRead{{`d['it\'s']`, 1, true}, {"x\n\"y\"", 2, false}, {"é\x00", 3, true}})
	out, err := exec.Command("python3", "-c", "import sys; compile(sys.argv[1], '<held>', 'eval'); print('ok')", expr).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Errorf("python3 cannot compile it: %v\n%s", err, out)
	}
}

// holdsOf reads functions and the like by their type, and exceptions by
// their class's name or by a repr that begins with it; not an object
// whose repr names it otherwise, nor a value debugpy shows whole.
func TestHoldsOf(t *testing.T) {
	for _, c := range []struct {
		typ, value string
		want       bool
	}{
		{"function", "<function make.<locals>.call at 0x7f>", true},
		{"partial", "functools.partial(<function f at 0x7f>, 'x')", true},
		{"AuthError", "AuthError('x')", true},
		{"ExceptionGroup", "ExceptionGroup('x', [ValueError()])", true},
		{"Unauthorized", "Unauthorized('x')", true},
		{"Unauthorized", "Unauthorized()", true},
		{"Unauthorized", "Unauthorized('x...", true}, // cut short
		{"Denied", "<Denied x>", true},
		{"Denied", "Denied: x", true},
		{"Denied", "Denied", true},
		{"Unauthorized", "Unauthorized('x=1')", true},
		{"Unauthorized", "Unauthorized(x == 1)", true},
		{"Unauthorized", "Unauthorized(1)", true},
		{"Unauthorized", "Unauthorized(-1)", true},
		{"Unauthorized", "Unauthorized(None, 'x')", true},
		{"Unauthorized", "Unauthorized(b'x')", true},
		{"Response", "<Response [401]>", true}, // read for nothing
		{"Point", "Point(x=1, y=2)", false},    // a dataclass: its fields named
		{"Pair", "Pair(a='x', b=2)", false},
		{"Café", "Café(é=1)", false},
		{"Decimal", "Decimal('1.5')", false},
		{"PosixPath", "PosixPath('/tmp')", false},
		{"Client", "<__main__.Client object at 0x7f>", false},
		{"Client", "<app.Client object at 0x7f>", false},
		{"Unauth", "Unauthorized('x')", false},
		{"Denied", "Denied_x", false},
		{"Denied", "Denied.x", false},
		{"Café", "Caféine()", false},
		{"tuple", "tuple(...)", false},
		{"deque", "deque(['x'])", false},
		{"type", "type(x)", false},
		{"module", "module(x)", false},
		{"", "", false},
	} {
		if got := holdsOf(variableView{Type: c.typ, Value: c.value}); got != c.want {
			t.Errorf("holdsOf(%q, %q) = %v, want %v", c.typ, c.value, got, c.want)
		}
	}
}

// heldRows reads back the rows heldLines writes, whatever the names and
// values hold (quotes, line ends, spaces, NUL, non-ASCII, every type
// heldBy reads), as CPython writes them: each name once, the last value.
func TestHeldRowsAgreeWithCPython(t *testing.T) {
	prog := `import builtins as b, json
L = ` + heldLines + `
ps = [("d['it\\'s'].token", "a 'quoted' \"x\" value\n\r\t\x00"), ('é.pw', b'\xff\x00 b'), ("x y", ('ada', 'p w')),
      ('n', 3), ('f', 1.5), ('t', True), ('none', None), ('l', ['a', 1]), ('d', {'k': 'v v'}), ('n', 4), ("\\", "\\\\")]
print(json.dumps({"text": L(ps), "want": [[k, type(v).__name__, repr(v)] for k, v in dict(ps).items()]}))
`
	out, err := exec.Command("python3", "-c", prog).CombinedOutput()
	if err != nil {
		t.Fatalf("python3: %v\n%s", err, out)
	}
	var got struct {
		Text string
		Want [][3]string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	rows, ok := heldRows(got.Text)
	if !ok || len(rows) != len(got.Want) {
		t.Fatalf("heldRows(%q) = %+v, %v; want %d rows", got.Text, rows, ok, len(got.Want))
	}
	for i, w := range got.Want {
		if r := rows[i]; r.Name != w[0] || r.Type != w[1] || r.Value != w[2] {
			t.Errorf("row %d = %q %q %q, want %q", i, r.Name, r.Type, r.Value, w)
		}
	}
	if _, ok := heldRows("'a' str"); ok {
		t.Error("a line with no value read as a row")
	}
}
