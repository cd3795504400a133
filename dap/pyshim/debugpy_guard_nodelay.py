"""debugpy-guard's fixes for debugpy's reply stalls, run in the debuggee.

1. pydevd sends each DAP message as two writes (the Content-Length header,
   then the body); with Nagle's algorithm on its socket and delayed ACKs on
   the adapter's side, the body waits ~40 ms. NetCommand.send is made to
   write each message once: the header is held and sent with the body. Two
   messages in a row (a continue's "continued" event, then its response)
   stall the same way, so the socket NetCommand.send writes to, pydevd's
   own to the adapter and no other, also gets TCP_NODELAY.
2. A stopped thread polls for the requests it must answer (variables,
   evaluate...) every 10 ms: `process_internal_commands(); time.sleep(0.01)`.
   That sleep is made to end as soon as a request is posted to it, or the
   threads are resumed (a continue), and the next one too after a post (a
   step resumes the thread on the poll that runs it), so none of them waits
   for the poll.

Each patch is applied only when what it patches is there, and install()
writes what it did to a status file ("on", or "off: why" for the first;
"wake on" or "wake off: why" for the second): a debugpy where they do not
apply works as before.
"""

import os
import sys

TARGET = "_pydevd_bundle.pydevd_net_command"
WAKE_TARGET = "pydevd"
_status = None


def report(status, text):
    """Appends "text pid=PID" to the status file, when there is one."""
    if not status:
        return
    try:
        with open(status, "a") as f:
            f.write("%s pid=%d\n" % (text, os.getpid()))
    except Exception:
        pass


def _report(text):
    report(_status, text)


class _OneWrite(object):
    """A socket whose sendall holds a Content-Length header for the body."""

    __slots__ = ("_sock", "_held")

    def __init__(self, sock):
        self._sock = sock
        self._held = None

    def sendall(self, data, *args):
        if (self._held is None and isinstance(data, bytes)
                and data.startswith(b"Content-Length:") and data.endswith(b"\r\n\r\n")):
            self._held = data
            return None
        if self._held is not None:
            data, self._held = self._held + data, None
        return self._sock.sendall(data, *args)

    def flush(self):
        if self._held is not None:
            held, self._held = self._held, None
            self._sock.sendall(held)

    def __getattr__(self, name):
        return getattr(self._sock, name)


_nodelayed = None


def _nodelay(sock):
    """Sets TCP_NODELAY on pydevd's socket, once: a socket it cannot be set
    on (not TCP) is left as it is."""
    global _nodelayed
    try:
        if _nodelayed is None:
            import weakref
            _nodelayed = weakref.WeakSet()
        if sock in _nodelayed:
            return
        _nodelayed.add(sock)
        import socket
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except Exception:
        pass


def _patch(module):
    cls = getattr(module, "NetCommand", None)
    send = getattr(cls, "send", None)
    if send is None:
        _report("off: pydevd has no NetCommand.send to patch")
        return
    if getattr(send, "_debugpy_guard", False):
        return

    def send_once(self, sock, _send=send):
        _nodelay(sock)
        out = _OneWrite(sock)
        try:
            return _send(self, out)
        finally:
            out.flush()

    send_once._debugpy_guard = True
    cls.send = send_once
    _report("on")


class _WakeableTime(object):
    """pydevd's `time`, but a 10 ms sleep (the stopped thread's poll) ends
    when a request is posted. Anything else is the real module.

    A post wakes two polls: the one that runs the request, and the next,
    so that a request that resumes the thread (a step) is seen at once
    rather than after one more sleep; a request that does not costs one
    more turn of the loop."""

    def __init__(self, real, posted):
        self._real = real
        self._posted = posted
        self.again = False  # set by a post: the next poll ends at once too

    def sleep(self, secs):
        if secs == 0.01:
            if self._posted.wait(secs) and self.again:
                self.again = False  # left set: the next poll returns at once
            else:
                self._posted.clear()  # a post in between waits one poll, as before
        else:
            self._real.sleep(secs)

    def __getattr__(self, name):
        return getattr(self._real, name)


def _patch_wake(module):
    import threading

    pydb = getattr(module, "PyDB", None)
    post = getattr(pydb, "post_internal_command", None)
    real = getattr(module, "time", None)
    if post is None or real is None or not hasattr(real, "sleep"):
        _report("wake off: pydevd has no PyDB.post_internal_command or time to patch")
        return
    if isinstance(real, _WakeableTime):
        return
    posted = threading.Event()
    wakeable = _WakeableTime(real, posted)

    def post_and_wake(self, *args, **kwargs):
        try:
            return post(self, *args, **kwargs)
        finally:
            wakeable.again = True
            posted.set()

    pydb.post_internal_command = post_and_wake
    # A continue resumes the threads without posting to them; its response
    # is sent once a stopped thread has left its poll.
    api = getattr(module, "PyDevdAPI", None)
    resume = getattr(api, "request_resume_thread", None)
    if resume is not None:
        def resume_and_wake(self, *args, **kwargs):
            try:
                return resume(self, *args, **kwargs)
            finally:
                posted.set()

        api.request_resume_thread = resume_and_wake
    module.time = wakeable
    _report("wake on")


_patches = {TARGET: (_patch, "off"), WAKE_TARGET: (_patch_wake, "wake off")}


def _apply(name, module):
    patch, off = _patches[name]
    try:
        patch(module)
    except Exception as e:  # never break the debuggee
        _report("%s: %s" % (off, e))


class _Loader(object):
    def __init__(self, inner, name):
        self._inner = inner
        self._name = name

    def create_module(self, spec):
        return self._inner.create_module(spec)

    def exec_module(self, module):
        self._inner.exec_module(module)
        _apply(self._name, module)

    def __getattr__(self, name):
        return getattr(self._inner, name)


class _Finder(object):
    """Wraps the loaders of the modules to patch, once each."""

    def __init__(self, names):
        self._names = set(names)

    def find_spec(self, name, path, target=None):
        if name not in self._names:
            return None
        self._names.discard(name)
        if not self._names:
            try:
                sys.meta_path.remove(self)
            except ValueError:
                pass
        import importlib.machinery
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            _report("%s: %s was not found" % (_patches[name][1], name))
            return None
        spec.loader = _Loader(spec.loader, name)
        return spec


def install(status):
    """Apply the fixes when the modules they patch load (now, for those
    loaded already), and report to the file status."""
    global _status
    _status = status
    try:
        later = []
        for name in (TARGET, WAKE_TARGET):
            if name in sys.modules:
                _apply(name, sys.modules[name])
            else:
                later.append(name)
        if later:
            sys.meta_path.insert(0, _Finder(later))
    except Exception as e:
        _report("off: %s" % (e,))
