"""Image transforms (``mindspore.dataset.vision``), implemented with numpy.

Each transform works on one image (``op(img)``: numpy HWC or HW in, numpy out) and, inside a
dataset pipeline, on a whole stack of images at once (the same result as applying it per image).

Example:
    >>> import numpy as np
    >>> from runtime.data import vision
    >>> img = np.arange(16, dtype=np.uint8).reshape(4, 4, 1)
    >>> vision.Resize((2, 2))(img)[..., 0]
    array([[ 3,  5],
           [11, 13]], dtype=uint8)
    >>> vision.HWC2CHW()(vision.Rescale(1 / 255, 0.0)(img)).shape
    (1, 4, 4)
"""
from __future__ import annotations

import enum
import numbers
import sys

import numpy as np

__all__ = ["Inter", "Border", "ImageBatchFormat", "ImageTensorOperation", "Resize", "Rescale", "Normalize", "HWC2CHW",
           "CHW2HWC", "ToTensor", "CenterCrop", "Decode", "Pad", "RandomCrop", "RandomHorizontalFlip",
           "RandomVerticalFlip", "RandomRotation", "RandomResizedCrop", "RandomCropDecodeResize", "Grayscale",
           "RandomColorAdjust"]


class Inter(enum.IntEnum):
    """Interpolation modes (``mindspore.dataset.vision.Inter``)."""
    NEAREST = 0
    ANTIALIAS = 1
    LINEAR = 2
    BILINEAR = 2
    CUBIC = 3
    BICUBIC = 3
    AREA = 4
    PILCUBIC = 5


class Border(enum.Enum):
    CONSTANT = "constant"
    EDGE = "edge"
    REFLECT = "reflect"
    SYMMETRIC = "symmetric"


class ImageBatchFormat(enum.IntEnum):
    NHWC = 0
    NCHW = 1


def _as_image(img, what):
    if hasattr(img, "asnumpy"):
        img = img.asnumpy()
    elif not isinstance(img, np.ndarray):
        if hasattr(img, "size") and hasattr(img, "mode"):  # a PIL image
            img = np.asarray(img)
        else:
            raise TypeError(f"{what}: expected a numpy image (HWC or HW), got {type(img).__name__}")
    return img


class ImageTensorOperation:
    """Base class: ``__call__`` on one image through the subclass's ``_apply_batch`` on a stack of
    images (first axis). A transform without ``_apply_batch`` (Decode) overrides ``__call__`` and
    ``map`` runs it row by row."""

    def __call__(self, *imgs):
        if len(imgs) != 1:
            raise TypeError(f"{type(self).__name__}: expected one image, got {len(imgs)} inputs")
        img = _as_image(imgs[0], type(self).__name__)
        return self._apply_batch(img[None])[0]

    def __repr__(self):
        attrs = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({attrs})"


def _check_number(v, name, what):
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(f"{what}: {name} must be a number, got {v!r}")
    return float(v)


def _size2(size, what):
    """(height, width) from an int (a square) or a sequence of two positive ints."""
    if isinstance(size, numbers.Integral) and not isinstance(size, bool):
        size = (int(size), int(size))
    if not (isinstance(size, (list, tuple)) and len(size) == 2 and all(
            isinstance(s, numbers.Integral) and not isinstance(s, bool) and s > 0 for s in size)):
        raise ValueError(f"{what}: size must be a positive int or (height, width), got {size!r}")
    return int(size[0]), int(size[1])


def _to_float32(x):
    return x if x.dtype == np.float32 else x.astype(np.float32)


# ---------------------------------------------------------------------------------------------
# resize
# ---------------------------------------------------------------------------------------------
def _linear_weights(n_in, n_out):
    """cv2/MindSpore bilinear: half-pixel centres, source index clamped to the image."""
    w = np.zeros((n_out, n_in), np.float64)
    dst = np.arange(n_out)
    src = (dst + 0.5) * (n_in / n_out) - 0.5
    x0 = np.floor(src).astype(np.int64)
    f = src - x0
    low = x0 < 0
    x0[low], f[low] = 0, 0.0
    high = x0 >= n_in - 1
    x0[high], f[high] = n_in - 1, 0.0
    x1 = np.minimum(x0 + 1, n_in - 1)
    np.add.at(w, (dst, x0), 1.0 - f)
    np.add.at(w, (dst, x1), f)
    return w


