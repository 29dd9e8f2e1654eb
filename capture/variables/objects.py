"""Cells, modules, closure cells and other Python objects read while tracing, and objects the
traced code creates.

Attribute reads record guards: Python constants by value, objects (sub-Cells, Parameters,
functions) by identity, so a compiled entry is reused only while what it read is unchanged.
Objects from outside the frame are themselves after the graph (``python_value``/``reconstruct``);
attribute writes to them are side effects replayed after the graph (``capture.side_effects``).
"""
from __future__ import annotations

import collections.abc
import sys
import types

from graph.errors import FRAMEWORK_PACKAGES

from ..errors import GraphBreak, MissingAttribute, UserException
from ..sources import Attr, Item, Len, TypeOf
from .base import Variable, class_attribute


class ObjectVariable(Variable):
    """A Python object whose attributes are read at trace time (configs, dataclasses...)."""

    def __init__(self, obj):
        self.obj = obj

    def python_type(self):
        return type(self.obj)

    def realize(self, tx):
        return self.obj

    def python_value(self):
        return self.obj

    def reconstruct(self, rec):
        return rec.object_recipe(self.obj)

    def getattr(self, tx, name):
        written = tx.tracer.side_effects.written_attr(self.obj, name)
        if written is not None:
            return written
        if name == "__dict__":
            from .object_dicts import has_plain_dict, object_dict
            if has_plain_dict(self.obj):
                return object_dict(tx, self)
        static = class_attribute(type(self.obj), name, None)
        if isinstance(static, property) and isinstance(static.fget, types.FunctionType):
            # trace the property's getter (evaluating it now could bake in a stale tensor), while
            # the object's class still has that property (a data descriptor: the instance's
            # dict cannot shadow it)
            from .functions import UserFunctionVariable
            g = tx.guards
            g.identity(Attr(TypeOf(g.obj(self.obj)), name), static, f"{g.path_of(self.obj)}.{name} (property)")
            return UserFunctionVariable(static.fget).call(tx, [self], {})
        try:
            value = getattr(self.obj, name)
        except AttributeError as e:
            # hasattr()/getattr(obj, name, default) decided on the absence: keep it absent
            tx.guards.hasnt_attr(self.obj, name)
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
                # inlined while the attribute still binds that function (the class's method not
                # replaced, nor shadowed on the instance)
                g = tx.guards
                g.python_value(Attr(g.obj(self.obj), name), value, f"{g.path_of(self.obj)}.{name}")
                return UserFunctionVariable(value.__func__, self)
        return tx.wrap_attr(self.obj, name, value)

    def setattr(self, tx, name, value):
        """Recorded and performed on the real object after the graph (``capture.side_effects``)."""
        tx.tracer.side_effects.set_attr(self, name, value)

    def call(self, tx, args, kwargs):
        call = getattr(type(self.obj), "__call__", None)
        if isinstance(call, types.FunctionType):
            from .functions import UserFunctionVariable
            return UserFunctionVariable(call, self).call(tx, args, kwargs)
        raise GraphBreak(f"calling a {type(self.obj).__name__} object")

    def describe(self):
        return f"{type(self.obj).__name__} object"


