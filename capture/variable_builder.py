"""The variable builder: every Python value the traced code meets becomes a Variable here, with
its ``source`` (``capture.sources``: where it was found) when it comes from outside the frame.

- A frame's arguments (:func:`wrap_argument`): tensors become graph inputs matched by shape and
  dtype, Python scalars are guarded by value, lists/tuples/dicts item by item, Cells weakly by
  identity, anything else by identity; each gets its argument path as source (so the caller's
  own lists, dicts and tuples come back).
- Values read while tracing (:func:`wrap_value`; :func:`wrap_guarded` for attributes, globals
  and closure variables, which also guards them): the same rules for containers, which keep their
  exact type (namedtuples, tuple subclasses, OrderedDict, defaultdict) and their source (their
  items: an item of it); one Variable per outside list/dict, so every mutation lands on one model.
- Values the frame computes at trace time (``fresh``) have no source.
- Self-referencing containers are refused for both: the frame runs eagerly.

What a Variable does with its source is its own business (``Variable.reconstruct``,
``capture.side_effects``); the builder only records it.
"""
from __future__ import annotations

import builtins
import types

import numpy as np

from runtime.nn.cell import Cell
from runtime.parameter import Parameter
from runtime.tensor import Tensor

from .builder import SymTensor
from .errors import GraphBreak
from .guards import CONSTANT_TYPES
from .polyfills import polyfill_for
from graph.symint import is_symbolic
from .sources import Attr, Item
from .variables import (BuiltinVariable, CellVariable, ClassVariable, ConstantVariable, DictVariable,
                        ListVariable, ModuleVariable, ObjectVariable, OpaqueCallableVariable,
                        SetVariable, TensorVariable, TupleVariable, Variable, wrap_callable)
from .variables.containers import PLAIN_DICT_TYPES, OutsideListVariable, plain_tuple
from .variables.functions import PolyfillVariable
from .variables.tensor import ShapeDimVariable


_ITER_TYPES = (type(iter([])), type(iter(())), type(iter(range(0))), type(iter({})), types.GeneratorType,
               type(iter(set())), type(iter("")))


def wrap_argument(tx, value, source, desc, is_resume=False):
    """The Variable for the frame's argument ``value`` found at ``source`` (an argument, or an
    item inside one), guarded."""
    g = tx.guards
    memo = getattr(tx.tracer, "root_memo", None)
    if memo is not None and isinstance(value, (list, dict)):
        # the same list/dict passed twice (aliased locals of a resume function) is one Variable
        hit = memo.get(id(value))
        if hit is not None:
            g.same_object(source, hit[1], f"{desc} is {hit[2]}")
            return hit[0]
    if memo is not None and not isinstance(value, (int, float, bool, str, type(None), tuple)):
        tx.tracer.arg_paths.setdefault(id(value), source.path)
    if is_resume and (isinstance(value, (np.ndarray,) + _ITER_TYPES) or
                      (isinstance(value, types.MethodType) and isinstance(value.__self__, Tensor))):
        # run-time data handed over by an earlier break: guarded by type only
        from .resume import RuntimeValueVariable
        g.type_is(source, type(value), desc)
        return RuntimeValueVariable(value, source)
    var = _wrap_containers_once(tx, value, lambda: _wrap_argument_value(tx, value, source, desc, is_resume))
    if memo is not None and isinstance(value, (list, dict)):
        memo[id(value)] = (var, source, desc)
    return var


def _wrap_containers_once(tx, value, wrap):
    """``wrap()`` for ``value``, refusing a container that contains itself (``a.append(a)``):
    modelling it item by item would never end, so the frame runs eagerly."""
    if not isinstance(value, (tuple, list, dict)):
        return wrap()
    open_ids = tx.tracer.wrapping
    if id(value) in open_ids:
        raise GraphBreak(f"a {type(value).__name__} that contains itself", resumable=False,
                         hint="self-referencing containers are not traced; the frame runs eagerly")
    open_ids.add(id(value))
    try:
        return wrap()
    finally:
        open_ids.discard(id(value))


def _wrap_argument_value(tx, value, source, desc, is_resume):
    var = _new_root_variable(tx, value, source, desc, is_resume)
    if var.source is None and not isinstance(var, DictVariable):
        # (a dict with keys other than strings is guarded by identity, not key by key: it keeps
        # no source, so mutating or returning it breaks)
        var.source = source
    return var


def _tensor_argument(tx, value, source, desc):
    """A tensor argument: a graph input, or, when it is the same object as an earlier tensor
    argument, that argument's Variable (``p is q`` and writes through one alias seen by the other,
    as eagerly). Which arguments alias is guarded both ways."""
    g = tx.guards
    seen = tx.tracer.tensor_args
    earlier = seen.get(id(value))
    if earlier is not None:
        var, first_source, first_desc = earlier
        g.same_object(source, first_source, f"{desc} is the same object as {first_desc}")
        return var
    for _, other_source, other_desc in seen.values():
        g.distinct_objects(source, other_source, f"{desc} is not the same object as {other_desc}")
    g.tensor(source, value, desc)
    var = TensorVariable(tx.builder.arg_input(value, source, desc))
    seen[id(value)] = (var, source, desc)
    return var


