"""The scalar-expression interface elementwise ops are written against (``Op.expr``).

An elementwise op's ``expr(E, *xs, **attrs)`` builds its result from the primitives below; every
backend supplies an emitter ``E`` with these methods (LLVM IR on the CPU, CUDA C on the GPU). The
:class:`NumpyEmitter` evaluates an expression on arrays: tests use it to check each op's ``expr``
against its ``impl``, so the two spellings of one op cannot drift apart.

Primitives: const(v, like) add sub mul div neg abs exp log log1p sqrt tanh erf sin cos floor ceil
max min pow lt le gt ge eq ne and_ or_ not_ select(cond, a, b) cast(x, dtype) floor_div floor_mod.

``floor_div``/``floor_mod`` are Python's ``//`` and ``%`` on the operands' common dtype, as numpy
computes them: exact integer arithmetic for ints (never through a float), numpy's fmod-based
``divmod`` for floats. Division by zero (integers): ``x // 0`` is 0 (numpy; MindSpore documents
nothing) and ``x % 0`` is the dtype's maximum (MindSpore's ``floor_mod`` documents it); the most
negative value ``// -1`` wraps to itself, ``% -1`` is 0. Floats: IEEE (``x // 0`` is ``x / 0``,
``x % 0`` is NaN). See docs/numerics.md.

Example:
    >>> import numpy as np
    >>> from graph.ops import REGISTRY
    >>> from graph.ops.emit import NumpyEmitter
    >>> E = NumpyEmitter(np.float32)
    >>> REGISTRY["sigmoid"].expr(E, np.array([0.0], np.float32))
    array([0.5], dtype=float32)
"""
from __future__ import annotations

import numpy as np

from . import special

#: names every emitter must implement
PRIMITIVES = ("const", "add", "sub", "mul", "div", "neg", "abs", "exp", "log", "log1p", "sqrt",
              "tanh", "erf", "sin", "cos", "floor", "ceil", "max", "min", "pow", "lt", "le", "gt",
              "ge", "eq", "ne", "and_", "or_", "not_", "select", "cast", "floor_div", "floor_mod")


_scipy_erf = None  # scipy.special.erf once looked up (False: scipy is not installed)


def _find_scipy_erf():
    """scipy's erf ufunc, imported on first use: importing scipy.special costs ~0.4 s and loads a
    second OpenBLAS with its own threads, so ``import runtime`` must not do it."""
    global _scipy_erf
    if _scipy_erf is None:
        try:
            from scipy.special import erf
            _scipy_erf = erf
        except ImportError:  # pragma: no cover - depends on the environment
            _scipy_erf = False
    return _scipy_erf


#: array module name -> the module holding its scipy.special functions (CuPy ships them in cupyx)
SPECIAL_FUNCTIONS = {"cupy": "cupyx.scipy.special"}


def erf_array(xp, x):
    """erf on an array of the array module ``xp`` (numpy or cupy), keeping the dtype."""
    if xp is not np:
        import importlib
        return importlib.import_module(SPECIAL_FUNCTIONS[xp.__name__]).erf(x)
    x = np.asarray(x)
    erf = _find_scipy_erf()
    if erf:  # a C ufunc where scipy is installed (as before)
        return erf(x).astype(x.dtype, copy=False)
    # numpy has no erf: fdlibm's algorithm on whole arrays, in float64 and rounded once (within
    # 1 ulp of math.erf, and so of scipy's; float32 results equal both; see graph.ops.special)
    return special.erf(x).astype(x.dtype, copy=False)


def _erf(x):
    return erf_array(np, x)


def floor_div_array(xp, x, y):
    """``x // y`` with the semantics of the ``floor_div`` primitive (see the module docstring)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return xp.floor_divide(x, y)


def floor_mod_array(xp, x, y):
    """``x % y`` with the semantics of the ``floor_mod`` primitive: numpy's remainder, except that
    an integer ``x % 0`` is the dtype's maximum (MindSpore's documented ``floor_mod`` result)
    where numpy gives 0."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        r = xp.remainder(x, y)
    dt = getattr(r, "dtype", None)
    if dt is not None and dt.kind in "iu":  # both operands are integers
        zero = xp.asarray(y) == 0
        if zero.any():
            r = xp.where(zero, xp.asarray(np.iinfo(dt).max, dtype=dt), r)
    return r


class NumpyEmitter:
    """Reference emitter: evaluates an elementwise expression on numpy arrays."""

    def __init__(self, dtype=np.float32):
        self.dtype = np.dtype(dtype)

    def const(self, v, like=None):
        dt = like.dtype if like is not None and hasattr(like, "dtype") else self.dtype
        return np.asarray(v, dtype=dt)

    add = staticmethod(np.add)
    sub = staticmethod(np.subtract)
    mul = staticmethod(np.multiply)
    neg = staticmethod(np.negative)
    abs = staticmethod(np.abs)
    exp = staticmethod(np.exp)
    log = staticmethod(np.log)
    log1p = staticmethod(np.log1p)
    sqrt = staticmethod(np.sqrt)
    tanh = staticmethod(np.tanh)
    sin = staticmethod(np.sin)
    cos = staticmethod(np.cos)
    floor = staticmethod(np.floor)
    ceil = staticmethod(np.ceil)
    max = staticmethod(np.maximum)
    min = staticmethod(np.minimum)
    pow = staticmethod(np.power)
    lt = staticmethod(np.less)
    le = staticmethod(np.less_equal)
    gt = staticmethod(np.greater)
    ge = staticmethod(np.greater_equal)
    eq = staticmethod(np.equal)
    ne = staticmethod(np.not_equal)
    and_ = staticmethod(np.logical_and)
    or_ = staticmethod(np.logical_or)
    not_ = staticmethod(np.logical_not)

    def div(self, a, b):
        return np.true_divide(a, b)

    def erf(self, x):
        return _erf(x)

    def select(self, c, a, b):
        return np.where(c, a, b)

    def cast(self, x, dtype):
        return np.asarray(x).astype(dtype.np if hasattr(dtype, "np") else dtype)

    def floor_div(self, x, y):
        return floor_div_array(np, x, y)

    def floor_mod(self, x, y):
        return floor_mod_array(np, x, y)
