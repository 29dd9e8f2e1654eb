"""The Primitive-class spellings of runtime/ops/primitive_spellings.py (and their functional pairs)
against numpy formulas and MindSpore's documented examples; the ones built from traceable parts
also under ``ms.jit`` and as a GRAPH_MODE Cell, which must equal PyNative."""
import numpy as np
import pytest

import runtime as ms
from gradcheck import check_grad
from modes import MODES, run_fn
from runtime import Parameter, Tensor, ops

RNG = np.random.default_rng(12)
F32 = np.float32


def _eq(out, expect, **kw):
    got = out.asnumpy() if hasattr(out, "asnumpy") else np.asarray(out)
    np.testing.assert_allclose(got, expect, **kw)


@pytest.mark.parametrize("mode", MODES)
def test_traceable_spellings_in_every_mode(mode):
    x = RNG.standard_normal((3, 4)).astype(F32)
    y = (x + RNG.uniform(-1e-3, 1e-3, x.shape)).astype(F32)
    _eq(run_fn(mode, lambda a, b: ops.ApproximateEqual(1e-3)(a, b), Tensor(x), Tensor(y)), np.abs(x - y) < 1e-3)
    _eq(run_fn(mode, lambda a, b: ops.EqualCount()(a, b), Tensor(x), Tensor(np.where(x > 0, x, 0).astype(F32))),
        [np.sum(x > 0) + np.sum(x == 0)])
    v, w = RNG.standard_normal(4).astype(F32), RNG.standard_normal(3).astype(F32)
    _eq(run_fn(mode, lambda a, b: ops.Ger()(a, b), Tensor(v), Tensor(w)), np.outer(v, w), rtol=1e-6)
    a, b = RNG.standard_normal((2, 5, 3)).astype(F32), RNG.standard_normal((2, 4, 3)).astype(F32)
    for p in (1.0, 2.0, 3.0, float("inf")):
        want = np.linalg.norm(a[:, :, None, :] - b[:, None, :, :], ord=p, axis=-1)
        _eq(run_fn(mode, lambda s, t: ops.Cdist(p)(s, t), Tensor(a), Tensor(b)), want, rtol=1e-5)
    m = RNG.standard_normal((2, 4, 5)).astype(F32)
    for lower, upper in ((1, 0), (-1, 2), (0, -1)):
        i, j = np.arange(4)[:, None], np.arange(5)[None, :]
        keep = ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))
        _eq(run_fn(mode, lambda t: ops.MatrixBandPart()(t, lower, upper), Tensor(m)), np.where(keep, m, 0))
    s = RNG.standard_normal((6, 2)).astype(F32)
    ids = np.array([0, 2, 0, 2, 2, 1], np.int32)
    for name, ufunc in (("Max", np.maximum), ("Min", np.minimum), ("Prod", np.multiply)):
        want = np.stack([ufunc.reduce(s[ids == k], axis=0) for k in range(3)] +
                        [np.full(2, {"Max": -np.inf, "Min": np.inf, "Prod": 1.0}[name], F32)])
        got = run_fn(mode, lambda t, i: getattr(ops, "UnsortedSegment" + name)()(t, i, 4), Tensor(s), Tensor(ids))
        _eq(got, want, rtol=1e-6)
    soft = RNG.standard_normal(5).astype(F32)
    sign = np.array([1, -1, 1, 1, -1], F32)
    _eq(run_fn(mode, lambda p, q: ops.SoftMarginLoss()(p, q), Tensor(soft), Tensor(sign)),
        np.mean(np.log1p(np.exp(-sign * soft))), rtol=1e-6)
    bits = RNG.standard_normal((2, 16)).astype(F32)
    _eq(run_fn(mode, lambda t: ops.CompareAndBitpack(0.0)(t), Tensor(bits)), np.packbits(bits > 0, axis=-1))
    _eq(run_fn(mode, lambda t: ops.Bucketize([1.0, 3.0, 5.0, 7.0, 9.0])(t),
               Tensor(np.array([[-1, 6, 8], [3, 6, 9]], F32))), [[0, 3, 4], [2, 3, 5]])  # the reference's example


