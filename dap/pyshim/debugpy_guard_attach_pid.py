"""Attach by PID, with debugpy-guard's one-write fix in the target.

Run as: python debugpy_guard_attach_pid.py STATUS --listen HOST:PORT --pid PID

It runs debugpy's own CLI (python -m debugpy --listen ... --pid ...), which
injects code into the process with gdb; the code injected first puts this
directory on the target's sys.path, installs debugpy_guard_nodelay there,
and takes the directory off again. When debugpy's internals are not what
this expects, the CLI runs unchanged and STATUS says the fix is off.
"""

import codecs
import os
import sys

from debugpy_guard_nodelay import report  # this directory is sys.path[0]

here = os.path.dirname(os.path.abspath(__file__))
status = sys.argv.pop(1)


def literal(s):
    # The injected code may hold no quotes or newlines (a pydevd rule): a
    # string travels as the list of its UTF-8 bytes.
    return "codecs.utf_8_decode(bytearray(%r))[0]" % (list(bytearray(s.encode("utf-8"))),)


from debugpy._vendored import force_pydevd  # noqa: E402,F401  as python -m debugpy does

try:
    import pydevd

    sys.path.append(os.path.join(os.path.dirname(pydevd.__file__), "pydevd_attach_to_process"))
    import add_code_to_python_process

    run = add_code_to_python_process.run_python_code
    prefix = (
        "import codecs;import sys;sys.path.insert(0,%s);import debugpy_guard_nodelay;"
        "debugpy_guard_nodelay.install(%s);sys.path.remove(%s);"
    ) % (literal(here), literal(status), literal(here))
    if {'"', "'", "\r", "\n"} & set(prefix):
        raise RuntimeError("cannot encode the injected code")

    def run_with_fix(pid, python_code, *args, **kwargs):
        return run(pid, prefix + python_code, *args, **kwargs)

    add_code_to_python_process.run_python_code = run_with_fix
except Exception as e:
    report(status, "off: cannot add the fix to debugpy's attach by PID: %s" % (e,))

from debugpy.server import cli  # noqa: E402

sys.argv[0] = "debugpy"
cli.main()
