"""Dense linear algebra of MindSpore 2.x's ``ops`` (``ops.det``, ``ops.inverse``, ``ops.slogdet``, ``ops.logdet``,
``ops.matrix_solve``, ``ops.cholesky``, ``ops.cholesky_solve``, ``ops.cholesky_inverse`` and their Primitive
spellings), for batches of small square matrices.

The registry has no factorisation op, so each is written as the textbook algorithm unrolled over the matrix
size ``n`` with registry ops on whole batches (no new op semantics):

* Gauss(-Jordan) elimination with partial pivoting: at step ``k`` the pivot row is the ``argmax`` of
  ``|column k|`` among rows ``>= k``; the swap is ``M - d (d^T M)`` with ``d = e_k - e_pivot`` (the identity when
  no swap is needed), then the column is eliminated by an outer product. The determinant is the product of the
  pivots times the sign of the row swaps; the inverse and solutions come from the right half of ``[A | B]``.
* Cholesky column by column: ``v = A e_j - L (L^T e_j)``, ``L e_j = v / sqrt(v_j)`` below the diagonal.

Gradients are those of the elimination (exact wherever the pivot choice does not change), and the code
compiles where its parts do; the cost is ``n`` steps of ``O(n^2)`` batched work each, meant for the small
matrices models use (covariances, flows, attention statistics), not for large systems.

Example:
    >>> import numpy as np
    >>> from runtime import ops, Tensor
    >>> float(ops.det(Tensor(np.array([[1.0, 2.0], [3.0, 4.0]]))).asnumpy())
    -2.0
"""
from __future__ import annotations

import numpy as np

from graph.dtypes import float32
from graph.ops import REGISTRY, bind
from graph.ops.core import is_tensorlike

from ..tensor import Tensor

_R = REGISTRY

__all__ = ["det", "matrix_determinant", "slogdet", "log_matrix_determinant", "logdet", "inverse", "matrix_solve",
           "cholesky", "cholesky_solve", "cholesky_inverse", "MatrixInverse", "MatrixDeterminant",
           "LogMatrixDeterminant", "MatrixSolve", "Cholesky", "CholeskyInverse", "CholeskySolve"]


def _square(x, fn):
    if not is_tensorlike(x) or isinstance(x, (np.ndarray, np.generic)):
        raise TypeError(f"ops.{fn}: input must be a Tensor, got {type(x).__name__}")
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f"ops.{fn}: input must be a (batch of) square matrix (..., n, n), got {tuple(x.shape)}")
    if not x.dtype.is_float:
        x = bind(_R["cast"], x, dtype=float32)
    return x


def _const(a, like):
    return Tensor(np.asarray(a, like.dtype.np))


def _t(x):
    """The transpose of the last two axes."""
    perm = tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2)
    return bind(_R["transpose"], x, perm=perm)


def _eliminate(a, rhs=None, jordan=False):
    """Partial-pivoting elimination of ``a`` (..., n, n), carrying ``rhs`` (..., n, m) along.

    Returns ``(pivots (..., n), swap_sign (...), m)`` where ``m`` is the reduced augmented matrix: upper
    triangular (Gauss) or the identity with ``a^-1 rhs`` on the right (Gauss-Jordan, ``jordan=True``)."""
    n = a.shape[-1]
    m = a if rhs is None else bind(_R["concat"], a, rhs, axis=-1)
    width = m.shape[-1]
    eye = np.eye(n)
    rows = np.arange(n)
    pivots, sign = [], None
    for k in range(n):
        e_k = _const(eye[k], m)                                                   # (n,)
        col = bind(_R["reshape"], bind(_R["matmul"], m, _const(np.eye(width)[k][:, None], m)),
                   shape=tuple(m.shape[:-1]))                                       # (..., n): column k
        candidates = bind(_R["where"], Tensor(rows >= k), bind(_R["abs"], col),
                          bind(_R["add"], bind(_R["zeros_like"], col), -1.0))
        chosen = bind(_R["argmax"], candidates, axis=-1, keep_dims=False)
        e_r = bind(_R["cast"], _one_hot(chosen, n), dtype=m.dtype)                  # (..., n)
        d = bind(_R["sub"], e_k, e_r)                                               # e_k - e_pivot
        # the row swap M - d (d^T M); 1 - |d|^2 is -1 for a swap and 1 otherwise
        dtm = bind(_R["matmul"], bind(_R["expand_dims"], d, axis=-2), m)            # (..., 1, width)
        m = bind(_R["sub"], m, bind(_R["mul"], bind(_R["expand_dims"], d, axis=-1), dtm))
        flip = bind(_R["sub"], 1.0, bind(_R["reduce_sum"], bind(_R["square"], d), axis=(-1,), keep_dims=False))
        sign = flip if sign is None else bind(_R["mul"], sign, flip)
        row_k = bind(_R["matmul"], _const(eye[k][None, :], m), m)                   # (..., 1, width)
        pivot = bind(_R["reshape"], bind(_R["matmul"], row_k, _const(np.eye(width)[k][:, None], m)),
                     shape=tuple(m.shape[:-2]))                                     # (...)
        pivots.append(pivot)
        col = bind(_R["matmul"], m, _const(np.eye(width)[k][:, None], m))          # (..., n, 1)
        if jordan:
            # every other row loses col_i / pivot times row k; row k becomes row_k / pivot
            factors = bind(_R["sub"], col, _const(eye[k][:, None], m))
        else:
            factors = bind(_R["mul"], col, _const((rows > k)[:, None], m))          # rows below k only
        scaled = bind(_R["div"], row_k, bind(_R["reshape"], pivot, shape=tuple(pivot.shape) + (1, 1)))
        m = bind(_R["sub"], m, bind(_R["mul"], factors, scaled))
    return bind(_R["stack"], *pivots, axis=-1), sign, m


