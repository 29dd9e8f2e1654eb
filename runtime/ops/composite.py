"""Functional ops composed from registered ops (no new semantics here), plus MindSpore aliases.

Example:
    >>> from runtime import ops, Tensor
    >>> ops.dense(Tensor([[1.0, 2.0]]), Tensor([[1.0, 1.0]]), Tensor([0.5]))
    Tensor(shape=[1, 1], dtype=Float32, value=
    [[3.5]])
"""
from __future__ import annotations

import builtins

import numpy as np

from graph.dtypes import as_dtype, float32
from graph.symint import holds_symbolic, is_symbolic, keeps_symbolic_sizes
from graph.ops import REGISTRY, bind

from ..tensor import Tensor

_R = REGISTRY

__all__ = ["dense", "flatten", "zeros", "ones", "full", "fill", "zeros_like", "ones_like", "sum",
           "mean", "square", "clamp", "Print", "print_", "numel",
           "rank", "shape", "size", "mse_loss", "sub", "maximum", "minimum", "dropout", "split",
           "assign_add", "assign_sub", "AssignAdd", "AssignSub", "repeat_interleave"]


def dense(x, weight, bias=None):
    """x @ weight.T + bias (weight has shape (out, in), as in MindSpore)."""
    y = bind(_R["matmul"], x, weight, transpose_b=True)
    if bias is not None:
        y = bind(_R["add"], y, bias) if y.ndim != 2 else bind(_R["bias_add"], y, bias)
    return y


def flatten(x, order="C", *, start_dim=1, end_dim=-1):
    """Collapse axes start_dim..end_dim into one (MindSpore default keeps the batch axis)."""
    shape = tuple(x.shape)
    nd = len(shape)
    if nd == 0:
        return bind(_R["reshape"], x, shape=(1,))
    for name, d in (("start_dim", start_dim), ("end_dim", end_dim)):
        if not -nd <= d < nd:
            raise ValueError(f"Flatten (ops.flatten): {name} {d} is out of range for a tensor of rank {nd}")
    s, e = start_dim % nd, end_dim % nd
    if s > e:
        raise ValueError(f"Flatten (ops.flatten): start_dim {start_dim} is after end_dim {end_dim} for shape {shape}")
    n = 1
    for d in shape[s:e + 1]:
        n *= d
    return bind(_R["reshape"], x, shape=shape[:s] + (n,) + shape[e + 1:])


def _shape_tuple(shape):
    """A shape from an int or a sequence of ints; sizes computed from a traced tensor's shape keep
    their expressions (graph.symint), so the tensor made is sized by them in the graph."""
    if isinstance(shape, int):
        return (shape,)
    return tuple(s if is_symbolic(s) else int(s) for s in shape)


def _made(op_name, **attrs):
    """The registry op ``op_name`` (graph.ops.creation) made from sizes and numbers: a graph node
    while a frame is captured with symbolic sizes (``ops.ones((n, n))``, graph.symint), else its
    impl at once (no dispatch: PyNative's ``ops.ones`` costs what numpy's does)."""
    if holds_symbolic(attrs):
        return bind(_R[op_name], **attrs)
    return Tensor._placed(_R[op_name].impl(np, **attrs))


def _filled(size, value, dtype):
    """``size`` filled with ``value``: a number, or a one-element tensor's value."""
    return _made("fill", shape=_shape_tuple(size), value=value, dtype=as_dtype(dtype))


@keeps_symbolic_sizes
def zeros(size, dtype=None):
    """A new tensor of zeros (float32 by default)."""
    return _filled(size, 0, dtype or float32)


@keeps_symbolic_sizes
def ones(size, dtype=None):
    return _filled(size, 1, dtype or float32)


@keeps_symbolic_sizes
def full(size, fill_value, dtype=None):
    """``ops.full(size, fill_value, *, dtype=None)``. With ``dtype=None`` a number fills a float32
    tensor (MindSpore documents ``ops.full((2, 2), 1)`` as ``[[1., 1.], [1., 1.]]``); a bool fill
    value keeps bool."""
    if dtype is None:
        dtype = as_dtype(bool) if isinstance(fill_value, (bool, np.bool_)) else float32
    return _filled(size, fill_value, dtype)


@keeps_symbolic_sizes
def fill(type, shape, value):  # noqa: A002 - MindSpore's argument name
    return full(shape, value, type)


def zeros_like(x, dtype=None):
    r = bind(_R["zeros_like"], x)
    return r if dtype is None else bind(_R["cast"], r, dtype=dtype)


