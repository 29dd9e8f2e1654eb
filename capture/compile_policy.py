"""Compile policy: when and how a frame becomes a cache entry.

:func:`compile_entry` translates a frame into a graph (``translate``: root arguments wrapped by
``capture.variable_builder``, the bytecode run by ``capture.translator``, the result and side
effects turned into an output plan by ``capture.reconstruct``), compiles it with the configured
backend, and applies the recompile budget (per Cell instance, config and closure; past it the
frame runs eagerly and ``explain()`` says why). A graph break compiles the prefix and a resume
plan (``capture.resume``); a frame that cannot resume, or an internal capture error, becomes an
eager entry, never a failing call."""
from __future__ import annotations

import contextlib
import dis
import gc
import logging
import os
import threading
import time
import traceback

from graph import config as settings
from graph import symint
from graph.errors import user_location
from graph.ir import CONST
from runtime import context as _context
from runtime.jit_api import JitConfig
from runtime.nn.cell import Cell

from . import backends
from . import cache as _cache
from . import fast_call
from . import guard_program  # noqa: F401 - (with the compiler, not in a first call's guard phase)
from . import dynamic as _dynamic
from . import symbolic_sizes
from . import resume as _resume
from .cache import Entry
from codegen.cpu.parallel_compile import collection_paused

from .errors import CaptureUserError, FullGraphError, GraphBreak, interrupting, out_of_memory
from .guards import GuardSet
from .reconstruct import NotResumable, OutputPlan, Recipes
from .sources import Arg, Attr, Item, TypeOf
from .report import BreakInfo, CompileInfo, events
from .runner import device_of_inputs
from .translator import STOPPED, InstructionTranslator, Tracer
from .variable_builder import wrap_argument

log = logging.getLogger("capture")


class CaptureConfig:
    __slots__ = ("fullgraph", "backend", "jit_config", "max_instructions", "resume_in_loops", "input_signature")

    def __init__(self, fullgraph=False, backend=None, jit_config=None, max_instructions=None,
                 resume_in_loops=True, input_signature=None):
        if jit_config is not None and not isinstance(jit_config, JitConfig):
            raise TypeError(f"jit: jit_config must be a JitConfig, got {type(jit_config).__name__}")
        if not isinstance(fullgraph, bool):
            raise TypeError(f"jit: fullgraph must be a bool, got {fullgraph!r}")
        backends.get_backend(backend)  # validates the name
        self.fullgraph = fullgraph
        self.backend = backend
        self.jit_config = jit_config or JitConfig()
        # bytecode instructions one translation may run before it gives up (None: the
        # translator's own, generous limit)
        self.max_instructions = max_instructions
        # whether a graph break in a function with a loop compiles the prefix and resumes (False:
        # the whole function runs eagerly)
        self.resume_in_loops = resume_in_loops
        # ``jit(input_signature=...)``: the declared inputs (Tensors / placeholders), or None
        self.input_signature = _signature(input_signature)

def _signature(sig):
    """``input_signature`` as a tuple of Tensors (placeholders allowed), or None."""
    from runtime.tensor import Tensor
    if sig is None:
        return None
    items = (sig,) if isinstance(sig, Tensor) else tuple(sig) if isinstance(sig, (tuple, list)) else None
    if items is None or not all(t is None or isinstance(t, Tensor) for t in items):
        raise TypeError("jit: input_signature must be a Tensor or a tuple of Tensors (placeholders "
                        f"Tensor(shape=[None, ...], dtype=...) allowed), got {sig!r}")
    return items

DEFAULT_CONFIG = CaptureConfig()
#: user functions the frame hook tries on its own: a Python loop over thousands of items would be
#: unrolled into a huge graph, so such a translation gives up early (a whole LeNet5 train step is
#: ~900 instructions); a loop that breaks (``for batch in data: ...; print(loss)``) runs eagerly
#: without compiling the prefix (the functions it calls are captured on their own)
USER_FUNCTION_CONFIG = CaptureConfig(max_instructions=20_000, resume_in_loops=False)


