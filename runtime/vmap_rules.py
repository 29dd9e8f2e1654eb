"""Batching rules for ``ms.vmap``, one per registry op (by name, or for every op of a codegen kind),
and the loop every other op falls back to.

A rule gets the op, its operands (a batched operand is its whole batch with the batch axis
first; the others are as given), which operands are batched, the op's attributes and the batch
size, and returns the batched result (batch axis first) computed with registered ops through
``bind`` -- so no op's semantics is written here, only where the batch axis goes. A rule returns
None for a case it does not cover; :func:`loop` then runs the op once per example.
"""
from __future__ import annotations

from graph.ops import REGISTRY, bind
from graph.ops.core import ELEMENTWISE, REDUCTION, is_tensorlike

_R = REGISTRY
RULES: dict = {}


def rule(*names):
    def register(fn):
        for n in names:
            RULES[n] = fn
        return fn
    return register


def apply_batched(op, values, batched, attrs, size):
    """The batched result of ``op`` (batch axis first)."""
    fn = RULES.get(op.name)
    if fn is None:
        fn = {ELEMENTWISE: _elementwise, REDUCTION: _axis_attr}.get(op.kind)
    out = fn(op, values, batched, attrs, size) if fn is not None else None
    return loop(op, values, batched, attrs, size) if out is None else out


def loop(op, values, batched, attrs, size):
    """The fallback: ``op`` on each example in turn, the results stacked along a new first axis."""
    if size == 0:
        raise ValueError(f"vmap: {op.prim} has no batching rule, and an empty batch cannot be looped over")
    results = []
    for i in range(size):
        args = [bind(_R["getitem"], v, index=(i,)) if b else v for v, b in zip(values, batched)]
        results.append(bind(op, *args, **attrs))
    if isinstance(results[0], tuple):
        return tuple(bind(_R["stack"], *[r[k] for r in results], axis=0) for k in range(len(results[0])))
    return bind(_R["stack"], *results, axis=0)


# -- helpers ------------------------------------------------------------------------------------------
def _rank(v, b):
    """Per-example rank of an operand."""
    if not is_tensorlike(v):
        return 0
    return len(v.shape) - 1 if b else len(v.shape)


def _with_rank(v, rank):
    """A batched value (B, *s) reshaped to (B, 1, ..., 1, *s) with per-example rank ``rank``."""
    shape = tuple(v.shape)
    missing = rank - (len(shape) - 1)
    if missing <= 0:
        return v
    return bind(_R["reshape"], v, shape=(shape[0],) + (1,) * missing + shape[1:])


def _batch_all(v, b, like):
    """An operand as a batched value: an unbatched one is broadcast along a new first axis, by
    adding it to zeros taken from the batched operand ``like`` (so the op involves a batched
    value: under graph capture nothing runs on the unbatched operand alone at trace time)."""
    if b:
        return v
    zeros = bind(_R["zeros_like"], like)
    zeros = bind(_R["getitem"], zeros, index=(("slice", None, None, None),) + (0,) * (len(like.shape) - 1))
    zeros = bind(_R["cast"], zeros, dtype=v.dtype)
    zeros = bind(_R["reshape"], zeros, shape=(like.shape[0],) + (1,) * len(v.shape))
    return bind(_R["add"], zeros, v)


def _shift(axis, nd):
    """A per-example axis (negative allowed) as an axis of the batched value."""
    if not -nd <= axis < max(nd, 1):
        return None
    return axis % max(nd, 1) + 1


# -- rules ----------------------------------------------------------------------------------------------
def _elementwise(op, values, batched, attrs, size):
    """Broadcasting ops: batched operands get unit axes after the batch axis up to the result's
    per-example rank, so numpy broadcasting lines every operand up with the batch axis first."""
    rank = max(_rank(v, b) for v, b in zip(values, batched))
    vals = [_with_rank(v, rank) if b else v for v, b in zip(values, batched)]
    return bind(op, *vals, **attrs)


