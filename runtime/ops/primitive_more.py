"""Primitive-class spellings (attributes at construction, inputs at call) of MindSpore 2.x's ``ops`` reference over
the functions of math_more.py, array_more.py, random_more.py and nn_more.py: ``Erfinv``, ``Conj``, ``Real``,
``Imag``, ``Cummax``, ``Cummin``, ``StandardLaplace``, ``Multinomial``, ``RandomCategorical``, ``Randperm``,
``InplaceAdd``, ``InplaceSub``, ``InplaceUpdate``, ``IndexFill`` and ``LRN``. No op semantics of their own.

Example:
    >>> import numpy as np
    >>> from runtime import ops, Tensor
    >>> values, indices = ops.Cummax(axis=0)(Tensor(np.array([1.0, 3.0, 2.0])))
    >>> values.asnumpy().tolist(), indices.asnumpy().tolist()
    ([1.0, 3.0, 3.0], [0, 1, 1])
"""
from __future__ import annotations

import numpy as np

from graph.dtypes import as_dtype, int32, int64
from graph.ops import REGISTRY, bind
from graph.ops.core import is_tensorlike

from ..tensor import Tensor

_R = REGISTRY

__all__ = [  # noqa: F822 - the unary classes are made by _unary() below
           "Erfinv", "Conj", "Real", "Imag", "Cummax", "Cummin", "StandardLaplace", "Multinomial",
           "RandomCategorical", "Randperm", "InplaceAdd", "InplaceSub", "InplaceUpdate", "IndexFill", "LRN"]


def _ops():
    from .. import ops
    return ops


class _Primitive:
    def __repr__(self):
        return f"Prim[{type(self).__name__}]"


def _unary(name, fn_name, doc):
    def call(self, x):
        return getattr(_ops(), fn_name)(x)
    cls = type(name, (_Primitive,), {"__call__": call, "__doc__": f"``ops.{name}()(x)``: {doc}",
                                     "__module__": "runtime.ops"})
    globals()[name] = cls
    return cls


_unary("Erfinv", "erfinv", "the inverse error function (``ops.erfinv``).")
_unary("Conj", "conj", "the complex conjugate (real dtypes: the input).")
_unary("Real", "real", "the real part (real dtypes: the input).")
_unary("Imag", "imag", "the imaginary part (real dtypes: zeros).")


class Cummax(_Primitive):
    """``ops.Cummax(axis)(input)``: ``(values, indices)`` of the running maximum (``ops.cummax``)."""

    def __init__(self, axis):
        self.axis = int(axis)

    def __call__(self, input):  # noqa: A002 - MindSpore's name
        return _ops().cummax(input, self.axis)


class Cummin(_Primitive):
    """``ops.Cummin(axis)(input)``: ``(values, indices)`` of the running minimum (``ops.cummin``)."""

    def __init__(self, axis):
        self.axis = int(axis)

    def __call__(self, input):  # noqa: A002
        return _ops().cummin(input, self.axis)


class StandardLaplace(_Primitive):
    """``ops.StandardLaplace(seed=0, seed2=0)(shape)``: float32 samples of Laplace(0, 1)."""

    def __init__(self, seed=0, seed2=0):
        self.seed, self.seed2 = seed, seed2

    def __call__(self, shape):
        return _ops().standard_laplace(shape, self.seed, self.seed2)


class Multinomial(_Primitive):
    """``ops.Multinomial(seed=0, seed2=0, dtype=mstype.int32)(x, num_samples)``: draws with replacement."""

    def __init__(self, seed=0, seed2=0, dtype=int32):
        self.seed, self.seed2, self.dtype = seed, seed2, as_dtype(dtype)

    def __call__(self, x, num_samples):
        n = int(np.asarray(num_samples.asnumpy()).reshape(-1)[0]) if is_tensorlike(num_samples) else num_samples
        return bind(_R["cast"], _ops().multinomial(x, n, True), dtype=self.dtype)


class RandomCategorical(_Primitive):
    """``ops.RandomCategorical(dtype=mstype.int64)(logits, num_sample, seed=0)``."""

    def __init__(self, dtype=int64):
        self.dtype = as_dtype(dtype)

    def __call__(self, logits, num_sample, seed=0):
        return _ops().random_categorical(logits, num_sample, seed, self.dtype)


class Randperm(_Primitive):
    """``ops.Randperm(max_length=1, pad=-1, dtype=mstype.int32)(n)``: a random permutation of ``0..n-1`` in the
    first ``n`` of ``max_length`` places, ``pad`` in the rest (``n`` a 1-element int Tensor, ``n <= max_length``)."""

    def __init__(self, max_length=1, pad=-1, dtype=int32):
        self.max_length, self.pad, self.dtype = int(max_length), pad, as_dtype(dtype)

    def __call__(self, n):
        count = int(np.asarray(n.asnumpy()).reshape(-1)[0]) if is_tensorlike(n) else int(n)
        if not 0 <= count <= self.max_length:
            raise ValueError(f"ops.Randperm: n ({count}) must be in [0, max_length={self.max_length}]")
        perm = _ops().randperm(count, dtype=self.dtype)
        if count == self.max_length:
            return perm
        fill = Tensor(np.full(self.max_length - count, self.pad, self.dtype.np))
        return bind(_R["concat"], perm, fill, axis=0) if count else fill


class _RowUpdate(_Primitive):
    _fn = ""

    def __init__(self, indices):
        self.indices = indices

    def __call__(self, x, v):
        return getattr(_ops(), self._fn)(x, v, self.indices)


class InplaceAdd(_RowUpdate):
    """``ops.InplaceAdd(indices)(x, input_v)``: rows ``indices`` of ``x`` plus the rows of ``input_v``."""
    _fn = "inplace_add"


class InplaceSub(_RowUpdate):
    """``ops.InplaceSub(indices)(x, input_v)``: rows ``indices`` of ``x`` minus the rows of ``input_v``."""
    _fn = "inplace_sub"


class InplaceUpdate(_RowUpdate):
    """``ops.InplaceUpdate(indices)(x, v)``: rows ``indices`` of ``x`` replaced by the rows of ``v``."""
    _fn = "inplace_update"


class IndexFill(_Primitive):
    """``ops.IndexFill()(x, dim, index, value)``: ``ops.index_fill``."""

    def __call__(self, x, dim, index, value):
        axis = int(np.asarray(dim.asnumpy()).reshape(-1)[0]) if is_tensorlike(dim) else int(dim)
        return _ops().index_fill(x, axis, index, value)


class LRN(_Primitive):
    """``ops.LRN(depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region="ACROSS_CHANNELS")(x)``."""

    def __init__(self, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region="ACROSS_CHANNELS"):
        self.depth_radius, self.bias, self.alpha, self.beta = depth_radius, bias, alpha, beta
        self.norm_region = norm_region

    def __call__(self, x):
        return _ops().lrn(x, self.depth_radius, self.bias, self.alpha, self.beta, self.norm_region)


for _cls in (Cummax, Cummin, StandardLaplace, Multinomial, RandomCategorical, Randperm, InplaceAdd, InplaceSub,
             InplaceUpdate, IndexFill, LRN):
    _cls.__module__ = "runtime.ops"
