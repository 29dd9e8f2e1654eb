"""MindSpore 2.4's own API reference examples as an external oracle, round 2.

Same method as ``test_api_doc_examples.py`` (whose helpers are reused): each case is the "Examples"
section of one MindSpore r2.4.0 API page (URL in a comment; the page renders the docstring of the
MindSpore source at tag v2.4.0), with the documented inputs, our call, and the documented printed
output written out literally as the expected value. This file covers areas round 1 did not: the
learning-rate schedules, ``mindspore.numpy``, more Tensor methods.

The learning-rate pages of r2.4.0 no longer print their results (the examples end by passing ``lr``
to ``nn.SGD``); the same examples with the same inputs printed them up to v1.10.1, and the
implementation did not change between v1.10.1 and v2.4.0 (``git diff v1.10.1 v2.4.0`` of
``nn/dynamic_lr.py`` and ``nn/learning_rate_schedule.py`` touches docstrings, messages and the
identity ``cos(x) = sin(x + pi/2)`` only), so those printed values are the oracle here; the URL of
the v1.10 page is given next to the r2.4.0 one.
"""
import numpy as np
import pytest

import runtime as ms
from runtime import Tensor, nn
from modes import run_fn
from test_api_doc_examples import JIT_MODES, R24, _expect, check

R110 = "https://www.mindspore.cn/docs/en/r1.10/api_python/"


# -- dynamic learning-rate lists -------------------------------------------------------------------
def _same_list(got, want):
    """A dynamic-LR function returns a Python list of floats, compared to float64 precision."""
    assert isinstance(got, list), type(got)
    assert all(isinstance(v, float) for v in got), got
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)


def test_piecewise_constant_lr():
    # R24 + "nn/mindspore.nn.piecewise_constant_lr.html"; printed in R110 + "nn/mindspore.nn.piecewise_constant_lr.html"
    _same_list(nn.piecewise_constant_lr([2, 5, 10], [0.1, 0.05, 0.01]),
               [0.1, 0.1, 0.05, 0.05, 0.05, 0.01, 0.01, 0.01, 0.01, 0.01])


def test_exponential_decay_lr():
    # R24 + "nn/mindspore.nn.exponential_decay_lr.html"; printed in R110 (same page)
    _same_list(nn.exponential_decay_lr(0.1, 0.9, 6, 2, 1),
               [0.1, 0.1, 0.09000000000000001, 0.09000000000000001, 0.08100000000000002, 0.08100000000000002])


def test_natural_exp_decay_lr():
    # R24 + "nn/mindspore.nn.natural_exp_decay_lr.html"; printed in R110 (same page)
    _same_list(nn.natural_exp_decay_lr(0.1, 0.9, 6, 2, 2, True),
               [0.1, 0.1, 0.1, 0.1, 0.016529888822158657, 0.016529888822158657])


def test_inverse_decay_lr():
    # R24 + "nn/mindspore.nn.inverse_decay_lr.html"; printed in R110 (same page)
    _same_list(nn.inverse_decay_lr(0.1, 0.5, 6, 1, 1, True),
               [0.1, 0.06666666666666667, 0.05, 0.04, 0.03333333333333333, 0.028571428571428574])


def test_cosine_decay_lr():
    # R24 + "nn/mindspore.nn.cosine_decay_lr.html"; printed in R110 (same page)
    _same_list(nn.cosine_decay_lr(0.01, 0.1, 6, 2, 2),
               [0.1, 0.1, 0.05500000000000001, 0.05500000000000001, 0.01, 0.01])


def test_polynomial_decay_lr():
    # R24 + "nn/mindspore.nn.polynomial_decay_lr.html"; printed in R110 (same page)
    _same_list(nn.polynomial_decay_lr(0.1, 0.01, 6, 2, 2, 0.5),
               [0.1, 0.1, 0.07363961030678928, 0.07363961030678928, 0.01, 0.01])


def test_warmup_lr():
    # R24 + "nn/mindspore.nn.warmup_lr.html"; printed in R110 (same page)
    _same_list(nn.warmup_lr(0.1, 6, 2, 2), [0.0, 0.0, 0.05, 0.05, 0.1, 0.1])


def test_dynamic_lr_list_drives_sgd():
    # The r2.4.0 examples end with ``nn.SGD(net.trainable_params(), learning_rate=lr)``: it is accepted
    # and the optimizer's learning rate at step 0 is the list's first entry.
    net = nn.Dense(2, 3)
    optim = nn.SGD(net.trainable_params(), learning_rate=nn.warmup_lr(0.1, 6, 2, 2))
    assert float(optim.get_lr().asnumpy()) == pytest.approx(0.0)


# -- learning-rate schedule Cells --------------------------------------------------------------------
STEP2 = Tensor(2, ms.int32)


def test_exponential_decay_lr_cell():
    # R24 + "nn/mindspore.nn.ExponentialDecayLR.html"; printed in R110 (same page)
    check(nn.ExponentialDecayLR(0.1, 0.9, 4), (STEP2,), 0.09486833, ms.float32)


def test_natural_exp_decay_lr_cell():
    # R24 + "nn/mindspore.nn.NaturalExpDecayLR.html"; printed in R110 (same page)
    check(nn.NaturalExpDecayLR(0.1, 0.9, 4, True), (STEP2,), 0.1, ms.float32)


def test_inverse_decay_lr_cell():
    # R24 + "nn/mindspore.nn.InverseDecayLR.html"; printed in R110 (same page)
    check(nn.InverseDecayLR(0.1, 0.9, 4, True), (STEP2,), 0.1, ms.float32)


def test_cosine_decay_lr_cell():
    # R24 + "nn/mindspore.nn.CosineDecayLR.html"; printed in R110 (same page)
    check(nn.CosineDecayLR(0.01, 0.1, 4), (STEP2,), 0.055, ms.float32)


def test_polynomial_decay_lr_cell():
    # R24 + "nn/mindspore.nn.PolynomialDecayLR.html"; printed in R110 (same page)
    check(nn.PolynomialDecayLR(0.1, 0.01, 4, 0.5), (STEP2,), 0.07363961, ms.float32)


def test_warmup_lr_cell():
    # R24 + "nn/mindspore.nn.WarmUpLR.html"; printed in R110 (same page)
    check(nn.WarmUpLR(0.1, 2), (STEP2,), 0.1, ms.float32)


