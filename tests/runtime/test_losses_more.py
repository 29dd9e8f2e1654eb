"""The nn loss Cells of ``runtime/nn/loss_more.py`` and the functional losses of
``runtime/ops/loss_func.py`` against numpy oracles written from MindSpore 2.x's documented formulas
(several shapes, reductions, weights and margins), their gradients against central differences,
the API reference's printed examples, one result in every execution mode, and MindSpore's argument
errors."""
import math

import numpy as np
import pytest

import runtime as ms
from gradcheck import check_grad
from modes import HOOK_MODES, run_cell
from runtime import Tensor, nn, ops

REDUCTIONS = ["none", "mean", "sum"]


def _reduce(loss, reduction):
    return {"none": lambda v: v, "mean": np.mean, "sum": np.sum}[reduction](loss)


def _close(got, want, rtol=1e-5, atol=1e-6):
    got = got.asnumpy() if hasattr(got, "asnumpy") else np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, f"shape {got.shape} != {want.shape}"
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def _t(a, dtype=np.float32):
    return Tensor(np.asarray(a, dtype))


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _log_softmax(x, axis):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


# -- numpy oracles, one per documented formula ---------------------------------------------------------
def np_huber(x, y, delta):
    d = np.abs(x - y)
    return np.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))


def np_margin_ranking(x1, x2, t, margin):
    return np.maximum(0.0, -t * (x1 - x2) + margin)


def np_triplet(a, p, n, margin, norm, eps, swap):
    def dist(u, v):
        return (np.abs(u - v + eps) ** norm).sum(-1) ** (1.0 / norm)
    d_neg = dist(a, n)
    if swap:
        d_neg = np.minimum(d_neg, dist(p, n))
    return np.maximum(dist(a, p) - d_neg + margin, 0.0)


def np_hinge(x, y, margin):
    return np.where(y == 1, x, np.where(y == -1, np.maximum(0.0, margin - x), 0.0))


def np_gaussian(x, y, var, full, eps):
    if var.shape != x.shape and var.shape == x.shape[:-1]:
        var = var[..., None]
    v = np.maximum(var, eps)
    loss = 0.5 * (np.log(v) + (x - y) ** 2 / v)
    return loss + (0.5 * math.log(2 * math.pi) if full else 0.0)


def np_multilabel_soft_margin(x, y, w):
    per = -(y * np.log(_sigmoid(x)) + (1 - y) * np.log(1 - _sigmoid(x)))
    if w is not None:
        per = per * w
    return per.mean(axis=1)


def np_multi_margin(x, y, p, margin, w):
    n, c = x.shape
    out = np.zeros(n)
    for i in range(n):
        for j in range(c):
            if j != y[i]:
                term = max(0.0, margin - x[i, y[i]] + x[i, j]) ** p
                out[i] += term * (1.0 if w is None else w[y[i]])
    return out / c


def np_multilabel_margin(x, y):
    rows_x, rows_y = (x[None], y[None]) if x.ndim == 1 else (x, y)
    out = []
    for xr, yr in zip(rows_x, rows_y):
        targets = []
        for v in yr:
            if v < 0:
                break
            targets.append(int(v))
        others = [i for i in range(len(xr)) if i not in targets]
        out.append(sum(max(0.0, 1.0 - (xr[j] - xr[i])) for j in targets for i in others) / len(xr))
    out = np.array(out)
    return out[0] if x.ndim == 1 else out


def np_kl(x, y):
    return np.where(y > 0, y * (np.log(np.where(y > 0, y, 1.0)) - x), 0.0)


def np_focal(logits, labels, weight, gamma):
    """Per sample, position by position from the formula -(1 - p_t)^gamma * w * log p_t."""
    n, c = logits.shape[:2]
    x = logits.reshape(n, c, -1)
    y = labels.reshape(n, labels.shape[1], -1)
    logp = _log_softmax(x, 1)
    w = np.ones(c) if weight is None else weight
    if labels.shape[1] == 1:
        out = np.zeros(n)
        for i in range(n):
            for pos in range(x.shape[2]):
                k = int(y[i, 0, pos]) % c
                out[i] += -(1 - np.exp(logp[i, k, pos])) ** gamma * w[k] * logp[i, k, pos]
        return out / x.shape[2]
    out = -(1 - np.exp(logp)) ** gamma * y * w[None, :, None] * logp
    return out.mean(axis=-1)


def np_dice(x, y, smooth):
    return 1 - 2 * (x * y).sum() / ((x * x).sum() + (y * y).sum() + smooth)


def np_cosine_embedding(x1, x2, y, margin):
    cos = (x1 * x2).sum(1) / (np.sqrt((x1 * x1).sum(1)) * np.sqrt((x2 * x2).sum(1)))
    return np.where(y == 1, 1 - cos, np.where(y == -1, np.maximum(0.0, cos - margin), 0.0))


def np_poisson(x, y, log_input, full, eps):
    loss = np.exp(x) - y * x if log_input else x - y * np.log(x + eps)
    if full:
        yc = np.maximum(y, eps)
        stirling = yc * np.log(yc) - yc + 0.5 * np.log(2 * np.pi * yc)
        loss = loss + np.where(yc > 1, stirling, 0.0)
    return loss


