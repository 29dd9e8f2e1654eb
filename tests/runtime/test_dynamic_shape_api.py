"""MindSpore 2.x's API for declaring dynamic shapes: placeholders, Symbol, Cell.set_inputs and
jit(input_signature=...): declared inputs check the calls (ValueError naming the argument, the
declared and the actual shape) in both modes."""
import numpy as np
import pytest

import runtime as ms
from runtime import nn, ops


def t(*shape, dtype=np.float32):
    return ms.Tensor(np.ones(shape, dtype))


class Double(nn.Cell):
    def construct(self, x):
        return ops.relu(x) * 2


def test_placeholder_has_declared_shape_and_no_data():
    p = ms.Tensor(shape=[None, 784], dtype=ms.float32)
    assert p.shape == (-1, 784) and p.dtype == ms.float32 and p.ndim == 2
    assert "placeholder [None, 784]" in repr(p)
    with pytest.raises(TypeError, match="placeholder"):
        p.asnumpy()
    with pytest.raises(ValueError, match="needs a dtype"):
        ms.Tensor(shape=[None, 3])


def test_symbol_validates_its_arguments_as_mindspore():
    with pytest.raises(TypeError):
        ms.Symbol(max=1.5)
    with pytest.raises(TypeError):
        ms.Symbol(unique=1)
    with pytest.raises(ValueError):
        ms.Symbol(min=0)
    with pytest.raises(ValueError):
        ms.Symbol(divisor=0)
    with pytest.raises(ValueError):
        ms.Symbol(divisor=4, remainder=4)
    s = ms.Symbol(max=32, min=2, divisor=8, remainder=1)
    assert [n for n in range(40) if s.violation(n) is None] == [9, 17, 25]


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_set_inputs_checks_calls_in_both_modes(mode):
    ms.set_context(mode=mode)
    try:
        net = Double()
        net.set_inputs(ms.Tensor(shape=[None, 4], dtype=ms.float32))
        assert net.get_inputs()[0].shape == (-1, 4)
        for n in (3, 7, 2):
            np.testing.assert_array_equal(net(t(n, 4)).asnumpy(), np.full((n, 4), 2, np.float32))
        with pytest.raises(ValueError) as e:
            net(t(3, 5))
        assert str(e.value) == ("Double.set_inputs: argument 0 (x) has shape (3, 5), which does not match the "
                                "declared shape [None, 4]: dim 1 is 5, declared 4")
        with pytest.raises(ValueError, match=r"has shape \(3,\).*rank 1 instead of 2"):
            net(t(3))
        with pytest.raises(ValueError, match="argument 0 \\(x\\) has dtype Int32, declared Float32"):
            net(t(3, 4, dtype=np.int32))
        with pytest.raises(ValueError, match="1 input\\(s\\) were declared, the call gives 2"):
            net(t(3, 4), t(3, 4))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_symbol_constraints_and_unique_are_checked():
    s = ms.Symbol(max=16, divisor=4)
    u = ms.Symbol(unique=True)
    net = Double()
    net.set_inputs(ms.Tensor(shape=[s, u, u], dtype=ms.float32))
    assert net(t(8, 3, 3)).shape == (8, 3, 3)
    with pytest.raises(ValueError, match=r"dim 0 \(20\) is above max=16"):
        net(t(20, 3, 3))
    with pytest.raises(ValueError, match=r"dim 0 \(6\) is not a multiple of 4 plus 0"):
        net(t(6, 3, 3))
    with pytest.raises(ValueError, match=r"dim 2 \(4\) and dim 1 of argument 0 \(3\) share a unique Symbol"):
        net(t(8, 3, 4))


def test_jit_input_signature_checks_calls_also_after_the_call_is_repeated_in_c():
    @ms.jit(input_signature=(ms.Tensor(shape=[ms.Symbol(max=8), 2], dtype=ms.float32), None))
    def f(x, k):
        return x * k

    for n in (3, 3, 3, 5, 5):
        np.testing.assert_array_equal(f(t(n, 2), 2.0).asnumpy(), np.full((n, 2), 2, np.float32))
    with pytest.raises(ValueError) as e:
        f(t(9, 2), 2.0)
    assert str(e.value) == ("f: input_signature: argument 0 (x) has shape (9, 2), which does not match the "
                            "declared shape [Symbol(max=8), 2]: dim 0 (9) is above max=8")
    with pytest.raises(TypeError, match="input_signature must be a Tensor or a tuple"):
        ms.jit(lambda x: x, input_signature=[3])
