"""The MindSpore 2.x ``Tensor`` methods whose reference page says "For details, please refer to
:func:`mindspore.ops.<name>`": each is that function with the tensor as its first argument, so the
op's semantics stay in one place (``runtime.ops`` over the registry) and the method works on eager
tensors and on the capture layer's symbolic ones alike (``TensorMethods`` inherits this mixin).

The few whose arguments differ from the function's are written out below the plain ones
(``nansum``'s positional ``dtype``, ``repeat_interleave``'s ``dim``, ``addmv``'s positional
``beta``/``alpha``, the deprecated ``top_k``, and the dtype helpers ``to``/``type``/``type_as``/``fill``).

Example:
    >>> import numpy as np
    >>> from runtime import Tensor
    >>> Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)).tril().asnumpy().tolist()
    [[1.0, 0.0], [3.0, 4.0]]
"""
from __future__ import annotations

from graph.dtypes import int64


def _ops():
    from . import ops
    return ops


class OpsMethods:
    """``x.<name>(*args)`` is ``ops.<name>(x, *args)``."""

    __slots__ = ()

    def positive(self):
        return _ops().positive(self)

    def remainder(self, other):
        return _ops().remainder(self, other)

    def float_power(self, exponent):
        return _ops().float_power(self, exponent)

    def fmax(self, other):
        return _ops().fmax(self, other)

    def fmin(self, other):
        return _ops().fmin(self, other)

    def fmod(self, other):
        return _ops().fmod(self, other)

    def swapdims(self, dim0, dim1):
        return _ops().swapdims(self, dim0, dim1)

    def slogdet(self):
        return _ops().slogdet(self)

    def tril(self, diagonal=0):
        return _ops().tril(self, diagonal)

    def cummin(self, axis):
        return _ops().cummin(self, axis)

    def cummax(self, axis):
        return _ops().cummax(self, axis)

    def index_fill(self, axis, index, value):
        return _ops().index_fill(self, axis, index, value)

    def index_select(self, axis, index):
        return _ops().index_select(self, axis, index)

    def inplace_update(self, v, indices):
        return _ops().inplace_update(self, v, indices)

    def det(self):
        return _ops().det(self)

    def diff(self, n=1, axis=-1, prepend=None, append=None):
        return _ops().diff(self, n, axis, prepend, append)

    def frac(self):
        return _ops().frac(self)

    def argwhere(self):
        return _ops().argwhere(self)

    def moveaxis(self, source, destination):
        return _ops().moveaxis(self, source, destination)

    def movedim(self, source, destination):
        return _ops().movedim(self, source, destination)

    def digamma(self):
        return _ops().digamma(self)

    def lgamma(self):
        return _ops().lgamma(self)

    def nanmedian(self, axis=-1, keepdims=False):
        return _ops().nanmedian(self, axis, keepdims)

    def bernoulli(self, p=0.5, seed=None):
        return _ops().bernoulli(self, p, seed)

    def gather_elements(self, dim, index):
        return _ops().gather_elements(self, dim, index)

    def hardshrink(self, lambd=0.5):
        return _ops().hardshrink(self, lambd)

    def heaviside(self, values):
        return _ops().heaviside(self, values)

    def hypot(self, other):
        return _ops().hypot(self, other)

    def soft_shrink(self, lambd=0.5):
        return _ops().soft_shrink(self, lambd)

    def matrix_determinant(self):
        return _ops().matrix_determinant(self)

    def log_matrix_determinant(self):
        return _ops().log_matrix_determinant(self)

    def unbind(self, dim=0):
        return _ops().unbind(self, dim)

    def unsorted_segment_min(self, segment_ids, num_segments):
        return _ops().unsorted_segment_min(self, segment_ids, num_segments)

    def unsorted_segment_max(self, segment_ids, num_segments):
        return _ops().unsorted_segment_max(self, segment_ids, num_segments)

    def unsorted_segment_prod(self, segment_ids, num_segments):
        return _ops().unsorted_segment_prod(self, segment_ids, num_segments)

    def diag(self):
        return _ops().diag(self)

    def diagflat(self, offset=0):
        return _ops().diagflat(self, offset)

    def xdivy(self, y):
        return _ops().xdivy(self, y)

    def tensor_split(self, indices_or_sections, axis=0):
        return _ops().tensor_split(self, indices_or_sections, axis)

    def vsplit(self, indices_or_sections):
        return _ops().vsplit(self, indices_or_sections)

    def hsplit(self, indices_or_sections):
        return _ops().hsplit(self, indices_or_sections)

    def dsplit(self, indices_or_sections):
        return _ops().dsplit(self, indices_or_sections)

    def xlogy(self, other):
        return _ops().xlogy(self, other)

    def erfc(self):
        return _ops().erfc(self)

    def median(self, axis=-1, keepdims=False):
        return _ops().median(self, axis, keepdims)

    def asinh(self):
        return _ops().asinh(self)

    def arcsinh(self):
        return _ops().arcsinh(self)

    def atan(self):
        return _ops().atan(self)

    def atanh(self):
        return _ops().atanh(self)

    def arctanh(self):
        return _ops().arctanh(self)

    def bmm(self, mat2):
        return _ops().bmm(self, mat2)

    # -- arguments that differ from the function's ----------------------------------------------------
    def random_categorical(self, num_sample, seed=0, dtype=int64):
        return _ops().random_categorical(self, num_sample, seed, dtype)

    def nansum(self, axis=None, keepdims=False, dtype=None):
        return _ops().nansum(self, axis, keepdims, dtype=dtype)

    def nanmean(self, axis=None, keepdims=False, *, dtype=None):
        return _ops().nanmean(self, axis, keepdims, dtype=dtype)

    def repeat_interleave(self, repeats, dim=None):
        return _ops().repeat_interleave(self, repeats, dim)

    def addmv(self, mat, vec, beta=1, alpha=1):
        return _ops().addmv(self, mat, vec, beta=beta, alpha=alpha)

    def top_k(self, k, sorted=True):  # noqa: A002 - MindSpore's name
        """Deprecated ``Tensor.top_k(k, sorted=True)``: the ``k`` largest along the last axis
        (``ops.topk(self, k, sorted=sorted)``)."""
        return _ops().topk(self, k, sorted=sorted)

    # -- dtype helpers ----------------------------------------------------------------------------------
    def to(self, dtype):
        """``Tensor.to(dtype)``: the tensor cast to ``dtype``."""
        return self.astype(dtype)

    def type(self, dtype=None):
        """``Tensor.type(dtype=None)``: the dtype's name (``'Float32'``) without an argument, else the
        tensor cast to ``dtype``."""
        return str(self.dtype) if dtype is None else self.astype(dtype)

    def type_as(self, other):
        """``Tensor.type_as(other)``: the tensor cast to ``other``'s dtype."""
        return self.astype(other.dtype)

    def fill(self, value):
        """Deprecated ``Tensor.fill(value)``: a tensor of this shape and dtype holding ``value``
        (``None`` means NaN, for a float tensor only)."""
        if value is None:
            if not self.dtype.is_float:
                raise TypeError(f"Tensor.fill: value None (NaN) needs a float tensor, got {self.dtype}")
            value = float("nan")
        return _ops().fill(self.dtype, tuple(self.shape), value)