def test_bucketize_function_right_follows_the_documented_rule():
    # ops.bucketize's documented example (right=True) and rule: right=False counts the boundaries < x
    x, bounds = Tensor(np.array([[3, 6, 9], [3, 6, 9]])), [1.0, 3.0, 5.0, 7.0, 9.0]
    _eq(ops.bucketize(x, bounds, right=True), [[2, 3, 5], [2, 3, 5]])
    _eq(ops.bucketize(x, bounds), np.searchsorted(bounds, [[3, 6, 9], [3, 6, 9]], "left"))


def test_in_top_k_and_nth_element():
    x1 = Tensor(np.array([[1, 8, 5, 2, 7], [4, 9, 1, 3, 5]], F32))  # the reference's example
    _eq(ops.InTopK(3)(x1, Tensor(np.array([1, 3], np.int32))), [True, False])
    _eq(ops.InTopK(1)(Tensor(np.array([[2.0, 2.0, 1.0]], F32)), Tensor(np.array([1], np.int32))), [True])  # a tie
    x = RNG.standard_normal((3, 7)).astype(F32)
    _eq(ops.NthElement()(Tensor(x), 2), np.sort(x, axis=-1)[:, 2])
    _eq(ops.NthElement(reverse=True)(Tensor(x), 0), x.max(axis=-1))


def test_shape_and_index_spellings():
    x = Tensor(np.array([[1.0], [2.0]], F32))
    _eq(ops.Expand()(x, Tensor(np.array([2, 3], np.int32))), [[1, 1, 1], [2, 2, 2]])
    _eq(ops.Expand()(x, (3, -1, 4)), np.broadcast_to(x.asnumpy(), (3, 2, 4)))
    pair = (Tensor([1.0]), Tensor([2.0]))
    assert ops.IdentityN()(pair) == pair and isinstance(ops.IdentityN()(list(pair)), list)
    _eq(ops.TrilIndices(4, 3, -1)(), np.stack(np.tril_indices(4, -1, 3)))
    _eq(ops.TriuIndices(3, 5, 1, ms.int64)(), np.stack(np.triu_indices(3, 1, 5)))
    assert ops.TriuIndices(2, 2, 0, ms.int64)().dtype == ms.int64
    assert ops.InvertPermutation()((3, 4, 0, 2, 1)) == (2, 4, 3, 0, 1)  # the reference's example
    with pytest.raises(ValueError):
        ops.InvertPermutation()((0, 0, 1))
    parts = ops.SplitV([2, -1, 1], 1, 3)(Tensor(np.arange(12, dtype=F32).reshape(2, 6)))
    assert [p.shape for p in parts] == [(2, 2), (2, 3), (2, 1)]
    _eq(parts[1], np.arange(12).reshape(2, 6)[:, 2:5])
    _eq(ops.ParallelConcat()([Tensor(np.ones((1, 2), F32)), Tensor(np.zeros((1, 2), F32))]), [[1, 1], [0, 0]])
    _eq(ops.AccumulateNV2()([Tensor([1.0, 2.0]), Tensor([3.0, 4.0]), Tensor([5.0, 6.0])]), [9, 12])
    _eq(ops.UnravelIndex()(Tensor(np.array([2, 5]), ms.int32), Tensor(np.array([3, 3]), ms.int32)), [[0, 2], [1, 2]])
    flat = np.array([0, 7, 23, 11], np.int64)
    _eq(ops.UnravelIndex()(Tensor(flat), (2, 3, 4)), np.stack(np.unravel_index(flat, (2, 3, 4)), axis=-1))
    d = RNG.standard_normal((2, 3, 2, 3)).astype(F32)
    _eq(ops.DiagPart()(Tensor(d)), np.array([[d[i, j, i, j] for j in range(3)] for i in range(2)]))
    _eq(ops.FillV2()((2, 3), Tensor(np.array(7, np.int32))), np.full((2, 3), 7))
    t = RNG.standard_normal((2, 3, 4)).astype(F32)
    _eq(ops.ConjugateTranspose()(Tensor(t), (2, 0, 1)), t.transpose(2, 0, 1))
    _eq(ops.Padding(4)(Tensor(np.array([[8.0], [10.0]], F32))), [[8, 0, 0, 0], [10, 0, 0, 0]])


