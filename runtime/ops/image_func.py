"""MindSpore 2.x's box functions for detection models: ``ops.iou``, ``ops.bounding_box_encode``,
``ops.bounding_box_decode``, ``ops.check_valid`` and their Primitives (``IOU``, ``BoundingBoxEncode``,
``BoundingBoxDecode``, ``CheckValid``), composed of registry ops.

Boxes are ``(x0, y0, x1, y1)`` rows in pixel units where a box covers ``x1 - x0 + 1`` pixels: MindSpore's
kernels add 1 to every width and height (the convention of Faster R-CNN era code), and so do these.

Example:
    >>> import numpy as np
    >>> from runtime import ops, Tensor
    >>> anchor = Tensor(np.array([[2.0, 2.0, 2.0, 3.0]], np.float32))
    >>> truth = Tensor(np.array([[1.0, 2.0, 1.0, 4.0]], np.float32))
    >>> [round(v, 4) for v in ops.bounding_box_encode(anchor, truth).asnumpy()[0].tolist()]
    [-1.0, 0.25, 0.0, 0.4055]
"""
from __future__ import annotations

import math

import numpy as np

from graph.ops import REGISTRY, bind
from graph.ops.core import is_tensorlike

_R = REGISTRY

__all__ = ["iou", "bounding_box_encode", "bounding_box_decode", "check_valid", "IOU", "BoundingBoxEncode",
           "BoundingBoxDecode", "CheckValid"]


def _boxes(x, fn, name):
    if not is_tensorlike(x) or isinstance(x, (np.ndarray, np.generic)):
        raise TypeError(f"ops.{fn}: {name} must be a Tensor, got {type(x).__name__}")
    if x.ndim != 2 or x.shape[1] != 4:
        raise ValueError(f"ops.{fn}: {name} must have shape (N, 4), got {tuple(x.shape)}")
    return x


def _column(x, i):
    """Column ``i`` of an (N, 4) tensor, as (N,)."""
    return bind(_R["reshape"], bind(_R["slice"], x, begin=(0, i), size=(-1, 1)), shape=(x.shape[0],))


def _centre_size(box):
    """(centre x, centre y, width + 1, height + 1) of (N, 4) boxes."""
    x0, y0, x1, y1 = (_column(box, i) for i in range(4))
    return (bind(_R["mul"], bind(_R["add"], x0, x1), 0.5), bind(_R["mul"], bind(_R["add"], y0, y1), 0.5),
            bind(_R["add"], bind(_R["sub"], x1, x0), 1.0), bind(_R["add"], bind(_R["sub"], y1, y0), 1.0))


def iou(anchor_boxes, gt_boxes, mode="iou"):
    """``ops.iou(anchor_boxes, gt_boxes, mode='iou')``: (M, N) overlap ratios of the N anchor boxes and the M
    ground-truth boxes: overlap / union ('iou') or overlap / ground-truth area ('iof'); every side counts
    ``x1 - x0 + 1`` pixels and the denominator gets 1e-10 added."""
    a = _boxes(anchor_boxes, "iou", "anchor_boxes")
    g = _boxes(gt_boxes, "iou", "gt_boxes")
    if mode not in ("iou", "iof"):
        raise KeyError(f"ops.iou: mode must be 'iou' or 'iof', got {mode!r}")
    ax0, ay0, ax1, ay1 = (bind(_R["expand_dims"], _column(a, i), axis=0) for i in range(4))   # (1, N)
    gx0, gy0, gx1, gy1 = (bind(_R["expand_dims"], _column(g, i), axis=1) for i in range(4))   # (M, 1)
    w = bind(_R["maximum"], bind(_R["add"], bind(_R["sub"], bind(_R["minimum"], ax1, gx1),
                                                 bind(_R["maximum"], ax0, gx0)), 1.0), 0.0)
    h = bind(_R["maximum"], bind(_R["add"], bind(_R["sub"], bind(_R["minimum"], ay1, gy1),
                                                 bind(_R["maximum"], ay0, gy0)), 1.0), 0.0)
    overlap = bind(_R["mul"], w, h)
    area_g = bind(_R["mul"], bind(_R["add"], bind(_R["sub"], gx1, gx0), 1.0), bind(_R["add"], bind(_R["sub"], gy1, gy0), 1.0))
    if mode == "iof":
        return bind(_R["div"], overlap, bind(_R["add"], area_g, 1e-10))
    area_a = bind(_R["mul"], bind(_R["add"], bind(_R["sub"], ax1, ax0), 1.0), bind(_R["add"], bind(_R["sub"], ay1, ay0), 1.0))
    union = bind(_R["sub"], bind(_R["add"], area_a, area_g), overlap)
    return bind(_R["div"], overlap, bind(_R["add"], union, 1e-10))


