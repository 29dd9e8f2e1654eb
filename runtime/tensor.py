"""The eager Tensor: an array (numpy, or cupy on the GPU) plus the registry's operators.

Example:
    >>> import runtime as ms
    >>> x = ms.Tensor([1.0, 2.0, 3.0])
    >>> x + 1
    Tensor(shape=[3], dtype=Float32, value=[2., 3., 4.])
    >>> (x * x).sum().item()
    14.0
"""
from __future__ import annotations

import numbers

import numpy as np

from graph import dtypes as _dt
from graph.dtypes import DType, as_dtype, from_numpy
from graph.dtypes import _BY_NP as _DTYPE_OF_NUMPY

from . import context as _context
from . import device as _device
from . import dynamic_shape as _dynamic_shape
from .device import array_module, to_numpy
from .tensor_methods import TensorMethods


def _to_array(data, dtype: DType | None, copy: bool = True):
    """Convert user data to an array with MindSpore's default dtypes (float32 for Python floats).

    An array (or anything exposing ``__array__`` / ``__cuda_array_interface__``) is copied, as
    MindSpore's constructor copies (``TensorPy::MakeTensor``): a tensor built from a buffer the
    caller refills later keeps its own values. ``copy=False`` is for the framework's own freshly
    created arrays (and ``Tensor.from_numpy``), which nobody else holds. A Tensor argument shares
    its data, as ``Tensor(tensor)`` does in MindSpore."""
    borrowed = False  # does ``arr`` still alias memory the caller holds?
    if isinstance(data, Tensor):
        arr = data._data
    elif isinstance(data, np.ndarray):
        arr, borrowed = data, True
    elif isinstance(data, (bool, np.bool_)):
        arr = np.asarray(data, dtype=np.bool_)
    elif isinstance(data, numbers.Integral) and not isinstance(data, np.integer):
        arr = np.asarray(data, dtype=np.int64)
    elif isinstance(data, numbers.Real) and not isinstance(data, np.generic):
        arr = np.asarray(data, dtype=np.float32)
    elif isinstance(data, np.generic):
        arr = np.asarray(data)
    elif isinstance(data, (list, tuple)):
        items = [to_numpy(d._data) if isinstance(d, Tensor) else d for d in data]
        try:
            arr = np.asarray(items)
        except ValueError as e:
            raise ValueError(f"Tensor: cannot build a tensor from a ragged or mixed list: {e}") from None
        if arr.dtype == np.float64 and not _contains_float64(items):
            arr = arr.astype(np.float32)
    elif hasattr(data, "__cuda_array_interface__"):
        arr, borrowed = _device.array_module("GPU").asarray(data), True  # a CuPy array: on the GPU
    elif hasattr(data, "__array__"):
        arr, borrowed = np.asarray(data), True
    else:
        raise TypeError(f"Tensor: cannot build a tensor from {type(data).__name__} {data!r}")
    if arr.dtype == object or arr.dtype.kind in "USc":
        raise TypeError(f"Tensor: unsupported element type {arr.dtype} (data {data!r:.60})")
    if dtype is not None:
        dtype = as_dtype(dtype)
        if arr.dtype != dtype.np:
            arr, borrowed = arr.astype(dtype.np), False
    else:
        from_numpy(arr.dtype)  # validates; unsupported numpy types raise TypeError
        fallback = _dt._NP_FALLBACK.get(arr.dtype)
        if fallback is not None:
            arr, borrowed = arr.astype(fallback.np), False
    if borrowed and copy:
        arr = arr.copy()
    return arr


def _contains_float64(items) -> bool:
    for it in items:
        if isinstance(it, (list, tuple)):
            if _contains_float64(it):
                return True
        elif isinstance(it, (np.ndarray, np.float64)) and getattr(it, "dtype", None) == np.float64:
            return True
    return False


