"""The PEP 523 frame-evaluation hook: capture without decorators or a mode switch.

``enable()`` (or ``with enabled():``) turns capture on for the calling thread: every frame of a
Cell's ``construct`` (any ``runtime.nn.Cell`` subclass, however it is called, PyNative
``Cell.__call__`` included) and of every ``jit``-registered function goes through
:func:`capture.dispatch.frame_replacement` (cache lookup, compile on a miss) before it is evaluated.
The user's own functions are candidates too, as TorchDynamo treats every frame
(:func:`capture.dispatch.frame_replacement_user`): one that works with framework values is
captured like a jitted function (a ``train_step`` calling ``value_and_grad``'s function and the
optimizer becomes one whole-step graph), unless capture does not pay for it (no framework value,
a break before any op, a break inside a loop). Frames of the standard library, installed
packages, the framework itself, generated code, generators and comprehensions are never
candidates. Every code object is decided once and a skipped one costs one C check per call
afterwards. A ``grad``/``value_and_grad`` function called from code that is not captured (a loop in
``main()``) runs as one compiled forward + backward graph
(:func:`capture.dispatch.call_grad_function`). ``CAPTURE_USER_FUNCTIONS=0`` keeps the hook to
``construct`` and jitted functions (and grad functions on the tape).
``disable()`` turns it off; the C shim is uninstalled from the interpreter when no thread has
capture on.

The C helper (``_frame_eval.c``, CPython 3.11-3.13) is optional. Without it (not built, another
interpreter, or ``CAPTURE_NO_FRAME_EVAL=1``) ``enable()`` warns once and does nothing: ``jit``,
GRAPH_MODE and ``Cell.compile`` keep working through their Python entry points.

Example:
    >>> import capture, runtime as ms
    >>> with capture.enabled():          # doctest: +SKIP
    ...     out = net(x)                  # net.construct is captured, compiled and cached

Notes:
- The switch is per thread (another thread keeps running eagerly until it enables capture too).
- Recursion: while the hook is installed CPython stops inlining Python-to-Python calls, so deep
  recursion costs C stack. CPython 3.12 raises RecursionError after ~750 nested Python calls
  whatever ``sys.setrecursionlimit`` says (cpython#105003); 3.13 stops near 5000 even with a
  raised limit; 3.11 keeps the limit, and the helper raises RecursionError when less than 256 KiB
  of the thread's C stack is left (instead of the segfault 3.11 would hit with a raised limit).
- Debuggers and ``sys.settrace`` see the replacement's frames instead of a captured ``construct``.
"""
from __future__ import annotations

import atexit
import contextlib
import functools
import importlib
import inspect
import os
import threading
import types
import warnings

from graph import config as settings
from graph.errors import INTERNAL_DIRS

from .. import api as _api
from .. import dispatch as _dispatch
from ..compile_policy import DEFAULT_CONFIG, USER_FUNCTION_CONFIG
from .. import bytecode_compat as _bc

_C = None
_UNAVAILABLE_REASON = None
if settings.get("CAPTURE_NO_FRAME_EVAL"):
    _UNAVAILABLE_REASON = "disabled by CAPTURE_NO_FRAME_EVAL"
elif not _bc.SUPPORTED:  # pragma: no cover - depends on the interpreter
    _UNAVAILABLE_REASON = f"Python {_bc.PY} is not supported"
else:
    try:
        _C = importlib.import_module(__name__ + "._frame_eval")
    except ImportError as e:  # not built (pip install -e . could not compile it)
        _UNAVAILABLE_REASON = f"the C helper capture.frame_eval._frame_eval is not available ({e})"

#: True when the C hook can be installed on this interpreter
AVAILABLE = _C is not None

_warned = False
_fallback = threading.local()


def _own_code(code) -> bool:
    return code.co_filename.startswith(INTERNAL_DIRS)


def _is_cell_construct(code) -> bool:
    """Is ``code`` the ``construct`` of some ``runtime.nn.Cell`` subclass (found by walking the
    subclasses, so classes defined after ``enable()`` count too; asked once per code object)."""
    if code.co_name != "construct":
        return False
    from runtime.nn.cell import Cell
    stack = list(Cell.__subclasses__())
    seen = set()
    while stack:
        cls = stack.pop()
        if id(cls) in seen:
            continue
        seen.add(id(cls))
        stack.extend(type.__subclasses__(cls))
        fn = cls.__dict__.get("construct")
        fn = getattr(fn, "__wrapped_jit__", fn)
        if isinstance(fn, types.FunctionType) and fn.__code__ is code:
            return True
    return False


_CONSTRUCT_DISPATCH = functools.partial(_dispatch.frame_replacement, DEFAULT_CONFIG, True)
_USER_DISPATCH = (functools.partial(_dispatch.frame_replacement_user, USER_FUNCTION_CONFIG, _C.skip_code)
                  if _C is not None else None)

#: ``CAPTURE_USER_FUNCTIONS=0`` keeps the hook to ``construct`` and jitted functions
USER_FUNCTIONS = settings.get("CAPTURE_USER_FUNCTIONS")


def _library_roots():
    """Folders of the standard library and installed packages: their frames are never captured."""
    import site
    import sysconfig
    roots = set()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            roots.add(os.path.realpath(path))
    try:
        roots.update(os.path.realpath(p) for p in site.getsitepackages())
        roots.add(os.path.realpath(site.getusersitepackages()))
    except (AttributeError, TypeError):  # a virtualenv's stripped site module
        pass
    return tuple(r + os.sep for r in roots)


