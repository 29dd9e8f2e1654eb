"""Reconstruction: the Python values a traced frame leaves behind, rebuilt after its graph ran.

Each Variable knows how it is rebuilt (``Variable.reconstruct`` in ``capture.variables``): it
returns a *recipe*, a small tuple. :class:`Recipes` asks the Variables for theirs, memoises them
(a value reached twice is rebuilt once, as one object) and collects the graph outputs they read;
:func:`build` evaluates a recipe for one call from the graph's outputs and the call's arguments.
One mechanism serves both places that need real objects back: the frame's return value
(:class:`OutputPlan`) and the live stack and locals at a graph break (``capture.resume``). What a
value is rebuilt from follows where it came from:

- a tensor computed by the graph: that graph output; an argument tensor or a Parameter: the same
  object (identity is kept, as in eager);
- a list/dict the frame received or read from outside, or a tuple argument (its ``source``, see
  ``capture.sources``: an argument, an attribute, a global, an item, a closure cell): read
  again for this call, so the caller gets its own object back;
- containers the frame built: new containers of the exact type (namedtuples, OrderedDict);
- functions, methods, partials, closures, constants: rebuilt or reused.

Side effects (``capture.side_effects``) are recipes too: writes applied in program order after
the graph, before the result is handed back or the breaking instruction runs.

The recipes :func:`build` evaluates (``r`` a recipe, ``k`` a memo key: one object per call):

=====================================  ==========================================================
``("val", v)`` / ``("obj", o)``        ``v`` / ``o`` itself (``obj``: a tensor held by an object)
``("out", i)``                         graph output ``i``
``("src", source)``                   read from the call's arguments (an argument's source)
``("item", r, key)``                   ``build(r)[key]``
``("getattr", r, name)``               ``getattr(build(r), name)``
``("tconst", array, k)``               a new Tensor holding a copy of a graph constant
``("copy", v, k)``                     ``copy.copy(v)``
``("list"|"tuple", [r...], cls, k)``   a new list / tuple of type ``cls`` (None: tuple)
``("dict", {key: r}, cls, k)``         a new dict of type ``cls`` (None: dict)
``("iter", [r...], k)``                a new iterator over the items
``("newobj", cls, {name: r}, k)``      ``object.__new__(cls)`` with these attributes
``("func", code, globals, [r...],      a function made by the frame: its defaults, keyword-only
{name: r}, [cell...], k)``             defaults and (real) closure cells
``("same_tuple", r_src, r_new, k)``    ``build(r_src)`` when it is a tuple of the same type whose
                                       items are those of ``build(r_new)`` (a tuple read from
                                       outside, kept as that object: ``is`` holds after a break),
                                       else the new tuple ``build(r_new)``
``("slice", [r, r, r])``               ``slice(...)``
``("newcell", r or None, k)``          a new closure cell (for a closure over the frame's own
                                       variable, in the frame's result)
``("method", r_fn, r_self)``           a bound method
``("partial", r_fn, [r...], {k: r},   ``functools.partial`` (one per call)
k)``
``("call", r_fn, [r...], {k: r}, k)``  ``fn(*args, **kwargs)``: a generator function called again
                                       (it only makes the generator: its body runs later)
``("super", r_cls, r_obj)``            ``super(cls, obj)``
``("weak", ref)``                      ``ref()``: an object the entry's guards hold weakly (a
                                       ``val``/``obj`` recipe after :func:`hold_weakly`)
=====================================  ==========================================================

Example:
    >>> build(("tuple", [("val", 1), ("out", 0)], None, 1), ["t0"], (), {})
    (1, 't0')
"""
from __future__ import annotations

import copy
import functools
import types

from .sources import arg_source
from .variables.base import NotResumable  # noqa: F401 (raised by Variable.reconstruct; re-exported)
from .variables.containers import rebuild_dict, rebuild_tuple


