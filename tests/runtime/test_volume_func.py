"""ops.meshgrid, ops.pixel_shuffle/unshuffle, ops.dropout2d/3d, ops.conv3d and their nn layers,
against numpy oracles written from the definitions (a direct 3-D convolution loop, numpy's
meshgrid, the documented channel-to-pixel rule), gradients by central differences, and every
execution mode equal to PyNative."""
import numpy as np
import pytest

import runtime as ms
from runtime import Tensor, nn, ops
from gradcheck import check_grad
from modes import MODES, run_cell


# -- oracles ---------------------------------------------------------------------------------------------
def conv3d_reference(x, w, stride=(1, 1, 1), pads=((0, 0),) * 3, dilation=(1, 1, 1), groups=1):
    """The definition: out[n, o, z, y, x] = sum over c, i, j, k of w * the padded input's window."""
    x = np.pad(x, ((0, 0), (0, 0)) + tuple(pads))
    n, c, d, h, wd = x.shape
    o, ci, kd, kh, kw = w.shape
    span = [dl * (k - 1) + 1 for dl, k in zip(dilation, (kd, kh, kw))]
    outs = [(size - sp) // s + 1 for size, sp, s in zip((d, h, wd), span, stride)]
    y = np.zeros((n, o) + tuple(outs), np.float64)
    per = o // groups
    for oc in range(o):
        g = oc // per
        for z in range(outs[0]):
            for r in range(outs[1]):
                for q in range(outs[2]):
                    z0, r0, q0 = z * stride[0], r * stride[1], q * stride[2]
                    win = x[:, g * ci:(g + 1) * ci, z0:z0 + span[0]:dilation[0], r0:r0 + span[1]:dilation[1],
                            q0:q0 + span[2]:dilation[2]]
                    y[:, oc, z, r, q] = (win * w[oc]).sum(axis=(1, 2, 3, 4))
    return y


def pixel_shuffle_reference(x, r):
    """out[..., c, h*r + i, w*r + j] = x[..., c*r*r + i*r + j, h, w]."""
    *lead, cin, h, w = x.shape
    c = cin // (r * r)
    out = np.zeros(tuple(lead) + (c, h * r, w * r), x.dtype)
    for ch in range(c):
        for i in range(r):
            for j in range(r):
                out[..., ch, i::r, j::r] = x[..., ch * r * r + i * r + j, :, :]
    return out


CONV3D_CASES = [
    # (x shape, w shape, kwargs, pads the reference gets)
    ((2, 3, 5, 6, 7), (4, 3, 2, 3, 3), {}, ((0, 0),) * 3),
    ((1, 4, 6, 5, 5), (4, 2, 3, 3, 2), dict(groups=2, stride=2, pad_mode="pad", padding=(1, 0, 1, 2, 0, 1)),
     ((1, 0), (1, 2), (0, 1))),
    ((1, 2, 5, 5, 5), (3, 2, 3, 3, 3), dict(pad_mode="same", dilation=(2, 1, 1)), ((2, 2), (1, 1), (1, 1))),
    ((1, 2, 7, 6, 5), (2, 2, 3, 2, 3), dict(pad_mode="same", stride=(2, 3, 1)), ((1, 1), (0, 0), (1, 1))),
    ((2, 1, 4, 4, 4), (2, 1, 1, 1, 1), dict(pad_mode="pad", padding=1), ((1, 1),) * 3),
]


@pytest.mark.parametrize("xs,ws,kw,pads", CONV3D_CASES)
def test_conv3d_equals_the_definition(xs, ws, kw, pads):
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal(xs), rng.standard_normal(ws)
    got = ops.conv3d(Tensor(x), Tensor(w), **kw).asnumpy()
    stride = kw.get("stride", 1)
    stride = (stride,) * 3 if isinstance(stride, int) else stride
    dil = kw.get("dilation", 1)
    dil = (dil,) * 3 if isinstance(dil, int) else dil
    want = conv3d_reference(x, w, stride, pads, dil, kw.get("groups", 1))
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


def test_conv3d_with_bias_and_gradients():
    rng = np.random.default_rng(1)
    x, w, b = rng.standard_normal((1, 2, 4, 4, 3)), rng.standard_normal((2, 2, 2, 2, 2)), rng.standard_normal(2)
    got = ops.conv3d(Tensor(x), Tensor(w), Tensor(b), pad_mode="same").asnumpy()
    want = conv3d_reference(x, w, pads=((0, 1),) * 3) + b.reshape(1, 2, 1, 1, 1)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)
    check_grad(lambda x, w, b: ops.conv3d(x, w, b, stride=(2, 1, 1), pad_mode="pad", padding=(1, 0, 0, 1, 1, 0)),
               x, w, b)


