"""Exceptions the capture machinery uses internally."""
from __future__ import annotations


class GraphBreak(Exception):
    """Something capture cannot put in a graph; the frame (or region) runs eagerly instead.

    ``reason`` is plain English; ``hint`` says what the user could change; ``loc`` is
    (filename, lineno, source_line) of the user's instruction, filled in by the translator.
    """

    def __init__(self, reason: str, hint: str = "", loc=None, resumable=True):
        super().__init__(reason)
        self.reason = reason
        self.hint = hint
        self.loc = loc
        self.resumable = resumable  # False: the whole frame runs eagerly (no resume after it)
        self.root_index = None  # the root frame's instruction it happened in (set by the translator)
        self.root_count = None


class MissingAttribute(GraphBreak):
    """``obj.name`` raises AttributeError at trace time: ``hasattr`` is False and
    ``getattr(obj, name, default)`` gives the default (a guard keeps the attribute absent)."""


class CaptureUserError(Exception):
    """A user error (bad shapes/dtypes) found while building the graph: re-raised to the user."""

    def __init__(self, error: BaseException, graph=None):
        super().__init__(str(error))
        self.error = error
        self.graph = graph


class FullGraphError(RuntimeError):
    """Raised instead of falling back when the user asked for ``fullgraph=True``."""


class UserException(GraphBreak):
    """The traced code raises a Python exception (``error``, a real exception object) that Python
    would raise at run time too: a ``raise`` statement, ``{}[k]`` with a missing key, ``1 / 0`` on
    constants. The translator unwinds to the handler the frame's exception table names (an
    ``except``/``finally``/``with`` inside the captured code) and goes on tracing there, as
    CPython would. With no handler in the traced frames it is a graph break like any other: the
    instruction runs eagerly, so Python raises the very exception with its real traceback."""

    def __init__(self, error: BaseException, reason: str = "", hint: str = ""):
        super().__init__(reason or f"{type(error).__name__} raised inside a captured region: {error}",
                         hint or "the instruction runs eagerly, so Python raises the exception")
        self.error = error
        # a trace-time traceback would hold the translator's frames (and every object they hold)
        error.__traceback__ = None
        #: set once ``__context__`` is linked (where it was raised), so outer frames leave it alone
        self.chained = False
