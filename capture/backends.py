"""Execution backends for captured graphs.

A backend turns a Graph into ``run(arrays) -> (outputs, {param_input_index: new_array})``.
``"numpy"`` is the reference interpreter (for debugging; it runs on the inputs' array module, so on
the GPU too); ``"llvm"`` (the default on the CPU) runs ``graph.passes.optimize(graph, level)`` and
compiles the schedule with llvmlite (codegen/cpu); ``"cuda"`` (the default for graphs whose tensors are on the GPU) compiles it to CUDA
kernels (codegen/cuda). ``CountingBackend`` records graphs and op counts for tests; other compiled
backends register themselves with :func:`register_backend`.

A factory is called as ``factory(graph)``, with ``jit_level="O0"|"O1"|"O2"`` and ``device="CPU"|"GPU"``
when it takes them (:func:`make_runner` passes each only when accepted).

Environment:
  * ``CAPTURE_BACKEND=llvm`` picks the backend used when ``jit(backend=None)``.
  * ``CAPTURE_VERIFY=1``: every graph newly compiled by the "llvm" or "cuda" backend is run once
    next to the reference interpreter (on the same device) on the same inputs; on a mismatch a
    :class:`VerifyError` is raised
    naming the first mismatching node, its op and its source line (values inside a fused kernel
    are located by re-running the graph compiled one kernel per node). Graphs with random ops are
    not checked (the reference would draw different numbers from the shared stream). Raised from the compiled entry's
    first run, capture turns that entry eager (results stay correct) and ``explain()`` reports it;
    with ``fullgraph=True`` it propagates.

Example:
    >>> counter = CountingBackend()
    >>> # capture.jit(fn, backend=counter)(x); counter.graph_count, counter.op_counts
"""
from __future__ import annotations

import inspect

import numpy as np

from graph import config as settings
from graph.interpret import run as interpret
from runtime.device import module_of, to_numpy

_BACKENDS: dict[str, object] = {}
try:  # the compiled CPU backend is the default wherever llvmlite loads
    import llvmlite  # noqa: F401
    DEFAULT = "llvm"
except ImportError:  # pragma: no cover - llvmlite is a declared dependency
    DEFAULT = "numpy"
JIT_LEVELS = ("O0", "O1", "O2")


#: where each compiled backend runs (a graph on the other device cannot use it)
BACKEND_DEVICE = {"llvm": "CPU", "cuda": "GPU"}


def numpy_backend(graph, jit_level=None):
    def run(arrays):
        return interpret(graph, arrays, xp=module_of(arrays[0]) if arrays else np)
    run.interpreted = True  # (nothing compiled: explain() says so)
    return run


class VerifyError(AssertionError):
    """A compiled graph disagrees with the reference interpreter (``CAPTURE_VERIFY=1``)."""


def llvm_backend(graph, jit_level=None, arena=None):
    """Optimise, fuse and compile ``graph`` with llvmlite; see codegen/cpu (``arena``: the
    codegen.cpu.arena.Arena its intermediates live in, shared with other graphs; None: its own).
    The optimised schedule comes from the disk cache when the same graph was compiled before, in
    this process or another (``capture.persist``, keyed by the graph's canonical hash; the compiled
    runner's ``warm_start`` says so); ``CAPTURE_VERIFY=1`` compiles afresh."""
    from codegen import compile_schedule, schedule_graph
    from . import persist
    level = _level(jit_level)
    if settings.get("CAPTURE_VERIFY"):
        return _verifying(graph, compile_schedule(schedule_graph(graph, level), arena=arena), compile_schedule)
    schedule, warm = persist.cached_schedule(graph, level, schedule_graph, backend="llvm")
    compiled = compile_schedule(schedule, arena=arena)
    compiled.warm_start = warm
    return compiled


