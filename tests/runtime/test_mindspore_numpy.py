"""``runtime.numpy`` (mindspore.numpy) against numpy itself as the oracle, in PyNative, under
``ms.jit``, as a Cell's construct in GRAPH_MODE and under the frame hook; the API reference's
own examples; gradients through the composed functions against finite differences."""
import numpy as np
import pytest

import runtime as ms
import runtime.numpy as mnp
from runtime import Tensor
from gradcheck import check_grad
from modes import MODES, run_fn

RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 4)).astype(np.float32)
B = RNG.standard_normal((3, 4)).astype(np.float32)
P = (RNG.random((3, 4)) + 0.5).astype(np.float32)  # positive
U = (RNG.random((3, 4)) * 1.6 - 0.8).astype(np.float32)  # in (-1, 1)
G = (RNG.random((3, 4)) + 1.1).astype(np.float32)  # > 1
M = RNG.standard_normal((4, 4)).astype(np.float32)
V = RNG.standard_normal(4).astype(np.float32)
W = RNG.standard_normal(3).astype(np.float32)
T3 = RNG.standard_normal((2, 3, 4)).astype(np.float32)
I = np.array([[3, -1, 0, 2], [5, 7, -3, 1]], np.int32)
SORTED = np.array([0.0, 1.0, 2.5, 4.0], np.float32)
NANS = np.array([[1.0, np.nan, 3.0], [np.nan, 5.0, -1.0]], np.float32)

# (name, call taking the module and the arrays, arrays); numpy computes the same call as the oracle
ELEMENTWISE = [
    ("absolute", lambda m, a: m.absolute(a), [A]), ("negative", lambda m, a: m.negative(a), [A]),
    ("positive", lambda m, a: m.positive(a), [A]), ("sign", lambda m, a: m.sign(a), [A]),
    ("floor", lambda m, a: m.floor(a), [A]), ("ceil", lambda m, a: m.ceil(a), [A]),
    ("trunc", lambda m, a: m.trunc(a), [A * 3]), ("fix", lambda m, a: m.fix(a), [A * 3]),
    ("rint", lambda m, a: m.rint(a), [A * 3]), ("around", lambda m, a: m.around(a, 2), [A * 3]),
    ("sqrt", lambda m, a: m.sqrt(a), [P]), ("cbrt", lambda m, a: m.cbrt(a), [A]),
    ("square", lambda m, a: m.square(a), [A]), ("reciprocal", lambda m, a: m.reciprocal(a), [P]),
    ("exp", lambda m, a: m.exp(a), [A]), ("exp2", lambda m, a: m.exp2(a), [A]),
    ("expm1", lambda m, a: m.expm1(a), [A * 1e-3]), ("log", lambda m, a: m.log(a), [P]),
    ("log2", lambda m, a: m.log2(a), [P]), ("log10", lambda m, a: m.log10(a), [P]),
    ("log1p", lambda m, a: m.log1p(a), [P]), ("sin", lambda m, a: m.sin(a), [A]),
    ("cos", lambda m, a: m.cos(a), [A]), ("tan", lambda m, a: m.tan(a), [U]),
    ("sinh", lambda m, a: m.sinh(a), [A]), ("cosh", lambda m, a: m.cosh(a), [A]),
    ("tanh", lambda m, a: m.tanh(a), [A]), ("arcsinh", lambda m, a: m.arcsinh(a), [A]),
    ("arccosh", lambda m, a: m.arccosh(a), [G]), ("arctanh", lambda m, a: m.arctanh(a), [U]),
    ("deg2rad", lambda m, a: m.deg2rad(a), [A]), ("radians", lambda m, a: m.radians(a), [A]),
    ("rad2deg", lambda m, a: m.rad2deg(a), [A]),
    ("add", lambda m, a, b: m.add(a, b), [A, B]), ("subtract", lambda m, a, b: m.subtract(a, b), [A, B]),
    ("multiply", lambda m, a, b: m.multiply(a, b), [A, B]), ("divide", lambda m, a, b: m.divide(a, b), [A, P]),
    ("true_divide", lambda m, a, b: m.true_divide(a, b), [A, P]),
    ("floor_divide", lambda m, a, b: m.floor_divide(a, b), [A * 5, P]),
    ("remainder", lambda m, a, b: m.remainder(a, b), [A * 5, P]),
    ("fmod", lambda m, a, b: m.fmod(a, b), [A * 5, P]),
    ("power", lambda m, a, b: m.power(a, b), [P, A]), ("float_power", lambda m, a, b: m.float_power(a, b), [P, A]),
    ("maximum", lambda m, a, b: m.maximum(a, b), [A, B]), ("minimum", lambda m, a, b: m.minimum(a, b), [A, B]),
    ("hypot", lambda m, a, b: m.hypot(a, b), [A, B]), ("copysign", lambda m, a, b: m.copysign(a, b), [A, B]),
    ("heaviside", lambda m, a, b: m.heaviside(a, b), [np.round(A), B]),
    ("logaddexp", lambda m, a, b: m.logaddexp(a, b), [A, B]),
    ("logaddexp2", lambda m, a, b: m.logaddexp2(a, b), [A, B]),
    ("clip", lambda m, a: m.clip(a, -0.5, 0.5), [A]),
    ("equal", lambda m, a, b: m.equal(a, b), [np.round(A), np.round(B)]),
    ("not_equal", lambda m, a, b: m.not_equal(a, b), [np.round(A), np.round(B)]),
    ("less", lambda m, a, b: m.less(a, b), [A, B]), ("less_equal", lambda m, a, b: m.less_equal(a, b), [A, B]),
    ("greater", lambda m, a, b: m.greater(a, b), [A, B]),
    ("greater_equal", lambda m, a, b: m.greater_equal(a, b), [A, B]),
    ("logical_and", lambda m, a, b: m.logical_and(a > 0, b > 0), [A, B]),
    ("logical_or", lambda m, a, b: m.logical_or(a > 0, b > 0), [A, B]),
    ("logical_xor", lambda m, a, b: m.logical_xor(a > 0, b > 0), [A, B]),
    ("logical_not", lambda m, a: m.logical_not(a > 0), [A]),
    ("isfinite", lambda m, a: m.isfinite(a), [NANS]), ("isnan", lambda m, a: m.isnan(a), [NANS]),
    ("isinf", lambda m, a: m.isinf(a / 0.0), [NANS]), ("isposinf", lambda m, a: m.isposinf(a / 0.0), [NANS]),
    ("isneginf", lambda m, a: m.isneginf(a / 0.0), [NANS]), ("signbit", lambda m, a: m.signbit(a), [A]),
    ("isclose", lambda m, a, b: m.isclose(a, a + b * 1e-9), [A, B]),
    ("where", lambda m, a, b: m.where(a > 0, a, b), [A, B]),
]

