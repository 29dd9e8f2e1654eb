"""Random draws with no tensor operand: standard_normal, uniform_real, uniform_int.

They draw from the one op stream (:mod:`graph.ops.rng`, seeded by ``ms.set_seed``) on the host, so a
seeded run gives the same numbers in PyNative, in graph mode and on every backend. Inside a
captured graph they are nodes like any other random op: each run of the compiled graph draws anew
(see ``core.operandless_draws_to`` for how a draw with no operand reaches the graph builder).

``seed``/``seed2`` are MindSpore's Primitive attributes; they are accepted and validated, and the
numbers come from the global stream.

Example:
    >>> from graph.ops import REGISTRY
    >>> REGISTRY["standard_normal"].prim, REGISTRY["standard_normal"].call_attrs
    ('StandardNormal', ('shape',))
"""
from __future__ import annotations

import numpy as np

from ..aval import AVal
from ..dtypes import float32, int32
from . import rng
from .core import RANDOM, REQUIRED, Attr, Op, a_dtype, a_int, a_nonneg_int, a_size, fail, register


def _a_float_dtype(v, op, name):
    dt = a_dtype(v, op, name)
    if not dt.is_float:
        fail(op.name, f"{name} must be a floating-point dtype, got {dt}", TypeError)
    return dt


def _a_int_dtype(v, op, name):
    dt = a_dtype(v, op, name)
    if not dt.is_int:
        fail(op.name, f"{name} must be an integer dtype, got {dt}", TypeError)
    return dt


def _a_bound(v, op, name):
    """An int bound, also from a 0-d integer tensor (read at trace time)."""
    if hasattr(v, "shape") and hasattr(v, "item") and tuple(v.shape) in ((), (1,)):
        v = v.item()
    return a_int(v, op, name)


SEEDS = {"seed": Attr(0, a_nonneg_int), "seed2": Attr(0, a_nonneg_int)}


def _standard_normal_impl(xp, shape, seed=0, seed2=0, dtype=float32):
    draw = rng.generator().standard_normal(shape, dtype=np.float64 if dtype.np == np.float64 else np.float32)
    return xp.asarray(draw.astype(dtype.np, copy=False))


def _uniform_real_impl(xp, shape, seed=0, seed2=0, dtype=float32):
    draw = rng.generator().random(shape, dtype=np.float64 if dtype.np == np.float64 else np.float32)
    return xp.asarray(draw.astype(dtype.np, copy=False))


def _infer_uniform_int(shape, low, high, seed=0, seed2=0, dtype=int32):
    if low >= high:
        fail("uniform_int", f"minval {low} must be less than maxval {high}")
    return AVal(shape, dtype)


def _uniform_int_impl(xp, shape, low, high, seed=0, seed2=0, dtype=int32):
    _infer_uniform_int(shape, low, high)
    return xp.asarray(rng.generator().integers(low, high, size=shape, dtype=np.int64).astype(dtype.np))


register(Op("standard_normal", prim="StandardNormal", inputs=(), impl=_standard_normal_impl,
            infer=lambda shape, seed=0, seed2=0, dtype=float32: AVal(shape, dtype),
            kind=RANDOM, nondiff="a random draw has no gradient", call_attrs=("shape",),
            attrs={"shape": Attr(REQUIRED, a_size), **SEEDS, "dtype": Attr(float32, _a_float_dtype)},
            doc="samples of N(0, 1) of the given shape"))
register(Op("uniform_real", prim="UniformReal", inputs=(), impl=_uniform_real_impl,
            infer=lambda shape, seed=0, seed2=0, dtype=float32: AVal(shape, dtype),
            kind=RANDOM, nondiff="a random draw has no gradient", call_attrs=("shape",),
            attrs={"shape": Attr(REQUIRED, a_size), **SEEDS, "dtype": Attr(float32, _a_float_dtype)},
            doc="samples of U[0, 1) of the given shape"))
register(Op("uniform_int", prim="UniformInt", inputs=(), impl=_uniform_int_impl, infer=_infer_uniform_int,
            kind=RANDOM, nondiff="a random draw has no gradient", call_attrs=("shape", "low", "high"),
            attrs={"shape": Attr(REQUIRED, a_size), "low": Attr(REQUIRED, _a_bound),
                   "high": Attr(REQUIRED, _a_bound), **SEEDS, "dtype": Attr(int32, _a_int_dtype)},
            doc="integers drawn uniformly from [low, high) of the given shape"))
