"""More Primitive-class spellings of MindSpore's ``ops`` reference over ops that exist here, with the
functional spellings MindSpore pairs with some of them (``ops.ger``, ``ops.cdist``,
``ops.bucketize``, ``ops.matrix_band_part``, ``ops.unsorted_segment_max`` ...).

Each class takes MindSpore's ``__init__`` attributes and its ``__call__`` inputs in the reference's
order; each is composed of registry ops (no new op semantics here), so it differentiates and
compiles where its parts do. Inputs MindSpore documents as Python constants (``TrilIndices``'s
sizes, ``InvertPermutation``'s tuple) are computed in Python; a Tensor read for a shape
(``Expand``'s ``shape``, ``UnravelIndex``'s ``dims``) needs its value, so under ``jit`` it is a graph
break, as it would be a compile-time constant in MindSpore.

Example:
    >>> import numpy as np
    >>> from runtime import ops, Tensor
    >>> ops.InTopK(3)(Tensor(np.array([[1, 8, 5, 2, 7], [4, 9, 1, 3, 5]], np.float32)),
    ...               Tensor(np.array([1, 3], np.int32)))
    Tensor(shape=[2], dtype=Bool, value=[ True, False])
"""
from __future__ import annotations

import numpy as np

from graph.dtypes import as_dtype, int32
from graph.ops import REGISTRY, bind
from graph.ops.core import is_tensorlike

from ..tensor import Tensor
from .loss_func import multi_margin_loss, triplet_margin_loss

_R = REGISTRY

__all__ = ["ger", "cdist", "bucketize", "matrix_band_part", "unsorted_segment_max", "unsorted_segment_min",
           "unsorted_segment_prod", "soft_margin_loss", "bitwise_left_shift", "bitwise_right_shift", "searchsorted",
           "cross", "renorm", "bincount"]


def _ops():
    from .. import ops
    return ops


def _ints(v, what):
    """A tuple of ints from a tuple/list/int or an integer Tensor (its values)."""
    if is_tensorlike(v):
        v = v.asnumpy().tolist()
    if isinstance(v, (int, np.integer)):
        return (int(v),)
    try:
        return tuple(int(x) for x in v)
    except TypeError:
        raise TypeError(f"{what}: expected ints or an integer Tensor, got {v!r}") from None


def _int(v, what):
    if is_tensorlike(v):
        if v.size != 1:
            raise ValueError(f"{what}: expected one integer, got a Tensor of shape {tuple(v.shape)}")
        v = v.asnumpy().reshape(-1)[0]
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{what}: expected an int, got {v!r}")
    return int(v)


# -- functions --------------------------------------------------------------------------------------
def ger(input, vec2):  # noqa: A002 - MindSpore's names
    """``ops.ger(input, vec2)``: the outer product of two 1-D tensors, ``input[i] * vec2[j]``."""
    if input.ndim != 1 or vec2.ndim != 1:
        raise ValueError(f"ops.ger: expects two 1-D tensors, got shapes {tuple(input.shape)} and {tuple(vec2.shape)}")
    return bind(_R["mul"], bind(_R["reshape"], input, shape=(input.shape[0], 1)), vec2)


def cdist(x1, x2, p=2.0):
    """``ops.cdist(x1, x2, p=2.0)``: p-norm distances between the rows of ``x1`` (..., P, M) and
    ``x2`` (..., R, M): shape (..., P, R). ``p`` may be ``float('inf')`` (the largest coordinate
    difference) or 0 (the count of differing coordinates)."""
    if x1.ndim < 2 or x2.ndim != x1.ndim or x1.shape[-1] != x2.shape[-1]:
        raise ValueError(f"ops.cdist: expects x1 (..., P, M) and x2 (..., R, M), got {tuple(x1.shape)} "
                         f"and {tuple(x2.shape)}")
    if p < 0:
        raise ValueError(f"ops.cdist: p must be >= 0, got {p}")
    a = bind(_R["expand_dims"], x1, axis=-2)  # (..., P, 1, M)
    b = bind(_R["expand_dims"], x2, axis=-3)  # (..., 1, R, M)
    diff = bind(_R["abs"], bind(_R["sub"], a, b))
    if p == float("inf"):
        return bind(_R["reduce_max"], diff, axis=-1)
    if p == 0:
        return bind(_R["reduce_sum"], bind(_R["cast"], bind(_R["not_equal"], diff, 0.0), dtype=x1.dtype), axis=-1)
    if p == 1:
        return bind(_R["reduce_sum"], diff, axis=-1)
    if p == 2:
        return bind(_R["sqrt"], bind(_R["reduce_sum"], bind(_R["square"], diff), axis=-1))
    return bind(_R["pow"], bind(_R["reduce_sum"], bind(_R["pow"], diff, float(p)), axis=-1), 1.0 / p)


def bucketize(input, boundaries, *, right=False):  # noqa: A002
    """``ops.bucketize(input, boundaries, *, right=False)``: int32 index of the bucket of each
    element among the sorted ``boundaries`` (a list of floats): the number of boundaries ``< x``
    (``right=False``: ``boundaries[i-1] < x <= boundaries[i]``) or ``<= x`` (``right=True``:
    ``boundaries[i-1] <= x < boundaries[i]``, the ``Bucketize`` Primitive's rule), as MindSpore documents."""
    bounds = [float(b) for b in boundaries]
    if any(b2 < b1 for b1, b2 in zip(bounds, bounds[1:])):
        raise ValueError(f"ops.bucketize: boundaries must be sorted, got {bounds}")
    if not bounds:
        return bind(_R["cast"], bind(_R["zeros_like"], input), dtype=int32)
    edges = Tensor(np.asarray(bounds, np.float64).astype(input.dtype.np if input.dtype.is_float else np.float32))
    x = bind(_R["expand_dims"], input if input.dtype.is_float else bind(_R["cast"], input, dtype=edges.dtype),
             axis=-1)
    below = bind(_R["less_equal"] if right else _R["less"], edges, x)
    return bind(_R["reduce_sum"], bind(_R["cast"], below, dtype=int32), axis=-1)