def test_sparse_spellings():
    indices = Tensor(np.array([[0, 1], [1, 2]], np.int32))
    values = Tensor(np.array([1.0, 2.0], F32))
    dense = np.zeros((3, 4), F32)
    dense[0, 1], dense[1, 2] = 1.0, 2.0
    _eq(ops.SparseToDense()(indices, values, (3, 4)), dense)
    x2 = RNG.standard_normal((3, 4)).astype(F32)
    _eq(ops.SparseTensorDenseAdd()(indices, values, (3, 4), Tensor(x2)), x2 + dense)
    b = RNG.standard_normal((4, 2)).astype(F32)
    _eq(ops.SparseTensorDenseMatmul()(indices, values, (3, 4), Tensor(b)), dense @ b, rtol=1e-6)
    bt = RNG.standard_normal((2, 3)).astype(F32)
    _eq(ops.SparseTensorDenseMatmul(adjoint_st=True, adjoint_dt=True)(indices, values, (3, 4), Tensor(bt)),
        dense.T @ bt.T, rtol=1e-6)
    p = Parameter(Tensor(np.zeros(4, F32)), name="p")
    ops.ScatterNonAliasingAdd()(p, Tensor(np.array([[1], [3], [1]], np.int32)), Tensor(np.array([1.0, 2.0, 3.0], F32)))
    _eq(p, [0, 4, 0, 2])


def test_nll_loss_primitive():
    logp = np.log(RNG.dirichlet(np.ones(4), 5)).astype(F32)
    labels = np.array([0, 3, -100, 1, 3], np.int32)
    weight = RNG.uniform(0.5, 2.0, 4).astype(F32)
    kept = labels != -100
    w = np.where(kept, weight[np.where(kept, labels, 0)], 0)
    per = -w * logp[np.arange(5), np.where(kept, labels, 0)]
    for reduction, want in (("none", per), ("sum", per.sum()), ("mean", per.sum() / w.sum())):
        loss, total = ops.NLLLoss(reduction)(Tensor(logp), Tensor(labels), Tensor(weight))
        _eq(loss, want, rtol=1e-5)
        _eq(total, w.sum(), rtol=1e-6)
    check_grad(lambda lp: ops.NLLLoss("mean")(lp, Tensor(labels), Tensor(weight.astype(np.float64)))[0],
               logp.astype(np.float64))


def test_shift_registry_ops_are_exact():
    a = np.array([1, -8, 1 << 40, -(1 << 40), 12345], np.int64)
    s = np.array([3, 2, 20, 5, 0], np.int64)
    for fn, ref in ((ops.LeftShift(), np.left_shift), (ops.RightShift(), np.right_shift),
                    (ops.bitwise_left_shift, np.left_shift), (ops.bitwise_right_shift, np.right_shift)):
        got = ms.jit(lambda x, y: fn(x, y))(Tensor(a), Tensor(s)).asnumpy()
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, ref(a, s))
    with pytest.raises(TypeError, match="integer"):
        ops.left_shift(Tensor([1.0]), Tensor([1.0]))


def test_gradients_through_spellings():
    check_grad(lambda a, b: ops.Cdist(2.0)(a, b), RNG.standard_normal((4, 3)), RNG.standard_normal((5, 3)))
    check_grad(lambda t: ops.UnsortedSegmentMax()(t, Tensor(np.array([1, 0, 1, 1], np.int32)), 2),
               RNG.standard_normal((4, 3)))
    check_grad(lambda t: ops.UnsortedSegmentProd()(t, Tensor(np.array([1, 0, 1, 1], np.int32)), 3),
               RNG.uniform(0.5, 2.0, (4, 3)))
    check_grad(lambda t: ops.SoftMarginLoss("sum")(t, Tensor(np.array([1.0, -1.0, 1.0]))), RNG.standard_normal(3))


