"""MindSpore 2.x functional losses beyond ``nn_func``'s (``mindspore.ops.function.nn_func``):
``huber_loss``, ``cosine_embedding_loss``, ``margin_ranking_loss``, ``triplet_margin_loss``, ``hinge_embedding_loss``,
``gaussian_nll_loss``, ``multilabel_soft_margin_loss``, ``multi_margin_loss``,
``multilabel_margin_loss``, plus the ``MultilabelMarginLoss`` Primitive.

Each is composed of registry ops (``bind(REGISTRY[...])``), so gradients come from the registry's
VJP rules and the same code is captured by ``jit``/GRAPH_MODE/the frame hook. The ``nn`` loss Cells
of ``runtime/nn/loss_more.py`` call these, so a Cell and its functional spelling cannot disagree.
Arguments are checked as MindSpore checks them: TypeError for a wrong type, ValueError for a bad
value or shape, each naming the function and the value.

Example:
    >>> from runtime import ops, Tensor
    >>> float(ops.huber_loss(Tensor([1.0, 2.0, 3.0]), Tensor([1.0, 2.0, 2.0])))
    0.1666666716337204
"""
from __future__ import annotations

import math

import numpy as np

from graph.dtypes import int32
from graph.ops import REGISTRY, bind

from .composite import CompositePrimitive

_R = REGISTRY

__all__ = ["huber_loss", "cosine_embedding_loss", "margin_ranking_loss", "triplet_margin_loss", "hinge_embedding_loss",
           "gaussian_nll_loss", "multilabel_soft_margin_loss", "multi_margin_loss", "multilabel_margin_loss",
           "MultilabelMarginLoss"]

_REDUCTIONS = ("none", "mean", "sum")


# -- argument checks (shared with the nn loss Cells) --------------------------------------------------
def check_reduction(reduction, who):
    """``reduction`` if it is 'none', 'mean' or 'sum'; else ValueError naming ``who``."""
    if not isinstance(reduction, str):
        raise TypeError(f"For '{who}', 'reduction' must be a str, got {type(reduction).__name__}")
    if reduction not in _REDUCTIONS:
        raise ValueError(f"For '{who}', 'reduction' must be one of {list(_REDUCTIONS)}, got {reduction!r}")
    return reduction


def check_tensor(value, name, who):
    from ..tensor import Tensor
    from graph.ops.core import is_tensorlike
    if not (isinstance(value, Tensor) or is_tensorlike(value)):
        raise TypeError(f"For '{who}', '{name}' must be a Tensor, got {type(value).__name__}")
    return value


def check_number(value, name, who, kinds=(int, float)):
    """A Python number of one of ``kinds`` (bools refused)."""
    if isinstance(value, bool) or not isinstance(value, kinds):
        want = " or ".join(k.__name__ for k in kinds)
        raise TypeError(f"For '{who}', '{name}' must be {want}, got {type(value).__name__} {value!r}")
    return value


def check_bool(value, name, who):
    if not isinstance(value, bool):
        raise TypeError(f"For '{who}', '{name}' must be a bool, got {type(value).__name__} {value!r}")
    return value


def _broadcast_shape(shapes, names, who):
    try:
        return tuple(np.broadcast_shapes(*[tuple(s) for s in shapes]))
    except ValueError:
        desc = ", ".join(f"'{n}' {tuple(s)}" for n, s in zip(names, shapes))
        raise ValueError(f"For '{who}', the shapes of {desc} cannot be broadcast together") from None


def reduce_loss(loss, reduction):
    """The unreduced ``loss`` itself ('none'), its mean or its sum over every element."""
    if reduction == "none":
        return loss
    return bind(_R["reduce_mean" if reduction == "mean" else "reduce_sum"], loss, axis=None)


def _as_float(t, like):
    """``t`` cast to ``like``'s dtype (integer labels/targets/weights meet float inputs)."""
    return t if t.dtype == like.dtype else bind(_R["cast"], t, dtype=like.dtype)


