"""Conv1d, 1-D pools, adaptive pools, GroupNorm/InstanceNorm2d, interpolate/Upsample and the
2-D padding layers against numpy formulas (and PyTorch where installed), in PyNative, GRAPH_MODE
and @jit, with gradients checked by finite differences."""
import math

import numpy as np
import pytest

from gradcheck import check_grad
from modes import HOOK_MODES, run_cell as run, run_fn
import runtime as ms
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


def _linear_ref(x, axis, n_out, align_corners):
    """``x`` linearly resampled along ``axis`` with np.interp (source coordinate i*(in-1)/(out-1)
    with align_corners, else the half-pixel centre (i+0.5)*in/out-0.5 clamped at 0)."""
    n_in = x.shape[axis]
    i = np.arange(n_out, dtype=np.float64)
    if align_corners:
        src = i * (n_in - 1) / (n_out - 1) if n_out > 1 else np.zeros(n_out)
    else:
        src = np.maximum((i + 0.5) * n_in / n_out - 0.5, 0.0)
    return np.apply_along_axis(lambda v: np.interp(src, np.arange(n_in), v), axis, x)


@pytest.mark.parametrize("mode", ["pynative", "jit"])
def test_interpolate_3d_and_5d_inputs(mode):
    """'nearest' on (N, C, L) and (N, C, D, H, W) input, 'linear' on 3-D and 'trilinear' on 5-D
    (one axis at a time, np.interp per axis as the oracle); a mode of the wrong rank is refused."""
    rng = np.random.default_rng(5)
    x3 = rng.standard_normal((2, 3, 4)).astype(np.float32)
    x5 = rng.standard_normal((1, 2, 2, 3, 4)).astype(np.float32)

    def f(a, b):
        return (ops.interpolate(a, size=(7,), mode="nearest"), ops.interpolate(a, size=7, mode="linear"),
                ops.interpolate(a, scale_factor=1.5, mode="linear", align_corners=True),
                ops.interpolate(b, size=(3, 5, 2), mode="nearest"),
                ops.interpolate(b, size=(3, 5, 6), mode="trilinear", align_corners=True))

    near3, lin3, lin3_ac, near5, tri5 = (o.asnumpy() for o in run_fn(mode, f, Tensor(x3), Tensor(x5)))
    np.testing.assert_array_equal(near3, x3[:, :, np.floor(np.arange(7) * 4 / 7).astype(int)])
    np.testing.assert_allclose(lin3, _linear_ref(x3.astype(np.float64), 2, 7, False), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(lin3_ac, _linear_ref(x3.astype(np.float64), 2, 6, True), rtol=1e-5, atol=1e-6)
    idx = [np.floor(np.arange(o) * i / o).astype(int) for i, o in zip((2, 3, 4), (3, 5, 2))]
    np.testing.assert_array_equal(near5, x5[:, :, idx[0]][:, :, :, idx[1]][:, :, :, :, idx[2]])
    want = x5.astype(np.float64)
    for axis, n_out in zip((2, 3, 4), (3, 5, 6)):
        want = _linear_ref(want, axis, n_out, True)
    np.testing.assert_allclose(tri5, want, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="bilinear"):
        ops.interpolate(Tensor(x3), size=(7,), mode="bilinear")
    with pytest.raises(ValueError, match="spatial sizes"):
        ops.interpolate(Tensor(x3), size=(7, 7))


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


# -- pooling options (issue 14 audit item 5) and the 1-D / functional forms (item 6) ---------------------------
def _out_len(n, k, s, p, d, ceil_mode):
    """PyTorch's (and MindSpore's) pooled length: floor or ceil, a last window never starting in
    the far padding."""
    ek = d * (k - 1) + 1
    o = (n + 2 * p - ek + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (o - 1) * s >= n + p:
        o -= 1
    return o


def max_pool_ref(x, k, s, p, d, ceil_mode):
    """Max pooling of the last two axes written out: each window's taps (dilated), positions
    outside the input skipped; the value and the first flat index h * W + w of the maximum."""
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = k, s, p, d
    h, w = x.shape[-2:]
    oh, ow = _out_len(h, kh, sh, ph, dh, ceil_mode), _out_len(w, kw, sw, pw, dw, ceil_mode)
    out = np.zeros(x.shape[:-2] + (oh, ow), x.dtype)
    idx = np.zeros(x.shape[:-2] + (oh, ow), np.int64)
    for lead in np.ndindex(*x.shape[:-2]):
        for i in range(oh):
            for j in range(ow):
                best, where = -np.inf, -1
                for a in range(kh):
                    for b in range(kw):
                        r, c = i * sh - ph + a * dh, j * sw - pw + b * dw
                        if 0 <= r < h and 0 <= c < w and x[lead + (r, c)] > best:
                            best, where = x[lead + (r, c)], r * w + c
                out[lead + (i, j)], idx[lead + (i, j)] = best, where
    return out, idx


def avg_pool1d_ref(x, k, s, p, ceil_mode, count_include_pad):
    n = x.shape[-1]
    o = _out_len(n, k, s, p, 1, ceil_mode)
    out = np.zeros(x.shape[:-1] + (o,))
    for i in range(o):
        a0 = i * s - p
        a1 = min(a0 + k, n + p)  # the window clipped to the padded input
        lo, hi = max(a0, 0), min(a1, n)
        out[..., i] = x[..., lo:hi].sum(-1) / ((a1 - a0) if count_include_pad else (hi - lo))
    return out


@pytest.mark.parametrize("mode", HOOK_MODES)
@pytest.mark.parametrize("k, s, pad_mode, p, d, ceil", [
    (3, 2, "pad", 1, 2, True), (2, 1, "valid", 0, 3, False), (3, 3, "pad", 1, 1, True),
    (2, 2, "valid", 0, 1, True), (4, 1, "pad", 2, 2, False)])
def test_max_pool1d_dilation_ceil_mode_and_indices(mode, k, s, pad_mode, p, d, ceil):
    x = np.random.default_rng(k * 7 + s + d).standard_normal((2, 3, 11)).astype(np.float32)
    cell = nn.MaxPool1d(k, s, pad_mode, p, dilation=d, return_indices=True, ceil_mode=ceil)
    out, idx = run(mode, cell, Tensor(x))
    want, want_idx = max_pool_ref(x[:, :, None, :], (1, k), (1, s), (0, p), (1, d), ceil)
    np.testing.assert_array_equal(out.asnumpy(), want[:, :, 0])
    assert idx.dtype == ms.int64
    np.testing.assert_array_equal(idx.asnumpy(), want_idx[:, :, 0])
    values_only = run(mode, nn.MaxPool1d(k, s, pad_mode, p, dilation=d, ceil_mode=ceil), Tensor(x))
    np.testing.assert_array_equal(values_only.asnumpy(), want[:, :, 0])
    # unbatched (C, L): the same numbers without the batch axis
    out1, idx1 = run(mode, cell, Tensor(x[1]))
    np.testing.assert_array_equal(out1.asnumpy(), want[1, :, 0])
    np.testing.assert_array_equal(idx1.asnumpy(), want_idx[1, :, 0])


@pytest.mark.parametrize("mode", HOOK_MODES)
@pytest.mark.parametrize("k, s, pad_mode, p", [(3, 2, "pad", 1), (4, 1, "pad", 2), (2, 2, "valid", 0),
                                               (3, 3, "pad", 1)])
def test_avg_pool1d_ceil_mode_and_count_include_pad(mode, k, s, pad_mode, p):
    x = np.random.default_rng(k + 10 * s).standard_normal((2, 3, 8)).astype(np.float32)
    for ceil in (False, True):
        for cip in (True, False):
            cell = nn.AvgPool1d(k, s, pad_mode, p, ceil_mode=ceil, count_include_pad=cip)
            want = avg_pool1d_ref(x.astype(np.float64), k, s, p, ceil, cip)
            got = run(mode, cell, Tensor(x)).asnumpy()
            assert got.shape == want.shape, (ceil, cip)
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=f"ceil={ceil} cip={cip}")
            np.testing.assert_allclose(run(mode, cell, Tensor(x[0])).asnumpy(), want[0], rtol=1e-5, atol=1e-6)
            got_fn = run_fn(mode, lambda t: ops.avg_pool1d(t, k, s, p, ceil, cip), Tensor(x)).asnumpy()
            np.testing.assert_allclose(got_fn, want, rtol=1e-5, atol=1e-6)


def test_pool1d_documented_examples_and_errors():
    # MindSpore's examples: shapes
    x = Tensor(np.random.default_rng(0).integers(0, 10, (5, 3, 4)).astype(np.float32))
    out, argmax = nn.MaxPool1d(kernel_size=2, stride=1, pad_mode="pad", padding=1, dilation=1, return_indices=True)(x)
    assert out.shape == (5, 3, 5) and argmax.shape == (5, 3, 5)
    assert nn.MaxPool1d(kernel_size=3, stride=1)(Tensor(np.ones((1, 2, 4), np.float32))).shape == (1, 2, 2)
    assert nn.AvgPool1d(4, stride=1, ceil_mode=True, pad_mode="pad", padding=2)(ops.ones((6, 6, 8))).shape == (6, 6, 9)
    assert nn.AvgPool1d(kernel_size=6, stride=1)(ops.ones((1, 3, 6))).shape == (1, 3, 1)
    assert ops.avg_pool1d(ops.ones((1, 3, 6)), kernel_size=6, stride=1).shape == (1, 3, 1)
    for cell in (nn.MaxPool1d(2), nn.AvgPool1d(2)):
        name = type(cell).__name__
        for bad in ((2, 3, 4, 5), (7,)):
            with pytest.raises(ValueError, match=rf"{name}: x must be 2-D \(C, L\) or 3-D \(N, C, L\), got shape"):
                cell(ops.ones(bad))
    with pytest.raises(ValueError, match="pad_mode 'pad'"):
        nn.MaxPool1d(2, 1, "same", return_indices=True)
    with pytest.raises(ValueError, match="pad_mode 'pad'"):
        nn.MaxPool1d(2, 1, "same", dilation=2)
    with pytest.raises(ValueError, match="ceil_mode"):
        nn.AvgPool1d(2, 1, "same", ceil_mode=True)
    with pytest.raises(ValueError, match="needs pad_mode='pad'"):
        nn.AvgPool1d(2, 1, "valid", padding=1)
    with pytest.raises(TypeError, match="return_indices"):
        nn.MaxPool1d(2, return_indices=1)
    with pytest.raises(ValueError, match="3-D"):
        ops.avg_pool1d(ops.ones((3, 6)), 2)


@pytest.mark.parametrize("mode", HOOK_MODES)
@pytest.mark.parametrize("k, s, p, d, ceil", [(3, 2, 1, 2, True), (2, 1, 1, 1, False), ((2, 3), (1, 2), (1, 0),
                                                                                        (2, 1), True)])
def test_max_pool2d_dilation_and_return_indices(mode, k, s, p, d, ceil):
    x = np.random.default_rng(3).standard_normal((2, 3, 7, 8)).astype(np.float32)
    pair = (lambda v: v if isinstance(v, tuple) else (v, v))
    cell = nn.MaxPool2d(k, s, "pad", p, dilation=d, return_indices=True, ceil_mode=ceil)
    out, idx = run(mode, cell, Tensor(x))
    want, want_idx = max_pool_ref(x, pair(k), pair(s), pair(p), pair(d), ceil)
    np.testing.assert_array_equal(out.asnumpy(), want)
    np.testing.assert_array_equal(idx.asnumpy(), want_idx)
    assert idx.dtype == ms.int64
    out3, idx3 = run(mode, cell, Tensor(x[0]))  # unbatched (C, H, W)
    np.testing.assert_array_equal(out3.asnumpy(), want[0])
    np.testing.assert_array_equal(idx3.asnumpy(), want_idx[0])
    fn_out = run_fn(mode, lambda t: ops.max_pool2d(t, k, s, p, d, ceil_mode=ceil), Tensor(x))
    np.testing.assert_array_equal(fn_out.asnumpy(), want)


def test_max_pool2d_documented_example_and_pytorch():
    x = Tensor(np.random.default_rng(1).integers(0, 10, (5, 3, 4, 5)).astype(np.float32))
    out, argmax = nn.MaxPool2d(kernel_size=2, stride=1, pad_mode="pad", padding=1, dilation=1, return_indices=True)(x)
    assert out.shape == (5, 3, 5, 6) and argmax.shape == (5, 3, 5, 6)
    with pytest.raises(ValueError, match="x must be 3-D"):
        nn.MaxPool2d(2)(ops.ones((2, 3)))
    with pytest.raises(ValueError, match="pad_mode 'pad'"):
        nn.MaxPool2d(2, 1, "same", return_indices=True)
    torch = pytest.importorskip("torch")
    y = np.random.default_rng(2).standard_normal((2, 2, 9, 7)).astype(np.float32)
    got, got_idx = ops.max_pool2d(Tensor(y), 3, 2, 1, 2, return_indices=True, ceil_mode=True)
    want, want_idx = torch.nn.functional.max_pool2d(torch.tensor(y), 3, 2, 1, 2, ceil_mode=True, return_indices=True)
    np.testing.assert_array_equal(got.asnumpy(), want.numpy())
    np.testing.assert_array_equal(got_idx.asnumpy(), want_idx.numpy())


def test_dilated_and_ceil_pool_gradients():
    x = np.random.default_rng(4).standard_normal((1, 2, 6, 7))
    check_grad(lambda t: ops.max_pool2d(t, 2, 1, 1, 2, ceil_mode=True), x)
    check_grad(lambda t: ops.max_pool2d(t, 3, 2, 1, 1, return_indices=True)[0], x)
    x1 = np.random.default_rng(5).standard_normal((2, 3, 9))
    check_grad(lambda t: nn.MaxPool1d(3, 2, "pad", 1, dilation=2, ceil_mode=True)(t), x1)
    check_grad(lambda t: nn.AvgPool1d(3, 2, "pad", 1, ceil_mode=True, count_include_pad=False)(t), x1)


def _bins(n, o):
    return [(i * n // o, -(-(i + 1) * n // o)) for i in range(o)]


@pytest.mark.parametrize("mode", HOOK_MODES)
def test_adaptive_max_pool2d_indices_and_functional_adaptive_pools(mode):
    x = np.random.default_rng(6).standard_normal((2, 3, 7, 5)).astype(np.float32)
    want = np.zeros((2, 3, 3, 2), np.float32)
    want_idx = np.zeros((2, 3, 3, 2), np.int64)
    want_avg = np.zeros((2, 3, 3, 2))
    for i, (hs, he) in enumerate(_bins(7, 3)):
        for j, (ws, we) in enumerate(_bins(5, 2)):
            win = x[:, :, hs:he, ws:we].reshape(2, 3, -1)
            want[:, :, i, j] = win.max(-1)
            li = win.argmax(-1)
            want_idx[:, :, i, j] = (hs + li // (we - ws)) * 5 + ws + li % (we - ws)
            want_avg[:, :, i, j] = win.mean(-1)
    out, idx = run(mode, nn.AdaptiveMaxPool2d((3, 2), return_indices=True), Tensor(x))
    np.testing.assert_array_equal(out.asnumpy(), want)
    np.testing.assert_array_equal(idx.asnumpy(), want_idx)
    assert idx.dtype == ms.int64
    out3, idx3 = run(mode, nn.AdaptiveMaxPool2d((3, 2), return_indices=True), Tensor(x[1]))  # (C, H, W)
    np.testing.assert_array_equal(out3.asnumpy(), want[1])
    np.testing.assert_array_equal(idx3.asnumpy(), want_idx[1])
    fmax, favg, fnone = run_fn(mode, lambda t: (ops.adaptive_max_pool2d(t, (3, 2)), ops.adaptive_avg_pool2d(t, (3, 2)),
                                                ops.adaptive_avg_pool2d(t, None)), Tensor(x))
    np.testing.assert_array_equal(fmax.asnumpy(), want)
    np.testing.assert_allclose(favg.asnumpy(), want_avg, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(fnone.asnumpy(), x, rtol=1e-6, atol=1e-6)  # None keeps both axes
    with pytest.raises(ValueError, match="3-D .* or 4-D"):
        ops.adaptive_avg_pool2d(ops.ones((4, 4)), 2)
    with pytest.raises(TypeError, match="float"):
        ops.adaptive_max_pool2d(Tensor(np.ones((1, 4, 4), np.int32)), 2)
    with pytest.raises(TypeError, match="return_indices"):
        nn.AdaptiveMaxPool2d(2, return_indices="yes")


@pytest.mark.parametrize("mode", HOOK_MODES)
def test_adaptive_pools_1d(mode):
    x = np.random.default_rng(7).standard_normal((2, 3, 12)).astype(np.float32)
    avg = run(mode, nn.AdaptiveAvgPool1d(4), Tensor(x)).asnumpy()
    mx = run(mode, nn.AdaptiveMaxPool1d(3), Tensor(x)).asnumpy()
    np.testing.assert_allclose(avg, x.reshape(2, 3, 4, 3).mean(-1), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(mx, x.reshape(2, 3, 3, 4).max(-1))
    assert nn.AdaptiveAvgPool1d(output_size=2)(ops.ones((1, 3, 6))).shape == (1, 3, 2)  # MindSpore's example
    with pytest.raises(ValueError, match="multiple of output_size"):
        nn.AdaptiveAvgPool1d(5)(Tensor(x))
    with pytest.raises(ValueError, match="3-D"):
        nn.AdaptiveMaxPool1d(2)(Tensor(x[0]))
    with pytest.raises(TypeError, match="output_size must be an int"):
        nn.AdaptiveAvgPool1d((2,))
    check_grad(lambda t: nn.AdaptiveMaxPool1d(3)(t) + nn.AdaptiveAvgPool1d(2)(t)[..., :1], x[:1].astype(np.float64))


def conv_transpose1d_ref(x, w, stride, pad_mode, padding, dilation, groups, out_len):
    """Scatter each input position through the kernel, then crop/pad to MindSpore's length."""
    n, cin, length = x.shape
    cog, k = w.shape[1], w.shape[2]
    full = np.zeros((n, cog * groups, (length - 1) * stride + dilation * (k - 1) + 1))
    cig = cin // groups
    for c in range(cin):
        g = c // cig
        for i in range(length):
            for j in range(k):
                full[:, g * cog:(g + 1) * cog, i * stride + j * dilation] += x[:, c, i:i + 1] * w[c, :, j]
    if pad_mode == "pad":
        before = padding
    elif pad_mode == "same":
        before = max(dilation * (k - 1) + 1 - stride, 0) // 2
    else:
        before = 0
    out = np.zeros((n, cog * groups, out_len))
    take = full[:, :, before:before + out_len]
    out[:, :, :take.shape[2]] = take
    return out


@pytest.mark.parametrize("mode", HOOK_MODES)
@pytest.mark.parametrize("kw, out_len", [(dict(stride=2, pad_mode="pad", padding=1), 9),
                                         (dict(stride=2, pad_mode="valid"), 11),
                                         (dict(stride=3, pad_mode="valid", kernel_size=2), 15),
                                         (dict(stride=2, pad_mode="same", dilation=2), 10),
                                         (dict(pad_mode="pad", padding=2, group=2), 3)])
def test_conv1d_transpose_against_numpy(mode, kw, out_len):
    rng = np.random.default_rng(8)
    kw = dict(kw)
    k = kw.pop("kernel_size", 3)
    cell = nn.Conv1dTranspose(4, 6, k, has_bias=True, bias_init="normal", **kw)
    assert cell.weight.shape == (4, 6 // kw.get("group", 1), k)
    x = rng.standard_normal((2, 4, 5)).astype(np.float32)
    got = run(mode, cell, Tensor(x)).asnumpy()
    want = conv_transpose1d_ref(x.astype(np.float64), cell.weight.asnumpy().astype(np.float64), kw.get("stride", 1),
                                kw["pad_mode"], kw.get("padding", 0), kw.get("dilation", 1), kw.get("group", 1),
                                out_len) + cell.bias.asnumpy()[None, :, None]
    assert got.shape == (2, 6, out_len)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_conv1d_transpose_gradients_and_pytorch():
    ms.set_seed(3)
    x = np.random.default_rng(9).standard_normal((2, 3, 4))
    check_grad(nn.Conv1dTranspose(3, 2, 3, stride=2, pad_mode="pad", padding=1, dtype=ms.float64), x)
    cell = nn.Conv1dTranspose(3, 2, 3, stride=2, pad_mode="pad", padding=1)
    torch = pytest.importorskip("torch")
    t = torch.nn.ConvTranspose1d(3, 2, 3, stride=2, padding=1, bias=False)
    with torch.no_grad():
        t.weight.copy_(torch.tensor(cell.weight.asnumpy()))
    xf = x.astype(np.float32)
    np.testing.assert_allclose(cell(Tensor(xf)).asnumpy(), t(torch.tensor(xf)).detach().numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", HOOK_MODES)
def test_functional_conv1d_prelu_group_norm(mode):
    rng = np.random.default_rng(10)
    x = rng.standard_normal((2, 4, 11)).astype(np.float32)
    w = rng.standard_normal((6, 2, 3)).astype(np.float32)
    b = rng.standard_normal(6).astype(np.float32)
    slopes = rng.uniform(0.05, 0.5, 4).astype(np.float32)
    gamma, beta = rng.standard_normal(4).astype(np.float32), rng.standard_normal(4).astype(np.float32)

    def fn(t, k, bias, a, g, bt):
        return (ops.conv1d(t, k, bias, 2, "pad", 1, 2, 2), ops.prelu(t, a), ops.prelu(t, a[:1]),
                ops.group_norm(t, 2, g, bt, 1e-5), ops.group_norm(t, 4))

    conv, pr, pr1, gn, gn_plain = run_fn(mode, fn, *(Tensor(v) for v in (x, w, b, slopes, gamma, beta)))
    x64 = x.astype(np.float64)
    want_conv = conv1d_ref(x64, w.astype(np.float64), 2, (1, 1), 2, 2) + b[:, None]
    np.testing.assert_allclose(conv.asnumpy(), want_conv, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(pr.asnumpy(), np.where(x > 0, x, x * slopes[None, :, None]), rtol=1e-6)
    np.testing.assert_allclose(pr1.asnumpy(), np.where(x > 0, x, x * slopes[0]), rtol=1e-6)

    def gn_ref(groups):
        g = x64.reshape(2, groups, -1)
        return ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + 1e-5)).reshape(x.shape)
    np.testing.assert_allclose(gn.asnumpy(), gn_ref(2) * gamma[None, :, None] + beta[None, :, None], rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(gn_plain.asnumpy(), gn_ref(4), rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="weight must be 1-D"):
        ops.prelu(Tensor(x), Tensor(np.ones((2, 2), np.float32)))
    with pytest.raises(ValueError, match="channels"):
        ops.prelu(Tensor(x), Tensor(np.ones(3, np.float32)))
    with pytest.raises(ValueError, match="divisible by num_groups"):
        ops.group_norm(Tensor(x), 3)
    with pytest.raises(ValueError, match="padding must be 0"):
        ops.conv1d(Tensor(x), Tensor(w[:, :1].repeat(4, 1)), padding=1)


def _nearest_ref(x, oh, ow, align_corners):
    h, w = x.shape[-2:]

    def src(i, n_in, n_out):
        if align_corners:
            return min(int(math.floor(i * ((n_in - 1) / (n_out - 1) if n_out > 1 else 0) + 0.5)), n_in - 1)
        return min(int(math.floor(i * n_in / n_out)), n_in - 1)
    return x[..., [src(i, h, oh) for i in range(oh)], :][..., [src(j, w, ow) for j in range(ow)]]


def _bilinear_ref(x, oh, ow, rule):
    """TensorFlow's ResizeBilinear per output pixel: the source coordinate by ``rule``, the four
    neighbours clamped to the image."""
    h, w = x.shape[-2:]

    def coord(i, n_in, n_out):
        if rule == "align_corners":
            return i * (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
        if rule == "half_pixel":
            return max((i + 0.5) * n_in / n_out - 0.5, 0.0)
        return i * n_in / n_out
    out = np.zeros(x.shape[:-2] + (oh, ow))
    for i in range(oh):
        y = coord(i, h, oh)
        y0 = min(int(math.floor(y)), h - 1)
        y1, fy = min(y0 + 1, h - 1), y - y0
        for j in range(ow):
            xx = coord(j, w, ow)
            x0 = min(int(math.floor(xx)), w - 1)
            x1, fx = min(x0 + 1, w - 1), xx - x0
            top = x[..., y0, x0] * (1 - fx) + x[..., y0, x1] * fx
            bottom = x[..., y1, x0] * (1 - fx) + x[..., y1, x1] * fx
            out[..., i, j] = top * (1 - fy) + bottom * fy
    return out


@pytest.mark.parametrize("mode", HOOK_MODES)
def test_resize_primitives_shape_and_upsample(mode):
    x = np.random.default_rng(11).standard_normal((2, 3, 4, 5)).astype(np.float32)
    nn_false, nn_true = ops.ResizeNearestNeighbor((7, 3)), ops.ResizeNearestNeighbor([6, 9], align_corners=True)
    bl, bl_ac, bl_hp = ops.ResizeBilinearV2(), ops.ResizeBilinearV2(align_corners=True), \
        ops.ResizeBilinearV2(half_pixel_centers=True)

    def fn(t):
        return (nn_false(t), nn_true(t), bl(t, (7, 8)), bl_ac(t, [3, 9]), bl_hp(t, (8, 10)),
                ops.upsample(t, scale_factor=2.0, mode="bilinear"), ops.Shape()(t))

    a, b, c, d, e, up, shape = run_fn(mode, fn, Tensor(x))
    x64 = x.astype(np.float64)
    np.testing.assert_array_equal(a.asnumpy(), _nearest_ref(x, 7, 3, False))
    np.testing.assert_array_equal(b.asnumpy(), _nearest_ref(x, 6, 9, True))
    np.testing.assert_allclose(c.asnumpy(), _bilinear_ref(x64, 7, 8, "asymmetric"), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(d.asnumpy(), _bilinear_ref(x64, 3, 9, "align_corners"), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(e.asnumpy(), _bilinear_ref(x64, 8, 10, "half_pixel"), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(up.asnumpy(), _bilinear_ref(x64, 8, 10, "half_pixel"), rtol=1e-5, atol=1e-6)
    assert shape == (2, 3, 4, 5) and ops.upsample is ops.interpolate
    with pytest.raises(TypeError, match="both be True"):
        ops.ResizeBilinearV2(True, True)
    with pytest.raises(TypeError, match="tuple or list"):
        ops.ResizeNearestNeighbor(4)
    with pytest.raises(ValueError, match="4-D"):
        ops.ResizeBilinearV2()(Tensor(x[0]), (2, 2))
    assert ops.ResizeBilinearV2()(Tensor(x), Tensor(np.array([2, 3], np.int32))).shape == (2, 3, 2, 3)


def test_new_spatial_layers_capture_without_a_break():
    import capture
    x1 = Tensor(np.random.default_rng(12).standard_normal((2, 4, 12)).astype(np.float32))
    x2 = Tensor(np.random.default_rng(13).standard_normal((2, 4, 9, 8)).astype(np.float32))
    cells = [(nn.MaxPool1d(3, 2, "pad", 1, dilation=2, return_indices=True, ceil_mode=True), x1),
             (nn.AvgPool1d(3, 2, "pad", 1, ceil_mode=True, count_include_pad=False), x1),
             (nn.AdaptiveAvgPool1d(3), x1), (nn.AdaptiveMaxPool1d(4), x1),
             (nn.Conv1dTranspose(4, 2, 3, stride=2), x1),
             (nn.MaxPool2d(3, 2, "pad", 1, dilation=2, return_indices=True), x2),
             (nn.AdaptiveMaxPool2d((3, 2), return_indices=True), x2), (nn.PReLU(4), x2), (nn.GroupNorm(2, 4), x2)]
    for cell, x in cells:
        report = capture.explain(cell)(x)
        assert report.graph_count == 1 and report.graph_break_count == 0, (type(cell).__name__, str(report))


@pytest.mark.parametrize("shape,out", [((2, 3, 8, 6), (4, 3)), ((3, 8, 6), (2, 2)), ((2, 3, 7, 5), (3, 2)),
                                       ((1, 2, 6, 6), (6, 6))])
def test_adaptive_max_pool2d_bins_and_indices_against_numpy(shape, out):
    """Bins that tile the plane (a plain max pooling) and uneven ones alike."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal(shape).astype(np.float32)
    h, w = shape[-2:]
    oh, ow = out
    want = np.zeros(shape[:-2] + out, np.float32)
    want_idx = np.zeros(shape[:-2] + out, np.int64)
    for r in range(oh):
        hs, he = (r * h) // oh, -(-((r + 1) * h) // oh)
        for c in range(ow):
            ws, we = (c * w) // ow, -(-((c + 1) * w) // ow)
            win = a[..., hs:he, ws:we].reshape(a.shape[:-2] + (-1,))
            want[..., r, c] = win.max(-1)
            k = win.argmax(-1)
            want_idx[..., r, c] = (hs + k // (we - ws)) * w + ws + k % (we - ws)
    got, idx = ops.adaptive_max_pool2d(Tensor(a), out, return_indices=True)
    np.testing.assert_array_equal(got.asnumpy(), want)
    np.testing.assert_array_equal(idx.asnumpy(), want_idx)
    assert idx.dtype == ms.int64
    np.testing.assert_array_equal(ops.adaptive_max_pool2d(Tensor(a), out).asnumpy(), want)