def matrix_band_part(x, lower, upper):
    """``ops.matrix_band_part(x, lower, upper)``: each innermost matrix with the elements outside the
    band zeroed: kept where ``(lower < 0 or i - j <= lower) and (upper < 0 or j - i <= upper)``."""
    lower, upper = _int(lower, "ops.matrix_band_part"), _int(upper, "ops.matrix_band_part")
    if x.ndim < 2:
        raise ValueError(f"ops.matrix_band_part: x must have rank >= 2, got shape {tuple(x.shape)}")
    m, n = x.shape[-2:]
    i, j = np.arange(m)[:, None], np.arange(n)[None, :]
    keep = ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))
    return bind(_R["where"], Tensor(keep), x, bind(_R["zeros_like"], x))


def _unsorted_segment(x, segment_ids, num_segments, mode, fill):
    num_segments = _int(num_segments, f"ops.unsorted_segment_{mode}")
    ids = segment_ids if is_tensorlike(segment_ids) else Tensor(np.asarray(segment_ids, np.int32))
    lead = ids.ndim
    if tuple(x.shape[:lead]) != tuple(ids.shape):
        raise ValueError(f"ops.unsorted_segment_{mode}: segment_ids shape {tuple(ids.shape)} must be a prefix of "
                         f"x's shape {tuple(x.shape)}")
    base = Tensor(np.full((num_segments,) + tuple(x.shape[lead:]), fill, x.dtype.np))
    return bind(_R["tensor_scatter_" + mode], base, bind(_R["expand_dims"], ids, axis=-1), x)


def unsorted_segment_max(x, segment_ids, num_segments):
    """``ops.unsorted_segment_max(x, segment_ids, num_segments)``: per segment the maximum of the
    slices ``x[i]`` with ``segment_ids[i] == s``; an empty segment holds the dtype's lowest value."""
    dt = x.dtype.np
    lowest = -np.inf if np.issubdtype(dt, np.floating) else np.iinfo(dt).min
    return _unsorted_segment(x, segment_ids, num_segments, "max", lowest)


def unsorted_segment_min(x, segment_ids, num_segments):
    """``ops.unsorted_segment_min``: per segment the minimum; an empty segment holds the dtype's
    highest value."""
    dt = x.dtype.np
    highest = np.inf if np.issubdtype(dt, np.floating) else np.iinfo(dt).max
    return _unsorted_segment(x, segment_ids, num_segments, "min", highest)


def unsorted_segment_prod(x, segment_ids, num_segments):
    """``ops.unsorted_segment_prod``: per segment the product; an empty segment holds 1."""
    return _unsorted_segment(x, segment_ids, num_segments, "mul", 1)


