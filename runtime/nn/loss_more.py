"""More ``mindspore.nn`` loss Cells: KLDivLoss, HuberLoss, FocalLoss, DiceLoss, MultiClassDiceLoss,
RMSELoss, MAELoss, CosineEmbeddingLoss, MarginRankingLoss, TripletMarginLoss, SoftMarginLoss,
HingeEmbeddingLoss, PoissonNLLLoss, GaussianNLLLoss, MultiLabelSoftMarginLoss, MultiMarginLoss,
MultilabelMarginLoss.

Each takes MindSpore 2.x's constructor arguments (names, order, defaults) and ``construct`` inputs,
and is composed of registered ops -- most through the functional spelling in
``runtime/ops/loss_func.py`` (or ``ops.kl_div`` / ``ops.soft_margin_loss``), so the Cell and the
function agree -- which gives gradients and graph capture. Bad arguments raise TypeError/ValueError
naming the class.

Example:
    >>> import runtime as ms
    >>> from runtime import nn
    >>> loss = nn.HuberLoss()
    >>> round(float(loss(ms.Tensor([1.0, 2.0, 3.0]), ms.Tensor([1.0, 2.0, 2.0]))), 6)
    0.166667
"""
from __future__ import annotations

import math

from graph.dtypes import int32

from .. import ops
from ..ops import loss_func as F
from .cell import Cell
from .loss import LossBase

__all__ = ["KLDivLoss", "HuberLoss", "FocalLoss", "DiceLoss", "MultiClassDiceLoss", "RMSELoss", "MAELoss",
           "CosineEmbeddingLoss", "MarginRankingLoss", "TripletMarginLoss", "SoftMarginLoss",
           "HingeEmbeddingLoss", "PoissonNLLLoss", "GaussianNLLLoss", "MultiLabelSoftMarginLoss",
           "MultiMarginLoss", "MultilabelMarginLoss"]


def _tensors(who, **named):
    for name, value in named.items():
        F.check_tensor(value, name, who)


def _same_shape(who, a, b, names=("logits", "labels")):
    if tuple(a.shape) != tuple(b.shape):
        raise ValueError(f"For '{who}', '{names[0]}' and '{names[1]}' must have one shape, got "
                         f"{tuple(a.shape)} and {tuple(b.shape)}")


class KLDivLoss(LossBase):
    """``nn.KLDivLoss(reduction='mean')(logits, labels)``: ``labels * (log(labels) - logits)``
    (``logits`` are log-probabilities; 0 where a label is 0), reduced by 'none', 'mean' (over all
    elements), 'batchmean' (sum over the first axis' length) or 'sum' -- ``ops.kl_div``."""

    def __init__(self, reduction="mean"):
        if reduction not in ("none", "mean", "batchmean", "sum"):
            raise ValueError(f"For 'KLDivLoss', 'reduction' must be one of ['none', 'mean', 'batchmean', 'sum'], "
                             f"got {reduction!r}")
        super().__init__("mean" if reduction == "batchmean" else reduction)
        self.reduction = reduction

    def construct(self, logits, labels):
        _tensors("KLDivLoss", logits=logits, labels=labels)
        _same_shape("KLDivLoss", logits, labels)
        if self.reduction == "batchmean" and logits.ndim == 0:
            raise ValueError("For 'KLDivLoss', 'batchmean' needs inputs of rank >= 1, got scalars")
        return ops.kl_div(logits, labels, self.reduction)


class HuberLoss(LossBase):
    """``nn.HuberLoss(reduction='mean', delta=1.0)(logits, labels)``: ``ops.huber_loss``."""

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction)
        F.check_number(delta, "delta", "HuberLoss")
        if delta <= 0:
            raise ValueError(f"For 'HuberLoss', 'delta' must be > 0, got {delta!r}")
        self.delta = delta

    def construct(self, logits, labels):
        return F.huber_loss(logits, labels, self.reduction, self.delta)


