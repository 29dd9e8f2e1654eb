"""PyNative's heavy ops as compiled one-op graphs (tiering, as JIT compilers tier hot code).

The numpy implementations of the convolutions (im2col + BLAS, in graph/ops/nn.py) are the
reference, and slow: on LeNet5's second convolution (b32, measured interleaved on the task's
2-core VM under load) numpy took 6.3 ms forward, 13.6 ms for the weight gradient and 8.3 ms for the
input gradient, against 0.38, 1.57 and 0.90 ms for the same op compiled by codegen/cpu as a graph of
one node. So once an op of :data:`OPS` has been called :data:`WARM_CALLS` times with one signature
(operand shapes and dtypes, attributes), that signature is compiled and every later call runs the
compiled graph:

- the op's shape inference has run first (runtime/eager.py), so errors are the eager path's;
- only float32/float64 numpy operands on the CPU qualify; anything else keeps the numpy path;
- a signature whose compilation fails keeps the numpy path for good (never an error of ours);
- all these graphs keep their intermediates in one arena (codegen/cpu/arena.py), so memory is that
  of the biggest, not the sum; they run one at a time (the arena's lock);
- at most :data:`MAX_SIGNATURES` signatures stay compiled (least recently used dropped);
- ``MSJIT_EAGER_KERNELS=0`` turns tiering off (the numpy path always).

The compiled kernels sum in another order than numpy's BLAS: results agree to float rounding
(relative 5e-7 in float32), as graph mode's do.

Example:
    >>> import numpy as np
    >>> import runtime as ms
    >>> x = ms.Tensor(np.ones((1, 1, 4, 4), np.float32))
    >>> w = ms.Tensor(np.ones((1, 1, 3, 3), np.float32))
    >>> [float(ms.ops.conv2d(x, w).asnumpy()[0, 0, 0, 0]) for _ in range(WARM_CALLS + 1)]
    [9.0, 9.0, 9.0]
"""
from __future__ import annotations

import collections
import threading

import numpy as np

from graph import config

#: ops whose numpy implementation is many times slower than their compiled kernels (the pools:
#: 0.41 -> 0.05 ms forward, 0.79 -> 0.14 ms backward on LeNet5's first, b32)
OPS = frozenset({"conv2d", "conv2d_backprop_input", "conv2d_backprop_filter", "max_pool2d", "max_pool2d_grad",
                 "avg_pool2d", "avg_pool2d_grad",
                 # one pass per statistic over each channel instead of six whole-array numpy passes
                 # (codegen/cpu/native/norm.py)
                 "batch_norm"})
#: calls of a signature that run numpy's implementation before it is compiled
WARM_CALLS = 2
#: compiled signatures kept
MAX_SIGNATURES = 256

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_FAILED = object()
_lock = threading.Lock()
_calls: dict = {}
_compiled: "collections.OrderedDict" = collections.OrderedDict()
_arena = []


def enabled() -> bool:
    return config.get("MSJIT_EAGER_KERNELS")


def _signature(op, arrays, attrs):
    key = [op.name]
    for a in arrays:
        if type(a) is not np.ndarray or a.dtype not in _FLOATS:
            return None
        key.append(a.shape)
        key.append(a.dtype)
    key.append(tuple(attrs.items()))
    return tuple(key)


def _compile(op, arrays, attrs):
    """The op as a compiled graph of one node over operands like ``arrays``, or _FAILED."""
    try:
        import codegen
        from codegen.cpu.arena import Arena
        from graph.aval import AVal
        from graph.dtypes import from_numpy
        from graph.ir import Graph
        from graph.ops.core import bind

        g = Graph(f"eager_{op.name}")
        inputs = [g.add_input(AVal(a.shape, from_numpy(a.dtype)), f"x{i}") for i, a in enumerate(arrays)]
        out = bind(op, *inputs, **attrs)
        g.set_outputs(list(out) if op.n_outputs != 1 else [out])
        if not _arena:
            _arena.append(Arena())
        return codegen.compile_schedule(codegen.schedule_graph(g), g.name, arena=_arena[0])
    except Exception:  # (an op or shape the compiler does not take: numpy's path stays)
        return _FAILED


def run(op, arrays, attrs):
    """The op's result from its compiled graph (a tuple for an op of several outputs), or None
    where numpy's implementation should run."""
    if not enabled():  # (read per call: a conv's work dwarfs an environment lookup)
        return None
    key = _signature(op, arrays, attrs)
    if key is None:
        return None
    compiled = _compiled.get(key)
    if compiled is None:
        with _lock:
            n = _calls[key] = _calls.get(key, 0) + 1
            if n <= WARM_CALLS:
                if len(_calls) > 4 * MAX_SIGNATURES:
                    _calls.clear()
                return None
        compiled = _compile(op, arrays, attrs)
        with _lock:
            _compiled[key] = compiled
            _calls.pop(key, None)
            while len(_compiled) > MAX_SIGNATURES:
                _compiled.popitem(last=False)
    else:
        try:
            _compiled.move_to_end(key)
        except KeyError:  # (dropped meanwhile by another thread: this call still runs it)
            pass
    if compiled is _FAILED:
        return None
    outs, _ = compiled(list(arrays))
    return outs[0] if op.n_outputs == 1 else tuple(outs)


def reset() -> None:
    """Forget every compiled signature and call count (tests; ``capture.reset`` leaves these)."""
    with _lock:
        _calls.clear()
        _compiled.clear()
