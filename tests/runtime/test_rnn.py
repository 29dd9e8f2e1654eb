"""RNN / LSTM / GRU and their cells against numpy re-implementations (and PyTorch where installed),
with seq_length masking, in PyNative, GRAPH_MODE and @jit; gradients by finite differences."""
import numpy as np
import pytest

import runtime as ms
from gradcheck import check_grad
from modes import HOOK_MODES, run_cell
from runtime import Tensor, nn



def sig(v):
    return 1 / (1 + np.exp(-v))


def np_step(mode, x, state, w_ih, w_hh, b_ih, b_hh):
    gi, gh = x @ w_ih.T + b_ih, state[0] @ w_hh.T + b_hh if mode == "LSTM" else state @ w_hh.T + b_hh
    if mode == "LSTM":
        h, c = state
        i, f, g, o = np.split(gi + gh, 4, -1)
        c = sig(f) * c + sig(i) * np.tanh(g)
        h = sig(o) * np.tanh(c)
        return h, (h, c)
    if mode == "GRU":
        ir, iz, in_ = np.split(gi, 3, -1)
        hr, hz, hn = np.split(gh, 3, -1)
        r, z = sig(ir + hr), sig(iz + hz)
        n = np.tanh(in_ + r * hn)
        h = (1 - z) * n + z * state
        return h, h
    h = np.tanh(gi + gh)
    return h, h


def np_rnn(net, mode, x, lengths=None):
    """(seq, batch, feature) input; every layer and direction; outputs zero past each length."""
    seq, batch = x.shape[:2]
    hs, cs = [], []
    layer_in = x.astype(np.float64)
    for layer in range(net.num_layers):
        outs = []
        for d in range(net.num_directions):
            sfx = f"_l{layer}" + ("_reverse" if d else "")
            p = [getattr(net, f"{n}{sfx}").asnumpy().astype(np.float64) for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
            z = np.zeros((batch, net.hidden_size))
            state = (z, z) if mode == "LSTM" else z
            out = np.zeros((seq, batch, net.hidden_size))
            for t in (range(seq - 1, -1, -1) if d else range(seq)):
                h, new = np_step(mode, layer_in[t], state, *p)
                valid = np.ones((batch, 1), bool) if lengths is None else (t < lengths)[:, None]
                state = tuple(np.where(valid, a, b) for a, b in zip(new, state)) if mode == "LSTM" else np.where(valid, new, state)
                out[t] = np.where(valid, h, 0.0)
            outs.append(out)
            hs.append(state[0] if mode == "LSTM" else state)
            if mode == "LSTM":
                cs.append(state[1])
        layer_in = np.concatenate(outs, -1)
    return layer_in, np.stack(hs), (np.stack(cs) if cs else None)


@pytest.mark.parametrize("mode", HOOK_MODES)
@pytest.mark.parametrize("cls,kind", [(nn.LSTM, "LSTM"), (nn.GRU, "GRU"), (nn.RNN, "RNN")])
@pytest.mark.parametrize("with_lengths", [False, True])
def test_recurrent_layers_against_numpy(mode, cls, kind, with_lengths):
    ms.set_seed(0)
    net = cls(3, 4, num_layers=2, batch_first=True, bidirectional=True)
    x = np.random.default_rng(1).standard_normal((2, 5, 3)).astype(np.float32)
    lengths = np.array([5, 3], np.int32) if with_lengths else None
    args = (Tensor(x), None) + ((Tensor(lengths),) if with_lengths else ())
    out, state = run_cell(mode, net, *args)
    want_out, want_h, want_c = np_rnn(net, kind, x.transpose(1, 0, 2), lengths)
    np.testing.assert_allclose(out.asnumpy(), want_out.transpose(1, 0, 2), rtol=1e-5, atol=1e-6)
    h = state[0] if kind == "LSTM" else state
    np.testing.assert_allclose(h.asnumpy(), want_h, rtol=1e-5, atol=1e-6)
    if kind == "LSTM":
        np.testing.assert_allclose(state[1].asnumpy(), want_c, rtol=1e-5, atol=1e-6)


def test_cells_and_parameter_names():
    ms.set_seed(2)
    x = np.random.default_rng(3).standard_normal((2, 3)).astype(np.float32)
    for cell, kind in ((nn.LSTMCell(3, 4), "LSTM"), (nn.GRUCell(3, 4), "GRU"), (nn.RNNCell(3, 4), "RNN")):
        p = [getattr(cell, n).asnumpy().astype(np.float64) for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
        z = np.zeros((2, 4))
        got = cell(Tensor(x))
        _, want = np_step(kind, x.astype(np.float64), (z, z) if kind == "LSTM" else z, *p)
        for g, w in zip(got if kind == "LSTM" else (got,), want if kind == "LSTM" else (want,)):
            np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-5, atol=1e-6)
    names = [n for n, _ in nn.LSTM(2, 3, bidirectional=True).parameters_and_names()]
    assert names == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "weight_ih_l0_reverse",
                     "weight_hh_l0_reverse", "bias_ih_l0_reverse", "bias_hh_l0_reverse"]


def test_lstm_gradients_match_finite_differences():
    ms.set_seed(4)
    net = nn.LSTM(2, 3)
    x = np.random.default_rng(5).standard_normal((4, 2, 2))
    check_grad(lambda t: net(t)[0], x, rtol=1e-3, atol=1e-4)


def test_against_pytorch_when_installed():
    torch = pytest.importorskip("torch")
    ms.set_seed(6)
    for cls, tcls in ((nn.LSTM, torch.nn.LSTM), (nn.GRU, torch.nn.GRU)):
        m = cls(4, 5, num_layers=2, bidirectional=True)
        t = tcls(4, 5, num_layers=2, bidirectional=True)
        with torch.no_grad():
            for name, p in t.named_parameters():
                p.copy_(torch.tensor(getattr(m, name).asnumpy()))
        x = np.random.default_rng(7).standard_normal((6, 3, 4)).astype(np.float32)
        out, _ = m(Tensor(x))
        np.testing.assert_allclose(out.asnumpy(), t(torch.tensor(x))[0].detach().numpy(), rtol=1e-5, atol=1e-6)
