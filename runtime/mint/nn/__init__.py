"""``mindspore.mint.nn``: the torch-style layer spellings over ``runtime.nn``.

Layers whose ``runtime.nn`` class already has mint's signature are the same class (``ReLU``, ``MSELoss``,
``CrossEntropyLoss``...); the others subclass the ``runtime.nn`` layer and only translate the constructor's
arguments (``in_features``/``bias`` for ``Dense``'s ``in_channels``/``has_bias``, torch's BatchNorm
``momentum`` for MindSpore's ``1 - momentum``...). ``LayerNorm`` and ``Embedding`` hold torch's parameter
names (``weight``/``bias``) and call :mod:`runtime.mint.nn.functional`.

Example:
    >>> from runtime import mint
    >>> layer = mint.nn.Linear(3, 2)
    >>> [p.name for p in layer.trainable_params()]
    ['weight', 'bias']
"""
from __future__ import annotations

from graph.dtypes import as_dtype, float32

from ... import nn as _nn
from ...common.initializer import Normal, initializer
from ...parameter import Parameter
from . import functional

# layers whose runtime.nn signature already is mint's
from ...nn import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveAvgPool3d, BCELoss, ConstantPad1d, ConstantPad2d,
                   ConstantPad3d, CosineEmbeddingLoss, CrossEntropyLoss, Flatten, HuberLoss, Identity, L1Loss,
                   MarginRankingLoss, Mish, MSELoss, NLLLoss, PixelShuffle, ReflectionPad1d, ReflectionPad2d,
                   ReflectionPad3d, ReLU, ReplicationPad1d, ReplicationPad2d, ReplicationPad3d, Sigmoid, SiLU,
                   SoftMarginLoss, Softsign, Tanh, Tanhshrink, Upsample, ZeroPad2d)

__all__ = ["Linear", "Conv2d", "ReLU", "GELU", "SiLU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "Dropout",
           "LayerNorm", "BatchNorm2d", "Embedding", "Flatten", "Identity", "MSELoss", "CrossEntropyLoss",
           "L1Loss", "AdaptiveAvgPool2d", "BCELoss", "Hardsigmoid", "Hardswish", "Mish", "NLLLoss",
           "PixelShuffle", "SELU", "Upsample", "ZeroPad2d", "LeakyReLU", "ELU", "Softplus", "PReLU", "GroupNorm",
           "BatchNorm1d", "MaxPool2d", "AvgPool2d", "BCEWithLogitsLoss", "SmoothL1Loss", "KLDivLoss",
           "Conv1d", "ConvTranspose2d", "ReLU6", "Hardtanh", "LogSigmoid", "Softshrink", "Hardshrink", "GLU",
           "Threshold", "Softmin", "BatchNorm3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool3d", "ConstantPad1d",
           "ConstantPad2d", "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
           "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "ZeroPad1d", "ZeroPad3d", "Unfold", "Fold",
           "Dropout2d", "AvgPool1d", "MaxPool1d", "Conv3d", "Softsign", "Tanhshrink", "CELU", "AdaptiveMaxPool1d",
           "AdaptiveMaxPool2d", "HuberLoss", "SoftMarginLoss", "MarginRankingLoss", "CosineEmbeddingLoss",
           "TripletMarginLoss", "CosineSimilarity", "Unflatten", "functional"]


def _check_bool(cls_name, name, value):
    if not isinstance(value, bool):
        raise TypeError(f"mint.nn.{cls_name}: {name} must be a bool, got {value!r}")
    return value


def _dtype(dtype):
    return float32 if dtype is None else as_dtype(dtype)


class Linear(_nn.Dense):
    """``y = x @ weight.T + bias`` with ``weight`` of shape ``(out_features, in_features)``; weights
    HeUniform(sqrt(5)) and bias U(+-1/sqrt(in_features)) as torch and MindSpore."""

    def __init__(self, in_features, out_features, bias=True, weight_init=None, bias_init=None, dtype=None):
        super().__init__(in_features, out_features, weight_init=weight_init, bias_init=bias_init,
                         has_bias=_check_bool("Linear", "bias", bias), dtype=_dtype(dtype))
        self.in_features, self.out_features = in_features, out_features


def _conv_padding(layer, padding, padding_mode, numbers, convert):
    """``(pad_mode, padding)`` of runtime.nn's convolutions for torch's ``padding`` (``'same'``,
    ``'valid'`` or ``numbers``, converted by ``convert``) and ``padding_mode`` (``'zeros'`` only:
    the one padding runtime.nn's convolutions have)."""
    if padding_mode != "zeros":
        raise ValueError(f"mint.nn.{layer}: padding_mode must be 'zeros', got {padding_mode!r}")
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise ValueError(f"mint.nn.{layer}: padding must be 'same', 'valid' or {numbers}, got {padding!r}")
        return padding, 0
    return "pad", convert(padding)


