"""The compiler's back half: graph passes, fusion into a Schedule, memory planning, one pipeline.

Graph passes are functions ``pass(graph) -> Graph`` that return a *new* Graph and never modify
their argument; every node they keep or create carries the source location of the node it came
from. The pipeline per optimisation level is data (:data:`PIPELINES`), so it can be printed, and
:func:`optimize` can dump the graph after every step:

    O0  dce, strength, own_outputs, then one kernel per node (no fusion, no memory planning: a
        debugging baseline)
    O1  dce, lower, cse, fold, simplify, dce, updates, strength, own_outputs, fuse, plan_memory
    O2  dce, lower, then (cse, fold, simplify, dce) repeated until the graph stops changing,
        updates, strength, own_outputs, fuse, plan_memory

(``lower`` writes convolutions as im2col/col2im and matmuls, so CSE shares the forward's columns
with the filter gradient: graph/passes/lower.py; ``updates`` hands freshly computed parameter
values over as the updates, dropping the assign copies: graph/passes/updates.py; ``own_outputs``
copies the outputs the passes made share memory -- ``x * 1`` simplified to the input ``x``, a
folded constant, a result CSE merged with another -- comparing with the graph the pipeline
started from: graph/passes/outputs.py; ``strength`` writes powers by a constant exponent as
multiplications, a square root or a reciprocal, at every level, so the backends' emitters only
render: graph/passes/simplify.py.)

Example:
    >>> from graph.passes import optimize, PIPELINES, run_schedule
    >>> PIPELINES["O1"]
    ['dce', 'lower', 'cse', 'fold', 'simplify', 'dce', 'updates', 'strength', 'own_outputs', 'fuse', 'plan_memory']
    >>> # sched = optimize(graph, "O1", dump_dir="graphs/")   # 00_input.ir, 01_dce.ir, ...
    >>> # outputs, updates = run_schedule(sched, arrays)
"""
from __future__ import annotations

import functools
import os

from ..ir import Graph
from .cleanup import cse, dce
from .execute import run_schedule
from .fold import FOLD_LIMIT, fold_constants
from .fusion import fuse, schedule_nodes
from .lower import lower_convolutions
from .memory import plan_memory
from .outputs import output_roots, own_outputs
from .rewrite import structure_key
from .schedule import Kernel, Schedule
from .simplify import reduce_strength, simplify
from .updates import hand_over_updates

#: graph -> graph passes by pipeline name
GRAPH_PASSES = {"dce": dce, "cse": cse, "fold": fold_constants, "simplify": simplify,
                "updates": hand_over_updates, "lower": lower_convolutions, "strength": reduce_strength}
#: graph -> Schedule (exactly one per pipeline, after the graph passes)
SCHEDULERS = {"fuse": fuse, "unfused": schedule_nodes}
#: Schedule -> Schedule
SCHEDULE_PASSES = {"plan_memory": plan_memory}

#: ("fixpoint", [...]) repeats its passes until the graph text stops changing (at most
#: MAX_FIXPOINT_ROUNDS rounds)
PIPELINES = {
    "O0": ["dce", "strength", "own_outputs", "unfused"],
    "O1": ["dce", "lower", "cse", "fold", "simplify", "dce", "updates", "strength", "own_outputs", "fuse",
           "plan_memory"],
    "O2": ["dce", "lower", ("fixpoint", ["cse", "fold", "simplify", "dce"]), "updates", "strength", "own_outputs",
           "fuse", "plan_memory"],
}
MAX_FIXPOINT_ROUNDS = 8


class _Dumper:
    def __init__(self, directory):
        self.directory = directory
        self.count = 0

    def graph(self, graph: Graph, name: str) -> None:
        if self.directory is not None:
            graph.dump(self.directory, f"{self.count:02d}_{name}")
        self.count += 1

    def schedule(self, schedule: Schedule, name: str) -> None:
        if self.directory is not None:
            os.makedirs(self.directory, exist_ok=True)
            path = os.path.join(self.directory, f"{self.count:02d}_{name}.sched")
            tmp = f"{path}.tmp{os.getpid()}"
            with open(tmp, "w") as f:
                f.write(schedule.describe() + "\n")
            os.replace(tmp, path)
        self.count += 1


def optimize(graph: Graph, level: str = "O1", dump_dir: str | None = None,
             verify: bool = False, skip=()) -> Schedule:
    """Run the pipeline of ``level`` on ``graph`` (left unchanged) and return the Schedule.

    ``skip``: names of graph passes a backend leaves out (the CUDA backend keeps convolutions
    whole for its implicit-GEMM kernels: ``skip=("lower",)``).

    ``dump_dir``: write ``00_input.ir`` and, after each step, ``NN_<pass>.ir`` (+ ``.dot``) for
    graph passes and ``NN_<step>.sched`` (the schedule's text) for fusion and memory planning.
    ``verify``: run ``Graph.verify()`` after every graph pass (the tests do).
    """
    if level not in PIPELINES:
        raise ValueError(f"optimize: unknown optimisation level {level!r}; valid: {sorted(PIPELINES)}")
    dump = _Dumper(dump_dir)
    dump.graph(graph, "input")
    schedule = None
    # (own_outputs compares with the outputs' memory before any pass ran)
    passes = {**GRAPH_PASSES, "own_outputs": functools.partial(own_outputs, before=output_roots(graph))}

    def run_graph_pass(g, name):
        g = passes[name](g)
        if verify:
            g.verify()
        dump.graph(g, name)
        return g

    for step in PIPELINES[level]:
        if step in skip:
            continue
        if isinstance(step, tuple):
            _, names = step
            names = [n for n in names if n not in skip]
            for _ in range(MAX_FIXPOINT_ROUNDS):
                before = structure_key(graph)
                for name in names:
                    graph = run_graph_pass(graph, name)
                if structure_key(graph) == before:
                    break
        elif step in passes:
            graph = run_graph_pass(graph, step)
        elif step in SCHEDULERS:
            schedule = SCHEDULERS[step](graph)
            dump.schedule(schedule, step)
        else:
            schedule = SCHEDULE_PASSES[step](schedule)
            dump.schedule(schedule, step)
    return schedule


__all__ = ["optimize", "PIPELINES", "GRAPH_PASSES", "SCHEDULERS", "SCHEDULE_PASSES", "dce", "cse",
           "fold_constants", "simplify", "reduce_strength", "hand_over_updates", "own_outputs", "output_roots",
           "lower_convolutions", "fuse", "schedule_nodes", "plan_memory", "run_schedule",
           "Kernel", "Schedule", "FOLD_LIMIT"]
