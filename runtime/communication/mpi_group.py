"""A process group over MPI (mpi4py): the collectives of :mod:`graph.ops.collective` on the
arrays' own buffers (numpy's buffer protocol; nothing is pickled).

Every collective is issued non-blocking (``Iallreduce``, ``Iallgather``, ``Ireduce_scatter_block``,
``Ibcast``) and then polled with ``Testall`` until it completes or the group's timeout passes, so a
peer that died or is running a different collective gives a :class:`CollectiveTimeout` naming the
op, the group and this rank instead of a hang. Polling spins for a short while first (a collective
among healthy peers usually completes in microseconds to milliseconds, and MPI's own blocking
calls spin too), then sleeps in growing steps so a long wait does not burn a core.

A rank that ends normally (the script returns, or calls ``sys.exit``) says so to every other rank
on a private duplicate of the world communicator (:class:`Departures`, announced at exit). MPI
itself does not stop a job when one rank finishes early, so without that notice a peer still
waiting in a collective for it would only give up after the timeout; with it, the waiting rank
raises :class:`PeerExited` within :data:`DEPARTED_GRACE` seconds.

Float16 tensors are reduced in float32 (MPI has no standard half type); data movement
(gather/broadcast) sends raw bytes, so every dtype travels unchanged. Arrays on a GPU (cupy) are
staged through host memory here; a group over device buffers (NCCL through ``cupy.cuda.nccl``)
would implement the same methods without the copies (see docs/distributed.md).
"""
from __future__ import annotations

import os
import time

import numpy as np

from graph import config as settings
from graph.ops.comm import Pending

#: seconds a collective may wait for its peers before raising (``MSJIT_COMM_TIMEOUT`` overrides)
DEFAULT_TIMEOUT = settings.COMM_TIMEOUT_DEFAULT
#: seconds of busy polling before the poller starts to sleep
SPIN_SECONDS = 0.002
#: the longest sleep between two polls
MAX_PAUSE = 0.001
#: seconds a collective keeps waiting after one of its ranks announced its exit (that rank may have
#: done its part just before leaving, and the data still be on its way)
DEPARTED_GRACE = 2.0
#: seconds between two looks for exit notices while a collective waits
DEPARTURE_POLL = 0.01
#: message tag of an exit notice (on the control communicator, so it never meets user traffic)
_FAREWELL_TAG = 7301


class CollectiveTimeout(TimeoutError):
    """A collective did not complete within the group's timeout."""


class PeerExited(CollectiveTimeout):
    """A collective cannot complete: a rank it waits for has exited."""


class Departures:
    """Which world ranks have exited normally. Each rank announces its own exit (:meth:`announce`,
    an ``atexit`` hook installed by ``init()``) with a one-byte message to every other rank on a
    duplicate of the world communicator; a waiting collective polls for such messages (:meth:`poll`).

    Made collectively (``Dup``) by every rank of the world, at ``init()``."""

    def __init__(self, MPI, world_comm):
        self._MPI = MPI
        self.control = world_comm.Dup()
        self.rank = world_comm.Get_rank()
        self.size = world_comm.Get_size()
        self.pid = os.getpid()
        #: world rank -> time.monotonic() when its exit notice was seen
        self.gone: dict[int, float] = {}
        self._next_look = 0.0

    def announce(self) -> None:
        """Tell every other rank this one is leaving (a forked child, which is no rank, says
        nothing). The notices are tiny, so MPI sends them eagerly; a peer that already left is
        not waited for longer than a second."""
        if os.getpid() != self.pid:
            return
        note = np.zeros(1, np.uint8)
        requests = [self.control.Isend(note, dest=r, tag=_FAREWELL_TAG) for r in range(self.size) if r != self.rank]
        deadline = time.monotonic() + 1.0
        while not self._MPI.Request.Testall(requests) and time.monotonic() < deadline:
            time.sleep(1e-3)

    def poll(self, now: float) -> dict[int, float]:
        """Collect the exit notices that arrived (at most every :data:`DEPARTURE_POLL` seconds)."""
        if now >= self._next_look:
            self._next_look = now + DEPARTURE_POLL
            status = self._MPI.Status()
            note = np.zeros(1, np.uint8)
            while self.control.Iprobe(source=self._MPI.ANY_SOURCE, tag=_FAREWELL_TAG, status=status):
                source = status.Get_source()
                self.control.Recv(note, source=source, tag=_FAREWELL_TAG)
                self.gone.setdefault(source, now)
        return self.gone


