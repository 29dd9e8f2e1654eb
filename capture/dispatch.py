"""Dispatch: every captured call goes through :func:`call_captured` (``jit``, GRAPH_MODE Cells,
resume functions) or :func:`frame_replacement` (the PEP 523 frame hook). Both look up the code
object's cache and compile on a miss (``capture.compile_policy``), then run the entry: the
compiled graph and its output plan, the graph and its resume plan at a break, or the plain
eager frame. A compiled graph that raises is settled by an eager rerun (the user's error is
re-raised with their line; a wrong graph turns its entry eager)."""
from __future__ import annotations

import functools
import inspect
import logging
import os
import threading
import types
import weakref

from graph import config as settings
from graph.errors import FRAMEWORK_PACKAGES
from runtime import context as _context
from runtime import tape as _tape
from runtime.nn.cell import Cell
from runtime.tensor import Tensor

from . import cache as _cache
from . import fast_call
from .cache import cache_for
from .errors import FullGraphError, interrupting, out_of_memory
from .report import events
from .differentiable import run_differentiable
from .runner import apply_updates, input_fetcher, replay_eager

from .compile_policy import (has_loop, DUMP_NOTE, TRACING, DEFAULT_CONFIG, USER_FUNCTION_CONFIG, CaptureConfig,
                             eager_entry, internal_break, build_runner, out_of_memory_break, UserErrorWhileCapturing,
                             compile_entry, resolve)

log = logging.getLogger("capture")


#: function -> (its code, the code of its binder, its parameter names in signature order): see
#: :func:`_binder_for`
_BINDERS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()

def flatten_call(fn, args, kwargs):
    """Positional tuple of a call's arguments in the code's parameter order (defaults applied),
    and the parameters' names (None for a plain positional call: the arguments as they are).

    The arguments are bound by Python itself, calling a *binder*: a function with ``fn``'s
    parameters (names, kinds) and its current ``__defaults__``/``__kwdefaults__`` whose body
    returns them. So defaults changed after the first call apply, and a bad call raises the
    TypeError calling ``fn`` raises, message included (:func:`_binding_error`), ``fn``'s body
    never running."""
    code = fn.__code__
    if (not kwargs and len(args) == code.co_argcount and not code.co_flags & _VAR_FLAGS
            and not code.co_kwonlyargcount):  # (a plain positional call: every call asks)
        return tuple(args), None
    item = _BINDERS.get(fn)
    if item is None or item[0] is not code:
        item = _BINDERS[fn] = _binder_for(code)
    # (a new binder each call: it holds no default value between calls, and reads the defaults
    # as they are now -- a ``__kwdefaults__`` dict is shared, not copied, so its changes count)
    binder = _FunctionType(item[1], _NO_GLOBALS, None, fn.__defaults__)
    kwdefaults = fn.__kwdefaults__
    if kwdefaults is not None:
        binder.__kwdefaults__ = kwdefaults
    try:
        return binder(*args, **kwargs), list(item[2])
    except TypeError as e:  # (the call did not bind: raised before the binder's body)
        error = e.with_traceback(None)
    raise _binding_error(fn, binder, args, kwargs, error) from None

_FunctionType = types.FunctionType
_NO_GLOBALS = {"__builtins__": {}}

#: a binder's placeholder source -> its compiled code (renamed per code object by _binder_for)
_BINDER_TEMPLATES: dict = {}

