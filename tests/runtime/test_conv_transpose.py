"""nn.Conv2dTranspose and ops.conv_transpose2d against a direct numpy scatter formula (and
PyTorch's conv_transpose2d where installed), in PyNative, GRAPH_MODE and @jit; gradients by
finite differences; MindSpore's output sizes and argument errors."""
import numpy as np
import pytest

from gradcheck import check_grad
from modes import HOOK_MODES, run_cell, run_fn
from runtime import Tensor, nn, ops


def conv_transpose_ref(x, w, stride, pads, dilation, groups, out_hw):
    """y[n, o, i*s + a*d - top, j*s + b*d - left] += x[n, c, i, j] * w[c, o - g*og, a, b]: every
    input pixel scatters its kernel-weighted value into the output (what 'transposed' means)."""
    n, c_in, h, w_ = x.shape
    _, og, kh, kw = w.shape
    cg = c_in // groups
    (sh, sw), (dh, dw), (top, _, left, _) = stride, dilation, pads
    y = np.zeros((n, og * groups) + tuple(out_hw))
    for c in range(c_in):
        g = c // cg
        for a in range(kh):
            for b in range(kw):
                for i in range(h):
                    r = i * sh + a * dh - top
                    if not 0 <= r < out_hw[0]:
                        continue
                    for j in range(w_):
                        col = j * sw + b * dw - left
                        if 0 <= col < out_hw[1]:
                            y[:, g * og:(g + 1) * og, r, col] += x[:, c, i, j, None] * w[c, :, a, b]
    return y


CASES = [
    dict(kernel_size=3, pad_mode="same"),
    dict(kernel_size=3, stride=2, pad_mode="same"),
    dict(kernel_size=(3, 2), stride=2, pad_mode="valid"),
    dict(kernel_size=4, stride=2, pad_mode="pad", padding=1),
    dict(kernel_size=3, stride=2, pad_mode="pad", padding=(1, 0, 2, 1), dilation=2),
    dict(kernel_size=3, stride=(2, 3), pad_mode="pad", padding=1, output_padding=(1, 2)),
    dict(kernel_size=2, pad_mode="valid", group=2),
]


def _same_pads(h_out, w_out, layer):
    """The padding a 'same' Conv2d with this layer's geometry uses for an input of the output size."""
    pads = []
    for size, k, s, d in zip((h_out, w_out), layer.kernel_size, layer.stride, layer.dilation):
        total = max((-(-size // s) - 1) * s + d * (k - 1) + 1 - size, 0)
        pads += [total // 2, total - total // 2]
    return tuple(pads)


@pytest.mark.parametrize("mode", HOOK_MODES)
@pytest.mark.parametrize("kw", CASES, ids=[str(i) for i in range(len(CASES))])
def test_conv2d_transpose_against_the_scatter_formula(mode, kw):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 4, 5, 6)).astype(np.float32)
    layer = nn.Conv2dTranspose(4, 6, has_bias=True, **kw)
    got = run_cell(mode, layer, Tensor(x)).asnumpy()
    extra = layer.output_padding
    h_out, w_out = got.shape[2] - extra[0], got.shape[3] - extra[1]
    pads = _same_pads(h_out, w_out, layer) if layer.pad_mode == "same" else layer._pads
    want = conv_transpose_ref(x.astype(np.float64), layer.weight.asnumpy().astype(np.float64), layer.stride,
                              pads, layer.dilation, layer.group, (h_out, w_out))
    want += layer.bias.asnumpy()[None, :, None, None]
    want = np.pad(want, ((0, 0), (0, 0), (0, extra[0]), (0, extra[1])))  # MindSpore pads zeros after the bias
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_output_sizes_follow_mindspore():
    ones = ops.ones((1, 3, 16, 50))
    assert nn.Conv2dTranspose(3, 64, 4, pad_mode="pad")(ones).shape == (1, 64, 19, 53)  # MindSpore's example
    assert nn.Conv2dTranspose(3, 8, 4, stride=2)(ones).shape == (1, 8, 32, 100)  # 'same': H * stride
    assert nn.Conv2dTranspose(3, 8, 1, stride=3, pad_mode="valid")(ones).shape == (1, 8, 48, 150)
    assert nn.Conv2dTranspose(3, 8, 3, stride=2, pad_mode="valid", dilation=2)(ones).shape == (1, 8, 35, 103)
    assert nn.Conv2dTranspose(3, 8, 4, group=1).weight.shape == (3, 8, 4, 4)


@pytest.mark.parametrize("kw, message", [
    (dict(pad_mode="same", output_padding=1, stride=2), "pad_mode must be 'pad'"),
    (dict(pad_mode="pad", output_padding=2, stride=2), "output_padding"),
    (dict(pad_mode="valid", padding=1), "padding must be 0"),
    (dict(pad_mode="circular"), "pad_mode"),
    (dict(group=3), "divisible by group"),
])
def test_bad_arguments_are_refused_clearly(kw, message):
    with pytest.raises(ValueError, match=message):
        nn.Conv2dTranspose(6, 4, 3, **kw)


def test_gradients_by_finite_differences():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 4, 3, 4))
    w = rng.standard_normal((4, 3, 3, 3))

    def f(t, k):
        return ops.conv_transpose2d(t, k, stride=2, padding=1, output_padding=1, groups=1, dilation=1)
    check_grad(f, x, w)

    def grouped(t, k):
        return ops.conv_transpose2d(t, k, stride=(1, 2), padding=(0, 1), groups=2)
    check_grad(grouped, x, rng.standard_normal((4, 2, 2, 3)))