def has_loop(code) -> bool:
    """Does ``code`` jump backwards (a for/while loop)?"""
    return any(ins.opname.startswith("JUMP_BACKWARD") or (ins.opname.startswith("JUMP_ABSOLUTE")
                                                          and ins.argval < ins.offset)
               for ins in dis.get_instructions(code))

class _TracingState(threading.local):
    depth = 0

#: how deep this thread is in translating frames (``capture.dispatch``, ``capture.export`` read it)
TRACING = _TracingState()

@contextlib.contextmanager
def _tracing():
    """While this thread translates a frame: framework code calling a Cell or jitted function on
    symbolic values just runs it (``call_captured``), so no jitted call repeats an entry in C."""
    TRACING.depth += 1
    try:
        with fast_call.suspended(), symint.tagging():  # (graph.symint: sizes keep their origin)
            yield
    finally:
        TRACING.depth -= 1

def build_runner(config, graph, device="CPU", code=None, arena=None):
    """Compile ``graph`` with the configured backend (by default the one of ``device``, where the
    graph's tensors are) at the configured JitConfig level; the graphs of one ``code`` object
    share one arena (their intermediates' memory: codegen/cpu/arena.py)."""
    level = config.jit_config.jit_level if config.jit_config is not None else None
    if arena is None and code is not None:
        arena = _cache.cache_for(code).arena
    return backends.make_runner(config.backend, graph, level, device=device, arena=arena)

def _owner_key(fn, flat, config):
    """Recompile budgets are per Cell instance (many Dense layers share one construct), config and
    closure (many closures share one code object)."""
    return (id(flat[0]) if flat and isinstance(flat[0], Cell) else 0, id(config), id(fn.__closure__))

def internal_break(fn, qual, what, e):
    """The BreakInfo (logged and recorded) of an internal error ``e`` while ``what``: the frame
    runs eagerly."""
    tb = "".join(traceback.format_exception(type(e), e, e.__traceback__, limit=8))
    loc = getattr(e, "capture_loc", None) or (fn.__code__.co_filename, fn.__code__.co_firstlineno, "")
    info = BreakInfo(f"{what}: {type(e).__name__}: {e}", loc[0], loc[1], loc[2],
                     "please report this bug; the frame runs eagerly meanwhile", qual, internal=tb)
    log.warning("capture of %s failed internally; running eagerly\n%s", qual, tb)
    events.record_break(info)
    return info

def eager_entry(fn, flat, info, qual, config):
    """An entry that runs ``fn`` eagerly for calls like ``flat`` (its arguments guarded), because of
    the break ``info``."""
    tracer = Tracer(qual)
    _arg_guards_only(tracer, flat)
    return Entry(tracer.guards, break_info=info, name=qual, config=config, closure=fn.__closure__)

def resolve(fn, flat, names, config, cache, name=None) -> Entry:
    """The entry that runs ``fn`` on ``flat``: the cache's, or compiled now on a miss (the one
    "look up, compile on a miss" of every way a call reaches capture: a jitted call, a GRAPH_MODE
    Cell call, the frame hook). Raises :class:`UserErrorWhileCapturing` as :func:`compile_entry`."""
    entry = cache.lookup(flat, config, fn.__closure__, fn.__globals__)
    return entry if entry is not None else compile_entry(fn, flat, names, config, cache, name)

