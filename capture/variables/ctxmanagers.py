"""``@contextlib.contextmanager`` managers made inside the traced code.

``contextlib._GeneratorContextManager.__init__`` creates the generator, ``__enter__`` runs it to
its first ``yield`` and ``__exit__`` runs the rest (sending None, or throwing the body's
exception in). The translator normally runs a generator to exhaustion at once, which would run the
teardown before the ``with`` body; so the manager is modelled here: the generator function is
traced in two halves on one paused inlined frame (``InstructionTranslator.start_generator``), and
``__exit__`` follows ``_GeneratorContextManager.__exit__``'s rules (RuntimeError when the
generator does not stop or does not yield, suppression when the generator swallows the thrown
exception). The manager itself cannot outlive the trace (it holds a paused trace-time frame): a
graph break while it is live, or returning it, makes the frame run eagerly.
"""
from __future__ import annotations

from ..errors import GraphBreak, UserException
from .base import ConstantVariable, NotResumable, Variable
from .exceptions import ExceptionVariable


class GeneratorContextManagerVariable(Variable):
    def __init__(self, func, args, kwargs):
        self.func = func      # the generator function's Variable
        self.args = args      # [Variable]
        self.kwargs = kwargs  # {name: Variable}
        self.frame = None     # the paused generator frame once entered
        self.state = "new"

    def python_type(self):
        import contextlib
        return contextlib._GeneratorContextManager

    def reconstruct(self, rec):
        raise NotResumable("a @contextmanager manager made in the captured code is live")

    def describe(self):
        return "@contextmanager manager"

    def getattr(self, tx, name):
        if name in ("__enter__", "__exit__"):
            return _ManagerMethod(self, name)
        raise GraphBreak(f"attribute {name!r} of a @contextmanager manager inside a captured region")

    # -- the two halves ------------------------------------------------------------------------
    def enter(self, tx):
        if self.state != "new":
            raise GraphBreak("a @contextmanager manager entered twice")
        fn = self.func.python_value()
        self.frame = tx.start_generator(fn, self.args, self.kwargs)
        self.state = "entered"
        yielded = self.frame.run_generator_step(None)
        if yielded is None:  # returned without yielding
            self.state = "done"
            raise UserException(RuntimeError("generator didn't yield"))
        return yielded

    def exit(self, tx, typ, value, tb):
        if self.state != "entered":
            raise GraphBreak("__exit__ of a @contextmanager manager that was not entered")
        self.state = "done"
        frame = self.frame
        if value.is_const() and value.value is None:
            if frame.run_generator_step(ConstantVariable(None)) is not None:
                raise UserException(RuntimeError("generator didn't stop"))
            return ConstantVariable(False)
        if not isinstance(value, ExceptionVariable):
            raise GraphBreak(f"__exit__ of a @contextmanager manager with a {value.describe()}")
        exc = value.value
        if isinstance(exc, StopIteration):
            # _GeneratorContextManager's PEP 479 unwrapping rules for it: run eagerly
            raise GraphBreak(f"a {type(exc).__name__} thrown into a @contextmanager generator")
        try:
            again = frame.run_generator_step(None, throw=exc)
        except UserException as e:
            if e.error is exc:
                return ConstantVariable(False)  # the generator let it through: not suppressed
            raise  # a new exception replaces it
        if again is not None:
            raise UserException(RuntimeError("generator didn't stop after throw()"))
        return ConstantVariable(True)  # the generator swallowed it


class _ManagerMethod(Variable):
    """The bound ``__enter__``/``__exit__`` of a :class:`GeneratorContextManagerVariable`."""

    def __init__(self, manager, name):
        self.manager = manager
        self.name = name

    def reconstruct(self, rec):
        raise NotResumable("a @contextmanager manager made in the captured code is live")

    def call(self, tx, args, kwargs):
        if kwargs:
            raise GraphBreak("keyword arguments to a context manager method")
        if self.name == "__enter__":
            if args:
                raise UserException(TypeError("__enter__() takes 1 positional argument"))
            return self.manager.enter(tx)
        if len(args) != 3:
            raise UserException(TypeError("__exit__() takes 4 positional arguments"))
        return self.manager.exit(tx, *args)

    def describe(self):
        return f"@contextmanager {self.name}"