class NewObjectVariable(Variable):
    """An instance of a plain Python class created by the traced code (``p = Point(x, y)``).

    Its attributes are Variables set by the inlined ``__init__`` and later code; it becomes a
    real object (``object.__new__`` and its attributes, see ``capture.reconstruct``) only if it
    outlives the graph: returned, stored outside the frame, or live at a graph break.
    """

    def __init__(self, cls):
        self.cls = cls
        self.attrs: dict = {}

    @staticmethod
    def can_create(cls) -> bool:
        """Classes whose construction is fully modelled: Python classes with the default
        metaclass, ``__new__``, ``__setattr__`` and no ``__slots__``, finalizer or builtin base."""
        import abc
        from runtime.nn.cell import Cell
        # ABCMeta (contextlib's managers derive from AbstractContextManager) only adds
        # isinstance/issubclass hooks; an empty ``__slots__`` in a base (``abc.ABC``'s) leaves the
        # instance its ``__dict__``
        return (type(cls) in (type, abc.ABCMeta) and cls.__new__ is object.__new__
                and cls.__setattr__ is object.__setattr__
                and cls.__getattribute__ is object.__getattribute__ and not hasattr(cls, "__del__")
                and all(base is object or vars(base).get("__slots__", None) in (None, ()) for base in cls.__mro__)
                and cls.__dictoffset__ != 0 and not getattr(cls, "__abstractmethods__", None)
                and all(base is object or isinstance(vars(base).get("__init__", None), (types.FunctionType, type(None)))
                        for base in cls.__mro__)
                and not issubclass(cls, (BaseException, Cell))
                and all(base is object or base.__module__ != "builtins" for base in cls.__mro__))

    def python_type(self):
        return self.cls

    def reconstruct(self, rec):
        """``object.__new__(cls)`` with the attributes' recipes, one object per call. Recorded
        before its attributes are made, so an attribute that refers back to it ends the recursion."""
        r = ("newobj", self.cls, {}, rec.memo_key())
        rec.remember(self, r)
        r[2].update({k: rec.of(v) for k, v in self.attrs.items()})
        return r

    def getattr(self, tx, name):
        if name in self.attrs:
            return self.attrs[name]
        if name == "__class__":
            return tx.wrap(self.cls)
        if name == "__dict__":
            from .object_dicts import NewObjectDictVariable
            return NewObjectDictVariable(self)
        static = class_attribute(self.cls, name, _MISSING)
        if static is _MISSING:
            getattr_hook = class_attribute(self.cls, "__getattr__", None)
            if getattr_hook is not None:
                raise GraphBreak(f"{self.cls.__name__}.__getattr__ on an object created in the frame")
            raise MissingAttribute(f"'{self.cls.__name__}' object has no attribute {name!r}")
        from .functions import UserFunctionVariable
        if isinstance(static, (types.FunctionType, property)):
            # (the class's method or property, while the class still has that one)
            g = tx.guards
            g.identity(Attr(g.obj(self.cls), name), static, f"{self.cls.__name__}.{name}")
        if isinstance(static, types.FunctionType):
            return UserFunctionVariable(static, self)
        if isinstance(static, property) and isinstance(static.fget, types.FunctionType):
            return UserFunctionVariable(static.fget).call(tx, [self], {})
        if isinstance(static, staticmethod):
            return tx.wrap(static.__func__)
        if isinstance(static, classmethod) and isinstance(static.__func__, types.FunctionType):
            return UserFunctionVariable(static.__func__, tx.wrap(self.cls))
        if hasattr(static, "__get__") and not isinstance(static, (int, float, str, bool, tuple, type(None))):
            raise GraphBreak(f"descriptor {self.cls.__name__}.{name} on an object created in the frame")
        return tx.wrap_attr(self.cls, name, getattr(self.cls, name))

    def has_attribute(self, tx, name):
        if name in self.attrs or name == "__class__":
            return True
        if class_attribute(self.cls, name, _MISSING) is not _MISSING:
            return True
        return None if hasattr(self.cls, "__getattr__") else False

    def setattr(self, tx, name, value):
        if hasattr(class_attribute(self.cls, name, None), "__set__"):
            raise GraphBreak(f"setting {self.cls.__name__}.{name}, a property or descriptor",
                             hint="the assignment runs eagerly")
        self.attrs[name] = value

    def call(self, tx, args, kwargs):
        call = class_attribute(self.cls, "__call__", None)
        if isinstance(call, types.FunctionType):
            from .functions import UserFunctionVariable
            return UserFunctionVariable(call, self).call(tx, args, kwargs)
        raise GraphBreak(f"calling a {self.cls.__name__} object")

    def truth(self, tx):
        for hook in ("__bool__", "__len__"):
            fn = class_attribute(self.cls, hook, None)
            if isinstance(fn, types.FunctionType):
                from .functions import UserFunctionVariable
                out = UserFunctionVariable(fn, self).call(tx, [], {})
                return out.truth(tx) if hook == "__bool__" else bool(out.value)
        return True

    def describe(self):
        return f"new {self.cls.__name__} object"


_MISSING = object()


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

    def reconstruct(self, rec):
        return ("method", ("val", self.method.__func__), rec.of(self.self_var))

    def call(self, tx, args, kwargs):
        from runtime import eager
        from .functions import UserFunctionVariable
        graph = tx.builder.graph
        n_nodes, updates = len(graph.nodes), dict(graph.updates)
        try:
            return UserFunctionVariable(self.method.__func__, self.self_var).call(tx, args, kwargs)
        except UserException:
            raise  # the method raises: so would the eager call (the caller's handler decides)
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
            # what it returned depends on state no other guard covers (``trainable_params()``
            # on every Parameter's ``requires_grad``): the call is repeated by the guard -- only
            # for the Cell's read-only queries (a guard must not change anything), and not for
            # one returning an iterator (what is taken from it is guarded where it is used)
            if self.method.__name__ not in _CELL_QUERIES or isinstance(out, collections.abc.Iterator):
                return tx.wrap(out)
            # (through the Cell's own name in the guards: a Cell that is the call's argument is
            # not held by the entry)
            g, owner, name = tx.guards, self.method.__self__, self.method.__name__
            g.add(f"{g.obj(same_result)}({g.obj(owner)}.{name}(*{g.obj(tuple(rargs))}, **{g.obj(rkw)}), "
                  f"{g.obj(out)})", f"{g.path_of(owner)}.{name}() returns the same")
            return tx.wrap(out)


