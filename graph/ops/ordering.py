"""Ops along one axis: cumsum, cumprod, sort, gather_elements (``GatherD``) and its scatter-add gradient.

``topk`` and ``argsort`` are built from ``sort`` (``runtime.ops``); sort's gradient sends each
value's cotangent back to where it came from with ``gather_elements`` and the inverse permutation.

Example:
    >>> from graph.ops import REGISTRY
    >>> REGISTRY["sort"].n_outputs, REGISTRY["cumsum"].call_attrs
    (2, ('axis',))
"""
from __future__ import annotations

import numpy as np

from ..aval import AVal
from ..dtypes import int32
from .core import (EXTERN, REQUIRED, Attr, F, Op, a_bool, a_int, a_shape, describe, fail, gets_gradient,
                   normalize_axis, register)


# -- cumsum ---------------------------------------------------------------------------------------------
def _infer_cumsum(x, axis, exclusive=False, reverse=False):
    if x.ndim == 0:
        fail("cumsum", "input must have rank >= 1, got a scalar")
    normalize_axis("cumsum", axis, x.ndim)
    return AVal(x.shape, x.dtype)


def _cumsum_impl(xp, x, axis, exclusive=False, reverse=False):
    ax = axis % x.ndim
    y = xp.flip(x, ax) if reverse else x
    out = xp.cumsum(y, axis=ax, dtype=x.dtype)
    if exclusive:  # shift by one: out[i] = sum of the elements before i
        out = out - y
    return xp.ascontiguousarray(xp.flip(out, ax) if reverse else out)


def _cumsum_vjp(g, out, x, axis, exclusive=False, reverse=False):
    if not gets_gradient(x):
        return (None,)
    # each input element feeds every output after it: the cotangent is the sum over those outputs
    return (F.cumsum(g, axis=axis, exclusive=exclusive, reverse=not reverse),)


register(Op("cumsum", prim="CumSum", inputs=("x",), impl=_cumsum_impl, infer=_infer_cumsum,
            vjp=_cumsum_vjp, kind=EXTERN, call_attrs=("axis",),
            attrs={"axis": Attr(REQUIRED, a_int), "exclusive": Attr(False, a_bool),
                   "reverse": Attr(False, a_bool)},
            doc="cumulative sum along axis (exclusive: without the element itself; reverse: from "
                "the end)"))


# -- cumprod --------------------------------------------------------------------------------------------
def _infer_cumprod(x, axis, exclusive=False, reverse=False):
    if x.ndim == 0:
        fail("cumprod", "input must have rank >= 1, got a scalar")
    if x.dtype.is_bool:
        fail("cumprod", f"cannot multiply bools ({describe(x)}); cast to a number type first", TypeError)
    normalize_axis("cumprod", axis, x.ndim)
    return AVal(x.shape, x.dtype)


def _cumprod_impl(xp, x, axis, exclusive=False, reverse=False):
    if x.dtype.kind == "b":  # eager skips nothing here, but compiled code runs only the impl
        raise TypeError("cumprod: cannot multiply bools; cast to a number type first")
    ax = axis % x.ndim
    y = xp.flip(x, ax) if reverse else x
    out = xp.cumprod(y, axis=ax, dtype=x.dtype)
    if exclusive:  # shift by one along the axis: out[i] = product of the elements before i
        ones = xp.ones_like(xp.take(out, xp.arange(0, min(1, out.shape[ax])), axis=ax))
        head = xp.take(out, xp.arange(0, max(out.shape[ax] - 1, 0)), axis=ax)
        out = xp.concatenate([ones, head], axis=ax)
    return xp.ascontiguousarray(xp.flip(out, ax) if reverse else out)


def _cumprod_vjp(g, out, x, axis, exclusive=False, reverse=False):
    # MindSpore's CumProd bprop: each output is a product containing x_j once, so d out_i / d x_j
    # = out_i / x_j for every i that includes x_j; summing over those i is the cumulative sum in
    # the other direction. Like MindSpore's, it divides by x (a zero input gives inf/NaN).
    if not gets_gradient(x):
        return (None,)
    through = F.cumsum(F.mul(g, out), axis=axis, exclusive=exclusive, reverse=not reverse)
    return (F.div(through, x),)


register(Op("cumprod", prim="CumProd", inputs=("x",), impl=_cumprod_impl, infer=_infer_cumprod,
            vjp=_cumprod_vjp, kind=EXTERN, call_attrs=("axis",),
            attrs={"axis": Attr(REQUIRED, a_int), "exclusive": Attr(False, a_bool),
                   "reverse": Attr(False, a_bool)},
            doc="cumulative product along axis (exclusive: without the element itself; reverse: "
                "from the end)"))


