"""Cells, modules, closure cells and other Python objects read while tracing.

Attribute reads record guards: Python constants by value, objects (sub-Cells, Parameters,
functions) by identity, so a compiled entry is reused only while what it read is unchanged.
"""
from __future__ import annotations

import inspect
import types

from ..errors import GraphBreak, MissingAttribute
from .base import Variable


class ObjectVariable(Variable):
    """A Python object whose attributes are read at trace time (configs, dataclasses...)."""

    def __init__(self, obj):
        self.obj = obj

    def python_type(self):
        return type(self.obj)

    def realize(self, tx):
        return self.obj

    def getattr(self, tx, name):
        static = inspect.getattr_static(type(self.obj), name, None)
        if isinstance(static, property) and isinstance(static.fget, types.FunctionType):
            # trace the property's getter (evaluating it now could bake in a stale tensor)
            from .functions import UserFunctionVariable
            return UserFunctionVariable(static.fget).call(tx, [self], {})
        try:
            value = getattr(self.obj, name)
        except AttributeError as e:
            g = tx.guards
            # hasattr()/getattr(obj, name, default) decided on the absence: keep it absent
            g.add(f"not hasattr({g.obj(self.obj)}, {name!r})", f"{g.path_of(self.obj)}.{name} does not exist")
            raise MissingAttribute(f"AttributeError at trace time: {e}")
        if isinstance(value, types.MethodType) and value.__self__ is self.obj:
            from runtime.nn.cell import Cell
            from .functions import UserFunctionVariable, is_framework_callable
            # A Cell's methods (framework ones too) read and update its Parameters: inline them so
            # those reads become graph inputs and updates graph updates. Calling one directly
            # would run it once, eagerly, at trace time.
            if isinstance(self.obj, Cell) and is_framework_callable(value):
                return CellMethodVariable(value, self)
            if not is_framework_callable(value):
                return UserFunctionVariable(value.__func__, self)
        return tx.wrap_attr(self.obj, name, value)

    def setattr(self, tx, name, value):
        raise GraphBreak(f"setting attribute {name!r} of a {type(self.obj).__name__} inside a captured region",
                         hint="keep Python-state mutation outside construct, or accept the graph break")

    def call(self, tx, args, kwargs):
        call = getattr(type(self.obj), "__call__", None)
        if isinstance(call, types.FunctionType):
            from .functions import UserFunctionVariable
            return UserFunctionVariable(call, self).call(tx, args, kwargs)
        raise GraphBreak(f"calling a {type(self.obj).__name__} object")

    def describe(self):
        return f"{type(self.obj).__name__} object"


class _EagerOpAtTraceTime(Exception):
    pass


class CellMethodVariable(Variable):
    """A framework method of a Cell (e.g. ``Optimizer._increase_step``, ``trainable_params``).

    Inlined first, so Parameter reads and updates it makes land in the graph. If inlining breaks
    (the method uses Python the translator does not model), it is called directly — allowed only
    when it runs no op on real tensors, which would otherwise happen once at trace time.
    """

    def __init__(self, method, self_var):
        self.method = method
        self.self_var = self_var

    def call(self, tx, args, kwargs):
        from runtime import eager
        from .functions import UserFunctionVariable
        graph = tx.builder.graph
        n_nodes, updates = len(graph.nodes), dict(graph.updates)
        try:
            return UserFunctionVariable(self.method.__func__, self.self_var).call(tx, args, kwargs)
        except GraphBreak as inline_break:
            del graph.nodes[n_nodes:]  # drop what the abandoned inlining recorded
            graph.updates.clear()
            graph.updates.update(updates)
            rargs = [a.realize(tx) for a in args]
            rkw = {k: v.realize(tx) for k, v in kwargs.items()}
            eager.FORBID_EAGER.append(_EagerOpAtTraceTime)
            try:
                out = self.method(*rargs, **rkw)
            except _EagerOpAtTraceTime:
                raise inline_break from None
            finally:
                eager.FORBID_EAGER.pop()
            return tx.wrap(out)