def _one_hot(index, n):
    return _ops().one_hot(index, n, Tensor(1.0), Tensor(0.0), -1)


def _ops():
    from .. import ops
    return ops


def det(input):  # noqa: A002 - MindSpore's name
    """``ops.det(input)``: the determinant of a (batch of) square matrix, shape ``input.shape[:-2]``."""
    a = _square(input, "det")
    if a.shape[-1] == 0:
        return bind(_R["add"], bind(_R["reduce_sum"], a, axis=(-1, -2), keep_dims=False), 1.0)
    pivots, sign, _ = _eliminate(a)
    return bind(_R["mul"], bind(_R["reduce_prod"], pivots, axis=(-1,), keep_dims=False), sign)


def matrix_determinant(x):
    """``ops.matrix_determinant(x)``: as :func:`det`."""
    return det(x)


def slogdet(input):  # noqa: A002
    """``ops.slogdet(input)``: ``(sign, log|det|)`` of a (batch of) square matrix (sign 0 and -inf when
    singular)."""
    a = _square(input, "slogdet")
    pivots, sign, _ = _eliminate(a)
    signs = bind(_R["mul"], bind(_R["reduce_prod"], bind(_R["sign"], pivots), axis=(-1,), keep_dims=False), sign)
    logabs = bind(_R["reduce_sum"], bind(_R["log"], bind(_R["abs"], pivots)), axis=(-1,), keep_dims=False)
    return signs, logabs


def log_matrix_determinant(input_x):
    """``ops.log_matrix_determinant(input_x)``: ``(sign, log|det|)``, as :func:`slogdet`."""
    return slogdet(input_x)


def logdet(input):  # noqa: A002
    """``ops.logdet(input)``: ``log(det(input))`` (NaN for a negative determinant, -inf for a zero one)."""
    signs, logabs = slogdet(input)
    nan = bind(_R["add"], bind(_R["zeros_like"], logabs), float("nan"))
    return bind(_R["where"], bind(_R["less"], signs, 0.0), nan, logabs)


def _solve(a, b, fn):
    n = a.shape[-1]
    if b.shape[-2] != n:
        raise ValueError(f"ops.{fn}: the right-hand side must have {n} rows, got shape {tuple(b.shape)}")
    batch = np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
    a = bind(_R["broadcast_to"], a, shape=batch + (n, n))
    b = bind(_R["broadcast_to"], b, shape=batch + tuple(b.shape[-2:]))
    _, _, m = _eliminate(a, b, jordan=True)
    begin = (0,) * (m.ndim - 1) + (n,)
    return bind(_R["slice"], m, begin=begin, size=(-1,) * (m.ndim - 1) + (b.shape[-1],))


def inverse(input):  # noqa: A002
    """``ops.inverse(input)``: the inverse of a (batch of) square matrix (inf/NaN entries when singular)."""
    a = _square(input, "inverse")
    n = a.shape[-1]
    eye = bind(_R["broadcast_to"], _const(np.eye(n), a), shape=tuple(a.shape))
    return _solve(a, eye, "inverse")


def matrix_solve(matrix, rhs, adjoint=False):
    """``ops.matrix_solve(matrix, rhs, adjoint=False)``: ``X`` with ``matrix @ X = rhs`` (``matrix^T`` with
    ``adjoint=True``), batched."""
    a = _square(matrix, "matrix_solve")
    b = rhs if rhs.dtype == a.dtype else bind(_R["cast"], rhs, dtype=a.dtype)
    return _solve(_t(a) if adjoint else a, b, "matrix_solve")