# -- sort ----------------------------------------------------------------------------------------------------
def _infer_sort(x, axis=-1, descending=False):
    if x.ndim == 0:
        fail("sort", "input must have rank >= 1, got a scalar")
    normalize_axis("sort", axis, x.ndim)
    if x.dtype.is_bool:
        fail("sort", f"cannot sort a bool tensor ({describe(x)})", TypeError)
    return AVal(x.shape, x.dtype), AVal(x.shape, int32)


def _sort_impl(xp, x, axis=-1, descending=False):
    ax = axis % x.ndim
    # stable, so equal values keep their order (the first occurrence comes first either way)
    if descending:
        idx = _stable_descending(xp, x, ax)
    else:
        idx = xp.argsort(x, axis=ax, kind="stable")
    return xp.take_along_axis(x, idx, axis=ax), idx.astype(np.int32)


def _stable_descending(xp, x, ax):
    """Indices sorting ``x`` from largest to smallest with ties in their original order."""
    if x.dtype.kind in "iu":
        key = -(x.astype(np.int64))
    else:
        key = -x
    return xp.argsort(key, axis=ax, kind="stable")


def _sort_vjp(g, out, x, axis=-1, descending=False):
    gv, _ = g
    if not gets_gradient(x):
        return (None,)
    _, idx = out
    inverse = F.sort(idx, axis=axis)[1]  # where each input element went
    return (F.gather_elements(gv, inverse, dim=axis),)


register(Op("sort", prim="Sort", inputs=("x",), impl=_sort_impl, infer=_infer_sort, vjp=_sort_vjp,
            kind=EXTERN, n_outputs=2,
            attrs={"axis": Attr(-1, a_int), "descending": Attr(False, a_bool)},
            doc="(values sorted along axis, int32 indices they came from); ties keep their order"))


# -- gather_elements ---------------------------------------------------------------------------------------
def _infer_gather_elements(x, index, dim):
    name = "gather_elements"
    if not index.dtype.is_int:
        fail(name, f"index must be an integer tensor, got {describe(index)}", TypeError)
    if index.ndim != x.ndim:
        fail(name, f"index rank {index.ndim} must equal input rank {x.ndim} (shapes {tuple(index.shape)} "
                   f"and {tuple(x.shape)})")
    d = normalize_axis(name, dim, x.ndim)
    for i, (a, b) in enumerate(zip(index.shape, x.shape)):
        if i != d and a > b:
            fail(name, f"index shape {tuple(index.shape)} exceeds input shape {tuple(x.shape)} on axis {i}")
    return AVal(index.shape, x.dtype)


def _check_range(index, n, name):
    if index.size and (int(index.min()) < -n or int(index.max()) >= n):
        raise ValueError(f"GatherD (ops.{name}): index out of range [-{n}, {n}) along the gathered axis")


def _gather_elements_impl(xp, x, index, dim):
    d = dim % x.ndim
    _check_range(index, x.shape[d], "gather_elements")
    block = tuple(slice(0, s) if i != d else slice(None) for i, s in enumerate(index.shape))
    return xp.take_along_axis(x[block], index.astype(np.int64) % x.shape[d], axis=d)


def _gather_elements_vjp(g, out, x, index, dim):
    if not gets_gradient(x):
        return None, None
    return F.gather_elements_grad(g, index, dim=dim, shape=tuple(x.shape)), None


register(Op("gather_elements", prim="GatherD", inputs=("x", "index"), impl=_gather_elements_impl,
            infer=_infer_gather_elements, vjp=_gather_elements_vjp, kind=EXTERN,
            attrs={"dim": Attr(REQUIRED, a_int)},
            doc="out[i][j][k] = x[i][index[i][j][k]][k] for dim=1 (torch.gather / MindSpore GatherD)"))


def _gather_elements_grad_impl(xp, g, index, dim, shape):
    d = dim % len(shape)
    out = xp.zeros(shape, dtype=g.dtype)
    block = tuple(slice(0, s) if i != d else slice(None) for i, s in enumerate(index.shape))
    idx = index.astype(np.int64) % shape[d]
    grids = list(xp.ogrid[tuple(slice(0, s) for s in index.shape)])
    grids[d] = idx
    xp.add.at(out[block], tuple(grids), g)  # repeated indices accumulate
    return out


register(Op("gather_elements_grad", prim="GatherDGrad", inputs=("g", "index"), impl=_gather_elements_grad_impl,
            infer=lambda g, index, dim, shape: AVal(shape, g.dtype), kind=EXTERN,
            vjp=lambda gg, out, g, index, dim, shape: (F.gather_elements(gg, index, dim=dim), None),
            attrs={"dim": Attr(REQUIRED, a_int), "shape": Attr(REQUIRED, a_shape)},
            doc="zeros of shape with g scatter-added where gather_elements read (its gradient)"))
