"""Dict views (``d.keys()``, ``d.values()``, ``d.items()``) and ``view.mapping``.

A view is live: it reads the dict it was made from each time it is used, so items the frame
adds or removes later show through it, in the dict's order, as in Python. When the dict's
values are Python values the view has a Python value too (a real view of a dict built from
them), so the set algebra of keys and items views (``&``, ``|``, ``-``, ``^``, comparisons,
``isdisjoint``), ``in``, ``len`` and formatting are Python's own. After the graph it is a real
view of the rebuilt dict (``capture.reconstruct``): ``type(d.items())`` is ``dict_items``.
"""
from __future__ import annotations

import types

from ..errors import GraphBreak, MissingAttribute
from .base import Variable
from .containers import IteratorVariable, TupleVariable, key_variable, rebuild_dict


class DictViewVariable(Variable):
    """``d.keys()`` / ``d.values()`` / ``d.items()`` of the dict Variable ``d`` (``kind``)."""

    def __init__(self, d, kind):
        self.d = d
        self.kind = kind  # "keys", "values" or "items"

    def python_type(self):
        return type(getattr(rebuild_dict(self.d.cls, {}), self.kind)())

    def is_const(self):
        return self.kind == "keys" or all(v.is_const() for v in self.d.items.values())

    @property
    def value(self):
        """A real view with the same items (a view of a dict holding the values now)."""
        if self.kind == "keys":
            d = dict.fromkeys(self.d.items)
        else:
            d = {k: v.value for k, v in self.d.items.items()}
        return getattr(rebuild_dict(self.d.cls, d), self.kind)()

    def realize(self, tx):
        return getattr(self.d.realize(tx), self.kind)()

    def reconstruct(self, rec):
        """A view of the rebuilt dict (the caller's own dict when the frame read it)."""
        return ("call", ("getattr", rec.of(self.d), self.kind), [], {}, rec.memo_key())

    def iterate(self, tx):
        items = self.d.items
        if self.kind == "keys":
            return [key_variable(tx, k) for k in items]
        if self.kind == "values":
            return list(items.values())
        return [TupleVariable([key_variable(tx, k), v]) for k, v in items.items()]

    def length(self, tx):
        return len(self.d.items)

    def truth(self, tx):
        return bool(self.d.items)

    def contains(self, tx, item):
        """``item in view`` (None: needs run-time data)."""
        if self.kind == "keys":
            if not item.is_const():
                return None
            try:
                return item.value in self.d.items
            except TypeError as e:  # unhashable: Python raises it
                raise GraphBreak(f"`in` test raises TypeError at trace time: {e}")
        if not self.is_const() or not item.is_const():
            return None
        return item.value in self.value

    def getattr(self, tx, name):
        if name == "mapping":
            return MappingProxyVariable(self.d)
        if name == "isdisjoint" and self.is_const():
            from .functions import PureFunctionVariable
            return PureFunctionVariable(self.value.isdisjoint)
        if not hasattr(self.python_type(), name):
            raise MissingAttribute(f"'{self.python_type().__name__}' object has no attribute {name!r}")
        raise GraphBreak(f"{self.python_type().__name__}.{name} is not supported in graph mode")

    def describe(self):
        return self.python_type().__name__


class DictIteratorVariable(IteratorVariable):
    """``iter(d)`` / ``iter(d.keys()|values()|items())`` of a modelled dict: it reads the dict as
    it goes (a value replaced meanwhile is seen), and a dict whose keys change while it is being
    iterated is left to Python, which raises RuntimeError."""

    def __init__(self, d, kind):
        self.d, self.kind = d, kind
        self.keys_at_start = list(d.items)
        self.pos = 0
        self._type = type(iter(getattr({}, kind)()))

    @property
    def items(self):
        return DictViewVariable(self.d, self.kind).iterate(None)

    @property
    def lazy(self):
        """Once the dict's keys changed, Python's iterator raises on its next step: no fresh
        iterator behaves so, so one live at a graph break makes the frame run eagerly."""
        return list(self.d.items) != self.keys_at_start

    def next(self, tx):
        if list(self.d.items) != self.keys_at_start:
            raise GraphBreak("a dict changed size or keys while being iterated (RuntimeError at run time)",
                             hint="the frame runs eagerly so Python raises the error")
        return super().next(tx)


class MappingProxyVariable(Variable):
    """``view.mapping``: a read-only proxy of the view's dict."""

    def __init__(self, d):
        self.d = d

    def python_type(self):
        return types.MappingProxyType

    def is_const(self):
        return self.d.is_const()

    @property
    def value(self):
        return types.MappingProxyType(self.d.value)

    def reconstruct(self, rec):
        return ("call", ("val", types.MappingProxyType), [rec.of(self.d)], {}, rec.memo_key())

    def getitem(self, tx, key):
        return self.d.getitem(tx, key)

    def iterate(self, tx):
        return self.d.iterate(tx)

    def length(self, tx):
        return self.d.length(tx)

    def truth(self, tx):
        return self.d.truth(tx)

    def getattr(self, tx, name):
        if name in ("keys", "values", "items", "get"):
            from .containers import DictMethodVariable
            return DictMethodVariable(self.d, name)
        if not hasattr(types.MappingProxyType, name):
            raise MissingAttribute(f"'mappingproxy' object has no attribute {name!r}")
        raise GraphBreak(f"mappingproxy.{name} is not supported in graph mode")

    def describe(self):
        return "mappingproxy"
