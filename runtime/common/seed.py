"""``mindspore.common.seed``: ``set_seed`` and ``get_seed`` (the global seed of :mod:`runtime.random`).

Example:
    >>> from runtime.common.seed import set_seed, get_seed
    >>> set_seed(7); get_seed()
    7
"""
from ..random import get_seed, set_seed

__all__ = ["set_seed", "get_seed"]
