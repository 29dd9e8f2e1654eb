"""Linear algebra: matmul (batched, with transpose_a/transpose_b) and bias_add."""
from __future__ import annotations

from ..aval import AVal
from ..dtypes import promote
from .core import EXTERN, Attr, F, Op, a_bool, a_oneof, describe, fail, register
from .elementwise import unbroadcast
from .core import broadcast_shapes, input_needed


def _mm_shapes(x, y, transpose_a, transpose_b):
    if x.ndim == 0 or y.ndim == 0:
        fail("matmul", f"operands must have rank >= 1, got shapes {tuple(x.shape)} and {tuple(y.shape)}")
    xs, ys = list(x.shape), list(y.shape)
    if x.ndim == 1:
        xs = [1] + xs
    if y.ndim == 1:
        ys = ys + [1]
    if transpose_a and x.ndim >= 2:
        xs[-1], xs[-2] = xs[-2], xs[-1]
    if transpose_b and y.ndim >= 2:
        ys[-1], ys[-2] = ys[-2], ys[-1]
    if xs[-1] != ys[-2]:
        fail("matmul", f"inner dimensions differ: x shape {tuple(x.shape)} (transpose_a={transpose_a}) "
                       f"and y shape {tuple(y.shape)} (transpose_b={transpose_b}) give {xs[-1]} vs {ys[-2]}")
    batch = broadcast_shapes("matmul", tuple(xs[:-2]), tuple(ys[:-2]))
    out = list(batch) + [xs[-2], ys[-1]]
    if x.ndim == 1:
        out.pop(-2)
    if y.ndim == 1:
        out.pop(-1)
    return tuple(out)


def _infer_matmul(x, y, transpose_a=False, transpose_b=False):
    if x.dtype is not y.dtype and not (x.dtype.is_float and y.dtype.is_float):
        fail("matmul", f"operand dtypes differ: {describe(x)} and {describe(y)}", TypeError)
    if x.dtype.is_bool:
        fail("matmul", f"bool operands are not supported: {describe(x)}", TypeError)
    return AVal(_mm_shapes(x, y, transpose_a, transpose_b), promote(x.dtype, y.dtype))


def _swap(xp, a):
    return a.swapaxes(-1, -2)  # (the method: numpy's function form costs a dispatch)


def _matmul_impl(xp, x, y, transpose_a=False, transpose_b=False):
    """numpy/cupy ``matmul`` with the transposes as views (BLAS takes a transposed 2-D operand as a
    flag). A stack of matrices times one matrix is one matrix product: the stack is folded into
    rows, so BLAS runs one large GEMM instead of one small GEMM per matrix of the stack (numpy's
    stacked loop), which is several times slower on every thread count (the Transformer's
    projections: (64, 16, 128) @ (128, 128)^T). The fold copies the stack only when its layout
    needs one (a transposed or sliced view), O(rows x k) next to the product's O(rows x k x n)."""
    if x.ndim == 2 and y.ndim == 2 and x.dtype is y.dtype:  # (the common case, in fewer steps)
        if transpose_a:
            x = x.T
        if transpose_b:
            y = y.T
        item, (x0, x1), (y0, y1) = x.itemsize, x.strides, y.strides
        if (x1 == item or x0 == item) and (y1 == item or y0 == item):  # (_blas_ready's test, inline)
            return xp.matmul(x, y)
        return xp.matmul(_blas_ready(xp, x), _blas_ready(xp, y))
    if transpose_a and x.ndim >= 2:
        x = _swap(xp, x)
    if transpose_b and y.ndim >= 2:
        y = _swap(xp, y)
    if x.dtype != y.dtype:
        dt = xp.promote_types(x.dtype, y.dtype)
        x, y = x.astype(dt), y.astype(dt)
    if x.ndim >= 3 and y.ndim == 2:
        rows = xp.matmul(_blas_ready(xp, x.reshape(-1, x.shape[-1])), _blas_ready(xp, y))
        return rows.reshape(x.shape[:-1] + (y.shape[-1],))
    return xp.matmul(_blas_ready(xp, x), _blas_ready(xp, y))


def _blas_ready(xp, a):
    """``a`` itself when BLAS takes its matrices as they are (one of the last two axes has unit
    stride: row-major, or column-major passed as a transpose flag), else a contiguous copy: a
    strided slice would otherwise be copied or looped over inside numpy (numpy < 2 runs its
    non-BLAS loop), and the copy is O(m x k) next to the product's O(m x k x n)."""
    if a.ndim < 2:
        return a
    item = a.itemsize
    s = a.strides
    if s[-1] == item or s[-2] == item or a.shape[-1] == 1 or a.shape[-2] == 1:
        return a
    return xp.ascontiguousarray(a)


def _static(shape) -> bool:
    """Whether every dimension is a known int (graph values may carry symbolic dimensions)."""
    return all(isinstance(d, int) for d in shape)  # (graph.symint.SymInt sizes are known ints)


