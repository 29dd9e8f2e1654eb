"""Per-op eager overhead on tiny tensors, next to numpy's ufunc call (and torch when installed)."""
import numpy as np
import pytest

from runtime import Tensor, ops

A = np.ones(4, np.float32)
X = Tensor(A)


def test_numpy_add(benchmark):
    benchmark.group = "tiny add"
    benchmark(np.add, A, A)


def test_ours_add(benchmark):
    benchmark.group = "tiny add"
    benchmark(ops.add, X, X)


def test_ours_operator_add(benchmark):
    benchmark.group = "tiny add"
    benchmark(lambda: X + X)


def test_ours_relu(benchmark):
    benchmark.group = "tiny relu"
    benchmark(ops.relu, X)


def test_numpy_relu(benchmark):
    benchmark.group = "tiny relu"
    benchmark(np.maximum, A, 0)


def test_torch_add(benchmark):
    torch = pytest.importorskip("torch")
    t = torch.ones(4)
    benchmark.group = "tiny add"
    benchmark(torch.add, t, t)
