"""More of MindSpore 2.x's functional array API (``ops.roll``, ``ops.diag``, ``ops.diagonal``, ``ops.movedim``,
``ops.hstack``/``vstack``, ``ops.tensor_split``/``hsplit``/``vsplit``/``dsplit``, ``ops.block_diag``,
``ops.cartesian_prod``, ``ops.atleast_2d`` ...), with MindSpore's signatures and parameter names.

No new op semantics: each function reuses the ``mindspore.numpy`` function of the same layout change
(``runtime.numpy``) or composes registry ops (transpose, reshape, gather, slice, concat, broadcast_to), so
gradients and graph mode come from the registry.

Example:
    >>> from runtime import ops, Tensor
    >>> ops.roll(Tensor([0, 1, 2, 3, 4]), shifts=2, dims=0).asnumpy().tolist()
    [3, 4, 0, 1, 2]
    >>> ops.movedim(Tensor([[1, 2, 3]]), 0, 1).shape
    (3, 1)
"""
from __future__ import annotations

import builtins

import numpy as np

from graph.dtypes import as_dtype, int64
from graph.ops import REGISTRY, bind
from graph.ops.core import is_tensorlike
from graph.symint import keeps_symbolic_sizes

from ..tensor import Tensor
from .composite import arange

_R = REGISTRY

__all__ = ["roll", "diag", "diagonal", "diagflat", "movedim", "moveaxis", "swapdims", "hstack", "vstack",
           "dstack", "column_stack", "row_stack", "tensor_split", "hsplit", "vsplit", "dsplit", "block_diag",
           "cartesian_prod", "atleast_1d", "atleast_2d", "atleast_3d", "fliplr", "flipud", "rot90", "unbind",
           "reverse", "expand", "ravel", "repeat_elements", "sequence_mask", "tril_indices", "triu_indices",
           "vander", "dyn_shape", "is_tensor", "scalar_cast", "argwhere", "reverse_sequence", "index_add",
           "index_fill", "inplace_update", "inplace_add", "inplace_sub", "padding", "combinations", "logspace",
           "range", "hann_window", "hamming_window", "bartlett_window", "blackman_window", "kaiser_window"]


def _mnp():
    from .. import numpy as mnp
    return mnp


def _ops():
    from .. import ops
    return ops


def _tensor(x, fn, name="input"):
    if not is_tensorlike(x) or isinstance(x, (np.ndarray, np.generic)):
        raise TypeError(f"ops.{fn}: {name} must be a Tensor, got {type(x).__name__}")
    return x


def _tensors(seq, fn, name):
    if not isinstance(seq, (list, tuple)) or not seq:
        raise TypeError(f"ops.{fn}: {name} must be a non-empty tuple or list of Tensors, got {type(seq).__name__}")
    return [_tensor(t, fn, name) for t in seq]


def roll(input, shifts, dims=None):  # noqa: A002 - MindSpore's names
    """``ops.roll(input, shifts, dims=None)``: elements shifted along ``dims`` (the flattened tensor,
    reshaped back, when None), wrapping around."""
    return _mnp().roll(_tensor(input, "roll"), shifts, dims)


def diag(input):  # noqa: A002
    """``ops.diag(input)``: a tensor with ``input`` on its diagonal: rank k gives rank 2k with
    ``out[i..., i...] = input[i...]`` (a 1-D input gives the square diagonal matrix)."""
    _tensor(input, "diag")
    if input.ndim == 0:
        raise ValueError("ops.diag: input must have rank >= 1")
    return _ops().Diag()(input)


def diagonal(input, offset=0, dim1=0, dim2=1):  # noqa: A002
    """``ops.diagonal(input, offset=0, dim1=0, dim2=1)``: the diagonal ``offset`` of the matrices on
    ``dim1``/``dim2``, as the last axis."""
    return _mnp().diagonal(_tensor(input, "diagonal"), offset, dim1, dim2)


def diagflat(input, offset=0):  # noqa: A002
    """``ops.diagflat(input, offset=0)``: the flattened ``input`` on diagonal ``offset`` of a square matrix."""
    return _mnp().diagflat(_tensor(input, "diagflat"), offset)