# -- forward values against the oracles --------------------------------------------------------------------
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shapes,delta", [(((5,), (5,)), 1.0), (((3, 4), (3, 4)), 0.5), (((4,), (2, 3, 4)), 2)])
def test_huber(rng, reduction, shapes, delta):
    x, y = rng.normal(0, 1.5, shapes[0]), rng.normal(0, 1.5, shapes[1])
    want = _reduce(np_huber(x, y, delta), reduction)
    _close(nn.HuberLoss(reduction, delta)(_t(x), _t(y)), want)
    _close(ops.huber_loss(_t(x), _t(y), reduction, delta), want)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("margin", [0.0, 0.3])
def test_margin_ranking(rng, reduction, margin):
    x1, x2 = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    t = np.sign(rng.normal(size=(4, 3)))
    want = _reduce(np_margin_ranking(x1, x2, t, margin), reduction)
    _close(nn.MarginRankingLoss(margin, reduction)(_t(x1), _t(x2), _t(t)), want)
    _close(ops.margin_ranking_loss(_t(x1), _t(x2), _t(t), margin, reduction), want)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("p,swap,margin", [(2, False, 1.0), (1, True, 0.5), (3, False, 2.0)])
def test_triplet(rng, reduction, p, swap, margin):
    a, pos, neg = (rng.normal(size=(5, 4)) for _ in range(3))
    want = _reduce(np_triplet(a, pos, neg, margin, p, 1e-6, swap), reduction)
    _close(ops.triplet_margin_loss(_t(a), _t(pos), _t(neg), margin, p, 1e-6, swap, reduction), want)
    cell = nn.TripletMarginLoss(p=p, swap=swap, reduction=reduction)
    _close(cell(_t(a), _t(pos), _t(neg), margin), want)
    # a constructor margin other than 1.0 wins over the call's (MindSpore's Cell); 1.0 defers to the call
    fixed = nn.TripletMarginLoss(p=p, swap=swap, reduction=reduction, margin=margin)
    want_fixed = want if margin != 1.0 else _reduce(np_triplet(a, pos, neg, 7.0, p, 1e-6, swap), reduction)
    _close(fixed(_t(a), _t(pos), _t(neg), 7.0), want_fixed)
    _close(ops.triplet_margin_loss(_t(a), _t(pos), _t(neg), Tensor(np.float32(margin)), p, 1e-6, swap, reduction),
           want)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("margin", [1.0, 2, 0.25])
def test_hinge_embedding(rng, reduction, margin):
    x = rng.normal(size=(3, 5))
    y = rng.choice([-1.0, 1.0], size=(3, 5))
    want = _reduce(np_hinge(x, y, margin), reduction)
    _close(nn.HingeEmbeddingLoss(margin, reduction)(_t(x), _t(y)), want)
    _close(ops.hinge_embedding_loss(_t(x), _t(y), margin, reduction), want)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("full", [False, True])
@pytest.mark.parametrize("var_shape", [(4, 3), (4, 1), (4,)])
def test_gaussian_nll(rng, reduction, full, var_shape):
    x, y = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    var = rng.uniform(0.2, 2.0, var_shape)
    var.flat[0] = 1e-9  # below eps: clamped
    want = _reduce(np_gaussian(x, y, var, full, 1e-6), reduction)
    _close(nn.GaussianNLLLoss(full=full, reduction=reduction)(_t(x), _t(y), _t(var)), want, rtol=1e-4)
    _close(ops.gaussian_nll_loss(_t(x), _t(y), _t(var), full, 1e-6, reduction), want, rtol=1e-4)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weight", [None, "tensor", 2.0])
def test_multilabel_soft_margin(rng, reduction, weight):
    x = rng.normal(size=(4, 5))
    y = (rng.uniform(size=(4, 5)) > 0.5).astype(np.float64)
    w_np = rng.uniform(0.5, 2.0, 5) if weight == "tensor" else weight
    w_ms = _t(w_np) if weight == "tensor" else weight
    want = _reduce(np_multilabel_soft_margin(x, y, w_np), reduction)
    _close(nn.MultiLabelSoftMarginLoss(w_ms, reduction)(_t(x), _t(y)), want)
    _close(ops.multilabel_soft_margin_loss(_t(x), _t(y), w_ms, reduction), want)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("p,margin,weighted", [(1, 1.0, False), (2, 0.5, True), (1, 2.0, True)])
def test_multi_margin(rng, reduction, p, margin, weighted):
    x = rng.normal(size=(5, 4))
    y = rng.integers(0, 4, 5)
    w = rng.uniform(0.5, 2.0, 4) if weighted else None
    want = _reduce(np_multi_margin(x, y, p, margin, w), reduction)
    w_ms = _t(w) if weighted else None
    _close(ops.multi_margin_loss(_t(x), Tensor(y.astype(np.int64)), p, margin, w_ms, reduction), want)
    _close(nn.MultiMarginLoss(p, margin, reduction)(_t(x), Tensor(y.astype(np.int64)), w_ms), want)
    _close(nn.MultiMarginLoss(p, margin, reduction, weight=w_ms)(_t(x), Tensor(y.astype(np.int64))), want)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multilabel_margin(rng, reduction):
    x = rng.normal(size=(4, 5))
    y = np.array([[3, 0, -1, 1, 2], [1, 2, 3, 4, 0], [-1, 2, 3, 0, 0], [4, -1, -1, -1, -1]], np.int32)
    want = _reduce(np_multilabel_margin(x, y), reduction)
    _close(nn.MultilabelMarginLoss(reduction)(_t(x), Tensor(y)), want)
    _close(ops.multilabel_margin_loss(_t(x), Tensor(y), reduction), want)
    loss, is_target = ops.MultilabelMarginLoss(reduction)(_t(x), Tensor(y))
    _close(loss, want)
    want_mask = np.zeros((4, 5), np.int32)
    for i, row in enumerate(y):
        for v in row:
            if v < 0:
                break
            want_mask[i, v] = 1
    np.testing.assert_array_equal(is_target.asnumpy(), want_mask)
    assert is_target.dtype == ms.int32
    # a single sample (C,)
    _close(ops.multilabel_margin_loss(_t(x[0]), Tensor(y[0]), reduction),
           _reduce(np.array(np_multilabel_margin(x[0], y[0])), reduction))


