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

from graph import config as settings


#: (size variable, rank variable) set by common launchers (declared in graph/config.py)
LAUNCHER_VARIABLES = settings.LAUNCHER_VARIABLES


def launched_size(environ=None) -> int | None:
    """The number of processes the launcher started, or None when no launcher started this one."""
    for size_var, rank_var in LAUNCHER_VARIABLES:
        raw = settings.raw(size_var, environ)
        if raw and settings.raw(rank_var, environ) is not None:
            try:
                return int(raw)
            except ValueError:
                continue
    return None


def mpi_forced(environ=None) -> bool:
    """``MSJIT_COMM=mpi``: initialise MPI even without a launcher (a singleton MPI process)."""
    return settings.get("MSJIT_COMM", environ)


def requested_ranks(environ=None) -> int | None:
    """Ranks a MindSpore-style environment asks for (``RANK_SIZE``), or None."""
    return settings.get("RANK_SIZE", environ)
