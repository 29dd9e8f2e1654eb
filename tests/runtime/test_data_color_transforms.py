"""``vision.Grayscale`` and ``vision.RandomColorAdjust`` against the documented formulas.

Oracles: ITU-R 601-2 luma ``L = R * 299/1000 + G * 587/1000 + B * 114/1000`` (PIL's documented
``convert("L")``), brightness ``x * f``, contrast ``x * f + (1 - f) * mean(L)``, saturation
``x * f + (1 - f) * L``, and the hue turn through Python's ``colorsys`` HSV conversion, pixel by
pixel; integer images rounded half up and saturated.
"""
import colorsys

import numpy as np
import pytest

import runtime.dataset as ds
import runtime.dataset.vision as vision


@pytest.fixture(autouse=True)
def _dataset_seed():
    yield
    ds.config.set_seed(None)


def luma_exact(img):
    img = np.asarray(img, np.float64)
    return (img[..., 0] * 299 + img[..., 1] * 587 + img[..., 2] * 114) / 1000


def round_u8(x):
    return np.clip(np.floor(np.asarray(x) + 0.5), 0, 255).astype(np.uint8)


@pytest.fixture
def rgb_u8(rng):
    return rng.integers(0, 256, size=(6, 7, 3), dtype=np.uint8)


@pytest.fixture
def rgb_f64(rng):
    return rng.random((6, 7, 3))


# -- Grayscale ---------------------------------------------------------------------------------
def test_grayscale_uint8_is_the_rounded_luma(rgb_u8):
    out = vision.Grayscale()(rgb_u8)
    assert out.shape == (6, 7) and out.dtype == np.uint8
    # PIL rounds its fixed-point form of the formula: within half a level (+ the fixed point's 0.003)
    assert np.abs(out - luma_exact(rgb_u8)).max() <= 0.504
    three = vision.Grayscale(3)(rgb_u8)
    assert three.shape == (6, 7, 3) and all(np.array_equal(three[..., c], out) for c in range(3))


def test_grayscale_float_is_the_exact_luma(rgb_f64):
    np.testing.assert_allclose(vision.Grayscale()(rgb_f64), luma_exact(rgb_f64), rtol=1e-12)
    assert vision.Grayscale()(rgb_f64.astype(np.float32)).dtype == np.float32


def test_grayscale_matches_pil(rgb_u8):
    Image = pytest.importorskip("PIL.Image")
    pil = Image.fromarray(rgb_u8)
    np.testing.assert_array_equal(vision.Grayscale()(rgb_u8), np.asarray(pil.convert("L")))
    out = vision.Grayscale(3)(pil)  # PIL in, PIL out, as MindSpore's transform
    assert isinstance(out, Image.Image) and out.mode == "RGB"


def test_grayscale_one_channel_and_rgba(rgb_u8):
    gray = rgb_u8[..., 0]
    np.testing.assert_array_equal(vision.Grayscale()(gray), gray)
    np.testing.assert_array_equal(vision.Grayscale()(gray[..., None]), gray)
    rgba = np.concatenate([rgb_u8, np.full((6, 7, 1), 9, np.uint8)], axis=-1)
    np.testing.assert_array_equal(vision.Grayscale()(rgba), vision.Grayscale()(rgb_u8))


def test_grayscale_in_a_pipeline_equals_per_image(rng):
    imgs = rng.integers(0, 256, size=(5, 4, 4, 3), dtype=np.uint8)
    d = ds.NumpySlicesDataset({"image": imgs}, shuffle=False).map(vision.Grayscale(3), input_columns="image")
    got = [r[0] for r in d.create_tuple_iterator(output_numpy=True)]
    for g, img in zip(got, imgs):
        np.testing.assert_array_equal(g, vision.Grayscale(3)(img))
        assert np.abs(g[..., 0] - luma_exact(img)).max() <= 0.504


def test_grayscale_errors():
    with pytest.raises(TypeError, match="num_output_channels must be an int"):
        vision.Grayscale("1")
    with pytest.raises(ValueError, match="num_output_channels must be 1 or 3"):
        vision.Grayscale(2)
    with pytest.raises(ValueError, match="expected an RGB image"):
        vision.Grayscale()(np.zeros((2, 2, 5), np.uint8))


