"""Running a compiled entry: fetching graph inputs from the call, rebuilding outputs, and the
tape-aware path (a captured region called under ``grad`` replays its ops eagerly so the tape
records each one with the registry's VJP rules)."""
from __future__ import annotations

from collections import deque
from itertools import repeat

from graph.interpret import replay
from runtime import context, device
from runtime.tensor import Tensor


def apply_updates(tensors, updates) -> None:
    """``tensors[i]._data = array`` for each ``i: array`` of a compiled call's ``updates``, all
    of them or (interrupted before it starts) none: the loop runs in C, so no Python signal
    handler (KeyboardInterrupt, an alarm's Timeout) can run between two assignments and leave
    one parameter a step behind the others. (A Python ``for`` loop would let one run between any
    two of its bytecodes; the compiled calls write their in-place updates in one native call:
    codegen/cpu/runner.py, ``_take_donations``.)"""
    deque(map(setattr, map(tensors.__getitem__, updates.keys()), repeat("_data"), updates.values()), 0)


def input_fetcher(sources):
    """``fetch(flat) -> (arrays, tensors)``: the graph inputs read from the call's arguments and
    from the objects (Parameters...) the graph captured, as one function generated per entry:
    the common sources (a top-level argument, a captured Parameter) become one list display, so
    a call does not walk the sources (a LeNet5 train step reads 40 tensors per call).

    Example:
        >>> import numpy as np
        >>> from capture.sources import Arg
        >>> t = Tensor(np.ones(2, np.float32))
        >>> arrays, tensors = input_fetcher([Arg(0)])((t,))
        >>> tensors[0] is t and arrays[0] is t._data
        True
    """
    from operator import attrgetter

    from .sources import Arg, Object
    namespace, items = {"data_of": attrgetter("_data")}, []
    for i, source in enumerate(sources):
        if type(source) is Arg:
            items.append(f"flat[{source.index!r}]")
        elif isinstance(source, Object) and source.ref is not None:
            namespace[f"o{i}"] = source.ref  # (held weakly: alive while the entry's guards pass)
            items.append(f"o{i}()")
        elif isinstance(source, Object):
            namespace[f"o{i}"] = source.obj
            items.append(f"o{i}")
        else:
            namespace[f"s{i}"] = source
            items.append(f"s{i}.read(flat)")
    code = (f"def fetch(flat):\n    tensors = [{', '.join(items)}]\n"
            f"    return list(map(data_of, tensors)), tensors\n")
    exec(compile(code, "<capture input fetcher>", "exec"), namespace)  # our own text
    # (popped: a function its own globals name is a reference cycle, which would keep the
    # captured Parameters alive until a later collection once its entry is dropped)
    return namespace.pop("fetch")

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