REDUCTIONS_AND_SHAPES = [
    ("sum", lambda m, a: m.sum(a, axis=1), [A]), ("sum_all", lambda m, a: m.sum(a), [A]),
    ("sum_keep", lambda m, a: m.sum(a, axis=(0, 1), keepdims=True), [A]),
    ("mean", lambda m, a: m.mean(a, axis=0), [A]), ("average", lambda m, a, w: m.average(a, 1, w), [A, V]),
    ("amax", lambda m, a: m.amax(a, 1), [A]), ("amin", lambda m, a: m.amin(a, 0), [A]),
    ("ptp", lambda m, a: m.ptp(a, 1), [A]), ("var", lambda m, a: m.var(a, 1, ddof=1), [A]),
    ("std", lambda m, a: m.std(a), [A]), ("nansum", lambda m, a: m.nansum(a, 1), [NANS]),
    ("nanmean", lambda m, a: m.nanmean(a, 1), [NANS]), ("nanmax", lambda m, a: m.nanmax(a, 0), [NANS]),
    ("nanmin", lambda m, a: m.nanmin(a), [NANS]), ("nanvar", lambda m, a: m.nanvar(a, 1), [NANS]),
    ("nanstd", lambda m, a: m.nanstd(a, 1), [NANS]), ("nancumsum", lambda m, a: m.nancumsum(a, 1), [NANS]),
    ("cumsum", lambda m, a: m.cumsum(a, 0), [A]), ("cumsum_flat", lambda m, a: m.cumsum(a), [A]),
    ("count_nonzero", lambda m, a: m.count_nonzero(a, 1), [I]),
    ("argmax", lambda m, a: m.argmax(a, 1), [A]), ("argmin", lambda m, a: m.argmin(a), [A]),
    ("dot_mv", lambda m, a, v: m.dot(a, v), [A, V]), ("dot_vv", lambda m, v: m.dot(v, v), [V]),
    ("dot_nd", lambda m, t, b: m.dot(t, b.T), [T3, B]), ("vdot", lambda m, a, b: m.vdot(a, b), [A, B]),
    ("inner", lambda m, a, b: m.inner(a, b), [A, B]), ("outer", lambda m, v, w: m.outer(v, w), [V, W]),
    ("matmul", lambda m, t, mm: m.matmul(t, mm), [T3, M]), ("matmul_vec", lambda m, v, mm: m.matmul(v, mm), [V, M]),
    ("tensordot", lambda m, t, a: m.tensordot(t, a, axes=([1, 2], [0, 1])), [T3, A]),
    ("kron", lambda m, a, b: m.kron(a, b), [A[:2, :2], B[:2, :3]]),
    ("cross", lambda m, a, b: m.cross(a[:, :3], b[:, :3]), [A, B]),
    ("multi_dot", lambda m, a, mm, v: m.linalg.multi_dot([a, mm, v]) if m is np else m.multi_dot([a, mm, v]), [A, M, V]),
    ("matrix_power", lambda m, mm: m.linalg.matrix_power(mm, 3) if m is np else m.matrix_power(mm, 3), [M]),
    ("trapz", lambda m, a: (np.trapezoid if m is np and hasattr(np, "trapezoid") else m.trapz)(a, dx=0.5), [A]),
    ("diff", lambda m, a: m.diff(a, n=2, axis=1), [A]), ("ediff1d", lambda m, a: m.ediff1d(a), [A]),
    ("cov", lambda m, a: m.cov(a), [A]), ("corrcoef", lambda m, a: m.corrcoef(a), [A]),
    ("norm", lambda m, a: m.linalg.norm(a) if m is np else m.norm(a), [A]),
    ("searchsorted", lambda m, s, v: m.searchsorted(s, v), [SORTED, V]),
    ("searchsorted_r", lambda m, s, v: m.searchsorted(s, v, side="right"), [SORTED, SORTED]),
    ("interp", lambda m, x, s, v: m.interp(x, s, v), [V, SORTED, V]),
    ("polyval", lambda m, p, x: m.polyval(p, x), [W, A]), ("polyadd", lambda m, p, q: m.polyadd(p, q), [W, V]),
    ("polysub", lambda m, p, q: m.polysub(p, q), [W, V]), ("polymul", lambda m, p, q: m.polymul(p, q), [W, V]),
    ("polyder", lambda m, p: m.polyder(p, 2), [V]), ("polyint", lambda m, p: m.polyint(p), [V]),
    ("transpose", lambda m, t: m.transpose(t, (2, 0, 1)), [T3]), ("transpose_rev", lambda m, t: m.transpose(t), [T3]),
    ("expand_dims", lambda m, a: m.expand_dims(a, (0, 2)), [A]), ("squeeze", lambda m, a: m.squeeze(a[None]), [A]),
    ("reshape", lambda m, t: m.reshape(t, (4, -1)), [T3]), ("ravel", lambda m, t: m.ravel(t), [T3]),
    ("moveaxis", lambda m, t: m.moveaxis(t, 0, -1), [T3]), ("rollaxis", lambda m, t: m.rollaxis(t, 2), [T3]),
    ("swapaxes", lambda m, t: m.swapaxes(t, 0, 2), [T3]),
    ("concatenate", lambda m, a, b: m.concatenate((a, b), 1), [A, B]),
    ("concatenate_none", lambda m, a, b: m.concatenate((a, b), axis=None), [A, B]),
    ("stack", lambda m, a, b: m.stack((a, b), 1), [A, B]), ("vstack", lambda m, v, w: m.vstack((v, v)), [V, W]),
    ("hstack", lambda m, v, w: m.hstack((v, w)), [V, W]), ("dstack", lambda m, a, b: m.dstack((a, b)), [A, B]),
    ("column_stack", lambda m, v: m.column_stack((v, v)), [V]),
    ("atleast_3d", lambda m, v: m.atleast_3d(v), [V]), ("atleast_2d", lambda m, v: m.atleast_2d(v), [V]),
    ("tile", lambda m, a: m.tile(a, (2, 1, 2)), [A]), ("broadcast_to", lambda m, v: m.broadcast_to(v, (3, 4)), [V]),
    ("roll", lambda m, a: m.roll(a, 2, 1), [A]), ("roll_flat", lambda m, a: m.roll(a, -3), [A]),
    ("append", lambda m, a, b: m.append(a, b, 0), [A, B]), ("append_flat", lambda m, a, v: m.append(a, v), [A, V]),
    ("split", lambda m, a: m.split(a, 2, 1), [A]), ("split_idx", lambda m, a: m.split(a, [1, 3], 1), [A]),
    ("array_split", lambda m, a: m.array_split(a, 3, 1), [A]), ("hsplit", lambda m, a: m.hsplit(a, 2), [A]),
    ("vsplit", lambda m, a: m.vsplit(a, 3), [A]), ("dsplit", lambda m, t: m.dsplit(t, 2), [T3]),
    ("flip", lambda m, a: m.flip(a), [A]), ("fliplr", lambda m, a: m.fliplr(a), [A]),
    ("flipud", lambda m, a: m.flipud(a), [A]), ("rot90", lambda m, a: m.rot90(a), [A]),
    ("rot90_3", lambda m, t: m.rot90(t, 3, (1, 2)), [T3]), ("rot90_2", lambda m, a: m.rot90(a, 2), [A]),
    ("take", lambda m, a, i: m.take(a, i), [A, np.array([0, 5, 11], np.int32)]),
    ("take_axis", lambda m, a, i: m.take(a, i, axis=1), [A, np.array([3, 0], np.int32)]),
    ("take_along_axis", lambda m, a: m.take_along_axis(a, m.argsort(a, 1) if m is np else
                                                      Tensor(np.argsort(A, 1).astype(np.int32)), 1), [A]),
    ("repeat", lambda m, a: m.repeat(a, 2, 1), [A]), ("repeat_flat", lambda m, a: m.repeat(a, 2), [A]),
    ("select", lambda m, a: m.select([a < -0.5, a > 0.5], [a * 10, a * 100], -1.0), [A]),
    ("choose", lambda m, i, a, b: m.choose(i, (a[0], b[0]), mode="clip"), [np.array([0, 1, 1, 0]), A, B]),
    ("diagonal", lambda m, t: m.diagonal(t, 1, 1, 2), [T3]), ("trace", lambda m, mm: m.trace(mm, -1), [M]),
    ("diag_vec", lambda m, v: m.diag(v, 1), [V]), ("diag_mat", lambda m, mm: m.diag(mm, -1), [M]),
    ("diagflat", lambda m, a: m.diagflat(a[:2, :2]), [A]), ("tril", lambda m, a: m.tril(a, -1), [A]),
    ("triu", lambda m, a: m.triu(a, 1), [A]), ("triu_vec", lambda m, v: m.triu(v), [V]),
    ("vander", lambda m, v: m.vander(v, 3), [V]), ("pad", lambda m, a: m.pad(a, ((1, 2), (0, 1))), [A]),
    ("pad_reflect", lambda m, a: m.pad(a, 1, mode="reflect"), [A]),
    ("pad_edge", lambda m, a: m.pad(a, (2, 1), mode="edge"), [A]),
    ("meshgrid", lambda m, v, w: m.meshgrid(v, w), [V, W]),
    ("meshgrid_ij", lambda m, v, w: m.meshgrid(v, w, indexing="ij"), [V, W]),
    ("ix_", lambda m, v, w: m.ix_(v, w), [V, W]), ("unravel_index", lambda m, i: m.unravel_index(i, (3, 4)),
                                                   [np.array([0, 5, 11], np.int32)]),
    ("in1d", lambda m, a, b: np.isin(a.ravel(), b) if m is np else m.in1d(a, b), [np.round(A), np.round(B)]),
    ("isin", lambda m, a, b: m.isin(a, b), [np.round(A), np.round(B)]),
    ("array_equal", lambda m, a: m.array_equal(a, a), [A]), ("array_equiv", lambda m, a, v: m.array_equiv(a, v), [A, V]),
    ("sometrue", lambda m, a: np.any(a > 2) if m is np else m.sometrue(a > 2), [A]),
    ("piecewise", lambda m, a: m.piecewise(a, [a < 0, a >= 0], [lambda x: -x, lambda x: x * 2]), [A]),
    ("convolve", lambda m, v, w: m.convolve(v, w), [V, W]),
    ("convolve_same", lambda m, v, w: m.convolve(w, v, mode="same"), [V, W]),
    ("convolve_valid", lambda m, v, w: m.convolve(v, w, mode="valid"), [V, W]),
    ("correlate", lambda m, v, w: m.correlate(v, w), [V, W]),
    ("correlate_full", lambda m, v, w: m.correlate(v, w, mode="full"), [V, W]),
    ("gradient", lambda m, a: m.gradient(a), [A]), ("gradient_axis", lambda m, a: m.gradient(a, 0.5, axis=1), [A]),
    ("unwrap", lambda m, a: m.unwrap(a * 4, axis=1), [A]),
    ("ravel_multi_index", lambda m, i, j: m.ravel_multi_index((i, j), (3, 4)),
     [np.array([0, 2, 1], np.int32), np.array([3, 0, 1], np.int32)]),
]
CASES = ELEMENTWISE + REDUCTIONS_AND_SHAPES