def cuda_backend(graph, jit_level=None):
    """Optimise, fuse and compile ``graph`` to CUDA kernels for the current GPU; see codegen/cuda
    (its pipeline keeps convolutions whole for the implicit-GEMM kernels)."""
    from codegen.cuda import compile_schedule, schedule_graph
    level = _level(jit_level)
    compiled = compile_schedule(schedule_graph(graph, level))
    if settings.get("CAPTURE_VERIFY"):
        return _verifying(graph, compiled, compile_schedule)
    return compiled


def _level(jit_level):
    level = jit_level if jit_level is not None else settings.get("CAPTURE_JIT_LEVEL")
    if hasattr(level, "jit_level"):  # a JitConfig
        level = level.jit_level
    if level not in JIT_LEVELS:
        raise ValueError(f"jit_level must be one of {list(JIT_LEVELS)}, got {level!r}")
    return level


def _close(a, b, rtol=1e-4, atol=1e-5):
    a, b = to_numpy(a), to_numpy(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind in "fc":
        return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))
    return bool(np.array_equal(a, b))


def _verifying(graph, compiled, compile_schedule):
    """Wrap a compiled graph so its first call is checked against the reference interpreter, run
    with the array module of the inputs (on the GPU for the "cuda" backend). A mismatch inside a
    fused kernel is located by ``compile_schedule`` of the graph with one kernel per node."""
    # random ops would draw twice from the shared stream (and differ), collectives would exchange
    # twice with the other processes: such graphs are not checked
    state = {"checked": any(n.op.kind == "random" or n.op.communicates for n in graph.nodes)}

    def run(arrays):
        if state["checked"]:
            return compiled(arrays)
        state["checked"] = True
        xp = module_of(arrays[0]) if arrays else np
        snapshot = [a.copy() for a in arrays]
        ref = {}
        order = []

        def trace(node, outs):
            for v, o in zip(node.outputs, outs):
                ref[id(v)] = o.copy()
            order.append(node)
        ref_outs, ref_updates = interpret(graph, snapshot, xp=xp, trace=trace)
        recordable = getattr(compiled, "accepts_record", False)
        got, got2 = {}, {}
        outs, updates = compiled(arrays, record=got) if recordable else compiled(arrays)
        bad = _first_bad(order, got, ref)
        ok = bad is None and all(_close(a, b) for a, b in zip(outs, ref_outs)) and all(
            _close(updates.get(k), b) for k, b in ref_updates.items())
        if ok:
            return outs, updates
        if recordable:
            # values inside fused kernels are not materialised: bisect with one kernel per node
            # (the pipeline's unfused scheduler, on the graph itself: the reference's values are
            # keyed by its nodes' outputs)
            try:
                from graph.passes import schedule_nodes
                per_node = compile_schedule(schedule_nodes(graph))
                per_node([a.copy() for a in snapshot], record=got2)
                bad = _first_bad(order, got2, ref) or bad
            except Exception:  # pragma: no cover - the report below still names the output
                pass
        if bad is not None:
            node, v = bad
            raise VerifyError(_mismatch(graph, node, v, got.get(id(v), got2.get(id(v))),
                                        ref[id(v)]))
        raise VerifyError(f"CAPTURE_VERIFY: graph {graph.name}: outputs or parameter updates differ "
                          f"from the reference interpreter")

    run.compiled = compiled
    return run


def _first_bad(order, got, ref):
    for node in order:
        for v in node.outputs:
            g = got.get(id(v))
            if g is not None and not _close(g, ref[id(v)]):
                return node, v
    return None


def _mismatch(graph, node, v, got, want):
    loc = ""
    if node.loc:
        loc = f" at {node.loc[0]}:{node.loc[1]}"
        if len(node.loc) > 2 and node.loc[2]:
            loc += f"\n    {str(node.loc[2]).strip()}"
    a, b = to_numpy(got), to_numpy(want)
    detail = f"shape/dtype {a.dtype}{list(a.shape)} vs {b.dtype}{list(b.shape)}"
    if a.shape == b.shape and a.dtype.kind in "fc" and b.dtype.kind in "fc":
        err = np.abs(a.astype(np.float64) - b.astype(np.float64))
        detail = f"max abs error {np.nanmax(err) if err.size else 0:.3g}"
    return (f"CAPTURE_VERIFY: graph {graph.name}: first mismatching node is {v!r} = "
            f"{node.op.name} ({node.op.prim}){loc}: compiled result differs from the reference "
            f"interpreter ({detail})")