RULES["dropout"] = _elementwise
# extern ops that broadcast elementwise (graph/ops/bits_and_arcs.py): the same rule
rule("atan", "asin", "acos", "atan2", "bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift",
     "right_shift", "gcd", "lcm")(_elementwise)


@rule("argmax", "argmin", "cumsum", "cumprod", "softmax", "log_softmax", "logsumexp", "sort")
def _axis_attr(op, values, batched, attrs, size):
    """Ops with an ``axis`` attribute over one operand (reductions too): the axis moves by one."""
    x = values[0]
    nd = len(x.shape) - 1
    axis = attrs.get("axis")
    if axis is None:
        if op.kind != REDUCTION and op.name != "logsumexp":
            return None
        new = tuple(range(1, nd + 1))
    elif isinstance(axis, tuple):
        if not axis and op.kind == REDUCTION:  # () means every axis for a reduction
            new = tuple(range(1, nd + 1))
        else:
            new = tuple(_shift(a, nd) for a in axis)
            if None in new:
                return None
    else:
        new = _shift(axis, nd)
        if new is None or nd == 0:
            return None
    if new == () and op.kind == REDUCTION:
        return bind(_R["identity"], x)  # a per-example scalar: nothing to reduce
    return bind(op, x, **{**attrs, "axis": new})


@rule("reshape")
def _reshape(op, values, batched, attrs, size):
    return bind(op, values[0], shape=(size,) + tuple(attrs["shape"]))


@rule("transpose")
def _transpose(op, values, batched, attrs, size):
    nd = len(values[0].shape) - 1
    perm = attrs["perm"]
    perm = tuple(reversed(range(nd))) if perm is None else tuple(p % nd for p in perm)
    return bind(op, values[0], perm=(0,) + tuple(p + 1 for p in perm))


@rule("expand_dims")
def _expand_dims(op, values, batched, attrs, size):
    nd = len(values[0].shape) - 1
    axis = attrs["axis"]
    if not -(nd + 1) <= axis <= nd:
        return None
    return bind(op, values[0], axis=axis % (nd + 1) + 1)


@rule("squeeze")
def _squeeze(op, values, batched, attrs, size):
    x = values[0]
    shape = tuple(x.shape[1:])
    axis = attrs["axis"]
    drop = {i for i, d in enumerate(shape) if d == 1} if axis is None else {a % len(shape) for a in axis}
    if any(shape[a] != 1 for a in drop):
        return None  # let the op raise its own error, example by example
    return bind(_R["reshape"], x, shape=(size,) + tuple(d for i, d in enumerate(shape) if i not in drop))


@rule("broadcast_to")
def _broadcast_to(op, values, batched, attrs, size):
    target = tuple(attrs["shape"])
    x = _with_rank(values[0], len(target))
    return bind(op, x, shape=(size,) + target)


@rule("tile")
def _tile(op, values, batched, attrs, size):
    mult = tuple(attrs["multiples"])
    x = _with_rank(values[0], len(mult))
    nd = len(x.shape) - 1
    mult = (1,) * (nd - len(mult)) + mult
    return bind(op, x, multiples=(1,) + mult)


@rule("concat", "stack")
def _join(op, values, batched, attrs, size):
    like = next(v for v, b in zip(values, batched) if b)
    vals = [_batch_all(v, b, like) for v, b in zip(values, batched)]
    nd = len(vals[0].shape) - 1
    span = nd + 1 if op.name == "stack" else nd
    axis = attrs["axis"]
    if not -span <= axis < max(span, 1):
        return None
    return bind(op, *vals, axis=axis % span + 1)


@rule("split")
def _split(op, values, batched, attrs, size):
    nd = len(values[0].shape) - 1
    axis = _shift(attrs["axis"], nd)
    return None if axis is None else bind(op, values[0], **{**attrs, "axis": axis})


@rule("slice")
def _slice(op, values, batched, attrs, size):
    return bind(op, values[0], begin=(0,) + tuple(attrs["begin"]), size=(size,) + tuple(attrs["size"]))


