"""PyNative's heavy ops as compiled one-op graphs (tiering, as JIT compilers tier hot code).

The numpy implementations of the convolutions (im2col + BLAS, in graph/ops/nn.py) and of the GELU
family (graph/ops/elementwise.py) are the reference, and slow: on LeNet5's second convolution (b32, measured interleaved on the task's
2-core VM under load) numpy took 6.3 ms forward, 13.6 ms for the weight gradient and 8.3 ms for the
input gradient, against 0.38, 1.57 and 0.90 ms for the same op compiled by codegen/cpu as a graph of
one node. So once an op of :data:`OPS` has been called :data:`WARM_CALLS` times with one signature
(operand shapes and dtypes, attributes), that signature is compiled, off the calling thread
(runtime/background_compile.py: the compile never lands inside the user's step), and every call
after the compile has finished runs the compiled graph; the calls before run numpy's path, so each
call is one of the two:

- the op's shape inference has run first (runtime/eager.py), so errors are the eager path's;
- only float32/float64 numpy operands on the CPU qualify (and the number 0, which the recurrences'
  gradient ops take for an absent cotangent: a constant of the compiled graph); anything else
  keeps the numpy path;
- a signature whose compilation fails keeps the numpy path for good (never an error of ours);
- all these graphs keep their intermediates in one arena (codegen/cpu/arena.py), so memory is that
  of the biggest, not the sum; they run one at a time (the arena's lock);
- at most :data:`MAX_SIGNATURES` signatures stay compiled (least recently used dropped);
- ``MSJIT_EAGER_KERNELS=0`` turns tiering off (the numpy path always);
- :func:`wait_pending` waits for the compiles in progress (tests, and benchmarks of the steady
  state); a warm process loads the kernels' object code from the disk cache (codegen/cpu/diskcache.py)
  instead of running LLVM again.

Backward rules tier the same way (:func:`run_vjp`): the VJP of an op of :data:`VJP_OPS` (LayerNorm's
rule is 13 registered ops, each a numpy pass over the activations) is bound on IR values into a
graph, compiled (its ops fused into a few kernels, as graph mode compiles them) and run as one
call, when no tape records the backward (gradients of gradients keep the op-by-op rule).

The compiled kernels sum in another order than numpy's BLAS: results agree to float rounding
(relative 5e-7 in float32), as graph mode's do. The recurrences' kernels also round tanh
differently (a few ulp), and the differences pass through the time steps: their states and
gradients agree with numpy's to a relative 2e-5 in float32 (1e-12 in float64) on the tests'
sequences (tests/runtime/test_eager_recurrences.py).

Example:
    >>> import numpy as np
    >>> import runtime as ms
    >>> x = ms.Tensor(np.ones((1, 1, 4, 4), np.float32))
    >>> w = ms.Tensor(np.ones((1, 1, 3, 3), np.float32))
    >>> [float(ms.ops.conv2d(x, w).asnumpy()[0, 0, 0, 0]) for _ in range(WARM_CALLS + 1)]
    [9.0, 9.0, 9.0]
    >>> wait_pending(timeout=600)  # (the third call submitted the compile)
    True
    >>> float(ms.ops.conv2d(x, w).asnumpy()[0, 0, 0, 0])  # (the compiled graph's)
    9.0
"""
from __future__ import annotations

import collections
import threading

import numpy as np

from graph import config, forksafe

from . import background_compile