def ones_like(x, dtype=None):
    r = bind(_R["ones_like"], x)
    return r if dtype is None else bind(_R["cast"], r, dtype=dtype)


def sum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A001,A002 - MindSpore names
    r = bind(_R["reduce_sum"], input, axis=dim, keep_dims=keepdim)
    return r if dtype is None else bind(_R["cast"], r, dtype=dtype)


def mean(input, axis=None, keep_dims=False):  # noqa: A002
    return bind(_R["reduce_mean"], input, axis=axis, keep_dims=keep_dims)


def square(input):  # noqa: A002 - MindSpore's name
    return bind(_R["square"], input)


def sub(input, other):  # noqa: A002 - MindSpore's names
    return bind(_R["sub"], input, other)


def maximum(input, other):  # noqa: A002
    return bind(_R["maximum"], input, other)


def minimum(input, other):  # noqa: A002
    return bind(_R["minimum"], input, other)


def clamp(x, min=None, max=None):  # noqa: A002
    """``ops.clamp(input, min=None, max=None)``: each element limited to [min, max] (``max`` where
    ``min > max``). As MindSpore documents, the result has ``input``'s dtype (an int tensor clamped by
    float bounds stays int) and giving neither bound is a ValueError."""
    if min is None and max is None:
        raise ValueError("ops.clamp: at least one of 'min' and 'max' must not be None")
    dtype = getattr(x, "dtype", None)
    if min is not None:
        x = bind(_R["maximum"], x, min)
    if max is not None:
        x = bind(_R["minimum"], x, max)
    if dtype is not None and x.dtype != dtype:  # a float bound promoted an int input: cast back
        x = bind(_R["cast"], x, dtype=dtype)
    return x


def numel(x):
    return int(np.prod(x.shape)) if x.shape else 1


size = numel


def rank(x):
    return len(x.shape)


def shape(x):
    return tuple(x.shape)