class Conv2d(_nn.Conv2d):
    """torch's Conv2d arguments: ``padding`` an int, a pair, or ``'same'``/``'valid'``; ``bias=True``;
    ``groups``. Only ``padding_mode='zeros'`` (the one padding ``runtime.nn.Conv2d`` has)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", dtype=None):
        pad_mode, pads = _conv_padding("Conv2d", padding, padding_mode, "numbers", functional._torch_padding)
        super().__init__(in_channels, out_channels, kernel_size, stride=stride, pad_mode=pad_mode, padding=pads,
                         dilation=dilation, group=groups, has_bias=_check_bool("Conv2d", "bias", bias),
                         dtype=_dtype(dtype))


class GELU(_nn.GELU):
    """``approximate``: ``'none'`` (erf) or ``'tanh'``."""

    def __init__(self, approximate="none"):
        if approximate not in ("none", "tanh"):
            raise ValueError(f"mint.nn.GELU: approximate must be 'none' or 'tanh', got {approximate!r}")
        super().__init__(approximate=approximate == "tanh")


class Softmax(_nn.Softmax):
    def __init__(self, dim=None):
        super().__init__(axis=functional._axis("Softmax", dim))


class LogSoftmax(_nn.LogSoftmax):
    def __init__(self, dim=None):
        super().__init__(axis=functional._axis("LogSoftmax", dim))


class Dropout(_nn.Dropout):
    """Zeroes each element with probability ``p`` while training (scaling the rest by ``1/(1-p)``)."""

    def __init__(self, p=0.5, inplace=False):
        functional._no_inplace("Dropout", inplace)
        super().__init__(p=p)


class LayerNorm(_nn.Cell):
    """Normalises over the trailing ``normalized_shape`` dims; parameters ``weight`` (ones) and ``bias``
    (zeros) when ``elementwise_affine`` (``bias=False`` drops the bias)."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, dtype=None):
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape, self.eps = shape, eps
        self.elementwise_affine = _check_bool("LayerNorm", "elementwise_affine", elementwise_affine)
        dt = _dtype(dtype)
        self.weight = Parameter(initializer("ones", shape, dt), name="weight") if elementwise_affine else None
        self.bias = (Parameter(initializer("zeros", shape, dt), name="bias")
                     if elementwise_affine and _check_bool("LayerNorm", "bias", bias) else None)

    def construct(self, input):
        return functional.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)


def _batch_norm_args(cls_name, momentum, track_running_stats):
    """runtime.nn's ``(momentum, use_batch_statistics)`` for torch's ``momentum`` (the weight of the
    batch statistic: MindSpore's ``1 - momentum``) and ``track_running_stats``."""
    if isinstance(momentum, bool) or not isinstance(momentum, (int, float)):
        raise TypeError(f"mint.nn.{cls_name}: momentum must be a float, got {momentum!r}")
    track = _check_bool(cls_name, "track_running_stats", track_running_stats)
    return 1.0 - momentum, None if track else True


class BatchNorm2d(_nn.BatchNorm2d):
    """torch's ``momentum`` (the weight of the batch statistic, default 0.1) is MindSpore's
    ``1 - momentum``; ``track_running_stats=False`` always normalises with the batch statistics.
    The parameters keep ``runtime.nn``'s names (``gamma``, ``beta``, ``moving_mean``, ``moving_variance``)."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, dtype=None):
        momentum, batch_stats = _batch_norm_args("BatchNorm2d", momentum, track_running_stats)
        super().__init__(num_features, eps=eps, momentum=momentum, affine=affine,
                         use_batch_statistics=batch_stats, dtype=_dtype(dtype))


class Embedding(_nn.Cell):
    """A ``(num_embeddings, embedding_dim)`` table ``weight`` drawn from N(0, 1) (the ``padding_idx``
    row zero and without gradient, as torch); ``_weight`` gives the initial table."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, dtype=None):
        super().__init__()
        if padding_idx is not None:
            if isinstance(padding_idx, bool) or not isinstance(padding_idx, int):
                raise TypeError(f"mint.nn.Embedding: padding_idx must be an int or None, got {padding_idx!r}")
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise ValueError(f"mint.nn.Embedding: padding_idx must be in [{-num_embeddings}, "
                                 f"{num_embeddings}), got {padding_idx}")
            padding_idx %= num_embeddings
        if max_norm is not None or scale_grad_by_freq or sparse:
            raise ValueError("mint.nn.Embedding: max_norm, scale_grad_by_freq and sparse are not supported")
        self.num_embeddings, self.embedding_dim, self.padding_idx = num_embeddings, embedding_dim, padding_idx
        shape = (num_embeddings, embedding_dim)
        if _weight is None:
            table = initializer(Normal(1.0), shape, _dtype(dtype)).asnumpy().copy()
            if padding_idx is not None:
                table[padding_idx] = 0
        else:
            if tuple(_weight.shape) != shape:
                raise ValueError(f"mint.nn.Embedding: _weight has shape {tuple(_weight.shape)}, expected {shape}")
            table = _weight
        self.weight = Parameter(initializer(table, shape, _dtype(dtype)), name="weight",
                                requires_grad=not _freeze)

    def construct(self, input):
        return functional.embedding(input, self.weight, self.padding_idx)