# -- mindspore.numpy -----------------------------------------------------------------------------------
import runtime.numpy as mnp  # noqa: E402 - grouped with the section that uses it

NP = R24 + "numpy/mindspore.numpy."


def test_numpy_array_creation():
    # NP + "arange.html"
    check(lambda: mnp.arange(0, 5, 1), (), [0, 1, 2, 3, 4], "int")
    check(lambda: mnp.arange(3), (), [0, 1, 2], "int")
    check(lambda: mnp.arange(start=0, stop=3), (), [0, 1, 2], "int")
    check(lambda: mnp.arange(0, stop=3, step=0.5), (), [0., 0.5, 1., 1.5, 2., 2.5], "float")
    # NP + "linspace.html", NP + "logspace.html", NP + "geomspace.html"
    check(lambda: mnp.linspace(0, 5, 6), (), [0., 1., 2., 3., 4., 5.], "float")
    check(lambda: mnp.logspace(0, 5, 6, base=2.0), (), [1., 2., 4., 8., 16., 32.], "float")
    check(lambda: mnp.geomspace(1, 256, num=9), (), [1., 2., 4., 8., 16., 32., 64., 128., 256.], "float", rtol=1e-6)
    check(lambda: mnp.geomspace(1, 256, num=8, endpoint=False), (), [1., 2., 4., 8., 16., 32., 64., 128.], "float",
          rtol=1e-6)
    # NP + "eye.html", NP + "identity.html", NP + "full.html"
    check(lambda: mnp.eye(2, 2), (), [[1., 0.], [0., 1.]], "float")
    check(lambda: mnp.identity(2), (), [[1., 0.], [0., 1.]], "float")
    check(lambda: mnp.full((2, 2), True), (), [[True, True], [True, True]], "bool")
    # NP + "ones_like.html", NP + "zeros_like.html", NP + "full_like.html"
    ones = mnp.ones((4, 1, 2))
    check(mnp.ones_like, (ones,), [[[1., 1.]]] * 4, "float")
    check(mnp.zeros_like, (ones,), [[[0., 0.]]] * 4, "float")
    check(lambda a: mnp.full_like(a, 0.5), (ones,), [[[0.5, 0.5]]] * 4, "float")
    # NP + "tri.html", NP + "tril.html", NP + "triu.html"
    check(lambda: mnp.tri(3, 3, 1), (), [[1., 1., 0.], [1., 1., 1.], [1., 1., 1.]], "float")
    check(mnp.tril, (mnp.ones((3, 3)),), [[1., 0., 0.], [1., 1., 0.], [1., 1., 1.]], "float")
    check(mnp.triu, (mnp.ones((3, 3)),), [[1., 1., 1.], [0., 1., 1.], [0., 0., 1.]], "float")
    # NP + "vander.html"
    check(mnp.vander, (mnp.array([1., 2., 3., 4., 5.]),),
          [[1., 1., 1., 1., 1.], [16., 8., 4., 2., 1.], [81., 27., 9., 3., 1.], [256., 64., 16., 4., 1.],
           [625., 125., 25., 5., 1.]], "float")


def test_numpy_diag_diagonal_trace_meshgrid():
    # NP + "diag.html"
    x = mnp.arange(9).reshape((3, 3))
    check(mnp.diag, (x,), [0, 4, 8], "int")
    check(lambda t: mnp.diag(t, k=1), (x,), [1, 5], "int")
    check(lambda t: mnp.diag(t, k=-1), (x,), [3, 7], "int")
    # NP + "diagonal.html"
    a = mnp.arange(4).reshape(2, 2).astype(mnp.float32)
    check(mnp.diagonal, (a,), [0., 3.], "float")
    check(lambda t: mnp.diagonal(t, 1), (a,), [1.], "float")
    check(lambda t: mnp.diagonal(t, 0, 0, 1), (mnp.arange(8).reshape(2, 2, 2).astype(mnp.float32),),
          [[0., 6.], [1., 7.]], "float")
    # NP + "trace.html"
    check(mnp.trace, (Tensor(np.eye(3, dtype=np.float32)),), 3.0, "float")
    # NP + "meshgrid.html"
    x, y = mnp.linspace(0, 1, 3), mnp.linspace(0, 1, 2)
    check(mnp.meshgrid, (x, y), ([[0., 0.5, 1.], [0., 0.5, 1.]], [[0., 0., 0.], [1., 1., 1.]]), "float")
    check(lambda p, q: mnp.meshgrid(p, q, sparse=True), (x, y), ([[0., 0.5, 1.]], [[0.], [1.]]), "float")


