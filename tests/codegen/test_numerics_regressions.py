"""Regression tests for issue 35: compiled kernels computed integer ``//`` and ``%`` through
float32 (16777217 // 1 gave 16777216, x // 0 gave INT_MIN) and float32 sin/cos of huge arguments
collapsed (sin(1e30) gave 0.0). Oracles: Python's integer arithmetic, numpy in float64, eager
mode; the CUDA kernels are run on the host emulation (tests/codegen/cuda_host.py)."""
import numpy as np
import pytest

import cuda_host
from codegen_helpers import compile_and_run, graph_of, one_kernel
from cuda_cases import _case
from graph.ops import F

ISSUE_X = [16777217, 20000001, 33554435, 2**31 - 1, -2**31, -16777217, 7, -7, 0]
ISSUE_Y = [1, 3, 3, -2, -1, 5, 0, 0, 0]


def _python_floor(x, y, dtype):
    """Python's // and %, with the framework's zero-divisor results (0 and the dtype's max) and
    numpy's wrap of MIN // -1."""
    info = np.iinfo(dtype)
    q, r = [], []
    for a, b in zip(x, y):
        if b == 0:
            q.append(0)
            r.append(info.max)
            continue
        qq = a // b
        q.append(info.min if qq > info.max else qq)
        r.append(a % b)
    return np.array(q, dtype), np.array(r, dtype)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_cpu_integer_floor_div_and_mod_are_exact(dtype):
    x = np.array(ISSUE_X + [2**53 + 1, -(2**53) - 3] if dtype == np.int64 else ISSUE_X, dtype)
    y = np.array(ISSUE_Y + [3, 2] if dtype == np.int64 else ISSUE_Y, dtype)
    if dtype == np.int64:
        x = np.concatenate([x, np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).max], dtype)])
        y = np.concatenate([y, np.array([-1, 7], dtype)])
    g = graph_of(lambda a, b: (F.floor_div(a, b), F.mod(a, b)), (x.shape, x.dtype), (y.shape, y.dtype))
    _, (got, _) = compile_and_run(one_kernel(g), [x, y])
    want_q, want_r = _python_floor([int(v) for v in x], [int(v) for v in y], dtype)
    np.testing.assert_array_equal(got[0], want_q)
    np.testing.assert_array_equal(got[1], want_r)


@pytest.mark.skipif(cuda_host.CXX is None, reason="no host C++ compiler")
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.int8, np.uint8])
def test_cuda_integer_floor_div_and_mod_are_exact(dtype):
    info = np.iinfo(dtype)
    vals = sorted({v for v in (0, 1, 2, 3, 7, info.max, info.max - 1, info.min, info.min + 1,
                               16777217, 33554435, -1, -3, -16777217) if info.min <= v <= info.max})
    x = np.repeat(np.array(vals, dtype), len(vals))
    y = np.tile(np.array(vals, dtype), len(vals))
    want_q, want_r = _python_floor([int(v) for v in x], [int(v) for v in y], dtype)
    for name, fn, want in (("q", F.floor_div, want_q), ("r", F.mod, want_r)):
        case = _case(f"regress_{name}_{np.dtype(dtype).name}", lambda a, b, _f=fn: _f(a, b), [x, y])
        plan, kernel = case.kernel()
        module = cuda_host.HostModule([kernel])
        env = {id(v): a for v, a in zip(case.graph.inputs, case.inputs)}
        got = cuda_host.run_plan(plan, kernel, module, env)[id(case.graph.outputs[0])]
        np.testing.assert_array_equal(got, want)


