"""Dynamic shapes (capture/dynamic.py): a dimension whose sizes vary is translated at most twice
and re-instantiated for the other sizes where two traces prove the code polymorphic in it, and
stays specialised (still equal to eager) where Python code or the graph depends on the size.

Oracle: PyNative (eager) results and gradients at every size. Each adversarial test also runs
with the comparison skipped (``_unchecked``) to show it fails then: the refusal is what keeps it
correct."""
import contextlib

import numpy as np
import pytest

import capture
import runtime as ms
from capture import dynamic
from capture.explain import recording
from capture_helpers import assert_same, pynative
from runtime import Tensor, nn, ops

SIZES = [5, 7, 9, 3, 12, 30, 2, 17, 11, 4, 6, 8, 10, 13, 14, 15, 16, 18, 19, 20, 33, 5, 7]


def f32(rng, *shape):
    return Tensor(rng.standard_normal(shape).astype(np.float32))


def translations(report) -> int:
    return report.graph_count


@contextlib.contextmanager
def _unchecked(monkeypatch):
    """The two-trace comparison skipped (what the adversarial tests must fail without)."""
    monkeypatch.setattr(dynamic, "CHECK", False)
    yield


# -- polymorphic code: two translations, every size equal to eager -------------------------------------------
class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(8, 16)
        self.fc2 = nn.Dense(16, 4)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


def _train_step(jitted, reduction="mean"):
    ms.set_seed(0)
    net = MLP()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction=reduction)
    opt = nn.SGD(net.trainable_params(), 0.05)
    grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, opt.parameters)

    def step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss, grads
    return (capture.jit(step) if jitted else step), net


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_mlp_train_step_with_varying_batch_translates_twice(rng, reduction):
    graph_step, graph_net = _train_step(True, reduction)
    eager_step, eager_net = _train_step(False, reduction)
    with recording() as report:
        for n in SIZES:
            x = f32(rng, n, 8)
            y = Tensor(rng.integers(0, 4, n).astype(np.int32))
            assert_same(graph_step(x, y), eager_step(x, y))
            for p, q in zip(graph_net.trainable_params(), eager_net.trainable_params()):
                np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=1e-5, atol=1e-6)
    assert translations(report) == 2
    assert len(report.dynamic) == 1 and report.dynamic[0][1].startswith(
        "x dim 0, y dim 0 is dynamic (automatic): sizes 5 -> 7 traced to the same graph; other sizes >= 2 "
        "reuse it without translating")
    assert sorted({n for *_, n, _t in report.reinstantiations}) == sorted(set(SIZES) - {5, 7})
    assert not report.breaks


