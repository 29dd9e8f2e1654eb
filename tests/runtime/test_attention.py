"""nn.MultiheadAttention against a numpy implementation (and PyTorch where installed), with key
padding and attention masks, in PyNative, GRAPH_MODE and @jit."""
import numpy as np
import pytest

import runtime as ms
from modes import MODES, run_cell
from runtime import Tensor, nn


def np_mha(m, q, k, v, kpm=None, am=None):
    e, h = m.embed_dim, m.num_heads
    d = e // h
    w, b = m.in_proj_weight.asnumpy().astype(np.float64), m.in_proj_bias.asnumpy().astype(np.float64)
    qp, kp, vp = (x @ w[i * e:(i + 1) * e].T + b[i * e:(i + 1) * e] for i, x in enumerate((q, k, v)))
    n, lq = q.shape[0], q.shape[1]

    def heads(x):
        return x.reshape(n, x.shape[1], h, d).transpose(0, 2, 1, 3)  # (N, H, len, d)
    scores = heads(qp) @ heads(kp).transpose(0, 1, 3, 2) / np.sqrt(d)
    if am is not None:
        scores = np.where(am[None, None], -np.inf, scores)
    if kpm is not None:
        scores = np.where(kpm[:, None, None, :], -np.inf, scores)
    wts = np.exp(scores - scores.max(-1, keepdims=True))
    wts /= wts.sum(-1, keepdims=True)
    out = (wts @ heads(vp)).transpose(0, 2, 1, 3).reshape(n, lq, e)
    out = out @ m.out_proj.weight.asnumpy().T + m.out_proj.bias.asnumpy()
    return out, wts.mean(1)


@pytest.mark.parametrize("mode", MODES)
def test_multihead_attention_against_numpy(mode):
    ms.set_seed(0)
    m = nn.MultiheadAttention(8, 2, batch_first=True)
    m.in_proj_bias.set_data(np.random.default_rng(1).standard_normal(24).astype(np.float32))
    rng = np.random.default_rng(2)
    q = rng.standard_normal((3, 4, 8)).astype(np.float32)
    k = rng.standard_normal((3, 6, 8)).astype(np.float32)
    kpm = np.zeros((3, 6), bool)
    kpm[1, 4:] = True
    am = np.triu(np.ones((4, 6), bool), 3)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.m = m

        def construct(self, a, b, p, c):
            return self.m(a, b, b, key_padding_mask=p, attn_mask=c)

    out, w = run_cell(mode, Net(), Tensor(q), Tensor(k), Tensor(kpm), Tensor(am))
    want_out, want_w = np_mha(m, q.astype(np.float64), k.astype(np.float64), k.astype(np.float64), kpm, am)
    np.testing.assert_allclose(out.asnumpy(), want_out, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(w.asnumpy(), want_w, rtol=1e-5, atol=1e-7)


def test_multihead_attention_matches_pytorch_when_installed():
    torch = pytest.importorskip("torch")
    ms.set_seed(3)
    m = nn.MultiheadAttention(6, 3)
    t = torch.nn.MultiheadAttention(6, 3)
    with torch.no_grad():
        t.in_proj_weight.copy_(torch.tensor(m.in_proj_weight.asnumpy()))
        t.in_proj_bias.copy_(torch.tensor(m.in_proj_bias.asnumpy()))
        t.out_proj.weight.copy_(torch.tensor(m.out_proj.weight.asnumpy()))
        t.out_proj.bias.copy_(torch.tensor(m.out_proj.bias.asnumpy()))
    x = np.random.default_rng(4).standard_normal((5, 2, 6)).astype(np.float32)
    o, w = m(Tensor(x), Tensor(x), Tensor(x), average_attn_weights=False)
    to, tw = t(torch.tensor(x), torch.tensor(x), torch.tensor(x), average_attn_weights=False)
    np.testing.assert_allclose(o.asnumpy(), to.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(w.asnumpy(), tw.detach().numpy(), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("mode", MODES)
def test_self_attention_projects_q_k_v_with_one_product(mode, monkeypatch):
    """query is key is value: q, k, v come from one product with the whole in_proj_weight (split
    afterwards), as torch computes them. Oracles: the numpy formula (forward) and, for the
    gradients, the same module called with a copy of the input as key and value (three separate
    projections of slices of the weight)."""
    ms.set_seed(5)
    m = nn.MultiheadAttention(8, 2, batch_first=True)
    m.in_proj_bias.set_data(np.random.default_rng(6).standard_normal(24).astype(np.float32))
    x = np.random.default_rng(7).standard_normal((3, 5, 8)).astype(np.float32)

    class SelfAttention(nn.Cell):
        def __init__(self):
            super().__init__()
            self.m = m

        def construct(self, a):
            return self.m(a, a, a)

    sliced = nn.MultiheadAttention._project

    def refuse(*args):
        raise AssertionError("self-attention projected q, k and v separately")
    monkeypatch.setattr(nn.MultiheadAttention, "_project", refuse)
    out, w = run_cell(mode, SelfAttention(), Tensor(x))
    want_out, want_w = np_mha(m, *(x.astype(np.float64),) * 3)
    np.testing.assert_allclose(out.asnumpy(), want_out, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(w.asnumpy(), want_w, rtol=1e-5, atol=1e-7)

    params = [m.in_proj_weight, m.in_proj_bias]
    a, b, c = Tensor(x), Tensor(x), Tensor(x)
    packed = ms.grad(lambda: (m(a, a, a)[0] ** 2).sum(), None, params)()
    monkeypatch.setattr(nn.MultiheadAttention, "_project", sliced)
    separate = ms.grad(lambda: (m(a, b, c)[0] ** 2).sum(), None, params)()
    for got, want in zip(packed, separate):
        np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-4, atol=1e-5)
