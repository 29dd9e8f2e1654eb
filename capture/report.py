"""Capture events (compiles, graph breaks, recompiles) for ``explain()`` and ``CAPTURE_LOG``.

``CAPTURE_LOG=graph_breaks,recompiles,graphs`` logs each event to stderr as it happens.
"""
from __future__ import annotations

import linecache
import logging
import sys

from graph import config as settings

log = logging.getLogger("capture")


class BreakInfo:
    """One graph break: plain-English reason, the user's file:line and source, a hint."""

    def __init__(self, reason, filename, lineno, source, hint, frame, internal=None):
        self.reason = reason
        self.filename = filename
        self.lineno = lineno
        self.source = source or linecache.getline(filename, lineno).strip()
        self.hint = hint
        self.frame = frame
        self.internal = internal

    @classmethod
    def from_break(cls, e, frame, fn):
        loc = e.loc or (fn.__code__.co_filename, fn.__code__.co_firstlineno, "")
        return cls(e.reason, loc[0], loc[1], loc[2], e.hint, frame)

    def key(self):
        return (self.filename, self.lineno)  # one break per user line (chained breaks merge)

    def to_dict(self):
        return {"reason": self.reason, "filename": self.filename, "lineno": self.lineno,
                "source": self.source, "hint": self.hint, "frame": self.frame}

    def __str__(self):
        s = f"{self.reason}\n    at {self.filename}:{self.lineno} (in {self.frame})"
        if self.source:
            s += f"\n      {self.source}"
        if self.hint:
            s += f"\n    hint: {self.hint}"
        return s


class CompileInfo:
    """One compiled graph: its frame, IR, guard descriptions, compile seconds and the backend's
    runner (whose ``schedule``, when it has one, lists the fused kernels). ``warm_start``: the
    graph (translated in this process) was compiled from the optimised schedule an earlier process
    saved for the same graph (``capture.persist``), its passes not run again."""

    def __init__(self, frame, graph, guards, seconds, runner=None, warm_start=False):
        self.frame = frame
        self.graph = graph
        self.guards = list(guards)
        self.seconds = seconds
        self.runner = runner
        self.warm_start = warm_start

    @property
    def how(self) -> str:
        """How the graph came to be: "compiled", "loaded from the warm-start cache", or only
        translated, run by the reference interpreter (the ``numpy`` backend; a second trace that
        differs in sizes only, until its size recurs: capture/dynamic.py)."""
        if getattr(self.runner, "interpreted", False):
            return "translated (run by the reference interpreter, not compiled)"
        return "loaded from the warm-start cache" if self.warm_start else "compiled"


def _log_kinds():
    return settings.get("CAPTURE_LOG")


