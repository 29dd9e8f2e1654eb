"""MindSpore 2.x's data-dependent selections and scatter family, with its signatures, composed from
the registry's ``unique``, ``nonzero``, ``masked_select``, ``gather``, ``gather_nd`` and
``tensor_scatter_*`` ops (see graph/ops/selection.py).

``unique``, ``nonzero`` and ``masked_select`` have data-dependent output shapes: they run in
PyNative; under graph capture they break the graph (``explain()`` says why) and run eagerly.

Example:
    >>> import numpy as np, runtime as ms
    >>> from runtime import ops, Tensor
    >>> ops.scatter_nd(Tensor(np.array([[0], [2]], np.int32)), Tensor([1.0, 2.0]), (4,))
    Tensor(shape=[4], dtype=Float32, value=[1., 0., 2., 0.])
"""
from __future__ import annotations

import numpy as np

from graph.ops import REGISTRY, bind

from ..parameter import Parameter
from ..tensor import Tensor
from ._generated import Primitive
from .composite import CompositePrimitive

_R = REGISTRY

__all__ = ["Gather", "tensor_scatter_elements", "TensorScatterElements", "nonzero", "gather", "gather_d",
           "scatter_nd", "ScatterNd"]


def nonzero(input, as_tuple=False):  # noqa: A002 - MindSpore's names
    """``ops.nonzero(input, as_tuple=False)``: int64 ``(count, input.ndim)`` coordinates of the
    nonzero elements, or with ``as_tuple=True`` one 1-D int64 tensor per axis."""
    coords = bind(_R["nonzero"], input)
    if not as_tuple:
        return coords
    return tuple(bind(_R["gather"], coords, Tensor(np.array(k, np.int32)), axis=1) for k in range(input.ndim))


def gather(input_params, input_indices, axis=0, batch_dims=0):
    """``ops.gather(input_params, input_indices, axis, batch_dims=0)``: slices of ``input_params``
    along ``axis`` at ``input_indices``; the first ``batch_dims`` axes of both are batch axes
    (``out[b..., i..., r...] = params[b..., <axes before axis>, idx[b..., i...], r...]``). ``axis``
    defaults to 0 here (MindSpore requires it), as this framework's ops.gather always has.
    Composed for ``batch_dims > 0`` by folding the batch into the gathered axis: reshape
    ``(B, ..., n, ...)`` to ``(..., B*n, ...)`` and offset each batch's indices by ``b*n``."""
    if batch_dims == 0:
        return bind(_R["gather"], input_params, input_indices, axis=axis)
    p_shape, i_shape = tuple(input_params.shape), tuple(input_indices.shape)
    nb = batch_dims + len(i_shape) if batch_dims < 0 else batch_dims
    ax = axis + len(p_shape) if axis < 0 else axis
    if not 0 < nb <= len(i_shape) or p_shape[:nb] != i_shape[:nb] or not nb <= ax < len(p_shape):
        raise ValueError(f"ops.gather: batch_dims {batch_dims} needs the first batch_dims axes of input_params "
                         f"{p_shape} and input_indices {i_shape} to agree and axis {axis} >= batch_dims")
    batch = int(np.prod(p_shape[:nb]))
    n = p_shape[ax]
    mid, rest = p_shape[nb:ax], p_shape[ax + 1:]
    # params -> (B, n, mid..., rest...) -> (B*n, mid..., rest...)
    perm = (*range(nb), ax, *range(nb, ax), *range(ax + 1, len(p_shape)))
    flat = bind(_R["reshape"], bind(_R["transpose"], input_params, perm=perm), shape=(batch * n, *mid, *rest))
    idx = bind(_R["reshape"], input_indices, shape=(batch, *i_shape[nb:]))
    idx = bind(_R["where"], bind(_R["less"], idx, 0), bind(_R["add"], idx, n), idx)
    offsets = Tensor((np.arange(batch) * n).reshape((batch,) + (1,) * (len(i_shape) - nb)).astype(idx.dtype.np))
    picked = bind(_R["gather"], flat, bind(_R["add"], idx, offsets), axis=0)  # (B, I..., mid..., rest...)
    ni, nm = len(i_shape) - nb, len(mid)
    # -> (B, mid..., I..., rest...) -> (batch..., mid..., I..., rest...)
    back = (0, *range(1 + ni, 1 + ni + nm), *range(1, 1 + ni), *range(1 + ni + nm, picked.ndim))
    out = bind(_R["transpose"], picked, perm=back)
    return bind(_R["reshape"], out, shape=(*p_shape[:nb], *mid, *i_shape[nb:], *rest))


def tensor_scatter_elements(input_x, indices, updates, axis=0, reduction="none"):
    """``ops.tensor_scatter_elements(input_x, indices, updates, axis=0, reduction="none")``: a copy of
    ``input_x`` with ``out[i][indices[i][j]] = updates[i][j]`` for ``axis=1`` (``reduction="add"``:
    added, repeated positions accumulating). Composed as ``tensor_scatter_update``/``_add`` on the
    full coordinates of each element of ``indices`` (``indices`` on ``axis``, its own position on
    the other axes)."""
    shape, ishape = tuple(input_x.shape), tuple(indices.shape)
    if reduction not in ("none", "add"):
        raise ValueError(f"ops.tensor_scatter_elements: reduction must be 'none' or 'add', got {reduction!r}")
    if len(ishape) != len(shape) or not shape:
        raise ValueError(f"ops.tensor_scatter_elements: indices must have input_x's rank >= 1, got indices shape "
                         f"{ishape} and input_x shape {shape}")
    if tuple(updates.shape) != ishape:
        raise ValueError(f"ops.tensor_scatter_elements: updates shape {tuple(updates.shape)} must equal indices "
                         f"shape {ishape}")
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)) or not -len(shape) <= axis < len(shape):
        raise ValueError(f"ops.tensor_scatter_elements: axis {axis!r} is out of range for input_x shape {shape}")
    axis = int(axis) % len(shape)
    n = shape[axis]
    along = bind(_R["where"], bind(_R["less"], indices, 0), bind(_R["add"], indices, n), indices)
    coords = []
    for d in range(len(shape)):
        if d == axis:
            coords.append(bind(_R["cast"], along, dtype=indices.dtype))
        else:
            pos = np.arange(ishape[d]).reshape((-1,) + (1,) * (len(shape) - 1 - d))
            coords.append(Tensor(np.broadcast_to(pos, ishape).astype(indices.dtype.np)))
    rows = bind(_R["stack"], *coords, axis=-1)
    op = "tensor_scatter_update" if reduction == "none" else "tensor_scatter_add"
    return bind(_R[op], input_x, rows, updates)