def mse_loss(input, target, reduction="mean"):  # noqa: A002
    d = bind(_R["square"], bind(_R["sub"], input, target))
    if reduction == "mean":
        return bind(_R["reduce_mean"], d)
    if reduction == "sum":
        return bind(_R["reduce_sum"], d)
    if reduction == "none":
        return d
    raise ValueError(f"mse_loss: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


def assign_add(variable, value):
    """``variable <- variable + value`` in place (a Parameter update); returns ``variable``.

    >>> from runtime import Parameter
    >>> p = Parameter(Tensor([1.0, 2.0]), name="p")
    >>> _ = assign_add(p, Tensor([0.5, 0.5])); p.asnumpy().tolist()
    [1.5, 2.5]
    """
    return bind(_R["assign"], variable, bind(_R["add"], variable, value))


def assign_sub(variable, value):
    """``variable <- variable - value`` in place; returns ``variable``."""
    return bind(_R["assign"], variable, bind(_R["sub"], variable, value))


class CompositePrimitive:
    """A Primitive-style class over a composite function: constructing one has no side effects
    (graph capture builds them at trace time, as it does generated Primitives)."""

    function = None

    def __call__(self, *args, **kwargs):
        return type(self).function(*args, **kwargs)


class AssignAdd(CompositePrimitive):
    """``ops.AssignAdd()(variable, value)``: :func:`assign_add` as a Primitive."""

    function = staticmethod(assign_add)


class AssignSub(CompositePrimitive):
    """``ops.AssignSub()(variable, value)``: :func:`assign_sub` as a Primitive."""

    function = staticmethod(assign_sub)


def print_(*values):
    """Print tensors and Python values (ops.print_ / ops.Print()); prints on every call."""
    builtins.print(*values)


class Print:
    """``ops.Print()(*values)``: prints on every call (a graph break in graph mode)."""

    def __call__(self, *values):
        print_(*values)


def dropout(input, p=0.5, training=True, seed=None, *, keep_prob=None):  # noqa: A002 - MindSpore names
    """MindSpore 2.x ``ops.dropout``: zero each element with probability ``p`` (the *drop*
    probability) and scale the kept ones by ``1 / (1 - p)``; the input itself when not training or
    when ``p == 0``. Returns the output only (the ``ops.Dropout`` Primitive returns ``(y, mask)``).

    ``keep_prob=`` (the 1.x spelling) is accepted instead of ``p``. ``seed`` is accepted for
    MindSpore's signature; masks are drawn from the one random stream ``ms.set_seed`` seeds.

    Example:
        >>> import numpy as np, runtime as ms
        >>> ms.set_seed(0)
        >>> y = ms.ops.dropout(ms.Tensor(np.ones((100, 100), np.float32)), p=0.1)
        >>> kept = float((y.asnumpy() != 0).mean()); 0.88 < kept < 0.92, round(float(y.asnumpy().max()), 4)
        (True, 1.1111)
    """
    if keep_prob is not None:
        if p != 0.5:
            raise ValueError("ops.dropout: give either p (the drop probability) or keep_prob, not both")
        if isinstance(keep_prob, bool) or not isinstance(keep_prob, (int, float)) or not 0.0 < keep_prob <= 1.0:
            raise ValueError(f"ops.dropout: keep_prob must be a float in (0, 1], got {keep_prob!r}")
        p = 1.0 - float(keep_prob)
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p < 1.0:
        raise ValueError(f"ops.dropout: p (the probability to drop an element) must be a float in [0, 1), "
                         f"got {p!r}")
    if not isinstance(training, (bool, np.bool_)):
        raise TypeError(f"ops.dropout: training must be a bool, got {type(training).__name__}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise TypeError(f"ops.dropout: seed must be an int or None, got {type(seed).__name__}")
    if not training or p == 0.0:
        return input
    return bind(_R["dropout"], input, keep_prob=1.0 - float(p))[0]


def split(tensor, split_size_or_sections, axis=0):
    """MindSpore 2.x ``ops.split``: a tuple of parts along ``axis``. An int gives parts of that
    size (the last one smaller when the axis does not divide evenly); a list/tuple gives each
    part's size. (The 1.x ``(axis, output_num)`` form is the Primitive ``ops.Split(axis, output_num)``.)

    Example:
        >>> import numpy as np, runtime as ms
        >>> [p.shape for p in ms.ops.split(ms.Tensor(np.zeros((5, 2), np.float32)), 2)]
        [(2, 2), (2, 2), (1, 2)]
        >>> [p.shape for p in ms.ops.split(ms.Tensor(np.zeros((5, 2), np.float32)), [1, 4])]
        [(1, 2), (4, 2)]
    """
    shape = tuple(tensor.shape)
    if not shape:
        raise ValueError("Split (ops.split): cannot split a 0-d tensor")
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)) or not -len(shape) <= axis < len(shape):
        raise ValueError(f"Split (ops.split): axis {axis!r} is out of range for shape {shape}")
    dim = shape[axis]
    size = split_size_or_sections
    if isinstance(size, (int, np.integer)) and not isinstance(size, bool):
        if size <= 0:
            raise ValueError(f"Split (ops.split): split_size_or_sections must be positive, got {size}")
        sizes = (int(size),) * (dim // size) + ((dim % size,) if dim % size else ())
    elif isinstance(size, (list, tuple)) and builtins.all(isinstance(s, (int, np.integer)) and not isinstance(s, bool)
                                                          for s in size):
        sizes = tuple(int(s) for s in size)
    else:
        raise TypeError(f"Split (ops.split): split_size_or_sections must be an int or a list/tuple of ints, "
                        f"got {size!r}")
    return bind(_R["split"], tensor, axis=int(axis), sizes=sizes)


# -- MindSpore 2.x functional names composed from registered ops ---------------------------------------
def repeat_interleave(input, repeats, axis=None):  # noqa: A002 - MindSpore's names
    """``ops.repeat_interleave`` / ``Tensor.repeat``: each element repeated ``repeats`` times along
    ``axis`` (the flattened tensor when None), as ``numpy.repeat``; ``repeats`` is an int or one
    count per element.

    >>> repeat_interleave(Tensor([[1, 2], [3, 4]]), 2, axis=0).asnumpy().tolist()
    [[1, 2], [1, 2], [3, 4], [3, 4]]
    >>> repeat_interleave(Tensor([1, 2, 3]), [0, 1, 2]).asnumpy().tolist()
    [2, 3, 3]
    """
    x = input
    if axis is None:
        x = bind(_R["reshape"], x, shape=(-1,))
        axis = 0
    shape = tuple(x.shape)
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)) or not -len(shape) <= axis < len(shape):
        raise ValueError(f"ops.repeat_interleave: axis {axis!r} is out of range for shape {shape}")
    axis = int(axis) % len(shape)
    if isinstance(repeats, (int, np.integer)) and not isinstance(repeats, bool):
        if repeats < 0:
            raise ValueError(f"ops.repeat_interleave: repeats must be >= 0, got {repeats}")
        wide = shape[:axis + 1] + (int(repeats),) + shape[axis + 1:]
        x = bind(_R["broadcast_to"], bind(_R["expand_dims"], x, axis=axis + 1), shape=wide)
        return bind(_R["reshape"], x, shape=shape[:axis] + (shape[axis] * int(repeats),) + shape[axis + 1:])
    counts = np.asarray(repeats.asnumpy() if isinstance(repeats, Tensor) else repeats)
    if counts.ndim != 1 or counts.shape[0] != shape[axis] or counts.dtype.kind not in "iu" or (counts < 0).any():
        raise ValueError(f"ops.repeat_interleave: repeats must be an int or {shape[axis]} non-negative ints "
                         f"(one per element along axis {axis} of shape {shape}), got {repeats!r}")
    index = Tensor._placed(np.repeat(np.arange(shape[axis], dtype=np.int32), counts), like=x)
    return bind(_R["gather"], x, index, axis=axis)