def compile_entry(fn, flat, names, config, cache, name=None) -> Entry:
    entry = _compile_entry(fn, flat, names, config, cache, name)
    entry.globals = fn.__globals__
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
    """The entry for a call whose lookup missed: compiled now, within the recompile budget.

    Compiles take ``COMPILE_LOCK``, so threads meeting a new shape together compile it once: the
    first one compiles, the others wait for the lock and then find its entry (the lookup is made
    again under the lock) instead of compiling the shape again and spending the budget on
    duplicates. The lock is reentrant: a compile that captures a call of the same code (on the
    same thread) finds no entry yet and compiles it as before, never waiting on itself."""
    with _cache.COMPILE_LOCK:
        entry = cache.lookup(flat, config, fn.__closure__, fn.__globals__)
        if entry is not None:  # another thread compiled it while this one waited
            return entry
        qual = name or fn.__qualname__
        owner = _owner_key(fn, flat, config)
        disabled = cache.disabled.get(owner)
        if disabled is not None:
            return disabled  # over the recompile limit: eager (reported once, when it was hit)
        reason = cache.failure_reason(flat, config, fn.__closure__, fn.__globals__, owner)
        candidate, change, declared = _dynamic_candidate(fn, flat, config, cache, owner)
        # a new size of a declared dynamic dimension is not a recompile the limit counts
        free = change is not None and all(d in declared for sym in change for d in sym.dims)
        msg = None if free else cache.over_budget(owner, qual, reason)
        if msg is not None:
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
        if free:
            events.record_recompile(qual, f"{reason} (declared dynamic)")
        elif cache.charge(owner):
            events.record_recompile(qual, reason)
        # A trace differing from an earlier one only in sizes probably makes the entry
        # shape-generic, whose new sizes run interpreted until they recur (capture.dynamic
        # TIER_UP_CALLS): so does this one, instead of compiling a size that may not come back
        interpret = change is not None and _dynamic.TIER_UP_CALLS > 1
        try:
            entry = _compile_new(fn, flat, names, config, cache, qual, interpret=interpret)
        except BaseException as e:
            if interrupting(e) is e and not free:  # (the user's signal: this compile does not count)
                cache.refund(owner)
            raise
        if change is not None and entry.graph is not None:
            entry = _make_dynamic(fn, config, cache, qual, candidate, entry, change, declared, names)
            if entry.interpreted_calls and entry.dynamic is None:  # (refused: specialised, so compiled now)
                with collection_paused():
                    entry.runner = build_runner(config, entry.graph, entry.device, fn.__code__)
                entry.interpreted_calls = 0
        if not free and entry.charged_to is None:
            entry.charged_to = owner  # (given back if the entry dies with a referent: CodeCache.forget_entry)
        if settings.get("CAPTURE_COLLECT_AFTER_COMPILE"):
            gc.collect()  # (tests: what the entry holds weakly and nothing else holds dies now)
        return entry

def _dynamic_candidate(fn, flat, config, cache, owner):
    """(entry, size symbols, declared dims): an entry of this owner that ``flat`` fails only by
    tensor arguments' sizes (capture.dynamic.size_changes; a shape-generic entry is compared
    through the exact guards of its first trace), else (None, None, declared). Only for the
    framework's own backends (a user's backend callable may change the graph it is given, which
    the comparison reads)."""
    declared = _dynamic.declared_dims(fn, flat, config)
    if not _dynamic.ENABLED or not (config.backend is None or isinstance(config.backend, str)):
        return None, None, declared
    for e in cache.entries:
        if (e.config is not config or e.closure is not fn.__closure__ or e.owner != owner or e.graph is None
                or e.plan is not None or (e.globals is not None and e.globals is not fn.__globals__)):
            continue
        base = e.dynamic.base if e.dynamic is not None else e
        if base.shape_reads is None:
            continue
        change = _dynamic.size_changes(base.guard_set, flat)
        if change is not None:
            return e, change, declared
    return None, None, declared

