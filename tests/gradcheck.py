"""Test oracles shared by the test suites: central finite differences and numpy comparisons.

``check_grad(fn, *arrays)`` compares ``ms.grad`` of ``sum(fn(*tensors) * w)`` (random fixed
weights ``w`` so every output element matters) with central differences computed in float64.
"""
from __future__ import annotations

import numpy as np

import runtime as ms
from runtime import Tensor


def numeric_grad(f, arrays, i, eps=1e-6):
    """d f(arrays) / d arrays[i] by central differences (f returns a float)."""
    x = arrays[i]
    g = np.zeros_like(x, dtype=np.float64)
    it = np.nditer(x, flags=["multi_index"])
    for _ in it:
        idx = it.multi_index
        old = x[idx]
        x[idx] = old + eps
        fp = f(arrays)
        x[idx] = old - eps
        fm = f(arrays)
        x[idx] = old
        g[idx] = (fp - fm) / (2 * eps)
    return g


def check_grad(fn, *arrays, wrt=None, rtol=1e-5, atol=1e-6, eps=1e-6, seed=0):
    """Assert eager gradients of ``fn`` (Tensor -> Tensor) equal finite differences in float64."""
    arrays = [np.array(a, dtype=np.float64) for a in arrays]
    wrt = tuple(range(len(arrays))) if wrt is None else tuple(wrt)
    out0 = fn(*[Tensor(a) for a in arrays])
    outs0 = out0 if isinstance(out0, (tuple, list)) else (out0,)
    rng = np.random.default_rng(seed)
    weights = [rng.uniform(0.5, 1.5, np.shape(o.asnumpy())) for o in outs0]

    def scalar(*ts):
        out = fn(*ts)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        total = None
        for o, w in zip(outs, weights):
            term = (o * Tensor(w)).sum()
            total = term if total is None else total + term
        return total

    def f_np(arrs):
        return float(scalar(*[Tensor(a) for a in arrs]).asnumpy())

    analytic = ms.grad(scalar, grad_position=wrt)(*[Tensor(a) for a in arrays])
    if not isinstance(analytic, tuple):
        analytic = (analytic,)
    for k, i in enumerate(wrt):
        num = numeric_grad(f_np, arrays, i, eps)
        got = analytic[k].asnumpy()
        assert got.shape == arrays[i].shape, f"grad shape {got.shape} != input shape {arrays[i].shape}"
        np.testing.assert_allclose(got, num, rtol=rtol, atol=atol, err_msg=f"gradient of input {i}")
