"""Random image augmentations (``mindspore.dataset.vision``): RandomCrop, RandomHorizontalFlip,
RandomVerticalFlip, RandomRotation, RandomResizedCrop, RandomCropDecodeResize, plus Pad and Decode.

Randomness: inside a dataset pipeline each ``map`` node draws from its own generator of the
pipeline launch (seeded by ``ms.set_seed`` / ``dataset.config.set_seed``: a seeded pipeline gives
the same images on every run, new ones each epoch); called directly on an image, a transform
draws from a generator seeded the same way when it is first used.

Example:
    >>> import numpy as np
    >>> from runtime.data import vision
    >>> img = np.arange(12, dtype=np.uint8).reshape(3, 4, 1)
    >>> vision.RandomHorizontalFlip(prob=1.0)(img)[..., 0]
    array([[ 3,  2,  1,  0],
           [ 7,  6,  5,  4],
           [11, 10,  9,  8]], dtype=uint8)
    >>> vision.Pad(1)(img).shape
    (5, 6, 1)
"""
from __future__ import annotations

import contextlib
import math
import numbers
import threading

import numpy as np

from .vision import Border, ImageTensorOperation, Inter, _as_nhwc, _finish, _size2, resize_images

__all__ = ["RandomCrop", "RandomHorizontalFlip", "RandomVerticalFlip", "RandomRotation", "RandomResizedCrop",
           "RandomCropDecodeResize", "Pad", "Decode"]

_PIPELINE = threading.local()


@contextlib.contextmanager
def drawing_from(generator):
    """While a pipeline node applies its transforms, random ones draw from ``generator``."""
    saved = getattr(_PIPELINE, "gen", None)
    _PIPELINE.gen = generator
    try:
        yield
    finally:
        _PIPELINE.gen = saved


class _RandomOp(ImageTensorOperation):
    _own = None

    def _rng(self) -> np.random.Generator:
        gen = getattr(_PIPELINE, "gen", None)
        if gen is not None:
            return gen
        if self._own is None:
            from . import config
            seed = config.get_seed()
            self._own = np.random.default_rng(seed)
        return self._own


def _prob(p, what):
    if isinstance(p, bool) or not isinstance(p, numbers.Real) or not 0.0 <= p <= 1.0:
        raise ValueError(f"{what}: prob must be a float in [0, 1], got {p!r}")
    return float(p)


def _padding4(padding, what):
    """MindSpore's padding: int (all sides), (left/right, top/bottom) or (left, top, right, bottom)."""
    if isinstance(padding, numbers.Integral) and not isinstance(padding, bool):
        padding = (padding,) * 4
    elif isinstance(padding, (list, tuple)) and len(padding) == 2:
        padding = (padding[0], padding[1], padding[0], padding[1])
    if not (isinstance(padding, (list, tuple)) and len(padding) == 4 and all(
            isinstance(p, numbers.Integral) and not isinstance(p, bool) and p >= 0 for p in padding)):
        raise ValueError(f"{what}: padding must be a non-negative int or a sequence of 2 or 4 of them, got {padding!r}")
    return tuple(int(p) for p in padding)


_NP_MODES = {Border.CONSTANT: "constant", Border.EDGE: "edge", Border.REFLECT: "reflect",
             Border.SYMMETRIC: "symmetric"}


def _pad_nhwc(x, pads, fill_value, mode):
    left, top, right, bottom = pads
    spec = ((0, 0), (top, bottom), (left, right), (0, 0))
    if mode == Border.CONSTANT:
        return np.pad(x, spec, mode="constant", constant_values=fill_value)
    return np.pad(x, spec, mode=_NP_MODES[mode])


def _border(mode, what):
    try:
        return Border(mode) if not isinstance(mode, Border) else mode
    except ValueError:
        raise ValueError(f"{what}: padding_mode must be a vision.Border member, got {mode!r}") from None


