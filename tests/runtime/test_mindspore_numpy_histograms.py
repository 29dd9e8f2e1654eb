"""mindspore.numpy's histogram, histogram_bin_edges, histogram2d and histogramdd: MindSpore's
documented examples, and numpy's own functions as the oracle, in PyNative, under ``ms.jit`` and as a
GRAPH_MODE Cell (static shapes: they compile). Edges are numpy's linspace; compiled code may fuse
its ``arange * step + start`` into one FMA, so they are compared within 1 float32 ulp, and the
counts exactly against numpy's histogram over the very edges returned."""
import numpy as np
import pytest

import runtime as ms
import runtime.numpy as mnp
from modes import MODES, run_fn
from runtime import Tensor

RNG = np.random.default_rng(21)


def _within_an_ulp(got, want):
    """float32 edges within one ulp of the largest edge (an FMA in the compiled linspace)."""
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=0, atol=np.spacing(np.float32(np.abs(want).max())))


def test_documented_examples():
    hist, edges = mnp.histogram([1, 2, 1], bins=[0, 1, 2, 3])
    assert hist.dtype == ms.float32 and edges.dtype == ms.int32
    np.testing.assert_array_equal(hist.asnumpy(), [0, 2, 1])
    np.testing.assert_array_equal(edges.asnumpy(), [0, 1, 2, 3])
    hist, edges = mnp.histogram(mnp.arange(4), bins=mnp.arange(5), density=True)
    np.testing.assert_allclose(hist.asnumpy(), [0.25] * 4)
    hist, _ = mnp.histogram([[1, 2, 1], [1, 0, 1]], bins=[0, 1, 2, 3])
    np.testing.assert_array_equal(hist.asnumpy(), [1, 4, 1])
    np.testing.assert_array_equal(mnp.histogram_bin_edges([0, 0, 0, 1, 2, 1, 1, 1, 2, 3, 3], bins=2).asnumpy(),
                                  [0, 1.5, 3])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kwargs", [dict(bins=7), dict(bins=5, range=(-1.0, 1.5)), dict(bins=[-3.0, -1, 0, 0.5, 4]),
                                    dict(bins=4, density=True), dict(bins=6, weights=True)],
                         ids=["count", "range", "edges", "density", "weights"])
def test_histogram_matches_numpy(mode, kwargs):
    a = RNG.standard_normal(200).astype(np.float32)
    a[:3] = [a.max(), a.min(), 0.5]  # values on edges
    kw = dict(kwargs)
    args = [Tensor(a)]
    if kw.pop("weights", False):
        w = RNG.uniform(0, 2, 200).astype(np.float32)
        kw["weights"] = w
        args.append(Tensor(w))
        fn = lambda x, wt: mnp.histogram(x, weights=wt, **{k: v for k, v in kw.items() if k != "weights"})
    else:
        fn = lambda x: mnp.histogram(x, **kw)
    hist, edges = run_fn(mode, fn, *args)
    want_hist, want_edges = np.histogram(a, **kw)
    _within_an_ulp(edges.asnumpy(), want_edges)
    if mode == "pynative":  # numpy's own arithmetic: bit-equal edges
        np.testing.assert_array_equal(edges.asnumpy(), want_edges.astype(edges.asnumpy().dtype))
    same_edges = {k: v for k, v in kw.items() if k not in ("bins", "range")}
    # counts exact; summed float32 weights to float32 rounding (numpy sums them in float64)
    np.testing.assert_allclose(hist.asnumpy(), np.histogram(a, bins=edges.asnumpy(), **same_edges)[0], rtol=1e-5)
    np.testing.assert_allclose(hist.asnumpy(), want_hist, rtol=1e-5)


