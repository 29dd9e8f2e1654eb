"""Guards and the per-code cache: what triggers a recompile, what must not, and the limit."""
import numpy as np
import pytest

import capture
import runtime as ms
from capture.explain import recording
from capture_helpers import assert_same, randn
from runtime import Tensor, nn, ops


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 4)
        self.dropout_like = 0.5
        self.mode = "relu"

    def construct(self, x):
        y = self.fc(x)
        if self.training:
            y = y * self.dropout_like
        if self.mode == "relu":
            y = ops.relu(y)
        else:
            y = ops.tanh(y)
        return y


def _run(net, x):
    ms.set_context(mode=ms.GRAPH_MODE)
    out = net(x)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert_same(out, net(x))
    return out


def test_new_input_shape_recompiles_once_and_old_shape_hits_again(rng):
    backend = capture.CountingBackend()
    f = capture.jit(lambda x: ops.relu(x) * 2, backend=backend)
    with recording() as report:
        for shape in [(2, 3), (2, 3), (5, 3), (5, 3), (2, 3), (5, 3)]:
            x = randn(rng, *shape)
            assert_same(f(x), ops.relu(x) * 2)
    assert backend.graph_count == 2
    assert len(report.recompiles) == 1
    frame, reason = report.recompiles[0]
    assert reason == "x: shape (2, 3) -> (5, 3), dim 0 changed"  # the argument, old and new shape
    code = f.__wrapped_jit__.__code__
    hits = sorted(e.hits for e in capture.cache.cache_for(code).entries)
    assert hits == [2, 2]


def test_dtype_change_recompiles(rng):
    backend = capture.CountingBackend()
    f = capture.jit(lambda x: x + 1, backend=backend)
    f(Tensor(np.ones(3, np.float32)))
    f(Tensor(np.ones(3, np.float64)))
    f(Tensor(np.ones(3, np.float32)))
    assert backend.graph_count == 2


def test_set_train_triggers_a_recompile(rng):
    net = Net()
    x = randn(rng, 2, 4)
    with recording() as report:
        _run(net, x)
        _run(net, x)
        net.set_train(True)
        _run(net, x)
        _run(net, x)
        net.set_train(False)
        _run(net, x)
    assert report.graph_count == 2
    assert len(report.recompiles) == 1 and "training" in report.recompiles[0][1]


def test_changing_a_python_constant_attribute_recompiles(rng):
    net = Net()
    x = randn(rng, 2, 4)
    with recording() as report:
        _run(net, x)
        net.mode = "tanh"
        out = _run(net, x)
        _run(net, x)
        net.dropout_like = 0.25  # not read while training is False: no recompile
        _run(net, x)
    assert report.graph_count == 2
    assert report.recompiles[0][1] == "self.mode: 'relu' -> 'tanh'"
    assert np.all(np.abs(out.asnumpy()) < 1)  # tanh branch taken


def test_int_and_float_constants_do_not_alias(rng):
    backend = capture.CountingBackend()
    f = capture.jit(lambda x, k: x * k, backend=backend)
    x = Tensor(np.ones(2, np.int32))
    assert f(x, 2).dtype == (x * 2).dtype
    assert f(x, 2.0).dtype == (x * 2.0).dtype
    assert f(x, True).dtype == (x * True).dtype
    assert backend.graph_count == 3


def test_global_and_closure_values_are_guarded(rng):
    backend = capture.CountingBackend()
    scale = [2.0]

    def make():
        k = scale[0]

        def f(x):
            return x * k + GLOBAL_SHIFT
        return f

    global GLOBAL_SHIFT
    GLOBAL_SHIFT = 1.0
    f = capture.jit(make(), backend=backend)
    x = randn(rng, 3)
    assert_same(f(x), x * 2.0 + 1.0)
    GLOBAL_SHIFT = 5.0
    assert_same(f(x), x * 2.0 + 5.0)
    assert backend.graph_count == 2


GLOBAL_SHIFT = 1.0


def test_replacing_a_sub_cell_recompiles(rng):
    net = Net()
    x = randn(rng, 2, 4)
    with recording() as report:
        _run(net, x)
        net.fc = nn.Dense(4, 4)
        _run(net, x)
    assert report.graph_count == 2


