"""``capture.explain(fn_or_cell)(*args)``: run once with capture on and report graphs and breaks.

Example:
    >>> import numpy as np, capture, runtime as ms
    >>> def f(x):
    ...     y = ms.ops.relu(x) * 2
    ...     print("a graph break")              # print cannot be traced
    ...     return y + 1
    >>> report = capture.explain(f)(ms.Tensor(np.ones(3, np.float32)))
    a graph break
    >>> report.graph_count, report.graph_break_count
    (2, 1)
    >>> report.save_html("/tmp/explain-doctest.html")   # doctest: +SKIP
"""
from __future__ import annotations

from collections.abc import Callable

import json
import time

from runtime.nn.cell import Cell

from . import cache as _cache
from . import fast_call
from .report import events


class ExplainReport:
    def __init__(self):
        self.compiles = []
        self.breaks = []
        self.recompiles = []
        #: (frame, text): dimensions made dynamic (declared or automatic) or refused, and why
        self.dynamic = []
        #: (frame, which dims, size (a tuple for several symbols), seconds): a shape-generic
        #: entry's graph re-instantiated for a new size without translating again
        self.reinstantiations = []
        #: the same, for sizes compiled by the backend when they recurred (until then interpreted)
        self.tier_ups = []
        self.resume_fallbacks = []  # (frame, why): breaks after which the whole frame ran eagerly
        self.user_functions = []  # user functions the frame hook captured on its own (train_step...)
        self.result = None
        self.compiled_seconds = 0.0  # time spent running compiled entries while recording
        self.compiled_calls = 0

    # -- the numbers ----------------------------------------------------------------------------------
    @property
    def graphs(self):
        return [c.graph for c in self.compiles]

    @property
    def graph_count(self) -> int:
        return len(self.compiles)

    @property
    def break_reasons(self):
        seen, out = set(), []
        for b in self.breaks:
            if b.key() not in seen:
                seen.add(b.key())
                out.append(b)
        return out

    @property
    def graph_break_count(self) -> int:
        return len(self.break_reasons)

    @property
    def ops_per_graph(self):
        return [c.graph.op_count() for c in self.compiles]

    @property
    def op_count(self) -> int:
        return sum(self.ops_per_graph)

    @property
    def guards(self):
        return [c.guards for c in self.compiles]

    @property
    def compile_times(self):
        return [c.seconds for c in self.compiles]

    @property
    def frames_captured(self):
        """Names of the frames that got at least one compiled graph, in compile order."""
        return list(dict.fromkeys(c.frame.split(" (resumed")[0] for c in self.compiles))

    # -- rendering --------------------------------------------------------------------------------------
    def to_dict(self):
        return {
            "graph_count": self.graph_count,
            "graph_break_count": self.graph_break_count,
            "break_reasons": [b.to_dict() for b in self.break_reasons],
            "ops_per_graph": self.ops_per_graph,
            "guards": self.guards,
            "compile_times": self.compile_times,
            "recompiles": [{"frame": f, "reason": r} for f, r in self.recompiles],
            "dynamic": [{"frame": f, "text": t} for f, t in self.dynamic],
            "reinstantiations": [{"frame": f, "dims": w, "size": n, "seconds": t}
                                 for f, w, n, t in self.reinstantiations],
            "tier_ups": [{"frame": f, "dims": w, "size": n, "seconds": t} for f, w, n, t in self.tier_ups],
            "resume_fallbacks": [{"frame": f, "reason": r} for f, r in self.resume_fallbacks],
            "frames_captured": self.frames_captured,
            "user_functions_captured": self.user_functions,
            "compiled_seconds": self.compiled_seconds,
            "compiled_calls": self.compiled_calls,
        }

    def __str__(self):
        lines = [f"Graph count: {self.graph_count}", f"Graph break count: {self.graph_break_count}",
                 f"Op count: {self.op_count}"]
        if self.break_reasons:
            lines.append("Break reasons:")
            for i, b in enumerate(self.break_reasons, 1):
                lines.append(f"  {i}. " + str(b).replace("\n", "\n     "))
        for i, c in enumerate(self.compiles, 1):
            lines.append(f"Graph {i} ({c.frame}): {c.graph.op_count()} ops, {c.how} in {c.seconds * 1e3:.1f} ms")
            lines.append("  Guards:")
            lines.extend(f"    - {g}" for g in c.guards)
        if self.user_functions:
            lines.append("User functions captured by the frame hook (no jit, no construct): "
                         + ", ".join(self.user_functions))
        if self.resume_fallbacks:
            lines.append("Frames that ran eagerly after a break (the state could not be rebuilt):")
            lines.extend(f"  {f}: {r}" for f, r in self.resume_fallbacks)
        if self.recompiles:
            lines.append("Recompiles:")
            lines.extend(f"  {f}: {r}" for f, r in self.recompiles)
        if self.dynamic:
            lines.append("Dynamic dimensions:")
            lines.extend(f"  {f}: {t}" for f, t in self.dynamic)
        if self.reinstantiations:
            sizes: dict = {}
            for f, w, n, _t in self.reinstantiations:
                sizes.setdefault((f, w), []).append(n)
            lines.append("Graphs re-instantiated for new sizes (no translation; interpreted until a size recurs, "
                         "then compiled for it):")
            lines.extend(f"  {f}: {w}: sizes {ns}" for (f, w), ns in sizes.items())
        if self.tier_ups:
            sizes = {}
            for f, w, n, _t in self.tier_ups:
                sizes.setdefault((f, w), []).append(n)
            lines.append("Sizes compiled by the backend when they recurred (kernels are per size):")
            lines.extend(f"  {f}: {w}: sizes {ns}" for (f, w), ns in sizes.items())
        return "\n".join(lines)

    def to_json(self):
        return json.dumps(self.to_dict(), indent=2, default=str)

    def to_html(self) -> str:
        """This report as one self-contained web page (see :mod:`capture.explain_html`)."""
        from .explain_html import render
        return render(self)

    def save_html(self, path: str) -> str:
        """Write :meth:`to_html` to ``path`` atomically; returns the path."""
        from .webpage import write_atomically
        return write_atomically(path, self.to_html())


