"""Reductions and normalised exponentials: reduce_sum/mean/max/min/prod, argmax/argmin,
softmax, log_softmax, logsumexp."""
from __future__ import annotations

import numpy as np

from ..aval import AVal
from ..dtypes import int32, int64, float32
from .core import (EXTERN, REDUCTION, Attr, F, Op, a_axis, a_bool, a_dtype, a_int, describe, fail,
                   normalize_axes, normalize_axis, register)


def reduced_shape(shape, axes, keep_dims):
    if keep_dims:
        return tuple(1 if i in axes else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in axes)


def _infer_reduce(name, float_out=False):
    def infer(x, axis=None, keep_dims=False):
        axes = normalize_axes(name, axis, x.ndim)
        if name in ("reduce_max", "reduce_min") and any(x.shape[a] == 0 for a in axes):
            fail(name, f"cannot reduce an empty axis of shape {tuple(x.shape)}")
        dt = x.dtype
        if float_out and not dt.is_float:
            dt = float32
        elif name == "reduce_sum" and dt.is_bool:
            dt = int64
        return AVal(reduced_shape(x.shape, axes, keep_dims), dt)
    return infer


def expand_to(g, x, axis, keep_dims):
    """Broadcast a reduced cotangent ``g`` back to ``x``'s shape."""
    axes = normalize_axes("reduce", axis, x.ndim)
    if not keep_dims and axes and axes[-1] != len(axes) - 1:
        # (a reduction over the leading axes -- all of them, or a batch axis -- broadcasts back
        # as it is, since broadcasting aligns the trailing axes: no reshape op)
        g = F.reshape(g, shape=reduced_shape(x.shape, axes, True))
    return F.broadcast_to(g, shape=tuple(x.shape))


def _axes_tuple(axis, ndim):
    return normalize_axes("reduce", axis, ndim)


REDUCE_ATTRS = {"axis": Attr(None, a_axis), "keep_dims": Attr(False, a_bool)}


_ndarray, _asarray, _add_reduce = np.ndarray, np.asarray, np.add.reduce


def _sum_impl(xp, x, axis=None, keep_dims=False):
    if type(x) is _ndarray and type(axis) is tuple and axis and x.ndim:
        # (axes that shape inference accepted: in range and distinct, which numpy takes as they
        # are, negative or unsorted; None and () mean every axis, which numpy spells otherwise)
        out = _add_reduce(x, axis, x.dtype if x.dtype.kind != "b" else int64.np, None, keep_dims)
        return out if type(out) is _ndarray else _asarray(out)
    axes = _axes_tuple(axis, x.ndim)
    dtype = x.dtype if x.dtype.kind != "b" else int64.np
    if type(x) is _ndarray:  # (ndarray.sum is this call behind two Python layers)
        return _asarray(_add_reduce(x, axes, dtype, None, keep_dims))
    return xp.asarray(x.sum(axis=axes, keepdims=keep_dims, dtype=dtype))


register(Op("reduce_sum", prim="ReduceSum", inputs=("x",), impl=_sum_impl,
            infer=_infer_reduce("reduce_sum"), kind=REDUCTION, reduce="add",
            attrs=REDUCE_ATTRS, call_attrs=("axis",), doc="sum over axis (None: all axes)",
            vjp=lambda g, out, x, axis=None, keep_dims=False: (expand_to(g, x, axis, keep_dims),)))


def _count(x, axis):
    n = 1
    for a in _axes_tuple(axis, x.ndim):
        n *= x.shape[a]
    return n


def _mean_impl(xp, x, axis=None, keep_dims=False):
    if x.dtype.kind not in "f":
        x = x.astype(float32.np)
    return xp.asarray(xp.mean(x, axis=_axes_tuple(axis, x.ndim), keepdims=keep_dims, dtype=x.dtype))