class MaskedMeanPool(nn.Cell):
    """Embedding + mean over the real (unpadded) tokens + a classifier: the count is computed
    from the mask, as padded NLP code does."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 8)
        self.fc = nn.Dense(8, 3)

    def construct(self, ids, mask):
        h = self.emb(ids) * ops.expand_dims(mask, -1)
        pooled = h.sum(axis=1) / ops.expand_dims(mask.sum(axis=1), -1)
        return self.fc(pooled)


def test_embedding_classifier_with_varying_sequence_length_values_and_gradients(rng):
    ms.set_seed(1)
    net = MaskedMeanPool()
    weights = net.trainable_params()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="sum")

    def loss(ids, mask, y):
        return loss_fn(net(ids, mask), y)
    grad_eager = ms.value_and_grad(loss, None, weights)
    graph_grad = capture.jit(lambda ids, mask, y: grad_eager(ids, mask, y))
    with recording() as report:
        for length in SIZES:
            ids = Tensor(rng.integers(0, 50, (4, length)).astype(np.int32))
            mask = Tensor((rng.random((4, length)) < 0.8).astype(np.float32))
            mask[:, 0] = 1.0
            y = Tensor(rng.integers(0, 3, 4).astype(np.int32))
            assert_same(graph_grad(ids, mask, y), grad_eager(ids, mask, y))
    assert translations(report) == 2
    assert "ids dim 1, mask dim 1 is dynamic (automatic)" in report.dynamic[0][1]


class TinyLM(nn.Cell):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 8)
        self.mix = nn.Dense(8, 8)
        self.out = nn.Dense(8, 20)

    def construct(self, ids):
        context = ops.cumsum(ops.tanh(self.emb(ids)), axis=1)[:, -1]
        return self.out(ops.tanh(self.mix(context)))


def test_greedy_decoding_whose_input_grows_one_token_per_step(rng):
    ms.set_seed(2)
    net = TinyLM()
    step = capture.jit(lambda ids: ops.argmax(net(ids), -1))
    ids_graph = ids_eager = np.array([[1, 2]], np.int32)
    with recording() as report:
        for _ in range(24):
            nxt_graph = step(Tensor(ids_graph)).asnumpy()
            nxt_eager = ops.argmax(net(Tensor(ids_eager)), -1).asnumpy()
            np.testing.assert_array_equal(nxt_graph, nxt_eager)
            ids_graph = np.concatenate([ids_graph, nxt_graph[:, None].astype(np.int32)], axis=1)
            ids_eager = np.concatenate([ids_eager, nxt_eager[:, None].astype(np.int32)], axis=1)
    assert translations(report) == 2
    assert len(report.reinstantiations) == 22


def eager(net, x):
    with pynative():
        return net(x)


def test_graph_mode_cell_with_set_inputs_declared_dim_and_the_call_in_c(rng):
    """A declared dim does not count towards the recompile limit; the generic entry is repeated
    by the call in C (its check admits only the declared range)."""
    net = MLP()
    net.set_inputs(Tensor(shape=[ms.Symbol(max=64), 8], dtype=ms.float32))
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        with recording() as report:
            for n in SIZES:
                x = f32(rng, n, 8)
                assert_same(net(x), eager(net, x))
        for n in (40, 41, 40, 40, 41):  # (outside recording: calls may be repeated in C)
            x = f32(rng, n, 8)
            assert_same(net(x), eager(net, x))
        with pytest.raises(ValueError, match=r"dim 0 \(65\) is above max=64"):
            net(f32(rng, 65, 8))
        assert_same(net(x), eager(net, x))
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert translations(report) == 2
    assert "(declared)" in report.dynamic[0][1]
    assert [r for _, r in report.recompiles] == ["x: shape (5, 8) -> (7, 8), dim 0 changed (declared dynamic)"]


def test_sizes_zero_and_one_stay_specialised(rng):
    f = capture.jit(lambda x, b: x * 2 + b)
    b = f32(rng, 1, 3)
    with recording() as report:
        for n in (4, 6, 1, 8, 1, 9):
            x = f32(rng, n, 3)
            assert_same(f(x, b), x * 2 + b)
    assert translations(report) == 3  # 4 and 6 -> generic (>= 2); 1 on its own


def relu_plus_one(x):
    return ops.relu(x) + 1


def test_explain_reports_dynamic_dims_and_reinstantiations(rng):
    f = capture.jit(relu_plus_one)
    with recording() as report:
        for n in (3, 4, 5, 6):
            f(f32(rng, n, 2))
    text = str(report)
    assert "Dynamic dimensions:\n  relu_plus_one: x dim 0 is dynamic (automatic)" in text
    assert "Graphs re-instantiated for new sizes (no translation; interpreted until a size recurs, then " \
           "compiled for it):\n  relu_plus_one: argument 0 dim 0: sizes [5, 6]" in text
    d = report.to_dict()
    assert [r["size"] for r in d["reinstantiations"]] == [5, 6]
    assert d["reinstantiations"][0]["dims"] == "argument 0 dim 0"
    guards = report.compiles[0].guards
    assert any("x: Tensor Float32[3, 2]" in g for g in guards)
    page = report.to_html()
    assert 'id="dynamic"' in page and "relu_plus_one</b>: argument 0 dim 0: sizes [5, 6]" in page


# -- code that depends on the size: refused, equal to eager, and wrong without the check ------------------------
def _branch_on_size(x):
    if x.shape[0] > 20:
        return x * 2
    return x - 1


def _iterate_rows(x):
    out = x[0] * 0
    for row in x:
        out = out + row
    return out


# (``x / x.shape[0]``, ``x * len(x)`` and a reshape to ``x.shape[0] * 2`` are shape-generic since
# sizes keep their expressions: tests/capture/test_symbolic_sizes.py)
ADVERSARIAL = {
    "branch on x.shape[0]": (_branch_on_size, [3, 5, 25]),
    "for row in x": (_iterate_rows, [3, 5, 7]),
}


@pytest.mark.parametrize("name", list(ADVERSARIAL))
def test_python_reading_the_size_is_refused(rng, name, monkeypatch):
    fn, sizes = ADVERSARIAL[name]
    xs = [f32(rng, n, 4) for n in sizes]
    f = capture.jit(fn)
    with recording() as report:
        for x in xs:
            assert_same(f(x), fn(x))
    assert translations(report) == len(sizes)
    assert "stays specialised per size" in report.dynamic[0][1]
    assert "Python code read the size" in report.dynamic[0][1]
    # without the comparison the graph of the first sizes would serve the last one: wrong
    capture.reset()
    with _unchecked(monkeypatch):
        f = capture.jit(fn)
        results = [f(x) for x in xs]
    with pytest.raises(AssertionError):
        for x, got in zip(xs, results):
            assert_same(got, fn(x))


def test_mean_over_the_dynamic_axis_gradient_divides_by_the_size(rng, monkeypatch):
    """A mean's gradient divides by its count, a Python number equal to the size: held as an
    attribute holds the size, substituted per size (without it, every size would get the first
    trace's count: the check below)."""
    def g(x):
        return ms.grad(lambda t: ops.mean(t * t, 0).sum())(x)
    xs = [f32(rng, n, 3) for n in (3, 5, 8, 13, 2)]
    f = capture.jit(g)
    with recording() as report:
        for x in xs:
            assert_same(f(x), g(x))
    assert translations(report) == 2
    generic = capture.cache.cache_for(g.__code__).entries[0]
    assert any(key[1] == ("input", 1) for key in generic.dynamic.subs)
    attrs_only = {k: v for k, v in generic.dynamic.subs.items() if k[1] != ("input", 1)}
    monkeypatch.setattr(generic.dynamic, "subs", attrs_only)
    with pytest.raises(AssertionError):
        x = f32(rng, 21, 3)
        assert_same(f(x), g(x))


def test_mean_over_all_elements_gradient_is_refused(rng, monkeypatch):
    """Over every element the count is 3n, not the size: refused (and wrong if it were not)."""
    def g(x):
        return ms.grad(lambda t: ops.mean(t * t))(x)
    xs = [f32(rng, n, 3) for n in (3, 5, 8)]
    f = capture.jit(g)
    with recording() as report:
        for x in xs:
            assert_same(f(x), g(x))
    assert translations(report) == 3
    assert "a Python number in the graph depends on the size (div 9.0 vs 15.0)" in report.dynamic[0][1]
    capture.reset()
    with _unchecked(monkeypatch):
        f = capture.jit(g)
        results = [f(x) for x in xs]
    with pytest.raises(AssertionError):
        for x, got in zip(xs, results):
            assert_same(got, g(x))


def _graph(n, scalar, op="mul"):
    from graph.aval import AVal
    from graph.ir import Graph
    from graph.ops import REGISTRY
    g = Graph("g")
    x = g.add_input(AVal((n, 3), ms.float32), "x")
    g.set_outputs([g.add_node(REGISTRY[op], [x, scalar(n)], {})])
    return g


@pytest.mark.parametrize("op, scalar, refused", [
    ("div", lambda n: float(n), False),        # the size itself: substituted
    ("mul", lambda n: 1.0 / n, True),          # 1/n: refused
    ("mul", lambda n: 2.0 * n, True),          # 2n: refused
    ("add", lambda n: 1.5, False),             # a constant: same in both
])
def test_python_numbers_in_the_graph_may_only_be_the_size(op, scalar, refused):
    g1, g2 = _graph(5, scalar, op), _graph(7, scalar, op)
    if refused:
        with pytest.raises(dynamic.Refused, match="a Python number in the graph depends on the size"):
            dynamic.compare_graphs(g1, g2, {0: {0: 0}}, (dynamic.SizeSymbol([(0, 0)], 5, 7),))
        return
    subs = dynamic.compare_graphs(g1, g2, {0: {0: 0}}, (dynamic.SizeSymbol([(0, 0)], 5, 7),))
    g9 = dynamic.instantiate(g1, {0: {0: 0}}, (9,), subs)
    assert g9.nodes[0].inputs[1] == scalar(9) and g9.outputs[0].aval.shape == (9, 3)


def test_mean_forward_over_the_dynamic_axis_is_polymorphic(rng):
    """A mean's forward is one reduce op whose size is inferred per size: reused, and right."""
    f = capture.jit(lambda x: ops.mean(x, 0) * 3)
    with recording() as report:
        for n in (3, 5, 8, 13):
            x = f32(rng, n, 3)
            assert_same(f(x), ops.mean(x, 0) * 3)
    assert translations(report) == 2


def test_size_one_broadcasting_is_never_generic(rng, monkeypatch):
    """``x + y`` with y of size 1 in the dynamic dim broadcasts; at 2 and more it matches x."""
    f = capture.jit(lambda x, y: x + y)
    x = f32(rng, 5, 3)
    with recording() as report:
        for m in (1, 5, 1, 5):
            y = f32(rng, m, 3)
            assert_same(f(x, y), x + y)
    assert translations(report) == 2
    assert not report.reinstantiations


def test_a_tensor_made_from_the_size_by_the_framework_is_generic(rng, monkeypatch):
    """``ops.ones(x.shape)`` is a ``fill`` node whose shape keeps the sizes' expressions
    (graph.ops.creation), not a constant of one size."""
    def fn(x):
        return x + ops.ones(x.shape, ms.float32).cumsum(0)
    xs = [f32(rng, n, 2) for n in (3, 5, 8, 11)]
    f = capture.jit(fn)
    with recording() as report:
        for x in xs:
            assert_same(f(x), fn(x))
    assert translations(report) == 2
    assert len(report.reinstantiations) == 2


def test_a_numpy_constant_made_from_the_size_is_refused(rng, monkeypatch):
    """numpy turning the size into a constant (``np.arange(n)``): the size is read, so every size
    is its own translation (never a constant of another size)."""
    def fn(x):
        return x + Tensor(np.arange(x.shape[0], dtype=np.float32)).reshape(-1, 1)
    xs = [f32(rng, n, 2) for n in (3, 5, 8)]
    f = capture.jit(fn)
    with recording() as report:
        for x in xs:
            assert_same(f(x), fn(x))
    assert translations(report) == 3


def test_dense_over_a_sequence_restores_the_leading_sizes_symbolically(rng):
    """nn.Dense on a [batch, length, features] input restores the leading sizes from
    ``x.shape``: the reshape's target keeps the length's expression (capture.symbolic_sizes), so
    the length is dynamic, and every size equals eager."""
    dense = nn.Dense(4, 3)
    f = capture.jit(lambda x: dense(x))
    with recording() as report:
        for n in (3, 5, 8):
            x = f32(rng, 2, n, 4)
            assert_same(f(x), dense(x))
    assert translations(report) == 2
    assert "is dynamic (automatic)" in report.dynamic[0][1]


def _masked_pool_step(jitted):
    ms.set_seed(3)
    net = MaskedMeanPool()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="sum")
    opt = nn.SGD(net.trainable_params(), 0.05)
    grad_fn = ms.value_and_grad(lambda ids, mask, y: loss_fn(net(ids, mask), y), None, opt.parameters)

    def step(ids, mask, y):
        loss, grads = grad_fn(ids, mask, y)
        opt(grads)
        return loss
    return (capture.jit(step) if jitted else step), net