def _make_dynamic(fn, config, cache, qual, candidate, entry, change, declared, names):
    """Try to merge the entry just compiled with ``candidate`` (or with the first trace of a
    generic ``candidate``) into one shape-generic entry (capture.dynamic); reports the outcome
    for ``explain()``."""
    code = fn.__code__

    def arg_name(i):
        return names[i] if names and i < len(names) else code.co_varnames[i] if i < code.co_argcount else f"args[{i}]"
    which = "; ".join(", ".join(f"{arg_name(i)} dim {d}" for i, d in sym.dims) for sym in change)
    sizes = "; ".join(f"{sym.n1} -> {sym.n2}" for sym in change)
    how = "declared" if all(d in declared for sym in change for d in sym.dims) else "automatic"
    device = entry.device
    replaced = candidate if candidate.dynamic is not None else None
    base = candidate.dynamic.base if replaced is not None else candidate
    try:
        generic = _dynamic.generalise(cache, base, entry, change, declared,
                                      lambda g: build_runner(config, g, device, code), replaced)
    except _dynamic.Refused as r:
        events.record_dynamic(qual, f"{which} ({how}) stays specialised per size ({sizes}): {r}")
        return entry
    exprs = generic.dynamic.size_expressions()
    computed = f" (sizes computed in the graph: {', '.join(exprs)})" if exprs else ""
    events.record_dynamic(qual, f"{which} is dynamic ({how}): sizes {sizes} traced to the same graph; "
                                f"other sizes >= {_dynamic.MIN_GENERIC_SIZE} reuse it without translating{computed}")
    return generic

def _compile_new(fn, flat, names, config, cache, qual, break_on_start=None, interpret=False) -> Entry:
    """Translate and compile a frame the budget allows (``COMPILE_LOCK`` held). Exceptions that
    are not capture's own (:func:`capture.errors.interrupting`: KeyboardInterrupt, an exception a
    signal handler raised) propagate unchanged, leaving no entry and no report behind.
    ``interpret``: a whole graph runs through the reference interpreter for now (the entry's
    ``interpreted_calls`` is 1: capture.dynamic compiles it when its size recurs)."""
    t0 = time.perf_counter()
    tracer = Tracer(qual.replace(".", "_").replace("<", "").replace(">", ""))
    if config.max_instructions is not None:
        tracer.max_instructions = config.max_instructions
    tracer.break_on_start = break_on_start
    pending = None  # the user's asynchronous exception, re-raised outside the handlers (unchanged)
    try:
        # (translation and compilation allocate objects that stay alive: no collections meanwhile)
        with collection_paused():
            with _tracing():
                graph, sources, template = translate(tracer, fn, flat, names)
            device = device_of_inputs(sources, flat)
            runner = backends.numpy_backend(graph) if interpret else build_runner(config, graph, device, fn.__code__)
    except GraphBreak as e:
        pending = interrupting(e)
        started = getattr(e, "started_generator", None)
        if pending is None and started is not None and break_on_start is None and not config.fullgraph:
            # a generator the frame started outlives it: translate again, breaking where it is
            # first started (it can be made again there, and runs in Python from then on)
            return _compile_new(fn, flat, names, config, cache, qual, break_on_start=started, interpret=interpret)
        if pending is None:
            return _break_entry(fn, flat, names, config, cache, qual, tracer, e, t0)
    except CaptureUserError as e:
        raise UserErrorWhileCapturing(e.error, _dump_analyze_fail(e.graph, qual)) from None
    except FullGraphError:
        raise
    except Exception as e:  # an internal capture error: never crash a working script
        pending = interrupting(e)
        if pending is None:
            if config.fullgraph:
                raise FullGraphError(f"internal capture error in {qual}: {type(e).__name__}: {e}") from e
            oom = out_of_memory(e)
            info = (out_of_memory_break(fn, qual, "compiling", oom) if oom is not None
                    else internal_break(fn, qual, "internal capture error", e))
            entry = eager_entry(fn, flat, info, qual, config)
            cache.add(entry)
            return entry
    if pending is not None:
        raise pending
    entry = _compiled_entry(fn, qual, config, tracer.guards, graph, sources, template, runner, device, t0)
    entry.interpreted_calls = 1 if interpret else 0
    entry.shape_reads = list(tracer.builder.shape_reads)
    entry.size_exprs = tracer.builder.size_exprs
    cache.add(entry)
    return entry