@pytest.mark.parametrize("reduction", ["none", "mean", "sum", "batchmean"])
def test_kl_div(rng, reduction):
    x = _log_softmax(rng.normal(size=(3, 4)), 1)
    y = np.exp(_log_softmax(rng.normal(size=(3, 4)), 1))
    y[0, 1] = 0.0
    pointwise = np_kl(x, y)
    want = pointwise.sum() / 3 if reduction == "batchmean" else _reduce(pointwise, reduction)
    _close(nn.KLDivLoss(reduction)(_t(x), _t(y)), want)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5), (2, 4, 2, 3)])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("gamma", [2.0, 0.5])
def test_focal_index_labels(rng, reduction, shape, weighted, gamma):
    logits = rng.normal(size=shape)
    c = shape[1]
    labels = rng.integers(-c, c, (shape[0], 1) + shape[2:])  # [-C, C): negative wraps
    w = rng.uniform(0.5, 2.0, c) if weighted else None
    want = _reduce(np_focal(logits, labels, w, gamma), reduction)
    got = nn.FocalLoss(_t(w) if weighted else None, gamma, reduction)(_t(logits), Tensor(labels.astype(np.int32)))
    _close(got, want)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 4)])
def test_focal_class_labels(rng, reduction, shape):
    logits = rng.normal(size=shape)
    labels = rng.uniform(size=shape)
    w = rng.uniform(0.5, 2.0, shape[1])
    want = _reduce(np_focal(logits, labels, w, 2.0), reduction)
    _close(nn.FocalLoss(_t(w), 2.0, reduction)(_t(logits), _t(labels)), want)


@pytest.mark.parametrize("shape", [(3, 2), (2, 3, 4)])
@pytest.mark.parametrize("smooth", [1e-5, 0.5])
def test_dice(rng, shape, smooth):
    x, y = rng.uniform(size=shape), (rng.uniform(size=shape) > 0.5).astype(np.float64)
    _close(nn.DiceLoss(smooth)(_t(x), _t(y)), np_dice(x, y, smooth))


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 5)])
@pytest.mark.parametrize("weighted,ignore", [(False, None), (True, None), (False, 1)])
def test_multiclass_dice(rng, shape, weighted, ignore):
    x = rng.normal(size=shape)
    y = (rng.uniform(size=shape) > 0.5).astype(np.float64)
    c = shape[1]
    w = rng.uniform(0.5, 2.0, (c, 2)) if weighted else None
    act = np.exp(_log_softmax(x, -1))  # nn.Softmax(): the last axis
    total = 0.0
    for i in range(c):
        if i == ignore:
            continue
        d = np_dice(act[:, i], y[:, i], 1e-5)
        total = total + (d * w[i] if weighted else d)
    got = nn.MultiClassDiceLoss(_t(w) if weighted else None, ignore, "softmax")(_t(x), _t(y))
    _close(got, np.asarray(total) / c)
    # another activation, and none
    _close(nn.MultiClassDiceLoss(activation="sigmoid")(_t(x), _t(y)),
           sum(np_dice(_sigmoid(x)[:, i], y[:, i], 1e-5) for i in range(c)) / c)
    _close(nn.MultiClassDiceLoss(activation=None)(_t(x), _t(y)),
           sum(np_dice(x[:, i], y[:, i], 1e-5) for i in range(c)) / c, rtol=1e-4)


@pytest.mark.parametrize("shapes", [((5,), (5,)), ((3,), (2, 3)), ((2, 3, 4), (2, 3, 4))])
def test_rmse_and_mae(rng, shapes):
    x, y = rng.normal(size=shapes[0]), rng.normal(size=shapes[1])
    _close(nn.RMSELoss()(_t(x), _t(y)), np.sqrt(np.mean((x - y) ** 2)))
    for reduction in REDUCTIONS:
        _close(nn.MAELoss(reduction)(_t(x), _t(y)), _reduce(np.abs(x - y), reduction))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape,margin", [((4, 3), 0.0), ((3, 4, 2), 0.2), ((5, 2), -0.5)])