def test_numpy_reductions():
    a = mnp.arange(4).reshape((2, 2)).astype('float32')
    # NP + "amax.html"
    check(mnp.amax, (a,), 3.0, "float")
    check(lambda t: mnp.amax(t, axis=0), (a,), [2., 3.], "float")
    check(lambda t: mnp.amax(t, axis=1), (a,), [1., 3.], "float")
    check(lambda t, w: mnp.amax(t, where=w, initial=-1, axis=0), (a, mnp.array([False, True])), [-1., 3.], "float")
    # NP + "amin.html"
    check(mnp.amin, (a,), 0.0, "float")
    check(lambda t: mnp.amin(t, axis=0), (a,), [0., 1.], "float")
    check(lambda t: mnp.amin(t, axis=1), (a,), [0., 2.], "float")
    check(lambda t, w: mnp.amin(t, where=w, initial=10, axis=0), (a, mnp.array([False, True])), [10., 1.], "float")
    # NP + "mean.html", NP + "std.html", NP + "var.html"
    check(lambda t: mnp.mean(t, 0), (mnp.arange(6, dtype='float32'),), 2.5, "float")
    check(mnp.std, (mnp.array([1., 2., 3., 4.]),), 1.118034, "float")
    check(mnp.var, (mnp.array([1., 2., 3., 4.]),), 1.25, "float")
    # NP + "ptp.html"
    x = mnp.array([[4.0, 9.0, 2.0, 10.0], [6.0, 9.0, 7.0, 12.0]])
    check(lambda t: mnp.ptp(t, axis=1), (x,), [8., 6.], "float")
    check(lambda t: mnp.ptp(t, axis=0), (x,), [2., 0., 5., 2.], "float")
    # NP + "average.html"
    w = mnp.array([[1., 2.], [3., 4.]])
    check(lambda t: mnp.average(t, axis=0, weights=t, returned=True), (w,),
          ([2.50000000e+00, 3.33333325e+00], [4.00000000e+00, 6.00000000e+00]), ms.float32)
    # NP + "nansum.html", NP + "nanmean.html"
    n = mnp.array([[1, 1], [1, np.nan]])
    check(mnp.nansum, (n,), 3.0, "float")
    check(lambda t: mnp.nansum(t, axis=0), (n,), [2., 1.], "float")
    n = mnp.array([[1, np.nan], [3, 4]])
    check(mnp.nanmean, (n,), 2.6666667, "float")
    check(lambda t: mnp.nanmean(t, axis=0), (n,), [2., 4.], "float")
    check(lambda t: mnp.nanmean(t, axis=1), (n,), [1., 3.5], "float")
    # NP + "argmax.html", NP + "argmin.html"
    r = mnp.arange(10, 16).reshape(2, 3)
    check(mnp.argmax, (r,), 5, "int")
    check(lambda t: mnp.argmax(t, axis=0), (r,), [1, 1, 1], "int")
    check(lambda t: mnp.argmax(t, axis=1), (r,), [2, 2], "int")
    check(mnp.argmin, (r,), 0, "int")
    check(lambda t: mnp.argmin(t, axis=0), (r,), [0, 0, 0], "int")
    check(lambda t: mnp.argmin(t, axis=1), (r,), [0, 0], "int")
    # NP + "cumsum.html", NP + "cumprod.html"
    check(lambda t: mnp.cumsum(t, axis=0), (mnp.ones((3, 3)),), [[1., 1., 1.], [2., 2., 2.], [3., 3., 3.]], "float")
    check(mnp.cumprod, (mnp.array([1, 2, 3]),), [1, 2, 6], "int")
    # NP + "norm.html"
    check(mnp.norm, (mnp.arange(9).astype(mnp.float32),), 14.282857, "float")


def test_numpy_amax_where_needs_initial():
    # NP + "amax.html": "If non-default value is passed [for where], initial must also be provided."
    with pytest.raises(ValueError, match="initial"):
        mnp.amax(mnp.ones((2, 2)), where=mnp.array([False, True]), axis=0)


def test_numpy_linalg():
    # NP + "matmul.html"
    x1 = mnp.arange(2 * 3 * 4).reshape(2, 3, 4).astype('float32')
    x2 = mnp.arange(4 * 5).reshape(4, 5).astype('float32')
    check(mnp.matmul, (x1, x2), [[[70., 76., 82., 88., 94.], [190., 212., 234., 256., 278.],
                                  [310., 348., 386., 424., 462.]],
                                 [[430., 484., 538., 592., 646.], [550., 620., 690., 760., 830.],
                                  [670., 756., 842., 928., 1014.]]], "float")
    # NP + "dot.html"
    check(mnp.dot, (mnp.full((1, 3), 7).astype('float32'), mnp.full((2, 3, 4), 5).astype('float32')),
          [[[105.] * 4, [105.] * 4]], "float")
    # NP + "outer.html", NP + "inner.html"
    check(mnp.outer, (mnp.full(7, 2).astype('float32'), mnp.full(4, 3).astype('float32')), [[6.] * 4] * 7, "float")
    check(mnp.inner, (mnp.ones((5, 3)), mnp.ones((2, 7, 3))), [[[3.] * 7] * 2] * 5, "float")
    # NP + "tensordot.html" (prints the shape)
    assert mnp.tensordot(mnp.ones((3, 4, 5)), mnp.ones((4, 3, 2)), axes=([1, 0], [0, 1])).shape == (5, 2)
    # NP + "kron.html"
    check(mnp.kron, (mnp.array([1, 10, 100]), mnp.array([5, 6, 7])), [5, 6, 7, 50, 60, 70, 500, 600, 700], "int")
    check(mnp.kron, (mnp.array([5, 6, 7]), mnp.array([1, 10, 100])), [5, 50, 500, 6, 60, 600, 7, 70, 700], "int")
    check(mnp.kron, (mnp.eye(2), mnp.ones((2, 2))),
          [[1., 1., 0., 0.], [1., 1., 0., 0.], [0., 0., 1., 1.], [0., 0., 1., 1.]], "float")
    # NP + "cross.html"
    x, y = mnp.array([[1, 2, 3], [4, 5, 6]]), mnp.array([[4, 5, 6], [1, 2, 3]])
    check(mnp.cross, (x, y), [[-3, 6, -3], [3, -6, 3]], "int")
    check(lambda p, q: mnp.cross(p, q, axisc=0), (x, y), [[-3, 3], [6, -6], [-3, 3]], "int")


