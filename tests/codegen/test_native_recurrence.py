"""The LSTM and GRU recurrences' native kernels (codegen/cpu/native/recurrent.py, gru.py) against
the registry's numpy implementation of ``lstm_recurrence`` / ``gru_recurrence`` and their
``_grad`` ops (the one definition),
finite differences of that forward in float64, and PyTorch from identical weights for a compiled
train step. Every compiled graph here must really run the native kernel (its describe() says
so), so a silent fallback to numpy fails these tests."""
import numpy as np
import pytest

from codegen import compile_schedule
from codegen.cpu import threads
from codegen.cpu.native import recurrent
from graph.ops import REGISTRY, F

from codegen_helpers import graph_of, per_node

LSTM = REGISTRY["lstm_recurrence"]
GRAD = REGISTRY["lstm_recurrence_grad"]
GRU = REGISTRY["gru_recurrence"]
GRU_GRAD = REGISTRY["gru_recurrence_grad"]
#: (steps, batch, hidden, reverse): hidden sizes whose products run the packed kernel (columns a
#: multiple of two vector panels: 4 * hidden forward, hidden backward) and BLAS; batches with a
#: tail of rows under the kernel's 8-row blocks
CASES = [(1, 1, 1, False), (5, 3, 4, False), (6, 7, 9, True), (9, 32, 16, False), (4, 13, 33, True),
         (3, 11, 32, True)]
TOL = {np.float32: (2e-5, 2e-6), np.float64: (1e-12, 1e-14)}


@pytest.fixture(params=[1, 3], ids=["1thread", "3threads"])
def n_threads(request, monkeypatch):
    monkeypatch.setattr(threads, "SPLIT_THRESHOLD", 1.0)  # split even these small kernels (by batch rows)
    threads.set_num_threads(request.param)
    yield request.param
    threads.set_num_threads(None)


def _operands(t, b, h, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((t, b, 4 * h)) * 1.5).astype(dtype)
    w = (rng.standard_normal((4 * h, h)) / np.sqrt(h)).astype(dtype)
    h0, c0 = (rng.standard_normal((b, h)).astype(dtype) for _ in range(2))
    return x, w, h0, c0


def _compiled(build, arrays, op):
    g = graph_of(build, *[(a.shape, a.dtype) for a in arrays])
    compiled = compile_schedule(per_node(g))
    assert f"native[llvm] {op} " in compiled.describe(), compiled.describe()
    return compiled


def _forward(x, w, h0, c0, reverse):
    compiled = _compiled(lambda *a: F.lstm_recurrence(*a, reverse=reverse), [x, w, h0, c0], "lstm_recurrence")
    return compiled([x, w, h0, c0])[0]


def _backward(cotangents, w, h0, c0, outs, reverse):
    """The native gradient; ``cotangents`` are arrays or the number 0 (no operand)."""
    given = [d for d in cotangents if not isinstance(d, float)]

    def build(*values):
        it = iter(values)
        ds = [d if isinstance(d, float) else next(it) for d in cotangents]
        return F.lstm_recurrence_grad(*ds, *it, reverse=reverse)
    compiled = _compiled(build, given + [w, h0, c0, *outs], "lstm_recurrence_grad")
    return compiled(given + [w, h0, c0, *outs])[0]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("t, b, h, reverse", CASES)
def test_forward_kernel_equals_the_numpy_implementation(t, b, h, reverse, dtype, n_threads):
    x, w, h0, c0 = _operands(t, b, h, dtype)
    got = _forward(x, w, h0, c0, reverse)
    want = LSTM.impl(np, x, w, h0, c0, reverse=reverse)
    rtol, atol = TOL[dtype]
    for name, a, e in zip(("hs", "cs", "gates"), got, want):
        assert a.dtype == e.dtype and a.shape == e.shape
        np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, err_msg=name)