# -- element-wise losses --------------------------------------------------------------------------------
def huber_loss(input, target, reduction="mean", delta=1.0):  # noqa: A002
    """``ops.huber_loss(input, target, reduction='mean', delta=1.0)``: with d = input - target,
    ``0.5 d**2`` where ``|d| < delta``, else ``delta (|d| - 0.5 delta)``; reduced. Shapes broadcast.

    Example:
        >>> from runtime import ops, Tensor
        >>> ops.huber_loss(Tensor([1.0, 2.0, 3.0]), Tensor([[1.0, 1, 1], [1, 2, 2]]), reduction="none")
        Tensor(shape=[2, 3], dtype=Float32, value=
        [[0. , 0.5, 1.5],
         [0. , 0. , 0.5]])
    """
    who = "huber_loss"
    check_tensor(input, "input", who)
    check_tensor(target, "target", who)
    check_reduction(reduction, who)
    check_number(delta, "delta", who)
    if delta <= 0:
        raise ValueError(f"For '{who}', 'delta' must be > 0, got {delta!r}")
    _broadcast_shape((input.shape, target.shape), ("input", "target"), who)
    delta = float(delta)
    d = bind(_R["abs"], bind(_R["sub"], input, _as_float(target, input)))
    quad = bind(_R["mul"], bind(_R["square"], d), 0.5)
    lin = bind(_R["mul"], bind(_R["sub"], d, 0.5 * delta), delta)
    return reduce_loss(bind(_R["where"], bind(_R["less"], d, delta), quad, lin), reduction)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """``ops.cosine_embedding_loss(input1, input2, target, margin=0.0, reduction='mean')``: with
    cos the cosine similarity of input1 and input2 along axis 1, ``1 - cos`` where the target is
    1, ``max(0, cos - margin)`` where it is -1 (0 for other targets); reduced. ``target`` has the
    inputs' shape without axis 1. As MindSpore, no epsilon guards a zero vector (its cosine is NaN).

    Example:
        >>> import numpy as np
        >>> from runtime import ops, Tensor
        >>> x1 = Tensor(np.array([[0.3, 0.8], [0.4, 0.3]], np.float32))
        >>> x2 = Tensor(np.array([[0.4, 1.2], [-0.4, -0.9]], np.float32))
        >>> print(ops.cosine_embedding_loss(x1, x2, Tensor(np.array([1, -1], np.int32))))
        0.0003425479
    """
    return _cosine_embedding(input1, input2, target, margin, reduction, "cosine_embedding_loss",
                             ("input1", "input2", "target"))


def _cosine_embedding(x1, x2, target, margin, reduction, who, names):
    for name, t in zip(names, (x1, x2, target)):
        check_tensor(t, name, who)
    check_number(margin, "margin", who, (float,))
    if not -1.0 <= margin <= 1.0:
        raise ValueError(f"For '{who}', 'margin' must be in [-1.0, 1.0], got {margin!r}")
    check_reduction(reduction, who)
    if tuple(x1.shape) != tuple(x2.shape):
        raise ValueError(f"For '{who}', '{names[0]}' and '{names[1]}' must have one shape, got "
                         f"{tuple(x1.shape)} and {tuple(x2.shape)}")
    if x1.dtype != x2.dtype:
        raise TypeError(f"For '{who}', '{names[0]}' and '{names[1]}' must have one dtype, got {x1.dtype} and {x2.dtype}")
    if x1.ndim < 2:
        raise ValueError(f"For '{who}', the inputs must have rank >= 2 (N, D, ...), got {x1.ndim}")
    want = tuple(x1.shape[:1]) + tuple(x1.shape[2:])
    if tuple(target.shape) != want:
        raise ValueError(f"For '{who}', '{names[2]}' must have shape {want} (the inputs' without axis 1), got "
                         f"{tuple(target.shape)}")
    prod = bind(_R["reduce_sum"], bind(_R["mul"], x1, x2), axis=1)
    norm1 = bind(_R["sqrt"], bind(_R["reduce_sum"], bind(_R["square"], x1), axis=1))
    norm2 = bind(_R["sqrt"], bind(_R["reduce_sum"], bind(_R["square"], x2), axis=1))
    cosine = bind(_R["div"], prod, bind(_R["mul"], norm1, norm2))
    zeros = bind(_R["zeros_like"], cosine)
    pos = bind(_R["where"], bind(_R["equal"], target, 1), bind(_R["sub"], 1.0, cosine), zeros)
    neg = bind(_R["where"], bind(_R["equal"], target, -1), bind(_R["relu"], bind(_R["sub"], cosine, float(margin))),
               zeros)
    return reduce_loss(bind(_R["add"], pos, neg), reduction)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """``ops.margin_ranking_loss(input1, input2, target, margin=0.0, reduction='mean')``:
    ``max(0, -target * (input1 - input2) + margin)``, target holding 1 or -1; reduced.

    Example:
        >>> from runtime import ops, Tensor
        >>> float(ops.margin_ranking_loss(Tensor([1.0, 2.0]), Tensor([2.0, 1.0]), Tensor([1.0, 1.0])))
        0.5
    """
    who = "margin_ranking_loss"
    for name, t in (("input1", input1), ("input2", input2), ("target", target)):
        check_tensor(t, name, who)
    check_number(margin, "margin", who, (float,))
    check_reduction(reduction, who)
    if tuple(input1.shape) != tuple(input2.shape) or tuple(input1.shape) != tuple(target.shape):
        raise ValueError(f"For '{who}', 'input1', 'input2' and 'target' must have one shape, got "
                         f"{tuple(input1.shape)}, {tuple(input2.shape)} and {tuple(target.shape)}")
    if input1.dtype != input2.dtype or input1.dtype != target.dtype:
        raise TypeError(f"For '{who}', 'input1', 'input2' and 'target' must have one dtype, got "
                        f"{input1.dtype}, {input2.dtype} and {target.dtype}")
    gap = bind(_R["mul"], bind(_R["neg"], target), bind(_R["sub"], input1, input2))
    return reduce_loss(bind(_R["relu"], bind(_R["add"], gap, float(margin))), reduction)