def _four(v, what, fn):
    t = tuple(float(x) for x in v)
    if len(t) != 4:
        raise ValueError(f"ops.{fn}: {what} must have 4 values, got {v!r}")
    return t


def bounding_box_encode(anchor_box, groundtruth_box, means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0)):
    """``ops.bounding_box_encode(anchor_box, groundtruth_box, means=(0, 0, 0, 0), stds=(1, 1, 1, 1))``: the
    regression targets ``((gx - px) / pw, (gy - py) / ph, log(gw / pw), log(gh / ph))`` of each ground-truth
    box against its anchor (centres and sizes with the +1 convention), normalised by ``means``/``stds``."""
    fn = "bounding_box_encode"
    a = _boxes(anchor_box, fn, "anchor_box")
    g = _boxes(groundtruth_box, fn, "groundtruth_box")
    means, stds = _four(means, "means", fn), _four(stds, "stds", fn)
    px, py, pw, ph = _centre_size(a)
    gx, gy, gw, gh = _centre_size(g)
    deltas = (bind(_R["div"], bind(_R["sub"], gx, px), pw), bind(_R["div"], bind(_R["sub"], gy, py), ph),
              bind(_R["log"], bind(_R["div"], gw, pw)), bind(_R["log"], bind(_R["div"], gh, ph)))
    out = [bind(_R["div"], bind(_R["sub"], d, m), s) for d, m, s in zip(deltas, means, stds)]
    return bind(_R["stack"], *out, axis=1)


def bounding_box_decode(anchor_box, deltas, max_shape, means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0),
                        wh_ratio_clip=0.016):
    """``ops.bounding_box_decode(anchor_box, deltas, max_shape, means=(0, 0, 0, 0), stds=(1, 1, 1, 1),
    wh_ratio_clip=0.016)``: the boxes the regression ``deltas`` give for each anchor (the inverse of
    :func:`bounding_box_encode`, log-size changes clipped to ``|log(wh_ratio_clip)|``), clipped to the image
    ``max_shape`` = (height, width)."""
    fn = "bounding_box_decode"
    a = _boxes(anchor_box, fn, "anchor_box")
    d = _boxes(deltas, fn, "deltas")
    means, stds = _four(means, "means", fn), _four(stds, "stds", fn)
    if len(tuple(max_shape)) != 2:
        raise ValueError(f"ops.{fn}: max_shape must be (height, width), got {max_shape!r}")
    height, width = (float(v) for v in max_shape)
    dx, dy, dw, dh = (bind(_R["add"], bind(_R["mul"], _column(d, i), stds[i]), means[i]) for i in range(4))
    limit = abs(math.log(float(wh_ratio_clip)))
    dw = bind(_R["minimum"], bind(_R["maximum"], dw, -limit), limit)
    dh = bind(_R["minimum"], bind(_R["maximum"], dh, -limit), limit)
    px, py, pw, ph = _centre_size(a)
    gx = bind(_R["add"], px, bind(_R["mul"], pw, dx))
    gy = bind(_R["add"], py, bind(_R["mul"], ph, dy))
    half_w = bind(_R["mul"], bind(_R["mul"], pw, bind(_R["exp"], dw)), 0.5)
    half_h = bind(_R["mul"], bind(_R["mul"], ph, bind(_R["exp"], dh)), 0.5)

    def clip(v, hi):
        return bind(_R["minimum"], bind(_R["maximum"], v, 0.0), hi)
    x1 = clip(bind(_R["add"], bind(_R["sub"], gx, half_w), 0.5), width)
    y1 = clip(bind(_R["add"], bind(_R["sub"], gy, half_h), 0.5), height)
    x2 = clip(bind(_R["sub"], bind(_R["add"], gx, half_w), 0.5), width)
    y2 = clip(bind(_R["sub"], bind(_R["add"], gy, half_h), 0.5), height)
    return bind(_R["stack"], x1, y1, x2, y2, axis=1)