class LeakyReLU(_nn.LeakyReLU):
    """torch's default slope 0.01 (``runtime.nn.LeakyReLU``'s is MindSpore's 0.2)."""

    def __init__(self, negative_slope=0.01, inplace=False):
        functional._no_inplace("LeakyReLU", inplace)
        super().__init__(alpha=negative_slope)


class ELU(_nn.ELU):
    def __init__(self, alpha=1.0, inplace=False):
        functional._no_inplace("ELU", inplace)
        super().__init__(alpha=alpha)


class Softplus(_nn.Softplus):
    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__(beta=beta, threshold=threshold)


class PReLU(_nn.PReLU):
    """``num_parameters`` slopes initialised to ``init``."""

    def __init__(self, num_parameters=1, init=0.25, dtype=None):
        super().__init__(channel=num_parameters, w=init)


class GroupNorm(_nn.GroupNorm):
    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, dtype=None):
        super().__init__(num_groups, num_channels, eps=eps, affine=affine, dtype=_dtype(dtype))


class BatchNorm1d(_nn.BatchNorm1d):
    """As :class:`BatchNorm2d` for ``(N, C)`` / ``(N, C, L)`` inputs."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, dtype=None):
        momentum, batch_stats = _batch_norm_args("BatchNorm1d", momentum, track_running_stats)
        super().__init__(num_features, eps=eps, momentum=momentum, affine=affine,
                         use_batch_statistics=batch_stats, dtype=_dtype(dtype))


class BatchNorm3d(_nn.BatchNorm3d):
    """As :class:`BatchNorm2d` for ``(N, C, D, H, W)`` inputs."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, dtype=None):
        momentum, batch_stats = _batch_norm_args("BatchNorm3d", momentum, track_running_stats)
        super().__init__(num_features, eps=eps, momentum=momentum, affine=affine,
                         use_batch_statistics=batch_stats, dtype=_dtype(dtype))


class MaxPool2d(_nn.MaxPool2d):
    """torch's arguments: ``stride`` defaults to ``kernel_size``; ``padding`` zero-pads (with -inf)."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__(kernel_size, kernel_size if stride is None else stride, pad_mode="pad", padding=padding,
                         dilation=dilation, return_indices=return_indices, ceil_mode=ceil_mode)


class AvgPool2d(_nn.AvgPool2d):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__(kernel_size, kernel_size if stride is None else stride, pad_mode="pad", padding=padding,
                         ceil_mode=ceil_mode, count_include_pad=count_include_pad,
                         divisor_override=divisor_override)


class BCEWithLogitsLoss(_nn.BCEWithLogitsLoss):
    def __init__(self, weight=None, reduction="mean", pos_weight=None):
        super().__init__(reduction=reduction, weight=weight, pos_weight=pos_weight)


class SmoothL1Loss(_nn.SmoothL1Loss):
    """torch's default ``reduction='mean'``."""

    def __init__(self, reduction="mean", beta=1.0):
        super().__init__(beta=beta, reduction=reduction)


class KLDivLoss(_nn.Cell):
    def __init__(self, reduction="mean", log_target=False):
        super().__init__()
        self.reduction, self.log_target = reduction, _check_bool("KLDivLoss", "log_target", log_target)

    def construct(self, input, target):
        return functional.kl_div(input, target, self.reduction, self.log_target)


class _Activation(_nn.Cell):
    """A parameterless activation Cell calling the ``functional`` function of the same name."""
    _fn = None

    def __init__(self, inplace=False):
        super().__init__()
        functional._no_inplace(type(self).__name__, inplace)

    def construct(self, input):
        return type(self)._fn(input)