class FocalLoss(LossBase):
    """``nn.FocalLoss(weight=None, gamma=2.0, reduction='mean')(logits, labels)``:
    ``-(1 - p_t)**gamma log(p_t)`` over ``log_softmax(logits)`` along the class axis 1.

    ``logits`` is (N, C), (N, C, H) or (N, C, H, W); ``labels`` has the same rank with C = 1
    (class indices in [-C, C)) or logits' shape (per-class targets, e.g. one-hot). As MindSpore
    computes it: with positions flattened to L, index labels give a per-sample loss (N,) that is
    the mean over the L positions of ``-(1 - p)**gamma * weight[y] * log p``; per-class labels give
    (N, C): the mean over positions of ``-(1 - p)**gamma * labels * weight[c] * log p``. Then the
    reduction. ``weight`` (C,) rescales the log-probabilities of each class.
    """

    def __init__(self, weight=None, gamma=2.0, reduction="mean"):
        super().__init__(reduction)
        F.check_number(gamma, "gamma", "FocalLoss", (float,))
        if weight is not None:
            F.check_tensor(weight, "weight", "FocalLoss")
            if weight.ndim != 1:
                raise ValueError(f"For 'FocalLoss', the dimension of 'weight' must be 1, got {weight.ndim}")
        self.weight = weight
        self.gamma = float(gamma)

    def construct(self, logits, labels):
        who = "FocalLoss"
        _tensors(who, logits=logits, labels=labels)
        if logits.ndim not in (2, 3, 4) or labels.ndim != logits.ndim:
            raise ValueError(f"For '{who}', 'logits' must be (N, C[, H[, W]]) and 'labels' of the same rank, got "
                             f"shapes {tuple(logits.shape)} and {tuple(labels.shape)}")
        n, c = logits.shape[0], logits.shape[1]
        index_labels = labels.shape[1] == 1
        if not index_labels and tuple(labels.shape) != tuple(logits.shape):
            raise ValueError(f"For '{who}', 'labels' must have 1 channel or the shape of 'logits' "
                             f"{tuple(logits.shape)}, got {tuple(labels.shape)}")
        if labels.shape[0] != n or labels.shape[2:] != logits.shape[2:]:
            raise ValueError(f"For '{who}', 'labels' {tuple(labels.shape)} must match 'logits' "
                             f"{tuple(logits.shape)} outside the channel axis")
        if self.weight is not None and self.weight.shape[0] != c:
            raise ValueError(f"For '{who}', 'weight' must hold one value per class ({c}), got {self.weight.shape[0]}")
        x = ops.reshape(logits, (n, c, -1))                                     # (N, C, L)
        y = ops.reshape(labels, (n, labels.shape[1], -1))                       # (N, 1 or C, L)
        logp = ops.log_softmax(x, 1)
        if index_labels:
            idx = ops.cast(y, int32)
            idx = ops.where(ops.less(idx, 0), ops.add(idx, c), idx)           # labels in [-C, C)
            logp = ops.squeeze(ops.gather_elements(logp, 1, idx), 1)          # (N, L)
        prob = ops.exp(logp)
        if self.weight is not None:
            w = ops.reshape(ops.cast(self.weight, logits.dtype), (1, c, 1))
            if index_labels:
                w = ops.squeeze(ops.gather_elements(ops.tile(w, (n, 1, x.shape[2])), 1, idx), 1)
            logp = ops.mul(logp, w)
        modulating = ops.pow(ops.sub(1.0, prob), self.gamma)
        if index_labels:
            loss = ops.reduce_mean(ops.neg(ops.mul(modulating, logp)), 1)
        else:
            y = ops.cast(y, logits.dtype)
            loss = ops.reduce_mean(ops.neg(ops.mul(ops.mul(modulating, y), logp)), -1)
        return self.get_loss(loss)


def _check_smooth(smooth, who):
    F.check_number(smooth, "smooth", who, (float,))
    if smooth <= 0:
        raise ValueError(f"For '{who}', 'smooth' must be > 0, got {smooth!r}")
    return smooth


class DiceLoss(LossBase):
    """``nn.DiceLoss(smooth=1e-5)(logits, labels)``: ``1 - 2 sum(x y) / (sum(x**2) + sum(y**2) +
    smooth)`` over all elements (a scalar)."""

    def __init__(self, smooth=1e-5):
        super().__init__()
        self.smooth = _check_smooth(smooth, "DiceLoss")

    def construct(self, logits, labels):
        _tensors("DiceLoss", logits=logits, labels=labels)
        _same_shape("DiceLoss", logits, labels)
        for name, t in (("logits", logits), ("labels", labels)):
            if str(t.dtype).lower() == "uint8":
                raise TypeError(f"For 'DiceLoss', the dtype of '{name}' can not be uint8")
        return _dice(logits, ops.cast(labels, logits.dtype), self.smooth)