def _seq(tensors, op_name):
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"ops.{op_name}: expects a tuple or list of tensors, got {type(tensors).__name__}")
    return tuple(tensors)


def cat(tensors, axis=0):
    """``ops.cat(tensors, axis=0)``: join a tuple/list of tensors along ``axis`` (``ops.concat``)."""
    return bind(_R["concat"], *_seq(tensors, "cat"), axis=axis)


def permute(input, axis):  # noqa: A002
    """``ops.permute(input, axis)``: reorder the dimensions (``ops.transpose``)."""
    return bind(_R["transpose"], input, perm=tuple(axis))


def unsqueeze(input, dim):  # noqa: A002
    """``ops.unsqueeze(input, dim)``: insert a size-1 dimension at ``dim``."""
    return bind(_R["expand_dims"], input, axis=dim)


def swapaxes(input, axis0, axis1):  # noqa: A002
    """``ops.swapaxes(input, axis0, axis1)``: exchange two dimensions."""
    nd = input.ndim
    for name, d in (("axis0", axis0), ("axis1", axis1)):
        if isinstance(d, bool) or not isinstance(d, int):
            raise TypeError(f"ops.swapaxes: {name} must be an int, got {d!r}")
        if not -max(nd, 1) <= d < max(nd, 1):
            raise ValueError(f"ops.swapaxes: {name} {d} is out of range for a tensor of rank {nd}")
    perm = list(range(nd))
    if nd:  # a 0-d tensor: dims 0/-1 name the tensor itself (as torch), nothing to exchange
        perm[axis0], perm[axis1] = perm[axis1], perm[axis0]
    return bind(_R["transpose"], input, perm=tuple(perm))


def addn(x):
    """``ops.addn(x)``: the element-wise sum of a tuple/list of same-shaped tensors."""
    parts = _seq(x, "addn")
    if not parts:
        raise ValueError("ops.addn: expects at least one tensor")
    total = parts[0]
    for t in parts[1:]:
        total = bind(_R["add"], total, t)
    return total


def bmm(input_x, mat2):
    """``ops.bmm``: batched matrix product of ``(..., n, m)`` and ``(..., m, p)`` tensors."""
    if input_x.ndim < 3 or mat2.ndim < 3:
        raise ValueError(f"ops.bmm: expects tensors of rank >= 3, got shapes {tuple(input_x.shape)} "
                         f"and {tuple(mat2.shape)}")
    return bind(_R["matmul"], input_x, mat2)


def stop_gradient(value):
    """``ops.stop_gradient``: ``value`` itself, with no gradient flowing through it; a tuple or
    list of values gives each one stopped (in the same container type), as in MindSpore."""
    if isinstance(value, (tuple, list)) and not hasattr(value, "shape"):
        return type(value)(stop_gradient(v) for v in value)
    if value is None or isinstance(value, (int, float, bool, str)):
        return value  # Python values carry no gradient
    return bind(_R["stop_gradient"], value)


def depend(value, expr):
    """``ops.depend(value, expr)``: ``value``; ``expr`` is evaluated first (Python already does)."""
    return value


def partial(func, *args, **kwargs):
    """``ops.partial(func, *args, **kwargs)``: ``func`` with its first arguments (and keyword
    arguments) bound."""
    import functools
    return functools.partial(func, *args, **kwargs)


def unstack(input_x, axis=0):
    """``ops.unstack(input_x, axis=0)``: a tuple of the slices along ``axis`` (rank drops by one)."""
    n = input_x.shape[axis]
    parts = bind(_R["split"], input_x, axis=axis, output_num=n) if n > 1 else (input_x,)
    return tuple(bind(_R["squeeze"], p, axis=axis) for p in parts)