def _cubic_weights(n_in, n_out, a=-0.75):
    """cv2 bicubic (a = -0.75), half-pixel centres, replicated border."""
    def k(x):
        x = np.abs(x)
        return np.where(x <= 1, ((a + 2) * x - (a + 3)) * x * x + 1,
                        np.where(x < 2, ((a * x - 5 * a) * x + 8 * a) * x - 4 * a, 0.0))
    w = np.zeros((n_out, n_in), np.float64)
    dst = np.arange(n_out)
    src = (dst + 0.5) * (n_in / n_out) - 0.5
    x0 = np.floor(src).astype(np.int64)
    f = src - x0
    for t in (-1, 0, 1, 2):
        np.add.at(w, (dst, np.clip(x0 + t, 0, n_in - 1)), k(f - t))
    return w


def _area_weights(n_in, n_out):
    """Box filter: each output pixel averages the input interval it covers (downscaling)."""
    if n_out >= n_in:
        return _linear_weights(n_in, n_out)
    scale = n_in / n_out
    w = np.zeros((n_out, n_in), np.float64)
    for i in range(n_out):
        lo, hi = i * scale, (i + 1) * scale
        for j in range(int(np.floor(lo)), min(int(np.ceil(hi)), n_in)):
            w[i, j] = (min(hi, j + 1) - max(lo, j)) / scale
    return w


_WEIGHT_FNS = {Inter.LINEAR: _linear_weights, Inter.CUBIC: _cubic_weights, Inter.AREA: _area_weights}
_weight_cache: dict = {}


def _weights(mode, n_in, n_out):
    key = (mode, n_in, n_out)
    w = _weight_cache.get(key)
    if w is None:
        w = _WEIGHT_FNS[mode](n_in, n_out).astype(np.float32)
        _weight_cache[key] = w
    return w


def _finish(out, dtype):
    """Back to the input dtype: integers are rounded (half up, as cv2's fixed point) and saturated."""
    if np.dtype(dtype).kind in "ui":
        info = np.iinfo(dtype)
        return np.clip(np.floor(out + 0.5), info.min, info.max).astype(dtype)
    if np.dtype(dtype).kind == "b":
        return out > 0.5
    return out.astype(dtype, copy=False) if np.dtype(dtype) != np.float16 else out.astype(np.float16)


def resize_images(x, size, mode):
    """Resize a stack (N, H, W, C) to (N, h, w, C) with interpolation ``mode``."""
    n, h_in, w_in, c = x.shape
    h, w = size
    if (h, w) == (h_in, w_in):
        return x.copy()
    if mode == Inter.NEAREST:
        iy = np.minimum(np.floor(np.arange(h) * (h_in / h)).astype(np.int64), h_in - 1)
        ix = np.minimum(np.floor(np.arange(w) * (w_in / w)).astype(np.int64), w_in - 1)
        return x[:, iy][:, :, ix]
    wy, wx = _weights(mode, h_in, h), _weights(mode, w_in, w)
    dtype = x.dtype
    xf = x.astype(np.float32) if dtype != np.float64 else x
    # along H: (h, h_in) @ (h_in, n*w_in*c)
    t = wy.astype(xf.dtype) @ np.moveaxis(xf, 1, 0).reshape(h_in, -1)
    t = t.reshape(h, n, w_in, c)
    # along W: (h*n*c, w_in) @ (w_in, w)
    t = np.moveaxis(t, 2, 3).reshape(-1, w_in) @ wx.T.astype(xf.dtype)
    out = t.reshape(h, n, c, w).transpose(1, 0, 3, 2)
    return _finish(np.ascontiguousarray(out), dtype)


def _as_nhwc(batch, what, allow_2d=True):
    """View a stack of HW / HWC / ...HWC images as (N, H, W, C); returns (view, restore)."""
    sample_ndim = batch.ndim - 1
    if sample_ndim == 2 and allow_2d:
        return batch[..., None], lambda y: y[..., 0]
    if sample_ndim >= 3:
        lead = batch.shape[:-3]
        return batch.reshape((-1,) + batch.shape[-3:]), lambda y: y.reshape(lead + y.shape[1:])
    raise ValueError(f"{what}: expected an image of shape <H, W> or <H, W, C>, got shape {batch.shape[1:]}")


