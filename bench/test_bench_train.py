"""Train-step and inference benchmarks: ours (PyNative, GRAPH) vs PyTorch eager when installed.

Run: ``python -m pytest bench -q --benchmark-columns=median,ops`` (ratios come from one run).
"""
import pytest

import runtime as ms
from models import ours_inference, ours_train_step, torch_inference, torch_train_step

try:
    import torch  # noqa: F401
    HAVE_TORCH = True
except ImportError:
    HAVE_TORCH = False

CASES = [("lenet", 32), ("lenet", 256), ("mlp", 32)]


@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("model,batch", CASES)
def test_train_step_ours(benchmark, model, batch, mode):
    benchmark.group = f"train {model} b{batch}"
    step, (x, y) = ours_train_step(model, batch)
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    try:
        step(x, y)  # warm-up (compiles in graph mode)
        benchmark(step, x, y)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.skipif(not HAVE_TORCH, reason="PyTorch is not installed (pip install torch==2.13.0)")
@pytest.mark.parametrize("model,batch", CASES)
def test_train_step_torch_eager(benchmark, model, batch):
    benchmark.group = f"train {model} b{batch}"
    step, (x, y) = torch_train_step(model, batch)
    step(x, y)
    benchmark(step, x, y)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_lenet_inference_ours(benchmark, mode):
    benchmark.group = "inference lenet b32"
    net, (x,) = ours_inference("lenet", 32)
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    try:
        net(x)
        benchmark(net, x)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@pytest.mark.skipif(not HAVE_TORCH, reason="PyTorch is not installed")
def test_lenet_inference_torch(benchmark):
    benchmark.group = "inference lenet b32"
    fn, (x,) = torch_inference("lenet", 32)
    fn(x)
    benchmark(fn, x)
