"""Reconstruction: the Python values a traced frame leaves behind, rebuilt after its graph ran.

Every Variable the translator holds can be turned into a *recipe* (a small tuple) by
:class:`Recipes`; :func:`build` evaluates a recipe for one call from the graph's outputs and the
call's arguments. One mechanism serves both places that need real objects back: the frame's
return value (:class:`OutputPlan`) and the live stack and locals at a graph break
(``capture.resume``). What a value is rebuilt from follows where it came from:

- a tensor computed by the graph: that graph output; an argument tensor or a Parameter: the same
  object (identity is kept, as in eager);
- a list/dict/tuple the frame received or read from outside (its ``source``, see
  ``capture.sources``: an argument, an attribute, a global, an item, a closure cell): read
  again for this call, so the caller gets its own object back;
- containers the frame built: new containers of the exact type (namedtuples, OrderedDict);
- functions, methods, partials, closures, constants: rebuilt or reused.

Side effects (``capture.side_effects``) are recipes too: writes applied in program order after
the graph, before the result is handed back or the breaking instruction runs.

Example:
    >>> build(("tuple", [("val", 1), ("out", 0)], None, 1), ["t0"], (), {})
    (1, 't0')
"""
from __future__ import annotations

import copy
import functools
import types

from .sources import ArgSource
from .variables.containers import rebuild_dict, rebuild_tuple


class NotResumable(Exception):
    """A value cannot be rebuilt as a Python object (at a break: the whole frame runs eagerly)."""


