"""A stand-in for CuPy that runs on numpy: "device" arrays that numpy refuses, as CuPy's are.

It lets the GPU code paths of the runtime and the ops' ``impl(xp, ...)`` run on a machine without
a GPU and tells where they would break on CuPy:

* :class:`DeviceArray` wraps a numpy array but is not one. Like a CuPy array, numpy functions
  refuse it (``np.exp(d)``, ``np.asarray(d)`` raise TypeError: implicit host conversion); its
  operators, indexing and methods work. ``.get()`` copies to the host.
* :data:`xp` is the module. Every function, ufunc method, submodule and array method used is
  recorded in :data:`USED` (``"xp.take_along_axis"``, ``"ndarray.astype"``, ``"xp.add.at"``...),
  so a test can check that CuPy has each of them (``hasattr(cupy, ...)``: CuPy imports without a
  GPU); names numpy lacks fail at once.

What it cannot tell: numerical differences of CuPy's kernels, and functions that exist in both
with different semantics. Those need a device (tests marked for one skip without it).

Example:
    >>> import numpy as np
    >>> from device_standin import xp, DeviceArray
    >>> d = xp.asarray(np.arange(3.0)); (d * 2).get().tolist()
    [0.0, 2.0, 4.0]
    >>> try: np.exp(d)
    ... except TypeError as e: print("refused")
    refused
"""
from __future__ import annotations

import importlib
import sys
import types

import numpy as np

#: names used through the stand-in: "xp.<name>", "xp.<sub>.<name>", "xp.<ufunc>.<method>", "ndarray.<method>"
USED: set = set()


class HostConversion(TypeError):
    """numpy was handed a device array (CuPy raises TypeError there too)."""


def _unwrap(x):
    if isinstance(x, DeviceArray):
        return x._a
    if isinstance(x, (list, tuple)):
        t = [_unwrap(v) for v in x]
        return type(x)(t) if not hasattr(x, "_fields") else type(x)(*t)
    if isinstance(x, dict):
        return {k: _unwrap(v) for k, v in x.items()}
    if isinstance(x, np.ndarray) and x.dtype != object:
        # CuPy refuses host arrays as operands of device functions: only scalars may come from the host
        raise HostConversion(f"a host numpy array {x.dtype}{list(x.shape)} was passed where a device array "
                             "is needed (CuPy refuses it: move it with xp.asarray first)")
    return x


def _wrap(x):
    if isinstance(x, np.ndarray):
        return DeviceArray(x)
    if isinstance(x, np.generic) and not isinstance(x, (np.str_, np.bytes_)):
        return DeviceArray(np.asarray(x))  # CuPy reductions give 0-d device arrays, not scalars
    if isinstance(x, tuple):
        return tuple(_wrap(v) for v in x)
    if isinstance(x, list):
        return [_wrap(v) for v in x]
    return x


class DeviceArray:
    """A numpy array behind a wall: numpy refuses it, its own methods and operators work."""

    __slots__ = ("_a",)
    __array_priority__ = 1000

    def __init__(self, a):
        self._a = a

    # numpy may not touch it, as with CuPy
    def __array__(self, *args, **kwargs):
        raise HostConversion("Implicit conversion to a NumPy array is not allowed (device array); use .get()")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        raise HostConversion(f"numpy.{ufunc.__name__}.{method} called on a device array (call xp.{ufunc.__name__})")

    def __array_function__(self, func, types_, args, kwargs):
        raise HostConversion(f"numpy.{func.__name__} called on a device array (call xp.{func.__name__})")

    def get(self):
        return self._a.copy()

    # metadata
    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    itemsize = property(lambda self: self._a.itemsize)
    nbytes = property(lambda self: self._a.nbytes)
    strides = property(lambda self: self._a.strides)
    flags = property(lambda self: self._a.flags)
    T = property(lambda self: DeviceArray(self._a.T))
    real = property(lambda self: DeviceArray(self._a.real))
    imag = property(lambda self: DeviceArray(self._a.imag))

    @property
    def base(self):
        return None if self._a.base is None else _wrap(self._a.base)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        fn = getattr(self._a, name)  # AttributeError for names numpy arrays lack
        USED.add(f"ndarray.{name}")
        if not callable(fn):
            return _wrap(fn)

        def method(*args, **kwargs):
            return _wrap(fn(*_unwrap(args), **_unwrap(kwargs)))
        return method

    def __len__(self):
        return len(self._a)

    def __iter__(self):
        return iter([_wrap(v) for v in self._a])

    def __getitem__(self, index):
        return _wrap(self._a[_unwrap_index(index)])

    def __setitem__(self, index, value):
        self._a[_unwrap_index(index)] = _unwrap(value)

    def __bool__(self):
        return bool(self._a)

    def __float__(self):
        return float(self._a)

    def __int__(self):
        return int(self._a)

    def __index__(self):
        return self._a.__index__()

    def __repr__(self):
        return f"device({self._a!r})"

    def __hash__(self):
        raise TypeError("unhashable type: device array")


def _unwrap_index(index):
    if isinstance(index, DeviceArray):
        return index._a
    if isinstance(index, tuple):
        return tuple(_unwrap_index(i) for i in index)
    return index  # lists of ints, slices, None, Ellipsis: as CuPy


def _binary(name):
    op = getattr(np.ndarray, name)

    def f(self, other):
        if isinstance(other, np.ndarray):
            raise HostConversion(f"device array {name} a host numpy array")
        return _wrap(op(self._a, _unwrap(other)))
    f.__name__ = name
    return f