@pytest.mark.parametrize("present", [(True, False, False), (False, True, False), (True, True, True),
                                     (False, False, True)], ids=["d_hs", "d_cs", "all", "d_gates"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("t, b, h, reverse", CASES)
def test_backward_kernel_equals_the_numpy_implementation(t, b, h, reverse, dtype, present, n_threads):
    x, w, h0, c0 = _operands(t, b, h, dtype, seed=1)
    outs = LSTM.impl(np, x, w, h0, c0, reverse=reverse)
    rng = np.random.default_rng(2)
    cotangents = [rng.standard_normal(o.shape).astype(dtype) if p else 0.0 for o, p in zip(outs, present)]
    got = _backward(cotangents, w, h0, c0, outs, reverse)
    want = GRAD.impl(np, *cotangents, w, h0, c0, *outs, reverse=reverse)
    rtol, atol = TOL[dtype]
    for name, a, e in zip(("d_x_proj", "d_h0", "d_c0"), got, want):
        assert a.dtype == e.dtype and a.shape == e.shape
        np.testing.assert_allclose(a, e, rtol=rtol * 5, atol=atol * 5, err_msg=name)


@pytest.mark.parametrize("reverse", [False, True])
def test_backward_kernel_matches_finite_differences_of_the_forward(reverse):
    """d/d(x_proj, h0, c0) of sum(hs * r_h) + sum(cs * r_c), from the native kernel, against
    central differences of the registry's float64 forward (an oracle that shares no code with
    either backward)."""
    t, b, h = 4, 3, 5
    x, w, h0, c0 = _operands(t, b, h, np.float64, seed=3)
    rng = np.random.default_rng(4)
    r_h, r_c = rng.standard_normal((t, b, h)), rng.standard_normal((t, b, h))
    outs = LSTM.impl(np, x, w, h0, c0, reverse=reverse)
    d_x, d_h0, d_c0 = _backward([r_h, r_c, 0.0], w, h0, c0, outs, reverse)

    def loss(x_, h0_, c0_):
        hs, cs, _ = LSTM.impl(np, x_, w, h0_, c0_, reverse=reverse)
        return float((hs * r_h).sum() + (cs * r_c).sum())

    eps = 1e-6
    args = [x, h0, c0]
    for which, got in enumerate((d_x, d_h0, d_c0)):
        want = np.empty_like(got)
        for i in np.ndindex(*got.shape):
            plus = [a.copy() for a in args]
            minus = [a.copy() for a in args]
            plus[which][i] += eps
            minus[which][i] -= eps
            want[i] = (loss(*plus) - loss(*minus)) / (2 * eps)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def test_long_sequence_backward_kernel_flushes_subnormal_cotangents(n_threads):
    """Forget gates near 0.5 halve d c every step: the kernel flushes the carried cotangents below
    the registry's floor as its numpy implementation does (no subnormal values, same results)."""
    t, b, h = 200, 4, 3
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((t, b, 4 * h)) * 0.1).astype(np.float32)
    w = (rng.standard_normal((4 * h, h)) * 0.1).astype(np.float32)
    h0 = np.zeros((b, h), np.float32)
    outs = LSTM.impl(np, x, w, h0, h0)
    d_hs = np.zeros((t, b, h), np.float32)
    d_hs[-1] = 1.0
    got = _backward([d_hs, 0.0, 0.0], w, h0, h0, outs, False)
    want = GRAD.impl(np, d_hs, 0.0, 0.0, w, h0, h0, *outs)
    tiny = np.finfo(np.float32).tiny
    for name, a, e in zip(("d_x", "d_h0", "d_c0"), got, want):
        assert not ((a != 0) & (np.abs(a) < tiny)).any(), f"{name} has subnormal values"
        np.testing.assert_allclose(a, e, rtol=1e-5, atol=1e-30, err_msg=name)


def test_other_dtypes_and_mixed_operands_keep_the_numpy_implementation():
    x, w, h0, c0 = _operands(3, 2, 4, np.float32)
    g = graph_of(lambda *a: F.lstm_recurrence(*a), (x.shape, np.float32), (w.shape, np.float64),
                 (h0.shape, np.float32), (c0.shape, np.float32))
    compiled = compile_schedule(per_node(g))
    assert "native[llvm] lstm_recurrence" not in compiled.describe()
    got = compiled([x, w.astype(np.float64), h0, c0])[0]
    want = LSTM.impl(np, *(a.astype(np.float64) for a in (x, w, h0, c0)))  # (the op promotes its operands)
    for a, e in zip(got, want):
        assert a.dtype == np.float64
        np.testing.assert_allclose(a, e, rtol=1e-12)


def test_compiled_train_step_runs_the_kernels_and_matches_pytorch(monkeypatch):
    """A whole train step of an LSTM classifier under jit (forward, backward through time, SGD
    update) from the same weights as torch.nn.LSTM: loss, updated weights equal torch's."""
    torch = pytest.importorskip("torch")
    import runtime as ms
    from runtime import Tensor, nn
    planned = []
    original = recurrent.recurrence_geometry

    def spy(node):
        geo = original(node)
        planned.append((node.op.name, geo is not None))
        return geo
    monkeypatch.setattr(recurrent, "recurrence_geometry", spy)
    ms.set_seed(21)
    feat, hid, seq, batch = 6, 16, 7, 5
    ours = nn.LSTM(feat, hid, batch_first=True)
    theirs = torch.nn.LSTM(feat, hid, batch_first=True)
    with torch.no_grad():
        for name, p in theirs.named_parameters():
            p.copy_(torch.tensor(getattr(ours, name).asnumpy()))
    rng = np.random.default_rng(22)
    x = rng.standard_normal((batch, seq, feat)).astype(np.float32)
    target = rng.standard_normal((batch, seq, hid)).astype(np.float32)

    def loss_fn(x):
        out, (h_n, c_n) = ours(x)
        return ((out - Tensor(target)) ** 2).mean() + (c_n * c_n).sum() * 0.1

    params = ours.trainable_params()
    opt = nn.SGD(params, learning_rate=0.1)
    grad_fn = ms.value_and_grad(loss_fn, None, params)

    @ms.jit
    def step(x):
        loss, grads = grad_fn(x)
        opt(grads)
        return loss

    t_opt = torch.optim.SGD(theirs.parameters(), lr=0.1)
    for _ in range(2):
        loss = step(Tensor(x))
        t_opt.zero_grad()
        out, (h_n, c_n) = theirs(torch.tensor(x))
        t_loss = ((out - torch.tensor(target)) ** 2).mean() + (c_n * c_n).sum() * 0.1
        t_loss.backward()
        t_opt.step()
        np.testing.assert_allclose(loss.asnumpy(), t_loss.item(), rtol=1e-5)
    for name, p in theirs.named_parameters():
        np.testing.assert_allclose(getattr(ours, name).asnumpy(), p.detach().numpy(), rtol=1e-4, atol=1e-6,
                                   err_msg=name)
    assert ("lstm_recurrence", True) in planned and ("lstm_recurrence_grad", True) in planned, planned


# -- GRU ----------------------------------------------------------------------------------------------------
def _gru_operands(t, b, h, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((t, b, 3 * h)) * 1.5).astype(dtype)
    w = (rng.standard_normal((3 * h, h)) / np.sqrt(h)).astype(dtype)
    b_hh = rng.standard_normal(3 * h).astype(dtype)
    h0 = rng.standard_normal((b, h)).astype(dtype)
    return x, w, b_hh, h0


def _gru_backward(cotangents, w, h0, outs, reverse):
    given = [d for d in cotangents if not isinstance(d, float)]

    def build(*values):
        it = iter(values)
        ds = [d if isinstance(d, float) else next(it) for d in cotangents]
        return F.gru_recurrence_grad(*ds, *it, reverse=reverse)
    compiled = _compiled(build, given + [w, h0, *outs], "gru_recurrence_grad")
    return compiled(given + [w, h0, *outs])[0]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("t, b, h, reverse", CASES)
def test_gru_forward_kernel_equals_the_numpy_implementation(t, b, h, reverse, dtype, n_threads):
    ops = _gru_operands(t, b, h, dtype)
    compiled = _compiled(lambda *a: F.gru_recurrence(*a, reverse=reverse), list(ops), "gru_recurrence")
    got = compiled(list(ops))[0]
    want = GRU.impl(np, *ops, reverse=reverse)
    rtol, atol = TOL[dtype]
    for name, a, e in zip(("hs", "gates", "hn_proj"), got, want):
        assert a.dtype == e.dtype and a.shape == e.shape
        np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, err_msg=name)


