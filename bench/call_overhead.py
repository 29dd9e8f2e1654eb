"""Per-call overhead of a compiled train step: everything a step costs besides its kernels.

``python -m bench.call_overhead [lenet|mlp] [batch]`` runs the tutorial train step under
``jit`` and reports medians over many calls of: the whole step; the time inside native code
(segments, kernels, products: each timed by a wrapper, whose own cost is measured and taken
off, or by the call restored in C itself, codegen/cpu/_restored_call.c); and what is left, the
overhead (guard check, argument fetch, the runner, the output wrapping). The guard check and
the argument fetch are also timed alone.

The overhead is measured twice. In a training loop the kernels run between two calls' Python
and leave the caches to their own data, so the same Python costs more there than back to back:
``warm_overhead_us`` is the overhead again with every native call replaced by one that returns
at once (the step computes nothing then: the bench's own throwaway model), i.e. the Python path
alone with its data in the caches.

Example (the numbers depend on the machine):
    >>> from bench.call_overhead import measure
    >>> r = measure("mlp", 8, calls=50)
    >>> sorted(r) == sorted(["step_us", "native_us", "overhead_us", "warm_overhead_us", "guard_us", "fetch_us",
    ...                      "snapshot_hits"])
    True
"""
from __future__ import annotations

import argparse
import ctypes
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


def _no_op_address():
    """A native function that returns at once (the C calling convention lets callers pass it
    any arguments): what native calls become when the Python path is timed alone."""
    from llvmlite import ir

    from codegen.cpu import compiler

    def module():
        m = compiler.new_module("bench_no_op")
        fn = ir.Function(m, ir.FunctionType(ir.VoidType(), []), "bench_no_op")
        ir.IRBuilder(fn.append_basic_block("entry")).ret_void()
        return m
    lib = compiler.keep_for_process(compiler.build_described("bench no-op", module, speed_level=0))
    return lib.address("bench_no_op")


def _timed_natives(graph, clock, spent, no_op=None):
    """Wrap every native call of ``graph``'s steps so that ``spent[0]`` accumulates their time
    and ``spent[1]`` counts the wrappers run; with ``no_op`` (an address), the compiled ones
    (ctypes function pointers) call it instead (numpy steps still run, timed). The call restored
    in C times its kernels itself (rebuilt to call ``no_op`` with it). Returns one wrapper's cost."""

    def wrap(f):
        if no_op is not None and isinstance(f, ctypes._CFuncPtr):
            f = type(f)(no_op)  # the same prototype, another address
        def timed(*a, **k):
            t = clock()
            try:
                return f(*a, **k)
            finally:
                spent[0] += clock() - t
                spent[1] += 1
        timed.wrapped = True
        timed.original = f
        return timed

    seen = set()
    for step in list(graph.call_steps) + list(getattr(graph, "fast_steps", None) or ()):
        for cell, name in _cells(step, seen):
            if name in _NATIVE_CALLS:
                cell.cell_contents = wrap(getattr(cell.cell_contents, "original", cell.cell_contents))
        if no_op is not None and hasattr(step, "native"):
            step.native = (no_op, *step.native[1:])
    if getattr(graph, "_restored", None) is not None:
        if no_op is not None:
            graph._restored = graph._native_restored_call()  # (armed by the next call restored in Python)
        graph._restored.timing = 1
    probe = wrap(lambda: None)
    t = clock()
    for _ in range(10000):
        probe()
    per_wrapper = (clock() - t) / 10000
    spent[1] = 0
    return per_wrapper


def _median_us(fn, calls, clock):
    samples = []
    for _ in range(calls):
        t = clock()
        fn()
        samples.append(clock() - t)
    return statistics.median(samples) / 1e3


def measure(model="lenet", batch=32, calls=2000) -> dict:
    """Medians in microseconds: ``step_us``, ``native_us``, ``overhead_us`` (their difference,
    wrappers' cost taken off), ``guard_us``, ``fetch_us``, ``warm_overhead_us`` (the overhead
    with no-op native calls); and the graph's snapshot hits."""
    from bench import models
    from capture import fast_call
    step, args = models.ours_jit_train_step(model, batch)
    for _ in range(5):
        step(*args)
    entry, graph = _compiled(step)
    clock = time.perf_counter_ns
    spent = [0, 0]

    def run():
        """Medians (step, native, overhead) in ns; the wrappers' time is counted in the step
        but not inside the natives."""
        steps, natives = [], []
        for _ in range(calls):
            restored = getattr(graph, "_restored", None)
            before = restored.native_ns if restored is not None else 0
            spent[0] = spent[1] = 0
            t = clock()
            step(*args)
            steps.append(clock() - t)
            natives.append((spent[0] + (restored.native_ns - before if restored is not None else 0), spent[1]))
        overheads = [s - n - wrappers * per_wrapper for s, (n, wrappers) in zip(steps, natives)]
        return statistics.median(steps), statistics.median(n for n, _ in natives), statistics.median(overheads)

    per_wrapper = _timed_natives(graph, clock, spent)
    step_ns, native_ns, overhead_ns = run()
    flat = tuple(args)
    guard_us = _median_us(lambda: entry.check(flat), calls, clock)
    fetch_us = _median_us(lambda: entry.fetch(flat), calls, clock)
    per_wrapper = _timed_natives(graph, clock, spent, no_op=_no_op_address())
    entry.call = None  # (the runner's entry point, derived again: its restored call was rebuilt)
    fast_call.invalidate()  # (the jitted call in C made before holds the old entry point)
    warm_overhead_ns = run()[2]
    return {"step_us": step_ns / 1e3, "native_us": native_ns / 1e3, "overhead_us": overhead_ns / 1e3,
            "warm_overhead_us": warm_overhead_ns / 1e3, "guard_us": guard_us, "fetch_us": fetch_us,
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
                       ("fetch_us", "  of which argument fetch"),
                       ("warm_overhead_us", "overhead with warm caches")):
        print(f"  {label:28s} {r[key]:9.1f} us")
    print(f"  calls restored from a snapshot: {r['snapshot_hits']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