# -- RandomColorAdjust: one adjustment at a fixed factor ---------------------------------------
def test_brightness(rgb_u8, rgb_f64):
    op = vision.RandomColorAdjust(brightness=(0.6, 0.6))
    np.testing.assert_array_equal(op(rgb_u8), round_u8(rgb_u8 * 0.6))
    np.testing.assert_array_equal(vision.RandomColorAdjust(brightness=(1.7, 1.7))(rgb_u8), round_u8(rgb_u8 * 1.7))
    np.testing.assert_allclose(op(rgb_f64), rgb_f64 * 0.6, rtol=1e-12)


def test_contrast(rgb_u8, rgb_f64):
    f = 0.3
    out = vision.RandomColorAdjust(contrast=(f, f))(rgb_f64)
    np.testing.assert_allclose(out, rgb_f64 * f + (1 - f) * luma_exact(rgb_f64).mean(), rtol=1e-12)
    # uint8: the mean of the rounded luma, rounded; then the blend rounded and saturated
    mean = np.floor(round_u8(luma_exact(rgb_u8)).mean() + 0.5)
    for f in (0.3, 2.5):
        got = vision.RandomColorAdjust(contrast=(f, f))(rgb_u8).astype(int)
        assert np.abs(got - round_u8(rgb_u8 * f + (1 - f) * mean)).max() <= 1


def test_saturation(rgb_u8, rgb_f64):
    f = 1.7
    out = vision.RandomColorAdjust(saturation=(f, f))(rgb_f64)
    np.testing.assert_allclose(out, rgb_f64 * f + (1 - f) * luma_exact(rgb_f64)[..., None], rtol=1e-12)
    gray = round_u8(luma_exact(rgb_u8))[..., None]
    got = vision.RandomColorAdjust(saturation=(f, f))(rgb_u8).astype(int)
    assert np.abs(got - round_u8(rgb_u8 * f + (1 - f) * gray)).max() <= 1
    # saturation 0 is the grayscale image in three channels
    zero = vision.RandomColorAdjust(saturation=(0, 0))(rgb_f64)
    np.testing.assert_allclose(zero, np.repeat(luma_exact(rgb_f64)[..., None], 3, -1), rtol=1e-12)


def hue_oracle(img, shift, scale):
    out = np.empty(img.shape, np.float64)
    for idx in np.ndindex(img.shape[:2]):
        h, s, v = colorsys.rgb_to_hsv(*(img[idx] / scale))
        out[idx] = np.array(colorsys.hsv_to_rgb((h + shift) % 1.0, s, v)) * scale
    return out


@pytest.mark.parametrize("shift", [0.25, -0.1, 0.5, -0.5])
def test_hue(rgb_u8, rgb_f64, shift):
    op = vision.RandomColorAdjust(hue=(shift, shift))
    np.testing.assert_allclose(op(rgb_f64), hue_oracle(rgb_f64, shift, 1.0), atol=1e-12)
    # the turn does not depend on the image's scale: 0..255 floats turn alike
    np.testing.assert_allclose(op(rgb_f64 * 255), hue_oracle(rgb_f64, shift, 1.0) * 255, atol=1e-9)
    got = op(rgb_u8).astype(int)
    assert np.abs(got - round_u8(hue_oracle(rgb_u8.astype(np.float64), shift, 255.0))).max() <= 1


def test_gray_pixels_keep_their_hue_and_saturation_one():
    gray = np.repeat(np.arange(0, 250, 10, dtype=np.uint8).reshape(5, 5, 1), 3, -1)
    np.testing.assert_array_equal(vision.RandomColorAdjust(hue=0.5, saturation=2.0)(gray), gray)


def test_defaults_change_nothing(rgb_u8, rgb_f64):
    np.testing.assert_array_equal(vision.RandomColorAdjust()(rgb_u8), rgb_u8)
    np.testing.assert_array_equal(vision.RandomColorAdjust()(rgb_f64), rgb_f64)