def test_numpy_elementwise_math():
    # NP + "clip.html"
    check(lambda t: mnp.clip(t, 0, 2), (mnp.asarray([1, 2, 3, -4, 0, 3, 2, 0]),), [1, 2, 2, 0, 0, 2, 2, 0], "int")
    # NP + "power.html"
    check(mnp.power, (mnp.full((3, 2), [1, 2]).astype('float32'), mnp.full((3, 2), [3, 4]).astype('float32')),
          [[1., 16.]] * 3, "float")
    # NP + "heaviside.html"
    x = mnp.array([-1.5, 0, 2.0])
    check(mnp.heaviside, (x, mnp.array(0.5)), [0., 0.5, 1.], "float")
    check(mnp.heaviside, (x, mnp.array(1)), [0., 1., 1.], "float")
    # NP + "hypot.html"
    check(mnp.hypot, (3 * mnp.ones((3, 3)), 4 * mnp.ones((3, 3))), [[5.] * 3] * 3, "float")
    check(mnp.hypot, (3 * mnp.ones((3, 3)), mnp.array([4.0])), [[5.] * 3] * 3, "float")
    # NP + "floor_divide.html", NP + "remainder.html", NP + "fmod.html"
    check(mnp.floor_divide, (mnp.array([1., 2., 3., 4.]), mnp.array(2.5)), [0., 0., 1., 1.], "float")
    check(mnp.remainder, (mnp.array([4, 7]), mnp.array([2, 3])), [0, 1], "int")
    check(mnp.remainder, (mnp.arange(7), mnp.array(5)), [0, 1, 2, 3, 4, 0, 1], "int")
    check(mnp.fmod, (mnp.array([-3, -2, -1, 1, 2, 3]), mnp.array(2)), [-1, 0, -1, 1, 0, 1], "int")
    # NP + "fix.html", NP + "trunc.html", NP + "around.html", NP + "sign.html"
    check(mnp.fix, (mnp.array([2.1, 2.9, -2.1, -2.9]),), [2., 2., -2., -2.], "float")
    check(mnp.trunc, (mnp.array([-1.7, -1.5, -0.2, 0.2, 1.5, 1.7, 2.0]),), [-1., -1., -0., 0., 1., 1., 2.], "float")
    check(mnp.around, (mnp.array([-1.3, 0.0, 0.5, 1.5, 2.5]),), [-1., 0., 0., 2., 2.], "float")
    check(mnp.sign, (mnp.array([-1., 0., 1., 1.2]),), [-1., 0., 1., 1.], "float")
    # NP + "gcd.html", NP + "lcm.html"
    check(mnp.gcd, (mnp.arange(6), mnp.array(20)), [20, 1, 2, 1, 4, 5], "int")
    check(mnp.lcm, (mnp.arange(6), mnp.array(20)), [0, 20, 20, 60, 20, 20], "int")
    # NP + "exp2.html", NP + "cbrt.html"
    check(mnp.exp2, (mnp.array([2, 3]).astype(mnp.float32),), [4., 8.], "float")
    check(mnp.cbrt, (mnp.asarray([1, -1, 3, -8, 64]),), [1., -1., 1.4422495, -2., 4.], "float")
    # NP + "log1p.html", NP + "logaddexp.html" (float16: the printed digits)
    check(mnp.log1p, (mnp.array([1, 2, 3]).astype('float16'),), [0.6934, 1.099, 1.387], ms.float16, rtol=1e-3)
    check(mnp.logaddexp, (mnp.array([1, 2, 3]).astype('float16'), mnp.array(2).astype('float16')),
          [2.312, 2.693, 3.312], ms.float16, rtol=1e-3)


def test_numpy_sequences_and_polynomials():
    # NP + "diff.html"
    check(lambda t: mnp.diff(t, n=2), (mnp.array([1, 3, -1, 0, 4]),), [-6, 5, 3], "int")
    # NP + "convolve.html"
    check(lambda a, v: mnp.convolve(a, v, mode="valid"), (mnp.array([1., 2., 3., 4., 5.]), mnp.array([2., 3.])),
          [7., 12., 17., 22.], "float")
    # NP + "interp.html"
    xp, fp = mnp.array([1, 2, 3]), mnp.array([3, 2, 0])
    check(mnp.interp, (mnp.array([0, 1, 1.5, 2.72, 3.14]), xp, fp), [3., 3., 2.5, 0.55999994, 0.], "float")
    check(lambda x, p, f: mnp.interp(x, p, f, right=-99.0), (mnp.array(3.14), xp, fp), -99.0, "float")
    # NP + "digitize.html"
    check(mnp.digitize, (mnp.array([1.2, 10.0, 12.4, 15.5, 20.]), mnp.array([0, 5, 10, 15, 20])), [1, 3, 3, 4, 5],
          "int")
    # NP + "polyval.html"
    check(mnp.polyval, (mnp.array([3., 0., 1.]), mnp.array(5.)), 76.0, "float")