class Pad(ImageTensorOperation):
    """Pad the image borders: ``padding`` as an int, (left/right, top/bottom) or (left, top,
    right, bottom); ``padding_mode`` Border.CONSTANT (with ``fill_value``), EDGE, REFLECT or SYMMETRIC."""

    def __init__(self, padding, fill_value=0, padding_mode=Border.CONSTANT):
        self.padding = _padding4(padding, "Pad")
        self.fill_value = fill_value
        self.padding_mode = _border(padding_mode, "Pad")

    def _apply_batch(self, batch):
        x, restore = _as_nhwc(np.asarray(batch), "Pad")
        return restore(_pad_nhwc(x, self.padding, self.fill_value, self.padding_mode))


class _Flip(_RandomOp):
    _axis = 2

    def __init__(self, prob=0.5):
        self.prob = _prob(prob, type(self).__name__)

    def _apply_batch(self, batch):
        x, restore = _as_nhwc(np.asarray(batch), type(self).__name__)
        flip = self._rng().random(x.shape[0]) < self.prob
        out = x.copy()
        if flip.any():
            out[flip] = np.flip(x[flip], axis=self._axis)
        return restore(out)


class RandomHorizontalFlip(_Flip):
    """Mirror left-right with probability ``prob``."""
    _axis = 2


class RandomVerticalFlip(_Flip):
    """Mirror top-bottom with probability ``prob``."""
    _axis = 1


class RandomCrop(_RandomOp):
    """Crop a random (height, width) window, after padding by ``padding`` (and, with
    ``pad_if_needed``, up to the crop size)."""

    def __init__(self, size, padding=None, pad_if_needed=False, fill_value=0, padding_mode=Border.CONSTANT):
        self.size = _size2(size, "RandomCrop")
        self.padding = _padding4(padding, "RandomCrop") if padding is not None else (0, 0, 0, 0)
        self.pad_if_needed = bool(pad_if_needed)
        self.fill_value = fill_value
        self.padding_mode = _border(padding_mode, "RandomCrop")

    def _apply_batch(self, batch):
        x, restore = _as_nhwc(np.asarray(batch), "RandomCrop")
        x = _pad_nhwc(x, self.padding, self.fill_value, self.padding_mode) if any(self.padding) else x
        h, w = self.size
        H, W = x.shape[1:3]
        if self.pad_if_needed and (H < h or W < w):
            dh, dw = max(0, h - H), max(0, w - W)
            x = _pad_nhwc(x, (dw, dh, dw, dh), self.fill_value, self.padding_mode)
            H, W = x.shape[1:3]
        if H < h or W < w:
            raise ValueError(f"RandomCrop: crop size {self.size} is larger than the (padded) image {(H, W)}")
        rng = self._rng()
        tops = rng.integers(0, H - h + 1, x.shape[0])
        lefts = rng.integers(0, W - w + 1, x.shape[0])
        out = np.stack([x[i, t:t + h, l:l + w] for i, (t, l) in enumerate(zip(tops, lefts))]) if x.shape[0] else \
            x[:, :h, :w]
        return restore(np.ascontiguousarray(out))