@pytest.mark.parametrize("shapes", [
    [(4, 6), (7, 9), (3, 5), (8, 12), (5, 6), (2, 20), (9, 3), (6, 7), (11, 8), (4, 30)],
    # the batch alone changes first (generic in it), then the length too: one generic entry for
    # both, which keeps the sizes compiled so far
    [(4, 6), (7, 6), (5, 6), (8, 12), (3, 9), (5, 6), (9, 4), (6, 7), (11, 8), (4, 30)],
])
def test_batch_and_length_varying_every_step(rng, shapes):
    graph_step, graph_net = _masked_pool_step(True)
    eager_step, eager_net = _masked_pool_step(False)
    with recording() as report:
        for batch, length in shapes:
            ids = Tensor(rng.integers(0, 50, (batch, length)).astype(np.int32))
            mask = Tensor((rng.random((batch, length)) < 0.8).astype(np.float32))
            mask[:, 0] = 1.0
            y = Tensor(rng.integers(0, 3, batch).astype(np.int32))
            assert_same(graph_step(ids, mask, y), eager_step(ids, mask, y))
    for p, q in zip(graph_net.trainable_params(), eager_net.trainable_params()):
        np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=1e-5, atol=1e-6)
    first_change_both = shapes[1][0] != shapes[0][0] and shapes[1][1] != shapes[0][1]
    assert translations(report) == (2 if first_change_both else 3)
    assert "ids dim 0, mask dim 0, y dim 0; ids dim 1, mask dim 1 is dynamic (automatic)" in report.dynamic[-1][1]
    reinstantiated = {n for _f, _w, n, _t in report.reinstantiations}
    assert len(reinstantiated) == len(set(shapes)) - translations(report)


