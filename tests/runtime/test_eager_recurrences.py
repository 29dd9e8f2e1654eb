"""PyNative's LSTM and GRU recurrences and their backward ops run as compiled one-op graphs (the
native kernels of codegen/cpu/native/recurrent.py and gru.py) once a signature is warm
(runtime/eager_kernels.py).

Oracles: each op's numpy implementation (the registry's reference) on the same operands, in both
dtypes, both directions, sequences of one and several steps, cotangents given or absent (the
number 0); nn.LSTM / nn.GRU (stacked, bidirectional, with and without initial states) against the
same layer with the eager kernels off (numpy's path); central finite differences in float64
through the compiled kernels; PyTorch from identical weights when it is importable."""
import numpy as np
import pytest

import runtime as ms
from codegen.cpu import blas
from gradcheck import check_grad
from graph.ops import REGISTRY
from graph.ops.core import F
from runtime import Tensor, eager_kernels, nn

RECURRENCES = ("lstm_recurrence", "lstm_recurrence_grad", "gru_recurrence", "gru_recurrence_grad")
CALLS = eager_kernels.WARM_CALLS + 2  # (the last calls run the compiled graph)


@pytest.fixture(autouse=True)
def fresh():
    eager_kernels.reset()
    yield
    eager_kernels.reset()


def _settled(fn):
    """``fn()``, then wait for the compiles it submitted, so which path the next call takes is
    decided (runtime/background_compile.py)."""
    out = fn()
    assert eager_kernels.wait_pending(timeout=600)
    return out


