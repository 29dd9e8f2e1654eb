"""Framework code run natively during a trace (ops functions, optimizer helpers: anything in the
``runtime`` package) that reaches a Parameter by itself -- ``holder.step``, not a tensor the trace
handed it -- and binds an op on it: the op is a graph node over the lifted Parameter, read when the
graph runs. It used to run once at trace time, so its result was a constant of the graph (a
"first step?" test true forever, or never), a silent wrong answer."""
import sys
import types

import numpy as np
import pytest

import runtime as ms
from runtime import Parameter, Tensor, nn, ops

# a helper module inside the framework's package, as runtime/nn/optim's code is
_helpers = types.ModuleType("runtime._test_framework_helpers")
exec(
    "from runtime import ops\n"
    "def first_step(holder):\n"
    "    return ops.equal(ops.reshape(holder.step, ()), 1)\n"
    "def doubled_scale(holder):\n"
    "    return holder.scale * 2.0\n"
    "def bump(holder):\n"
    "    return ops.assign(holder.step, holder.step + 1)\n"
    "def scale_as_float(holder):\n"
    "    return float(holder.scale)\n"
    "def scale_as_array(holder):\n"
    "    return holder.scale.asnumpy() * 1.0\n"
    "def scale_is_big(holder):\n"
    "    return bool(holder.scale > 3.5)\n",
    _helpers.__dict__)


@pytest.fixture(autouse=True)
def _framework_module():
    sys.modules[_helpers.__name__] = _helpers
    yield
    sys.modules.pop(_helpers.__name__, None)


class Counter(nn.Cell):
    def __init__(self):
        super().__init__()
        self.step = Parameter(Tensor(np.array([0], np.int32)), name="step")
        self.scale = Parameter(Tensor(np.array([2.0], np.float32)), name="scale")

    def construct(self, x):
        ops.assign(self.step, self.step + 1)
        return _helpers.first_step(self), x * _helpers.doubled_scale(self)


def _run(net, call, steps=4):
    out = []
    for k in range(steps):
        first, y = call(Tensor(np.ones(2, np.float32)))
        out.append((bool(first.asnumpy()), y.asnumpy().tolist()))
        net.scale.set_data(Tensor(np.array([3.0 + k], np.float32)))
    return out


@pytest.mark.parametrize("mode", ["jit", "graph"])
def test_a_parameter_read_by_framework_code_is_read_when_the_graph_runs(mode):
    eager_net = Counter()
    want = _run(eager_net, eager_net)
    assert want[0][0] and not any(f for f, _ in want[1:])
    net = Counter()
    if mode == "jit":
        got = _run(net, ms.jit(net.construct))
    else:
        ms.set_context(mode=ms.GRAPH_MODE)
        try:
            got = _run(net, net)
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
    assert got == want
    assert int(net.step.asnumpy()[0]) == 4


def test_an_update_made_by_framework_code_happens_on_every_call():
    class Bumper(nn.Cell):
        def __init__(self):
            super().__init__()
            self.step = Parameter(Tensor(np.array([0], np.int32)), name="step")

        def construct(self, x):
            _helpers.bump(self)
            return x + 1

    net = Bumper()
    f = ms.jit(net.construct)
    for _ in range(3):
        f(Tensor(np.ones(2, np.float32)))
    assert int(net.step.asnumpy()[0]) == 3


def test_pynative_ops_on_parameters_stay_eager():
    p = Parameter(Tensor(np.array([1.5], np.float32)), name="p")
    out = ops.mul(p, 2.0)
    assert type(out) is Tensor and out.asnumpy().tolist() == [3.0]


class ValueReader(nn.Cell):
    def __init__(self, read):
        super().__init__()
        self.scale = Parameter(Tensor(np.array([2.0], np.float32)), name="scale")
        self.read = read

    def construct(self, x):
        return x * getattr(_helpers, self.read)(self), x + 1


@pytest.mark.parametrize("read", ["scale_as_float", "scale_as_array", "scale_is_big"])
@pytest.mark.parametrize("mode", ["jit", "graph"])
def test_a_parameter_value_read_by_framework_code_is_not_frozen(read, mode):
    """``float(holder.scale)``, ``.asnumpy()`` or ``bool(...)`` of a Parameter inside framework code
    run natively during a trace would read the trace-time value into the graph as a constant: the
    call runs eagerly instead (a graph break), so each call reads the current value."""
    def run(net, call):
        out = []
        for k in range(4):
            y, z = call(Tensor(np.ones(2, np.float32)))
            out.append((np.asarray(y.asnumpy() if isinstance(y, Tensor) else y).tolist(), z.asnumpy().tolist()))
            net.scale.set_data(Tensor(np.array([3.0 + k], np.float32)))
        return out

    eager_net = ValueReader(read)
    want = run(eager_net, eager_net)
    assert len({str(o) for o in want}) > 1  # the value read changes what the call returns
    net = ValueReader(read)
    if mode == "jit":
        got = run(net, ms.jit(net.construct))
    else:
        ms.set_context(mode=ms.GRAPH_MODE)
        try:
            got = run(net, net)
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
    assert got == want
