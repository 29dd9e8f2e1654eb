"""Locks and helper threads that survive ``os.fork()``.

A forked child (multiprocessing's default start method on Linux) holds a copy of every lock in the
state it had in the parent, but only the thread that forked: a lock some other thread held stays
locked forever, and a helper thread the runtime started does not exist in the child. Modules that
own locks or threads register them here; after a fork the child gets fresh locks and drops helper
objects so they are rebuilt on first use.

Example:
    >>> import threading
    >>> from graph import forksafe
    >>> state = {"lock": threading.Lock()}
    >>> forksafe.renew_in_child(state, "lock", threading.Lock)
    >>> forksafe.after_fork_in_child()      # what os.fork() runs in the child
    >>> state["lock"].acquire(blocking=False)
    True
"""
from __future__ import annotations

import os
import weakref
from typing import Callable

_NAMED: list[tuple[dict, tuple[str, ...], Callable]] = []
_INSTANCES: "weakref.WeakSet" = weakref.WeakSet()
_CALLBACKS: list[Callable[[], None]] = []


def renew_in_child(namespace: dict, names, factory: Callable) -> None:
    """After a fork, ``namespace[name] = factory()`` in the child for each of ``names`` (one new
    object shared by all of them, so aliases of one lock stay one lock)."""
    _NAMED.append((namespace, (names,) if isinstance(names, str) else tuple(names), factory))


def track(obj) -> None:
    """``obj._reset_after_fork()`` runs in the child after a fork for as long as ``obj`` lives."""
    _INSTANCES.add(obj)


def on_fork_child(fn: Callable[[], None]) -> Callable[[], None]:
    """Call ``fn()`` in the child after a fork (usable as a decorator)."""
    _CALLBACKS.append(fn)
    return fn


def after_fork_in_child() -> None:
    for namespace, names, factory in _NAMED:
        fresh = factory()
        for name in names:
            namespace[name] = fresh
    for obj in list(_INSTANCES):
        obj._reset_after_fork()
    for fn in _CALLBACKS:
        fn()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=after_fork_in_child)
