"""Colour transforms (``mindspore.dataset.vision``): ``Grayscale`` and ``RandomColorAdjust``.

Luma is ITU-R 601-2, ``L = 0.299 R + 0.587 G + 0.114 B``; uint8 images use PIL's fixed-point form
of it (``(19595 R + 38470 G + 7471 B + 2**15) >> 16``), so ``Grayscale`` on uint8 gives exactly
PIL's ``convert("L")``. ``RandomColorAdjust`` follows MindSpore's CPU kernel: per image, the four
adjustments run in a random order, each with its factor drawn uniformly from its range, and an
integer image is rounded and saturated back to its dtype after each one:

- brightness ``f``: ``x * f``
- contrast ``f``: ``x * f + (1 - f) * mean(luma(x))`` (the mean rounded for integer images)
- saturation ``f``: ``x * f + (1 - f) * luma(x)`` per pixel
- hue ``h``: the HSV hue turned by ``h`` of a full turn (``h`` in [-0.5, 0.5])

Example:
    >>> import numpy as np
    >>> from runtime.data import vision
    >>> img = np.array([[[255, 0, 0], [0, 255, 0]]], np.uint8)
    >>> vision.Grayscale()(img)
    array([[ 76, 150]], dtype=uint8)
    >>> vision.RandomColorAdjust(brightness=(0.5, 0.5))(img)[0, 0]
    array([128,   0,   0], dtype=uint8)
"""
from __future__ import annotations

import numbers

import numpy as np

from .random_vision import _RandomOp
from .vision import ImageTensorOperation, _as_image, _finish

__all__ = ["Grayscale", "RandomColorAdjust"]

_LUMA = (0.299, 0.587, 0.114)
_LUMA_FIXED = (19595, 38470, 7471)  # PIL's 16-bit fixed-point ITU-R 601-2 weights (sum 65536)


def luma(rgb):
    """ITU-R 601-2 luma of ``rgb`` (``[..., 3]``) in the input's dtype: uint8 by PIL's fixed-point
    rule, other integers rounded half up and saturated, floats unrounded."""
    rgb = np.asarray(rgb)
    if rgb.dtype == np.uint8:
        r, g, b = (rgb[..., i].astype(np.uint32) for i in range(3))
        return ((r * _LUMA_FIXED[0] + g * _LUMA_FIXED[1] + b * _LUMA_FIXED[2] + 0x8000) >> 16).astype(np.uint8)
    y = rgb[..., 0] * _LUMA[0] + rgb[..., 1] * _LUMA[1] + rgb[..., 2] * _LUMA[2]
    return _finish(np.asarray(y, np.float64), rgb.dtype)


def _is_pil(img):
    return not isinstance(img, np.ndarray) and hasattr(img, "size") and hasattr(img, "mode")


class Grayscale(ImageTensorOperation):
    """An RGB image (<H, W, 3>, or RGBA: alpha ignored) to grayscale: <H, W> for
    ``num_output_channels=1``, <H, W, 3> with three equal channels for 3. A one-channel image
    stays as it is. A PIL image in gives a PIL image out (MindSpore's transform takes PIL
    images); a numpy image gives numpy.

    Raises TypeError when ``num_output_channels`` is not an int, ValueError when it is not 1 or 3.
    """

    def __init__(self, num_output_channels=1):
        if isinstance(num_output_channels, bool) or not isinstance(num_output_channels, numbers.Integral):
            raise TypeError(f"Grayscale: num_output_channels must be an int, got {num_output_channels!r}")
        if num_output_channels not in (1, 3):
            raise ValueError(f"Grayscale: num_output_channels must be 1 or 3, got {num_output_channels}")
        self.num_output_channels = int(num_output_channels)

    def __call__(self, *imgs):
        if len(imgs) != 1:
            raise TypeError(f"Grayscale: expected one image, got {len(imgs)} inputs")
        out = self._apply_batch(_as_image(imgs[0], "Grayscale")[None])[0]
        if _is_pil(imgs[0]):
            from PIL import Image  # the input is a PIL image, so Pillow is there
            return Image.fromarray(out)
        return out

    def _apply_batch(self, batch):
        x = np.asarray(batch)
        if x.ndim == 3:
            gray = x  # a stack of <H, W> images: already gray
        elif x.ndim == 4 and x.shape[-1] == 1:
            gray = x[..., 0]
        elif x.ndim == 4 and x.shape[-1] in (3, 4):
            if x.dtype.kind not in "uif":
                raise TypeError(f"Grayscale: expected a numeric image, got dtype {x.dtype}")
            gray = luma(x[..., :3])
        else:
            raise ValueError(f"Grayscale: expected an RGB image <H, W, 3> (or <H, W>, <H, W, 1>, RGBA), "
                             f"got shape {x.shape[1:]}")
        if self.num_output_channels == 3:
            return np.ascontiguousarray(np.repeat(gray[..., None], 3, axis=-1))
        return np.ascontiguousarray(gray)


def _factor_range(value, name):
    """brightness/contrast/saturation: a number v -> [max(0, 1 - v), 1 + v]; a pair -> [min, max]."""
    what = f"RandomColorAdjust: {name}"
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        if value < 0:
            raise ValueError(f"{what} must be >= 0, got {value}")
        return max(0.0, 1.0 - float(value)), 1.0 + float(value)
    lo, hi = _pair(value, what)
    if lo < 0 or hi < 0 or lo > hi:
        raise ValueError(f"{what} must be a range [min, max] with 0 <= min <= max, got {tuple(value)}")
    return lo, hi


