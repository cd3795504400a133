# debugpy-guard puts this directory first on PYTHONPATH of a program it
# launches under debugpy (and a user may, for a program they start with
# python -m debugpy --listen: README): it installs the fixes of
# debugpy_guard_nodelay, takes itself off sys.path (and, when debugpy-guard
# says what it was, gives the program its own PYTHONPATH back), and then
# runs the sitecustomize it shadows, if there is one.
import os
import sys


def _debugpy_guard():
    here = os.path.dirname(os.path.abspath(__file__))
    status = os.environ.pop("DEBUGPY_GUARD_NODELAY_STATUS", None)
    original = os.environ.pop("DEBUGPY_GUARD_PYTHONPATH", None)
    try:
        import debugpy_guard_nodelay
        debugpy_guard_nodelay.install(status)
    except Exception as e:
        if status:
            try:
                with open(status, "a") as f:
                    f.write("off: %s pid=%d\n" % (e, os.getpid()))
            except Exception:
                pass
    if original is not None:
        if original:
            os.environ["PYTHONPATH"] = original
        else:
            os.environ.pop("PYTHONPATH", None)
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    sys.modules.pop("sitecustomize", None)
    try:
        import sitecustomize  # noqa: F401  the one this file shadows
    except ImportError:
        pass


_debugpy_guard()
del _debugpy_guard