def _binder_for(code):
    """(``code``, the code of its binder, its parameter names in signature order). The binder's
    parameters have ``code``'s names, kinds and order (its argument slots are ``code``'s, in
    ``co_varnames`` order: positional, keyword-only, ``*args``, ``**kwargs``), and so have its
    code's ``co_name``/``co_qualname``; its body returns them in signature order (positional,
    ``*args``, keyword-only, ``**kwargs``), as ``_flat_from_slots`` orders a frame's."""
    ac, kw, flags = code.co_argcount, code.co_kwonlyargcount, code.co_flags
    var_at = ac + kw  # (the ``*args`` slot, then the ``**kwargs`` one)
    n = var_at + bool(flags & inspect.CO_VARARGS) + bool(flags & inspect.CO_VARKEYWORDS)
    slot = [f"_{i}" for i in range(n)]  # placeholders: the real names are set on the code below
    params = slot[:ac]
    if code.co_posonlyargcount:
        params.insert(code.co_posonlyargcount, "/")
    order = list(range(ac))
    if flags & inspect.CO_VARARGS:
        params.append("*" + slot[var_at])
        order.append(var_at)
    elif kw:
        params.append("*")
    params += slot[ac:var_at]
    order += range(ac, var_at)
    if flags & inspect.CO_VARKEYWORDS:
        params.append("**" + slot[n - 1])
        order.append(n - 1)
    source = (f"def binder({', '.join(params)}):\n"
              f"    return ({''.join(slot[i] + ', ' for i in order)})\n")
    template = _BINDER_TEMPLATES.get(source)  # (placeholders only: one compile per signature shape)
    if template is None:
        namespace = {}
        exec(compile(source, "<capture: call binding>", "exec"), namespace)
        template = _BINDER_TEMPLATES[source] = namespace["binder"].__code__
    names = code.co_varnames[:n]
    binder_code = template.replace(co_varnames=names, co_name=code.co_name, co_qualname=code.co_qualname)
    return code, binder_code, tuple(names[i] for i in order)

def _binding_error(fn, binder, args, kwargs, error) -> TypeError:
    """The TypeError of the call ``fn(*args, **kwargs)``, which did not bind (``error``: the
    binder's), as Python words it: that names the function by its ``__qualname__``, which may
    differ from its code's (``error``'s), so the binder, named as ``fn`` is now, binds it again."""
    binder.__name__, binder.__qualname__ = fn.__name__, fn.__qualname__
    try:
        binder(*args, **kwargs)
    except TypeError as e:
        return e.with_traceback(None)
    return error  # (not reached: the same call binds alike)

def call_captured(fn, args, kwargs, config: CaptureConfig = DEFAULT_CONFIG, name=None, caller=None):
    """Run ``fn(*args, **kwargs)`` through the capture cache (compiling on a miss). ``caller``:
    the jitted function (a ``capture.fast_call.FastCall``) whose call this is, armed afterwards to
    repeat the entry in C where it can."""
    fn = getattr(fn, "__wrapped_jit__", fn)
    if isinstance(fn, types.MethodType):  # a bound method: capture its function with self first
        fn, args = getattr(fn.__func__, "__wrapped_jit__", fn.__func__), (fn.__self__,) + tuple(args)
    if not isinstance(fn, types.FunctionType) or fn.__code__.co_flags & _NOT_CAPTURED or TRACING.depth:
        # (while tracing, framework code calling a Cell/jitted function on symbolic tensors just
        # runs it: its ops are recorded into the graph being built)
        return fn(*args, **kwargs)
    flat, names = flatten_call(fn, args, kwargs)
    cache = cache_for(fn.__code__)
    try:
        entry = resolve(fn, flat, names, config, cache, name)
    except UserErrorWhileCapturing as r:
        return _run_eagerly_after_user_error(fn, args, kwargs, flat, r, config, cache, name)
    if entry.graph is None:  # (entry.eager, without the property's call)
        return _call_eager_entry(fn, args, kwargs)
    out = _run_compiled(fn, entry, flat, config)
    if isinstance(out, _Suspect):
        return _settle(fn, args, kwargs, entry, out, config)
    if caller is not None:
        fast_call.arm(caller, fn, entry, cache, args, kwargs)
    return out

def settle_error(fn, args, entry, error, config):
    """The compiled graph of ``entry`` raised ``error`` on positional ``args`` (run by a jitted
    function's call in C): settled as a call here settles it."""
    return _settle(fn, args, {}, entry, _Suspect(error), config)

