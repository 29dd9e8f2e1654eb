"""Tuples, lists, dicts, slices and iterators built or read while tracing."""
from __future__ import annotations

from ..errors import GraphBreak
from .base import ConstantVariable, Variable


def check_mutable(var, what):
    """Mutating a list/dict that exists outside the captured frame (an attribute, a global, an
    argument) is a side effect the graph cannot replay: break instead of mutating a copy."""
    if getattr(var, "external", False):
        raise GraphBreak(f"{what} on a {var.describe()} that exists outside the captured frame "
                         "(an attribute, global or argument)",
                         hint="build a new list/dict instead of mutating it, or mutate it outside construct")


class TupleVariable(Variable):
    kind = tuple
    source = None  # where an external list lives: ("arg", path) / ("attr", obj, name) / ("global", dict, name)

    def __init__(self, items, external=False):
        self.items = list(items)
        self.external = external  # wraps a Python list/dict the frame did not create

    def python_type(self):
        return self.kind

    def is_const(self):
        return all(i.is_const() for i in self.items)

    @property
    def value(self):
        return self.kind(i.value for i in self.items)

    def realize(self, tx):
        return self.kind(i.realize(tx) for i in self.items)

    def iterate(self, tx):
        return list(self.items)

    def length(self, tx):
        return len(self.items)

    def truth(self, tx):
        return bool(self.items)

    def getitem(self, tx, key):
        if not key.is_const():
            raise GraphBreak("indexing a tuple/list with a traced value")
        k = key.value
        if isinstance(k, slice):
            return type(self)(self.items[k])
        try:
            return self.items[k]
        except (IndexError, TypeError) as e:
            raise GraphBreak(f"indexing failed at trace time: {e}")

    def getattr(self, tx, name):
        if self.kind is list and name in ("append", "extend", "pop", "insert", "reverse"):
            return ListMethodVariable(self, name)
        if name in ("index", "count") and self.is_const():
            return tx.wrap(getattr(self.value, name))
        raise GraphBreak(f"{self.kind.__name__}.{name} is not supported in graph mode")

    def describe(self):
        return self.kind.__name__


class ListVariable(TupleVariable):
    kind = list


class ListMethodVariable(Variable):
    """Mutating methods of a list created inside the captured frame."""

    def __init__(self, lst, name):
        self.lst, self.name = lst, name

    def call(self, tx, args, kwargs):
        if kwargs:
            raise GraphBreak(f"list.{self.name} with keyword arguments")
        check_mutable(self.lst, f"list.{self.name}()")
        items = self.lst.items
        if self.name == "append":
            items.append(args[0])
        elif self.name == "extend":
            items.extend(args[0].iterate(tx))
        elif self.name == "insert":
            items.insert(args[0].value, args[1])
        elif self.name == "reverse":
            items.reverse()
        elif self.name == "pop":
            return items.pop(args[0].value if args else -1)
        return ConstantVariable(None)


class DictVariable(Variable):
    source = None

    def __init__(self, items: dict, external=False):
        self.items = dict(items)  # const key -> Variable
        self.external = external

    def python_type(self):
        return dict

    def is_const(self):
        return all(v.is_const() for v in self.items.values())

    @property
    def value(self):
        return {k: v.value for k, v in self.items.items()}

    def realize(self, tx):
        return {k: v.realize(tx) for k, v in self.items.items()}

    def getitem(self, tx, key):
        if not key.is_const():
            raise GraphBreak("indexing a dict with a traced value")
        try:
            return self.items[key.value]
        except KeyError:
            raise GraphBreak(f"KeyError {key.value!r} at trace time")

    def length(self, tx):
        return len(self.items)

    def truth(self, tx):
        return bool(self.items)

    def iterate(self, tx):
        return [ConstantVariable(k) for k in self.items]

    def getattr(self, tx, name):
        if name in ("keys", "values", "items", "get", "update", "pop", "setdefault"):
            return DictMethodVariable(self, name)
        raise GraphBreak(f"dict.{name} is not supported in graph mode")


class DictMethodVariable(Variable):
    def __init__(self, d, name):
        self.d, self.name = d, name

    def call(self, tx, args, kwargs):
        items = self.d.items
        if self.name == "keys":
            return ListVariable([ConstantVariable(k) for k in items])
        if self.name == "values":
            return ListVariable(list(items.values()))
        if self.name == "items":
            return ListVariable([TupleVariable([ConstantVariable(k), v]) for k, v in items.items()])
        if self.name == "get":
            key = _const_key(args[0])
            return items.get(key, args[1] if len(args) > 1 else ConstantVariable(None))
        check_mutable(self.d, f"dict.{self.name}()")
        if self.name == "update":
            for a in args:
                if not isinstance(a, DictVariable):
                    raise GraphBreak("dict.update with a non-dict argument")
                items.update(a.items)
            items.update(kwargs)
            return ConstantVariable(None)
        if self.name == "pop":
            key = _const_key(args[0])
            if key in items:
                return items.pop(key)
            if len(args) > 1:
                return args[1]
            raise GraphBreak(f"KeyError {key!r} at trace time")
        if self.name == "setdefault":
            key = _const_key(args[0])
            return items.setdefault(key, args[1] if len(args) > 1 else ConstantVariable(None))
        raise GraphBreak(f"dict.{self.name}")


def _const_key(var):
    if not var.is_const():
        raise GraphBreak("dict key is a traced value")
    return var.value


class SliceVariable(Variable):
    def __init__(self, start, stop, step):
        self.parts = (start, stop, step)

    def is_const(self):
        return all(p.is_const() for p in self.parts)

    @property
    def value(self):
        return slice(*(p.value for p in self.parts))

    def realize(self, tx):
        return slice(*(p.realize(tx) for p in self.parts))


class IteratorVariable(Variable):
    """An iterator over items known at trace time (loops are unrolled)."""

    def __init__(self, items):
        self.items = list(items)
        self.pos = 0

    def iterate(self, tx):
        rest = self.items[self.pos:]
        self.pos = len(self.items)
        return rest

    def describe(self):
        return "iterator"

    def next(self):
        if self.pos >= len(self.items):
            return None
        v = self.items[self.pos]
        self.pos += 1
        return v
