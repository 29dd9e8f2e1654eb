"""The CUDA backend's convolutions (codegen/cuda/conv.py): generated implicit-GEMM kernels for
``conv2d`` and its input and filter gradients, run on the host (tests/codegen/cuda_host.py: the
same CUDA C compiled with g++, every thread of a block a fiber, ``__syncthreads`` a real barrier)
against the ops' numpy impls over odd sizes, strides, padding, dilation, groups, batch 1 and
more, channel counts that fit no tile, every tile shape, split K, float16/32/64. Also: the
emulation catches a missing or divergent barrier; the CUDA pipeline keeps convolutions whole
while the CPU's still lowers them; the runner launches the kernels (and cuDNN through a
``cupy.cudnn`` stand-in with CuPy 13's signatures, when one is there) and falls back to the op's
impl for what the kernels do not cover."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import cuda_host
import device_standin as standin
from codegen.cuda import conv
from codegen.cuda.runner import CudaCompiledGraph
from conv_cases import GEOMETRIES, OPS, conv_cases, conv_graph
from runtime import device

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))

pytestmark = pytest.mark.skipif(cuda_host.CXX is None, reason="no host C++ compiler (g++) to run the generated CUDA C with")

CASES = conv_cases()


@pytest.fixture(scope="module")
def built():
    kernels = {c.id: c.kernel() for c in CASES}
    return kernels, cuda_host.HostModule([k for _, k in kernels.values()])


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_kernel_equals_the_op_impl(case, built):
    kernels, module = built
    plan, kernel = kernels[case.id]
    env = {id(v): a for v, a in zip(case.graph.inputs, case.inputs)}
    got = cuda_host.run_plan(plan, kernel, module, env)[id(case.node.outputs[0])]
    _check_case(case, kernel, got)


def _check_case(case, kernel, got):
    want = case.expected()
    what = f"{case.id}: {kernel.notes[0]}"
    assert got.dtype == want.dtype and got.shape == want.shape, what
    scale = float(np.abs(want.astype(np.float64)).max()) or 1.0
    tol = {np.float16: 4e-3, np.float32: 2e-6, np.float64: 1e-13}[case.dtype]
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=tol, atol=tol * scale,
                               err_msg=what)


@pytest.mark.cuda_device
def test_kernels_on_a_device_equal_the_op_impl():
    """The same cases launched on a CUDA device (skips without one): real blocks, real barriers."""
    from codegen.cuda import compiler
    from codegen.cuda.runner import device_capability
    cp = device.cupy_module()
    if cp is None:
        pytest.skip(f"no usable GPU: {device.gpu_unavailable_reason()}")
    kernels = {c.id: c.kernel() for c in CASES}
    source = compiler.module_source([k.source for _, k in kernels.values()])
    module = compiler.load_module(compiler.build_image(source, compiler.target_arch(device_capability(cp))))
    for case in CASES:
        plan, kernel = kernels[case.id]
        arrays = [cp.asarray(a) for a in case.inputs] + [cp.full(tuple(case.node.outputs[0].shape), 7, case.dtype)]
        partials = cp.empty(kernel.partials, kernel.acc_dtype) if kernel.partials else None
        for launch in kernel.launches:
            module.get_function(launch.entry)(launch.grid, launch.block,
                                              tuple(partials if a == "partials" else arrays[a] for a in launch.args))
        _check_case(case, kernel, cp.asnumpy(arrays[-1]))


def test_cases_cover_tiles_splits_and_partial_tiles():
    kernels = {c.id: c.kernel()[1] for c in CASES}
    assert {k.tile for k in kernels.values()} == set(conv.TILES)
    assert all(k.cooperative and k.strategy == "implicit_gemm" for k in kernels.values())
    splits = {k.split for k in kernels.values()}
    assert 1 in splits and {2, 3, 4} <= splits
    # the automatic choice splits a long filter-gradient sum (K = batch x positions) over blocks
    auto = kernels["conv2d_backprop_filter_lenet_c1"]
    assert auto.split > 1 and auto.partials and auto.entries[1].endswith("_fin")


def test_the_emulation_catches_barrier_bugs():
    """Without the barrier after the shared-tile stores (or before the next ones), threads read
    tiles others have not written yet: wrong numbers. A barrier only some threads reach raises."""
    case = next(c for c in CASES if c.id == "conv2d_tile64x64")
    env = {id(v): a for v, a in zip(case.graph.inputs, case.inputs)}
    want = case.expected()
    for which in (0, 1):
        plan, kernel = case.kernel()
        pieces = kernel.source.split("__syncthreads();")
        assert len(pieces) == 3
        kernel.source = "__syncthreads();".join(pieces[:which + 1]) + "".join(pieces[which + 1:])
        kernel.source = kernel.source.replace(plan.name, f"{plan.name}_nosync{which}")
        plan.name = f"{plan.name}_nosync{which}"
        kernel.params = {plan.name: kernel.params.popitem()[1]}
        kernel.launches[0].entry = plan.name
        got = cuda_host.run_plan(plan, kernel, cuda_host.HostModule([kernel]), env)[id(case.node.outputs[0])]
        assert not np.allclose(got, want, rtol=1e-3, atol=1e-3), f"barrier {which} removed, still right"
    plan, kernel = case.kernel()
    kernel.source = kernel.source.replace("const int tid = threadIdx.x;",
                                          "const int tid = threadIdx.x; if (tid == 5) return;")
    kernel.source = kernel.source.replace(plan.name, plan.name + "_diverge")
    plan.name += "_diverge"
    kernel.params = {plan.name: kernel.params.popitem()[1]}
    kernel.launches[0].entry = plan.name
    with pytest.raises(AssertionError, match="disagree on the barriers"):
        cuda_host.run_plan(plan, kernel, cuda_host.HostModule([kernel]), env)


def test_plan_refuses_what_the_kernels_do_not_cover():
    g = conv_graph("conv2d", (0, 3, 8, 8), (4, 3, 3, 3), {})
    with pytest.raises(conv.NotCovered, match="empty"):
        conv.plan_conv(g.nodes[-1], "k")


# -- the pipeline and the runner ---------------------------------------------------------------------
def _train_graph():
    """conv (groups, asymmetric padding) -> relu -> conv -> sum, and the gradients of both weights
    and of the input: every convolution op, in one graph."""
    from graph.autodiff import append_vjp
    from graph.aval import AVal
    from graph.dtypes import float32
    from graph.ir import Graph
    from graph.ops import F
    g = Graph("net")
    x = g.add_input(AVal((3, 4, 9, 8), float32), "x")
    w1 = g.add_input(AVal((6, 2, 3, 3), float32), "w1")
    w2 = g.add_input(AVal((5, 6, 2, 2), float32), "w2")
    h = F.relu(F.conv2d(x, w1, groups=2, pad_mode="pad", padding=(1, 0, 2, 1), stride=(1, 2)))
    y = F.conv2d(h, w2, dilation=2, pad_mode="same")
    loss = F.reduce_sum(F.mul(y, y))
    g.set_outputs([loss, *append_vjp(g, [loss], [F.ones_like(loss)], [x, w1, w2])])
    return g


class HostCudaGraph(CudaCompiledGraph):
    """The GPU runner with the CuPy stand-in and its kernels built for the host."""

    cudnn = None

    def __init__(self, schedule, name=None):
        super().__init__(schedule, name, xp=standin.xp)
        self.replay = None

    def _load_module(self, source):
        return cuda_host.HostModule(list(self.cuda_kernels.values()))

    def _cudnn_module(self):
        return self.cudnn


def _inputs(graph, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(tuple(v.shape)).astype(v.dtype.np) for v in graph.inputs]


def _check_equal(runner, graph, arrays):
    from graph.interpret import run as interpret
    want, _ = interpret(graph, arrays)
    for _ in range(2):  # the second call reuses the planned buffers
        outs, _ = runner([standin.xp.asarray(a) for a in arrays])
        for i, (o, w) in enumerate(zip(outs, want)):
            np.testing.assert_allclose(o.get(), w, rtol=2e-5, atol=2e-5 * max(1.0, float(np.abs(w).max())),
                                       err_msg=f"output {i}")


def _graph_ops(schedule):
    return [n.op.name for k in schedule.kernels for n in k.nodes]


def test_cuda_pipeline_keeps_convolutions_and_the_cpu_lowers_them():
    import codegen
    import codegen.cuda
    g = _train_graph()
    cuda_ops = _graph_ops(codegen.cuda.schedule_graph(g))
    cpu_ops = _graph_ops(codegen.schedule_graph(g))
    assert set(OPS) <= set(cuda_ops) and "conv_im2col" not in cuda_ops
    assert "conv_im2col" in cpu_ops and "conv_col2im" in cpu_ops  # groups=1 convolutions lowered on the CPU


def test_runner_launches_the_kernels():
    from codegen.cuda import schedule_graph
    g = _train_graph()
    runner = HostCudaGraph(schedule_graph(g))
    text = runner.describe()
    for op in OPS:
        assert f"native[cuda] {op} " in text, text
    assert "implicit_gemm" in text and "[cupy] conv" not in text
    _check_equal(runner, g, _inputs(g))


def test_uncovered_convolutions_run_the_op_impl(monkeypatch):
    from codegen.cuda import schedule_graph

    def refuse(node, name, tile=None, force_split=None):
        raise conv.NotCovered("refused by the test")
    monkeypatch.setattr(conv, "plan_conv", refuse)
    g = _train_graph()
    runner = HostCudaGraph(schedule_graph(g))
    text = runner.describe()
    assert "native[cuda] conv" not in text and "(cupy fallback: refused by the test)" in text, text
    _check_equal(runner, g, _inputs(g))


class FakeCudnn:
    """``cupy.cudnn``'s three convolution calls (CuPy 13's signatures: symmetric ``pad``, results
    written into the given array) computed with the ops' impls on the stand-in's arrays."""

    def __init__(self):
        self.calls = []

    @staticmethod
    def _attrs(pad, stride, dilation, groups):
        return dict(stride=stride, pad_mode="pad", padding=(pad[0], pad[0], pad[1], pad[1]),
                    dilation=dilation, groups=groups)

    def convolution_forward(self, x, W, b, y, pad, stride, dilation, groups, *, auto_tune, tensor_core):
        from graph.ops import REGISTRY
        assert b is None
        self.calls.append("forward")
        y._a[...] = REGISTRY["conv2d"].impl(np, x._a, W._a, **self._attrs(pad, stride, dilation, groups))

    def convolution_backward_data(self, W, gy, b, gx, pad, stride, dilation, groups, *, deterministic,
                                  auto_tune, tensor_core):
        from graph.ops import REGISTRY
        assert b is None
        self.calls.append("data")
        gx._a[...] = REGISTRY["conv2d_backprop_input"].impl(np, gy._a, W._a, input_size=gx.shape,
                                                           **self._attrs(pad, stride, dilation, groups))

    def convolution_backward_filter(self, x, gy, gW, pad, stride, dilation, groups, *, deterministic,
                                    auto_tune, tensor_core):
        from graph.ops import REGISTRY
        self.calls.append("filter")
        gW._a[...] = REGISTRY["conv2d_backprop_filter"].impl(np, gy._a, x._a, filter_size=gW.shape,
                                                            **self._attrs(pad, stride, dilation, groups))


def test_cudnn_runs_convolutions_when_cupy_has_it():
    """With a ``cupy.cudnn`` the symmetric-padding convolutions go through it (results equal the
    reference); the asymmetric one (cuDNN pads both sides alike) stays a generated kernel."""
    from codegen.cuda import schedule_graph
    g = _train_graph()

    class WithCudnn(HostCudaGraph):
        cudnn = FakeCudnn()
    runner = WithCudnn(schedule_graph(g))
    text = runner.describe()
    assert "cudnn conv2d_backprop_filter" in text and "cudnn conv2d_backprop_input" in text
    assert "native[cuda] conv2d " in text  # the first layer's padding is (1, 0, 2, 1)
    _check_equal(runner, g, _inputs(g))
    assert set(WithCudnn.cudnn.calls) == {"forward", "data", "filter"}


def test_no_cudnn_on_cupy14_or_the_standin(monkeypatch):
    from codegen.cuda.runner import cudnn_module
    assert cudnn_module(standin.xp) is None
    monkeypatch.setenv("MSJIT_CUDNN", "0")
    assert cudnn_module(type("M", (), {"__name__": "cupy"})) is None


def test_geometries_are_valid():
    for name, (xs, ws, attrs) in GEOMETRIES.items():
        for op in OPS:
            conv_graph(op, xs, ws, attrs).verify()


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


def test_lenet_jit_training_on_the_device_equals_pynative(gpu):
    """LeNet5 trained 3 steps with @jit under device_target="GPU" (the "cuda" backend's pipeline,
    so every convolution of forward and backward is a generated kernel, run on the host) equals
    PyNative on the device: losses and parameters."""
    import capture
    from codegen.cuda import schedule_graph
    from models import ours_train_step
    runners = []

    def backend(graph):
        runners.append(HostCudaGraph(schedule_graph(graph)))
        return runners[-1]

    def train(jitted):
        capture.reset()
        step, (x, y) = ours_train_step("lenet", 6)
        run = capture.jit(step.construct, backend=backend, fullgraph=True) if jitted else step
        losses = [float(run(x, y).asnumpy()) for _ in range(3)]
        return losses, [p.asnumpy() for p in step.network.trainable_params()]
    got_l, got_p = train(True)
    want_l, want_p = train(False)
    assert runners and "native[cuda] conv2d_backprop_filter" in runners[0].describe()
    np.testing.assert_allclose(got_l, want_l, rtol=1e-5)
    for a, b in zip(got_p, want_p):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
