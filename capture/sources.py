"""Sources: where a value the traced code reads comes from, so it can be read again on a later
call (a graph input from the call's arguments), or found again after the graph ran (a list the
frame mutated or returned, rebuilt as that same object by ``capture.reconstruct``).

Example:
    >>> src = ItemSource(ArgSource((0,)), "k")
    >>> src.read(({"k": 3},)), str(src)
    (3, "args[0]['k']")
"""
from __future__ import annotations


class Source:
    """Where a value lives. ``recipe(rec)`` gives the recipe (``capture.reconstruct``) that
    reads it for a call; ``read(flat)`` reads it directly from the call's flat arguments."""

    __slots__ = ()

    def read(self, flat):
        raise NotImplementedError

    def recipe(self, rec):
        raise NotImplementedError


class ArgSource(Source):
    """A call argument, or an item inside one: ``path`` indexes the flat arguments."""

    __slots__ = ("path",)

    def __init__(self, path: tuple):
        self.path = path

    def read(self, flat):
        obj = flat
        for k in self.path:
            obj = obj[k]
        return obj

    def recipe(self, rec):
        return ("src", self)

    def __str__(self):
        return f"args[{self.path[0]}]" + "".join(f"[{k!r}]" for k in self.path[1:])


class ObjectSource(Source):
    """An object captured at trace time (a Parameter, a tensor held by a Cell). Once its entry is
    compiled, an object the entry's guards hold weakly is held through the same weak reference
    (``ref``, see :meth:`capture.guards.GuardSet.hold_weakly`): the guards passing proves it alive."""

    __slots__ = ("_obj", "ref")

    def __init__(self, obj):
        self._obj = obj
        self.ref = None  # a capture.guards.Held, once held weakly

    @property
    def obj(self):
        return self._obj if self.ref is None else self.ref()

    def hold_weakly(self, ref) -> None:
        """Read the object through ``ref`` (a weak reference to it) from now on."""
        self.ref, self._obj = ref, None

    def read(self, flat):
        return self.obj

    def recipe(self, rec):
        return ("obj", self.obj)

    def __str__(self):
        return getattr(self.obj, "name", None) or type(self.obj).__name__


class AttrSource(Source):
    """``owner.name`` (the owner is guarded by identity, or is one of the call's arguments)."""

    __slots__ = ("owner", "name")

    def __init__(self, owner, name: str):
        self.owner, self.name = owner, name

    def read(self, flat):
        return getattr(self.owner, self.name)

    def recipe(self, rec):
        return ("getattr", rec.object_recipe(self.owner), self.name)

    def __str__(self):
        return f"{type(self.owner).__name__}.{self.name}"


class GlobalSource(Source):
    __slots__ = ("globals", "name")

    def __init__(self, f_globals: dict, name: str):
        self.globals, self.name = f_globals, name

    def read(self, flat):
        return self.globals[self.name]

    def recipe(self, rec):
        return ("gitem", self.globals, self.name)

    def __str__(self):
        return f"global {self.name}"


class ItemSource(Source):
    """``base[key]`` of a container found at source ``base``."""

    __slots__ = ("base", "key")

    def __init__(self, base: Source, key):
        self.base, self.key = base, key

    def read(self, flat):
        return self.base.read(flat)[self.key]

    def recipe(self, rec):
        return ("item", self.base.recipe(rec), self.key)

    def __str__(self):
        return f"{self.base}[{self.key!r}]"


class CellSource(Source):
    """The contents of a closure cell of a function outside the frame."""

    __slots__ = ("cell",)

    def __init__(self, cell):
        self.cell = cell

    def read(self, flat):
        return self.cell.cell_contents

    def recipe(self, rec):
        return ("cellc", self.cell)

    def __str__(self):
        return "closure cell"