def movedim(x, source, destination):
    """``ops.movedim(x, source, destination)``: axes ``source`` moved to ``destination`` (ints or tuples),
    the others keeping their order."""
    return _mnp().moveaxis(_tensor(x, "movedim", "x"), source, destination)


moveaxis = movedim


def swapdims(input, dim0, dim1):  # noqa: A002
    """``ops.swapdims(input, dim0, dim1)``: two axes interchanged."""
    return _mnp().swapaxes(_tensor(input, "swapdims"), dim0, dim1)


def hstack(tensors):
    """``ops.hstack(tensors)``: joined column-wise (1-D tensors end to end)."""
    return _mnp().hstack(_tensors(tensors, "hstack", "tensors"))


def vstack(inputs):
    """``ops.vstack(inputs)``: joined row-wise (1-D tensors become rows)."""
    return _mnp().vstack(_tensors(inputs, "vstack", "inputs"))


def row_stack(tensors):
    """``ops.row_stack(tensors)``: alias of ``ops.vstack``."""
    return _mnp().vstack(_tensors(tensors, "row_stack", "tensors"))


def dstack(inputs):
    """``ops.dstack(inputs)``: joined along the third axis (lower-rank tensors padded as numpy's)."""
    return _mnp().dstack(_tensors(inputs, "dstack", "inputs"))


def column_stack(tensors):
    """``ops.column_stack(tensors)``: 1-D tensors as columns of a 2-D tensor, others joined on axis 1."""
    return _mnp().column_stack(_tensors(tensors, "column_stack", "tensors"))


def tensor_split(input, indices_or_sections, axis=0):  # noqa: A002
    """``ops.tensor_split(input, indices_or_sections, axis=0)``: an int n gives n parts (the first
    ``size % n`` one longer); a tuple/list of indices splits before each. Returns a tuple."""
    _tensor(input, "tensor_split")
    if isinstance(indices_or_sections, bool) or not isinstance(indices_or_sections, (int, np.integer, tuple, list)):
        raise TypeError(f"ops.tensor_split: indices_or_sections must be an int, tuple or list, got "
                        f"{indices_or_sections!r}")
    if isinstance(indices_or_sections, (int, np.integer)) and indices_or_sections <= 0:
        raise ValueError(f"ops.tensor_split: the number of sections must be positive, got {indices_or_sections}")
    return _mnp().array_split(input, indices_or_sections if not isinstance(indices_or_sections, np.integer)
                              else int(indices_or_sections), axis)


def _split_at_least(input, indices_or_sections, axis, rank, fn):  # noqa: A002
    _tensor(input, fn)
    if input.ndim < rank:
        raise ValueError(f"ops.{fn}: input must have rank >= {rank}, got shape {tuple(input.shape)}")
    return tensor_split(input, indices_or_sections, axis)


def hsplit(input, indices_or_sections):  # noqa: A002
    """``ops.hsplit(input, indices_or_sections)``: ``tensor_split`` along axis 1 (axis 0 for 1-D input)."""
    _tensor(input, "hsplit")
    return _split_at_least(input, indices_or_sections, 0 if input.ndim == 1 else 1, 1, "hsplit")


def vsplit(input, indices_or_sections):  # noqa: A002
    """``ops.vsplit(input, indices_or_sections)``: ``tensor_split`` along axis 0 (rank >= 2)."""
    return _split_at_least(input, indices_or_sections, 0, 2, "vsplit")


def dsplit(input, indices_or_sections):  # noqa: A002
    """``ops.dsplit(input, indices_or_sections)``: ``tensor_split`` along axis 2 (rank >= 3)."""
    return _split_at_least(input, indices_or_sections, 2, 3, "dsplit")


