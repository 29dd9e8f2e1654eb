"""Entry points of graph mode, all routed through :func:`call_captured`.

``jit`` (decorator / function transform), GRAPH_MODE Cell calls, and ``Cell.compile`` look up the
per-code-object cache; on a miss the frame is translated into a graph (guards recorded), compiled
by the backend and cached. At a graph break the part before it is a compiled graph, the breaking
instruction runs eagerly and a resume function (itself captured) continues (capture/resume.py);
the break is recorded with its reason and line for ``explain()``. When the state at a break
cannot be rebuilt, or on an internal capture error, the frame runs eagerly.

Example:
    >>> import capture, runtime as ms
    >>> @capture.jit
    ... def f(x, y):
    ...     return ms.ops.relu(x * y + 1)
    >>> f(ms.Tensor([1.0, -2.0]), ms.Tensor([3.0, 4.0]))
    Tensor(shape=[2], dtype=Float32, value=[4., 0.])
"""
from __future__ import annotations

import functools
import inspect
import logging
import os
import threading
import time
import traceback
import types
import weakref

import numpy as np

from graph.errors import user_location
from graph.ir import CONST, GraphBuildError  # noqa: F401
from runtime import context as _context
from runtime import tape as _tape
from runtime.jit_api import JitConfig
from runtime.nn.cell import Cell
from runtime.parameter import Parameter
from runtime.tensor import Tensor

from . import backends
from .builder import SymTensor
from . import cache as _cache_mod
from . import cache as _cache
from .cache import Entry, cache_for
from .errors import CaptureUserError, FullGraphError, GraphBreak
from .guards import GuardSet
from .report import BreakInfo, CompileInfo, events
from .differentiable import run_differentiable
from .reconstruct import NotResumable, OutputPlan, Recipes
from .runner import fetch_inputs, replay_eager
from . import resume as _resume
from .translator import STOPPED, InstructionTranslator, Tracer
from .variables import (CellVariable, ConstantVariable, DictVariable, ListVariable,
                        TensorVariable, TupleVariable)
from .variables.containers import PLAIN_DICT_TYPES, plain_tuple

log = logging.getLogger("capture")


class CaptureConfig:
    __slots__ = ("fullgraph", "backend", "jit_config")

    def __init__(self, fullgraph=False, backend=None, jit_config=None):
        if jit_config is not None and not isinstance(jit_config, JitConfig):
            raise TypeError(f"jit: jit_config must be a JitConfig, got {type(jit_config).__name__}")
        if not isinstance(fullgraph, bool):
            raise TypeError(f"jit: fullgraph must be a bool, got {fullgraph!r}")
        backends.get_backend(backend)  # validates the name
        self.fullgraph = fullgraph
        self.backend = backend
        self.jit_config = jit_config or JitConfig()


DEFAULT_CONFIG = CaptureConfig()


# -- argument normalisation --------------------------------------------------------------------------
def _simple_signature(fn):
    code = fn.__code__
    return not (code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS)) and code.co_kwonlyargcount == 0


_SIGNATURES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def flatten_call(fn, args, kwargs):
    """Positional tuple of a call's arguments in the code's parameter order (defaults applied)."""
    code = fn.__code__
    if not kwargs and len(args) == code.co_argcount and _simple_signature(fn):
        return tuple(args), None
    sig = _SIGNATURES.get(fn)
    if sig is None:
        sig = _SIGNATURES[fn] = inspect.signature(fn)
    bound = sig.bind(*args, **kwargs)  # a bad call raises the same TypeError as calling fn
    bound.apply_defaults()
    names = list(bound.arguments)
    return tuple(bound.arguments.values()), names