class Events:
    """Fan-out of capture events to active recorders (explain reports) and the log."""

    def __init__(self):
        self.recorders: list = []
        self.saved: list = []
        self.totals = {"graphs": 0, "breaks": 0, "recompiles": 0, "compile_seconds": 0.0, "resume_fallbacks": 0}
        self.resume_fallbacks: list = []  # (frame, why) of breaks after which the whole frame ran eagerly
        self._held = None  # a list while events are held back (see :meth:`holding`)

    def holding(self):
        """Context manager holding back the events recorded inside it; ``release()`` on what it
        returns records them, else they are dropped (a user function the frame hook tried and
        then left alone leaves no trace in reports)."""
        return _Held(self)

    def _hold(self, name, *args) -> bool:
        if self._held is None:
            return False
        self._held.append((name, args))
        return True

    def record_user_function(self, qual):
        """The frame hook captured user function ``qual`` as a candidate (no jit, no construct)."""
        if self._hold("record_user_function", qual):
            return
        for r in self.recorders:
            r.user_functions.append(qual)
        self._emit("graphs", f"captured user function {qual}")

    def _emit(self, kind, text):
        """Log ``text`` (a string, or a function of no arguments making it: only called when the
        log is on) under ``kind`` when ``CAPTURE_LOG`` asks for it."""
        kinds = _log_kinds()
        if kind in kinds or "all" in kinds:
            print(f"[capture:{kind}] {text() if callable(text) else text}", file=sys.stderr)

    def record_compile(self, info: CompileInfo):
        if self._hold('record_compile', info):
            return
        self.totals["graphs"] += 1
        self.totals["compile_seconds"] += info.seconds
        for r in self.recorders:
            r.compiles.append(info)
        # (the IR's text only when the log is on: formatting every node cost a warm MLP train
        # step's first call ~0.4 ms, for nothing when nobody logs)
        self._emit("graphs", lambda: f"compiled {info.frame}: {info.graph.op_count()} ops in {info.seconds * 1e3:.1f} ms"
                                     f"{f' ({info.how})' if info.warm_start else ''}\n" + info.graph.format())

    def record_break(self, info: BreakInfo):
        if self._hold('record_break', info):
            return
        self.totals["breaks"] += 1
        for r in self.recorders:
            r.breaks.append(info)
        self._emit("graph_breaks", f"Graph break in user code at {info.filename}:{info.lineno}\n"
                   f"  Reason: {info.reason}\n  Source: {info.source}" + (f"\n  Hint: {info.hint}" if info.hint else ""))

    def record_resume_fallback(self, frame, why):
        if self._hold('record_resume_fallback', frame, why):
            return
        self.totals["resume_fallbacks"] += 1
        self.resume_fallbacks.append((frame, why))
        del self.resume_fallbacks[:-100]
        for r in self.recorders:
            r.resume_fallbacks.append((frame, why))
        self._emit("graph_breaks", f"cannot resume after the break in {frame} ({why}): the frame runs eagerly")

    def record_dynamic(self, frame, text):
        """A dimension became dynamic (shape-generic entry) or was refused (text says which)."""
        if self._hold('record_dynamic', frame, text):
            return
        for r in self.recorders:
            r.dynamic.append((frame, text))
        self._emit("recompiles", f"{frame}: {text}")

    def record_reinstantiation(self, frame, dyn, sizes, seconds):
        """A shape-generic entry compiled its graph for new sizes (no translation)."""
        if self._hold('record_reinstantiation', frame, dyn, sizes, seconds):
            return
        self.totals["reinstantiations"] = self.totals.get("reinstantiations", 0) + 1
        where = dyn.describe()
        size = sizes[0] if len(sizes) == 1 else sizes
        for r in self.recorders:
            r.reinstantiations.append((frame, where, size, seconds))
        self._emit("recompiles", f"{frame}: re-instantiated the graph for size {size} of {where} "
                   f"(no translation) in {seconds * 1e3:.1f} ms")

    def record_tier_up(self, frame, dyn, sizes, seconds):
        """A size a shape-generic entry ran interpreted recurred: compiled by the backend now."""
        if self._hold('record_tier_up', frame, dyn, sizes, seconds):
            return
        where = dyn.describe()
        size = sizes[0] if len(sizes) == 1 else sizes
        for r in self.recorders:
            r.tier_ups.append((frame, where, size, seconds))
        self._emit("recompiles", f"{frame}: size {size} of {where} recurred: compiled by the backend "
                   f"in {seconds * 1e3:.1f} ms")

    def record_recompile(self, frame, reason):
        if self._hold('record_recompile', frame, reason):
            return
        self.totals["recompiles"] += 1
        for r in self.recorders:
            r.recompiles.append((frame, reason))
        self._emit("recompiles", f"recompiling {frame}: {reason}")


class _Held:
    def __init__(self, events):
        self.events = events

    def __enter__(self):
        self.outer, self.events._held = self.events._held, []
        self.items = self.events._held
        return self

    def __exit__(self, *exc):
        self.events._held = self.outer
        return False

    def release(self):
        """Record the held events now (after the ``with`` block)."""
        for name, args in self.items:
            getattr(self.events, name)(*args)
        self.items = []


events = Events()