def test_conv3d_primitive_and_errors():
    x, w = ops.ones((1, 2, 4, 4, 4)), ops.ones((3, 2, 3, 3, 3))
    assert ops.Conv3D(3, 3)(x, w).shape == (1, 3, 2, 2, 2)
    with pytest.raises(ValueError, match="does not match out_channel"):
        ops.Conv3D(4, 3)(x, w)
    with pytest.raises(ValueError, match="input channels"):
        ops.conv3d(ops.ones((1, 3, 4, 4, 4)), w)
    with pytest.raises(ValueError, match="5-D"):
        ops.conv3d(ops.ones((1, 2, 4, 4)), w)
    with pytest.raises(ValueError, match="padding must be 0"):
        ops.conv3d(x, w, padding=1)
    with pytest.raises(ValueError, match="smaller than the dilated kernel"):
        ops.conv3d(ops.ones((1, 2, 2, 4, 4)), w)


def test_nn_conv3d_defaults_and_padding():
    ms.set_seed(0)
    net = nn.Conv3d(3, 8, 3, has_bias=True)
    x = np.random.default_rng(2).standard_normal((2, 3, 4, 6, 6)).astype(np.float32)
    y = net(Tensor(x))
    assert y.shape == (2, 8, 4, 6, 6)  # pad_mode 'same' by default
    want = conv3d_reference(x.astype(np.float64), net.weight.asnumpy().astype(np.float64), pads=((1, 1),) * 3)
    want += net.bias.asnumpy().reshape(1, 8, 1, 1, 1)
    np.testing.assert_allclose(y.asnumpy(), want, rtol=1e-4, atol=1e-4)
    assert nn.Conv3d(3, 8, (1, 3, 3), pad_mode="pad", padding=(0, 0, 1, 1, 1, 1))(Tensor(x)).shape == (2, 8, 4, 6, 6)
    with pytest.raises(TypeError, match="padding"):
        nn.Conv3d(3, 8, 3, pad_mode="pad", padding=(1, 1))
    with pytest.raises(ValueError, match="divisible by group"):
        nn.Conv3d(3, 8, 3, group=2)


def test_meshgrid_equals_numpy():
    a, b, c = (np.arange(n, dtype=np.float32) + n for n in (3, 4, 2))
    for indexing in ("xy", "ij"):
        got = ops.meshgrid(Tensor(a), Tensor(b), Tensor(c), indexing=indexing)
        want = np.meshgrid(a, b, c, indexing=indexing)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g.asnumpy(), w)
        got = ops.Meshgrid(indexing)((Tensor(a), Tensor(b)))
        for g, w in zip(got, np.meshgrid(a, b, indexing=indexing)):
            np.testing.assert_array_equal(g.asnumpy(), w)
    with pytest.raises(ValueError, match="indexing"):
        ops.meshgrid(Tensor(a), Tensor(b), indexing="yx")
    with pytest.raises(ValueError, match="1-D"):
        ops.meshgrid(Tensor(a.reshape(3, 1)), Tensor(b))
    check_grad(lambda x, y: ops.meshgrid(x, y)[0] * ops.meshgrid(x, y)[1], a.astype(np.float64), b.astype(np.float64))


