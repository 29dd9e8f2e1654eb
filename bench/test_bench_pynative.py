"""PyNative per-op overhead and train steps next to torch eager (pytest-benchmark).

Run: ``python -m pytest bench/test_bench_pynative.py -q --benchmark-columns=median,ops``; each
group holds ours and torch's version of one case (pynative_micro.py for the cases; the same
numbers interleaved in one process: ``python bench/pynative_micro.py``).
"""
import pytest

import pynative_micro
import pynative_models

try:
    import torch  # noqa: F401
    HAVE_TORCH = True
except ImportError:
    HAVE_TORCH = False

OURS = pynative_micro.ours_cases()
CASES = sorted(OURS)


@pytest.mark.parametrize("case", CASES)
def test_op_ours(benchmark, case):
    benchmark.group = f"op: {case}"
    benchmark(OURS[case])


@pytest.mark.skipif(not HAVE_TORCH, reason="PyTorch is not installed (pip install torch==2.13.0)")
@pytest.mark.parametrize("case", CASES)
def test_op_torch(benchmark, case):
    benchmark.group = f"op: {case}"
    benchmark(pynative_micro.torch_cases()[case])


STEPS = [("transformer", 16), ("lstm", 32)]


@pytest.mark.parametrize("model,batch", STEPS)
def test_step_ours(benchmark, model, batch):
    benchmark.group = f"train {model} b{batch} (PyNative vs torch eager)"
    step, args = pynative_models.ours_train_step(model, batch)
    for _ in range(3):  # (PyNative's heavy ops compile off-thread from a signature's third call)
        step(*args)
    from runtime import eager_kernels
    eager_kernels.wait_pending()
    benchmark.pedantic(step, args, rounds=5, warmup_rounds=1)


@pytest.mark.skipif(not HAVE_TORCH, reason="PyTorch is not installed")
@pytest.mark.parametrize("model,batch", STEPS)
def test_step_torch(benchmark, model, batch):
    benchmark.group = f"train {model} b{batch} (PyNative vs torch eager)"
    step, args = pynative_models.torch_train_step(model, batch)
    step(*args)
    benchmark.pedantic(step, args, rounds=5, warmup_rounds=1)