def _same(got, want, name):
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want), name
        for g, w in zip(got, want):
            _same(g, w, name)
        return
    want = np.asarray(want)
    got_np = got.asnumpy() if hasattr(got, "asnumpy") else np.asarray(got)
    assert got_np.shape == want.shape, f"{name}: shape {got_np.shape} != numpy's {want.shape}"
    if want.dtype == bool:
        np.testing.assert_array_equal(got_np, want, err_msg=name)
    else:
        np.testing.assert_allclose(got_np.astype(np.float64), want.astype(np.float64), rtol=2e-5, atol=2e-5,
                                   equal_nan=True, err_msg=name)


@pytest.mark.parametrize("name,call,arrays", CASES, ids=[c[0] for c in CASES])
def test_pynative_matches_numpy(name, call, arrays):
    want = call(np, *[a.astype(np.float64) if a.dtype == np.float32 else a for a in arrays])
    got = call(mnp, *[Tensor(a) for a in arrays])
    _same(got, want, name)


@pytest.mark.parametrize("mode", ["jit", "graph"])
@pytest.mark.parametrize("name,call,arrays", CASES, ids=[c[0] for c in CASES])
def test_graph_modes_equal_pynative(mode, name, call, arrays):
    want = call(mnp, *[Tensor(a) for a in arrays])
    got = run_fn(mode, lambda *ts: call(mnp, *ts), *[Tensor(a) for a in arrays])
    _same(got, want.asnumpy() if hasattr(want, "asnumpy") else
          [w.asnumpy() for w in want] if isinstance(want, (tuple, list)) else want, name)


