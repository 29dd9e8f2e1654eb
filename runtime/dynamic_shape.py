"""Declared dynamic shapes, as MindSpore 2.x declares them: ``Symbol``, dynamic-shape placeholder
tensors (``Tensor(shape=[None, 784], dtype=ms.float32)``), and the check of a call's arguments
against declared inputs (``Cell.set_inputs``, ``jit(input_signature=...)``).

A placeholder holds no data: its ``_data`` is a :class:`DynamicShapeSpec` (shape with ``-1`` for
each dynamic dimension, as MindSpore reports it, dtype, and the declared dimensions). A call whose
arguments do not match the declaration (rank, dtype, a static dimension, a Symbol's range,
divisor or remainder, equal lengths of a ``unique`` Symbol) raises ValueError naming the argument,
the declared and the actual shape. Graph mode reads the declarations to compile a declared dim
once for all its lengths (``capture.dynamic``).

Example:
    >>> import runtime as ms
    >>> s = ms.Symbol(max=64, divisor=8)
    >>> p = ms.Tensor(shape=[None, s], dtype=ms.float32)
    >>> p.shape
    (-1, -1)
    >>> check_inputs((p,), (ms.Tensor(np.zeros((3, 16), np.float32)),), "Net.set_inputs")
    >>> check_inputs((p,), (ms.Tensor(np.zeros((3, 12), np.float32)),), "Net.set_inputs")
    Traceback (most recent call last):
    ...
    ValueError: Net.set_inputs: argument 0 has shape (3, 12), which does not match the declared shape [None, Symbol(max=64, divisor=8)]: dim 1 (12) is not a multiple of 8 plus 0
"""
from __future__ import annotations

import numpy as np

from graph.dtypes import DType


class Symbol:
    """``Symbol(max=0, min=1, divisor=1, remainder=0, unique=False)``: a dynamic dimension with
    known facts: ``min <= n``, ``n <= max`` when ``max > min``, ``n == divisor * N + remainder``;
    with ``unique=True`` every dimension declared with this Symbol has the same length."""

    __slots__ = ("max", "min", "divisor", "remainder", "unique")

    def __init__(self, max=0, min=1, divisor=1, remainder=0, unique=False, **kwargs):  # noqa: A002 - MindSpore's names
        if kwargs:
            raise TypeError(f"Symbol: unknown argument(s) {sorted(kwargs)}")
        for name, v in (("max", max), ("min", min), ("divisor", divisor), ("remainder", remainder)):
            if not isinstance(v, int) or isinstance(v, bool):
                raise TypeError(f"Symbol: {name} must be an int, got {type(v).__name__}")
        if not isinstance(unique, bool):
            raise TypeError(f"Symbol: unique must be a bool, got {type(unique).__name__}")
        if min <= 0:
            raise ValueError(f"Symbol: min must be positive, got {min}")
        if divisor <= 0:
            raise ValueError(f"Symbol: divisor must be positive, got {divisor}")
        if not 0 <= remainder < divisor:
            raise ValueError(f"Symbol: remainder must be in [0, {divisor}), got {remainder}")
        self.max, self.min, self.divisor, self.remainder, self.unique = max, min, divisor, remainder, unique

    def violation(self, n: int) -> str | None:
        """Why the length ``n`` is not allowed by this Symbol, else None."""
        if n < self.min:
            return f"is below min={self.min}"
        if self.max > self.min and n > self.max:
            return f"is above max={self.max}"
        if self.divisor > 1 or self.remainder:
            if n % self.divisor != self.remainder or n < self.divisor + self.remainder:
                return f"is not a multiple of {self.divisor} plus {self.remainder}"
        return None

    def __repr__(self):
        parts = [f"{k}={getattr(self, k)!r}" for k, d in (("max", 0), ("min", 1), ("divisor", 1), ("remainder", 0),
                                                         ("unique", False)) if getattr(self, k) != d]
        return f"Symbol({', '.join(parts)})"


def is_dynamic_dim(d) -> bool:
    return d is None or isinstance(d, Symbol)


def is_dynamic_shape(shape) -> bool:
    """Whether a ``shape=`` given to ``Tensor`` declares a dynamic dimension (None or a Symbol)."""
    return isinstance(shape, (tuple, list)) and any(is_dynamic_dim(d) for d in shape)


