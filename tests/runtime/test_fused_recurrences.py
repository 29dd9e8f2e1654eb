"""The fused LSTM recurrence (graph/ops/recurrent.py) and nn.LSTM running on it.

Oracles: the LSTM equations step by step in float64 numpy (MindSpore's documented formulation),
central finite differences for the op's VJP (every operand, with cotangents on all three
outputs, both directions), nn.LSTM's own per-step formulation (``_fuse = False``) for
outputs and parameter gradients in PyNative and under jit, and PyTorch from identical weights."""
import numpy as np
import pytest

import runtime as ms
from capture.backends import CountingBackend
from gradcheck import check_grad
from graph.ops import REGISTRY
from runtime import Tensor, nn, ops

LSTM_OP = REGISTRY["lstm_recurrence"]
GRAD_OP = REGISTRY["lstm_recurrence_grad"]
GRU_OP = REGISTRY["gru_recurrence"]


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def numpy_recurrence(x_proj, w_hh, h0, c0, reverse=False):
    """The equations step by step: gates = x_proj[t] + h W_hh^T; i, f, o sigmoid, g tanh."""
    t_len, _, g4 = x_proj.shape
    hid = g4 // 4
    hs, cs, gates = np.zeros(x_proj.shape[:2] + (hid,)), np.zeros(x_proj.shape[:2] + (hid,)), np.zeros(x_proj.shape)
    h, c = h0, c0
    for t in (range(t_len - 1, -1, -1) if reverse else range(t_len)):
        pre = x_proj[t] + h @ w_hh.T
        i, f, g, o = np.split(pre, 4, -1)
        i, f, g, o = _sigmoid(i), _sigmoid(f), np.tanh(g), _sigmoid(o)
        c = f * c + i * g
        h = o * np.tanh(c)
        hs[t], cs[t], gates[t] = h, c, np.concatenate([i, f, g, o], -1)
    return hs, cs, gates


def numpy_gru(x_proj, w_hh, b_hh, h0, reverse=False):
    """GRU step by step: r, z = sigmoid(x + h W^T + b), n = tanh(x_n + r (h W_n^T + b_n))."""
    hid = x_proj.shape[2] // 3
    hs, gates, hn = np.zeros(x_proj.shape[:2] + (hid,)), np.zeros(x_proj.shape), np.zeros(x_proj.shape[:2] + (hid,))
    h = h0
    for t in (range(x_proj.shape[0] - 1, -1, -1) if reverse else range(x_proj.shape[0])):
        xr, xz, xn = np.split(x_proj[t], 3, -1)
        hr, hz, hn_t = np.split(h @ w_hh.T + b_hh, 3, -1)
        r, z = _sigmoid(xr + hr), _sigmoid(xz + hz)
        n = np.tanh(xn + r * hn_t)
        h = (1 - z) * n + z * h
        hs[t], gates[t], hn[t] = h, np.concatenate([r, z, n], -1), hn_t
    return hs, gates, hn


def _gru_operands(seed, t_len=5, batch=3, hid=4):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((t_len, batch, 3 * hid)), rng.standard_normal((3 * hid, hid)) * 0.5,
            rng.standard_normal(3 * hid), rng.standard_normal((batch, hid)))


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("t_len", [1, 6])
def test_gru_recurrence_equals_the_step_equations(reverse, t_len):
    args = _gru_operands(21, t_len)
    got = GRU_OP.impl(np, *args, reverse=reverse)
    for name, g, w in zip(("hs", "gates", "hn_proj"), got, numpy_gru(*args, reverse=reverse)):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-13, err_msg=name)


@pytest.mark.parametrize("reverse", [False, True])
def test_gru_gradient_of_every_operand_matches_finite_differences(reverse):
    check_grad(lambda *ts: ops.gru_recurrence(*ts, reverse=reverse), *_gru_operands(22, 4, 2, 3),
               rtol=1e-6, atol=1e-8)
    check_grad(lambda *ts: ops.gru_recurrence(*ts, reverse=reverse)[0][0], *_gru_operands(23, 4, 2, 3),
               rtol=1e-6, atol=1e-8)


def test_gru_bad_operands_raise_clear_errors():
    x, w, b, h0 = _gru_operands(24, 3, 2, 2)
    with pytest.raises(ValueError, match="b_hh must have shape") as info:
        ops.gru_recurrence(Tensor(x), Tensor(w), Tensor(b[:-1]), Tensor(h0))
    assert "GRURecurrence" in str(info.value)
    with pytest.raises(ValueError, match="3 \\* hidden"):
        ops.gru_recurrence(Tensor(x[:, :, :-1]), Tensor(w), Tensor(b), Tensor(h0))


