"""A class index outside [0, C) is an error, never a silently zero loss (PyNative and graph mode)."""
import numpy as np
import pytest

import capture
from runtime import Tensor, nn, ops


def test_one_hot_strict_and_lenient():
    idx = Tensor(np.array([0, 3], np.int32))
    np.testing.assert_array_equal(ops.one_hot(idx, 3).asnumpy(), [[1, 0, 0], [0, 0, 0]])  # MindSpore: zeros
    with pytest.raises(ValueError, match=r"OneHot.*index 3 is out of range \[0, 3\)"):
        ops.one_hot(idx, 3, strict=True)


@pytest.mark.parametrize("mode", ["pynative", "jit"])
def test_cross_entropy_rejects_bad_class_index(mode):
    loss = nn.CrossEntropyLoss()
    x = Tensor(np.zeros((2, 5), np.float32))
    fn = (lambda a, b: loss(a, b)) if mode == "pynative" else capture.jit(lambda a, b: loss(a, b))
    good = fn(x, Tensor(np.array([1, 4], np.int32)))
    np.testing.assert_allclose(good.asnumpy(), np.log(5.0), rtol=1e-6)
    ignored = fn(x, Tensor(np.array([1, -100], np.int32)))  # ignore_index is not an error
    np.testing.assert_allclose(ignored.asnumpy(), np.log(5.0), rtol=1e-6)
    with pytest.raises(ValueError, match="out of range"):
        fn(x, Tensor(np.array([1, 7], np.int32)))
