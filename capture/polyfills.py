"""Pure-Python versions of C-implemented helpers, traced in place of the originals.

The translator cannot look inside a C function, so calling one breaks the graph. For a few
standard-library helpers whose behaviour is fully documented, it inlines the Python function
of the same name here instead (as TorchDynamo's polyfills do); each follows the documented
semantics exactly, including the errors it raises, and is tested against the original.

Example:
    >>> import operator
    >>> reduce(operator.add, [1, 2, 3], 10)
    16
"""
from __future__ import annotations

import functools
import itertools
import operator
import sys

_MISSING = object()


def reduce(function, iterable, initial=_MISSING, /):
    """``functools.reduce``: apply ``function`` cumulatively to the items, left to right."""
    it = iter(iterable)
    if initial is _MISSING:
        try:
            value = next(it)
        except StopIteration:
            raise TypeError("reduce() of empty iterable with no initial value") from None
    else:
        value = initial
    for element in it:
        value = function(value, element)
    return value


def chain(*iterables):
    """``itertools.chain``: the items of each iterable in turn."""
    for iterable in iterables:
        yield from iterable


def _as_ssize(v) -> int:
    """CPython's ``PyNumber_AsSsize_t(v, OverflowError)`` with its error cleared, as islice
    uses it: the index, or -1 when ``v`` is no index or does not fit a Py_ssize_t."""
    try:
        i = operator.index(v)
    except TypeError:
        return -1
    return i if -sys.maxsize - 1 <= i <= sys.maxsize else -1


def islice_arguments(iterable, *args):
    """The checks ``itertools.islice(...)`` makes when it is called, and its (start, stop, step),
    in CPython's order and with its messages (Modules/itertoolsmodule.c, ``islice_new``).
    (The polyfill is a generator, whose body runs only when it is first advanced: the checks
    are made at the call too, see ``CALL_CHECKS``.)"""
    if not 1 <= len(args) <= 3:
        bound = "least 2" if not args else "most 4"
        raise TypeError(f"islice expected at {bound} arguments, got {len(args) + 1}")
    stop_error = "Stop argument for islice() must be None or an integer: 0 <= x <= sys.maxsize."
    start, stop, step = 0, -1, 1
    if len(args) == 1:
        if args[0] is not None:
            stop = _as_ssize(args[0])
            if stop == -1:
                raise ValueError(stop_error)
    else:
        if args[0] is not None:
            start = _as_ssize(args[0])
        if args[1] is not None:
            stop = _as_ssize(args[1])
            if stop == -1:
                raise ValueError(stop_error)
    if start < 0 or stop < -1:
        raise ValueError("Indices for islice() must be None or an integer: 0 <= x <= sys.maxsize.")
    if len(args) == 3 and args[2] is not None:
        step = _as_ssize(args[2])
    if step < 1:
        raise ValueError("Step for islice() must be a positive integer or None.")
    return start, (None if stop == -1 else stop), step


def islice(iterable, *args):
    """``itertools.islice(iterable, stop)`` / ``(iterable, start, stop[, step])``."""
    start, stop, step = islice_arguments(iterable, *args)
    count, nxt = 0, start  # pulls exactly the items CPython's islice pulls (a for loop: no
    if stop is not None and count >= nxt and count >= stop:  # StopIteration handling to trace)
        return
    for element in iterable:
        count += 1
        if count - 1 == nxt:
            yield element
            nxt += step
            if stop is not None and nxt > stop:
                nxt = stop
        if stop is not None and count >= nxt and count >= stop:
            return


#: original callable -> the Python function traced in its place
POLYFILLS = {functools.reduce: reduce, itertools.chain: chain, itertools.islice: islice}

#: original callable -> a function traced at the call, before its generator polyfill is made
#: (errors the original raises when called, not when first advanced)
CALL_CHECKS = {itertools.islice: islice_arguments}


def polyfill_for(value):
    """The Python function traced in place of ``value``, or None."""
    # by identity: hashing an arbitrary value would run a user class's __hash__ (a side effect)
    for original, polyfill in POLYFILLS.items():
        if original is value:
            return polyfill
    return None
