"""Process groups: what the collective ops (:mod:`graph.ops.collective`) communicate over.

Like the random stream (:mod:`graph.ops.rng`) this is run-time state the ops read: a table from
group name to a group object. The communication layer (``runtime.communication``) fills it when
MPI is initialised; until then the world is this one process, so every collective is an identity
and a data-parallel script runs unchanged as ``python train.py``.

A group has ``name``, ``rank``, ``size`` and, over arrays of the op's array module ``xp``:

* ``all_reduce(xp, x, op)``, ``all_gather(xp, x)``, ``reduce_scatter(xp, x, op)``,
  ``broadcast(xp, xs, root)``: each returns new arrays and leaves its operands untouched;
* ``start_all_reduce(xp, x, op) -> Pending``: a non-blocking all-reduce; ``pending.wait()``
  returns its result (a new array) once complete, ``pending.test()`` lets it progress.

:class:`SingleProcessGroup` is the group of one process. ``runtime/communication/mpi_group.py``
implements groups over MPI (mpi4py, on the arrays' own buffers, no pickling). A group over device
buffers -- NCCL through ``cupy.cuda.nccl`` -- plugs in here with the same methods.

Example:
    >>> import numpy as np
    >>> from graph.ops import comm
    >>> world = comm.get_group(comm.WORLD)
    >>> world.rank, world.size
    (0, 1)
    >>> world.all_reduce(np, np.arange(3.0), "sum")
    array([0., 1., 2.])
"""
from __future__ import annotations

import itertools

#: MindSpore's name of the world group (``GlobalComm.WORLD_COMM_GROUP`` on Ascend); the NCCL and
#: CPU spellings name the same group here
WORLD = "hccl_world_group"
WORLD_NAMES = ("hccl_world_group", "nccl_world_group", "mccl_world_group")
#: ``ops.ReduceOp`` values
REDUCE_OPS = ("sum", "max", "min", "prod")


class Pending:
    """A collective in flight. ``result`` is where its result goes; ``wait()`` returns it;
    ``test()`` lets it progress without blocking (True once complete)."""

    __slots__ = ("result",)

    def __init__(self, result):
        self.result = result

    def wait(self):
        return self.result

    def test(self) -> bool:
        return True


class SingleProcessGroup:
    """The group of this process alone: every collective returns a copy of its operand."""

    rank = 0
    size = 1

    def __init__(self, name: str = WORLD):
        self.name = name

    def all_reduce(self, xp, x, op):
        return xp.array(x, copy=True)

    def all_gather(self, xp, x):
        return xp.array(x, copy=True)

    def reduce_scatter(self, xp, x, op):
        return xp.array(x, copy=True)

    def broadcast(self, xp, xs, root):
        return tuple(xp.array(x, copy=True) for x in xs)

    def start_all_reduce(self, xp, x, op):
        return Pending(xp.array(x, copy=True))

    def __repr__(self):
        return f"<group {self.name}: 1 process>"


_state = {"world": SingleProcessGroup()}
_groups: dict[str, object] = {}


def set_world(group) -> None:
    """Make ``group`` the world (``None``: back to this process alone). Drops every sub-group."""
    _state["world"] = group if group is not None else SingleProcessGroup()
    _groups.clear()
    _pending.clear()


def world():
    return _state["world"]


def add_group(name: str, group) -> None:
    if name in WORLD_NAMES or name in _groups:
        raise ValueError(f"communication group {name!r} already exists")
    _groups[name] = group


def remove_group(name: str):
    """Forget a sub-group; returns it (None when it did not exist)."""
    return _groups.pop(name, None)


def group_names() -> list[str]:
    return list(WORLD_NAMES) + sorted(_groups)


def get_group(name: str):
    """The group called ``name``; a ValueError lists the groups that exist."""
    if name in WORLD_NAMES:
        return _state["world"]
    g = _groups.get(name)
    if g is None:
        raise ValueError(f"unknown communication group {name!r}; existing groups: {group_names()} "
                         "(create one with runtime.communication.create_group)")
    return g


# -- non-blocking all-reduces in flight ----------------------------------------------------------
# ``all_reduce_start`` returns a ticket (a 0-d int64 tensor) and ``all_reduce_wait`` redeems it.
# A ticket is plain data, so it survives whatever eager execution or a compiled graph does with
# the value (copies, buffer reuse); the result buffer belongs to the pending request.
_pending: dict[int, Pending] = {}
_tickets = itertools.count(1)


def start_all_reduce(group, xp, x, op: str):
    """Start a non-blocking all-reduce of ``x``; returns its ticket."""
    pending = group.start_all_reduce(xp, x, op)
    ticket = next(_tickets)
    _pending[ticket] = pending
    return xp.asarray(ticket, dtype="int64")


def finish_all_reduce(ticket):
    """Wait for the all-reduce of ``ticket``; returns its result."""
    pending = _pending.pop(int(ticket), None)
    if pending is None:
        raise RuntimeError(f"AllReduceWait (ops.all_reduce_wait): ticket {int(ticket)} is not an all-reduce "
                           "in flight (each all_reduce_start is waited for exactly once)")
    return pending.wait()


def pending_count() -> int:
    return len(_pending)


def progress() -> None:
    """Let the collectives in flight progress. MPI moves a message's pieces only inside MPI calls,
    so a compiled graph that started non-blocking all-reduces calls this between its kernels:
    the exchange then advances while the rest of the backward computes."""
    if _pending:
        for pending in list(_pending.values()):
            pending.test()
