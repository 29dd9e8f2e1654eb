"""Losses against written-out numpy formulas for every reduction, gradients against finite
differences, and bad input."""
import numpy as np
import pytest

from runtime import Tensor, nn
from gradcheck import check_grad

REDUCTIONS = ["mean", "sum", "none"]


def _reduce(x, reduction):
    return {"mean": np.mean, "sum": np.sum, "none": lambda v: v}[reduction](x)


def _log_softmax(x, axis):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


@pytest.fixture
def data(rng):
    logits = rng.standard_normal((5, 4)) * 2
    target = rng.standard_normal((5, 4))
    prob = rng.uniform(0.05, 0.95, (5, 4))
    bits = (rng.uniform(size=(5, 4)) > 0.5).astype(np.float64)
    labels = rng.integers(0, 4, 5).astype(np.int32)
    return logits, target, prob, bits, labels


def _t(x):
    return Tensor(np.asarray(x, np.float32)) if np.asarray(x).dtype.kind == "f" else Tensor(x)


# -- elementwise losses -------------------------------------------------------------------------------
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_mse_l1_smoothl1(reduction, data):
    x, y = data[0], data[1]
    cases = [(nn.MSELoss(reduction), (x - y) ** 2),
             (nn.L1Loss(reduction), np.abs(x - y)),
             (nn.SmoothL1Loss(beta=0.5, reduction=reduction),
              np.where(np.abs(x - y) < 0.5, 0.5 * (x - y) ** 2 / 0.5, np.abs(x - y) - 0.25))]
    for loss, elem in cases:
        got = loss(_t(x), _t(y)).asnumpy()
        np.testing.assert_allclose(got, _reduce(elem, reduction), rtol=1e-5, atol=1e-6, err_msg=type(loss).__name__)
        check_grad(lambda a, b: loss(a, b), x, y)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_bce_with_and_without_weight(reduction, data, rng):
    p, y = data[2], data[3]
    w = rng.uniform(0.5, 2.0, (4,))
    want = -(y * np.log(p) + (1 - y) * np.log(1 - p))
    np.testing.assert_allclose(nn.BCELoss(reduction=reduction)(_t(p), _t(y)).asnumpy(),
                               _reduce(want, reduction), rtol=1e-5, atol=1e-6)
    loss = nn.BCELoss(weight=Tensor(w), reduction=reduction)
    np.testing.assert_allclose(loss(_t(p), _t(y)).asnumpy(), _reduce(want * w, reduction), rtol=1e-5, atol=1e-6)
    check_grad(lambda a: nn.BCELoss(weight=Tensor(w), reduction=reduction)(a, Tensor(y)), p)


def test_bce_is_finite_at_zero_and_one():
    out = nn.BCELoss(reduction="none")(Tensor([0.0, 1.0]), Tensor([1.0, 0.0])).asnumpy()
    assert np.isfinite(out).all() and (out > 20).all()


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_bce_with_logits_weight_and_pos_weight(reduction, data, rng):
    x, y = data[0], data[3]
    sig = 1 / (1 + np.exp(-x))
    w = rng.uniform(0.5, 2.0, (5, 4))
    pw = rng.uniform(0.5, 3.0, (4,))
    plain = -(y * np.log(sig) + (1 - y) * np.log(1 - sig))
    np.testing.assert_allclose(nn.BCEWithLogitsLoss(reduction)(_t(x), _t(y)).asnumpy(),
                               _reduce(plain, reduction), rtol=1e-5, atol=1e-6)
    weighted = -w * (pw * y * np.log(sig) + (1 - y) * np.log(1 - sig))
    loss = nn.BCEWithLogitsLoss(reduction, weight=Tensor(w), pos_weight=Tensor(pw))
    np.testing.assert_allclose(loss(_t(x), _t(y)).asnumpy(), _reduce(weighted, reduction), rtol=1e-5, atol=1e-5)
    check_grad(lambda a: nn.BCEWithLogitsLoss(reduction)(a, Tensor(y)), x)
    check_grad(lambda a: nn.BCEWithLogitsLoss(reduction, weight=Tensor(w), pos_weight=Tensor(pw))(a, Tensor(y)), x)


