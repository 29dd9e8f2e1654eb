"""Dataset configuration (``mindspore.dataset.config``): the seed shuffles use.

Shuffling draws from ``config.set_seed(n)`` when given, else from ``ms.set_seed(n)``; with neither,
each pipeline launch gets a fresh random order.

Example:
    >>> from runtime.data import config
    >>> config.set_seed(7); config.get_seed()
    7
    >>> config.set_seed(None)
"""
from __future__ import annotations

_state = {"seed": None, "num_parallel_workers": 1, "prefetch_size": 16}


def set_seed(seed):
    """Seed for dataset shuffles (None: follow ``ms.set_seed``)."""
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise ValueError(f"config.set_seed: seed must be a non-negative int or None, got {seed!r}")
    _state["seed"] = seed


def get_seed():
    """The dataset seed: the one from ``config.set_seed``, else ``ms.set_seed``'s, else None."""
    if _state["seed"] is not None:
        return _state["seed"]
    from graph.ops import rng
    return rng.get_seed()


def set_num_parallel_workers(num):
    if isinstance(num, bool) or not isinstance(num, int) or num < 1:
        raise ValueError(f"config.set_num_parallel_workers: expected a positive int, got {num!r}")
    _state["num_parallel_workers"] = num


def get_num_parallel_workers():
    return _state["num_parallel_workers"]


def set_prefetch_size(size):
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ValueError(f"config.set_prefetch_size: expected a positive int, got {size!r}")
    _state["prefetch_size"] = size


def get_prefetch_size():
    return _state["prefetch_size"]