def _hue_range(value):
    what = "RandomColorAdjust: hue"
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        if not 0 <= value <= 0.5:
            raise ValueError(f"{what} must be in [0, 0.5] when a number, got {value}")
        return -float(value), float(value)
    lo, hi = _pair(value, what)
    if not -0.5 <= lo <= hi <= 0.5:
        raise ValueError(f"{what} must be a range [min, max] with -0.5 <= min <= max <= 0.5, got {tuple(value)}")
    return lo, hi


def _pair(value, what):
    if not (isinstance(value, (list, tuple)) and len(value) == 2 and all(
            isinstance(v, numbers.Real) and not isinstance(v, bool) for v in value)):
        raise TypeError(f"{what} must be a number or a sequence [min, max] of two numbers, got {value!r}")
    return float(value[0]), float(value[1])


def _per_image(f):
    return f[:, None, None, None]


def _brightness(y, f, dtype):
    return y * _per_image(f)


def _gray(y, dtype):
    """Luma of the float64 working copy ``y`` of images of ``dtype`` (an integer image's luma
    is taken of its integer pixels, as the kernel sees them)."""
    if np.dtype(dtype).kind in "ui":
        return np.asarray(luma(_finish(y, dtype)), np.float64)
    return luma(y)


def _contrast(y, f, dtype):
    mean = _gray(y, dtype).mean(axis=(1, 2))
    if np.dtype(dtype).kind in "ui":
        mean = np.floor(mean + 0.5)
    return y * _per_image(f) + (1.0 - _per_image(f)) * mean[:, None, None, None]


def _saturation(y, f, dtype):
    gray = _gray(y, dtype)[..., None]
    return y * _per_image(f) + (1.0 - _per_image(f)) * gray


def rgb_to_hsv(rgb):
    """``[..., 3]`` RGB (any non-negative scale) -> HSV with hue and saturation in [0, 1) / [0, 1]
    and value on the input's scale."""
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    v = rgb.max(axis=-1)
    delta = v - rgb.min(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(v > 0, delta / v, 0.0)
        safe = np.where(delta > 0, delta, 1.0)
        h = np.where(r == v, (g - b) / safe, np.where(g == v, 2.0 + (b - r) / safe, 4.0 + (r - g) / safe))
    h = np.where(delta > 0, (h / 6.0) % 1.0, 0.0)
    return np.stack([h, s, v], axis=-1)


def hsv_to_rgb(hsv):
    """Inverse of :func:`rgb_to_hsv`."""
    h, s, v = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    sector = np.floor(h * 6.0)
    frac = h * 6.0 - sector
    sector = sector.astype(np.int64) % 6
    p, q, t = v * (1.0 - s), v * (1.0 - s * frac), v * (1.0 - s * (1.0 - frac))
    choices_r, choices_g, choices_b = (v, q, p, p, t, v), (t, v, v, q, p, p), (p, p, t, v, v, q)
    return np.stack([np.choose(sector, choices_r), np.choose(sector, choices_g), np.choose(sector, choices_b)],
                    axis=-1)


def _hue(y, h, dtype):
    hsv = rgb_to_hsv(y)
    hsv[..., 0] = (hsv[..., 0] + h[:, None, None]) % 1.0
    return hsv_to_rgb(hsv)


class RandomColorAdjust(_RandomOp):
    """Randomly adjust brightness, contrast, saturation and hue (MindSpore 2.x signature and
    ranges; see the module docstring for the formulas). ``brightness``/``contrast``/``saturation``:
    a number v (factor drawn from [max(0, 1 - v), 1 + v]) or [min, max], never negative; ``hue``: a
    number v in [0, 0.5] (shift drawn from [-v, v]) or [min, max] within [-0.5, 0.5]. The
    defaults change nothing. Images are RGB <H, W, 3>, uint8 or float (floats are not clipped).

    Raises TypeError for a range that is not a number or a pair, ValueError for a negative factor
    or a hue outside [-0.5, 0.5], RuntimeError for an image that is not <H, W, 3>.
    """

    def __init__(self, brightness=(1, 1), contrast=(1, 1), saturation=(1, 1), hue=(0, 0)):
        self.brightness = _factor_range(brightness, "brightness")
        self.contrast = _factor_range(contrast, "contrast")
        self.saturation = _factor_range(saturation, "saturation")
        self.hue = _hue_range(hue)

    def _adjustments(self):
        """(function, range, identity value) of each adjustment, in draw order."""
        return ((_brightness, self.brightness, 1.0), (_contrast, self.contrast, 1.0),
                (_saturation, self.saturation, 1.0), (_hue, self.hue, 0.0))

    def _apply_batch(self, batch):
        x = np.asarray(batch)
        if x.ndim != 4 or x.shape[-1] != 3:
            raise RuntimeError(f"RandomColorAdjust: expected an RGB image of shape <H, W, 3>, got shape {x.shape[1:]}")
        if x.dtype.kind not in "uif":
            raise TypeError(f"RandomColorAdjust: expected a numeric image, got dtype {x.dtype}")
        rng = self._rng()
        n = x.shape[0]
        adjustments = self._adjustments()
        factors = [rng.uniform(lo, hi, size=n) for _, (lo, hi), _ in adjustments]
        order = np.argsort(rng.random((n, len(adjustments))), axis=1)  # a random order per image
        rounds = x.dtype.kind in "ui"
        y = x.astype(np.float64)
        for step in range(len(adjustments)):
            for k, (fn, (lo, hi), identity) in enumerate(adjustments):
                if lo == hi == identity:
                    continue  # the default range: this adjustment changes nothing
                chosen = order[:, step] == k
                if chosen.any():
                    y[chosen] = fn(y[chosen], factors[k][chosen], x.dtype)
            if rounds:  # MindSpore's kernel writes each step back to the image's dtype
                y = _finish(y, x.dtype).astype(np.float64)
        return _finish(y, x.dtype)
