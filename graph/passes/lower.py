"""Lower convolutions to their layout halves and matrix products, and layer_norm to the reductions
and elementwise ops of its definition (a graph -> graph pass).

``conv2d`` and its two backprop ops (``groups=1``) with enough output channels
(:func:`batch_columns`) are written with the columns of the whole batch as one matrix (layout
"knp": K = C*kh*kw rows, N*P columns with P = Ho*Wo), so each is one big product:

    conv2d(x, w)                    = (N, O, P) transpose of  reshape(w, (O, K)) @ conv_im2col(x)
    conv2d_backprop_filter(dout, x) = reshape(doutT @ conv_im2col(x)^T, w.shape)
    conv2d_backprop_input(dout, w)  = conv_col2im(reshape(w, (O, K))^T @ doutT)

with doutT = dout as (O, N*P) (a transpose keeping the pixel rows). Thin ones and a single
image keep the per-image layout ("nkp": (N, K, P) columns, batched products, the filter gradient
a batch of products summed), which needs no transposes. The forward's columns and the filter gradient's are then the
same node, which CSE (the next pass) merges: a training step computes each layer's im2col once,
not twice; the two products of the backward share doutT the same way. The products are ordinary
``matmul`` nodes (BLAS into planned buffers) and the layout ops are what a backend generates
natively (codegen/cpu/native/).

Convolutions with few inputs per output (C*kh*kw <= :data:`DIRECT_MAX_INPUTS`, like a first layer
on one-channel images), no padding and large columns (at least :data:`DIRECT_MIN_COLUMNS`
values) stay ``conv2d`` / ``conv2d_backprop_filter``: their columns would be kh*kw times the
input, written and read twice by products too thin for BLAS, and a backend computes them
directly (codegen/cpu/native.py's direct convolution). Measured on LeNet5's first layer: at
batch 256 (5M column values) the step is 22% faster direct; at batch 32 (0.6M) the two are
within noise and the columns compile faster.

Example:
    >>> from graph.aval import AVal
    >>> from graph.dtypes import float32
    >>> from graph.ir import Graph
    >>> from graph.ops import F
    >>> g = Graph("conv")
    >>> x = g.add_input(AVal((2, 4, 6, 6), float32), "x")
    >>> w = g.add_input(AVal((64, 4, 3, 3), float32), "w")
    >>> g.set_outputs([F.conv2d(x, w)])
    >>> [n.op.name for n in lower_convolutions(g).nodes]
    ['conv_im2col', 'reshape', 'reshape', 'matmul', 'reshape', 'transpose', 'reshape']
"""
from __future__ import annotations

from ..dtypes import float16
from ..ir import Graph, Value
from ..ops import REGISTRY
from .rewrite import Rewriter

_WINDOW = ("stride", "pad_mode", "padding", "dilation")

#: largest C*kh*kw computed as a direct convolution rather than columns and a product
DIRECT_MAX_INPUTS = 32
#: fewest column values (N*C*kh*kw*Ho*Wo) for which a direct convolution is worth it
DIRECT_MIN_COLUMNS = 1 << 21


def direct_convolution(x_shape, w_shape, attrs) -> bool:
    """Whether a convolution of these shapes and attributes is left for a direct kernel."""
    from ..ops.nn import _conv_check
    if attrs.get("groups", 1) != 1 or w_shape[1] * w_shape[2] * w_shape[3] > DIRECT_MAX_INPUTS:
        return False
    pads, (ho, wo) = _conv_check("conv2d", tuple(x_shape), tuple(w_shape), attrs["stride"], attrs["pad_mode"],
                                 attrs["padding"], attrs["dilation"], 1)
    columns = x_shape[0] * w_shape[1] * w_shape[2] * w_shape[3] * ho * wo
    return not any(pads) and columns >= DIRECT_MIN_COLUMNS


def _emit(rw: Rewriter, name: str, inputs, loc, **attrs) -> Value:
    """Append op ``name`` (attributes normalised, output inferred) to the new graph."""
    op = REGISTRY[name]
    attrs = op.normalize(attrs)
    aval = op.infer_rule(*inputs, **attrs)
    return rw.emit_new(op, inputs, attrs, (aval,), loc).outputs[0]


def _window_attrs(node, kernel_size):
    return {"kernel_size": tuple(kernel_size), **{k: node.attrs[k] for k in _WINDOW}}


