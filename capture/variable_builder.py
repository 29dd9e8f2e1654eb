"""The variable builder for a frame's arguments: each argument becomes a Variable with its guards
(tensors as graph inputs matched by shape and dtype, Python scalars by value, lists/tuples/dicts
item by item with their argument path as source so the caller's own objects come back, Cells
weakly by identity, anything else by identity). Values met while tracing (attributes, globals,
closure variables) are wrapped by ``InstructionTranslator.wrap``/``guard_and_wrap`` with the same
rules for containers; self-referencing containers are refused here for both."""
from __future__ import annotations

import types

import numpy as np

from runtime.nn.cell import Cell
from runtime.parameter import Parameter
from runtime.tensor import Tensor

from .errors import GraphBreak
from .sources import ArgSource
from .variables import (CellVariable, ConstantVariable, DictVariable, ListVariable,
                        TensorVariable, TupleVariable)
from .variables.containers import PLAIN_DICT_TYPES, plain_tuple


_ITER_TYPES = (type(iter([])), type(iter(())), type(iter(range(0))), type(iter({})), types.GeneratorType,
               type(iter(set())), type(iter("")))

def _wrap_root(tx, value, expr, path, desc, is_resume=False):
    g = tx.guards
    memo = getattr(tx.tracer, "root_memo", None)
    if memo is not None and isinstance(value, (list, dict)):
        # the same list/dict passed twice (aliased locals of a resume function) is one Variable
        hit = memo.get(id(value))
        if hit is not None:
            g.add(f"{expr} is {hit[1]}", f"{desc} is {hit[2]}")
            return hit[0]
    if memo is not None and not isinstance(value, (int, float, bool, str, type(None), tuple)):
        tx.tracer.arg_paths.setdefault(id(value), path)
    if is_resume and (isinstance(value, (np.ndarray,) + _ITER_TYPES) or
                      (isinstance(value, types.MethodType) and isinstance(value.__self__, Tensor))):
        # run-time data handed over by an earlier break: guarded by type only
        from .resume import RuntimeValueVariable
        g.type_is(expr, type(value), desc)
        return RuntimeValueVariable(value, path)
    var = _wrap_containers_once(tx, value, lambda: _wrap_root_value(tx, value, expr, path, desc, is_resume))
    if memo is not None and isinstance(value, (list, dict)):
        memo[id(value)] = (var, expr, desc)
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

def _wrap_root_value(tx, value, expr, path, desc, is_resume):
    g = tx.guards
    g.name_object(value, desc)
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        g.tensor(expr, value, desc)
        return TensorVariable(tx.builder.arg_input(value, path, desc))
    if isinstance(value, (int, float, bool, str, type(None))):
        g.constant(expr, value, desc)
        return ConstantVariable(value)
    if (isinstance(value, tuple) and plain_tuple(value)) or type(value) is list:
        g.length(expr, value, desc)
        items = [_wrap_root(tx, v, f"{expr}[{i}]", path + (i,), f"{desc}[{i}]", is_resume)
                 for i, v in enumerate(value)]
        var = TupleVariable(items, cls=type(value)) if isinstance(value, tuple) \
            else ListVariable(items, external=True)
        var.source = ArgSource(path)  # returned (or live at a break) as the caller's own object
        return var
    if type(value) in PLAIN_DICT_TYPES and all(isinstance(k, str) for k in value):
        g.dict_keys(expr, value, desc)
        var = DictVariable({k: _wrap_root(tx, v, f"{expr}[{k!r}]", path + (k,), f"{desc}[{k!r}]", is_resume)
                            for k, v in value.items()}, external=True, cls=type(value))
        var.source = ArgSource(path)
        return var
    if isinstance(value, Cell):
        g.arg_identity(expr, value, desc)  # weakly: entries must not keep Cells alive
        return CellVariable(value)
    g.identity(expr, value, desc)
    return tx.wrap(value)