# -- the dispatcher --------------------------------------------------------------------------------------
def call_captured(fn, args, kwargs, config: CaptureConfig = DEFAULT_CONFIG, name=None):
    """Run ``fn(*args, **kwargs)`` through the capture cache (compiling on a miss)."""
    fn = getattr(fn, "__wrapped_jit__", fn)
    if isinstance(fn, types.MethodType):  # a bound method: capture its function with self first
        fn, args = getattr(fn.__func__, "__wrapped_jit__", fn.__func__), (fn.__self__,) + tuple(args)
    if not isinstance(fn, types.FunctionType) or fn.__code__.co_flags & _NOT_CAPTURED or _TRACING.depth:
        # (while tracing, framework code calling a Cell/jitted function on symbolic tensors just
        # runs it: its ops are recorded into the graph being built)
        return fn(*args, **kwargs)
    flat, names = flatten_call(fn, args, kwargs)
    cache = cache_for(fn.__code__)
    entry = cache.lookup(flat, config, fn.__closure__)
    if entry is None:
        try:
            entry = compile_entry(fn, flat, names, config, cache, name)
        except _UserErrorWhileCapturing as r:
            return _run_eagerly_after_user_error(fn, args, kwargs, flat, r, config, cache, name)
    if entry.eager:
        return call_eagerly(fn, args, kwargs)
    out = _run_compiled(fn, entry, flat, config)
    if isinstance(out, _Suspect):
        return _settle(fn, args, kwargs, entry, out, config)
    return out


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
        return _Suspect(e)
    if entry.plan is not None:
        # graph break: rebuild the stack/locals, run the breaking instruction eagerly, resume
        return entry.plan.run(outs, flat)
    return entry.template.build(outs, flat)


def _settle(fn, args, kwargs, entry, suspect, config):
    """The compiled graph raised: run this call eagerly to tell whose error it is. If eager raises
    too, it is the user's (out-of-range label, MemoryError...): that exception propagates, with the
    user's file:line, and the entry stays compiled for the next call. If eager succeeds, the
    compiled graph was wrong: it is reported as an internal error and the entry turns eager."""
    result = call_eagerly(fn, args, kwargs)
    e = suspect.error
    if config.fullgraph:
        raise FullGraphError(f"internal error running the compiled graph of {entry.name}: "
                             f"{type(e).__name__}: {e}") from e
    entry.make_eager(_internal_break(fn, entry.name, "internal capture error while running the compiled graph", e))
    return result


def _run_graph(entry, flat, config):
    """The compiled graph's outputs (as Tensors) for the flat arguments; parameter updates applied.
    Only the graph itself runs here (``explain.recording`` times this as "time in compiled code")."""
    if entry.runner is None:  # a break before any op: nothing to run before the eager step
        return []
    arrays, tensors = fetch_inputs(entry.sources, flat)
    if _tape.ACTIVE and _any_tracked(tensors):
        outs = _run_under_tape(entry, arrays, tensors, config)
    else:
        outs, updates = entry.runner(arrays)
        for idx, arr in updates.items():
            tensors[idx]._data = arr
        outs = [Tensor._wrap(o) for o in outs]
    for i in entry.copy_outputs:  # graph constants returned: each call gets its own tensor
        outs[i] = Tensor._wrap(outs[i]._data.copy())
    return outs


# -- the frame-evaluation hook's side (capture/frame_eval) ---------------------------------------------
class _Bypass(threading.local):
    code = None


_BYPASS = _Bypass()


def call_eagerly(fn, args, kwargs):
    """``fn(*args, **kwargs)`` evaluated as plain Python: the frame hook lets exactly this frame
    through (frames it calls are still intercepted)."""
    _BYPASS.code = fn.__code__
    try:
        return fn(*args, **kwargs)
    finally:
        _BYPASS.code = None


#: code objects of jitted functions -> their config (id(code) -> (weakref to code, config))
JIT_CODES: dict = {}
#: set by capture.frame_eval: forgets the hook's cached decision for a code object
on_code_registered = None


def register_code(code, config) -> None:
    """Register a jitted function's code: with the frame hook enabled its frames are captured."""
    key = id(code)
    JIT_CODES[key] = (weakref.ref(code, lambda _r, key=key: JIT_CODES.pop(key, None)), config)
    if on_code_registered is not None:
        on_code_registered(code)


def jit_config_of(code):
    """The config ``code`` was registered with by ``jit``, or None."""
    item = JIT_CODES.get(id(code))
    if item is not None and item[0]() is code:
        return item[1]
    return None


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
    code = fn.__code__
    if _BYPASS.code is code:
        _BYPASS.code = None
        return None
    if _TRACING.depth or not isinstance(fn, types.FunctionType):
        return None
    flat, names = _flat_from_slots(code, slots)
    name = f"{type(slots[0]).__name__}.construct" if is_construct and slots else None
    cache = cache_for(code)
    entry = cache.lookup(flat, config, fn.__closure__)
    if entry is None:
        try:
            entry = compile_entry(fn, flat, names, config, cache, name)
        except _UserErrorWhileCapturing as r:
            return functools.partial(_frame_after_user_error, fn, flat, r, config, cache, name)
    if entry.eager:
        return None
    return functools.partial(_frame_run_compiled, fn, entry, flat, config)