def test_numpy_arithmetic_and_nan_reductions():
    x1, x2 = mnp.full((3, 2), [1, 2]), mnp.full((3, 2), [3, 4])
    # NP + "add.html", "subtract.html", "multiply.html", "divide.html", "true_divide.html"
    check(mnp.add, (x1, x2), [[4, 6]] * 3, "int")
    check(mnp.subtract, (x1, x2), [[-2, -2]] * 3, "int")
    check(mnp.multiply, (x1, x2), [[3, 8]] * 3, "int")
    check(mnp.divide, (x1, x2), [[0.33333334, 0.5]] * 3, "float")
    check(mnp.true_divide, (x1, x2), [[0.33333334, 0.5]] * 3, "float")
    # NP + "maximum.html", NP + "minimum.html"
    check(mnp.maximum, (mnp.array([2, 3, 4]), mnp.array([1, 5, 2])), [2, 5, 4], "int")
    check(mnp.minimum, (mnp.asarray([1, 2]), mnp.asarray([[1, 3], [1, 4]])), [[1, 2], [1, 2]], "int")
    # NP + "square.html", NP + "sqrt.html", NP + "reciprocal.html", NP + "absolute.html", NP + "negative.html"
    x = mnp.arange(6).reshape(2, 3).astype('float32')
    check(mnp.square, (x,), [[0., 1., 4.], [9., 16., 25.]], "float")
    check(lambda t: mnp.sqrt(mnp.square(t)), (x,), [[0., 1., 2.], [3., 4., 5.]], "float")
    check(mnp.reciprocal, (mnp.arange(1, 7).reshape(2, 3).astype('float32'),),
          [[1., 0.5, 0.33333334], [0.25, 0.2, 0.16666667]], "float")
    check(mnp.absolute, (mnp.asarray([1, 2, 3, -4, -5], mnp.float32),), [1., 2., 3., 4., 5.], "float")
    check(mnp.negative, (mnp.asarray([1, -1]).astype('float32'),), [-1., 1.], "float")
    # NP + "floor.html", NP + "ceil.html"
    f = mnp.array([-1.7, -1.5, -0.2, 0.2, 1.5, 1.7, 2.0])
    check(mnp.floor, (f,), [-2., -2., -1., 0., 1., 1., 2.], "float")
    check(mnp.ceil, (f,), [-1., -1., -0., 1., 2., 2., 2.], "float")
    # NP + "log2.html", NP + "log10.html" (float16)
    check(mnp.log2, (mnp.array([2, 4, 8]).astype('float16'),), [1., 2., 3.], ms.float16)
    check(mnp.log10, (mnp.array([10, 100, 1000]).astype('float16'),), [1., 2., 3.], ms.float16, rtol=1e-3)
    # NP + "count_nonzero.html", NP + "ediff1d.html", NP + "trapz.html"
    check(mnp.count_nonzero, (mnp.asarray([1, 2, 3, -4, 0, 3, 2, 0]),), 6, "int")
    check(mnp.ediff1d, (mnp.array([1, 3, -1, 0, 4]),), [2, -4, 1, 4], "int")
    a = mnp.arange(6).reshape(2, 3)
    check(lambda t: mnp.trapz(t, x=[-2, 1, 2], axis=1), (a,), [3., 15.], "float")
    check(lambda t: mnp.trapz(t, dx=3, axis=0), (a,), [4.5, 7.5, 10.5], "float")
    # NP + "cov.html"
    check(mnp.cov, (mnp.array([[2., 3., 4., 5.], [0., 2., 3., 4.], [7., 8., 9., 10.]]),),
          [[1.6666666, 2.1666667, 1.6666666], [2.1666667, 2.9166667, 2.1666667], [1.6666666, 2.1666667, 1.6666666]],
          "float")
    # NP + "nanmax.html", NP + "nanmin.html", NP + "nancumsum.html"
    n = mnp.array([[1, 2], [3, np.nan]])
    check(mnp.nanmax, (n,), 3.0, "float")
    check(lambda t: mnp.nanmax(t, axis=0), (n,), [3., 2.], "float")
    check(mnp.nanmin, (n,), 1.0, "float")
    check(lambda t: mnp.nanmin(t, axis=0), (n,), [1., 2.], "float")
    check(mnp.nancumsum, (n,), [1., 3., 6., 6.], "float")
    check(lambda t: mnp.nancumsum(t, axis=0), (n,), [[1., 2.], [4., 2.]], "float")
    check(lambda t: mnp.nancumsum(t, axis=1), (n,), [[1., 3.], [3., 3.]], "float")
    # NP + "nanvar.html", NP + "nanstd.html"
    n = mnp.array([[1, np.nan], [3, 4]])
    check(mnp.nanvar, (n,), 1.5555557, "float")
    check(lambda t: mnp.nanvar(t, axis=0), (n,), [1., 0.], "float")
    check(lambda t: mnp.nanvar(t, axis=1), (n,), [0., 0.25], "float")
    check(mnp.nanstd, (n,), 1.2472192, "float")
    check(lambda t: mnp.nanstd(t, axis=0), (n,), [1., 0.], "float")
    check(lambda t: mnp.nanstd(t, axis=1), (n,), [0., 0.5], "float")
    # NP + "histogram_bin_edges.html", NP + "size.html"
    check(lambda t: mnp.histogram_bin_edges(t, bins=2), (mnp.array([0, 0, 0, 1, 2, 3, 3, 4, 5]),), [0., 2.5, 5.],
          "float")
    s = mnp.arange(10).reshape(2, 5).astype('float32')
    assert (mnp.size(s), mnp.size(s, axis=1)) == (10, 5)
    # NP + "column_stack.html", NP + "dstack.html", NP + "ix_.html"
    c1, c2 = mnp.array([1, 2, 3]).astype('int32'), mnp.array([4, 5, 6]).astype('int32')
    check(lambda a, b: mnp.column_stack((a, b)), (c1, c2), [[1, 4], [2, 5], [3, 6]], ms.int32)
    check(lambda a, b: mnp.dstack((a, b)), (c1.astype('float32'), c2.astype('float32')),
          [[[1., 4.], [2., 5.], [3., 6.]]], ms.float32)
    check(mnp.ix_, (mnp.array([0, 1]), mnp.array([2, 4])), ([[0], [1]], [[2, 4]]), ms.int32)
    # NP + "array_split.html"
    check(lambda t: mnp.array_split(t, 4), (mnp.arange(9).astype("float32"),),
          ([0., 1., 2.], [3., 4.], [5., 6.], [7., 8.]), ms.float32)


def test_numpy_dtype_of_copysign_polyder_bincount():
    # NP + "copysign.html": integer x1 stays integer (ops.copysign's result is float, see round 1)
    check(mnp.copysign, (mnp.array([1, -1, -1]), mnp.array([-1, 1, -1])), [-1, 1, -1], "int")
    # NP + "polyder.html"
    check(mnp.polyder, (mnp.array([1, 1, 1, 1]),), [3, 2, 1], "int")
    # NP + "bincount.html" (the length is read from the data: a graph break under jit, same result)
    check(mnp.bincount, (mnp.arange(5),), [1., 1., 1., 1., 1.], "float")