class recording:
    """Context manager collecting capture events into an :class:`ExplainReport`, and timing the
    compiled graphs run meanwhile (``report.compiled_seconds``/``compiled_calls``: the graphs
    alone, not the eager code around a break nor compiling)."""

    def __init__(self):
        self.report = ExplainReport()
        self._api = self._orig_run = None

    def __enter__(self):
        from . import dispatch
        report, orig = self.report, dispatch._run_graph

        def timed(entry, *args):
            if entry.runner is None:  # a break before any op: no graph ran
                return orig(entry, *args)
            t0 = time.perf_counter()
            try:
                return orig(entry, *args)
            finally:
                report.compiled_seconds += time.perf_counter() - t0
                report.compiled_calls += 1

        self._dispatch, self._orig_run = dispatch, orig
        dispatch._run_graph = timed
        events.recorders.append(self.report)
        self._python_calls = fast_call.suspended()  # (jitted calls in C would not be timed)
        self._python_calls.__enter__()
        return self.report

    def __exit__(self, *exc):
        self._python_calls.__exit__(None, None, None)
        events.recorders.remove(self.report)
        self._dispatch._run_graph = self._orig_run
        return False


def explain(fn_or_cell: Callable) -> ExplainReport:
    """Return a function that runs ``fn_or_cell(*args, **kwargs)`` captured and returns a report."""
    from .api import DEFAULT_CONFIG, CaptureConfig, GraphModeHandler, JitFunction, call_captured

    def run(*args, **kwargs):
        target = fn_or_cell
        with recording() as report:
            if isinstance(target, Cell):
                construct = getattr(type(target).construct, "__wrapped_jit__", type(target).construct)
                _cache.reset(construct.__code__)
                report.result = GraphModeHandler()(target, args, kwargs)
            else:
                fn = getattr(target, "__wrapped_jit__", target)
                func = getattr(fn, "__func__", fn)  # bound methods
                func = getattr(func, "__wrapped_jit__", func)
                if hasattr(func, "__code__"):
                    _cache.reset(func.__code__)
                config = DEFAULT_CONFIG
                jf = target if isinstance(target, JitFunction) else getattr(target, "__func__", None)
                if isinstance(jf, JitFunction) and (jf.config.backend is not None or jf.config.fullgraph):
                    # the function's own backend, but never fullgraph: explain reports breaks
                    config = CaptureConfig(False, jf.config.backend, jf.config.jit_config)
                report.result = call_captured(fn, args, kwargs, config)
        return report

    return run
