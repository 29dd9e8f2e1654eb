"""Gradient-clipping functions of MindSpore 2.x: ``ops.clip_by_value`` (a Tensor or a sequence of
them), ``ops.clip_by_norm`` and ``ops.clip_by_global_norm``, composed from registry ops.

Example:
    >>> from runtime import ops, Tensor
    >>> x1 = Tensor([[2., 3.], [1., 2.]]); x2 = Tensor([[1., 4.], [3., 1.]])
    >>> [round(float(v), 4) for v in ops.clip_by_global_norm((x1, x2), 1.0)[0].asnumpy().ravel()]
    [0.2981, 0.4472, 0.1491, 0.2981]
"""
from __future__ import annotations

import math

from graph.ops import REGISTRY, bind
from graph.ops.core import is_tensorlike

from .composite import clamp

__all__ = ["clip_by_value", "clip_by_norm", "clip_by_global_norm"]

_R = REGISTRY


def _is_sequence(x):
    return isinstance(x, (list, tuple)) and not is_tensorlike(x)


def clip_by_value(x, clip_value_min=None, clip_value_max=None):
    """``ops.clip_by_value(x, clip_value_min=None, clip_value_max=None)``: each element limited to
    ``[clip_value_min, clip_value_max]``; ``x`` a Tensor or a list/tuple of Tensors (each clipped,
    the same container type returned)."""
    if _is_sequence(x):
        return type(x)(clamp(t, clip_value_min, clip_value_max) for t in x)
    return clamp(x, clip_value_min, clip_value_max)


def _flat_abs_norm(t, p):
    """The ``p``-norm of all elements of ``t`` as a 0-d tensor (p = inf: the largest |element|)."""
    a = bind(_R["abs"], t)
    axes = tuple(range(t.ndim))
    if p == math.inf:
        return bind(_R["reduce_max"], a, axis=axes, keep_dims=False)
    if p == 1:
        return bind(_R["reduce_sum"], a, axis=axes, keep_dims=False)
    if p == 2:
        return bind(_R["sqrt"], bind(_R["reduce_sum"], bind(_R["square"], t), axis=axes, keep_dims=False))
    return bind(_R["pow"], bind(_R["reduce_sum"], bind(_R["pow"], a, float(p)), axis=axes, keep_dims=False), 1.0 / p)


def _total_norm(tensors, p):
    norms = [_flat_abs_norm(t, p) for t in tensors]
    if len(norms) == 1:
        return norms[0]
    stacked = bind(_R["stack"], *norms, axis=0)
    return _flat_abs_norm(stacked, p)


def _check_float(fn, tensors):
    for t in tensors:
        if not is_tensorlike(t) or not t.dtype.is_float:
            raise TypeError(f"ops.{fn}: expects float Tensors (gradients), got "
                            f"{getattr(t, 'dtype', type(t).__name__)}")


def clip_by_norm(x, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """``ops.clip_by_norm(x, max_norm, norm_type=2.0, error_if_nonfinite=False)``: scale ``x`` (a
    Tensor or a list/tuple of Tensors) by ``max_norm / (total_norm + 1e-6)`` when that is below 1,
    where ``total_norm`` is the ``norm_type``-norm of the vector of every tensor's norm.
    ``error_if_nonfinite=True`` raises RuntimeError for a NaN/inf total norm (it reads the value,
    so under graph capture it is a graph break)."""
    seq = _is_sequence(x)
    tensors = list(x) if seq else [x]
    _check_float("clip_by_norm", tensors)
    if not isinstance(max_norm, (int, float)) or isinstance(max_norm, bool):
        raise TypeError(f"ops.clip_by_norm: max_norm must be a float or int, got {max_norm!r}")
    p = float(norm_type)
    total = _total_norm(tensors, p)
    if error_if_nonfinite and not bool(bind(_R["isfinite"], total)):
        raise RuntimeError(f"ops.clip_by_norm: the total norm of order {norm_type} of the inputs is non-finite, "
                           "so they cannot be clipped (error_if_nonfinite=True)")
    coef = bind(_R["div"], float(max_norm), bind(_R["add"], total, 1e-6))
    coef = bind(_R["minimum"], coef, 1.0)
    out = [bind(_R["mul"], t, bind(_R["cast"], coef, dtype=t.dtype)) for t in tensors]
    return type(x)(out) if seq else out[0]


def clip_by_global_norm(x, clip_norm=1.0, use_norm=None):
    """``ops.clip_by_global_norm(x, clip_norm=1.0, use_norm=None)``: each Tensor of the tuple/list
    ``x`` times ``clip_norm / max(global_norm, clip_norm)``, where ``global_norm`` is the L2 norm
    of all their elements together. Returns a tuple."""
    if not _is_sequence(x):
        raise TypeError(f"ops.clip_by_global_norm: x must be a tuple or list of Tensors, got {type(x).__name__}")
    if use_norm is not None:
        raise ValueError("ops.clip_by_global_norm: use_norm must be None (as in MindSpore)")
    if not isinstance(clip_norm, (int, float)) or isinstance(clip_norm, bool) or clip_norm <= 0:
        raise ValueError(f"ops.clip_by_global_norm: clip_norm must be a number greater than 0, got {clip_norm!r}")
    tensors = list(x)
    _check_float("clip_by_global_norm", tensors)
    global_norm = _total_norm(tensors, 2.0)
    scale = bind(_R["div"], float(clip_norm), bind(_R["maximum"], global_norm, float(clip_norm)))
    return tuple(bind(_R["mul"], t, bind(_R["cast"], scale, dtype=t.dtype)) for t in tensors)
