"""ops.iou, ops.bounding_box_encode/decode and ops.check_valid (with their Primitives): loops written from the
definitions in MindSpore's kernels (the +1 pixel convention), MindSpore's documented examples, round trips,
finite-difference gradients and every execution mode."""

import numpy as np
import pytest

from runtime import Tensor, ops
from gradcheck import check_grad
from modes import MODES, run_fn

RNG = np.random.default_rng(41)


def _np(t):
    return t.asnumpy()


def _random_boxes(n, size=20.0):
    xy = RNG.uniform(0, size, (n, 2))
    wh = RNG.uniform(0.5, size / 2, (n, 2))
    return np.concatenate([xy, xy + wh], 1)


def _iou_loop(a, g, mode):
    out = np.zeros((len(g), len(a)))
    for m, gb in enumerate(g):
        for n, ab in enumerate(a):
            w = max(0.0, min(ab[2], gb[2]) - max(ab[0], gb[0]) + 1)
            h = max(0.0, min(ab[3], gb[3]) - max(ab[1], gb[1]) + 1)
            area_a = (ab[2] - ab[0] + 1) * (ab[3] - ab[1] + 1)
            area_g = (gb[2] - gb[0] + 1) * (gb[3] - gb[1] + 1)
            out[m, n] = w * h / ((area_a + area_g - w * h if mode == "iou" else area_g) + 1e-10)
    return out


@pytest.mark.parametrize("mode", ["iou", "iof"])
def test_iou_equals_the_definition(mode):
    a, g = _random_boxes(7), _random_boxes(5)
    np.testing.assert_allclose(_np(ops.iou(Tensor(a), Tensor(g), mode)), _iou_loop(a, g, mode), rtol=1e-12)
    np.testing.assert_allclose(_np(ops.IOU(mode)(Tensor(a), Tensor(g))), _iou_loop(a, g, mode), rtol=1e-12)
    with pytest.raises(KeyError):
        ops.iou(Tensor(a), Tensor(g), "giou")


def test_encode_decode_documented_examples_and_round_trip():
    anchor = Tensor(np.array([[2, 2, 2, 3], [2, 2, 2, 3]], np.float32))
    truth = Tensor(np.array([[1, 2, 1, 4], [1, 2, 1, 4]], np.float32))
    np.testing.assert_allclose(_np(ops.bounding_box_encode(anchor, truth)),
                               [[-1.0, 0.25, 0.0, 0.40551758]] * 2, rtol=1e-3)
    anchor = Tensor(np.array([[4, 1, 2, 1], [2, 2, 2, 3]], np.float32))
    deltas = Tensor(np.array([[3, 1, 2, 2], [1, 2, 1, 4]], np.float32))
    np.testing.assert_allclose(_np(ops.bounding_box_decode(anchor, deltas, (768, 1280), wh_ratio_clip=0.016)),
                               [[4.1953125, 0.0, 0.0, 5.1953125], [2.140625, 0.0, 3.859375, 60.59375]], rtol=2e-3)
    a, g = _random_boxes(6, 50.0), _random_boxes(6, 50.0)
    means, stds = (0.1, -0.2, 0.05, 0.0), (0.1, 0.1, 0.2, 0.2)
    enc = ops.BoundingBoxEncode(means, stds)(Tensor(a), Tensor(g))
    pw, ph = a[:, 2] - a[:, 0] + 1, a[:, 3] - a[:, 1] + 1
    gw, gh = g[:, 2] - g[:, 0] + 1, g[:, 3] - g[:, 1] + 1
    want = np.stack([((g[:, 0] + g[:, 2]) / 2 - (a[:, 0] + a[:, 2]) / 2) / pw,
                     ((g[:, 1] + g[:, 3]) / 2 - (a[:, 1] + a[:, 3]) / 2) / ph, np.log(gw / pw), np.log(gh / ph)], 1)
    np.testing.assert_allclose(_np(enc), (want - means) / stds, rtol=1e-12, atol=1e-12)
    dec = ops.BoundingBoxDecode((1000, 1000), means, stds, wh_ratio_clip=1e-6)(Tensor(a), enc)
    np.testing.assert_allclose(_np(dec), g, rtol=1e-12, atol=1e-9)  # decoding the encoding gives the boxes back
    clipped = _np(ops.bounding_box_decode(Tensor(a), enc, (10, 12)))
    assert clipped[:, [0, 2]].max() <= 12 and clipped[:, [1, 3]].max() <= 10 and clipped.min() >= 0


def test_check_valid():
    boxes = np.array([[0, 0, 3, 3], [1, 1, 149, 2], [1, 1, 150, 2], [-1, 0, 1, 1], [0, 0, 5, 99], [0, 0, 5, 100]],
                     np.float32)
    meta = Tensor(np.array([100, 150, 1.0], np.float32))
    assert _np(ops.check_valid(Tensor(boxes), meta)).tolist() == [True, True, False, False, True, False]
    assert _np(ops.CheckValid()(Tensor(boxes), Tensor(np.array([50, 75, 2.0], np.float32)))).tolist() == \
        [True, True, False, False, True, False]


def test_gradients():
    a, g = _random_boxes(3), _random_boxes(2)
    g[0] = a[1] + 0.3  # an overlapping pair
    check_grad(lambda x, y: ops.iou(x, y), a, g, rtol=1e-5, atol=1e-7)
    check_grad(lambda x, y: ops.bounding_box_encode(x, y), a, g[:1].repeat(3, 0), rtol=1e-5, atol=1e-7)
    d = RNG.uniform(-0.5, 0.5, (3, 4))
    check_grad(lambda x, y: ops.bounding_box_decode(x, y, (100, 100)), a, d, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("mode", MODES)
def test_every_mode_equals_pynative(mode):
    a = Tensor(_random_boxes(4).astype(np.float32))
    g = Tensor(_random_boxes(4).astype(np.float32))

    def fn(x, y):
        d = ops.bounding_box_encode(x, y)
        return ops.iou(x, y) + ops.bounding_box_decode(x, d, (40, 40)).sum() + ops.check_valid(y, Tensor(
            np.array([30, 30, 1.0], np.float32))).astype(x.dtype)
    np.testing.assert_allclose(_np(run_fn(mode, fn, a, g)), _np(fn(a, g)), rtol=1e-5, atol=1e-5)