def _frame_run_compiled(fn, entry, flat, config, *slots):
    out = _run_compiled(fn, entry, flat, config)
    if isinstance(out, _Suspect):
        args, kwargs = _call_from_slots(fn.__code__, slots)
        return _settle(fn, args, kwargs, entry, out, config)
    return out


def _frame_after_user_error(fn, flat, r, config, cache, name, *slots):
    args, kwargs = _call_from_slots(fn.__code__, slots)
    return _run_eagerly_after_user_error(fn, args, kwargs, flat, r, config, cache, name)


_NOT_CAPTURED = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR


class _TracingState(threading.local):
    depth = 0


_TRACING = _TracingState()


def _make_runner(config, graph):
    """Compile ``graph`` with the configured backend at the configured JitConfig level."""
    level = config.jit_config.jit_level if config.jit_config is not None else None
    return backends.make_runner(config.backend, graph, level)


def _run_under_tape(entry, arrays, tensors, config):
    """A captured region called under ``grad``: one tape entry whose backward is a compiled graph.
    Nested tapes (higher-order gradients) replay the ops eagerly so the backward is itself
    differentiable; so does a region whose split fails (recorded once in the log)."""
    if len(_tape.ACTIVE) == 1 and not getattr(entry, "training_failed", False):
        try:
            return run_differentiable(entry, arrays, tensors, lambda g: _make_runner(config, g))
        except Exception as e:  # never fail a call that eager replay can do
            entry.training_failed = True
            log.warning("compiled backward for %s failed (%s: %s); replaying ops on the tape",
                        entry.name, type(e).__name__, e)
    return replay_eager(entry.graph, tensors)


def _any_tracked(tensors):
    for tp in _tape.ACTIVE:
        for t in tensors:
            if id(t) in tp.tracked:
                return True
    return False


def _owner_key(fn, flat, config):
    """Recompile budgets are per Cell instance (many Dense layers share one construct), config and
    closure (many closures share one code object)."""
    return (id(flat[0]) if flat and isinstance(flat[0], Cell) else 0, id(config), id(fn.__closure__))


def _internal_break(fn, qual, what, e):
    tb = "".join(traceback.format_exception(type(e), e, e.__traceback__, limit=8))
    loc = getattr(e, "capture_loc", None) or (fn.__code__.co_filename, fn.__code__.co_firstlineno, "")
    info = BreakInfo(f"{what}: {type(e).__name__}: {e}", loc[0], loc[1], loc[2],
                     "please report this bug; the frame runs eagerly meanwhile", qual, internal=tb)
    log.warning("capture of %s failed internally; running eagerly\n%s", qual, tb)
    events.record_break(info)
    return info


def _eager_entry(fn, flat, info, qual, config):
    tracer = Tracer(qual)
    _arg_guards_only(tracer, flat)
    return Entry(tracer.guards, break_info=info, name=qual, config=config, closure=fn.__closure__)


def compile_entry(fn, flat, names, config, cache, name=None) -> Entry:
    entry = _compile_entry(fn, flat, names, config, cache, name)
    owner = _owner_key(fn, flat, config)
    entry.owner = owner
    if flat and isinstance(flat[0], Cell) and owner not in cache.watched:
        # entries hold the Cell only weakly; when it is collected, drop them (and its Parameters)
        cache.watched.add(owner)
        _cache.forget_when_dead(flat[0], cache, "forget_owner", owner)
    closure_key = ("closure", id(fn.__closure__))
    if fn.__closure__ is not None and closure_key not in cache.watched:
        # entries of a closure hold its cells: when the function dies, drop them
        cache.watched.add(closure_key)
        _cache.forget_when_dead(fn, cache, "forget_closure", id(fn.__closure__))
    return entry