#: ops whose numpy implementation is many times slower than their compiled kernels (softmax's four
#: numpy passes, lowered to fused row kernels: 2.0 -> 0.26 ms on the Transformer's attention
#: probabilities (16, 4, 64, 64), 3.1 -> 0.33 ms on (1024, 512), torch 0.2 and 0.26; the pools:
#: 0.41 -> 0.05 ms forward, 0.79 -> 0.14 ms backward on LeNet5's first, b32; the exact GELU and its
#: gradient, whose numpy erf is fdlibm's algorithm in float64 array passes: 29 -> 1.3 ms forward and
#: 33 -> 1.6 ms backward on the Transformer's (16, 64, 512) feed-forward activations; LayerNorm,
#: lowered to fused row kernels by graph/passes/lower.py: 2.1 -> 0.37 ms on (16, 64, 128))
OPS = frozenset({"conv2d", "conv2d_backprop_input", "conv2d_backprop_filter", "max_pool2d", "max_pool2d_grad",
                 "avg_pool2d", "avg_pool2d_grad", "gelu", "gelu_grad", "layer_norm", "softmax",
                 # one pass per statistic over each channel instead of six whole-array numpy passes
                 # (codegen/cpu/native/norm.py)
                 "batch_norm",
                 # the recurrences over a whole sequence: numpy runs a Python loop of ~10 array
                 # passes a time step; the native kernels (codegen/cpu/native/recurrent.py, gru.py)
                 # run the steps' gate arithmetic in registers, split over the batch's rows (the
                 # LSTM bench's, 35 steps, batch 32, hidden 128, on one thread of the loaded
                 # 2-core VM: 4.2 -> 1.7 ms forward, 4.4 -> 1.3 ms backward; 1.7 ms both on two threads)
                 "lstm_recurrence", "lstm_recurrence_grad", "gru_recurrence", "gru_recurrence_grad"})
#: ops whose compiled kernel only pays from this many elements of the first operand on (a
#: classifier's (32, 10) softmax: 17 us in numpy, 22 us compiled, the call's fixed cost)
MIN_ELEMENTS = {"softmax": 4096}
#: calls of a signature that run numpy's implementation before it is compiled
WARM_CALLS = 2
#: compiled signatures kept
MAX_SIGNATURES = 256

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_FAILED = object()
#: the mark of a signature whose compile was submitted and has not finished (numpy's path runs)
_PENDING = object()
_lock = threading.Lock()
_calls: dict = {}
#: signature -> compiled graph (run_vjp: (graph, which inputs get a cotangent)), _FAILED or _PENDING
_compiled: "collections.OrderedDict" = collections.OrderedDict()
_arena = []
#: bumped by :func:`reset`: a compile submitted before a reset does not store its result after it
_generation = [0]


def enabled() -> bool:
    return config.get("MSJIT_EAGER_KERNELS")


#: what stands in a signature for an operand that is the number 0: the recurrences' gradient ops
#: take a cotangent that is absent as the number 0 (graph/ops/recurrent.py), and their compiled
#: graph has the constant 0 there, not an input
_ZERO = "0"


def _is_zero_number(a) -> bool:
    return (type(a) is float or type(a) is int) and a == 0


def _signature(op, arrays, attrs):
    key = [op.name]
    for a in arrays:
        if type(a) is not np.ndarray or a.dtype not in _FLOATS:
            if _is_zero_number(a):
                key.append(_ZERO)
                continue
            return None
        key.append(a.shape)
        key.append(a.dtype)
    key.append(tuple(attrs.items()))
    return tuple(key)


def _compile_graph(name, avals, build):
    """A compiled graph over inputs of ``avals`` whose outputs ``build(inputs)`` binds, or _FAILED."""
    try:
        import codegen
        from codegen.cpu.arena import Arena
        from graph.ir import Graph

        g = Graph(name)
        inputs = [g.add_input(aval, f"x{i}") for i, aval in enumerate(avals)]
        g.set_outputs(build(inputs))
        with _lock:
            if not _arena:
                _arena.append(Arena())
        return codegen.compile_schedule(codegen.schedule_graph(g), g.name, arena=_arena[0])
    except Exception:  # (an op or shape the compiler does not take: numpy's path stays)
        return _FAILED


def _avals(arrays):
    from graph.aval import AVal
    from graph.dtypes import from_numpy
    return [AVal(a.shape, from_numpy(a.dtype)) for a in arrays]