def test_cosine_embedding(rng, reduction, shape, margin):
    x1, x2 = rng.normal(size=shape), rng.normal(size=shape)
    y = rng.choice([-1, 1], size=(shape[0],) + shape[2:])
    want = _reduce(np_cosine_embedding(x1, x2, y, margin), reduction)
    _close(nn.CosineEmbeddingLoss(margin, reduction)(_t(x1), _t(x2), Tensor(y.astype(np.int32))), want)
    _close(ops.cosine_embedding_loss(_t(x1), _t(x2), Tensor(y.astype(np.int32)), margin, reduction), want)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_soft_margin(rng, reduction):
    x = rng.normal(size=(3, 4))
    y = rng.choice([-1.0, 1.0], size=(3, 4))
    _close(nn.SoftMarginLoss(reduction)(_t(x), _t(y)), _reduce(np.log1p(np.exp(-y * x)), reduction))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("log_input,full", [(True, False), (False, False), (True, True), (False, True)])
def test_poisson_nll(rng, reduction, log_input, full):
    x = rng.normal(size=(3, 4)) if log_input else rng.uniform(0.1, 3.0, (3, 4))
    y = rng.integers(0, 5, (3, 4)).astype(np.float64)
    want = _reduce(np_poisson(x, y, log_input, full, 1e-8), reduction)
    _close(nn.PoissonNLLLoss(log_input, full, 1e-8, reduction)(_t(x), _t(y)), want, rtol=1e-5, atol=1e-5)


# -- the API reference's examples (printed values) ---------------------------------------------------------
def test_docs_examples(capsys):
    f32 = ms.float32
    print(nn.FocalLoss(weight=Tensor([1, 2]), gamma=2.0, reduction="mean")(
        Tensor([[0.8, 1.4], [0.5, 0.9], [1.2, 0.9]], f32), Tensor([[1], [1], [0]], ms.int32)))
    print(nn.DiceLoss(smooth=1e-5)(Tensor(np.array([[0.2, 0.5], [0.3, 0.1], [0.9, 0.6]]), f32),
                                   Tensor(np.array([[0, 1], [1, 0], [0, 1]]), f32)))
    print(nn.MultiClassDiceLoss(weights=None, ignore_indiex=None, activation="softmax")(
        Tensor(np.array([[0.2, 0.5, 0.7], [0.3, 0.1, 0.5], [0.9, 0.6, 0.3]]), f32),
        Tensor(np.array([[0, 1, 0], [1, 0, 0], [0, 0, 1]]), f32)))
    print(nn.RMSELoss()(Tensor(np.array([1, 2, 3]), f32), Tensor(np.array([1, 2, 2]), f32)))
    print(nn.RMSELoss()(Tensor(np.array([1, 2, 3]), f32), Tensor(np.array([[1, 1, 1], [1, 2, 2]]), f32)))
    print(nn.MAELoss(reduction="none")(Tensor(np.array([1, 2, 3]), f32),
                                       Tensor(np.array([[1, 1, 1], [1, 2, 2]]), f32)))
    print(nn.CosineEmbeddingLoss()(Tensor(np.array([[0.3, 0.8], [0.4, 0.3]]), f32),
                                   Tensor(np.array([[0.4, 1.2], [-0.4, -0.9]]), f32),
                                   Tensor(np.array([1, -1]), ms.int32)))
    sign = ops.Sign()
    i1 = Tensor(np.array([0.3864, -2.4093, -1.4076]), f32)
    i2 = Tensor(np.array([-0.6012, -1.6681, 1.2928]), f32)
    target = sign(Tensor(np.array([-2, -2, 3]), f32))
    for reduction in ("none", "mean", "sum"):
        print(nn.MarginRankingLoss(reduction=reduction)(i1, i2, target))
    print(nn.TripletMarginLoss()(Tensor(np.array([[0.3, 0.7], [0.5, 0.5]]), f32),
                                 Tensor(np.array([[0.4, 0.6], [0.4, 0.6]]), f32),
                                 Tensor(np.array([[0.2, 0.9], [0.3, 0.7]]), f32)))
    print(nn.SoftMarginLoss()(Tensor(np.array([[0.3, 0.7], [0.5, 0.5]]), f32),
                              Tensor(np.array([[-1, 1], [1, -1]]), f32)))
    print(nn.HingeEmbeddingLoss(reduction="mean")(
        Tensor(np.array([0.9, -1.2, 2, 0.8, 3.9, 2, 1, 0, -1]).reshape((3, 3)), f32),
        Tensor(np.array([1, 1, -1, 1, -1, 1, -1, 1, 1]).reshape((3, 3)), f32)))
    print(nn.PoissonNLLLoss()(Tensor([[0.3, 0.7], [0.5, 0.5]]), Tensor([[1.0, 2.0], [3.0, 4.0]])).asnumpy())
    print(nn.MultiMarginLoss()(Tensor(np.ones(shape=[3, 3]), f32), Tensor(np.array([1, 2, 1]), ms.int64)))
    print(nn.MultilabelMarginLoss()(Tensor(np.array([[0.1, 0.2, 0.4, 0.8], [0.2, 0.3, 0.5, 0.7]]), f32),
                                    Tensor(np.array([[1, 2, 0, 3], [2, 3, -1, 1]]), ms.int32)))
    print(nn.KLDivLoss(reduction="mean")(Tensor(np.array([0.2, 0.7, 0.1]), f32),
                                         Tensor(np.array([0., 1., 0.]), f32)))
    print(nn.HuberLoss()(Tensor(np.array([1, 2, 3]), f32), Tensor(np.array([1, 2, 2]), f32)))
    print(nn.HuberLoss(reduction="none")(Tensor(np.array([1, 2, 3]), f32),
                                         Tensor(np.array([[1, 1, 1], [1, 2, 2]]), f32)))
    out = capsys.readouterr().out.split("\n")
    # the reference prints 0.12516622 for the first (one float32 ulp: summation order; see below)
    want = ["0.12516621", "0.38596618", "0.54958105", "0.57735026", "1.0", "[[0. 1. 2.]", " [0. 0. 1.]]",
            "0.0003425479", "[0.98759997 0.         2.7003999 ]", "1.2293333", "3.6879997", "0.8881968",
            "0.6764238", "0.16666667", "0.3652635", "0.6666667", "0.325", "-0.23333333", "0.16666667",
            "[[0.  0.5 1.5]", " [0.  0.  0.5]]"]
    assert out[:len(want)] == want


