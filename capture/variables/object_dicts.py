"""``obj.__dict__`` (and ``vars(obj)``) while tracing.

An object's ``__dict__`` and its attributes are two ways to the same storage, so they share one
model. For an object from outside the frame (:class:`ObjectDictVariable`) the model is the real
dict plus the attribute writes the traced code made (``capture.side_effects``): ``o.c = 3`` then
``dict(o.__dict__)`` shows ``c`` after the attributes ``o`` already had, and
``o.__dict__["a"] = 10`` is a write ``o.a`` reads back, replayed after the graph as a write
into the real ``__dict__`` (bypassing ``__setattr__``, as Python does). Only the names the
traced code reads are guarded. For an object the frame created
(:class:`NewObjectDictVariable`) the dict is the object's attribute table itself.
"""
from __future__ import annotations


from ..errors import GraphBreak
from ..sources import Attr, Item
from .base import ConstantVariable, Variable, class_attribute
from .containers import DictVariable


def has_plain_dict(obj) -> bool:
    """Whether ``obj.__dict__`` is the instance's own attribute dict (no class-level override)."""
    d = getattr(obj, "__dict__", None)
    return type(d) is dict and class_attribute(type(obj), "__dict__", None) is not None and \
        not isinstance(obj, type)


def object_dict(tx, obj_var):
    """The one Variable for ``obj.__dict__`` of the outside object ``obj_var`` in this trace."""
    models = tx.tracer.__dict__.setdefault("object_dicts", {})
    known = models.get(id(obj_var.obj))
    if known is None:
        known = models[id(obj_var.obj)] = ObjectDictVariable(obj_var)
    return known


class ObjectDictVariable(Variable):
    """``obj.__dict__`` of an object from outside the frame (``obj_var``: its Variable)."""

    def __init__(self, obj_var):
        self.obj_var = obj_var

    @property
    def obj(self):
        return self.obj_var.obj

    def python_type(self):
        return dict

    def reconstruct(self, rec):
        return ("getattr", rec.of(self.obj_var), "__dict__")

    # -- the model ---------------------------------------------------------------------------------
    def _names(self, tx):
        """The keys now: the real dict's (guarded), then names the trace added, in order."""
        g = tx.guards
        real = self.obj.__dict__
        g.dict_keys(Attr(g.obj(self.obj), "__dict__"), real, f"{g.path_of(self.obj)}.__dict__")
        effects = tx.tracer.side_effects
        return list(real) + [n for n in effects.new_attr_names(self.obj) if n not in real]

    def _read(self, tx, name):
        written = tx.tracer.side_effects.written_attr(self.obj, name)
        if written is not None:
            return written
        real = self.obj.__dict__
        g = tx.guards
        if name not in real:
            g.absent(Attr(g.obj(self.obj), "__dict__"), name, f"{g.path_of(self.obj)} has no {name!r}")
            return None
        return tx.guard_and_wrap(Item(Attr(g.obj(self.obj), "__dict__"), name), real[name],
                                 f"{g.path_of(self.obj)}.__dict__[{name!r}]")

    def snapshot(self, tx) -> dict:
        """name -> Variable of every item now (reads, and guards, each of them)."""
        return {n: self._read(tx, n) for n in self._names(tx)}

    def contains(self, tx, name) -> bool:
        return self._read(tx, name) is not None

    def set_item(self, tx, key, value):
        if not key.is_const() or not isinstance(key.value, str):
            raise GraphBreak("writing a non-string key into an object's __dict__")
        tx.tracer.side_effects.set_dict_item(self.obj_var, key.value, value)

    # -- dict protocol -----------------------------------------------------------------------------
    def getitem(self, tx, key):
        if not key.is_const():
            raise GraphBreak("indexing an object's __dict__ with a traced value")
        v = self._read(tx, key.value) if isinstance(key.value, str) else None
        if v is None:
            raise GraphBreak(f"KeyError {key.value!r} at trace time")
        return v

    def iterate(self, tx):
        return [ConstantVariable(n) for n in self._names(tx)]

    def length(self, tx):
        return len(self._names(tx))

    def truth(self, tx):
        return bool(self._names(tx))

    def as_dict_variable(self, tx):
        """A new dict Variable holding the items now (``dict(o.__dict__)``, ``.items()``...)."""
        return DictVariable(self.snapshot(tx))

    def getattr(self, tx, name):
        from .containers import DictMethodVariable
        if name in ("keys", "values", "items", "get", "copy"):
            return _SnapshotMethod(self, name)
        if name in ("update", "setdefault"):
            return _WriteMethod(self, name)
        if hasattr(dict, name):
            raise GraphBreak(f"dict.{name} on an object's __dict__ is not supported in graph mode")
        return DictMethodVariable(self, name)  # (raises the AttributeError Python raises)

    def describe(self):
        return f"__dict__ of a {type(self.obj).__name__} object"


class _SnapshotMethod(Variable):
    """Read-only dict methods of an object's ``__dict__``, answered from the model (views are
    of a snapshot: later writes do not show through them)."""

    def __init__(self, od, name):
        self.od, self.name = od, name

    def call(self, tx, args, kwargs):
        if self.name == "copy":
            return self.od.as_dict_variable(tx)
        if self.name in ("keys", "values", "items"):
            if args or kwargs:
                raise GraphBreak(f"dict.{self.name}() takes no arguments (TypeError at run time)")
            from .dict_views import DictViewVariable
            return DictViewVariable(self.od.as_dict_variable(tx), self.name)
        from .containers import DictMethodVariable
        return DictMethodVariable(self.od.as_dict_variable(tx), self.name).call(tx, args, kwargs)


class _WriteMethod(Variable):
    """``o.__dict__.update(...)`` / ``.setdefault(k, v)``: item writes into the model."""

    def __init__(self, od, name):
        self.od, self.name = od, name

    def call(self, tx, args, kwargs):
        from .containers import dict_items_of
        if self.name == "setdefault":
            if kwargs or not 1 <= len(args) <= 2:
                raise GraphBreak("setdefault() takes 1 or 2 positional arguments (TypeError at run time)")
            current = self.od._read(tx, args[0].value) if args[0].is_const() and isinstance(args[0].value, str) \
                else None
            if current is not None:
                return current
            value = args[1] if len(args) > 1 else ConstantVariable(None)
            self.od.set_item(tx, args[0], value)
            return value
        if len(args) > 1:
            raise GraphBreak(f"update expected at most 1 argument, got {len(args)} (TypeError at run time)")
        items = dict_items_of(tx, args[0]) if args else {}
        items.update(kwargs)
        for k, v in items.items():
            self.od.set_item(tx, ConstantVariable(k), v)
        return ConstantVariable(None)


class NewObjectDictVariable(DictVariable):
    """``obj.__dict__`` of an object the frame created: its attribute table itself (writes to
    either show in both); after the graph, the rebuilt object's ``__dict__``."""

    def __init__(self, new_obj):
        super().__init__({})
        self.items = new_obj.attrs  # shared, not copied
        self.new_obj = new_obj

    def reconstruct(self, rec):
        return ("getattr", rec.of(self.new_obj), "__dict__")