def _operands(seed, t_len=5, batch=3, hid=4, dtype=np.float64):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((t_len, batch, 4 * hid)).astype(dtype),
            (rng.standard_normal((4 * hid, hid)) * 0.5).astype(dtype),
            rng.standard_normal((batch, hid)).astype(dtype), rng.standard_normal((batch, hid)).astype(dtype))


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("t_len", [1, 6])
def test_recurrence_equals_the_step_equations(reverse, t_len):
    args = _operands(1, t_len)
    got = LSTM_OP.impl(np, *args, reverse=reverse)
    want = numpy_recurrence(*args, reverse=reverse)
    for name, g, w in zip(("hs", "cs", "gates"), got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-13, err_msg=name)
    # eagerly through the public function too (Tensors in, Tensors out)
    out = ops.lstm_recurrence(*[Tensor(a) for a in args], reverse=reverse)
    np.testing.assert_allclose(out[0].asnumpy(), want[0], rtol=1e-12, atol=1e-13)


def test_float32_sigmoid_through_tanh_stays_within_rounding():
    args = [a * 4 for a in _operands(2, 8)]  # wide pre-activations: saturated gates too
    got = LSTM_OP.impl(np, *[a.astype(np.float32) for a in args])
    want = numpy_recurrence(*args)
    for g, w in zip(got, want):
        assert g.dtype == np.float32
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=2e-6)


@pytest.mark.parametrize("reverse", [False, True])
def test_gradient_of_every_operand_matches_finite_differences(reverse):
    # cotangents on hs, cs and the gates (check_grad weights every output element)
    check_grad(lambda *ts: ops.lstm_recurrence(*ts, reverse=reverse), *_operands(3, 4, 2, 3),
               rtol=1e-6, atol=1e-8)


def test_gradient_with_only_the_last_state_used_matches_finite_differences():
    # the usual case: only h_n feeds the loss, so cs and gates get no cotangent (the number 0)
    check_grad(lambda *ts: ops.lstm_recurrence(*ts)[0][-1], *_operands(4, 5, 2, 3), rtol=1e-6, atol=1e-8)


def test_gradient_op_refuses_mismatched_operands():
    x, w, h0, c0 = _operands(5, 3, 2, 2)
    hs, cs, gates = LSTM_OP.impl(np, x, w, h0, c0)
    ok = [hs, 0.0, 0.0, w, h0, c0, hs, cs, gates]
    assert len(GRAD_OP.impl(np, *ok)) == 3
    bad = list(ok)
    bad[1] = 1.0
    with pytest.raises(ValueError, match="number 0"):
        ops.lstm_recurrence_grad(*[Tensor(a) if isinstance(a, np.ndarray) else a for a in bad])
    bad = list(ok)
    bad[0] = hs[:2]
    with pytest.raises(ValueError, match="d_hs"):
        ops.lstm_recurrence_grad(*[Tensor(a) if isinstance(a, np.ndarray) else a for a in bad])


@pytest.mark.parametrize("case, exc, words", [
    (lambda x, w, h, c: (x[0], w, h, c), ValueError, "x_proj must be"),
    (lambda x, w, h, c: (x[:, :, :-1], w, h, c), ValueError, "4 \\* hidden"),
    (lambda x, w, h, c: (x, w[:, :-1], h, c), ValueError, "w_hh must be"),
    (lambda x, w, h, c: (x, w, h[:1], c), ValueError, "h0 must be"),
    (lambda x, w, h, c: (x, w, h, c.astype(np.int32)), TypeError, "c0 must be a float"),
    (lambda x, w, h, c: (x[:0], w, h, c), ValueError, "at least one step"),
])
def test_bad_operands_raise_clear_errors(case, exc, words):
    args = case(*_operands(6, 3, 2, 2))
    with pytest.raises(exc, match=words) as info:
        ops.lstm_recurrence(*[Tensor(a) for a in args])
    assert "LSTMRecurrence" in str(info.value)


def test_mixed_float_dtypes_promote_and_gradients_keep_each_operand_dtype():
    x, w, h0, c0 = _operands(7, 3, 2, 2)
    args = (Tensor(x), Tensor(w.astype(np.float32)), Tensor(h0.astype(np.float32)), Tensor(c0))
    hs = ops.lstm_recurrence(*args)[0]
    assert hs.dtype == ms.float64
    grads = ms.grad(lambda *ts: ops.lstm_recurrence(*ts)[0].sum(), grad_position=(0, 1, 2, 3))(*args)
    assert [g.dtype for g in grads] == [ms.float64, ms.float32, ms.float32, ms.float64]