class _Suspect:
    """The compiled graph raised: the user's own error (a bad label, no memory) or ours."""

    __slots__ = ("error",)

    def __init__(self, error):
        self.error = error

def _run_compiled(fn, entry, flat, config):
    """Run a compiled entry on the flat arguments; a :class:`_Suspect` when the graph raised (no
    parameter update or other effect of this call has happened then)."""
    try:
        outs = _run_graph(entry, flat, config)
    except Exception as e:
        if interrupting(e) is not None:  # the user's signal: no eager rerun (capture.errors)
            raise
        return _Suspect(e)
    if entry.plan is not None:
        # graph break: rebuild the stack/locals, run the breaking instruction eagerly, resume
        return entry.plan.run(outs, flat)
    return entry.template.build(outs, flat)

def _settle(fn, args, kwargs, entry, suspect, config):
    """The compiled graph raised: run this call eagerly to tell whose error it is. If eager raises
    too, it is the user's (out-of-range label, MemoryError...): that exception propagates, with the
    user's file:line, and the entry stays compiled for the next call. If eager succeeds, the
    compiled graph was wrong: it is reported as an internal error and the entry turns eager.

    A graph with collectives is not run again: its exchanges with the other processes may have
    happened already (a repeat would pair with their next ones), and a collective's error (a
    timed-out peer) is the job's, not the compiler's. Its error propagates as it is."""
    e = suspect.error
    if entry.communicates or interrupting(e) is not None:  # (the user's signal: capture.errors)
        raise e
    result = call_eagerly(fn, args, kwargs)
    if config.fullgraph:
        raise FullGraphError(f"internal error running the compiled graph of {entry.name}: "
                             f"{type(e).__name__}: {e}") from e
    oom = out_of_memory(e)
    if oom is not None:  # the graph needs more memory than eager: the machine's limit, not a bug
        entry.make_eager(out_of_memory_break(fn, entry.name, "running the compiled graph of", oom))
    else:
        entry.make_eager(internal_break(fn, entry.name, "internal capture error while running the compiled graph", e))
    return result

def _run_graph(entry, flat, config):
    """The compiled graph's outputs (as Tensors) for the flat arguments; parameter updates applied.
    Only the graph itself runs here (``explain.recording`` times this as "time in compiled code")."""
    if entry.runner is None:  # a break before any op: nothing to run before the eager step
        return []
    if entry.dynamic is not None:  # shape-generic: the graph compiled for this call's size
        entry = entry.dynamic.instance_for(flat)
    fetch = entry.fetch
    if fetch is None:
        fetch = entry.fetch = input_fetcher(entry.sources)
    arrays, tensors = fetch(flat)
    if _tape.ACTIVE and _tape.any_tracked(tensors):
        outs = _run_under_tape(entry, arrays, tensors, config)
    else:
        # the parameters' arrays go to the runner, which updates in place those only their
        # Tensor and ``arrays`` reference (codegen/cpu/runner.py: ``_take_donations``)
        call = entry.call
        if call is None:
            runner = entry.runner
            call = entry.call = runner.donating_call if getattr(runner, "inplace_inputs", None) else runner
        outs, updates = call(arrays)
        if updates:
            apply_updates(tensors, updates)  # (all or none: not interruptible half-way)
        outs = list(map(Tensor._wrap, outs))
    for i in entry.copy_outputs:  # graph constants returned: each call gets its own tensor
        outs[i] = Tensor._wrap(outs[i]._data.copy())
    return outs

def _call_eager_entry(fn, args, kwargs):
    """A captured frame that runs eagerly (e.g. after a break it cannot resume from, such as one
    inside a differentiated loss): the Cells and grad functions it calls are still captured, as in
    GRAPH_MODE, so that a jitted train step whose loss has a data-dependent op compiles its loss
    around that op as GRAPH_MODE does, instead of running all of it eagerly. (Not by switching the
    frame hook on: that would change how CPython runs the frame's own calls, e.g. its recursion
    depth on 3.12.)"""
    install_grad_handler()
    with _context.capturing_cells():
        return call_eagerly(fn, args, kwargs)

