"""``mindspore.communication.management``: init/release, ranks, sizes and groups, over MPI.

``init()`` joins the MPI world when a launcher (``mpiexec``, ``python -m runtime.launch``,
``srun``) started this process; otherwise the world is this process alone, so a data-parallel
script also runs as ``python train.py``. MindSpore's backend names (``"hccl"``, ``"nccl"``,
``"mccl"``) all mean MPI here; ``init("nccl")`` still names the world ``"nccl_world_group"`` as
MindSpore does.

Under MPI, ``init()`` also
  * makes an uncaught exception on any rank abort every rank (``MPI_Abort``) after printing it, so
    a failing rank never leaves the others waiting forever (a process launched as one of several
    ranks installs this on import, so it also covers failures before ``init()``; MPI_Init itself
    gives up after ``MSJIT_COMM_TIMEOUT`` seconds when a rank never arrives);
  * makes a rank that ends early without an error (``sys.exit()``, the script returning) tell the
    others, so a collective still waiting for it raises ``PeerExited`` within seconds;
  * shares the machine's cores between the ranks on it: unless ``MSJIT_THREADS`` /
    ``set_context(num_threads=)`` and ``RUNTIME_BLAS_THREADS`` say otherwise, each rank's kernel
    and BLAS thread pools get ``cores // local ranks`` threads.

Example:
    >>> from runtime.communication import init, get_rank, get_group_size, release
    >>> init()
    >>> get_rank(), get_group_size()
    (0, 1)
    >>> release()
"""
from __future__ import annotations

import os
import sys
import time
import traceback

from graph import config as settings
from graph.ops import comm

from .launcher import launched_size, mpi_forced, requested_ranks

HCCL_WORLD_COMM_GROUP = "hccl_world_group"
NCCL_WORLD_COMM_GROUP = "nccl_world_group"
MCCL_WORLD_COMM_GROUP = "mccl_world_group"
_WORLD_OF = {"hccl": HCCL_WORLD_COMM_GROUP, "nccl": NCCL_WORLD_COMM_GROUP, "mccl": MCCL_WORLD_COMM_GROUP,
             "mpi": HCCL_WORLD_COMM_GROUP}


class GlobalComm:
    """World communication information: ``BACKEND``, ``WORLD_COMM_GROUP``, ``INITED``."""

    BACKEND = "undefined"
    WORLD_COMM_GROUP = HCCL_WORLD_COMM_GROUP
    INITED = False


def _backend(backend_name):
    if backend_name is None:
        from ..context import get_context
        return "nccl" if get_context("device_target") == "GPU" else "mccl"
    if not isinstance(backend_name, str):
        raise TypeError(f"init: backend_name must be a str, got {type(backend_name).__name__}")
    name = backend_name.lower()
    if name not in _WORLD_OF:
        raise RuntimeError(f"init: unknown backend {backend_name!r}; valid: 'hccl', 'nccl', 'mccl' "
                           "(all run over MPI here) or 'mpi'")
    return name


def _import_mpi(launched):
    try:
        from mpi4py import MPI
    except ImportError as e:
        raise RuntimeError(f"init: this process was started as one of {launched} ranks, but mpi4py cannot be "
                           f"imported ({e}). Install the distributed extra: pip install 'msjit[distributed]'"
                           ) from None
    return MPI


def init(backend_name=None) -> None:
    """Initialise the communication world (see the module docstring). Calling it again is a no-op.

    Raises RuntimeError when the launcher or ``RANK_SIZE`` / ``device_num`` ask for several ranks
    that MPI cannot provide (not launched by an MPI launcher, or mpi4py missing)."""
    name = _backend(backend_name)
    if GlobalComm.INITED:
        return
    launched = launched_size()
    if launched is not None and launched > 1 or mpi_forced():
        with _watchdog("init"):
            MPI = _import_mpi(launched)
        from .mpi_group import MpiGroup
        world = MpiGroup(MPI.COMM_WORLD, _WORLD_OF[name])
        if launched is not None and world.size != launched:
            raise RuntimeError(f"init: the launcher started {launched} ranks but MPI sees a world of "
                               f"{world.size}: mpi4py is probably built against another MPI than the "
                               "mpiexec that launched this process (use the one from the same install)")
    else:
        from ..parallel.context import _state as parallel_state
        wanted = max(requested_ranks() or 1, parallel_state["device_num"] or 1)
        if wanted > 1:
            raise RuntimeError(f"init: {wanted} ranks were asked for (RANK_SIZE / device_num), but this process "
                               f"was not started by an MPI launcher. Run `python -m runtime.launch -n {wanted} "
                               f"script.py` or `mpiexec -n {wanted} python script.py` (pip install "
                               "'msjit[distributed]' brings mpiexec).")
        world = comm.SingleProcessGroup(_WORLD_OF[name])
    comm.set_world(world)
    _reset_parallel_state()
    GlobalComm.BACKEND = name
    GlobalComm.WORLD_COMM_GROUP = _WORLD_OF[name]
    GlobalComm.INITED = True
    if world.size > 1:
        install_abort_hook()
        world.watch_departures()
        _share_cores(world)


