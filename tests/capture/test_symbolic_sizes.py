"""Symbolic sizes with arithmetic (capture/symbolic_sizes.py, graph/symint.py): Python integer
arithmetic on sizes read from traced tensors (``batch * heads``, ``n // 2 + 1``, a VJP rule's
``tuple(x.shape)``) keeps its expression into the graph, so code that computes reshape targets,
slices and number operands from sizes is shape-generic: at most two translations per function.

Oracle: PyNative (eager) results, losses, parameters and greedy-decoded tokens at every size.
Every test here but the adversarial one translated once per size before symbolic sizes (the
translation counts fail on the old code)."""
import copy
import math
import pickle
import re

import numpy as np
import pytest

import capture
import runtime as ms
from capture.explain import recording
from capture_helpers import assert_same, pynative
from graph.symint import SymFloat, SymInt, sqrt, tagging
from runtime import Tensor, nn, ops


def f32(rng, *shape):
    return Tensor(rng.standard_normal(shape).astype(np.float32))


# -- graph.symint: the tagged int ---------------------------------------------------------------------------
def test_symint_arithmetic_keeps_expressions_and_is_an_int_everywhere():
    n = SymInt(6, ("dim", "x", 0))
    m = SymInt(4, ("dim", "x", 1))
    prod = n * m + 1
    assert prod == 25 and isinstance(prod, SymInt)
    assert prod.expr == ("add", ("mul", ("dim", "x", 0), ("dim", "x", 1)), ("int", 1))
    assert (2 * n).expr == ("mul", ("int", 2), ("dim", "x", 0))
    assert (10 - n).expr == ("sub", ("int", 10), ("dim", "x", 0))
    assert (n // 4).expr == ("floordiv", ("dim", "x", 0), ("int", 4)) and n // 4 == 1
    assert (-n).expr == ("neg", ("dim", "x", 0))
    # floor division and modulo by a size or a negative divisor are not kept symbolic
    for plain in (n // m, 12 // n, n // -4, n % m, n // 2.0):
        assert not isinstance(plain, (SymInt, SymFloat))
    assert (n // m, 12 // n, n // -4, n % m, n // 2.0) == (1, 2, -2, 2, 3.0)
    # true division, powers and float arithmetic give floats that keep their expressions
    half, square, scaled = n / 2, n ** 2, 1.0 / sqrt(n) * 0.5
    assert type(half) is SymFloat and half == 3.0 and half.expr == ("truediv", ("dim", "x", 0), ("int", 2))
    assert type(square) is SymInt and square == 36
    assert scaled == 0.5 / 6 ** 0.5 and scaled.expr == ("mul", ("truediv", ("float", 1.0), ("sqrt", ("dim", "x", 0))),
                                                          ("float", 0.5))
    assert type(float(half)) is float and type(pickle.loads(pickle.dumps(half))) is float
    assert hash(n) == hash(6) and {n: "a"}[6] == "a" and list(range(10))[n] == 6
    for copied in (pickle.loads(pickle.dumps(prod)), copy.copy(prod), copy.deepcopy((prod,))[0]):
        assert type(copied) is int and copied == 25


def test_graph_values_give_tagged_shapes_only_while_tagging():
    from graph.aval import AVal
    from graph.dtypes import float32
    from graph.ir import Graph
    g = Graph("g")
    x = g.add_input(AVal((3, 5), float32), "x")
    assert type(x.shape[0]) is int
    with tagging():
        s = x.shape
        assert s == (3, 5) and s[1].expr == ("dim", x, 1)
        assert type(AVal(s, float32).shape[0]) is int  # avals hold plain ints
    assert type(x.shape[0]) is int


# -- Python arithmetic on sizes: two translations, every size equal to eager --------------------------------
def _div_by_len(x):
    return x / x.shape[0]


def _reshape_to_twice(x):
    return ops.reshape(x, (x.shape[0] * 2, -1))


def _slice_half(x):
    return x[: x.shape[0] // 2 + 1] * 2.0


def _number_from_sizes(x):
    n = x.shape[0]
    return x * (n - 1) + n % 3


def _flatten_two_sizes(x):
    return ops.reshape(x, (x.shape[0] * x.shape[1],)) + 1.0


def _times_len(x):
    return x * len(x)


def _last_and_middle_rows(x):
    return x[x.shape[0] - 1] + x[len(x) // 2]


def _scaled_by_root_of_len(x):
    return x * (1.0 / math.sqrt(x.shape[0]))


def _scaled_by_float_power(x):
    return x * float(x.shape[0]) ** -0.5 + x.shape[1] / 2


def _causal_mask_from_ones(x):
    n = x.shape[1]
    return ops.matmul(x, ops.triu(ops.ones((n, n), ms.float32)))


def _additive_causal_mask(x):
    n = x.shape[1]
    mask = ops.triu(ops.full((n, n), -1e4), diagonal=1)  # (what a decoder adds to its scores)
    return ops.softmax(ops.matmul(x.T, x) + mask, axis=-1)


def _positions_from_arange(x):
    return x + ops.arange(x.shape[1]).astype(ms.float32) * 0.5 + ops.arange(0.0, x.shape[0] / 2, 0.5).reshape(-1, 1)


def _identity_sized_by_input(x):
    return ops.matmul(x, ops.eye(x.shape[1]) * 2.0) + ops.zeros((x.shape[0], 1))


def _lower_triangle_of_input(x):
    return ops.tril(x, diagonal=-1) + ops.triu(x, 2)


def _tensor_methods_given_sizes(x):
    n, m = x.shape
    return x.reshape(1, n * m).view(n, -1) + ops.arange(m).reshape((1, m)).astype(ms.float32)


def _masked_by_lengths(x):
    lengths = (x > 0).astype(ms.int32).sum(axis=1)
    return x * ops.sequence_mask(lengths, x.shape[1]).astype(ms.float32) + ops.range(0, x.shape[1], 1)


SYMBOLIC = {
    "x * sequence_mask(lengths, m) + range(0, m, 1)": (_masked_by_lengths, [(3, 4), (5, 6), (7, 2), (9, 5)]),
    "x.reshape(1, n * m).view(n, -1) + arange(m).reshape((1, m))": (_tensor_methods_given_sizes,
                                                                   [(3, 4), (5, 6), (7, 2), (9, 5)]),
    "x * (1 / math.sqrt(n))": (_scaled_by_root_of_len, [(3, 4), (5, 4), (7, 4), (9, 4)]),
    "x * float(n) ** -0.5 + m / 2": (_scaled_by_float_power, [(3, 4), (5, 6), (7, 2), (9, 5)]),
    "x @ triu(ones((m, m)))": (_causal_mask_from_ones, [(3, 4), (3, 5), (3, 7), (3, 9)]),
    "softmax(x.T @ x + triu(full((m, m), -1e4), 1))": (_additive_causal_mask, [(3, 4), (5, 6), (7, 2), (9, 5)]),
    "x + arange(m) + arange(0.0, n / 2, 0.5)": (_positions_from_arange, [(3, 4), (5, 6), (7, 2), (9, 5)]),
    "x @ (eye(m) * 2) + zeros((n, 1))": (_identity_sized_by_input, [(3, 4), (5, 6), (7, 2), (9, 5)]),
    "tril(x, -1) + triu(x, 2)": (_lower_triangle_of_input, [(3, 4), (5, 6), (7, 2), (9, 5)]),
    "x * len(x)": (_times_len, [(3, 4), (5, 4), (7, 4), (9, 4)]),
    "x[n - 1] + x[len(x) // 2]": (_last_and_middle_rows, [(3, 4), (6, 4), (7, 4), (10, 4)]),
    "x / n": (_div_by_len, [(3, 4), (5, 4), (8, 4), (11, 4)]),
    "reshape to (2n, -1)": (_reshape_to_twice, [(4, 6), (6, 6), (8, 6), (10, 6)]),
    "x[:n // 2 + 1]": (_slice_half, [(3, 4), (5, 4), (8, 4), (13, 4)]),
    "x * (n - 1) + n % 3": (_number_from_sizes, [(3, 4), (5, 4), (7, 4), (9, 4)]),
    "reshape to (n * m,)": (_flatten_two_sizes, [(3, 4), (5, 6), (7, 2), (9, 5)]),
}


@pytest.mark.parametrize("name", list(SYMBOLIC))
def test_python_arithmetic_on_sizes_is_symbolic(rng, name):
    fn, shapes = SYMBOLIC[name]
    f = capture.jit(fn)
    with recording() as report:
        for shape in shapes:
            x = f32(rng, *shape)
            assert_same(f(x), fn(x))
    assert report.graph_count == 2, report.dynamic
    assert "is dynamic (automatic)" in report.dynamic[-1][1]


def _slice_clamped(x):
    return x[: min(x.shape[0], 4)] * 2.0  # min() reads the size: not an expression kept


def test_a_size_read_by_a_python_builtin_stays_specialised(rng):
    """``min(n, 4)`` is 4 at sizes 5 and 6 (same graph), 3 at size 3: the read is logged, so the
    dimension is refused and size 3 gets its own translation (equal to eager)."""
    f = capture.jit(_slice_clamped)
    with recording() as report:
        for n in (5, 6, 3):
            x = f32(rng, n, 4)
            assert_same(f(x), _slice_clamped(x))
    assert report.graph_count == 3
    assert "Python code read the size" in report.dynamic[0][1]


# -- Transformers: nn.MultiheadAttention computes batch * num_heads ------------------------------------------
def test_multihead_attention_over_varying_batch_and_length(rng):
    ms.set_seed(0)
    mha = nn.MultiheadAttention(8, 2)
    f = capture.jit(lambda x: mha(x, x, x)[0])
    with recording() as report:
        for length, batch in [(6, 3), (4, 5), (7, 2), (3, 9), (5, 4), (9, 6)]:
            x = f32(rng, length, batch, 8)
            with pynative():
                want = mha(x, x, x)[0]
            assert_same(f(x), want)
    assert report.graph_count == 2, report.dynamic
    # explain() names what the graph computes from the sizes: the heads' reshape, batch * 2
    assert re.search(r"reshape shape\[1\] = s\d \* 2", report.dynamic[-1][1]), report.dynamic[-1][1]


class Classifier(nn.Cell):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 16)
        self.layer = nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.0, batch_first=True)
        self.out = nn.Dense(16, 3)

    def construct(self, ids):
        return self.out(ops.mean(self.layer(self.emb(ids)), 1))


def _encoder_train_step(jitted):
    ms.set_seed(0)
    net = Classifier()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.SGD(net.trainable_params(), 0.05)
    grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, opt.parameters)

    def step(x, y):
        loss, grads = grad_fn(x, y)
        opt(grads)
        return loss
    return (capture.jit(step) if jitted else step), net


def test_transformer_encoder_train_step_with_batch_and_length_varying_every_step(rng):
    # (the first two calls differ in both sizes: one that changes only later, such as a last
    # smaller batch, costs a third translation, merged into the same generic entry)
    shapes = [(4, 6), (7, 9)]
    while len(set(shapes)) < 20:
        shapes.append((int(rng.integers(2, 9)), int(rng.integers(2, 17))))
    graph_step, graph_net = _encoder_train_step(True)
    eager_step, eager_net = _encoder_train_step(False)
    with recording() as report:
        for batch, length in shapes:
            ids = Tensor(rng.integers(0, 50, (batch, length)).astype(np.int32))
            y = Tensor(rng.integers(0, 3, batch).astype(np.int32))
            got = graph_step(ids, y)
            with pynative():
                want = eager_step(ids, y)
            np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-5, atol=1e-6)
    for p, q in zip(graph_net.trainable_params(), eager_net.trainable_params()):
        np.testing.assert_allclose(p.asnumpy(), q.asnumpy(), rtol=1e-4, atol=1e-5)
    assert report.graph_count == 2, report.dynamic
    assert "x dim 0, y dim 0; x dim 1 is dynamic (automatic)" in report.dynamic[-1][1]


class TinyGPT(nn.Cell):
    """A decoder-only LM: token embedding, learned positions and a causal mask sliced to the
    input's length (``self.pos[:n]``, ``self.causal[:n, :n]``), one Transformer block."""

    def __init__(self, vocab=32, d=16, heads=2, max_len=80):
        super().__init__()
        rng = np.random.default_rng(1)
        self.tok = nn.Embedding(vocab, d)
        self.pos = ms.Parameter(Tensor(rng.standard_normal((max_len, d)).astype(np.float32)), name="pos")
        self.causal = Tensor(np.triu(np.full((max_len, max_len), -1e9, np.float32), 1))
        self.block = nn.TransformerEncoderLayer(d, heads, dim_feedforward=32, dropout=0.0, batch_first=True)
        self.head = nn.Dense(d, vocab)

    def construct(self, ids):
        n = ids.shape[1]
        h = self.tok(ids) + self.pos[:n]
        h = self.block(h, src_mask=self.causal[:n, :n])
        return self.head(h[:, -1])


def test_greedy_decoding_of_a_transformer_over_64_steps_translates_twice():
    ms.set_seed(0)
    net = TinyGPT()
    step = capture.jit(lambda ids: ops.argmax(net(ids), -1))
    ids_graph = ids_eager = np.array([[1, 2], [3, 4]], np.int32)
    with recording() as report:
        for _ in range(64):
            nxt_graph = step(Tensor(ids_graph)).asnumpy()
            with pynative():
                nxt_eager = ops.argmax(net(Tensor(ids_eager)), -1).asnumpy()
            np.testing.assert_array_equal(nxt_graph, nxt_eager)
            ids_graph = np.concatenate([ids_graph, nxt_graph[:, None].astype(np.int32)], axis=1)
            ids_eager = np.concatenate([ids_eager, nxt_eager[:, None].astype(np.int32)], axis=1)
    assert report.graph_count == 2, report.dynamic
    assert len(report.reinstantiations) == 62


class HandWrittenAttention(nn.Cell):
    """Attention as people write it by hand: positions from ``ops.arange(n)``, ``view``/``reshape``
    methods given sizes, a causal mask from ``ops.triu(ops.ones((n, n)))``, scaling by
    ``math.sqrt`` of a size and a mean as ``sum / n``."""

    def __init__(self, vocab=30, d=16):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(64, d)
        self.qkv = nn.Dense(d, 3 * d)
        self.head = nn.Dense(d, vocab)

    def construct(self, ids):
        b, n = ids.shape
        h = self.tok(ids) + self.pos(ops.tile(ops.arange(n).view(1, n), (b, 1)))
        q, k, v = ops.split(self.qkv(h).reshape(b, n, 3, -1), 1, axis=2)
        q, k, v = q.squeeze(2), k.squeeze(2), v.squeeze(2)
        scores = ops.matmul(q, k.transpose(0, 2, 1)) / math.sqrt(q.shape[-1] * n / n)
        scores = scores + ops.triu(ops.ones((n, n), ms.float32), diagonal=1) * -1e9
        mixed = ops.matmul(ops.softmax(scores, axis=-1), v)
        return self.head(mixed.sum(axis=1) / n)


def test_hand_written_attention_decodes_in_graph_mode_with_two_translations(monkeypatch):
    """GRAPH_MODE greedy decoding of :class:`HandWrittenAttention`: tokens equal PyNative's,
    two translations, no break (every one of its size uses read each size before)."""
    def decode(mode):
        ms.set_context(mode=mode)
        ms.set_seed(3)
        net = HandWrittenAttention()
        ids = np.array([[1, 2], [3, 4]], np.int32)
        with recording() as report:
            for _ in range(14):
                nxt = net(Tensor(ids)).argmax(-1).asnumpy()
                ids = np.concatenate([ids, nxt[:, None].astype(np.int32)], axis=1)
        return ids, report
    try:
        eager_ids, _ = decode(ms.PYNATIVE_MODE)
        graph_ids, report = decode(ms.GRAPH_MODE)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_array_equal(graph_ids, eager_ids)
    assert report.graph_count == 2 and not report.breaks, (report.dynamic, report.breaks)


# -- what stays a read of the value: adversarial ------------------------------------------------------------
def _branch_on_expression(x):
    if x.shape[0] * 2 > 10:  # a comparison of an expression: its value is read
        return x * 2.0
    return x - 1.0


def _branch_on_framework_size(x):
    n = ops.shape(x)[0]  # a size framework code returns is symbolic again, so the branch reads it
    if n > 5:
        return x * 2.0
    return x - 1.0


@pytest.mark.parametrize("fn", [_branch_on_expression, _branch_on_framework_size])
def test_a_branch_on_a_size_expression_stays_specialised(rng, fn):
    """Sizes 3 and 4 take the same branch (same graph); 8 takes the other: the comparison reads
    the size, the logs of the two traces differ, and 8 gets its own translation."""
    f = capture.jit(fn)
    with recording() as report:
        for n in (3, 4, 8):
            x = f32(rng, n, 2)
            assert_same(f(x), fn(x))
    assert report.graph_count == 3
    assert "Python code read the size" in report.dynamic[0][1]


def _same_size_compared(x, y):
    if x.shape[0] == x.shape[0] and x.shape[1] >= x.shape[1]:  # true at every size: nothing read
        return x + 1.0
    return x


def test_comparing_a_size_expression_with_itself_reads_nothing(rng):
    f = capture.jit(_same_size_compared)
    with recording() as report:
        for n in (3, 5, 9):
            x = f32(rng, n, 2)
            assert_same(f(x, x), _same_size_compared(x, x))
    assert report.graph_count == 2


def test_an_expression_the_new_size_cannot_satisfy_raises_as_eager(rng):
    """``(n // 2, 2, 4)`` holds n*4 elements only for even n: an odd size fails the reshape's
    shape inference when the graph is re-instantiated, with eager's error."""
    def fn(x):
        return ops.reshape(x, (x.shape[0] // 2, 2, 4)) * 2.0
    f = capture.jit(fn)
    for n in (4, 6, 8):
        x = f32(rng, n, 4)
        assert_same(f(x), fn(x))
    x = f32(rng, 5, 4)
    with pytest.raises(ValueError, match="cannot reshape input of shape") as eager_error:
        fn(x)
    with pytest.raises(ValueError, match="cannot reshape input of shape") as graph_error:
        f(x)
    assert str(graph_error.value).splitlines()[0] == str(eager_error.value).splitlines()[0]