def _compile(op, avals, attrs, zeros=()):
    """The op as a compiled graph of one node over operands of ``avals``, or _FAILED. ``zeros``:
    the positions of the op's operands that are the number 0 (constants of the node, not inputs
    of the graph: ``avals`` are the other operands', in order)."""
    from graph.ops.core import bind

    def build(inputs):
        it = iter(inputs)
        operands = [0.0 if i in zeros else next(it) for i in range(len(avals) + len(zeros))]
        out = bind(op, *operands, **attrs)
        return list(out) if op.n_outputs != 1 else [out]
    return _compile_graph(f"eager_{op.name}", avals, build)


def _warm(key, make_compile):
    """The compiled graph of signature ``key`` once its compile has finished, else None (numpy's
    path runs). The call after :data:`WARM_CALLS` calls submits ``make_compile()`` (a function of
    no arguments that returns the compiled graph or _FAILED; it must not hold the call's arrays)
    to the background compile thread."""
    compiled = _compiled.get(key)
    if compiled is None:
        with _lock:
            if key in _compiled:  # (another thread submitted it meanwhile)
                return None
            n = _calls[key] = _calls.get(key, 0) + 1
            if n <= WARM_CALLS:
                if len(_calls) > 4 * MAX_SIGNATURES:
                    _calls.clear()
                return None
            _calls.pop(key, None)
            _store(key, _PENDING)
            generation = _generation[0]
        compile_it = make_compile()
        if not background_compile.submit(lambda: _finish(key, compile_it, generation)):
            with _lock:  # (the interpreter is exiting: numpy's path for good)
                _compiled.pop(key, None)
        return None
    if compiled is _PENDING or compiled is _FAILED:
        return None
    try:
        _compiled.move_to_end(key)
    except KeyError:  # (dropped meanwhile by another thread: this call still runs it)
        pass
    return compiled


def _store(key, value) -> None:
    """``_compiled[key] = value`` as the most recently used (``_lock`` held)."""
    _compiled[key] = value
    _compiled.move_to_end(key)
    while len(_compiled) > MAX_SIGNATURES:
        _compiled.popitem(last=False)


def _finish(key, compile_it, generation) -> None:
    """On the background thread: compile, and publish the result unless :func:`reset` ran since."""
    try:
        compiled = compile_it()
    except Exception:  # (compile_it turns compiler errors into _FAILED; anything else: numpy's path too)
        compiled = _FAILED
    with _lock:
        if generation == _generation[0]:
            _store(key, compiled)


def wait_pending(timeout: float | None = None) -> bool:
    """Block until every compile submitted so far has finished (and its graph is in use); False
    if ``timeout`` seconds passed first."""
    return background_compile.wait(timeout)


def run(op, arrays, attrs):
    """The op's result from its compiled graph, or None where numpy's implementation should run."""
    if not enabled():  # (read per call: a conv's work dwarfs an environment lookup)
        return None
    if op.name in MIN_ELEMENTS and getattr(arrays[0], "size", 0) < MIN_ELEMENTS[op.name]:
        return None
    key = _signature(op, arrays, attrs)
    if key is None:
        return None
    # the operands that are the number 0 (every operand the signature took that is not an
    # array): constants of the compiled graph, not its inputs
    zeros = frozenset()
    if len(key) < 2 * len(arrays) + 2:  # (an array takes two entries of the key, the number 0 one)
        zeros = frozenset(i for i, a in enumerate(arrays) if type(a) is not np.ndarray)
        arrays = [a for a in arrays if type(a) is np.ndarray]
    compiled = _warm(key, lambda: _compile_for(op, _avals(arrays), attrs, zeros))
    if compiled is None:
        return None
    outs, _ = compiled(list(arrays))
    return outs[0] if op.n_outputs == 1 else tuple(outs)


def _compile_for(op, avals, attrs, zeros=frozenset()):
    """``_compile`` of these operands' avals, as a function of no arguments (the job closes over
    avals, not over the call's arrays, which it would otherwise keep alive until it runs)."""
    return lambda: _compile(op, avals, attrs, zeros)


