"""A jitted function's steady-state call in C (capture/_fast_call.c), and when it may be armed.

``jit(fn)`` returns a :class:`capture.api.JitFunction`, which derives from :class:`FastCall`,
as does what runs a Cell's calls in GRAPH_MODE (``capture.api._CellCall``). Their calls go the
whole Python way (``capture.dispatch.call_captured``) until one ran an entry :func:`arm`
accepts; then the next calls repeat that entry in C -- guards, input fetch, the runner, the
result as Tensors -- and take the Python way again whenever anything could make it turn
elsewhere (see the C file's comment). Frames the hook captures (``capture.enable()``, ``capture
run``) are repeated the same way: :func:`arm_frame` gives the hook a code object's
``_try_frame``, which it calls before its Python dispatcher. Every change of a capture cache calls
:func:`invalidate`, which disarms at once the FastCalls repeating one of its entries (all of
them after ``capture.reset()``); tracing and ``explain`` timing suspend them (:func:`suspended`).

``CAPTURE_PY_CALL=1`` (read at import) keeps every call in Python, as does a missing C helper
(it is built by ``pip install -e .``).

Example:
    >>> import capture, runtime as ms
    >>> @capture.jit
    ... def double(x):
    ...     return x * 2
    >>> x = ms.Tensor([1.0, 2.0])
    >>> _ = double(x)  # the Python way, which arms the C call
    >>> double(x).asnumpy().tolist(), double._armed is not None or not AVAILABLE
    ([2.0, 4.0], True)
"""
from __future__ import annotations

import contextlib
import inspect
import threading
import types
import weakref

from graph import config as settings
from runtime import tape as _tape
from runtime.tensor import Tensor

try:
    from . import _fast_call as _c
except ImportError:  # not built: every call goes the Python way
    _c = None

#: whether jitted calls may repeat their entry in C
AVAILABLE = _c is not None and not settings.get("CAPTURE_PY_CALL")

#: each armed FastCall -> the id of the cache whose entry it repeats (disarmed when that cache
#: changes: an entry a cache dropped must not be kept alive, with its engine and parameters, by
#: the jitted function that last ran it)
_ARMED: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()

if AVAILABLE:
    FastCall = _c.FastCall
    _c.configure(_tape.ACTIVE)

    def invalidate(cache=None) -> None:
        """``cache`` changed (None: every cache, or what they depend on): the FastCalls repeating
        one of its entries go the Python way until a call re-arms them."""
        # (disarming drops an entry, whose finalizers may invalidate again meanwhile)
        if cache is None:
            callers = list(_ARMED.keys())
            _ARMED.clear()
        else:
            key = id(cache)
            callers = [caller for caller, armed_for in list(_ARMED.items()) if armed_for == key]
            for caller in callers:
                _ARMED.pop(caller, None)
        for caller in callers:
            caller._arm(None, None)
else:
    class FastCall:
        """The Python stand-in: every call goes the Python way."""

        __slots__ = ()
        _armed = None

        def __call__(self, /, *args, **kwargs):
            return self._call_slow(args, kwargs)

        def _arm(self, fast_entry, function):
            pass

    def invalidate(cache=None) -> None:
        """A capture cache changed (nothing is armed without the C helper)."""


class _Bypass(threading.local):
    code = None


_BYPASS = _Bypass()  # (where the C helper is not used)


def set_bypass(code) -> None:
    """On this thread, the next frame of ``code`` runs as it is (None: no code). The one record
    of it, read by the hook's fast callable in C and by its Python dispatcher (:func:`take_bypass`)."""
    if AVAILABLE:
        _c.set_bypass(code)
    else:
        _BYPASS.code = code


def take_bypass(code) -> bool:
    """Whether this frame of ``code`` is the one :func:`set_bypass` named (then it is no longer)."""
    if AVAILABLE:
        return _c.take_bypass(code)
    if _BYPASS.code is code:
        _BYPASS.code = None
        return True
    return False


@contextlib.contextmanager
def suspended():
    """Every jitted call goes the Python way meanwhile (while tracing: framework code calling a
    jitted function on symbolic values just runs it; while ``explain`` times compiled graphs)."""
    if not AVAILABLE:
        yield
        return
    _c.suspend()
    try:
        yield
    finally:
        _c.resume()


