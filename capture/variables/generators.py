"""Generators created by the traced code: generator functions and generator expressions.

A call of a generator function (or the hidden call that makes a generator expression) does not
run its body: it makes a :class:`GeneratorVariable` holding a suspended translator for the
generator's frame. Each ``next()`` (a ``for`` loop, ``next(g)``, ``g.send(v)``, ``zip``...) resumes
that translator until its next ``yield`` or its ``return``, exactly when Python would run that
part of the body. So side effects inside the generator (a nonlocal counter, appends to a list the
caller reads) interleave with the caller's code as they do eagerly, and an expression such as
``y.extend(y[-1] + z for z in range(3))`` sees the list grow.

A generator that outlives the graph (returned, stored outside the frame, live at a graph
break) becomes a real generator only while that is exact: one whose body has not started yet
is made again by calling its function with the same arguments after the graph (a generator's
body does nothing until its first ``next()``). One that has started cannot be rebuilt (its
frame's state has no Python equivalent), so the frame runs eagerly instead
(:class:`~capture.variables.base.NotResumable`). It is never turned into another kind of
iterator. ``throw()`` and ``close()`` on a started generator that could handle them, and a
body that raises, are run by Python too (a graph break).
"""
from __future__ import annotations

import types

from ..errors import GraphBreak, MissingAttribute
from .base import ConstantVariable, NotResumable, Variable
from .containers import IteratorVariable

#: what a generator frame's ``run()`` returns when it stops at a ``yield``
YIELDED = object()


def _is_none(v) -> bool:
    return v is None or (v.is_const() and v.value is None)


class GeneratorVariable(IteratorVariable):
    """A generator object made by the traced code, run lazily by a suspended translator.

    ``frame``: the translator of the generator's body (not started until the first ``next``);
    ``make_function(rec)``: the recipe of the function whose call makes this generator again
    (``capture.reconstruct``), with ``args``/``kwargs`` the Variables it was called with;
    ``made_type``: the type of the object that call returns (``types.GeneratorType``, or the
    class a polyfilled ``itertools`` helper stands for)."""

    lazy = True  # (its items are not known in advance: see ``reconstruct``)

    def __init__(self, frame, name, make_function, args, kwargs, made_type=types.GeneratorType):
        super().__init__([], made_type)
        self.frame = frame
        self.name = name
        self.make_function = make_function
        self.args = list(args)
        self.kwargs = dict(kwargs)
        self.started = False
        self.running = False
        self.finished = False
        self.return_value = ConstantVariable(None)  # what ``yield from`` this generator evaluates to
        self.serial = None  # its creation order in the trace (set by the translator)

    def describe(self):
        return f"generator {self.name}"

    # -- running the body ---------------------------------------------------------------------
    def next(self, tx):
        """The next yielded value, or None once the body returned (StopIteration)."""
        return self.resume(tx, None)

    def resume(self, tx, sent):
        """Run the body from where it stopped until its next ``yield`` (its value) or its end
        (None; ``return_value`` keeps what it returned). ``sent``: what the paused ``yield``
        evaluates to (``send``), None for ``next``."""
        if self.finished:
            return None
        if self.running:
            raise GraphBreak(f"{self.describe()} is already executing (ValueError at run time)")
        frame = self.frame
        if not self.started and self.serial is not None and tx.tracer.break_on_start == self.serial:
            # this generator outlives the graph once started (an earlier translation found): the
            # graph ends here, while it can still be made again, and Python runs it from now on
            raise GraphBreak(f"{self.describe()} outlives the graph once started: it runs in Python from "
                             "its first next()", hint="consume the generator inside the captured function, or "
                             "accept the graph break")
        if not self.started and not _is_none(sent):
            raise GraphBreak("can't send a non-None value to a just-started generator (TypeError at run time)")
        if self.started:
            frame.push(sent if sent is not None else ConstantVariable(None))
        self.started = True
        self.running = True
        try:
            out = frame.run()
        finally:
            self.running = False
            tx.builder.graph.current_loc = tx.user_loc()
        if out is YIELDED:
            frame.return_value = None
            value, frame.yielded = frame.yielded, None
            return value
        self.finished = True
        self.return_value = out
        return None

    def iterate(self, tx):
        rest = []
        while (v := self.next(tx)) is not None:
            rest.append(v)
        return rest

    def close_without_handler(self, tx) -> bool:
        """``close()`` when it runs no user code: not started, finished, or paused at a
        ``yield`` no ``try``/``with`` of the body covers (GeneratorExit just ends it)."""
        if not self.started or self.finished:
            self.finished = True
            return True
        frame = self.frame
        paused_at = frame.ip - 1  # the YIELD_VALUE it stopped at
        if not frame.in_user_try[paused_at] and not _yield_from_pending(frame):
            self.finished = True
            return True
        return False

    # -- as a value -------------------------------------------------------------------------------
    def reconstruct(self, rec):
        """A generator whose body has not run: its function called again with the same
        arguments (one call per graph run). A started one has no exact rebuild: the frame
        (or, at a graph break, the rest of it) runs eagerly."""
        if self.started:
            error = NotResumable(f"a started {self.describe()} outlives the graph")
            error.started_generator = self.serial
            raise error
        return ("call", self.make_function(rec), [rec.of(a) for a in self.args],
                {k: rec.of(v) for k, v in self.kwargs.items()}, rec.memo_key())

    def truth(self, tx):
        return True

    def getattr(self, tx, name):
        if name in ("send", "throw", "close", "__next__", "__iter__"):
            return GeneratorMethodVariable(self, name)
        if self.python_type() is types.GeneratorType and hasattr(types.GeneratorType, name):
            raise GraphBreak(f"generator attribute {name!r} is read by Python (a graph break)")
        if not hasattr(self.python_type(), name):
            raise MissingAttribute(f"'{self.python_type().__name__}' object has no attribute {name!r}")
        raise GraphBreak(f"{self.python_type().__name__}.{name} is not supported in graph mode")

    def has_attribute(self, tx, name):
        return hasattr(self.python_type(), name)


def _yield_from_pending(frame) -> bool:
    """Whether the paused frame is inside a ``yield from`` (its delegate gets the close too)."""
    return any(isinstance(v, GeneratorVariable) and v.started and not v.finished for v in frame.stack)


class GeneratorMethodVariable(Variable):
    """``g.send(v)``, ``g.close()``, ``g.throw(...)``, ``g.__next__()``, ``g.__iter__()``."""

    def __init__(self, gen, name):
        self.gen, self.name = gen, name

    def reconstruct(self, rec):
        return ("getattr", rec.of(self.gen), self.name)

    def call(self, tx, args, kwargs):
        gen, name = self.gen, self.name
        if kwargs:
            raise GraphBreak(f"generator.{name}() takes no keyword arguments (TypeError at run time)")
        if name == "__iter__" and not args:
            return gen
        if name in ("__next__", "send") and len(args) == (name == "send"):
            out = gen.resume(tx, args[0] if args else None)
            if out is None:
                raise GraphBreak(f"generator.{name}() raises StopIteration",
                                 hint="Python raises it (the rest of the frame runs eagerly)")
            return out
        if name == "close" and not args and gen.close_without_handler(tx):
            return ConstantVariable(None)
        raise GraphBreak(f"generator.{name}() runs the generator's exception handling in Python",
                         hint="the generator stays a real generator: the frame runs eagerly from here")