def soft_margin_loss(input, target, reduction="mean"):  # noqa: A002
    """``ops.soft_margin_loss(input, target, reduction='mean')``: ``log(1 + exp(-target * input))``,
    averaged ('mean'), summed ('sum') or per element ('none')."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"ops.soft_margin_loss: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    loss = bind(_R["softplus"], bind(_R["neg"], bind(_R["mul"], target, input)))
    if reduction == "none":
        return loss
    return bind(_R["reduce_mean" if reduction == "mean" else "reduce_sum"], loss, axis=None)


def bitwise_left_shift(input, other):  # noqa: A002
    """``ops.bitwise_left_shift(input, other)``: ``input << other`` (integers)."""
    return bind(_R["left_shift"], input, other)


def bitwise_right_shift(input, other):  # noqa: A002
    """``ops.bitwise_right_shift(input, other)``: ``input >> other`` (arithmetic for signed integers)."""
    return bind(_R["right_shift"], input, other)


def searchsorted(sorted_sequence, values, *, out_int32=False, right=False):
    """``ops.searchsorted(sorted_sequence, values, *, out_int32=False, right=False)``: for each
    value, the number of elements of its row of ``sorted_sequence`` (the last axis; one 1-D
    sequence for all values, or one per leading index) that are ``< value`` (``<=`` with
    ``right=True``): the insertion index keeping the row sorted. int64 (int32 with
    ``out_int32``)."""
    seq = sorted_sequence
    if seq.ndim > 1 and tuple(seq.shape[:-1]) != tuple(values.shape[:-1]):
        raise ValueError(f"ops.searchsorted: the leading axes of sorted_sequence {tuple(seq.shape)} and values "
                         f"{tuple(values.shape)} must agree")
    rows = bind(_R["expand_dims"], seq, axis=-2) if seq.ndim > 1 else seq  # (..., 1, M) or (M,)
    column = bind(_R["expand_dims"], values, axis=-1)  # (..., K, 1)
    before = bind(_R["less_equal" if right else "less"], rows, column)
    count = bind(_R["reduce_sum"], bind(_R["cast"], before, dtype=int32), axis=-1)
    return count if out_int32 else bind(_R["cast"], count, dtype=as_dtype("int64"))


def cross(input, other, dim=None):  # noqa: A002
    """``ops.cross(input, other, dim=None)``: the cross product of the 3-vectors along ``dim`` (the
    first axis of size 3 when None)."""
    if tuple(input.shape) != tuple(other.shape):
        raise ValueError(f"ops.cross: input and other must have one shape, got {tuple(input.shape)} and "
                         f"{tuple(other.shape)}")
    if dim is None or dim == -65530:  # (MindSpore's Cross default attribute)
        dims = [k for k, n in enumerate(input.shape) if n == 3]
        if not dims:
            raise ValueError(f"ops.cross: no axis of size 3 in shape {tuple(input.shape)}")
        dim = dims[0]
    dim %= input.ndim
    if input.shape[dim] != 3:
        raise ValueError(f"ops.cross: axis {dim} of shape {tuple(input.shape)} must have size 3")

    def part(t, k):
        return bind(_R["gather"], t, Tensor(np.array(k, np.int32)), axis=dim)
    a, b = [part(input, k) for k in range(3)], [part(other, k) for k in range(3)]

    def minus(i, j):
        return bind(_R["sub"], bind(_R["mul"], a[i], b[j]), bind(_R["mul"], a[j], b[i]))
    return bind(_R["stack"], minus(1, 2), minus(2, 0), minus(0, 1), axis=dim)


def renorm(input, p, axis, maxnorm):  # noqa: A002
    """``ops.renorm(input, p, axis, maxnorm)``: each slice along ``axis`` whose p-norm exceeds
    ``maxnorm`` scaled by ``maxnorm / (norm + 1e-7)``; the others unchanged."""
    if p <= 0:
        raise ValueError(f"ops.renorm: p must be > 0, got {p}")
    axis %= input.ndim
    others = tuple(k for k in range(input.ndim) if k != axis)
    powered = bind(_R["pow"], bind(_R["abs"], input), float(p))
    norm = bind(_R["pow"], bind(_R["reduce_sum"], powered, axis=others, keep_dims=True), 1.0 / p)
    scale = bind(_R["where"], bind(_R["greater"], norm, float(maxnorm)),
                 bind(_R["div"], float(maxnorm), bind(_R["add"], norm, 1e-7)), bind(_R["ones_like"], norm))
    return bind(_R["mul"], input, scale)


def bincount(input, weights=None, minlength=0):  # noqa: A002
    """``ops.bincount(input, weights=None, minlength=0)``: float32 counts of each value 0..n-1 of
    the 1-D non-negative integer ``input`` (the summed ``weights`` when given), n =
    ``max(max(input) + 1, minlength)`` -- read from the data (a graph break under jit)."""
    from ..numpy.histograms import _count_values
    return _count_values(input, weights, minlength, None, "ops.bincount", "float32")


# -- Primitive classes ------------------------------------------------------------------------------
class _Spelling:
    """Attributes at construction, inputs at call (MindSpore's Primitive calling convention)."""

    def __repr__(self):
        return f"Prim[{type(self).__name__}]"


def _spelling(name, doc, call, init=None):
    attrs = {"__doc__": f"``ops.{name}``: {doc}", "__module__": "runtime.ops", "__call__": call}
    if init is not None:
        attrs["__init__"] = init
    cls = type(name, (_Spelling,), attrs)
    globals()[name] = cls
    __all__.append(name)
    return cls


def _no_attrs(self):
    pass


def _shape_of(v, what):
    return _ints(v, what)


def _expand(self, x, shape):
    shape = _shape_of(shape, "ops.Expand")
    lead = len(shape) - x.ndim
    if lead < 0:
        raise ValueError(f"ops.Expand: shape {shape} has fewer axes than x {tuple(x.shape)}")
    full = tuple(x.shape[i - lead] if s == -1 and i >= lead else s for i, s in enumerate(shape))
    return bind(_R["broadcast_to"], x, shape=full)


def _identity_n(self, x):
    if not isinstance(x, (tuple, list)) or not all(is_tensorlike(t) for t in x):
        raise TypeError("ops.IdentityN: x must be a tuple or list of Tensors")
    return type(x)(x)


def _approximate_equal(self, x, y):
    return bind(_R["less"], bind(_R["abs"], bind(_R["sub"], x, y)), self.tolerance)


def _approximate_equal_init(self, tolerance=1e-5):
    self.tolerance = float(tolerance)


def _equal_count(self, x, y):
    same = bind(_R["reduce_sum"], bind(_R["cast"], bind(_R["equal"], x, y), dtype=x.dtype), axis=None)
    return bind(_R["reshape"], same, shape=(1,))


def _in_top_k_init(self, k):
    self.k = int(k)


def _in_top_k(self, x1, x2):
    """target in the top k: fewer than k values of its row are strictly larger (ties stay in)."""
    if x1.ndim != 2 or x2.ndim != 1 or x2.shape[0] != x1.shape[0]:
        raise ValueError(f"ops.InTopK: expects x1 (N, C) and x2 (N,), got {tuple(x1.shape)} and {tuple(x2.shape)}")
    target = bind(_R["gather_elements"], x1, bind(_R["expand_dims"], bind(_R["cast"], x2, dtype=int32), axis=1), dim=1)
    larger = bind(_R["reduce_sum"], bind(_R["cast"], bind(_R["greater"], x1, target), dtype=int32), axis=1)
    return bind(_R["less"], larger, self.k)


def _p_init(self, p=2.0):
    self.p = float(p)


def _indices_init(self, row, col, offset=0, dtype=int32):
    self.row, self.col, self.offset, self.dtype = int(row), int(col), int(offset), as_dtype(dtype)


def _tril_indices(self):
    return Tensor(np.stack(np.tril_indices(self.row, self.offset, self.col)).astype(self.dtype.np))


def _triu_indices(self):
    return Tensor(np.stack(np.triu_indices(self.row, self.offset, self.col)).astype(self.dtype.np))


def _invert_permutation(self, input_x):
    perm = _ints(input_x, "ops.InvertPermutation")
    if sorted(perm) != list(range(len(perm))):
        raise ValueError(f"ops.InvertPermutation: input_x must be a permutation of 0..{len(perm) - 1}, got {perm}")
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    return tuple(inverse)


def _split_v_init(self, size_splits, split_dim, num_split):
    self.size_splits, self.split_dim, self.num_split = tuple(int(s) for s in size_splits), int(split_dim), \
        int(num_split)


def _split_v(self, input_x):
    sizes = list(self.size_splits)
    if len(sizes) != self.num_split:
        raise ValueError(f"ops.SplitV: {self.num_split} parts need {self.num_split} sizes, got {sizes}")
    if sizes.count(-1) > 1:
        raise ValueError(f"ops.SplitV: at most one size may be -1, got {sizes}")
    total = input_x.shape[self.split_dim]
    if -1 in sizes:
        sizes[sizes.index(-1)] = total - (sum(sizes) + 1)
    return tuple(_ops().split(input_x, sizes, self.split_dim))


def _parallel_concat(self, values):
    return bind(_R["concat"], *values, axis=0)


def _accumulate_n(self, inputs):
    return _ops().addn(inputs)


def _bucketize_init(self, boundaries):
    self.boundaries = [float(b) for b in boundaries]


def _sparse_to_dense(self, indices, values, sparse_shape):
    shape = _ints(sparse_shape, "ops.SparseToDense")
    vals = values if is_tensorlike(values) else Tensor(np.asarray(values))
    return bind(_R["tensor_scatter_update"], bind(_R["zeros_like"], Tensor(np.zeros(shape, vals.dtype.np))),
                indices, vals)


def _sparse_dense_add(self, x1_indices, x1_values, x1_shape, x2):
    if _ints(x1_shape, "ops.SparseTensorDenseAdd") != tuple(x2.shape):
        raise ValueError(f"ops.SparseTensorDenseAdd: x1_shape {x1_shape} differs from x2's shape {tuple(x2.shape)}")
    return bind(_R["tensor_scatter_add"], x2, x1_indices, x1_values)


def _sparse_dense_matmul_init(self, adjoint_st=False, adjoint_dt=False):
    self.adjoint_st, self.adjoint_dt = bool(adjoint_st), bool(adjoint_dt)


def _sparse_dense_matmul(self, indices, values, sparse_shape, dense):
    a = _sparse_to_dense(self, indices, values, sparse_shape)
    return bind(_R["matmul"], a, dense, transpose_a=self.adjoint_st, transpose_b=self.adjoint_dt)


def _padding_init(self, pad_dim_size=8):
    self.pad_dim_size = int(pad_dim_size)


def _padding(self, x):
    if x.ndim < 1 or x.shape[-1] != 1:
        raise ValueError(f"ops.Padding: the last axis of x must have size 1, got shape {tuple(x.shape)}")
    zeros = Tensor(np.zeros(tuple(x.shape[:-1]) + (self.pad_dim_size - 1,), x.dtype.np))
    return bind(_R["concat"], x, zeros, axis=-1)


def _nth_element_init(self, reverse=False):
    self.reverse = bool(reverse)


def _nth_element(self, input, n):  # noqa: A002
    n = _int(n, "ops.NthElement")
    if not 0 <= n < input.shape[-1]:
        raise ValueError(f"ops.NthElement: n must be in [0, {input.shape[-1]}), got {n}")
    values, _ = bind(_R["sort"], input, axis=-1, descending=self.reverse)
    return bind(_R["gather"], values, Tensor(np.array(n, np.int32)), axis=-1)


def fill_diagonal_mask(shape, wrap):
    """Where numpy's ``fill_diagonal`` writes in an array of ``shape`` (a bool array, from the shape
    alone): every ``1 + sum(cumprod(shape[:-1]))``-th flat position; a tall 2-D matrix stops after its
    first ``shape[1]`` rows unless ``wrap``."""
    shape = tuple(int(s) for s in shape)
    if len(shape) < 2:
        raise ValueError(f"ops.FillDiagonal: the input must have at least 2 dimensions, got shape {shape}")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise ValueError(f"ops.FillDiagonal: all dimensions must be equal beyond 2-D, got shape {shape}")
    mask = np.zeros(shape, np.bool_)
    np.fill_diagonal(mask, True, wrap=wrap)
    return mask


def _fill_diagonal_init(self, fill_value, wrap=False):
    if isinstance(fill_value, bool) or not isinstance(fill_value, (int, float)):
        raise TypeError(f"ops.FillDiagonal: fill_value must be a float, got {fill_value!r}")
    if not isinstance(wrap, bool):
        raise TypeError(f"ops.FillDiagonal: wrap must be a bool, got {wrap!r}")
    self.fill_value, self.wrap = float(fill_value), wrap


def fill_diagonal(x, fill_value, wrap=False):
    """``x`` with its main diagonal set to ``fill_value`` (``ops.FillDiagonal``, ``Tensor.fill_diagonal``)."""
    mask = Tensor(fill_diagonal_mask(x.shape, wrap))
    value = bind(_R["fill"], shape=(), value=fill_value, dtype=x.dtype)
    return bind(_R["where"], mask, value, x)


def _unravel_index(self, indices, dims):
    dims = _ints(dims, "ops.UnravelIndex")
    coords, rest = [], indices
    for d in reversed(dims):
        coords.append(bind(_R["mod"], rest, d))
        rest = bind(_R["floor_div"], rest, d)
    return bind(_R["stack"], *reversed(coords), axis=-1)


def _diag_part(self, x):
    k = x.ndim // 2
    if x.ndim % 2 or tuple(x.shape[:k]) != tuple(x.shape[k:]):
        raise ValueError(f"ops.DiagPart: x must have shape (D1, ..., Dk, D1, ..., Dk), got {tuple(x.shape)}")
    n = int(np.prod(x.shape[:k], dtype=np.int64))
    flat = bind(_R["reshape"], x, shape=(n * n,))
    picked = bind(_R["gather"], flat, Tensor(np.arange(n, dtype=np.int32) * (n + 1)), axis=0)
    return bind(_R["reshape"], picked, shape=tuple(x.shape[:k]))


def _fill_v2(self, shape, value):
    shape = _ints(shape, "ops.FillV2")
    if is_tensorlike(value):
        return bind(_R["broadcast_to"], bind(_R["reshape"], value, shape=()), shape=shape)
    return _ops().full(shape, value)


def _reduction_init(self, reduction="mean"):
    self.reduction = reduction


def _nll_init(self, reduction="mean", ignore_index=-100):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"ops.NLLLoss: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    self.reduction, self.ignore_index = reduction, int(ignore_index)


def _nll(self, logits, labels, weight):
    """(loss, total_weight): ``-weight[y] * logits[n, y]`` per row (0 for ignore_index), summed,
    averaged over the summed weights, or per row; total_weight is that weight sum."""
    if logits.ndim != 2 or labels.ndim != 1:
        raise ValueError(f"ops.NLLLoss: expects logits (N, C) and labels (N,), got {tuple(logits.shape)} and "
                         f"{tuple(labels.shape)}")
    labels = bind(_R["cast"], labels, dtype=int32)
    kept = bind(_R["not_equal"], labels, self.ignore_index)
    safe = bind(_R["where"], kept, labels, bind(_R["zeros_like"], labels))
    w = bind(_R["where"], kept, bind(_R["gather"], weight, safe, axis=0),
             Tensor(np.zeros((), weight.dtype.np)))
    picked = bind(_R["reshape"], bind(_R["gather_elements"], logits, bind(_R["expand_dims"], safe, axis=1), dim=1),
                  shape=(logits.shape[0],))
    loss = bind(_R["neg"], bind(_R["mul"], w, picked))
    total = bind(_R["reduce_sum"], w, axis=None)
    if self.reduction == "none":
        return loss, total
    summed = bind(_R["reduce_sum"], loss, axis=None)
    return (bind(_R["div"], summed, total) if self.reduction == "mean" else summed), total


def _compare_and_bitpack_init(self, threshold=0.0):
    self.threshold = threshold


def _compare_and_bitpack(self, x):
    if x.ndim < 1 or x.shape[-1] % 8:
        raise ValueError(f"ops.CompareAndBitpack: the last axis of x must be a multiple of 8, got {tuple(x.shape)}")
    bits = bind(_R["cast"], bind(_R["greater"], x, self.threshold), dtype=as_dtype("uint8"))
    bits = bind(_R["reshape"], bits, shape=tuple(x.shape[:-1]) + (x.shape[-1] // 8, 8))
    weights = Tensor(np.array([128, 64, 32, 16, 8, 4, 2, 1], np.uint8))
    return bind(_R["reduce_sum"], bind(_R["mul"], bits, weights), axis=-1)


def _conjugate_transpose(self, x, perm):
    return bind(_R["transpose"], x, perm=_ints(perm, "ops.ConjugateTranspose"))  # real dtypes only here


def _matrix_band_part(self, x, lower, upper):
    return matrix_band_part(x, lower, upper)


def _unsorted(fn):
    return lambda self, x, segment_ids, num_segments: fn(x, segment_ids, num_segments)


_spelling("Expand", "broadcast x to shape (-1 keeps an axis); inputs (x, shape)", _expand, _no_attrs)
_spelling("IdentityN", "the tuple/list of Tensors itself", _identity_n, _no_attrs)
_spelling("ApproximateEqual", "|x - y| < tolerance (attribute tolerance=1e-5)", _approximate_equal,
          _approximate_equal_init)
_spelling("EqualCount", "the number of equal elements, as a (1,) Tensor of x's dtype", _equal_count, _no_attrs)
_spelling("InTopK", "whether each target x2[i] is among the k largest of x1[i] (ties count as in)", _in_top_k,
          _in_top_k_init)
_spelling("Ger", "the outer product of two 1-D tensors", lambda self, x1, x2: ger(x1, x2), _no_attrs)
_spelling("Cdist", "p-norm distances between row sets (attribute p=2.0)", lambda self, x1, x2: cdist(x1, x2, self.p),
          _p_init)
_spelling("TrilIndices", "the (2, N) coordinates of the lower triangle of a row x col matrix", _tril_indices,
          _indices_init)
_spelling("TriuIndices", "the (2, N) coordinates of the upper triangle of a row x col matrix", _triu_indices,
          _indices_init)
_spelling("InvertPermutation", "the inverse of a permutation given as a tuple of ints", _invert_permutation,
          _no_attrs)
_spelling("SplitV", "split along split_dim into parts of size_splits (one may be -1)", _split_v, _split_v_init)
_spelling("ParallelConcat", "concatenation along the first axis", _parallel_concat, _no_attrs)
_spelling("AccumulateNV2", "the sum of a list of Tensors (as AddN)", _accumulate_n, _no_attrs)
_spelling("Bucketize", "the bucket index of each element among sorted boundaries",
          lambda self, input: bucketize(input, self.boundaries, right=True), _bucketize_init)
_spelling("SparseToDense", "a dense Tensor of sparse_shape with values at indices",
          _sparse_to_dense, _no_attrs)
_spelling("SparseTensorDenseAdd", "x2 plus the sparse tensor (x1_indices, x1_values, x1_shape)",
          _sparse_dense_add, _no_attrs)
_spelling("SparseTensorDenseMatmul", "the sparse tensor (indices, values, sparse_shape) times dense",
          _sparse_dense_matmul, _sparse_dense_matmul_init)
_spelling("Padding", "x (..., 1) zero-padded to (..., pad_dim_size)", _padding, _padding_init)
_spelling("NthElement", "the n-th smallest (reverse: largest) value along the last axis", _nth_element,
          _nth_element_init)
_spelling("UnravelIndex", "the coordinates of flat indices in an array of shape dims", _unravel_index, _no_attrs)
_spelling("FillDiagonal", "the input with its main diagonal set to fill_value (numpy's fill_diagonal, wrap for "
          "tall matrices)", lambda self, input_x: fill_diagonal(input_x, self.fill_value, self.wrap),
          _fill_diagonal_init)
_spelling("DiagPart", "the diagonal of a (D..., D...) tensor", _diag_part, _no_attrs)
_spelling("FillV2", "a Tensor of shape filled with value", _fill_v2, _no_attrs)
_spelling("ConjugateTranspose", "transpose by perm (real dtypes: no conjugation to do)", _conjugate_transpose,
          _no_attrs)
_spelling("MatrixBandPart", "the band of each innermost matrix; inputs (x, lower, upper)", _matrix_band_part,
          _no_attrs)
_spelling("UnsortedSegmentMax", "per-segment maximum; inputs (x, segment_ids, num_segments)",
          _unsorted(unsorted_segment_max), _no_attrs)
_spelling("UnsortedSegmentMin", "per-segment minimum; inputs (x, segment_ids, num_segments)",
          _unsorted(unsorted_segment_min), _no_attrs)
_spelling("UnsortedSegmentProd", "per-segment product; inputs (x, segment_ids, num_segments)",
          _unsorted(unsorted_segment_prod), _no_attrs)
_spelling("SoftMarginLoss", "log(1 + exp(-y x)), reduced (attribute reduction='mean')",
          lambda self, logits, labels: soft_margin_loss(logits, labels, self.reduction), _reduction_init)
_spelling("NLLLoss", "(loss, total_weight) of log-probabilities; inputs (logits, labels, weight)", _nll, _nll_init)
_spelling("CompareAndBitpack", "x > threshold packed 8 to a uint8 along the last axis (first bit highest)",
          _compare_and_bitpack, _compare_and_bitpack_init)
_spelling("ScatterNonAliasingAdd", "ScatterNdAdd on a Parameter; inputs (input_x, indices, updates)",
          lambda self, input_x, indices, updates: _ops().scatter_nd_add(input_x, indices, updates), _no_attrs)


# -- searching, vectors, sequences, histograms ------------------------------------------------------
def _bound_init(self, out_type=int32):
    self.out_type = as_dtype(out_type)


def _bound(right):
    def call(self, sorted_x, values):
        if sorted_x.ndim != 2 or values.ndim != 2 or sorted_x.shape[0] != values.shape[0]:
            raise ValueError(f"ops.{'UpperBound' if right else 'LowerBound'}: expects sorted_x (N, M) and values "
                             f"(N, K), got {tuple(sorted_x.shape)} and {tuple(values.shape)}")
        return bind(_R["cast"], searchsorted(sorted_x, values, out_int32=True, right=right), dtype=self.out_type)
    return call


def _search_sorted_init(self, dtype=None, right=False):
    self.dtype, self.right = as_dtype(dtype or "int64"), bool(right)


def _search_sorted(self, sorted_sequence, values):
    return bind(_R["cast"], searchsorted(sorted_sequence, values, out_int32=True, right=self.right), dtype=self.dtype)


def _cross_init(self, dim=-65530):
    self.dim = int(dim)


def _renorm_init(self, p, dim, maxnorm):
    self.p, self.dim, self.maxnorm = float(p), int(dim), float(maxnorm)


def _reverse_sequence_init(self, seq_dim, batch_dim=0):
    self.seq_dim, self.batch_dim = int(seq_dim), int(batch_dim)


def _reverse_sequence(self, x, seq_lengths):
    """Each batch entry b reversed in its first seq_lengths[b] positions along seq_dim."""
    sd, bd = self.seq_dim % x.ndim, self.batch_dim % x.ndim
    n = x.shape[sd]
    shape = [1] * x.ndim
    shape[sd] = n
    t = Tensor(np.arange(n, dtype=np.int64).reshape(shape))
    lshape = [1] * x.ndim
    lshape[bd] = x.shape[bd]
    lengths = bind(_R["reshape"], bind(_R["cast"], seq_lengths, dtype=as_dtype("int64")), shape=tuple(lshape))
    source = bind(_R["where"], bind(_R["less"], t, lengths), bind(_R["sub"], bind(_R["sub"], lengths, 1), t), t)
    index = bind(_R["broadcast_to"], source, shape=tuple(x.shape))
    return bind(_R["gather_elements"], x, bind(_R["cast"], index, dtype=int32), dim=sd)


def _log_space_init(self, steps=10, base=10, dtype=None):
    self.steps, self.base, self.dtype = int(steps), base, as_dtype(dtype or "float32")


def _log_space(self, start, end):
    """base ** (start + (end - start) * k / (steps - 1)) for k in 0..steps-1 (start, end: 0-d)."""
    fraction = Tensor(np.linspace(0.0, 1.0, self.steps).astype(np.float64) if self.steps > 1
                      else np.zeros(self.steps))
    lo = bind(_R["cast"], start, dtype=as_dtype("float64"))
    hi = bind(_R["cast"], end, dtype=as_dtype("float64"))
    exponent = bind(_R["add"], lo, bind(_R["mul"], bind(_R["sub"], hi, lo), fraction))
    return bind(_R["cast"], bind(_R["pow"], float(self.base), exponent), dtype=self.dtype)


def _fixed_width_init(self, nbins, dtype="int32"):
    if int(nbins) < 1:
        raise ValueError(f"ops.HistogramFixedWidth: nbins must be >= 1, got {nbins}")
    self.nbins, self.dtype = int(nbins), as_dtype(dtype if not isinstance(dtype, int) else "int32")


def _count_bins(idx, n_bins, weights_mask=None):
    flat = bind(_R["reshape"], idx, shape=(idx.size, 1))
    ones = bind(_R["cast"], weights_mask, dtype=int32) if weights_mask is not None else \
        Tensor(np.ones(idx.size, np.int32))
    ones = bind(_R["reshape"], ones, shape=(idx.size,))
    return bind(_R["tensor_scatter_add"], Tensor(np.zeros(n_bins, np.int32)), flat, ones)


def _fixed_width(self, x, range):  # noqa: A002 - MindSpore's name
    """TF's histogram_fixed_width: nbins equal bins over [range[0], range[1]); values below go to
    the first bin, values at or above the top to the last."""
    r = bind(_R["cast"], range, dtype=as_dtype("float64")) if is_tensorlike(range) else \
        Tensor(np.asarray(range, np.float64))
    lo = bind(_R["gather"], r, Tensor(np.array(0, np.int32)), axis=0)
    hi = bind(_R["gather"], r, Tensor(np.array(1, np.int32)), axis=0)
    scaled = bind(_R["div"], bind(_R["sub"], bind(_R["cast"], x, dtype=as_dtype("float64")), lo), bind(_R["sub"], hi, lo))
    idx = bind(_R["floor"], bind(_R["mul"], scaled, float(self.nbins)))
    idx = bind(_R["cast"], bind(_R["minimum"], bind(_R["maximum"], idx, 0.0), float(self.nbins - 1)), dtype=int32)
    return bind(_R["cast"], _count_bins(idx, self.nbins), dtype=self.dtype)


def _histogram_init(self, bins=100, min=0.0, max=0.0):  # noqa: A002 - MindSpore's names
    if int(bins) < 1:
        raise ValueError(f"ops.Histogram: bins must be >= 1, got {bins}")
    if min > max:
        raise ValueError(f"ops.Histogram: min {min} must not exceed max {max}")
    self.bins, self.min, self.max = int(bins), float(min), float(max)


def _histogram(self, x):
    """int32 counts of bins equal bins over [min, max] (the data's range when both are 0; a zero
    width is widened by 1 on each side); the top edge belongs to the last bin, values outside
    are not counted."""
    v = bind(_R["reshape"], bind(_R["cast"], x, dtype=as_dtype("float64")), shape=(x.size,))
    if self.min == 0.0 and self.max == 0.0:
        lo, hi = bind(_R["reduce_min"], v, axis=None), bind(_R["reduce_max"], v, axis=None)
    else:
        lo, hi = Tensor(np.float64(self.min)), Tensor(np.float64(self.max))
    same = bind(_R["equal"], lo, hi)
    lo = bind(_R["where"], same, bind(_R["sub"], lo, 1.0), lo)
    hi = bind(_R["where"], same, bind(_R["add"], hi, 1.0), hi)
    inside = bind(_R["logical_and"], bind(_R["greater_equal"], v, lo), bind(_R["less_equal"], v, hi))
    idx = bind(_R["floor"], bind(_R["mul"], bind(_R["div"], bind(_R["sub"], v, lo), bind(_R["sub"], hi, lo)),
                                 float(self.bins)))
    idx = bind(_R["cast"], bind(_R["minimum"], bind(_R["maximum"], idx, 0.0), float(self.bins - 1)), dtype=int32)
    return _count_bins(idx, self.bins, inside)


def _embedding_lookup(self, input_params, input_indices, offset):
    """input_params[input_indices - offset] along axis 0; an index outside [0, rows) gives zeros."""
    rows = input_params.shape[0]
    shifted = bind(_R["sub"], bind(_R["cast"], input_indices, dtype=int32), int(_int(offset, "ops.EmbeddingLookup")))
    valid = bind(_R["logical_and"], bind(_R["greater_equal"], shifted, 0), bind(_R["less"], shifted, rows))
    safe = bind(_R["where"], valid, shifted, bind(_R["zeros_like"], shifted))
    picked = bind(_R["gather"], input_params, safe, axis=0)
    mask = bind(_R["reshape"], valid, shape=tuple(valid.shape) + (1,) * (input_params.ndim - 1))
    return bind(_R["where"], mask, picked, bind(_R["zeros_like"], picked))


def _index_add_init(self, axis, use_lock=True, check_index_bound=True):
    self.axis, self.use_lock, self.check_index_bound = int(axis), use_lock, check_index_bound


def _index_add(self, input_x, indices, input_y):
    """input_x[..., indices[i], ...] += input_y[..., i, ...] along axis, in place (a Parameter)."""
    ax = self.axis % input_x.ndim
    perm = (ax,) + tuple(k for k in range(input_x.ndim) if k != ax)
    back = tuple(int(i) for i in np.argsort(perm))
    moved_x = bind(_R["transpose"], input_x, perm=perm)
    moved_y = bind(_R["transpose"], input_y, perm=perm)
    idx = bind(_R["expand_dims"], bind(_R["cast"], indices, dtype=int32), axis=-1)
    added = bind(_R["transpose"], bind(_R["tensor_scatter_add"], moved_x, idx, moved_y), perm=back)
    return bind(_R["assign"], input_x, added)


_spelling("LowerBound", "per row, the first index with sorted_x >= value; inputs (sorted_x, values)", _bound(False),
          _bound_init)
_spelling("UpperBound", "per row, the first index with sorted_x > value; inputs (sorted_x, values)", _bound(True),
          _bound_init)
_spelling("SearchSorted", "insertion indices keeping each row sorted; inputs (sorted_sequence, values)",
          _search_sorted, _search_sorted_init)
_spelling("Cross", "the cross product of 3-vectors along dim", lambda self, x1, x2: cross(x1, x2, self.dim),
          _cross_init)
_spelling("Renorm", "slices along dim with p-norm above maxnorm scaled down to it",
          lambda self, x: renorm(x, self.p, self.dim, self.maxnorm), _renorm_init)
_spelling("ReverseSequence", "each batch entry reversed in its first seq_lengths[b] positions along seq_dim",
          _reverse_sequence, _reverse_sequence_init)
_spelling("LogSpace", "steps values base ** linspace(start, end); inputs (start, end)", _log_space, _log_space_init)
_spelling("HistogramFixedWidth", "counts of nbins equal bins over range (outside values clamped to the end bins)",
          _fixed_width, _fixed_width_init)
_spelling("Histogram", "int32 counts of equal bins over [min, max] (the data's range when both are 0)",
          _histogram, _histogram_init)
_spelling("EmbeddingLookup", "rows input_indices - offset of input_params (zeros outside)", _embedding_lookup,
          _no_attrs)
_spelling("IndexAdd", "input_y added into the Parameter input_x at indices along axis (in place)", _index_add,
          _index_add_init)


# -- channel dropout and margin losses --------------------------------------------------------------
def _channel_dropout_init(self, keep_prob=0.5):
    if not 0.0 < float(keep_prob) <= 1.0:
        raise ValueError(f"ops.{type(self).__name__}: keep_prob must be in (0, 1], got {keep_prob}")
    self.keep_prob = float(keep_prob)


def _channel_dropout(rank):
    def call(self, x):
        """(output, mask): whole channels (N, C) zeroed with probability 1 - keep_prob, the others
        scaled by 1 / keep_prob; mask is bool of x's shape. Drawn by the registry's dropout."""
        name = type(self).__name__
        if x.ndim != rank:
            raise ValueError(f"ops.{name}: x must be {rank}-D (N, C, ...), got shape {tuple(x.shape)}")
        ones = Tensor(np.ones(tuple(x.shape[:2]) + (1,) * (rank - 2), x.dtype.np))
        scaled, keep = bind(_R["dropout"], ones, keep_prob=self.keep_prob)
        mask = bind(_R["broadcast_to"], bind(_R["cast"], keep, dtype=as_dtype("bool")), shape=tuple(x.shape))
        return bind(_R["mul"], x, scaled), mask
    return call


def _triplet_init(self, p=2, swap=False, eps=1e-6, reduction="mean"):
    self.p, self.swap, self.eps, self.reduction = p, bool(swap), float(eps), reduction


def _triplet(self, x, positive, negative, margin):
    """``ops.triplet_margin_loss`` with the Primitive's attributes (margin is an input here)."""
    return triplet_margin_loss(x, positive, negative, margin, self.p, self.eps, self.swap, self.reduction)


def _multi_margin_init(self, p=1, margin=1.0, reduction="mean"):
    if p not in (1, 2):
        raise ValueError(f"ops.MultiMarginLoss: p must be 1 or 2, got {p}")
    self.p, self.margin, self.reduction = int(p), float(margin), reduction


def _multi_margin(self, inputs, target, weight=None):
    """``ops.multi_margin_loss`` with the Primitive's attributes."""
    return multi_margin_loss(inputs, target, self.p, self.margin, weight, self.reduction)


_spelling("Dropout2D", "(output, mask): whole channels of (N, C, H, W) dropped", _channel_dropout(4),
          _channel_dropout_init)
_spelling("Dropout3D", "(output, mask): whole channels of (N, C, D, H, W) dropped", _channel_dropout(5),
          _channel_dropout_init)
_spelling("TripletMarginLoss", "max(d(x, positive) - d(x, negative) + margin, 0); inputs (x, positive, negative, "
          "margin)", _triplet, _triplet_init)
_spelling("MultiMarginLoss", "multi-class hinge loss; inputs (inputs, target, weight=None)", _multi_margin,
          _multi_margin_init)


# -- cumulative log-sum-exp -------------------------------------------------------------------------
def _log_add_exp(a, b):
    """log(exp(a) + exp(b)) = m + softplus(other - m), m the larger and other = a + b - m the
    other one: stable for any magnitudes, and its gradient is softmax's (1/2 each at a tie)."""
    m = bind(_R["maximum"], a, b)
    other = bind(_R["sub"], bind(_R["add"], a, b), m)
    combined = bind(_R["add"], m, bind(_R["softplus"], bind(_R["sub"], other, m)))
    minus_inf = bind(_R["equal"], m, float("-inf"))  # both -inf: -inf, not -inf + inf
    return bind(_R["where"], minus_inf, m, combined)


def _shifted(y, k, axis, fill):
    """y moved k places forward along axis, the first k places filled with ``fill``."""
    n = y.shape[axis]
    pad_shape = tuple(k if d == axis else s for d, s in enumerate(y.shape))
    pad = Tensor(np.full(pad_shape, fill, y.dtype.np))
    head = bind(_R["gather"], y, Tensor(np.arange(n - k, dtype=np.int32)), axis=axis)
    return bind(_R["concat"], pad, head, axis=axis)


def _cumulative_logsumexp_init(self, exclusive=False, reverse=False):
    self.exclusive, self.reverse = bool(exclusive), bool(reverse)


def _cumulative_logsumexp(self, x, axis):
    """log(cumsum(exp(x))) along axis without overflow or underflow: a log-step scan (Hillis and
    Steele) of pairwise log-add-exp; exclusive: shifted by one (the first is -inf); reverse: from
    the end."""
    if not x.dtype.is_float:
        raise TypeError(f"ops.CumulativeLogsumexp: x must be a float tensor, got {x.dtype}")
    axis = _int(axis, "ops.CumulativeLogsumexp") % max(x.ndim, 1)
    y = _ops().flip(x, (axis,)) if self.reverse else x
    n, k = x.shape[axis], 1
    while k < n:
        y = _log_add_exp(y, _shifted(y, k, axis, -np.inf))
        k *= 2
    if self.exclusive and n:
        y = _shifted(y, 1, axis, -np.inf)
    return _ops().flip(y, (axis,)) if self.reverse else y


_spelling("CumulativeLogsumexp", "log(cumsum(exp(x))) along axis, stable; inputs (x, axis)", _cumulative_logsumexp,
          _cumulative_logsumexp_init)