def _close(got, want, dtype):
    tol = dict(rtol=2e-5, atol=2e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(got, want, **tol)


def _compiled_ops():
    """Per op name, the compiled graphs of its signatures (failed compiles left out)."""
    found = {}
    for key, value in eager_kernels._compiled.items():
        if value is not eager_kernels._FAILED and value is not eager_kernels._PENDING:
            found.setdefault(key[0], []).append(value)
    return found


def _assert_native(names):
    """Each op of ``names`` has a compiled signature, whose one kernel is the op's native kernel
    (not a call back into its numpy implementation) where generated code can call BLAS."""
    compiled = _compiled_ops()
    for name in names:
        assert name in compiled, (name, sorted(compiled))
        if blas.interface() is not None:
            for graph in compiled[name]:
                assert any(d.startswith("k0 native") and name in d for d in graph.descr), graph.descr


def _lstm_operands(rng, dtype, t_len, batch=3, hid=8):
    x = rng.standard_normal((t_len, batch, 4 * hid))
    w = rng.standard_normal((4 * hid, hid)) * 0.4
    h0, c0 = rng.standard_normal((batch, hid)), rng.standard_normal((batch, hid))
    return [a.astype(dtype) for a in (x, w, h0, c0)]


def _gru_operands(rng, dtype, t_len, batch=3, hid=8):
    x = rng.standard_normal((t_len, batch, 3 * hid))
    w = rng.standard_normal((3 * hid, hid)) * 0.4
    b, h0 = rng.standard_normal(3 * hid), rng.standard_normal((batch, hid))
    return [a.astype(dtype) for a in (x, w, b, h0)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("t_len", [1, 7])
@pytest.mark.parametrize("kind", ["lstm", "gru"])
def test_recurrences_and_their_gradient_ops_equal_numpy_once_compiled(kind, t_len, reverse, dtype):
    rng = np.random.default_rng(t_len + 10 * reverse)
    operands = (_lstm_operands if kind == "lstm" else _gru_operands)(rng, dtype, t_len)
    fwd, bwd = REGISTRY[f"{kind}_recurrence"], REGISTRY[f"{kind}_recurrence_grad"]
    want = fwd.impl(np, *operands, reverse=reverse)
    for _ in range(CALLS):
        got = _settled(lambda: getattr(F, fwd.name)(*map(Tensor, operands), reverse=reverse))
        assert len(got) == 3
        for g, w in zip(got, want):
            _close(g.asnumpy(), w, dtype)
    # the gradient op, with every cotangent given, then with only the first (the others the number 0)
    cotangents = [rng.standard_normal(w.shape).astype(dtype) for w in want]
    if kind == "lstm":
        x, w_hh, h0, c0 = operands
        rest = [w_hh, h0, c0, *want]
    else:
        x, w_hh, b_hh, h0 = operands
        rest = [w_hh, h0, *want]
    for given in (cotangents, [cotangents[0], 0.0, 0.0]):
        grads_want = bwd.impl(np, *given, *rest, reverse=reverse)
        args = [Tensor(a) if isinstance(a, np.ndarray) else a for a in given + rest]
        for _ in range(CALLS):
            grads = _settled(lambda: getattr(F, bwd.name)(*args, reverse=reverse))
            assert len(grads) == 3
            for g, w in zip(grads, grads_want):
                _close(g.asnumpy(), w, dtype)
    _assert_native([fwd.name, bwd.name])
    # one signature per set of cotangents given: the number 0 is part of the signature
    assert len(_compiled_ops()[bwd.name]) == 2


def _layer(cls, seed, **kw):
    ms.set_seed(seed)
    return cls(3, 4, **kw)


def _loss_and_grads(net, x, hx):
    def loss(x, *state):
        if state:
            out, final = net(x, state if len(state) == 2 else state[0])
        else:
            out, final = net(x)
        total = (out * out).sum()
        for k, f in enumerate(final if isinstance(final, tuple) else (final,)):
            total = total + (f * (0.5 / (k + 1))).sum()
        return total

    value, (g_in, g_params) = ms.value_and_grad(loss, tuple(range(1 + len(hx))), net.trainable_params())(x, *hx)
    return [value.asnumpy()] + [g.asnumpy() for g in g_in + g_params]


@pytest.mark.parametrize("with_states", [False, True])
@pytest.mark.parametrize("t_len", [1, 5])
@pytest.mark.parametrize("cls", [nn.LSTM, nn.GRU])
def test_stacked_bidirectional_layers_equal_numpys_path_once_compiled(cls, t_len, with_states, monkeypatch):
    net = _layer(cls, 3, num_layers=2, bidirectional=True, batch_first=True)
    rng = np.random.default_rng(4)
    x = Tensor(rng.standard_normal((2, t_len, 3)).astype(np.float32))
    hx = tuple(Tensor(rng.standard_normal((4, 2, 4)).astype(np.float32))
               for _ in range(2 if cls is nn.LSTM else 1)) if with_states else ()
    monkeypatch.setenv("MSJIT_EAGER_KERNELS", "0")
    want = _loss_and_grads(net, x, hx)
    monkeypatch.delenv("MSJIT_EAGER_KERNELS")
    for _ in range(CALLS):
        got = _settled(lambda: _loss_and_grads(net, x, hx))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    kind = "lstm" if cls is nn.LSTM else "gru"
    _assert_native([f"{kind}_recurrence", f"{kind}_recurrence_grad"])


@pytest.mark.parametrize("cls", [nn.LSTM, nn.GRU])
def test_compiled_layer_gradients_match_finite_differences_in_float64(cls):
    net = _layer(cls, 5, num_layers=2, bidirectional=True, dtype=ms.float64)
    rng = np.random.default_rng(6)
    x, h0, c0 = rng.standard_normal((4, 2, 3)), rng.standard_normal((4, 2, 4)), rng.standard_normal((4, 2, 4))
    if cls is nn.LSTM:
        def fn(x, h, c):
            out, (h_n, c_n) = net(x, (h, c))
            return out, h_n, c_n
        arrays = (x, h0, c0)
    else:
        def fn(x, h):
            return net(x, h)
        arrays = (x, h0)
    scalar = ms.grad(lambda *ts: sum(o.sum() for o in fn(*ts)), grad_position=tuple(range(len(arrays))))
    for _ in range(CALLS):  # (warm: every call of check_grad below runs the compiled kernels)
        _settled(lambda: scalar(*map(Tensor, arrays)))
    kind = "lstm" if cls is nn.LSTM else "gru"
    _assert_native([f"{kind}_recurrence", f"{kind}_recurrence_grad"])
    check_grad(fn, *arrays, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_compiled_layers_match_pytorch_from_identical_weights(kind):
    torch = pytest.importorskip("torch")
    ms.set_seed(7)
    ours = getattr(nn, kind)(4, 8, num_layers=2, bidirectional=True, batch_first=True)
    theirs = getattr(torch.nn, kind)(4, 8, num_layers=2, bidirectional=True, batch_first=True)
    with torch.no_grad():
        for name, p in theirs.named_parameters():
            p.copy_(torch.tensor(getattr(ours, name).asnumpy()))
    rng = np.random.default_rng(8)
    x = rng.standard_normal((3, 6, 4)).astype(np.float32)
    states = [rng.standard_normal((4, 3, 8)).astype(np.float32) for _ in range(2 if kind == "LSTM" else 1)]

    def finals(final):
        return final if isinstance(final, tuple) else (final,)

    def loss(x, *state):
        out, final = ours(x, state if kind == "LSTM" else state[0])
        return (out * out).sum() + sum((f * f).sum() for f in finals(final))

    grad_fn = ms.value_and_grad(loss, None, ours.trainable_params())
    for _ in range(CALLS):
        value, grads = _settled(lambda: grad_fn(Tensor(x), *map(Tensor, states)))
    _assert_native([f"{kind.lower()}_recurrence", f"{kind.lower()}_recurrence_grad"])
    t_state = tuple(torch.tensor(a) for a in states)
    out, final = theirs(torch.tensor(x), t_state if kind == "LSTM" else t_state[0])
    t_loss = (out * out).sum() + sum((f * f).sum() for f in finals(final))
    t_loss.backward()
    np.testing.assert_allclose(value.asnumpy(), t_loss.item(), rtol=1e-5)
    ours_grads = {p.name: g for p, g in zip(ours.trainable_params(), grads)}
    for name, p in theirs.named_parameters():
        np.testing.assert_allclose(ours_grads[name].asnumpy(), p.grad.numpy(), rtol=1e-4, atol=1e-5, err_msg=name)


def test_a_nonzero_number_as_cotangent_keeps_the_ops_own_error():
    rng = np.random.default_rng(9)
    x, w, h0, c0 = _lstm_operands(rng, np.float32, 3)
    hs, cs, gates = REGISTRY["lstm_recurrence"].impl(np, x, w, h0, c0)
    args = [Tensor(a) for a in (w, h0, c0, hs, cs, gates)]
    for _ in range(CALLS):
        _settled(lambda: F.lstm_recurrence_grad(Tensor(hs), 0.0, 0.0, *args))
        with pytest.raises(ValueError, match="the number 0"):
            F.lstm_recurrence_grad(Tensor(hs), 1.0, 0.0, *args)