def _dice(x, y, smooth):
    intersection = ops.reduce_sum(ops.mul(x, y))
    union = ops.add(ops.reduce_sum(ops.mul(x, x)), ops.reduce_sum(ops.mul(y, y)))
    return ops.sub(1.0, ops.div(ops.mul(intersection, 2.0), ops.add(union, smooth)))


class MultiClassDiceLoss(LossBase):
    """``nn.MultiClassDiceLoss(weights=None, ignore_indiex=None, activation='softmax')(logits,
    labels)`` (MindSpore's spelling ``ignore_indiex``): ``activation(logits)`` (a name from
    'softmax', 'logsoftmax', 'relu', 'relu6', 'tanh', 'sigmoid' -- softmax over the last axis, as
    ``nn.Softmax()`` -- a Cell, or None), then the mean over the C classes of axis 1 of the
    :class:`DiceLoss` of ``logits[:, i]`` and ``labels[:, i]``, times ``weights[i]`` when
    ``weights`` (a 2-D Tensor (C, dim)) is given, skipping class ``ignore_indiex``.
    """

    _ACTIVATIONS = ("softmax", "logsoftmax", "relu", "relu6", "tanh", "sigmoid")

    def __init__(self, weights=None, ignore_indiex=None, activation="softmax"):
        super().__init__()
        who = "MultiClassDiceLoss"
        if weights is not None:
            F.check_tensor(weights, "weights", who)
            if weights.ndim != 2:
                raise ValueError(f"For '{who}', the dimension of 'weights' must be 2, got {weights.ndim}")
        if ignore_indiex is not None:
            F.check_number(ignore_indiex, "ignore_indiex", who, (int,))
        if isinstance(activation, str):
            if activation not in self._ACTIVATIONS:
                raise ValueError(f"For '{who}', 'activation' must be in {list(self._ACTIVATIONS)}, got {activation!r}")
            from .layers.basic import get_activation
            activation = get_activation(activation)
        elif activation is not None and not isinstance(activation, Cell):
            raise TypeError(f"For '{who}', 'activation' must be a str, a Cell or None, got {type(activation).__name__}")
        self.weights = weights
        self.ignore_indiex = ignore_indiex
        self.activation = activation
        self.smooth = 1e-5

    def construct(self, logits, labels):
        who = "MultiClassDiceLoss"
        _tensors(who, logits=logits, labels=labels)
        _same_shape(who, logits, labels)
        if logits.ndim < 2:
            raise ValueError(f"For '{who}', 'logits' and 'labels' must have rank >= 2 (N, C, ...), got {logits.ndim}")
        c = labels.shape[1]
        if self.weights is not None and self.weights.shape[0] != c:
            raise ValueError(f"For '{who}', weights.shape[0] ({self.weights.shape[0]}) must equal labels.shape[1] ({c})")
        if self.activation is not None:
            logits = self.activation(logits)
        labels = ops.cast(labels, logits.dtype)
        total = None
        for i in range(c):
            if i == self.ignore_indiex:
                continue
            dice = _dice(logits[:, i], labels[:, i], self.smooth)
            if self.weights is not None:
                dice = ops.mul(dice, ops.cast(self.weights[i], logits.dtype))
            total = dice if total is None else ops.add(total, dice)
        if total is None:  # every class ignored
            return ops.zeros((), logits.dtype)
        return ops.div(total, float(c))


class RMSELoss(LossBase):
    """``nn.RMSELoss()(logits, label)``: ``sqrt(mean((logits - label)**2))`` (shapes broadcast)."""

    def __init__(self):
        super().__init__()

    def construct(self, logits, label):
        _tensors("RMSELoss", logits=logits, labels=label)
        for t in (logits, label):
            if str(t.dtype).lower().startswith("uint"):
                raise TypeError(f"For 'RMSELoss', the inputs' dtype must not be unsigned, got {t.dtype}")
        return ops.sqrt(ops.reduce_mean(ops.square(ops.sub(logits, label))))


