"""MindSpore 2.x math functions composed from registered ops: max/min (values and indices),
amax/amin, norm, clip, round, div with a rounding mode, mm, linspace, and the short comparison
names (gt, ge, lt, le, eq, ne).

Example:
    >>> from runtime import ops, Tensor
    >>> values, index = ops.max(Tensor([[1.0, 5.0], [7.0, 2.0]]), axis=1)
    >>> values.asnumpy().tolist(), index.asnumpy().tolist()
    ([5.0, 7.0], [1, 0])
    >>> ops.div(Tensor([-7.0, 7.0]), Tensor([2.0, 2.0]), rounding_mode="trunc").asnumpy().tolist()
    [-3.0, 3.0]
"""
from __future__ import annotations

import builtins

import numpy as np

from graph.dtypes import as_dtype, float32, int64
from graph.ops import REGISTRY, bind

from ..tensor import Tensor

_R = REGISTRY

__all__ = ["max", "min", "amax", "amin", "norm", "clip", "round", "div", "mm", "linspace", "gt", "ge", "lt",
           "le", "eq", "ne"]


def _init_and_select(fn, input, initial, where, compare):  # noqa: A002
    """``input`` with ``initial`` as the floor (max) / ceiling (min) of every element and the elements
    outside ``where`` replaced by ``initial``, as MindSpore 2.x's max/min/amax/amin document:
    ``initial`` "the minimum value of an output element" (``compare`` is ``maximum`` for max), and
    ``where`` "elements to compare", broadcast to the input; a mask needs ``initial``."""
    if initial is not None:
        if isinstance(initial, bool) or not isinstance(initial, (int, float, np.integer, np.floating)):
            raise TypeError(f"ops.{fn}: initial must be a number, got {type(initial).__name__}")
        initial = bind(_R["cast"], Tensor(initial), dtype=input.dtype)  # MindSpore fills input's dtype
        floored = bind(_R[compare], input, initial)
    else:
        floored = input
    if where is None:
        return floored
    if not isinstance(where, Tensor) and not hasattr(where, "dtype"):  # a traced tensor has a dtype
        where = Tensor(np.asarray(where, dtype=np.bool_))
    if initial is None:
        raise ValueError(f"ops.{fn}: initial value must be provided for where masks")
    where = bind(_R["broadcast_to"], where, shape=tuple(floored.shape))
    return bind(_R["where"], where, floored, initial)


def _extreme(reduce_name, arg_name, compare, input, axis, keepdims, initial, where):  # noqa: A002
    if axis is None:
        # MindSpore 2.x documents: "When axis is None, keepdims and the following arguments have no
        # effect, and the index is fixed to 0" -- the extreme of all elements, and an int64 zero.
        values = bind(_R[reduce_name], input)
        return values, bind(_R["cast"], bind(_R["zeros_like"], values), dtype=int64)
    selected = _init_and_select(reduce_name[7:], input, initial, where, compare)
    values = bind(_R[reduce_name], selected, axis=axis, keep_dims=keepdims)
    index = bind(_R[arg_name], selected, axis=axis, output_type=int64, keep_dims=keepdims)
    return values, index


def max(input, axis=None, keepdims=False, *, initial=None, where=None):  # noqa: A001,A002 - MindSpore's names
    """``ops.max``: ``(values, int64 indices)`` of the maxima along ``axis``; with ``axis=None`` the
    maximum of all elements and index 0 (``keepdims``, ``initial`` and ``where`` ignored), as
    MindSpore documents. ``initial`` is the least value an output takes; ``where`` masks the
    elements compared (the rest count as ``initial``)."""
    return _extreme("reduce_max", "argmax", "maximum", input, axis, keepdims, initial, where)


def min(input, axis=None, keepdims=False, *, initial=None, where=None):  # noqa: A001,A002
    """``ops.min``: ``(values, int64 indices)`` of the minima along ``axis`` (``axis=None``,
    ``initial`` and ``where``: as :func:`max`, ``initial`` being the greatest value an output takes)."""
    return _extreme("reduce_min", "argmin", "minimum", input, axis, keepdims, initial, where)