class Recipes:
    """Turns Variables into recipes (tuples) evaluated per call by :func:`build`."""

    def __init__(self, builder, arg_paths, free_cells):
        self.builder = builder
        self.arg_paths = arg_paths  # id(python object) -> argument path
        self.free_cells = free_cells  # id(Box) -> the real cell of a root free variable
        self.outputs = []  # graph Values to output
        self._out_index = {}
        self._memo = {}
        self._next = 0

    def _out(self, value):
        i = self._out_index.get(id(value))
        if i is None:
            i = self._out_index[id(value)] = len(self.outputs)
            self.outputs.append(value)
        return i

    def _mid(self):
        self._next += 1
        return self._next

    def of(self, var):
        key = id(var)
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        r = self._make(var)
        self._memo[key] = r
        return r

    def _tensor(self, sym):
        from graph.ir import CONST, INPUT, PARAM
        v = sym.value
        if v.kind == PARAM or (v.kind == INPUT and v.ref is not None):
            if v not in self.builder.graph.updates:
                return ("obj", v.ref)
        if v.kind == INPUT and v.ref is None:
            return self.builder.sources[self.builder.graph.inputs.index(v)].recipe(self)
        if v.kind == CONST:
            return ("tconst", v.data, self._mid())
        return ("out", self._out(v))

    def _make(self, var):
        from . import variables as V
        from .variables import functions as F
        from .variables import objects as O
        from .resume import RuntimeValueVariable
        if isinstance(var, V.TensorVariable):
            return self._tensor(var.sym)
        if isinstance(var, RuntimeValueVariable):
            return ("src", ArgSource(var.path))
        if isinstance(var, V.SetVariable):
            return ("copy", var.value, self._mid())
        if isinstance(var, V.ClassVariable):
            return ("val", var.cls)
        if isinstance(var, V.ConstantVariable):
            val = var.value
            if isinstance(val, (set, bytearray, list, dict)):
                return ("copy", val, self._mid())
            if id(val) in self.arg_paths and not isinstance(val, (int, float, str, bool, type(None))):
                return ("src", ArgSource(self.arg_paths[id(val)]))
            return ("val", val)
        if isinstance(var, (V.TupleVariable, V.DictVariable)):
            src = var.source
            if src is not None:  # the caller's own object, never a copy
                return self.source(src)
            if var.external and (isinstance(var, V.DictVariable) or var.kind is list):
                raise NotResumable(f"a {var.describe()} read from outside the frame, with no known source")
            if isinstance(var, V.DictVariable):
                return ("dict", {k: self.of(v) for k, v in var.items.items()}, var.cls, self._mid())
            return (var.kind.__name__, [self.of(v) for v in var.items], var.cls, self._mid())
        if isinstance(var, V.IteratorVariable):
            if var.lazy:
                raise NotResumable(f"a {var.describe()} over another iterator is live at the break")
            return ("iter", [self.of(v) for v in var.items[var.pos:]], self._mid())
        if isinstance(var, V.SliceVariable):
            return ("slice", [self.of(p) for p in var.parts])
        if isinstance(var, O.NewObjectVariable):  # memoized before its attributes: cycles end
            r = ("newobj", var.cls, {}, self._mid())
            self._memo[id(var)] = r
            r[2].update({k: self.of(v) for k, v in var.attrs.items()})
            return r
        if isinstance(var, (O.ObjectVariable,)):  # CellVariable too
            return self.object_recipe(var.obj)
        if isinstance(var, V.ModuleVariable):
            return ("val", var.mod)
        if isinstance(var, F.BuiltinVariable):
            return ("val", var.fn)
        if isinstance(var, (F.PureFunctionVariable, F.FrameworkCallableVariable, F.OpaqueCallableVariable,
                            F.PrintVariable)):
            return self.object_recipe(var.fn)
        if isinstance(var, F.UserFunctionVariable):
            if var.self_var is None:
                return self.object_recipe(var.fn)
            return ("method", self.object_recipe(var.fn), self.of(var.self_var))
        if isinstance(var, O.CellMethodVariable):
            return ("method", ("val", var.method.__func__), self.of(var.self_var))
        if isinstance(var, F.PartialVariable):
            return ("partial", self.of(var.fn), [self.of(a) for a in var.args],
                    {k: self.of(v) for k, v in var.kwargs.items()})
        if isinstance(var, F.NestedFunctionVariable):
            cells = []
            for box in var.closure:
                cell = self.free_cells.get(id(box))
                if cell is None:
                    raise NotResumable("a closure over a local of the frame is live at the break")
                cells.append(("val", cell))
            return ("func", var.code, var.f_globals, [self.of(d) if isinstance(d, V.Variable) else ("val", d)
                                                      for d in var.defaults],
                    {k: self.of(v) if isinstance(v, V.Variable) else ("val", v) for k, v in var.kwdefaults.items()},
                    cells, self._mid())
        if isinstance(var, F.SuperVariable):
            return ("super", ("val", var.cls), self.of(var.obj_var))
        from .variables.containers import DictMethodVariable, ListMethodVariable
        if isinstance(var, ListMethodVariable):
            return ("getattr", self.of(var.lst), var.name)
        if isinstance(var, DictMethodVariable):
            return ("getattr", self.of(var.d), var.name)
        raise NotResumable(f"a {var.describe()} is live at the break")

    def source(self, src):
        """The recipe reading the object a source (``capture.sources``) names."""
        return src.recipe(self)

    def object_recipe(self, obj):
        """``obj`` itself, or, when it is one of the call's arguments, read from the call."""
        path = self.arg_paths.get(id(obj))
        if path is not None:
            return ("src", ArgSource(path))
        return ("val", obj)


