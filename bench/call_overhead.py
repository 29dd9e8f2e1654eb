"""Per-call overhead of a compiled train step: everything a step costs besides its kernels.

``python -m bench.call_overhead [lenet|mlp] [batch]`` runs the tutorial train step under
``jit`` and reports medians over many calls of: the whole step; the time inside native code
(segments, kernels, products: each timed by a wrapper, whose own cost is measured and taken
off); and what is left, the overhead (guard check, argument fetch, the runner's Python, the
parameter write-back). The guard check and the argument fetch are also timed alone.

Example (the numbers depend on the machine):
    >>> from bench.call_overhead import measure
    >>> r = measure("mlp", 8, calls=50)
    >>> sorted(r) == sorted(["step_us", "native_us", "overhead_us", "guard_us", "fetch_us", "snapshot_hits"])
    True
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
import types

#: the closure variables of the runner's steps (and the functions they call) that hold native
#: entry points (and numpy impls)
_NATIVE_CALLS = ("seg", "fn", "parallel_for", "mm", "impl")


def _cells(fn, seen):
    """(cell, name) of ``fn``'s closure and of the closures of the functions it holds."""
    for cell, name in zip(fn.__closure__ or (), fn.__code__.co_freevars):
        yield cell, name
        inner = cell.cell_contents
        if isinstance(inner, types.FunctionType) and inner.__closure__ and id(inner) not in seen:
            seen.add(id(inner))
            yield from _cells(inner, seen)


def _compiled(step):
    """The cache entry and compiled graph of a jitted step function (after a first call)."""
    from capture.cache import cache_for
    (entry,) = cache_for(step.__wrapped_jit__.__code__).entries
    return entry, entry.runner


def _timed_natives(graph, clock, spent):
    """Wrap every native call of ``graph``'s steps so that ``spent[0]`` accumulates their time."""
    wrapped = 0

    def wrap(f):
        def timed(*a, **k):
            t = clock()
            try:
                return f(*a, **k)
            finally:
                spent[0] += clock() - t
        timed.wrapped = True
        return timed

    seen = set()
    for step in list(graph.call_steps) + list(getattr(graph, "fast_steps", None) or ()):
        for cell, name in _cells(step, seen):
            if name in _NATIVE_CALLS and not getattr(cell.cell_contents, "wrapped", False):
                cell.cell_contents = wrap(cell.cell_contents)
                wrapped += 1
    probe = wrap(lambda: None)
    t = clock()
    for _ in range(10000):
        probe()
    per_wrapper = (clock() - t) / 10000
    return wrapped, per_wrapper


def _median_us(fn, calls, clock):
    samples = []
    for _ in range(calls):
        t = clock()
        fn()
        samples.append(clock() - t)
    return statistics.median(samples) / 1e3


def measure(model="lenet", batch=32, calls=2000) -> dict:
    """Medians in microseconds: ``step_us``, ``native_us``, ``overhead_us`` (their difference,
    wrappers' cost taken off), ``guard_us``, ``fetch_us``; and the graph's snapshot hits."""
    from bench import models
    step, args = models.ours_jit_train_step(model, batch)
    for _ in range(5):
        step(*args)
    entry, graph = _compiled(step)
    clock = time.perf_counter_ns
    spent = [0]
    wrapped, per_wrapper = _timed_natives(graph, clock, spent)
    steps, natives = [], []
    for _ in range(calls):
        spent[0] = 0
        t = clock()
        step(*args)
        steps.append(clock() - t)
        natives.append(spent[0])
    # the wrappers' time is counted in the step but not inside the natives
    overheads = [s - n - wrapped * per_wrapper for s, n in zip(steps, natives)]
    flat = tuple(args)
    return {"step_us": statistics.median(steps) / 1e3, "native_us": statistics.median(natives) / 1e3,
            "overhead_us": statistics.median(overheads) / 1e3,
            "guard_us": _median_us(lambda: entry.check(flat), calls, clock),
            "fetch_us": _median_us(lambda: entry.fetch(flat), calls, clock),
            "snapshot_hits": getattr(getattr(graph, "snapshots", None), "hits", 0)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.call_overhead", description=__doc__.split("\n\n")[0])
    parser.add_argument("model", nargs="?", default="lenet", choices=["lenet", "mlp"])
    parser.add_argument("batch", nargs="?", type=int, default=32)
    parser.add_argument("--calls", type=int, default=2000)
    a = parser.parse_args(argv)
    r = measure(a.model, a.batch, a.calls)
    print(f"{a.model} b{a.batch} train step under jit, medians of {a.calls} calls:")
    for key, label in (("step_us", "whole step"), ("native_us", "inside native code"),
                       ("overhead_us", "overhead (the rest)"), ("guard_us", "  of which guard check"),
                       ("fetch_us", "  of which argument fetch")):
        print(f"  {label:28s} {r[key]:9.1f} us")
    print(f"  calls restored from a snapshot: {r['snapshot_hits']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