def timeout_from_env() -> float:
    return settings.get("MSJIT_COMM_TIMEOUT")


def _host(xp, x):
    """(contiguous numpy array with x's data, function turning a numpy result back into xp's)."""
    if xp is np or isinstance(x, np.ndarray):
        return np.ascontiguousarray(x), (lambda a: a)
    return np.ascontiguousarray(xp.asnumpy(x)), xp.asarray


def _reducible(a):
    """MPI has no half type: reduce float16 in float32."""
    return a.astype(np.float32) if a.dtype == np.float16 else a


class MpiPending(Pending):
    """A non-blocking all-reduce in flight: ``result`` holds the result once :meth:`wait` returns."""

    __slots__ = ("group", "request", "send", "recv", "back", "what")

    def __init__(self, group, request, send, recv, result, back, what):
        super().__init__(result)
        self.group, self.request, self.send, self.recv, self.back = group, request, send, recv, back
        self.what = what

    def test(self) -> bool:
        return self.request.Test()

    def wait(self):
        self.group.wait([self.request], self.what)
        if self.recv is not self.result:
            self.result[...] = self.back(self.recv.astype(self.result.dtype, copy=False))
        self.send = self.recv = None
        return self.result


class MpiGroup:
    """A group of processes over an mpi4py communicator. See the module docstring."""

    def __init__(self, comm, name: str, timeout: float | None = None, departures=None, members=None):
        from mpi4py import MPI
        self._MPI = MPI
        self.comm = comm
        self.name = name
        self.rank = comm.Get_rank()
        self.size = comm.Get_size()
        #: exit notices of the world's ranks (None until init() makes them for the world group)
        self.departures = departures
        #: the world ranks of this group's members (None: the whole world)
        self.members = members
        self.timeout = timeout_from_env() if timeout is None else float(timeout)
        self._ops = {"sum": MPI.SUM, "max": MPI.MAX, "min": MPI.MIN, "prod": MPI.PROD}
        self._local = None
        #: seconds spent blocked waiting for collectives to complete (what communication cost
        #: the computation, after overlap), and how many waits blocked; see docs/distributed.md
        self.blocked_seconds = 0.0
        self.blocked_waits = 0

    # -- waiting -----------------------------------------------------------------------------------
    def wait(self, requests, what: str) -> None:
        """Poll ``requests`` until all completed; CollectiveTimeout after ``self.timeout`` seconds."""
        testall = self._MPI.Request.Testall
        if testall(requests):
            return
        start = time.monotonic()
        spin_until = start + SPIN_SECONDS
        deadline = start + self.timeout
        self.blocked_waits += 1
        try:
            self._poll(requests, testall, spin_until, deadline, what)
        finally:
            self.blocked_seconds += time.monotonic() - start

    def watch_departures(self) -> None:
        """Make the exit notices of the world's ranks (collective over the world; ``init()``)
        and announce this rank's own exit when the process ends."""
        import atexit
        self.departures = Departures(self._MPI, self.comm)
        atexit.register(self.departures.announce)

    def _departed(self, now):
        """(world rank, when its notice came) of a member of this group that has exited, or None."""
        if self.departures is None:
            return None
        gone = self.departures.poll(now)
        for r, seen in gone.items():
            if self.members is None or r in self.members:
                return r, seen
        return None

    def _poll(self, requests, testall, spin_until, deadline, what):
        pause = 1e-5
        while not testall(requests):
            now = time.monotonic()
            departed = self._departed(now) if now > spin_until else None
            if departed is not None and now > departed[1] + DEPARTED_GRACE:
                raise PeerExited(
                    f"{what} on group {self.name!r} (rank {self.rank} of {self.size}): world rank {departed[0]} has "
                    "exited without taking part (its script returned or called sys.exit()). The ranks probably "
                    "ran a different number of steps or batches, or that rank stopped early on purpose.")
            if now > deadline:
                raise CollectiveTimeout(
                    f"{what} on group {self.name!r} (rank {self.rank} of {self.size}): the other ranks did "
                    f"not take part within {self.timeout:g} s (MSJIT_COMM_TIMEOUT). A rank probably failed "
                    "or stopped, or the ranks run different collectives (e.g. a different number of "
                    "steps or batches).")
            if now > spin_until:
                time.sleep(pause)
                pause = min(pause * 2, MAX_PAUSE)

    # -- collectives ----------------------------------------------------------------------------------
    def all_reduce(self, xp, x, op):
        return self.start_all_reduce(xp, x, op, "AllReduce").wait()

    def start_all_reduce(self, xp, x, op, what="AllReduceStart/Wait (a gradient bucket)"):
        send, back = _host(xp, x)
        on_host = xp is np or isinstance(x, np.ndarray)
        result = np.empty_like(send) if on_host else xp.empty(send.shape, dtype=x.dtype)
        send = _reducible(send)
        # MPI writes straight into the result when it is a host array of the reduced dtype
        recv = result if on_host and send.dtype == result.dtype else np.empty_like(send)
        request = self.comm.Iallreduce(send, recv, self._ops[op])
        return MpiPending(self, request, send, recv, result, back, what)

    def all_gather(self, xp, x):
        send, back = _host(xp, x)
        out = np.empty((self.size * send.shape[0],) + send.shape[1:], send.dtype)
        request = self.comm.Iallgather(send.view(np.uint8), out.view(np.uint8))
        self.wait([request], "AllGather")
        return back(out)

    def reduce_scatter(self, xp, x, op):
        send, back = _host(xp, x)
        red = _reducible(send)
        out = np.empty((red.shape[0] // self.size,) + red.shape[1:], red.dtype)
        request = self.comm.Ireduce_scatter_block(red, out, self._ops[op])
        self.wait([request], "ReduceScatter")
        return back(out.astype(send.dtype, copy=False))

    def broadcast(self, xp, xs, root):
        bufs, requests, backs = [], [], []
        for x in xs:
            buf, back = _host(xp, x)
            buf = np.array(buf, copy=True)  # the operand stays untouched on every rank
            bufs.append(buf)
            backs.append(back)
            if buf.size:
                requests.append(self.comm.Ibcast(buf.reshape(-1).view(np.uint8), root=root))
        if requests:
            self.wait(requests, "Broadcast")
        return tuple(back(b) for back, b in zip(backs, bufs))

    # -- structure -----------------------------------------------------------------------------------
    def local(self):
        """(rank, size) among the processes of this group on this machine."""
        if self._local is None:
            node = self.comm.Split_type(self._MPI.COMM_TYPE_SHARED)
            self._local = (node.Get_rank(), node.Get_size())
            node.Free()
        return self._local

    def subgroup(self, name: str, rank_ids):
        """The group of ``rank_ids`` (ranks of this group); only its members call this."""
        members = self.comm.Get_group().Incl(list(rank_ids))
        try:
            sub = self.comm.Create_group(members)
        finally:
            members.Free()
        return MpiGroup(sub, name, self.timeout, self.departures,
                        frozenset(self.world_rank_of_members(rank_ids)))

    def world_rank_of_members(self, rank_ids):
        """World ranks of this group's ranks ``rank_ids``."""
        return [self.world_rank_of(r) for r in rank_ids]

    def world_rank_of(self, group_rank: int) -> int:
        world = self._MPI.COMM_WORLD.Get_group()
        mine = self.comm.Get_group()
        try:
            return self._MPI.Group.Translate_ranks(mine, [group_rank], world)[0]
        finally:
            world.Free()
            mine.Free()

    def group_rank_of(self, world_rank: int) -> int:
        world = self._MPI.COMM_WORLD.Get_group()
        mine = self.comm.Get_group()
        try:
            r = self._MPI.Group.Translate_ranks(world, [world_rank], mine)[0]
        finally:
            world.Free()
            mine.Free()
        return -1 if r == self._MPI.UNDEFINED else r

    def free(self) -> None:
        if self.comm != self._MPI.COMM_WORLD and self.comm != self._MPI.COMM_NULL:
            self.comm.Free()

    def abort(self, code: int = 1) -> None:
        self._MPI.COMM_WORLD.Abort(code)

    def __repr__(self):
        return f"<MPI group {self.name}: rank {self.rank} of {self.size}>"