# -- nn.LSTM and nn.GRU on the recurrences ----------------------------------------------------------------
def _pair(cls, seed, **kw):
    """Two layers with the same weights: the fused one and the per-step formulation."""
    ms.set_seed(seed)
    fused = cls(3, 4, **kw)
    ms.set_seed(seed)
    stepwise = cls(3, 4, **kw)
    stepwise._fuse = False
    for a, b in zip(fused.trainable_params(), stepwise.trainable_params()):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    return fused, stepwise


def _loss_and_grads(net, x, hx, mode):
    width = net.hidden_size * net.num_directions
    w_out = Tensor(np.random.default_rng(0).uniform(0.5, 1.5, (2, 5, width) if net.batch_first else (5, 2, width))
                   .astype(np.float32))

    def loss(x, *state):
        out, final = net(x, state if len(state) == 2 else state[0])
        total = (out * w_out).sum()
        for k, f in enumerate(final if isinstance(final, tuple) else (final,)):
            total = total + (f * (0.5 / (k + 1))).sum()
        return total

    fn = ms.value_and_grad(loss, tuple(range(1 + len(hx))), net.trainable_params())
    if mode == "jit":
        fn = ms.jit(fn)
    return fn(x, *hx)


@pytest.mark.parametrize("mode", ["pynative", "jit"])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("cls", [nn.LSTM, nn.GRU])
def test_layer_outputs_and_gradients_equal_the_per_step_formulation(mode, batch_first, cls):
    fused, stepwise = _pair(cls, 11, num_layers=2, bidirectional=True, batch_first=batch_first)
    rng = np.random.default_rng(12)
    x = Tensor(rng.standard_normal((2, 5, 3) if batch_first else (5, 2, 3)).astype(np.float32))
    hx = tuple(Tensor(rng.standard_normal((4, 2, 4)).astype(np.float32)) for _ in range(2 if cls is nn.LSTM else 1))
    (l1, (gin1, gp1)), (l2, (gin2, gp2)) = (_loss_and_grads(n, x, hx, mode) for n in (fused, stepwise))
    np.testing.assert_allclose(l1.asnumpy(), l2.asnumpy(), rtol=1e-5, atol=1e-5)
    assert len(gin1 + gp1) == len(gin2 + gp2) == 1 + len(hx) + 16
    for a, b in zip(gin1 + gp1, gin2 + gp2):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("cls", [nn.LSTM, nn.GRU])
def test_layer_without_biases_equals_the_per_step_formulation(cls):
    fused, stepwise = _pair(cls, 25, has_bias=False)
    x = Tensor(np.random.default_rng(26).standard_normal((5, 2, 3)).astype(np.float32))
    hx = tuple(Tensor(np.zeros((1, 2, 4), np.float32)) for _ in range(2 if cls is nn.LSTM else 1))
    (l1, (gin1, gp1)), (l2, (gin2, gp2)) = (_loss_and_grads(n, x, hx, "pynative") for n in (fused, stepwise))
    np.testing.assert_allclose(l1.asnumpy(), l2.asnumpy(), rtol=1e-5, atol=1e-5)
    for a, b in zip(gin1 + gp1, gin2 + gp2):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("cls", [nn.LSTM, nn.GRU])