def test_bce_with_logits_is_stable_for_large_logits():
    x = Tensor(np.array([100.0, -100.0, 50.0], np.float32))
    y = Tensor(np.array([0.0, 1.0, 1.0], np.float32))
    out = nn.BCEWithLogitsLoss("none")(x, y).asnumpy()
    np.testing.assert_allclose(out, [100.0, 100.0, 0.0], atol=1e-5)


# -- softmax cross entropy ------------------------------------------------------------------------------
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_softmax_cross_entropy_with_logits(reduction, data):
    x, labels = data[0], data[4]
    onehot = np.eye(4)[labels]
    per = -(onehot * _log_softmax(x, 1)).sum(1)
    sparse = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction=reduction)
    np.testing.assert_allclose(sparse(_t(x), Tensor(labels)).asnumpy(), _reduce(per, reduction), rtol=1e-5, atol=1e-6)
    dense = nn.SoftmaxCrossEntropyWithLogits(reduction=reduction)
    soft = np.exp(data[1]) / np.exp(data[1]).sum(1, keepdims=True)
    want = -(soft * _log_softmax(x, 1)).sum(1)
    np.testing.assert_allclose(dense(_t(x), _t(soft)).asnumpy(), _reduce(want, reduction), rtol=1e-5, atol=1e-6)
    check_grad(lambda a: sparse(a, Tensor(labels)), x)
    check_grad(lambda a: dense(a, Tensor(soft)), x)


def test_softmax_cross_entropy_default_reduction_is_none():
    out = nn.SoftmaxCrossEntropyWithLogits(sparse=True)(Tensor(np.zeros((3, 2), np.float32)),
                                                        Tensor(np.array([0, 1, 0], np.int32)))
    assert out.shape == (3,)
    np.testing.assert_allclose(out.asnumpy(), np.full(3, np.log(2)), rtol=1e-6)


# -- CrossEntropyLoss / NLLLoss (PyTorch semantics) ------------------------------------------------------
def _np_cross_entropy(x, t, weight=None, ignore_index=-100, reduction="mean", ls=0.0):
    """Written out from the definition: x (N, C, d...) logits, t (N, d...) indices."""
    c = x.shape[1]
    logp = _log_softmax(x, 1)
    x2 = np.moveaxis(logp, 1, -1).reshape(-1, c)
    t2 = t.reshape(-1)
    w = np.ones(c) if weight is None else weight
    losses, denom = [], 0.0
    for row, k in zip(x2, t2):
        if k == ignore_index:
            losses.append(0.0)
            continue
        nll = -w[k] * row[k]
        smooth = -(w * row).sum() / c
        losses.append((1 - ls) * nll + ls * smooth)
        denom += w[k]
    losses = np.array(losses)
    if reduction == "mean":
        return losses.sum() / denom
    if reduction == "sum":
        return losses.sum()
    return losses.reshape(t.shape)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("opts", [dict(), dict(weight=True), dict(ignore_index=2), dict(label_smoothing=0.2),
                                  dict(weight=True, ignore_index=1, label_smoothing=0.1)])
def test_cross_entropy_loss_index_targets(reduction, opts, rng):
    x = rng.standard_normal((6, 4)) * 2
    t = np.array([0, 1, 2, 3, 1, 2], np.int32)
    weight = rng.uniform(0.5, 2.0, 4) if opts.get("weight") else None
    kw = dict(reduction=reduction, ignore_index=opts.get("ignore_index", -100),
              label_smoothing=opts.get("label_smoothing", 0.0))
    loss = nn.CrossEntropyLoss(weight=None if weight is None else Tensor(weight), **kw)
    want = _np_cross_entropy(x, t, weight, kw["ignore_index"], reduction, kw["label_smoothing"])
    np.testing.assert_allclose(loss(_t(x), Tensor(t)).asnumpy(), want, rtol=1e-5, atol=1e-6)
    loss64 = nn.CrossEntropyLoss(weight=None if weight is None else Tensor(weight.astype(np.float64)), **kw)
    check_grad(lambda a: loss64(a, Tensor(t)), x)


