"""The GPU backend on a CUDA device (marker ``cuda_device``; every test skips without one):
generated kernels equal the reference interpreter (the host-emulation cases, now with real blocks
and warp shuffles), whole train steps compiled by the "cuda" backend equal PyNative on the GPU and
the CPU backend, CUDA-graph replay equals plain launches, CAPTURE_VERIFY checks against the
reference interpreter on the device, and a second process loads the kernels from the disk cache."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from runtime import device

pytestmark = pytest.mark.cuda_device

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))


@pytest.fixture(scope="module")
def cp():
    cupy = device.cupy_module()
    if cupy is None:
        pytest.skip(f"no usable GPU: {device.gpu_unavailable_reason()}")
    return cupy


@pytest.fixture
def gpu_context(cp):
    import runtime as ms
    ms.set_context(device_target="GPU")
    yield cp
    ms.set_context(device_target="CPU", mode=ms.PYNATIVE_MODE)


def _run_on_device(cp, module, plan, kernel, inputs):
    """Launch one plan's kernels (as the runner's fused step does) on device copies of ``inputs``
    (id(Value) -> host array); the outputs on the host."""
    arrays, outs = [], {}
    for o in plan.operands:
        if o.role == "in":
            arrays.append(cp.asarray(np.ascontiguousarray(inputs[id(o.value)], dtype=o.dtype)))
        else:
            a = cp.full(tuple(o.value.shape), 7, dtype=o.dtype)
            arrays.append(a)
            outs[id(o.value)] = a
    partials = cp.empty(kernel.partials, kernel.acc_dtype) if kernel.partials else None
    for launch in kernel.launches:
        fn = module.get_function(launch.entry)
        fn(launch.grid, launch.block, tuple(partials if a == "partials" else arrays[a] for a in launch.args))
    return {k: cp.asnumpy(v) for k, v in outs.items()}


def test_generated_kernels_on_the_device_equal_reference(cp):
    """Every host-emulation case (each op and dtype, reductions with real 256-thread blocks and
    warp shuffles, split reductions, fused chains), all kernels in one NVRTC module."""
    from codegen.cuda import compiler
    from codegen_helpers import assert_ulp
    from cuda_cases import all_cases
    cases = all_cases()
    built = [(c, *c.kernel()) for c in cases]
    source = compiler.module_source([k.source for _, _, k in built])
    arch = compiler.target_arch(int(cp.cuda.Device().compute_capability))
    module = compiler.load_module(compiler.build_image(source, arch))
    failures = []
    for case, plan, kernel in built:
        env = {id(v): a for v, a in zip(case.graph.inputs, case.inputs)}
        env.update({id(c): c.data for c in case.graph.consts})
        got = _run_on_device(cp, module, plan, kernel, env)
        try:
            for v, w in zip(case.graph.outputs, case.expected()):
                g = got[id(v)]
                assert g.dtype == w.dtype and g.shape == w.shape, case.id
                if case.rtol is not None:
                    np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=case.rtol,
                                               atol=case.atol, equal_nan=True, err_msg=case.id)
                else:  # CUDA's math functions are within 2 ulp, FMA contraction is on
                    assert_ulp(g, w, ulps=max(case.ulps, 4), atol=max(case.atol, 1e-6), what=case.id)
        except AssertionError as e:
            failures.append(f"{case.id} ({kernel.strategy} {kernel.notes}): {str(e)[:300]}")
    assert not failures, f"{len(failures)} of {len(cases)} kernels differ:\n" + "\n".join(failures[:20])


def _train(model, backend, steps=5, batch=64):
    import capture
    from models import ours_train_step
    capture.reset()
    step, (x, y) = ours_train_step(model, batch)
    run = capture.jit(step.construct, backend=backend) if backend != "pynative" else step
    losses = [float(run(x, y).asnumpy()) for _ in range(steps)]
    return losses, [p.asnumpy().copy() for p in step.network.trainable_params()]


@pytest.mark.parametrize("model", ["lenet", "mlp"])
def test_train_step_on_the_gpu_equals_pynative_and_the_cpu(model, gpu_context):
    import runtime as ms
    from capture.explain import recording
    with recording() as rep:
        got_l, got_p = _train(model, None)  # backend=None: "cuda", chosen for GPU tensors
    assert rep.breaks == [] and rep.graph_count == 1
    assert "fused[cuda]" in rep.compiles[0].runner.describe()
    want_l, want_p = _train(model, "pynative")
    np.testing.assert_allclose(got_l, want_l, rtol=1e-5)
    for a, b in zip(got_p, want_p):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    ms.set_context(device_target="CPU")
    cpu_l, cpu_p = _train(model, "llvm")
    np.testing.assert_allclose(got_l, cpu_l, rtol=1e-5)
    for a, b in zip(got_p, cpu_p):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
    assert got_l[-1] < got_l[0]


def test_backend_is_cuda_for_gpu_tensors_and_guards_see_the_device(gpu_context):
    import capture
    import runtime as ms
    from runtime import Tensor, ops
    from capture.explain import recording
    capture.reset()
    f = ms.jit(lambda x: ops.tanh(x * 2.0) + 1.0)
    g = Tensor(np.linspace(-1, 1, 33).astype(np.float32))
    with recording() as rep:
        out = f(g)
    assert type(out._data) is not np.ndarray
    assert "fused[cuda]" in rep.compiles[0].runner.describe()
    ms.set_context(device_target="CPU")
    c = Tensor(np.linspace(-1, 1, 33).astype(np.float32))
    np.testing.assert_allclose(f(c).asnumpy(), out.asnumpy(), rtol=1e-6)  # a second entry, on the CPU
    assert type(f(c)._data) is np.ndarray


def test_cuda_graph_replay_equals_plain_launches(gpu_context, monkeypatch):
    monkeypatch.setenv("MSJIT_CUDA_GRAPHS", "1")
    replayed, _ = _train("mlp", None, steps=6, batch=32)
    monkeypatch.setenv("MSJIT_CUDA_GRAPHS", "0")
    plain, _ = _train("mlp", None, steps=6, batch=32)
    np.testing.assert_allclose(replayed, plain, rtol=1e-6)


def test_capture_verify_on_the_device(gpu_context, monkeypatch):
    monkeypatch.setenv("CAPTURE_VERIFY", "1")
    losses, _ = _train("lenet", None, steps=2, batch=16)
    assert np.isfinite(losses).all()


def test_a_second_process_loads_kernels_from_the_disk_cache(cp, tmp_path):
    script = textwrap.dedent(f"""
        import json, sys
        import numpy as np
        sys.path.insert(0, {ROOT!r})
        import runtime as ms
        from runtime import Tensor, ops
        from codegen.cuda import compiler
        ms.set_context(device_target="GPU")
        f = ms.jit(lambda x: ops.reduce_sum(ops.exp(x) * 2.0, 1))
        x = np.random.default_rng(0).normal(size=(64, 1000)).astype(np.float32)
        ok = bool(np.allclose(f(Tensor(x)).asnumpy(), (np.exp(x) * 2).sum(1), rtol=1e-5))
        print(json.dumps(dict(compiler.STATS, ok=ok)))
    """)
    env = dict(os.environ, MSJIT_CACHE_DIR=str(tmp_path))
    runs = [json.loads(subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                                      timeout=300, check=True).stdout.strip().splitlines()[-1]) for _ in range(2)]
    assert runs[0]["ok"] and runs[1]["ok"]
    assert runs[0]["compiled"] >= 1 and runs[1]["compiled"] == 0 and runs[1]["cache_hits"] >= 1