class MAELoss(LossBase):
    """``nn.MAELoss(reduction='mean')(logits, label)``: ``|logits - label|``, reduced."""

    def construct(self, logits, label):
        _tensors("MAELoss", logits=logits, labels=label)
        return self.get_loss(ops.abs(ops.sub(logits, label)))


class CosineEmbeddingLoss(LossBase):
    """``nn.CosineEmbeddingLoss(margin=0.0, reduction='mean')(logits_x1, logits_x2, labels)``:
    ``ops.cosine_embedding_loss``."""

    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__(reduction)
        F.check_number(margin, "margin", "CosineEmbeddingLoss", (float,))
        if not -1.0 <= margin <= 1.0:
            raise ValueError(f"For 'CosineEmbeddingLoss', 'margin' must be in [-1.0, 1.0], got {margin!r}")
        self.margin = margin

    def construct(self, logits_x1, logits_x2, labels):
        return F._cosine_embedding(logits_x1, logits_x2, labels, self.margin, self.reduction, "CosineEmbeddingLoss",
                                   ("logits_x1", "logits_x2", "labels"))


class MarginRankingLoss(LossBase):
    """``nn.MarginRankingLoss(margin=0.0, reduction='mean')(input1, input2, target)``:
    ``ops.margin_ranking_loss``."""

    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__(reduction)
        F.check_number(margin, "margin", "MarginRankingLoss", (float,))
        self.margin = margin

    def construct(self, input1, input2, target):
        return F.margin_ranking_loss(input1, input2, target, self.margin, self.reduction)


class TripletMarginLoss(LossBase):
    """``nn.TripletMarginLoss(p=2, swap=False, eps=1e-06, reduction='mean', margin=1.0)(x,
    positive, negative, margin=1.0)``: ``ops.triplet_margin_loss``; a constructor margin other
    than 1.0 takes precedence over the call's (as MindSpore's Cell does)."""

    def __init__(self, p=2, swap=False, eps=1e-06, reduction="mean", margin=1.0):
        super().__init__(reduction)
        who = "TripletMarginLoss"
        F.check_number(p, "p", who, (int,))
        F.check_bool(swap, "swap", who)
        F.check_number(eps, "eps", who, (float,))
        self.p, self.swap, self.eps, self.margin = p, swap, eps, margin

    def construct(self, x, positive, negative, margin=1.0):
        if F._is_tensor(self.margin) or self.margin != 1.0:
            margin = self.margin
        return F.triplet_margin_loss(x, positive, negative, margin=margin, p=self.p, eps=self.eps,
                                     swap=self.swap, reduction=self.reduction)


class SoftMarginLoss(LossBase):
    """``nn.SoftMarginLoss(reduction='mean')(logits, labels)``: ``log(1 + exp(-labels * logits))``,
    reduced -- ``ops.soft_margin_loss``."""

    def construct(self, logits, labels):
        _tensors("SoftMarginLoss", logits=logits, labels=labels)
        _same_shape("SoftMarginLoss", logits, labels)
        return ops.soft_margin_loss(logits, ops.cast(labels, logits.dtype), self.reduction)


class HingeEmbeddingLoss(LossBase):
    """``nn.HingeEmbeddingLoss(margin=1.0, reduction='mean')(logits, labels)``:
    ``ops.hinge_embedding_loss``."""

    def __init__(self, margin=1.0, reduction="mean"):
        super().__init__(reduction)
        F.check_number(margin, "margin", "HingeEmbeddingLoss")
        self.margin = margin

    def construct(self, logits, labels):
        return F.hinge_embedding_loss(logits, labels, self.margin, self.reduction)


