"""The compile-only tier of the GPU backend (marker ``cuda_compile``): every kernel of the test
graphs is generated and NVRTC-compiled - no GPU needed, only CuPy's NVRTC binding - and the PTX
has each expected entry point: elementwise kernels for every registry op and dtype, reductions of
every kind and layout (split ones with their second pass), fused chains, odd sizes, the
implicit-GEMM convolutions (every tile shape, split K, three dtypes; their cubins without
register spills), and the fused groups and convolutions of whole LeNet5 and MLP train steps
(forward, backward and optimizer in one graph, as the "cuda" backend compiles them). Also:
cubins for a real architecture, and the key-bound disk cache.

It skips (with the reason) only when CuPy or its NVRTC library cannot be imported; CI installs
them (the ``gpu`` extra, see .ci/run)."""
from __future__ import annotations

import os
import sys
import types

import numpy as np
import pytest

from codegen.cuda import compiler, schedule_source

pytestmark = pytest.mark.cuda_compile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))


@pytest.fixture(scope="module")
def nvrtc():
    try:
        return compiler.nvrtc()
    except compiler.NVRTCUnavailable as e:
        pytest.skip(str(e))


def _compile(source, arch="compute_90"):
    return compiler.compile_source(source, arch)


def test_every_case_kernel_compiles_with_its_entry_points(nvrtc):
    from cuda_cases import all_cases
    kernels = [c.kernel()[1] for c in all_cases()]
    ptx = _compile(compiler.module_source([k.source for k in kernels]))
    entries = set(compiler.ptx_entries(ptx))
    want = {e for k in kernels for e in k.entries}
    assert want <= entries, f"missing entry points: {sorted(want - entries)[:10]}"
    assert len(want) >= 500  # every op x dtype, reductions, fused chains
    assert b".target sm_90" in ptx


def _train_step_graphs(model, batch):
    """The graphs capture makes of a whole train step (recorded by a backend that runs them with
    the reference interpreter on the CPU)."""
    import capture
    from capture.backends import numpy_backend
    from models import ours_train_step
    graphs = []

    def recorder(graph):
        graphs.append(graph)
        return numpy_backend(graph)
    capture.reset()
    step, (x, y) = ours_train_step(model, batch)
    jitted = capture.jit(step.construct, backend=recorder)
    jitted(x, y)
    assert graphs, "nothing was captured"
    return graphs


@pytest.mark.parametrize("model,batch", [("lenet", 37), ("mlp", 129)])
def test_train_step_kernels_compile(nvrtc, model, batch):
    from codegen.cuda import schedule_graph  # the "cuda" backend's pipeline: convolutions kept whole
    from codegen.cuda.conv import CONV_OPS
    for graph in _train_step_graphs(model, batch):
        schedule = schedule_graph(graph, "O1")
        source, kernels = schedule_source(schedule, f"{model}_step")
        fused = [k for k in schedule.kernels if k.kind == "fused"]
        convs = [k for k in schedule.kernels if k.nodes[0].op.name in CONV_OPS]
        assert len(kernels) == len(fused) + len(convs) and len(fused) >= 5, \
            f"{model}: {len(kernels)} kernels rendered of {len(fused)} fused and {len(convs)} convolutions"
        strategies = {k.strategy for k in kernels.values()}
        assert "elementwise" in strategies and strategies & {"row", "column"}, strategies
        if model == "lenet":  # forward, input and filter gradients as implicit-GEMM kernels
            assert {k.nodes[0].op.name for k in convs} == set(CONV_OPS)
            assert "implicit_gemm" in strategies
        ptx = _compile(source)
        want = {e for k in kernels.values() for e in k.entries}
        missing = want - set(compiler.ptx_entries(ptx))
        assert not missing, f"{model}: entry points missing from the PTX: {sorted(missing)}"


def test_conv_kernels_compile_without_spills(nvrtc):
    """Every implicit-GEMM convolution case (codegen/cuda/conv.py; tests/codegen/conv_cases.py:
    the three ops over odd geometries, every tile shape, split K and its second kernel, float16
    and float64) NVRTC-compiles with its entry points; the cubins of every tile shape and LeNet's
    first layer use no local memory (no register spills) and fit the 255-register limit."""
    import re
    from conv_cases import conv_cases
    cases = conv_cases()
    kernels = [c.kernel()[1] for c in cases]
    ptx = _compile(compiler.module_source([k.source for k in kernels]))
    want = {e for k in kernels for e in k.entries}
    missing = want - set(compiler.ptx_entries(ptx))
    assert not missing and len(want) >= 90, sorted(missing)
    tiled = [k for c, k in zip(cases, kernels) if "tile" in c.id or "lenet" in c.id]
    binding = compiler.nvrtc()
    prog = binding.createProgram(compiler.module_source([k.source for k in tiled]), "conv.cu", [], [])
    try:
        binding.compileProgram(prog, ["--gpu-architecture=sm_90", *compiler.OPTIONS, "--ptxas-options=-v"])
        log = binding.getProgramLog(prog)
    finally:
        binding.destroyProgram(prog)
    entries = re.findall(r"Compiling entry function '(\w+)'", log)
    assert set(entries) == {e for k in tiled for e in k.entries}
    spills = re.findall(r"(\d+) bytes spill stores", log)
    assert len(spills) == len(entries) and set(spills) == {"0"}, log
    assert all(int(r) <= 255 for r in re.findall(r"Used (\d+) registers", log))


