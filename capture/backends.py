"""Execution backends for captured graphs.

A backend turns a Graph into ``run(arrays) -> (outputs, {param_input_index: new_array})``.
``"numpy"`` is the reference interpreter (the default until a compiled backend is registered);
``CountingBackend`` records graphs and op counts for tests; compiled backends (LLVM on the CPU,
CUDA on the GPU) register themselves with :func:`register_backend`.

Example:
    >>> counter = CountingBackend()
    >>> # capture.jit(fn, backend=counter)(x); counter.graph_count, counter.op_counts
"""
from __future__ import annotations

from graph.interpret import run as interpret

_BACKENDS: dict[str, object] = {}
DEFAULT = "numpy"


def numpy_backend(graph):
    def run(arrays):
        return interpret(graph, arrays)
    return run


def register_backend(name: str, factory) -> None:
    _BACKENDS[name] = factory


def get_backend(spec):
    if spec is None:
        spec = DEFAULT
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