def check_valid(bboxes, img_metas):
    """``ops.check_valid(bboxes, img_metas)``: True for the boxes inside the image ``img_metas`` = (height,
    width, ratio): ``x0 >= 0``, ``y0 >= 0``, ``x1 <= width * ratio - 1`` and ``y1 <= height * ratio - 1``."""
    b = _boxes(bboxes, "check_valid", "bboxes")
    meta = np.asarray(img_metas.asnumpy() if is_tensorlike(img_metas) else img_metas, np.float64).reshape(-1)
    if meta.size != 3:
        raise ValueError(f"ops.check_valid: img_metas must hold (height, width, ratio), got {img_metas!r}")
    right, bottom = meta[1] * meta[2] - 1.0, meta[0] * meta[2] - 1.0
    x0, y0, x1, y1 = (_column(b, i) for i in range(4))
    ok = bind(_R["logical_and"], bind(_R["greater_equal"], x0, 0), bind(_R["greater_equal"], y0, 0))
    ok = bind(_R["logical_and"], ok, bind(_R["less_equal"], x1, right))
    return bind(_R["logical_and"], ok, bind(_R["less_equal"], y1, bottom))


class _BoxPrimitive:
    def __repr__(self):
        return f"Prim[{type(self).__name__}]"


class IOU(_BoxPrimitive):
    """``ops.IOU(mode='iou')(anchor_boxes, gt_boxes)``."""

    def __init__(self, mode="iou"):
        self.mode = mode

    def __call__(self, anchor_boxes, gt_boxes):
        return iou(anchor_boxes, gt_boxes, self.mode)


class BoundingBoxEncode(_BoxPrimitive):
    """``ops.BoundingBoxEncode(means=(0, 0, 0, 0), stds=(1, 1, 1, 1))(anchor_box, groundtruth_box)``."""

    def __init__(self, means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0)):
        self.means, self.stds = means, stds

    def __call__(self, anchor_box, groundtruth_box):
        return bounding_box_encode(anchor_box, groundtruth_box, self.means, self.stds)


class BoundingBoxDecode(_BoxPrimitive):
    """``ops.BoundingBoxDecode(max_shape, means=(0, 0, 0, 0), stds=(1, 1, 1, 1), wh_ratio_clip=0.016)(anchor_box,
    deltas)``."""

    def __init__(self, max_shape, means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0), wh_ratio_clip=0.016):
        self.max_shape, self.means, self.stds, self.wh_ratio_clip = max_shape, means, stds, wh_ratio_clip

    def __call__(self, anchor_box, deltas):
        return bounding_box_decode(anchor_box, deltas, self.max_shape, self.means, self.stds, self.wh_ratio_clip)


class CheckValid(_BoxPrimitive):
    """``ops.CheckValid()(bboxes, img_metas)``."""

    def __call__(self, bboxes, img_metas):
        return check_valid(bboxes, img_metas)


for _cls in (IOU, BoundingBoxEncode, BoundingBoxDecode, CheckValid):
    _cls.__module__ = "runtime.ops"