@pytest.mark.parametrize("tier_up_calls", [1, 2, 3])
def test_a_new_size_is_interpreted_until_it_recurs_then_compiled(rng, monkeypatch, tier_up_calls):
    monkeypatch.setattr(dynamic, "TIER_UP_CALLS", tier_up_calls)
    f = capture.jit(lambda x, w: ops.tanh(ops.matmul(x, w)) * 2)
    w = f32(rng, 3, 4)
    sizes = [3, 4, 5, 5, 5, 6, 5, 6, 6]
    with recording() as report:
        for n in sizes:
            x = f32(rng, n, 3)
            assert_same(f(x, w), ops.tanh(ops.matmul(x, w)) * 2)
    for n in (7, 7, 7):  # (outside recording: may run in C)
        x = f32(rng, n, 3)
        assert_same(f(x, w), ops.tanh(ops.matmul(x, w)) * 2)
    assert translations(report) == 2
    assert [n for _f, _w, n, _t in report.reinstantiations] == [5, 6]
    compiled_when = {1: [], 2: [5, 6], 3: [5, 6]}[tier_up_calls]
    assert [n for _f, _w, n, _t in report.tier_ups] == compiled_when
    generic = capture.cache.cache_for(f.__wrapped_jit__.__code__).entries[0]
    # size 4, the second trace's, runs interpreted like a re-instantiated size (it was never
    # compiled: it does not recur); the first trace's size 3 was compiled by the first call
    assert {k: e.interpreted_calls for k, e in generic.dynamic.instances.items()} == {
        (3,): 0, (4,): 0 if tier_up_calls == 1 else 1, (5,): 0, (6,): 0, (7,): 0}


