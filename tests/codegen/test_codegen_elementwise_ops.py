"""Every elementwise op of the registry compiled alone by the LLVM backend equals its numpy impl
(arithmetic to float rounding, transcendental functions to a few ulp), on odd sizes that are not
multiples of the vector width, with broadcasting, and for float64/float16/int/bool inputs."""

import numpy as np
import pytest

from codegen_helpers import assert_ulp, compile_and_run, graph_of, one_kernel, reference
from graph.dtypes import float32 as F32, int32 as I32
from graph.ops import F, REGISTRY, bind

ELEMENTWISE = sorted(n for n, op in REGISTRY.items() if op.kind == "elementwise")
TRANSCENDENTAL = {"exp", "log", "log1p", "tanh", "sigmoid", "erf", "sin", "cos", "gelu", "gelu_grad", "softplus",
                  "pow", "rsqrt", "sqrt"}
ATTRS = {"cast": [{"dtype": F32}, {"dtype": I32}], "gelu": [{}, {"approximate": "tanh"}], "gelu_grad": [{}, {"approximate": "tanh"}],
         "leaky_relu": [{"alpha": 0.1}]}
POSITIVE = {"log", "sqrt", "rsqrt", "pow"}


def _inputs(name, rng, shape, dtype=np.float32):
    op = REGISTRY[name]
    n = len(op.inputs)
    xs = []
    for i, inp in enumerate(op.inputs):
        if inp == "condition":
            xs.append(rng.random(shape) > 0.5)
            continue
        x = rng.standard_normal(shape) * 3
        if name in POSITIVE or (name == "log1p"):
            x = np.abs(x) + (0.05 if name != "log1p" else -0.9)
        if name in ("pow",) and i == 1:
            x = rng.standard_normal(shape)
        if name in ("div", "floor_div", "mod") and i == 1:
            x = np.where(np.abs(x) < 0.1, 0.5, x)
        xs.append(x.astype(dtype))
    assert len(xs) == n
    return xs


def _check(name, attrs, xs, shapes=None):
    op = REGISTRY[name]
    specs = [(x.shape, x.dtype) for x in xs]
    g = graph_of(lambda *vs: bind(op, *vs, **attrs), *specs, name=name)
    ref, _ = reference(g, xs)
    _, (got, _) = compile_and_run(one_kernel(g), xs)
    ulps = 4 if name in TRANSCENDENTAL else 1
    if name == "erf":
        ulps = 4
    assert_ulp(got[0], ref[0], ulps=ulps, atol=1e-37 if name not in ("gelu", "gelu_grad") else 1e-6,
               what=f"{name}{attrs} on {[(x.shape, str(x.dtype)) for x in xs]}")


@pytest.mark.parametrize("name", ELEMENTWISE)
@pytest.mark.parametrize("size", [1, 7, 1023])
def test_every_elementwise_op_equals_its_impl(name, size, rng):
    for attrs in ATTRS.get(name, [{}]):
        _check(name, attrs, _inputs(name, rng, (size,)))


@pytest.mark.parametrize("name", [n for n in ELEMENTWISE if len(REGISTRY[n].inputs) >= 2])
def test_binary_ops_broadcast(name, rng):
    op = REGISTRY[name]
    shapes = [(5, 1, 33), (7, 1)] if len(op.inputs) == 2 else [(5, 7, 1), (1, 33), (7, 33)]
    xs = []
    for inp, s in zip(op.inputs, shapes):
        full = _inputs(name, rng, s)
        xs.append(full[op.inputs.index(inp)])
    _check(name, {}, xs)


@pytest.mark.parametrize("name", ["add", "mul", "exp", "tanh", "log", "sigmoid", "erf", "sin", "maximum",
                                  "sqrt", "div", "pow", "gelu", "softplus", "less"])
def test_float64_ops(name, rng):
    xs = _inputs(name, rng, (131,), np.float64)
    _check(name, {}, xs)


@pytest.mark.parametrize("name", ["add", "mul", "relu", "exp", "tanh", "maximum", "neg", "square"])
def test_float16_ops(name, rng):
    xs = _inputs(name, rng, (77,), np.float16)
    op = REGISTRY[name]
    g = graph_of(lambda *vs: bind(op, *vs), *[(x.shape, x.dtype) for x in xs])
    ref, _ = reference(g, xs)
    _, (got, _) = compile_and_run(one_kernel(g), xs)
    np.testing.assert_allclose(got[0].astype(np.float32), ref[0].astype(np.float32), rtol=2e-3, atol=1e-3)