def test_numpy_manipulation():
    # NP + "expand_dims.html", NP + "squeeze.html", NP + "swapaxes.html" (print the shape)
    assert mnp.expand_dims(mnp.ones((2, 2)), 0).shape == (1, 2, 2)
    assert mnp.squeeze(mnp.ones((1, 2, 2, 1))).shape == (2, 2)
    assert mnp.swapaxes(mnp.ones((2, 3, 4)), 0, 2).shape == (4, 3, 2)
    # NP + "concatenate.html", NP + "append.html", NP + "stack.html", NP + "moveaxis.html"
    assert mnp.concatenate((mnp.ones((1, 2, 3)), mnp.ones((1, 2, 1))), axis=-1).shape == (1, 2, 4)
    assert mnp.append(mnp.ones((2, 3)), mnp.ones((2, 1)), axis=1).shape == (2, 4)
    arrays = [mnp.ones((3, 4)) for _ in range(10)]
    assert [mnp.stack(arrays, axis=a).shape for a in (0, 1, 2)] == [(10, 3, 4), (3, 10, 4), (3, 4, 10)]
    z = mnp.zeros((3, 4, 5))
    assert mnp.moveaxis(z, 0, -1).shape == (4, 5, 3)
    assert mnp.moveaxis(z, -1, 0).shape == (5, 3, 4)
    assert mnp.moveaxis(z, [0, 1, 2], [-1, -2, -3]).shape == (5, 4, 3)
    # NP + "vstack.html", NP + "hstack.html"
    check(lambda a, b: mnp.vstack((a, b)), (mnp.array([1, 2, 3]).astype('int32'), mnp.array([4, 5, 6]).astype('int32')),
          [[1, 2, 3], [4, 5, 6]], ms.int32)
    check(lambda a, b: mnp.hstack((a, b)),
          (mnp.array([1, 2, 3]).astype('float32'), mnp.array([4, 5, 6]).astype('float32')),
          [1., 2., 3., 4., 5., 6.], ms.float32)
    # NP + "where.html"
    check(mnp.where, (mnp.full((1, 1, 2), [False, True]), mnp.full((1, 3, 2), 5), mnp.full((2, 1, 1), 7)),
          [[[7, 5]] * 3] * 2, "int")
    # NP + "roll.html"
    check(lambda t: mnp.roll(t, [2, -3], [0, -1]), (mnp.reshape(mnp.arange(12), (3, 4)),),
          [[7, 4, 5, 6], [11, 8, 9, 10], [3, 0, 1, 2]], "int")
    # NP + "tile.html"
    a = mnp.array([0, 1, 2])
    check(lambda t: mnp.tile(t, 2), (a,), [0, 1, 2, 0, 1, 2], "int")
    check(lambda t: mnp.tile(t, (2, 2)), (a,), [[0, 1, 2, 0, 1, 2]] * 2, "int")
    check(lambda t: mnp.tile(t, (2, 1, 2)), (a,), [[[0, 1, 2, 0, 1, 2]]] * 2, "int")
    # NP + "broadcast_to.html"
    check(lambda t: mnp.broadcast_to(t, (3, 3)), (mnp.array([1, 2, 3]),), [[1, 2, 3]] * 3, "int")
    # NP + "flip.html"
    f = mnp.arange(8.0).reshape((2, 2, 2))
    check(mnp.flip, (f,), [[[7., 6.], [5., 4.]], [[3., 2.], [1., 0.]]], "float")
    check(lambda t: mnp.flip(t, (0, 2)), (f,), [[[5., 4.], [7., 6.]], [[1., 0.], [3., 2.]]], "float")
    # NP + "take_along_axis.html", NP + "take.html"
    check(lambda x, i: mnp.take_along_axis(x, i, 1), (mnp.arange(12).reshape(3, 4), mnp.arange(3).reshape(1, 3)),
          [[0, 1, 2], [4, 5, 6], [8, 9, 10]], "int")
    t = mnp.array([4, 3, 5, 7, 6, 8])
    check(mnp.take, (t, mnp.array([0, 1, 4])), [4, 3, 6], "int")
    check(mnp.take, (t, mnp.array([[0, 1], [2, 3]])), [[4, 3], [5, 7]], "int")
    # NP + "repeat.html"
    check(lambda t: mnp.repeat(t, 4), (mnp.array(3),), [3, 3, 3, 3], "int")
    x = mnp.array([[1, 2], [3, 4]])
    check(lambda t: mnp.repeat(t, 2), (x,), [1, 1, 2, 2, 3, 3, 4, 4], "int")
    check(lambda t: mnp.repeat(t, 3, axis=1), (x,), [[1, 1, 1, 2, 2, 2], [3, 3, 3, 4, 4, 4]], "int")
    check(lambda t: mnp.repeat(t, [1, 2], axis=0), (x,), [[1, 2], [3, 4], [3, 4]], "int")
    # NP + "rot90.html"
    r = mnp.arange(24).reshape((2, 3, 4))
    check(mnp.rot90, (r,), [[[8, 9, 10, 11], [20, 21, 22, 23]], [[4, 5, 6, 7], [16, 17, 18, 19]],
                            [[0, 1, 2, 3], [12, 13, 14, 15]]], "int")
    check(lambda t: mnp.rot90(t, 3, (1, 2)), (r,),
          [[[8, 4, 0], [9, 5, 1], [10, 6, 2], [11, 7, 3]], [[20, 16, 12], [21, 17, 13], [22, 18, 14], [23, 19, 15]]],
          "int")
    # NP + "select.html", NP + "choose.html"
    check(lambda: mnp.select([[True, True, True, False, False], [False, False, True, False, True]],
                             [[0, 1, 2, 3, 4], [0, 1, 4, 9, 16]]), (), [0, 1, 2, 0, 16], "int")
    choices = [[0, 1, 2, 3], [10, 11, 12, 13], [20, 21, 22, 23], [30, 31, 32, 33]]
    check(lambda: mnp.choose([2, 3, 1, 0], choices), (), [20, 31, 12, 3], "int")
    check(lambda: mnp.choose([2, 4, 1, 0], choices, mode='clip'), (), [20, 31, 12, 3], "int")
    check(lambda: mnp.choose([2, 4, 1, 0], choices, mode='wrap'), (), [20, 1, 12, 3], "int")
    check(lambda: mnp.choose([[1, 0, 1], [0, 1, 0], [1, 0, 1]], [-10, 10]), (),
          [[10, -10, 10], [-10, 10, -10], [10, -10, 10]], "int")
    # NP + "split.html"
    check(lambda t: mnp.split(t, 3), (mnp.arange(9).astype("float32"),),
          ([0., 1., 2.], [3., 4., 5.], [6., 7., 8.]), ms.float32)
    # NP + "unravel_index.html"
    check(lambda: mnp.unravel_index([22, 41, 37], (7, 6)), (), ([3, 6, 6], [4, 5, 1]), ms.int32)
    check(lambda: mnp.unravel_index([31, 41, 13], (7, 6), order='F'), (), ([3, 6, 6], [4, 5, 1]), ms.int32)
    # NP + "unique.html" (a data-dependent shape: eager only)
    u = mnp.asarray([1, 2, 2, 2, 3, 4, 5]).astype('int32')
    check(mnp.unique, (u,), [1, 2, 3, 4, 5], ms.int32, modes=("pynative",))
    check(lambda t: mnp.unique(t, return_inverse=True), (u,), ([1, 2, 3, 4, 5], [0, 1, 1, 1, 2, 3, 4]), ms.int32,
          modes=("pynative",))


def test_numpy_search_histogram_matrix_power():
    # NP + "searchsorted.html"
    s = mnp.array([1, 2, 3, 4, 5])
    check(lambda a: mnp.searchsorted(a, 3), (s,), 2, "int")
    check(lambda a: mnp.searchsorted(a, 3, side='right'), (s,), 3, "int")
    check(lambda a: mnp.searchsorted(a, mnp.array([-10, 10, 2, 3])), (s,), [0, 5, 1, 2], "int")
    # NP + "histogram.html"
    check(lambda: mnp.histogram([1, 2, 1], bins=[0, 1, 2, 3]), (), ([0., 2., 1.], [0, 1, 2, 3]),
          (ms.float32, ms.int32))
    check(lambda: mnp.histogram(mnp.arange(4), bins=mnp.arange(5), density=True), (),
          ([2.5e-01] * 4, [0, 1, 2, 3, 4]), (ms.float32, ms.int32))
    check(lambda: mnp.histogram([[1, 2, 1], [1, 0, 1]], bins=[0, 1, 2, 3]), (), ([1., 4., 1.], [0, 1, 2, 3]),
          (ms.float32, ms.int32))
    # NP + "matrix_power.html"
    check(lambda a: mnp.matrix_power(a, 2), (mnp.arange(16).reshape(4, 4).astype('float32'),),
          [[56., 62., 68., 74.], [152., 174., 196., 218.], [248., 286., 324., 362.], [344., 398., 452., 506.]],
          "float")