# -- RandomColorAdjust: ranges, order, pipeline -----------------------------------------------
def test_factors_are_drawn_uniformly_from_the_documented_range(rng):
    ds.config.set_seed(3)
    imgs = rng.random((400, 2, 2, 3)) + 0.5
    d = ds.NumpySlicesDataset({"image": imgs}, shuffle=False).map(
        vision.RandomColorAdjust(brightness=0.8), input_columns="image")
    out = np.stack([r[0] for r in d.create_tuple_iterator(output_numpy=True)])
    factors = (out / imgs).reshape(400, -1)
    np.testing.assert_allclose(factors, factors[:, :1] * np.ones_like(factors), rtol=1e-12)  # one factor per image
    f = factors[:, 0]
    assert f.min() >= 0.2 and f.max() <= 1.8  # [max(0, 1 - 0.8), 1 + 0.8]
    assert abs(f.mean() - 1.0) < 0.06 and abs(f.std() - 1.6 / np.sqrt(12)) < 0.04
    # a number above 1: the range starts at 0, never below (no negative factors)
    op = vision.RandomColorAdjust(brightness=1.5)
    wide = np.stack([op(img) for img in imgs[:200]])
    g = (wide / imgs[:200]).reshape(200, -1)[:, 0]
    assert g.min() >= 0.0 and g.max() <= 2.5 and abs(g.mean() - 1.25) < 0.15


def test_adjustments_run_in_a_random_order_per_image(rng):
    """Brightness, contrast and saturation are linear and commute; a hue turn and a contrast
    change do not, so each image shows which came first."""
    ds.config.set_seed(5)
    imgs = rng.random((64, 3, 3, 3))
    d = ds.NumpySlicesDataset({"image": imgs}, shuffle=False).map(
        vision.RandomColorAdjust(contrast=(0.4, 0.4), hue=(0.25, 0.25)), input_columns="image")
    out = [r[0] for r in d.create_tuple_iterator(output_numpy=True)]

    def contrast(x, f):
        return x * f + (1 - f) * luma_exact(x).mean()
    orders = []
    for img, got in zip(imgs, out):
        contrast_first = hue_oracle(contrast(img, 0.4), 0.25, 1.0)
        hue_first = contrast(hue_oracle(img, 0.25, 1.0), 0.4)
        assert not np.allclose(contrast_first, hue_first, atol=1e-6)
        if np.allclose(got, contrast_first, atol=1e-12):
            orders.append("contrast first")
        else:
            np.testing.assert_allclose(got, hue_first, atol=1e-12)
            orders.append("hue first")
    assert 15 < orders.count("hue first") < 49  # both orders, about half each


def test_seeded_pipeline_is_reproducible_and_draws_anew_each_epoch(rng):
    imgs = rng.integers(0, 256, size=(8, 5, 5, 3), dtype=np.uint8)

    def run():
        d = ds.NumpySlicesDataset({"image": imgs}, shuffle=False).map(
            vision.RandomColorAdjust(0.4, 0.4, 0.4, 0.1), input_columns="image")
        it = d.create_tuple_iterator(num_epochs=2, output_numpy=True)
        return [np.stack([r[0] for r in it]) for _ in range(2)]
    ds.config.set_seed(12)
    a, b = run(), run()
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(a[0], a[1])
    assert a[0].dtype == np.uint8


def test_random_color_adjust_errors():
    with pytest.raises(ValueError, match="brightness must be >= 0"):
        vision.RandomColorAdjust(brightness=-0.1)
    with pytest.raises(ValueError, match="contrast must be a range"):
        vision.RandomColorAdjust(contrast=(2, 1))
    with pytest.raises(ValueError, match="saturation must be a range"):
        vision.RandomColorAdjust(saturation=(-1, 1))
    with pytest.raises(ValueError, match=r"hue must be in \[0, 0.5\]"):
        vision.RandomColorAdjust(hue=0.6)
    with pytest.raises(ValueError, match="hue must be a range"):
        vision.RandomColorAdjust(hue=(-0.6, 0.0))
    with pytest.raises(TypeError, match="brightness must be a number or a sequence"):
        vision.RandomColorAdjust(brightness="1")
    with pytest.raises(TypeError, match="hue must be a number or a sequence"):
        vision.RandomColorAdjust(hue=(0, 0, 0))
    with pytest.raises(RuntimeError, match=r"expected an RGB image of shape <H, W, 3>"):
        vision.RandomColorAdjust()(np.zeros((4, 4), np.uint8))
    with pytest.raises(RuntimeError, match=r"<H, W, 3>"):
        vision.RandomColorAdjust()(np.zeros((4, 4, 4), np.uint8))