def call_eagerly(fn, args, kwargs):
    """``fn(*args, **kwargs)`` evaluated as plain Python: the frame hook lets exactly this frame
    through (frames it calls are still intercepted)."""
    fast_call.set_bypass(fn.__code__)
    try:
        return fn(*args, **kwargs)
    finally:
        fast_call.set_bypass(None)

_VAR_FLAGS = inspect.CO_VARARGS | inspect.CO_VARKEYWORDS

def _flat_from_slots(code, slots):
    """A frame's argument slots (``co_varnames`` order: positional, kw-only, ``*args``, ``**kwargs``)
    -> ``flatten_call``'s (flat, names) (signature order: positional, ``*args``, kw-only, ``**kwargs``)."""
    flags = code.co_flags
    kw = code.co_kwonlyargcount
    if not (flags & _VAR_FLAGS) and not kw:
        return slots, None
    ac = code.co_argcount
    order = list(range(ac))
    i = ac + kw
    if flags & inspect.CO_VARARGS:
        order.append(i)
        i += 1
    order.extend(range(ac, ac + kw))
    if flags & inspect.CO_VARKEYWORDS:
        order.append(i)
    names = code.co_varnames
    return tuple(slots[j] for j in order), [names[j] for j in order]

def _call_from_slots(code, slots):
    """A frame's argument slots -> (args, kwargs) that call the function the same way."""
    ac = code.co_argcount
    kw = code.co_kwonlyargcount
    args = tuple(slots[:ac])
    kwargs = dict(zip(code.co_varnames[ac:ac + kw], slots[ac:ac + kw]))
    i = ac + kw
    if code.co_flags & inspect.CO_VARARGS:
        args += tuple(slots[i])
        i += 1
    if code.co_flags & inspect.CO_VARKEYWORDS:
        kwargs.update(slots[i])
    return args, kwargs

def frame_replacement(config, is_construct, fn, *slots):
    """Asked by the frame hook for a registered code object's frame (the hook is off meanwhile):
    ``fn`` is the frame's function, ``slots`` its argument slots. Returns None (evaluate the frame
    normally) or a callable that the hook calls with the same slots instead of evaluating it."""
    if _let_through(fn):
        return None
    flat, names = _flat_from_slots(fn.__code__, slots)
    if _inside_vmap(flat):
        return None
    name = f"{type(slots[0]).__name__}.construct" if is_construct and slots else None
    cache = cache_for(fn.__code__)
    try:
        entry = resolve(fn, flat, names, config, cache, name)
    except UserErrorWhileCapturing as r:
        return functools.partial(_frame_after_user_error, fn, flat, r, config, cache, name)
    return _frame_runner(fn, entry, flat, config)

def _let_through(fn) -> bool:
    """Must the hook evaluate this frame as it is: the one frame ``call_eagerly`` lets through,
    a frame met while tracing, or not a plain function?"""
    if fast_call.take_bypass(fn.__code__):
        return True
    return bool(TRACING.depth) or not isinstance(fn, types.FunctionType)

def _inside_vmap(flat) -> bool:
    """Is this frame called by ``vmap`` on batched tensors (PyNative)? Its arguments then stand for
    a whole batch and its ops batch as they bind: the frame runs as it is, never captured per call
    (a BatchedTensor has no single array a graph could take). Checked only once vmap was used."""
    from runtime import tape
    if not tape.VMAP_LEVEL[0]:
        return False
    from runtime.vmap import BatchedTensor
    for v in flat:
        items = v.values() if isinstance(v, dict) else v if isinstance(v, (tuple, list)) else (v,)
        if any(isinstance(a, BatchedTensor) for a in items):
            return True
    return False

def _frame_runner(fn, entry, flat, config):
    """What the hook calls instead of evaluating the frame (None: evaluate it, the entry is eager)."""
    if entry.eager:
        return None
    return functools.partial(_frame_run_compiled, fn, entry, flat, config)