def test_numpy_logic():
    # NP + "isfinite.html", NP + "signbit.html", NP + "logical_and.html"
    check(mnp.isfinite, (mnp.array([np.inf, 1., np.nan]).astype('float32'),), [False, True, False], ms.bool_)
    check(mnp.signbit, (mnp.array([1, -2.3, 2.1]).astype('float32'),), [False, True, False], ms.bool_)
    check(mnp.logical_and, (mnp.array([True, False]), mnp.array([False, False])), [False, False], ms.bool_)
    # NP + "isclose.html"
    a = mnp.array([0, 1, 2, float('inf'), float('inf'), float('nan')])
    b = mnp.array([0, 1, -2, float('-inf'), float('inf'), float('nan')])
    check(mnp.isclose, (a, b), [True, True, False, False, True, False], ms.bool_)
    check(lambda p, q: mnp.isclose(p, q, equal_nan=True), (a, b), [True, True, False, False, True, True], ms.bool_)
    # NP + "in1d.html", NP + "isin.html"
    test = mnp.array([0, 1, 2, 5, 0])
    check(lambda t: mnp.in1d(t, [0, 2]), (test,), [True, False, True, False, True], ms.bool_)
    check(lambda t: mnp.in1d(t, [0, 2], invert=True), (test,), [False, True, False, True, False], ms.bool_)
    element = 2 * mnp.arange(4).reshape((2, 2))
    check(lambda t: mnp.isin(t, [1, 2, 4, 8]), (element,), [[False, True], [True, False]], ms.bool_)
    check(lambda t: mnp.isin(t, [1, 2, 4, 8], invert=True), (element,), [[True, False], [False, True]], ms.bool_)
    # NP + "array_equal.html" ("Scalar bool tensor")
    check(lambda: mnp.array_equal([0, 1, 2], [[0, 1, 2], [0, 1, 2]]), (), False, ms.bool_)


def test_numpy_result_type_accepts_numpy_type_codes():
    # NP + "result_type.html" (str arguments: "the operands of some operation")
    assert str(mnp.result_type('i2', mnp.float32, True)) == "Float32"
    with pytest.raises(TypeError, match="dtype"):
        mnp.result_type("nonsense")


# Left out of mindspore.numpy (page inconsistent with its own text, or not ours to match):
# - NP + "indices.html": the text says it "returns one array of grid indices" (as numpy), the example
#   prints a list of Tensors; ours returns the one array.
# - NP + "piecewise.html": the text says the output has "the same shape and type as x" (x from
#   linspace, float), the example prints an int array; ours follows the text.
# - NP + "bartlett/blackman/hamming/hanning/log/exp/sin/...": the printed digits differ from the float32
#   formula in the last one or two places (device arithmetic); those functions are checked against
#   numpy in test_mindspore_numpy.py instead.
# - NP + "rand/randn/randint.html": random draws of MindSpore's own generator.
# - NP + "ravel_multi_index.html": prints float32 indices (an artifact of MindSpore's float32 sum; ours
#   are int32, noted in docs/mindspore-compat.md); the values [22 41 37] are the same.
# - NP + "invert.html": uses uint16, a dtype this framework does not have.


def test_numpy_pad():
    # NP + "pad.html"
    t = mnp.array([1., 2., 3., 4., 5.])
    check(lambda a: mnp.pad(a, (3, 4)), (t,), [0., 0., 0., 1., 2., 3., 4., 5., 0., 0., 0., 0.], "float")
    check(lambda a: mnp.pad(a, (3, 4), mode="wrap"), (t,), [3., 4., 5., 1., 2., 3., 4., 5., 1., 2., 3., 4.], "float")
    check(lambda a: mnp.pad(a, (3, 4), mode="linear_ramp", end_values=(10, 10)), (t,),
          [10., 7., 4., 1., 2., 3., 4., 5., 6.25, 7.5, 8.75, 10.], "float")


# -- Tensor attributes and conversions ------------------------------------------------------------------
# Most r2.4.0 Tensor method pages only refer to the ops.* function ("For details, please refer to
# mindspore.ops.cumsum()"), whose examples round 1 checks; these are the pages with their own examples.
TP = R24 + "mindspore/Tensor/mindspore.Tensor."


def test_tensor_attributes():
    x = Tensor(np.array([[1, 2], [3, 4]]))
    # TP + "size.html", TP + "ndim.html", TP + "itemsize.html", TP + "nbytes.html"
    assert (x.size, x.ndim, x.itemsize, x.nbytes) == (4, 2, 8, 32)
    # TP + "strides.html"
    assert Tensor(np.array([[1, 2], [3, 4]]), dtype=ms.int64).strides == (16, 8)
    # TP + "T.html"
    check(lambda t: t.T, (x,), [[1, 3], [2, 4]], "int")
    # TP + "from_numpy.html"
    _expect(Tensor.from_numpy(np.array([1, 2])), [1, 2], "int")
    # TP + "view_as.html"
    check(lambda a, b: a.view_as(b), (Tensor([[1, 2, 3], [2, 3, 4]], ms.float32), Tensor([1, 1, 1, 1, 1, 1], ms.float32)),
          [1., 2., 3., 2., 3., 4.], ms.float32)
    # TP + "ravel.html"
    assert Tensor(np.ones((2, 3, 4), dtype=np.float32)).ravel().shape == (24,)