class Hardswish(_Activation):
    _fn = staticmethod(functional.hardswish)


class Hardsigmoid(_Activation):
    _fn = staticmethod(functional.hardsigmoid)


class SELU(_Activation):
    _fn = staticmethod(functional.selu)


class Conv1d(_nn.Conv1d):
    """torch's Conv1d arguments: ``padding`` an int or ``'same'``/``'valid'``; ``bias=True``; ``groups``."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", dtype=None):
        pad_mode, pads = _conv_padding("Conv1d", padding, padding_mode, "a number", lambda p: p)
        super().__init__(in_channels, out_channels, kernel_size, stride=stride, pad_mode=pad_mode, padding=pads,
                         dilation=dilation, group=groups, has_bias=_check_bool("Conv1d", "bias", bias),
                         dtype=_dtype(dtype))


class ConvTranspose2d(_nn.Conv2dTranspose):
    """torch's ConvTranspose2d: weight ``(in_channels, out_channels/groups, kh, kw)`` (HeUniform(sqrt(5))
    and bias U(+-1/sqrt(fan_in)) with ``fan_in = out_channels/groups * kh * kw``, as torch);
    ``padding`` an int or a pair (cropped from both sides); ``output_padding`` extra rows/columns at the
    bottom/right, computed by the convolution (torch's rule, unlike ``runtime.nn.Conv2dTranspose``'s
    zeros), each below the stride. ``construct(input, output_size=None)``: ``output_size`` (the
    trailing two numbers count) chooses ``output_padding`` as torch does."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f"mint.nn.ConvTranspose2d: padding_mode must be 'zeros', got {padding_mode!r}")
        self_padding = functional._int_pair("ConvTranspose2d", "padding", padding)
        super().__init__(in_channels, out_channels, kernel_size, stride=stride, pad_mode="pad",
                         padding=functional._torch_padding(self_padding), dilation=dilation, group=groups,
                         has_bias=_check_bool("ConvTranspose2d", "bias", bias), dtype=_dtype(dtype))
        self.torch_padding = self_padding
        self.output_padding = functional._int_pair("ConvTranspose2d", "output_padding", output_padding)
        for extra, s in zip(self.output_padding, self.stride):
            if not 0 <= extra < s:
                raise ValueError(f"mint.nn.ConvTranspose2d: output_padding must be in [0, stride) on each axis, "
                                 f"got output_padding={self.output_padding} with stride={self.stride}")

    def _output_padding_for(self, input, output_size):
        """torch's rule: the output_padding giving ``output_size``, which must be reachable."""
        want = tuple(output_size)[-2:]
        extra = []
        for axis, length in enumerate(input.shape[-2:]):
            smallest = ((length - 1) * self.stride[axis] - 2 * self.torch_padding[axis]
                        + self.dilation[axis] * (self.kernel_size[axis] - 1) + 1)
            if len(want) != 2 or not smallest <= want[axis] < smallest + self.stride[axis]:
                raise ValueError(f"mint.nn.ConvTranspose2d: output_size {tuple(output_size)} is not reachable: each "
                                 f"of the last two sizes must be in [minimum, minimum + stride), minimum "
                                 f"{smallest} on axis {axis}")
            extra.append(want[axis] - smallest)
        return tuple(extra)

    def construct(self, input, output_size=None):
        extra = self.output_padding if output_size is None else self._output_padding_for(input, output_size)
        return functional.conv_transpose2d(input, self.weight, self.bias, self.stride, self.torch_padding, extra,
                                           self.group, self.dilation)


class ReLU6(_Activation):
    """``min(max(input, 0), 6)``."""
    _fn = staticmethod(functional.relu6)


class LogSigmoid(_Activation):
    """``log(sigmoid(input))``."""
    _fn = staticmethod(functional.logsigmoid)


class Hardtanh(_nn.Hardtanh):
    """``clamp(input, min_val, max_val)``."""

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        functional._no_inplace("Hardtanh", inplace)
        super().__init__(min_val=min_val, max_val=max_val)


class Softshrink(_nn.SoftShrink):
    """``input - lambd`` above ``lambd``, ``input + lambd`` below ``-lambd``, else 0."""

    def __init__(self, lambd=0.5):
        super().__init__(lambd=lambd)


class Hardshrink(_nn.HShrink):
    """``input`` where ``|input| > lambd``, else 0."""

    def __init__(self, lambd=0.5):
        super().__init__(lambd=lambd)