def _accepts(fn, name):
    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def default_backend(device="CPU") -> str:
    """The backend a graph gets when ``jit(backend=None)``: ``$CAPTURE_BACKEND``, else "cuda" for
    a graph whose tensors are on the GPU, else "llvm"."""
    env = settings.get("CAPTURE_BACKEND")
    if env:
        return env
    return "cuda" if device == "GPU" else DEFAULT


def make_runner(spec, graph, jit_level=None, device="CPU", arena=None):
    """``get_backend(spec)(graph, jit_level=..., device=..., arena=...)`` (each keyword only to
    factories taking it); ``spec=None`` is :func:`default_backend` for ``device``."""
    if spec is None:
        spec = default_backend(device)
    runs_on = BACKEND_DEVICE.get(spec) if isinstance(spec, str) else None
    if runs_on is not None and runs_on != device:
        raise ValueError(f"backend {spec!r} runs on the {runs_on}, but the graph's tensors are on the {device} "
                         f"(leave backend=None to get the {device}'s backend, or move the tensors)")
    factory = get_backend(spec)
    kwargs = {}
    if jit_level is not None and _accepts(factory, "jit_level"):
        kwargs["jit_level"] = jit_level
    if _accepts(factory, "device"):
        kwargs["device"] = device
    if arena is not None and _accepts(factory, "arena"):
        kwargs["arena"] = arena
    return factory(graph, **kwargs)


def preload(spec=None) -> None:
    """Import and initialise what the backend compiles with (for ``llvm``: llvmlite, the host
    target machine and the code generator, ~50-70 ms; the thread pool's native code and workers
    and BLAS's entry points, ~7 ms; the float32 product kernel, ~35 ms cold, ~1 ms from the disk
    cache) now, when the program asks for graph mode (``jit``,
    ``set_context(mode=GRAPH_MODE)``, ``capture.enable()``), so that the first compiled step does
    not pay for it. Failures are left for the compile to report."""
    name = spec if isinstance(spec, str) else (settings.get("CAPTURE_BACKEND") or DEFAULT) if spec is None else None
    if name != "llvm":
        return
    try:
        from . import persist
        if persist.enabled():
            persist.framework_fingerprint()  # (hashed once per process, before the first step)
        from codegen.cpu import runner  # noqa: F401  (imports the compiler and llvmlite.binding)
        from codegen.cpu import blas, target, threads
        target.target_machine()
        threads.pool().ensure(threads.n_threads() - 1)  # its generated code, its workers (asleep)
        api = blas.interface()
        if api is not None:
            from codegen.cpu.native import gemm
            gemm.library("float32", api.int_bits)
    except Exception:  # the first compile reports it properly
        pass


def register_backend(name: str, factory) -> None:
    _BACKENDS[name] = factory


def get_backend(spec):
    if spec is None:
        spec = default_backend()
    if callable(spec) and not isinstance(spec, str):
        return spec
    try:
        return _BACKENDS[spec]
    except KeyError:
        raise ValueError(f"unknown backend {spec!r}; available: {sorted(_BACKENDS)}") from None


class CountingBackend:
    """Counts compiled graphs and their ops, then runs them with the reference interpreter."""

    def __init__(self):
        self.graphs = []

    def __call__(self, graph):
        self.graphs.append(graph)
        return numpy_backend(graph)

    @property
    def graph_count(self) -> int:
        return len(self.graphs)

    @property
    def op_counts(self) -> list[int]:
        return [g.op_count() for g in self.graphs]


register_backend("numpy", numpy_backend)
register_backend("llvm", llvm_backend)
register_backend("cuda", cuda_backend)