@pytest.mark.parametrize("name", ["add", "sub", "mul", "maximum", "minimum", "neg", "abs", "square",
                                  "sign", "equal", "less", "greater_equal", "div", "floor_div", "mod", "exp"])
def test_int32_ops(name, rng):
    op = REGISTRY[name]
    xs = [rng.integers(-20, 20, 65).astype(np.int32) for _ in op.inputs]
    if name in ("div", "floor_div", "mod"):
        xs[1] = np.where(xs[1] == 0, 3, xs[1]).astype(np.int32)
    _check(name, {}, xs)


@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_not", "equal", "not_equal"])
def test_bool_ops(name, rng):
    op = REGISTRY[name]
    xs = [rng.random(37) > 0.5 for _ in op.inputs]
    _check(name, {}, xs)


def test_scalar_operands_follow_promotion(rng):
    x = rng.integers(-5, 5, 19).astype(np.int32)
    from graph.ops import F
    g = graph_of(lambda v: (F.mul(v, 2.5), F.add(v, 3), F.div(v, 2)), (x.shape, x.dtype))
    ref, _ = reference(g, [x])
    _, (got, _) = compile_and_run(one_kernel(g), [x])
    for a, b in zip(got, ref):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_grad_of_a_python_number_activation_computes_in_the_tensor_dtype(rng, dtype, approximate):
    """``gelu_grad(dout, 3.0)``: the weak number adopts dout's dtype (the impl's result_type), so a
    float64 kernel computes gelu'(3) in float64 (it once built its constants like the number, in
    float32: relative error 4e-8 instead of 1e-16)."""
    dout = rng.standard_normal(23).astype(dtype)
    g = graph_of(lambda v: F.gelu_grad(v, 3.0, approximate=approximate), (dout.shape, dout.dtype))
    ref, _ = reference(g, [dout])
    _, (got, _) = compile_and_run(one_kernel(g), [dout])
    assert got[0].dtype == ref[0].dtype == dtype
    np.testing.assert_allclose(got[0], ref[0], rtol=4 * np.finfo(dtype).eps, atol=0)


def test_special_values():
    x = np.array([0.0, -0.0, 1e-40, -1e-40, np.inf, -np.inf, np.nan, 88.0, 89.0, -87.0, -104.0, -110.0,
                  1e30, -1e30, 3.4e38, 1.0, -1.0, 1e-8, 20.0, -20.0], np.float32)
    with np.errstate(all="ignore"):
        for name in ["exp", "tanh", "sigmoid", "erf", "softplus", "relu", "neg", "abs",
                     "floor", "ceil", "sign"]:
            _check(name, {}, [x])
        small = np.where(np.abs(x) > 1e4, 1.5, x).astype(np.float32)  # documented |x| < 1e5 range
        _check("sin", {}, [small])
        _check("cos", {}, [small])
        # huge arguments: finite and bounded (numpy is exact there, we are not)
        from graph.ops import F
        g = graph_of(lambda v: F.sin(v), (x.shape, x.dtype))
        _, (got, _) = compile_and_run(one_kernel(g), [x])
        fin = np.isfinite(x)
        assert np.all(np.abs(got[0][fin]) <= 1.0) and np.all(np.isnan(got[0][~fin]))
        _check("log", {}, [np.abs(x)])
        _check("sqrt", {}, [np.abs(x)])
        _check("log1p", {}, [np.abs(x)])


def test_math_functions_over_wide_ranges():
    """Dense sweeps of the float32 functions against numpy (few-ulp agreement)."""
    x = np.linspace(-30, 30, 200_003).astype(np.float32)
    for name in ["exp", "tanh", "sigmoid", "erf", "sin", "cos"]:
        _check(name, {}, [x if name != "exp" else x * 2.9])
    _check("sin", {}, [np.linspace(-1e4, 1e4, 100_001).astype(np.float32)])
    pos = np.exp(np.linspace(-80, 80, 200_001)).astype(np.float32)
    _check("log", {}, [pos])
    _check("log1p", {}, [np.concatenate([pos, -np.linspace(0, 0.999, 1001).astype(np.float32)])])