def _break_entry(fn, flat, names, config, cache, qual, tracer, e, t0) -> Entry:
    """The entry of a frame whose translation met the graph break ``e``: a compiled prefix and a
    resume function where it can resume, else the eager frame."""
    if config.fullgraph:
        loc = e.loc or (fn.__code__.co_filename, fn.__code__.co_firstlineno, "")
        raise FullGraphError(f"graph break in {qual} (fullgraph=True): {e.reason}\n  at {loc[0]}:{loc[1]}"
                             f"\n    {loc[2]}" + (f"\n  hint: {e.hint}" if e.hint else "")) from None
    info = BreakInfo.from_break(e, qual, fn)
    events.record_break(info)
    entry = None
    if e.resumable and e.root_index is not None and RESUME_ENABLED and \
            (config.resume_in_loops or not has_loop(fn.__code__)):
        entry = _compile_resume(fn, flat, names, config, qual, e, info, t0)
    if entry is None:
        entry = Entry(tracer.guards, break_info=info, name=qual, config=config, closure=fn.__closure__)
    cache.add(entry)
    return entry

def out_of_memory_break(fn, qual, what, e):
    """A MemoryError while compiling or running a frame: the machine has not the memory the
    shapes need (the user's problem, not capture's): reported as such, never as a capture bug."""
    info = BreakInfo(f"{what} {qual} ran out of memory: {e}", fn.__code__.co_filename, fn.__code__.co_firstlineno,
                     "", "the frame runs eagerly; smaller shapes (a smaller batch) fit in memory", qual)
    log.warning("%s %s ran out of memory (%s); running eagerly", what, qual, e)
    events.record_break(info)
    return info

def _compiled_entry(fn, qual, config, guard_set, graph, sources, template, runner, device, t0) -> Entry:
    """The entry of a freshly translated frame, recorded for ``explain()``. ``warm_start``: its
    compiled graph's schedule was read from the disk cache (``capture.persist``), saved by an
    earlier compile of the same graph."""
    warm_start = bool(getattr(runner, "warm_start", False))
    entry = Entry(guard_set, graph=graph, sources=sources, template=template, name=qual, config=config,
                  closure=fn.__closure__)
    entry.runner = runner
    entry.device = device
    entry.copy_outputs = tuple(i for i, v in enumerate(graph.outputs) if v.kind == CONST)
    entry.compile_time = time.perf_counter() - t0
    entry.warm_start = warm_start
    if graph.nodes or fn.__code__ not in _resume.RESUME_INFO:  # (a resume that only returns: no graph)
        events.record_compile(CompileInfo(qual, graph, guard_set.descs, entry.compile_time, runner,
                                          warm_start=warm_start))
        _maybe_save(graph, qual)
    return entry

#: graph breaks resume (compiled prefix + eager instruction + captured resume function); when
#: False a break makes its whole frame eager
RESUME_ENABLED = not settings.get("CAPTURE_NO_RESUME")