_LIBRARY_ROOTS = _library_roots()
_NOT_USER_FLAGS = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR | \
    inspect.CO_ITERABLE_COROUTINE


def _is_user_function(code) -> bool:
    """A capture candidate: a function of the user's own files (not the framework, the standard
    library, an installed package or generated code), not a generator/coroutine, module or class
    body, nor a comprehension (those are traced inside their enclosing function)."""
    filename = code.co_filename
    if not filename or filename.startswith("<") or _own_code(code):
        return False
    if code.co_flags & _NOT_USER_FLAGS or not code.co_flags & inspect.CO_NEWLOCALS:
        return False
    if code.co_name.startswith("<") and code.co_name != "<lambda>":
        return False
    from ..resume import is_generated_code
    if is_generated_code(code):
        return False
    return not os.path.realpath(filename).startswith(_LIBRARY_ROOTS)


def _decide(code):
    """The hook's per-code-object question: a dispatcher for a captured code object, else None."""
    try:
        construct = _is_cell_construct(code)
        config = _api.jit_config_of(code)
        if config is not None and (construct or not _own_code(code)):
            return functools.partial(_dispatch.frame_replacement, config, construct)
        if construct:
            return _CONSTRUCT_DISPATCH
        if USER_FUNCTIONS and _is_user_function(code):
            return _USER_DISPATCH
    except Exception:  # an internal error here must never fail the user's frame: don't capture it
        _dispatch.log.warning("capture: deciding whether to capture %s failed", code.co_qualname, exc_info=True)
    return None


def _warn_unavailable():
    global _warned
    if not _warned:
        _warned = True
        warnings.warn(f"capture.enable(): {_UNAVAILABLE_REASON}; frames are not intercepted "
                      "(jit, GRAPH_MODE and Cell.compile still capture)", RuntimeWarning, stacklevel=3)


class _ReleaseAtThreadExit:
    """Kept in a thread-local: when the thread ends, CPython drops its locals on that same thread
    (its state still current), and this switches the thread's callback off so that the hook does
    not stay installed for the whole process (one callback per live thread is counted in C)."""

    __slots__ = ()

    def __del__(self):
        try:
            if _C is not None and _C.get_callback() is not None:
                _C.set_callback(None)
        except Exception:  # interpreter shutdown: nothing left to release
            pass


_thread_release = threading.local()


def _set_callback(cb):
    """``_C.set_callback`` that also arms the release of this thread's state when it ends."""
    if cb is not None and getattr(_thread_release, "armed", None) is None:
        _thread_release.armed = _ReleaseAtThreadExit()
    return _C.set_callback(cb)


def enable() -> None:
    """Capture every Cell ``construct`` and jitted function called on this thread from now on."""
    if _C is None:
        _warn_unavailable()
        _fallback.on = True
        return
    from .. import backends
    backends.preload()
    _install_grad_handler()
    _set_callback(_decide)


def _install_grad_handler():
    """Grad functions called from code that is not captured run as one compiled graph on threads
    with the hook on (:func:`capture.dispatch.call_grad_function`); ``CAPTURE_GRAD_FUNCTIONS=0``,
    or ``CAPTURE_USER_FUNCTIONS=0`` (the hook kept to ``construct`` and jitted functions), keeps
    the tape."""
    if USER_FUNCTIONS:
        _dispatch.install_grad_handler()


def disable() -> None:
    """Stop capturing on this thread (the hook is uninstalled when no thread captures)."""
    if _C is None:
        _fallback.on = False
        return
    _C.set_callback(None)


def is_enabled() -> bool:
    """Is capture enabled on this thread?"""
    if _C is None:
        return getattr(_fallback, "on", False)
    return _C.get_callback() is not None


@contextlib.contextmanager
def enabled() -> contextlib.AbstractContextManager:
    """``with capture.enabled(): ...`` -- capture on for the block, then back to what it was."""
    if _C is None:
        _warn_unavailable()
        prev = getattr(_fallback, "on", False)
        _fallback.on = True
        try:
            yield
        finally:
            _fallback.on = prev
        return
    _install_grad_handler()
    prev = _set_callback(_decide)
    try:
        yield
    finally:
        _C.set_callback(prev)


def reset(code=None) -> None:
    """Forget the hook's per-code decisions (all, or one code object's)."""
    if _C is None:
        return
    if code is None:
        _C.reset_all()
    else:
        _C.reset_code(code)


def register_fast(code, fast, declined) -> bool:
    """Frames of ``code`` try ``fast(func, *slots)`` before the dispatcher (capture/fast_call.py:
    the code's compiled entry repeated in C; ``declined`` when it does not apply). False where the
    hook has no dispatcher for ``code``."""
    return bool(_C.set_fast(code, fast, declined)) if _C is not None else False


def stats() -> dict:
    """Counters of the C hook (empty without it)."""
    return _C.stats() if _C is not None else {}


def _at_exit():
    # interpreter shutdown tears our modules down: stop intercepting first (this thread; the C
    # side also stops consulting Python once the interpreter is finalizing)
    if _C is not None and _C.get_callback() is not None:
        _C.set_callback(None)


if _C is not None:
    _api.on_code_registered = _C.reset_code
    atexit.register(_at_exit)