def chunk(input, chunks, axis=0):  # noqa: A002
    """``ops.chunk(input, chunks, axis=0)``: at most ``chunks`` parts of size ceil(n / chunks)."""
    n = input.shape[axis]
    size = -(-n // chunks)
    return split(input, size, axis)


def narrow(input, axis, start, length):  # noqa: A002
    """``ops.narrow(input, axis, start, length)``: ``length`` elements from ``start`` along ``axis``."""
    begin = [0] * input.ndim
    size = list(input.shape)
    begin[axis], size[axis] = start, length
    return bind(_R["slice"], input, begin=tuple(begin), size=tuple(size))


def flip(input, dims):  # noqa: A002
    """``ops.flip(input, dims)``: reverse the order of elements along each axis in ``dims``."""
    index = [builtins.slice(None)] * input.ndim
    for d in (dims,) if isinstance(dims, int) else dims:
        index[d] = builtins.slice(None, None, -1)
    return input[tuple(index)]


def select(cond, x, y):
    """``ops.select(cond, x, y)``: ``x`` where ``cond`` is True, else ``y`` (tensors or numbers,
    broadcast together); the ``Select`` primitive's functional form."""
    return bind(_R["where"], cond, x, y)


def masked_fill(input_x, mask, value):
    """``ops.masked_fill(input_x, mask, value)``: ``value`` where ``mask`` is True."""
    if not isinstance(value, Tensor) and not hasattr(value, "dtype"):
        value = bind(_R["cast"], Tensor(value), dtype=input_x.dtype)
    return bind(_R["where"], mask, value, input_x)


def prod(input, axis=None, keep_dims=False, dtype=None):  # noqa: A002
    """``ops.prod(input, axis=None, keep_dims=False, dtype=None)``: product over ``axis``."""
    if dtype is not None:
        input = bind(_R["cast"], input, dtype=dtype)  # noqa: A001
    return bind(_R["reduce_prod"], input, axis=axis, keep_dims=keep_dims)


def _reduce_axes(x, axis):
    if axis is None:
        return tuple(range(x.ndim))
    return (axis,) if isinstance(axis, int) else tuple(axis)


def var(input, axis=None, ddof=0, keepdims=False):  # noqa: A002
    """``ops.var``: variance over ``axis`` with ``ddof`` delta degrees of freedom."""
    axes = _reduce_axes(input, axis)
    count = 1
    for a in axes:
        count *= input.shape[a]
    centred = input - bind(_R["reduce_mean"], input, axis=axes, keep_dims=True)
    total = bind(_R["reduce_sum"], centred * centred, axis=axes, keep_dims=keepdims)
    return total / builtins.max(count - ddof, 0)


def std(input, axis=None, ddof=0, keepdims=False):  # noqa: A002
    """``ops.std``: standard deviation (square root of :func:`var`)."""
    return bind(_R["sqrt"], var(input, axis, ddof, keepdims))


def all(input, axis=None, keep_dims=False):  # noqa: A001,A002
    """``ops.all``: True where every element along ``axis`` is non-zero."""
    ones_where_true = bind(_R["cast"], bind(_R["not_equal"], input, 0), dtype=float32)
    return bind(_R["cast"], bind(_R["reduce_min"], ones_where_true, axis=axis, keep_dims=keep_dims), dtype="bool")


def any(input, axis=None, keep_dims=False):  # noqa: A001,A002
    """``ops.any``: True where some element along ``axis`` is non-zero."""
    ones_where_true = bind(_R["cast"], bind(_R["not_equal"], input, 0), dtype=float32)
    return bind(_R["cast"], bind(_R["reduce_max"], ones_where_true, axis=axis, keep_dims=keep_dims), dtype="bool")


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):  # noqa: A002
    """``ops.isclose``: ``|input - other| <= atol + rtol * |other|`` for finite values, or
    ``input == other`` (so equal infinities are close, as in MindSpore and numpy); NaNs are close to each other only with
    ``equal_nan=True``."""
    diff = bind(_R["abs"], bind(_R["sub"], input, other))
    within = bind(_R["less_equal"], diff, atol + rtol * bind(_R["abs"], other))
    # the tolerance only applies where both are finite (inf vs -inf would pass inf <= inf)
    finite = bind(_R["logical_and"], bind(_R["isfinite"], input), bind(_R["isfinite"], other))
    close = bind(_R["logical_or"], bind(_R["equal"], input, other), bind(_R["logical_and"], finite, within))
    if equal_nan:
        both_nan = bind(_R["logical_and"], bind(_R["isnan"], input), bind(_R["isnan"], other))
        close = bind(_R["logical_or"], close, both_nan)
    return close