def test_the_second_trace_of_a_new_size_is_not_compiled_until_it_recurs(rng, monkeypatch):
    """The trace that makes an entry shape-generic runs interpreted: compiled (tier-up) only when
    its size comes back TIER_UP_CALLS times, as re-instantiated sizes are, so a loop over sizes
    that never recur compiles once (the first call)."""
    monkeypatch.setattr(dynamic, "TIER_UP_CALLS", 3)
    compiled = []
    real = capture.compile_policy.build_runner
    monkeypatch.setattr(capture.compile_policy, "build_runner", lambda *a, **k: compiled.append(a[1]) or real(*a, **k))
    f = capture.jit(lambda x: ops.relu(x) * 3)
    with recording() as report:
        for n in (3, 4, 5, 6, 7):
            x = f32(rng, n, 2)
            assert_same(f(x), ops.relu(x) * 3)
    assert translations(report) == 2 and len(compiled) == 1 and not report.tier_ups
    with recording() as report:
        for n in (4, 4, 8):  # (size 4's second and third calls: compiled at the third)
            x = f32(rng, n, 2)
            assert_same(f(x), ops.relu(x) * 3)
    assert len(compiled) == 2 and [n for _f, _w, n, _t in report.tier_ups] == [4]


def test_jit_input_signature_symbol_constraints_are_in_the_generic_guard(rng):
    sig = (Tensor(shape=[ms.Symbol(max=32, divisor=4), 3], dtype=ms.float32),)

    @ms.jit(input_signature=sig)
    def f(x):
        return ops.relu(x) - 1

    with recording() as report:
        for n in (4, 8, 12, 16, 8, 32):
            x = f32(rng, n, 3)
            assert_same(f(x), ops.relu(x) - 1)
    assert translations(report) == 2
    assert "(declared)" in report.dynamic[0][1]
    generic = capture.cache.cache_for(f.__wrapped_jit__.__code__).entries[0]
    assert "x: Tensor Float32[?, 3] with dim 0 >= 2 and dim 0 <= 32 and dim 0 % 4 == 0 and dim 0 >= 4 " \
           "(dynamic, declared)" in generic.guard_set.descs
    with pytest.raises(ValueError, match=r"dim 0 \(6\) is not a multiple of 4 plus 0"):
        f(f32(rng, 6, 3))
    assert not generic.check((f32(rng, 6, 3),)) and not generic.check((f32(rng, 36, 3),))
    assert generic.check((f32(rng, 20, 3),))


