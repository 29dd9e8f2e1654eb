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


# -- whose exception is it -----------------------------------------------------------------------
#
# Capture turns its own failures into an eager run (the frame still works), so it must not take
# for its own an exception that belongs to the user. The rule, applied wherever capture catches
# exceptions broadly (compiling a frame, running a compiled graph, checking guards):
#
#   * an exception that is not an ``Exception`` (KeyboardInterrupt, SystemExit, GeneratorExit,
#     any other ``BaseException``) is never ours: it propagates unchanged;
#   * an exception raised by a Python signal handler (SIGALRM's ``Timeout``, a SIGINT handler
#     raising its own error) is asynchronous: it interrupted whatever was running, capture or
#     not, so it propagates unchanged. It is recognised by its traceback, which runs through the
#     frame of a function installed as a signal handler *now* (``signal.getsignal``) -- the
#     handler runs as a call inserted between two bytecodes of the interrupted frame;
#   * the exception capture itself raises in reaction (a GraphBreak made ``from`` it while
#     handling it) carries it as ``__cause__``/``__context__``: the chain is searched too.
#
# Nothing is recorded for such an exception: no break, no internal error, no demotion of the frame,
# and the recompile it interrupted is not counted. A ``MemoryError`` is the user's too (a shape too
# big for this machine), but it is not asynchronous: see :func:`out_of_memory`.


def _handler_codes() -> set:
    """Code objects of the Python functions installed as signal handlers now."""
    import signal
    codes = set()
    for sig in signal.valid_signals():
        try:
            h = signal.getsignal(sig)
        except (ValueError, OSError):  # (signals Python cannot query)
            continue
        if h is None or isinstance(h, int):  # SIG_DFL / SIG_IGN / set outside Python
            continue
        for f in (h, getattr(h, "__func__", None), getattr(h, "func", None), getattr(type(h), "__call__", None)):
            code = getattr(f, "__code__", None)
            if code is not None:
                codes.add(code)
    return codes


def _raised_by_signal_handler(exc: BaseException, codes) -> bool:
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code in codes:
            return True
        tb = tb.tb_next
    return False


def _chain(exc: BaseException):
    """``exc`` and the exceptions it was raised from or while handling, innermost last."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def interrupting(exc: BaseException) -> BaseException | None:
    """The user's asynchronous exception behind ``exc`` (``exc`` itself, or one it was raised
    from), which capture must re-raise unchanged instead of handling; None when ``exc`` is an
    ordinary error (capture's, or one the user's code raised synchronously)."""
    codes = None
    for e in _chain(exc):
        if not isinstance(e, Exception):
            return e
        if e.__traceback__ is not None:
            if codes is None:
                codes = _handler_codes()
            if codes and _raised_by_signal_handler(e, codes):
                return e
    return None


def out_of_memory(exc: BaseException) -> MemoryError | None:
    """The MemoryError behind ``exc`` (a shape too big for this machine: the user's, not a
    capture bug), or None."""
    for e in _chain(exc):
        if isinstance(e, MemoryError):
            return e
    return None


class UserException(GraphBreak):
    """The traced code raises a Python exception (``error``, a real exception object) that Python
    would raise at run time too: a ``raise`` statement, ``{}[k]`` with a missing key, ``1 / 0`` on
    constants. The translator unwinds to the handler the frame's exception table names (an
    ``except``/``finally``/``with`` inside the captured code) and goes on tracing there, as
    CPython would. With no handler in the traced frames it is a graph break like any other: the
    instruction runs eagerly, so Python raises the very exception with its real traceback."""

    def __init__(self, error: BaseException, reason: str = "", hint: str = ""):
        if error.__traceback__ is not None and _raised_by_signal_handler(error, _handler_codes()):
            # a signal arrived while trace-time code ran: not the traced code's exception, and not
            # one its handlers may see; it propagates unchanged (see "whose exception is it" above)
            raise error
        super().__init__(reason or f"{type(error).__name__} raised inside a captured region: {error}",
                         hint or "the instruction runs eagerly, so Python raises the exception")
        self.error = error
        # a trace-time traceback would hold the translator's frames (and every object they hold)
        error.__traceback__ = None
        #: set once ``__context__`` is linked (where it was raised), so outer frames leave it alone
        self.chained = False