def _compile_resume(fn, flat, names, config, qual, brk, info, t0):
    """Re-translate ``fn`` up to the breaking root instruction and build an entry that runs the
    prefix graph, the instruction eagerly and a resume function (see capture.resume). Returns
    None when the state at the break cannot be rebuilt (the frame then runs eagerly)."""
    tracer = Tracer(qual.replace(".", "_").replace("<", "").replace(">", "").replace(" ", "_")
                    .replace("(", "").replace(")", ""))
    try:
        with _tracing():
            root = _setup_root(tracer, fn, flat, names)
            root.stop_at = brk.root_count
            out = root.run()
        if out is not STOPPED or root.ip != brk.root_index:
            raise _resume.NotResumable("the re-translation did not reach the break")
        plan, outputs = _resume.make_plan(root, fn, config, qual, tracer)
        graph = tracer.builder.graph
        graph.set_outputs(outputs)
        _guard_lifted_tensors(tracer)
        symbolic_sizes.strip(graph)  # (a prefix graph is never shape-generic: plain ints)
        graph.verify()
        device = device_of_inputs(tracer.builder.sources, flat)
        runner = build_runner(config, graph, device, fn.__code__) if graph.nodes else None
    except FullGraphError:
        raise
    except Exception as e:  # not resumable (or an internal error): the frame runs eagerly
        pending = interrupting(e)
        if isinstance(e, _resume.InvalidGeneratedCode):
            if _resume.RAISE_ON_INVALID_CODE:
                raise
            log.warning("capture: generated resume code for %s failed its check: %s", qual, e)
        if pending is None:
            log.debug("capture: cannot resume after the break in %s: %s: %s", qual, type(e).__name__, e)
            events.record_resume_fallback(qual, f"{type(e).__name__}: {e}")
            return None
    else:
        pending = None
    if pending is not None:
        raise pending
    entry = Entry(tracer.guards, graph=graph, sources=tracer.builder.sources, template=None, name=qual,
                  config=config, closure=fn.__closure__)
    entry.runner = runner
    entry.device = device
    entry.plan = plan
    entry.hold_recipes_weakly()
    entry.break_info = info
    entry.compile_time = time.perf_counter() - t0
    if graph.nodes:
        events.record_compile(CompileInfo(qual, graph, entry.guard_set.descs, entry.compile_time, runner))
        _maybe_save(graph, qual)
    return entry

class UserErrorWhileCapturing(Exception):
    """Graph building hit a user error (bad shapes/dtypes): carries it and the IR dump's path."""

    def __init__(self, error, path):
        super().__init__(str(error))
        self.error = error
        self.path = path

#: what precedes the IR dump's path in a user error's message (``dispatch.with_dump_path``)
DUMP_NOTE = "IR of the graph up to the failing op: "

def _arg_guards_only(tracer, flat):
    for i, v in enumerate(flat):
        tracer.guards.argument(Arg(i), v, f"argument {i}")

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
        local_vars[nm] = wrap_argument(root, value, Arg(i), nm, is_resume)
    root.locals = local_vars
    root.self_var = local_vars.get(names[0]) if names else None
    if code.co_freevars:
        for nm, cell in zip(code.co_freevars, fn.__closure__ or ()):
            root.locals[nm] = tracer.box_for_cell(root, cell, nm)
        if "__class__" in code.co_freevars:
            root.cls = fn.__closure__[code.co_freevars.index("__class__")].cell_contents
    if flat and isinstance(flat[0], Cell):
        own = type(flat[0]).construct
        if getattr(own, "__wrapped_jit__", own) is fn:
            # the frame is the Cell's construct: a construct replaced on the class later must not
            # reuse this entry (``jit(cell)`` looks the class's construct up again then)
            tracer.guards.identity(Attr(TypeOf(Arg(0)), "construct"), own, f"{type(flat[0]).__name__}.construct")
    tracer.guards.equals(Item(tracer.guards.obj(_context._state), "mode"), _context.mode(),
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
    rec.frame_done = True
    try:
        result = rec.of(ret)
        effects = tracer.side_effects.recipes(rec, tracer.changed_cells())
    except NotResumable as e:
        brk = GraphBreak(f"the frame's result or side effects cannot be rebuilt: {e}", resumable=False,
                         loc=root.loc)
        brk.started_generator = getattr(e, "started_generator", None)
        raise brk from None
    builder.graph.set_outputs(rec.outputs)
    _guard_lifted_tensors(tracer)
    # sizes computed by Python arithmetic (capture.symbolic_sizes) become plain ints in the
    # graph; where they were, and how computed, is kept for capture.dynamic
    builder.size_exprs = symbolic_sizes.strip(builder.graph)
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
