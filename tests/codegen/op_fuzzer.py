"""Differential op fuzzer: compiled kernels against eager, for every registry op with a codegen kind.

Every op whose ``kind`` is ``elementwise`` or ``reduction`` (enumerated from ``graph.ops.REGISTRY``,
never listed by hand), in every dtype (and, for binary ops, dtype pair) its shape inference
accepts, with every attribute value its checks allow (``a_dtype``: every dtype, ``a_oneof``: every
choice, bools both ways, floats a few values), is compiled into a kernel per **target**:

  * a path: the op ``alone``; in a fused ``chain`` (exact identities around it: ``neg(neg(x))`` in,
    ``neg`` out, so the bound stays the op's own); ``reduce`` (``reduce_sum``/``max``/``min`` of
    the op's result over the last axis, fused into the op's kernel);
  * a shape class: ``flat``, ``bcast`` (numpy broadcasting), ``empty``, ``zerod`` (0-d),
    ``noncontig`` (strided and transposed views), ``large`` (over the split threshold, so the
    kernel runs in parts on the thread pool), ``scalar`` (a Python scalar operand: a weak constant);
  * a backend: ``cpu`` (codegen/cpu, llvmlite) or ``cuda`` (codegen/cuda's C text compiled for
    the host, tests/codegen/cuda_host.py: no GPU needed; non-contiguous inputs do not apply there).

Reductions (reduce_sum/mean/max/min/prod) are targets themselves, over row, column, middle, all
and empty axes, with and without keep_dims.

A target is compiled once and fed many arrays; each array element is one value combination, a
**case**. Values mix fixed pools (integers: 0, +-1, each width's extremes and near-extremes, values
near 2**24 and 2**53; floats: +-0, +-inf, NaN, denormals, the largest and smallest normals, large
trig arguments, exp overflow/underflow points, negatives for log), uniformly random bit patterns
and moderate random values, so divisors of 0 and -1, NaN operands etc. occur in every batch.

A kernel is built from the graph as every pipeline level hands it to a backend (powers by a
constant exponent rewritten by graph/passes/simplify.py's strength pass; those exponents are always
among the ``scalar`` class's operands of ``pow``).

The oracle is eager execution: the ops' numpy impls run by the reference interpreter
(``graph.interpret``) on the same graph. Tolerances (:data:`ULP_BOUNDS`, docs/numerics.md):
integers and bools bit for bit; floats within a per-op ulp bound measured in the result dtype
(ordered bit distance, so +0 and -0 are 1 ulp apart and exact ops must match the sign of zero);
NaN where eager has NaN; reductions within the summation-order bound ``(n + ulps) * eps *
sum(|terms|)``.

Run:
    python -m pytest tests/codegen/test_op_fuzzer.py        # the CI sample (fixed seed, ~30 s)
    python -m tests.codegen.op_fuzzer --cases 1000000       # long mode (from the repo root)
    python -m tests.codegen.op_fuzzer --cases 50000 --ops mod,sin --backends cpu --seed 7
    MSJIT_FUZZ_CASES=1000000 python -m pytest tests/codegen/test_op_fuzzer.py -k long

The long mode prints, per backend and path, the cases compared and the mismatches, and exits 1
on any mismatch (each printed with op, dtypes, shape class and the first offending values).
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time
import zlib
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:  # run as ``python -m tests.codegen.op_fuzzer``: the helpers are siblings
    sys.path.insert(0, _HERE)
_ROOT = os.path.dirname(os.path.dirname(_HERE))
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from codegen_helpers import graph_of, one_kernel, rendered  # noqa: E402
from graph import dtypes as D  # noqa: E402
from graph.interpret import run as interpret  # noqa: E402
from graph.ops import REGISTRY, bind  # noqa: E402

ALL_DTYPES = [D.bool_, D.int8, D.int16, D.int32, D.int64, D.uint8, D.float16, D.float32, D.float64]
CODEGEN_KINDS = ("elementwise", "reduction")

#: float results: allowed distance in ulps of the result dtype, per op (ops not listed: 0, exact).
#: float16 results of listed ops: 1 (they are computed in float32 and rounded once, as numpy does).
#: Measured with this fuzzer over 1,000,000 cases; see docs/numerics.md.
ULP_BOUNDS = {
    "float32": {"exp": 2, "log": 3, "log1p": 2, "tanh": 3, "sin": 2, "cos": 2, "erf": 2,
                "sigmoid": 3, "softplus": 3, "gelu": 4, "gelu_grad": 4, "pow": 2, "reduce_mean": 1},
    "float64": {"exp": 1, "log": 1, "log1p": 1, "tanh": 2, "sin": 1, "cos": 1, "erf": 2,
                "sigmoid": 2, "softplus": 2, "gelu": 3, "gelu_grad": 3, "pow": 1, "reduce_mean": 1},
    # sigmoid/softplus: eager rounds each numpy step of the formula to float16 (up to ~1.5 ulp
    # off), compiled code rounds once
    "float16": {"exp": 1, "log": 1, "log1p": 1, "tanh": 1, "sin": 1, "cos": 1, "erf": 1,
                "sigmoid": 2, "softplus": 2, "gelu": 1, "gelu_grad": 1, "pow": 1, "reduce_mean": 1,
                # eager multiplies by alpha rounded to float16, compiled code by the float32 alpha
                "leaky_relu": 1,
                # eager rounds sqrt to float16 before taking the reciprocal; compiled code once
                "rsqrt": 1},
}
#: an absolute allowance (in units of the result dtype's eps) for ops whose formula cancels: gelu's
#: 0.5 * x * (1 + erf(x / sqrt 2)) for x << 0 loses all relative accuracy in eager itself (and
#: gelu_grad's Phi(x) + x phi(x) likewise; its tanh form's exp(-2|u|) for x << 0 scales the
#: rounding of u by 2|u|)
ABS_EPS = {"gelu": 4.0, "gelu_grad": 4.0, "softplus": 1.0}
#: ops whose absolute allowance scales with the magnitude (at least 1) of one operand: gelu_grad is
#: dout * gelu'(x), gelu'(x) computed to a few eps absolute (its O(1) terms cancel), then times dout
ABS_SCALED_BY = {"gelu_grad": 0}
#: ops whose zero result's sign is unspecified when the operands tie at +-0 (numpy's own loops
#: differ: its float16 maximum keeps the first operand, its float32 vector loop the second)
ZERO_SIGN_UNSPECIFIED = {"maximum", "minimum", "relu"}
#: Python scalar exponents of ``pow`` that graph/passes/simplify.py's ``reduce_strength`` writes as
#: other ops (for the operand dtypes that need no promotion); always fuzzed
STRENGTH_EXPONENTS = (2, 3, 1, 0.5, -1.0)


# -- values ------------------------------------------------------------------------------------------
def int_pool(dt: np.dtype) -> np.ndarray:
    info = np.iinfo(dt)
    mags = {0, 1, 2, 3, 5, 7, 10, 100, 127, 128, 255, 256, 2**15 - 1, 2**15, 2**16, 2**24 - 1, 2**24,
            2**24 + 1, 2**24 + 3, 2**31 - 1, 2**31, 2**32, 2**53 - 1, 2**53, 2**53 + 1, 2**62,
            info.max, info.max - 1, info.max - 2, info.max // 2 + 1}
    vals = {v for m in mags for v in (m, -m, info.min + m)}
    return np.array(sorted(v for v in vals if info.min <= v <= info.max), dtype=dt)


def float_pool(dt: np.dtype) -> np.ndarray:
    fi = np.finfo(dt)
    sub = float(fi.smallest_subnormal)
    trig = [math.pi, math.pi / 2, 3 * math.pi / 2, 1e5, 1e6, 12345.678, 1e10, 1e12, 1.1e14, 1e15,
            1e20, 1e30, 1e38, 1e100, 1e300, 2.0**62, 2.0**100]
    expo = [88.72, 88.73, 89.0, -87.3, -88.0, -103.0, -104.0, -105.0, 709.78, 710.0, -745.0, -746.0,
            11.08, 11.1, -16.0, -17.5, 9.0, -9.0, 20.0]
    base = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, 3.0, -3.0, 0.1, -0.1, 7.25, 1e-8, 1e-30, 1e-40,
            math.inf, -math.inf, math.nan, float(fi.max), -float(fi.max), float(fi.tiny),
            -float(fi.tiny), sub, -sub, 3 * sub, float(fi.tiny) / 3, float(fi.eps), 1.0 + float(fi.eps),
            1.0 - float(fi.epsneg), -1.0 + float(fi.epsneg), 16777216.0, 16777217.0, 2.0**53, 2.0**53 + 2,
            65504.0, 65520.0, -2.0, 0.7071067811865476, 1.0 / 3.0]
    vals = base + trig + [-t for t in trig] + expo
    with np.errstate(over="ignore", under="ignore"):
        arr = np.array(vals, np.float64).astype(dt)
    # distinct bit patterns (np.unique would merge -0.0 into 0.0)
    bits_dt = {2: np.uint16, 4: np.uint32, 8: np.uint64}[arr.dtype.itemsize]
    return np.unique(arr.view(bits_dt)).view(dt)


def draw(rng, dt: np.dtype, shape, pool_weight=0.5) -> np.ndarray:
    """Values of dtype ``dt``: pool values (``pool_weight``), uniformly random bits / full-range
    integers (a quarter), moderate magnitudes (the rest)."""
    dt = np.dtype(dt)
    n = int(np.prod(shape, dtype=np.int64))
    if dt == np.bool_:
        return (rng.random(n) < 0.5).reshape(shape)
    pool = int_pool(dt) if dt.kind in "iu" else float_pool(dt)
    kind = rng.random(n)
    out = pool[rng.integers(0, len(pool), n)]
    wild = kind >= pool_weight
    if dt.kind in "iu":
        info = np.iinfo(dt)
        full = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
        small = rng.integers(max(info.min, -40), min(info.max, 40), n, endpoint=True).astype(dt)
    else:
        bits_dt = {2: np.uint16, 4: np.uint32, 8: np.uint64}[dt.itemsize]
        full = rng.integers(0, np.iinfo(bits_dt).max, n, dtype=bits_dt, endpoint=True).view(dt)
        scale = 10.0 ** rng.uniform(-4, 4, n)
        with np.errstate(over="ignore"):
            small = (rng.standard_normal(n) * scale).astype(dt)
    out = np.where(wild & (kind < pool_weight + (1 - pool_weight) / 2), full, out)
    out = np.where(kind >= pool_weight + (1 - pool_weight) / 2, small, out)
    return out.astype(dt).reshape(shape)


# -- targets -----------------------------------------------------------------------------------------
@dataclass
class Target:
    op: str
    attrs: dict
    dtypes: tuple  # numpy dtypes of the tensor operands (where: the condition's is bool)
    shape_class: str
    path: str  # alone / chain / reduce_sum / reduce_max / reduce_min
    shapes: list = field(default_factory=list)
    scalar: object = None  # the Python scalar second operand of shape class "scalar"
    reduce_attrs: dict = field(default_factory=dict)  # reductions as targets: axis, keep_dims
    backend: str = "cpu"

    @property
    def id(self):
        dts = ",".join(np.dtype(d).name for d in self.dtypes)
        a = ",".join(f"{k}={getattr(v, 'name', v)}" for k, v in {**self.attrs, **self.reduce_attrs}.items())
        s = f"={self.scalar!r}" if self.shape_class == "scalar" else ""
        return f"{self.op}[{a}]({dts}) {self.shape_class}{s} {self.path}"


def codegen_ops():
    """Registry ops with a codegen kind, by name."""
    return sorted(n for n, op in REGISTRY.items() if op.kind in CODEGEN_KINDS)


def attr_variants(op):
    """Every attribute combination worth compiling, derived from the attributes' checks."""
    variants = [{}]
    for name, attr in (op.attrs or {}).items():
        if op.kind == "reduction" and name in ("axis", "keep_dims"):
            continue  # a reduction target's shape class sets them
        check = attr.check
        cname = getattr(check, "__name__", "")
        if cname == "a_dtype":
            values = ALL_DTYPES
        elif check is not None and check.__closure__ and cname == "check":
            values = [c for cell in check.__closure__ for c in (cell.cell_contents
                      if isinstance(cell.cell_contents, tuple) else ())]
        elif cname == "a_bool":
            values = [False, True]
        elif cname == "a_float":
            values = [attr.default, 0.01, -1.5]
        else:
            values = [attr.default]
        variants = [{**v, name: x} for v in variants for x in values]
    return variants


