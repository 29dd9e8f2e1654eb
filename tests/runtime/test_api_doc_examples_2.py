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
from test_api_doc_examples import JIT_MODES, R24, T, _expect, check

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