def cholesky(input_x, upper=False):
    """``ops.cholesky(input_x, upper=False)``: the lower factor ``L`` with ``A = L L^T`` of a (batch of)
    symmetric positive-definite matrix (``upper=True``: ``U = L^T``, ``A = U^T U``). Only the lower triangle
    of ``A`` is read."""
    a = _square(input_x, "cholesky")
    n = a.shape[-1]
    rows = np.arange(n)
    low = bind(_R["zeros_like"], a)
    for j in range(n):
        e_j = _const(np.eye(n)[j][:, None], a)                                     # (n, 1)
        lj = bind(_R["matmul"], _t(low), e_j)                                      # (..., n, 1): L^T e_j
        v = bind(_R["sub"], bind(_R["matmul"], a, e_j), bind(_R["matmul"], low, lj))
        vj = bind(_R["matmul"], _const(np.eye(n)[j][None, :], a), v)               # (..., 1, 1)
        colj = bind(_R["mul"], bind(_R["div"], v, bind(_R["sqrt"], vj)), _const((rows >= j)[:, None], a))
        low = bind(_R["add"], low, bind(_R["mul"], colj, _const(np.eye(n)[j][None, :], a)))
    return _t(low) if upper else low


def _factor(x, upper, fn):
    f = _square(x, fn)
    return _t(f) if upper else f


def cholesky_inverse(input_x, upper=False):
    """``ops.cholesky_inverse(input_x, upper=False)``: ``A^-1`` from the Cholesky factor of ``A``
    (``input_x`` lower, or upper with ``upper=True``)."""
    low = _factor(input_x, upper, "cholesky_inverse")
    return inverse(bind(_R["matmul"], low, _t(low)))


def cholesky_solve(input, input2, upper=False):  # noqa: A002
    """``ops.cholesky_solve(input, input2, upper=False)``: ``X`` with ``A X = input`` where ``input2`` is the
    Cholesky factor of ``A`` (lower, or upper with ``upper=True``)."""
    low = _factor(input2, upper, "cholesky_solve")
    b = input if input.dtype == low.dtype else bind(_R["cast"], input, dtype=low.dtype)
    return _solve(bind(_R["matmul"], low, _t(low)), b, "cholesky_solve")


class _LinalgPrimitive:
    """MindSpore's calling convention: attributes at construction, inputs at call."""

    def __repr__(self):
        return f"Prim[{type(self).__name__}]"


class MatrixInverse(_LinalgPrimitive):
    """``ops.MatrixInverse(adjoint=False)(x)``: the inverse (of the transpose with ``adjoint=True``)."""

    def __init__(self, adjoint=False):
        self.adjoint = bool(adjoint)

    def __call__(self, x):
        return inverse(_t(x) if self.adjoint else x)


class MatrixDeterminant(_LinalgPrimitive):
    """``ops.MatrixDeterminant()(x)``: the determinant."""

    def __call__(self, x):
        return det(x)


class LogMatrixDeterminant(_LinalgPrimitive):
    """``ops.LogMatrixDeterminant()(x)``: ``(sign, log|det|)``."""

    def __call__(self, x):
        return slogdet(x)


class MatrixSolve(_LinalgPrimitive):
    """``ops.MatrixSolve(adjoint=False)(matrix, rhs)``: the solution of ``matrix @ X = rhs``."""

    def __init__(self, adjoint=False):
        self.adjoint = bool(adjoint)

    def __call__(self, matrix, rhs):
        return matrix_solve(matrix, rhs, self.adjoint)


class Cholesky(_LinalgPrimitive):
    """``ops.Cholesky(upper=False)(input_x)``: the Cholesky factor."""

    def __init__(self, upper=False):
        self.upper = bool(upper)

    def __call__(self, input_x):
        return cholesky(input_x, self.upper)


class CholeskyInverse(_LinalgPrimitive):
    """``ops.CholeskyInverse(upper=False)(x)``: ``A^-1`` from A's Cholesky factor."""

    def __init__(self, upper=False):
        self.upper = bool(upper)

    def __call__(self, x):
        return cholesky_inverse(x, self.upper)


class CholeskySolve(_LinalgPrimitive):
    """``ops.CholeskySolve(upper=False)(x1, x2)``: ``X`` with ``A X = x1``, ``x2`` A's Cholesky factor."""

    def __init__(self, upper=False):
        self.upper = bool(upper)

    def __call__(self, x1, x2):
        return cholesky_solve(x1, x2, self.upper)


for _cls in (MatrixInverse, MatrixDeterminant, LogMatrixDeterminant, MatrixSolve, Cholesky, CholeskyInverse,
             CholeskySolve):
    _cls.__module__ = "runtime.ops"


def lstsq(input, A):  # noqa: A002, N803 - MindSpore's names
    """``ops.lstsq(input, A)``: the least-squares solution ``X`` of ``A X = input`` for a full-column-rank
    (M, N) ``A``, M >= N, through the normal equations ``(A^T A) X = A^T input`` (a 1-D ``input`` is one column)."""
    a = _square(bind(_R["matmul"], _t(A), A), "lstsq")
    b = input if input.ndim == 2 else bind(_R["reshape"], input, shape=(input.shape[0], 1))
    b = b if b.dtype == a.dtype else bind(_R["cast"], b, dtype=a.dtype)
    return _solve(a, bind(_R["matmul"], _t(A), b), "lstsq")


__all__ += ["lstsq"]