def _pairwise_distance(a, b, p, eps):
    """``||a - b + eps||_p`` over the last axis (PyTorch's ``pairwise_distance``, which MindSpore's
    TripletMarginLoss kernel follows)."""
    diff = bind(_R["abs"], bind(_R["add"], bind(_R["sub"], a, b), eps))
    return bind(_R["pow"], bind(_R["reduce_sum"], bind(_R["pow"], diff, float(p)), axis=-1), 1.0 / p)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False,
                        reduction="mean"):
    """``ops.triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06,
    swap=False, reduction='mean')``: ``max(d(a, p) - d(a, n) + margin, 0)`` per sample, d the
    p-norm distance over the last axis (``||x - y + eps||_p``); with ``swap`` the negative distance
    is the smaller of d(a, n) and d(p, n). ``margin`` is a float or a 0-d Tensor.

    Example:
        >>> import numpy as np
        >>> from runtime import ops, Tensor
        >>> a = Tensor(np.array([[0.3, 0.7], [0.5, 0.5]], np.float32))
        >>> pos = Tensor(np.array([[0.4, 0.6], [0.4, 0.6]], np.float32))
        >>> neg = Tensor(np.array([[0.2, 0.9], [0.3, 0.7]], np.float32))
        >>> round(float(ops.triplet_margin_loss(a, pos, neg)), 5)
        0.8882
    """
    who = "triplet_margin_loss"
    for name, t in (("anchor", anchor), ("positive", positive), ("negative", negative)):
        check_tensor(t, name, who)
    check_number(p, "p", who, (int,))
    if p < 1:
        raise ValueError(f"For '{who}', 'p' must be >= 1, got {p}")
    check_number(eps, "eps", who, (float,))
    check_bool(swap, "swap", who)
    check_reduction(reduction, who)
    from graph.ops.core import is_tensorlike
    if is_tensorlike(margin):
        if margin.ndim != 0:
            raise ValueError(f"For '{who}', 'margin' must be a 0-d Tensor or a float, got shape {tuple(margin.shape)}")
    else:
        check_number(margin, "margin", who)
        margin = float(margin)
    if anchor.ndim <= 1 and positive.ndim <= 1 and negative.ndim <= 1:
        raise ValueError(f"For '{who}', the inputs must not all be of rank <= 1 (a batch of vectors is expected), "
                         f"got ranks {anchor.ndim}, {positive.ndim} and {negative.ndim}")
    _broadcast_shape((anchor.shape, positive.shape, negative.shape), ("anchor", "positive", "negative"), who)
    d_pos = _pairwise_distance(anchor, positive, p, eps)
    d_neg = _pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = bind(_R["minimum"], d_neg, _pairwise_distance(positive, negative, p, eps))
    return reduce_loss(bind(_R["relu"], bind(_R["add"], bind(_R["sub"], d_pos, d_neg), margin)), reduction)