def test_mutating_a_cell_list_recompiles(rng):
    class Stack(nn.Cell):
        def __init__(self):
            super().__init__()
            self.layers = nn.CellList([nn.Dense(3, 3)])

        def construct(self, x):
            for layer in self.layers:
                x = layer(x)
            return x

    net = Stack()
    x = randn(rng, 2, 3)
    with recording() as report:
        _run(net, x)
        net.layers.append(nn.Dense(3, 3))
        _run(net, x)
    assert report.graph_count == 2


def test_parameter_updates_do_not_recompile(rng):
    net = Net()
    opt = nn.SGD(net.trainable_params(), learning_rate=0.1)
    x = randn(rng, 2, 4)
    with recording() as report:
        for _ in range(4):
            _run(net, x)
            for p in net.trainable_params():
                p.set_data(Tensor(p.asnumpy() + 0.1))
            opt(tuple(ops.ones_like(p) for p in net.trainable_params()))
    assert report.graph_count == 1 and report.recompiles == []


def test_parameters_with_another_dtype_recompile(rng):
    net = Net()
    x = randn(rng, 2, 4)
    with recording() as report:
        _run(net, x)
        net.to_float(ms.float16)  # the Parameters' dtype changes: the graph's input avals too
        _run(net, Tensor(x.asnumpy().astype(np.float16)))
    assert report.graph_count == 2


def test_recompile_limit_falls_back_to_eager_with_a_reason(rng, caplog):
    backend = capture.CountingBackend()
    f = capture.jit(lambda x: x * 3, backend=backend)
    limit = capture.cache.RECOMPILE_LIMIT
    assert limit == 8
    with recording() as report:
        for n in range(1, limit + 4):
            x = randn(rng, n)
            assert_same(f(x), x * 3)
        x = randn(rng, 1)  # an already-compiled shape still hits its entry
        assert_same(f(x), x * 3)
    assert backend.graph_count == limit
    reasons = [b.reason for b in report.break_reasons]
    assert any("recompile limit (8)" in r for r in reasons), reasons
    text = str(report)
    assert "recompile limit" in text
    assert len(report.recompiles) == limit - 1


def test_recompile_limit_counted_per_cell_instance(rng):
    """Many instances of one Cell class share construct's code object but each gets its own
    budget (MLPs of different sizes are not 'recompiles' of each other)."""
    nets = [nn.Dense(4, 2 + i) for i in range(capture.cache.RECOMPILE_LIMIT + 2)]
    ms.set_context(mode=ms.GRAPH_MODE)
    with recording() as report:
        for net in nets:
            x = randn(rng, 3, 4)
            out = net(x)
            assert out.shape == (3, net.weight.shape[0])
    assert report.graph_count == len(nets)
    assert report.breaks == []


def test_explain_lists_guards(rng):
    report = capture.explain(Net())(randn(rng, 2, 4))
    guards = report.guards[0]
    text = "\n".join(guards)
    assert "x: Tensor Float32[2, 4]" in text
    # in the user's terms: the path the code took to reach each value
    assert "self.training is False" in text
    assert "self.mode == 'relu'" in text
    assert "self.fc.weight: Tensor Float32[4, 4]" in text


def test_reset_drops_the_caches(rng):
    backend = capture.CountingBackend()
    f = capture.jit(lambda x: x + 1, backend=backend)
    x = randn(rng, 2)
    f(x)
    capture.reset()
    f(x)
    assert backend.graph_count == 2


def test_guard_failure_reason_names_the_guard(rng):
    f = capture.jit(lambda x, n: x * n)
    with recording() as report:
        f(randn(rng, 2), 3)
        f(randn(rng, 2), 4)
    assert [r for _, r in report.recompiles] == ["n: 3 -> 4"]