#: Cell methods that only read the Cell tree (a guard may call them again on every call)
_CELL_QUERIES = frozenset({"trainable_params", "untrainable_params", "get_parameters", "parameters_dict",
                           "parameters_and_names", "cells", "name_cells", "cells_and_names"})


def same_result(now, then) -> bool:
    """Whether a call's result ``now`` is what it was at trace time (``then``): containers by type
    and items, Python constants by value, other objects (Parameters, Cells) by identity."""
    if type(now) is not type(then):
        return False
    if type(now) in (list, tuple):
        return len(now) == len(then) and all(map(same_result, now, then))
    if type(now) is dict:
        return list(now) == list(then) and all(same_result(now[k], then[k]) for k in now)
    if isinstance(now, (int, float, complex, str, bytes, type(None))):
        return now == then
    return now is then


class CellVariable(ObjectVariable):
    """A Cell: attribute reads are guarded; calling it inlines its ``construct``."""

    def getattr(self, tx, name):
        if name == "training":
            tx.guards.constant(Attr(tx.guards.obj(self.obj), "training"), self.obj.training,
                               f"{tx.guards.path_of(self.obj)}.training")
            return tx.wrap(self.obj.training)
        return super().getattr(tx, name)

    def setattr(self, tx, name, value):
        from runtime.parameter import Parameter
        current = self.obj.__dict__.get(name)
        if isinstance(current, Parameter):
            from .tensor import TensorVariable
            if not isinstance(value, TensorVariable):
                from runtime import context as _context
                from .base import ConstantVariable
                number = value.value if isinstance(value, ConstantVariable) else None
                if type(number) in (int, float, bool) and _context.in_static_graph_syntax():
                    # static-graph syntax: ``self.weight = 1`` fills the Parameter with the number
                    # (as Cell.__setattr__ does eagerly there); plain PyNative code refuses it,
                    # so there the break runs it eagerly and it raises as it does without capture
                    import numpy as np
                    value = TensorVariable(tx.builder.const(np.full(current.shape, number, current.dtype.np)))
                else:
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
        tx.guards.equals(Len(tx.guards.obj(self.obj)), n, f"len({type(self.obj).__name__}) == {n}")
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
        tx.guards.python_value(Item(tx.guards.obj(self.obj), k), value, f"{type(self.obj).__name__}[{k!r}]")
        return tx.wrap(value)

    def call(self, tx, args, kwargs):
        from runtime.nn.cell import Cell
        cls = type(self.obj)
        if cls.__call__ is not Cell.__call__:
            from .functions import UserFunctionVariable
            return UserFunctionVariable(cls.__call__, self).call(tx, args, kwargs)
        construct = getattr(cls.construct, "__wrapped_jit__", cls.construct)  # @ms.jit on construct
        from .functions import UserFunctionVariable
        dtype = self.obj._mixed_precision_type  # guarded by GuardSet.compute_precision
        if dtype is None:
            return UserFunctionVariable(construct, self).call(tx, args, kwargs)
        # a Cell marked by to_float: its float inputs and every op inside compute in ``dtype``
        from graph.ops.core import computing_in
        from .tensor import TensorVariable
        with computing_in(dtype):
            args = [TensorVariable(a.sym.astype(dtype)) if isinstance(a, TensorVariable) and a.sym.dtype.is_float
                    and a.sym.dtype != dtype else a for a in args]
            return UserFunctionVariable(construct, self).call(tx, args, kwargs)

    def describe(self):
        return f"Cell {type(self.obj).__name__}"



