"""Neural-network ops of the registry (graph/ops/nn.py): forward against plain numpy loops and
formulas, gradients against central finite differences (float64), shape/dtype inference against
the eager result, and clear errors for bad input."""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

import runtime as ms
from gradcheck import check_grad
from graph.aval import AVal
from graph.dtypes import float32, float64
from graph.ops import REGISTRY
from runtime import Tensor, nn, ops
from runtime.ops._generated import FUNCTIONS as REGISTRY_FUNCTIONS

# the registry's own functional forms (attributes as arguments); runtime.ops has MindSpore 2.x's
reg = SimpleNamespace(**REGISTRY_FUNCTIONS)

NN_OPS = ["conv2d", "conv2d_backprop_input", "conv2d_backprop_filter", "conv_im2col", "conv_col2im", "max_pool2d",
          "max_pool2d_grad", "avg_pool2d", "avg_pool2d_grad", "batch_norm", "layer_norm", "dropout",
          "softmax_cross_entropy", "sparse_softmax_cross_entropy", "one_hot", "gather",
          "unsorted_segment_sum"]


# -- helpers --------------------------------------------------------------------------------------------
def call(name, *inputs, **attrs):
    """Run ops.<name> eagerly and assert that the op's infer rule predicts every output's
    shape and dtype; returns the output Tensor(s)."""
    out = REGISTRY_FUNCTIONS[name](*inputs, **attrs)
    op = REGISTRY[name]
    n_in = len(op.inputs)
    named = dict(zip(op.attrs, inputs[n_in:]), **attrs)  # positional attributes follow the inputs
    pred = op.infer(*inputs[:n_in], **op.normalize(named))
    outs = out if isinstance(out, tuple) else (out,)
    preds = pred if isinstance(pred, tuple) else (pred,)
    assert len(outs) == len(preds) == op.n_outputs
    for o, p in zip(outs, preds):
        assert tuple(o.shape) == p.shape, f"{name}: infer shape {p.shape} != result {tuple(o.shape)}"
        assert o.dtype is p.dtype, f"{name}: infer dtype {p.dtype} != result {o.dtype}"
    return out


def np_of(t):
    return t.asnumpy() if isinstance(t, Tensor) else t


