"""MindSpore 2.x functional signatures that differ from the registry op's attribute form.

The registry keeps one op per computation with its attributes (``argmax(x, axis, output_type,
keep_dims)``, ``batch_norm(x, gamma, beta, moving_mean, moving_var, training, eps)``...); the names
users call take MindSpore 2.x's arguments, in its order, and are composed here from those ops.

Example:
    >>> import numpy as np, runtime as ms
    >>> from runtime import ops, Tensor
    >>> ops.argmax(Tensor([[1.0, 5.0], [7.0, 2.0]]), dim=1)
    Tensor(shape=[2], dtype=Int64, value=[1, 0])
    >>> ops.one_hot(Tensor(np.array([0, 2])), 3, Tensor(5.0), Tensor(-1.0))
    Tensor(shape=[2, 3], dtype=Float32, value=
    [[ 5., -1., -1.],
     [-1., -1.,  5.]])
"""
from __future__ import annotations

import numpy as np

from graph.dtypes import int64
from graph.ops import REGISTRY, bind
from graph.ops.core import is_tensorlike

from ..tensor import Tensor
from .composite import CompositePrimitive

_R = REGISTRY

__all__ = ["argmax", "argmin", "one_hot", "OneHot", "layer_norm", "batch_norm", "cumsum", "cumprod",
           "gather_elements", "GatherD", "softmax", "arctan", "arcsin", "arccos", "arctan2", "unique_consecutive"]


def argmax(input, dim=None, keepdim=False):  # noqa: A002 - MindSpore's names
    """``ops.argmax(input, dim=None, keepdim=False)``: int64 indices of the maxima along ``dim``
    (of the flattened tensor when ``dim`` is None). ``ops.Argmax(axis, output_type)`` is the
    Primitive (int32 by default)."""
    return bind(_R["argmax"], input, axis=dim, output_type=int64, keep_dims=keepdim)


def argmin(input, axis=None, keepdims=False):  # noqa: A002
    """``ops.argmin(input, axis=None, keepdims=False)``: int64 indices of the minima."""
    return bind(_R["argmin"], input, axis=axis, output_type=int64, keep_dims=keepdims)


def _is_tensor(v):
    return is_tensorlike(v) and not isinstance(v, np.ndarray)  # a Tensor, or a traced one


def one_hot(indices, depth, on_value=1.0, off_value=0.0, axis=-1, *, strict=False):
    """``ops.one_hot(indices, depth, on_value, off_value, axis=-1)``: ``on_value`` where the new
    axis equals the index, ``off_value`` elsewhere. With Tensor on/off values the result has
    ``on_value``'s dtype; with Python numbers it is float32. Indices outside ``[0, depth)`` give a
    row of ``off_value`` (as MindSpore), or a ValueError with ``strict=True`` (an extension)."""
    if not (_is_tensor(on_value) or _is_tensor(off_value)):
        return bind(_R["one_hot"], indices, depth=depth, on_value=on_value, off_value=off_value, axis=axis,
                    strict=strict)
    for what, v in (("on_value", on_value), ("off_value", off_value)):
        if _is_tensor(v) and tuple(v.shape) not in ((), (1,)):
            raise ValueError(f"OneHot (ops.one_hot): {what} must be a scalar tensor, got shape {tuple(v.shape)}")
    hot = bind(_R["one_hot"], indices, depth=depth, on_value=1.0, off_value=0.0, axis=axis, strict=strict)
    dtype = on_value.dtype if _is_tensor(on_value) else off_value.dtype
    on = bind(_R["cast"], on_value, dtype=dtype)
    off = bind(_R["cast"], off_value, dtype=dtype)
    if tuple(on.shape) == (1,):
        on = bind(_R["reshape"], on, shape=())
    if tuple(off.shape) == (1,):
        off = bind(_R["reshape"], off, shape=())
    return bind(_R["where"], bind(_R["greater"], hot, 0.5), on, off)


class OneHot(CompositePrimitive):
    """``ops.OneHot(axis=-1)(indices, depth, on_value, off_value)`` (MindSpore's Primitive: the
    axis at construction, the rest at call time)."""

    def __init__(self, axis=-1):
        self.axis = axis

    def __call__(self, indices, depth, on_value=1.0, off_value=0.0):
        return one_hot(indices, depth, on_value, off_value, self.axis)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):  # noqa: A002
    """``ops.layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5)``: normalise
    over the trailing ``normalized_shape`` axes, then scale by ``weight`` and shift by ``bias``
    (ones and zeros when None). ``ops.LayerNorm(begin_norm_axis, begin_params_axis, epsilon)`` is
    the Primitive returning ``(y, mean, rstd)``."""
    norm = (int(normalized_shape),) if isinstance(normalized_shape, (int, np.integer)) else tuple(normalized_shape)
    shape = tuple(input.shape)
    if not norm or len(norm) > len(shape) or shape[len(shape) - len(norm):] != norm:
        raise ValueError(f"LayerNorm (ops.layer_norm): normalized_shape {norm} must equal the trailing "
                         f"dimensions of input shape {shape}")
    dtype = input.dtype.np
    if weight is None:
        weight = Tensor._placed(np.ones(norm, dtype), like=input)
    if bias is None:
        bias = Tensor._placed(np.zeros(norm, dtype), like=input)
    begin = len(shape) - len(norm)
    return bind(_R["layer_norm"], input, weight, bias, begin_norm_axis=begin, begin_params_axis=begin,
                epsilon=eps)[0]


