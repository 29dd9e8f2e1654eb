"""Conv1d, 1-D pools, adaptive pools, GroupNorm/InstanceNorm2d, interpolate/Upsample and the
2-D padding layers against numpy formulas (and PyTorch where installed), in PyNative, GRAPH_MODE
and @jit, with gradients checked by finite differences."""
import math

import numpy as np
import pytest

from gradcheck import check_grad
from modes import HOOK_MODES, run_cell as run, run_fn
from runtime import Tensor, nn, ops


def conv1d_ref(x, w, stride, pad, dilation, groups):
    x = np.pad(x, ((0, 0), (0, 0), pad))
    n, c, length = x.shape
    o, cg, k = w.shape
    span = (k - 1) * dilation + 1
    lo = (length - span) // stride + 1
    out = np.zeros((n, o, lo))
    og = o // groups
    for oc in range(o):
        g = oc // og
        for i in range(lo):
            win = x[:, g * cg:(g + 1) * cg, i * stride:i * stride + span:dilation]
            out[:, oc, i] = np.einsum("nck,ck->n", win, w[oc])
    return out


@pytest.mark.parametrize("mode", HOOK_MODES)
@pytest.mark.parametrize("kw", [dict(pad_mode="valid"), dict(pad_mode="pad", padding=2, stride=2),
                                dict(pad_mode="same", dilation=2), dict(pad_mode="valid", group=2)])
def test_conv1d_against_numpy(mode, kw):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 4, 11)).astype(np.float32)
    conv = nn.Conv1d(4, 6, 3, has_bias=True, **kw)
    got = run(mode, conv, Tensor(x)).asnumpy()
    stride, dil, grp = kw.get("stride", 1), kw.get("dilation", 1), kw.get("group", 1)
    if kw["pad_mode"] == "same":
        out_len = -(-11 // stride)
        total = max((out_len - 1) * stride + (3 - 1) * dil + 1 - 11, 0)
        pad = (total // 2, total - total // 2)
    else:
        pad = (kw.get("padding", 0),) * 2
    want = conv1d_ref(x.astype(np.float64), conv.weight.asnumpy(), stride, pad, dil, grp) + conv.bias.asnumpy()[None, :, None]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_conv1d_and_pool1d_gradients():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 9))
    w = rng.standard_normal((4, 3, 3))

    def f(t, k):  # Conv1d's computation with the weight as an input
        y = ops.squeeze(ops.conv2d(ops.expand_dims(t, 2), ops.expand_dims(k, 2), None, 1, "pad", (0, 0, 1, 1)), 2)
        return nn.MaxPool1d(2, 2)(y) + nn.AvgPool1d(3, 2)(y)[..., :4]
    check_grad(f, x, w)


