"""``ms.vmap(fn, in_axes=0, out_axes=0)``: vectorising map, a batching transform over the registry.

Inside the mapped function every batched input is a :class:`BatchedTensor`: it looks like one
example (``shape`` is the per-example shape) and holds the whole batch (``value``, batch axis
first). ``bind`` routes an op with a BatchedTensor operand to :func:`batched_handler`, which
applies the op's batching rule (:mod:`runtime.vmap_rules`: one per registry op, by name or by
codegen kind, each written with registered ops) to the batched values; an op without a rule runs
once per example (a loop over the batch) and the results are stacked. Either way the result is
the batched result, so vmap gives the same numbers as calling ``fn`` per example.

Nesting works by levels (each vmap call gets a new one; an op is batched at the innermost level
among its operands first). Gradients work both ways round: ``vmap(grad(f))`` records the
batched ops on the tape at the BatchedTensor level, so the backward pass is batched too (an
unbatched input, e.g. weights passed with ``in_axes=None``, gets per-example gradients);
``grad(vmap(f))`` differentiates through the batching, which is recorded as tape entries.
Under ``ms.jit``/GRAPH_MODE the batched ops bind symbolic tensors, so they compile into the
caller's graph. A ``CellList`` of models of one architecture (model ensembling) is mapped by running
model ``i`` on example ``i`` and stacking the results (:func:`_ensemble`; not vectorised).

Example:
    >>> import numpy as np, runtime as ms
    >>> x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    >>> ms.vmap(lambda row, w: (row * w).sum(), in_axes=(0, None))(x, ms.Tensor([1.0, 10.0, 100.0]))
    Tensor(shape=[2], dtype=Float32, value=[210., 543.])
"""
from __future__ import annotations

from collections.abc import Callable

import itertools

from graph.ops import REGISTRY, register_handler

from . import eager as _eager
from . import tape as _tape
from .tensor import Tensor

__all__ = ["vmap", "BatchedTensor"]

_R = REGISTRY
_LEVELS = itertools.count(1)


class EagerOpWhileTracing(RuntimeError):
    """An op on real tensors only, met while graph capture traces a vmapped function."""