def build(r, outs, flat, memo):
    """Evaluate a recipe for one call."""
    kind = r[0]
    if kind == "val":
        return r[1]
    if kind == "out":
        return outs[r[1]]
    if kind == "src":
        return r[1].read(flat)
    if kind == "obj":
        return r[1]
    if kind == "newobj":  # (kind, class, {attribute: recipe}, memo key)
        out = memo.get(r[3])
        if out is None:
            out = memo[r[3]] = object.__new__(r[1])
            for name, x in r[2].items():
                object.__setattr__(out, name, build(x, outs, flat, memo))
        return out
    if kind in ("tconst", "copy", "list", "tuple", "dict", "iter", "func"):
        key = r[-1]
        if key in memo:
            return memo[key]
        if kind == "tconst":
            from runtime.tensor import Tensor
            out = Tensor._wrap(r[1].copy())
        elif kind == "copy":
            out = copy.copy(r[1])
        elif kind == "list":
            out = [build(x, outs, flat, memo) for x in r[1]]
        elif kind == "tuple":  # (kind, items, exact tuple type or None, memo key)
            out = rebuild_tuple(r[2], [build(x, outs, flat, memo) for x in r[1]])
        elif kind == "dict":
            out = rebuild_dict(r[2], {k: build(x, outs, flat, memo) for k, x in r[1].items()})
        elif kind == "iter":
            out = iter([build(x, outs, flat, memo) for x in r[1]])
        else:
            _, code, glob, defaults, kwdefaults, cells, _k = r
            out = types.FunctionType(code, glob, code.co_name,
                                     tuple(build(d, outs, flat, memo) for d in defaults) or None, tuple(cells))
            if kwdefaults:
                out.__kwdefaults__ = {k: build(v, outs, flat, memo) for k, v in kwdefaults.items()}
            out.__qualname__ = getattr(code, "co_qualname", code.co_name)
        memo[key] = out
        return out
    if kind == "slice":
        return slice(*(build(x, outs, flat, memo) for x in r[1]))
    if kind == "method":
        return types.MethodType(build(r[1], outs, flat, memo), build(r[2], outs, flat, memo))
    if kind == "partial":
        return functools.partial(build(r[1], outs, flat, memo), *(build(a, outs, flat, memo) for a in r[2]),
                                 **{k: build(v, outs, flat, memo) for k, v in r[3].items()})
    if kind == "super":
        return super(build(r[1], outs, flat, memo), build(r[2], outs, flat, memo))
    if kind == "getattr":
        return getattr(build(r[1], outs, flat, memo), r[2])
    if kind == "gitem":
        return r[1][r[2]]
    if kind == "item":
        return build(r[1], outs, flat, memo)[r[2]]
    if kind == "cellc":
        return r[1].cell_contents
    raise ValueError(f"bad recipe {r!r}")


class OutputPlan:
    """What a compiled frame without a break hands back: its result rebuilt by a recipe, after
    the recorded side effects are applied (in program order)."""

    __slots__ = ("result", "effects")

    def __init__(self, result, effects):
        self.result = result
        self.effects = effects

    def build(self, outs, flat):
        r = self.result
        if not self.effects and r[0] == "out":  # the common case (one tensor): no memo, no recursion
            return outs[r[1]]
        memo = {}
        result = build(r, outs, flat, memo)
        apply_effects(self.effects, outs, flat, memo)
        return result


def apply_effects(effects, outs, flat, memo):
    """Perform recorded side effects (see ``capture.side_effects``) for one call. Containers are
    located first, where the frame found them, so a write that rebinds the name they were reached
    through (``self.log = []`` after ``self.log.append(x)``) cannot redirect an earlier mutation."""
    targets = [build(e[1], outs, flat, memo) if e[0] in ("list", "dict", "append") else None for e in effects]
    for e, target in zip(effects, targets):
        kind = e[0]
        if kind == "cell":
            e[1].cell_contents = build(e[2], outs, flat, memo)
        elif kind == "attr":
            setattr(build(e[1], outs, flat, memo), e[2], build(e[3], outs, flat, memo))
        elif kind == "global":
            e[1][e[2]] = build(e[3], outs, flat, memo)
        elif kind == "list":
            target[:] = [build(x, outs, flat, memo) for x in e[2]]
        elif kind == "dict":
            items = {k: build(x, outs, flat, memo) for k, x in e[2].items()}
            target.clear()
            target.update(items)
        elif kind == "append":
            target.extend([build(x, outs, flat, memo) for x in e[2]])
        else:
            raise ValueError(f"bad side effect {e!r}")