def index_select(input, axis, index):  # noqa: A002 - MindSpore's names
    """``ops.index_select(input, axis, index)``: the entries of ``input`` along ``axis`` at the
    positions in the 1-D int tensor ``index`` (``ops.gather`` with MindSpore 2.x's argument order)."""
    if getattr(index, "ndim", None) != 1:
        raise ValueError(f"ops.index_select: index must be a 1-D tensor, got "
                         f"{getattr(index, 'shape', type(index).__name__)}")
    return bind(_R["gather"], input, index, axis=axis)


def logical_xor(input, other):  # noqa: A002
    """``ops.logical_xor(input, other)``: True where exactly one of ``input``, ``other`` is true
    (bool result, broadcasting); composed as ``(a or b) and not (a and b)``."""
    return bind(_R["logical_and"], bind(_R["logical_or"], input, other),
                bind(_R["logical_not"], bind(_R["logical_and"], input, other)))


def scatter(input, axis, index, src):  # noqa: A002
    """``ops.scatter(input, axis, index, src)`` (``tensor_scatter_elements`` with no reduction): a copy
    of ``input`` with ``out[i][index[i][j]] = src[i][j]`` for ``axis=1`` (likewise for any rank).
    ``index`` has ``input``'s rank; ``src`` is a tensor of ``index``'s shape (or a number). Composed as
    ``setitem`` with one index tensor per axis: ``index`` on ``axis``, positions on the others."""
    shape, ishape = tuple(input.shape), tuple(getattr(index, "shape", ()))
    if len(ishape) != len(shape) or not shape:
        raise ValueError(f"ops.scatter: index must have input's rank >= 1, got index shape {ishape} and input "
                         f"shape {shape}")
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)) or not -len(shape) <= axis < len(shape):
        raise ValueError(f"ops.scatter: axis {axis!r} is out of range for input shape {shape}")
    if not index.dtype.is_int:
        raise TypeError(f"ops.scatter: index must be an int32 or int64 tensor, got {index.dtype}")
    if hasattr(src, "shape") and tuple(src.shape) != ishape:
        raise ValueError(f"ops.scatter: src shape {tuple(src.shape)} must equal index shape {ishape}")
    axis = int(axis) % len(shape)
    if builtins.any(i > s for d, (i, s) in enumerate(zip(ishape, shape)) if d != axis):
        raise ValueError(f"ops.scatter: index shape {ishape} exceeds input shape {shape} off axis {axis}")
    items = []
    for d in range(len(shape)):
        if d == axis:
            items.append(index)
        else:
            pos = np.arange(ishape[d], dtype=np.int64).reshape((-1,) + (1,) * (len(shape) - 1 - d))
            items.append(Tensor._placed(np.broadcast_to(pos, ishape).copy(), like=input))
    from graph.ops.shape import split_index
    spec, tensors = split_index(tuple(items))
    return bind(_R["setitem"], input, src, *tensors, index=spec)


def full_like(input, fill_value, *, dtype=None):  # noqa: A002
    """``ops.full_like``: a tensor of ``input``'s shape filled with ``fill_value``."""
    filled = bind(_R["ones_like"], input) * fill_value
    return bind(_R["cast"], filled, dtype=dtype or input.dtype)


def outer(input, vec2):  # noqa: A002
    """``ops.outer``: the outer product of two 1-D tensors."""
    return bind(_R["expand_dims"], input, axis=1) * bind(_R["expand_dims"], vec2, axis=0)


def _number(x):
    """A Python number from a number, a numpy scalar or a one-element tensor (sizes computed from
    traced shapes kept as they are)."""
    if is_symbolic(x) or isinstance(x, (bool, int, float)):
        return x
    return x.item() if hasattr(x, "item") else x


@keeps_symbolic_sizes
def arange(start=0, end=None, step=1, *, dtype=None):
    """``ops.arange(start=0, end=None, step=1, *, dtype=None)``: ``[start, end)`` by ``step``
    (int64 for integer arguments, float32 otherwise, as MindSpore)."""
    if end is None:
        start, end = 0, start
    start, end, step = _number(start), _number(end), _number(step)
    if dtype is None:
        dtype = "int64" if builtins.all(isinstance(x, (int, np.integer)) and not isinstance(x, bool)
                               for x in (start, end, step)) else float32
    return _made("range", start=start, limit=end, delta=step, dtype=as_dtype(dtype))