def _spec_graph(op, specs, attrs, scalar=None):
    if scalar is not None:
        return graph_of(lambda a: bind(op, a, scalar, **attrs), *specs)
    return graph_of(lambda *xs: bind(op, *xs, **attrs), *specs)


def accepts(op, dtypes, attrs, scalar=None) -> bool:
    """Shape inference (and for all ops, eager on two sample values) accepts these dtypes."""
    try:
        specs = [((2,), d) for d in dtypes]
        g = _spec_graph(op, specs, attrs, scalar)
        with np.errstate(all="ignore"):
            interpret(g, [np.ones(2, d) for d in dtypes])
        return True
    except (TypeError, ValueError, NotImplementedError):
        return False


#: pairs of different operand dtypes for binary ops (promotion inside the kernel)
MIXED_PAIRS = [(np.int32, np.float32), (np.float16, np.float32), (np.int8, np.int64), (np.uint8, np.int8),
               (np.bool_, np.float32), (np.int64, np.float64), (np.uint8, np.int16), (np.float16, np.int32)]
ELEMENTWISE_SHAPES = ("flat", "bcast", "empty", "zerod", "noncontig", "large", "scalar")
#: the paths each shape class is compiled on (every path on the flat class; each reduction kind on
#: a different layout, so the number of kernels stays linear in the number of op/dtype pairs)
PATHS_BY_SHAPE = {"flat": ("alone", "chain", "reduce_sum"), "bcast": ("alone", "chain", "reduce_max"),
                  "empty": ("alone", "chain"), "zerod": ("alone",), "noncontig": ("alone", "reduce_min"),
                  "large": ("alone", "reduce_sum"), "scalar": ("alone", "chain")}