def test_docs_examples_close_to_reference_digits():
    """The three examples whose last printed digits depend on the kernel's summation order agree
    with the reference to float32 rounding."""
    f32 = ms.float32
    _close(nn.FocalLoss(weight=Tensor([1, 2]), gamma=2.0)(Tensor([[0.8, 1.4], [0.5, 0.9], [1.2, 0.9]], f32),
                                                          Tensor([[1], [1], [0]], ms.int32)), 0.12516622)
    _close(nn.GaussianNLLLoss(reduction="mean")(Tensor(np.arange(8).reshape((4, 2)), f32),
                                                Tensor(np.array([2, 3, 1, 4, 6, 4, 4, 9]).reshape((4, 2)), f32),
                                                Tensor(np.ones((4, 1)), f32)), 1.4374993)
    _close(nn.MultiLabelSoftMarginLoss(reduction="mean")(Tensor([[0.3, 0.6, 0.6], [0.9, 0.4, 0.2]]),
                                                         Tensor([[0.0, 0.0, 1.0], [0.0, 0.0, 1.0]])), 0.84693956)
    _close(ops.hinge_embedding_loss(Tensor(np.array([0.9, -1.2, 2, 0.8, 3.9, 2, 1, 0, -1]).reshape((3, 3)), f32),
                                    Tensor(np.array([1, 1, -1, 1, -1, 1, -1, 1, 1]).reshape((3, 3)), f32)),
           0.16666666)


# -- gradients by central differences ----------------------------------------------------------------------
def _grad_cases(rng):
    x34, y34 = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    sgn = np.sign(rng.normal(size=(3, 4)))
    idx = Tensor(rng.integers(0, 4, 3).astype(np.int64))
    bin34 = (rng.uniform(size=(3, 4)) > 0.5).astype(np.float64)
    pos_var = rng.uniform(0.3, 2.0, (3, 4))
    ml_target = Tensor(np.array([[1, 3, -1, 0], [0, -1, 2, 2], [2, 1, 0, 3]], np.int32))
    w = Tensor(rng.uniform(0.5, 2.0, 4))
    return [
        ("HuberLoss", lambda a, b: nn.HuberLoss(delta=0.7)(a, b), (x34, y34)),
        ("MarginRankingLoss", lambda a, b: nn.MarginRankingLoss(0.1)(a, b, Tensor(sgn)), (x34, y34)),
        ("TripletMarginLoss", lambda a, b, c: nn.TripletMarginLoss(p=2, swap=True)(a, b, c),
         (x34, y34, rng.normal(size=(3, 4)))),
        ("HingeEmbeddingLoss", lambda a: nn.HingeEmbeddingLoss(0.5)(a, Tensor(sgn)), (x34,)),
        ("GaussianNLLLoss", lambda a, b, v: nn.GaussianNLLLoss(full=True)(a, b, v), (x34, y34, pos_var)),
        ("MultiLabelSoftMarginLoss", lambda a: nn.MultiLabelSoftMarginLoss(w)(a, Tensor(bin34)), (x34,)),
        ("MultiMarginLoss", lambda a: nn.MultiMarginLoss(p=2, margin=0.8)(a, idx, w), (x34,)),
        ("MultilabelMarginLoss", lambda a: nn.MultilabelMarginLoss()(a, ml_target), (x34,)),
        ("KLDivLoss", lambda a, b: nn.KLDivLoss("batchmean")(a, b),
         (_log_softmax(x34, 1), np.exp(_log_softmax(y34, 1)))),
        ("FocalLoss", lambda a: nn.FocalLoss(w, 2.0)(a, Tensor(np.array([[1], [0], [3]], np.int32))), (x34,)),
        ("FocalLoss-class", lambda a: nn.FocalLoss(None, 1.5, "sum")(a, Tensor(bin34)), (x34,)),
        ("DiceLoss", lambda a, b: nn.DiceLoss()(a, b), (x34, bin34)),
        ("MultiClassDiceLoss", lambda a: nn.MultiClassDiceLoss()(a, Tensor(bin34)), (x34,)),
        ("RMSELoss", lambda a, b: nn.RMSELoss()(a, b), (x34, y34)),
        ("MAELoss", lambda a, b: nn.MAELoss("sum")(a, b), (x34, y34)),
        ("CosineEmbeddingLoss", lambda a, b: nn.CosineEmbeddingLoss(-0.2, "sum")(
            a, b, Tensor(np.array([1, -1, -1], np.int32))), (x34, y34)),
        ("SoftMarginLoss", lambda a: nn.SoftMarginLoss()(a, Tensor(sgn)), (x34,)),
        ("PoissonNLLLoss", lambda a: nn.PoissonNLLLoss(full=True)(a, Tensor(np.abs(y34) * 3)), (x34,)),
        ("PoissonNLLLoss-linear", lambda a: nn.PoissonNLLLoss(log_input=False)(a, Tensor(np.abs(y34) * 3)),
         (np.abs(x34) + 0.5,)),
    ]


