"""The kernels the CUDA backend's tests generate: every elementwise op of the registry (float32 on
odd sizes, broadcasting, and the other dtypes each op accepts), every reduction kind over row,
column, mixed and full axes (with and without a split over gridDim.y), fused chains with stored
intermediates, special values. Each case is a graph compiled as one fused kernel plus inputs and a
tolerance; the host emulation runs them against the reference interpreter and the compile tier
NVRTC-compiles them."""
from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

from codegen.cuda.kernels import render
from codegen.fused_plan import plan_fused
from codegen_helpers import graph_of, one_kernel
from graph.interpret import run as interpret
from graph.dtypes import float16 as F16, float32 as F32, int32 as I32, int64 as I64, bool_ as B
from graph.ops import REGISTRY, F, bind

ELEMENTWISE = sorted(n for n, op in REGISTRY.items() if op.kind == "elementwise")
REDUCTIONS = sorted(n for n, op in REGISTRY.items() if op.kind == "reduction")
TRANSCENDENTAL = {"exp", "log", "log1p", "tanh", "sigmoid", "erf", "sin", "cos", "gelu", "gelu_grad", "softplus",
                  "pow", "rsqrt", "sqrt"}
ATTRS = {"cast": [{"dtype": F32}, {"dtype": I32}, {"dtype": F16}, {"dtype": B}, {"dtype": I64}],
         "gelu": [{}, {"approximate": "tanh"}], "gelu_grad": [{}, {"approximate": "tanh"}], "leaky_relu": [{"alpha": 0.1}]}
POSITIVE = {"log", "sqrt", "rsqrt", "pow"}
#: ops whose integer semantics differ by design from numpy's (pow: computed through float64, and
#: numpy refuses negative integer exponents): not compared on ints here (the op fuzzer covers it)
INT_SKIP = {"pow"}


@dataclass
class Case:
    id: str
    graph: object
    inputs: list
    ulps: float = 1
    atol: float = 0.0
    rtol: float | None = None  # compare with allclose instead of ulps
    #: compare with the op computed in float64 (then cast): numpy accumulates float16 reductions
    #: in float16, the kernels (like the CPU ones) in float32
    fn: object = None
    wide_oracle: bool = False

    def expected(self):
        with np.errstate(all="ignore"):
            if not self.wide_oracle:
                return interpret(self.graph, self.inputs)[0]
            wide = [x.astype(np.float64) for x in self.inputs]
            g = graph_of(self.fn, *[(x.shape, x.dtype) for x in wide])
            return [w.astype(v.dtype.np) for w, v in zip(interpret(g, wide)[0], self.graph.outputs)]

    def kernel(self):
        schedule = one_kernel(self.graph)
        plan = plan_fused(schedule.kernels[0], _ident(self.id))
        return plan, render(plan)


def _ident(s):
    return "c_" + "".join(ch if ch.isalnum() else "_" for ch in s)


def _inputs(name, rng, shape, dtype=np.float32):
    op = REGISTRY[name]
    xs = []
    for i, inp in enumerate(op.inputs):
        if inp == "condition":
            xs.append(rng.random(shape) > 0.5)
            continue
        if np.dtype(dtype) == np.bool_:
            xs.append(rng.random(shape) > 0.5)
            continue
        if np.dtype(dtype).kind in "iu":
            x = rng.integers(-20, 20, shape).astype(dtype)
            if name in ("div", "floor_div", "mod") and i == 1:
                x = np.where(x == 0, 3, x).astype(dtype)
            if name in POSITIVE or name == "log1p":
                x = np.abs(x).astype(dtype) + 1
            xs.append(x)
            continue
        x = rng.standard_normal(shape) * 3
        if name in POSITIVE or name == "log1p":
            x = np.abs(x) + (0.05 if name != "log1p" else -0.9)
        if name == "pow" and i == 1:
            x = rng.standard_normal(shape)
        if name in ("div", "floor_div", "mod") and i == 1:
            x = np.where(np.abs(x) < 0.1, 0.5, x)
        xs.append(x.astype(dtype))
    return xs


#: case ids whose op impl disagrees with the op's own inferred dtype (a registry matter, not a
#: code generator's): not compared
INCONSISTENT = []


