"""The promotion targets memoised by operand kind (graph/ops/promotion.py) are the rule's own
answers: every pair of dtypes and Python scalar kinds, asked twice (the second answer from the
memo), equals the unmemoised rule, and a scalar subclass (numpy's float64 is a ``float``) is
never taken for the plain type."""
import itertools

import numpy as np
import pytest

from graph.ops import REGISTRY
from graph.ops import promotion

DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.int32, np.int64, np.float16, np.float32, np.float64]
SCALARS = [True, 3, 2.5, np.float64(2.5), np.int64(3), np.float32(1.5)]


def _operands():
    arrays = [np.ones(2, d) for d in DTYPES]
    for a, b in itertools.product(arrays + SCALARS, repeat=2):
        if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
            yield a, b


@pytest.mark.parametrize("name", ["add", "mul", "maximum", "div"])
def test_memoised_targets_equal_the_rule(name):
    op = REGISTRY[name]
    promotion._TARGETS.clear()
    for operands in _operands():
        want = promotion._target(op, list(operands))
        assert promotion.promotion_target(op, list(operands)) == want, operands
        assert promotion.promotion_target(op, list(operands)) == want, operands  # from the memo
    assert promotion._TARGETS  # (the memo was used)


def test_scalar_subclasses_and_other_operands_are_not_memoised():
    op = REGISTRY["add"]
    assert promotion._memo_key(op, [np.ones(2, np.int32), np.float64(2.5)]) is None
    assert promotion._memo_key(op, [np.ones(2, np.int32), [1, 2]]) is None
    assert promotion._memo_key(op, [np.ones(2, np.int32), 2.5]) == (op, np.dtype(np.int32), float)
