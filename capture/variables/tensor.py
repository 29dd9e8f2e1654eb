"""Symbolic tensors on the translator's stack: a :class:`TensorVariable` wraps a ``SymTensor``
(``capture.builder``) whose graph Value is a graph input (an argument, a lifted Parameter or held
tensor), a constant or a node; ops on it add nodes, and after the graph it is rebuilt from what
that Value is (see :meth:`TensorVariable.reconstruct`)."""
from __future__ import annotations

from graph.ir import parameter_version_of
from runtime.tensor_methods import TensorMethods

from ..builder import SymTensor
from ..errors import GraphBreak, MissingAttribute
from .base import ConstantVariable, Variable, class_attribute
from .containers import TupleVariable

_DATA_METHODS = {"asnumpy", "numpy", "item", "tolist", "__bool__", "__float__", "__int__"}


def _user_method(cls, name):
    """The plain function ``cls.name`` is when user code defined it (a monkeypatched Tensor
    method, a method of a Tensor subclass), else None (the framework's own: TensorMethods)."""
    import types
    from .functions import is_framework_callable
    attr = class_attribute(cls, name, None)
    if isinstance(attr, types.FunctionType) and not is_framework_callable(attr):
        return attr
    return None


def _may_alias(op) -> bool:
    """Can the eager result of ``op`` share memory with its input (a numpy view, or ``cast`` to
    the same dtype returning its input)?"""
    from graph.ops.core import VIEW
    return op.kind == VIEW or op.name == "cast"


def _refuse_masks(key):
    parts = key.items if hasattr(key, "items") and isinstance(key.items, list) else [key]
    for k in parts:
        if isinstance(k, TensorVariable) and k.sym.dtype.is_bool:
            raise GraphBreak("boolean mask indexing: the result's shape depends on the tensor's values",
                             hint="use ops.where / ops.masked_fill with a static shape, or accept the break")


class ShapeDimVariable(ConstantVariable):
    """One size of a traced tensor's ``.shape``, or an expression of such sizes
    (capture.symbolic_sizes: ``batch * heads``, ``n // 2``, ``1 / math.sqrt(n)``...: an int, or a
    float where ``/``, ``**`` or a float made one): a constant whose every use by
    the translator (its ``value`` read: a branch, a comparison, passing it to a Python function)
    is logged in ``GraphBuilder.shape_reads``. Arithmetic on it (``Tracer.apply_python_operator``)
    and handing it to framework code that builds graph nodes (:meth:`realize` under
    :func:`capture.symbolic_sizes` 's ``symbolic_realize``) keep its expression instead. Its
    length and the other dimensions' sizes are not logged."""

    def __init__(self, size, log, expr=None):
        self._size = size
        self._log = log
        self.expr = expr  # None: a size with no known expression (read as a plain constant)

    @property
    def value(self):
        self._log.append(self._size)
        return self._size

    @value.setter
    def value(self, v):  # (ConstantVariable's constructor protocol; not used)
        self._size = v

    def realize(self, tx):
        if self.expr is not None and getattr(tx, "symbolic_realize", 0):
            from graph.symint import tagged
            return tagged(self._size, self.expr)
        return self.value