register(Op("reduce_mean", prim="ReduceMean", inputs=("x",), impl=_mean_impl,
            infer=_infer_reduce("reduce_mean", float_out=True), kind=REDUCTION, reduce="add",
            attrs=REDUCE_ATTRS, call_attrs=("axis",), doc="mean over axis (None: all axes)",
            vjp=lambda g, out, x, axis=None, keep_dims=False: (
                expand_to(F.div(g, float(max(_count(x, axis), 1))), x, axis, keep_dims),)))


def _extreme_vjp(g, out, x, axis=None, keep_dims=False):
    # The gradient goes to every position equal to the extreme, shared equally between ties.
    out_b = expand_to(out, x, axis, keep_dims)
    mask = F.cast(F.equal(x, out_b), dtype=x.dtype)
    count = F.reduce_sum(mask, axis=axis, keep_dims=True)
    share = F.div(mask, count)
    return (F.mul(expand_to(g, x, axis, keep_dims), share),)


register(Op("reduce_max", prim="ReduceMax", inputs=("x",),
            impl=lambda xp, x, axis=None, keep_dims=False: xp.asarray(
                xp.max(x, axis=_axes_tuple(axis, x.ndim), keepdims=keep_dims)),
            infer=_infer_reduce("reduce_max"), kind=REDUCTION, reduce="max", attrs=REDUCE_ATTRS,
            call_attrs=("axis",),
            vjp=_extreme_vjp, doc="max over axis; ties share the gradient"))
register(Op("reduce_min", prim="ReduceMin", inputs=("x",),
            impl=lambda xp, x, axis=None, keep_dims=False: xp.asarray(
                xp.min(x, axis=_axes_tuple(axis, x.ndim), keepdims=keep_dims)),
            infer=_infer_reduce("reduce_min"), kind=REDUCTION, reduce="min", attrs=REDUCE_ATTRS,
            call_attrs=("axis",),
            vjp=_extreme_vjp, doc="min over axis; ties share the gradient"))


def _prod_vjp(g, out, x, axis=None, keep_dims=False):
    # d prod / dx_i = prod / x_i (inputs are assumed non-zero, as in the finite-difference tests)
    return (F.mul(expand_to(g, x, axis, keep_dims), F.div(expand_to(out, x, axis, keep_dims), x)),)


register(Op("reduce_prod", prim="ReduceProd", inputs=("x",),
            impl=lambda xp, x, axis=None, keep_dims=False: xp.asarray(
                xp.prod(x, axis=_axes_tuple(axis, x.ndim), keepdims=keep_dims, dtype=x.dtype)),
            infer=_infer_reduce("reduce_prod"), kind=REDUCTION, reduce="mul", attrs=REDUCE_ATTRS,
            call_attrs=("axis",),
            vjp=_prod_vjp, doc="product over axis (gradient assumes no zero entries)"))


def _index_dtype(v, op, name):
    dt = a_dtype(v, op, name)
    if dt not in (int32, int64):
        fail(op.name, f"{name} must be int32 or int64, got {dt}", TypeError)
    return dt


def _arg_axis(name, x, axis):
    """The axis of an argmax/argmin (None: over the flattened tensor), range-checked."""
    if axis is None or x.ndim == 0:
        return None
    return normalize_axis(name, axis, x.ndim)


def _infer_arg(name):
    def infer(x, axis=-1, output_type=int32, keep_dims=False):
        ax = _arg_axis(name, x, axis)
        size = x.shape[ax] if ax is not None else _size(x.shape)
        if size == 0:
            fail(name, f"cannot take {name} of an empty axis, shape {tuple(x.shape)}")
        if ax is None:
            return AVal((1,) * x.ndim if keep_dims else (), output_type)
        return AVal(reduced_shape(x.shape, (ax,), keep_dims), output_type)
    return infer