def test_under_the_frame_hook():
    out = run_fn("hook", lambda a, b: mnp.dot(mnp.tanh(a), mnp.transpose(b)) + mnp.sum(a, axis=1, keepdims=True),
                 Tensor(A), Tensor(B))
    want = np.tanh(A.astype(np.float64)) @ B.T + A.sum(1, keepdims=True)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5, atol=1e-5)


CONSTRUCTORS = [
    ("arange", lambda m: m.arange(2, 11, 3)), ("arange_f", lambda m: m.arange(0.5, 3.0, 0.5)),
    ("linspace", lambda m: m.linspace(0, 1, 7)), ("linspace_open", lambda m: m.linspace(2, 3, 5, endpoint=False)),
    ("logspace", lambda m: m.logspace(0, 2, 5)), ("geomspace", lambda m: m.geomspace(1, 1000, 4)),
    ("eye", lambda m: m.eye(3, 4, 1)), ("identity", lambda m: m.identity(3)),
    ("full", lambda m: m.full((2, 3), 6, m.float32)), ("full_row", lambda m: m.full((3, 2), [1, 2])),
    ("zeros", lambda m: m.zeros((2, 3))), ("ones", lambda m: m.ones((2, 3), m.int32)),
    ("tri", lambda m: m.tri(3, 3, 1)), ("tri_rect", lambda m: m.tri(3, 5, -1)),
    ("indices", lambda m: m.indices((2, 3))), ("mgrid", lambda m: m.mgrid[0:3, 0:2]),
    ("ogrid", lambda m: m.ogrid[0:3, 0:2]), ("tril_indices", lambda m: m.tril_indices(3, 0, 4)),
    ("triu_indices", lambda m: m.triu_indices(4, 1)), ("diag_indices", lambda m: m.diag_indices(3)),
    ("hamming", lambda m: m.hamming(5)), ("hanning", lambda m: m.hanning(5)),
    ("bartlett", lambda m: m.bartlett(5)), ("blackman", lambda m: m.blackman(5)),
]


