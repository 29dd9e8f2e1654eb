"""Which process does what in a data-parallel job: rank 0 prints and saves, unless asked.

Every rank runs the same training loop, so without this every line of ``LossMonitor`` output and
every checkpoint would appear once per rank. By default only rank 0 of the communication world
prints training output (``LossMonitor``, ``TimeMonitor``, progress) and writes ``ModelCheckpoint``
files; ``MSJIT_LOG_ALL_RANKS=1`` makes every rank print, each line prefixed ``[rank r]``, and
``CheckpointConfig(per_rank=True)`` makes every rank save files with a ``_rank{r}`` suffix.

Example:
    >>> from runtime.parallel import ranks
    >>> ranks.world_rank(), ranks.world_size(), ranks.logs_here()
    (0, 1, True)
"""
from __future__ import annotations

from graph import config as settings
from graph.ops import comm


def world_rank() -> int:
    return comm.world().rank


def world_size() -> int:
    return comm.world().size


def _all_ranks_log() -> bool:
    return settings.get("MSJIT_LOG_ALL_RANKS")


def logs_here() -> bool:
    """Whether this process prints training output."""
    return world_size() == 1 or world_rank() == 0 or _all_ranks_log()


def log_prefix() -> str:
    """``"[rank r] "`` when every rank of a multi-process job prints, else ``""``."""
    return f"[rank {world_rank()}] " if world_size() > 1 and _all_ranks_log() else ""