def amax(input, axis=None, keepdims=False, *, initial=None, where=None):  # noqa: A002
    """The maxima along ``axis`` (a tuple of axes allowed; all axes when None); ``initial`` and
    ``where`` as in :func:`max`, here also with ``axis=None``."""
    selected = _init_and_select("amax", input, initial, where, "maximum")
    return bind(_R["reduce_max"], selected, axis=axis, keep_dims=keepdims)


def amin(input, axis=None, keepdims=False, *, initial=None, where=None):  # noqa: A002
    """The minima along ``axis``; ``initial`` and ``where`` as in :func:`min`."""
    selected = _init_and_select("amin", input, initial, where, "minimum")
    return bind(_R["reduce_min"], selected, axis=axis, keep_dims=keepdims)


def _norm_axes(dim, ndim):
    axes = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
    if not axes or len(axes) > 2 or any(isinstance(a, bool) or not isinstance(a, (int, np.integer))
                                        or not -ndim <= a < ndim for a in axes):
        raise ValueError(f"ops.norm: dim must be an int or a pair of ints in [-{ndim}, {ndim}), got {dim!r}")
    axes = tuple(int(a) % ndim for a in axes)
    if len(axes) == 2 and axes[0] == axes[1]:
        raise ValueError(f"ops.norm: the two axes of dim {dim!r} are the same")
    return axes


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):  # noqa: A002 - MindSpore's names
    """``ops.norm(A, ord=None, dim=None, keepdim=False, *, dtype=None)``, MindSpore's table:

    * ``dim`` an int: vector norm; ``dim`` a pair: matrix norm; ``dim=None``: with ``ord=None`` the
      2-norm of the flattened tensor, otherwise ``A`` must be 1-D (vector norm) or 2-D (matrix norm).
    * vector: None/2 -> ``sqrt(sum(x**2))``, inf/-inf -> max/min ``|x|``, 0 -> count of non-zeros,
      other p -> ``sum(|x|**p) ** (1/p)``; 'fro'/'nuc' are refused.
    * matrix: None/'fro' -> Frobenius, 1/-1 -> max/min column sum of ``|x|``, inf/-inf -> max/min
      row sum. The singular-value norms (2, -2, 'nuc') raise ValueError here (no SVD op).
    """
    x = A if dtype is None else bind(_R["cast"], A, dtype=dtype)
    nd = x.ndim
    if dim is None:
        if ord is None:
            axes, matrix = tuple(range(nd)), False  # the 2-norm of all elements
        elif nd in (1, 2):
            axes, matrix = tuple(range(nd)), nd == 2
        else:
            raise ValueError(f"ops.norm: with dim=None and ord={ord!r}, A must be 1-D or 2-D, got shape "
                             f"{tuple(x.shape)}")
    else:
        axes = _norm_axes(dim, nd)
        matrix = len(axes) == 2
    a = bind(_R["abs"], x)

    def total(v, ax, keep=keepdim):
        return bind(_R["reduce_sum"], v, axis=ax, keep_dims=keep)

    if ord is None or (ord == "fro" and matrix) or (ord == 2 and not matrix):
        return bind(_R["sqrt"], total(bind(_R["square"], x), axes))
    if isinstance(ord, str):
        if ord in ("fro", "nuc") and not matrix:
            raise ValueError(f"ops.norm: ord={ord!r} is a matrix norm; give dim a pair of axes (or a 2-D A)")
        raise ValueError(f"ops.norm: ord={ord!r} is not supported here (valid: None, 'fro', numbers)")
    inf = float("inf")
    if matrix:
        row, col = axes  # the matrix is (row axis, column axis)
        if ord in (1, -1, inf, -inf):
            # 1: max over columns of the column sums (sum over the row axis); inf: rows likewise
            summed, other = (row, col) if ord in (1, -1) else (col, row)
            sums = total(a, summed, True)
            pick = "reduce_max" if ord > 0 else "reduce_min"
            out = bind(_R[pick], sums, axis=other, keep_dims=True)
            return out if keepdim else bind(_R["squeeze"], out, axis=tuple(sorted(axes)))
        raise ValueError(f"ops.norm: matrix norm ord={ord!r} is not supported here (only None, 'fro', 1, -1, "
                         f"inf, -inf; 2, -2 and 'nuc' need singular values)")
    if ord == inf:
        return bind(_R["reduce_max"], a, axis=axes, keep_dims=keepdim)
    if ord == -inf:
        return bind(_R["reduce_min"], a, axis=axes, keep_dims=keepdim)
    if ord == 0:
        return total(bind(_R["cast"], bind(_R["not_equal"], x, 0), dtype=x.dtype), axes)
    if ord == 1:
        return total(a, axes)
    p = float(ord)
    return bind(_R["pow"], total(bind(_R["pow"], a, p), axes), 1.0 / p)


