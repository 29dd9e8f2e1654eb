"""Data-dependent selections (``unique``, ``unique_consecutive``, ``nonzero``, ``masked_select``),
``unique_with_pad`` (static shapes: padded) and the scatter family
(``tensor_scatter_update/add/sub/max/min/mul/div``, ``gather_nd``).

The four data-dependent ones have output shapes that depend on the input's values, so their
``infer`` cannot give a shape: they run in PyNative only and carry ``data_dependent_shape=True``, which graph
capture turns into a graph break (the op then runs eagerly between two compiled graphs) until
shapes get symbols. The scatter ops have static shapes and compile normally (extern kind: their
kernels are ``impl`` on numpy).

Scatter convention (MindSpore ``TensorScatterUpdate``): ``indices`` has shape ``(..., N)`` with
``N <= x.ndim``; each index row addresses a slice ``x[i0, .., iN-1]`` of shape ``x.shape[N:]``,
so ``updates`` has shape ``indices.shape[:-1] + x.shape[N:]``.
"""
from __future__ import annotations

import numpy as np

from ..aval import AVal
from ..dtypes import int32, int64
from .core import EXTERN, Attr, F, Op, a_bool, a_int, a_shape, describe, fail, register


def _data_dependent(name, validate=None):
    """An ``infer`` that validates the operands (``validate``) and then fails: no static shape."""
    def infer(*avals, **attrs):
        if validate is not None:
            validate(*avals)
        fail(name, "its output shape depends on the input's values (" + ", ".join(describe(a) for a in avals)
             + "); it runs in PyNative mode only (graph capture breaks the graph around it)")
    return infer


# -- unique / nonzero / masked_select ---------------------------------------------------------------
def _unique_impl(xp, x):
    y, idx = xp.unique(x.reshape(-1), return_inverse=True)
    return y.astype(x.dtype, copy=False), idx.reshape(x.shape).astype(np.int32)


register(Op("unique", prim="Unique", inputs=("x",), impl=_unique_impl, infer=_data_dependent("unique"),
            n_outputs=2, eager_infer=False, data_dependent_shape=True, kind=EXTERN,
            nondiff="a set of values and integer positions have no gradient",
            doc="(y, idx): the sorted distinct elements of x (flattened) and, with x's shape, the "
                "position in y of each element (int32)"))


def _optional_axis(v, op, name):
    return None if v is None else a_int(v, op, name)


def _validate_unique_consecutive(x, return_idx=False, return_counts=False, axis=None):
    if axis is not None and not -max(x.ndim, 1) <= axis < max(x.ndim, 1):
        fail("unique_consecutive", f"axis {axis} is out of range for input {describe(x)}")


def _unique_consecutive_impl(xp, x, return_idx=False, return_counts=False, axis=None):
    """(output, idx, counts): x (flattened when axis is None) with each run of equal consecutive
    elements -- or slices along ``axis`` -- kept once; idx maps each input position to its run,
    counts is each run's length (int32 both)."""
    if axis is None:
        rows, ax = x.reshape(-1, 1), 0
    else:
        _validate_unique_consecutive(x, axis=axis)  # (eager runs only the impl here)
        ax = axis % max(x.ndim, 1)
        rows = xp.moveaxis(x, ax, 0).reshape(x.shape[ax], -1)
    n = rows.shape[0]
    starts = xp.ones(n, bool)
    if n > 1:
        starts[1:] = (rows[1:] != rows[:-1]).any(axis=1) if rows.shape[1] else False
    keep = xp.nonzero(starts)[0]
    idx = (xp.cumsum(starts) - 1).astype(np.int32)
    counts = xp.diff(xp.append(keep, n)).astype(np.int32)
    if axis is None:
        return x.reshape(-1)[keep], idx.reshape(x.shape), counts
    return xp.take(x, keep, axis=ax), idx, counts


