"""``mindspore.mint.linalg``: torch.linalg's spellings of the ``runtime.ops`` norms and inverse.

Example:
    >>> import numpy as np
    >>> import runtime as ms
    >>> from runtime import mint
    >>> print(mint.linalg.vector_norm(ms.Tensor(np.array([3.0, 4.0], np.float32))))
    5.0
"""
from __future__ import annotations

from .. import ops as _ops

__all__ = ["inv", "norm", "vector_norm", "matrix_norm"]


def inv(A):
    """The inverse of each square matrix in ``A`` (the last two dimensions)."""
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise ValueError(f"mint.linalg.inv: expects (batches of) square matrices, got shape {tuple(A.shape)}")
    return _ops.inverse(A)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """The vector ``ord``-norm over ``dim`` (every element when None)."""
    return _ops.vector_norm(x, ord, dim, keepdim, dtype=dtype)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """The matrix norm ``ord`` ('fro', 'nuc', +-1, +-2, +-inf) over the two dimensions ``dim``."""
    return _ops.matrix_norm(A, ord, dim, keepdim, dtype=dtype)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """torch.linalg.norm: a vector norm for an int ``dim`` (or a 1-D ``A``), a matrix norm for a pair
    (or a 2-D ``A``); ``ord=None, dim=None`` the 2-norm of the flattened tensor."""
    return _ops.norm(A, ord, dim, keepdim, dtype=dtype)