class Recipes:
    """The recipes of one compiled region: ``of(var)`` is ``var.reconstruct(self)``, memoised.

    What a Variable's ``reconstruct`` may ask of it: :meth:`of` (the recipes of the Variables it
    holds), :meth:`output` (a graph Value to hand out), :meth:`memo_key` (a key under which
    :func:`build` keeps the one object made per call), :meth:`remember` (its own recipe before
    its parts are made, so a value that refers back to itself ends), :meth:`source` and
    :meth:`object_recipe` (reading objects again for each call), ``builder`` (the graph and its
    input sources) and ``free_cells`` (the real closure cell behind each Box of a root free
    variable)."""

    def __init__(self, builder, arg_paths, free_cells):
        self.builder = builder
        self.arg_paths = arg_paths  # id(python object) -> argument path
        self.free_cells = free_cells  # id(Box) -> the real cell of a root free variable
        # True while making the frame's result (no more of the frame runs): a closure over the
        # frame's own locals then gets new cells holding their final values (see local_cell)
        self.frame_done = False
        self._cell_keys = {}  # id(Box) -> memo key of its new cell
        self.outputs = []  # graph Values to output
        self._out_index = {}
        self._memo = {}
        self._next = 0

    def of(self, var) -> tuple:
        """The recipe of ``var`` (one per Variable: a value reached twice is one object)."""
        hit = self._memo.get(id(var))
        if hit is None:
            hit = self._memo[id(var)] = var.reconstruct(self)
        return hit

    def remember(self, var, recipe) -> None:
        """Record ``recipe`` as ``var``'s before its parts are made (an object whose attributes
        refer back to it: the recursion stops at the recorded recipe)."""
        self._memo[id(var)] = recipe

    def output(self, value) -> int:
        """The index of graph Value ``value`` among the graph's outputs (added once)."""
        i = self._out_index.get(id(value))
        if i is None:
            i = self._out_index[id(value)] = len(self.outputs)
            self.outputs.append(value)
        return i

    def memo_key(self) -> int:
        """A fresh key for a recipe that makes one object per call (shared by every use)."""
        self._next += 1
        return self._next

    def local_cell(self, box) -> tuple:
        """The recipe of a new closure cell standing for the frame's own cell ``box`` once the
        frame has returned: every function of the result that closes over it shares it (one per
        call), and it holds the variable's final value, as the frame's cell does in Python."""
        key = self._cell_keys.get(id(box))
        if key is None:
            key = self._cell_keys[id(box)] = self.memo_key()
        return ("newcell", None if box.value is None else self.of(box.value), key)

    def source(self, src) -> tuple:
        """The recipe reading the object a source (``capture.sources``) names."""
        return src.recipe(self)

    def object_recipe(self, obj) -> tuple:
        """``obj`` itself, or, when it is one of the call's arguments, read from the call."""
        path = self.arg_paths.get(id(obj))
        if path is not None:
            return arg_source(path).recipe(self)
        return ("val", obj)


def build(r, outs, flat, memo):
    """Evaluate a recipe for one call."""
    kind = r[0]
    if kind == "val":
        return r[1]
    if kind == "out":
        return outs[r[1]]
    if kind == "weak":  # (alive: the entry's guards read it through the same reference and passed)
        return r[1]()
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
    if kind in ("tconst", "copy", "list", "tuple", "dict", "iter", "func", "call"):
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
        elif kind == "call":
            out = build(r[1], outs, flat, memo)(*(build(a, outs, flat, memo) for a in r[2]),
                                                **{k: build(v, outs, flat, memo) for k, v in r[3].items()})
        else:
            _, code, glob, defaults, kwdefaults, cells, _k = r
            cells = tuple(c if isinstance(c, types.CellType) else build(c, outs, flat, memo) for c in cells)
            out = types.FunctionType(code, glob, code.co_name,
                                     tuple(build(d, outs, flat, memo) for d in defaults) or None, cells)
            if kwdefaults:
                out.__kwdefaults__ = {k: build(v, outs, flat, memo) for k, v in kwdefaults.items()}
            out.__qualname__ = getattr(code, "co_qualname", code.co_name)
        memo[key] = out
        return out
    if kind == "same_tuple":  # (kind, source recipe, new-tuple recipe, memo key)
        if r[3] in memo:
            return memo[r[3]]
        new = build(r[2], outs, flat, memo)
        try:
            found = build(r[1], outs, flat, memo)
        except Exception:  # the source no longer reads (an attribute deleted...): the new tuple
            found = None
        same = (type(found) is type(new) and len(found) == len(new)
                and all(a is b for a, b in zip(found, new)))
        out = memo[r[3]] = found if same else new
        return out
    if kind == "newcell":  # (kind, contents recipe or None, memo key): made before its contents
        out = memo.get(r[2])
        if out is None:
            out = memo[r[2]] = types.CellType()
            if r[1] is not None:
                out.cell_contents = build(r[1], outs, flat, memo)
        return out
    if kind == "slice":
        return slice(*(build(x, outs, flat, memo) for x in r[1]))
    if kind == "method":
        return types.MethodType(build(r[1], outs, flat, memo), build(r[2], outs, flat, memo))
    if kind == "partial":  # (kind, fn, args, kwargs, memo key): one object per call
        out = memo.get(r[4])
        if out is None:
            out = memo[r[4]] = functools.partial(
                build(r[1], outs, flat, memo), *(build(a, outs, flat, memo) for a in r[2]),
                **{k: build(v, outs, flat, memo) for k, v in r[3].items()})
        return out
    if kind == "super":
        return super(build(r[1], outs, flat, memo), build(r[2], outs, flat, memo))
    if kind == "getattr":
        return getattr(build(r[1], outs, flat, memo), r[2])
    if kind == "item":
        return build(r[1], outs, flat, memo)[r[2]]
    raise ValueError(f"bad recipe {r!r}")