def clip(input, min=None, max=None):  # noqa: A002
    """``ops.clip`` (alias of ``ops.clamp``): each element limited to [min, max]."""
    from .composite import clamp
    return clamp(input, min, max)


def _round_half_even(input):  # noqa: A002
    f = bind(_R["floor"], input)
    frac = bind(_R["sub"], input, f)
    up = bind(_R["add"], f, 1.0)
    half = bind(_R["add"], f, bind(_R["mod"], f, 2.0))  # .5 goes to the even neighbour
    return bind(_R["where"], bind(_R["greater"], frac, 0.5), up,
                bind(_R["where"], bind(_R["less"], frac, 0.5), f, half))


def round(input, *, decimals=0):  # noqa: A001,A002
    """Round half to even (as numpy and MindSpore's Round) to ``decimals`` decimal places (negative:
    places left of the point), scaling by ``10**decimals`` in the input's dtype as MindSpore does;
    an integer tensor comes back as a new tensor of the same values (MindSpore's Round accepts int
    tensors, with ``decimals`` 0)."""
    if isinstance(decimals, bool) or not isinstance(decimals, (int, np.integer)):
        raise TypeError(f"ops.round: decimals must be an int, got {type(decimals).__name__}")
    if not input.dtype.is_float:
        if decimals != 0:
            raise ValueError(f"ops.round: decimals must be 0 for an integer input, got {decimals}")
        return bind(_R["identity"], input)
    if decimals == 0:
        return _round_half_even(input)
    scale = 10.0 ** builtins.abs(int(decimals))
    if decimals > 0:
        return bind(_R["div"], _round_half_even(bind(_R["mul"], input, scale)), scale)
    return bind(_R["mul"], _round_half_even(bind(_R["div"], input, scale)), scale)


def div(input, other, rounding_mode=None):  # noqa: A002
    """``ops.div(input, other, rounding_mode=None)``: true division; ``'floor'`` rounds the quotient
    down, ``'trunc'`` toward zero."""
    if rounding_mode is None:
        return bind(_R["div"], input, other)
    if rounding_mode == "floor":
        return bind(_R["floor_div"], input, other)
    if rounding_mode == "trunc":
        q = bind(_R["div"], input, other)
        t = bind(_R["where"], bind(_R["less"], q, 0.0), bind(_R["ceil"], q), bind(_R["floor"], q))
        dt = _common_dtype(input, other)
        return t if dt is None or dt.is_float else bind(_R["cast"], t, dtype=dt)
    raise ValueError(f"ops.div: rounding_mode must be None, 'floor' or 'trunc', got {rounding_mode!r}")


def _common_dtype(a, b):
    for v in (a, b):
        if hasattr(v, "dtype") and not isinstance(v, np.ndarray):
            return v.dtype
    return None


def mm(input, mat2):  # noqa: A002
    """Matrix product of two 2-D tensors."""
    if input.ndim != 2 or mat2.ndim != 2:
        raise ValueError(f"ops.mm: expects 2-D tensors, got shapes {tuple(input.shape)} and {tuple(mat2.shape)}")
    return bind(_R["matmul"], input, mat2)


def linspace(start, end, steps, *, dtype=None):
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive (float32)."""
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, steps)]
    dt = float32 if dtype is None else as_dtype(dtype)
    return Tensor._placed(np.linspace(vals[0], vals[1], int(vals[2])).astype(dt.np))


def _comparison(name, op_name):
    def compare(input, other):  # noqa: A002 - MindSpore's names
        return bind(_R[op_name], input, other)
    compare.__name__ = compare.__qualname__ = name
    compare.__doc__ = f"``ops.{name}``: ``ops.{op_name}`` (elementwise, broadcasting)."
    return compare


gt, ge, lt = _comparison("gt", "greater"), _comparison("ge", "greater_equal"), _comparison("lt", "less")
le, eq, ne = _comparison("le", "less_equal"), _comparison("eq", "equal"), _comparison("ne", "not_equal")