class Resize(ImageTensorOperation):
    """Resize to ``size``: (height, width), or an int for the shorter side (keeping the aspect
    ratio). Interpolation: Inter.LINEAR (bilinear with half-pixel centres, as cv2), NEAREST,
    CUBIC or AREA. Integer images are rounded back to their dtype; float images stay float.
    """

    def __init__(self, size, interpolation=Inter.LINEAR):
        if isinstance(size, numbers.Integral) and not isinstance(size, bool):
            size = int(size)
            if size <= 0:
                raise ValueError(f"Resize: size must be positive, got {size}")
        elif isinstance(size, (list, tuple)) and len(size) in (1, 2) and all(
                isinstance(s, numbers.Integral) and not isinstance(s, bool) for s in size):
            if any(s <= 0 for s in size):
                raise ValueError(f"Resize: size values must be positive, got {tuple(size)}")
            size = int(size[0]) if len(size) == 1 else (int(size[0]), int(size[1]))
        else:
            raise TypeError(f"Resize: size must be an int or a (height, width) sequence, got {size!r}")
        try:
            interpolation = Inter(interpolation)
        except ValueError:
            raise ValueError(f"Resize: unknown interpolation {interpolation!r}; use a vision.Inter member") from None
        if interpolation not in (Inter.NEAREST, Inter.LINEAR, Inter.CUBIC, Inter.AREA):
            raise ValueError(f"Resize: interpolation {interpolation.name} is not supported; supported: "
                             "Inter.NEAREST, Inter.LINEAR, Inter.CUBIC, Inter.AREA")
        self.size = size
        self.interpolation = interpolation

    def _target(self, h, w):
        if isinstance(self.size, tuple):
            return self.size
        s = self.size
        if h <= w:
            return s, max(1, int(w * s / h))
        return max(1, int(h * s / w)), s

    def _apply_batch(self, batch):
        x, restore = _as_nhwc(np.asarray(batch), "Resize")
        if x.shape[0] == 0:
            return batch
        return restore(resize_images(x, self._target(x.shape[1], x.shape[2]), self.interpolation))


class Rescale(ImageTensorOperation):
    """``image * rescale + shift`` as float32."""

    def __init__(self, rescale, shift):
        self.rescale = _check_number(rescale, "rescale", "Rescale")
        self.shift = _check_number(shift, "shift", "Rescale")

    def _apply_batch(self, batch):
        x = np.asarray(batch)
        if x.dtype.kind not in "uifb":
            raise TypeError(f"Rescale: expected a numeric image, got dtype {x.dtype}")
        out = _to_float32(x) * np.float32(self.rescale)
        out += np.float32(self.shift)
        return out


class Normalize(ImageTensorOperation):
    """``(image - mean) / std`` per channel, as float32 (channels last if is_hwc, else first)."""

    def __init__(self, mean, std, is_hwc=True):
        def seq(v, name):
            if isinstance(v, numbers.Real) and not isinstance(v, bool):
                v = [v]
            if not isinstance(v, (list, tuple)) or not v:
                raise TypeError(f"Normalize: {name} must be a list or tuple of numbers, got {v!r}")
            return [_check_number(x, name, "Normalize") for x in v]
        self.mean = seq(mean, "mean")
        self.std = seq(std, "std")
        if len(self.mean) != len(self.std):
            raise ValueError(f"Normalize: mean has {len(self.mean)} values but std has {len(self.std)}")
        # MindSpore validates the ranges: mean in [0, 255], std in (0, 255] (ValueError)
        if any(not 0.0 <= m <= 255.0 for m in self.mean):
            raise ValueError(f"Normalize: mean values must be in [0.0, 255.0], got {self.mean}")
        if any(not 0.0 < s <= 255.0 for s in self.std):
            raise ValueError(f"Normalize: std values must be in (0.0, 255.0], got {self.std}")
        if not isinstance(is_hwc, bool):
            raise TypeError(f"Normalize: is_hwc must be a bool, got {is_hwc!r}")
        self.is_hwc = is_hwc

    def _apply_batch(self, batch):
        x = np.asarray(batch)
        sample_ndim = x.ndim - 1
        mean = np.asarray(self.mean, np.float32)
        std = np.asarray(self.std, np.float32)
        if sample_ndim == 2:
            if len(mean) != 1:
                raise ValueError(f"Normalize: a one-channel <H, W> image needs one mean/std value, got {len(mean)}")
        elif sample_ndim == 3:
            c = x.shape[-1] if self.is_hwc else x.shape[1]
            if len(mean) not in (1, c):
                raise ValueError(f"Normalize: the image has {c} channel(s) but mean/std have {len(mean)} values")
            if not self.is_hwc:
                mean, std = mean[:, None, None], std[:, None, None]
        else:
            raise ValueError(f"Normalize: expected an image of shape <H, W> or <H, W, C>, got {x.shape[1:]}")
        return (_to_float32(x) - mean) / std