def release() -> None:
    """Free the groups created with :func:`create_group` and leave the world (MPI itself is
    finalised when the process exits). Raises RuntimeError before :func:`init`."""
    _check_inited("release")
    for name in list(comm.group_names()):
        if name not in comm.WORLD_NAMES:
            g = comm.remove_group(name)
            if hasattr(g, "free"):
                g.free()
    comm.set_world(None)
    _reset_parallel_state()
    GlobalComm.INITED = False
    GlobalComm.BACKEND = "undefined"


def _reset_parallel_state():
    from ..parallel import reducer
    reducer.reset()


def _check_inited(what):
    if not GlobalComm.INITED:
        raise RuntimeError(f"{what}: distributed communication has not been initialised; call "
                           "runtime.communication.init() first")


def _group(what, group):
    _check_inited(what)
    if not isinstance(group, str):
        raise TypeError(f"{what}: group must be a str, got {type(group).__name__}")
    return comm.get_group(group)


def get_rank(group=GlobalComm.WORLD_COMM_GROUP) -> int:
    """This process's rank in ``group`` (the world by default)."""
    return _group("get_rank", group).rank


def get_group_size(group=GlobalComm.WORLD_COMM_GROUP) -> int:
    """The number of processes in ``group``."""
    return _group("get_group_size", group).size


def get_local_rank(group=GlobalComm.WORLD_COMM_GROUP) -> int:
    """This process's rank among the processes of ``group`` on this machine."""
    g = _group("get_local_rank", group)
    return g.local()[0] if hasattr(g, "local") else 0


def get_local_rank_size(group=GlobalComm.WORLD_COMM_GROUP) -> int:
    """The number of processes of ``group`` on this machine."""
    g = _group("get_local_rank_size", group)
    return g.local()[1] if hasattr(g, "local") else 1


def _check_rank_ids(rank_ids, world_size):
    if not isinstance(rank_ids, (list, tuple)) or not all(isinstance(r, int) and not isinstance(r, bool)
                                                          for r in rank_ids):
        raise TypeError(f"create_group: rank_ids must be a list of ints, got {rank_ids!r}")
    if not rank_ids:
        raise ValueError("create_group: rank_ids is empty")
    if len(set(rank_ids)) != len(rank_ids):
        raise ValueError(f"create_group: rank_ids has duplicates: {list(rank_ids)}")
    bad = [r for r in rank_ids if not 0 <= r < world_size]
    if bad:
        raise ValueError(f"create_group: rank_ids {bad} are not ranks of the world (size {world_size})")


def create_group(group, rank_ids, options=None) -> None:
    """Create the group ``group`` of the world ranks ``rank_ids``. Only those ranks call it (MPI
    builds the communicator among them alone); the name must not be a world group's."""
    _check_inited("create_group")
    if not isinstance(group, str) or not group:
        raise TypeError(f"create_group: group must be a non-empty str, got {group!r}")
    if group in comm.WORLD_NAMES:
        raise ValueError(f"create_group: {group!r} is the world group's name")
    world = comm.world()
    _check_rank_ids(rank_ids, world.size)
    if world.rank not in rank_ids:
        raise ValueError(f"create_group: this process (rank {world.rank}) is not in rank_ids {list(rank_ids)}; "
                         "only the group's members call create_group")
    if world.size == 1:
        comm.add_group(group, comm.SingleProcessGroup(group))
    else:
        comm.add_group(group, world.subgroup(group, rank_ids))


def destroy_group(group) -> None:
    """Free a group made by :func:`create_group`."""
    _check_inited("destroy_group")
    if group in comm.WORLD_NAMES:
        raise ValueError(f"destroy_group: the world group {group!r} cannot be destroyed")
    g = comm.remove_group(group)
    if g is None:
        raise ValueError(f"destroy_group: unknown group {group!r}; existing groups: {comm.group_names()}")
    if hasattr(g, "free"):
        g.free()


def get_world_rank_from_group_rank(group, group_rank_id) -> int:
    """The world rank of rank ``group_rank_id`` of ``group``."""
    g = _group("get_world_rank_from_group_rank", group)
    if not 0 <= group_rank_id < g.size:
        raise ValueError(f"get_world_rank_from_group_rank: group_rank_id {group_rank_id} is not a rank of "
                         f"group {group!r} (size {g.size})")
    return g.world_rank_of(group_rank_id) if hasattr(g, "world_rank_of") else group_rank_id


