"""MindSpore static-graph syntax that plain Python lacks, accepted where MindSpore compiles code
(GRAPH_MODE and ``jit`` functions, also in PyNative) and refused as plain Python refuses it
elsewhere (PyNative without jit, with or without the frame hook):

- ``self.weight = 1`` in ``construct``: a Python number assigned to a Parameter attribute fills
  the Parameter with it (the static-graph syntax page's attribute-assignment example); the
  attribute stays the same Parameter.
- ``d.has_key(key)`` on a dict (listed among the dict methods of the static-graph syntax page).

Oracles: numpy fills and Python's ``key in d``; eager PyNative for the refusals."""
import numpy as np
import pytest

import capture
import runtime as ms
from runtime import Parameter, Tensor, nn


class FillWeight(nn.Cell):
    def __init__(self, value):
        super().__init__()
        self.value = value
        self.weight = Parameter(Tensor(np.array([2.0, 3.0, 4.0], np.float32)), name="weight")

    def construct(self, x):
        self.weight = self.value
        return x * self.weight


def _in_graph_mode(fn, *args):
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        return fn(*args)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.parametrize("mode", ["jit", "jit_cell", "graph"])
@pytest.mark.parametrize("value", [1, -2.5, True])
def test_a_python_number_assigned_to_a_parameter_fills_it(mode, value):
    net = FillWeight(value)
    param = net.weight
    x = Tensor(np.array([1.0, -2.0, 0.5], np.float32))
    if mode == "jit":
        out = ms.jit(net.construct)(x)
    elif mode == "jit_cell":
        out = ms.jit(net)(x)
    else:
        out = _in_graph_mode(net, x)
    filled = np.full(3, value, np.float32)
    np.testing.assert_array_equal(out.asnumpy(), x.asnumpy() * filled)
    assert net.weight is param and isinstance(net.weight, Parameter)
    np.testing.assert_array_equal(net.weight.asnumpy(), filled)
    # a second call (the compiled graph again) fills again after the Parameter changed
    param.set_data(Tensor(np.zeros(3, np.float32)))
    out = ms.jit(net.construct)(x) if mode == "jit" else (ms.jit(net)(x) if mode == "jit_cell"
                                                         else _in_graph_mode(net, x))
    np.testing.assert_array_equal(net.weight.asnumpy(), filled)


def test_a_python_number_assigned_to_a_parameter_in_pynative_raises_as_eagerly():
    x = Tensor(np.ones(3, np.float32))
    with pytest.raises(TypeError, match="holds a Parameter"):
        FillWeight(1)(x)
    net = FillWeight(1)
    with pytest.raises(TypeError, match="holds a Parameter"), capture.enabled():
        net(x)  # the frame hook keeps PyNative's semantics
    np.testing.assert_array_equal(net.weight.asnumpy(), [2.0, 3.0, 4.0])


def _has_keys(x):
    d = {"a": x, "b": 2}
    return d.has_key("a"), d.has_key("c"), x * 2


class HasKeys(nn.Cell):
    def construct(self, x):
        return _has_keys(x)


@pytest.mark.parametrize("mode", ["jit", "graph"])
def test_dict_has_key_in_static_graph_syntax(mode):
    x = Tensor(np.array([1.0, 2.0], np.float32))
    a, c, y = ms.jit(_has_keys)(x) if mode == "jit" else _in_graph_mode(HasKeys(), x)
    assert (a, c) == ("a" in {"a": 0, "b": 0}, "c" in {"a": 0, "b": 0}) == (True, False)
    np.testing.assert_array_equal(y.asnumpy(), [2.0, 4.0])


def test_dict_has_key_is_python_s_attribute_error_outside_static_graph_syntax():
    x = Tensor(np.array([1.0], np.float32))
    with pytest.raises(AttributeError, match="has_key"):
        _has_keys(x)
    with pytest.raises(AttributeError, match="has_key"), capture.enabled():
        HasKeys()(x)