@keeps_symbolic_sizes
def eye(n, m=None, dtype=None):
    """``ops.eye(n, m=None, dtype=float32)``: ones on the diagonal."""
    dtype = as_dtype(dtype or float32)
    m = n if m is None else m
    if is_symbolic(n) or is_symbolic(m):  # (a graph of sizes' expressions, as _triangle_mask)
        rows = bind(_R["expand_dims"], arange(n), axis=1)
        cols = bind(_R["expand_dims"], arange(m), axis=0)
        return bind(_R["cast"], bind(_R["equal"], rows, cols), dtype=dtype)
    return Tensor._placed(np.eye(n, m, dtype=dtype.np))


def _triangle_mask(rows, cols, diagonal, lower, like):
    """Where ``tril``/``triu`` keep elements of a (rows, cols) matrix: ``col - row <= diagonal``
    (lower) or ``>= diagonal``. numpy's ``tri`` as a constant on ``like``'s device; computed by
    the graph from the sizes' expressions when they are symbolic (a frame captured for every size)."""
    if not (is_symbolic(rows) or is_symbolic(cols)):
        return Tensor._placed(np.tri(rows, cols, diagonal, dtype=bool) if lower
                              else ~np.tri(rows, cols, diagonal - 1, dtype=bool), like=like)
    offset = bind(_R["sub"], bind(_R["expand_dims"], arange(cols), axis=0),
                  bind(_R["expand_dims"], arange(rows), axis=1))
    return bind(_R["less_equal" if lower else "greater_equal"], offset, diagonal)


def _triangle(input, diagonal, lower):  # noqa: A002
    keep = _triangle_mask(input.shape[-2], input.shape[-1], diagonal, lower, input)
    return bind(_R["where"], keep, input, bind(_R["zeros_like"], input))


def tril(input, diagonal=0):  # noqa: A002
    """``ops.tril``: the lower triangle (elements above ``diagonal`` zeroed)."""
    return _triangle(input, diagonal, True)


def triu(input, diagonal=0):  # noqa: A002
    """``ops.triu``: the upper triangle (elements below ``diagonal`` zeroed)."""
    return _triangle(input, diagonal, False)