def test_recompile_reasons_say_what_changed(rng):
    """The argument, what the cached entry was traced with and what the call gives."""
    f = capture.jit(lambda x, k: ops.relu(x) * k)
    with recording() as report:
        f(randn(rng, 32, 7), 2.0)
        f(randn(rng, 17, 7), 2.0)
        f(randn(rng, 17, 7), 3.0)
        f(Tensor(np.ones((17, 7), np.float64)), 3.0)
        f(Tensor(np.ones((17, 7, 1), np.float64)), 3.0)
        f(Tensor(np.ones((16, 6, 1), np.float64)), 3.0)
    assert [r for _, r in report.recompiles] == [
        "x: shape (32, 7) -> (17, 7), dim 0 changed",
        "k: 2.0 -> 3.0",
        "x: dtype Float32 -> Float64",
        "x: shape (17, 7) -> (17, 7, 1), rank 2 -> 3",
        "x: shape (17, 7, 1) -> (16, 6, 1), dims 0, 1 changed",
    ]


def test_recompile_reason_of_a_cell_compares_with_its_own_entries(rng):
    """A second instance of a Cell class compiles once (not a recompile); its recompile reason
    compares with its own entries, not with another instance's ("self is the same object")."""
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        a, b = Net(), Net()
        with recording() as report:
            a(randn(rng, 2, 4))
            b(randn(rng, 2, 4))
            b(randn(rng, 5, 4))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert [r for _, r in report.recompiles] == ["x: shape (2, 4) -> (5, 4), dim 0 changed"]


@pytest.mark.parametrize("value", [[1, 2], (1.0, 2.0), {"a": 1}])
def test_container_arguments_are_guarded_by_content(rng, value):
    backend = capture.CountingBackend()

    @capture.jit(backend=backend)
    def f(x, c):
        return x * len(c)

    x = randn(rng, 2)
    f(x, value)
    f(x, value)
    assert backend.graph_count == 1
    bigger = list(value) + [3] if not isinstance(value, dict) else {"a": 1, "b": 2}
    assert_same(f(x, type(value)(bigger) if not isinstance(value, dict) else bigger), x * len(bigger))
    assert backend.graph_count == 2


def test_recompile_limit_can_be_changed(rng, monkeypatch):
    monkeypatch.setattr(capture.cache, "RECOMPILE_LIMIT", 2)
    backend = capture.CountingBackend()
    f = capture.jit(lambda x: x - 1, backend=backend)
    with recording() as report:
        for n in range(1, 5):
            x = randn(rng, n)
            assert_same(f(x), x - 1)
    assert backend.graph_count == 2
    assert "recompile limit (2)" in report.break_reasons[0].reason


def test_accumulated_limit_over_many_instances(rng, monkeypatch):
    monkeypatch.setattr(capture.cache, "ACCUMULATED_LIMIT", 3)
    ms.set_context(mode=ms.GRAPH_MODE)
    nets = []  # kept alive: a collected Cell's entries are dropped, which frees budget
    with recording() as report:
        for _ in range(5):
            net = nn.Dense(2, 2)
            nets.append(net)
            x = randn(rng, 1, 2)
            got = net(x)
            # (unseeded weights: an output near a cancellation differs by float32 rounding of its
            # terms, ~2 in magnitude, so the bound is absolute too: it failed 1 run in ~30)
            np.testing.assert_allclose(got.asnumpy(), net.construct(x).asnumpy(), rtol=1e-6, atol=1e-6)
    assert report.graph_count == 3
    assert "accumulated recompile limit" in report.break_reasons[0].reason


def test_cache_entries_do_not_keep_cells_alive(rng):
    import gc
    import weakref

    ms.set_context(mode=ms.GRAPH_MODE)
    net = Net()
    x = randn(rng, 2, 4)
    _run(net, x)
    ms.set_context(mode=ms.GRAPH_MODE)
    net.set_train(True)
    net(x)
    code = Net.construct.__code__
    assert len(capture.cache.cache_for(code).entries) == 2
    ref = weakref.ref(net)
    param_ref = weakref.ref(net.fc.weight)
    del net
    gc.collect()  # collects the Cell; its finalizer drops the entries (cycles: collected next)
    gc.collect()
    assert ref() is None and param_ref() is None
    assert capture.cache.cache_for(code).entries == []