@pytest.mark.parametrize("name,call", CONSTRUCTORS, ids=[c[0] for c in CONSTRUCTORS])
def test_constructors_match_numpy(name, call):
    _same(call(mnp), call(np), name)


def test_default_dtypes_are_mindspore_numpys():
    assert mnp.arange(5).dtype == ms.int32
    assert mnp.asarray([1, 2]).dtype == ms.int32
    assert mnp.asarray(np.zeros(2)).dtype == ms.float32
    assert mnp.array([1.0, 2.0]).dtype == ms.float32
    assert mnp.divide(mnp.arange(3), 2).dtype == ms.float32
    assert mnp.zeros(2).dtype == ms.float32 and mnp.tri(2).dtype == ms.float32
    assert mnp.promote_types(ms.int32, ms.float16) == ms.float16
    assert mnp.result_type(Tensor(A), 1.0) == ms.float32
    assert mnp.isscalar(3.0) and not mnp.isscalar(Tensor(A))


def test_api_reference_examples():
    # the examples of MindSpore's mindspore.numpy page, with their documented output
    assert mnp.array([1, 2, 3], mnp.float32).asnumpy().tolist() == [1.0, 2.0, 3.0]
    assert mnp.full((2, 3), 6, mnp.float32).asnumpy().tolist() == [[6.0] * 3] * 2
    assert mnp.ones((2, 3), mnp.float32).asnumpy().tolist() == [[1.0] * 3] * 2
    assert mnp.arange(0, 5, 1).asnumpy().tolist() == [0, 1, 2, 3, 4]
    assert mnp.tri(3, 3, 1).asnumpy().tolist() == [[1, 1, 0], [1, 1, 1], [1, 1, 1]]
    assert mnp.eye(2, 2).asnumpy().tolist() == [[1, 0], [0, 1]]
    assert mnp.transpose(mnp.arange(10).reshape(5, 2)).asnumpy().tolist() == [[0, 2, 4, 6, 8], [1, 3, 5, 7, 9]]
    assert mnp.swapaxes(mnp.ones((1, 2, 3)), 0, 1).shape == (2, 1, 3)
    parts = mnp.split(mnp.arange(9), 3)
    assert [p.asnumpy().tolist() for p in parts] == [[0, 1, 2], [3, 4, 5], [6, 7, 8]] and parts[0].dtype == ms.int32
    assert mnp.concatenate((mnp.arange(0, 5), mnp.arange(10, 15)), axis=0).asnumpy().tolist() == \
        [0, 1, 2, 3, 4, 10, 11, 12, 13, 14]
    assert mnp.equal(mnp.arange(0, 5), mnp.arange(0, 10, 2)).asnumpy().tolist() == [True, False, False, False, False]
    assert mnp.less(mnp.arange(0, 5), mnp.arange(0, 10, 2)).asnumpy().tolist() == [False, True, True, True, True]
    assert mnp.add(mnp.full((3, 2), [1, 2]), mnp.full((3, 2), [3, 4])).asnumpy().tolist() == [[4, 6]] * 3
    x = mnp.arange(2 * 3).reshape(2, 3).astype("float32")
    y = mnp.arange(3 * 4).reshape(3, 4).astype("float32")
    assert mnp.matmul(x, y).asnumpy().tolist() == [[20, 23, 26, 29], [56, 68, 80, 92]]
    assert mnp.mean(mnp.arange(6).astype("float32")).asnumpy() == 2.5
    np.testing.assert_allclose(mnp.exp(mnp.arange(5).astype("float32")).asnumpy(),
                               [1.0, 2.7182817, 7.389056, 20.085537, 54.59815], rtol=1e-6)