register(Op("unique_consecutive", prim="UniqueConsecutive", inputs=("x",), impl=_unique_consecutive_impl,
            infer=_data_dependent("unique_consecutive", _validate_unique_consecutive), n_outputs=3,
            eager_infer=False, data_dependent_shape=True, kind=EXTERN,
            attrs={"return_idx": Attr(False, a_bool), "return_counts": Attr(False, a_bool),
                   "axis": Attr(None, _optional_axis)},
            nondiff="a set of values and integer positions have no gradient",
            doc="(output, idx, counts): x (flattened when axis is None) with each run of equal "
                "consecutive elements (slices along axis) kept once, the run of every input "
                "position, and each run's length"))


def _infer_unique_with_pad(x, pad_num):
    if x.ndim != 1:
        fail("unique_with_pad", f"x must be a 1-D tensor, got {describe(x)}")
    if x.dtype not in (int32, int64):
        fail("unique_with_pad", f"x must be int32 or int64, got {describe(x)}", TypeError)
    return AVal(tuple(x.shape), x.dtype), AVal(tuple(x.shape), x.dtype)


def _unique_with_pad_impl(xp, x, pad_num):
    """(y, idx) of x's shape and dtype: the distinct values in order of first occurrence, then
    pad_num; idx[i] is the position of x[i] in y (MindSpore's documented examples)."""
    values, first, inverse = xp.unique(x, return_index=True, return_inverse=True)
    order = xp.argsort(first, kind="stable")  # distinct values by first occurrence
    rank = xp.empty_like(order)
    rank[order] = xp.arange(order.size)
    y = xp.full(x.shape, pad_num, x.dtype)
    y[:values.size] = values[order]
    return y, rank[inverse.reshape(-1)].astype(x.dtype)


register(Op("unique_with_pad", prim="UniqueWithPad", inputs=("x",), impl=_unique_with_pad_impl,
            infer=_infer_unique_with_pad, n_outputs=2, kind=EXTERN, call_attrs=("pad_num",),
            attrs={"pad_num": Attr(0, a_int)}, nondiff="integer values and positions have no gradient",
            doc="(y, idx), both of x's shape: x's distinct values in order of first occurrence "
                "padded with pad_num, and the position in y of each element of x"))


def _nonzero_impl(xp, x):
    return xp.stack(xp.nonzero(x), axis=-1).astype(np.int64).reshape(-1, x.ndim)


register(Op("nonzero", prim="NonZero", inputs=("x",), impl=_nonzero_impl, infer=_data_dependent("nonzero"),
            eager_infer=False, data_dependent_shape=True, kind=EXTERN, nondiff="integer positions",
            doc="int64 (count, x.ndim): the coordinates of x's nonzero elements in row-major order"))


def _validate_masked_select(x, mask):
    if not mask.dtype.is_bool:
        fail("masked_select", f"mask must be a bool tensor, got {describe(mask)}", TypeError)
    try:
        np.broadcast_shapes(tuple(x.shape), tuple(mask.shape))
    except ValueError:
        fail("masked_select", f"mask shape {tuple(mask.shape)} does not broadcast with input shape "
                              f"{tuple(x.shape)}")


def _masked_select_impl(xp, x, mask):
    if mask.dtype != np.bool_:
        raise TypeError("mask must be a bool tensor")  # reworded from the infer rule by eager
    xb, mb = xp.broadcast_arrays(x, mask)
    return xb[mb]


def _masked_select_vjp(g, out, x, mask):
    return F.masked_select_grad(g, mask, shape=tuple(x.shape)), None


register(Op("masked_select", prim="MaskedSelect", inputs=("x", "mask"), impl=_masked_select_impl,
            infer=_data_dependent("masked_select", _validate_masked_select), vjp=_masked_select_vjp, eager_infer=False,
            data_dependent_shape=True, kind=EXTERN,
            doc="1-D: the elements of x where the (broadcast) bool mask is True, row-major"))