def _tensor_wrap_is_plain() -> bool:
    """Whether ``Tensor._wrap(a)`` is what the C call does: a new object whose ``_data`` slot is
    set by its descriptor (no ``__setattr__`` of Tensor's own)."""
    slot = Tensor.__dict__.get("_data")
    return Tensor.__setattr__ is object.__setattr__ and isinstance(slot, types.MemberDescriptorType)


def _fast_entry(fn, entry):
    """The FastEntry repeating ``entry`` (made once per entry and call function), or None where
    the C call cannot repeat it."""
    from .reconstruct import OutputPlan  # (capture.cache imports this module)
    from .sources import Object
    fast = getattr(entry, "fast", None)
    if fast is not None and fast.call is entry.call and fast.check is entry.check:
        return fast
    sources = []
    for source in entry.sources:
        path = source.path
        if path is not None and len(path) in (1, 2) and all(type(k) is int and k >= 0 for k in path):
            sources.append(path[0] if len(path) == 1 else path)  # (a pair: an item of ``*args``)
        elif type(source) is Object and source.ref is not None:
            sources.append(source.ref)  # (held weakly: read through it, a dead one declines)
        elif type(source) is Object and not isinstance(source.obj, (int, tuple)):
            sources.append(source.obj)  # (ints and pairs of them mean argument positions)
        else:
            return None
    template = entry.template
    out_index = -1
    if type(template) is OutputPlan and not template.effects and template.result[0] == "out":
        out_index = template.result[1]
    code = fn.__code__
    fast = _c.FastEntry(entry, code, code.co_argcount, bool(code.co_flags & inspect.CO_VARARGS), entry.check,
                        tuple(sources), entry.call, Tensor, template.build, out_index, entry.closure,
                        entry.globals if entry.globals is not None else None)
    entry.adopt_fast(fast)
    return fast


def _positional_signature(code) -> bool:
    """Whether calls with positional arguments alone are flattened by the C call as by
    ``flatten_call``: positional parameters, maybe ``*args``; no keyword-only ones, no ``**``."""
    return not code.co_kwonlyargcount and not code.co_flags & inspect.CO_VARKEYWORDS


def _repeatable(entry, cache, code) -> bool:
    """Whether the C call may repeat ``entry``, the one the Python way just ran, for calls of
    ``code`` with positional arguments."""
    return (entry.graph is not None and entry.plan is None and not entry.copy_outputs and entry.call is not None
            and bool(cache.entries) and cache.entries[0] is entry and _positional_signature(code)
            and _tensor_wrap_is_plain())


def _armed(caller, fast, fn, cache) -> None:
    caller._arm(fast, fn)  # (fn None: a frame call, which must not keep a function and its closure alive)
    if fast is not None:
        _ARMED[caller] = id(cache)
    else:
        _ARMED.pop(caller, None)


def arm(caller, fn, entry, cache, args, kwargs) -> None:
    """After ``caller`` (a FastCall) ran ``entry`` of ``cache`` the Python way for the call
    ``fn(*args, **kwargs)``: let its next calls repeat the entry in C where nothing the Python way
    reads would make it turn elsewhere; else leave it disarmed. (``caller._settle_fast(entry,
    args, error)`` settles an error of the graph there as the Python way does.)"""
    if not AVAILABLE:
        return
    code = fn.__code__
    fast = None
    if (not kwargs and len(args) >= code.co_argcount and getattr(caller, "__wrapped_jit__", None) is fn
            and _repeatable(entry, cache, code)):
        fast = _fast_entry(fn, entry)
    _armed(caller, fast, fn, cache)


def arm_frame(caller, fn, entry, cache) -> None:
    """After a frame of ``fn`` ran ``entry`` of ``cache`` the Python way (the frame hook's
    dispatcher): let ``caller`` (the FastCall of the code and config) repeat it for the next
    frames, tried by the hook before its dispatcher."""
    if not AVAILABLE:
        return
    from .frame_eval import register_fast  # (the hook's module imports this one)
    fast = _fast_entry(fn, entry) if _repeatable(entry, cache, fn.__code__) else None
    _armed(caller, fast, None, cache)
    if fast is not None:
        register_fast(fn.__code__, caller._try_frame, _c.DECLINED)

