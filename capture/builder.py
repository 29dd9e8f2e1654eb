"""Graph building for one captured frame: symbolic tensors, graph inputs and their sources.

``SymTensor`` is the tensor the translator hands to framework code (ops, Tensor methods,
composites): it has the eager Tensor's methods (``TensorMethods``) and a ``bind`` handler that
appends nodes to the frame's graph. Eager tensors met while building (Parameters, tensors held by
Cells or globals) become graph inputs, fetched from the same objects on every call, so training
updates never need a recompile.
"""
from __future__ import annotations

import contextlib
import threading
import weakref

import numpy as np

from graph.aval import AVal
from graph.errors import relocate
from graph.ir import PARAM, INPUT, Graph, Value, parameter_version_of
from graph.ops import register_handler
from graph.ops.core import VIEW
from runtime.eager import eager_handler
from runtime.parameter import VALUE_READS, Parameter
from runtime.tensor import Tensor
from runtime.tensor_methods import TensorMethods

from .sources import Object


class SymTensor(TensorMethods):
    """A symbolic tensor: an IR Value of the graph being captured."""

    __slots__ = ("value", "builder", "__weakref__")

    def __init__(self, value: Value, builder: "GraphBuilder"):
        self.value = value
        self.builder = builder

    @property
    def shape(self):
        # framework code handed this tensor reads sizes that keep their expressions
        # (capture.symbolic_sizes): put into a graph node, a size stays symbolic; a number it
        # returns counts as a read (capture.variables.functions.FrameworkCallableVariable)
        from .symbolic_sizes import SymInt
        value = self.value
        return tuple(SymInt(d, ("dim", value, k)) for k, d in enumerate(value.aval.shape))

    @property
    def dtype(self):
        return self.value.aval.dtype

    @property
    def ndim(self):
        return len(self.value.aval.shape)

    @property
    def size(self):
        size = self.value.aval.size
        self.builder.shape_reads.append(size)
        return size

    @property
    def itemsize(self):
        return self.value.aval.dtype.itemsize

    @property
    def nbytes(self):
        return self.size * self.itemsize

    def __len__(self):
        shape = self.value.aval.shape
        if not shape:
            raise TypeError("len() of a 0-d tensor")
        self.builder.shape_reads.append(shape[0])  # (a plain int: logged, see GraphBuilder.shape_reads)
        return shape[0]

    def __repr__(self):
        return f"SymTensor({self.value!r}:{self.value.aval})"

    def __bool__(self):
        from .errors import GraphBreak
        raise GraphBreak("data-dependent branch: the truth value of a tensor is only known at run time",
                         hint="compute the condition with Python values, or let the branch run eagerly")

    def asnumpy(self):
        from .errors import GraphBreak
        raise GraphBreak("Tensor.asnumpy() needs the tensor's data, which only exists at run time",
                         hint="move the numpy code out of construct, or accept the graph break")

    def item(self):
        from .errors import GraphBreak
        raise GraphBreak("Tensor.item() needs the tensor's data, which only exists at run time")


class GraphBuilder:
    """State of one capture: the graph, its input sources and the guards recorded so far."""

    def __init__(self, name: str):
        self.graph = Graph(name)
        self.sources: list = []  # per graph input: an argument's source or an Object (capture.sources)
        self._lifted: dict[int, Value] = {}
        self.lifted_objs: dict[int, object] = {}
        # (weak ref to a symbolic view, the Value it views): a write into that Value must not
        # stay in the graph while the view is alive (eager would change the view too)
        self.views: list = []
        #: every size the traced Python code read from a tensor's shape (``x.shape[0]``, ``len(x)``,
        #: ``x.size``, iterating over a tensor; a whole shape where framework code read one), in
        #: order: two traces that differ only in one input dimension read the same sizes only if no
        #: Python code saw that dimension (capture.dynamic: the graph may then be re-instantiated)
        self.shape_reads: list = []

    def live_view_of(self, value) -> bool:
        """Is a tensor the traced code still holds a view of ``value`` (may share its memory)?"""
        self.views = [(ref, base) for ref, base in self.views if ref() is not None]
        return any(base is value for _ref, base in self.views)

    def arg_input(self, tensor, source, name: str) -> SymTensor:
        """The graph input for the tensor argument at ``source`` (an argument, or an item inside one)."""
        v = self.graph.add_input(AVal(tensor.shape, tensor.dtype), name, INPUT)
        self.sources.append(source)
        return SymTensor(v, self)

    def lift(self, obj) -> Value:
        """The graph Value standing for an eager tensor (a Parameter or a held constant tensor)."""
        v = self._lifted.get(id(obj))
        if v is None:
            kind = PARAM if isinstance(obj, Parameter) else INPUT
            name = obj.name if isinstance(obj, Parameter) else f"tensor_{len(self._lifted)}"
            v = self.graph.add_input(AVal(obj.shape, obj.dtype), name, kind, ref=obj)
            self.sources.append(Object(obj))
            self._lifted[id(obj)] = v
            self.lifted_objs[id(obj)] = obj
        return self.current(v)

    def current(self, v: Value) -> Value:
        """The value a tensor holds now: for a Parameter, or any earlier version of one (what
        ``ops.assign`` returned: eager returns the Parameter itself), its latest update; else
        ``v``. A tensor variable taken before an update (``w = self.w; ops.assign(w, ...)``)
        is the Parameter object in eager, so it reads the new value too."""
        base = parameter_version_of(v)
        return v if base is None else self.graph.updates.get(base, base)

    def sym(self, obj) -> SymTensor:
        return SymTensor(self.lift(obj), self)

    def const(self, array) -> SymTensor:
        return SymTensor(self.graph.add_const(np.asarray(array)), self)

    def draw(self, op, args, attrs):
        """An op bound with no tensor operand that is a graph node: a random draw
        (``ops.randn(2, 3)``: every run draws anew), or an op sized by symbolic sizes
        (``ops.ones((n, n))``); see ``graph.ops.core.operandless_draws_to``."""
        return _sym_handler(op, args, attrs, builder=self)