REDUCTION_SHAPES = ("row", "column", "middle", "all", "keep", "empty_axis", "zerod", "large")


def operand_dtypes(op):
    """Operand dtype tuples: every dtype for each tensor operand alike, plus mixed pairs."""
    nin = len(op.inputs)
    out = []
    for d in ALL_DTYPES:
        dts = tuple(np.dtype(np.bool_) if i == "condition" else d.np for i in op.inputs)
        out.append(dts)
    if nin == 2:
        out += [(np.dtype(a), np.dtype(b)) for a, b in MIXED_PAIRS]
    elif op.name == "where":
        out += [(np.dtype(np.bool_), np.dtype(a), np.dtype(b)) for a, b in MIXED_PAIRS]
    return list(dict.fromkeys(out))


def shapes_for(shape_class, nin, batch, large):
    """Operand shapes (before views) of an elementwise target."""
    if shape_class == "flat":
        return [(batch,)] * nin
    if shape_class == "bcast":
        c = max(2, int(round(batch ** (1 / 3))))
        return [(c, 1, c + 1), (c + 2, 1), (1, c + 2, c + 1)][:nin] if nin > 1 else [(c, 1)]
    if shape_class == "empty":
        return [(3, 0)] + [(1, 0)] * (nin - 1) if nin > 1 else [(3, 0)]
    if shape_class == "zerod":
        return [()] * nin
    if shape_class == "noncontig":  # made into views by make_inputs: 1-D [::2] and transposes
        r = max(2, int(math.sqrt(batch)))
        return [(r + 1, r)] * nin
    if shape_class == "large":
        return [(large,)] * nin
    if shape_class == "scalar":
        return [(batch,)]
    raise ValueError(shape_class)