def _size(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _arg_impl(fn):
    def impl(xp, x, axis=-1, output_type=int32, keep_dims=False):
        ax = _arg_axis(fn, x, axis)
        r = getattr(xp, fn)(x, axis=ax, keepdims=keep_dims)
        return xp.asarray(r).astype(output_type.np)
    return impl


ARG_ATTRS = {"axis": Attr(-1, a_int), "output_type": Attr(int32, _index_dtype),
             "keep_dims": Attr(False, a_bool)}
register(Op("argmax", prim="Argmax", inputs=("x",), impl=_arg_impl("argmax"),
            infer=_infer_arg("argmax"), kind=EXTERN, attrs=ARG_ATTRS,
            nondiff="integer index output has no gradient",
            doc="index of the (first) max along axis (None: of the flattened tensor), as output_type"))
register(Op("argmin", prim="Argmin", inputs=("x",), impl=_arg_impl("argmin"),
            infer=_infer_arg("argmin"), kind=EXTERN, attrs=ARG_ATTRS,
            nondiff="integer index output has no gradient",
            doc="index of the (first) min along axis (None: of the flattened tensor), as output_type"))


# -- softmax family ---------------------------------------------------------------------------------
def _infer_softmax(name):
    def infer(x, axis=-1):
        if not x.dtype.is_float:
            fail(name, f"expects a floating-point tensor, got {describe(x)}", TypeError)
        if x.ndim:
            normalize_axis(name, axis, x.ndim)
        return AVal(x.shape, x.dtype)
    return infer


def _softmax_impl(xp, x, axis=-1):
    m = xp.max(x, axis=axis, keepdims=True)
    e = xp.exp(x - m)
    return e / xp.sum(e, axis=axis, keepdims=True)


def _log_softmax_impl(xp, x, axis=-1):
    m = xp.max(x, axis=axis, keepdims=True)
    s = x - m
    return s - xp.log(xp.sum(xp.exp(s), axis=axis, keepdims=True))


SM_ATTRS = {"axis": Attr(-1, a_int)}
register(Op("softmax", prim="Softmax", inputs=("x",), impl=_softmax_impl,
            infer=_infer_softmax("softmax"), kind=EXTERN, attrs=SM_ATTRS,
            vjp=lambda g, out, x, axis=-1: (
                F.mul(out, F.sub(g, F.reduce_sum(F.mul(g, out), axis=axis, keep_dims=True))),),
            doc="exp(x) / sum(exp(x)) along axis, computed stably"))
register(Op("log_softmax", prim="LogSoftmax", inputs=("x",), impl=_log_softmax_impl,
            infer=_infer_softmax("log_softmax"), kind=EXTERN, attrs=SM_ATTRS,
            vjp=lambda g, out, x, axis=-1: (
                F.sub(g, F.mul(F.exp(out), F.reduce_sum(g, axis=axis, keep_dims=True))),),
            doc="x - logsumexp(x) along axis"))


def _logsumexp_impl(xp, x, axis=None, keep_dims=False):
    axes = _axes_tuple(axis, x.ndim)
    m = xp.max(x, axis=axes, keepdims=True)
    m = xp.where(xp.isfinite(m), m, 0)
    r = xp.log(xp.sum(xp.exp(x - m), axis=axes, keepdims=True)) + m
    if not keep_dims:
        r = xp.reshape(r, reduced_shape(x.shape, axes, False))
    return xp.asarray(r)


def _logsumexp_infer(x, axis=None, keep_dims=False):
    if not x.dtype.is_float:
        fail("logsumexp", f"expects a floating-point tensor, got {describe(x)}", TypeError)
    axes = normalize_axes("logsumexp", axis, x.ndim)
    return AVal(reduced_shape(x.shape, axes, keep_dims), x.dtype)


register(Op("logsumexp", prim="LogSumExp", inputs=("x",), impl=_logsumexp_impl,
            infer=_logsumexp_infer, kind=EXTERN, attrs=REDUCE_ATTRS,
            vjp=lambda g, out, x, axis=None, keep_dims=False: (
                F.mul(expand_to(g, x, axis, keep_dims),
                      F.exp(F.sub(x, expand_to(out, x, axis, keep_dims)))),),
            doc="log(sum(exp(x))) over axis, computed stably"))