@pytest.mark.parametrize("mode", MODES)
def test_search_cross_renorm_sequence_spellings_in_every_mode(mode):
    srt = np.sort(RNG.integers(0, 10, (3, 6)), axis=1).astype(F32)
    vals = RNG.integers(-1, 11, (3, 4)).astype(F32)
    for right, cls in ((False, ops.LowerBound), (True, ops.UpperBound)):
        want = np.stack([np.searchsorted(srt[i], vals[i], side="right" if right else "left") for i in range(3)])
        got = run_fn(mode, lambda a, b: cls()(a, b), Tensor(srt), Tensor(vals))
        assert got.dtype == ms.int32
        _eq(got, want)
        got = run_fn(mode, lambda a, b: ops.SearchSorted(right=right)(a, b), Tensor(srt), Tensor(vals))
        assert got.dtype == ms.int64
        _eq(got, want)
    _eq(run_fn(mode, lambda a, b: ops.searchsorted(a, b), Tensor(srt[0]), Tensor(vals)), np.searchsorted(srt[0], vals))
    a, b = RNG.standard_normal((4, 3, 2)).astype(F32), RNG.standard_normal((4, 3, 2)).astype(F32)
    _eq(run_fn(mode, lambda p, q: ops.Cross()(p, q), Tensor(a), Tensor(b)), np.cross(a, b, axis=1), rtol=1e-5,
        atol=1e-6)
    _eq(run_fn(mode, lambda p, q: ops.cross(p, q, dim=1), Tensor(a), Tensor(b)), np.cross(a, b, axis=1), rtol=1e-5,
        atol=1e-6)
    x = RNG.standard_normal((3, 4)).astype(F32) * 3
    norms = np.sqrt((x ** 2).sum(axis=1, keepdims=True))
    want = np.where(norms > 2.0, x * (2.0 / (norms + 1e-7)), x)
    _eq(run_fn(mode, lambda t: ops.Renorm(2, 0, 2.0)(t), Tensor(x)), want, rtol=1e-5)
    seq = RNG.standard_normal((2, 5, 3)).astype(F32)
    lengths = np.array([3, 5], np.int32)
    want = seq.copy()
    for bi, n in enumerate(lengths):
        want[bi, :n] = seq[bi, :n][::-1]
    _eq(run_fn(mode, lambda t, n: ops.ReverseSequence(1, 0)(t, n), Tensor(seq), Tensor(lengths)), want)
    data = RNG.uniform(-1, 6, 40).astype(F32)
    clipped = np.clip(np.floor((data - 0.0) / 5.0 * 5), 0, 4).astype(int)
    _eq(run_fn(mode, lambda t: ops.HistogramFixedWidth(5)(t, Tensor(np.array([0.0, 5.0], F32))), Tensor(data)),
        np.bincount(clipped, minlength=5))
    _eq(run_fn(mode, lambda t: ops.Histogram(bins=6, min=0.0, max=5.0)(t), Tensor(data)),
        np.histogram(data, bins=6, range=(0.0, 5.0))[0])


def test_documented_examples_of_the_search_and_sequence_spellings():
    x = Tensor(np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]], F32))
    _eq(ops.ReverseSequence(seq_dim=1)(x, Tensor(np.array([1, 2, 3], np.int32))), [[1, 2, 3], [5, 4, 6], [9, 8, 7]])
    _eq(ops.HistogramFixedWidth(5)(Tensor(np.array([-1.0, 0.0, 1.5, 2.0, 5.0, 15], F32)),
                                   Tensor(np.array([0.0, 5.0], F32))), [2, 1, 1, 0, 2])
    _eq(ops.Histogram(bins=4, min=0.0, max=3.0)(Tensor([1.0, 2, 1])), [0, 2, 1, 0])
    _eq(ops.LogSpace(steps=10, base=10)(Tensor(1.0), Tensor(10.0)), 10.0 ** np.linspace(1, 10, 10), rtol=1e-6)
    _eq(ops.LogSpace(steps=3, base=2, dtype=ms.float64)(Tensor(0.0), Tensor(2.0)), [1.0, 2.0, 4.0])
    params = Tensor(np.array([[8, 9], [10, 11], [12, 13], [14, 15]], F32))
    _eq(ops.EmbeddingLookup()(params, Tensor(np.array([[5, 2], [8, 5]], np.int32)), 4),
        [[[10, 11], [0, 0]], [[0, 0], [10, 11]]])
    p = Parameter(Tensor(np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]], F32)), name="x")
    ops.IndexAdd(axis=1)(p, Tensor(np.array([0, 2], np.int32)), Tensor(np.array([[0.5, 1.0], [1.0, 1.5], [2.0, 2.5]], F32)))
    _eq(p, [[1.5, 2, 4], [5, 5, 7.5], [9, 8, 11.5]])


def test_gradients_through_cross_and_renorm():
    check_grad(lambda a, b: ops.cross(a, b, dim=0), RNG.standard_normal((3, 2)), RNG.standard_normal((3, 2)))
    check_grad(lambda t: ops.renorm(t, 2, 0, 1.0), RNG.standard_normal((3, 4)) * 2)


