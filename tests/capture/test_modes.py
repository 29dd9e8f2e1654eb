"""The ways into graph mode: GRAPH_MODE Cell calls, ``ms.jit`` as a decorator (on functions and
on ``construct``) and as a transform, ``Cell.compile``; the counting backend's graph/op counts."""
import numpy as np
import pytest

import capture
import runtime as ms
from capture.explain import recording
from capture_helpers import assert_same, randn
from runtime import Tensor, nn, ops


class MLP(nn.Cell):
    def __init__(self, din=4, hidden=8, dout=3):
        super().__init__()
        self.fc1 = nn.Dense(din, hidden)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(hidden, dout)

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


def _construct_code(cell):
    fn = type(cell).construct
    return getattr(fn, "__wrapped_jit__", fn).__code__


def test_graph_mode_cell_call(rng):
    net = MLP()
    with recording() as report:
        ms.set_context(mode=ms.GRAPH_MODE)
        for _ in range(3):
            x = randn(rng, 2, 4)
            got = net(x)
            ms.set_context(mode=ms.PYNATIVE_MODE)
            want = net(x)
            ms.set_context(mode=ms.GRAPH_MODE)
            assert_same(got, want)
    assert report.graph_count == 1 and report.graph_break_count == 0
    assert report.ops_per_graph == [5]  # matmul, bias_add, relu, matmul, bias_add
    entries = capture.cache.cache_for(_construct_code(net)).entries
    assert len(entries) == 1 and entries[0].hits == 2


def test_graph_mode_only_the_outer_cell_is_captured(rng):
    net = MLP()
    ms.set_context(mode=ms.GRAPH_MODE)
    x = randn(rng, 2, 4)
    net(x)
    # sub-Cells were inlined into the outer graph: no cache of their own
    assert capture.cache._CACHES.get(_construct_code(net.fc1)) is None
    assert len(capture.cache.cache_for(_construct_code(net)).entries) == 1


def test_pynative_mode_does_not_capture(rng):
    net = MLP()
    with recording() as report:
        net(randn(rng, 2, 4))
    assert report.graph_count == 0 and report.breaks == []


def test_jit_decorator_on_function(rng):
    backend = capture.CountingBackend()

    @ms.jit(backend=backend)
    def f(x, y):
        return ops.relu(x @ y) + 1

    def eager(x, y):
        return ops.relu(x @ y) + 1

    for _ in range(3):
        x, y = randn(rng, 2, 3), randn(rng, 3, 2)
        assert_same(f(x, y), eager(x, y))
    assert backend.graph_count == 1
    assert backend.op_counts == [3]
    assert ms.jit is not None and capture.jit(f) is f  # jit of a jitted function is itself


def test_plain_jit_decorator_without_parentheses(rng):
    @ms.jit
    def f(x):
        return x * 2

    with recording() as report:
        for _ in range(3):
            x = randn(rng, 3)
            assert_same(f(x), x * 2)
    assert report.graph_count == 1
    assert f.__name__ == "f" and "jit" in repr(f)


def test_jit_decorator_on_construct(rng):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = nn.Dense(3, 2)

        @ms.jit
        def construct(self, x):
            return ops.sigmoid(self.fc(x))

    net = Net()
    with recording() as report:
        for _ in range(3):
            x = randn(rng, 4, 3)
            want = ops.sigmoid(net.fc(x))
            assert_same(net(x), want)
    assert report.graph_count == 1 and report.breaks == []
    # the same decorated construct also works in GRAPH_MODE (no double capture)
    ms.set_context(mode=ms.GRAPH_MODE)
    x = randn(rng, 4, 3)
    assert_same(net(x), ops.sigmoid(net.fc(x)))


def test_jit_as_a_function_transform(rng):
    net = MLP()

    def step(x):
        return net(x).sum()

    backend = capture.CountingBackend()
    jstep = ms.jit(step, backend=backend)
    for _ in range(3):
        x = randn(rng, 5, 4)
        assert_same(jstep(x), step(x))
    assert backend.graph_count == 1
    # transform of a Cell: its construct is captured
    backend2 = capture.CountingBackend()
    jnet = ms.jit(MLP(), backend=backend2)
    x = randn(rng, 2, 4)
    assert isinstance(jnet, nn.Cell)
    assert_same(jnet(x), jnet.construct(x))
    assert backend2.graph_count == 1
    # a bound method
    jm = capture.jit(net.construct)
    assert_same(jm(x), net.construct(x))


def test_cell_compile_then_call(rng):
    net = MLP()
    x = randn(rng, 2, 4)
    with recording() as report:
        entry = net.compile(x)
        assert entry is not None and not entry.eager
        assert report.graph_count == 1
        for _ in range(3):
            x = randn(rng, 2, 4)
            assert_same(net(x), net.construct(x))
    # compile did the only capture: the calls hit its cache entry
    assert report.graph_count == 1
    assert capture.cache.cache_for(_construct_code(net)).entries[0].hits == 3