@pytest.mark.parametrize("case", range(19))
def test_gradients(case):
    name, fn, arrays = _grad_cases(np.random.default_rng(case))[case]
    check_grad(fn, *arrays, rtol=1e-4, atol=1e-6)


def test_gaussian_nll_var_gradient_clamped():
    """Below eps the variance is max(var, eps): its gradient there is 0 (the formula's max)."""
    x, y, var = np.array([[0.5, 0.5]]), np.array([[0.0, 0.0]]), np.array([[1e-9, 1.0]])
    g = ms.grad(lambda v: ops.gaussian_nll_loss(Tensor(x), Tensor(y), v), grad_position=0)(Tensor(var))
    assert g.asnumpy()[0, 0] == 0.0
    np.testing.assert_allclose(g.asnumpy()[0, 1], 0.5 * (1.0 - 0.25) / 2, rtol=1e-12)  # 0.5 (1/v - d^2/v^2) / 2


# -- every mode gives the same numbers ---------------------------------------------------------------------
def _mode_cases():
    rng = np.random.default_rng(7)
    x, y = _t(rng.normal(size=(3, 4))), _t(rng.normal(size=(3, 4)))
    z = _t(rng.normal(size=(3, 4)))
    sgn = _t(np.sign(rng.normal(size=(3, 4))))
    bin34 = _t((rng.uniform(size=(3, 4)) > 0.5))
    idx = Tensor(np.array([0, 3, 1], np.int64))
    ml = Tensor(np.array([[1, 3, -1, 0], [0, -1, 2, 2], [2, 1, 0, 3]], np.int32))
    return [
        (nn.KLDivLoss("batchmean"), (_t(_log_softmax(rng.normal(size=(3, 4)), 1)),
                                     _t(np.exp(_log_softmax(rng.normal(size=(3, 4)), 1))))),
        (nn.HuberLoss("none", 0.5), (x, y)),
        (nn.FocalLoss(_t([1.0, 2.0, 0.5, 1.0]), 2.0), (x, Tensor(np.array([[1], [0], [3]], np.int32)))),
        (nn.DiceLoss(), (x, bin34)),
        (nn.MultiClassDiceLoss(_t(np.ones((4, 2))), 2), (x, bin34)),
        (nn.RMSELoss(), (x, y)),
        (nn.MAELoss(), (x, y)),
        (nn.CosineEmbeddingLoss(0.1), (x, y, Tensor(np.array([1, -1, 1], np.int32)))),
        (nn.MarginRankingLoss(0.2, "sum"), (x, y, sgn)),
        (nn.TripletMarginLoss(swap=True), (x, y, z)),
        (nn.SoftMarginLoss(), (x, sgn)),
        (nn.HingeEmbeddingLoss(0.5, "none"), (x, sgn)),
        (nn.PoissonNLLLoss(full=True), (x, _t(np.abs(rng.normal(size=(3, 4))) * 3))),
        (nn.GaussianNLLLoss(full=True), (x, y, _t(rng.uniform(0.5, 2.0, (3,))))),
        (nn.MultiLabelSoftMarginLoss(2.0), (x, bin34)),
        (nn.MultiMarginLoss(2, 0.5), (x, idx)),
        (nn.MultilabelMarginLoss("none"), (x, ml)),
    ]


@pytest.mark.parametrize("mode", HOOK_MODES)
def test_every_loss_same_in_every_mode(mode):
    cases = _mode_cases()
    assert len(cases) == 17
    for cell, args in cases:
        want = cell(*args).asnumpy()
        got = run_cell(mode, cell, *args)
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-6,
                                   err_msg=f"{type(cell).__name__} in {mode}")


@pytest.mark.parametrize("mode", ["jit", "graph"])
def test_training_step_through_a_loss_in_graph_mode(mode):
    """A gradient through a captured loss equals PyNative's (value_and_grad of a Cell)."""
    rng = np.random.default_rng(3)
    net = nn.Dense(4, 4)
    loss_fn = nn.MultiMarginLoss()
    x, y = _t(rng.normal(size=(5, 4))), Tensor(rng.integers(0, 4, 5).astype(np.int64))

    def forward(a, b):
        return loss_fn(net(a), b)
    grad_fn = ms.value_and_grad(forward, None, net.trainable_params())
    want_loss, want_grads = grad_fn(x, y)
    if mode == "jit":
        got_loss, got_grads = ms.jit(grad_fn)(x, y)
    else:
        ms.set_context(mode=ms.GRAPH_MODE)
        try:
            got_loss, got_grads = ms.jit(grad_fn)(x, y)
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
    _close(got_loss, want_loss.asnumpy())
    for g, w in zip(got_grads, want_grads):
        _close(g, w.asnumpy())


# -- argument errors ---------------------------------------------------------------------------------------
X = Tensor(np.zeros((2, 3), np.float32))