def frame_replacement_user(config, skip_code, fn, *slots):
    """Asked by the frame hook for a frame of a user function that is neither a ``construct`` nor
    jitted (``capture run`` / ``capture.enable()`` treat every user function as a candidate, as
    TorchDynamo treats every frame): a function that works with framework values (Tensors, Cells,
    grad functions, optimizers, the framework's modules) is captured like a jitted function, so a
    ``train_step`` calling ``value_and_grad``'s function and the optimizer becomes one whole-step
    graph. Its first compile decides whether capture pays (:func:`_worth_capturing`); when it does
    not, or the function touches no framework value, ``skip_code(code)`` makes the hook let every
    later frame of that code object through untouched."""
    if _let_through(fn):
        return None
    code = fn.__code__
    cache = cache_for(code)
    first = not cache.entries and not cache.disabled
    if first and not _touches_framework(fn, slots):
        skip_code(code)
        return None
    flat, names = _flat_from_slots(code, slots)
    if _inside_vmap(flat):
        return None
    entry = cache.lookup(flat, config, fn.__closure__, fn.__globals__)
    if entry is None:
        user_error = None
        with events.holding() as held:  # a function left alone leaves no breaks in reports
            try:
                entry = compile_entry(fn, flat, names, config, cache, None)
            except UserErrorWhileCapturing as r:
                user_error = r
        if user_error is not None:
            held.release()
            return functools.partial(_frame_after_user_error, fn, flat, user_error, config, cache, None)
        if first and not _worth_capturing(entry, code):
            cache.drop()
            skip_code(code)
            return None
        held.release()
        if first:
            _CAPTURED_USER_FUNCTIONS.add(code)
            events.record_user_function(code.co_qualname)
    return _frame_runner(fn, entry, flat, config)

class _GradCalls(threading.local):
    def __init__(self):
        self.running = set()  # ids of the grad functions whose capture is running on this thread


_GRAD_CALLS = _GradCalls()
_NOT_HANDLED = (False, None)
#: the attribute of a grad function holding the function capture compiles for it (False: not
#: worth capturing; it keeps walking the tape)
_CAPTURED_CALL = "_capture_call"


def call_grad_function(grad_fn, args, kwargs):
    """``runtime.autograd.CALL_HANDLER`` (installed with the frame hook or GRAPH_MODE): in
    GRAPH_MODE, or on a thread with the hook on, a ``grad``/``value_and_grad``/``GradOperation``
    function called from code that is not captured (a training loop in ``main()`` with prints and
    timers) runs as one compiled forward + backward graph, as ``jit(grad_fn)`` would (and as
    MindSpore compiles a grad function in GRAPH_MODE), instead of recording and walking the tape. Its
    first compile decides whether that pays (:func:`_worth_capturing`: no whole-frame fallback,
    ops in the graph); if not, the grad function keeps the tape for good. Returns ``(handled,
    result)``; not handled inside traced code (the translator differentiates symbolically), under
    an outer tape (higher-order gradients stay eager) and for the eager call of a fallback."""
    from .frame_eval import is_enabled
    if TRACING.depth or _tape.ACTIVE or id(grad_fn) in _GRAD_CALLS.running:
        return _NOT_HANDLED
    if _context.mode() != _context.GRAPH_MODE and not is_enabled() and not _context.CELL_CAPTURE.depth:
        return _NOT_HANDLED
    fn = getattr(grad_fn, _CAPTURED_CALL, None)
    if fn is False:
        return _NOT_HANDLED
    config = USER_FUNCTION_CONFIG
    _GRAD_CALLS.running.add(id(grad_fn))
    try:
        if fn is None:
            fn = _first_grad_call(grad_fn, args, kwargs, config)
            if fn is None:
                return _NOT_HANDLED
        return True, call_captured(fn, args, kwargs, config)
    finally:
        _GRAD_CALLS.running.discard(id(grad_fn))