def _mlp_forward(x, w1, b1, w2, b2, w3, b3):
    x = mnp.dot(x, w1) + b1
    x = mnp.dot(x, w2) + b2
    x = mnp.dot(x, w3) + b3
    return x


@pytest.mark.parametrize("mode", MODES)
def test_api_reference_mlp_forward_and_gradient(mode):
    """The page's "MindSpore numpy with MindSpore features" example: forward, ms_function/jit,
    and GradOperation(get_all=True) with its documented values."""
    x = mnp.arange(8).reshape(2, 4).astype("float32")
    args = (x, mnp.ones((4, 8)), mnp.zeros((8,)), mnp.ones((8, 16)), mnp.zeros((16,)), mnp.ones((16, 4)),
            mnp.zeros((4,)))
    out = run_fn(mode, _mlp_forward, *args)
    assert out.asnumpy().tolist() == [[768.0] * 4, [2816.0] * 4]
    grads = run_fn(mode, ms.ops.GradOperation(get_all=True)(_mlp_forward), *args)
    assert len(grads) == 7
    np.testing.assert_allclose(grads[0].asnumpy(), np.full((2, 4), 512.0))
    np.testing.assert_allclose(grads[1].asnumpy()[:, 0], [256.0, 384.0, 512.0, 640.0])
    np.testing.assert_allclose(grads[6].asnumpy(), np.full(4, 2.0))