def _compile_entry(fn, flat, names, config, cache, name=None) -> Entry:
    with _cache.COMPILE_LOCK:
        qual = name or fn.__qualname__
        owner = _owner_key(fn, flat, config)
        n = cache.compiles_per_owner.get(owner, 0)
        reason = cache.failure_reason(flat, config, fn.__closure__)
        disabled = cache.disabled.get(owner)
        if disabled is not None:
            return disabled  # over the recompile limit: eager (reported once, when it was hit)
        limit = _cache_mod.RECOMPILE_LIMIT  # read per call: users may change capture.cache.RECOMPILE_LIMIT
        if n >= limit or len(cache.entries) >= _cache_mod.ACCUMULATED_LIMIT:
            if n >= limit:
                msg = f"recompile limit ({limit}) reached for {qual}; last reason: {reason}"
            else:
                msg = (f"accumulated recompile limit ({_cache_mod.ACCUMULATED_LIMIT} entries for one code "
                       f"object, over all instances) reached for {qual}")
            if config.fullgraph:
                raise FullGraphError(msg + " (fullgraph=True)")
            log.warning(msg)
            info = BreakInfo(msg, fn.__code__.co_filename, fn.__code__.co_firstlineno, "",
                             "make input shapes/dtypes and the Python values read in construct stable "
                             "(or raise capture.cache.RECOMPILE_LIMIT)", qual)
            events.record_break(info)
            entry = Entry(GuardSet(), break_info=info, name=qual, config=config, closure=fn.__closure__)
            cache.disabled[owner] = entry
            return entry
        if n:
            events.record_recompile(qual, reason)
        cache.compiles_per_owner[owner] = n + 1
        t0 = time.perf_counter()
        tracer = Tracer(qual.replace(".", "_").replace("<", "").replace(">", ""))
        try:
            _TRACING.depth += 1
            try:
                graph, sources, template = translate(tracer, fn, flat, names)
            finally:
                _TRACING.depth -= 1
            runner = _make_runner(config, graph)
        except GraphBreak as e:
            if config.fullgraph:
                loc = e.loc or (fn.__code__.co_filename, fn.__code__.co_firstlineno, "")
                raise FullGraphError(f"graph break in {qual} (fullgraph=True): {e.reason}\n  at {loc[0]}:{loc[1]}"
                                     f"\n    {loc[2]}" + (f"\n  hint: {e.hint}" if e.hint else "")) from None
            info = BreakInfo.from_break(e, qual, fn)
            events.record_break(info)
            entry = None
            if e.resumable and e.root_index is not None and RESUME_ENABLED:
                entry = _compile_resume(fn, flat, names, config, qual, e, info, t0)
            if entry is None:
                entry = Entry(tracer.guards, break_info=info, name=qual, config=config, closure=fn.__closure__)
            cache.add(entry)
            return entry
        except CaptureUserError as e:
            raise _UserErrorWhileCapturing(e.error, _dump_analyze_fail(e.graph, qual)) from None
        except (FullGraphError, KeyboardInterrupt):
            raise
        except Exception as e:  # an internal capture error: never crash a working script
            if config.fullgraph:
                raise FullGraphError(f"internal capture error in {qual}: {type(e).__name__}: {e}") from e
            info = _internal_break(fn, qual, "internal capture error", e)
            entry = _eager_entry(fn, flat, info, qual, config)
            cache.add(entry)
            return entry
        entry = Entry(tracer.guards, graph=graph, sources=sources, template=template, name=qual, config=config,
                      closure=fn.__closure__)
        entry.runner = runner
        entry.copy_outputs = tuple(i for i, v in enumerate(graph.outputs) if v.kind == CONST)
        entry.compile_time = time.perf_counter() - t0
        cache.add(entry)
        if graph.nodes or fn.__code__ not in _resume.RESUME_INFO:  # (a resume that only returns: no graph)
            events.record_compile(CompileInfo(qual, graph, entry.guard_set.descs, entry.compile_time, runner))
            _maybe_save(graph, qual)
        return entry


#: graph breaks resume (compiled prefix + eager instruction + captured resume function); when
#: False a break makes its whole frame eager
RESUME_ENABLED = os.environ.get("CAPTURE_NO_RESUME", "") in ("", "0")