def hinge_embedding_loss(inputs, targets, margin=1.0, reduction="mean"):
    """``ops.hinge_embedding_loss(inputs, targets, margin=1.0, reduction='mean')``: ``x`` where
    the target is 1, ``max(0, margin - x)`` where it is -1 (and 0 for any other target, as
    MindSpore's kernel masks with ``targets > 0`` / ``targets < 0``); reduced. Shapes broadcast.

    Example:
        >>> from runtime import ops, Tensor
        >>> ops.hinge_embedding_loss(Tensor([0.3, 0.2]), Tensor([1.0, -1.0]), reduction="none")
        Tensor(shape=[2], dtype=Float32, value=[0.3, 0.8])
    """
    who = "hinge_embedding_loss"
    check_tensor(inputs, "inputs", who)
    check_tensor(targets, "targets", who)
    check_number(margin, "margin", who)
    check_reduction(reduction, who)
    _broadcast_shape((inputs.shape, targets.shape), ("inputs", "targets"), who)
    t = _as_float(targets, inputs)
    zero = bind(_R["zeros_like"], bind(_R["add"], inputs, t))  # the broadcast shape
    pos = bind(_R["where"], bind(_R["greater"], t, 0.0), bind(_R["add"], inputs, zero), zero)
    neg = bind(_R["where"], bind(_R["less"], t, 0.0),
               bind(_R["relu"], bind(_R["sub"], float(margin), bind(_R["add"], inputs, zero))), zero)
    return reduce_loss(bind(_R["add"], pos, neg), reduction)


def gaussian_nll_loss(x, target, var, full=False, eps=1e-06, reduction="mean"):
    """``ops.gaussian_nll_loss(x, target, var, full=False, eps=1e-06, reduction='mean')``:
    ``0.5 (log(max(var, eps)) + (x - target)**2 / max(var, eps))`` plus ``0.5 log(2 pi)`` with
    ``full``; reduced. ``var`` has x's shape, or x's with a last axis of 1, or x's without its
    last axis (a homoscedastic variance). The clamp at ``eps`` is ``maximum``, so a variance below
    eps gets no gradient (PyTorch clamps in place and passes the gradient through).

    Example:
        >>> import numpy as np
        >>> from runtime import ops, Tensor
        >>> x = Tensor(np.arange(8, dtype=np.float32).reshape(4, 2))
        >>> y = Tensor(np.array([2, 3, 1, 4, 6, 4, 4, 9], np.float32).reshape(4, 2))
        >>> round(float(ops.gaussian_nll_loss(x, y, ops.ones((4, 1)))), 5)
        1.4375
    """
    who = "gaussian_nll_loss"
    for name, t in (("x", x), ("target", target), ("var", var)):
        check_tensor(t, name, who)
    check_bool(full, "full", who)
    check_number(eps, "eps", who, (float,))
    if not 0.0 < eps < math.inf:
        raise ValueError(f"For '{who}', 'eps' must be a float in (0, inf), got {eps!r}")
    check_reduction(reduction, who)
    xs, vs = tuple(x.shape), tuple(var.shape)
    if vs != xs:
        if xs[:-1] == vs:
            var = bind(_R["expand_dims"], var, axis=-1)
        elif not (len(vs) == len(xs) and xs[:-1] == vs[:-1] and vs[-1] == 1):
            raise ValueError(f"For '{who}', 'var' of shape {vs} must have x's shape {xs}, x's shape with a last "
                             f"axis of 1, or x's shape without its last axis")
    _broadcast_shape((xs, target.shape), ("x", "target"), who)
    v = bind(_R["maximum"], _as_float(var, x), float(eps))
    err = bind(_R["div"], bind(_R["square"], bind(_R["sub"], x, _as_float(target, x))), v)
    loss = bind(_R["mul"], bind(_R["add"], bind(_R["log"], v), err), 0.5)
    if full:
        loss = bind(_R["add"], loss, 0.5 * math.log(2 * math.pi))
    return reduce_loss(loss, reduction)