def _rows(t):
    """A stack of matrices (..., m, k) as one matrix of rows (prod(...) * m, k)."""
    return F.reshape(t, shape=(-1, t.shape[-1]))


def _matmul_vjp(g, out, x, y, transpose_a=False, transpose_b=False):
    # Work on rank >= 2 views; 1-D operands are matrices with a unit dimension.
    x2 = F.reshape(x, shape=(1,) + tuple(x.shape)) if x.ndim == 1 else x
    y2 = F.reshape(y, shape=tuple(y.shape) + (1,)) if y.ndim == 1 else y
    ta = transpose_a and x.ndim >= 2
    tb = transpose_b and y.ndim >= 2
    gshape = list(g.shape)
    if x.ndim == 1:
        gshape.insert(len(gshape) - (0 if y.ndim == 1 else 1), 1)
    if y.ndim == 1:
        gshape.append(1)
    g2 = F.reshape(g, shape=tuple(gshape)) if tuple(gshape) != tuple(g.shape) else g
    mm = F.matmul
    # (PyNative: a product whose cotangent nothing reads, e.g. the data's, is not computed)
    want_x, want_y = input_needed(0), input_needed(1)

    def products(gx, gy):
        return (gx() if want_x else None), (gy() if want_y else None)
    if x.ndim >= 3 and y.ndim == 2 and not ta and _static(x.shape) and _static(g.shape):
        # a stack times one matrix: the weight's gradient sums over the stack, which is one
        # matrix product of the stacked rows (no per-matrix products to reduce afterwards)
        if tb:
            return products(lambda: mm(g, y), lambda: mm(_rows(g), _rows(x), transpose_a=True))
        return products(lambda: mm(g, y, transpose_b=True), lambda: mm(_rows(x), _rows(g), transpose_a=True))
    if not ta and not tb:
        gx, gy = products(lambda: mm(g2, y2, transpose_b=True), lambda: mm(x2, g2, transpose_a=True))
    elif not ta and tb:
        gx, gy = products(lambda: mm(g2, y2), lambda: mm(g2, x2, transpose_a=True))
    elif ta and not tb:
        gx, gy = products(lambda: mm(y2, g2, transpose_b=True), lambda: mm(x2, g2))
    else:
        gx, gy = products(lambda: mm(y2, g2, transpose_a=True, transpose_b=True),
                          lambda: mm(g2, x2, transpose_a=True, transpose_b=True))
    gx = None if gx is None else unbroadcast(gx, x2)
    gy = None if gy is None else unbroadcast(gy, y2)
    if gx is not None and x.ndim == 1:
        gx = F.reshape(gx, shape=tuple(x.shape))
    if gy is not None and y.ndim == 1:
        gy = F.reshape(gy, shape=tuple(y.shape))
    return gx, gy


register(Op("matmul", prim="MatMul", inputs=("x", "y"), impl=_matmul_impl, infer=_infer_matmul,
            vjp=_matmul_vjp, kind=EXTERN,
            attrs={"transpose_a": Attr(False, a_bool), "transpose_b": Attr(False, a_bool)},
            doc="matrix product (batched like numpy), optionally transposing the last two axes"))


def _channel_axis(x, data_format):
    return x.ndim - 1 if data_format == "nhwc" else 1


def _infer_bias_add(x, bias, data_format="nchw"):
    if x.ndim < 2:
        fail("bias_add", f"input must have rank >= 2, got shape {tuple(x.shape)}")
    if bias.ndim != 1:
        fail("bias_add", f"bias must be 1-D, got shape {tuple(bias.shape)}")
    c = x.shape[_channel_axis(x, data_format)]
    if bias.shape[0] != c:
        fail("bias_add", f"bias shape {tuple(bias.shape)} does not match the channel dimension {c} "
                         f"(axis {_channel_axis(x, data_format)}, data_format={data_format.upper()}) "
                         f"of input shape {tuple(x.shape)}")
    if x.dtype is not bias.dtype:
        fail("bias_add", f"input and bias dtypes differ: {describe(x)} and {describe(bias)}", TypeError)
    return AVal(x.shape, x.dtype)


def _bias_view_shape(x, data_format):
    ax = _channel_axis(x, data_format)
    return tuple(x.shape[ax] if i == ax else 1 for i in range(x.ndim))


def _bias_add_impl(xp, x, bias, data_format="nchw"):
    return x + xp.reshape(bias, _bias_view_shape(x, data_format))


def _bias_add_vjp(g, out, x, bias, data_format="nchw"):
    ax = _channel_axis(x, data_format)
    axes = tuple(i for i in range(x.ndim) if i != ax)
    return g, F.reduce_sum(g, axis=axes, keep_dims=False)


register(Op("bias_add", prim="BiasAdd", inputs=("x", "bias"), impl=_bias_add_impl,
            infer=_infer_bias_add, vjp=_bias_add_vjp, kind=EXTERN,
            attrs={"data_format": Attr("nchw", a_oneof("nchw", "nhwc", "ncdhw"))},
            doc="add a 1-D bias along the channel axis (axis 1 for NCHW, last for NHWC)"))
