"""Graph -> compiled callable.

``codegen.cpu`` lowers a :class:`graph.passes.schedule.Schedule` with llvmlite: fused elementwise
(+ trailing reduction) kernels become LLVM functions, other kernels call the ops' numpy ``impl``.

Example:
    >>> from codegen import compile_graph
    >>> # run = compile_graph(graph, level="O1"); outputs, updates = run(arrays)
"""
from __future__ import annotations


def schedule_graph(graph, level="O1"):
    """The schedule of ``graph`` from the pass pipeline of ``level``: ``graph.passes.optimize``."""
    from graph.passes import optimize
    return optimize(graph, level)


def compile_schedule(schedule, name=None, arena=None):
    """The CPU runner of ``schedule``; its intermediates live in ``arena`` (a
    :class:`codegen.cpu.arena.Arena` shared with other graphs) or, when None, in its own."""
    from .cpu.runner import CompiledGraph
    return CompiledGraph(schedule, name, arena=arena)


def compile_graph(graph, level="O1"):
    return compile_schedule(schedule_graph(graph, level))