class TensorScatterElements(CompositePrimitive):
    """``ops.TensorScatterElements(axis=0, reduction="none")(input_x, indices, updates)``."""

    def __init__(self, axis=0, reduction="none"):
        self.axis, self.reduction = axis, reduction

    def __call__(self, input_x, indices, updates):
        return tensor_scatter_elements(input_x, indices, updates, self.axis, self.reduction)


class Gather(Primitive):
    """``ops.Gather(batch_dims=0)(input_params, input_indices, axis)``: :func:`gather` as MindSpore's
    Primitive (the registry's ``gather`` op; ``batch_dims`` composes it as :func:`gather` does)."""

    op = _R["gather"]

    def __init__(self, batch_dims=0):
        if isinstance(batch_dims, bool) or not isinstance(batch_dims, (int, np.integer)):
            raise TypeError(f"Gather: batch_dims must be an int, got {batch_dims!r}")
        self.batch_dims = int(batch_dims)
        self.name = "Gather"

    def __call__(self, input_params, input_indices, axis):
        return gather(input_params, input_indices, axis, self.batch_dims)


def gather_d(x, dim, index):
    """``ops.gather_d(x, dim, index)``: ``GatherD`` (same as ``ops.gather_elements``)."""
    return bind(_R["gather_elements"], x, index, dim=dim)


def scatter_nd(indices, updates, shape):
    """``ops.scatter_nd(indices, updates, shape)``: zeros of ``shape`` with ``updates`` added at the
    index rows of ``indices`` (repeated rows accumulate, as MindSpore's ScatterNd)."""
    zeros = Tensor(np.zeros(tuple(int(s) for s in shape), updates.dtype.np))
    return bind(_R["tensor_scatter_add"], zeros, indices, updates)


class ScatterNd(CompositePrimitive):
    """``ops.ScatterNd()(indices, updates, shape)``: :func:`scatter_nd` as a Primitive."""

    function = staticmethod(scatter_nd)


def _scatter_into(mode, name, rows_first_axis):
    """``ops.<name>(input_x, indices, updates)``: ``tensor_scatter_<mode>`` written back into the
    Parameter ``input_x``. ``rows_first_axis``: ``indices`` holds positions along axis 0
    (``ScatterUpdate``: updates of shape ``indices.shape + input_x.shape[1:]``), else index rows
    (``ScatterNdUpdate``), whose functional forms also take MindSpore's ``use_locking`` (one
    process, one stream: every update is already atomic, so it changes nothing)."""
    def scatter(input_x, indices, updates):
        if not isinstance(input_x, Parameter):
            raise TypeError(f"ops.{name}: input_x must be a Parameter (it is updated in place), "
                            f"got {type(input_x).__name__}")
        if rows_first_axis:
            indices = bind(_R["expand_dims"], indices, axis=len(indices.shape))
        new = bind(_R["tensor_scatter_" + mode], input_x, indices, updates)
        return bind(_R["assign"], input_x, new)

    if rows_first_axis:
        apply = scatter
        call = f"{name}(input_x, indices, updates)"
    else:
        default = mode == "update"  # MindSpore: use_locking=True for the Update ones

        def apply(input_x, indices, updates, use_locking=default):
            if not isinstance(use_locking, bool):
                raise TypeError(f"ops.{name}: use_locking must be a bool, got {type(use_locking).__name__}")
            return scatter(input_x, indices, updates)
        call = f"{name}(input_x, indices, updates, use_locking={default})"
    apply.__name__ = name
    apply.__doc__ = (f"``ops.{call}``: ``tensor_scatter_{mode}`` written back "
                     "into the Parameter ``input_x`` (in place); returns it.")
    return apply


class _ScatterInPlace(CompositePrimitive):
    def __init__(self, use_locking=False):
        self.use_locking = use_locking  # one process, one stream: every update is already atomic


def _in_place_family():
    made = {}
    for mode in ("update", "add", "sub", "max", "min", "mul", "div"):
        for nd in (True, False):
            fname = f"scatter_nd_{mode}" if nd else f"scatter_{mode}"
            cname = ("ScatterNd" if nd else "Scatter") + mode.capitalize()
            fn = _scatter_into(mode, fname, rows_first_axis=not nd)
            default = mode == "update"  # MindSpore: use_locking=True for the Update ones

            def init(self, use_locking=default):
                _ScatterInPlace.__init__(self, use_locking)
            cls = type(cname, (_ScatterInPlace,), {
                "function": staticmethod(fn), "__init__": init, "__module__": __name__,
                "__doc__": f"``ops.{cname}(use_locking={default})(input_x, indices, updates)`` on a Parameter "
                           f"(:func:`{fname}`)."})
            made[fname], made[cname] = fn, cls
    return made


_FAMILY = _in_place_family()
globals().update(_FAMILY)
__all__ += sorted(_FAMILY)