def _builder_of(args):
    for a in args:
        if isinstance(a, SymTensor):
            return a.builder
    return None


def _sym_handler(op, args, attrs, builder=None):
    b = builder or _builder_of(args)
    vals = []
    for a in args:
        if isinstance(a, SymTensor):
            vals.append(b.current(a.value))
        elif isinstance(a, Tensor):
            vals.append(b.lift(a))
        elif isinstance(a, (np.ndarray, np.generic)):
            # numpy scalars keep their dtype (strong typing, as in PyNative), unlike Python numbers
            vals.append(b.graph.add_const(a))
        else:
            vals.append(a)
    if op.data_dependent_shape:
        from .errors import GraphBreak
        raise GraphBreak(f"{op.label} has a data-dependent output shape (it depends on the tensor's values), "
                         "which graph mode cannot give a static shape yet",
                         hint="the op runs eagerly between two compiled graphs; a static-shape form "
                              "(ops.where, ops.masked_fill) stays in the graph")
    if op.mutates is not None and isinstance(args[op.mutates], Tensor) and not isinstance(args[op.mutates], Parameter):
        from .errors import GraphBreak
        raise GraphBreak(f"in-place {op.name} on a tensor that is not a Parameter")
    try:
        out = b.graph.add_node(op, vals, attrs)
    except (TypeError, ValueError) as e:
        from .errors import CaptureUserError
        raise CaptureUserError(relocate(e, b.graph.current_loc), b.graph) from None
    if isinstance(out, tuple):
        outs = tuple(SymTensor(o, b) for o in out)
    else:
        outs = SymTensor(out, b)
    if (op.kind == VIEW or op.name == "cast") and args and isinstance(args[0], SymTensor):
        for o in (outs if isinstance(outs, tuple) else (outs,)):
            b.views.append((weakref.ref(o), vals[0]))
    return outs


register_handler(SymTensor, _sym_handler, priority=20)


class _NativeCalls(threading.local):
    builders: tuple = ()  # innermost last


_NATIVE_CALLS = _NativeCalls()


@contextlib.contextmanager
def lifting_parameters(builder: GraphBuilder):
    """While framework code runs natively on behalf of a trace (``ops.*`` functions, optimizer
    helpers: capture.variables.functions.FrameworkCallableVariable), an op it binds on a Parameter
    it reached by itself (``holder.step``, not an argument the trace handed it) is a graph node
    over the lifted Parameter, read when the graph runs, as the translator lifts the Parameters it
    reads. Without this the op would run once at trace time and its result would be a constant of
    the graph (``ops.equal(opt.global_step, 1)`` true forever, or never)."""
    _NATIVE_CALLS.builders += (builder,)
    VALUE_READS.blocked += 1  # and a read of such a Parameter's value into Python is a break
    try:
        yield
    finally:
        VALUE_READS.blocked -= 1
        _NATIVE_CALLS.builders = _NATIVE_CALLS.builders[:-1]


def _parameter_handler(op, args, attrs):
    """Operands with a Parameter and nothing symbolic: eager, or lifted while a trace runs
    framework code natively (:func:`lifting_parameters`)."""
    builders = _NATIVE_CALLS.builders
    if builders:
        return _sym_handler(op, args, attrs, builder=builders[-1])
    return eager_handler(op, args, attrs)


# above plain tensors (0, eager) and below graph Values (10, graph-mode autodiff) and symbolic
# tensors (20), which lift Parameter operands themselves
register_handler(Parameter, _parameter_handler, priority=5)