def test_tensor_dtype_conversions():
    # TP + "bool.html", "float.html", "half.html", "int.html", "long.html" (print the dtype)
    f32 = Tensor(np.ones([2, 2]), ms.float32)
    i32 = Tensor(np.ones([2, 2]), ms.int32)
    for method, src, want in (("bool", f32, ms.bool_), ("float", i32, ms.float32), ("half", i32, ms.float16),
                              ("int", f32, ms.int32), ("long", i32, ms.int64)):
        for mode in JIT_MODES:
            out = run_fn(mode, lambda t: getattr(t, method)(), src)
            assert out.dtype == want and str(out.dtype) == str(want), (method, mode, out.dtype)
    # TP + "is_signed.html": its second half uses uint64, a dtype this framework does not have.
    assert Tensor([1, 2, 3], ms.int64).is_signed() is True


# -- dataset transforms -----------------------------------------------------------------------------------
# These pages print the shape and dtype of an eager call (a numpy array) and of the first row of a
# pipeline; random inputs (np.random.randint images) are drawn here as there.
import runtime.dataset as ds  # noqa: E402
import runtime.dataset.transforms as transforms  # noqa: E402
import runtime.dataset.vision as vision  # noqa: E402

DS = R24 + "dataset_transforms/mindspore.dataset."
DV = R24 + "dataset_vision/mindspore.dataset."


def _shape_dtype(x):
    x = np.asarray(x)
    return x.shape, str(x.dtype)


def _first_row(dataset, column):
    for item in dataset.create_dict_iterator(num_epochs=1, output_numpy=True):
        return _shape_dtype(item[column])


def test_dataset_transforms_documented_shapes_and_dtypes():
    # DS + "transforms.Concatenate.html"
    out = transforms.Concatenate(0, np.array([10, 20]), np.array([100]))(np.array([1, 2, 3]))
    assert _shape_dtype(out) == ((6,), "int64")
    data = ds.NumpySlicesDataset([["This", "is", "a", "string"]]).map(
        operations=transforms.Concatenate(0, np.array(["dw", "df"]), np.array(["dwsdf", "df"])))
    assert _first_row(data, "column_0") == ((8,), "<U6")
    # DS + "transforms.Duplicate.html"
    assert _shape_dtype(transforms.Duplicate()([1, 2, 3])) == ((2, 3), "int64")
    data = ds.NumpySlicesDataset([[1, 2, 3]], ["x"]).map(operations=transforms.Duplicate(), input_columns=["x"],
                                                         output_columns=["x", "y"])
    assert _first_row(data, "x") == _first_row(data, "y") == ((3,), "int64")
    # DS + "transforms.OneHot.html"
    assert _shape_dtype(transforms.OneHot(num_classes=5, smoothing_rate=0)(np.array([1, 2, 3]))) == ((3, 5), "int64")
    data = ds.NumpySlicesDataset([1, 2, 3, 4, 5, 6, 7, 8], ["label"]).map(operations=transforms.OneHot(num_classes=10),
                                                                            input_columns=["label"])
    assert _first_row(data, "label") == ((10,), "int64")
    # DS + "transforms.PadEnd.html" (the page's table shows the padded row [1,2,3,10])
    out = transforms.PadEnd(pad_shape=[4], pad_value=10)([1, 2, 3])
    assert _shape_dtype(out) == ((4,), "int64")
    np.testing.assert_array_equal(out, [1, 2, 3, 10])
    data = ds.NumpySlicesDataset([[1, 2, 3]], ["col"]).map(operations=transforms.PadEnd(pad_shape=[4], pad_value=10))
    assert _first_row(data, "col") == ((4,), "int64")
    # DS + "transforms.TypeCast.html"
    out = transforms.TypeCast(np.float16)(np.array([2.71606445312564e-03, 6.3476562564e-03]).astype(np.float64))
    assert _shape_dtype(out) == ((2,), "float16")

    def generator_1d():
        for i in range(64):
            yield (np.array([i]),)
    data = ds.GeneratorDataset(generator_1d, column_names="col").map(operations=transforms.TypeCast(ms.int32))
    assert _first_row(data, "col") == ((1,), "int32")


def test_dataset_vision_documented_shapes_and_dtypes():
    small = np.array([[0, 1, 2, 3, 4, 5], [0, 1, 2, 3, 4, 5]], dtype=np.uint8).reshape((2, 2, 3))
    # DV + "vision.CenterCrop.html", DV + "vision.HWC2CHW.html"
    assert _shape_dtype(vision.CenterCrop(1)(small)) == ((1, 1, 3), "uint8")
    assert _shape_dtype(vision.HWC2CHW()(small)) == ((3, 2, 2), "uint8")
    image = np.random.randint(0, 255, size=(100, 100, 3)).astype(np.uint8)
    # DV + "vision.Normalize.html", DV + "vision.Pad.html", DV + "vision.Rescale.html", DV + "vision.ToTensor.html"
    assert _shape_dtype(vision.Normalize(mean=[121.0, 115.0, 100.0], std=[70.0, 68.0, 71.0])(image)) == \
        ((100, 100, 3), "float32")
    assert _shape_dtype(vision.Pad([100, 100, 100, 100])(image)) == ((300, 300, 3), "uint8")
    assert _shape_dtype(vision.Rescale(1.0 / 255.0, -1.0)(image)) == ((100, 100, 3), "float32")
    assert _shape_dtype(vision.ToTensor()(image)) == ((3, 100, 100), "float32")
    batch = np.random.randint(0, 255, size=(1, 100, 100, 3)).astype(np.uint8)
    for operations, want in (
            ([vision.CenterCrop(50)], ((50, 50, 3), "uint8")),
            ([vision.CenterCrop((60, 40))], ((60, 40, 3), "uint8")),
            ([vision.Normalize(mean=[121.0, 115.0, 100.0], std=[70.0, 68.0, 71.0], is_hwc=True)],
             ((100, 100, 3), "float32")),
            ([vision.Pad([100, 100, 100, 100])], ((300, 300, 3), "uint8")),
            ([vision.Rescale(1.0 / 255.0, -1.0)], ((100, 100, 3), "float32")),
            ([vision.RandomHorizontalFlip(0.75), vision.RandomCrop(64), vision.HWC2CHW()], ((3, 64, 64), "uint8")),
            (transforms.Compose([vision.RandomHorizontalFlip(0.5), vision.ToTensor()]), ((3, 100, 100), "float32"))):
        data = ds.NumpySlicesDataset(batch, ["image"]).map(operations=operations, input_columns=["image"])
        assert _first_row(data, "image") == want, operations