class PoissonNLLLoss(LossBase):
    """``nn.PoissonNLLLoss(log_input=True, full=False, eps=1e-08, reduction='mean')(input,
    target)``: ``exp(x) - y x`` (``log_input``) or ``x - y log(x + eps)``; with ``full`` plus
    Stirling's ``(y + 0.5) log y - y + 0.5 log(2 pi)`` where y > 1 (y clamped at eps first);
    reduced. Scalar inputs are refused, as in MindSpore."""

    def __init__(self, log_input=True, full=False, eps=1e-08, reduction="mean"):
        super().__init__(reduction)
        who = "PoissonNLLLoss"
        F.check_bool(log_input, "log_input", who)
        F.check_bool(full, "full", who)
        F.check_number(eps, "eps", who, (float,))
        if eps <= 0:
            raise ValueError(f"For '{who}', 'eps' must be > 0, got {eps!r}")
        self.log_input, self.full, self.eps = log_input, full, eps

    def construct(self, input, target):  # noqa: A002
        who = "PoissonNLLLoss"
        _tensors(who, input=input, target=target)
        if input.ndim == 0 or target.ndim == 0:
            raise ValueError(f"For '{who}', the inputs must be non-scalar, got shapes input: {tuple(input.shape)}, "
                             f"target: {tuple(target.shape)}")
        target = ops.cast(target, input.dtype)
        if self.log_input:
            loss = ops.sub(ops.exp(input), ops.mul(target, input))
        else:
            loss = ops.sub(input, ops.mul(target, ops.log(ops.add(input, self.eps))))
        if self.full:
            y = ops.maximum(target, self.eps)
            stirling = ops.add(ops.sub(ops.mul(ops.add(y, 0.5), ops.log(y)), y), 0.5 * math.log(2 * math.pi))
            loss = ops.add(loss, ops.where(ops.greater(y, 1.0), stirling, ops.zeros_like(stirling)))
        return self.get_loss(loss)


class GaussianNLLLoss(LossBase):
    """``nn.GaussianNLLLoss(*, full=False, eps=1e-06, reduction='mean')(logits, labels, var)``:
    ``ops.gaussian_nll_loss``."""

    def __init__(self, *, full=False, eps=1e-06, reduction="mean"):
        super().__init__(reduction)
        who = "GaussianNLLLoss"
        F.check_number(eps, "eps", who, (float,))
        if not 0.0 < eps < math.inf:
            raise ValueError(f"For '{who}', 'eps' must be a float in (0, inf), got {eps!r}")
        F.check_bool(full, "full", who)
        self.full, self.eps = full, eps

    def construct(self, logits, labels, var):
        return F.gaussian_nll_loss(logits, labels, var, self.full, self.eps, self.reduction)


class MultiLabelSoftMarginLoss(LossBase):
    """``nn.MultiLabelSoftMarginLoss(weight=None, reduction='mean')(x, target)``:
    ``ops.multilabel_soft_margin_loss``."""

    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        if weight is not None and (isinstance(weight, bool) or not (isinstance(weight, (int, float))
                                                                    or F._is_tensor(weight))):
            raise TypeError(f"For 'MultiLabelSoftMarginLoss', 'weight' must be a Tensor, an int, a float or None, "
                            f"got {type(weight).__name__}")
        self.weight = weight

    def construct(self, x, target):
        return F.multilabel_soft_margin_loss(x, target, self.weight, self.reduction)


class MultiMarginLoss(LossBase):
    """``nn.MultiMarginLoss(p=1, margin=1.0, reduction='mean', weight=None)(x, target,
    weight=None)``: ``ops.multi_margin_loss``; the constructor's ``weight`` takes precedence over
    the call's (as MindSpore's Cell does)."""

    def __init__(self, p=1, margin=1.0, reduction="mean", weight=None):
        super().__init__(reduction)
        who = "MultiMarginLoss"
        F.check_number(p, "p", who, (int,))
        if p not in (1, 2):
            raise ValueError(f"For '{who}', 'p' must be 1 or 2, got {p}")
        F.check_number(margin, "margin", who, (float,))
        if weight is not None:
            F.check_tensor(weight, "weight", who)
        self.p, self.margin, self.weight = p, margin, weight

    def construct(self, x, target, weight=None):
        if self.weight is not None:
            weight = self.weight
        return F.multi_margin_loss(x, target, self.p, self.margin, weight, self.reduction)


class MultilabelMarginLoss(LossBase):
    """``nn.MultilabelMarginLoss(reduction='mean')(x, target)``: ``ops.multilabel_margin_loss``."""

    def construct(self, x, target):
        return F.multilabel_margin_loss(x, target, self.reduction)