def block_diag(*inputs):
    """``ops.block_diag(*inputs)``: the 0-, 1- or 2-D inputs (a scalar is 1x1, a vector a row) on the
    diagonal of a 2-D tensor, zeros elsewhere; the result has the inputs' promoted dtype."""
    if not inputs:
        raise ValueError("ops.block_diag: expects at least one input")
    mats = []
    for t in inputs:
        _tensor(t, "block_diag", "inputs")
        if t.ndim > 2:
            raise ValueError(f"ops.block_diag: inputs must have rank <= 2, got shape {tuple(t.shape)}")
        mats.append(bind(_R["reshape"], t, shape=(1, 1) if t.ndim == 0 else (1, t.shape[0])) if t.ndim < 2 else t)
    dt = _mnp()._convert.result_dtype(*mats)
    mats = [_mnp()._convert.cast(m, dt) for m in mats]
    cols = sum(m.shape[1] for m in mats)
    rows, left = [], 0
    for m in mats:
        right = cols - left - m.shape[1]
        parts = []
        if left:
            parts.append(Tensor(np.zeros((m.shape[0], left), dt.np)))
        parts.append(m)
        if right:
            parts.append(Tensor(np.zeros((m.shape[0], right), dt.np)))
        rows.append(bind(_R["concat"], *parts, axis=1) if len(parts) > 1 else m)
        left += m.shape[1]
    return bind(_R["concat"], *rows, axis=0) if len(rows) > 1 else rows[0]


def cartesian_prod(*inputs):
    """``ops.cartesian_prod(*inputs)``: the cartesian product of 1-D tensors, one row per combination
    (first input varying slowest); one input is returned as it is."""
    ts = [_tensor(t, "cartesian_prod", "inputs") for t in inputs]
    if not ts or any(t.ndim != 1 for t in ts):
        raise ValueError("ops.cartesian_prod: expects one or more 1-D tensors")
    if len(ts) == 1:
        return ts[0]
    grids = _mnp().meshgrid(*ts, indexing="ij")
    n = int(np.prod([t.shape[0] for t in ts]))
    cols = [bind(_R["reshape"], g, shape=(n, 1)) for g in grids]
    return bind(_R["concat"], *cols, axis=1)


def _atleast(fn_name, inputs):
    f = getattr(_mnp(), fn_name)
    if isinstance(inputs, (list, tuple)):
        return tuple(f(_tensor(t, fn_name, "inputs")) for t in inputs)
    return f(_tensor(inputs, fn_name, "inputs"))


def atleast_1d(inputs):
    """``ops.atleast_1d(inputs)``: a Tensor (or each of a list/tuple, as a tuple) with rank >= 1."""
    return _atleast("atleast_1d", inputs)


def atleast_2d(inputs):
    """``ops.atleast_2d(inputs)``: rank >= 2 (a vector becomes a row)."""
    return _atleast("atleast_2d", inputs)


def atleast_3d(inputs):
    """``ops.atleast_3d(inputs)``: rank >= 3 (numpy's placement: (N,) -> (1, N, 1), (M, N) -> (M, N, 1))."""
    return _atleast("atleast_3d", inputs)


def fliplr(input):  # noqa: A002
    """``ops.fliplr(input)``: columns reversed (rank >= 2)."""
    _tensor(input, "fliplr")
    if input.ndim < 2:
        raise ValueError(f"ops.fliplr: input must have rank >= 2, got shape {tuple(input.shape)}")
    return _ops().flip(input, (1,))


def flipud(input):  # noqa: A002
    """``ops.flipud(input)``: rows reversed (rank >= 1)."""
    _tensor(input, "flipud")
    if input.ndim < 1:
        raise ValueError("ops.flipud: input must have rank >= 1")
    return _ops().flip(input, (0,))


def rot90(input, k, dims):  # noqa: A002
    """``ops.rot90(input, k, dims)``: rotated by 90 degrees ``k`` times in the plane ``dims`` (from the first
    axis towards the second)."""
    _tensor(input, "rot90")
    if len(tuple(dims)) != 2:
        raise ValueError(f"ops.rot90: dims must be a pair of axes, got {dims!r}")
    return _mnp().rot90(input, int(k), tuple(dims))


def unbind(input, dim=0):  # noqa: A002
    """``ops.unbind(input, dim=0)``: the slices along ``dim``, as a tuple (``dim`` removed)."""
    _tensor(input, "unbind")
    return tuple(_ops().unstack(input, dim))


def reverse(x, axis):
    """``ops.reverse(x, axis)``: the 1.x name of ``ops.flip`` (``axis`` a tuple or list of axes)."""
    return _ops().flip(_tensor(x, "reverse", "x"), tuple(axis) if isinstance(axis, (list, tuple)) else (axis,))


def expand(input_x, size):
    """``ops.expand(input_x, size)``: broadcast to ``size`` (-1 keeps an axis; a tuple or an int Tensor)."""
    return _ops().Expand()(_tensor(input_x, "expand", "input_x"), size)