def _case(cid, fn, xs, **tol):
    """A case, or None when the inputs are not valid for the op (its infer or impl refuses
    them: e.g. floor of an int tensor)."""
    try:
        g = graph_of(fn, *[(x.shape, x.dtype) for x in xs], name=_ident(cid))
        with np.errstate(all="ignore"):
            interpret(g, xs)
    except (TypeError, ValueError):
        return None
    try:
        with np.errstate(all="ignore"):
            interpret(g, xs, check=True)
    except AssertionError:
        INCONSISTENT.append(cid)
        return None
    return Case(cid, g, xs, fn=fn, **tol)


def _op_case(cid, name, attrs, xs, **tol):
    op = REGISTRY[name]
    return _case(cid, lambda *vs: bind(op, *vs, **attrs), xs, **tol)


def elementwise_cases():
    cases = []
    for name in ELEMENTWISE:
        rng = np.random.default_rng(zlib.crc32(name.encode()))
        op = REGISTRY[name]
        ulps = 4 if name in TRANSCENDENTAL else 1
        atol = 1e-6 if name in ("gelu", "gelu_grad") else 1e-37
        for ai, attrs in enumerate(ATTRS.get(name, [{}])):
            for size in (1, 7, 1023):
                cases.append(_op_case(f"{name}{ai}_f32_{size}", name, attrs, _inputs(name, rng, (size,)),
                                      ulps=ulps, atol=atol))
        if len(op.inputs) >= 2:  # broadcasting: decoded coordinates
            shapes = [(5, 1, 33), (7, 1)] if len(op.inputs) == 2 else [(5, 7, 1), (1, 33), (7, 33)]
            xs = [_inputs(name, rng, s)[i] for i, s in enumerate(shapes)]
            cases.append(_op_case(f"{name}_bcast", name, {}, xs, ulps=ulps, atol=atol))
        first = ATTRS.get(name, [{}])[0]
        cases.append(_op_case(f"{name}_f64", name, first, _inputs(name, rng, (131,), np.float64),
                              ulps=ulps, atol=atol))
        cases.append(_op_case(f"{name}_f16", name, first, _inputs(name, rng, (77,), np.float16),
                              rtol=2e-3, atol=1e-3))
        if name not in INT_SKIP:
            ints = _inputs(name, rng, (65,), np.int32)
            cases.append(_op_case(f"{name}_i32", name, first, ints, ulps=ulps, atol=1e-6))
            if len(op.inputs) == 2:  # a weak Python int operand adopts the tensor's dtype
                cases.append(_case(f"{name}_i32_scalar", lambda v, _op=op: bind(_op, v, 3), [ints[0]], ulps=ulps))
        cases.append(_op_case(f"{name}_bool", name, first, _inputs(name, rng, (37,), np.bool_), ulps=ulps, atol=1e-6))
    # promotion and special values
    rng = np.random.default_rng(5)
    x = rng.integers(-5, 5, 19).astype(np.int32)
    cases.append(_case("promote_int_scalars", lambda v: (F.mul(v, 2.5), F.add(v, 3), F.div(v, 2)), [x]))
    special = np.array([0.0, -0.0, 1e-40, -1e-40, np.inf, -np.inf, np.nan, 88.0, 89.0, -87.0, -104.0,
                        1e30, -1e30, 3.4e38, 1.0, -1.0, 1e-8, 20.0, -20.0], np.float32)
    for name in ["exp", "tanh", "sigmoid", "erf", "softplus", "relu", "neg", "abs", "floor", "ceil", "sign",
                 "isfinite", "isnan", "isinf", "maximum", "minimum"]:
        xs = [special] * len(REGISTRY[name].inputs)
        if len(xs) == 2:
            xs = [special, special[::-1].copy()]
        cases.append(_op_case(f"{name}_special", name, {}, xs, ulps=4))
    for name in ["log", "sqrt", "log1p"]:
        cases.append(_op_case(f"{name}_special", name, {}, [np.abs(special)], ulps=4))
    return cases