class HWC2CHW(ImageTensorOperation):
    """<H, W, C> -> <C, H, W> (an <H, W> image is returned unchanged)."""

    def _apply_batch(self, batch):
        x = np.asarray(batch)
        if x.ndim == 3:
            return x
        if x.ndim != 4:
            raise ValueError(f"HWC2CHW: expected an image of shape <H, W> or <H, W, C>, got {x.shape[1:]}")
        return np.ascontiguousarray(x.transpose(0, 3, 1, 2))


class CHW2HWC(ImageTensorOperation):
    """<C, H, W> -> <H, W, C>."""

    def _apply_batch(self, batch):
        x = np.asarray(batch)
        if x.ndim == 3:
            return x
        if x.ndim != 4:
            raise ValueError(f"CHW2HWC: expected an image of shape <C, H, W>, got {x.shape[1:]}")
        return np.ascontiguousarray(x.transpose(0, 2, 3, 1))


class ToTensor(ImageTensorOperation):
    """An <H, W, C> (or <H, W>) image to <C, H, W> ``output_type`` (float32 by default) divided by
    255, whatever its input dtype, as MindSpore's ToTensor does; a PIL image is read as its array.

    Example:
        >>> import numpy as np
        >>> from runtime.data import vision
        >>> vision.ToTensor()(np.full((2, 3, 1), 255, np.uint8))
        array([[[1., 1., 1.],
                [1., 1., 1.]]], dtype=float32)
    """

    def __init__(self, output_type=np.float32):
        from graph.dtypes import as_dtype
        try:
            self.output_type = as_dtype(output_type).np
        except TypeError as e:
            raise TypeError(f"ToTensor: output_type: {e}") from None

    def _apply_batch(self, batch):
        x, _ = _as_nhwc(np.asarray(batch), "ToTensor")
        if x.dtype.kind not in "uifb":
            raise TypeError(f"ToTensor: expected a numeric image, got dtype {x.dtype}")
        y = _to_float32(x) / np.float32(255.0)
        y = np.ascontiguousarray(y.transpose(0, 3, 1, 2))
        return y.astype(self.output_type, copy=False)


class CenterCrop(ImageTensorOperation):
    """Crop the central (height, width) window (an int: a square), as MindSpore does: the window
    starts at ``(H - height) // 2, (W - width) // 2``; an image smaller than the window is first
    padded with zeros, the odd pixel going to the top / left.

    Example:
        >>> import numpy as np
        >>> from runtime.data import vision
        >>> vision.CenterCrop(2)(np.arange(25).reshape(5, 5))
        array([[ 6,  7],
               [11, 12]])
    """

    def __init__(self, size):
        self.size = _size2(size, "CenterCrop")

    def _apply_batch(self, batch):
        x, restore = _as_nhwc(np.asarray(batch), "CenterCrop")
        h, w = self.size
        H, W = x.shape[1:3]
        pad_h, pad_w = max(0, h - H), max(0, w - W)
        if pad_h or pad_w:
            x = np.pad(x, ((0, 0), ((pad_h + 1) // 2, pad_h // 2), ((pad_w + 1) // 2, pad_w // 2), (0, 0)))
            H, W = x.shape[1:3]
        top, left = (H - h) // 2, (W - w) // 2
        return restore(np.ascontiguousarray(x[:, top:top + h, left:left + w]))


from .random_vision import (Decode, Pad, RandomCrop, RandomCropDecodeResize, RandomHorizontalFlip,  # noqa: E402
                            RandomResizedCrop, RandomRotation, RandomVerticalFlip)
from .color import Grayscale, RandomColorAdjust  # noqa: E402

# ``mindspore.dataset.vision.c_transforms`` / ``py_transforms`` (MindSpore 1.x paths)
c_transforms = sys.modules[__name__]
py_transforms = sys.modules[__name__]
sys.modules[__name__ + ".c_transforms"] = c_transforms
sys.modules[__name__ + ".py_transforms"] = py_transforms