def elementwise_targets(names, backends, rng, batch, large):
    targets = []
    for name in names:
        op = REGISTRY[name]
        if op.kind != "elementwise":
            continue
        nin = len(op.inputs)
        for attrs in attr_variants(op):
            for dts in operand_dtypes(op):
                if not accepts(op, dts, attrs):
                    continue
                mixed = len(set(d for d, i in zip(dts, op.inputs) if i != "condition")) > 1
                for sc in ELEMENTWISE_SHAPES:
                    if mixed and sc not in ("flat", "bcast"):
                        continue
                    scalars = [None]
                    if sc == "scalar":
                        if nin != 2:
                            continue
                        d = dts[0]
                        pool = int_pool(d) if d.kind in "iu" else (float_pool(d) if d.kind == "f" else [True, False])
                        pick = [pool[i] for i in rng.choice(len(pool), size=min(3, len(pool)), replace=False)]
                        scalars = [(bool(v) if d == np.bool_ else (int(v) if d.kind in "iu" else float(v))) for v in pick]
                        scalars.append(2.5 if d.kind in "iu" else 3)  # an int scalar into floats, a float into ints
                        if name == "pow":  # the exponents the pipeline's strength pass rewrites
                            scalars += [y for y in STRENGTH_EXPONENTS if y not in scalars]
                    for scalar in scalars:
                        if scalar is not None and not accepts(op, dts[:1], attrs, scalar):
                            continue
                        for path in PATHS_BY_SHAPE[sc]:
                            for backend in backends:
                                if backend == "cuda" and sc == "noncontig":
                                    continue
                                t = Target(name, attrs, dts[:1] if scalar is not None else dts, sc, path,
                                           shapes_for(sc, 1 if scalar is not None else nin, batch, large), scalar)
                                t.backend = backend
                                targets.append(t)
    return targets


