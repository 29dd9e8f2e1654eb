"""CUDA C implementation of graph/ops/emit.py's scalar-expression interface.

The GPU twin of :mod:`codegen.cpu.emitter`: each elementwise op's ``expr(E, *xs)`` builds its
result from these primitives, so an op has one definition of its semantics for every backend.
Values are :class:`CV` (a C expression - a literal, an operand or a temporary - and its numpy
compute dtype). Every non-trivial primitive becomes a ``const`` temporary (``lines``), so shared
subexpressions are computed once and the text grows linearly with the expression.

Numerics follow the LLVM emitter exactly where C allows: float16 is computed in float32, bools are
``bool`` in registers (``unsigned char`` in memory), integer floor division and modulo are exact
integer arithmetic, true division of integers and the math functions compute in float32, NaN propagates through max/min (``fmaxf`` would drop it), ``ne`` is unordered,
float-to-bool is ``x != 0`` (NaN is true). Math functions are CUDA's (``expf``, ``erff``...), which
are also the C99 names, so the generated text compiles on the host too (tests run it there).

Example:
    >>> import numpy as np
    >>> from graph.ops import REGISTRY
    >>> E = CUDAEmitter()
    >>> r = REGISTRY["relu"].expr(E, CV("x", np.float32))
    >>> E.lines, r.c
    (['const float t0 = ((x > 0x0.0p+0f || x != x) ? x : 0x0.0p+0f);'], 't0')
"""
from __future__ import annotations

import math

import numpy as np

from ..emit_rules import EmitterRules
from ..fused_plan import compute_dtype, np_dtype

BOOL = np.dtype(np.bool_)
FLOAT32 = np.dtype(np.float32)
FLOAT64 = np.dtype(np.float64)
INT64 = np.dtype(np.int64)

_REG_TYPES = {
    "b1": "bool", "u1": "unsigned char", "i1": "signed char", "i2": "short", "i4": "int",
    "i8": "long long", "u2": "unsigned short", "u4": "unsigned int", "u8": "unsigned long long",
    "f4": "float", "f8": "double",
}


def c_type(dt) -> str:
    """C type of a value of compute dtype ``dt`` in registers."""
    dt = np.dtype(dt)
    try:
        return _REG_TYPES[f"{dt.kind}{dt.itemsize}"]
    except KeyError:
        raise NotImplementedError(f"codegen.cuda: no C type for dtype {dt}") from None


def storage_type(dt) -> str:
    """C type of an element of storage dtype ``dt`` in memory (bool: a byte, float16: its bits)."""
    dt = np.dtype(dt)
    if dt == np.bool_:
        return "unsigned char"
    if dt == np.float16:
        return "unsigned short"
    return c_type(dt)


def literal(v, dt) -> str:
    """A C literal of value ``v`` in compute dtype ``dt`` (floats as exact hex literals)."""
    dt = np.dtype(dt)
    if dt == np.bool_:
        return "true" if bool(v) else "false"
    if dt.kind == "f":
        v = float(v)
        suffix = "F" if dt == np.float32 else "D"
        if math.isnan(v):
            return f"MSJIT_NAN_{suffix}"
        if math.isinf(v):
            return f"MSJIT_INF_{suffix}" if v > 0 else f"(-MSJIT_INF_{suffix})"
        if dt == np.float32:
            # the float32 value (rounded from the double as llvmlite's constants are), exactly
            return float(np.float32(v)).hex() + "f"
        return v.hex()
    v = int(v)
    if dt.itemsize == 8:
        # the most negative int64 has no literal of its own
        return f"({v + 1}LL - 1)" if v == np.iinfo(np.int64).min else (f"{v}LL" if dt.kind == "i" else f"{v}ULL")
    if dt == np.int32:
        return f"({v + 1} - 1)" if v == np.iinfo(np.int32).min else str(v)
    return f"(({c_type(dt)}){v})"


def convert(c: str, src, dst) -> str:
    """C expression converting ``c`` of compute dtype ``src`` to ``dst`` (numpy casting rules)."""
    src, dst = np.dtype(src), np.dtype(dst)
    if src == dst:
        return c
    if dst == np.bool_:
        return f"({c} != {literal(0, src)})"
    if src.kind == "f" and dst.kind in "iu":
        # as numpy on x86-64 and the LLVM emitter: truncate into a 32-bit integer (64-bit for
        # 8-byte results), NaN and out-of-range values giving its minimum, then the low bits
        # (a plain C conversion of such values is undefined)
        wide = INT64 if dst.itemsize == 8 else np.dtype(np.int32)
        limit = literal(2.0 ** (wide.itemsize * 8 - 1), src)
        return (f"(({c_type(dst)})(({c} >= -{limit} && {c} < {limit}) ? ({c_type(wide)})({c}) : "
                f"{literal(int(np.iinfo(wide).min), wide)}))")
    return f"(({c_type(dst)})({c}))"


