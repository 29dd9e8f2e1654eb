"""``mindspore.RowTensor``: rows of a larger dense tensor (``dense[indices[i]] = values[i]``).

Example:
    >>> import runtime as ms
    >>> x = ms.RowTensor(ms.Tensor([0]), ms.Tensor([[1.0, 2.0]]), (3, 2))
    >>> x.dense_shape, x.to_dense().asnumpy().tolist()
    ((3, 2), [[1.0, 2.0], [0.0, 0.0], [0.0, 0.0]])
"""
from __future__ import annotations

from graph.ops import REGISTRY, bind

from ..tensor import Tensor

__all__ = ["RowTensor"]


class RowTensor:
    """``RowTensor(indices=None, values=None, shape=None, row_tensor=None)``: a sparse set of
    slices along the first axis of a dense tensor of shape ``shape``: ``indices`` (D0,) ints,
    ``values`` (D0, D1, ..., Dn). ``row_tensor`` copies another RowTensor."""

    def __init__(self, indices=None, values=None, shape=None, row_tensor=None):
        if row_tensor is not None:
            if not isinstance(row_tensor, RowTensor):
                raise TypeError(f"RowTensor: row_tensor must be a RowTensor, got {type(row_tensor).__name__}")
            indices, values, shape = row_tensor.indices, row_tensor.values, row_tensor.dense_shape
        if not isinstance(indices, Tensor) or not isinstance(values, Tensor):
            raise TypeError("RowTensor: indices and values must be Tensors")
        if indices.ndim != 1 or indices.dtype.is_float or indices.dtype.is_bool:
            raise ValueError(f"RowTensor: indices must be a 1-D integer Tensor, got {indices.dtype} {indices.shape}")
        shape = tuple(int(s) for s in shape) if shape is not None else None
        if shape is None or values.ndim != len(shape) or values.shape[0] != indices.shape[0] \
                or tuple(values.shape[1:]) != shape[1:]:
            raise ValueError(f"RowTensor: values of shape {values.shape} do not fit indices {indices.shape} "
                             f"and dense shape {shape}")
        self._indices, self._values, self._shape = indices, values, shape

    @property
    def indices(self):
        return self._indices

    @property
    def values(self):
        return self._values

    @property
    def dense_shape(self):
        return self._shape

    def to_dense(self):
        """The dense Tensor (rows named twice in ``indices`` are summed, as a gradient's are)."""
        return bind(REGISTRY["unsorted_segment_sum"], self._values, self._indices, num_segments=self._shape[0])

    def __repr__(self):
        return f"RowTensor(indices={self._indices.shape}, values={self._values.shape}, dense_shape={self._shape})"
