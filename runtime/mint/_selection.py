"""mint's scatter/index/unique functions that need more than a rename: ``scatter_add``, ``index_add``
and ``unique`` (torch's signatures, MindSpore 2.4's ``mint`` names).

Each is composed from existing ``runtime.ops`` functions (``tensor_scatter_elements`` with
``reduction='add'``, ``argsort``, ``unique_consecutive``...); no op arithmetic is written here.
"""
from __future__ import annotations

from .. import ops as _ops
from ..dtype import int64


def _rank_checked(name, what, value, rank):
    if value.ndim != rank:
        raise ValueError(f"mint.{name}: {what} must have input's rank {rank}, got shape {tuple(value.shape)}")


def _dim_checked(name, dim, rank):
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise TypeError(f"mint.{name}: dim must be an int, got {dim!r}")
    if not -max(rank, 1) <= dim < max(rank, 1):
        raise ValueError(f"mint.{name}: dim {dim} is out of range for a tensor of rank {rank}")
    return dim % max(rank, 1)


def _integer_index(name, index):
    if not hasattr(index, "dtype") or not index.dtype.is_int:
        raise TypeError(f"mint.{name}: index must be an integer tensor, got "
                        f"{getattr(index, 'dtype', type(index).__name__)}")


def scatter_add(input, dim, index, src):
    """torch's ``scatter_add``: a copy of ``input`` with ``out[index[i][j]][j] += src[i][j]`` for
    ``dim=0`` (``out[i][index[i][j]] += src[i][j]`` for ``dim=1``; any rank likewise), repeated
    positions accumulating. ``index`` and ``src`` have ``input``'s rank; ``index`` may be smaller
    than ``src`` in every dimension (only ``src``'s leading block of ``index``'s shape is used) and
    than ``input`` in every dimension but ``dim``. Differentiable in ``input`` and ``src``."""
    name = "scatter_add"
    rank = input.ndim
    _integer_index(name, index)
    _rank_checked(name, "index", index, rank)
    _rank_checked(name, "src", src, rank)
    axis = _dim_checked(name, dim, rank)
    ishape, sshape, xshape = tuple(index.shape), tuple(src.shape), tuple(input.shape)
    for d in range(rank):
        if ishape[d] > sshape[d] or (d != axis and ishape[d] > xshape[d]):
            raise ValueError(f"mint.{name}: index shape {ishape} must not exceed src shape {sshape} in any "
                             f"dimension, nor input shape {xshape} in any dimension but dim={dim}")
    if sshape != ishape:
        src = src[tuple(slice(0, n) for n in ishape)]
    return _ops.tensor_scatter_elements(input, index, src, axis, "add")


def index_add(input, dim, index, source, *, alpha=1):
    """torch's ``index_add`` (out of place): ``out.index_select(dim, index) += alpha * source``, i.e.
    ``out[index[i]] += alpha * source[i]`` along ``dim``, repeated indices accumulating. ``index``
    is 1-D with ``source.shape[dim]`` entries; ``source`` has ``input``'s shape elsewhere."""
    name = "index_add"
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)):
        raise TypeError(f"mint.{name}: alpha must be a number, got {alpha!r}")
    _integer_index(name, index)
    if index.ndim > 1:
        raise ValueError(f"mint.{name}: index must be 1-D, got shape {tuple(index.shape)}")
    rank = input.ndim
    _rank_checked(name, "source", source, rank)
    axis = _dim_checked(name, dim, rank)
    sshape, xshape = tuple(source.shape), tuple(input.shape)
    count = index.shape[0] if index.ndim else 1
    want = xshape[:axis] + (count,) + xshape[axis + 1:] if rank else ()
    if sshape != want:
        raise ValueError(f"mint.{name}: source must have shape {want} (input's, with index's length at dim), "
                         f"got {sshape}")
    if alpha != 1:
        source = _ops.mul(source, alpha)
    if not rank:
        return _ops.add(input, source)
    # each element of source goes to the position index[i] along dim: a scatter_add whose index
    # is index broadcast over source's shape
    along = _ops.reshape(index, (1,) * axis + (count,) + (1,) * (rank - axis - 1))
    return _ops.tensor_scatter_elements(input, _ops.broadcast_to(along, sshape), source, axis, "add")


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """torch's ``unique``: the distinct elements of ``input`` (flattened when ``dim`` is None) or its
    distinct slices along ``dim``, in ascending (lexicographic for slices) order; with
    ``return_inverse`` the position in the output of each input element (slice), of ``input``'s
    shape (``input.shape[dim]``); with ``return_counts`` how often each occurs. Both int64.
    ``sorted=False`` is accepted: torch leaves the order unspecified then, and here it is ascending.
    The output's size depends on the values: under ``jit`` this is a graph break."""
    name = "unique"
    for flag, value in (("sorted", sorted), ("return_inverse", return_inverse), ("return_counts", return_counts)):
        if not isinstance(value, bool):
            raise TypeError(f"mint.{name}: {flag} must be a bool, got {value!r}")
    if dim is None:
        flat = _ops.reshape(input, (-1,))
        order = _ops.argsort(flat, 0)  # a stable sort: equal values keep their order
        ordered, axis = _ops.gather(flat, order, 0), 0
    else:
        axis = _dim_checked(name, dim, input.ndim)
        order = _lexicographic_order(input, axis)
        ordered = _ops.index_select(input, axis, order)
    output, run_of, counts = _ops.unique_consecutive(ordered, True, True, None if dim is None else axis)
    results = [output]
    if return_inverse:
        # run_of[k] is the output position of the k-th sorted element, i.e. of input element order[k]
        inverse = _ops.gather(_ops.cast(run_of, int64), _ops.argsort(order, 0), 0)
        results.append(_ops.reshape(inverse, tuple(input.shape)) if dim is None else inverse)
    if return_counts:
        results.append(_ops.cast(counts, int64))
    return results[0] if len(results) == 1 else tuple(results)


def _lexicographic_order(input, axis):
    """The permutation sorting ``input``'s slices along ``axis`` lexicographically (stable): one
    stable argsort per element of a slice, from the last to the first (a radix sort)."""
    rows = _ops.reshape(_ops.movedim(input, axis, 0), (input.shape[axis], -1))
    order = _ops.arange(0, input.shape[axis], dtype=int64)
    for column in reversed(range(rows.shape[1])):
        keys = _ops.gather(rows[:, column], order, 0)
        order = _ops.gather(order, _ops.argsort(keys, 0), 0)
    return order


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """torch's ``unique_consecutive``: each run of equal consecutive elements (of the flattened input
    when ``dim`` is None, else of slices along ``dim``) kept once; with ``return_inverse`` the run of
    every input element (slice), with ``return_counts`` each run's length (both int64). A graph break
    under ``jit`` (the output's size depends on the values)."""
    name = "unique_consecutive"
    for flag, value in (("return_inverse", return_inverse), ("return_counts", return_counts)):
        if not isinstance(value, bool):
            raise TypeError(f"mint.{name}: {flag} must be a bool, got {value!r}")
    axis = None if dim is None else _dim_checked(name, dim, input.ndim)
    output, run_of, counts = _ops.unique_consecutive(input, True, True, axis)
    results = [output]
    if return_inverse:
        results.append(_ops.cast(run_of, int64))
    if return_counts:
        results.append(_ops.cast(counts, int64))
    return results[0] if len(results) == 1 else tuple(results)
