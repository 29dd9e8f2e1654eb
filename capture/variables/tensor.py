"""Symbolic tensors on the translator's stack."""
from __future__ import annotations

from runtime.tensor_methods import TensorMethods

from ..builder import SymTensor
from ..errors import GraphBreak, MissingAttribute
from .base import Variable

_DATA_METHODS = {"asnumpy", "numpy", "item", "tolist", "__bool__", "__float__", "__int__", "any", "all"}


class TensorVariable(Variable):
    """A tensor in the graph being built (wraps a :class:`SymTensor`)."""

    def __init__(self, sym: SymTensor):
        self.sym = sym

    def python_type(self):
        from runtime.tensor import Tensor
        ref = self.sym.value.ref  # a lifted Parameter / held tensor: its real class
        return type(ref) if ref is not None else Tensor

    def realize(self, tx):
        return self.sym

    def getattr(self, tx, name):
        if name == "__class__":  # the user-visible class (Tensor / Parameter), never SymTensor
            return tx.wrap(self.python_type())
        if name in ("shape", "dtype", "ndim", "size"):
            return tx.wrap(getattr(self.sym, name))
        if name in _DATA_METHODS:
            raise GraphBreak(f"Tensor.{name}() needs the tensor's data, which only exists at run time",
                             hint="keep data-dependent Python (numpy, printing values) outside construct, "
                                  "or accept the graph break")
        if name == "T":
            return TensorVariable(self.sym.T)
        attr = getattr(TensorMethods, name, None)
        if attr is None:
            ref = self.sym.value.ref  # a lifted Parameter / held tensor: ask the object itself
            if not (hasattr(ref, name) if ref is not None else hasattr(self.python_type(), name)):
                raise MissingAttribute(f"'{self.python_type().__name__}' object has no attribute {name!r}")
            raise GraphBreak(f"Tensor attribute {name!r} is not supported in graph mode")
        return tx.wrap(getattr(self.sym, name))

    def has_attribute(self, tx, name):
        ref = self.sym.value.ref  # Tensor and Parameter have __slots__: no attribute appears later
        return hasattr(ref if ref is not None else self.python_type(), name)

    def truth(self, tx):
        raise GraphBreak("branch on a tensor value: the condition is only known at run time",
                         hint="branch on Python values (shapes, flags), or use ops.where / ops.select")

    def getitem(self, tx, key):
        parts = key.items if hasattr(key, "items") and isinstance(key.items, list) else [key]
        for k in parts:
            if isinstance(k, TensorVariable) and k.sym.dtype.is_bool:
                raise GraphBreak("boolean mask indexing: the result's shape depends on the tensor's values",
                                 hint="use ops.where / ops.masked_fill with a static shape, or accept the break")
        return tx.wrap(self.sym[key.realize(tx)])

    def length(self, tx):
        return len(self.sym)

    def iterate(self, tx):
        n = len(self.sym)
        return [tx.wrap(self.sym[i]) for i in range(n)]

    def describe(self):
        return f"tensor {self.sym.dtype}{list(self.sym.shape)}"

    def __repr__(self):
        return f"TensorVariable({self.sym!r})"