#: fewest output channels for which a convolution's columns are the whole batch's (see batch_columns)
BATCH_COLUMNS_MIN_CHANNELS = 64


def batch_columns(n, o, k, p) -> bool:
    """Whether a convolution's columns are laid out for the whole batch ("knp": one product over
    N*P columns) rather than per image ("nkp": N products over P columns each). OpenBLAS runs the
    one big product faster on every ResNet shape (64-512 output channels), by most where the
    feature maps are small (single-threaded, 512 x 4608 over 32 images of 4x4: 58 GFLOP/s per
    image, 95 for the batch; the filter gradient 30 against 89-99), at the price of a transpose
    of the output (and of the output gradient) between (N, O, P) and (O, N, P), O*N*P values
    each, against O*K*N*P multiply-adds. With few output channels the product is too thin for
    the batch's layout to pay (LeNet5's 16 x 150 over 128 images of 10x10: 75 GFLOP/s per image,
    47 for the batch), so those keep the per-image layout, as does a single image (no transpose)."""
    return n > 1 and o >= BATCH_COLUMNS_MIN_CHANNELS


def _columns(rw, node, x, kernel, layout):
    """conv_im2col of ``x`` as a matrix: (N, K, P) per image, or (K, N*P) for the batch."""
    cols = _emit(rw, "conv_im2col", (x,), node.loc, layout=layout, **_window_attrs(node, kernel))
    if layout == "nkp":
        return cols
    k, n, p = cols.shape
    return _emit(rw, "reshape", (cols,), node.loc, shape=(k, n * p))


def _batch_major(rw, node, y, n, o, p):
    """(O, N*P) -> (N, O, P): a product's result over the batch's columns, image by image."""
    y3 = _emit(rw, "reshape", (y,), node.loc, shape=(o, n, p))
    return _emit(rw, "transpose", (y3,), node.loc, perm=(1, 0, 2))


def _channel_major(rw, node, dout):
    """(N, O, Ho, Wo) -> (O, N*Ho*Wo): an output gradient as the batch's columns."""
    n, o, ho, wo = dout.shape
    d3 = _emit(rw, "reshape", (dout,), node.loc, shape=(n, o, ho * wo))
    dt = _emit(rw, "transpose", (d3,), node.loc, perm=(1, 0, 2))
    return _emit(rw, "reshape", (dt,), node.loc, shape=(o, n * ho * wo))


def _conv2d(node, ins, rw):
    x, w = ins
    n, o, ho, wo = node.outputs[0].shape
    k = w.shape[1] * w.shape[2] * w.shape[3]
    layout = "knp" if batch_columns(n, o, k, ho * wo) else "nkp"
    cols = _columns(rw, node, x, w.shape[2:], layout)
    w2 = _emit(rw, "reshape", (w,), node.loc, shape=(o, k))
    y = _emit(rw, "matmul", (w2, cols), node.loc)  # (N, O, P) or (O, N*P)
    if layout == "knp":
        y = _batch_major(rw, node, y, n, o, ho * wo)
    return _emit(rw, "reshape", (y,), node.loc, shape=(n, o, ho, wo))


def _backprop_filter(node, ins, rw):
    dout, x = ins
    n, o, ho, wo = dout.shape
    fshape = node.attrs["filter_size"]
    k = fshape[1] * fshape[2] * fshape[3]
    layout = "knp" if batch_columns(n, o, k, ho * wo) else "nkp"
    cols = _columns(rw, node, x, fshape[2:], layout)
    if layout == "knp":  # one product summing over the batch's columns
        dw2 = _emit(rw, "matmul", (_channel_major(rw, node, dout), cols), node.loc, transpose_b=True)  # (O, K)
    else:
        d3 = _emit(rw, "reshape", (dout,), node.loc, shape=(n, o, ho * wo))
        dw3 = _emit(rw, "matmul", (d3, cols), node.loc, transpose_b=True)  # (N, O, K)
        dw2 = _emit(rw, "reduce_sum", (dw3,), node.loc, axis=0)
    return _emit(rw, "reshape", (dw2,), node.loc, shape=tuple(fshape))