def install_grad_handler() -> None:
    """Route grad function calls through :func:`call_grad_function` (``CAPTURE_GRAD_FUNCTIONS=0``:
    never)."""
    from runtime import autograd
    if settings.get("CAPTURE_GRAD_FUNCTIONS"):
        autograd.CALL_HANDLER = call_grad_function


def _first_grad_call(grad_fn, args, kwargs, config):
    """Compile ``grad_fn``'s first call; the function to capture from now on, or None (recorded
    on ``grad_fn``) when capture does not pay or the call raises (the tape then raises it)."""
    from .api import calling
    fn = calling(grad_fn)
    target = getattr(grad_fn, "fn", None)
    fn.__qualname__ = f"grad of {getattr(target, '__qualname__', None) or type(target).__name__}"
    cache = cache_for(fn.__code__)
    flat, names = flatten_call(fn, args, kwargs)
    with events.holding() as held:  # a grad function left to the tape leaves no trace in reports
        try:
            entry = compile_entry(fn, flat, names, config, cache, fn.__qualname__)
        except UserErrorWhileCapturing:
            entry = None
    if entry is None or not _worth_capturing(entry, fn.__code__):
        if entry is not None:
            cache.drop(lambda e: e is not entry)
        setattr(grad_fn, _CAPTURED_CALL, False)
        return None
    held.release()
    setattr(grad_fn, _CAPTURED_CALL, fn)
    events.record_user_function(fn.__qualname__)
    return fn


#: code objects of user functions the frame hook captured on its own (``capture run`` reports them)
_CAPTURED_USER_FUNCTIONS: "weakref.WeakSet" = weakref.WeakSet()

def captured_user_functions():
    """Qualified names of the user functions the frame hook captured as candidates (not
    ``construct``, not jitted), e.g. a ``train_step`` that became one whole-step graph."""
    return sorted(c.co_qualname for c in _CAPTURED_USER_FUNCTIONS)

def _is_framework_value(v) -> bool:
    """A value that means the function works with this framework: tensors, Cells, grad
    functions, the framework's modules, classes and functions."""
    if isinstance(v, (Tensor, Cell)):
        return True
    if isinstance(v, types.ModuleType):
        return v.__name__.split(".")[0] in _FRAMEWORK_PACKAGES
    if isinstance(v, (type, types.FunctionType, types.BuiltinFunctionType, types.MethodType)) or callable(v):
        mod = getattr(v, "__module__", None) or ""
        return mod.split(".")[0] in _FRAMEWORK_PACKAGES or hasattr(v, "grad_operation")
    return False

_FRAMEWORK_PACKAGES = frozenset(FRAMEWORK_PACKAGES)

def _touches_framework(fn, slots) -> bool:
    """Does ``fn`` read a framework value through its globals, closure, defaults or arguments?"""
    for v in slots:
        if _is_framework_value(v) or (type(v) in (tuple, list) and any(_is_framework_value(x) for x in v[:8])):
            return True
    g = fn.__globals__
    for name in fn.__code__.co_names:
        if name in g and _is_framework_value(g[name]):
            return True
    for cell in fn.__closure__ or ():
        try:
            if _is_framework_value(cell.cell_contents):
                return True
        except ValueError:  # an empty cell
            pass
    return any(_is_framework_value(v) for v in (fn.__defaults__ or ()))

def _worth_capturing(entry, code) -> bool:
    """A user function's first entry pays when it compiled ops: not a whole-frame fallback, not
    an empty graph, and at a graph break, a prefix graph with ops (a function that breaks at once,
    like a Cell's ``__init__`` building layers, would only be cut into resume functions) outside
    any loop (a loop that breaks, like ``for batch in dataset: train_step(...)``, runs eagerly and
    the functions it calls are captured on their own)."""
    if entry.eager or entry.graph is None or not entry.graph.nodes:
        return False
    return entry.plan is None or not has_loop(code)