def batch_norm(input_x, running_mean, running_var, weight, bias, training=False, momentum=0.1, eps=1e-5):
    """``ops.batch_norm(input_x, running_mean, running_var, weight, bias, training=False,
    momentum=0.1, eps=1e-5)``: batch normalisation over N (and H, W). When training, the batch
    statistics normalise and the running ones are updated in place,
    ``running = (1 - momentum) * running + momentum * batch`` (the variance unbiased); otherwise the
    running statistics normalise. Returns the output only."""
    if isinstance(momentum, bool) or not isinstance(momentum, (int, float)) or not 0.0 <= momentum <= 1.0:
        raise ValueError(f"BatchNorm (ops.batch_norm): momentum must be a float in [0, 1], got {momentum!r}")
    y, batch_mean, batch_var = bind(_R["batch_norm"], input_x, weight, bias, running_mean, running_var,
                                    training=training, eps=eps)
    if training:
        for running, batch in ((running_mean, batch_mean), (running_var, batch_var)):
            moved = bind(_R["add"], bind(_R["mul"], running, 1.0 - momentum),
                         bind(_R["mul"], bind(_R["stop_gradient"], batch), float(momentum)))
            bind(_R["assign"], running, moved)
    return y


def cumsum(x, axis, dtype=None):
    """``ops.cumsum(x, axis, dtype=None)``: cumulative sum along ``axis`` (in ``dtype`` when
    given). ``ops.CumSum(exclusive=False, reverse=False)(x, axis)`` is the Primitive."""
    if dtype is not None:
        x = bind(_R["cast"], x, dtype=dtype)
    return bind(_R["cumsum"], x, axis=axis)


def cumprod(input, dim, dtype=None):  # noqa: A002 - MindSpore's names
    """``ops.cumprod(input, dim, dtype=None)``: cumulative product along ``dim`` (in ``dtype`` when
    given). ``ops.CumProd(exclusive=False, reverse=False)(x, axis)`` is the Primitive."""
    x = input if dtype is None else bind(_R["cast"], input, dtype=dtype)
    return bind(_R["cumprod"], x, axis=dim)


def arctan(input):  # noqa: A002
    """``ops.arctan(input)``: alias of ``ops.atan``."""
    return bind(_R["atan"], input)


def arcsin(input):  # noqa: A002
    """``ops.arcsin(input)``: alias of ``ops.asin``."""
    return bind(_R["asin"], input)


def arccos(input):  # noqa: A002
    """``ops.arccos(input)``: alias of ``ops.acos``."""
    return bind(_R["acos"], input)


def arctan2(input, other):  # noqa: A002
    """``ops.arctan2(input, other)``: alias of ``ops.atan2``."""
    return bind(_R["atan2"], input, other)


def unique_consecutive(input, return_idx=False, return_counts=False, axis=None):  # noqa: A002
    """``ops.unique_consecutive(input, return_idx=False, return_counts=False, axis=None)``: each run
    of equal consecutive elements (slices along ``axis``; of the flattened input when None) kept
    once, then ``idx`` and ``counts`` when asked for. ``ops.UniqueConsecutive(...)(x)`` is the
    Primitive; it always returns all three."""
    output, idx, counts = bind(_R["unique_consecutive"], input, return_idx=return_idx,
                               return_counts=return_counts, axis=axis)
    if return_idx and return_counts:
        return output, idx, counts
    if return_idx:
        return output, idx
    if return_counts:
        return output, counts
    return output


def gather_elements(input, dim, index):  # noqa: A002
    """``ops.gather_elements(input, dim, index)``: ``out[i][j] = input[i][index[i][j]]`` for
    ``dim=1`` (each output element picks along ``dim``); same as ``ops.GatherD()(x, dim, index)``."""
    return bind(_R["gather_elements"], input, index, dim=dim)


class GatherD(CompositePrimitive):
    """``ops.GatherD()(x, dim, index)``: :func:`gather_elements` as MindSpore's Primitive."""

    function = staticmethod(gather_elements)


def softmax(input, axis=-1, *, dtype=None):  # noqa: A002
    """``ops.softmax(input, axis=-1, *, dtype=None)``: exp normalised along ``axis`` (computed in
    ``dtype`` when given)."""
    if dtype is not None:
        input = bind(_R["cast"], input, dtype=dtype)  # noqa: A001
    return bind(_R["softmax"], input, axis=axis)
