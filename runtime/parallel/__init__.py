"""Data parallelism: the auto-parallel context and the gradient reducer's machinery.

Example:
    >>> import runtime as ms
    >>> ms.ParallelMode.DATA_PARALLEL
    'data_parallel'
"""
from .context import (ParallelMode, get_auto_parallel_context, reset_auto_parallel_context,
                      set_auto_parallel_context)

__all__ = ["ParallelMode", "set_auto_parallel_context", "get_auto_parallel_context",
           "reset_auto_parallel_context"]