def ravel(input):  # noqa: A002
    """``ops.ravel(input)``: the flattened 1-D tensor."""
    return bind(_R["reshape"], _tensor(input, "ravel"), shape=(-1,))


def repeat_elements(x, rep, axis=0):
    """``ops.repeat_elements(x, rep, axis=0)``: every element repeated ``rep`` times along ``axis``."""
    if isinstance(rep, bool) or not isinstance(rep, (int, np.integer)) or rep < 1:
        raise ValueError(f"ops.repeat_elements: rep must be a positive int, got {rep!r}")
    return _mnp().repeat(_tensor(x, "repeat_elements", "x"), int(rep), axis)


def sequence_mask(lengths, maxlen=None):
    """``ops.sequence_mask(lengths, maxlen=None)``: ``out[..., j] = j < lengths[...]`` with ``maxlen``
    columns (the largest length when None, read from the data: a graph break under jit)."""
    _tensor(lengths, "sequence_mask", "lengths")
    if maxlen is None:
        maxlen = int(np.max(lengths.asnumpy())) if lengths.size else 0
    if isinstance(maxlen, bool) or not isinstance(maxlen, (int, np.integer)) or maxlen < 1 and lengths.size:
        raise ValueError(f"ops.sequence_mask: maxlen must be a positive int, got {maxlen!r}")
    steps = arange(maxlen, dtype=lengths.dtype)  # (a size from a traced shape stays symbolic)
    return bind(_R["less"], steps, bind(_R["expand_dims"], lengths, axis=-1))


def tril_indices(row, col, offset=0, *, dtype=int64):
    """``ops.tril_indices(row, col, offset=0, *, dtype=mstype.int64)``: the (2, N) coordinates of the lower
    triangle of a ``row`` x ``col`` matrix, row by row."""
    return _ops().TrilIndices(row, col, offset, dtype)()


def triu_indices(row, col, offset=0, *, dtype=int64):
    """``ops.triu_indices(row, col, offset=0, *, dtype=mstype.int64)``: the upper triangle's coordinates."""
    return _ops().TriuIndices(row, col, offset, dtype)()


def vander(x, N=None):
    """``ops.vander(x, N=None)``: the Vandermonde matrix of a 1-D ``x``, decreasing powers (``N`` columns,
    ``len(x)`` when None)."""
    _tensor(x, "vander", "x")
    if x.ndim != 1:
        raise ValueError(f"ops.vander: x must be 1-D, got shape {tuple(x.shape)}")
    n = x.shape[0] if N is None else int(N)
    powers = Tensor(np.arange(n - 1, -1, -1, dtype=x.dtype.np))
    return bind(_R["pow"], bind(_R["expand_dims"], x, axis=1), powers)


def dyn_shape(input_x):
    """``ops.dyn_shape(input_x)``: the shape as a 1-D int64 Tensor."""
    return Tensor(np.asarray(_tensor(input_x, "dyn_shape", "input_x").shape, np.int64))


def is_tensor(obj):
    """``ops.is_tensor(obj)``: whether ``obj`` is a Tensor."""
    return is_tensorlike(obj) and not isinstance(obj, (np.ndarray, np.generic))


def scalar_cast(input_x, input_y):
    """``ops.scalar_cast(input_x, input_y)``: the Python scalar ``input_x`` cast to the number type
    ``input_y`` (``mstype.int32`` -> an int, ``mstype.float32`` -> a float, ``mstype.bool_`` -> a bool)."""
    if not isinstance(input_x, (bool, int, float, np.generic)):
        raise TypeError(f"ops.scalar_cast: input_x must be a scalar, got {type(input_x).__name__}")
    return as_dtype(input_y).np.type(input_x).item()


def argwhere(input):  # noqa: A002
    """``ops.argwhere(input)``: the (N, rank) int64 coordinates of the non-zero elements (as ``ops.nonzero``:
    a data-dependent shape, a graph break under jit)."""
    return _ops().nonzero(_tensor(input, "argwhere"))


def reverse_sequence(x, seq_lengths, seq_dim, batch_dim=0):
    """``ops.reverse_sequence(x, seq_lengths, seq_dim, batch_dim=0)``: each batch entry reversed in its
    first ``seq_lengths[b]`` positions along ``seq_dim``."""
    return _ops().ReverseSequence(seq_dim, batch_dim)(x, seq_lengths)


