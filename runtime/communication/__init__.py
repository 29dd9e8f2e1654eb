"""``runtime.communication`` (``mindspore.communication``): the processes of a data-parallel job.

MPI (through mpi4py; ``pip install 'msjit[distributed]'``) is the transport. Launch N processes
with ``python -m runtime.launch -n N train.py`` or ``mpiexec -n N python train.py``; each calls
:func:`init` and gets its rank. The collectives themselves are ops (``ops.AllReduce`` ...,
:mod:`runtime.communication.comm_func`), so they run eagerly, in compiled graphs and under autodiff.

Example:
    >>> from runtime.communication import init, get_rank, get_group_size, GlobalComm, release
    >>> init()                      # launched without mpiexec: a world of one process
    >>> get_rank(), get_group_size(), GlobalComm.INITED
    (0, 1, True)
    >>> release()
"""
from . import comm_func  # noqa: F401
from .management import (GlobalComm, HCCL_WORLD_COMM_GROUP, MCCL_WORLD_COMM_GROUP,
                         NCCL_WORLD_COMM_GROUP, create_group, destroy_group, get_group_rank_from_world_rank,
                         get_group_size, get_local_rank, get_local_rank_size, get_rank,
                         get_world_rank_from_group_rank, init, release)
from . import management  # noqa: F401

__all__ = ["GlobalComm", "HCCL_WORLD_COMM_GROUP", "NCCL_WORLD_COMM_GROUP", "MCCL_WORLD_COMM_GROUP", "init",
           "release", "get_rank", "get_group_size", "get_local_rank", "get_local_rank_size", "create_group",
           "destroy_group", "get_world_rank_from_group_rank", "get_group_rank_from_world_rank"]