@pytest.mark.parametrize("make,exc,text", [
    (lambda: nn.HuberLoss(delta=0), ValueError, "delta"),
    (lambda: nn.HuberLoss(delta="1"), TypeError, "delta"),
    (lambda: nn.HuberLoss(reduction="avg"), ValueError, "reduction"),
    (lambda: nn.KLDivLoss("avg"), ValueError, "KLDivLoss"),
    (lambda: nn.FocalLoss(gamma=2), TypeError, "gamma"),
    (lambda: nn.FocalLoss(weight=[1.0, 2.0]), TypeError, "weight"),
    (lambda: nn.FocalLoss(weight=Tensor(np.ones((2, 2), np.float32))), ValueError, "weight"),
    (lambda: nn.DiceLoss(smooth=0.0), ValueError, "smooth"),
    (lambda: nn.DiceLoss(smooth=1), TypeError, "smooth"),
    (lambda: nn.MultiClassDiceLoss(weights=Tensor(np.ones(3, np.float32))), ValueError, "weights"),
    (lambda: nn.MultiClassDiceLoss(activation="gelu"), ValueError, "activation"),
    (lambda: nn.MultiClassDiceLoss(activation=3), TypeError, "activation"),
    (lambda: nn.MultiClassDiceLoss(ignore_indiex=1.0), TypeError, "ignore_indiex"),
    (lambda: nn.CosineEmbeddingLoss(margin=1), TypeError, "margin"),
    (lambda: nn.CosineEmbeddingLoss(margin=1.5), ValueError, "margin"),
    (lambda: nn.MarginRankingLoss(margin=1), TypeError, "margin"),
    (lambda: nn.TripletMarginLoss(p=2.0), TypeError, "'p'"),
    (lambda: nn.TripletMarginLoss(swap=1), TypeError, "swap"),
    (lambda: nn.HingeEmbeddingLoss(margin="1"), TypeError, "margin"),
    (lambda: nn.PoissonNLLLoss(log_input=1), TypeError, "log_input"),
    (lambda: nn.GaussianNLLLoss(eps=0.0), ValueError, "eps"),
    (lambda: nn.GaussianNLLLoss(eps=1), TypeError, "eps"),
    (lambda: nn.GaussianNLLLoss(full=1), TypeError, "full"),
    (lambda: nn.MultiLabelSoftMarginLoss(weight="w"), TypeError, "weight"),
    (lambda: nn.MultiMarginLoss(p=3), ValueError, "'p'"),
    (lambda: nn.MultiMarginLoss(margin=1), TypeError, "margin"),
    (lambda: nn.MultilabelMarginLoss("avg"), ValueError, "reduction"),
    (lambda: ops.MultilabelMarginLoss("avg"), ValueError, "reduction"),
    (lambda: nn.DiceLoss()(X, Tensor(np.zeros((3, 2), np.float32))), ValueError, "shape"),
    (lambda: nn.FocalLoss()(X, Tensor(np.zeros((2,), np.int32))), ValueError, "rank"),
    (lambda: nn.FocalLoss()(X, Tensor(np.zeros((2, 2), np.int32))), ValueError, "channel"),
    (lambda: nn.FocalLoss(Tensor(np.ones(2, np.float32)))(X, Tensor(np.zeros((2, 1), np.int32))), ValueError,
     "one value per class"),
    (lambda: nn.CosineEmbeddingLoss()(X, Tensor(np.zeros((2, 4), np.float32)), X), ValueError, "shape"),
    (lambda: nn.CosineEmbeddingLoss()(X, X, X), ValueError, "labels"),
    (lambda: ops.cosine_embedding_loss(X, X, Tensor(np.ones(2, np.int32)), margin=2.0), ValueError, "margin"),
    (lambda: nn.PoissonNLLLoss()(Tensor(np.float32(1)), Tensor(np.float32(1))), ValueError, "non-scalar"),
    (lambda: nn.MultiMarginLoss()(X, Tensor(np.zeros((3,), np.int64))), ValueError, "target"),
    (lambda: nn.MultiMarginLoss()(X, Tensor(np.zeros((2,), np.float32))), TypeError, "target"),
    (lambda: nn.MultiLabelSoftMarginLoss()(Tensor(np.zeros(3, np.float32)), Tensor(np.zeros(3, np.float32))),
     ValueError, "2-D"),
    (lambda: nn.MultilabelMarginLoss()(X, Tensor(np.zeros((2, 4), np.int32))), ValueError, "shape"),
    (lambda: nn.GaussianNLLLoss()(X, X, Tensor(np.ones((3, 2), np.float32))), ValueError, "var"),
    (lambda: ops.huber_loss(X, Tensor(np.zeros((4,), np.float32))), ValueError, "broadcast"),
    (lambda: ops.huber_loss(X, [1.0]), TypeError, "target"),
    (lambda: ops.margin_ranking_loss(X, X, Tensor(np.zeros((2, 3), np.int32))), TypeError, "dtype"),
    (lambda: ops.triplet_margin_loss(Tensor(np.zeros(3, np.float32)), Tensor(np.zeros(3, np.float32)),
                                     Tensor(np.zeros(3, np.float32))), ValueError, "rank"),
    (lambda: ops.triplet_margin_loss(X, X, X, margin=Tensor(np.zeros(2, np.float32))), ValueError, "margin"),
])
def test_argument_errors(make, exc, text):
    with pytest.raises(exc, match=text):
        make()