def reduction_cases():
    cases = []
    rng = np.random.default_rng(1)
    shapes_axes = [((257, 33), 1), ((257, 33), 0), ((7, 9, 11), (0, 2)), ((5, 6, 7), (1,)), ((1001,), None),
                   ((3, 1, 4), 1), ((2, 3, 4, 5), (0, 2, 3)), ((300000,), None), ((40000, 3), 0),
                   ((3, 40000), 1), ((6, 1, 1), None)]
    for name in REDUCTIONS:
        for si, (shape, axis) in enumerate(shapes_axes):
            for dtype in (np.float32, np.float64, np.float16, np.int32):
                if np.dtype(dtype) != np.float32 and si not in (0, 1, 2, 4):
                    continue
                if name == "reduce_prod" and np.dtype(dtype).kind in "iu":
                    continue
                if name == "reduce_prod":
                    x = rng.uniform(0.9, 1.1, shape).astype(dtype)
                elif np.dtype(dtype).kind in "iu":
                    x = rng.integers(-50, 50, shape).astype(dtype)
                else:
                    x = rng.standard_normal(shape).astype(dtype)
                for keep in (False, True):
                    if keep and si % 3:
                        continue
                    tol = dict(rtol=1e-5, atol=1e-5) if name != "reduce_prod" else dict(rtol=1e-4, atol=1e-6)
                    if dtype == np.float16:
                        tol = dict(rtol=2e-3, atol=2e-3, wide_oracle=True)
                    cid = f"{name}_{'x'.join(map(str, shape))}_ax{axis}_{np.dtype(dtype).name}{'_keep' if keep else ''}"
                    cases.append(_case(cid, lambda v, _n=name, _a=axis, _k=keep: bind(REGISTRY[_n], v, axis=_a, keep_dims=_k),
                                       [x], **tol))
        if name in ("reduce_max", "reduce_min"):
            b = rng.random((37, 5)) > 0.7
            cases.append(_case(f"{name}_bool", lambda v, _n=name: bind(REGISTRY[_n], v, axis=1), [b]))
            nan = rng.standard_normal((4, 9)).astype(np.float32)
            nan[1, 3] = np.nan
            nan[2, 0] = np.nan
            cases.append(_case(f"{name}_nan_row", lambda v, _n=name: bind(REGISTRY[_n], v, axis=1), [nan]))
            cases.append(_case(f"{name}_nan_col", lambda v, _n=name: bind(REGISTRY[_n], v, axis=0), [nan]))
    return cases


def fused_cases():
    """Chains with broadcasting, intermediates stored for later kernels, and trailing reductions."""
    rng = np.random.default_rng(2)
    x = rng.standard_normal((64, 130)).astype(np.float32)
    b = rng.standard_normal((130,)).astype(np.float32)
    cases = [
        _case("bias_relu_rowsum", lambda u, v: F.reduce_sum(F.relu(F.add(u, v)), axis=1), [x, b], rtol=1e-5, atol=1e-5),
        _case("softmax_pieces", lambda u: (F.exp(F.sub(u, 1.0)), F.reduce_sum(F.exp(F.sub(u, 1.0)), axis=1)), [x],
              rtol=1e-5, atol=1e-5),
        _case("stored_intermediate", lambda u, v: _stored(u, v), [x, b], rtol=1e-5, atol=1e-5),
        _case("mean_of_square_col", lambda u: F.reduce_mean(F.square(F.mul(u, 0.5)), axis=0), [x], rtol=1e-5, atol=1e-6),
        _case("chain_1e5", lambda u: F.tanh(F.add(F.mul(F.sigmoid(u), 2.0), F.exp(F.neg(F.abs(u))))),
              [rng.standard_normal(100_003).astype(np.float32)], ulps=8, atol=1e-7),
        _case("where_cast_chain", lambda u, v: F.cast(F.where(F.greater(u, v), F.mul(u, 3.0), F.neg(F.add(u, v))), dtype=F16),
              [x, b], rtol=1e-3, atol=1e-3),
    ]
    return cases


def _stored(u, v):
    h = F.relu(F.add(u, v))
    return h, F.reduce_max(F.mul(h, 2.0), axis=1)


def all_cases():
    return [c for c in elementwise_cases() + reduction_cases() + fused_cases() if c is not None]