@pytest.mark.parametrize("fn", [mnp.tan, mnp.sinh, mnp.arcsinh, mnp.cbrt, mnp.expm1, lambda a: mnp.log2(a * a + 1),
                                lambda a: mnp.logaddexp(a, a * 0.5), lambda a: mnp.hypot(a, 1.0),
                                lambda a: mnp.trace(mnp.outer(a, a)), lambda a: mnp.diag(a)[1],
                                lambda a: mnp.kron(a, a), lambda a: mnp.polyval(a, 0.7),
                                lambda a: mnp.std(a), lambda a: mnp.cross(a[:3], a[1:])])
def test_gradients_match_finite_differences(fn):
    check_grad(fn, np.array([0.3, -0.4, 0.5, 0.6]))


def test_bad_input_raises_clear_errors():
    with pytest.raises(ValueError, match="equal division"):
        mnp.split(mnp.arange(10), 3)
    with pytest.raises(ValueError, match="out of range"):
        mnp.sum(Tensor(A), axis=5)
    with pytest.raises(ValueError, match="data-dependent"):
        mnp.where(Tensor(A) > 0)
    with pytest.raises(ValueError, match="not aligned"):
        mnp.matmul(Tensor(A), Tensor(A))
    with pytest.raises(ValueError, match="non-negative"):
        mnp.matrix_power(Tensor(M), -1)
    with pytest.raises(ValueError, match="maxval"):
        mnp.randint(3, 1)


def test_random_functions_shapes_dtypes_and_seed():
    ms.set_seed(5)
    a = mnp.randn(2, 3)
    ms.set_seed(5)
    assert np.array_equal(mnp.randn((2, 3)).asnumpy(), a.asnumpy()) and a.dtype == ms.float32
    r = mnp.rand(1000)
    assert 0.0 <= r.asnumpy().min() and r.asnumpy().max() < 1.0
    i = mnp.randint(2, 5, (100,))
    assert i.dtype == ms.int32 and set(np.unique(i.asnumpy())) <= {2, 3, 4}


def test_documented_list_and_missing_names():
    assert len(mnp.DOCUMENTED) == len(set(mnp.DOCUMENTED)) > 200
    assert set(mnp.missing()) == set(mnp.WHY_MISSING)
    for name in mnp.DOCUMENTED:
        assert hasattr(mnp, name) != (name in mnp.WHY_MISSING), name


def test_mindspore_numpy_import_alias():
    import sys
    from runtime import compat
    if compat.real_mindspore_installed():
        pytest.skip("the real MindSpore is installed")
    compat.alias_mindspore()
    try:
        import mindspore.numpy as np_alias
        assert np_alias is mnp
        assert sys.modules["mindspore.numpy"] is mnp
    finally:
        compat.remove_alias()


def test_star_import_keeps_the_programs_numpy():
    namespace = {}
    exec("import numpy\nfrom runtime import *\n", namespace)  # the program under test
    assert namespace["numpy"] is np and namespace["Tensor"] is Tensor
    import runtime
    assert runtime.numpy is mnp
