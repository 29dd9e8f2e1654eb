"""The CUDA backend's generated kernels, run on the host (tests/codegen/cuda_host.py: the same
CUDA C text compiled with the host C++ compiler, one thread per block over the kernels' own
grids), equal the reference interpreter (the ops' numpy impls): every elementwise op in every
dtype it accepts, broadcasting, every reduction kind over row/column/mixed/full axes with and
without split reductions, fused chains with stored intermediates, special values.

Needs only a C++ compiler, no GPU and no CuPy: the numerics of the text NVRTC compiles are checked
here; the block-level shuffles are exercised on a device (test_cuda_device.py)."""
import numpy as np
import pytest

import cuda_host
from codegen_helpers import assert_ulp, reference
from cuda_cases import all_cases

pytestmark = pytest.mark.skipif(cuda_host.CXX is None, reason="no host C++ compiler (g++) to run the generated CUDA C with")

CASES = all_cases()


@pytest.fixture(scope="module")
def built():
    kernels = {c.id: c.kernel() for c in CASES}
    return kernels, cuda_host.HostModule([k for _, k in kernels.values()])


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_generated_kernel_equals_reference(case, built):
    kernels, module = built
    plan, kernel = kernels[case.id]
    want = case.expected()
    env = {id(v): a for v, a in zip(case.graph.inputs, case.inputs)}
    env.update({id(c): c.data for c in case.graph.consts})
    got = cuda_host.run_plan(plan, kernel, module, env)
    for v, w in zip(case.graph.outputs, want):
        g = got[id(v)]
        what = f"{case.id} ({kernel.strategy}, {kernel.notes})"
        assert g.dtype == w.dtype and g.shape == w.shape, what
        if case.rtol is not None:
            np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=case.rtol, atol=case.atol,
                                       equal_nan=True, err_msg=what)
        else:
            assert_ulp(g, w, ulps=case.ulps, atol=case.atol, what=what)


def test_the_cases_cover_every_strategy_and_split():
    kernels = [c.kernel()[1] for c in CASES]
    strategies = {k.strategy for k in kernels}
    assert strategies == {"elementwise", "row", "column"}
    assert any(k.partials and k.strategy == "row" for k in kernels)
    assert any(k.partials and k.strategy == "column" for k in kernels)


def test_float16_conversions_round_like_numpy():
    """The host prelude's half conversions (used by every float16 case above) are exact: all
    65536 half values round-trip, and float32 values round to nearest even like numpy."""
    from graph.ops import F
    from cuda_cases import _case
    bits = np.arange(65536, dtype=np.uint16).view(np.float16)
    finite = bits[np.isfinite(bits)]
    rng = np.random.default_rng(0)
    wide = np.concatenate([rng.standard_normal(20000) * 1e3, rng.standard_normal(20000) * 1e-5,
                           np.array([65504.0, 65519.99, 65520.0, 7e4, 6e-8, 3e-8, 2.98e-8, -0.0])]).astype(np.float32)
    for cid, x, fn in (("h2f", finite, lambda v: F.mul(v, 1.0)),
                       ("f2h", wide, lambda v: F.cast(v, dtype=__import__("graph").dtypes.float16))):
        case = _case(f"half_{cid}", fn, [x])
        plan, kernel = case.kernel()
        module = cuda_host.HostModule([kernel])
        got = cuda_host.run_plan(plan, kernel, module, {id(case.graph.inputs[0]): x})[id(case.graph.outputs[0])]
        with np.errstate(over="ignore"):  # 7e4 rounds to inf in half, as intended
            want, _ = reference(case.graph, [x])
        np.testing.assert_array_equal(got.view(np.uint16), want[0].view(np.uint16))