def _unary(name):
    op = getattr(np.ndarray, name)

    def f(self):
        return _wrap(op(self._a))
    f.__name__ = name
    return f


for _n in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
           "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__", "__rpow__", "__matmul__", "__rmatmul__",
           "__and__", "__rand__", "__or__", "__ror__", "__xor__", "__rxor__", "__lt__", "__le__", "__gt__", "__ge__",
           "__eq__", "__ne__", "__iadd__", "__isub__", "__imul__", "__itruediv__", "__lshift__", "__rshift__"):
    setattr(DeviceArray, _n, _binary(_n))
for _n in ("__neg__", "__pos__", "__abs__", "__invert__"):
    setattr(DeviceArray, _n, _unary(_n))


class _Callable:
    """A numpy function or ufunc seen through the stand-in (its methods recorded too)."""

    def __init__(self, fn, path):
        self._fn, self._path = fn, path

    def __call__(self, *args, **kwargs):
        return _wrap(self._fn(*_unwrap(args), **_unwrap(kwargs)))

    def __getattr__(self, name):
        attr = getattr(self._fn, name)
        USED.add(f"{self._path}.{name}")
        if callable(attr):
            return _Callable(attr, f"{self._path}.{name}")
        return attr


class _Indexable:
    """``xp.ogrid``/``xp.mgrid``/``xp.r_``: index expressions giving device arrays."""

    def __init__(self, obj):
        self._obj = obj

    def __getitem__(self, key):
        return _wrap(self._obj[key])


_PASSTHROUGH = (type, np.dtype)  # dtypes and scalar types are CuPy's too (cupy.float32 is numpy.float32)


class _Module:
    def __init__(self, mod, path):
        self._mod, self._path = mod, path

    def __getattr__(self, name):
        if name == "ndarray" and self._path == "xp":
            return DeviceArray
        attr = getattr(self._mod, name)
        USED.add(f"{self._path}.{name}")
        if isinstance(attr, types.ModuleType):
            return _Module(attr, f"{self._path}.{name}")
        if not isinstance(attr, _PASSTHROUGH) and hasattr(type(attr), "__getitem__"):
            return _Indexable(attr)
        if isinstance(attr, _PASSTHROUGH) or not callable(attr):
            return attr
        return _Callable(attr, f"{self._path}.{name}")


class _StandInModule(_Module):
    """The stand-in array module: ``xp.asarray``/``xp.array`` move host data to the "device"."""

    def __init__(self):
        super().__init__(np, "xp")
        self.ndarray = DeviceArray
        self.__name__ = "device_standin"

    def asarray(self, a, dtype=None, order=None):
        USED.add("xp.asarray")
        if isinstance(a, DeviceArray):
            return a if dtype is None or a.dtype == dtype else DeviceArray(a._a.astype(dtype))
        return DeviceArray(np.array(_unwrap_host(a), dtype=dtype, order=order, copy=True))

    def array(self, a, dtype=None, copy=True, order="K", ndmin=0):
        USED.add("xp.array")
        src = a._a if isinstance(a, DeviceArray) else _unwrap_host(a)
        return DeviceArray(np.array(src, dtype=dtype, copy=True, order=order, ndmin=ndmin))

    def ascontiguousarray(self, a, dtype=None):
        USED.add("xp.ascontiguousarray")
        return DeviceArray(np.ascontiguousarray(_unwrap(a), dtype=dtype))


def _unwrap_host(a):
    """Host data for asarray: numpy arrays, scalars and (nested) lists of them; device arrays
    inside a list are refused (CuPy builds arrays from host data or from one device array)."""
    if isinstance(a, (list, tuple)):
        return [_unwrap_host(v) for v in a]
    if isinstance(a, DeviceArray):
        raise HostConversion("a list containing device arrays (use xp.stack)")
    return a


xp = _StandInModule()


def _special_erf(x):
    """erf of a device array (CuPy: cupyx.scipy.special.erf)."""
    import math
    USED.add("cupyx.scipy.special.erf")
    a = _unwrap(x)
    try:
        from scipy.special import erf
        r = erf(a).astype(a.dtype, copy=False)
    except ImportError:
        r = np.vectorize(math.erf, otypes=[np.float64])(a).astype(a.dtype)
    return _wrap(r)


#: stands for ``cupyx.scipy.special`` (graph.ops.emit.SPECIAL_FUNCTIONS maps the stand-in here)
special = types.ModuleType("device_standin_special")
special.erf = _special_erf
sys.modules["device_standin_special"] = special


def missing_on(cupy, used=None) -> list:
    """The recorded names that ``cupy`` lacks (``xp.foo`` -> ``cupy.foo``, ``ndarray.m`` ->
    ``cupy.ndarray.m``, ``xp.add.at`` -> ``cupy.add.at``)."""
    missing = []
    for name in sorted(used if used is not None else USED):
        head, *rest = name.split(".")
        if head == "cupyx":  # a function of a cupyx submodule: import the module, look it up
            try:
                obj = importlib.import_module(".".join([head] + rest[:-1]))
            except ImportError:
                missing.append(name)
                continue
            rest = rest[-1:]
        else:
            obj = cupy.ndarray if head == "ndarray" else cupy
        for part in rest:
            if not hasattr(obj, part):
                missing.append(name)
                break
            obj = getattr(obj, part)
    return missing
