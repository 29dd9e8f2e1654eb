"""mindspore.numpy's histograms: ``histogram_bin_edges``, ``histogram``, ``histogram2d``,
``histogramdd`` and ``bincount``, composed of registry ops (``bincount`` without ``length`` reads its
output length from the data).

Their output *shapes* are fixed by ``bins`` (a count, or the edges themselves), only the edge
*values* depend on the data (its minimum and maximum when ``range`` is None), so they compile
like any other code. Edges follow numpy: ``linspace(min, max, bins + 1)`` computed in float64 (a
range of zero width is widened by 0.5 on each side), a value falls in ``[edge_i, edge_i+1)``
and the last bin is closed; values outside the range (and NaN) are not counted. Counts are float32
(the weights' float dtype when weights are given), as MindSpore's documented examples show;
computed edges have the input's float dtype (float32 for integer input; numpy: float64), edges
given as ``bins`` are returned as given.

Example:
    >>> import runtime.numpy as mnp
    >>> hist, edges = mnp.histogram(mnp.array([1, 2, 1]), bins=[0, 1, 2, 3])
    >>> hist
    Tensor(shape=[3], dtype=Float32, value=[0., 2., 1.])
"""
from __future__ import annotations

import builtins
import numbers

import numpy as onp

from graph.ops import bind

from ..tensor import Tensor
from ._convert import R, cast, tensor

__all__ = ["histogram_bin_edges", "histogram", "histogram2d", "histogramdd", "bincount"]


def _float_dtype(a):
    return a.dtype if a.dtype.is_float else "float32"


def _compute_dtype(values):
    """numpy's: the data's float dtype (an edge from a float32 minimum is a float32), float64 for
    integer data."""
    return values.dtype if values.dtype.is_float else "float64"


def _uniform_edges(values, bins, value_range, what):
    """Edges of ``bins`` equal bins over ``value_range`` or the values' min..max, computed as
    numpy's ``linspace`` computes them: in the data's float dtype from its min and max, in
    float64 from a given range (Python floats)."""
    if isinstance(bins, bool) or bins < 1:
        raise ValueError(f"{what}: bins must be a positive int, got {bins!r}")
    dtype = _compute_dtype(values)
    if value_range is None:
        flat = bind(R["reshape"], cast(values, dtype), shape=(values.size,))
        if values.size == 0:
            lo, hi = cast(Tensor(onp.float64(0.0)), dtype), cast(Tensor(onp.float64(1.0)), dtype)
        else:
            lo, hi = bind(R["reduce_min"], flat, axis=None), bind(R["reduce_max"], flat, axis=None)
        same = bind(R["equal"], lo, hi)
        lo = bind(R["where"], same, bind(R["sub"], lo, 0.5), lo)
        hi = bind(R["where"], same, bind(R["add"], hi, 0.5), hi)
    else:
        lo, hi = (float(v) for v in value_range)
        if not (onp.isfinite(lo) and onp.isfinite(hi)):
            raise ValueError(f"{what}: range [{lo}, {hi}] is not finite")
        if lo > hi:
            raise ValueError(f"{what}: max must be larger than min in range parameter, got {value_range}")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        lo, hi = Tensor(onp.float64(lo)), Tensor(onp.float64(hi))
    # numpy's linspace: arange(n) * step + start, the last edge exactly ``stop``
    step = bind(R["div"], bind(R["sub"], hi, lo), float(bins))
    body = bind(R["add"], bind(R["mul"], cast(Tensor(onp.arange(bins, dtype=onp.float64)), lo.dtype), step), lo)
    return cast(bind(R["concat"], body, bind(R["reshape"], hi, shape=(1,)), axis=0), dtype)


def _given_edges(bins, what):
    edges = tensor(bins)
    if edges.ndim != 1 or edges.shape[0] < 2:
        raise ValueError(f"{what}: bins given as edges must be 1-D with at least 2 of them, got shape "
                         f"{tuple(edges.shape)}")
    if isinstance(edges, Tensor) and (onp.diff(edges.asnumpy()) < 0).any():
        raise ValueError(f"{what}: bins must increase monotonically")
    return edges