@rule("getitem")
def _getitem(op, values, batched, attrs, size):
    """Basic indexing only (ints, slices, None, Ellipsis): a full slice in front for the batch
    axis. Advanced (tensor/list/bool) indices move axes around: they take the loop."""
    if any(batched[1:]):
        return None
    spec = attrs["index"]
    if any(isinstance(s, tuple) and s and s[0] in ("list", "tensor", "bool") for s in spec):
        return None
    return bind(op, values[0], *values[1:], index=(("slice", None, None, None),) + tuple(spec))


@rule("matmul")
def _matmul(op, values, batched, attrs, size):
    """numpy matmul broadcasting: a batched per-example vector becomes a matrix (and back), and
    batched operands get unit batch axes so both line up with the batch axis first. Unbatched
    operands are left as they are (numpy aligns them from the right), so no op runs on them
    alone: under graph capture such an op would run eagerly at trace time."""
    (a, b), (ba, bb) = values, batched
    ra, rb = _rank(a, ba), _rank(b, bb)
    ta, tb = attrs["transpose_a"], attrs["transpose_b"]
    row = col = False
    if ba and ra == 1:
        a, ta, ra, row = bind(_R["expand_dims"], a, axis=1), False, 2, True
    if bb and rb == 1:
        b, tb, rb, col = bind(_R["expand_dims"], b, axis=2), False, 2, True
    rank = max(ra, rb)
    if ba:
        a = _with_rank(a, rank)
    if bb:
        b = _with_rank(b, rank)
    out = bind(op, a, b, transpose_a=ta, transpose_b=tb)
    if col:
        out = bind(_R["squeeze"], out, axis=(len(out.shape) - 1,))
    if row:  # the unit row of a batched vector is last when no column axis follows it
        last = col or (not bb and rb == 1)
        out = bind(_R["squeeze"], out, axis=(len(out.shape) - (1 if last else 2),))
    return out


@rule("gather")
def _gather(op, values, batched, attrs, size):
    (params, idx), (bp, bi) = values, batched
    axis = attrs["axis"]
    if bp and not bi:
        new = _shift(axis, len(params.shape) - 1)
        return None if new is None else bind(op, params, idx, axis=new)
    if bi and not bp:
        nd = len(params.shape)
        ax = axis % nd
        out = bind(op, params, idx, axis=ax)  # batch axis of idx lands at position ax
        if ax == 0:
            return out
        perm = list(range(len(out.shape)))
        perm.insert(0, perm.pop(ax))
        return bind(_R["transpose"], out, perm=tuple(perm))
    return None


@rule("one_hot")
def _one_hot(op, values, batched, attrs, size):
    if not batched[0] or any(batched[1:]):
        return None
    nd = len(values[0].shape) - 1
    axis = attrs["axis"]
    if axis == -1:
        return bind(op, *values, **attrs)
    if not 0 <= axis <= nd:
        return None
    return bind(op, *values, **{**attrs, "axis": axis + 1})


@rule("layer_norm")
def _layer_norm(op, values, batched, attrs, size):
    if any(batched[1:]):
        return None
    nd = len(values[0].shape) - 1
    new = dict(attrs)
    for k in ("begin_norm_axis", "begin_params_axis"):
        a = attrs[k]
        if a >= 0:
            if a >= nd:
                return None
            new[k] = a + 1
    return bind(op, *values, **new)


@rule("bias_add")
def _bias_add(op, values, batched, attrs, size):
    (x, bias), (bx, bb) = values, batched
    if not bx or bb or attrs.get("data_format", "NCHW") not in ("NCHW", "NCDHW"):
        return None
    shape = tuple(x.shape)
    if len(shape) < 3:
        return None
    merged = bind(_R["reshape"], x, shape=(shape[0] * shape[1],) + shape[2:])
    return bind(_R["reshape"], bind(op, merged, bias, **attrs), shape=shape)