def _compile_resume(fn, flat, names, config, qual, brk, info, t0):
    """Re-translate ``fn`` up to the breaking root instruction and build an entry that runs the
    prefix graph, the instruction eagerly and a resume function (see capture.resume). Returns
    None when the state at the break cannot be rebuilt (the frame then runs eagerly)."""
    tracer = Tracer(qual.replace(".", "_").replace("<", "").replace(">", "").replace(" ", "_")
                    .replace("(", "").replace(")", ""))
    try:
        _TRACING.depth += 1
        try:
            root = _setup_root(tracer, fn, flat, names)
            root.stop_at = brk.root_count
            out = root.run()
        finally:
            _TRACING.depth -= 1
        if out is not STOPPED or root.ip != brk.root_index:
            raise _resume.NotResumable("the re-translation did not reach the break")
        plan, outputs = _resume.make_plan(root, fn, config, qual, tracer)
        graph = tracer.builder.graph
        graph.set_outputs(outputs)
        _guard_lifted_tensors(tracer)
        graph.verify()
        runner = _make_runner(config, graph) if graph.nodes else None
    except (FullGraphError, KeyboardInterrupt):
        raise
    except Exception as e:  # not resumable (or an internal error): the frame runs eagerly
        log.debug("capture: cannot resume after the break in %s: %s: %s", qual, type(e).__name__, e)
        events.record_resume_fallback(qual, f"{type(e).__name__}: {e}")
        return None
    entry = Entry(tracer.guards, graph=graph, sources=tracer.builder.sources, template=None, name=qual,
                  config=config, closure=fn.__closure__)
    entry.runner = runner
    entry.plan = plan
    entry.break_info = info
    entry.compile_time = time.perf_counter() - t0
    if graph.nodes:
        events.record_compile(CompileInfo(qual, graph, entry.guard_set.descs, entry.compile_time, runner))
        _maybe_save(graph, qual)
    return entry


class _UserErrorWhileCapturing(Exception):
    """Graph building hit a user error (bad shapes/dtypes): carries it and the IR dump's path."""

    def __init__(self, error, path):
        super().__init__(str(error))
        self.error = error
        self.path = path


_DUMP_NOTE = "IR of the graph up to the failing op: "


def _with_dump_path(err, path):
    """``err`` with the analyze_fail dump's path appended to its message (same exception type)."""
    msg = str(err)
    if path and _DUMP_NOTE not in msg:
        msg += f"\n  {_DUMP_NOTE}{path}"
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
        raise _with_dump_path(e, r.path).with_traceback(e.__traceback__) from None
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
            info = _internal_break(fn, qual, "internal capture error: graph building rejected a call that "
                                   "runs in PyNative", err)
        cache.add(_eager_entry(fn, flat, info, qual, config))
    return result


def _arg_guards_only(tracer, flat):
    for i, v in enumerate(flat):
        tracer.guards.argument(f"args[{i}]", v, f"argument {i}")


_ITER_TYPES = (type(iter([])), type(iter(())), type(iter(range(0))), type(iter({})), types.GeneratorType,
               type(iter(set())), type(iter("")))


def _wrap_root(tx, value, expr, path, desc, is_resume=False):
    g = tx.guards
    memo = getattr(tx.tracer, "root_memo", None)
    if memo is not None and isinstance(value, (list, dict)):
        # the same list/dict passed twice (aliased locals of a resume function) is one Variable
        hit = memo.get(id(value))
        if hit is not None:
            g.add(f"{expr} is {hit[1]}", f"{desc} is {hit[2]}")
            return hit[0]
    if memo is not None and not isinstance(value, (int, float, bool, str, type(None), tuple)):
        tx.tracer.arg_paths.setdefault(id(value), path)
    if is_resume and (isinstance(value, (np.ndarray,) + _ITER_TYPES) or
                      (isinstance(value, types.MethodType) and isinstance(value.__self__, Tensor))):
        # run-time data handed over by an earlier break: guarded by type only
        from .resume import RuntimeValueVariable
        g.type_is(expr, type(value), desc)
        return RuntimeValueVariable(value, path)
    var = _wrap_containers_once(tx, value, lambda: _wrap_root_value(tx, value, expr, path, desc, is_resume))
    if memo is not None and isinstance(value, (list, dict)):
        memo[id(value)] = (var, expr, desc)
    return var


def _wrap_containers_once(tx, value, wrap):
    """``wrap()`` for ``value``, refusing a container that contains itself (``a.append(a)``):
    modelling it item by item would never end, so the frame runs eagerly."""
    if not isinstance(value, (tuple, list, dict)):
        return wrap()
    open_ids = tx.tracer.wrapping
    if id(value) in open_ids:
        raise GraphBreak(f"a {type(value).__name__} that contains itself", resumable=False,
                         hint="self-referencing containers are not traced; the frame runs eagerly")
    open_ids.add(id(value))
    try:
        return wrap()
    finally:
        open_ids.discard(id(value))


