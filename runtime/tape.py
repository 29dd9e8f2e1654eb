"""The eager autodiff tape.

While a ``grad``/``value_and_grad`` call runs its function, a :class:`Tape` is active. Each op whose
inputs include a tracked tensor is appended in execution order (already a topological order), and
its outputs become tracked. Backward walks the entries in reverse and applies each op's VJP rule
through ``bind``: when an outer tape is active those VJP ops are themselves recorded, which is how
higher-order gradients work. With no tape active, recording costs one truth test per op.

A tape entry's ``op`` is a registry Op or any object with ``name`` and
``vjp(g, out, *inputs, **attrs)`` (a compiled graph region is recorded as one such entry).
"""
from __future__ import annotations

#: the active tapes, innermost last; the eager handler checks ``if ACTIVE:``
ACTIVE: list["Tape"] = []

#: the level of the last ``vmap`` call made ([0] before any; runtime.vmap advances it). A tape
#: remembers it: a batched cotangent of a later (inner) vmap level that reaches a tensor not
#: batched at that level is summed over that batch (see runtime.autograd.backward)
VMAP_LEVEL = [0]


def any_tracked(tensors) -> bool:
    """Does an active tape track one of ``tensors`` (so ops on them must be recorded)?"""
    for tp in ACTIVE:
        for t in tensors:
            if id(t) in tp.tracked:
                return True
    return False


class Entry:
    __slots__ = ("op", "attrs", "inputs", "outputs")

    def __init__(self, op, attrs, inputs, outputs):
        self.op = op
        self.attrs = attrs
        self.inputs = inputs
        self.outputs = outputs


class Tape:
    """Records differentiable ops applied to tracked tensors (see module docstring)."""

    def __init__(self):
        self.vmap_level = VMAP_LEVEL[0]
        self.entries: list[Entry] = []
        self.tracked: set[int] = set()
        self._keep: list = []  # keeps watched leaves alive so their ids stay unique
        self._leaves: dict = {}  # id(watched tensor overwritten in place) -> Tensor of its first value

    def watch(self, tensor) -> None:
        self.tracked.add(id(tensor))
        self._keep.append(tensor)

    def is_tracked(self, tensor) -> bool:
        return id(tensor) in self.tracked

    def replace(self, current, old) -> None:
        """``current`` is about to be overwritten in place: every recorded use of it so far refers
        to ``old`` (a Tensor holding the previous contents) from now on. A watched leaf stays
        reachable as the value gradients are taken with respect to (see :meth:`leaf`)."""
        if id(current) not in self.tracked:
            return
        self.tracked.add(id(old))
        self._keep.append(old)
        for e in self.entries:
            if any(t is current for t in e.inputs):
                e.inputs = tuple(old if t is current else t for t in e.inputs)
            if any(t is current for t in e.outputs):
                e.outputs = tuple(old if t is current else t for t in e.outputs)
        first = self._leaves.pop(id(current), None)
        if first is None and any(t is current for t in self._keep):
            first = old  # ``current`` was watched: gradients for it are those of its first value
        if first is not None:
            self._leaves[id(current)] = first

    def leaf(self, tensor):
        """The tensor whose gradient ``tensor`` (a watched input, maybe overwritten since) stands for."""
        return self._leaves.get(id(tensor), tensor)

    def record(self, op, args, attrs, outputs) -> None:
        """Append ``op`` if any tensor argument is tracked; outputs (a tuple) become tracked."""
        tracked = self.tracked
        for a in args:
            if id(a) in tracked:
                break
        else:
            return
        self.entries.append(Entry(op, attrs, args, outputs))
        for o in outputs:
            if o is not None:
                tracked.add(id(o))

    def __enter__(self):
        ACTIVE.append(self)
        return self

    def __exit__(self, *exc):
        ACTIVE.remove(self)
        return False


class paused:
    """Context manager that deactivates all tapes (e.g. while running a backward pass that must
    not be recorded, or an optimizer step)."""

    def __enter__(self):
        self._saved = ACTIVE[:]
        ACTIVE.clear()
        return self

    def __exit__(self, *exc):
        ACTIVE[:] = self._saved
        return False