def _backprop_input(node, ins, rw):
    dout, w = ins
    n, o, ho, wo = dout.shape
    k = w.shape[1] * w.shape[2] * w.shape[3]
    layout = "knp" if batch_columns(n, o, k, ho * wo) else "nkp"
    w2 = _emit(rw, "reshape", (w,), node.loc, shape=(o, k))
    if layout == "knp":
        dcols = _emit(rw, "matmul", (w2, _channel_major(rw, node, dout)), node.loc, transpose_a=True)  # (K, N*P)
        dcols = _emit(rw, "reshape", (dcols,), node.loc, shape=(k, n, ho * wo))
    else:
        d3 = _emit(rw, "reshape", (dout,), node.loc, shape=(n, o, ho * wo))
        dcols = _emit(rw, "matmul", (w2, d3), node.loc, transpose_a=True)  # (N, K, P)
    return _emit(rw, "conv_col2im", (dcols,), node.loc, input_size=tuple(node.attrs["input_size"]), layout=layout,
                 **_window_attrs(node, w.shape[2:]))


def _layer_norm(node, ins, rw):
    """layer_norm as the reductions and elementwise ops of its definition (graph/ops/nn.py's impl:
    mean, centred variance, 1 / sqrt(var + eps), then (x - mean) * rstd * gamma + beta), which
    fusion turns into a few row kernels instead of numpy's passes inside compiled code."""
    x, gamma, beta = ins
    loc = node.loc
    axes = tuple(range(node.attrs["begin_norm_axis"] % x.ndim, x.ndim))
    mean = _emit(rw, "reduce_mean", (x,), loc, axis=axes, keep_dims=True)
    centred = _emit(rw, "sub", (x, mean), loc)
    var = _emit(rw, "reduce_mean", (_emit(rw, "mul", (centred, centred), loc),), loc, axis=axes, keep_dims=True)
    root = _emit(rw, "sqrt", (_emit(rw, "add", (var, float(node.attrs["epsilon"])), loc),), loc)
    rstd = _emit(rw, "div", (1.0, root), loc)
    y = _emit(rw, "add", (_emit(rw, "mul", (_emit(rw, "mul", (centred, rstd), loc), gamma), loc), beta), loc)
    return y, mean, rstd


def _layer_norm_lowerable(node, ins) -> bool:
    """Float operands of one dtype (the impl casts gamma and beta to x's dtype; ops would promote)."""
    x = ins[0]
    return (all(isinstance(v, Value) for v in ins) and x.dtype.is_float and x.dtype is not float16
            and all(v.dtype is x.dtype for v in ins))


RULES = {"conv2d": _conv2d, "conv2d_backprop_filter": _backprop_filter,
         "conv2d_backprop_input": _backprop_input}
#: multi-output ops written as several: name -> (rule returning one value per output, lowerable test)
MULTI_RULES = {"layer_norm": (_layer_norm, _layer_norm_lowerable)}


def _lowerable(node, ins) -> bool:
    if not (node.attrs.get("groups", 1) == 1 and all(isinstance(v, Value) for v in ins)
            and ins[0].dtype is ins[1].dtype and ins[0].dtype.is_float):
        return False
    name = node.op.name
    if name == "conv2d_backprop_input":
        return True
    x_shape = ins[0].shape if name == "conv2d" else ins[1].shape
    w_shape = ins[1].shape if name == "conv2d" else node.attrs["filter_size"]
    return not direct_convolution(x_shape, w_shape, node.attrs)


def lower_convolutions(graph: Graph) -> Graph:
    """Rewrite every ``groups=1`` convolution op as im2col/col2im and matmuls (new Graph)."""
    rw = Rewriter(graph)
    for node in graph.nodes:
        rule = RULES.get(node.op.name)
        ins = tuple(rw.get(v) for v in node.inputs)
        multi = MULTI_RULES.get(node.op.name)
        if multi is not None and multi[1](node, ins):
            for old, new in zip(node.outputs, multi[0](node, ins, rw)):
                assert new.aval == old.aval, (node.op.name, new.aval, old.aval)
                rw.alias(old, new)
        elif rule is not None and _lowerable(node, ins):
            out = rule(node, ins, rw)
            assert out.aval == node.outputs[0].aval, (node.op.name, out.aval, node.outputs[0].aval)
            rw.alias(node.outputs[0], out)
        else:
            rw.emit(node, ins)
    return rw.finish()
