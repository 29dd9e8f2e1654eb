"""More of MindSpore 2.x's functional activations and layer functions (``ops.celu``, ``ops.glu``,
``ops.softmin``, ``ops.hardtanh``, ``ops.threshold``, ``ops.hardshrink``/``soft_shrink``, ``ops.rrelu``,
``ops.gumbel_softmax``, ``ops.fast_gelu``, ``ops.dropout1d``, ``ops.unfold``/``ops.fold``), with
MindSpore's signatures.

No new op semantics: each is composed of registry ops (or the Primitive of the same math in
``runtime.ops.compat_ops``); ``unfold``/``fold`` are the registry's ``conv_im2col``/``conv_col2im``
(the columns Conv2D lowers to, and their adjoint); the random ones draw from the registry's stream
(``ms.set_seed``).

Example:
    >>> from runtime import ops, Tensor
    >>> ops.hardtanh(Tensor([-2.0, 0.5, 3.0])).asnumpy().tolist()
    [-1.0, 0.5, 1.0]
    >>> ops.glu(Tensor([[1.0, 2.0, 0.0, 0.0]])).asnumpy().tolist()
    [[0.5, 1.0]]
"""
from __future__ import annotations

import numpy as np

from graph.ops import REGISTRY, bind
from graph.ops.core import is_tensorlike

from ..tensor import Tensor

_R = REGISTRY

__all__ = ["celu", "glu", "softmin", "hardtanh", "threshold", "hardshrink", "soft_shrink", "softshrink", "rrelu",
           "gumbel_softmax", "fast_gelu", "dropout1d", "unfold", "fold"]


def _ops():
    from .. import ops
    return ops


def _tensor(x, fn, name="input"):
    if not is_tensorlike(x) or isinstance(x, (np.ndarray, np.generic)):
        raise TypeError(f"ops.{fn}: {name} must be a Tensor, got {type(x).__name__}")
    return x


def _float_tensor(x, fn, name="input"):
    _tensor(x, fn, name)
    if not x.dtype.is_float:
        raise TypeError(f"ops.{fn}: {name} must be a float Tensor, got {x.dtype}")
    return x


def celu(x, alpha=1.0):
    """``ops.celu(x, alpha=1.0)``: ``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``; alpha must not be 0."""
    _float_tensor(x, "celu", "x")
    if float(alpha) == 0.0:
        raise ValueError("ops.celu: alpha must not be 0")
    return _ops().CeLU(float(alpha))(x)


def glu(x, axis=-1):
    """``ops.glu(x, axis=-1)``: the first half of ``x`` along ``axis`` times the sigmoid of the second half
    (the axis's size must be even)."""
    _float_tensor(x, "glu", "x")
    ax = int(axis) % x.ndim
    n = x.shape[ax]
    if n % 2:
        raise ValueError(f"ops.glu: the size of axis {axis} must be even, got {n}")
    a, b = _ops().split(x, n // 2, ax)
    return bind(_R["mul"], a, bind(_R["sigmoid"], b))


def softmin(x, axis=-1, *, dtype=None):
    """``ops.softmin(x, axis=-1, *, dtype=None)``: ``softmax(-x)`` along ``axis``."""
    _float_tensor(x, "softmin", "x")
    if dtype is not None:
        x = bind(_R["cast"], x, dtype=dtype)
    return _ops().softmax(bind(_R["neg"], x), axis)


def hardtanh(input, min_val=-1.0, max_val=1.0):  # noqa: A002 - MindSpore's names
    """``ops.hardtanh(input, min_val=-1.0, max_val=1.0)``: ``input`` clamped to ``[min_val, max_val]``."""
    _tensor(input, "hardtanh")
    if min_val > max_val:
        raise ValueError(f"ops.hardtanh: min_val ({min_val}) must not exceed max_val ({max_val})")
    return bind(_R["minimum"], bind(_R["maximum"], input, min_val), max_val)


def threshold(input, thr, value):  # noqa: A002
    """``ops.threshold(input, thr, value)``: ``input`` where ``input > thr``, else ``value``."""
    _tensor(input, "threshold")
    fill = bind(_R["add"], bind(_R["zeros_like"], input), value)
    return bind(_R["where"], bind(_R["greater"], input, thr), input, fill)


def hardshrink(x, lambd=0.5):
    """``ops.hardshrink(x, lambd=0.5)``: ``x`` where ``|x| > lambd``, else 0."""
    _float_tensor(x, "hardshrink", "x")
    return _ops().HShrink(float(lambd))(x)


def soft_shrink(x, lambd=0.5):
    """``ops.soft_shrink(x, lambd=0.5)``: ``x - sign(x) * lambd`` where ``|x| > lambd``, else 0 (``lambd >= 0``)."""
    _float_tensor(x, "soft_shrink", "x")
    if float(lambd) < 0:
        raise ValueError(f"ops.soft_shrink: lambd must be >= 0, got {lambd}")
    return _ops().SoftShrink(float(lambd))(x)


def softshrink(input, lambd=0.5):  # noqa: A002
    """``ops.softshrink(input, lambd=0.5)``: the later spelling of ``ops.soft_shrink``."""
    return soft_shrink(input, lambd)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3):  # noqa: A002
    """``ops.rrelu(input, lower=1/8, upper=1/3)``: negative elements times a slope drawn from
    ``U[lower, upper]`` per element (MindSpore's functional rrelu always draws)."""
    _float_tensor(input, "rrelu")
    if lower > upper:
        raise ValueError(f"ops.rrelu: lower ({lower}) must not exceed upper ({upper})")
    u = _ops().rand_like(input)
    slope = bind(_R["add"], bind(_R["mul"], u, float(upper) - float(lower)), float(lower))
    return bind(_R["where"], bind(_R["less"], input, 0.0), bind(_R["mul"], input, slope), input)