# -- holding the objects recipes name weakly ---------------------------------------------------------------
def hold_weakly(recipe, held):
    """``recipe`` with each ``val``/``obj`` recipe of an object in ``held`` (``{id(object): weak
    reference}``: the objects the entry's guards hold weakly, see
    :meth:`capture.guards.GuardSet.hold_weakly`) turned into a ``weak`` recipe reading it through
    that reference. A compiled entry's recipes (its result, its side effects, the state rebuilt
    at a graph break) then keep nothing alive its guards do not: an entry whose net was dropped
    is dropped too, instead of keeping the net and its Parameters. Safe because such an object
    is guarded by identity: when the guards pass, it is alive (the guard read it from outside).
    Lists and dicts inside the recipe are updated in place (a self-referring value's recipe
    refers back to itself through one of them)."""
    if not held:
        return recipe
    return _Weakener(held).recipe(recipe)


class _Weakener:
    def __init__(self, held):
        self.held = held
        self.seen = set()  # ids of the lists/dicts already updated (recipes may be cyclic)

    def recipe(self, r):
        if not isinstance(r, tuple) or not r or not isinstance(r[0], str):
            return r
        kind = r[0]
        if kind in ("val", "obj"):
            ref = self.held.get(id(r[1]))
            return r if ref is None else ("weak", ref)
        if kind in ("item", "getattr"):
            return (kind, self.recipe(r[1]), *r[2:])
        if kind in ("list", "tuple", "iter", "slice"):
            return (kind, self.items(r[1]), *r[2:])
        if kind == "dict":
            return (kind, self.values(r[1]), *r[2:])
        if kind == "newobj":
            return (kind, r[1], self.values(r[2]), r[3])
        if kind == "func":
            _, code, glob, defaults, kwdefaults, cells, key = r
            cells = [c if isinstance(c, types.CellType) else self.recipe(c) for c in cells]
            return (kind, code, glob, self.items(defaults), self.values(kwdefaults) if kwdefaults else kwdefaults,
                    cells, key)
        if kind == "newcell":
            return (kind, None if r[1] is None else self.recipe(r[1]), r[2])
        if kind in ("method", "super"):
            return (kind, self.recipe(r[1]), self.recipe(r[2]))
        if kind in ("partial", "call"):
            return (kind, self.recipe(r[1]), self.items(r[2]), self.values(r[3]), r[4])
        return r  # out, src, gitem, cellc, tconst, copy: nothing held beyond what they read

    def items(self, seq):
        if id(seq) in self.seen:
            return seq
        self.seen.add(id(seq))
        if isinstance(seq, list):
            seq[:] = [self.recipe(x) for x in seq]
            return seq
        return type(seq)(self.recipe(x) for x in seq)

    def values(self, d):
        if id(d) in self.seen:
            return d
        self.seen.add(id(d))
        for k in list(d):
            d[k] = self.recipe(d[k])
        return d

    def effect(self, e):
        kind = e[0]
        if kind == "cell":
            return (kind, e[1], self.recipe(e[2]))
        if kind in ("attr", "dictitem"):
            return (kind, self.recipe(e[1]), e[2], self.recipe(e[3]))
        if kind == "global":
            return (kind, e[1], e[2], self.recipe(e[3]))
        if kind in ("list", "append"):
            return (kind, self.recipe(e[1]), self.items(e[2]))
        if kind == "dict":
            return (kind, self.recipe(e[1]), self.values(e[2]))
        return e


def hold_effects_weakly(effects, held):
    """:func:`hold_weakly` for a list of side-effect recipes (``capture.side_effects``)."""
    if not held or not effects:
        return effects
    w = _Weakener(held)
    return [w.effect(e) for e in effects]


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
        elif kind == "dictitem":  # obj.__dict__[name] = value (no __setattr__, as the program wrote it)
            build(e[1], outs, flat, memo).__dict__[e[2]] = build(e[3], outs, flat, memo)
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