def _frame_run_compiled(fn, entry, flat, config, *slots):
    out = _run_compiled(fn, entry, flat, config)
    if isinstance(out, _Suspect):
        args, kwargs = _call_from_slots(fn.__code__, slots)
        return _settle(fn, args, kwargs, entry, out, config)
    fast_call.arm_frame(_FrameCall.of(fn.__code__, config), fn, entry, cache_for(fn.__code__))
    return out

class _FrameCall(fast_call.FastCall):
    """The frames of one code object under one capture config, repeated in C by the frame hook
    (``_try_frame``, capture/_fast_call.c) once one ran a compiled entry the Python way."""

    _of: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # code -> {id(config): _FrameCall}

    def __init__(self, config):
        self.config = config

    @classmethod
    def of(cls, code, config):
        calls = cls._of.setdefault(code, {})
        call = calls.get(id(config))
        if call is None:
            call = calls[id(config)] = cls(config)
        return call

    def _call_slow(self, args, kwargs):
        raise TypeError("a frame call is made by the frame hook only")

    def _settle_fast(self, entry, call, error):
        """The graph a frame's call in C ran raised ``error``: settled as the Python way settles it
        (``call``: the frame's function and argument slots)."""
        fn, slots = call[0], call[1:]
        args, kwargs = _call_from_slots(fn.__code__, slots)
        return _settle(fn, args, kwargs, entry, _Suspect(error), self.config)

def _frame_after_user_error(fn, flat, r, config, cache, name, *slots):
    args, kwargs = _call_from_slots(fn.__code__, slots)
    return _run_eagerly_after_user_error(fn, args, kwargs, flat, r, config, cache, name)

_NOT_CAPTURED = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR

def _run_under_tape(entry, arrays, tensors, config):
    """A captured region called under ``grad``: one tape entry whose backward is a compiled graph.
    Nested tapes (higher-order gradients) replay the ops eagerly so the backward is itself
    differentiable; so does a region whose split fails (recorded once in the log), and a size of
    a shape-generic entry met for the first time (capture/dynamic.py: not compiled until it recurs)."""
    if len(_tape.ACTIVE) == 1 and not getattr(entry, "training_failed", False) and not entry.interpreted_calls:
        try:
            arena = getattr(entry.runner, "_arena", None)  # (forward and backward share its memory)
            return run_differentiable(entry, arrays, tensors,
                                      lambda g: build_runner(config, g, entry.device, arena=arena))
        except Exception as e:  # never fail a call that eager replay can do
            if interrupting(e) is not None:
                raise
            entry.training_failed = True
            log.warning("compiled backward for %s failed (%s: %s); replaying ops on the tape",
                        entry.name, type(e).__name__, e)
    return replay_eager(entry.graph, tensors)

def with_dump_path(err, path):
    """``err`` with the analyze_fail dump's path appended to its message (same exception type)."""
    msg = str(err)
    if path and DUMP_NOTE not in msg:
        msg += f"\n  {DUMP_NOTE}{path}"
    new = type(err)(msg)
    new.user_location = getattr(err, "user_location", None)
    return new

def _run_eagerly_after_user_error(fn, args, kwargs, flat, r, config, cache, name):
    """Capture found a user error. Run the frame eagerly: PyNative raises the same error (re-raised
    with the dump's path); if PyNative succeeds instead, capture was wrong: record an internal
    capture error, keep the frame eager and return PyNative's result (never fail a working script)."""
    try:
        result = call_eagerly(fn, args, kwargs)
    except (TypeError, ValueError) as e:  # keeps PyNative's traceback (the user's frames)
        raise with_dump_path(e, r.path).with_traceback(e.__traceback__) from None
    qual = name or fn.__qualname__
    if r.path:
        try:
            os.remove(r.path)  # no error is reported: don't leave its dump behind
        except OSError:
            pass
    with _cache.COMPILE_LOCK:
        try:
            raise r.error
        except Exception as err:
            info = internal_break(fn, qual, "internal capture error: graph building rejected a call that "
                                   "runs in PyNative", err)
        cache.add(eager_entry(fn, flat, info, qual, config))
    return result