def gumbel_softmax(logits, tau=1, hard=False, dim=-1):
    """``ops.gumbel_softmax(logits, tau=1, hard=False, dim=-1)``: ``softmax((logits + g) / tau)`` with Gumbel
    noise ``g = -log(-log(u))``; with ``hard=True`` the one-hot of its argmax in the forward pass and the soft
    sample's gradient (straight-through)."""
    _float_tensor(logits, "gumbel_softmax", "logits")
    if float(tau) <= 0:
        raise ValueError(f"ops.gumbel_softmax: tau must be positive, got {tau}")
    tiny = float(np.finfo(logits.dtype.np).tiny)
    u = _ops().rand_like(logits)
    g = bind(_R["neg"], bind(_R["log"], bind(_R["neg"], bind(_R["log"], bind(_R["add"], u, tiny)))))
    soft = _ops().softmax(bind(_R["div"], bind(_R["add"], logits, g), float(tau)), dim)
    if not hard:
        return soft
    ax = int(dim) % logits.ndim
    index = bind(_R["argmax"], soft, axis=ax, keep_dims=False)
    one_hot = bind(_R["cast"], _ops().one_hot(index, logits.shape[ax], Tensor(1.0), Tensor(0.0), ax), dtype=soft.dtype)
    # forward: the one-hot; backward: the soft sample's gradient
    return bind(_R["add"], bind(_R["stop_gradient"], bind(_R["sub"], one_hot, soft)), soft)


def fast_gelu(x):
    """``ops.fast_gelu(x)``: ``x / (1 + exp(-1.702 |x|)) * exp(0.851 (x - |x|))``, i.e. ``x * sigmoid(1.702 x)``."""
    _float_tensor(x, "fast_gelu", "x")
    return bind(_R["mul"], x, bind(_R["sigmoid"], bind(_R["mul"], x, 1.702)))


def dropout1d(input, p=0.5, training=True):  # noqa: A002
    """``ops.dropout1d(input, p=0.5, training=True)``: zero whole channels of an (N, C, L) or (C, L) input with
    probability ``p`` and scale the kept ones by ``1/(1-p)``; the input itself when not training."""
    from .volume_func import _channel_dropout
    _tensor(input, "dropout1d")
    if input.ndim not in (2, 3):
        raise ValueError(f"ops.dropout1d: input must be 2-D (C, L) or 3-D (N, C, L), got shape {tuple(input.shape)}")
    if input.ndim == 2:
        out = _channel_dropout(bind(_R["expand_dims"], input, axis=0), p, training, 3, "ops.dropout1d")
        return bind(_R["reshape"], out, shape=tuple(input.shape))
    return _channel_dropout(input, p, training, 3, "ops.dropout1d")


def _pair(v, what, fn, minimum):
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        v = (int(v), int(v))
    if (not isinstance(v, (tuple, list)) or len(v) != 2
            or any(isinstance(i, bool) or not isinstance(i, (int, np.integer)) for i in v)):
        raise TypeError(f"ops.{fn}: {what} must be an int or a pair of ints, got {v!r}")
    if any(i < minimum for i in v):
        raise ValueError(f"ops.{fn}: {what} must be >= {minimum}, got {tuple(v)}")
    return tuple(int(i) for i in v)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002
    """``ops.unfold(input, kernel_size, dilation=1, padding=0, stride=1)``: the sliding local blocks of an
    (N, C, H, W) input as columns, (N, C * kh * kw, L) (im2col; row ``(c, i, j)``)."""
    _tensor(input, "unfold")
    if input.ndim != 4:
        raise ValueError(f"ops.unfold: input must be 4-D (N, C, H, W), got shape {tuple(input.shape)}")
    k = _pair(kernel_size, "kernel_size", "unfold", 1)
    d = _pair(dilation, "dilation", "unfold", 1)
    p = _pair(padding, "padding", "unfold", 0)
    s = _pair(stride, "stride", "unfold", 1)
    return bind(_R["conv_im2col"], input, kernel_size=k, stride=s, pad_mode="pad",
                padding=(p[0], p[0], p[1], p[1]), dilation=d)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002
    """``ops.fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1)``: the adjoint of
    :func:`unfold`: (N, C * kh * kw, L) columns summed back into an (N, C, H, W) tensor, ``output_size``
    being (H, W) (a pair, or a 1-D int Tensor of 2 values)."""
    _tensor(input, "fold")
    if is_tensorlike(output_size):
        output_size = tuple(int(v) for v in np.asarray(output_size.asnumpy()).reshape(-1))
    out = _pair(tuple(output_size) if isinstance(output_size, (list, tuple)) else output_size, "output_size",
                "fold", 1)
    k = _pair(kernel_size, "kernel_size", "fold", 1)
    d = _pair(dilation, "dilation", "fold", 1)
    p = _pair(padding, "padding", "fold", 0)
    s = _pair(stride, "stride", "fold", 1)
    if input.ndim != 3 or input.shape[1] % (k[0] * k[1]):
        raise ValueError(f"ops.fold: input must be (N, C * {k[0]} * {k[1]}, L), got shape {tuple(input.shape)}")
    c = input.shape[1] // (k[0] * k[1])
    blocks = [(out[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(2)]
    if blocks[0] * blocks[1] != input.shape[2]:
        raise ValueError(f"ops.fold: input has {input.shape[2]} blocks, but output_size {out}, kernel_size {k}, "
                         f"dilation {d}, padding {p} and stride {s} make {blocks[0] * blocks[1]}")
    return bind(_R["conv_col2im"], input, input_size=(input.shape[0], c) + out, kernel_size=k, stride=s,
                pad_mode="pad", padding=(p[0], p[0], p[1], p[1]), dilation=d)