class BatchedTensor(Tensor):
    """One example's view of a batch inside ``vmap``: ``value`` holds every example (batch axis
    0; a Tensor, a symbolic tensor, or a BatchedTensor of an outer vmap); ``level`` names the
    vmap call that batched it."""

    __slots__ = ("value", "level")

    def __init__(self, value, level):  # super().__init__ is deliberately not called
        self.value = value
        self.level = level

    @property
    def _data(self):
        raise AttributeError("vmap: a batched tensor has no single array of data inside the mapped function")

    @property
    def shape(self):
        return tuple(self.value.shape[1:])

    @property
    def dtype(self):
        return self.value.dtype

    @property
    def ndim(self):
        return len(self.value.shape) - 1

    @property
    def size(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def batch_size(self):
        return self.value.shape[0]

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def _no_values(self, *_args, **_kwargs):
        raise ValueError("vmap: the mapped function cannot read the values of a batched tensor (asnumpy, "
                         "item, bool, print...): it runs once for the whole batch")

    asnumpy = numpy = item = tolist = __bool__ = __float__ = __int__ = __index__ = __array__ = _no_values

    def __repr__(self):
        return f"BatchedTensor(shape={list(self.shape)}, batch={self.batch_size}, dtype={self.dtype}, level={self.level})"


def _level_of(args):
    return max(a.level for a in args if isinstance(a, BatchedTensor))


def batched_handler(op, args, attrs):
    """``bind`` for operands that include BatchedTensors: the op's batching rule (or the loop)
    at the innermost level; the result is recorded on active tapes at the BatchedTensor level."""
    from .vmap_rules import apply_batched
    if op.mutates is not None:
        raise ValueError(f"vmap: the in-place op {op.prim} (ops.{op.name}) cannot be batched; "
                         "write the function without in-place updates")
    level = _level_of(args)
    values, batched = [], []
    size = None
    for a in args:
        if isinstance(a, BatchedTensor) and a.level == level:
            values.append(a.value)
            batched.append(True)
            n = a.value.shape[0]
            if size is not None and n != size:
                raise ValueError(f"vmap: operands of {op.prim} have batch sizes {size} and {n}")
            size = n
        else:
            values.append(a)
            batched.append(False)
    with _tape.paused():  # recorded once, below, at the level the user's function sees
        out = apply_batched(op, values, batched, attrs, size)
    multi = isinstance(out, tuple)
    outs = tuple(BatchedTensor(o, level) for o in (out if multi else (out,)))
    if _tape.ACTIVE and op.vjp is not None:
        for tp in _tape.ACTIVE:
            tp.record(op, args, attrs, outs)
    return outs if multi else outs[0]


register_handler(BatchedTensor, batched_handler, priority=30)


# -- moving into and out of the batch (tape entries, so gradients flow through vmap) ---------------
class _IntoBatch:
    """Tape op: a tensor with its batch axis first -> the BatchedTensor of ``level``."""

    name = "vmap_into_batch"
    batchable_vjp = True  # its VJP takes batched cotangents (see runtime.autograd.backward)

    def __init__(self, level, size):
        self.level, self.size = level, size

    def vjp(self, g, out, x):
        # through the recording helper, so a tape differentiating this backward sees the step
        return (_out_of_batch(g, self.level, self.size),)


class _OutOfBatch:
    """Tape op: a BatchedTensor of ``level`` -> its value, batch axis first."""

    name = "vmap_out_of_batch"
    batchable_vjp = True

    def __init__(self, level):
        self.level = level

    def vjp(self, g, out, x):
        return (_into_batch(g, self.level, g.shape[0]),)


def _out_of_batch_value(t, level, size):
    """The batch of ``t`` at ``level`` as a tensor with the batch axis first (an unbatched value
    is the same for every example: broadcast)."""
    from graph.ops import bind
    if isinstance(t, BatchedTensor) and t.level == level:
        return t.value
    t = t if hasattr(t, "shape") else Tensor(t)
    return bind(_R["broadcast_to"], bind(_R["expand_dims"], t, axis=0), shape=(size,) + tuple(t.shape))


def _into_batch(x, level, size):
    b = BatchedTensor(x, level)
    for tp in _tape.ACTIVE:
        tp.record(_IntoBatch(level, size), (x,), {}, (b,))
    return b


def rebatch(value, level):
    """``value`` (batch axis first) as the BatchedTensor of ``level``, recorded on active tapes."""
    return _into_batch(value, level, value.shape[0])


def unbatch(t):
    """The value of a BatchedTensor (batch axis first), recorded on active tapes."""
    return _out_of_batch(t, t.level, t.value.shape[0])


def _out_of_batch(t, level, size):
    value = _out_of_batch_value(t, level, size)
    if isinstance(t, BatchedTensor) and t.level == level and _tape.ACTIVE:
        for tp in _tape.ACTIVE:
            tp.record(_OutOfBatch(level), (t,), {}, (value,))
    return value


# -- the transform ----------------------------------------------------------------------------------
def _move_axis(x, src, dst):
    from graph.ops import bind
    nd = len(x.shape)
    src, dst = src % nd, dst % nd
    if src == dst:
        return x
    perm = [d for d in range(nd) if d != src]
    perm.insert(dst, src)
    return bind(_R["transpose"], x, perm=tuple(perm))


def _check_axis(axis, what):
    if axis is not None and (not isinstance(axis, int) or isinstance(axis, bool)):
        raise TypeError(f"vmap: {what} entries must be an int or None, got {axis!r}")


def _leaves_with_axes(value, axes, what):
    """Pairs (leaf, axis) of a nested argument and its (broadcast) axis spec."""
    if isinstance(axes, (tuple, list)):
        if not isinstance(value, (tuple, list)) or len(value) != len(axes):
            raise ValueError(f"vmap: {what} {axes!r} does not match the structure of the argument "
                             f"({type(value).__name__}{'' if not isinstance(value, (tuple, list)) else f' of {len(value)}'})")
        out = []
        for v, a in zip(value, axes):
            out.extend(_leaves_with_axes(v, a, what))
        return out
    _check_axis(axes, what)
    if isinstance(value, (tuple, list)):
        return [pair for v in value for pair in _leaves_with_axes(v, axes, what)]
    return [(value, axes)]


def _rebuild(value, fn):
    """``value`` (a nest of tuples/lists) with each leaf replaced by ``fn(leaf)``."""
    if isinstance(value, (tuple, list)):
        return type(value)(_rebuild(v, fn) for v in value)
    return fn(value)


def vmap(fn: Callable, in_axes=0, out_axes=0) -> Callable:
    """``ms.vmap(fn, in_axes=0, out_axes=0)``: ``fn`` mapped over a batch axis of its inputs.

    ``in_axes``: an int (every input), None (not batched), or a tuple with one entry (int, None
    or a nested tuple) per positional argument; ``out_axes`` the same for the outputs, where the
    batch axis goes. Unbatched outputs are broadcast along the batch."""
    from .nn.layers.basic import CellList
    if isinstance(fn, CellList):
        return _ensemble(fn, in_axes, out_axes)
    if not callable(fn):
        raise TypeError(f"vmap: fn must be a function or a Cell, got {type(fn).__name__}")
    for what, spec in (("in_axes", in_axes), ("out_axes", out_axes)):
        if not isinstance(spec, (int, tuple, list)) and spec is not None or isinstance(spec, bool):
            raise TypeError(f"vmap: {what} must be an int, None, or a tuple/list of them, got {spec!r}")

    def mapped(*args):
        axes = in_axes
        if isinstance(axes, (tuple, list)):
            if len(axes) != len(args):
                raise ValueError(f"vmap: in_axes has {len(axes)} entries but the function got {len(args)} "
                                 "positional arguments")
        else:
            axes = (axes,) * len(args)
        pairs = []
        for a, ax in zip(args, axes):
            pairs.extend(_leaves_with_axes(a, ax, "in_axes"))
        sizes = set()
        for leaf, ax in pairs:
            if ax is None:
                continue
            if not hasattr(leaf, "shape"):
                raise TypeError(f"vmap: an input mapped over axis {ax} must be a Tensor, got {type(leaf).__name__}")
            nd = len(leaf.shape)
            if not -nd <= ax < nd:
                raise ValueError(f"vmap: in_axes {ax} is out of range for an input of shape {tuple(leaf.shape)}")
            sizes.add(leaf.shape[ax])
        if not sizes:
            raise ValueError("vmap: at least one of in_axes must be not None (nothing to map over)")
        if len(sizes) > 1:
            raise ValueError(f"vmap: the mapped axes have different sizes {sorted(sizes)}")
        size = sizes.pop()
        level = next(_LEVELS)
        _tape.VMAP_LEVEL[0] = level
        it = iter(pairs)

        def wrap_leaf(leaf):
            _, ax = next(it)
            return leaf if ax is None else _into_batch(_move_axis(leaf, ax, 0), level, size)

        # traced by graph capture (symbolic inputs): an op on real tensors alone (a Parameter)
        # would run eagerly at trace time and be baked into the graph; refuse it instead, so
        # capture breaks the graph and this call runs eagerly with today's values
        symbolic = any(hasattr(leaf, "shape") and not isinstance(leaf, Tensor) for leaf, _ in pairs)
        if symbolic:
            _eager.FORBID_EAGER.append(EagerOpWhileTracing)
        try:
            batched_args = tuple(_rebuild(a, wrap_leaf) for a in args)
            out = fn(*batched_args)
            return _unbatch_outputs(out, out_axes, level, size)
        finally:
            if symbolic:
                _eager.FORBID_EAGER.pop()

    mapped.__name__ = f"vmap({getattr(fn, '__name__', type(fn).__name__)})"
    mapped.__wrapped__ = fn
    return mapped


def _ensemble(cells, in_axes, out_axes):
    """``vmap`` over a CellList of models of one architecture (model ensembling): model ``i``
    runs on example ``i`` of the mapped inputs (on the whole input where ``in_axes`` is None),
    one model after the other, and the outputs are stacked along ``out_axes``. Each model keeps
    its own Parameters, so a training-step Cell updates each model with its own data."""
    from graph.ops import bind
    n = len(cells)
    if n == 0:
        raise ValueError("vmap: the CellList is empty")

    def ensembled(*args):
        axes = in_axes if isinstance(in_axes, (tuple, list)) else (in_axes,) * len(args)
        if len(axes) != len(args):
            raise ValueError(f"vmap: in_axes has {len(axes)} entries but the models got {len(args)} arguments")
        for a, ax in zip(args, axes):
            _check_axis(ax, "in_axes")
            if ax is not None and a.shape[ax] != n:
                raise ValueError(f"vmap: the CellList has {n} models but a mapped input has {a.shape[ax]} "
                                 f"examples along axis {ax}")
        outs = []
        for i, cell in enumerate(cells):
            per_model = [a if ax is None else bind(_R["getitem"], _move_axis(a, ax, 0), index=(i,))
                         for a, ax in zip(args, axes)]
            outs.append(cell(*per_model))
        return _stack_outputs(outs, out_axes)

    ensembled.__name__ = "vmap(CellList)"
    return ensembled


def _stack_outputs(outs, out_axes):
    from graph.ops import bind
    first = outs[0]
    if isinstance(first, (tuple, list)):
        axes = out_axes if isinstance(out_axes, (tuple, list)) else (out_axes,) * len(first)
        return type(first)(_stack_outputs([o[k] for o in outs], axes[k]) for k in range(len(first)))
    _check_axis(out_axes, "out_axes")
    if out_axes is None:
        return first
    stacked = bind(_R["stack"], *[o if hasattr(o, "shape") else Tensor(o) for o in outs], axis=0)
    return _move_axis(stacked, 0, out_axes)


def _unbatch_outputs(out, out_axes, level, size):
    if isinstance(out_axes, (tuple, list)) and isinstance(out, (tuple, list)):
        if len(out_axes) != len(out):
            raise ValueError(f"vmap: out_axes has {len(out_axes)} entries but the function returned {len(out)} outputs")
        return type(out)(_unbatch_outputs(o, a, level, size) for o, a in zip(out, out_axes))
    if isinstance(out, (tuple, list)):
        return type(out)(_unbatch_outputs(o, out_axes, level, size) for o in out)
    if isinstance(out_axes, (tuple, list)):
        raise ValueError(f"vmap: out_axes {out_axes!r} does not match a single output")
    _check_axis(out_axes, "out_axes")
    if out is None:
        return None
    if out_axes is None:
        if isinstance(out, BatchedTensor) and out.level == level:
            raise ValueError("vmap: out_axes is None for an output that depends on the mapped inputs")
        return out
    value = _out_of_batch(out, level, size)
    nd = len(value.shape)
    if not -nd <= out_axes < nd:
        raise ValueError(f"vmap: out_axes {out_axes} is out of range for an output of rank {nd - 1}")
    return _move_axis(value, 0, out_axes)