def test_stacked_bidirectional_layer_gradients_match_finite_differences(cls):
    ms.set_seed(13)
    net = cls(2, 3, num_layers=2, bidirectional=True, dtype=ms.float64)
    rng = np.random.default_rng(14)
    x = rng.standard_normal((4, 2, 2))
    h0, c0 = rng.standard_normal((4, 2, 3)), rng.standard_normal((4, 2, 3))
    if cls is nn.LSTM:
        check_grad(lambda x, h, c: (lambda r: (r[0], r[1][0], r[1][1]))(net(x, (h, c))), x, h0, c0,
                   rtol=1e-6, atol=1e-8)
    else:
        check_grad(lambda x, h: net(x, h), x, h0, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_layer_matches_pytorch_outputs_states_and_gradients(kind):
    torch = pytest.importorskip("torch")
    ms.set_seed(15)
    ours = getattr(nn, kind)(4, 5, num_layers=2, bidirectional=True, batch_first=True)
    theirs = getattr(torch.nn, kind)(4, 5, num_layers=2, bidirectional=True, batch_first=True)
    with torch.no_grad():
        for name, p in theirs.named_parameters():
            p.copy_(torch.tensor(getattr(ours, name).asnumpy()))
    rng = np.random.default_rng(16)
    x = rng.standard_normal((3, 6, 4)).astype(np.float32)
    states = [rng.standard_normal((4, 3, 5)).astype(np.float32) for _ in range(2 if kind == "LSTM" else 1)]

    def finals(final):
        return final if isinstance(final, tuple) else (final,)

    def loss(x, *state):
        out, final = ours(x, state if kind == "LSTM" else state[0])
        h_n = finals(final)[0]
        return out.sum() + (h_n * h_n).sum() + sum(f.sum() for f in finals(final)[1:])

    value, grads = ms.value_and_grad(loss, None, ours.trainable_params())(Tensor(x), *map(Tensor, states))
    t_state = tuple(torch.tensor(a) for a in states)
    out, final = theirs(torch.tensor(x), t_state if kind == "LSTM" else t_state[0])
    t_loss = out.sum() + (finals(final)[0] ** 2).sum() + sum(f.sum() for f in finals(final)[1:])
    t_loss.backward()
    np.testing.assert_allclose(value.asnumpy(), t_loss.item(), rtol=1e-5)
    ours_grads = {p.name: g for p, g in zip(ours.trainable_params(), grads)}
    assert sorted(ours_grads) == sorted(n for n, _ in theirs.named_parameters())
    for name, p in theirs.named_parameters():
        np.testing.assert_allclose(ours_grads[name].asnumpy(), p.grad.numpy(), rtol=1e-4, atol=1e-5, err_msg=name)


@pytest.mark.parametrize("cls, op", [(nn.LSTM, "lstm_recurrence"), (nn.GRU, "gru_recurrence")])
def test_graph_size_does_not_grow_with_the_sequence_length(cls, op):
    counts = {}
    for seq in (4, 40):
        ms.set_seed(17)
        net = cls(3, 4)
        counter = CountingBackend()
        grad_fn = ms.value_and_grad(lambda x: net(x)[0].sum(), None, net.trainable_params())
        ms.jit(grad_fn, backend=counter)(Tensor(np.ones((seq, 2, 3), np.float32)))
        counts[seq] = counter.op_counts
        names = [n.op.name for g in counter.graphs for n in g.nodes]
        assert names.count(op) == 1
        # outputs without a cotangent (the gates; the cell states) reach the gradient op as the
        # number 0 (vjp_takes_none): no tensor of zeros is made for them
        assert "zeros_like" not in names
        grad_node = next(n for g in counter.graphs for n in g.nodes if n.op.name == op + "_grad")
        assert sum(1 for v in grad_node.inputs[:3] if isinstance(v, float) and v == 0) == 2
    assert counts[4] == counts[40]


def test_dropout_between_layers_applies_in_training_only():
    ms.set_seed(18)
    net = nn.LSTM(3, 4, num_layers=2, dropout=0.5)
    x = Tensor(np.random.default_rng(19).standard_normal((5, 2, 3)).astype(np.float32))
    net.set_train(False)
    a, b = net(x)[0].asnumpy(), net(x)[0].asnumpy()
    np.testing.assert_array_equal(a, b)
    net.set_train(True)
    assert not np.allclose(net(x)[0].asnumpy(), a)


def test_long_sequence_backward_flushes_subnormal_cotangents():
    # forget gates near 0.5 halve d c every step: after ~126 steps float32 cotangents would be
    # subnormal (~100x slower arithmetic); the carried ones are flushed below 2^26 * tiny instead
    t_len, batch, hid = 200, 2, 3
    rng = np.random.default_rng(20)
    x = (rng.standard_normal((t_len, batch, 4 * hid)) * 0.1).astype(np.float32)
    w = (rng.standard_normal((4 * hid, hid)) * 0.1).astype(np.float32)
    h0 = np.zeros((batch, hid), np.float32)
    outs = LSTM_OP.impl(np, x, w, h0, h0)
    d_hs = np.zeros((t_len, batch, hid), np.float32)
    d_hs[-1] = 1.0
    d_x, d_h0, d_c0 = GRAD_OP.impl(np, d_hs, 0.0, 0.0, w, h0, h0, *outs)
    tiny = np.finfo(np.float32).tiny
    for name, a in (("d_x", d_x), ("d_h0", d_h0), ("d_c0", d_c0)):
        assert not ((a != 0) & (np.abs(a) < tiny)).any(), f"{name} has subnormal values"
    # the same gradient in float64 (no subnormals there): equal up to what was flushed
    wide = GRAD_OP.impl(np, d_hs.astype(np.float64), 0.0, 0.0, w.astype(np.float64), h0.astype(np.float64),
                        h0.astype(np.float64), *(o.astype(np.float64) for o in outs))[0]
    np.testing.assert_allclose(d_x, wide, rtol=1e-3, atol=1e-12)
    assert np.abs(d_x[-1]).max() > 0.01 and (d_x[:50] == 0).all()
