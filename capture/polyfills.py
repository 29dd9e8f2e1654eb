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


#: original callable -> the Python function traced in its place
POLYFILLS = {functools.reduce: reduce}