def test_a_generic_entry_called_under_grad_gives_eager_gradients(rng):
    """The jitted region is one tape entry: a new size replays its ops on the tape until it
    recurs, then runs compiled forward and backward graphs for that size."""
    dense = nn.Dense(3, 2)
    f = capture.jit(lambda x: ops.tanh(dense(x)) * 3)

    def eager_loss(x):
        return (ops.tanh(dense(x)) * 3).sum()
    with recording() as report:
        for n in (4, 6, 5, 5, 9, 5, 6):
            x = f32(rng, n, 3)
            got = ms.grad(lambda t: f(t).sum())(x)
            assert_same(got, ms.grad(eager_loss)(x))
            got_w = ms.grad(lambda t: f(t).sum(), None, dense.trainable_params())(x)
            assert_same(got_w, ms.grad(eager_loss, None, dense.trainable_params())(x))
    assert translations(report) == 2


def test_the_sizes_of_a_generic_entry_add_no_callbacks_to_its_guards_and_die_with_it(rng):
    """Every size of a generic entry is an entry on the generic entry's guards: only the generic
    entry registers for its referents' deaths (the sizes go with it), however many sizes ran."""
    import gc
    import weakref

    from capture.cache import cache_for
    net = MLP()
    jitted = capture.jit(lambda x: net(x))
    for n in SIZES * dynamic.TIER_UP_CALLS:  # (every size interpreted, then compiled)
        jitted(f32(rng, n, 8))
    (generic,) = [e for e in cache_for(jitted.__wrapped_jit__.__code__).entries if e.dynamic is not None]
    sizes = list(generic.dynamic.instances.values())
    assert len(sizes) == len(set(SIZES)) and all(not s.interpreted_calls for s in sizes)
    assert len(generic.guard_set._on_death) == 1
    alive = [weakref.ref(s) for s in sizes]
    del sizes, generic
    net.fc1 = nn.Dense(8, 16)  # the old fc1's weight dies: the generic entry and its sizes go
    gc.collect()
    assert [r() for r in alive] == [None] * len(alive)


def test_an_interpreted_size_the_graph_rejects_raises_eagers_error(rng):
    """A size whose ops fail (a reshape the new size does not divide) raises the error eager
    code raises, with the user's op named, and the entry stays compiled for good sizes."""
    def f(x):
        return x.reshape(-1, 4) * 2

    jf = capture.jit(f)
    for n in (4, 8):
        x = f32(rng, n, 2)
        assert_same(jf(x), f(x))
    with pytest.raises(ValueError) as eager_error:
        f(f32(rng, 5, 2))
    with pytest.raises(ValueError) as got:
        jf(f32(rng, 5, 2))
    assert str(got.value) == str(eager_error.value)
    x = f32(rng, 12, 2)
    assert_same(jf(x), f(x))
    assert not capture.cache.cache_for(f.__code__).entries[0].eager


def test_explain_says_the_second_trace_is_interpreted_not_compiled(rng):
    f = capture.jit(lambda x: ops.relu(x) * 3)
    with recording() as report:
        for n in (3, 4):
            f(f32(rng, n, 2))
    first, second = report.compiles
    assert first.how in ("compiled", "loaded from the warm-start cache")
    assert second.how == "translated (run by the reference interpreter, not compiled)"
    assert "): 2 ops, translated (run by the reference interpreter, not compiled) in" in str(report).split("Graph 2 (")[1]


def test_explain_says_the_numpy_backend_interprets(rng):
    f = capture.jit(lambda x: ops.relu(x) * 3, backend="numpy")
    with recording() as report:
        f(f32(rng, 3, 2))
    assert report.compiles[0].how.startswith("translated")