@pytest.mark.parametrize("shape,r", [((1, 8, 2, 3), 2), ((2, 3, 9, 2, 2), 3), ((18, 1, 1), 3)])
def test_pixel_shuffle_and_unshuffle(shape, r):
    x = np.random.default_rng(3).standard_normal(shape).astype(np.float32)
    y = ops.pixel_shuffle(Tensor(x), r).asnumpy()
    np.testing.assert_array_equal(y, pixel_shuffle_reference(x, r))
    np.testing.assert_array_equal(ops.pixel_unshuffle(Tensor(y), r).asnumpy(), x)
    np.testing.assert_array_equal(nn.PixelShuffle(r)(Tensor(x)).asnumpy(), y)
    np.testing.assert_array_equal(nn.PixelUnshuffle(r)(Tensor(y)).asnumpy(), x)


def test_pixel_shuffle_errors():
    with pytest.raises(ValueError, match="divisible by upscale_factor"):
        ops.pixel_shuffle(ops.ones((1, 6, 2, 2)), 2)
    with pytest.raises(ValueError, match="divisible by downscale_factor"):
        ops.pixel_unshuffle(ops.ones((1, 1, 3, 4)), 2)
    with pytest.raises(ValueError, match="positive int"):
        nn.PixelShuffle(0)


@pytest.mark.parametrize("rank,fn,cell", [(4, ops.dropout2d, nn.Dropout2d), (5, ops.dropout3d, nn.Dropout3d)])
def test_channel_dropout_zeroes_whole_channels_at_rate_p(rank, fn, cell):
    ms.set_seed(5)
    shape = (64, 32) + (3,) * (rank - 2)
    x = np.random.default_rng(4).uniform(1.0, 2.0, shape).astype(np.float32)
    y = fn(Tensor(x), p=0.25).asnumpy()
    ratio = (y / x).reshape(64 * 32, -1)
    np.testing.assert_allclose(ratio.min(axis=1), ratio.max(axis=1), rtol=1e-6,
                               err_msg="each channel is kept or dropped whole")
    kept = ratio[:, 0]
    assert np.all((kept == 0) | np.isclose(kept, 1 / 0.75, rtol=1e-6))
    assert 0.70 < (kept > 0).mean() < 0.80
    np.testing.assert_array_equal(fn(Tensor(x), p=0.25, training=False).asnumpy(), x)
    net = cell(0.25)
    net.set_train(False)
    np.testing.assert_array_equal(net(Tensor(x)).asnumpy(), x)
    net.set_train(True)
    assert (net(Tensor(x)).asnumpy() == 0).any()
    with pytest.raises(ValueError, match=f"{rank}-D"):
        fn(ops.ones((2, 3)), 0.5)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        cell(1.5)


class Block3d(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv3d(2, 8, 3, has_bias=True)
        self.up = nn.PixelShuffle(2)

    def construct(self, x):
        y = self.conv(x)                                   # (N, 8, D, H, W)
        y = ops.reshape(ops.transpose(y, (0, 2, 1, 3, 4)), (-1, 8, y.shape[3], y.shape[4]))
        return self.up(y)


@pytest.mark.parametrize("mode", MODES)
def test_modes_equal_pynative_with_gradients(mode):
    ms.set_seed(0)
    net = Block3d()
    x = Tensor(np.random.default_rng(6).standard_normal((2, 2, 3, 4, 4)).astype(np.float32))
    want = net(x).asnumpy()
    np.testing.assert_allclose(run_cell(mode, net, x).asnumpy(), want, rtol=1e-5, atol=1e-5)
    grad = ms.grad(lambda x: net(x).sum(), None, net.trainable_params())
    want_g = [g.asnumpy() for g in grad(x)]
    got_g = grad(x) if mode == "pynative" else ms.jit(grad)(x)
    for g, w in zip(got_g, want_g):
        np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-4, atol=1e-4)
