"""Operators and methods shared by eager ``Tensor`` and the capture layer's symbolic tensors.

Every method ends in the op registry through ``bind``, so ``x + y`` means the same thing whether
``x`` holds data (eager) or stands for an IR value (graph capture). Subclasses provide ``shape``,
``dtype`` and ``ndim``.
"""
from __future__ import annotations

from graph.dtypes import int64
from graph.ops import REGISTRY, F, bind

from .tensor_ops_methods import OpsMethods

_R = REGISTRY


def _index_attrs(index):
    """Split a Python index into a hashable spec plus the tensor operands it contains."""
    from graph.ops.shape import split_index  # defined with the getitem op
    return split_index(index)


class TensorMethods(OpsMethods):
    __slots__ = ()
    __array_priority__ = 1000  # numpy defers binary operators to us

    # -- arithmetic ------------------------------------------------------------------------------
    __add__ = F.add

    def __radd__(self, o):
        return F.add(o, self)

    __sub__ = F.sub

    def __rsub__(self, o):
        return F.sub(o, self)

    __mul__ = F.mul

    def __rmul__(self, o):
        return F.mul(o, self)

    __truediv__ = F.div

    def __rtruediv__(self, o):
        return F.div(o, self)

    __floordiv__ = F.floor_div

    def __rfloordiv__(self, o):
        return F.floor_div(o, self)

    __mod__ = F.mod

    def __rmod__(self, o):
        return F.mod(o, self)

    __pow__ = F.pow

    def __rpow__(self, o):
        return F.pow(o, self)

    __matmul__ = F.matmul

    def __rmatmul__(self, o):
        return F.matmul(o, self)

    __neg__ = F.neg

    def __pos__(self):
        return self

    __abs__ = F.abs

    __invert__ = F.logical_not

    __and__ = F.logical_and

    __or__ = F.logical_or

    # -- comparisons -----------------------------------------------------------------------------
    __eq__ = F.equal

    __ne__ = F.not_equal

    __lt__ = F.less

    __le__ = F.less_equal

    __gt__ = F.greater

    __ge__ = F.greater_equal

    __hash__ = object.__hash__

    # -- indexing --------------------------------------------------------------------------------
    def __getitem__(self, index):
        spec, tensors = _index_attrs(index)
        return bind(_R["getitem"], self, *tensors, index=spec)

    # -- methods ---------------------------------------------------------------------------------
    @property
    def T(self):
        return bind(_R["transpose"], self, perm=None)

    def astype(self, dtype, copy=True):
        """MindSpore 2.x ``Tensor.astype(dtype, copy=True)``: ``self`` cast to ``dtype`` (``copy`` is
        accepted; results are never views here)."""
        return bind(_R["cast"], self, dtype=dtype)

    def reshape(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        return bind(_R["reshape"], self, shape=shape)

    view = reshape

    def transpose(self, *perm):
        if len(perm) == 1 and isinstance(perm[0], (tuple, list)):
            perm = tuple(perm[0])
        return bind(_R["transpose"], self, perm=perm or None)

    def flatten(self, order="C", *, start_dim=0, end_dim=-1):
        """MindSpore 2.x ``Tensor.flatten``: all axes into one by default."""
        if order not in ("C", "F"):
            raise ValueError(f"Tensor.flatten: order must be 'C' or 'F', got {order!r}")
        from . import ops
        x = self if order == "C" else bind(_R["transpose"], self, perm=None)
        return ops.flatten(x, start_dim=start_dim, end_dim=end_dim)

    def sum(self, axis=None, dtype=None, keepdims=False, initial=None):
        """MindSpore 2.x ``Tensor.sum(axis, dtype, keepdims, initial)``."""
        x = self if dtype is None else F.cast(self, dtype=dtype)
        r = F.reduce_sum(x, axis=axis, keep_dims=keepdims)
        return r if initial is None else F.add(r, initial)

    def mean(self, axis=None, keep_dims=False):
        return F.reduce_mean(self, axis=axis, keep_dims=keep_dims)

    def max(self, axis=None, keepdims=False, *, initial=None, where=None, return_indices=False):
        """The maxima along ``axis``; with ``return_indices=True`` also their int64 indices."""
        from .ops import math_func
        if isinstance(axis, (tuple, list)):  # MindSpore reduces over several axes (values only)
            if return_indices:
                raise ValueError("Tensor.max: return_indices needs an int axis, got " + repr(axis))
            return math_func.amax(self, axis, keepdims, initial=initial, where=where)
        values, index = math_func.max(self, axis, keepdims, initial=initial, where=where)
        return (values, index) if return_indices else values

    def min(self, axis=None, keepdims=False, *, initial=None, where=None, return_indices=False):
        from .ops import math_func
        if isinstance(axis, (tuple, list)):  # MindSpore reduces over several axes (values only)
            if return_indices:
                raise ValueError("Tensor.min: return_indices needs an int axis, got " + repr(axis))
            return math_func.amin(self, axis, keepdims, initial=initial, where=where)
        values, index = math_func.min(self, axis, keepdims, initial=initial, where=where)
        return (values, index) if return_indices else values

    def argmax_with_value(self, axis=0, keep_dims=False):
        """``Tensor.argmax_with_value(axis=0, keep_dims=False)``: ``(value, index)`` of the maxima
        along ``axis`` -- value first, as the page's example prints (``0.7 3``) and as MindSpore
        computes it (``ops.max``), the reverse of the Primitive ``ops.ArgMaxWithValue``."""
        from .ops import math_func
        if self.ndim == 0:
            return self, bind(_R["fill"], shape=(), value=0, dtype=int64)
        return math_func.max(self, axis, keep_dims)

    def argmin_with_value(self, axis=0, keep_dims=False):
        """``Tensor.argmin_with_value(axis=0, keep_dims=False)``: ``(value, index)`` of the minima."""
        from .ops import math_func
        if self.ndim == 0:
            return self, bind(_R["fill"], shape=(), value=0, dtype=int64)
        return math_func.min(self, axis, keep_dims)

    def scatter_sub(self, indices, updates):
        """``Tensor.scatter_sub(indices, updates)``: ``ops.tensor_scatter_sub`` (a new tensor)."""
        from .ops import tensor_scatter_sub
        return tensor_scatter_sub(self, indices, updates)

    def scatter_mul(self, indices, updates):
        from .ops import tensor_scatter_mul
        return tensor_scatter_mul(self, indices, updates)

    def scatter_div(self, indices, updates):
        from .ops import tensor_scatter_div
        return tensor_scatter_div(self, indices, updates)

    def scatter_min(self, indices, updates):
        from .ops import tensor_scatter_min
        return tensor_scatter_min(self, indices, updates)

    def scatter_max(self, indices, updates):
        from .ops import tensor_scatter_max
        return tensor_scatter_max(self, indices, updates)

    def fill_diagonal(self, fill_value, wrap=False):
        """``Tensor.fill_diagonal(fill_value, wrap=False)``: ``ops.FillDiagonal(fill_value, wrap)(self)``."""
        from .ops import FillDiagonal
        return FillDiagonal(fill_value, wrap)(self)

    def choose(self, choices, mode="clip"):
        """``Tensor.choose(choices, mode='clip')`` (numpy's method): element ``i`` taken from
        ``choices[self[i]]`` (the tensor holds the indices); see ``mindspore.numpy.choose``."""
        from . import numpy as mnp
        return mnp.choose(self, choices, mode)

    def itemset(self, *args):
        """``Tensor.itemset(*args)``: a new tensor with one element replaced -- ``itemset(value)`` for a
        one-element tensor, ``itemset(index, value)`` with a flat int index or a coordinate tuple.
        The tensor itself is unchanged (MindSpore returns the result; it does not write in place)."""
        if len(args) == 1:
            index, value = None, args[0]
            if self.size != 1:
                raise ValueError(f"Tensor.itemset: a single argument needs a one-element tensor, got shape "
                                 f"{tuple(self.shape)}")
        elif len(args) == 2:
            index, value = args
        else:
            raise TypeError(f"Tensor.itemset: expects (value) or (index, value), got {len(args)} arguments")
        flat = bind(_R["reshape"], self, shape=(-1,))
        if index is None:
            pos = 0
        elif isinstance(index, tuple):
            if len(index) != self.ndim or any(isinstance(i, bool) or not isinstance(i, int) for i in index):
                raise ValueError(f"Tensor.itemset: index {index!r} must be {self.ndim} ints for shape "
                                 f"{tuple(self.shape)}")
            pos = 0
            for i, n in zip(index, self.shape):
                if not -n <= i < n:
                    raise IndexError(f"Tensor.itemset: index {index!r} is out of bounds for shape {tuple(self.shape)}")
                pos = pos * n + (i % n)
        elif isinstance(index, int) and not isinstance(index, bool):
            if not -self.size <= index < self.size:
                raise IndexError(f"Tensor.itemset: index {index} is out of bounds for size {self.size}")
            pos = index % self.size
        else:
            raise TypeError(f"Tensor.itemset: index must be an int or a tuple of ints, got {index!r}")
        value = bind(_R["fill"], shape=(1,), value=value, dtype=self.dtype)
        parts = [flat[:pos], value, flat[pos + 1:]]
        return bind(_R["reshape"], bind(_R["concat"], *parts, axis=0), shape=tuple(self.shape))

    def all(self, axis=None, keep_dims=False):
        """A bool tensor: whether every element (along ``axis``) is true."""
        from .ops import composite
        return composite.all(self, axis, keep_dims)

    def any(self, axis=None, keep_dims=False):
        from .ops import composite
        return composite.any(self, axis, keep_dims)

    # -- MindSpore 2.x methods that are the functional op of the same name --------------------------
    def cumsum(self, axis=None, dtype=None):
        from .ops import signatures
        x = self if axis is not None else bind(_R["reshape"], self, shape=(-1,))
        return signatures.cumsum(x, 0 if axis is None else axis, dtype)

    def sort(self, axis=-1, descending=False):
        return bind(_R["sort"], self, axis=axis, descending=descending)

    def argsort(self, axis=-1, descending=False):
        return bind(_R["sort"], self, axis=axis, descending=descending)[1]

    def take(self, indices, axis=None, mode="clip"):
        """``Tensor.take(indices, axis=None, mode='clip')`` (numpy's method; the flattened tensor
        when ``axis`` is None; out-of-range indices clipped, wrapped or refused per ``mode``)."""
        from . import numpy as mnp
        return mnp.take(self, indices, axis, mode)

    def ptp(self, axis=None, keepdims=False):
        """``Tensor.ptp(axis=None, keepdims=False)``: maximum minus minimum (along ``axis``)."""
        from . import numpy as mnp
        return mnp.ptp(self, axis, keepdims)

    def resize(self, *new_shape):
        """``Tensor.resize(*new_shape)``: a new tensor of ``new_shape`` holding the flattened
        elements in order, cut or padded with zeros at the end (MindSpore's method: zeros, not
        numpy.resize's repetition); no shape returns the tensor itself."""
        if not new_shape:
            return self
        if len(new_shape) == 1 and isinstance(new_shape[0], (tuple, list)):
            new_shape = tuple(new_shape[0])
        if any(isinstance(n, bool) or not isinstance(n, int) or n < 0 for n in new_shape):
            raise ValueError(f"Tensor.resize: new_shape must be non-negative ints, got {new_shape!r}")
        new_size = 1
        for n in new_shape:
            new_size *= n
        flat = bind(_R["reshape"], self, shape=(-1,))
        missing = new_size - flat.shape[0]
        if missing > 0:
            zeros = bind(_R["fill"], shape=(missing,), value=0, dtype=self.dtype)
            flat = bind(_R["concat"], flat, zeros, axis=0)
        elif missing < 0:
            flat = flat[:new_size]
        return bind(_R["reshape"], flat, shape=tuple(new_shape))

    def diagonal(self, offset=0, axis1=0, axis2=1):
        """``Tensor.diagonal(offset=0, axis1=0, axis2=1)``: :func:`ops.diagonal`."""
        from .ops import array_more
        return array_more.diagonal(self, offset, axis1, axis2)

    def trace(self, offset=0, axis1=0, axis2=1, dtype=None):
        """``Tensor.trace(offset=0, axis1=0, axis2=1, dtype=None)`` (numpy's method): the sums of the
        diagonal ``offset`` of the 2-D sub-arrays on ``axis1``/``axis2``."""
        from . import numpy as mnp
        return mnp.trace(self, offset, axis1, axis2, dtype)

    def searchsorted(self, v, side="left", sorter=None):
        """``Tensor.searchsorted(v, side='left', sorter=None)`` (numpy's method): int32 insertion
        indices of ``v`` (a number, sequence or Tensor) into this tensor's sorted innermost axis
        ('left': before equal elements, 'right': after them); ``sorter`` holds the indices that
        sort the tensor (as from argsort)."""
        from .ops import primitive_spellings
        from .tensor import Tensor
        if side not in ("left", "right"):
            raise ValueError(f"Tensor.searchsorted: side must be 'left' or 'right', got {side!r}")
        if not isinstance(v, Tensor) and not hasattr(v, "dtype"):  # (a traced tensor has a dtype)
            v = Tensor(v)
        seq = self
        if sorter is not None:
            if not isinstance(sorter, Tensor) and not hasattr(sorter, "dtype"):
                sorter = Tensor(sorter)
            if tuple(sorter.shape) != tuple(self.shape):
                raise ValueError(f"Tensor.searchsorted: sorter of shape {tuple(sorter.shape)} must have the "
                                 f"tensor's shape {tuple(self.shape)}")
            seq = bind(_R["gather_elements"], self, sorter, dim=self.ndim - 1)
        return primitive_spellings.searchsorted(seq, v, out_int32=True, right=side == "right")

    def topk(self, k, dim=None, largest=True, sorted=True):  # noqa: A002 - MindSpore's names
        from .ops import arrays
        return arrays.topk(self, k, dim, largest, sorted)

    def norm(self, ord=None, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
        from .ops import math_func
        return math_func.norm(self, ord, dim, keepdim, dtype=dtype)

    def round(self, decimals=0):
        from .ops import math_func
        return math_func.round(self, decimals=decimals)

    def maximum(self, other):
        return bind(_R["maximum"], self, other)

    def minimum(self, other):
        return bind(_R["minimum"], self, other)

    def floor(self):
        return bind(_R["floor"], self)

    def ceil(self):
        return bind(_R["ceil"], self)

    def log1p(self):
        return bind(_R["log1p"], self)

    def sin(self):
        return bind(_R["sin"], self)

    def cos(self):
        return bind(_R["cos"], self)

    def neg(self):
        return bind(_R["neg"], self)

    def reciprocal(self):
        return bind(_R["reciprocal"], self)

    def rsqrt(self):
        return bind(_R["rsqrt"], self)

    def sign(self):
        return bind(_R["sign"], self)

    def erf(self):
        return bind(_R["erf"], self)

    def int(self):
        from graph.dtypes import int32
        return bind(_R["cast"], self, dtype=int32)

    def double(self):
        from graph.dtypes import float64
        return bind(_R["cast"], self, dtype=float64)

    def prod(self, axis=None, keep_dims=False):
        return bind(_R["reduce_prod"], self, axis=axis, keep_dims=keep_dims)

    def argmax(self, axis=None, keepdims=False):
        """Int64 index of the maximum along ``axis`` (of the flattened tensor when None)."""
        return bind(_R["argmax"], self, axis=axis, output_type=int64, keep_dims=keepdims)

    def argmin(self, axis=None, keepdims=False):
        return bind(_R["argmin"], self, axis=axis, output_type=int64, keep_dims=keepdims)

    def abs(self):
        return bind(_R["abs"], self)

    def exp(self):
        return bind(_R["exp"], self)

    def log(self):
        return bind(_R["log"], self)

    def sqrt(self):
        return bind(_R["sqrt"], self)

    def square(self):
        return bind(_R["square"], self)

    def tanh(self):
        return bind(_R["tanh"], self)

    def sigmoid(self):
        return bind(_R["sigmoid"], self)

    def relu(self):
        return bind(_R["relu"], self)

    def squeeze(self, axis=None):
        return bind(_R["squeeze"], self, axis=axis)

    def expand_dims(self, axis):
        return bind(_R["expand_dims"], self, axis=axis)

    unsqueeze = expand_dims

    def broadcast_to(self, shape):
        return bind(_R["broadcast_to"], self, shape=shape)

    def clip(self, xmin, xmax):
        return bind(_R["minimum"], bind(_R["maximum"], self, xmin), xmax)

    def dim(self):
        return self.ndim

    def float(self):
        from graph.dtypes import float32
        return bind(_R["cast"], self, dtype=float32)

    def long(self):
        from graph.dtypes import int64
        return bind(_R["cast"], self, dtype=int64)

    def half(self):
        from graph.dtypes import float16
        return bind(_R["cast"], self, dtype=float16)

    def bool(self):
        from graph.dtypes import bool_
        return bind(_R["cast"], self, dtype=bool_)

    # -- MindSpore 2.x Tensor methods composed from functional ops ----------------------------------
    def add(self, other):
        return bind(_R["add"], self, other)

    def sub(self, other):
        return bind(_R["sub"], self, other)

    def mul(self, other):
        return bind(_R["mul"], self, other)

    def div(self, other):
        return bind(_R["div"], self, other)

    def pow(self, exponent):
        return bind(_R["pow"], self, exponent)

    def matmul(self, other):
        return bind(_R["matmul"], self, other)

    def softmax(self, axis=-1):
        return bind(_R["softmax"], self, axis=axis)

    def clamp(self, min=None, max=None):  # noqa: A002 - MindSpore's names
        from runtime.ops.composite import clamp
        return clamp(self, min, max)

    def permute(self, *axis):
        return bind(_R["transpose"], self, perm=tuple(axis[0] if len(axis) == 1 and not isinstance(axis[0], int)
                                                      else axis))

    def swapaxes(self, axis0, axis1):
        from runtime.ops.composite import swapaxes
        return swapaxes(self, axis0, axis1)

    def gather(self, input_indices, axis, batch_dims=0):
        from runtime.ops.selection_func import gather
        return gather(self, input_indices, axis, batch_dims)

    def masked_select(self, mask):
        """The elements where ``mask`` is True (a data-dependent shape: a graph break in graph mode)."""
        return bind(_R["masked_select"], self, mask)

    def nonzero(self, as_tuple=False):
        """Coordinates of the nonzero elements (a data-dependent shape: a graph break in graph mode)."""
        from runtime.ops.selection_func import nonzero
        return nonzero(self, as_tuple)

    def gather_nd(self, indices):
        return bind(_R["gather_nd"], self, indices)

    def unique_consecutive(self, return_idx=False, return_counts=False, axis=None):
        """``ops.unique_consecutive(self, ...)`` (a data-dependent shape: a graph break in graph mode)."""
        from runtime.ops.signatures import unique_consecutive
        return unique_consecutive(self, return_idx, return_counts, axis)

    def scatter_add(self, *args, **kwargs):
        """Two spellings, as MindSpore 2.x has them: ``x.scatter_add(dim, index, src)`` is torch's
        (``mint.scatter_add``: ``out[index[i][j]][j] += src[i][j]`` for ``dim=0``), and
        ``x.scatter_add(indices, updates)`` is ``ops.tensor_scatter_add`` (index rows address slices).
        Both return a new tensor."""
        if len(args) + len(kwargs) == 3:
            from runtime.mint._selection import scatter_add
            return scatter_add(self, *args, **kwargs)
        if len(args) + len(kwargs) == 2:
            from runtime.ops import tensor_scatter_add
            return tensor_scatter_add(self, *args, **kwargs)
        raise TypeError("Tensor.scatter_add: expects (dim, index, src) or (indices, updates), got "
                        f"{len(args)} positional and {sorted(kwargs)} keyword arguments")

    def unique_with_pad(self, pad_num):
        """``ops.unique_with_pad(self, pad_num)``: distinct values by first occurrence, padded."""
        return bind(_R["unique_with_pad"], self, pad_num=pad_num)

    def repeat(self, repeats, axis=None):
        from runtime.ops.composite import repeat_interleave
        return repeat_interleave(self, repeats, axis)

    def tile(self, multiples):
        return bind(_R["tile"], self, multiples=tuple(multiples))

    def var(self, axis=None, ddof=0, keepdims=False):
        from runtime.ops.composite import var
        return var(self, axis, ddof, keepdims)

    def std(self, axis=None, ddof=0, keepdims=False):
        from runtime.ops.composite import std
        return std(self, axis, ddof, keepdims)

    def split(self, split_size_or_sections, axis=0):
        from runtime.ops.composite import split
        return split(self, split_size_or_sections, axis)

    def chunk(self, chunks, axis=0):
        from runtime.ops.composite import chunk
        return chunk(self, chunks, axis)

    def narrow(self, axis, start, length):
        from runtime.ops.composite import narrow
        return narrow(self, axis, start, length)

    def masked_fill(self, mask, value):
        from runtime.ops.composite import masked_fill
        return masked_fill(self, mask, value)

    def expand_as(self, other):
        return bind(_R["broadcast_to"], self, shape=tuple(other.shape))

    def view_as(self, other):
        return bind(_R["reshape"], self, shape=tuple(other.shape))

    def ravel(self):
        return bind(_R["reshape"], self, shape=(-1,))

    def numel(self):
        n = 1
        for d in self.shape:
            n *= d
        return n

    nelement = numel

    # -- dtype predicates (MindSpore 2.x Tensor methods; the functional ops where they exist) --------
    def is_floating_point(self):
        """Whether the dtype is a float type.

        >>> import runtime as ms
        >>> ms.Tensor([1.0]).is_floating_point(), ms.Tensor([1]).is_floating_point()
        (True, False)
        """
        from .ops import math_more
        return math_more.is_floating_point(self)

    def is_complex(self):
        from .ops import math_more
        return math_more.is_complex(self)

    def is_signed(self):
        """Whether the dtype holds negative values (signed integers and floats; not bool or
        unsigned integers).

        >>> import runtime as ms
        >>> ms.Tensor([1], ms.int8).is_signed(), ms.Tensor([1], ms.uint8).is_signed()
        (True, False)
        """
        return self.dtype.np.kind in "if"

