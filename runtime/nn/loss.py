"""Loss cells (``mindspore.nn`` losses): LossBase, SoftmaxCrossEntropyWithLogits, MSELoss, L1Loss,
BCELoss, BCEWithLogitsLoss, NLLLoss, CrossEntropyLoss.

All are built from registered ops, so gradients come from the registry's VJP rules and the same
construct can be captured into a graph. ``reduction`` is 'mean', 'sum' or 'none'.

Example:
    >>> import runtime as ms
    >>> from runtime import nn
    >>> loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    >>> round(loss(ms.Tensor([[0.0, 0.0]]), ms.Tensor([1], ms.int32)).item(), 4)
    0.6931
"""
from __future__ import annotations

from .. import ops
from ..tensor import Tensor
from .cell import Cell

__all__ = ["LossBase", "SoftmaxCrossEntropyWithLogits", "MSELoss", "L1Loss", "SmoothL1Loss",
           "BCELoss", "BCEWithLogitsLoss", "NLLLoss", "CrossEntropyLoss"]

_REDUCTIONS = ("mean", "sum", "none")


def _check_reduction(cls_name, reduction):
    if not isinstance(reduction, str) or reduction.lower() not in _REDUCTIONS:
        raise ValueError(f"{cls_name}: reduction must be one of {list(_REDUCTIONS)}, got {reduction!r}")
    return reduction.lower()


class LossBase(Cell):
    """Base of losses: ``get_loss(x, weights=1.0)`` applies the weights and the reduction."""

    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = _check_reduction(type(self).__name__, reduction)
        self.reduce = self.reduction != "none"
        self.average = self.reduction == "mean"

    def get_axis(self, x):
        return tuple(range(x.ndim))

    def get_loss(self, x, weights=1.0):
        if not (isinstance(weights, (int, float)) and weights == 1.0):
            x = ops.mul(weights, x)
        if self.average:
            return ops.reduce_mean(x)
        if self.reduce:
            return ops.reduce_sum(x)
        return x

    def construct(self, logits, labels):
        raise NotImplementedError(f"{type(self).__name__} must implement construct()")


class SoftmaxCrossEntropyWithLogits(LossBase):
    """Cross entropy of ``softmax(logits)`` against ``labels`` per sample.

    ``sparse=True``: labels are class indices (N,); otherwise probabilities (N, C).
    MindSpore's default reduction here is 'none'.
    """

    def __init__(self, sparse=False, reduction="none"):
        super().__init__(reduction)
        if not isinstance(sparse, bool):
            raise TypeError(f"SoftmaxCrossEntropyWithLogits: sparse must be a bool, got {sparse!r}")
        self.sparse = sparse

    def construct(self, logits, labels):
        if self.sparse:
            x = ops.sparse_softmax_cross_entropy(logits, labels)
        else:
            x = ops.softmax_cross_entropy(logits, labels)[0]
        if self.average:
            return ops.reduce_mean(x)
        if self.reduce:
            return ops.reduce_sum(x)
        return x


class MSELoss(LossBase):
    """(logits - labels)**2, reduced."""

    def construct(self, logits, labels):
        return self.get_loss(ops.square(ops.sub(logits, labels)))


class L1Loss(LossBase):
    """|logits - labels|, reduced."""

    def construct(self, logits, labels):
        return self.get_loss(ops.abs(ops.sub(logits, labels)))


class SmoothL1Loss(LossBase):
    """0.5 d**2 / beta where |d| < beta, else |d| - 0.5 beta (MindSpore default reduction 'none')."""

    def __init__(self, beta=1.0, reduction="none"):
        super().__init__(reduction)
        if isinstance(beta, bool) or not isinstance(beta, (int, float)) or beta <= 0:
            raise ValueError(f"SmoothL1Loss: beta must be a float > 0, got {beta!r}")
        self.beta = float(beta)

    def construct(self, logits, labels):
        d = ops.abs(ops.sub(logits, labels))
        quad = ops.mul(ops.square(d), 0.5 / self.beta)
        lin = ops.sub(d, 0.5 * self.beta)
        return self.get_loss(ops.where(ops.less(d, self.beta), quad, lin))


def _check_weight(cls_name, weight, what="weight"):
    if weight is None:
        return None
    if not isinstance(weight, Tensor):
        raise TypeError(f"{cls_name}: {what} must be a Tensor or None, got {type(weight).__name__}")
    return weight