@pytest.mark.parametrize("mode", HOOK_MODES)
def test_pools_1d_and_adaptive_2d(mode):
    rng = np.random.default_rng(2)
    x1 = rng.standard_normal((2, 3, 10)).astype(np.float32)
    x2 = rng.standard_normal((2, 3, 7, 5)).astype(np.float32)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.mp, self.ap = nn.MaxPool1d(3, 2, "pad", 1), nn.AvgPool1d(2, 2)
            self.aap, self.amp = nn.AdaptiveAvgPool2d((3, 2)), nn.AdaptiveMaxPool2d((3, None))

        def construct(self, a, b):
            return self.mp(a), self.ap(a), self.aap(b), self.amp(b)

    mp, ap, aap, amp = (o.asnumpy() for o in run(mode, Net(), Tensor(x1), Tensor(x2)))
    xp = np.pad(x1, ((0, 0), (0, 0), (1, 1)), constant_values=-np.inf)
    np.testing.assert_array_equal(mp, np.stack([xp[..., 2 * i:2 * i + 3].max(-1) for i in range(5)], -1))
    np.testing.assert_allclose(ap, x1.reshape(2, 3, 5, 2).mean(-1), rtol=1e-6)

    def bins(n, o):
        return [(i * n // o, -(-(i + 1) * n // o)) for i in range(o)]
    want_avg = np.array([[[[x2[a, c, hs:he, ws:we].mean() for ws, we in bins(5, 2)] for hs, he in bins(7, 3)]
                          for c in range(3)] for a in range(2)])
    want_max = np.array([[[[x2[a, c, hs:he, w].max() for w in range(5)] for hs, he in bins(7, 3)]
                          for c in range(3)] for a in range(2)])
    np.testing.assert_allclose(aap, want_avg, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(amp, want_max)


@pytest.mark.parametrize("mode", HOOK_MODES)
def test_group_and_instance_norm(mode):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 6, 4, 3)).astype(np.float32)
    gn, inn = nn.GroupNorm(3, 6), nn.InstanceNorm2d(6)
    gn.gamma.set_data(rng.standard_normal(6).astype(np.float32))
    inn.beta.set_data(rng.standard_normal(6).astype(np.float32))

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.gn, self.inn = gn, inn

        def construct(self, t):
            return self.gn(t), self.inn(t)

    g, i = (o.asnumpy() for o in run(mode, Net(), Tensor(x)))
    x64 = x.astype(np.float64)
    grp = x64.reshape(2, 3, -1)
    want_g = ((grp - grp.mean(-1, keepdims=True)) / np.sqrt(grp.var(-1, keepdims=True) + 1e-5)).reshape(x.shape)
    want_g = want_g * gn.gamma.asnumpy()[None, :, None, None]
    want_i = (x64 - x64.mean((2, 3), keepdims=True)) / np.sqrt(x64.var((2, 3), keepdims=True) + 1e-5)
    want_i = want_i + inn.beta.asnumpy()[None, :, None, None]
    np.testing.assert_allclose(g, want_g, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(i, want_i, rtol=1e-4, atol=1e-5)
    check_grad(lambda t: nn.GroupNorm(2, 6, affine=False)(t), rng.standard_normal((2, 6, 2, 2)))


def bilinear_ref(x, oh, ow, align):
    n, c, h, w = x.shape

    def src(i, n_in, n_out):
        if align:
            return i * (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
        return max((i + 0.5) * n_in / n_out - 0.5, 0.0)
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            y, xx = src(i, h, oh), src(j, w, ow)
            y0, x0 = min(int(y), h - 1), min(int(xx), w - 1)
            y1, x1 = min(y0 + 1, h - 1), min(x0 + 1, w - 1)
            fy, fx = y - y0, xx - x0
            out[:, :, i, j] = ((1 - fy) * (1 - fx) * x[:, :, y0, x0] + (1 - fy) * fx * x[:, :, y0, x1]
                               + fy * (1 - fx) * x[:, :, y1, x0] + fy * fx * x[:, :, y1, x1])
    return out


@pytest.mark.parametrize("mode", HOOK_MODES)
def test_interpolate_and_upsample(mode):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((1, 2, 3, 4)).astype(np.float32)

    class Net(nn.Cell):
        def construct(self, t):
            return (nn.Upsample(scale_factor=2.0)(t), ops.interpolate(t, size=(5, 7), mode="bilinear"),
                    ops.interpolate(t, size=(5, 7), mode="bilinear", align_corners=True),
                    ops.interpolate(t, size=(2, 3)))

    near2, bil, bil_ac, near_down = (o.asnumpy() for o in run(mode, Net(), Tensor(x)))
    np.testing.assert_array_equal(near2, x.repeat(2, 2).repeat(2, 3))
    np.testing.assert_allclose(bil, bilinear_ref(x.astype(np.float64), 5, 7, False), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bil_ac, bilinear_ref(x.astype(np.float64), 5, 7, True), rtol=1e-5, atol=1e-6)
    iy, ix = np.floor(np.arange(2) * 3 / 2).astype(int), np.floor(np.arange(3) * 4 / 3).astype(int)
    np.testing.assert_array_equal(near_down, x[:, :, iy][:, :, :, ix])
    try:
        import torch
    except ImportError:
        return
    t = torch.tensor(x)
    np.testing.assert_allclose(bil, torch.nn.functional.interpolate(t, size=(5, 7), mode="bilinear").numpy(),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bil_ac, torch.nn.functional.interpolate(t, size=(5, 7), mode="bilinear",
                                                                        align_corners=True).numpy(), rtol=1e-5, atol=1e-6)


def test_padding_layers_against_numpy():
    x = np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4)
    np.testing.assert_array_equal(nn.ZeroPad2d((1, 2, 0, 1))(Tensor(x)).asnumpy(),
                                  np.pad(x, ((0, 0), (0, 0), (0, 1), (1, 2))))
    np.testing.assert_array_equal(nn.ConstantPad2d(1, 3.5)(Tensor(x)).asnumpy(),
                                  np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=3.5))
    np.testing.assert_array_equal(nn.ReflectionPad2d((2, 1, 1, 2))(Tensor(x)).asnumpy(),
                                  np.pad(x, ((0, 0), (0, 0), (1, 2), (2, 1)), mode="reflect"))
    np.testing.assert_array_equal(nn.ReplicationPad2d(2)(Tensor(x)).asnumpy(),
                                  np.pad(x, ((0, 0), (0, 0), (2, 2), (2, 2)), mode="edge"))
    assert math.isclose(float(nn.ZeroPad2d(1)(Tensor(x)).asnumpy().sum()), float(x.sum()))


def pool2d_ref(x, k, s, p, ceil_mode, kind, count_include_pad=True, divisor=None):
    """PyTorch's pooling loop: output size with ceil/floor (a last window may not start in the far
    padding), windows clipped to the padded input, the divisor per its rules."""
    n, c, h, w = x.shape

    def size(n_, k_, s_, p_):
        o = (n_ + 2 * p_ - k_ + (s_ - 1 if ceil_mode else 0)) // s_ + 1
        if ceil_mode and (o - 1) * s_ >= n_ + p_:
            o -= 1
        return o
    oh, ow = size(h, k, s, p), size(w, k, s, p)
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            h0, w0 = i * s - p, j * s - p
            h1, w1 = min(h0 + k, h + p), min(w0 + k, w + p)
            hs, ws, he, we = max(h0, 0), max(w0, 0), min(h1, h), min(w1, w)
            win = x[:, :, hs:he, ws:we]
            if kind == "max":
                out[:, :, i, j] = win.max(axis=(2, 3))
            else:
                d = divisor or ((h1 - h0) * (w1 - w0) if count_include_pad else (he - hs) * (we - ws))
                out[:, :, i, j] = win.sum(axis=(2, 3)) / d
    return out


@pytest.mark.parametrize("mode", HOOK_MODES)
@pytest.mark.parametrize("k, s, p, size", [(3, 2, 1, 6), (2, 2, 0, 5), (3, 3, 1, 7), (2, 1, 1, 4)])
def test_pool2d_ceil_mode_count_include_pad_and_divisor(mode, k, s, p, size):
    x = np.random.default_rng(k * 10 + size).standard_normal((2, 3, size, size)).astype(np.float32)
    pad_mode = "pad" if p else "valid"
    cases = [
        (nn.MaxPool2d(k, s, pad_mode, p, ceil_mode=True), dict(kind="max", ceil_mode=True)),
        (nn.AvgPool2d(k, s, pad_mode, p, ceil_mode=True), dict(kind="avg", ceil_mode=True)),
        (nn.AvgPool2d(k, s, pad_mode, p, ceil_mode=True, count_include_pad=False),
         dict(kind="avg", ceil_mode=True, count_include_pad=False)),
        (nn.AvgPool2d(k, s, pad_mode, p, count_include_pad=False), dict(kind="avg", ceil_mode=False,
                                                                       count_include_pad=False)),
        (nn.AvgPool2d(k, s, pad_mode, p, ceil_mode=True, divisor_override=5),
         dict(kind="avg", ceil_mode=True, divisor=5)),
    ]
    outs = run_fn(mode, lambda t: tuple(cell(t) for cell, _ in cases), Tensor(x))
    for o, (_, ref) in zip(outs, cases):
        want = pool2d_ref(x.astype(np.float64), k, s, p, **ref)
        assert tuple(o.shape) == want.shape, ref
        np.testing.assert_allclose(o.asnumpy(), want, rtol=1e-5, atol=1e-6, err_msg=str(ref))


def test_pool2d_ceil_mode_gradients():
    x = np.random.default_rng(3).standard_normal((1, 2, 5, 5))
    check_grad(lambda t: ops.avg_pool2d(t, 2, 2, 1, ceil_mode=True, count_include_pad=False), x)
    check_grad(lambda t: ops.max_pool2d(t, 3, 2, 1, ceil_mode=True), x)
    with pytest.raises(ValueError, match="ceil_mode"):
        nn.MaxPool2d(2, 2, "same", ceil_mode=True)
    with pytest.raises(ValueError, match="at most half"):
        ops.max_pool2d(Tensor(x.astype(np.float32)), 2, 2, 2)


@pytest.mark.parametrize("mode", HOOK_MODES)
@pytest.mark.parametrize("pad_mode, np_mode", [("CONSTANT", "constant"), ("REFLECT", "reflect"),
                                               ("SYMMETRIC", "symmetric")])
def test_nn_pad_modes_match_numpy(mode, pad_mode, np_mode):
    x = np.random.default_rng(1).standard_normal((2, 3, 4)).astype(np.float32)
    paddings = ((0, 1), (2, 1), (3, 0))
    cell = nn.Pad(paddings, mode=pad_mode)
    np.testing.assert_array_equal(run(mode, cell, Tensor(x)).asnumpy(), np.pad(x, paddings, mode=np_mode))
    check_grad(lambda t: nn.Pad(paddings, mode=pad_mode)(t), x)


def test_nn_pad_checks_its_arguments():
    with pytest.raises(ValueError, match="mode"):
        nn.Pad(((1, 1),), mode="EDGE")
    with pytest.raises(ValueError, match="pairs"):
        nn.Pad((1, 1))
    with pytest.raises(ValueError, match="one pair per axis"):
        nn.Pad(((1, 1),))(Tensor(np.ones((2, 2), np.float32)))
    with pytest.raises(ValueError, match="symmetric padding"):
        nn.Pad(((0, 0), (3, 0)), mode="SYMMETRIC")(Tensor(np.ones((2, 2), np.float32)))


def test_spatial_layers_capture_without_a_break():
    import capture
    x = Tensor(np.random.default_rng(2).standard_normal((2, 4, 9, 8)).astype(np.float32))
    cells = [nn.AdaptiveAvgPool2d((3, 2)), nn.AdaptiveAvgPool2d(1), nn.AdaptiveMaxPool2d((2, 3)),
             nn.GroupNorm(2, 4), nn.InstanceNorm2d(4), nn.Upsample(scale_factor=2.0, mode="bilinear"),
             nn.Pad(((0, 0), (0, 0), (1, 1), (2, 0)), "REFLECT"), nn.MaxPool2d(3, 2, ceil_mode=True),
             nn.AvgPool2d(2, 2, "pad", 1, count_include_pad=False), nn.ZeroPad2d(1)]
    for cell in cells:
        report = capture.explain(cell)(x)
        assert report.graph_break_count == 0, (type(cell).__name__, str(report))