# -- multi-class / multi-label losses -----------------------------------------------------------------
def multilabel_soft_margin_loss(input, target, weight=None, reduction="mean"):  # noqa: A002
    """``ops.multilabel_soft_margin_loss(input, target, weight=None, reduction='mean')``: per
    sample of (N, C) ``input``, ``-mean_c w_c (y log sigmoid(x) + (1 - y) log sigmoid(-x))``
    (log-sigmoid computed stably as ``-softplus(-x)``); reduced over the N samples.

    Example:
        >>> from runtime import ops, Tensor
        >>> x = Tensor([[0.3, 0.6, 0.6], [0.9, 0.4, 0.2]])
        >>> y = Tensor([[0.0, 0.0, 1.0], [0.0, 0.0, 1.0]])
        >>> round(float(ops.multilabel_soft_margin_loss(x, y)), 5)
        0.84694
    """
    who = "multilabel_soft_margin_loss"
    check_tensor(input, "input", who)
    check_tensor(target, "target", who)
    check_reduction(reduction, who)
    if input.ndim != 2:
        raise ValueError(f"For '{who}', 'input' must be 2-D (N, C), got shape {tuple(input.shape)}")
    _broadcast_shape((input.shape, target.shape), ("input", "target"), who)
    y = _as_float(target, input)
    log_sig = bind(_R["neg"], bind(_R["softplus"], bind(_R["neg"], input)))     # log sigmoid(x)
    log_sig_neg = bind(_R["neg"], bind(_R["softplus"], input))                   # log sigmoid(-x)
    per = bind(_R["add"], bind(_R["mul"], y, log_sig), bind(_R["mul"], bind(_R["sub"], 1.0, y), log_sig_neg))
    per = bind(_R["neg"], per)
    if weight is not None:
        if isinstance(weight, bool) or not (isinstance(weight, (int, float)) or _is_tensor(weight)):
            raise TypeError(f"For '{who}', 'weight' must be a Tensor, an int, a float or None, "
                            f"got {type(weight).__name__}")
        per = bind(_R["mul"], per, _as_float(weight, input) if _is_tensor(weight) else float(weight))
    loss = bind(_R["div"], bind(_R["reduce_sum"], per, axis=1), float(input.shape[1]))
    return reduce_loss(loss, reduction)


def _is_tensor(v):
    from graph.ops.core import is_tensorlike
    return is_tensorlike(v)


def multi_margin_loss(input, target, p=1, margin=1, weight=None, reduction="mean"):  # noqa: A002
    """``ops.multi_margin_loss(input, target, p=1, margin=1, weight=None, reduction='mean')``:
    multi-class hinge loss of (N, C) ``input`` and class indices ``target`` (N,): per sample
    ``sum_{i != y} (max(0, margin - x[y] + x[i]) ** p) * weight[y] / C``; reduced.

    Example:
        >>> import numpy as np
        >>> from runtime import ops, Tensor
        >>> x = Tensor(np.ones((3, 3), np.float32))
        >>> round(float(ops.multi_margin_loss(x, Tensor(np.array([1, 2, 1], np.int64)))), 5)
        0.66667
    """
    who = "multi_margin_loss"
    check_tensor(input, "input", who)
    check_tensor(target, "target", who)
    check_number(p, "p", who, (int,))
    if p not in (1, 2):
        raise ValueError(f"For '{who}', 'p' must be 1 or 2, got {p}")
    check_number(margin, "margin", who)
    check_reduction(reduction, who)
    if input.ndim != 2 or target.ndim != 1:
        raise ValueError(f"For '{who}', 'input' must be 2-D (N, C) and 'target' 1-D (N,), got shapes "
                         f"{tuple(input.shape)} and {tuple(target.shape)}")
    n, c = input.shape
    if target.shape[0] != n:
        raise ValueError(f"For '{who}', 'target' must hold one class per row of 'input' ({n}), got {target.shape[0]}")
    if target.dtype.is_float:
        raise TypeError(f"For '{who}', 'target' must hold integer class indices, got {target.dtype}")
    if weight is not None:
        check_tensor(weight, "weight", who)
        if weight.ndim != 1 or weight.shape[0] != c:
            raise ValueError(f"For '{who}', 'weight' must have shape ({c},), got {tuple(weight.shape)}")
    y = bind(_R["expand_dims"], bind(_R["cast"], target, dtype=int32), axis=1)            # (N, 1)
    x_y = bind(_R["gather_elements"], input, y, dim=1)                                   # (N, 1)
    hinge = bind(_R["relu"], bind(_R["add"], bind(_R["sub"], float(margin), x_y), input))
    if p == 2:
        hinge = bind(_R["square"], hinge)
    if weight is not None:
        hinge = bind(_R["mul"], hinge, bind(_R["gather"], _as_float(weight, input), y, axis=0))
    from ..tensor import Tensor
    others = bind(_R["not_equal"], Tensor(np.arange(c, dtype=np.int32)), y)               # i != y
    hinge = bind(_R["where"], others, hinge, bind(_R["zeros_like"], hinge))
    return reduce_loss(bind(_R["div"], bind(_R["reduce_sum"], hinge, axis=1), float(c)), reduction)


