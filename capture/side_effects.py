"""Side effects of a traced frame, recorded as data and replayed after its graph.

Traced code may change Python state outside the frame: append to a list it received, write an
item of a global dict, set an attribute of an object or a Cell, assign a global or a ``nonlocal``
variable. None of that can live in the graph, and breaking the graph at each one would cut
training steps into pieces. Instead the translator applies the change to its symbolic model (so
later reads in the same trace see it) and records it here; after the graph runs, the effects are
performed on the real objects in the order the program first made them, before the result is
handed back (or, at a graph break, before the breaking instruction runs), so the caller sees
exactly the state eager execution leaves behind, with the same objects (identity is kept).

Only mutations that can be replayed exactly are recorded: containers with a known source, plain
objects and Cells without custom attribute hooks for the written name. Everything else still
breaks (the frame then runs that part eagerly).

Example:
    >>> import capture, runtime as ms
    >>> seen = []
    >>> @capture.jit
    ... def f(x):
    ...     seen.append(1)
    ...     return x * 2
    >>> f(ms.Tensor([1.0]))
    Tensor(shape=[1], dtype=Float32, value=[2.])
    >>> seen
    [1]
"""
from __future__ import annotations


from .errors import GraphBreak
from .variables.base import class_attribute


class SideEffects:
    """Mutations recorded while tracing one frame (shared by every inlined callee)."""

    def __init__(self):
        # key -> effect, in the order of each target's first mutation
        self._effects: dict = {}
        self._attrs: dict = {}  # (id(obj), name) -> Variable written
        self._globals: dict = {}  # (id(globals), name) -> Variable written
        self._new_names: dict = {}  # id(obj) -> attribute names written, in first-write order

    def __bool__(self):
        return bool(self._effects)

    # -- recording --------------------------------------------------------------------------------
    def mutate_container(self, var, what):
        """``var`` (a list/dict Variable that wraps an object from outside the frame) is about to
        be changed in place: its final contents are written back into that object."""
        if var.source is None:
            raise GraphBreak(f"{what} on a {var.describe()} that exists outside the captured frame "
                             "and whose origin capture cannot name",
                             hint="build a new list/dict instead of mutating it, or accept the graph break")
        self._effects.setdefault(("container", id(var)), ("container", var))

    def set_attr(self, obj_var, name, value):
        """``obj.name = value`` on an object from outside the frame (a plain object or a Cell)."""
        obj = obj_var.obj
        static = class_attribute(type(obj), name, None)
        if hasattr(static, "__set__") or hasattr(static, "__delete__"):
            raise GraphBreak(f"setting {type(obj).__name__}.{name}, a property or descriptor, inside a "
                             "captured region", hint="the assignment runs eagerly")
        if getattr(obj, "__dict__", None) is None:  # (__slots__ without __dict__: AttributeError)
            raise GraphBreak(f"setting attribute {name!r} of a {type(obj).__name__}, which has no __dict__, inside a "
                             "captured region", hint="the assignment runs eagerly (Python raises AttributeError)")
        setter = type(obj).__setattr__
        from runtime.nn.cell import Cell
        if isinstance(obj, Cell):
            d = obj.__dict__
            if name in d.get("_params", ()) or name in d.get("_cells", ()):
                raise GraphBreak(f"replacing the Parameter or Cell {type(obj).__name__}.{name} inside a "
                                 "captured region", hint="the assignment runs eagerly")
        elif setter is not object.__setattr__:
            raise GraphBreak(f"setting attribute {name!r} of a {type(obj).__name__}, which defines "
                             "__setattr__, inside a captured region", hint="the assignment runs eagerly")
        self._record_attr("attr", obj_var, name, value)

    def set_dict_item(self, obj_var, name, value):
        """``obj.__dict__[name] = value`` on an object from outside the frame: replayed as that
        very write (no ``__setattr__``); ``obj.name`` reads it back unless the class has a data
        descriptor of that name (then the write breaks: reads would not see it)."""
        obj = obj_var.obj
        static = class_attribute(type(obj), name, None)
        if hasattr(static, "__set__") or hasattr(static, "__delete__"):
            raise GraphBreak(f"writing {type(obj).__name__}.__dict__[{name!r}], shadowed by a property or "
                             "descriptor, inside a captured region", hint="the write runs eagerly")
        self._record_attr("dictitem", obj_var, name, value)

    def _record_attr(self, kind, obj_var, name, value):
        obj = obj_var.obj
        for k in ("attr", "dictitem"):  # replayed in the order of the last write
            self._effects.pop((k, id(obj), name), None)
        self._effects[(kind, id(obj), name)] = (kind, obj_var, name)
        self._attrs[(id(obj), name)] = value
        names = self._new_names.setdefault(id(obj), [])
        if name not in names:
            names.append(name)

    def new_attr_names(self, obj):
        """Attribute names the traced code wrote on ``obj``, in first-write order."""
        return self._new_names.get(id(obj), ())

    def written_attr(self, obj, name):
        """The Variable last written to ``obj.name`` by the traced code, else None."""
        return self._attrs.get((id(obj), name))

    def set_global(self, f_globals, name, value):
        key = ("global", id(f_globals), name)
        self._effects.pop(key, None)
        self._effects[key] = ("global", f_globals, name)
        self._globals[(id(f_globals), name)] = value

    def written_global(self, f_globals, name):
        return self._globals.get((id(f_globals), name))

    # -- replaying ----------------------------------------------------------------------------------
    def recipes(self, rec, changed_cells=()):
        """The recorded effects as recipes for ``capture.reconstruct.apply_effects``: nonlocal
        writes (``changed_cells``: [(cell, Variable)]) first, then the rest in program order."""
        from .variables import DictVariable
        from .variables.containers import OutsideListVariable
        out = [("cell", cell, rec.of(value)) for cell, value in changed_cells]
        for effect in self._effects.values():
            kind = effect[0]
            if kind == "container":
                var = effect[1]
                target = rec.source(var.source)
                if isinstance(var, OutsideListVariable) and not var.realized:
                    out.append(("append", target, [rec.of(v) for v in var.appended]))
                elif isinstance(var, DictVariable):
                    out.append(("dict", target, {k: rec.of(v) for k, v in var.items.items()}))
                else:
                    out.append(("list", target, [rec.of(v) for v in var.items]))
            elif kind in ("attr", "dictitem"):
                _, obj_var, name = effect
                value = self._attrs[(id(obj_var.obj), name)]
                out.append((kind, rec.of(obj_var), name, rec.of(value)))
            else:
                _, f_globals, name = effect
                out.append(("global", f_globals, name, rec.of(self._globals[(id(f_globals), name)])))
        return out