def test_errors_name_the_class():
    with pytest.raises(ValueError, match="HuberLoss"):
        nn.HuberLoss(delta=-1.0)
    with pytest.raises(TypeError, match="FocalLoss"):
        nn.FocalLoss(gamma=1)
    with pytest.raises(ValueError, match="GaussianNLLLoss"):
        nn.GaussianNLLLoss(eps=-1.0)


def test_signatures_are_mindspores():
    import inspect
    sig = {name: str(inspect.signature(getattr(nn, name).__init__)).replace("(self, ", "(").replace("(self)", "()")
           for name in ("KLDivLoss", "HuberLoss", "FocalLoss", "DiceLoss", "MultiClassDiceLoss", "RMSELoss",
                        "MAELoss", "CosineEmbeddingLoss", "MarginRankingLoss", "TripletMarginLoss",
                        "SoftMarginLoss", "HingeEmbeddingLoss", "PoissonNLLLoss", "GaussianNLLLoss",
                        "MultiLabelSoftMarginLoss", "MultiMarginLoss", "MultilabelMarginLoss")}
    assert sig == {
        "KLDivLoss": "(reduction='mean')", "HuberLoss": "(reduction='mean', delta=1.0)",
        "FocalLoss": "(weight=None, gamma=2.0, reduction='mean')", "DiceLoss": "(smooth=1e-05)",
        "MultiClassDiceLoss": "(weights=None, ignore_indiex=None, activation='softmax')", "RMSELoss": "()",
        "MAELoss": "(reduction='mean')", "CosineEmbeddingLoss": "(margin=0.0, reduction='mean')",
        "MarginRankingLoss": "(margin=0.0, reduction='mean')",
        "TripletMarginLoss": "(p=2, swap=False, eps=1e-06, reduction='mean', margin=1.0)",
        "SoftMarginLoss": "(reduction='mean')", "HingeEmbeddingLoss": "(margin=1.0, reduction='mean')",
        "PoissonNLLLoss": "(log_input=True, full=False, eps=1e-08, reduction='mean')",
        "GaussianNLLLoss": "(*, full=False, eps=1e-06, reduction='mean')",
        "MultiLabelSoftMarginLoss": "(weight=None, reduction='mean')",
        "MultiMarginLoss": "(p=1, margin=1.0, reduction='mean', weight=None)",
        "MultilabelMarginLoss": "(reduction='mean')"}
    assert str(inspect.signature(ops.triplet_margin_loss)) == (
        "(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False, reduction='mean')")
    assert str(inspect.signature(ops.gaussian_nll_loss)) == "(x, target, var, full=False, eps=1e-06, reduction='mean')"
    assert str(inspect.signature(ops.multi_margin_loss)) == "(input, target, p=1, margin=1, weight=None, reduction='mean')"
    assert str(inspect.signature(ops.cosine_embedding_loss)) == (
        "(input1, input2, target, margin=0.0, reduction='mean')")
    assert str(inspect.signature(ops.hinge_embedding_loss)) == "(inputs, targets, margin=1.0, reduction='mean')"


def test_importable_from_nn_loss_as_in_mindspore():
    """``from mindspore.nn.loss import FocalLoss`` (MindSpore's nn.loss package exports every loss)."""
    from runtime.nn.loss import FocalLoss, HuberLoss, LossBase
    assert FocalLoss is nn.FocalLoss and HuberLoss is nn.HuberLoss and issubclass(HuberLoss, LossBase)
    with pytest.raises(ImportError, match="NoSuchLoss"):
        from runtime.nn.loss import NoSuchLoss  # noqa: F401


# -- PyTorch as a second oracle (optional: torch is not in CI) --------------------------------------------
def test_torch_parity(rng):
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    x, y = rng.normal(size=(4, 5)), rng.normal(size=(4, 5))
    sgn = np.sign(rng.normal(size=(4, 5)))
    idx = rng.integers(0, 5, 4)
    T = torch.tensor
    _close(ops.huber_loss(_t(x), _t(y), delta=0.7), tf.huber_loss(T(x), T(y), delta=0.7).numpy())
    _close(ops.margin_ranking_loss(_t(x), _t(y), _t(sgn), 0.3), tf.margin_ranking_loss(T(x), T(y), T(sgn), 0.3).numpy())
    _close(ops.hinge_embedding_loss(_t(x), _t(sgn), 0.5), tf.hinge_embedding_loss(T(x), T(sgn), 0.5).numpy())
    _close(ops.triplet_margin_loss(_t(x), _t(y), _t(x[::-1].copy()), swap=True),
           tf.triplet_margin_loss(T(x), T(y), T(x[::-1].copy()), swap=True).numpy())
    _close(ops.multi_margin_loss(_t(x), Tensor(idx), p=2, margin=0.5),
           tf.multi_margin_loss(T(x), T(idx), p=2, margin=0.5).numpy())
    _close(ops.multilabel_soft_margin_loss(_t(x), _t(sgn > 0)),
           tf.multilabel_soft_margin_loss(T(x), T((sgn > 0).astype(np.float64))).numpy())
    _close(nn.PoissonNLLLoss(full=True)(_t(x), _t(np.abs(y) * 3)),
           tf.poisson_nll_loss(T(x), T(np.abs(y) * 3), full=True).numpy())
    _close(ops.gaussian_nll_loss(_t(x), _t(y), _t(np.abs(y) + 0.1)),
           tf.gaussian_nll_loss(T(x), T(y), T(np.abs(y) + 0.1)).numpy())