def binary_cross_entropy_with_logits(logits, label, weight=None, pos_weight=None, reduction="mean"):
    """``ops.binary_cross_entropy_with_logits``: sigmoid cross-entropy computed stably as
    ``max(x, 0) - x * y + log(1 + exp(-|x|))`` (with ``pos_weight``: ``(1 - y) * x +
    (1 + (p - 1) * y) * (log(1 + exp(-|x|)) + max(-x, 0))``)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"ops.binary_cross_entropy_with_logits: reduction must be 'mean', 'sum' or "
                         f"'none', got {reduction!r}")
    softplus_neg_abs = bind(_R["log1p"], bind(_R["exp"], -bind(_R["abs"], logits)))
    if pos_weight is None:
        loss = bind(_R["maximum"], logits, 0.0) - logits * label + softplus_neg_abs
    else:
        log_weight = 1.0 + (pos_weight - 1.0) * label
        loss = (1.0 - label) * logits + log_weight * (softplus_neg_abs + bind(_R["maximum"], -logits, 0.0))
    if weight is not None:
        loss = loss * weight
    if reduction == "mean":
        return bind(_R["reduce_mean"], loss)
    if reduction == "sum":
        return bind(_R["reduce_sum"], loss)
    return loss


class AddN(CompositePrimitive):
    """``ops.AddN()(tensors)``: :func:`addn`."""

    function = staticmethod(addn)


class BatchMatMul(CompositePrimitive):
    """``ops.BatchMatMul(transpose_a=False, transpose_b=False)(x, y)``."""

    def __init__(self, transpose_a=False, transpose_b=False):
        self.transpose_a, self.transpose_b = transpose_a, transpose_b

    def __call__(self, x, y):
        return bind(_R["matmul"], x, y, transpose_a=self.transpose_a, transpose_b=self.transpose_b)


class StopGradient(CompositePrimitive):
    function = staticmethod(stop_gradient)


class Depend(CompositePrimitive):
    function = staticmethod(depend)


class Partial(CompositePrimitive):
    function = staticmethod(partial)


class Shape(CompositePrimitive):
    """``ops.Shape()(x)``: the shape of ``x`` as a tuple of ints (static; :func:`shape`)."""

    function = staticmethod(shape)


class Unstack(CompositePrimitive):
    """``ops.Unstack(axis=0)(x)``: :func:`unstack`."""

    def __init__(self, axis=0, num=None):
        self.axis = axis

    def __call__(self, x):
        return unstack(x, self.axis)


__all__ += ["select", "cat", "permute", "unsqueeze", "swapaxes", "addn", "bmm", "stop_gradient", "depend", "partial",
            "unstack", "chunk", "narrow", "flip", "masked_fill", "prod", "var", "std", "all", "any",
            "isclose", "index_select", "logical_xor", "scatter", "full_like", "outer", "arange", "eye", "tril", "triu",
            "binary_cross_entropy_with_logits", "AddN", "BatchMatMul", "StopGradient", "Depend",
            "Partial", "Shape", "Unstack", "CompositePrimitive"]


# -- mindspore.ops.composite: type-dispatched functions mapped over tuples -----------------------------
def _is_tensor_like(x):
    return hasattr(x, "shape") and hasattr(x, "dtype") and not isinstance(x, (np.generic, np.ndarray))


_TYPE_TESTS = {
    "Tensor": _is_tensor_like,
    "Number": lambda x: isinstance(x, (int, float)) and not _is_tensor_like(x),
    "Bool": lambda x: isinstance(x, bool),
    "String": lambda x: isinstance(x, str),
    "Tuple": lambda x: isinstance(x, tuple),
    "List": lambda x: isinstance(x, list),
    "Dictionary": lambda x: isinstance(x, dict),
    "None": lambda x: x is None,
    "Function": callable,
}


class MultitypeFuncGraph:
    """``C.MultitypeFuncGraph(name)``: one name, several functions chosen by the types of the
    arguments (``"Tensor"``, ``"Number"``, ``"Bool"``, ``"String"``, ``"Tuple"``, ``"List"``,
    ``"Dictionary"``, ``"None"``, ``"Function"``), registered with ``@f.register(...)``.

    Example:
        >>> from runtime import Tensor
        >>> scale = MultitypeFuncGraph("scale")
        >>> @scale.register("Number", "Tensor")
        ... def _(k, t):
        ...     return t * k
        >>> scale(2.0, Tensor([1.0, 3.0]))
        Tensor(shape=[2], dtype=Float32, value=[2., 6.])
    """

    def __init__(self, name, read_value=False):
        self.name = name
        self._entries = []

    def register(self, *type_names):
        unknown = [n for n in type_names if n not in _TYPE_TESTS]
        if unknown:
            raise ValueError(f"MultitypeFuncGraph {self.name!r}: unknown type name(s) {unknown}; "
                             f"known: {sorted(_TYPE_TESTS)}")

        def deco(fn):
            self._entries.append((type_names, fn))
            return fn
        return deco

    def __call__(self, *args):
        for names, fn in self._entries:
            if len(names) == len(args) and builtins.all(_TYPE_TESTS[n](a) for n, a in zip(names, args)):
                return fn(*args)
        kinds = ", ".join(type(a).__name__ for a in args)
        raise TypeError(f"MultitypeFuncGraph {self.name!r}: no function registered for arguments ({kinds})")


def _map_leaves(fn, args, deep):
    seqs = [a for a in args if isinstance(a, (tuple, list))]
    if not seqs:
        return fn(*args)
    n = len(seqs[0])
    if builtins.any(len(s) != n for s in seqs):
        raise ValueError(f"HyperMap: the sequences have different lengths {[len(s) for s in seqs]}")
    rows = ([a[i] if isinstance(a, (tuple, list)) else a for a in args] for i in range(n))
    return tuple(_map_leaves(fn, row, deep) if deep else fn(*row) for row in rows)


class HyperMap:
    """``C.HyperMap(ops=None)``: apply ``ops`` (or the first call argument) element-wise over
    tuples/lists, recursing into nested ones; non-sequence arguments are passed to every call.

    Example:
        >>> from runtime import Tensor
        >>> HyperMap()(lambda a, b: a + b, (Tensor([1.0]), Tensor([2.0])), (1.0, 2.0))
        (Tensor(shape=[1], dtype=Float32, value=[2.]), Tensor(shape=[1], dtype=Float32, value=[4.]))
    """

    _deep = True

    def __init__(self, ops=None, reverse=False):
        self.ops = ops

    def __call__(self, *args):
        fn, seqs = (self.ops, args) if self.ops is not None else (args[0], args[1:])
        return _map_leaves(fn, seqs, self._deep)


class Map(HyperMap):
    """``C.Map(ops=None)``: like :class:`HyperMap`, one level deep."""

    _deep = False


def __getattr__(name):
    if name == "GradOperation":  # defined with the autodiff (imported late: it imports this package)
        from ..autograd import GradOperation
        return GradOperation
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ += ["MultitypeFuncGraph", "HyperMap", "Map"]