class TensorVariable(Variable):
    """A tensor in the graph being built (wraps a :class:`SymTensor`)."""

    def __init__(self, sym: SymTensor):
        self.sym = sym

    def eager_object(self):
        """The object this tensor is in eager: an argument tensor, a Parameter (any version of
        it: ``ops.assign`` returns the Parameter) or a held tensor; None for computed ones."""
        v = self.sym.value
        if v.ref is not None:
            return v.ref
        base = parameter_version_of(v)
        return base.ref if base is not None else None

    def python_type(self):
        from runtime.tensor import Tensor
        ref = self.eager_object()  # a lifted Parameter / held tensor: its real class
        return type(ref) if ref is not None else Tensor

    def realize(self, tx):
        return self.sym

    def reconstruct(self, rec):
        """A tensor computed by the graph: its graph output; an argument tensor, a Parameter (any
        version of it: ``ops.assign`` returns the Parameter, updated once the graph has run) or
        a tensor held by an object: that same object, as in eager; a graph constant: a new
        tensor per call."""
        from graph.ir import CONST, INPUT
        ref = self.eager_object()
        if ref is not None:
            return ("obj", ref)
        graph = rec.builder.graph
        v = self.sym.value  # (a write into the tensor replaced it: the current value counts)
        if v.kind == INPUT:
            return rec.source(rec.builder.sources[graph.inputs.index(v)])
        if v.kind == CONST:
            return ("tconst", v.data, rec.memo_key())
        return ("out", rec.output(v))

    def getattr(self, tx, name):
        if name == "__class__":  # the user-visible class (Tensor / Parameter), never SymTensor
            return tx.wrap(self.python_type())
        if name == "shape":
            # one variable per dimension, logging its size when Python code uses it: reading
            # ``x.shape[1]`` does not make the trace depend on ``x.shape[0]`` (capture.dynamic)
            log = self.sym.builder.shape_reads
            value = self.sym.value
            return TupleVariable([ShapeDimVariable(d, log, ("dim", value, k))
                                  for k, d in enumerate(value.aval.shape)])
        if name in ("dtype", "ndim", "size", "itemsize", "nbytes"):
            return tx.wrap(getattr(self.sym, name))
        if name in _DATA_METHODS:
            raise GraphBreak(f"Tensor.{name}() needs the tensor's data, which only exists at run time",
                             hint="keep data-dependent Python (numpy, printing values) outside construct, "
                                  "or accept the graph break")
        if name == "T":
            return TensorVariable(self.sym.T)
        replaced = _user_method(self.python_type(), name)
        if replaced is not None:  # ``Tensor.abs = my_abs``, or a method of a user subclass: traced
            from .functions import UserFunctionVariable
            g, cls = tx.guards, self.python_type()
            from ..sources import Attr
            g.identity(Attr(g.obj(cls), name), replaced, f"{cls.__name__}.{name} (a user function)")
            return UserFunctionVariable(replaced, self)
        if name == "__len__":
            import functools
            return tx.wrap(functools.partial(len, self.sym))
        attr = getattr(TensorMethods, name, None)
        if attr is None:
            ref = self.sym.value.ref  # a lifted Parameter / held tensor: ask the object itself
            if not (hasattr(ref, name) if ref is not None else hasattr(self.python_type(), name)):
                raise MissingAttribute(f"'{self.python_type().__name__}' object has no attribute {name!r}")
            raise GraphBreak(f"Tensor attribute {name!r} is not supported in graph mode")
        value = getattr(self.sym, name)
        var = tx.wrap(value)
        from .functions import FrameworkCallableVariable, TensorMethodVariable
        if type(var) is FrameworkCallableVariable and getattr(value, "__self__", None) is self.sym:
            var = TensorMethodVariable(value, self, name)
        return var

    def has_attribute(self, tx, name):
        ref = self.sym.value.ref  # Tensor and Parameter have __slots__: no attribute appears later
        return hasattr(ref if ref is not None else self.python_type(), name)

    def truth(self, tx):
        raise GraphBreak("branch on a tensor value: the condition is only known at run time",
                         hint="branch on Python values (shapes, flags), or use ops.where / ops.select")

    def getitem(self, tx, key):
        from ..translator import symbolic_realize
        _refuse_masks(key)
        with symbolic_realize(tx):  # (``pe[:n]`` with a size n: the index keeps n's expression)
            index = key.realize(tx)
        return tx.wrap(self.sym[index])

    def setitem(self, tx, key, value):
        """``x[key] = value``: the functional ``setitem`` op (differentiable in x and value), after
        which every reference to this tensor sees the new contents, as eager's in-place write.
        Only for tensors no other tensor can share memory with: computed by the frame (not an
        argument, Parameter or constant), not a view, and with no view of them still held by the
        traced code; anything else breaks so the write happens eagerly on the real memory."""
        from graph.ir import CONST, INPUT, PARAM
        from graph.ops import REGISTRY, bind
        from graph.ops.shape import split_index
        v = self.sym.value
        if (v.kind in (INPUT, PARAM, CONST) or self.eager_object() is not None or _may_alias(v.producer.op)
                or tx.builder.live_view_of(v)):
            raise GraphBreak(f"item assignment on a {self.describe()} that may share memory with another "
                             "tensor (an argument, a Parameter, or a view)",
                             hint="the write runs eagerly; writing into a tensor the frame computed stays in the graph")
        _refuse_masks(key)
        index = key.realize(tx)
        if isinstance(value, TensorVariable):
            new_value = value.sym
        elif value.is_const():
            import numpy as np
            try:
                new_value = tx.builder.const(np.asarray(value.value, dtype=self.sym.dtype.np))
            except (TypeError, ValueError) as e:
                raise GraphBreak(f"item assignment of {value.value!r} fails at trace time: {e}")
        else:
            raise GraphBreak(f"item assignment of a {value.describe()} into a tensor")
        spec, tensors = split_index(index)
        out = bind(REGISTRY["setitem"], self.sym, new_value, *tensors, index=spec)
        self.sym.value = out.value

    def length(self, tx):
        return len(self.sym)  # (logged: GraphBuilder.shape_reads)

    def length_variable(self, tx):
        """``len(x)`` as the symbolic size ``x.shape[0]`` (capture.symbolic_sizes)."""
        value = self.sym.value
        if not value.aval.shape:
            raise TypeError("len() of a 0-d tensor")
        return ShapeDimVariable(value.aval.shape[0], self.sym.builder.shape_reads, ("dim", value, 0))

    def iterate(self, tx):
        n = len(self.sym)  # (logged)
        return [tx.wrap(self.sym[i]) for i in range(n)]

    def describe(self):
        return f"tensor {self.sym.dtype}{list(self.sym.shape)}"

    def __repr__(self):
        return f"TensorVariable({self.sym!r})"
