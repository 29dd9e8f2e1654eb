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


def lstsq(input, A):  # noqa: A002 - MindSpore's names
    """``ops.lstsq(input, A)``: the least-squares solution ``X`` of ``A X = input`` for a full-column-rank
    (M, N) ``A``, M >= N, through the normal equations ``(A^T A) X = A^T input`` (a 1-D ``input`` is one column)."""
    a = _square(bind(_R["matmul"], _t(A), A), "lstsq")
    b = input if input.ndim == 2 else bind(_R["reshape"], input, shape=(input.shape[0], 1))
    b = b if b.dtype == a.dtype else bind(_R["cast"], b, dtype=a.dtype)
    return _solve(a, bind(_R["matmul"], _t(A), b), "lstsq")


__all__ += ["lstsq"]


# -- diagonal bands (MindSpore's MatrixDiagV3 family: k, alignment, padding) -------------------------------------
def _band(k, fn):
    if isinstance(k, (int, np.integer)):
        return int(k), int(k)
    if is_tensorlike(k):
        k = np.asarray(k.asnumpy()).reshape(-1).tolist()
    k = tuple(int(v) for v in k)
    if len(k) == 1:
        return k[0], k[0]
    if len(k) != 2 or k[0] > k[1]:
        raise ValueError(f"ops.{fn}: k must be an int or a pair (k0 <= k1), got {k!r}")
    return k


def _diag_len(d, rows, cols):
    return min(rows + min(d, 0), cols - max(d, 0))


def _offset(d, length, max_len, align, fn):
    if align not in ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"):
        raise ValueError(f"ops.{fn}: align must be RIGHT_LEFT, LEFT_RIGHT, LEFT_LEFT or RIGHT_RIGHT, got {align!r}")
    side = align.split("_")[0 if d >= 0 else 1]  # superdiagonals follow the first word, subdiagonals the second
    return max_len - length if side == "RIGHT" else 0


def _padded(values, valid, padding_value):
    fill = bind(_R["add"], bind(_R["zeros_like"], values), padding_value if not is_tensorlike(padding_value)
                else bind(_R["cast"], padding_value, dtype=values.dtype))
    return bind(_R["where"], Tensor(valid), values, fill)


def matrix_diag_part(x, k=0, padding_value=0, align="RIGHT_LEFT"):
    """``ops.matrix_diag_part(x, k=0, padding_value=0, align="RIGHT_LEFT")``: the diagonals ``k`` (an int, or a band
    ``(k0, k1)``) of the (..., M, N) matrices: (..., L) for one diagonal, (..., k1 - k0 + 1, L) for a band (rows
    from k1 down to k0, each shorter diagonal padded with ``padding_value`` on the side ``align`` leaves)."""
    fn = "matrix_diag_part"
    k0, k1 = _band(k, fn)
    rows, cols = int(x.shape[-2]), int(x.shape[-1])
    max_len = max(_diag_len(d, rows, cols) for d in range(k0, k1 + 1))
    index = np.zeros((k1 - k0 + 1, max_len), np.int32)
    valid = np.zeros((k1 - k0 + 1, max_len), bool)
    for i, d in enumerate(range(k1, k0 - 1, -1)):
        length = _diag_len(d, rows, cols)
        off = _offset(d, length, max_len, align, fn)
        for j in range(max(length, 0)):
            index[i, off + j] = (j - min(d, 0)) * cols + (j + max(d, 0))
            valid[i, off + j] = True
    flat = bind(_R["reshape"], x, shape=tuple(x.shape[:-2]) + (rows * cols,))
    picked = bind(_R["gather"], flat, Tensor(index), axis=x.ndim - 2)
    out = _padded(picked, valid, padding_value)
    return bind(_R["squeeze"], out, axis=(x.ndim - 2,)) if k0 == k1 else out


def _diag_placement(rows, cols, k0, k1, max_len, align, fn):
    """For an (M, N) output: the flat index into (num_diags * max_len) diagonal values of each cell, and
    whether the cell lies on one of the diagonals."""
    index = np.zeros((rows, cols), np.int32)
    on = np.zeros((rows, cols), bool)
    for r in range(rows):
        for c in range(cols):
            d = c - r
            if not k0 <= d <= k1:
                continue
            length = _diag_len(d, rows, cols)
            j = r + min(d, 0)
            pos = _offset(d, length, max_len, align, fn) + j
            if 0 <= pos < max_len:
                index[r, c] = (k1 - d) * max_len + pos
                on[r, c] = True
    return index, on