def get_group_rank_from_world_rank(world_rank_id, group) -> int:
    """The rank in ``group`` of world rank ``world_rank_id``."""
    g = _group("get_group_rank_from_world_rank", group)
    r = g.group_rank_of(world_rank_id) if hasattr(g, "group_rank_of") else (0 if world_rank_id == 0 else -1)
    if r < 0:
        raise ValueError(f"get_group_rank_from_world_rank: world rank {world_rank_id} is not in group {group!r}")
    return r


# -- failure handling and machine sharing ---------------------------------------------------------------
_hook = {"previous": None, "installed": False, "pid": None}
#: seconds between printing a failing rank's error and aborting the job (see _abort_every_rank)
ABORT_GRACE_SECONDS = 1.0


def _abort_every_rank(exc_type, exc, tb):
    """sys.excepthook of a launched rank: print the error, then MPI_Abort every rank. A rank that
    fails before init() first joins MPI (the others wait in MPI_Init for it) to abort them."""
    if os.getpid() != _hook["pid"]:  # a forked child (a data worker): not a rank, do not abort the job
        return _hook["previous"](exc_type, exc, tb)
    world = comm.world()
    rank = world.rank if world.size > 1 else _launched_rank()
    size = world.size if world.size > 1 else launched_size()
    try:
        sys.stdout.flush()
        report = "".join(traceback.format_exception(exc_type, exc, tb))
        sys.stderr.write(f"{report}runtime.communication: rank {rank} of {size} failed with {exc_type.__name__}: "
                         f"{exc}\nruntime.communication: aborting every rank (MPI_Abort) so none waits for it\n")
        sys.stderr.flush()
        # the launcher forwards our output through a pipe and stops reading it once the abort
        # reaches it: give it a moment to pass the report on
        time.sleep(ABORT_GRACE_SECONDS)
    finally:
        if world.size > 1:
            world.abort(1)
        try:
            with _watchdog("joining MPI to abort the other ranks"):
                from mpi4py import MPI
            MPI.COMM_WORLD.Abort(1)
        except ImportError:
            pass
        os._exit(1)


def _launched_rank():
    from .launcher import LAUNCHER_VARIABLES
    for _, rank_var in LAUNCHER_VARIABLES:
        value = settings.raw(rank_var) or ""
        if value.isdigit():
            return int(value)
    return "?"


def install_abort_hook() -> None:
    """Make an uncaught exception abort every rank (done on import when launched as one of
    several ranks, so a rank failing even before init() stops the others)."""
    if _hook["installed"]:
        return
    _hook["previous"] = sys.excepthook
    _hook["installed"] = True
    _hook["pid"] = os.getpid()
    sys.excepthook = _abort_every_rank


_WATCHDOG = """
import os, sys, time
parent, timeout, message = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
time.sleep(timeout)
if os.getppid() == parent:
    sys.stderr.write(message)
    sys.stderr.flush()
    os.kill(parent, 9)
"""


class _watchdog:
    """Kill this process with a clear message if the block does not finish within the collective
    timeout: MPI_Init waits for every rank, and a rank that died before calling it never comes.
    MPI_Init holds the GIL, so the watchdog is a separate (tiny) process, not a thread."""

    def __init__(self, what):
        self.what = what

    def __enter__(self):
        import subprocess
        from .mpi_group import timeout_from_env
        timeout = timeout_from_env()
        message = (f"runtime.communication: {self.what}: the other ranks did not join MPI within {timeout:g} s "
                   "(MSJIT_COMM_TIMEOUT); a rank probably failed before calling init(). Stopping this rank.\n")
        self.proc = subprocess.Popen([sys.executable, "-I", "-S", "-c", _WATCHDOG, str(os.getpid()), repr(timeout),
                                      message], stdin=subprocess.DEVNULL)
        return self

    def __exit__(self, *exc):
        self.proc.kill()
        self.proc.wait()
        return False


def _share_cores(world) -> None:
    """Give each local rank its share of the cores unless the user sized the pools."""
    local = world.local()[1] if hasattr(world, "local") else 1
    from graph.cpus import usable_cores
    share = max(1, usable_cores() // max(1, local))
    from ..context import get_context, set_context
    if not settings.raw("MSJIT_THREADS") and get_context("num_threads") is None:
        set_context(num_threads=share)
    if not settings.raw("RUNTIME_BLAS_THREADS"):
        from ..device import limit_blas_threads
        limit_blas_threads(share)


if (launched_size() or 1) > 1:
    install_abort_hook()