def test_cross_entropy_loss_spatial_and_probability_targets(rng):
    x = rng.standard_normal((2, 3, 4, 5))
    t = rng.integers(0, 3, (2, 4, 5)).astype(np.int32)
    t[0, 0, 0] = -100
    for reduction in REDUCTIONS:
        got = nn.CrossEntropyLoss(reduction=reduction)(_t(x), Tensor(t)).asnumpy()
        np.testing.assert_allclose(got, _np_cross_entropy(x, t, reduction=reduction), rtol=1e-5, atol=1e-6)
    # probability targets: -sum_c w_c y'_c log p_c with y' = (1 - ls) y + ls / C; mean over samples
    xp = rng.standard_normal((5, 3))
    yp = rng.uniform(size=(5, 3))
    yp /= yp.sum(1, keepdims=True)
    w = np.array([1.0, 2.0, 0.5])
    ys = 0.9 * yp + 0.1 / 3
    per = -(w * ys * _log_softmax(xp, 1)).sum(1)
    loss = nn.CrossEntropyLoss(weight=Tensor(w.astype(np.float32)), label_smoothing=0.1)
    np.testing.assert_allclose(loss(_t(xp), _t(yp)).asnumpy(), per.mean(), rtol=1e-5)
    check_grad(lambda a: nn.CrossEntropyLoss(weight=Tensor(w), label_smoothing=0.1)(a, Tensor(yp)), xp)


def test_nll_loss(rng):
    x = _log_softmax(rng.standard_normal((4, 3)), 1)
    t = np.array([2, 0, 1, 1], np.int32)
    w = np.array([0.2, 1.0, 3.0])
    got = nn.NLLLoss(weight=Tensor(w.astype(np.float32)))(_t(x), Tensor(t)).asnumpy()
    want = -(w[t] * x[np.arange(4), t]).sum() / w[t].sum()
    np.testing.assert_allclose(got, want, rtol=1e-5)


# -- bad input ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", [nn.MSELoss, nn.L1Loss, nn.BCELoss, nn.CrossEntropyLoss, nn.NLLLoss])
def test_unknown_reduction_lists_valid_ones(cls):
    with pytest.raises(ValueError) as e:
        cls(reduction="avg")
    assert "'mean'" in str(e.value) and "'sum'" in str(e.value) and "'none'" in str(e.value)


def test_other_bad_loss_arguments():
    with pytest.raises(ValueError, match="reduction"):
        nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="batchmean")
    with pytest.raises(TypeError):
        nn.SoftmaxCrossEntropyWithLogits(sparse="yes")
    with pytest.raises(ValueError, match="label_smoothing"):
        nn.CrossEntropyLoss(label_smoothing=1.5)
    with pytest.raises(TypeError, match="weight"):
        nn.BCELoss(weight=[1.0, 2.0])
    with pytest.raises(ValueError, match="SparseSoftmaxCrossEntropyWithLogits"):
        nn.SoftmaxCrossEntropyWithLogits(sparse=True)(Tensor(np.zeros((3, 2), np.float32)),
                                                      Tensor(np.array([0, 1], np.int32)))
    with pytest.raises(ValueError):  # loss of mismatched shapes
        nn.MSELoss()(Tensor(np.zeros((3, 2), np.float32)), Tensor(np.zeros((4, 2), np.float32)))


def test_loss_base_custom_subclass():
    class Cubed(nn.LossBase):
        def construct(self, logits, labels):
            return self.get_loss((logits - labels) ** 3, weights=2.0)

    got = Cubed(reduction="sum")(Tensor([1.0, 2.0]), Tensor([0.0, 0.0]))
    assert got.item() == pytest.approx(2 * (1 + 8))