def _wrap_root_value(tx, value, expr, path, desc, is_resume):
    g = tx.guards
    g.name_object(value, desc)
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        g.tensor(expr, value, desc)
        return TensorVariable(tx.builder.arg_input(value, path, desc))
    if isinstance(value, (int, float, bool, str, type(None))):
        g.constant(expr, value, desc)
        return ConstantVariable(value)
    if (isinstance(value, tuple) and plain_tuple(value)) or type(value) is list:
        g.length(expr, value, desc)
        items = [_wrap_root(tx, v, f"{expr}[{i}]", path + (i,), f"{desc}[{i}]", is_resume)
                 for i, v in enumerate(value)]
        var = TupleVariable(items, cls=type(value)) if isinstance(value, tuple) \
            else ListVariable(items, external=True)
        var.source = ("arg", path)  # returned (or live at a break) as the caller's own object
        return var
    if type(value) in PLAIN_DICT_TYPES and all(isinstance(k, str) for k in value):
        g.dict_keys(expr, value, desc)
        var = DictVariable({k: _wrap_root(tx, v, f"{expr}[{k!r}]", path + (k,), f"{desc}[{k!r}]", is_resume)
                            for k, v in value.items()}, external=True, cls=type(value))
        var.source = ("arg", path)
        return var
    if isinstance(value, Cell):
        g.arg_identity(expr, value, desc)  # weakly: entries must not keep Cells alive
        return CellVariable(value)
    g.identity(expr, value, desc)
    return tx.wrap(value)


def _setup_root(tracer, fn, flat, names):
    """The root translator of a frame, its arguments and closure wrapped (guards recorded)."""
    code = fn.__code__
    names = names or list(code.co_varnames[:code.co_argcount])
    tracer.call_site = user_location(3)
    tracer.arg_paths = {}
    tracer.root_memo = {}
    root = InstructionTranslator(tracer, code, fn.__globals__, {}, {}, depth=0)
    local_vars = {}
    is_resume = code in _resume.RESUME_INFO
    for i, (nm, value) in enumerate(zip(names, flat)):
        local_vars[nm] = _wrap_root(root, value, f"args[{i}]", (i,), nm, is_resume)
    root.locals = local_vars
    root.self_var = local_vars.get(names[0]) if names else None
    if code.co_freevars:
        for nm, cell in zip(code.co_freevars, fn.__closure__ or ()):
            root.locals[nm] = tracer.box_for_cell(root, cell, nm)
        if "__class__" in code.co_freevars:
            root.cls = fn.__closure__[code.co_freevars.index("__class__")].cell_contents
    tracer.guards.add(f"{tracer.guards.obj(_context._state)}['mode'] == {_context.mode()}",
                      f"context mode is {'GRAPH_MODE' if _context.mode() == 0 else 'PYNATIVE_MODE'}")
    return root


def _guard_lifted_tensors(tracer):
    """Lifted tensors (Parameters, tensors held by objects): their dtype and shape were baked into
    the graph. Named as the code reached them (``self.fc1.weight``), else by Parameter name."""
    g = tracer.guards
    for obj in tracer.builder.lifted_objs.values():
        g.tensor(g.obj(obj), obj, g.path_of(obj, getattr(obj, "name", None) or "captured tensor"))


def translate(tracer, fn, flat, names):
    """Translate one frame; returns (graph, input sources, output plan: how the result is
    rebuilt and which side effects are performed after the graph runs)."""
    root = _setup_root(tracer, fn, flat, names)
    ret = root.run()
    builder = tracer.builder
    rec = Recipes(builder, tracer.arg_paths, tracer.free_cells)
    try:
        result = rec.of(ret)
        effects = tracer.side_effects.recipes(rec, tracer.changed_cells())
    except NotResumable as e:
        raise GraphBreak(f"the frame's result or side effects cannot be rebuilt: {e}", resumable=False,
                         loc=root.loc) from None
    builder.graph.set_outputs(rec.outputs)
    _guard_lifted_tensors(tracer)
    builder.graph.verify()
    return builder.graph, builder.sources, OutputPlan(result, effects)


def _dump_analyze_fail(graph, qual):
    if graph is None:
        return None
    directory = _context.get_context("save_graphs_path") or "."
    try:
        path = os.path.join(directory, f"analyze_fail_{qual.replace('.', '_').replace('<', '').replace('>', '')}.ir")
        os.makedirs(directory, exist_ok=True)
        text = graph.format() + "\n# the next op failed shape/dtype inference at " + \
            (f"{graph.current_loc[0]}:{graph.current_loc[1]}: {graph.current_loc[2]}" if graph.current_loc else "?")
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            f.write(text + "\n")
        os.replace(tmp, path)
        return os.path.abspath(path)
    except OSError:
        return None