class NewCellVariable(CellVariable):
    """A framework Cell without Parameters made by the traced code from constants
    (``nn.Softmax(axis=-1)(x)`` in a ``construct``, as TorchDynamo traces ``nn.Softmax(dim=-1)``).

    It is built once, at trace time, and its ``construct`` is inlined like any Cell's. Eagerly each
    call makes a new object, so one that outlives the graph is made again after the graph from
    the same arguments (a fresh object per call), and writing its attributes breaks."""

    def __init__(self, obj, args, kwargs):
        super().__init__(obj)
        self.args, self.kwargs = args, kwargs

    @staticmethod
    def can_make(cls) -> bool:
        from runtime.nn.cell import Cell
        return isinstance(cls, type) and issubclass(cls, Cell) and cls.__module__.startswith("runtime.")

    @classmethod
    def make(cls, cell_class, args, kwargs):
        from runtime import random as _random
        from ..errors import CaptureUserError
        gen = _random.init_generator()
        state = gen.bit_generator.state
        try:
            obj = cell_class(*args, **kwargs)
        except Exception as e:
            gen.bit_generator.state = state  # (the eager run makes it again, from the same draws)
            if isinstance(e, (TypeError, ValueError)):  # a bad argument: eager's error, in eager's words
                raise CaptureUserError(e) from None
            raise GraphBreak(f"{cell_class.__name__}() raised {type(e).__name__} at trace time: {e}") from None
        if next(iter(obj.get_parameters()), None) is not None:
            gen.bit_generator.state = state  # (an initializer drew: the eager run draws again)
            raise GraphBreak(f"creating a {cell_class.__name__} (a Cell with Parameters) inside a captured region",
                             hint="create Cells with Parameters in __init__, not in construct")
        return cls(obj, args, kwargs)

    def reconstruct(self, rec):
        return ("call", ("val", type(self.obj)), [("val", a) for a in self.args],
                {k: ("val", v) for k, v in self.kwargs.items()}, rec.memo_key())

    def setattr(self, tx, name, value):
        raise GraphBreak(f"setting attribute {name!r} of a {type(self.obj).__name__} made inside the captured region")

class ModuleVariable(Variable):
    def __init__(self, mod):
        self.mod = mod

    def realize(self, tx):
        return self.mod

    def python_value(self):
        return self.mod

    def reconstruct(self, rec):
        return ("val", self.mod)

    def getattr(self, tx, name):
        d = self.mod.__dict__
        written = tx.tracer.side_effects.written_global(d, name)
        if written is not None:  # ``global X; X = ...`` in a function of that module, earlier in the frame
            return written
        try:
            value = getattr(self.mod, name)
        except AttributeError as e:
            raise GraphBreak(f"AttributeError at trace time: {e}")
        if name in d and (_user_module(self.mod) or _mutable_stdlib_attribute(self.mod, name)):
            # ``config.SCALE`` may be reassigned between calls, like a global: guarded the same way
            return tx.read_global(d, name, f"{self.mod.__name__}.{name}")
        return tx.wrap(value)

    def setattr(self, tx, name, value):
        """``module.name = value`` (``setattr(sys, "stdout", f)`` in ``contextlib.redirect_stdout``):
        a write of the module's globals, replayed after the graph (or before a graph break's
        instruction) and read back by the rest of the trace, for a user's module and the
        standard streams of ``sys`` (whose reads are guarded); elsewhere a graph break."""
        mod = self.mod
        if type(mod) is not types.ModuleType or not (_user_module(mod) or _mutable_stdlib_attribute(mod, name)):
            raise GraphBreak(f"setting attribute {name!r} on {self.describe()} inside a captured region",
                             hint="the assignment runs eagerly")
        tx.tracer.side_effects.set_global(mod.__dict__, name, value)

    def describe(self):
        return f"module {self.mod.__name__}"


#: top-level packages whose module attributes are not guarded: the framework, numpy, and the
#: standard library (their attributes are functions and constants no program reassigns)
_UNGUARDED_PACKAGES = frozenset(FRAMEWORK_PACKAGES) | {"mindspore", "numpy"} | \
    frozenset(getattr(sys, "stdlib_module_names", ()))


def user_package(module_name) -> bool:
    """Whether names in the module ``module_name`` are the user's (guarded where read)."""
    return (module_name or "").split(".")[0] not in _UNGUARDED_PACKAGES


#: attributes of standard library modules that programs reassign (``contextlib.redirect_stdout``):
#: read with a guard, written as side effects
_MUTABLE_STDLIB_ATTRIBUTES = {"sys": frozenset({"stdout", "stderr", "stdin"})}


def _mutable_stdlib_attribute(mod, name) -> bool:
    return name in _MUTABLE_STDLIB_ATTRIBUTES.get(getattr(mod, "__name__", None), ()) and \
        sys.modules.get(mod.__name__) is mod


def _user_module(mod) -> bool:
    return user_package(getattr(mod, "__name__", None))


class Box:
    """A closure cell of the traced code (MAKE_CELL / LOAD_DEREF / STORE_DEREF)."""

    __slots__ = ("value",)

    def __init__(self, value=None):
        self.value = value


class BoxVariable(Variable):
    def __init__(self, box: Box):
        self.box = box
