"""What the process launcher told this process: is it one of several ranks started by ``mpiexec``
(or ``srun``), and how many?

MPI is only initialised when a launcher started this process (or ``MSJIT_COMM=mpi`` forces it), so
``python train.py`` never pays for MPI nor needs it installed.

Example:
    >>> from runtime.communication.launcher import launched_size
    >>> launched_size({"PMI_SIZE": "4", "PMI_RANK": "1"})
    4
    >>> launched_size({}) is None
    True
"""
from __future__ import annotations

import os

#: (size variable, rank variable) set by common launchers: MPICH/Intel MPI (hydra), Open MPI,
#: MVAPICH, Slurm's srun (step variables, which a batch script itself does not have)
LAUNCHER_VARIABLES = (
    ("PMI_SIZE", "PMI_RANK"),
    ("OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"),
    ("MV2_COMM_WORLD_SIZE", "MV2_COMM_WORLD_RANK"),
    ("SLURM_STEP_NUM_TASKS", "SLURM_PROCID"),
)


def launched_size(environ=None) -> int | None:
    """The number of processes the launcher started, or None when no launcher started this one."""
    env = os.environ if environ is None else environ
    for size_var, rank_var in LAUNCHER_VARIABLES:
        raw = env.get(size_var)
        if raw and rank_var in env:
            try:
                return int(raw)
            except ValueError:
                continue
    return None


def mpi_forced(environ=None) -> bool:
    """``MSJIT_COMM=mpi``: initialise MPI even without a launcher (a singleton MPI process)."""
    env = os.environ if environ is None else environ
    return env.get("MSJIT_COMM", "").lower() == "mpi"


def requested_ranks(environ=None) -> int | None:
    """Ranks a MindSpore-style environment asks for (``RANK_SIZE``), or None."""
    env = os.environ if environ is None else environ
    raw = env.get("RANK_SIZE")
    try:
        return int(raw) if raw else None
    except ValueError:
        return None