def test_eager_and_jit_agree_on_the_issue_example():
    import runtime as ms
    from runtime import Tensor
    a = Tensor(np.array([16777217, 20000001], np.int32))
    b = Tensor(np.array([1, 3], np.int32))
    np.testing.assert_array_equal(ms.jit(lambda u, v: u // v)(a, b).asnumpy(), [16777217, 6666667])
    np.testing.assert_array_equal((a // b).asnumpy(), [16777217, 6666667])
    z = Tensor(np.array([5, -5, 0], np.int32))
    zero = Tensor(np.array([0, 0, 0], np.int32))
    for fn, want in ((lambda u, v: u // v, [0, 0, 0]), (lambda u, v: u % v, [2**31 - 1] * 3)):
        np.testing.assert_array_equal(fn(z, zero).asnumpy(), want)
        np.testing.assert_array_equal(ms.jit(fn)(z, zero).asnumpy(), want)


@pytest.mark.parametrize("name", ["sin", "cos"])
def test_cpu_sin_cos_of_huge_float32_arguments(name):
    """Over the whole float32 range (random bit patterns plus the issue's values and the largest
    float), within 2 ulp of the exact result (numpy on float64)."""
    rng = np.random.default_rng(35)
    bits = rng.integers(0x42F00000, 0x7F800000, 200_000, dtype=np.uint32)  # |x| >= 120
    x = np.concatenate([bits.view(np.float32), np.array([1e30, 1.1e14, 1e12, 3.4028235e38, 120.0, 119.99999], np.float32)])
    x = np.concatenate([x, -x])
    fn = getattr(F, name)
    g = graph_of(lambda a: fn(a), (x.shape, x.dtype))
    _, (got, _) = compile_and_run(one_kernel(g), [x])
    exact = getattr(np, name)(x.astype(np.float64))
    ulp = np.spacing(np.abs(exact.astype(np.float32))).astype(np.float64)
    err = np.abs(got[0].astype(np.float64) - exact) / ulp
    assert err.max() <= 2.0, (err.max(), x[np.argmax(err)])
    i = list(x).index(np.float32(1e30))
    assert abs(got[0][i] - getattr(np, name)(np.float32(1e30))) < 1e-6


# -- bugs the op fuzzer found (tests/codegen/op_fuzzer.py), each on both backends ------------------
def _both_backends(fn, xs):
    """``fn`` compiled as one fused kernel on the CPU and as CUDA C on the host: both results."""
    g = graph_of(fn, *[(x.shape, x.dtype) for x in xs])
    _, (cpu, _) = compile_and_run(one_kernel(g), xs)
    results = [cpu[0]]
    if cuda_host.CXX is not None:
        case = _case(f"fz_{abs(hash(fn.__code__.co_code)) % 10**8}", fn, xs)
        plan, kernel = case.kernel()
        module = cuda_host.HostModule([kernel])
        env = {id(v): a for v, a in zip(case.graph.inputs, xs)}
        results.append(cuda_host.run_plan(plan, kernel, module, env)[id(case.graph.outputs[0])])
    return results


def _eager(fn, xs):
    from codegen_helpers import reference
    g = graph_of(fn, *[(x.shape, x.dtype) for x in xs])
    with np.errstate(all="ignore"):
        return reference(g, xs)[0][0]


FOUND = {
    # an int32 operand promoted to float16 is a float16 value: 65536 -> inf, so -87.3 % inf = inf
    "int_promoted_to_float16": (lambda a, b: F.neg(F.mod(a, b)),
                                [np.array([-87.3125, 1.0], np.float16), np.array([65536, 2049], np.int32)]),
    # a Python scalar meeting a float16 tensor is the float16 0.0999755859375, as in eager
    "weak_scalar_in_float16": (lambda a: F.mul(a, 0.1), [np.array([1000.0, 3.0, -7.0], np.float16)]),
    # each fused float16 node rounds to float16 before the next uses it
    "float16_chain_rounds_per_node": (lambda a: F.mul(F.cast(a, dtype=__import__("graph").dtypes.float16), 3.0),
                                      [np.array([0.1, 1.0001, 2049.0, 65519.0], np.float32)]),
    # float64 -> float16 rounds once (float32 in between rounded twice)
    "float64_to_float16_one_rounding": (lambda a: F.cast(a, dtype=__import__("graph").dtypes.float16),
                                        [np.array([-4.474609241722929, 0.44763182469616347, -2.2412108989061923,
                                                   1 + 2**-11 + 2**-40], np.float64)]),
    # NaN / out-of-range float -> int as numpy on x86-64 (LLVM's fptosi made poison of them)
    "float_to_int8_out_of_range": (lambda a: F.cast(a, dtype=__import__("graph").dtypes.int8),
                                   [np.array([300.0, -129.0, 65504.0, np.nan, np.inf, 5e9 + 1, -1.0], np.float64)]),
    "float_to_int32_nan": (lambda a: F.cast(a, dtype=__import__("graph").dtypes.int32),
                           [np.array([np.nan, 3e9, -3e9, 2.5, -2.5], np.float32)]),
    "float_to_uint8_negative": (lambda a: F.cast(a, dtype=__import__("graph").dtypes.uint8),
                                [np.array([-1.0, 256.0, 300.5, np.nan], np.float32)]),
    # integer pow wraps as numpy (it went through float64 and then INT_MIN / poison)
    "int_pow_wraps": (lambda a, b: F.pow(a, b), [np.array([37, 3, -35, 2], np.int8), np.array([73, 5, 10, 7], np.int8)]),
    "int32_pow_large": (lambda a, b: F.pow(a, b), [np.array([3, 7, -3, 46341], np.int32), np.array([40, 33, 21, 2], np.int32)]),
    # a Python float's own truth: -2.2e-308 is nonzero (it was made a float32 constant: -0.0)
    "logical_and_tiny_scalar": (lambda a: F.logical_and(a, -2.2250738585072014e-308),
                                [np.array([-1.1e81, 0.0, 0.02], np.float64)]),
}


@pytest.mark.parametrize("name", sorted(FOUND))
def test_fuzzer_findings_equal_eager(name):
    fn, xs = FOUND[name]
    want = _eager(fn, xs)
    for got in _both_backends(fn, xs):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want, err_msg=name)