def _infer_masked_select_grad(g, mask, shape):
    return AVal(tuple(shape), g.dtype)


def _masked_select_grad_impl(xp, g, mask, shape):
    full = tuple(np.broadcast_shapes(tuple(shape), tuple(mask.shape)))
    out = xp.zeros(full, g.dtype)
    out[xp.broadcast_to(mask, full)] = g
    # x was broadcast against the mask: sum the cotangent back over the broadcast axes
    lead = len(full) - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape) if n == 1 and full[lead + i] != 1)
    return out.sum(axis=axes).reshape(shape) if axes else out


register(Op("masked_select_grad", prim="MaskedSelectGrad", inputs=("g", "mask"), impl=_masked_select_grad_impl,
            infer=_infer_masked_select_grad, kind=EXTERN, attrs={"shape": Attr(check=a_shape)},
            vjp=lambda gg, out, g, mask, shape: (F.masked_select(gg, mask), None),
            doc="zeros of shape with g written where mask is True (masked_select's gradient)"))


# -- the scatter family -----------------------------------------------------------------------------
def _infer_scatter(name, x, indices, updates):
    if not indices.dtype.is_int:
        fail(name, f"indices must be an int32 or int64 tensor, got {describe(indices)}", TypeError)
    if indices.ndim < 1:
        fail(name, f"indices must have rank >= 1, got {describe(indices)}")
    n = indices.shape[-1]
    if n > x.ndim:
        fail(name, f"the last axis of indices ({n}) exceeds the rank of input_x {tuple(x.shape)}")
    want = tuple(indices.shape[:-1]) + tuple(x.shape[n:])
    if tuple(updates.shape) != want:
        fail(name, f"updates must have shape indices.shape[:-1] + input_x.shape[{n}:] = {want}, "
                   f"got {tuple(updates.shape)}")
    if updates.dtype != x.dtype:
        fail(name, f"updates must have input_x's dtype {x.dtype}, got {describe(updates)}", TypeError)
    return AVal(tuple(x.shape), x.dtype)


def _index_tuple(name, xp, shape, indices):
    n = indices.shape[-1]
    cols = tuple(indices[..., k] for k in range(n))
    if indices.size and any(bool(((c < 0) | (c >= int(shape[k]))).any()) for k, c in enumerate(cols)):
        fail(name, f"indices must be in [0, {tuple(shape[:n])}) along the first {n} axes of input_x "
                   f"shape {tuple(shape)}")
    return cols


_SCATTER_UFUNCS = {"add": np.add, "sub": np.subtract, "max": np.maximum, "min": np.minimum,
                   "mul": np.multiply, "div": np.divide}


def _scatter_impl(mode):
    name = "tensor_scatter_" + mode

    def impl(xp, x, indices, updates):
        out = x.copy()
        idx = _index_tuple(name, xp, x.shape, indices)
        if mode == "update":
            out[idx] = updates  # repeated indices: one of the writes wins, as in MindSpore
        else:
            ufunc = getattr(xp, _SCATTER_UFUNCS[mode].__name__)
            if mode == "div" and out.dtype.kind in "iu":
                ufunc = xp.floor_divide
            ufunc.at(out, idx, updates)  # repeated indices apply one after another
        return out
    return impl


def _scatter_update_vjp(g, out, x, indices, updates):
    return (F.tensor_scatter_update(g, indices, F.zeros_like(updates)), None, F.gather_nd(g, indices))


def _scatter_add_vjp(g, out, x, indices, updates):
    return g, None, F.gather_nd(g, indices)


def _scatter_sub_vjp(g, out, x, indices, updates):
    return g, None, F.neg(F.gather_nd(g, indices))


