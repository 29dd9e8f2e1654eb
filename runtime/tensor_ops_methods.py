"""The MindSpore 2.x ``Tensor`` methods whose reference page says "For details, please refer to
:func:`mindspore.ops.<name>`": each is that function with the tensor as its first argument, so the
op's semantics stay in one place (``runtime.ops`` over the registry) and the method works on eager
tensors and on the capture layer's symbolic ones alike (``TensorMethods`` inherits this mixin).

The few whose arguments differ from the function's are written out below the plain ones
(``nansum``'s positional ``dtype``, ``repeat_interleave``'s ``dim``, ``addmv``'s positional
``beta``/``alpha``, ``where``'s order, ``index_add``'s ``alpha``, the deprecated ``top_k``), then the
methods with a page of their own: the dtype helpers ``to``/``type``/``type_as``/``short``,
``new_zeros``/``new_ones``, ``mT``/``mH``, ``masked_scatter``, ``index_put`` and ``fill``, each
composed of ``ops`` functions.

Example:
    >>> import numpy as np
    >>> from runtime import Tensor
    >>> Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)).tril().asnumpy().tolist()
    [[1.0, 0.0], [3.0, 4.0]]
"""
from __future__ import annotations

from graph.dtypes import int16, int32, int64


def _ops():
    from . import ops
    return ops