class BCELoss(LossBase):
    """Binary cross entropy on probabilities: -w (y log x + (1 - y) log(1 - x)).

    The logs are clamped at log(1e-12) (as MindSpore's kernel does) so x in {0, 1} stays finite.
    """

    _EPS = 1e-12

    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        self.weight = _check_weight("BCELoss", weight)

    def construct(self, logits, labels):
        eps = self._EPS
        log_x = ops.log(ops.maximum(logits, eps))
        log_1mx = ops.log(ops.maximum(ops.sub(1.0, logits), eps))
        x = ops.neg(ops.add(ops.mul(labels, log_x), ops.mul(ops.sub(1.0, labels), log_1mx)))
        if self.weight is not None:
            x = ops.mul(x, self.weight)
        return self.get_loss(x)


class BCEWithLogitsLoss(LossBase):
    """Binary cross entropy on logits, computed stably:
    ``max(x, 0) - x*y + log1p(exp(-|x|))``; with ``pos_weight`` p:
    ``(1 - y) x + (1 + (p - 1) y) (log1p(exp(-|x|)) + max(-x, 0))``; times ``weight``."""

    def __init__(self, reduction="mean", weight=None, pos_weight=None):
        super().__init__(reduction)
        self.weight = _check_weight("BCEWithLogitsLoss", weight)
        self.pos_weight = _check_weight("BCEWithLogitsLoss", pos_weight, "pos_weight")

    def construct(self, logits, labels):
        x, y = logits, labels
        soft = ops.log1p(ops.exp(ops.neg(ops.abs(x))))
        if self.pos_weight is None:
            loss = ops.add(ops.sub(ops.relu(x), ops.mul(x, y)), soft)
        else:
            lw = ops.add(ops.mul(ops.sub(self.pos_weight, 1.0), y), 1.0)
            loss = ops.add(ops.mul(ops.sub(1.0, y), x), ops.mul(lw, ops.add(soft, ops.relu(ops.neg(x)))))
        if self.weight is not None:
            loss = ops.mul(loss, self.weight)
        return self.get_loss(loss)


def _classes_last(cls_name, logits, target):
    """(N, C, d1, ...) logits -> (M, C) rows with the class axis last; target indices -> (M,)."""
    nd = logits.ndim
    if nd < 1:
        raise ValueError(f"{cls_name}: input must have rank >= 1, got a scalar")
    if nd == 1:
        return ops.reshape(logits, (1, logits.shape[0])), ops.reshape(target, (1,)), ()
    if nd == 2:
        return logits, target, None
    c = logits.shape[1]
    perm = (0,) + tuple(range(2, nd)) + (1,)
    rest = (logits.shape[0],) + tuple(logits.shape[2:])
    x = ops.reshape(ops.transpose(logits, perm), (-1, c))
    return x, ops.reshape(target, (-1,)), rest


def _nll_from_logp(cls_name, logp, target, weight, ignore_index, reduction, label_smoothing):
    """Class-index targets: PyTorch/MindSpore semantics of nll/cross-entropy (weights, ignore, smoothing)."""
    logp, t, rest = _classes_last(cls_name, logp, target)
    n, c = logp.shape
    if t.ndim != 1 or t.shape[0] != n:
        raise ValueError(f"{cls_name}: target shape {tuple(target.shape)} does not match the input: "
                         f"expected class indices of shape {(n,) if rest is None else rest}")
    valid = ops.not_equal(t, ignore_index)
    safe_t = ops.where(valid, t, ops.zeros_like(t))
    onehot = ops.one_hot(safe_t, c, 1.0, 0.0, -1, strict=True)  # strict: a bad class index is an error
    if onehot.dtype != logp.dtype:
        onehot = ops.cast(onehot, logp.dtype)
    maskf = ops.cast(valid, logp.dtype)
    neg_logp = ops.neg(logp)
    if weight is not None:
        w_t = ops.reduce_sum(ops.mul(onehot, weight), 1)           # weight[target]
        picked = ops.reduce_sum(ops.mul(ops.mul(onehot, neg_logp), weight), 1)
    else:
        w_t = None
        picked = ops.reduce_sum(ops.mul(onehot, neg_logp), 1)
    w_eff = maskf if w_t is None else ops.mul(w_t, maskf)         # per-row weight (0 if ignored)
    loss = ops.mul(picked, maskf)
    if label_smoothing > 0.0:
        smooth = ops.reduce_sum(neg_logp if weight is None else ops.mul(neg_logp, weight), 1)
        smooth = ops.mul(smooth, maskf)
        loss = ops.add(ops.mul(loss, 1.0 - label_smoothing), ops.mul(smooth, label_smoothing / c))
    if reduction == "mean":
        return ops.div(ops.reduce_sum(loss), ops.reduce_sum(w_eff))
    if reduction == "sum":
        return ops.reduce_sum(loss)
    if rest is None:
        return loss
    return ops.reshape(loss, rest)