def index_add(x, indices, y, axis, use_lock=True, check_index_bound=True):
    """``ops.index_add(x, indices, y, axis, use_lock=True, check_index_bound=True)``: ``y`` added into the
    Parameter ``x`` at ``indices`` along ``axis``, in place; returns ``x``."""
    return _ops().IndexAdd(axis, use_lock, check_index_bound)(x, indices, y)


def index_fill(x, axis, index, value):
    """``ops.index_fill(x, axis, index, value)``: a copy of ``x`` with the slices at ``index`` (int32 Tensor)
    along ``axis`` set to ``value`` (a number or a 0-d Tensor)."""
    _tensor(x, "index_fill", "x")
    ax = int(axis) % x.ndim
    n = x.shape[ax]
    flat = bind(_R["cast"], bind(_R["reshape"], index, shape=(-1,)), dtype=int64)
    matches = bind(_R["equal"], bind(_R["expand_dims"], flat, axis=1), Tensor(np.arange(n, dtype=np.int64)))
    hit = bind(_R["greater"], bind(_R["reduce_sum"], bind(_R["cast"], matches, dtype=int64), axis=(0,),
                                   keep_dims=False), 0)
    shape = [1] * x.ndim
    shape[ax] = n
    mask = bind(_R["reshape"], hit, shape=tuple(shape))
    fill = bind(_R["add"], bind(_R["zeros_like"], x), value if not is_tensorlike(value)
                else bind(_R["cast"], value, dtype=x.dtype))
    return bind(_R["where"], mask, fill, x)


# -- row updates, creation and windows ------------------------------------------------------------------------
def _rows(indices, fn):
    idx = (int(indices),) if isinstance(indices, (int, np.integer)) else tuple(int(i) for i in indices)
    return Tensor(np.asarray(idx, np.int32).reshape(-1, 1))


def inplace_update(x, v, indices):
    """``ops.inplace_update(x, v, indices)``: ``x`` with rows ``indices`` (an int or a tuple of ints along
    axis 0) replaced by the rows of ``v``."""
    _tensor(x, "inplace_update", "x")
    return bind(_R["tensor_scatter_update"], x, _rows(indices, "inplace_update"),
                bind(_R["reshape"], v, shape=(-1,) + tuple(x.shape[1:])))


def inplace_add(x, v, indices):
    """``ops.inplace_add(x, v, indices)``: ``x`` with the rows of ``v`` added to rows ``indices``."""
    _tensor(x, "inplace_add", "x")
    return bind(_R["tensor_scatter_add"], x, _rows(indices, "inplace_add"),
                bind(_R["reshape"], v, shape=(-1,) + tuple(x.shape[1:])))


def inplace_sub(x, v, indices):
    """``ops.inplace_sub(x, v, indices)``: ``x`` with the rows of ``v`` subtracted from rows ``indices``."""
    _tensor(x, "inplace_sub", "x")
    return bind(_R["tensor_scatter_sub"], x, _rows(indices, "inplace_sub"),
                bind(_R["reshape"], v, shape=(-1,) + tuple(x.shape[1:])))


def padding(x, pad_dim_size=8):
    """``ops.padding(x, pad_dim_size=8)``: an (..., 1) ``x`` zero-padded to (..., pad_dim_size)."""
    return _ops().Padding(pad_dim_size)(_tensor(x, "padding", "x"))


def combinations(input, r=2, with_replacement=False):  # noqa: A002
    """``ops.combinations(input, r=2, with_replacement=False)``: the length-``r`` combinations of a 1-D
    ``input``, one per row (itertools' order)."""
    import itertools
    _tensor(input, "combinations")
    if input.ndim != 1:
        raise ValueError(f"ops.combinations: input must be 1-D, got shape {tuple(input.shape)}")
    make = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = np.asarray(list(make(builtins.range(input.shape[0]), int(r))), np.int32).reshape(-1, int(r))
    if not idx.size:
        return Tensor(np.zeros((0, int(r)), input.dtype.np))
    return bind(_R["gather"], input, Tensor(idx), axis=0)