def _binning(values, bins, value_range, what):
    """``(values, edges)`` to compare, in one dtype, and the edges to return. A count: edges as
    numpy computes them (see :func:`_uniform_edges`), returned in the values' float dtype (float32
    for integers); given edges: compared in float64 (exact for every int32/float32), returned as
    given (MindSpore's documented examples keep their dtype)."""
    if isinstance(bins, str):
        raise ValueError(f"{what}: bins given as a string ({bins!r}, numpy's estimators) give data-dependent "
                         "shapes; give a count or the edges")
    if isinstance(bins, numbers.Integral):
        edges = _uniform_edges(values, int(bins), value_range, what)
        return cast(values, edges.dtype), edges, cast(edges, _float_dtype(values))
    given = _given_edges(bins, what)
    return cast(values, "float64"), cast(given, "float64"), given


def _bin_index(values, edges):
    """For ``values`` (N,) in the edges' dtype, the bin of each among ``edges`` (int32) and whether
    it falls in the range at all."""
    n_bins = edges.shape[0] - 1
    column = bind(R["reshape"], values, shape=(values.shape[0], 1))
    idx = bind(R["sub"], bind(R["reduce_sum"], cast(bind(R["less_equal"], edges, column), "int32"), axis=1), 1)
    last = bind(R["getitem"], edges, index=(n_bins,))
    idx = bind(R["where"], bind(R["equal"], values, last), Tensor(onp.int32(n_bins - 1)), idx)
    inside = bind(R["logical_and"], bind(R["greater_equal"], idx, 0), bind(R["less"], idx, n_bins))
    return bind(R["where"], inside, idx, bind(R["zeros_like"], idx)), inside


def _count(flat_idx, inside, n_cells, weights, what, n_values):
    """float32 counts (the summed weights, in their float dtype) of the cells ``flat_idx``."""
    if weights is None:
        w = cast(inside, "float32")
    else:
        w = tensor(weights)
        if w.size != n_values:
            raise ValueError(f"{what}: weights must have one value per sample ({n_values}), got shape "
                             f"{tuple(w.shape)}")
        w = bind(R["reshape"], cast(w, _float_dtype(w)), shape=(n_values,))
        w = bind(R["where"], inside, w, bind(R["zeros_like"], w))
    zeros = Tensor(onp.zeros(n_cells, w.dtype.np))
    return bind(R["tensor_scatter_add"], zeros, bind(R["reshape"], flat_idx, shape=(n_values, 1)), w)


def _density(hist, widths):
    """hist / total / bin volume."""
    return bind(R["div"], bind(R["div"], hist, bind(R["reduce_sum"], hist, axis=None)), cast(widths, hist.dtype))


def _widths(edges):
    return bind(R["sub"], bind(R["getitem"], edges, index=(("slice", 1, None, None),)),
                bind(R["getitem"], edges, index=(("slice", None, -1, None),)))


def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002 - numpy's names
    """The edges ``histogram`` uses: ``bins + 1`` of them for a count (over ``range`` or the data's
    min..max), or ``bins`` itself given as increasing edges. ``weights`` does not change them."""
    return _binning(tensor(a), bins, range, "histogram_bin_edges")[2]


def histogram(a, bins=10, range=None, weights=None, density=False):  # noqa: A002
    """``(hist, bin_edges)`` of the flattened ``a``: the count (or summed weight) of the values in
    each bin; ``density=True`` divides by the total and the bin widths."""
    a = tensor(a)
    values, edges, shown = _binning(bind(R["reshape"], a, shape=(a.size,)), bins, range, "histogram")
    idx, inside = _bin_index(values, edges)
    hist = _count(idx, inside, edges.shape[0] - 1, weights, "histogram", a.size)
    if density:
        hist = _density(hist, _widths(edges))
    return hist, shown


