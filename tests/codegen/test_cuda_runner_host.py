"""The GPU runner (codegen/cuda/runner.py) end to end without a GPU: CudaCompiledGraph with the
CuPy stand-in as its array module (tests/device_standin.py) and its generated CUDA C compiled for
the host (tests/codegen/cuda_host.py). Everything but the device itself runs: the module of fused
kernels and their launches (grids, partial buffers of split reductions), reused intermediate
buffers, fresh outputs, the ops' impls on device arrays for every node that is not fused,
constants on the device, parameter updates. Whole LeNet5/MLP train steps (forward, backward and
Momentum update in one graph) equal the reference interpreter, and the same steps run through
capture under device_target="GPU" equal PyNative on the device step by step."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import cuda_host
import device_standin as standin
from codegen.cuda.runner import CudaCompiledGraph
from runtime import device

pytestmark = pytest.mark.skipif(cuda_host.CXX is None, reason="no host C++ compiler (g++) to run the generated CUDA C with")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))


class HostCudaGraph(CudaCompiledGraph):
    """The GPU runner with the stand-in for CuPy and its kernels built for the host."""

    def __init__(self, schedule, name=None):
        super().__init__(schedule, name, xp=standin.xp)
        self.replay = None  # CUDA graphs need a device

    def _load_module(self, source):
        return cuda_host.HostModule(list(self.cuda_kernels.values()))


@pytest.fixture
def gpu(monkeypatch):
    import runtime as ms
    from graph.ops import emit
    monkeypatch.setattr(device, "_cupy", standin.xp)
    monkeypatch.setattr(device.GPU, "active", False)
    monkeypatch.setitem(emit.SPECIAL_FUNCTIONS, standin.xp.__name__, standin.special.__name__)
    ms.set_context(device_target="GPU")
    yield standin.xp
    ms.set_context(device_target="CPU", mode=ms.PYNATIVE_MODE)


def _recorded_steps(model, batch):
    """(graph, input arrays) of a captured train step, recorded on the CPU."""
    import capture
    from capture.backends import numpy_backend
    from models import ours_train_step
    seen = []

    def recorder(graph):
        run = numpy_backend(graph)

        def record(arrays):
            seen.append((graph, [a.copy() for a in arrays]))
            return run(arrays)
        return record
    capture.reset()
    step, (x, y) = ours_train_step(model, batch)
    capture.jit(step.construct, backend=recorder)(x, y)
    return seen


def _close(got, want, what):
    got = got.get() if isinstance(got, standin.DeviceArray) else np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape, what
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6, err_msg=what)


@pytest.mark.parametrize("model,batch", [("lenet", 5), ("mlp", 33)])
def test_train_step_graph_equals_the_reference(model, batch):
    from codegen.cuda import schedule_graph
    from graph.interpret import run as interpret
    for graph, arrays in _recorded_steps(model, batch):
        runner = HostCudaGraph(schedule_graph(graph, "O1"))
        text = runner.describe()
        assert "fused[cuda]" in text and "[cupy]" in text
        if model == "lenet":  # the convolutions are the generated implicit-GEMM kernels
            for op in ("conv2d", "conv2d_backprop_input", "conv2d_backprop_filter"):
                assert f"native[cuda] {op} " in text, text
            assert "im2col" not in text and "[cupy] conv" not in text, text
        want_outs, want_updates = interpret(graph, arrays)
        for _ in range(2):  # a second call reuses every buffer
            outs, updates = runner([standin.xp.asarray(a) for a in arrays])
            assert all(isinstance(o, standin.DeviceArray) for o in outs)
            for i, (g, w) in enumerate(zip(outs, want_outs)):
                _close(g, w, f"{model} output {i}")
            assert set(updates) == set(want_updates) and updates
            for k, w in want_updates.items():
                assert isinstance(updates[k], standin.DeviceArray)
                _close(updates[k], w, f"{model} update of input {k}")


def test_jit_steps_on_the_device_equal_pynative(gpu):
    """The whole path: capture under device_target="GPU" picks the device, the runner runs on
    device arrays, Parameters and Momentum state are updated on the device."""
    import capture
    from models import ours_train_step

    def train(jitted):
        capture.reset()
        step, (x, y) = ours_train_step("mlp", 24)
        run = capture.jit(step.construct, backend=lambda g: HostCudaGraph(__import__("codegen").schedule_graph(g)),
                          fullgraph=True) if jitted else step
        losses = [float(run(x, y).asnumpy()) for _ in range(4)]
        params = step.network.trainable_params()
        assert all(isinstance(p._data, standin.DeviceArray) for p in params)
        return losses, [p.asnumpy() for p in params]
    got_l, got_p = train(True)
    want_l, want_p = train(False)
    np.testing.assert_allclose(got_l, want_l, rtol=1e-5)
    for a, b in zip(got_p, want_p):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert got_l[-1] < got_l[0]


def test_capture_verify_runs_the_reference_on_the_device(gpu, monkeypatch):
    """CAPTURE_VERIFY's reference interpreter runs with the inputs' array module; a wrong kernel
    is reported with the first mismatching node."""
    from capture import backends
    from codegen import schedule_graph
    from codegen_helpers import graph_of, per_node
    from graph.ops import F

    def compile_schedule(schedule):
        return HostCudaGraph(schedule)
    g = graph_of(lambda u: F.reduce_sum(F.tanh(F.mul(u, 3.0)), axis=1), ((7, 300), np.float32))
    x = standin.xp.asarray(np.random.default_rng(0).normal(size=(7, 300)).astype(np.float32))
    run = backends._verifying(g, compile_schedule(schedule_graph(g)), compile_schedule)
    outs, _ = run([x])
    np.testing.assert_allclose(outs[0].get(), np.tanh(x.get() * 3).sum(1), rtol=1e-5)

    class Broken(HostCudaGraph):  # a kernel that computes the wrong thing
        def _load_module(self, source):
            module = super()._load_module(source)
            real = module.get_function

            def get_function(entry):
                fn = real(entry)

                def launch(grid, block, args):
                    fn(grid, block, args)
                    args[-1]._a[...] += 1  # corrupt the kernel's output
                return launch
            module.get_function = get_function
            return module
    bad = backends._verifying(g, Broken(per_node(g)), compile_schedule)
    with pytest.raises(backends.VerifyError, match="first mismatching node is .* = (tanh|reduce_sum|mul)"):
        bad([x])


def test_capture_verify_bisects_a_fused_kernel_one_kernel_per_node(gpu):
    """A wrong fused kernel only shows in its stored result (here the row sums); CAPTURE_VERIFY
    recompiles the graph one kernel per node (the pipeline's unfused scheduler) with the same
    backend and names the first node whose own kernel is wrong: the multiplication."""
    from capture import backends
    from codegen import schedule_graph
    from codegen_helpers import graph_of
    from graph.ops import F

    class Broken(HostCudaGraph):  # every generated kernel adds 1 to the last value it stores
        def _load_module(self, source):
            module = super()._load_module(source)
            real = module.get_function

            def get_function(entry):
                fn = real(entry)

                def launch(grid, block, args):
                    fn(grid, block, args)
                    args[-1]._a[...] += 1
                return launch
            module.get_function = get_function
            return module
    g = graph_of(lambda u: F.reduce_sum(F.tanh(F.mul(u, 3.0)), axis=1), ((7, 300), np.float32))
    fused = schedule_graph(g)
    assert [k.kind for k in fused.kernels] == ["fused"] and len(fused.kernels[0].nodes) == 3
    x = standin.xp.asarray(np.random.default_rng(0).normal(size=(7, 300)).astype(np.float32))
    run = backends._verifying(g, Broken(fused), Broken)
    with pytest.raises(backends.VerifyError, match=r"first mismatching node is %\S+ = mul \(Mul\)"):
        run([x])


def test_graphs_with_random_draws_or_collectives_are_never_replayed(monkeypatch):
    """A CUDA graph would repeat a draw made on the host, and its checking run would run a
    collective once more on this rank alone (the other ranks would never match it)."""
    from types import SimpleNamespace
    from codegen.cuda.runner import GraphReplay
    from graph.aval import AVal
    from graph.dtypes import float32
    from graph.ir import Graph
    from graph.ops import F
    monkeypatch.setenv("MSJIT_CUDA_GRAPHS", "1")

    def compiled(build):
        g = Graph("g")
        x = g.add_input(AVal((4,), float32), "x")
        out = build(x)
        g.set_outputs([out[0] if isinstance(out, tuple) else out])
        return SimpleNamespace(graph=g)

    assert isinstance(GraphReplay.for_graph(compiled(lambda x: F.add(x, x))), GraphReplay)
    assert GraphReplay.for_graph(compiled(lambda x: F.all_reduce(x, op="sum"))) is None
    assert GraphReplay.for_graph(compiled(lambda x: F.dropout(x, keep_prob=0.5))) is None
