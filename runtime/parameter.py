"""Parameter: a named, trainable Tensor owned by a Cell.

Example:
    >>> import runtime as ms
    >>> p = ms.Parameter(ms.Tensor([1.0, 2.0]), name="w")
    >>> p
    Parameter (name=w, shape=(2,), dtype=Float32, requires_grad=True)
    >>> p.set_data(ms.Tensor([3.0, 4.0])).asnumpy()
    array([3., 4.], dtype=float32)
"""
from __future__ import annotations

import threading

from . import device as _device
from .tensor import Tensor, _to_array


class _ValueReads(threading.local):
    #: > 0 while a trace runs framework code natively (capture.builder.lifting_parameters): a
    #: Parameter's value read into Python then would be the trace-time value, frozen into the graph
    blocked = 0


VALUE_READS = _ValueReads()


class ParameterReadDuringTrace(RuntimeError):
    """A Parameter's value was read into Python by code run natively during a trace."""


def _check_value_read(param, how):
    if VALUE_READS.blocked:
        raise ParameterReadDuringTrace(
            f"{how} of Parameter {param.name} would read its value at trace time; the call runs eagerly")


class Parameter(Tensor):
    """``Parameter(default_input, name=None, requires_grad=True)``.

    ``default_input`` is a Tensor, array, scalar or an initializer result. A missing name is filled
    in from the attribute a Cell assigns it to (prefixed by the path of sub-Cells).
    """

    __slots__ = ("name", "requires_grad", "layerwise_parallel", "_named")

    def __init__(self, default_input, name=None, requires_grad=True, layerwise_parallel=False):
        if isinstance(default_input, Parameter):
            arr = default_input._data.copy()
        else:
            arr = _to_array(default_input, None)  # (an array is copied there)
            if arr is getattr(default_input, "_data", None):
                arr = arr.copy()  # a Parameter owns its storage
            if not isinstance(default_input, Tensor):
                arr = _device.place(arr)  # data from the host lands on the context's device
        self._data = arr
        if name is not None and not isinstance(name, str):
            raise TypeError(f"Parameter: name must be a str, got {type(name).__name__}")
        if not isinstance(requires_grad, bool):
            raise TypeError(f"Parameter: requires_grad must be a bool, got {requires_grad!r}")
        self.name = name or "Parameter"
        self._named = name is not None
        self.requires_grad = requires_grad
        self.layerwise_parallel = layerwise_parallel

    @property
    def data(self) -> "Parameter":
        return self

    def value(self) -> Tensor:
        return Tensor._wrap(self._data)

    def set_data(self, data, slice_shape=False) -> "Parameter":
        """Replace the value (same shape unless it was a scalar); returns self."""
        arr = data._data if isinstance(data, Tensor) else _to_array(data, None)
        if _device.GPU.active and _device.device_of(arr) != _device.device_of(self._data):
            arr = _device.to_device(arr, _device.device_of(self._data))  # a Parameter keeps its device
        if tuple(arr.shape) != tuple(self._data.shape) and self._data.ndim != 0:
            raise ValueError(f"Parameter {self.name}: set_data with shape {tuple(arr.shape)} "
                             f"does not match the parameter's shape {tuple(self._data.shape)}")
        if arr.dtype != self._data.dtype:
            arr = arr.astype(self._data.dtype)
        self._data = arr.copy() if arr is getattr(data, "_data", None) else arr
        return self

    def clone(self, init="same") -> "Parameter":
        return Parameter(Tensor._wrap(self._data.copy()), name=self.name, requires_grad=self.requires_grad)

    # Reads of the value into Python (float(), int(), item(), tolist() go through asnumpy)
    def asnumpy(self):
        _check_value_read(self, "asnumpy()")
        return Tensor.asnumpy(self)

    numpy = asnumpy

    def __array__(self, dtype=None, copy=None):
        _check_value_read(self, "numpy.asarray()")
        return Tensor.__array__(self, dtype)

    def __bool__(self) -> bool:
        _check_value_read(self, "bool()")
        return Tensor.__bool__(self)

    def __repr__(self) -> str:
        return (f"Parameter (name={self.name}, shape={tuple(self.shape)}, dtype={self.dtype}, "
                f"requires_grad={self.requires_grad})")

    def __reduce__(self):
        return (Parameter, (self.asnumpy(), self.name, self.requires_grad))

    def __deepcopy__(self, memo):
        p = Parameter(Tensor._wrap(self._data.copy()), name=self.name, requires_grad=self.requires_grad)
        memo[id(self)] = p
        return p


class ParameterTuple(tuple):
    """A tuple of Parameters (MindSpore's ``ParameterTuple``)."""

    def __new__(cls, params):
        params = tuple(params)
        for p in params:
            if not isinstance(p, Parameter):
                raise TypeError(f"ParameterTuple: elements must be Parameters, got {type(p).__name__}")
        return super().__new__(cls, params)

    def clone(self, prefix, init="same"):
        out = []
        for p in self:
            c = p.clone(init)
            c.name = f"{prefix}.{p.name}"
            if init == "zeros":
                c._data = _device.module_of(c._data).zeros_like(c._data)
            out.append(c)
        return ParameterTuple(out)