def _multilabel_margin(input, target, reduction, who):  # noqa: A002
    """(loss, is_target) of MultilabelMarginLoss; see :func:`multilabel_margin_loss`."""
    check_tensor(input, "input", who)
    check_tensor(target, "target", who)
    check_reduction(reduction, who)
    if input.ndim not in (1, 2) or tuple(input.shape) != tuple(target.shape):
        raise ValueError(f"For '{who}', 'input' must be (C,) or (N, C) and 'target' of the same shape, got "
                         f"{tuple(input.shape)} and {tuple(target.shape)}")
    if target.dtype.is_float:
        raise TypeError(f"For '{who}', 'target' must hold int32 class indices, got {target.dtype}")
    vector = input.ndim == 1
    x = bind(_R["expand_dims"], input, axis=0) if vector else input
    t = bind(_R["cast"], bind(_R["expand_dims"], target, axis=0) if vector else target, dtype=int32)
    c = x.shape[1]
    # only the targets before the first negative one count
    negative = bind(_R["cast"], bind(_R["less"], t, 0), dtype=int32)
    valid = bind(_R["equal"], bind(_R["cumsum"], negative, axis=1), 0)                   # (N, C) bool
    safe_t = bind(_R["where"], valid, t, bind(_R["zeros_like"], t))
    validf = bind(_R["cast"], valid, dtype=x.dtype)
    onehot = bind(_R["mul"], bind(_R["one_hot"], safe_t, depth=c, on_value=1.0, off_value=0.0, axis=-1),
                  bind(_R["expand_dims"], validf, axis=2))                              # (N, J, C)
    is_target = bind(_R["reduce_max"], onehot, axis=1)                                   # (N, C) in {0, 1}
    x_yj = bind(_R["gather_elements"], x, safe_t, dim=1)                                 # (N, J)
    hinge = bind(_R["relu"], bind(_R["add"], bind(_R["sub"], 1.0, bind(_R["expand_dims"], x_yj, axis=2)),
                                  bind(_R["expand_dims"], x, axis=1)))                   # (N, J, C)
    pairs = bind(_R["mul"], bind(_R["expand_dims"], validf, axis=2),
                 bind(_R["expand_dims"], bind(_R["sub"], 1.0, is_target), axis=1))       # j a target, i not
    loss = bind(_R["div"], bind(_R["reduce_sum"], bind(_R["mul"], hinge, pairs), axis=(1, 2)), float(c))
    if vector:
        loss = bind(_R["reshape"], loss, shape=())
        is_target = bind(_R["reshape"], is_target, shape=(c,))
    return reduce_loss(loss, reduction), bind(_R["cast"], is_target, dtype=int32)


def multilabel_margin_loss(input, target, reduction="mean"):  # noqa: A002
    """``ops.multilabel_margin_loss(input, target, reduction='mean')``: for (C,) or (N, C)
    ``input`` and int ``target`` of the same shape holding class indices padded with -1 (only
    those before the first -1 count), per sample
    ``sum_{j target} sum_{i not a target} max(0, 1 - (x[y_j] - x[i])) / C``; reduced.

    Example:
        >>> import numpy as np
        >>> from runtime import ops, Tensor
        >>> x = Tensor(np.array([[0.1, 0.2, 0.4, 0.8], [0.2, 0.3, 0.5, 0.7]], np.float32))
        >>> t = Tensor(np.array([[1, 2, 0, 3], [2, 3, -1, 1]], np.int32))
        >>> round(float(ops.multilabel_margin_loss(x, t)), 5)
        0.325
    """
    return _multilabel_margin(input, target, reduction, "multilabel_margin_loss")[0]


class MultilabelMarginLoss(CompositePrimitive):
    """``ops.MultilabelMarginLoss(reduction='mean')(x, target)``: ``(y, is_target)``, y the loss of
    :func:`multilabel_margin_loss` and ``is_target`` (int32, target's shape) 1 at every class that is
    one of the sample's targets."""

    def __init__(self, reduction="mean"):
        self.reduction = check_reduction(reduction, "MultilabelMarginLoss")

    def __call__(self, x, target):
        return _multilabel_margin(x, target, self.reduction, "MultilabelMarginLoss")