def test_channel_dropout_drops_whole_channels_and_scales_the_rest():
    ms.set_seed(3)
    x = RNG.uniform(0.5, 1.5, (8, 16, 3, 2)).astype(F32)
    out, mask = ops.Dropout2D(keep_prob=0.75)(Tensor(x))
    m, o = mask.asnumpy(), out.asnumpy()
    assert m.dtype == np.bool_ and m.shape == x.shape
    per_channel = m.reshape(8, 16, -1)
    assert (per_channel.all(axis=-1) | ~per_channel.any(axis=-1)).all()  # one decision per channel
    np.testing.assert_allclose(o, np.where(m, x / 0.75, 0.0), rtol=1e-6)
    assert 0.55 < m[:, :, 0, 0].mean() < 0.95  # 128 channels kept with probability 0.75
    out, mask = ops.Dropout3D(1.0)(Tensor(x[..., None]))
    assert mask.asnumpy().all() and np.allclose(out.asnumpy(), x[..., None])
    a, b = ops.Dropout2D(0.5)(Tensor(x)), ops.Dropout2D(0.5)(Tensor(x))
    assert not np.array_equal(a[1].asnumpy(), b[1].asnumpy())  # fresh draws


def test_margin_losses_against_their_formulas():
    a, pos, neg = (RNG.standard_normal((6, 4)) for _ in range(3))
    dist = lambda u, v, p=2: (np.abs(u - v + 1e-6) ** p).sum(-1) ** (1 / p)
    for swap in (False, True):
        d_neg = np.minimum(dist(a, neg), dist(pos, neg)) if swap else dist(a, neg)
        want = np.maximum(dist(a, pos) - d_neg + 0.7, 0).mean()
        got = ops.TripletMarginLoss(swap=swap)(Tensor(a), Tensor(pos), Tensor(neg), Tensor(0.7))
        _eq(got, want, rtol=1e-6)
    x = RNG.standard_normal((5, 4))
    y = np.array([0, 3, 2, 2, 1], np.int32)
    w = RNG.uniform(0.5, 2.0, 4)
    for p in (1, 2):
        per = np.array([sum(max(0.0, 1.0 - x[n, y[n]] + x[n, i]) ** p * w[y[n]] for i in range(4) if i != y[n]) / 4
                        for n in range(5)])
        _eq(ops.MultiMarginLoss(p=p, reduction="none")(Tensor(x), Tensor(y), Tensor(w)), per, rtol=1e-6)
        _eq(ops.MultiMarginLoss(p=p)(Tensor(x), Tensor(y), Tensor(w)), per.mean(), rtol=1e-6)
    check_grad(lambda t: ops.MultiMarginLoss()(t, Tensor(y)), x)
    check_grad(lambda u: ops.TripletMarginLoss()(u, Tensor(pos), Tensor(neg), Tensor(0.5)), a)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumulative_logsumexp_against_logaddexp_accumulate(mode, exclusive, reverse):
    x = RNG.standard_normal((3, 7)) * 300  # a range where exp overflows and underflows
    x[1] = [5.0, 5.0, 5.0, -np.inf, 5.0, 800.0, -900.0]  # ties, -inf, extremes

    def oracle(a):
        b = np.flip(a, 1) if reverse else a
        out = np.logaddexp.accumulate(b, axis=1)
        if exclusive:
            out = np.concatenate([np.full((3, 1), -np.inf), out[:, :-1]], axis=1)
        return np.flip(out, 1) if reverse else out

    prim = ops.CumulativeLogsumexp(exclusive, reverse)
    got = run_fn(mode, lambda t: prim(t, 1), Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, oracle(x), rtol=1e-12)
    finite = RNG.standard_normal((2, 5))
    if mode == "pynative":  # (an exclusive scan's -inf end is left out of the weighted sum)
        keep = slice(None) if not exclusive else (slice(None, -1) if reverse else slice(1, None))
        check_grad(lambda t: prim(t, 1)[:, keep], finite)
    got32 = run_fn(mode, lambda t: prim(t, Tensor(np.array(1, np.int32))), Tensor(x.astype(F32))).asnumpy()
    np.testing.assert_allclose(got32, oracle(x.astype(F32).astype(np.float64)), rtol=2e-6)