def logspace(start, end, steps, base=10, *, dtype=None):
    """``ops.logspace(start, end, steps, base=10, *, dtype=mstype.float32)``: ``steps`` values
    ``base ** t`` for ``t`` evenly spaced from ``start`` to ``end``."""
    from graph.dtypes import float32
    def to_t(v):
        return v if is_tensorlike(v) else Tensor(np.asarray(v, np.float64))
    return _ops().LogSpace(steps, base, dtype or float32)(to_t(start), to_t(end))


@keeps_symbolic_sizes
def range(start, end, step):  # noqa: A001 - MindSpore's name
    """``ops.range(start, end, step)``: values from ``start`` up to (not including) ``end`` by ``step``; the
    Tensors' dtype (int arguments: int64, float arguments: float32). Read from the values: a graph break
    under jit when they are Tensors."""
    vals = [v.asnumpy().item() if is_tensorlike(v) else v for v in (start, end, step)]
    if vals[2] == 0:
        raise ValueError("ops.range: step must not be 0")
    dt = next((v.dtype for v in (start, end, step) if is_tensorlike(v)), None)
    if dt is None:
        dt = as_dtype("int64") if all(isinstance(v, (int, np.integer)) for v in vals) else as_dtype("float32")
    return arange(*vals, dtype=dt)


def _window(fn, window_length, periodic, dtype, make):
    from graph.dtypes import float32
    n = int(window_length.asnumpy().item()) if is_tensorlike(window_length) else window_length
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"ops.{fn}: window_length must be a non-negative int, got {window_length!r}")
    n = int(n)
    dt = as_dtype(dtype or float32)
    if n <= 1:
        return Tensor(np.ones(n, dt.np))
    # a periodic window is the symmetric one of length n + 1 without its last value (for spectral analysis)
    w = make(n + 1)[:-1] if periodic else make(n)
    return Tensor(np.asarray(w, np.float64).astype(dt.np))


def hann_window(window_length, periodic=True, *, dtype=None):
    """``ops.hann_window(window_length, periodic=True, *, dtype=None)``: ``0.5 - 0.5 cos(2 pi n / (N - 1))``."""
    return _window("hann_window", window_length, periodic, dtype, np.hanning)


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None):
    """``ops.hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None)``:
    ``alpha - beta cos(2 pi n / (N - 1))``."""
    return _window("hamming_window", window_length, periodic, dtype,
                   lambda m: alpha - beta * np.cos(2 * np.pi * np.arange(m) / (m - 1)))


def bartlett_window(window_length, periodic=True, *, dtype=None):
    """``ops.bartlett_window(window_length, periodic=True, *, dtype=mstype.float32)``: the triangular window."""
    return _window("bartlett_window", window_length, periodic, dtype, np.bartlett)


def blackman_window(window_length, periodic=True, *, dtype=None):
    """``ops.blackman_window(window_length, periodic=True, *, dtype=mstype.float32)``:
    ``0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))``."""
    return _window("blackman_window", window_length, periodic, dtype, np.blackman)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None):
    """``ops.kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=mstype.float32)``:
    ``I0(beta sqrt(1 - (2n / (N - 1) - 1)**2)) / I0(beta)``."""
    return _window("kaiser_window", window_length, periodic, dtype, lambda m: np.kaiser(m, beta))


# -- space <-> batch/depth, bit counts and 1.x spellings ------------------------------------------------------
def _blocks(block, m, fn):
    b = (int(block),) * m if isinstance(block, (int, np.integer)) else tuple(int(v) for v in block)
    if len(b) != m or any(v < 1 for v in b):
        raise ValueError(f"ops.{fn}: block sizes must be {m} positive ints, got {block!r}")
    return b