def test_float32_erf_is_within_one_and_a_half_ulp_of_the_exact_erf():
    """erf is evaluated in float32 (codegen/cpu/vmath.py): every 997th float32 of [1e-30, 4.5],
    both signs, against the exact erf (graph.ops.special: fdlibm in float64), with the piece
    boundary at |x| = 1 and the clamp at 4 swept densely."""
    from graph.ops import special
    bits = np.arange(np.float32(1e-30).view(np.int32), np.float32(4.5).view(np.int32), 997, dtype=np.int32)
    edges = np.float32([0.99, 1.0, 4.0]).view(np.int32)
    near = (edges[:, None] + np.arange(-2000, 2000, dtype=np.int32)).reshape(-1)
    x = np.concatenate([bits, near]).view(np.float32)
    x = np.concatenate([x, -x])
    g = graph_of(lambda u: F.erf(u), (x.shape, np.float32))
    _, (got, _) = compile_and_run(one_kernel(g), [x])
    exact = special.erf(x.astype(np.float64))
    ulps = np.abs(got[0].astype(np.float64) - exact) / np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64)
    assert ulps.max() <= 1.5, (ulps.max(), x[np.argmax(ulps)])


def test_exp_and_tanh_at_their_edges():
    """exp's clamped arithmetic gives inf past ~88.72 and 0/denormals below ~-87.3 (no selects do
    it for them); tanh is one expm1 path for every |x|, so check every 97th float32 of [1e-30, 12],
    both signs, and that the signs of zeros survive."""
    edges = np.array([88.72283, 88.722839, 88.8, 89.0, 1e30, -87.3, -100.0, -103.9, -104.5, -1e30,
                      0.0, -0.0, np.inf, -np.inf, np.nan], np.float32)
    with np.errstate(over="ignore"):
        _check("exp", {}, [edges])
    bits = np.arange(np.float32(1e-30).view(np.int32), np.float32(12.0).view(np.int32), 97 * 101,
                     dtype=np.int32)
    x = bits.view(np.float32)
    _check("tanh", {}, [np.concatenate([x, -x, edges])])
    g = graph_of(lambda u: F.tanh(u), ((2,), np.float32))
    _, (got, _) = compile_and_run(one_kernel(g), [np.array([0.0, -0.0], np.float32)])
    assert list(np.signbit(got[0])) == [False, True]


def _int_and_bool_inputs(name, dtype):
    rng = np.random.default_rng(3)
    op = REGISTRY[name]
    xs = [rng.integers(-3, 4, 23).astype(dtype) if dtype is not np.bool_ else rng.random(23) > 0.5
          for _ in op.inputs]
    if name in ("div", "floor_div", "mod", "pow") and dtype is np.int32:
        xs[-1] = np.where(xs[-1] <= 0, 2, xs[-1]).astype(dtype)
    return xs


def _float_result_cases():
    """(op, dtype) pairs where an int or bool tensor gives a float result, consistently in impl and
    infer (ops that refuse such inputs are left out)."""
    from graph.interpret import run
    cases = []
    for name in ELEMENTWISE:
        for dtype in (np.int32, np.bool_):
            xs = _int_and_bool_inputs(name, dtype)
            try:
                g = graph_of(lambda *vs: bind(REGISTRY[name], *vs, **ATTRS.get(name, [{}])[0]),
                             *[(x.shape, x.dtype) for x in xs])
                with np.errstate(all="ignore"):
                    out, _ = run(g, xs, check=True)
            except (TypeError, ValueError, AssertionError):
                continue
            if out[0].dtype.kind == "f":
                cases.append((name, dtype))
    return cases


@pytest.mark.parametrize("name,dtype", _float_result_cases())
def test_float_result_ops_compute_int_and_bool_inputs_in_float(name, dtype):
    """gelu/sigmoid/softplus... of an int or bool tensor compute in float32 as their impl does (the
    expression's constants used to take the integer operand's type: gelu(int) gave zeros)."""
    xs = _int_and_bool_inputs(name, dtype)
    g = graph_of(lambda *vs: bind(REGISTRY[name], *vs, **ATTRS.get(name, [{}])[0]), *[(x.shape, x.dtype) for x in xs])
    with np.errstate(all="ignore"):
        ref, _ = reference(g, xs)
    _, (got, _) = compile_and_run(one_kernel(g), xs)
    np.testing.assert_allclose(got[0], ref[0], rtol=2e-6, atol=1e-6)