@pytest.mark.parametrize("present", [(True, False, False), (False, True, False), (True, True, True),
                                     (False, False, True)], ids=["d_hs", "d_gates", "all", "d_hn"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("t, b, h, reverse", CASES)
def test_gru_backward_kernel_equals_the_numpy_implementation(t, b, h, reverse, dtype, present, n_threads):
    x, w, b_hh, h0 = _gru_operands(t, b, h, dtype, seed=1)
    outs = GRU.impl(np, x, w, b_hh, h0, reverse=reverse)
    rng = np.random.default_rng(2)
    cotangents = [rng.standard_normal(o.shape).astype(dtype) if p else 0.0 for o, p in zip(outs, present)]
    got = _gru_backward(cotangents, w, h0, outs, reverse)
    want = GRU_GRAD.impl(np, *cotangents, w, h0, *outs, reverse=reverse)
    rtol, atol = TOL[dtype]
    for name, a, e in zip(("d_x_proj", "d_hp", "d_h0"), got, want):
        assert a.dtype == e.dtype and a.shape == e.shape
        np.testing.assert_allclose(a, e, rtol=rtol * 5, atol=atol * 5, err_msg=name)


@pytest.mark.parametrize("reverse", [False, True])
def test_gru_backward_kernel_matches_finite_differences_of_the_forward(reverse):
    """d/d(x_proj, h0) of sum(hs * r_h) + sum(hn_proj * r_n) from the native kernel (d_x_proj and
    d_h0; b_hh's gradient is d_hp summed, the VJP rule's), against central differences of the
    registry's float64 forward."""
    t, b, h = 4, 3, 5
    x, w, b_hh, h0 = _gru_operands(t, b, h, np.float64, seed=3)
    rng = np.random.default_rng(4)
    r_h, r_n = rng.standard_normal((t, b, h)), rng.standard_normal((t, b, h))
    outs = GRU.impl(np, x, w, b_hh, h0, reverse=reverse)
    d_x, d_hp, d_h0 = _gru_backward([r_h, 0.0, r_n], w, h0, outs, reverse)

    def loss(x_, h0_, b_):
        hs, _, hn = GRU.impl(np, x_, w, b_, h0_, reverse=reverse)
        return float((hs * r_h).sum() + (hn * r_n).sum())

    eps = 1e-6
    args = [x, h0, b_hh]
    for which, got in enumerate((d_x, d_h0, d_hp.sum(axis=(0, 1)))):
        want = np.empty_like(got)
        for i in np.ndindex(*got.shape):
            plus = [a.copy() for a in args]
            minus = [a.copy() for a in args]
            plus[which][i] += eps
            minus[which][i] -= eps
            want[i] = (loss(*plus) - loss(*minus)) / (2 * eps)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def test_compiled_gru_train_step_runs_the_kernels_and_matches_pytorch(monkeypatch):
    torch = pytest.importorskip("torch")
    import runtime as ms
    from runtime import Tensor, nn
    planned = []
    original = recurrent.recurrence_geometry

    def spy(node):
        geo = original(node)
        planned.append((node.op.name, geo is not None))
        return geo
    monkeypatch.setattr(recurrent, "recurrence_geometry", spy)
    ms.set_seed(23)
    feat, hid, seq, batch = 5, 32, 6, 9
    ours = nn.GRU(feat, hid, batch_first=True)
    theirs = torch.nn.GRU(feat, hid, batch_first=True)
    with torch.no_grad():
        for name, p in theirs.named_parameters():
            p.copy_(torch.tensor(getattr(ours, name).asnumpy()))
    rng = np.random.default_rng(24)
    x = rng.standard_normal((batch, seq, feat)).astype(np.float32)
    target = rng.standard_normal((batch, seq, hid)).astype(np.float32)

    def loss_fn(x):
        out, h_n = ours(x)
        return ((out - Tensor(target)) ** 2).mean() + (h_n * h_n).sum() * 0.1

    params = ours.trainable_params()
    opt = nn.SGD(params, learning_rate=0.1)
    grad_fn = ms.value_and_grad(loss_fn, None, params)

    @ms.jit
    def step(x):
        loss, grads = grad_fn(x)
        opt(grads)
        return loss

    t_opt = torch.optim.SGD(theirs.parameters(), lr=0.1)
    for _ in range(2):
        loss = step(Tensor(x))
        t_opt.zero_grad()
        out, h_n = theirs(torch.tensor(x))
        t_loss = ((out - torch.tensor(target)) ** 2).mean() + (h_n * h_n).sum() * 0.1
        t_loss.backward()
        t_opt.step()
        np.testing.assert_allclose(loss.asnumpy(), t_loss.item(), rtol=1e-5)
    for name, p in theirs.named_parameters():
        np.testing.assert_allclose(getattr(ours, name).asnumpy(), p.detach().numpy(), rtol=1e-4, atol=1e-6,
                                   err_msg=name)
    assert ("gru_recurrence", True) in planned and ("gru_recurrence_grad", True) in planned, planned