def test_cubin_for_a_real_architecture(nvrtc):
    from cuda_cases import fused_cases
    kernels = [c.kernel()[1] for c in fused_cases()]
    cubin = _compile(compiler.module_source([k.source for k in kernels]), compiler.target_arch(90))
    assert compiler.target_arch(90) == "sm_90"
    assert compiler.well_formed_image(cubin) and cubin[:4] == b"\x7fELF"
    for k in kernels:
        for e in k.entries:
            assert e.encode() in cubin


def test_target_arch_falls_back_to_ptx():
    archs = compiler.supported_archs() if _has_nvrtc() else (90,)
    assert compiler.target_arch(None).startswith("compute_")
    newest = max(archs)
    assert compiler.target_arch(newest + 1000) == f"compute_{newest}"


def _has_nvrtc():
    try:
        compiler.nvrtc()
        return True
    except compiler.NVRTCUnavailable:
        return False


def test_disk_cache_is_bound_to_its_key(nvrtc, tmp_path, monkeypatch):
    """A second build is a cache hit; a corrupted, swapped or re-wrapped entry is refused and
    recompiled, never loaded."""
    from cuda_cases import fused_cases
    monkeypatch.setenv("MSJIT_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("MSJIT_NO_CACHE", raising=False)
    k1, k2 = fused_cases()[0].kernel()[1], fused_cases()[1].kernel()[1]
    src1, src2 = compiler.module_source([k1.source]), compiler.module_source([k2.source])
    before = dict(compiler.STATS)
    img1 = compiler.build_image(src1, "compute_90")
    img2 = compiler.build_image(src2, "compute_90")
    assert compiler.STATS["compiled"] == before["compiled"] + 2
    assert compiler.build_image(src1, "compute_90") == img1
    assert compiler.STATS["cache_hits"] == before["cache_hits"] + 1
    key1, key2 = compiler.cache_key(src1, "compute_90"), compiler.cache_key(src2, "compute_90")
    p1, p2 = compiler.CACHE.path_for(key1), compiler.CACHE.path_for(key2)
    assert compiler.key_marker(key1) in img1 and compiler.ptx_entries(img1) == k1.entries

    def rebuilt(src, key):
        n = compiler.STATS["compiled"]
        img = compiler.build_image(src, "compute_90")
        assert compiler.STATS["compiled"] == n + 1, "a bad cache entry was used"
        assert compiler.key_marker(key) in img
        return img
    data = open(p1, "rb").read()
    open(p1, "wb").write(data[:-40])  # truncated
    rebuilt(src1, key1)
    os.replace(p2, p1)  # another key's valid file under this key
    rebuilt(src1, key1)
    forged = compiler.CACHE.wrap(key1, img2)  # another module re-wrapped with this key's checksum
    open(compiler.CACHE.path_for(key1), "wb").write(forged)
    rebuilt(src1, key1)
    assert not compiler.well_formed_image(b"garbage" * 100)
    assert compiler.CACHE.unwrap(key1, compiler.CACHE.wrap(key1, b"not ptx " + compiler.key_marker(key1))) is None


def test_nvrtc_rejection_names_the_line():
    if not _has_nvrtc():
        pytest.skip("NVRTC is not usable here")
    with pytest.raises(compiler.CompileError, match=r"(?s)undefined.*\n\s+3 .*oops"):
        compiler.compile_source('extern "C" __global__ void k(float* p) {\n  p[0] = 1.0f;\n  oops;\n}\n', "compute_90")


def test_generated_text_is_deterministic():
    """The same graph gives the same module text (the disk cache key depends on it)."""
    from cuda_cases import fused_cases
    a = [c.kernel()[1].source for c in fused_cases()]
    b = [c.kernel()[1].source for c in fused_cases()]
    assert a == b
    np.testing.assert_equal(len(set(a)), len(a))


def test_a_runner_module_with_identical_fused_kernels_compiles(nvrtc):
    """Identical fused kernels share one name (codegen/cpu/runner.py _share_identical_kernels):
    the GPU runner's module must define it once (NVRTC refuses a function defined twice)."""
    import device_standin as standin
    from codegen.cuda import schedule_graph
    from codegen.cuda.runner import CudaCompiledGraph
    from graph.aval import AVal
    from graph.dtypes import float32
    from graph.ir import Graph
    from graph.ops import F
    g = Graph("same")
    x = g.add_input(AVal((4, 6), float32), "x")
    w = g.add_input(AVal((6, 6), float32), "w")
    h = x
    for _ in range(3):  # an unrolled recurrence: the same fused kernel after every product
        h = F.exp(F.mul(F.matmul(h, w), 0.5))
    g.set_outputs([h])
    sources = []

    class SourceOnly(CudaCompiledGraph):
        def _load_module(self, source):  # no device: keep the source, launch nothing
            sources.append(source)
            return types.SimpleNamespace(get_function=lambda entry: None)

    runner = SourceOnly(schedule_graph(g, "O1"), xp=standin.xp)
    fused = [line.split()[2] for line in runner.describe().splitlines() if " fused[cuda] " in line]
    assert len(fused) == 3 and len(set(fused)) == 1, runner.describe()
    ptx = _compile(sources[0])
    assert compiler.ptx_entries(ptx).count(fused[0]) == 1
