"""The "llvm" capture backend: whole captured train steps (bench/models.py MLP and LeNet5) equal
the numpy backend over 5 steps, backend selection (argument, CAPTURE_BACKEND), the optional
jit_level keyword, and CAPTURE_VERIFY reporting the first mismatching node."""
import os
import sys

import numpy as np
import pytest

import capture
import runtime as ms
from capture import backends
from capture.explain import recording
from codegen_helpers import graph_of
from graph.ops import F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))


def _train(model, backend, steps=5):
    from models import ours_train_step
    step, (x, y) = ours_train_step(model, 16)
    jf = capture.jit(step.construct, backend=backend)
    with recording() as rep:
        losses = [float(jf(x, y).asnumpy()) for _ in range(steps)]
    params = [p.asnumpy().copy() for p in step.network.trainable_params()] if hasattr(step, "network") else []
    return losses, params, rep


@pytest.mark.parametrize("model", ["mlp", "lenet"])
def test_train_step_llvm_equals_numpy(model):
    want_l, want_p, _ = _train(model, "numpy")
    got_l, got_p, rep = _train(model, "llvm")
    assert rep.breaks == [] and rep.graph_count == 1
    np.testing.assert_allclose(got_l, want_l, rtol=1e-5)
    assert len(got_p) == len(want_p) and got_p
    for a, b in zip(got_p, want_p):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert got_l[-1] < got_l[0]


def test_backend_selection_and_default(monkeypatch):
    assert backends.DEFAULT == "llvm"  # llvmlite is a dependency: the compiled backend is the default
    assert backends.get_backend("llvm") is backends.llvm_backend
    monkeypatch.setenv("CAPTURE_BACKEND", "numpy")
    assert backends.get_backend(None) is backends.numpy_backend
    monkeypatch.delenv("CAPTURE_BACKEND")
    assert backends.get_backend(None) is backends.llvm_backend


def test_factory_jit_level_keyword(rng):
    x = rng.standard_normal((3, 4)).astype(np.float32)
    g = graph_of(lambda u: F.relu(F.mul(u, 2.0)), (x.shape, np.float32))
    for level in (None, "O0", "O1", "O2"):
        run = backends.make_runner("llvm", g, jit_level=level)
        np.testing.assert_allclose(run([x])[0][0], np.maximum(2 * x, 0))
    run = backends.llvm_backend(g)  # graph only
    np.testing.assert_allclose(run([x])[0][0], np.maximum(2 * x, 0))
    # factories that take only the graph keep working
    assert backends.make_runner(lambda graph: "ok", g, jit_level="O1") == "ok"
    with pytest.raises(ValueError, match="jit_level"):
        backends.llvm_backend(g, jit_level="O7")


def test_jit_with_llvm_backend_matches_eager(rng):
    def f(x, y):
        return ms.ops.tanh(x * 1.5 + y).sum(axis=1) + ms.ops.exp(-x).mean()

    jf = capture.jit(f, backend="llvm")
    for _ in range(3):
        x = ms.Tensor(rng.standard_normal((8, 33)).astype(np.float32))
        y = ms.Tensor(rng.standard_normal((33,)).astype(np.float32))
        np.testing.assert_allclose(jf(x, y).asnumpy(), f(x, y).asnumpy(), rtol=1e-5, atol=1e-6)


def test_capture_verify_passes_on_correct_graphs(monkeypatch, rng):
    monkeypatch.setenv("CAPTURE_VERIFY", "1")
    x = rng.standard_normal((5, 6)).astype(np.float32)
    g = graph_of(lambda u: F.reduce_sum(F.sigmoid(F.matmul(u, F.transpose(u, perm=(1, 0)))), axis=1),
                 (x.shape, np.float32))
    run = backends.llvm_backend(g)
    out, _ = run([x])
    out2, _ = run([x])
    np.testing.assert_allclose(out[0], out2[0])


def test_capture_verify_names_the_first_bad_node(monkeypatch, rng, tmp_path):
    from codegen.cpu import emitter
    monkeypatch.setenv("MSJIT_CACHE_DIR", str(tmp_path))  # the patched emitter must really compile
    monkeypatch.setenv("CAPTURE_VERIFY", "1")
    monkeypatch.setattr(emitter.LLVMEmitter, "tanh", lambda self, x: self.add(x, self.const(1.0, x)))
    x = rng.standard_normal((4, 7)).astype(np.float32)
    g = graph_of(lambda u: F.exp(F.tanh(F.mul(u, 2.0))), (x.shape, np.float32))
    run = backends.llvm_backend(g)
    with pytest.raises(backends.VerifyError) as e:
        run([x])
    msg = str(e.value)
    assert "tanh (Tanh)" in msg and "first mismatching node" in msg and "test_backend_models.py" in msg