@pytest.mark.parametrize("mode", HOOK_MODES)
def test_functional_matches_the_formula_and_pytorch(mode):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 4, 5, 5)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    b = rng.standard_normal(6).astype(np.float32)

    def f(t, k, bias):
        return ops.conv_transpose2d(t, k, bias, stride=2, padding=1, output_padding=1, groups=2, dilation=1)

    got = run_fn(mode, f, Tensor(x), Tensor(w[:, :3]), Tensor(b)).asnumpy()
    assert got.shape == (2, 6, 10, 10)
    want = conv_transpose_ref(x.astype(np.float64), w[:, :3].astype(np.float64), (2, 2), (1, 1, 1, 1), (1, 1), 2,
                              (10, 10)) + b[None, :, None, None]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    torch = pytest.importorskip("torch")
    ref = torch.nn.functional.conv_transpose2d(torch.from_numpy(x), torch.from_numpy(w[:, :3].copy()),
                                               torch.from_numpy(b), stride=2, padding=1, output_padding=1, groups=2)
    np.testing.assert_allclose(got, ref.numpy(), rtol=1e-4, atol=1e-5)


def test_a_generator_with_transposed_convolutions_trains_the_same_in_every_mode():
    """A DCGAN-style upsampling stack: one Momentum step under each mode gives PyNative's numbers."""
    import runtime as ms

    def make():
        ms.set_seed(3)
        return nn.SequentialCell([nn.Conv2dTranspose(8, 4, 4, stride=2, pad_mode="pad", padding=1, has_bias=True),
                                  nn.ReLU(),
                                  nn.Conv2dTranspose(4, 1, 4, stride=2, pad_mode="pad", padding=1), nn.Tanh()])

    rng = np.random.default_rng(4)
    z = Tensor(rng.standard_normal((3, 8, 4, 4)).astype(np.float32))
    target = Tensor(rng.standard_normal((3, 1, 16, 16)).astype(np.float32))
    results = {}
    for mode in HOOK_MODES:
        net = make()
        loss_net = nn.WithLossCell(net, nn.MSELoss())
        step = nn.TrainOneStepCell(loss_net, nn.Momentum(net.trainable_params(), 0.1, 0.9))
        losses = [float(run_cell(mode, step, z, target).asnumpy()) for _ in range(3)]
        results[mode] = (losses, [p.asnumpy() for p in net.trainable_params()])
    for mode in HOOK_MODES[1:]:
        np.testing.assert_allclose(results[mode][0], results["pynative"][0], rtol=1e-5)
        for got, want in zip(results[mode][1], results["pynative"][1]):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert results["pynative"][0][-1] < results["pynative"][0][0]


@pytest.mark.parametrize("mode", HOOK_MODES)
def test_input_with_the_wrong_channel_count_names_the_channels(mode):
    """A UNet wiring mistake (an up-sampling layer fed fewer channels than its in_channels) is reported as a
    channel mismatch against the weight, as nn.Conv2d reports it, in PyNative and in GRAPH_MODE; it was an
    internal 'dout shape does not match the convolution output shape' of the input-gradient op."""
    up = nn.Conv2dTranspose(8, 4, kernel_size=2, stride=2, has_bias=True)
    message = r"dout shape \(2, 4, 8, 8\) has 4 channels but weight shape \(8, 4, 2, 2\) expects 8"
    with pytest.raises(ValueError, match=message):
        run_cell(mode, up, ops.zeros((2, 4, 8, 8)))
    with pytest.raises(ValueError, match=message):
        ops.conv_transpose2d(ops.zeros((2, 4, 8, 8)), up.weight, stride=2)