def _new_full(what, size, value, dtype):
    if isinstance(size, int) and not isinstance(size, bool):
        size = (size,)
    if not isinstance(size, (tuple, list)) or any(isinstance(s, bool) or not isinstance(s, int) for s in size):
        raise TypeError(f"Tensor.{what}: size must be an int or a tuple/list of ints, got {size!r}")
    return _ops().fill(dtype, tuple(size), value)


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

    def cholesky(self, upper=False):
        return _ops().cholesky(self, upper)

    def cholesky_inverse(self, upper=False):
        return _ops().cholesky_inverse(self, upper)

    def cholesky_solve(self, input2, upper=False):
        return _ops().cholesky_solve(self, input2, upper)

    def conj(self):
        return _ops().conj(self)

    def cross(self, other, dim=None):
        return _ops().cross(self, other, dim)

    def erfinv(self):
        return _ops().erfinv(self)

    def less_equal(self, other):
        return _ops().less_equal(self, other)

    def lcm(self, other):
        return _ops().lcm(self, other)

    def ldexp(self, other):
        return _ops().ldexp(self, other)

    def fold(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        return _ops().fold(self, output_size, kernel_size, dilation, padding, stride)

    def unfold(self, kernel_size, dilation=1, padding=0, stride=1):
        return _ops().unfold(self, kernel_size, dilation, padding, stride)

    def expand(self, size):
        return _ops().expand(self, size)

    def cumprod(self, dim, dtype=None):
        return _ops().cumprod(self, dim, dtype)

    def multiply(self, other):
        return _ops().multiply(self, other)

    def eq(self, other):
        return _ops().eq(self, other)

    def equal(self, other):
        return _ops().equal(self, other)

    def expm1(self):
        return _ops().expm1(self)

    def greater(self, other):
        return _ops().greater(self, other)

    def greater_equal(self, other):
        return _ops().greater_equal(self, other)

    def igamma(self, other):
        return _ops().igamma(self, other)

    def igammac(self, other):
        return _ops().igammac(self, other)

    def isinf(self):
        return _ops().isinf(self)

    def isnan(self):
        return _ops().isnan(self)

    def flip(self, dims):
        return _ops().flip(self, dims)

    def fliplr(self):
        return _ops().fliplr(self)

    def flipud(self):
        return _ops().flipud(self)

    def le(self, other):
        return _ops().le(self, other)

    def less(self, other):
        return _ops().less(self, other)

    def lt(self, other):
        return _ops().lt(self, other)

    def logical_and(self, other):
        return _ops().logical_and(self, other)

    def logical_not(self):
        return _ops().logical_not(self)

    def logical_or(self, other):
        return _ops().logical_or(self, other)

    def logical_xor(self, other):
        return _ops().logical_xor(self, other)

    def lstsq(self, A):
        return _ops().lstsq(self, A)

    def mvlgamma(self, p):
        return _ops().mvlgamma(self, p)

    def inner(self, other):
        return _ops().inner(self, other)

    def multinomial(self, num_samples, replacement=True, seed=None):
        return _ops().multinomial(self, num_samples, replacement, seed)

    def matrix_power(self, n):
        return _ops().matrix_power(self, n)

    def mm(self, mat2):
        return _ops().mm(self, mat2)

    def msort(self):
        return _ops().msort(self)

    def nan_to_num(self, nan=0.0, posinf=None, neginf=None):
        return _ops().nan_to_num(self, nan, posinf, neginf)

    def ne(self, other):
        return _ops().ne(self, other)

    def not_equal(self, other):
        return _ops().not_equal(self, other)

    def signbit(self):
        return _ops().signbit(self)

    def sgn(self):
        return _ops().sgn(self)

    def sinc(self):
        return _ops().sinc(self)

    def sinh(self):
        return _ops().sinh(self)

    def trunc(self):
        return _ops().trunc(self)

    def imag(self):
        return _ops().imag(self)

    def quantile(self, q, axis=None, keepdims=False):
        return _ops().quantile(self, q, axis, keepdims)

    def nanquantile(self, q, axis=None, keepdims=False):
        return _ops().nanquantile(self, q, axis, keepdims)

    def histc(self, bins=100, min=0.0, max=0.0):  # noqa: A002 - MindSpore's names
        return _ops().histc(self, bins, min, max)

    def addcdiv(self, tensor1, tensor2, value=1):
        return _ops().addcdiv(self, tensor1, tensor2, value)

    def addcmul(self, tensor1, tensor2, value=1):
        return _ops().addcmul(self, tensor1, tensor2, value)

    def true_divide(self, divisor):
        return _ops().true_divide(self, divisor)

    def triu(self, diagonal=0):
        return _ops().triu(self, diagonal)

    def adjoint(self):
        return _ops().adjoint(self)

    def angle(self):
        return _ops().angle(self)

    def atan2(self, other):
        return _ops().atan2(self, other)

    def baddbmm(self, batch1, batch2, beta=1, alpha=1):
        return _ops().baddbmm(self, batch1, batch2, beta, alpha)

    def t(self):
        return _ops().t(self)

    def bitwise_and(self, other):
        return _ops().bitwise_and(self, other)

    def bitwise_or(self, other):
        return _ops().bitwise_or(self, other)

    def bitwise_xor(self, other):
        return _ops().bitwise_xor(self, other)

    def bitwise_left_shift(self, other):
        return _ops().bitwise_left_shift(self, other)

    def bitwise_right_shift(self, other):
        return _ops().bitwise_right_shift(self, other)

    def scatter(self, axis, index, src):
        return _ops().scatter(self, axis, index, src)

    def ger(self, vec2):
        return _ops().ger(self, vec2)

    def gt(self, other):
        return _ops().gt(self, other)

    def ge(self, other):
        return _ops().ge(self, other)

    def real(self):
        return _ops().real(self)

    def tan(self):
        return _ops().tan(self)

    def cosh(self):
        return _ops().cosh(self)

    def acos(self):
        return _ops().acos(self)

    def arccos(self):
        return _ops().arccos(self)

    def acosh(self):
        return _ops().acosh(self)

    def asin(self):
        return _ops().asin(self)

    def absolute(self):
        return _ops().absolute(self)

    def floor_divide(self, other):
        return _ops().floor_divide(self, other)

    def lerp(self, end, weight):
        return _ops().lerp(self, end, weight)

    def negative(self):
        return _ops().negative(self)

    def renorm(self, p, axis, maxnorm):
        return _ops().renorm(self, p, axis, maxnorm)

    def approximate_equal(self, y, tolerance=1e-05):
        return _ops().approximate_equal(self, y, tolerance)

    def logit(self, eps=None):
        return _ops().logit(self, eps)

    def logaddexp(self, other):
        return _ops().logaddexp(self, other)

    def logaddexp2(self, other):
        return _ops().logaddexp2(self, other)

    def logcumsumexp(self, axis):
        return _ops().logcumsumexp(self, axis)

    def logdet(self):
        return _ops().logdet(self)

    def i0(self):
        return _ops().i0(self)

    def isclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        return _ops().isclose(self, other, rtol, atol, equal_nan)

    def isneginf(self):
        return _ops().isneginf(self)

    def isposinf(self):
        return _ops().isposinf(self)

    def isreal(self):
        return _ops().isreal(self)

    def isfinite(self):
        return _ops().isfinite(self)

    def inv(self):
        return _ops().inv(self)

    def inverse(self):
        return _ops().inverse(self)

    def invert(self):
        return _ops().invert(self)

    def log10(self):
        return _ops().log10(self)

    def log2(self):
        return _ops().log2(self)

    def reverse(self, axis):
        return _ops().reverse(self, axis)

    def col2im(self, output_size, kernel_size, dilation, padding_value, stride):
        return _ops().col2im(self, output_size, kernel_size, dilation, padding_value, stride)

    def rot90(self, k, dims):
        return _ops().rot90(self, k, dims)

    def deg2rad(self):
        return _ops().deg2rad(self)

    def dot(self, other):
        return _ops().dot(self, other)

    def outer(self, vec2):
        return _ops().outer(self, vec2)

    def rad2deg(self):
        return _ops().rad2deg(self)

    def copysign(self, other):
        return _ops().copysign(self, other)

    def arccosh(self):
        return _ops().arccosh(self)

    def arcsin(self):
        return _ops().arcsin(self)

    def arctan(self):
        return _ops().arctan(self)

    def arctan2(self, other):
        return _ops().arctan2(self, other)

    def bincount(self, weights=None, minlength=0):
        return _ops().bincount(self, weights, minlength)

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

    def count_nonzero(self, axis=(), keep_dims=False, dtype=int32):
        return _ops().count_nonzero(self, axis, keep_dims, dtype)

    def divide(self, value, *, rounding_mode=None):
        return _ops().divide(self, value, rounding_mode=rounding_mode)

    def where(self, condition, y):
        """``Tensor.where(condition, y)``: ``ops.where(condition, self, y)`` (the tensor where true)."""
        return _ops().where(condition, self, y)

    def index_add(self, dim, index, source, *, alpha=1):
        """``Tensor.index_add(dim, index, source, *, alpha=1)``: rows ``index`` along ``dim`` plus
        ``alpha * source`` (``ops.index_add``), a new tensor."""
        if isinstance(alpha, bool) or not isinstance(alpha, (int, float)):
            raise TypeError(f"Tensor.index_add: alpha must be a number, got {alpha!r}")
        return _ops().index_add(self, index, source * alpha, dim)

    def subtract(self, other, *, alpha=1):
        return _ops().subtract(self, other, alpha=alpha)

    def addbmm(self, batch1, batch2, *, beta=1, alpha=1):
        return _ops().addbmm(self, batch1, batch2, beta=beta, alpha=alpha)

    def addmm(self, mat1, mat2, *, beta=1, alpha=1):
        return _ops().addmm(self, mat1, mat2, beta=beta, alpha=alpha)

    def addr(self, vec1, vec2, beta=1, alpha=1):
        return _ops().addr(self, vec1, vec2, beta=beta, alpha=alpha)

    def cov(self, *, correction=1, fweights=None, aweights=None):
        return _ops().cov(self, correction=correction, fweights=fweights, aweights=aweights)

    def logsumexp(self, axis, keepdims=False):
        return _ops().logsumexp(self, axis, keepdims)

    def amin(self, axis=None, keepdims=False, *, initial=None, where=None):
        return _ops().amin(self, axis, keepdims, initial=initial, where=where)

    def amax(self, axis=None, keepdims=False, *, initial=None, where=None):
        return _ops().amax(self, axis, keepdims, initial=initial, where=where)

    def aminmax(self, *, axis=0, keepdims=False):
        return _ops().aminmax(self, axis=axis, keepdims=keepdims)

    def reverse_sequence(self, seq_lengths, seq_dim=0, batch_dim=0):
        return _ops().reverse_sequence(self, seq_lengths, seq_dim, batch_dim)

    def select(self, condition, y):
        """``Tensor.select(condition, y)``: ``ops.select(condition, self, y)`` (the tensor where true)."""
        return _ops().select(condition, self, y)

    def roll(self, shifts, dims):
        return _ops().roll(self, shifts, dims)

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

    @property
    def H(self):
        """``Tensor.H``: a 2-D tensor transposed, and conjugated when complex."""
        if self.ndim != 2:
            raise ValueError(f"Tensor.H: only 2-D tensors are supported, got {self.ndim}-D")
        out = self.swapaxes(0, 1)
        return _ops().conj(out) if self.dtype.name.startswith("Complex") else out

    @property
    def has_init(self):
        """``Tensor.has_init``: whether the data is still to be initialized -- never here: an
        ``initializer(...)`` tensor holds its values from the start (``init_data`` returns it)."""
        return False

    def ndimension(self):
        """``Tensor.ndimension()``: alias of ``ndim``."""
        return self.ndim

    def get_bytes(self):
        """``Tensor.get_bytes()``: the raw data, row-major, as ``bytes``."""
        return self.asnumpy().tobytes()

    def reshape_as(self, other):
        """``Tensor.reshape_as(other)``: this tensor's data in ``other``'s shape."""
        return self.reshape(tuple(other.shape))

    def short(self):
        """``Tensor.short()``: the tensor cast to int16."""
        return self.astype(int16)

    def new_zeros(self, size, *, dtype=None):
        """``Tensor.new_zeros(size, *, dtype=None)``: zeros of ``size``, this tensor's dtype by default."""
        return _new_full("new_zeros", size, 0, self.dtype if dtype is None else dtype)

    def new_ones(self, size, *, dtype=None):
        """``Tensor.new_ones(size, *, dtype=None)``: ones of ``size``, this tensor's dtype by default."""
        return _new_full("new_ones", size, 1, self.dtype if dtype is None else dtype)

    @property
    def mT(self):
        """The last two dimensions exchanged (``self.swapaxes(-2, -1)``)."""
        return self.swapaxes(-2, -1)

    @property
    def mH(self):
        """``ops.adjoint(self)``: the conjugate of ``mT``."""
        return _ops().adjoint(self)

    def masked_scatter(self, mask, x):
        """``Tensor.masked_scatter(mask, x)``: the positions where ``mask`` (broadcast to this shape)
        is true take the leading elements of ``x`` in row-major order; the others keep this tensor's."""
        ops = _ops()
        mask = ops.broadcast_to(mask, tuple(self.shape))
        flat_mask = ops.reshape(mask, (-1,))
        source = ops.reshape(x, (-1,))
        # the k-th true position takes source[k]: k is the running count of trues before it
        pos = ops.cumsum(ops.cast(flat_mask, int32), 0) - 1
        taken = ops.gather(source, ops.clip_by_value(pos, 0, source.shape[0] - 1), 0)
        return ops.where(mask, ops.reshape(taken, tuple(self.shape)), self)

    def index_put(self, indices, values, accumulate=False):
        """``Tensor.index_put(indices, values, accumulate=False)``: ``self[indices] = values`` (or
        ``+=`` with ``accumulate``, duplicates adding up) on a copy; ``indices`` is a tuple/list of
        1-D int tensors addressing the leading dimensions, ``values`` a 1-D tensor broadcast over the
        addressed elements."""
        if not isinstance(indices, (tuple, list)) or not indices:
            raise TypeError(f"Tensor.index_put: indices must be a non-empty tuple or list of Tensors, got {indices!r}")
        if not isinstance(accumulate, bool):
            raise TypeError(f"Tensor.index_put: accumulate must be a bool, got {accumulate!r}")
        if len(indices) > self.ndim:
            raise ValueError(f"Tensor.index_put: {len(indices)} index tensors for a {self.ndim}-D tensor")
        if any(i.ndim != 1 for i in indices) or values.ndim != 1:
            raise ValueError("Tensor.index_put: the index tensors and values must be 1-D")
        ops = _ops()
        n = max(i.shape[0] for i in indices)
        if any(i.shape[0] not in (1, n) for i in indices):
            raise ValueError(f"Tensor.index_put: index tensors of lengths {[i.shape[0] for i in indices]} "
                             f"do not broadcast")
        coords = ops.stack([ops.broadcast_to(ops.cast(i, int64), (n,)) for i in indices], -1)   # (n, k)
        rest = tuple(self.shape[len(indices):])
        if values.shape[0] not in (1, rest[-1] if rest else n):
            raise ValueError(f"Tensor.index_put: values of length {values.shape[0]} do not fit "
                             f"{n} addressed {'slices of shape ' + str(rest) if rest else 'elements'}")
        updates = ops.broadcast_to(ops.cast(values, self.dtype), (n,) + rest if rest else (n,))
        scatter = ops.tensor_scatter_add if accumulate else ops.tensor_scatter_update
        return scatter(self, coords, updates)

    def fill(self, value):
        """Deprecated ``Tensor.fill(value)``: a tensor of this shape and dtype holding ``value``
        (``None`` means NaN, for a float tensor only)."""
        if value is None:
            if not self.dtype.is_float:
                raise TypeError(f"Tensor.fill: value None (NaN) needs a float tensor, got {self.dtype}")
            value = float("nan")
        return _ops().fill(self.dtype, tuple(self.shape), value)
