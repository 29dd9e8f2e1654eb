"""Sharding a dataset across data-parallel processes: MindSpore's ``DistributedSampler`` rule.

With ``num_shards=S`` and ``shard_id=d``, a source of ``n`` rows gives every shard the same number
of rows, ``ceil(n / S)``: row ``k`` of shard ``d`` is ``order[(k * S + d) % n]``, so shards
interleave and the last ones wrap around to the start when ``n`` is not a multiple of ``S``
(every process then runs the same number of steps, which collective ops need). ``order`` is the
identity, or with shuffling one permutation per epoch that every shard draws alike: from the
dataset seed (``runtime.data.config.set_seed`` / ``ms.set_seed``), else from :data:`SHARD_SEED`,
so ranks that set no seed at all still agree. Ranks that set *different* seeds get different
orders (as in MindSpore): set the same seed on every rank.

Any source that knows its row count uses :class:`Shard`: ``num_shards``/``shard_id`` on an indexable
dataset make a :class:`~runtime.data.samplers.DistributedSampler`, and that sampler draws its rows
here, so both spellings shard the same way.

``offset`` (``DistributedSampler(offset=k)``, k >= 0) is MindSpore's other distribution: no
wrapping, so shard sizes may differ by one; position ``p`` of the order goes to shard
``(p + offset) % num_shards``, so shard ``d`` starts ``offset`` shards later than with offset 0.

Example:
    >>> import numpy as np
    >>> from runtime.data.sharding import Shard
    >>> [Shard(3, d).indices(np.arange(10)).tolist() for d in range(3)]
    [[0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]]
"""
from __future__ import annotations

import numbers

import numpy as np

#: seed of shard shuffles when no dataset seed is set: MindSpore's default dataset seed
#: (``std::mt19937::default_seed``), the same on every rank
SHARD_SEED = 5489


def check_shard_args(num_shards, shard_id, what: str, range_error=ValueError):
    """Validated ``(num_shards, shard_id)``; both None, or ``0 <= shard_id < num_shards``.
    Out-of-range values raise ``range_error`` (a dataset's arguments: ValueError; a
    ``DistributedSampler``'s: RuntimeError, as MindSpore documents each)."""
    if (num_shards is None) != (shard_id is None):
        raise ValueError(f"{what}: give both num_shards and shard_id, or neither")
    if num_shards is None:
        return None, None
    for name, v in (("num_shards", num_shards), ("shard_id", shard_id)):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            raise TypeError(f"{what}: {name} must be an int, got {v!r}")
    if num_shards < 1:
        raise range_error(f"{what}: num_shards must be >= 1, got {num_shards}")
    if not 0 <= shard_id < num_shards:
        raise range_error(f"{what}: shard_id must be in [0, num_shards - 1] = [0, {num_shards - 1}], got {shard_id}")
    return int(num_shards), int(shard_id)


class Shard:
    """Shard ``shard_id`` of ``num_shards`` (see the module docstring); ``offset=-1``: equal
    shard sizes by wrapping, else the uneven distribution starting ``offset`` shards later."""

    __slots__ = ("num_shards", "shard_id", "offset")

    def __init__(self, num_shards: int, shard_id: int, offset: int = -1):
        self.num_shards = num_shards
        self.shard_id = shard_id
        self.offset = offset

    def _first_position(self) -> int:
        """With an offset: the first position of the order this shard takes."""
        start = self.shard_id - self.offset
        return start + self.num_shards if start < 0 else start

    def size(self, n: int) -> int:
        """Rows of this shard out of ``n``: ``ceil(n / num_shards)`` (0 for an empty source), or
        with an offset the positions ``p < n`` congruent to its first one."""
        if self.offset != -1:
            return len(range(self._first_position(), n, self.num_shards))
        return -(-n // self.num_shards) if n else 0

    def indices(self, order) -> np.ndarray:
        """This shard's rows, given the epoch's ``order`` of all rows."""
        n = len(order)
        if not n:
            return np.asarray(order, dtype=np.int64)
        if self.offset != -1:
            positions = np.arange(self._first_position(), n, self.num_shards, dtype=np.int64)
        else:
            positions = (np.arange(self.size(n), dtype=np.int64) * self.num_shards + self.shard_id) % n
        return np.asarray(order)[positions]