def _new_root_variable(tx, value, source, desc, is_resume):
    g = tx.guards
    g.name_object(value, desc)
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return _tensor_argument(tx, value, source, desc)
    if isinstance(value, (int, float, bool, str, type(None))):
        g.constant(source, value, desc)
        return ConstantVariable(value)
    if (isinstance(value, tuple) and plain_tuple(value)) or type(value) is list:
        g.length(source, value, desc)
        items = [wrap_argument(tx, v, Item(source, i), f"{desc}[{i}]", is_resume)
                 for i, v in enumerate(value)]
        if isinstance(value, tuple):
            var = TupleVariable(items, cls=type(value))
            var.origin = value  # (``is``: see _new_variable)
            return var
        return ListVariable(items, external=True)
    if type(value) in PLAIN_DICT_TYPES and all(isinstance(k, str) for k in value):
        g.dict_keys(source, value, desc)
        var = DictVariable({k: wrap_argument(tx, v, Item(source, k), f"{desc}[{k!r}]", is_resume)
                            for k, v in value.items()}, external=True, cls=type(value))
        var.source = source
        return var
    if isinstance(value, Cell):
        g.arg_identity(source, value, desc)  # weakly: entries must not keep Cells alive
        return CellVariable(value)
    g.identity(source, value, desc)
    return tx.wrap(value)


def wrap_value(tx, value, fresh=False, source=None) -> Variable:
    """The Variable for a Python value met while tracing, found at ``source`` (see
    ``capture.sources``; None: unknown). Lists/dicts are marked as living outside the frame
    unless ``fresh`` (just computed at trace time: no source); one with a source is that outside
    object: mutating it is a side effect replayed on it, and returning it gives it back."""
    if isinstance(value, (tuple, list, dict)):
        if fresh or isinstance(value, tuple):
            return _wrap_containers_once(tx, value, lambda: _wrap_value(tx, value, fresh, source))
        # one Variable per outside list/dict, however often the code reads it, so every
        # mutation lands on the same model (and is written back once)
        known = tx.tracer.containers.get(id(value))
        if known is None:
            var = _wrap_containers_once(tx, value, lambda: _wrap_value(tx, value, fresh, source))
            known = tx.tracer.containers[id(value)] = (value, var)
        return known[1]
    return _wrap_value(tx, value, fresh, source)


def _wrap_value(tx, value, fresh, source=None):
    if isinstance(value, Variable):
        return value
    if fresh:
        source = None
    var = _new_variable(tx, value, fresh, source)
    if var.source is None:
        var.source = source
    return var


def _new_variable(tx, value, fresh, source):
    if isinstance(value, SymTensor):
        return TensorVariable(value)
    if isinstance(value, Tensor):
        return TensorVariable(tx.builder.sym(value))
    if is_symbolic(value):
        # a size framework code read from a traced tensor's shape (``ops.shape(x)``), or a number
        # computed from one: symbolic again in the translated code, so a branch on it is logged
        # (capture.symbolic_sizes)
        return ShapeDimVariable(value._plain(), tx.builder.shape_reads, value.expr)
    if isinstance(value, CONSTANT_TYPES):
        return ConstantVariable(value)
    polyfill = polyfill_for(value)
    if polyfill is not None:  # (classes such as itertools.chain too)
        return PolyfillVariable(value, polyfill)
    if fresh and type(value) is set:
        return SetVariable(value)

    def item_source(key):
        return None if source is None else Item(source, key)

    if isinstance(value, tuple) and plain_tuple(value):
        var = TupleVariable([wrap_value(tx, v, fresh, item_source(i)) for i, v in enumerate(value)],
                            cls=type(value))
        var.origin = value  # a tuple read twice is two Variables: ``is`` compares this object
        return var
    if type(value) is list:
        return ListVariable([wrap_value(tx, v, fresh, item_source(i)) for i, v in enumerate(value)],
                            external=not fresh)
    if type(value) in PLAIN_DICT_TYPES:
        return DictVariable({k: wrap_value(tx, v, fresh, item_source(k)) for k, v in value.items()},
                            external=not fresh, cls=type(value))
    if isinstance(value, Cell):
        return CellVariable(value)
    if isinstance(value, types.ModuleType):
        return ModuleVariable(value)
    name = getattr(value, "__name__", None)  # (a __getattr__ may answer anything here)
    if isinstance(name, str) and getattr(builtins, name, None) is value and not isinstance(value, BaseException):
        if not (isinstance(value, type) and issubclass(value, BaseException)):
            return BuiltinVariable(value)
    if isinstance(value, type):
        return ClassVariable(value)
    if isinstance(value, np.ndarray):
        return ConstantVariable(value)
    if callable(value):
        v = wrap_callable(tx, value)
        if v is not None:
            return v
        return OpaqueCallableVariable(value)
    return ObjectVariable(value)


def wrap_attribute(tx, owner, name: str, value) -> Variable:
    """Wrap ``owner.name`` and guard on it (value for constants, identity for objects)."""
    path = f"{tx.guards.path_of(owner)}.{name}"
    tx.guards.name_object(value, path)
    return wrap_guarded(tx, Attr(tx.guards.obj(owner), name), value, path)


def wrap_guarded(tx, source, value, desc):
    """Guard that ``source`` (read on later calls) still gives what tracing assumed (see
    :meth:`GuardSet.python_value`) and wrap ``value``, found there. A list met for the first time
    is guarded by type only until the traced code reads its items (appending does not)."""
    if type(value) is list and id(value) not in tx.tracer.containers:
        tx.guards.type_is(source, list, desc)

        def read_items():
            tx.guards.python_value(source, value, desc)
            return [wrap_value(tx, v, source=Item(source, i)) for i, v in enumerate(value)]

        var = OutsideListVariable(read_items, source)
        tx.tracer.containers[id(value)] = (value, var)
        return var
    tx.guards.python_value(source, value, desc)
    return wrap_value(tx, value, source=source)