def same_pads(size, k, s, d=1):
    """TF/MindSpore 'same' padding along one axis: (before, after), the odd one after."""
    out = -(-size // s)
    total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
    return total // 2, total - total // 2


def conv_oracle(x, w, stride=1, pad_mode="valid", padding=0, dilation=1, groups=1):
    """Direct convolution: a loop over output positions, np.sum over each window."""
    sh, sw = (stride, stride) if isinstance(stride, int) else stride
    dh, dw = (dilation, dilation) if isinstance(dilation, int) else dilation
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    if pad_mode == "same":
        pt, pb = same_pads(h, kh, sh, dh)
        pl, pr = same_pads(wd, kw, sw, dw)
    elif pad_mode == "pad":
        pt, pb, pl, pr = (padding,) * 4 if isinstance(padding, int) else padding
    else:
        pt = pb = pl = pr = 0
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    ho = (h + pt + pb - (kh - 1) * dh - 1) // sh + 1
    wo = (wd + pl + pr - (kw - 1) * dw - 1) // sw + 1
    og = o // groups
    y = np.zeros((n, o, ho, wo))
    for b in range(n):
        for oc in range(o):
            g = oc // og
            for i in range(ho):
                for j in range(wo):
                    win = xp[b, g * cg:(g + 1) * cg,
                             i * sh:i * sh + (kh - 1) * dh + 1:dh,
                             j * sw:j * sw + (kw - 1) * dw + 1:dw]
                    y[b, oc, i, j] = np.sum(win * w[oc])
    return y


def pool_oracle(x, k, s, pad_mode, kind):
    """Max/avg pooling by loops; 'same' padding never wins a max and is not averaged over."""
    kh, kw = (k, k) if isinstance(k, int) else k
    sh, sw = (s, s) if isinstance(s, int) else s
    n, c, h, w = x.shape
    if pad_mode == "same":
        pt, _ = same_pads(h, kh, sh)
        pl, _ = same_pads(w, kw, sw)
        ho, wo = -(-h // sh), -(-w // sw)
    else:
        pt = pl = 0
        ho, wo = (h - kh) // sh + 1, (w - kw) // sw + 1
    y = np.zeros((n, c, ho, wo))
    for i in range(ho):
        for j in range(wo):
            r0, c0 = i * sh - pt, j * sw - pl
            win = x[:, :, max(r0, 0):min(r0 + kh, h), max(c0, 0):min(c0 + kw, w)]
            y[:, :, i, j] = win.max(axis=(2, 3)) if kind == "max" else win.mean(axis=(2, 3))
    return y


def max_pool_grad_oracle(x, dout, k, s, pad_mode):
    kh, kw = (k, k) if isinstance(k, int) else k
    sh, sw = (s, s) if isinstance(s, int) else s
    n, c, h, w = x.shape
    pt = same_pads(h, kh, sh)[0] if pad_mode == "same" else 0
    pl = same_pads(w, kw, sw)[0] if pad_mode == "same" else 0
    dx = np.zeros_like(x, dtype=np.float64)
    for b in range(n):
        for ch in range(c):
            for i in range(dout.shape[2]):
                for j in range(dout.shape[3]):
                    r0, c0 = i * sh - pt, j * sw - pl
                    rs, cs = max(r0, 0), max(c0, 0)
                    win = x[b, ch, rs:min(r0 + kh, h), cs:min(c0 + kw, w)]
                    a = np.argmax(win)  # first maximum in row-major order
                    dx[b, ch, rs + a // win.shape[1], cs + a % win.shape[1]] += dout[b, ch, i, j]
    return dx


def test_registry_records():
    for name in NN_OPS:
        op = REGISTRY[name]
        assert op.prim and op.name == name
        assert op.vjp is not None or op.nondiff
    prims = [REGISTRY[n].prim for n in NN_OPS]
    assert len(set(prims)) == len(prims)
    assert REGISTRY["conv2d"].prim == "Conv2D" and REGISTRY["dropout"].kind == "random"
    assert ops.Conv2D and ops.MaxPool and ops.AvgPool and ops.SoftmaxCrossEntropyWithLogits


# ==========================================================================================================
# conv2d
# ==========================================================================================================
CONV_CASES = [
    # x shape, w shape, attrs
    ((2, 3, 7, 7), (4, 3, 3, 3), dict()),
    ((2, 3, 7, 6), (4, 3, 3, 2), dict(stride=2)),
    ((1, 2, 8, 9), (3, 2, 3, 3), dict(pad_mode="same")),
    ((2, 2, 7, 8), (3, 2, 4, 2), dict(pad_mode="same", stride=(2, 3))),
    ((1, 2, 9, 9), (2, 2, 3, 3), dict(pad_mode="same", dilation=2)),
    ((2, 2, 6, 5), (3, 2, 3, 3), dict(pad_mode="pad", padding=1)),
    ((1, 3, 6, 7), (2, 3, 2, 3), dict(pad_mode="pad", padding=(1, 0, 2, 1), stride=(1, 2))),
    ((2, 4, 8, 8), (6, 2, 3, 3), dict(groups=2, pad_mode="pad", padding=(0, 1, 1, 0))),
    ((2, 4, 9, 9), (4, 1, 3, 3), dict(groups=4, stride=2, pad_mode="same")),  # depthwise
    ((1, 2, 9, 10), (2, 1, 2, 3), dict(groups=2, dilation=(2, 1), stride=(1, 2))),
    ((3, 1, 20, 21), (2, 1, 5, 5), dict()),  # wide maps: the batch-first column layout
    ((2, 2, 30, 30), (3, 2, 3, 3), dict(pad_mode="same", stride=2)),
]


@pytest.mark.parametrize("xs,ws,attrs", CONV_CASES)
def test_conv2d_forward(rng, xs, ws, attrs):
    x = rng.standard_normal(xs).astype(np.float32)
    w = rng.standard_normal(ws).astype(np.float32)
    y = call("conv2d", Tensor(x), Tensor(w), **attrs)
    np.testing.assert_allclose(y.asnumpy(), conv_oracle(x, w, **attrs), rtol=1e-4, atol=1e-4)


def test_conv2d_float64_and_lenet_shapes(rng):
    x = rng.standard_normal((4, 1, 32, 32))
    w1 = rng.standard_normal((6, 1, 5, 5))
    y1 = call("conv2d", Tensor(x), Tensor(w1))
    assert y1.dtype is float64 and y1.shape == (4, 6, 28, 28)
    np.testing.assert_allclose(y1.asnumpy(), conv_oracle(x, w1), rtol=1e-10, atol=1e-10)
    h = rng.standard_normal((2, 6, 14, 14))
    w2 = rng.standard_normal((16, 6, 5, 5))
    np.testing.assert_allclose(call("conv2d", Tensor(h), Tensor(w2)).asnumpy(), conv_oracle(h, w2),
                               rtol=1e-10, atol=1e-10)


def test_conv2d_same_puts_extra_padding_bottom_right():
    # 4x4 input, 2x2 kernel, stride 1, 'same': one padding row/column, at the bottom/right
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    w = np.ones((1, 1, 2, 2), np.float32)
    y = reg.conv2d(Tensor(x), Tensor(w), pad_mode="same").asnumpy()[0, 0]
    assert y[0, 0] == 0 + 1 + 4 + 5
    assert y[3, 3] == 15  # bottom-right window sees only x[3, 3]


def test_conv2d_primitive_and_positional_attrs(rng):
    x = rng.standard_normal((1, 2, 5, 5)).astype(np.float32)
    w = rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
    ref = conv_oracle(x, w, stride=1, pad_mode="same")
    np.testing.assert_allclose(ops.Conv2D(3, 3, pad_mode="same")(Tensor(x), Tensor(w)).asnumpy(),
                               ref, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(reg.conv2d(Tensor(x), Tensor(w), 1, "same").asnumpy(), ref,
                               rtol=1e-4, atol=1e-4)
    # MindSpore spelling of a 4-element stride (1, 1, sh, sw)
    y = reg.conv2d(Tensor(x), Tensor(w), (1, 1, 2, 2))
    np.testing.assert_allclose(y.asnumpy(), conv_oracle(x, w, stride=2), rtol=1e-4, atol=1e-4)


def test_conv2d_infer_on_abstract_values():
    out = REGISTRY["conv2d"].infer(AVal((8, 3, 32, 32), float32), AVal((16, 3, 3, 3), float32),
                                   **REGISTRY["conv2d"].normalize(dict(pad_mode="same", stride=2)))
    assert out == AVal((8, 16, 16, 16), float32)


@pytest.mark.parametrize("xs,ws,attrs", [
    ((1, 2, 5, 5), (3, 2, 3, 3), dict()),
    ((2, 2, 5, 4), (2, 2, 2, 3), dict(stride=(2, 1), pad_mode="same")),
    ((1, 2, 5, 6), (2, 2, 3, 2), dict(pad_mode="pad", padding=(1, 0, 0, 2), dilation=(1, 2))),
    ((1, 4, 5, 5), (4, 2, 2, 2), dict(groups=2, stride=2, pad_mode="same")),
    ((1, 1, 18, 18), (2, 1, 3, 3), dict(stride=1)),  # Wo = 16: batch-last column layout
    ((1, 1, 19, 19), (1, 1, 2, 2), dict(stride=1)),  # Wo = 18: batch-first column layout
])
def test_conv2d_grad(rng, xs, ws, attrs):
    x = rng.standard_normal(xs)
    w = rng.standard_normal(ws)
    check_grad(lambda a, b: reg.conv2d(a, b, **attrs), x, w)


@pytest.mark.parametrize("layout", ["nkp", "knp"])
@pytest.mark.parametrize("xs,ws,attrs", [c for c in CONV_CASES if "groups" not in c[2]])
def test_im2col_columns_times_the_weight_is_the_convolution(rng, xs, ws, attrs, layout):
    """conv_im2col against a loop over its definition, and weight @ columns == conv2d's oracle;
    conv_col2im is its adjoint: <im2col(x), c> == <x, col2im(c)>. Layout "knp" is the same
    columns with the batch axis second: (K, N, P)."""
    x = rng.standard_normal(xs)
    w = rng.standard_normal(ws)
    kattrs = dict(attrs, kernel_size=ws[2:], layout=layout)
    cols = call("conv_im2col", Tensor(x), **kattrs).asnumpy()
    if layout == "knp":  # checked below in the per-image order
        assert cols.shape[1] == xs[0]
        cols_knp, cols = cols, np.ascontiguousarray(cols.transpose(1, 0, 2))
    y = conv_oracle(x, w, **attrs)
    n, o, ho, wo = y.shape
    np.testing.assert_allclose((w.reshape(o, -1) @ cols).reshape(y.shape), y, rtol=1e-10, atol=1e-10)
    # entry (c, i, j) x (oh, ow) reads x[c, oh*s + i*d - pad_top, ow*s + j*d - pad_left] (0 outside)
    op = REGISTRY["conv_im2col"]
    a = op.normalize(kattrs)
    from graph.ops.nn import _window_check
    (pt, _, pl, _), _ = _window_check("t", xs, a["kernel_size"], a["stride"], a["pad_mode"], a["padding"], a["dilation"])
    c_, kh, kw = xs[1], ws[2], ws[3]
    want = np.zeros_like(cols)
    for c in range(c_):
        for i in range(kh):
            for j in range(kw):
                for oh in range(ho):
                    for ow in range(wo):
                        ih = oh * a["stride"][0] + i * a["dilation"][0] - pt
                        iw = ow * a["stride"][1] + j * a["dilation"][1] - pl
                        if 0 <= ih < xs[2] and 0 <= iw < xs[3]:
                            want[:, (c * kh + i) * kw + j, oh * wo + ow] = x[:, c, ih, iw]
    np.testing.assert_array_equal(cols, want)
    if layout == "knp":
        cols = cols_knp
    g = rng.standard_normal(cols.shape)
    dx = call("conv_col2im", Tensor(g), input_size=xs, **kattrs).asnumpy()
    np.testing.assert_allclose(np.vdot(cols, g), np.vdot(x, dx), rtol=1e-10)
    check_grad(lambda t: reg.conv_im2col(t, **kattrs), x)
    check_grad(lambda t: reg.conv_col2im(t, xs, **kattrs), g)


def test_im2col_bad_input():
    x = Tensor(np.zeros((1, 2, 4, 4), np.float32))
    with pytest.raises(ValueError, match="conv_im2col.*does not fit"):
        ops.conv_im2col(x, kernel_size=5)
    with pytest.raises(ValueError, match="conv_col2im.*columns shape"):
        ops.conv_col2im(Tensor(np.zeros((1, 18, 5), np.float32)), input_size=(1, 2, 4, 4), kernel_size=3)
    with pytest.raises(TypeError, match="conv_im2col.*floating-point"):
        ops.conv_im2col(Tensor(np.zeros((1, 2, 4, 4), np.int32)), kernel_size=2)


def test_conv2d_backprop_ops_forward_are_adjoints(rng):
    # <conv(x, w), g> == <x, backprop_input(g, w)> == <w, backprop_filter(g, x)>
    attrs = dict(stride=2, pad_mode="pad", padding=(1, 2, 0, 1), dilation=(1, 2), groups=2)
    x = rng.standard_normal((2, 4, 9, 8))
    w = rng.standard_normal((6, 2, 3, 2))
    y = conv_oracle(x, w, **attrs)
    g = rng.standard_normal(y.shape)
    dx = call("conv2d_backprop_input", Tensor(g), Tensor(w), x.shape, **attrs).asnumpy()
    dw = call("conv2d_backprop_filter", Tensor(g), Tensor(x), w.shape, **attrs).asnumpy()
    # column-by-column oracle: dx[i] = <g, conv(e_i, w)>
    e = np.zeros(x.size)
    num_dx = np.empty(x.size)
    for i in range(x.size):
        e[:] = 0
        e[i] = 1
        num_dx[i] = np.sum(g * conv_oracle(e.reshape(x.shape), w, **attrs))
    np.testing.assert_allclose(dx.ravel(), num_dx, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(np.sum(dw * w), np.sum(g * y), rtol=1e-10)


def test_conv2d_second_order_grad(rng):
    attrs = dict(stride=(1, 2), pad_mode="same")
    x = rng.standard_normal((1, 2, 5, 5))
    w = rng.standard_normal((2, 2, 3, 3))
    g = rng.standard_normal(reg.conv2d(Tensor(x), Tensor(w), **attrs).shape)
    check_grad(lambda gg, ww: ops.conv2d_backprop_input(gg, ww, x.shape, **attrs), g, w)
    check_grad(lambda gg, xx: ops.conv2d_backprop_filter(gg, xx, w.shape, **attrs), g, x)
    # grad of (sum of squares of d loss / dx) with respect to w
    loss = lambda a, b: (reg.conv2d(a, b, **attrs) * Tensor(g)).sum()
    gx = lambda a, b: (ms.grad(loss, grad_position=0)(a, b) ** 2).sum()
    check_grad(gx, x, w, wrt=(1,))


@pytest.mark.parametrize("n,hw", [(1, 8), (2, 8), (1, 30), (3, 30)])
def test_conv2d_results_survive_later_calls(rng, n, hw):
    # conv reuses scratch memory between calls: no result may share it (N == 1 makes the
    # batch-last transposes contiguous views, the easy way to leak a buffer)
    attrs = dict(pad_mode="same")
    x1, x2 = rng.standard_normal((2, n, 2, hw, hw))
    w = rng.standard_normal((3, 2, 3, 3))

    def run(x):
        y = reg.conv2d(Tensor(x), Tensor(w), **attrs)
        g = Tensor(rng.standard_normal(y.shape))
        return (y, ops.conv2d_backprop_input(g, Tensor(w), x.shape, **attrs),
                ops.conv2d_backprop_filter(g, Tensor(x), w.shape, **attrs))

    run(x2)  # the scratch buffers reach their final sizes
    first = run(x1)
    snapshot = [t.asnumpy().copy() for t in first]
    run(x2)
    y1 = first[0]
    for t, before in zip(first, snapshot):
        np.testing.assert_array_equal(t.asnumpy(), before)
    np.testing.assert_allclose(y1.asnumpy(), conv_oracle(x1, w, **attrs), rtol=1e-10, atol=1e-10)


def test_conv2d_bad_input():
    x = Tensor(np.zeros((2, 3, 8, 8), np.float32))
    with pytest.raises(ValueError) as e:
        reg.conv2d(x, Tensor(np.zeros((4, 2, 3, 3), np.float32)))
    msg = str(e.value)
    assert "Conv2D" in msg and "(2, 3, 8, 8)" in msg and "(4, 2, 3, 3)" in msg and "groups" in msg
    w = Tensor(np.zeros((4, 3, 3, 3), np.float32))
    with pytest.raises(ValueError) as e:
        reg.conv2d(x, w, pad_mode="full")
    assert "valid" in str(e.value) and "same" in str(e.value) and "pad" in str(e.value)
    with pytest.raises(ValueError, match="4-D"):
        reg.conv2d(Tensor(np.zeros((3, 8, 8), np.float32)), w)
    with pytest.raises(ValueError, match="4-D"):
        reg.conv2d(x, Tensor(np.zeros((4, 3, 3), np.float32)))
    with pytest.raises(TypeError, match="floating-point"):
        reg.conv2d(Tensor(np.zeros((2, 3, 8, 8), np.int32)), w)
    with pytest.raises(TypeError, match="dtypes differ"):
        reg.conv2d(x, Tensor(np.zeros((4, 3, 3, 3), np.float64)))
    with pytest.raises(ValueError, match="pad_mode='pad'"):
        reg.conv2d(x, w, pad_mode="same", padding=1)
    with pytest.raises(ValueError, match=">= 0"):
        reg.conv2d(x, w, pad_mode="pad", padding=-1)
    with pytest.raises(ValueError, match="padding"):
        reg.conv2d(x, w, pad_mode="pad", padding=(1, 2, 3))
    with pytest.raises(ValueError, match="positive"):
        reg.conv2d(x, w, stride=0)
    with pytest.raises(ValueError, match="does not fit"):
        reg.conv2d(x, Tensor(np.zeros((4, 3, 5, 5), np.float32)), dilation=2)
    with pytest.raises(ValueError, match="groups"):
        reg.conv2d(x, Tensor(np.zeros((4, 1, 3, 3), np.float32)), groups=3)
    with pytest.raises(ValueError, match="dout shape"):
        ops.conv2d_backprop_input(Tensor(np.zeros((2, 4, 5, 5), np.float32)), w, (2, 3, 8, 8))


# ==========================================================================================================
# pooling
# ==========================================================================================================
POOL_CASES = [
    ((2, 3, 8, 8), 2, None, "valid"),
    ((2, 3, 9, 7), 2, 2, "valid"),      # odd sizes: the last row/column is dropped
    ((1, 2, 9, 9), 3, 2, "valid"),      # overlapping windows
    ((1, 2, 7, 8), 3, 2, "same"),
    ((2, 1, 5, 6), (2, 3), (1, 2), "same"),
    ((1, 2, 6, 6), 2, 1, "valid"),
    ((1, 1, 5, 5), 2, 2, "same"),       # kernel == stride with padding
]


@pytest.mark.parametrize("xs,k,s,pm", POOL_CASES)
@pytest.mark.parametrize("kind", ["max", "avg"])
def test_pool_forward(rng, xs, k, s, pm, kind):
    x = rng.standard_normal(xs).astype(np.float32)
    y = call(f"{kind}_pool2d", Tensor(x), k, s, pm)
    np.testing.assert_allclose(y.asnumpy(), pool_oracle(x, k, k if s is None else s, pm, kind),
                               rtol=1e-5, atol=1e-6)


def test_pool_primitives(rng):
    x = rng.standard_normal((1, 2, 6, 6)).astype(np.float32)
    np.testing.assert_allclose(ops.MaxPool(kernel_size=2, strides=2)(Tensor(x)).asnumpy(),
                               pool_oracle(x, 2, 2, "valid", "max"))
    np.testing.assert_allclose(ops.AvgPool(3, 1, "same")(Tensor(x)).asnumpy(),
                               pool_oracle(x, 3, 1, "same", "avg"), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("xs,k,s,pm", POOL_CASES)
def test_max_pool_grad_matches_oracle(rng, xs, k, s, pm):
    x = rng.standard_normal(xs)
    s = k if s is None else s
    out = reg.max_pool2d(Tensor(x), k, s, pm)
    dout = rng.standard_normal(out.shape)
    dx = ms.grad(lambda t: (reg.max_pool2d(t, k, s, pm) * Tensor(dout)).sum())(Tensor(x))
    np.testing.assert_allclose(dx.asnumpy(), max_pool_grad_oracle(x, dout, k, s, pm), rtol=1e-12)
    direct = call("max_pool2d_grad", Tensor(x), out, Tensor(dout), k, s, pm)
    np.testing.assert_allclose(direct.asnumpy(), dx.asnumpy())


def test_max_pool_grad_ties_go_to_first():
    x = np.ones((1, 1, 4, 4))
    x[0, 0, 2:, 2:] = [[0.0, 5.0], [5.0, 5.0]]
    dx = ms.grad(lambda t: reg.max_pool2d(t, 2, 2).sum())(Tensor(x)).asnumpy()[0, 0]
    np.testing.assert_array_equal(dx, [[1, 0, 1, 0], [0, 0, 0, 0], [1, 0, 0, 1], [0, 0, 0, 0]])
    # overlapping windows: a shared max collects one unit per window
    x = np.zeros((1, 1, 3, 3))
    x[0, 0, 1, 1] = 1.0
    dx = ms.grad(lambda t: reg.max_pool2d(t, 2, 1).sum())(Tensor(x)).asnumpy()[0, 0]
    assert dx[1, 1] == 4 and dx.sum() == 4


@pytest.mark.parametrize("xs,k,s,pm", [((1, 2, 6, 6), 2, 2, "valid"), ((2, 1, 5, 6), 3, 2, "same"),
                                      ((1, 1, 7, 5), (2, 3), (1, 2), "valid")])
def test_max_pool_grad_finite_differences(rng, xs, k, s, pm):
    x = rng.permutation(np.prod(xs)).reshape(xs) * 0.1  # distinct values: no ties
    check_grad(lambda t: reg.max_pool2d(t, k, s, pm), x)


@pytest.mark.parametrize("xs,k,s,pm", POOL_CASES)
def test_avg_pool_grad(rng, xs, k, s, pm):
    x = rng.standard_normal(xs)
    check_grad(lambda t: reg.avg_pool2d(t, k, s, pm), x)


def test_avg_pool_grad_op_and_second_order(rng):
    x = rng.standard_normal((1, 2, 7, 8))
    out = reg.avg_pool2d(Tensor(x), 3, 2, "same")
    g = rng.standard_normal(out.shape)
    dx = call("avg_pool2d_grad", Tensor(g), x.shape, 3, 2, "same").asnumpy()
    # adjoint of pooling: <avg_pool(v), g> == <v, avg_pool_grad(g)> for random v
    v = rng.standard_normal(x.shape)
    np.testing.assert_allclose(np.sum(pool_oracle(v, 3, 2, "same", "avg") * g), np.sum(v * dx))
    check_grad(lambda t: ops.avg_pool2d_grad(t, x.shape, 3, 2, "same"), g)


def test_pool_bad_input():
    x = Tensor(np.zeros((1, 2, 4, 4), np.float32))
    with pytest.raises(ValueError) as e:
        reg.max_pool2d(x, 2, 2, "pad")
    assert "MaxPool" in str(e.value) and "valid" in str(e.value) and "same" in str(e.value)
    with pytest.raises(ValueError, match="does not fit"):
        reg.avg_pool2d(x, 5)
    with pytest.raises(ValueError, match="4-D"):
        reg.max_pool2d(Tensor(np.zeros((2, 4, 4), np.float32)), 2)
    with pytest.raises(TypeError, match="floating-point"):
        reg.avg_pool2d(Tensor(np.zeros((1, 1, 4, 4), np.int32)), 2)
    with pytest.raises(ValueError, match="positive"):
        reg.max_pool2d(x, 0)
    with pytest.raises(ValueError, match="pooled shape"):
        ops.avg_pool2d_grad(Tensor(np.zeros((1, 2, 3, 3), np.float32)), (1, 2, 4, 4), 2)


# ==========================================================================================================
# batch_norm
# ==========================================================================================================
def bn_oracle(x, gamma, beta, mm, mv, training, eps):
    axes = (0,) + tuple(range(2, x.ndim))
    view = (1, -1) + (1,) * (x.ndim - 2)
    if training:
        mean = x.mean(axis=axes)
        var = ((x - mean.reshape(view)) ** 2).mean(axis=axes)
        n = x.size // x.shape[1]
        stats = (mean, var * n / (n - 1))
    else:
        mean, var = mm, mv
        stats = (mm, mv)
    y = (x - mean.reshape(view)) / np.sqrt(var.reshape(view) + eps) * gamma.reshape(view) \
        + beta.reshape(view)
    return (y,) + stats


@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 4, 5), (3, 2, 5)])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_forward(rng, shape, training):
    c = shape[1]
    x = rng.standard_normal(shape).astype(np.float32) * 3 + 1
    gamma, beta = rng.uniform(0.5, 1.5, c).astype(np.float32), rng.standard_normal(c).astype(np.float32)
    mm, mv = rng.standard_normal(c).astype(np.float32), rng.uniform(0.5, 2, c).astype(np.float32)
    outs = call("batch_norm", *map(Tensor, (x, gamma, beta, mm, mv)), training=training, eps=1e-3)
    refs = bn_oracle(*(a.astype(np.float64) for a in (x, gamma, beta, mm, mv)), training, 1e-3)
    for o, r in zip(outs, refs):
        np.testing.assert_allclose(o.asnumpy(), r, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("shape", [(5, 3), (3, 2, 3, 2)])
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_grad(rng, shape, training):
    c = shape[1]
    x = rng.standard_normal(shape)
    gamma, beta = rng.uniform(0.5, 1.5, c), rng.standard_normal(c)
    mm, mv = Tensor(rng.standard_normal(c)), Tensor(rng.uniform(0.5, 2, c))
    # all three outputs are weighted, so the batch-statistics outputs' gradients are checked too
    check_grad(lambda a, g, b: reg.batch_norm(a, g, b, mm, mv, training, 1e-3), x, gamma, beta,
               rtol=1e-5, atol=1e-6)
    # moving statistics get no gradient
    grads = ms.grad(lambda m, v: reg.batch_norm(Tensor(x), Tensor(gamma), Tensor(beta), m, v,
                                                training)[0].sum(), grad_position=(0, 1))(mm, mv)
    assert all(not g.asnumpy().any() for g in grads)


def test_batch_norm_bad_input():
    x = Tensor(np.zeros((4, 3, 2, 2), np.float32))
    p3, p2 = Tensor(np.ones(3, np.float32)), Tensor(np.ones(2, np.float32))
    with pytest.raises(ValueError) as e:
        reg.batch_norm(x, p2, p3, p3, p3)
    assert "BatchNorm" in str(e.value) and "(2,)" in str(e.value) and "(4, 3, 2, 2)" in str(e.value)
    with pytest.raises(ValueError, match="rank"):
        reg.batch_norm(Tensor(np.zeros(3, np.float32)), p3, p3, p3, p3)
    with pytest.raises(ValueError, match="more than one value"):
        reg.batch_norm(Tensor(np.zeros((1, 3), np.float32)), p3, p3, p3, p3, training=True)
    reg.batch_norm(Tensor(np.zeros((1, 3), np.float32)), p3, p3, p3, p3, training=False)
    with pytest.raises(TypeError, match="floating-point"):
        reg.batch_norm(Tensor(np.zeros((4, 3), np.int32)), p3, p3, p3, p3)
    with pytest.raises(TypeError, match="bool"):
        reg.batch_norm(x, p3, p3, p3, p3, training=1)
    with pytest.raises(ValueError, match="eps"):
        reg.batch_norm(x, p3, p3, p3, p3, eps=-1.0)


# ==========================================================================================================
# layer_norm
# ==========================================================================================================
def ln_oracle(x, gamma, beta, bna, eps):
    axes = tuple(range(bna % x.ndim, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    rstd = 1.0 / np.sqrt(var + eps)
    return (x - mean) * rstd * gamma + beta, mean, rstd


@pytest.mark.parametrize("shape,bna,bpa", [((4, 6), -1, -1), ((2, 3, 4), 1, 1), ((2, 3, 4), -1, 1),
                                           ((2, 3, 4), 1, -1), ((3, 2, 2, 3), 2, 0)])
def test_layer_norm_forward_and_grad(rng, shape, bna, bpa):
    x = rng.standard_normal(shape) * 2 + 0.5
    pshape = shape[bpa % len(shape):]
    gamma, beta = rng.uniform(0.5, 1.5, pshape), rng.standard_normal(pshape)
    outs = call("layer_norm", Tensor(x.astype(np.float32)), Tensor(gamma.astype(np.float32)),
                Tensor(beta.astype(np.float32)), bna, bpa, 1e-5)
    for o, r in zip(outs, ln_oracle(x, gamma, beta, bna, 1e-5)):
        assert o.shape == r.shape
        np.testing.assert_allclose(o.asnumpy(), r, rtol=1e-4, atol=1e-5)
    check_grad(lambda a, g, b: reg.layer_norm(a, g, b, bna, bpa, 1e-5), x, gamma, beta)


def test_layer_norm_bad_input():
    x = Tensor(np.zeros((2, 3, 4), np.float32))
    with pytest.raises(ValueError) as e:
        reg.layer_norm(x, Tensor(np.ones(3, np.float32)), Tensor(np.ones(4, np.float32)))
    assert "LayerNorm" in str(e.value) and "(3,)" in str(e.value) and "(2, 3, 4)" in str(e.value)
    with pytest.raises(ValueError, match="out of range"):
        reg.layer_norm(x, Tensor(np.ones(4, np.float32)), Tensor(np.ones(4, np.float32)), 3)
    with pytest.raises(TypeError, match="floating-point"):
        reg.layer_norm(Tensor(np.zeros((2, 4), np.int32)), Tensor(np.ones(4, np.float32)),
                       Tensor(np.ones(4, np.float32)))


# ==========================================================================================================
# dropout
# ==========================================================================================================
def test_dropout_forward_and_seed():
    x = np.random.default_rng(1).standard_normal((200, 50)).astype(np.float32)
    ms.set_seed(7)
    y, mask = ops.Dropout(0.8)(Tensor(x))
    y, mask = y.asnumpy(), mask.asnumpy()
    assert mask.dtype == np.float32 and set(np.unique(mask)) <= {0.0, 1.0}
    assert abs(mask.mean() - 0.8) < 0.02
    np.testing.assert_allclose(y, x * mask / 0.8, rtol=1e-6)
    ms.set_seed(7)
    y2, mask2 = ops.Dropout(0.8)(Tensor(x))
    np.testing.assert_array_equal(mask2.asnumpy(), mask)
    _, mask3 = ops.Dropout(keep_prob=0.8)(Tensor(x))  # the stream moves on
    assert (mask3.asnumpy() != mask).any()
    y1, m1 = ops.Dropout(1.0)(Tensor(x))
    np.testing.assert_array_equal(y1.asnumpy(), x)
    assert m1.asnumpy().all()


def test_dropout_grad(rng):
    x = rng.standard_normal((6, 5))
    w = rng.standard_normal((6, 5))
    masks = []

    def f(t):
        y, m = ops.Dropout(0.6)(t)
        masks.append(m.asnumpy())
        return (y * Tensor(w)).sum()

    g = ms.grad(f)(Tensor(x)).asnumpy()
    np.testing.assert_allclose(g, w * masks[0] / 0.6)

    def seeded(t):  # the same mask on every call, so finite differences see one function
        ms.set_seed(3)
        return ops.Dropout(0.6)(t)[0]

    check_grad(seeded, x)


def test_dropout_bad_input():
    x = Tensor(np.zeros((2, 2), np.float32))
    for kp in (0.0, 1.5, -0.1):
        with pytest.raises(ValueError, match=r"\(0, 1\]"):
            ops.Dropout(kp)(x)
        with pytest.raises(ValueError, match=r"keep_prob.*\(0, 1\]"):
            ops.dropout(x, keep_prob=kp)
    for p in (1.0, 1.5, -0.1, "0.5"):
        with pytest.raises(ValueError, match=r"ops.dropout: p .*\[0, 1\)"):
            ops.dropout(x, p)
    with pytest.raises(TypeError, match="floating-point"):
        ops.dropout(Tensor(np.zeros((2, 2), np.int32)))


# ==========================================================================================================
# cross entropy
# ==========================================================================================================
def log_softmax_oracle(z):
    m = z.max(axis=1, keepdims=True)
    return z - m - np.log(np.exp(z - m).sum(axis=1, keepdims=True))


def test_softmax_cross_entropy_forward(rng):
    z = rng.standard_normal((5, 4)) * 3
    z[0, 0] = 80.0  # large logits stay finite
    labels = rng.dirichlet(np.ones(4), size=5)
    loss, back = call("softmax_cross_entropy", Tensor(z.astype(np.float32)),
                      Tensor(labels.astype(np.float32)))
    logp = log_softmax_oracle(z)
    np.testing.assert_allclose(loss.asnumpy(), -(labels * logp).sum(axis=1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(back.asnumpy(), np.exp(logp) - labels, rtol=1e-5, atol=1e-6)
    p = ops.SoftmaxCrossEntropyWithLogits()(Tensor(z), Tensor(labels))
    np.testing.assert_allclose(p[0].asnumpy(), -(labels * logp).sum(axis=1), rtol=1e-12)


def test_softmax_cross_entropy_grad(rng):
    z = rng.standard_normal((4, 3))
    labels = rng.dirichlet(np.ones(3), size=4)
    check_grad(lambda a, b: ops.softmax_cross_entropy(a, b), z, labels)
    # labels that do not sum to one, loss output only
    check_grad(lambda a, b: ops.softmax_cross_entropy(a, b)[0], z, rng.uniform(0, 1, (4, 3)))


def test_sparse_softmax_cross_entropy(rng):
    z = rng.standard_normal((6, 5))
    labels = np.array([0, 4, 2, 2, 1, 3], np.int32)
    loss = call("sparse_softmax_cross_entropy", Tensor(z.astype(np.float32)), Tensor(labels))
    np.testing.assert_allclose(loss.asnumpy(), -log_softmax_oracle(z)[np.arange(6), labels],
                               rtol=1e-5, atol=1e-6)
    lab64 = Tensor(labels.astype(np.int64))
    check_grad(lambda a: ops.sparse_softmax_cross_entropy(a, lab64), z)
    g = ms.grad(lambda a: ops.sparse_softmax_cross_entropy(a, lab64).sum())(Tensor(z)).asnumpy()
    np.testing.assert_allclose(g, np.exp(log_softmax_oracle(z)) - np.eye(5)[labels], rtol=1e-10)


def test_cross_entropy_bad_input():
    z = Tensor(np.zeros((3, 4), np.float32))
    with pytest.raises(ValueError) as e:
        ops.sparse_softmax_cross_entropy(z, Tensor(np.array([0, 4, 1], np.int32)))
    assert "SparseSoftmaxCrossEntropyWithLogits" in str(e.value) and "[0, 4)" in str(e.value)
    with pytest.raises(ValueError, match=r"\[0, 4\)"):
        ops.sparse_softmax_cross_entropy(z, Tensor(np.array([0, -1, 1], np.int32)))
    with pytest.raises(TypeError, match="integer"):
        ops.sparse_softmax_cross_entropy(z, Tensor(np.zeros(3, np.float32)))
    with pytest.raises(ValueError, match=r"\(3,\)"):
        ops.sparse_softmax_cross_entropy(z, Tensor(np.zeros(4, np.int32)))
    with pytest.raises(ValueError, match="2-D"):
        ops.sparse_softmax_cross_entropy(Tensor(np.zeros(4, np.float32)), Tensor(np.zeros(4, np.int32)))
    with pytest.raises(ValueError) as e:
        ops.softmax_cross_entropy(z, Tensor(np.zeros((3, 5), np.float32)))
    assert "SoftmaxCrossEntropyWithLogits" in str(e.value) and "(3, 5)" in str(e.value)
    with pytest.raises(TypeError, match="dtypes differ"):
        ops.softmax_cross_entropy(z, Tensor(np.zeros((3, 4), np.float64)))


# ==========================================================================================================
# one_hot, gather, unsorted_segment_sum
# ==========================================================================================================
def one_hot_oracle(idx, depth, on, off, axis):
    out = np.full(idx.shape + (depth,), off, np.float32)
    for pos in np.ndindex(idx.shape):
        if 0 <= idx[pos] < depth:
            out[pos + (idx[pos],)] = on
    return np.moveaxis(out, -1, axis if axis != -1 else idx.ndim)


@pytest.mark.parametrize("shape,axis", [((5,), -1), ((2, 3), -1), ((2, 3), 0), ((2, 3), 1), ((2, 3), 2)])
def test_one_hot(rng, shape, axis):
    idx = rng.integers(-1, 5, shape).astype(np.int32)  # -1 and 4 are outside depth 4: all off
    y = call("one_hot", Tensor(idx), 4, 2.0, -1.0, axis)
    assert y.dtype is float32
    np.testing.assert_array_equal(y.asnumpy(), one_hot_oracle(idx, 4, 2.0, -1.0, axis))
    np.testing.assert_array_equal(ops.OneHot()(Tensor(np.array([2, 0])), 3, 1.0, 0.0).asnumpy(),
                                  [[0, 0, 1], [1, 0, 0]])


def test_one_hot_bad_input():
    with pytest.raises(TypeError, match="integer"):
        ops.one_hot(Tensor(np.zeros(3, np.float32)), 3)
    with pytest.raises(ValueError, match=">= 0"):
        ops.one_hot(Tensor(np.zeros(3, np.int32)), -2)
    with pytest.raises(ValueError, match="axis"):
        ops.one_hot(Tensor(np.zeros(3, np.int32)), 3, axis=3)
    with pytest.raises(TypeError, match="depth"):
        ops.OneHot()(Tensor(np.zeros(3, np.int32)))


@pytest.mark.parametrize("pshape,ishape,axis", [((7, 3), (4,), 0), ((7, 3), (2, 3), 0),
                                                ((2, 5, 3), (4,), 1), ((2, 5, 3), (2, 2), -1),
                                                ((6,), (), 0), ((4, 3), (3, 2), 1)])
def test_gather_forward_and_grad(rng, pshape, ishape, axis):
    p = rng.standard_normal(pshape)
    n = pshape[axis]
    idx = rng.integers(-n, n, ishape)  # repeats and numpy-style negative indices
    it = Tensor(np.asarray(idx, np.int32))
    y = call("gather", Tensor(p.astype(np.float32)), it, axis)
    np.testing.assert_array_equal(y.asnumpy(), np.take(p.astype(np.float32), idx, axis=axis))
    check_grad(lambda a: ops.gather(a, it, axis), p)


def test_embedding_lookup_grad_accumulates_repeats(rng):
    table = rng.standard_normal((5, 3))
    ids = Tensor(np.array([[1, 1], [4, 1]], np.int64))
    g = ms.grad(lambda t: ops.gather(t, ids, 0).sum())(Tensor(table)).asnumpy()
    np.testing.assert_array_equal(g[:, 0], [0, 3, 0, 0, 1])


def test_unsorted_segment_sum(rng):
    x = rng.standard_normal((6, 2))
    ids = np.array([0, 2, 2, -1, 5, 1], np.int32)  # -1 and 5 are outside [0, 4): dropped
    y = call("unsorted_segment_sum", Tensor(x), Tensor(ids), 4)
    ref = np.zeros((4, 2))
    for i, s in enumerate(ids):
        if 0 <= s < 4:
            ref[s] += x[i]
    np.testing.assert_allclose(y.asnumpy(), ref)
    check_grad(lambda a: ops.unsorted_segment_sum(a, Tensor(ids), 4), x)
    with pytest.raises(ValueError, match="prefix"):
        ops.unsorted_segment_sum(Tensor(x), Tensor(np.zeros(5, np.int32)), 4)


def test_gather_bad_input():
    p = Tensor(np.zeros((4, 3), np.float32))
    with pytest.raises(TypeError, match="integer"):
        ops.gather(p, Tensor(np.zeros(2, np.float32)))
    with pytest.raises(ValueError) as e:
        ops.gather(p, Tensor(np.array([0, 4], np.int32)))
    assert "Gather" in str(e.value) and "(4, 3)" in str(e.value)
    with pytest.raises(ValueError, match="out of range"):
        ops.gather(p, Tensor(np.array([0], np.int32)), 2)
    with pytest.raises(ValueError, match="scalar"):
        ops.gather(Tensor(np.float32(1.0)), Tensor(np.array([0], np.int32)))


# ==========================================================================================================
# a small LeNet-style network end to end (forward + backward through every conv/pool/loss op)
# ==========================================================================================================
def test_lenet_block_grad_matches_finite_differences(rng):
    x = rng.standard_normal((2, 1, 12, 12))
    w1 = rng.standard_normal((3, 1, 3, 3)) * 0.5
    w2 = rng.standard_normal((4, 3, 3, 3)) * 0.5
    labels = Tensor(np.array([1, 3], np.int32))

    def net(a, b):
        h = reg.avg_pool2d(ops.relu(reg.conv2d(Tensor(x), a, pad_mode="same")), 2)  # (2, 3, 6, 6)
        h = reg.max_pool2d(ops.tanh(reg.conv2d(h, b)), 2)  # (2, 4, 2, 2)
        logits = ops.reshape(h, (2, 16))
        return ops.sparse_softmax_cross_entropy(logits, labels)

    check_grad(net, w1, w2, rtol=1e-4, atol=1e-6)
    assert math.isfinite(float(net(Tensor(w1), Tensor(w2)).sum().asnumpy()))


def test_functional_dropout_takes_the_drop_probability():
    # MindSpore 2.x: ops.dropout(input, p=0.5, training=True, seed=None); p is the probability to DROP
    x = np.ones((400, 250), np.float32)
    ms.set_seed(11)
    y = ops.dropout(Tensor(x), 0.1)
    assert isinstance(y, Tensor)
    kept = y.asnumpy() != 0
    assert abs(kept.mean() - 0.9) < 0.01  # 100,000 draws: the standard error is 0.001
    np.testing.assert_allclose(y.asnumpy()[kept], 1 / 0.9, rtol=1e-6)
    ms.set_seed(11)
    np.testing.assert_array_equal(ops.dropout(Tensor(x), keep_prob=0.9).asnumpy(), y.asnumpy())  # 1.x spelling
    t = Tensor(x)
    assert ops.dropout(t, 0.5, training=False) is t and ops.dropout(t, 0.0) is t
    for layer in (nn.Dropout(p=0.1), nn.Dropout(keep_prob=0.9)):
        layer.set_train(True)
        assert abs((layer(Tensor(x)).asnumpy() != 0).mean() - 0.9) < 0.01


def test_functional_dropout_in_graph_mode_matches_pynative():
    x = Tensor(np.random.default_rng(0).standard_normal((64, 32)).astype(np.float32))

    def f(x):
        return ops.dropout(x, p=0.25) * 2

    ms.set_seed(5)
    eager = f(x).asnumpy()
    ms.set_seed(5)
    graph = ms.jit(f)(x).asnumpy()
    np.testing.assert_array_equal(graph, eager)
    assert abs((eager != 0).mean() - 0.75) < 0.03