class DynamicShapeSpec:
    """What a dynamic-shape placeholder Tensor holds instead of data."""

    __slots__ = ("dims", "np_dtype")

    def __init__(self, shape, dtype):
        dims = []
        for d in shape:
            if is_dynamic_dim(d):
                dims.append(d)
            elif isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d >= 0:
                dims.append(int(d))
            else:
                raise ValueError(f"Tensor: shape must hold non-negative ints, None or Symbol, got {list(shape)!r}")
        self.dims = tuple(dims)
        if dtype is None:
            raise ValueError("Tensor: a dynamic-shape placeholder (shape with None/Symbol) needs a dtype")
        if not isinstance(dtype, DType):
            raise TypeError(f"Tensor: dtype must be a mindspore dtype, got {type(dtype).__name__}")
        self.np_dtype = np.dtype(dtype.np)

    @property
    def shape(self) -> tuple:
        return tuple(-1 if is_dynamic_dim(d) else d for d in self.dims)

    @property
    def dtype(self):
        return self.np_dtype

    @property
    def ndim(self) -> int:
        return len(self.dims)

    def declared(self) -> str:
        return "[" + ", ".join("None" if d is None else repr(d) for d in self.dims) + "]"

    def __array__(self, *args, **kwargs):
        raise TypeError(f"a dynamic-shape placeholder Tensor(shape={self.declared()}) has no data; it only "
                        "declares the inputs of Cell.set_inputs / jit(input_signature=...)")

    def __getattr__(self, name):
        # (any other use of the "array": numpy functions, arithmetic, printing values)
        raise TypeError(f"a dynamic-shape placeholder Tensor(shape={self.declared()}) has no data "
                        f"(asked for .{name}); it only declares inputs for set_inputs / input_signature")


#: called when a declaration changes (capture registers one: jitted calls repeated in C go the
#: Python way again, where arguments are checked against the new declaration)
ON_DECLARATIONS_CHANGED: list = []


def declarations_changed() -> None:
    for callback in ON_DECLARATIONS_CHANGED:
        callback()


def spec_of(tensor) -> DynamicShapeSpec | None:
    """The declaration a placeholder Tensor holds, or None for a tensor with data."""
    data = getattr(tensor, "_data", None)
    return data if type(data) is DynamicShapeSpec else None


def _declared_shape(decl) -> str:
    spec = spec_of(decl)
    return spec.declared() if spec is not None else str(list(decl.shape))


def parameter_names(fn, skip_self: bool):
    """The positional parameter names of ``fn`` (without ``self``), for messages; () if unknown."""
    code = getattr(getattr(fn, "__wrapped_jit__", fn), "__code__", None)
    if code is None:
        return ()
    names = code.co_varnames[:code.co_argcount]
    return names[1:] if skip_self and names and names[0] == "self" else names


def check_inputs(declared, args, what: str, names=()) -> None:
    """Raise ValueError when ``args`` (a call's positional arguments) do not match ``declared``
    (placeholders and Tensors; None: that argument is not declared); ``names``: the parameters'
    names, which messages use."""
    from .tensor import Tensor
    if len(args) != len(declared):
        raise ValueError(f"{what}: {len(declared)} input(s) were declared, the call gives {len(args)}")
    unique_lengths: dict = {}
    for i, (decl, arg) in enumerate(zip(declared, args)):
        if decl is None:
            continue
        label = f"argument {i} ({names[i]})" if i < len(names) else f"argument {i}"
        if not isinstance(arg, Tensor):
            raise ValueError(f"{what}: {label} was declared a Tensor of shape {_declared_shape(decl)}, "
                             f"got {type(arg).__name__}")
        spec = spec_of(decl)
        dims = spec.dims if spec is not None else tuple(decl.shape)
        want_dtype = spec.np_dtype if spec is not None else decl._data.dtype
        shape = tuple(arg.shape)
        head = (f"{what}: {label} has shape {shape}, which does not match the declared shape "
                f"{_declared_shape(decl)}")
        if len(shape) != len(dims):
            raise ValueError(f"{head}: rank {len(shape)} instead of {len(dims)}")
        if np.dtype(arg._data.dtype) != want_dtype:
            raise ValueError(f"{what}: {label} has dtype {arg.dtype}, declared "
                             f"{Tensor._wrap(np.zeros(0, want_dtype)).dtype}")
        for axis, (d, n) in enumerate(zip(dims, shape)):
            if d is None:
                continue
            if isinstance(d, Symbol):
                why = d.violation(n)
                if why is not None:
                    raise ValueError(f"{head}: dim {axis} ({n}) {why}")
                if d.unique:
                    first = unique_lengths.setdefault(id(d), (n, i, axis))
                    if first[0] != n:
                        raise ValueError(f"{head}: dim {axis} ({n}) and dim {first[2]} of argument {first[1]} "
                                         f"({first[0]}) share a unique Symbol, so must be equal")
            elif d != n:
                raise ValueError(f"{head}: dim {axis} is {n}, declared {d}")


def dynamic_dims(declared) -> dict:
    """{(argument index, dim): the Symbol or None} of the dims ``declared`` leaves open."""
    out = {}
    for i, decl in enumerate(declared):
        spec = spec_of(decl) if decl is not None else None
        if spec is not None:
            for axis, d in enumerate(spec.dims):
                if is_dynamic_dim(d):
                    out[(i, axis)] = d
    return out