def histogramdd(sample, bins=10, range=None, weights=None, density=False):  # noqa: A002
    """``(H, edges)`` of ``sample`` (N, D): the count (or summed weight) of the points in each
    D-dimensional bin, and the list of each dimension's edges. ``bins``: one count for every
    dimension, or one count/edge array per dimension; ``range``: one (min, max) per dimension."""
    s = tensor(sample)
    if s.ndim == 1:
        s = bind(R["reshape"], s, shape=(s.shape[0], 1))
    if s.ndim != 2:
        raise ValueError(f"histogramdd: sample must be (N, D), got shape {tuple(s.shape)}")
    n, d = s.shape
    per_dim = [bins] * d if isinstance(bins, numbers.Integral) else list(bins)
    if len(per_dim) != d:
        raise ValueError(f"histogramdd: bins must give one entry per dimension ({d}), got {len(per_dim)}")
    ranges = [None] * d if range is None else list(range)
    if len(ranges) != d:
        raise ValueError(f"histogramdd: range must give one (min, max) per dimension ({d}), got {len(ranges)}")
    edges, flat, inside_all, shape = [], None, None, []
    for k in builtins.range(d):
        column = bind(R["getitem"], s, index=(("slice", None, None, None), k))
        values, e, shown = _binning(column, per_dim[k], ranges[k], "histogramdd")
        idx, inside = _bin_index(values, e)
        nb = e.shape[0] - 1
        shape.append(nb)
        flat = idx if flat is None else bind(R["add"], bind(R["mul"], flat, nb), idx)
        inside_all = inside if inside_all is None else bind(R["logical_and"], inside_all, inside)
        edges.append((e, shown))
    cells = int(onp.prod(shape))
    hist = bind(R["reshape"], _count(flat, inside_all, cells, weights, "histogramdd", n), shape=tuple(shape))
    if density:
        volume = None
        for k, (e, _) in enumerate(edges):
            w = bind(R["reshape"], _widths(e), shape=tuple(shape[k] if j == k else 1 for j in builtins.range(d)))
            volume = w if volume is None else bind(R["mul"], volume, w)
        hist = _density(hist, volume)
    return hist, [shown for _, shown in edges]


def histogram2d(x, y, bins=10, range=None, weights=None, density=False):  # noqa: A002
    """``(H, xedges, yedges)``: ``histogramdd`` of the points ``(x[i], y[i])``."""
    x, y = tensor(x), tensor(y)
    if x.ndim != 1 or y.ndim != 1 or x.shape != y.shape:
        raise ValueError(f"histogram2d: x and y must be 1-D of one length, got {tuple(x.shape)} and {tuple(y.shape)}")
    sample = bind(R["stack"], x, cast(y, x.dtype), axis=1)
    if not isinstance(bins, numbers.Integral) and len(bins) != 2:
        bins = [bins, bins]  # one edge array for both dimensions
    hist, (xe, ye) = histogramdd(sample, bins, range, weights, density)
    return hist, xe, ye



def _count_values(x, weights, minlength, length, what, count_dtype):
    """Counts (or summed weights) of each value 0..n-1 of the 1-D non-negative integer ``x``, with
    n = ``length`` when given (a static shape), else max(max(x) + 1, minlength), read from the
    data (a data-dependent shape: a graph break under jit)."""
    x = tensor(x)
    if x.ndim != 1 or not x.dtype.is_int:
        raise ValueError(f"{what}: x must be a 1-D integer tensor, got {x.dtype} of shape {tuple(x.shape)}")
    if isinstance(minlength, bool) or not isinstance(minlength, numbers.Integral) or minlength < 0:
        raise ValueError(f"{what}: minlength must be a non-negative int, got {minlength!r}")
    if length is None:
        values = x.asnumpy()
        if values.size and values.min() < 0:
            raise ValueError(f"{what}: x must not contain negative values, got {int(values.min())}")
        length = builtins.max(int(values.max()) + 1 if values.size else 0, int(minlength))
    if weights is None:
        w = Tensor(onp.ones(x.shape[0], onp.dtype(count_dtype)))
    else:
        w = tensor(weights)
        if tuple(w.shape) != tuple(x.shape):
            raise ValueError(f"{what}: weights must have x's shape {tuple(x.shape)}, got {tuple(w.shape)}")
        w = cast(w, _float_dtype(w))
    zeros = Tensor(onp.zeros(int(length), w.dtype.np))
    return bind(R["tensor_scatter_add"], zeros, bind(R["reshape"], cast(x, "int32"), shape=(x.shape[0], 1)), w)


def bincount(x, weights=None, minlength=0, length=None):
    """The number of occurrences of each value 0..n-1 in the 1-D non-negative integer ``x``
    (float32, as MindSpore r2.4's numpy.bincount returns -- its example prints ``[1. 1. 1. 1. 1.]``;
    the summed ``weights`` when given): n is ``length`` when given, else
    ``max(max(x) + 1, minlength)`` -- a shape read from the data, so without ``length`` it runs
    eagerly (a graph break under jit)."""
    return _count_values(x, weights, minlength, length, "bincount", "float32")
