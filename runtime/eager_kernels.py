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
#: ops whose VJP rule runs, once warm, as one compiled graph in PyNative's backward (batch norm's
#: is a dozen whole-array numpy operations op by op; compiled, three fused passes)
VJP_OPS = frozenset({"batch_norm"})
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


def _compile(name, arrays, build):
    """A compiled graph over operands like ``arrays`` whose outputs ``build(inputs)`` binds (IR
    values in; out: the list of IR values and what the caller keeps with the graph as its
    ``meta``), or _FAILED."""
    try:
        import codegen
        from codegen.cpu.arena import Arena
        from graph.aval import AVal
        from graph.dtypes import from_numpy
        from graph.ir import Graph

        g = Graph(name)
        inputs = [g.add_input(AVal(a.shape, from_numpy(a.dtype)), f"x{i}") for i, a in enumerate(arrays)]
        outputs, meta = build(inputs)
        g.set_outputs(outputs)
        if not _arena:
            _arena.append(Arena())
        compiled = codegen.compile_schedule(codegen.schedule_graph(g), g.name, arena=_arena[0])
        compiled.meta = meta
        return compiled
    except Exception:  # (an op or shape the compiler does not take: numpy's path stays)
        return _FAILED


def _warm_graph(key, name, arrays, build):
    """The compiled graph of signature ``key`` once it is warm (None before, and _FAILED for good
    where it does not compile): counts the calls, compiles on the one after :data:`WARM_CALLS`,
    keeps the most recently used :data:`MAX_SIGNATURES`."""
    compiled = _compiled.get(key)
    if compiled is None:
        with _lock:
            n = _calls[key] = _calls.get(key, 0) + 1
            if n <= WARM_CALLS:
                if len(_calls) > 4 * MAX_SIGNATURES:
                    _calls.clear()
                return None
        compiled = _compile(name, arrays, build)
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
    return compiled


def run(op, arrays, attrs):
    """The op's result from its compiled graph (a tuple for an op of several outputs), or None
    where numpy's implementation should run."""
    if not enabled():  # (read per call: a conv's work dwarfs an environment lookup)
        return None
    key = _signature(op, arrays, attrs)
    if key is None:
        return None
    from graph.ops.core import bind

    def build(inputs):
        out = bind(op, *inputs, **attrs)
        return (list(out) if op.n_outputs != 1 else [out]), None
    compiled = _warm_graph(key, f"eager_{op.name}", arrays, build)
    if compiled is None or compiled is _FAILED:
        return None
    outs, _ = compiled(list(arrays))
    return outs[0] if op.n_outputs == 1 else tuple(outs)


def run_vjp(op, attrs, inputs, outputs, gs):
    """The input cotangents of one application of ``op`` (an op of :data:`VJP_OPS`, with the
    tensors it took and gave and the output cotangents ``gs``, None where none came) from a
    compiled graph of the op's registry VJP rule (graph/autodiff.py's ``apply_vjp``, as graph mode
    builds it: fused kernels instead of one numpy pass per op of the rule), or None where the
    rule should run op by op. The caller records no backward ops (no outer tape) and passes no
    batched tensors (vmap): the arrays are read directly."""
    if not enabled():
        return None
    from graph.autodiff import apply_vjp
    from .tensor import Tensor
    if not all(isinstance(t, Tensor) for t in inputs):
        return None
    present = tuple(g is not None for g in gs)
    given = [g for g in gs if g is not None]
    if not all(isinstance(g, Tensor) for g in given):
        return None
    arrays = [t._data for t in inputs] + [o._data for o in outputs] + [g._data for g in given]
    key = _signature(op, arrays, attrs)
    if key is None:
        return None
    key += ("vjp", present)
    n_in, n_out = len(inputs), len(outputs)

    def build(values):  # the outputs: the cotangents that are not None; meta: which inputs get one
        ins, outs, rest = values[:n_in], values[n_in:n_in + n_out], iter(values[n_in + n_out:])
        grads = apply_vjp(op, attrs, ins, outs, [next(rest) if p else None for p in present])
        return [g for g in grads if g is not None], tuple(g is not None for g in grads)
    compiled = _warm_graph(key, f"eager_vjp_{op.name}", arrays, build)
    if compiled is None or compiled is _FAILED:
        return None
    results = iter(compiled(arrays)[0])
    return tuple(Tensor._wrap(next(results)) if m else None for m in compiled.meta)


def reset() -> None:
    """Forget every compiled signature and call count (tests; ``capture.reset`` leaves these)."""
    with _lock:
        _calls.clear()
        _compiled.clear()