class NLLLoss(LossBase):
    """Negative log likelihood on log-probabilities (N, C[, d...]) with class-index targets."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean"):
        super().__init__(reduction)
        self.weight = _check_weight("NLLLoss", weight)
        if isinstance(ignore_index, bool) or not isinstance(ignore_index, int):
            raise TypeError(f"NLLLoss: ignore_index must be an int, got {ignore_index!r}")
        self.ignore_index = ignore_index

    def construct(self, logits, labels):
        return _nll_from_logp("NLLLoss", logits, labels, self.weight, self.ignore_index, self.reduction, 0.0)


class CrossEntropyLoss(LossBase):
    """Cross entropy between logits (N, C[, d...]) and targets: class indices (N[, d...]) or class
    probabilities of the logits' shape. ``weight`` (C,) rescales classes, ``ignore_index`` targets
    contribute nothing (index targets only), ``label_smoothing`` mixes the target with the uniform
    distribution. 'mean' divides by the summed weights of the non-ignored targets (index
    targets) or by the number of samples (probability targets), as in PyTorch/MindSpore.
    """

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        super().__init__(reduction)
        self.weight = _check_weight("CrossEntropyLoss", weight)
        if isinstance(ignore_index, bool) or not isinstance(ignore_index, int):
            raise TypeError(f"CrossEntropyLoss: ignore_index must be an int, got {ignore_index!r}")
        if isinstance(label_smoothing, bool) or not isinstance(label_smoothing, (int, float)) \
                or not 0.0 <= label_smoothing <= 1.0:
            raise ValueError(f"CrossEntropyLoss: label_smoothing must be a float in [0, 1], got {label_smoothing!r}")
        self.ignore_index = ignore_index
        self.label_smoothing = float(label_smoothing)

    def construct(self, logits, labels):
        class_axis = 1 if logits.ndim >= 2 else 0
        logp = ops.log_softmax(logits, class_axis)
        if labels.dtype.is_float:
            return self._prob_target(logp, labels, class_axis)
        return _nll_from_logp("CrossEntropyLoss", logp, labels, self.weight, self.ignore_index,
                              self.reduction, self.label_smoothing)

    def _prob_target(self, logp, target, class_axis):
        if tuple(target.shape) != tuple(logp.shape):
            raise ValueError(f"CrossEntropyLoss: probability targets must have the input's shape "
                             f"{tuple(logp.shape)}, got {tuple(target.shape)}")
        c = logp.shape[class_axis]
        if self.label_smoothing > 0.0:
            target = ops.add(ops.mul(target, 1.0 - self.label_smoothing), self.label_smoothing / c)
        prod = ops.mul(logp, target)
        if self.weight is not None:
            wshape = tuple(c if i == class_axis else 1 for i in range(logp.ndim))
            prod = ops.mul(prod, ops.reshape(self.weight, wshape))
        loss = ops.neg(ops.reduce_sum(prod, class_axis))
        if self.reduction == "mean":
            n = 1
            for i, s in enumerate(logp.shape):
                if i != class_axis:
                    n *= s
            return ops.div(ops.reduce_sum(loss), float(max(n, 1)))
        if self.reduction == "sum":
            return ops.reduce_sum(loss)
        return loss



def __getattr__(name):
    """``mindspore.nn.loss`` exports every loss Cell (``from mindspore.nn.loss import HuberLoss``):
    the ones defined in ``loss_more.py`` are looked up there (lazily: loss_more imports LossBase
    from here)."""
    from . import loss_more
    if name in loss_more.__all__:
        return getattr(loss_more, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
