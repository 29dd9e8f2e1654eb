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


def dict_fromkeys(iterable, value=None, /):
    """``dict.fromkeys``: a dict mapping each key of ``iterable`` to ``value``."""
    d = {}
    for key in iterable:
        d[key] = value
    return d


def chain(*iterables):
    """``itertools.chain``: the items of each iterable in turn."""
    for iterable in iterables:
        yield from iterable


def chain_from_iterable(iterables, /):
    """``itertools.chain.from_iterable``: the items of each iterable ``iterables`` yields."""
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
    are made at the call too, by :func:`islice_call`.)"""
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


def islice_call(iterable, *args):
    """``islice``'s call-time work, in CPython's order: the argument checks, then the iterator."""
    islice_arguments(iterable, *args)
    return (iter(iterable), *args), {}


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


# -- itertools classes whose constructor does work at the call ---------------------------------------
# CPython's constructors take an iterator of each iterable (``product``, ``combinations`` and
# ``permutations`` a tuple of all its items) when called, and check their arguments then; the
# generators below do the rest lazily. Each ``*_call`` function is traced at the call and returns
# the ``(args, kwargs)`` its generator is made with, which are also valid arguments of the
# original: an unstarted object that outlives the graph is made by the original from them.
def zip_longest_call(*iterables, fillvalue=None):
    return tuple(iter(it) for it in iterables), {"fillvalue": fillvalue}


def zip_longest(*iterators, fillvalue=None):
    """``itertools.zip_longest``: tuples of the items, ``fillvalue`` for exhausted iterables."""
    active = len(iterators)
    if not active:
        return
    iterators = list(iterators)
    while True:
        row = []
        for i, it in enumerate(iterators):
            if it is None:
                row.append(fillvalue)
                continue
            value = next(it, _MISSING)  # (no StopIteration to catch: traced as a plain call)
            if value is _MISSING:
                active -= 1
                if not active:
                    return
                iterators[i] = None
                value = fillvalue
            row.append(value)
        yield tuple(row)


def starmap_call(function, iterable, /):
    return (function, iter(iterable)), {}


def starmap(function, iterable, /):
    """``itertools.starmap``: ``function(*args)`` for each ``args`` of the iterable."""
    for args in iterable:
        yield function(*args)


def accumulate_call(iterable, func=None, *, initial=None):
    return (iter(iterable), func), {"initial": initial}


def accumulate(iterable, func=None, *, initial=None):
    """``itertools.accumulate``: running totals (or running ``func`` results)."""
    it = iter(iterable)
    total = initial
    if initial is None:
        for total in it:
            break
        else:
            return
    yield total
    for element in it:
        total = total + element if func is None else func(total, element)
        yield total


def _repeat_count(repeat):
    repeat = operator.index(repeat)
    if repeat < 0:
        raise ValueError("repeat argument cannot be negative")
    return repeat


def product_call(*iterables, repeat=1):
    pools = tuple(tuple(pool) for pool in iterables)
    return pools * _repeat_count(repeat), {}


def product(*pools):
    """``itertools.product`` over pools already made tuples (see :func:`product_call`)."""
    result = [()]
    for pool in pools:
        result = [prefix + (item,) for prefix in result for item in pool]
    for prod in result:
        yield prod


def _r_count(r, n):
    if r is None:
        return n
    r = operator.index(r)
    if r < 0:
        raise ValueError("r must be non-negative")
    return r


def combinations_call(iterable, r):
    return (tuple(iterable), _r_count(r, 0)), {}


def combinations(pool, r):
    """``itertools.combinations`` (the documented equivalent, over a tuple pool)."""
    n = len(pool)
    if r > n:
        return
    indices = list(range(r))
    yield tuple(pool[i] for i in indices)
    while True:
        for i in reversed(range(r)):
            if indices[i] != i + n - r:
                break
        else:
            return
        indices[i] += 1
        for j in range(i + 1, r):
            indices[j] = indices[j - 1] + 1
        yield tuple(pool[i] for i in indices)


def permutations_call(iterable, r=None):
    pool = tuple(iterable)
    return (pool, _r_count(r, len(pool))), {}


def permutations(pool, r=None):
    """``itertools.permutations`` (the documented equivalent, over a tuple pool)."""
    n = len(pool)
    r = n if r is None else r
    if r > n:
        return
    indices = list(range(n))
    cycles = list(range(n, n - r, -1))
    yield tuple(pool[i] for i in indices[:r])
    while n:
        for i in reversed(range(r)):
            cycles[i] -= 1
            if cycles[i] == 0:
                indices[i:] = indices[i + 1:] + indices[i:i + 1]
                cycles[i] = n - i
            else:
                j = cycles[i]
                indices[i], indices[-j] = indices[-j], indices[i]
                yield tuple(pool[i] for i in indices[:r])
                break
        else:
            return


def compress_call(data, selectors):
    return (iter(data), iter(selectors)), {}


def compress(data, selectors):
    """``itertools.compress``: the items of ``data`` whose selector is true."""
    for d, s in zip(data, selectors):
        if s:
            yield d


def dropwhile_call(predicate, iterable, /):
    return (predicate, iter(iterable)), {}


def dropwhile(predicate, iterable, /):
    """``itertools.dropwhile``: the items from the first one ``predicate`` rejects on."""
    it = iter(iterable)
    for x in it:
        if not predicate(x):
            yield x
            break
    for x in it:
        yield x


def takewhile_call(predicate, iterable, /):
    return (predicate, iter(iterable)), {}


def takewhile(predicate, iterable, /):
    """``itertools.takewhile``: the items until the first one ``predicate`` rejects."""
    for x in iterable:
        if not predicate(x):
            return
        yield x


def filterfalse_call(function, iterable, /):
    return (function, iter(iterable)), {}


def filterfalse(function, iterable, /):
    """``itertools.filterfalse``: the items ``function`` (or truth, for None) rejects."""
    for x in iterable:
        if not (bool(x) if function is None else function(x)):
            yield x


def pairwise_call(iterable, /):
    return (iter(iterable),), {}


def pairwise(iterable, /):
    """``itertools.pairwise``: successive overlapping pairs."""
    it = iter(iterable)
    for a in it:
        for b in it:
            yield a, b
            a = b
        break


#: original callable -> the Python function traced in its place
POLYFILLS = {functools.reduce: reduce, itertools.chain: chain, itertools.islice: islice,
             itertools.zip_longest: zip_longest, itertools.starmap: starmap, itertools.accumulate: accumulate,
             itertools.product: product, itertools.combinations: combinations,
             itertools.permutations: permutations, itertools.compress: compress,
             itertools.dropwhile: dropwhile, itertools.takewhile: takewhile,
             itertools.filterfalse: filterfalse, itertools.pairwise: pairwise}

#: original callable -> a function traced at the call that does the original's call-time work
#: and returns the ``(args, kwargs)`` its generator polyfill is made with
CALL_PREPARES = {itertools.islice: islice_call, itertools.zip_longest: zip_longest_call, itertools.starmap: starmap_call,
                 itertools.accumulate: accumulate_call, itertools.product: product_call,
                 itertools.combinations: combinations_call, itertools.permutations: permutations_call,
                 itertools.compress: compress_call, itertools.dropwhile: dropwhile_call,
                 itertools.takewhile: takewhile_call, itertools.filterfalse: filterfalse_call,
                 itertools.pairwise: pairwise_call}


def polyfill_for(value):
    """The Python function traced in place of ``value``, or None."""
    # by identity: hashing an arbitrary value would run a user class's __hash__ (a side effect)
    for original, polyfill in POLYFILLS.items():
        if original is value:
            return polyfill
    return None
