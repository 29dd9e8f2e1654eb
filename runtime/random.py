"""Global seeding: ``ms.set_seed(n)`` makes initialisation and dropout reproducible.

Example:
    >>> import runtime as ms
    >>> ms.set_seed(1)
    >>> a = ms.nn.Dense(2, 2).weight.asnumpy(); ms.set_seed(1)
    >>> bool((a == ms.nn.Dense(2, 2).weight.asnumpy()).all())
    True
"""
from __future__ import annotations

import numpy as np

from graph.ops import rng as _rng

_init_rng = {"gen": np.random.default_rng()}


def set_seed(seed: int) -> None:
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"set_seed: seed must be a non-negative int, got {seed!r}")
    _rng.seed(seed)
    _init_rng["gen"] = np.random.default_rng(seed + 1)


def get_seed() -> int | None:
    return _rng.get_seed()


def init_generator() -> np.random.Generator:
    """Generator used by parameter initializers (separate from the op stream)."""
    return _init_rng["gen"]