class RandomResizedCrop(_RandomOp):
    """Crop a random area (a fraction in ``scale`` of the image, aspect ratio in ``ratio``) and
    resize it to ``size``; after ``max_attempts`` failed draws, the centre crop at the clamped ratio."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0), interpolation=Inter.BILINEAR,
                 max_attempts=10):
        self.size = _size2(size, "RandomResizedCrop")
        if not (len(scale) == 2 and 0 < scale[0] <= scale[1]) or not (len(ratio) == 2 and 0 < ratio[0] <= ratio[1]):
            raise ValueError(f"RandomResizedCrop: scale and ratio must be increasing positive pairs, got {scale}, {ratio}")
        self.scale, self.ratio = tuple(map(float, scale)), tuple(map(float, ratio))
        self.interpolation = Inter(interpolation)
        self.max_attempts = int(max_attempts)

    def _window(self, rng, H, W):
        area = H * W
        log_r = (math.log(self.ratio[0]), math.log(self.ratio[1]))
        for _ in range(self.max_attempts):
            target = area * rng.uniform(*self.scale)
            aspect = math.exp(rng.uniform(*log_r))
            w = int(round(math.sqrt(target * aspect)))
            h = int(round(math.sqrt(target / aspect)))
            if 0 < w <= W and 0 < h <= H:
                return int(rng.integers(0, H - h + 1)), int(rng.integers(0, W - w + 1)), h, w
        in_ratio = W / H
        if in_ratio < self.ratio[0]:
            w, h = W, int(round(W / self.ratio[0]))
        elif in_ratio > self.ratio[1]:
            h, w = H, int(round(H * self.ratio[1]))
        else:
            h, w = H, W
        return (H - h) // 2, (W - w) // 2, h, w

    def _apply_batch(self, batch):
        x, restore = _as_nhwc(np.asarray(batch), "RandomResizedCrop")
        rng = self._rng()
        out = []
        for i in range(x.shape[0]):
            t, l, h, w = self._window(rng, *x.shape[1:3])
            out.append(resize_images(x[i:i + 1, t:t + h, l:l + w], self.size, self.interpolation)[0])
        return restore(np.stack(out) if out else x[:, :self.size[0], :self.size[1]])


class RandomRotation(_RandomOp):
    """Rotate by an angle drawn uniformly from ``degrees`` (a number d: [-d, d]; or (min, max)),
    counter-clockwise, about ``center`` (x, y; default the image centre); NEAREST or BILINEAR
    resampling; ``expand`` grows the output to hold the whole rotated image; uncovered pixels get
    ``fill_value``."""

    def __init__(self, degrees, resample=Inter.NEAREST, expand=False, center=None, fill_value=0):
        if isinstance(degrees, numbers.Real) and not isinstance(degrees, bool):
            if degrees < 0:
                raise ValueError(f"RandomRotation: degrees must be >= 0, got {degrees}")
            degrees = (-float(degrees), float(degrees))
        if not (isinstance(degrees, (list, tuple)) and len(degrees) == 2 and degrees[0] <= degrees[1]):
            raise ValueError(f"RandomRotation: degrees must be a number or (min, max), got {degrees!r}")
        self.degrees = (float(degrees[0]), float(degrees[1]))
        self.resample = Inter(resample)
        if self.resample not in (Inter.NEAREST, Inter.BILINEAR):
            raise ValueError("RandomRotation: resample must be Inter.NEAREST or Inter.BILINEAR")
        self.expand, self.center, self.fill_value = bool(expand), center, fill_value

    def _apply_batch(self, batch):
        x, restore = _as_nhwc(np.asarray(batch), "RandomRotation")
        rng = self._rng()
        out = [rotate(x[i], rng.uniform(*self.degrees), self.resample, self.expand, self.center, self.fill_value)
               for i in range(x.shape[0])]
        if out and len({o.shape for o in out}) > 1:
            raise ValueError("RandomRotation: expand=True gave images of different sizes in one batch")
        return restore(np.stack(out) if out else x)


def rotate(img, angle, resample=Inter.NEAREST, expand=False, center=None, fill_value=0):
    """One HWC image rotated ``angle`` degrees counter-clockwise (inverse mapping)."""
    H, W = img.shape[:2]
    cx, cy = ((W - 1) / 2.0, (H - 1) / 2.0) if center is None else (float(center[0]), float(center[1]))
    a = math.radians(angle)
    cos, sin = math.cos(a), math.sin(a)
    if expand:
        oh = int(math.ceil(abs(H * cos) + abs(W * sin) - 1e-9))
        ow = int(math.ceil(abs(W * cos) + abs(H * sin) - 1e-9))
        ocx, ocy = (ow - 1) / 2.0, (oh - 1) / 2.0
    else:
        oh, ow, ocx, ocy = H, W, cx, cy
    ys, xs = np.mgrid[0:oh, 0:ow].astype(np.float64)
    dx, dy = xs - ocx, ys - ocy
    # output pixel -> source pixel: rotate back by -angle (y grows downwards)
    # (rounded to 1e-9 so that right angles map pixel centres exactly onto pixel centres)
    sx = np.round(cos * dx - sin * dy + cx, 9)
    sy = np.round(sin * dx + cos * dy + cy, 9)
    src = img.astype(np.float64)
    if resample == Inter.NEAREST:
        ix, iy = np.rint(sx).astype(np.int64), np.rint(sy).astype(np.int64)
        inside = (ix >= 0) & (ix < W) & (iy >= 0) & (iy < H)
        out = np.full((oh, ow) + img.shape[2:], float(fill_value))
        out[inside] = src[iy[inside], ix[inside]]
    else:
        x0, y0 = np.floor(sx).astype(np.int64), np.floor(sy).astype(np.int64)
        fx, fy = (sx - x0)[..., None], (sy - y0)[..., None]
        out = np.zeros((oh, ow) + img.shape[2:])
        weight = np.zeros((oh, ow, 1))
        for oy, ox, wgt in ((0, 0, (1 - fx) * (1 - fy)), (0, 1, fx * (1 - fy)), (1, 0, (1 - fx) * fy), (1, 1, fx * fy)):
            xx, yy = x0 + ox, y0 + oy
            ok = (xx >= 0) & (xx < W) & (yy >= 0) & (yy < H)
            vals = np.where(ok[..., None], src[np.clip(yy, 0, H - 1), np.clip(xx, 0, W - 1)], float(fill_value))
            out += wgt * vals
            weight += wgt
        out = out / np.maximum(weight, 1e-12)
    return _finish(out, img.dtype)


def pillow_image(what):
    """Pillow's ``PIL.Image`` module; a RuntimeError naming ``what`` and the extra that brings it
    when Pillow is not installed."""
    try:
        from PIL import Image
    except ImportError:
        raise RuntimeError(f'{what}: decoding images needs Pillow (pip install "msjit[vision]", or pip install '
                           'pillow)') from None
    return Image


class Decode(ImageTensorOperation):
    """Encoded image bytes (JPEG, PNG, BMP...) to an HWC RGB uint8 array; needs Pillow
    (``pip install pillow``)."""

    def __init__(self, to_pil=False):
        self.to_pil = bool(to_pil)

    def __call__(self, *imgs):
        if len(imgs) != 1:
            raise TypeError(f"Decode: expected one encoded image, got {len(imgs)} inputs")
        return self._decode(imgs[0])

    def _decode(self, data):
        Image = pillow_image("Decode")
        import io
        raw = data.tobytes() if isinstance(data, np.ndarray) else bytes(data)
        try:
            img = Image.open(io.BytesIO(raw)).convert("RGB")
        except Exception as e:
            raise ValueError(f"Decode: not a decodable image ({type(e).__name__}: {e})") from None
        return img if self.to_pil else np.array(img)  # a writable copy (asarray gives a read-only view)


class RandomCropDecodeResize(ImageTensorOperation):
    """``Decode`` then ``RandomResizedCrop`` in one transform (MindSpore's crop-decode-resize):
    encoded image bytes (a 1-D uint8 array) to an RGB HWC uint8 image of ``size``, cropped at a
    random area (a fraction in ``scale`` of the image, aspect ratio in ``ratio``; after
    ``max_attempts`` failed draws the centre crop) and resized with ``interpolation``. It draws
    exactly as ``RandomResizedCrop`` does on the decoded image. Needs Pillow.
    """

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0), interpolation=Inter.BILINEAR,
                 max_attempts=10):
        if isinstance(max_attempts, bool) or not isinstance(max_attempts, int) or max_attempts < 1:
            raise ValueError(f"RandomCropDecodeResize: max_attempts must be a positive int, got {max_attempts!r}")
        for what, pair in (("scale", scale), ("ratio", ratio)):
            if not isinstance(pair, (tuple, list)):
                raise TypeError(f"RandomCropDecodeResize: {what} must be a tuple or list, got {type(pair).__name__}")
        self._crop = RandomResizedCrop(size, scale, ratio, interpolation, max_attempts)
        self._decode = Decode()
        self.size, self.scale, self.ratio = self._crop.size, self._crop.scale, self._crop.ratio
        self.interpolation, self.max_attempts = self._crop.interpolation, self._crop.max_attempts

    def __call__(self, *imgs):
        if len(imgs) != 1:
            raise TypeError(f"RandomCropDecodeResize: expected one encoded image, got {len(imgs)} inputs")
        data = imgs[0]
        if isinstance(data, np.ndarray) and data.ndim != 1:
            raise TypeError(f"RandomCropDecodeResize: expected encoded image bytes (a 1-D uint8 array), got an array "
                            f"of shape {data.shape}")
        return self._crop(self._decode(data))