@rule("conv2d", "max_pool2d", "avg_pool2d")
def _image_batch(op, values, batched, attrs, size):
    """NCHW ops over a batched input (weights unbatched): the vmap batch merges with N."""
    x = values[0]
    if not batched[0] or any(batched[1:]) or len(x.shape) != 5:
        return None
    shape = tuple(x.shape)
    out = bind(op, bind(_R["reshape"], x, shape=(shape[0] * shape[1],) + shape[2:]), *values[1:], **attrs)
    return bind(_R["reshape"], out, shape=shape[:2] + tuple(out.shape[1:]))


@rule("strided_slice")
def _strided_slice(op, values, batched, attrs, size):
    """A full slice in front for the batch axis: every per-axis list gets a leading entry and
    every bit mask moves up one bit."""
    masks = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")
    new = {k: attrs[k] << 1 for k in masks}
    new["begin"] = (0,) + tuple(attrs["begin"])
    new["end"] = (size,) + tuple(attrs["end"])
    new["strides"] = (1,) + tuple(attrs["strides"])
    return bind(op, values[0], **new)


@rule("softmax_cross_entropy")
def _softmax_cross_entropy(op, values, batched, attrs, size):
    """Row-wise (per sample): the vmap batch merges with the rows, both outputs split back."""
    logits, labels = (_batch_all(v, b, next(x for x, f in zip(values, batched) if f))
                      for v, b in zip(values, batched))
    if len(logits.shape) != 3:
        return None
    b, n, c = logits.shape
    loss, backprop = bind(op, bind(_R["reshape"], logits, shape=(b * n, c)),
                          bind(_R["reshape"], labels, shape=(b * n, c)))
    return bind(_R["reshape"], loss, shape=(b, n)), bind(_R["reshape"], backprop, shape=(b, n, c))


@rule("unsorted_segment_sum")
def _unsorted_segment_sum(op, values, batched, attrs, size):
    """Batched data, unbatched ids (gather's gradient): the batch axis moves behind the axes the
    ids cover, and the segments' axis comes out first, then back behind the batch."""
    (x, ids), (bx, bi) = values, batched
    if not bx or bi:
        return None
    k = len(ids.shape)
    nd = len(x.shape)
    perm = tuple(range(1, k + 1)) + (0,) + tuple(range(k + 1, nd))
    out = bind(op, bind(_R["transpose"], x, perm=perm), ids, **attrs)  # (num_segments, B, ...)
    back = (1, 0) + tuple(range(2, len(out.shape)))
    return bind(_R["transpose"], out, perm=back)


def _with_batch_coordinate(indices, size):
    """Batched index rows (B, K..., N) -> (B, K..., 1 + N): each row led by its example's number,
    so that they address the batched operand (B, ...) instead of one example."""
    import numpy as np
    from .tensor import Tensor
    shape = tuple(indices.shape)
    lead = np.arange(size).reshape((size,) + (1,) * (len(shape) - 1))
    coord = Tensor(np.ascontiguousarray(np.broadcast_to(lead, shape[:-1] + (1,))).astype(indices.dtype.np))
    return bind(_R["concat"], coord, indices, axis=-1)


@rule("tensor_scatter_update", "tensor_scatter_add", "tensor_scatter_sub", "tensor_scatter_max",
      "tensor_scatter_min", "tensor_scatter_mul", "tensor_scatter_div")
def _tensor_scatter(op, values, batched, attrs, size):
    (x, idx, upd), (bx, bi, bu) = values, batched
    like = x if bx else idx if bi else upd
    x, idx, upd = _batch_all(x, bx, like), _batch_all(idx, bi, like), _batch_all(upd, bu, like)
    return bind(op, x, _with_batch_coordinate(idx, size), upd)


@rule("gather_nd")
def _gather_nd(op, values, batched, attrs, size):
    (x, idx), (bx, bi) = values, batched
    if bi and not bx:
        return bind(op, x, idx)  # the batch axis of idx is one more leading axis of its rows
    like = x if bx else idx
    return bind(op, _batch_all(x, bx, like), _with_batch_coordinate(_batch_all(idx, bi, like), size))