class GLU(_nn.GLU):
    """``a * sigmoid(b)`` of the two halves ``a, b`` of ``input`` along ``dim``."""

    def __init__(self, dim=-1):
        super().__init__(axis=dim)


class Threshold(_nn.Threshold):
    """``input`` where ``input > threshold``, else ``value``."""

    def __init__(self, threshold, value, inplace=False):
        functional._no_inplace("Threshold", inplace)
        super().__init__(threshold, value)


class Softmin(_nn.Softmin):
    """``softmax(-input)`` along ``dim`` (default: the last)."""

    def __init__(self, dim=None):
        super().__init__(axis=functional._axis("Softmin", dim))


class ZeroPad1d(ConstantPad1d):
    """Pads the last dimension with zeros (``padding``: an int or ``(left, right)``)."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)


class ZeroPad3d(ConstantPad3d):
    """Pads the last three dimensions with zeros (``padding``: an int or a 6-tuple, last dimension first)."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)


class Unfold(_nn.Cell):
    """Sliding ``kernel_size`` blocks of an NCHW input as columns: ``(N, C*kh*kw, L)`` (functional.unfold)."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def construct(self, input):
        return functional.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)


class Fold(_nn.Cell):
    """The inverse arrangement of :class:`Unfold`: columns summed back into an ``output_size`` image."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def construct(self, input):
        return functional.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)


class Dropout2d(_nn.Dropout2d):
    """Zeroes whole channels with probability ``p`` while training (scaling the rest by ``1/(1-p)``)."""

    def __init__(self, p=0.5, inplace=False):
        functional._no_inplace("Dropout2d", inplace)
        super().__init__(p=p)


class AvgPool1d(_nn.Cell):
    """Means over windows along the last dimension of ``(N, C, L)`` (``stride`` defaults to the window)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def construct(self, input):
        return functional.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                                     self.count_include_pad)


class MaxPool1d(_nn.Cell):
    """Maxima over windows along the last dimension of ``(N, C, L)`` (``stride`` defaults to the window)."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size, self.stride, self.padding, self.dilation = kernel_size, stride, padding, dilation
        self.return_indices = _check_bool("MaxPool1d", "return_indices", return_indices)
        self.ceil_mode = ceil_mode

    def construct(self, input):
        return functional.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                                     self.ceil_mode, self.return_indices)


class Conv3d(_nn.Conv3d):
    """torch's Conv3d arguments: ``padding`` an int, a triple, or ``'same'``/``'valid'``; ``bias=True``; ``groups``."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", dtype=None):
        pad_mode, pads = _conv_padding("Conv3d", padding, padding_mode, "numbers", lambda p: p)
        super().__init__(in_channels, out_channels, kernel_size, stride=stride, pad_mode=pad_mode, padding=pads,
                         dilation=dilation, group=groups, has_bias=_check_bool("Conv3d", "bias", bias),
                         dtype=_dtype(dtype))


class CELU(_nn.CELU):
    def __init__(self, alpha=1.0, inplace=False):
        functional._no_inplace("CELU", inplace)
        super().__init__(alpha=alpha)


class AdaptiveMaxPool1d(_nn.Cell):
    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = _check_bool("AdaptiveMaxPool1d", "return_indices", return_indices)

    def construct(self, input):
        return functional.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_nn.AdaptiveMaxPool2d):
    def __init__(self, output_size, return_indices=False):
        super().__init__(output_size, return_indices=_check_bool("AdaptiveMaxPool2d", "return_indices",
                                                                 return_indices))


class TripletMarginLoss(_nn.Cell):
    """torch's argument order (``margin`` first); see :func:`functional.triplet_margin_loss`."""

    def __init__(self, margin=1.0, p=2, eps=1e-6, swap=False, reduction="mean"):
        super().__init__()
        self.margin, self.p, self.eps = margin, p, eps
        self.swap, self.reduction = _check_bool("TripletMarginLoss", "swap", swap), reduction

    def construct(self, anchor, positive, negative):
        return functional.triplet_margin_loss(anchor, positive, negative, self.margin, self.p, self.eps, self.swap,
                                              self.reduction)


class CosineSimilarity(_nn.Cell):
    """The cosine of ``x1`` and ``x2`` along ``dim``."""

    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim, self.eps = dim, eps

    def construct(self, x1, x2):
        return functional.cosine_similarity(x1, x2, self.dim, self.eps)


class Unflatten(_nn.Unflatten):
    """Dimension ``dim`` split into ``unflattened_size``."""

    def __init__(self, dim, unflattened_size):
        super().__init__(dim, unflattened_size)
