"""Embedding lookup table (``nn.Embedding``), MindSpore 2.x signature.

Example:
    >>> import runtime as ms
    >>> from runtime import nn
    >>> emb = nn.Embedding(10, 4)
    >>> emb(ms.Tensor([[1, 2, 3]], ms.int32)).shape
    (1, 3, 4)
"""
from __future__ import annotations

from graph.dtypes import as_dtype, float32, int32

from ... import ops
from ...common.initializer import initializer
from ...parameter import Parameter
from ..cell import Cell
from .basic import _check_bool, _check_int

__all__ = ["Embedding"]


class Embedding(Cell):
    """``embedding_table[input_ids]``: output shape ``input_ids.shape + (embedding_size,)``.

    ``use_one_hot=True`` computes the lookup as ``one_hot(ids) @ table`` (same result).
    ``padding_idx`` (if given) initialises that row to zeros.
    """

    def __init__(self, vocab_size, embedding_size, use_one_hot=False, embedding_table="normal",
                 dtype=int32, padding_idx=None):
        super().__init__()
        self.vocab_size = _check_int("Embedding", "vocab_size", vocab_size)
        self.embedding_size = _check_int("Embedding", "embedding_size", embedding_size)
        self.use_one_hot = _check_bool("Embedding", "use_one_hot", use_one_hot)
        self.dtype = as_dtype(dtype)
        if not self.dtype.is_int:
            raise TypeError(f"Embedding: dtype (of the input ids) must be an integer type, got {self.dtype}")
        if padding_idx is not None:
            if isinstance(padding_idx, bool) or not isinstance(padding_idx, int):
                raise TypeError(f"Embedding: padding_idx must be an int or None, got {padding_idx!r}")
            if not -vocab_size <= padding_idx < vocab_size:
                raise ValueError(f"Embedding: padding_idx must be in [{-vocab_size}, {vocab_size}), "
                                 f"got {padding_idx}")
            padding_idx %= vocab_size
        self.padding_idx = padding_idx
        self.init_tensor = embedding_table
        table = initializer(embedding_table, (vocab_size, embedding_size), float32)
        if padding_idx is not None:
            arr = table.asnumpy().copy()
            arr[padding_idx] = 0
            table = initializer(arr, (vocab_size, embedding_size), float32)
        self.embedding_table = Parameter(table, name="embedding_table")

    def construct(self, ids):
        if self.use_one_hot:
            shape = ids.shape
            flat = ops.reshape(ids, (-1,))
            oh = ops.one_hot(flat, self.vocab_size, 1.0, 0.0, -1)
            out = ops.matmul(oh, self.embedding_table)
            return ops.reshape(out, tuple(shape) + (self.embedding_size,))
        return ops.gather(self.embedding_table, ids, 0)

    def extend_repr(self):
        return (f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}, "
                f"use_one_hot={self.use_one_hot}, embedding_table={self.embedding_table!r}, "
                f"dtype={self.dtype}, padding_idx={self.padding_idx}")