def test_cell_compile_in_graph_mode(rng):
    ms.set_context(mode=ms.GRAPH_MODE)
    net = MLP()
    x = randn(rng, 2, 4)
    with recording() as report:
        net.compile(x)
        out = net(x)
    assert report.graph_count == 1
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert_same(out, net.construct(x))


def test_kwargs_to_a_graph_mode_cell(rng):
    class Net(nn.Cell):
        def construct(self, x, scale=2.0, bias=None):
            y = x * scale
            if bias is not None:
                y = y + bias
            return y

    net = Net()
    ms.set_context(mode=ms.GRAPH_MODE)
    with recording() as report:
        for _ in range(3):
            x, b = randn(rng, 3), randn(rng, 3)
            assert_same(net(x, bias=b), x * 2.0 + b)
            assert_same(net(x), x * 2.0)
    assert report.graph_count == 2  # bias given / not given
    with pytest.raises(TypeError):
        net(x, nope=1)


def test_counting_backend_counts_graphs_and_ops(rng):
    backend = capture.CountingBackend()

    @capture.jit(backend=backend)
    def f(x):
        y = x * 2
        y = ops.relu(y)
        return y.sum(), y.mean()

    f(randn(rng, 3))
    f(randn(rng, 4))  # new shape -> second graph
    assert backend.graph_count == 2
    assert backend.op_counts == [4, 4]
    assert [n.op.name for n in backend.graphs[0].nodes] == ["mul", "relu", "reduce_sum", "reduce_mean"]


def test_backend_names_and_validation():
    with pytest.raises(ValueError, match="unknown backend"):
        capture.jit(lambda x: x, backend="nope")
    with pytest.raises(TypeError, match="fullgraph"):
        capture.jit(lambda x: x, fullgraph="yes")
    with pytest.raises(TypeError, match="unknown option"):
        capture.jit(lambda x: x, bogus=1)
    with pytest.raises(TypeError):
        capture.jit(42)
    f = capture.jit(lambda x: x + 1, backend="numpy", jit_config=ms.JitConfig(jit_level="O0"))
    assert_same(f(Tensor([1.0])), Tensor([2.0]))


def test_generators_and_coroutines_are_not_captured():
    def gen(x):
        yield x * 2

    g = capture.jit(gen)
    out = list(g(Tensor([1.0])))
    assert_same(out[0], Tensor([2.0]))


def test_context_mode_is_guarded(rng):
    """An entry compiled in GRAPH_MODE is not reused for a jit call in PYNATIVE mode (the mode
    may change what framework code does)."""
    backend = capture.CountingBackend()
    f = capture.jit(lambda x: x + 1, backend=backend)
    x = randn(rng, 2)
    f(x)
    ms.set_context(mode=ms.GRAPH_MODE)
    f(x)
    f(x)
    assert backend.graph_count == 2


def test_parameters_are_graph_inputs_not_constants(rng):
    net = MLP()
    backend = capture.CountingBackend()
    jnet = capture.jit(net, backend=backend)
    x = randn(rng, 2, 4)
    jnet(x)
    g = backend.graphs[0]
    assert sorted(p.name for p in g.params) == sorted(p.name for p in net.trainable_params())
    assert g.consts == []
    np.testing.assert_allclose(jnet(x).asnumpy(), net.construct(x).asnumpy(), rtol=1e-5)


def test_random_ops_draw_at_run_time_and_follow_the_seed(rng):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.drop = nn.Dropout(p=0.5)
            self.fc = nn.Dense(8, 8)

        def construct(self, x):
            return self.drop(self.fc(x))

    net = Net().set_train(True)
    x = randn(rng, 4, 8)
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_seed(11)
    graph_outs = [net(x).asnumpy() for _ in range(3)]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_seed(11)
    eager_outs = [net(x).asnumpy() for _ in range(3)]
    for g, e in zip(graph_outs, eager_outs):
        np.testing.assert_allclose(g, e, rtol=1e-6)
    assert not np.array_equal(graph_outs[0], graph_outs[1])  # a new mask on every call
    net.set_train(False)
    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_allclose(net(x).asnumpy(), net.fc.construct(x).asnumpy(), rtol=1e-6)


def test_framework_code_calling_a_cell_while_tracing_records_into_the_same_graph(rng, monkeypatch):
    """A framework callable that calls a Cell with symbolic tensors (here simulated through a
    framework-module function) must not start a nested capture."""
    import types as _types

    net = MLP()
    helper = _types.FunctionType((lambda cell, x: cell(x) * 2).__code__, {}, "helper")
    helper.__module__ = "runtime.fake_helpers"  # looks like framework code: called, not inlined

    def f(x):
        return helper(net, x)

    ms.set_context(mode=ms.GRAPH_MODE)
    backend = capture.CountingBackend()
    jf = capture.jit(f, backend=backend, fullgraph=True)
    for _ in range(2):
        x = randn(rng, 2, 4)
        got = jf(x)
        ms.set_context(mode=ms.PYNATIVE_MODE)
        assert_same(got, net(x) * 2)
        ms.set_context(mode=ms.GRAPH_MODE)
    assert backend.graph_count == 1 and backend.op_counts == [6]