# -- backward rules --------------------------------------------------------------------------------
#: ops whose VJP rule is many ops over the whole tensor (LayerNorm's: 13, each a numpy pass over
#: the activations; softmax's: 4; batch norm's: a dozen, three fused passes compiled): PyNative's
#: backward runs the rule as one compiled graph once warm
VJP_OPS = frozenset({"layer_norm", "softmax", "batch_norm"})


def _operand_arrays(values):
    """The numpy float arrays of tensors ``values`` (None kept as None), or None when one is
    anything else (another dtype, a device array, a batched tensor, a Python value)."""
    from .tensor import Tensor
    from .vmap import BatchedTensor
    arrays = []
    for v in values:
        if v is None:
            arrays.append(None)
            continue
        if not isinstance(v, Tensor) or isinstance(v, BatchedTensor):
            return None
        d = v._data
        if type(d) is not np.ndarray or d.dtype not in _FLOATS:
            return None
        arrays.append(d)
    return arrays


def run_vjp(op, attrs, inputs, outputs, gs):
    """The input cotangents of one tape entry of ``op`` (tensors and None, as ``apply_vjp`` gives
    them) from the compiled graph of its registry VJP rule, or None where the rule should run op
    by op. The caller runs it only when no tape records the backward (the compiled graph is one
    step no tape sees, so gradients of gradients take the op-by-op path).

    The graph is the rule itself bound on IR values, so PyNative's gradient is the one graph mode
    computes for that op (to float rounding, as the compiled forward kernels are)."""
    if not enabled():
        return None
    arrays = _operand_arrays(tuple(inputs) + tuple(outputs) + tuple(gs))
    if arrays is None:
        return None
    key = ("vjp", op.name, tuple(attrs.items()),
           tuple(None if a is None else (a.shape, a.dtype) for a in arrays))
    present = [a for a in arrays if a is not None]
    entry = _warm(key, lambda: _vjp_compile(op, attrs, len(inputs), len(outputs),
                                            tuple(a is not None for a in arrays), _avals(present)))
    if entry is None:
        return None
    compiled, mask = entry
    outs, _ = compiled(present)
    outs = iter(outs)
    return tuple(_tensor(next(outs)) if has else None for has in mask)


def _vjp_compile(op, attrs, n_in, n_out, given, avals):
    """A function of no arguments compiling ``op``'s VJP rule over operands of ``avals`` (those
    whose ``given`` flag is set; the others are None) into ``(graph, which inputs get a
    cotangent)``, or _FAILED."""
    got_grads = []  # per input: does the rule give it a cotangent (filled when compiling)

    def build(values):
        from graph.autodiff import apply_vjp
        it = iter(values)
        full = [next(it) if has else None for has in given]
        grads = apply_vjp(op, attrs, full[:n_in], full[n_in:n_in + n_out], full[n_in + n_out:])
        got_grads.extend(g is not None for g in grads)
        return [g for g in grads if g is not None]

    def compile_it():
        compiled = _compile_graph(f"eager_vjp_{op.name}", avals, build)
        return compiled if compiled is _FAILED else (compiled, tuple(got_grads))
    return compile_it


def _tensor(array):
    from .tensor import Tensor
    return Tensor._wrap(array)


def reset() -> None:
    """Forget every compiled signature and call count (tests; ``capture.reset`` leaves these); a
    compile still in progress is dropped when it finishes."""
    with _lock:
        _generation[0] += 1
        _calls.clear()
        _compiled.clear()


def _forget_pending_after_fork() -> None:
    # a forked child has no compile thread: the parent's submitted compiles never finish here, so
    # their signatures start warming again (the child compiles them on a thread of its own)
    for key in [k for k, v in _compiled.items() if v is _PENDING]:
        del _compiled[key]


forksafe.renew_in_child(globals(), "_lock", threading.Lock)
forksafe.on_fork_child(_forget_pending_after_fork)