def _scatter_extremum_vjp(g, out, x, indices, updates):
    """MindSpore's TensorScatterMax/Min bprop: the cotangent of each output element goes to every
    value that attains it (x's element and any updates written there), split equally among ties."""
    x_won = F.cast(F.equal(x, out), dtype=g.dtype)
    update_won = F.cast(F.equal(updates, F.gather_nd(out, indices)), dtype=g.dtype)
    winners = F.tensor_scatter_add(x_won, indices, update_won)  # >= 1 everywhere
    share = F.div(g, winners)
    return F.mul(share, x_won), None, F.mul(F.gather_nd(share, indices), update_won)


def _scatter_mul_vjp(g, out, x, indices, updates):
    """out = x * (the product of the updates written to each slice), repeated index rows included:
    dx = g * that product (``tensor_scatter_mul(g, ...)``), and each update's cotangent is
    g * out / u at its slice. Where an update is 0 that division is replaced by g * x (exact
    when no other update shares its index row, the case MindSpore's bprop assumes everywhere)."""
    through = F.gather_nd(F.mul(g, out), indices)
    nonzero = F.not_equal(updates, 0)
    safe = F.where(nonzero, updates, F.ones_like(updates))
    du = F.where(nonzero, F.div(through, safe), F.mul(F.gather_nd(g, indices), F.gather_nd(x, indices)))
    return F.tensor_scatter_mul(g, indices, updates), None, du


def _scatter_div_vjp(g, out, x, indices, updates):
    """out = x / (the product of the updates written to each slice): dx = g divided by them
    (``tensor_scatter_div(g, ...)``), du = -g * out / u at the update's slice (exact with repeated
    index rows too; with distinct ones it is MindSpore's -g * x / u**2)."""
    du = F.neg(F.div(F.gather_nd(F.mul(g, out), indices), updates))
    return F.tensor_scatter_div(g, indices, updates), None, du


_VJPS = {"update": _scatter_update_vjp, "add": _scatter_add_vjp, "sub": _scatter_sub_vjp,
         "max": _scatter_extremum_vjp, "min": _scatter_extremum_vjp, "mul": _scatter_mul_vjp,
         "div": _scatter_div_vjp}
_DOCS = {"update": "replaces", "add": "adds to", "sub": "subtracts from", "max": "takes the maximum with",
         "min": "takes the minimum with", "mul": "multiplies", "div": "divides"}

for _mode in ("update", "add", "sub", "max", "min", "mul", "div"):
    _name = "tensor_scatter_" + _mode
    _vjp = _VJPS.get(_mode)
    register(Op(_name, prim="TensorScatter" + _mode.capitalize(), inputs=("x", "indices", "updates"),
                impl=_scatter_impl(_mode), infer=(lambda n: lambda x, i, u: _infer_scatter(n, x, i, u))(_name),
                vjp=_vjp, kind=EXTERN, diff_inputs=(0, 2),
                doc=f"a copy of x in which each index row of indices {_DOCS[_mode]} the slice it addresses "
                    "with updates"))


def _infer_gather_nd(x, indices):
    if not indices.dtype.is_int:
        fail("gather_nd", f"indices must be an int32 or int64 tensor, got {describe(indices)}", TypeError)
    if indices.ndim < 1 or indices.shape[-1] > x.ndim:
        fail("gather_nd", f"indices must have rank >= 1 and a last axis <= rank of input {tuple(x.shape)}, "
                          f"got {describe(indices)}")
    return AVal(tuple(indices.shape[:-1]) + tuple(x.shape[indices.shape[-1]:]), x.dtype)


def _gather_nd_impl(xp, x, indices):
    return x[_index_tuple("gather_nd", xp, x.shape, indices)]


register(Op("gather_nd", prim="GatherNd", inputs=("x", "indices"), impl=_gather_nd_impl, infer=_infer_gather_nd,
            vjp=lambda g, out, x, indices: (F.tensor_scatter_add(F.zeros_like(x), indices, g), None),
            kind=EXTERN, doc="the slices of x addressed by the index rows of indices (shape "
                             "indices.shape[:-1] + x.shape[N:])"))