def _maybe_save(graph, qual):
    if _context.get_context("save_graphs"):
        stem = f"{len(events.saved):04d}_{graph.name}"
        events.saved.append(graph.dump(_context.get_context("save_graphs_path"), stem))


# -- user-facing wrappers ------------------------------------------------------------------------------
class JitFunction:
    """What ``jit(fn)`` returns: calls go through the capture cache; works as a method too."""

    def __init__(self, fn, config: CaptureConfig):
        self.__wrapped_jit__ = fn
        self.config = config
        self.__name__ = getattr(fn, "__name__", "jit_function")
        self.__qualname__ = getattr(fn, "__qualname__", self.__name__)
        self.__doc__ = getattr(fn, "__doc__", None)
        self.__module__ = getattr(fn, "__module__", None)
        if isinstance(getattr(fn, "__code__", None), types.CodeType):
            register_code(fn.__code__, config)

    def __call__(self, *args, **kwargs):
        return call_captured(self.__wrapped_jit__, args, kwargs, self.config)

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return types.MethodType(self, obj)

    def __repr__(self):
        return f"<jit {self.__qualname__}>"


def jit(fn=None, *, fullgraph=False, backend=None, jit_config=None, **options):
    """Capture ``fn`` (a function, a ``construct`` method, or a Cell) into graphs.

    ``fullgraph=True`` raises instead of falling back at a graph break; ``backend`` picks the
    executor ("numpy" reference interpreter, or a registered compiler / callable);
    ``jit_config`` is an ``ms.JitConfig``.
    """
    if options:
        raise TypeError(f"jit: unknown option(s) {sorted(options)}")
    config = CaptureConfig(fullgraph, backend, jit_config)
    if fn is None:
        return lambda f: jit(f, fullgraph=fullgraph, backend=backend, jit_config=jit_config)
    if isinstance(fn, Cell):
        construct = type(fn).construct
        construct = getattr(construct, "__wrapped_jit__", construct)
        object.__setattr__(fn, "_jit", types.MethodType(JitFunction(construct, config), fn))
        return fn
    if isinstance(fn, JitFunction):
        return fn
    if isinstance(fn, types.MethodType):
        return types.MethodType(JitFunction(fn.__func__, config), fn.__self__)
    if not callable(fn):
        raise TypeError(f"jit: expected a function or Cell, got {type(fn).__name__}")
    if not isinstance(fn, types.FunctionType):
        return JitFunction(_calling(fn), config)
    return JitFunction(fn, config)


def _calling(target):
    """A Python function that calls ``target`` (a ``grad``/``value_and_grad`` function, a
    ``functools.partial``, an object with ``__call__``): what ``jit`` captures for callables that
    have no bytecode of their own. ``target`` is a closure variable, so the cache guards on it."""
    def call(*args, **kwargs):
        return target(*args, **kwargs)

    call.__name__ = call.__qualname__ = getattr(target, "__name__", type(target).__name__)
    return call


class GraphModeHandler:
    """Registered in ``runtime.context``: runs Cells captured when mode=GRAPH_MODE."""

    def __call__(self, cell, args, kwargs):
        construct = type(cell).construct
        return call_captured(construct, (cell,) + tuple(args), kwargs, DEFAULT_CONFIG,
                             name=f"{type(cell).__name__}.construct")

    def compile(self, cell, args, kwargs):
        construct = getattr(type(cell).construct, "__wrapped_jit__", type(cell).construct)
        flat, names = flatten_call(construct, (cell,) + tuple(args), kwargs)
        cache = cache_for(construct.__code__)
        entry = cache.lookup(flat, DEFAULT_CONFIG, construct.__closure__)
        if entry is None:
            try:
                entry = compile_entry(construct, flat, names, DEFAULT_CONFIG, cache,
                                      f"{type(cell).__name__}.construct")
            except _UserErrorWhileCapturing as r:
                raise _with_dump_path(r.error, r.path) from None
        if not entry.eager and cell._jit is None:
            object.__setattr__(cell, "_jit", types.MethodType(JitFunction(construct, DEFAULT_CONFIG), cell))
        return entry


SymTensor  # noqa: B018 - imported so the symbolic bind handler is registered