class CV:
    """A C value: expression text ``c`` (a literal, an operand name or a temporary) and its
    numpy compute dtype."""

    __slots__ = ("c", "dt")

    def __init__(self, c: str, dt):
        self.c = c
        self.dt = np.dtype(dt)

    @property
    def dtype(self):
        return self.dt

    def __repr__(self):
        return f"CV({self.c}: {self.dt})"


_MATH = {  # primitive -> (float32 function, float64 function)
    "exp": ("expf", "exp"), "log": ("logf", "log"), "log1p": ("log1pf", "log1p"),
    "tanh": ("tanhf", "tanh"), "erf": ("erff", "erf"), "sin": ("sinf", "sin"), "cos": ("cosf", "cos"),
    "sqrt": ("sqrtf", "sqrt"), "floor": ("floorf", "floor"), "ceil": ("ceilf", "ceil"),
    "fabs": ("fabsf", "fabs"), "pow": ("powf", "pow"),
}


class CUDAEmitter(EmitterRules):
    """Emitter writing C statements into ``lines``; ``dtype`` is the default for ``const``
    without ``like``. ``prefix`` keeps temporaries of several emitters in one scope apart."""

    def __init__(self, dtype=np.float32, prefix="t"):
        self.dtype = compute_dtype(dtype)
        self.prefix = prefix
        self.lines: list[str] = []
        self._n = 0

    # -- helpers --------------------------------------------------------------------------------
    def temp(self, expr: str, dt) -> CV:
        """``const T tN = expr;`` -> the temporary."""
        name = f"{self.prefix}{self._n}"
        self._n += 1
        self.lines.append(f"const {c_type(dt)} {name} = {expr};")
        return CV(name, dt)

    def wrap(self, x, like_dt=None) -> CV:
        if isinstance(x, CV):
            return x
        if isinstance(x, (bool, np.bool_)):
            return self.const(bool(x), dtype=BOOL)
        dt = like_dt if like_dt is not None else (self.dtype if isinstance(x, float) else INT64)
        return self.const(x, dtype=dt)

    def to(self, x: CV, dt) -> CV:
        """``x`` as a value of dtype ``dt``, held in its compute dtype; float16 values are rounded
        to float16 here, as the LLVM emitter does (exact for a value that already is one)."""
        want = np_dtype(dt)
        dt = compute_dtype(want)
        if want == np.float16 and x.dt == FLOAT64:  # one rounding, as numpy (prelude)
            return self.temp(f"msjit_h2f(msjit_d2h({x.c}))", dt)
        if want == np.float16 and x.dt != BOOL:
            return self.temp(f"msjit_h2f(msjit_f2h({convert(x.c, x.dt, dt)}))", dt)
        if x.dt == dt:
            return x
        return self.temp(convert(x.c, x.dt, dt), dt)

    def _unify(self, *xs):
        cvs = [x for x in xs if isinstance(x, CV)]
        if not cvs:
            dt = self.dtype
        else:
            dt = cvs[0].dt
            for x in cvs[1:]:
                if x.dt != dt:
                    dt = np.result_type(dt, x.dt)
        dt = compute_dtype(dt)
        return [self.to(self.wrap(x, dt), dt) for x in xs], dt

    def _floatify(self, x) -> CV:
        x = self.wrap(x)
        return self.to(x, FLOAT32) if x.dt.kind != "f" else x

    def _call(self, prim, x: CV, *more: CV) -> CV:
        fn = _MATH[prim][0 if x.dt == np.float32 else 1]
        return self.temp(f"{fn}({', '.join(v.c for v in (x,) + more)})", x.dt)

    # -- primitives -----------------------------------------------------------------------------
    def const(self, v, like=None, dtype=None) -> CV:
        if dtype is None:
            dtype = like.dt if isinstance(like, CV) else (
                compute_dtype(like.dtype) if hasattr(like, "dtype") else self.dtype)
        if np_dtype(dtype) == np.float16 and not isinstance(v, (bool, np.bool_)):
            with np.errstate(over="ignore"):
                v = float(np.float16(v))  # a float16 constant holds a float16 value
        dt = compute_dtype(dtype)
        return CV(literal(v, dt), dt)

    def _arith(self, sym, bool_sym, x, y):
        (x, y), dt = self._unify(x, y)
        if dt == np.bool_:
            return self.temp(f"({x.c} {bool_sym} {y.c})", dt)
        return self.temp(f"({x.c} {sym} {y.c})", dt)

    def add(self, x, y):
        return self._arith("+", "||", x, y)

    def sub(self, x, y):
        return self._arith("-", "!=", x, y)

    def mul(self, x, y):
        return self._arith("*", "&&", x, y)

    def div(self, x, y):
        (x, y), dt = self._unify(x, y)
        if dt.kind != "f":
            x, y = self.to(x, FLOAT32), self.to(y, FLOAT32)
        return self.temp(f"({x.c} / {y.c})", x.dt)

    # -- floor division and modulo (dispatched by codegen/emit_rules.py) ----------------------------
    def _int_divmod(self, x, y, dt):
        """Exact integer floor division, as the LLVM emitter: C's / and % truncate toward zero, so
        a nonzero remainder whose sign differs from the divisor's moves the quotient down by one.
        Divisors that trap (0, and -1 under the most negative dividend) become 1 first; the latter
        then gives numpy's wrapped quotient (MIN) and remainder 0 as they stand."""
        ct = c_type(dt)
        zero, one = literal(0, dt), literal(1, dt)
        by_zero = self.temp(f"({y.c} == {zero})", BOOL)
        if dt.kind == "u":
            ys = self.temp(f"({by_zero.c} ? {one} : {y.c})", dt)
            q = self.temp(f"(({ct})({x.c} / {ys.c}))", dt)
            r = self.temp(f"(({ct})({x.c} % {ys.c}))", dt)
        else:
            lo = literal(int(np.iinfo(dt).min), dt)
            ys = self.temp(f"(({by_zero.c} || ({x.c} == {lo} && {y.c} == {literal(-1, dt)})) ? {one} : {y.c})", dt)
            q0 = self.temp(f"(({ct})({x.c} / {ys.c}))", dt)
            r0 = self.temp(f"(({ct})({x.c} % {ys.c}))", dt)
            adjust = self.temp(f"({r0.c} != {zero} && (({r0.c} < {zero}) != ({ys.c} < {zero})))", BOOL)
            q = self.temp(f"({adjust.c} ? ({ct})({q0.c} - {one}) : {q0.c})", dt)
            r = self.temp(f"({adjust.c} ? ({ct})({r0.c} + {ys.c}) : {r0.c})", dt)
        q = self.temp(f"({by_zero.c} ? {zero} : {q.c})", dt)
        r = self.temp(f"({by_zero.c} ? {literal(int(np.iinfo(dt).max), dt)} : {r.c})", dt)
        return q, r

    def _float_divmod(self, x, y, dt):
        """numpy's npy_divmod, as the LLVM emitter: the remainder from fmod (exact), the quotient
        (x - mod) / y snapped to the nearest integer, both moved to Python's sign convention;
        y == 0 gives x / y and fmod's NaN."""
        f = "f" if dt == np.float32 else ""
        zero, one, half = literal(0.0, dt), literal(1.0, dt), literal(0.5, dt)
        a, d = x.c, y.c
        mod0 = self.temp(f"fmod{f}({a}, {d})", dt)
        div0 = self.temp(f"(({a} - {mod0.c}) / {d})", dt)
        nonzero = self.temp(f"({mod0.c} != {zero})", BOOL)  # NaN counts as nonzero
        adjust = self.temp(f"({nonzero.c} && (({d} < {zero}) != ({mod0.c} < {zero})))", BOOL)
        mod = self.temp(f"({adjust.c} ? {mod0.c} + {d} : ({nonzero.c} ? {mod0.c} : copysign{f}({zero}, {d})))", dt)
        div = self.temp(f"({adjust.c} ? {div0.c} - {one} : {div0.c})", dt)
        fl = self.temp(f"floor{f}({div.c})", dt)
        fl = self.temp(f"(({div.c} - {fl.c}) > {half} ? {fl.c} + {one} : {fl.c})", dt)
        quotient = self.temp(f"({a} / {d})", dt)
        fl = self.temp(f"({div.c} != {zero} ? {fl.c} : copysign{f}({zero}, {quotient.c}))", dt)
        q = self.temp(f"({d} == {zero} ? {quotient.c} : {fl.c})", dt)
        return q, mod

    def neg(self, x):
        x = self.wrap(x)
        if x.dt == np.bool_:
            return x  # as LLVM's i1 negation: -1 == 1 (mod 2)
        return self.temp(f"(-{x.c})", x.dt)

    def abs(self, x):
        x = self.wrap(x)
        if x.dt.kind == "f":
            return self._call("fabs", x)
        if x.dt.kind in "ub":
            return x
        return self.temp(f"({x.c} < 0 ? -{x.c} : {x.c})", x.dt)

    def _unary_math(self, name, x):
        return self._call(name, self._floatify(x))

    def exp(self, x):
        return self._unary_math("exp", x)

    def log(self, x):
        return self._unary_math("log", x)

    def log1p(self, x):
        return self._unary_math("log1p", x)

    def tanh(self, x):
        return self._unary_math("tanh", x)

    def erf(self, x):
        return self._unary_math("erf", x)

    def sin(self, x):
        return self._unary_math("sin", x)

    def cos(self, x):
        return self._unary_math("cos", x)

    def sqrt(self, x):
        return self._unary_math("sqrt", x)

    def floor(self, x):
        x = self.wrap(x)
        return self._call("floor", x) if x.dt.kind == "f" else x

    def ceil(self, x):
        x = self.wrap(x)
        return self._call("ceil", x) if x.dt.kind == "f" else x

    def _minmax(self, x, y, sym):
        (x, y), dt = self._unify(x, y)
        if dt.kind == "f":  # a NaN in either operand is the result (as llvm.maximum / numpy)
            return self.temp(f"(({x.c} {sym} {y.c} || {x.c} != {x.c}) ? {x.c} : {y.c})", dt)
        return self.temp(f"({x.c} {sym} {y.c} ? {x.c} : {y.c})", dt)

    def max(self, x, y):
        return self._minmax(x, y, ">")

    def min(self, x, y):
        return self._minmax(x, y, "<")

    def pow(self, x, y):
        """``x ** y`` in the unified dtype (powers by a constant exponent that have a cheaper form
        were rewritten before any backend: graph/passes/simplify.py's ``reduce_strength``)."""
        (x, y), dt = self._unify(x, y)
        if dt.kind in "iu":  # exact, wrapping, as numpy (prelude's msjit_ipow)
            wide = "unsigned long long" if dt.itemsize == 8 else "unsigned int"
            return self.temp(f"msjit_ipow<{c_type(dt)}, {wide}>({x.c}, {y.c})", dt)
        if dt.kind != "f":
            xf, yf = self.to(x, FLOAT64), self.to(y, FLOAT64)
            return self.to(self._call("pow", xf, yf), dt)
        return self._call("pow", x, y)

    def _cmp(self, x, y, sym):
        (x, y), _ = self._unify(x, y)
        return self.temp(f"({x.c} {sym} {y.c})", BOOL)

    def lt(self, x, y):
        return self._cmp(x, y, "<")

    def le(self, x, y):
        return self._cmp(x, y, "<=")

    def gt(self, x, y):
        return self._cmp(x, y, ">")

    def ge(self, x, y):
        return self._cmp(x, y, ">=")

    def eq(self, x, y):
        return self._cmp(x, y, "==")

    def ne(self, x, y):
        return self._cmp(x, y, "!=")  # C's != is unordered: true when either side is NaN

    def _bool(self, x) -> CV:
        if not isinstance(x, CV):  # a Python scalar's truth, exactly (1e-308 is not a float32 0)
            return self.const(bool(x), dtype=BOOL)
        return self.to(x, BOOL)

    def and_(self, x, y):
        return self.temp(f"({self._bool(x).c} && {self._bool(y).c})", BOOL)

    def or_(self, x, y):
        return self.temp(f"({self._bool(x).c} || {self._bool(y).c})", BOOL)

    def not_(self, x):
        return self.temp(f"(!{self._bool(x).c})", BOOL)

    def select(self, c, x, y):
        c = self._bool(c)
        (x, y), dt = self._unify(x, y)
        return self.temp(f"({c.c} ? {x.c} : {y.c})", dt)

    def cast(self, x, dtype):
        return self.to(self.wrap(x), np_dtype(dtype))


from graph.ops.emit import PRIMITIVES  # noqa: E402

_missing = [p for p in PRIMITIVES if not hasattr(CUDAEmitter, p)]
assert not _missing, f"CUDAEmitter lacks primitives {_missing}"