def test_histogram_of_integers_constant_data_and_errors():
    ints = RNG.integers(0, 9, 50).astype(np.int32)
    hist, edges = mnp.histogram(Tensor(ints), bins=4)
    want_hist, want_edges = np.histogram(ints, bins=4)
    np.testing.assert_array_equal(hist.asnumpy(), want_hist)
    np.testing.assert_allclose(edges.asnumpy(), want_edges, rtol=1e-7)  # float32 edges (numpy: float64)
    hist, edges = mnp.histogram(Tensor(np.full(5, 2.0, np.float32)), bins=2)  # zero width: widened by 0.5
    np.testing.assert_array_equal(edges.asnumpy(), [1.5, 2.0, 2.5])
    np.testing.assert_array_equal(hist.asnumpy(), [0, 5])
    with pytest.raises(ValueError, match="range"):
        mnp.histogram(Tensor(ints), range=(3, 1))
    with pytest.raises(ValueError, match="monotonically"):
        mnp.histogram(Tensor(ints), bins=[0, 2, 1])
    with pytest.raises(ValueError, match="string"):
        mnp.histogram(Tensor(ints), bins="auto")
    with pytest.raises(ValueError, match="weights"):
        mnp.histogram(Tensor(ints), weights=Tensor(np.ones(3, np.float32)))


@pytest.mark.parametrize("mode", MODES)
def test_histogramdd_and_histogram2d_match_numpy(mode):
    s = RNG.standard_normal((300, 3)).astype(np.float32)
    hist, edges = run_fn(mode, lambda t: mnp.histogramdd(t, bins=(3, 4, 2)), Tensor(s))
    want, want_edges = np.histogramdd(s, bins=(3, 4, 2))
    np.testing.assert_array_equal(hist.asnumpy(), np.histogramdd(s, bins=[e.asnumpy() for e in edges])[0])
    np.testing.assert_array_equal(hist.asnumpy(), want)
    for e, w in zip(edges, want_edges):
        _within_an_ulp(e.asnumpy(), w)
    rngs = [(-1.0, 1.0), (-2.0, 0.5), (0.0, 3.0)]
    hist, _ = run_fn(mode, lambda t: mnp.histogramdd(t, bins=4, range=rngs, density=True), Tensor(s))
    np.testing.assert_allclose(hist.asnumpy(), np.histogramdd(s, bins=4, range=rngs, density=True)[0], rtol=1e-5)
    x, y = s[:, 0], s[:, 1]
    h2, xe, ye = run_fn(mode, lambda p, q: mnp.histogram2d(p, q, bins=(5, 3)), Tensor(x), Tensor(y))
    want, wx, wy = np.histogram2d(x, y, bins=(5, 3))
    np.testing.assert_array_equal(h2.asnumpy(), want)
    _within_an_ulp(xe.asnumpy(), wx)
    _within_an_ulp(ye.asnumpy(), wy)
    assert mnp.missing() == []


@pytest.mark.parametrize("mode", MODES)
def test_bincount(mode):
    from runtime import ops
    x = RNG.integers(0, 9, 60).astype(np.int32)
    w = RNG.uniform(-1, 1, 60).astype(np.float32)
    # without length the output length comes from the data (a graph break under jit): still equal
    got = run_fn(mode, lambda t: mnp.bincount(t), Tensor(x))
    assert got.dtype == ms.float32  # MindSpore r2.4's numpy.bincount counts in float32 (its example prints floats)
    np.testing.assert_array_equal(got.asnumpy(), np.bincount(x))
    np.testing.assert_array_equal(run_fn(mode, lambda t: mnp.bincount(t, minlength=12), Tensor(x)).asnumpy(),
                                  np.bincount(x, minlength=12))
    np.testing.assert_array_equal(run_fn(mode, lambda t: mnp.bincount(t, length=10), Tensor(x)).asnumpy(),
                                  np.bincount(x, minlength=10))
    np.testing.assert_allclose(run_fn(mode, lambda t, v: mnp.bincount(t, v), Tensor(x), Tensor(w)).asnumpy(),
                               np.bincount(x, w), rtol=1e-5, atol=1e-6)
    # ops.bincount, the reference's examples (float32 counts)
    t = Tensor([2, 4, 1, 0, 0], dtype=ms.int64)
    np.testing.assert_array_equal(run_fn(mode, lambda u: ops.bincount(u, minlength=7), t).asnumpy(),
                                  [2, 1, 1, 0, 1, 0, 0])
    np.testing.assert_allclose(ops.bincount(t, weights=Tensor([0, 0.25, 0.5, 0.75, 1], dtype=ms.float32)).asnumpy(),
                               [1.75, 0.5, 0, 0, 0.25])
    with pytest.raises(ValueError, match="negative"):
        mnp.bincount(Tensor(np.array([1, -1], np.int32)))
    with pytest.raises(ValueError, match="1-D integer"):
        mnp.bincount(Tensor(np.array([1.0, 2.0], np.float32)))
