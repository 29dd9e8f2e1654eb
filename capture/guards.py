"""Guards: what a compiled entry assumed, as readable strings compiled into one fast check.

Each guard is a Python expression over the call's arguments (``args``) and objects captured at
compile time (named ``o0``, ``o1``...). ``GuardSet.compile()`` joins them with ``and`` into one
function, and keeps the strings for ``explain()`` and for recompile reasons (the first failing
guard is reported).

Example:
    >>> g = GuardSet()
    >>> g.add("args[0] == 3", "argument 0 is 3")
    >>> check = g.compile(); check((3,)), check((4,))
    (True, False)
"""
from __future__ import annotations

import weakref

import numpy as np


class GuardSet:
    def __init__(self):
        self.exprs: list[str] = []
        self.descs: list[str] = []
        self.namespace: dict[str, object] = {"np": np}
        self._ids: dict[int, str] = {}
        self._seen: set[str] = set()
        # How the user's code reaches each object (``self.fc1``), so guards read in source terms.
        self._paths: dict[int, str] = {}

    def obj(self, value) -> str:
        """Name under which ``value`` is visible to guard expressions (kept alive by the entry),
        or the argument expression it was bound to with :meth:`arg_identity`."""
        key = id(value)
        name = self._ids.get(key)
        if name is None:
            name = f"o{len(self._ids)}"
            self._ids[key] = name
            self.namespace[name] = value
        return name

    def name_object(self, value, path: str) -> None:
        """Remember ``path`` (e.g. ``self.fc1``) as how the traced code reached ``value``; the first
        path seen wins. Immutable values are not named: equal ones share identities."""
        if not isinstance(value, (int, float, complex, str, bytes, tuple, frozenset, type(None))):
            self._paths.setdefault(id(value), path)

    def path_of(self, value, default: str | None = None) -> str:
        """The source path recorded for ``value``, else ``default``, else its type's name."""
        return self._paths.get(id(value)) or default or type(value).__name__

    def add(self, expr: str, desc: str | None = None) -> None:
        if expr in self._seen:
            return
        self._seen.add(expr)
        self.exprs.append(expr)
        self.descs.append(desc or expr)

    # -- common guard kinds -------------------------------------------------------------------------
    def identity(self, expr: str, value, desc: str) -> None:
        self.add(f"{expr} is {self.obj(value)}", f"{desc} is the same object")

    def arg_identity(self, expr: str, value, desc: str) -> None:
        """``expr`` (an argument, e.g. ``args[0]``: the Cell) is ``value``, held by a weak reference
        so a cache entry does not keep a Cell alive; later guards reach the object through
        ``expr`` (checked first, so it is the same object)."""
        try:
            ref = weakref.ref(value)
        except TypeError:
            self.identity(expr, value, desc)
            return
        self.add(f"{expr} is {self._fresh_name(ref)}()", f"{desc} is the same object")
        self._ids.setdefault(id(value), expr)

    def _fresh_name(self, value) -> str:
        name = f"o{len(self._ids)}_{len(self.namespace)}"
        self.namespace[name] = value
        return name

    def constant(self, expr: str, value, desc: str) -> None:
        """Python constant: same type and equal value (1 == 1.0 == True must not alias)."""
        if value is None or isinstance(value, bool):
            self.add(f"{expr} is {value!r}", f"{desc} is {value!r}")
            return
        t = self.obj(type(value))
        self.add(f"type({expr}) is {t} and {expr} == {self.obj(value)}", f"{desc} == {value!r}")

    def tensor(self, expr: str, tensor, desc: str) -> None:
        cls = self.obj(type(tensor))
        shape = tuple(tensor.shape)
        dt = self.obj(tensor._data.dtype)
        self.add(f"type({expr}) is {cls} and {expr}._data.shape == {shape!r} and {expr}._data.dtype == {dt}",
                 f"{desc}: Tensor {tensor.dtype}{list(shape)}")

    # -- compiling ----------------------------------------------------------------------------------
    def compile(self):
        body = " and ".join(f"({e})" for e in self.exprs) or "True"
        src = f"def guard(args):\n    return {body}\n"
        ns = dict(self.namespace)
        exec(compile(src, "<capture guard>", "exec"), ns)
        fn = ns["guard"]
        fn.source = src
        return fn

    def first_failure(self, args) -> str | None:
        """The description of the first guard that fails for ``args`` (for recompile reasons)."""
        for expr, desc in zip(self.exprs, self.descs):
            try:
                ok = eval(expr, dict(self.namespace), {"args": args})  # noqa: S307 - our own strings
            except Exception:
                ok = False
            if not ok:
                return desc
        return None