REDUCE_LAYOUTS = {  # shape class -> (shape maker, axis, keep_dims)
    "row": (lambda b: (max(2, b // 37), 37), -1, False),
    "column": (lambda b: (41, max(2, b // 41)), 0, False),
    "middle": (lambda b: (3, max(2, b // 15), 5), 1, False),
    "all": (lambda b: (b,), None, False),
    "keep": (lambda b: (7, max(2, b // 7)), (0,), True),
    "empty_axis": (lambda b: (4, 0), 1, False),
    "zerod": (lambda b: (), None, False),
    "large": (lambda b: (70_001,), None, False),
}


def reduction_targets(names, backends, batch):
    targets = []
    for name in names:
        op = REGISTRY[name]
        if op.kind != "reduction":
            continue
        for d in ALL_DTYPES:
            for sc, (mk, axis, keep) in REDUCE_LAYOUTS.items():
                shape = mk(batch)
                ra = {"axis": axis, "keep_dims": keep}
                try:
                    g = graph_of(lambda a: bind(op, a, **ra), (shape, d.np))
                    with np.errstate(all="ignore"):
                        interpret(g, [np.ones(shape, d.np)])
                except (TypeError, ValueError, NotImplementedError):
                    continue
                for backend in backends:
                    t = Target(name, {}, (d.np,), sc, "alone", [shape], reduce_attrs=ra)
                    t.backend = backend
                    targets.append(t)
    return targets


# -- graphs and inputs ---------------------------------------------------------------------------
def _identity_in(F, v):
    return F.logical_not(F.logical_not(v)) if v.dtype.is_bool else F.neg(F.neg(v))


def build_graph(t: Target):
    from graph.ops import F
    op = REGISTRY[t.op]
    specs = [(s, d) for s, d in zip(t.shapes, t.dtypes)]
    if t.shape_class == "noncontig":  # the kernel sees the views' logical shapes
        specs = [(_view_shape(s, i), d) for i, (s, d) in enumerate(specs)]

    def body(*xs):
        if op.kind == "reduction":
            return bind(op, xs[0], **t.reduce_attrs)
        if t.path == "chain":  # operands already of the result's shape (a fused kernel computes
            # every node at the kernel's shape; broadcast operands are read as they are)
            out_shape = np.broadcast_shapes(*[tuple(x.shape) for x in xs])
            xs = [_identity_in(F, x) if tuple(x.shape) == out_shape else x for x in xs]
        args = list(xs) + ([t.scalar] if t.scalar is not None else [])
        y = bind(op, *args, **t.attrs)
        if t.path == "chain":
            return F.logical_not(y) if y.dtype.is_bool else F.neg(y)
        if t.path.startswith("reduce"):
            axis = -1 if len(y.shape) else None
            return bind(REGISTRY[t.path], y, axis=axis)
        return y
    return graph_of(body, *specs, name="fuzz")


def _view_shape(shape, i):
    # operand i of a noncontig target: even operands are transposed (r+1, r) -> (r, r+1); odd
    # ones are every second row of a (2(r+1), r) base (shape (r+1, r)), then transposed
    return (shape[1], shape[0])


def make_inputs(t: Target, rng):
    """Input arrays of the target's graph (views for the noncontig class)."""
    arrays = []
    for i, (s, d) in enumerate(zip(t.shapes, t.dtypes)):
        if t.shape_class == "noncontig":
            if i % 2 == 0:
                arrays.append(draw(rng, d, s).T)
            else:
                base = draw(rng, d, (2 * s[0], s[1]))
                arrays.append(base[::2].T)
            continue
        arrays.append(draw(rng, d, s))
    if t.op == "pow" and t.dtypes and all(np.dtype(d).kind in "iub" for d in t.dtypes) and len(arrays) == 2:
        # eager refuses integer ** negative integer (ValueError); compiled code cannot raise, so the
        # fuzzer keeps exponents non-negative (docs/numerics.md)
        arrays[1] = np.abs(arrays[1]).astype(arrays[1].dtype)
        arrays[1] = np.where(arrays[1] < 0, 0, arrays[1]).astype(arrays[1].dtype)
    return arrays


# -- comparison ----------------------------------------------------------------------------------
def ordered_bits(a: np.ndarray) -> np.ndarray:
    """Float bits as integers in the floats' order (-0.0 just below +0.0): their difference is the
    distance in ulps."""
    a = np.asarray(a)
    idt = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
    b = a.view(idt).astype(np.int64)
    mag = b & np.int64(np.iinfo(idt).max)
    return np.where(b < 0, -mag - 1, mag)


def ulp_distance(got, want):
    with np.errstate(over="ignore"):
        return np.abs(ordered_bits(got) - ordered_bits(want)).astype(np.float64)


def op_bound(op_name, dt):
    dt = np.dtype(dt)
    return ULP_BOUNDS.get(dt.name, {}).get(op_name, 0)


@dataclass
class Mismatch:
    target: str
    count: int
    detail: str


def is_signaling_nan(a) -> np.ndarray:
    """NaNs whose quiet bit is clear (random bit patterns produce them)."""
    a = np.asarray(a)
    if a.dtype.kind != "f":
        return np.zeros(a.shape, bool)
    bits_dt = {2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize]
    quiet = bits_dt(1) << bits_dt(np.finfo(a.dtype).nmant - 1)
    bits = np.ascontiguousarray(a).view(bits_dt).reshape(a.shape)  # (ascontiguousarray makes 0-d 1-d)
    return np.isnan(a) & ((bits & quiet) == 0)


def unspecified(t, operands, shape):
    """Positions whose result is not specified (docs/numerics.md), or None: ``pow`` with a
    signaling NaN operand (``pow(sNaN, 0)`` is 1 or NaN depending on the library and on whether a
    load quieted it first: numpy's scalar and vector loops differ too)."""
    if t.op != "pow":
        return None
    mask = np.zeros(shape, bool)
    for a in operands:
        if isinstance(a, np.ndarray):
            mask |= np.broadcast_to(is_signaling_nan(a), shape)
    return mask


def compare_elementwise(t, got, want, inputs, skip=None):
    """(cases, mismatching count, detail) for an elementwise result; ``skip`` marks positions not
    compared (:func:`unspecified`)."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape or got.dtype != want.dtype:
        return want.size, max(want.size, 1), f"shape/dtype {got.shape} {got.dtype} vs eager {want.shape} {want.dtype}"
    if want.dtype.kind in "biu":
        bad = got != want
    else:
        nan_w, nan_g = np.isnan(want), np.isnan(got)
        bound = op_bound(t.op, want.dtype)
        if t.op in ZERO_SIGN_UNSPECIFIED:
            got, want = np.where(got == 0, 0, got).astype(want.dtype), np.where(want == 0, 0, want).astype(want.dtype)
        dist = ulp_distance(np.where(nan_g, 0, got).astype(want.dtype), np.where(nan_w, 0, want).astype(want.dtype))
        bad = (nan_w != nan_g) | (~nan_w & (dist > bound))
        if t.op in ABS_EPS and bad.any():
            eps = float(np.finfo(want.dtype).eps)
            allowed = ABS_EPS[t.op] * eps
            if t.op in ABS_SCALED_BY:
                operand = np.asarray(inputs[ABS_SCALED_BY[t.op]]).astype(np.float64)
                with np.errstate(invalid="ignore"):
                    allowed = allowed * np.maximum(np.abs(np.broadcast_to(operand, want.shape)), 1.0)
            close = np.abs(got.astype(np.float64) - want.astype(np.float64)) <= allowed
            bad &= ~(close & ~nan_w & ~nan_g)
    if skip is not None:
        bad &= ~skip
    n = int(bad.sum())
    return want.size, n, (_describe(bad, got, want, inputs) if n else "")


def _describe(bad, got, want, inputs):
    idx = np.argwhere(np.atleast_1d(bad))[:3]
    parts = []
    for ix in idx:
        ix = tuple(ix) if np.ndim(bad) else ()
        ins = []
        for a in inputs:
            a = np.asarray(a)
            try:
                b = np.broadcast_to(a, np.shape(bad))
                ins.append(repr(b[ix].item()))
            except ValueError:
                ins.append("(reduced)")
        parts.append(f"inputs {', '.join(ins)}: got {np.asarray(got)[ix]!r} eager {np.asarray(want)[ix]!r}")
    return "; ".join(parts)


def compare_reduction(kind, got, want, terms, n_reduced, ulps, abs_eps=0.0):
    """(cases, mismatches, skipped, detail) for a reduction result over ``terms`` (eager's values of
    the reduced elements, with the reduced axis last and all axes flattened). ``abs_eps``: the
    absolute allowance in eps, one number or one per result element."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape or got.dtype != want.dtype:
        return want.size, max(want.size, 1), 0, f"shape/dtype {got.shape} {got.dtype} vs eager {want.shape} {want.dtype}"
    g, w = got.reshape(-1), want.reshape(-1)
    terms = terms.reshape(w.size, -1) if w.size else terms.reshape(0, 1)
    if w.dtype.kind in "biu":
        bad = g != w
        return w.size, int(bad.sum()), 0, ("" if not bad.any() else f"got {g[bad][:3]} eager {w[bad][:3]}")
    tf = terms.astype(np.float64)
    has_nan = np.isnan(tf).any(axis=1)
    finite = np.where(np.isfinite(tf), tf, 0.0)
    eps = float(np.finfo(w.dtype).eps)
    top = float(np.finfo(w.dtype).max)
    skipped = np.zeros(w.size, bool)
    if kind in ("reduce_sum", "reduce_mean"):
        mag = np.abs(finite).sum(axis=1)
        skipped = ~has_nan & (mag > top)  # partial sums may overflow in an order-dependent way
        tol = (n_reduced + ulps + 1) * eps * mag
        if kind == "reduce_mean":
            tol = tol / max(n_reduced, 1) + ulps * np.spacing(np.abs(w).astype(w.dtype)).astype(np.float64)
    elif kind == "reduce_prod":
        with np.errstate(divide="ignore"):
            lg = np.log2(np.abs(finite))
        lg = np.where(np.isfinite(lg), lg, 0.0)
        lo, hi = math.log2(float(np.finfo(w.dtype).smallest_subnormal)), math.log2(top)
        # an intermediate product may over- or underflow in one order and not in another
        skipped = ~has_nan & ((np.where(lg > 0, lg, 0).sum(axis=1) > hi - 1) | (np.where(lg < 0, lg, 0).sum(axis=1) < lo + 24))
        tol = (n_reduced + ulps + 1) * eps * np.abs(w.astype(np.float64))
    else:  # max/min: the exact element
        tol = np.zeros(w.size)
    wv, gv = w.astype(np.float64), g.astype(np.float64)
    nan_w, nan_g = np.isnan(wv), np.isnan(gv)
    with np.errstate(invalid="ignore"):
        same_inf = np.isinf(wv) & (wv == gv)
        close = np.abs(gv - wv) <= tol
    if kind in ("reduce_max", "reduce_min"):
        # the sign of a zero extreme is unspecified (IEEE maxNum/minNum; numpy's own vector and
        # scalar loops differ on it): +0 and -0 tie
        gz, wz = np.where(nan_g | (g == 0), 0, g).astype(w.dtype), np.where(nan_w | (w == 0), 0, w).astype(w.dtype)
        close = ulp_distance(gz, wz) <= ulps
        if np.any(abs_eps):
            close |= np.abs(gv - wv) <= abs_eps * eps
    ok = (nan_w & nan_g) | (~nan_w & ~nan_g & (same_inf | close)) | skipped
    bad = ~ok
    detail = ""
    if bad.any():
        i = int(np.argmax(bad))
        shown = terms[i][:6]
        detail = f"terms {shown!r}{'...' if terms.shape[1] > 6 else ''}: got {g[i]!r} eager {w[i]!r} (tol {tol[i]:.3g})"
    return w.size, int(bad.sum()), int(skipped.sum()), detail


# -- running ---------------------------------------------------------------------------------------
class Compiled:
    """A target compiled for its backend: ``run(arrays) -> list of output arrays``."""

    def __init__(self, t, graph, index=0):
        self.t, self.graph = t, graph  # ``graph`` is eager's: the oracle
        # the kernel is built as every pipeline level hands the graph to a backend: with powers by
        # a constant exponent rewritten (graph/passes/simplify.py); the emitters only render
        graph = self.kernel_graph = rendered(graph)
        if t.backend == "cpu":
            from codegen import compile_schedule
            self.cg = compile_schedule(one_kernel(graph))
        else:
            from codegen.cuda.kernels import render
            from codegen.fused_plan import plan_fused
            # deterministic names: the same plan gives the same source, so the host library of a
            # chunk is found in cuda_host's build cache on the next run
            ident = f"z{index}_" + format(zlib.crc32(t.id.encode()), "x")
            self.plan = plan_fused(one_kernel(graph).kernels[0], ident)
            self.kernel = render(self.plan)
            self.module = None

    def run(self, arrays):
        if self.t.backend == "cpu":
            outs, _ = self.cg(arrays)
            return [np.asarray(o) for o in outs]
        import cuda_host
        graph = self.kernel_graph
        env = {id(v): a for v, a in zip(graph.inputs, arrays)}
        env.update({id(c): c.data for c in graph.consts})
        got = cuda_host.run_plan(self.plan, self.kernel, self.module, env)
        return [got[id(v)] for v in graph.outputs]


def build_cuda_modules(compiled, chunk=40):
    """Host-compile the CUDA targets' kernels, ``chunk`` kernels per shared library (one g++ run)."""
    import cuda_host
    cuda = [c for c in compiled if c.t.backend == "cuda"]
    for i in range(0, len(cuda), chunk):
        part = cuda[i:i + chunk]
        module = cuda_host.HostModule([c.kernel for c in part])
        for c in part:
            c.module = module


def _run_logged(c, rng, report, log):
    n = len(report.failures)
    run_target_once(c, rng, report)
    if log and len(report.failures) > n:
        m = report.failures[-1]
        log(f"MISMATCH {m.target}: {m.count} values; {m.detail}")


@dataclass
class Report:
    cases: Counter = field(default_factory=Counter)
    mismatches: Counter = field(default_factory=Counter)
    skipped: Counter = field(default_factory=Counter)
    failures: list = field(default_factory=list)
    unbuildable: list = field(default_factory=list)
    targets: int = 0

    def add(self, key, cases, bad, skipped=0):
        self.cases[key] += cases
        self.mismatches[key] += bad
        self.skipped[key] += skipped

    @property
    def total(self):
        return sum(self.cases.values())

    def summary(self):
        lines = [f"{'backend/path':<24}{'cases':>12}{'mismatches':>12}{'skipped':>10}"]
        for k in sorted(self.cases):
            lines.append(f"{k:<24}{self.cases[k]:>12}{self.mismatches[k]:>12}{self.skipped[k]:>10}")
        lines.append(f"{'total':<24}{self.total:>12}{sum(self.mismatches.values()):>12}{sum(self.skipped.values()):>10}")
        lines.append(f"targets (compiled kernels): {self.targets}")
        return "\n".join(lines)


def run_target_once(c: Compiled, rng, report: Report):
    t = c.t
    arrays = make_inputs(t, rng)
    with np.errstate(all="ignore"):
        want = interpret(c.graph, arrays)[0]
    if t.backend == "cuda":
        arrays = [np.ascontiguousarray(a).reshape(np.shape(a)) for a in arrays]  # (keeps 0-d 0-d)
    got = c.run(arrays)
    key = f"{t.backend}/{'reduction-op' if REGISTRY[t.op].kind == 'reduction' else t.path}"
    if REGISTRY[t.op].kind == "reduction" or t.path.startswith("reduce"):
        if REGISTRY[t.op].kind == "reduction":
            kind = t.op
            x = arrays[0]
            axis = t.reduce_attrs.get("axis")
            axes = tuple(range(x.ndim)) if axis is None else tuple(a % max(x.ndim, 1) for a in np.atleast_1d(axis))
            keep = [a for a in range(x.ndim) if a not in axes]
            terms = np.transpose(np.asarray(x), keep + list(axes)).reshape(
                int(np.prod([x.shape[a] for a in keep], dtype=np.int64)), -1) if x.ndim else np.asarray(x).reshape(1, 1)
            if x.dtype.kind in "iub" and kind == "reduce_mean":
                terms = terms.astype(np.float32)
            n = terms.shape[1]
            ulps = op_bound(t.op, want[0].dtype)
        else:
            kind = t.path
            alone = Target(t.op, t.attrs, t.dtypes, t.shape_class, "alone", t.shapes, t.scalar)
            with np.errstate(all="ignore"):
                y = interpret(build_graph(alone), arrays)[0][0]
            terms = np.asarray(y).reshape(-1, y.shape[-1] if y.ndim else 1)
            n = terms.shape[1]
            ulps = op_bound(t.op, y.dtype)
        abs_eps = ABS_EPS.get(t.op, 0.0)
        if t.op in ABS_SCALED_BY and REGISTRY[t.op].kind != "reduction":
            # each reduced element's allowance scales with its own operand (as compare_elementwise's):
            # a row's extreme is allowed the largest of its elements'
            operand = np.abs(np.broadcast_to(np.asarray(arrays[ABS_SCALED_BY[t.op]], np.float64), np.shape(y)))
            with np.errstate(invalid="ignore"):
                abs_eps = abs_eps * np.maximum(operand.reshape(terms.shape).max(axis=1, initial=1.0), 1.0)
        cases, bad, skipped, detail = compare_reduction(kind, got[0], want[0], terms, n, ulps, abs_eps)
    else:
        operands = arrays + ([t.scalar] if t.scalar is not None else [])
        skip = unspecified(t, operands, np.shape(want[0]))
        skipped = int(skip.sum()) if skip is not None else 0
        cases, bad, detail = compare_elementwise(t, got[0], want[0], operands, skip)
    report.add(key, cases, bad, skipped)
    if bad:
        report.failures.append(Mismatch(f"{t.backend} {t.id}", bad, detail))
    return cases


def plan_targets(ops=None, backends=("cpu", "cuda"), seed=0, batch=257, large=70_001, sample=None):
    """Every target (or a ``sample`` of that many, drawn with ``seed``, always keeping one
    flat-alone CPU target per op and dtype)."""
    rng = np.random.default_rng(seed)
    names = [n for n in codegen_ops() if ops is None or n in ops]
    targets = elementwise_targets(names, backends, rng, batch, large) + reduction_targets(names, backends, batch)
    if sample is not None and sample < len(targets):
        core = [t for t in targets if t.shape_class in ("flat", "all", "row") and t.path == "alone"
                and t.backend == "cpu"]
        seen, keep = set(), []
        for t in core:
            k = (t.op, t.dtypes, str(t.attrs))
            if k not in seen:
                seen.add(k)
                keep.append(t)
        kept = {id(t) for t in keep}
        rest = [t for t in targets if id(t) not in kept]
        extra = max(0, sample - len(keep))
        pick = rng.choice(len(rest), size=min(extra, len(rest)), replace=False)
        targets = keep + [rest[i] for i in sorted(pick)]
    return targets


def fuzz(cases=100_000, ops=None, backends=("cpu", "cuda"), seed=0, batch=257, sample=None, log=None,
         large=70_001):
    """Compile the targets, then feed them fresh random batches round-robin until ``cases`` value
    combinations were compared. Returns the :class:`Report`."""
    import cuda_host
    if "cuda" in backends and cuda_host.CXX is None:
        backends = tuple(b for b in backends if b != "cuda")
    report = Report()
    targets = plan_targets(ops, backends, seed, batch, large, sample)
    rng = np.random.default_rng(seed + 1)
    compiled = []
    t0 = time.time()
    # compile in chunks (one host compiler run per chunk of CUDA kernels) and run each chunk's
    # targets once at once: findings show up while the rest still compiles
    chunk = 40
    for i in range(0, len(targets), chunk):
        part = []
        for t in targets[i:i + chunk]:
            try:
                part.append(Compiled(t, build_graph(t), i + len(part)))
            except Exception as e:  # a kernel that cannot be built is a finding too
                report.unbuildable.append(f"{t.backend} {t.id}: {type(e).__name__}: {e}")
                if log:
                    log(f"UNBUILDABLE {report.unbuildable[-1]}")
        build_cuda_modules(part, chunk)
        for c in part:
            _run_logged(c, rng, report, log)
        compiled += part
        if log:
            log(f"compiled {len(compiled)}/{len(targets)} targets, {report.total} cases, "
                f"{sum(report.mismatches.values())} mismatches ({time.time() - t0:.0f}s)")
    report.targets = len(compiled)
    rounds = 1
    while report.total < cases and compiled:
        for c in compiled:
            # the large targets cost the most per run: every 8th round only
            if rounds % 8 and c.t.shape_class == "large":
                continue
            _run_logged(c, rng, report, log)
        rounds += 1
        if log:
            log(f"round {rounds}: {report.total} cases, {sum(report.mismatches.values())} mismatches "
                f"({time.time() - t0:.0f}s)")
        if report.total == 0:
            break
    return report


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cases", type=int, default=int(os.environ.get("MSJIT_FUZZ_CASES", 1_000_000)))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--ops", default=None, help="comma-separated op names (default: every codegen op)")
    p.add_argument("--backends", default="cpu,cuda")
    p.add_argument("--batch", type=int, default=257, help="elements per flat array")
    p.add_argument("--sample", type=int, default=None, help="compile only this many targets")
    a = p.parse_args(argv)
    ops = a.ops.split(",") if a.ops else None
    report = fuzz(a.cases, ops, tuple(a.backends.split(",")), a.seed, a.batch, a.sample,
                  log=lambda m: print(m, flush=True))
    print(report.summary())
    for m in report.failures[:500]:
        print(f"MISMATCH {m.target}: {m.count} values; {m.detail}")
    for u in report.unbuildable:
        print(f"UNBUILDABLE {u}")
    return 1 if report.failures or report.unbuildable else 0


if __name__ == "__main__":
    sys.exit(main())