def matrix_diag(x, k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"):
    """``ops.matrix_diag(x, k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT")``: matrices with
    the diagonals of ``x`` ((..., L) for one diagonal ``k``, (..., k1 - k0 + 1, L) for a band, laid out as
    :func:`matrix_diag_part` returns them) and ``padding_value`` elsewhere; the size is the smallest that holds
    them unless ``num_rows``/``num_cols`` are given."""
    fn = "matrix_diag"
    k0, k1 = _band(k, fn)
    band = x if k0 != k1 else bind(_R["expand_dims"], x, axis=-2)
    max_len = int(band.shape[-1])
    if band.shape[-2] != k1 - k0 + 1:
        raise ValueError(f"ops.{fn}: x must hold {k1 - k0 + 1} diagonals on axis -2, got shape {tuple(x.shape)}")
    min_rows, min_cols = max_len - min(k1, 0), max_len + max(k0, 0)
    num_rows, num_cols = int(num_rows), int(num_cols)
    if num_rows == -1 and num_cols == -1:
        num_rows = num_cols = max(min_rows, min_cols)
    elif num_rows == -1:
        num_rows = min_rows
    elif num_cols == -1:
        num_cols = min_cols
    index, on = _diag_placement(num_rows, num_cols, k0, k1, max_len, align, fn)
    flat = bind(_R["reshape"], band, shape=tuple(band.shape[:-2]) + ((k1 - k0 + 1) * max_len,))
    picked = bind(_R["gather"], flat, Tensor(index), axis=band.ndim - 2)
    return _padded(picked, on, padding_value)


def matrix_set_diag(x, diagonal, k=0, align="RIGHT_LEFT"):
    """``ops.matrix_set_diag(x, diagonal, k=0, align="RIGHT_LEFT")``: ``x`` with its diagonals ``k`` replaced by
    ``diagonal`` (laid out as :func:`matrix_diag_part` returns them)."""
    fn = "matrix_set_diag"
    k0, k1 = _band(k, fn)
    rows, cols = int(x.shape[-2]), int(x.shape[-1])
    band = diagonal if k0 != k1 else bind(_R["expand_dims"], diagonal, axis=-2)
    max_len = int(band.shape[-1])
    index, on = _diag_placement(rows, cols, k0, k1, max_len, align, fn)
    flat = bind(_R["reshape"], band, shape=tuple(band.shape[:-2]) + ((k1 - k0 + 1) * max_len,))
    placed = bind(_R["gather"], flat, Tensor(index), axis=band.ndim - 2)
    placed = placed if placed.dtype == x.dtype else bind(_R["cast"], placed, dtype=x.dtype)
    return bind(_R["where"], Tensor(on), placed, bind(_R["broadcast_to"], x, shape=tuple(placed.shape)))


class MatrixDiagV3(_LinalgPrimitive):
    """``ops.MatrixDiagV3(align="RIGHT_LEFT")(x, k, num_rows, num_cols, padding_value)``: :func:`matrix_diag`."""

    def __init__(self, align="RIGHT_LEFT"):
        self.align = align

    def __call__(self, x, k, num_rows, num_cols, padding_value):
        def scalar(v):
            return int(np.asarray(v.asnumpy()).reshape(-1)[0]) if is_tensorlike(v) else int(v)
        return matrix_diag(x, k, scalar(num_rows), scalar(num_cols), padding_value, self.align)


class MatrixDiagPartV3(_LinalgPrimitive):
    """``ops.MatrixDiagPartV3(align="RIGHT_LEFT")(x, k, padding_value)``: :func:`matrix_diag_part`."""

    def __init__(self, align="RIGHT_LEFT"):
        self.align = align

    def __call__(self, x, k, padding_value):
        return matrix_diag_part(x, k, padding_value, self.align)


class MatrixSetDiagV3(_LinalgPrimitive):
    """``ops.MatrixSetDiagV3(align="RIGHT_LEFT")(x, diagonal, k)``: :func:`matrix_set_diag`."""

    def __init__(self, align="RIGHT_LEFT"):
        self.align = align

    def __call__(self, x, diagonal, k):
        return matrix_set_diag(x, diagonal, k, self.align)


for _cls in (MatrixDiagV3, MatrixDiagPartV3, MatrixSetDiagV3):
    _cls.__module__ = "runtime.ops"
__all__ += ["matrix_diag_part", "matrix_diag", "matrix_set_diag", "MatrixDiagV3", "MatrixDiagPartV3",
            "MatrixSetDiagV3"]