class CellVariable(ObjectVariable):
    """A Cell: attribute reads are guarded; calling it inlines its ``construct``."""

    def getattr(self, tx, name):
        if name == "training":
            tx.guards.constant(f"{tx.guards.obj(self.obj)}.training", self.obj.training,
                               f"{tx.guards.path_of(self.obj)}.training")
            return tx.wrap(self.obj.training)
        return super().getattr(tx, name)

    def setattr(self, tx, name, value):
        from runtime.parameter import Parameter
        current = self.obj.__dict__.get(name)
        if isinstance(current, Parameter):
            from .tensor import TensorVariable
            if not isinstance(value, TensorVariable):
                raise GraphBreak(f"assigning a {value.describe()} to Parameter attribute {name!r}")
            from graph.ops import REGISTRY, bind
            bind(REGISTRY["assign"], tx.builder.sym(current), value.sym)
            return
        super().setattr(tx, name, value)

    # containers (CellList, SequentialCell, user Cells with __iter__/__getitem__/__len__)
    def _children(self, tx):
        """The items iterating this Cell gives, guarded (count and identity of each)."""
        if not hasattr(type(self.obj), "__iter__"):
            raise GraphBreak(f"iterating over a {self.describe()} (it defines no __iter__)")
        items = list(self.obj)
        g = tx.guards
        o = g.obj(self.obj)
        g.add(f"len({o}) == {len(items)} and all(a is b for a, b in zip({o}, {g.obj(tuple(items))}))",
              f"{type(self.obj).__name__} holds the same {len(items)} item(s)")
        return items

    def iterate(self, tx):
        return [tx.wrap(c) for c in self._children(tx)]

    def length(self, tx):
        if not hasattr(type(self.obj), "__len__"):
            raise GraphBreak(f"len() of a {self.describe()}")
        n = len(self.obj)
        tx.guards.add(f"len({tx.guards.obj(self.obj)}) == {n}", f"len({type(self.obj).__name__}) == {n}")
        return n

    def truth(self, tx):
        if hasattr(type(self.obj), "__bool__") or hasattr(type(self.obj), "__len__"):
            v = bool(self.obj)
            tx.guards.add(f"bool({tx.guards.obj(self.obj)}) is {v}", f"bool({type(self.obj).__name__}) is {v}")
            return v
        return True

    def getitem(self, tx, key):
        if not key.is_const() or not hasattr(type(self.obj), "__getitem__"):
            raise GraphBreak(f"indexing a {self.describe()} with a {key.describe()}")
        k = key.value
        if isinstance(k, slice):
            # slicing builds a new container each time: guard the items it is made of
            self._children(tx)
            return type(self)(self.obj[k])
        try:
            value = self.obj[k]
        except (IndexError, KeyError, TypeError) as e:
            raise GraphBreak(f"indexing {type(self.obj).__name__} fails at trace time: {e}")
        tx._guard_value(f"{tx.guards.obj(self.obj)}[{k!r}]", value, f"{type(self.obj).__name__}[{k!r}]")
        return tx.wrap(value)

    def call(self, tx, args, kwargs):
        from runtime.nn.cell import Cell
        cls = type(self.obj)
        if cls.__call__ is not Cell.__call__:
            from .functions import UserFunctionVariable
            return UserFunctionVariable(cls.__call__, self).call(tx, args, kwargs)
        construct = getattr(cls.construct, "__wrapped_jit__", cls.construct)  # @ms.jit on construct
        from .functions import UserFunctionVariable
        return UserFunctionVariable(construct, self).call(tx, args, kwargs)

    def describe(self):
        return f"Cell {type(self.obj).__name__}"


class ModuleVariable(Variable):
    def __init__(self, mod):
        self.mod = mod

    def realize(self, tx):
        return self.mod

    def getattr(self, tx, name):
        try:
            return tx.wrap(getattr(self.mod, name))
        except AttributeError as e:
            raise GraphBreak(f"AttributeError at trace time: {e}")

    def describe(self):
        return f"module {self.mod.__name__}"


class Box:
    """A closure cell of the traced code (MAKE_CELL / LOAD_DEREF / STORE_DEREF)."""

    __slots__ = ("value",)

    def __init__(self, value=None):
        self.value = value


class BoxVariable(Variable):
    def __init__(self, box: Box):
        self.box = box
