"""Graph -> compiled callable.

``codegen.cpu`` lowers a :class:`graph.passes.schedule.Schedule` with llvmlite: fused elementwise
(+ trailing reduction) kernels become LLVM functions, other kernels call the ops' numpy ``impl``.

Example:
    >>> from codegen import compile_graph
    >>> # run = compile_graph(graph, level="O1"); outputs, updates = run(arrays)
"""
from __future__ import annotations


def schedule_graph(graph, level="O1"):
    """``graph.passes.optimize(graph, level)`` when the pass pipeline exists, else the simple
    scheduler of :mod:`codegen.simple_schedule`."""
    try:
        from graph.passes import optimize
    except ImportError:
        optimize = None
    if optimize is not None:
        return optimize(graph, level)
    from .simple_schedule import simple_schedule
    return simple_schedule(graph, fuse=level != "O0")


def compile_schedule(schedule, name=None, arena=None):
    """The CPU runner of ``schedule``; its intermediates live in ``arena`` (a
    :class:`codegen.cpu.arena.Arena` shared with other graphs) or, when None, in its own."""
    from .cpu.runner import CompiledGraph
    return CompiledGraph(schedule, name, arena=arena)


def compile_graph(graph, level="O1"):
    return compile_schedule(schedule_graph(graph, level))