def space_to_batch_nd(input_x, block_size, paddings):
    """``ops.space_to_batch_nd(input_x, block_size, paddings)``: the last ``M = len(paddings)`` axes zero-padded
    by ``paddings`` and cut into ``block_size`` blocks moved to the batch: (N, C, H, W) ->
    (N * b0 * b1, C, (H + pads) / b0, (W + pads) / b1), the block offset major in the new batch (TF's order)."""
    _tensor(input_x, "space_to_batch_nd", "input_x")
    pads = [tuple(int(v) for v in p) for p in paddings]
    m = len(pads)
    b = _blocks(block_size, m, "space_to_batch_nd")
    lead = input_x.ndim - m
    x = _ops().pad(input_x, tuple(v for p in reversed(pads) for v in p)) if any(any(p) for p in pads) else input_x
    sizes = x.shape[lead:]
    if any(s % bb for s, bb in zip(sizes, b)):
        raise ValueError(f"ops.space_to_batch_nd: padded sizes {tuple(sizes)} must be multiples of {b}")
    n = x.shape[0]
    # (N, rest..., s0/b0, b0, s1/b1, b1) -> (b0, b1, N, rest..., s0/b0, s1/b1)
    split = tuple(x.shape[:lead]) + tuple(v for s, bb in zip(sizes, b) for v in (s // bb, bb))
    y = bind(_R["reshape"], x, shape=split)
    block_axes = tuple(lead + 2 * i + 1 for i in builtins.range(m))
    grid_axes = tuple(lead + 2 * i for i in builtins.range(m))
    y = bind(_R["transpose"], y, perm=block_axes + tuple(builtins.range(lead)) + grid_axes)
    return bind(_R["reshape"], y, shape=(n * int(np.prod(b)),) + tuple(x.shape[1:lead]) +
                tuple(s // bb for s, bb in zip(sizes, b)))


def batch_to_space_nd(input_x, block_shape, crops):
    """``ops.batch_to_space_nd(input_x, block_shape, crops)``: the inverse of :func:`space_to_batch_nd`: the batch
    split into blocks put back into the last ``M`` axes, then ``crops`` removed."""
    _tensor(input_x, "batch_to_space_nd", "input_x")
    crop = [tuple(int(v) for v in c) for c in crops]
    m = len(crop)
    b = _blocks(block_shape, m, "batch_to_space_nd")
    lead = input_x.ndim - m
    nb = int(np.prod(b))
    if input_x.shape[0] % nb:
        raise ValueError(f"ops.batch_to_space_nd: the batch {input_x.shape[0]} is not a multiple of {nb}")
    n = input_x.shape[0] // nb
    grid = tuple(input_x.shape[lead:])
    y = bind(_R["reshape"], input_x, shape=b + (n,) + tuple(input_x.shape[1:]))
    # (b0, b1, N, rest..., g0, g1) -> (N, rest..., g0, b0, g1, b1)
    rest = tuple(builtins.range(m, m + lead))
    perm = rest + tuple(v for i in builtins.range(m) for v in (m + lead + i, i))
    y = bind(_R["transpose"], y, perm=perm)
    full = tuple(g * bb for g, bb in zip(grid, b))
    y = bind(_R["reshape"], y, shape=(n,) + tuple(input_x.shape[1:lead]) + full)
    begin = (0,) * lead + tuple(c[0] for c in crop)
    size = (-1,) * lead + tuple(f - c[0] - c[1] for f, c in zip(full, crop))
    return bind(_R["slice"], y, begin=begin, size=size)


def population_count(input_x):
    """``ops.population_count(input_x)``: the number of set bits of each element (int8/int16/uint8 ...), as
    uint8; negative values count their two's-complement bits."""
    _tensor(input_x, "population_count", "input_x")
    if input_x.dtype.is_float or input_x.dtype == as_dtype("bool"):
        raise TypeError(f"ops.population_count: input_x must be an integer Tensor, got {input_x.dtype}")
    bits = np.dtype(input_x.dtype.np).itemsize * 8
    total = None
    for i in builtins.range(bits):
        bit = bind(_R["bitwise_and"], bind(_R["right_shift"], input_x, Tensor(np.array(i, input_x.dtype.np))),
                   Tensor(np.array(1, input_x.dtype.np)))
        total = bit if total is None else bind(_R["add"], total, bit)
    return bind(_R["cast"], total, dtype=as_dtype("uint8"))


def tensor_slice(input_x, begin, size):
    """``ops.tensor_slice(input_x, begin, size)``: the 1.x name of ``ops.slice``."""
    return _ops().slice(input_x, begin, size)


def shape_(input_x):
    """``ops.shape_(input_x)``: the shape as a tuple (the functional module's spelling of ``ops.shape``)."""
    return _ops().shape(input_x)


def reshape_(input_x, input_shape):
    """``ops.reshape_(input_x, input_shape)``: the functional module's spelling of ``ops.reshape``."""
    return _ops().reshape(input_x, input_shape)


def fill_(type, shape, value):  # noqa: A002 - MindSpore's names
    """``ops.fill_(type, shape, value)``: the functional module's spelling of ``ops.fill``."""
    return _ops().fill(type, shape, value)


def inplace_index_add(var, indices, updates, axis):
    """``ops.inplace_index_add(var, indices, updates, axis)``: ``updates`` added into the Parameter ``var`` at
    ``indices`` along ``axis``, in place (as ``ops.index_add``); returns ``var``."""
    return index_add(var, indices, updates, axis)


class _DepthPrimitive:
    def __repr__(self):
        return f"Prim[{type(self).__name__}]"


def _space_to_depth(x, b, fn):
    """NCHW: out[n, (i*b + j)*C + c, h, w] = x[n, c, h*b + i, w*b + j] (TF's order)."""
    _tensor(x, fn, "x")
    if x.ndim != 4 or x.shape[2] % b or x.shape[3] % b:
        raise ValueError(f"ops.{fn}: x must be (N, C, H, W) with H and W multiples of {b}, got {tuple(x.shape)}")
    n, c, h, w = (int(s) for s in x.shape)
    y = bind(_R["reshape"], x, shape=(n, c, h // b, b, w // b, b))
    y = bind(_R["transpose"], y, perm=(0, 3, 5, 1, 2, 4))                           # (n, i, j, c, h', w')
    return bind(_R["reshape"], y, shape=(n, b * b * c, h // b, w // b))


def _depth_to_space(x, b, fn):
    _tensor(x, fn, "x")
    if x.ndim != 4 or x.shape[1] % (b * b):
        raise ValueError(f"ops.{fn}: x must be (N, C, H, W) with C a multiple of {b * b}, got {tuple(x.shape)}")
    n, cb, h, w = (int(s) for s in x.shape)
    c = cb // (b * b)
    y = bind(_R["reshape"], x, shape=(n, b, b, c, h, w))
    y = bind(_R["transpose"], y, perm=(0, 3, 4, 1, 5, 2))                           # (n, c, h, i, w, j)
    return bind(_R["reshape"], y, shape=(n, c, h * b, w * b))


class SpaceToDepth(_DepthPrimitive):
    """``ops.SpaceToDepth(block_size)(x)``: b x b spatial blocks of NCHW ``x`` moved into the channels."""

    def __init__(self, block_size):
        self.block_size = int(block_size)

    def __call__(self, x):
        return _space_to_depth(x, self.block_size, "SpaceToDepth")


class DepthToSpace(_DepthPrimitive):
    """``ops.DepthToSpace(block_size)(x)``: the inverse of :class:`SpaceToDepth`."""

    def __init__(self, block_size):
        self.block_size = int(block_size)

    def __call__(self, x):
        return _depth_to_space(x, self.block_size, "DepthToSpace")


class SpaceToBatchND(_DepthPrimitive):
    """``ops.SpaceToBatchND(block_shape, paddings)(input_x)``."""

    def __init__(self, block_shape, paddings):
        self.block_shape, self.paddings = block_shape, paddings

    def __call__(self, input_x):
        return space_to_batch_nd(input_x, self.block_shape, self.paddings)


class BatchToSpaceND(_DepthPrimitive):
    """``ops.BatchToSpaceND(block_shape, crops)(input_x)``."""

    def __init__(self, block_shape, crops):
        self.block_shape, self.crops = block_shape, crops

    def __call__(self, input_x):
        return batch_to_space_nd(input_x, self.block_shape, self.crops)


class PopulationCount(_DepthPrimitive):
    """``ops.PopulationCount()(input_x)``: set bits per element, as uint8."""

    def __call__(self, input_x):
        return population_count(input_x)


for _cls in (SpaceToDepth, DepthToSpace, SpaceToBatchND, BatchToSpaceND, PopulationCount):
    _cls.__module__ = "runtime.ops"
__all__ += ["space_to_batch_nd", "batch_to_space_nd", "population_count", "tensor_slice", "shape_", "reshape_",
            "fill_", "inplace_index_add", "SpaceToDepth", "DepthToSpace", "SpaceToBatchND", "BatchToSpaceND",
            "PopulationCount"]