class Tensor(TensorMethods):
    """A tensor holding data. ``Tensor(data, dtype=None)`` from lists, scalars or arrays.

    Python floats become float32 and ints int64 (MindSpore defaults); numpy arrays keep their dtype.
    """

    __slots__ = ("_data", "__weakref__")

    def __init__(self, input_data=None, dtype=None, shape=None, init=None, const_arg=False):
        if input_data is None:
            if init is None and _dynamic_shape.is_dynamic_shape(shape):
                # a placeholder declaring inputs (Cell.set_inputs / jit(input_signature=...)): no data
                self._data = _dynamic_shape.DynamicShapeSpec(shape, dtype)
                return
            if shape is None:
                raise ValueError("Tensor: give input_data, or shape (and init) to create one")
            from .common.initializer import initializer
            t = initializer(init if init is not None else "zeros", shape, dtype or _dt.float32)
            arr = t._data
        else:
            # a host array headed for the GPU is copied by the transfer below: no host copy first
            to_gpu = _context._state["device_target"] == "GPU" and isinstance(input_data, np.ndarray)
            arr = _to_array(input_data, dtype, copy=not to_gpu)
            if shape is not None and tuple(arr.shape) != tuple(shape):
                raise ValueError(f"Tensor: data of shape {arr.shape} does not match shape={tuple(shape)}")
        if _context._state["device_target"] == "GPU" and isinstance(arr, np.ndarray):
            arr = array_module("GPU").asarray(arr)
        self._data = arr

    @classmethod
    def _wrap(cls, arr):
        t = object.__new__(cls)
        t._data = arr
        return t

    @classmethod
    def _placed(cls, arr, like=None):
        """A tensor of a host array the framework created: on the device of tensor ``like`` (a
        constant combined with it), else on the context's device (zeros, initializer draws...)."""
        t = object.__new__(cls)
        # (``like`` is a symbolic tensor while graph capture traces framework code: no device to follow)
        # (a vmap BatchedTensor has no ``_data``: getattr gives None, the context's device)
        t._data = _device.place(arr, getattr(like, "_data", None) if isinstance(like, Tensor) else None)
        return t

    # -- metadata ------------------------------------------------------------------------------
    @property
    def shape(self) -> tuple:
        return self._data.shape

    @property
    def dtype(self) -> DType:
        # (from_numpy's hot path, written out: PyNative's autodiff reads dtypes several times per op)
        return _DTYPE_OF_NUMPY.get(self._data.dtype) or from_numpy(self._data.dtype)

    @property
    def ndim(self) -> int:
        return self._data.ndim

    @property
    def size(self) -> int:
        return self._data.size

    @property
    def itemsize(self) -> int:
        return self._data.itemsize

    @property
    def nbytes(self) -> int:
        return self._data.nbytes

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    # -- data access ---------------------------------------------------------------------------
    def asnumpy(self) -> np.ndarray:
        """A numpy copy-free view of the data (a copy for GPU tensors)."""
        return to_numpy(self._data)

    def move_to(self, to, blocking=True) -> "Tensor":
        """A new tensor with this one's data on device ``to`` ("CPU" or "GPU"; MindSpore 2.x,
        PyNative mode only). ``blocking=False`` is accepted; copies here are always complete when
        the call returns.

        >>> Tensor([1, 2, 3]).move_to("CPU").asnumpy().tolist()
        [1, 2, 3]
        """
        if not isinstance(blocking, bool):
            raise ValueError(f"Tensor.move_to: blocking must be a bool, got {blocking!r}")
        if not isinstance(to, str) or to not in ("Ascend", "GPU", "CPU"):
            raise ValueError(f"Tensor.move_to: to must be one of 'Ascend', 'GPU', 'CPU', got {to!r}")
        if to == "Ascend":
            raise ValueError("Tensor.move_to: there is no Ascend device here; use 'GPU' or 'CPU'")
        if _context._state["mode"] != _context.PYNATIVE_MODE:
            raise ValueError("Tensor.move_to: only supported in PyNative mode (as in MindSpore)")
        arr = _device.to_device(self._data, to)
        return Tensor._wrap(arr.copy() if arr is self._data else arr)

    numpy = asnumpy

    def __array__(self, dtype=None, copy=None):
        a = to_numpy(self._data)
        return a if dtype is None else a.astype(dtype)

    def item(self, index=None):
        a = self.asnumpy()
        if index is None and a.size != 1:
            raise ValueError(f"Tensor.item(): only one-element tensors convert to a Python scalar, got shape {a.shape}")
        return a.item() if index is None else a.item(index)

    def tolist(self):
        return self.asnumpy().tolist()

    def copy(self) -> "Tensor":
        return Tensor._wrap(self._data.copy())

    @staticmethod
    def from_numpy(array) -> "Tensor":
        """A Tensor sharing ``array``'s memory (MindSpore's ``Tensor.from_numpy``); under
        ``device_target="GPU"`` a copy on the GPU (device memory cannot share host memory).

        >>> a = np.zeros(2, np.float32); t = Tensor.from_numpy(a); a[0] = 5; t.asnumpy().tolist()
        [5.0, 0.0]
        """
        if not isinstance(array, np.ndarray):
            raise TypeError(f"Tensor.from_numpy: expects a numpy.ndarray, got {type(array).__name__}")
        return Tensor._placed(np.ascontiguousarray(array))

    @classmethod
    def _of_owned_array(cls, arr):
        """``Tensor(arr)`` without the constructor's copy, for an array the framework has just
        created and hands over (nobody else holds it): same dtype rules and device placement."""
        t = object.__new__(cls)
        t._data = _device.place(_to_array(arr, None, copy=False))
        return t

    @property
    def strides(self) -> tuple:
        """Byte steps between elements along each dimension (as numpy)."""
        return self._data.strides

    def init_data(self) -> "Tensor":
        """The tensor itself: its data is always materialised here."""
        return self

    def clone(self) -> "Tensor":
        return self.copy()

    def set_dtype(self, dtype):
        self._data = self._data.astype(as_dtype(dtype).np)
        return self

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise ValueError(f"The truth value of a Tensor with shape {tuple(self.shape)} is ambiguous; "
                             "use .any() or .all()")
        return bool(self._data.reshape(()))

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError(f"only integer scalar tensors can be used as an index, got {self.dtype}{list(self.shape)}")
        return int(self.item())

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        for i in range(self._data.shape[0]):
            yield self[i]

    def __setitem__(self, index, value):
        """In-place write (eager). ``value`` may be a scalar, array or Tensor.

        Under a gradient tape that tracks this tensor or ``value``, the write is recorded as the
        differentiable ``setitem`` op: the gradient reaches both the old contents (except the
        overwritten elements) and ``value``.
        """
        from . import tape as _tape
        if _tape.ACTIVE and any(tp.is_tracked(self) or (isinstance(value, Tensor) and tp.is_tracked(value))
                                for tp in _tape.ACTIVE):
            self._setitem_recorded(index, value)
            return
        v = value._data if isinstance(value, Tensor) else value
        idx = index._data if isinstance(index, Tensor) else index
        if isinstance(idx, tuple):
            idx = tuple(i._data if isinstance(i, Tensor) else i for i in idx)
        if _device.GPU.active and type(self._data) is not np.ndarray:
            xp = _device.module_of(self._data)  # host values and indices follow the tensor
            if isinstance(v, (np.ndarray, list)):
                v = xp.asarray(v)
            if isinstance(idx, np.ndarray):
                idx = xp.asarray(idx)
            elif isinstance(idx, tuple):
                idx = tuple(xp.asarray(i) if isinstance(i, np.ndarray) else i for i in idx)
        elif type(self._data) is np.ndarray and not isinstance(v, (np.ndarray, numbers.Number, list, tuple)) \
                and hasattr(v, "__cuda_array_interface__"):
            raise ValueError("Tensor.__setitem__: the tensor is on the CPU and the value on the GPU; "
                             "move one with Tensor.move_to()")
        try:
            self._data[idx] = v
        except (IndexError, ValueError, TypeError) as e:
            from graph.errors import relocate
            raise relocate(ValueError(f"Tensor.__setitem__: cannot assign value of shape "
                                      f"{getattr(v, 'shape', ())} at {index!r} into shape {tuple(self.shape)}: {e}")) from None

    def _setitem_recorded(self, index, value):
        """``self[index] = value`` as ``self <- setitem(old, value)`` on the tape: the tape's earlier
        entries are re-pointed at a Tensor holding the old contents (their VJPs need those values),
        and this object becomes the op's output."""
        from graph.ops import REGISTRY, bind
        from graph.ops.shape import split_index
        from . import tape as _tape
        spec, tensors = split_index(index)
        if not isinstance(value, Tensor):
            value = Tensor(np.asarray(value, dtype=self._data.dtype))
        with _tape.paused():
            new = bind(REGISTRY["setitem"], self, value, *tensors, index=spec)
        old = Tensor._wrap(self._data)
        self._data = new._data
        for tp in _tape.ACTIVE:
            tp.replace(self, old)
            tp.record(REGISTRY["setitem"], (old, value) + tuple(tensors), {"index": spec}, (self,))

    def __repr__(self) -> str:
        spec = _dynamic_shape.spec_of(self)
        if spec is not None:
            return f"Tensor(shape={list(spec.shape)}, dtype={self.dtype}, value= placeholder {spec.declared()})"
        a = self.asnumpy()
        body = np.array2string(a, separator=", ", threshold=1000, floatmode="maxprec")
        sep = "\n" if a.ndim > 1 else ""
        return f"Tensor(shape={list(a.shape)}, dtype={self.dtype}, value={sep}{body})"

    def __str__(self) -> str:
        if _dynamic_shape.spec_of(self) is not None:
            return repr(self)
        return str(self.asnumpy())  # as MindSpore: numpy's str (a 0-d tensor prints as "3.0")

    def __format__(self, spec):
        if spec and self._data.size == 1:
            return format(self.item(), spec)
        return str(self) if not spec else format(str(self), spec)

    def __reduce__(self):
        return (Tensor, (self.asnumpy(),))

    def __deepcopy__(self, memo):
        t = Tensor._wrap(self._data.copy())
        memo[id(self)] = t
        return t

    def __copy__(self):
        return Tensor._wrap(self._data)


def is_tensor(x) -> bool:
    return isinstance(x, Tensor)
