"""Running a compiled entry: fetching graph inputs from the call, rebuilding outputs, and the
tape-aware path (a captured region called under ``grad`` replays its ops eagerly so the tape
records each one with the registry's VJP rules)."""
from __future__ import annotations

from graph.interpret import replay
from runtime import context, device
from runtime.tensor import Tensor


def fetch_inputs(sources, flat):
    """(arrays, tensor objects) for the graph inputs, read from the call's arguments and from the
    objects (Parameters...) the graph captured."""
    arrays, tensors = [], []
    for source in sources:
        obj = source.read(flat)
        tensors.append(obj)
        arrays.append(obj._data)
    return arrays, tensors


def device_of_inputs(sources, flat) -> str:
    """Where a graph runs: "GPU" when a tensor it reads is on the GPU, else "CPU"; a graph that
    reads no tensor runs on the context's device_target."""
    if not device.GPU.active:
        return "CPU"
    for source in sources:
        if device.device_of(source.read(flat)._data) == "GPU":
            return "GPU"
    return "CPU" if sources else context.get_context("device_target")


def replay_eager(graph, tensors):
    """Execute ``graph`` op by op on eager Tensors (recorded by any active tape)."""
    return replay(graph, tensors, Tensor._wrap)
