"""``nn.DistributedGradReducer``: all-reduce gradients across the data-parallel processes.

Gradients are all-reduced in a few large buckets (``set_auto_parallel_context(comm_fusion=...)`` or
``all_reduce_fusion_config`` set their size or boundaries; 25 MB by default), each started
non-blocking as soon as it is complete; see :mod:`runtime.parallel.reducer`. Inside a compiled
step the whole exchange is part of the one graph.

``TrainOneStepCell`` (hence ``Model.train``) builds one in DATA_PARALLEL mode, and ``grad`` /
``value_and_grad`` / ``GradOperation`` reduce parameter gradients themselves there unless a
DistributedGradReducer was built for those parameters, so a script that applies its own reducer
(as MindSpore scripts do) is not reduced twice.

Example:
    >>> import numpy as np
    >>> import runtime as ms
    >>> from runtime import nn
    >>> net = nn.Dense(3, 2)
    >>> reducer = nn.DistributedGradReducer(net.trainable_params(), mean=True)
    >>> grads = tuple(ms.ops.ones_like(p) for p in net.trainable_params())
    >>> [g.shape for g in reducer(grads)]        # a world of one process: unchanged
    [(2, 3), (2,)]
"""
from __future__ import annotations

from graph.ops import comm

from ..parallel import context, reducer
from .cell import Cell

__all__ = ["DistributedGradReducer"]


class DistributedGradReducer(Cell):
    """``DistributedGradReducer(parameters, mean=None, degree=None, fusion_type=1, group=...)``.

    parameters: the Parameters whose gradients ``construct(grads)`` receives, in that order.
    mean: average instead of sum (None: ``get_auto_parallel_context("gradients_mean")``).
    degree: the divisor when averaging (None: the group's size). fusion_type is accepted for
    compatibility; bucketing follows the auto-parallel context's fusion settings.
    """

    def __init__(self, parameters, mean=None, degree=None, fusion_type=1, group=comm.WORLD):
        super().__init__(auto_prefix=False)
        params = list(parameters)
        if mean is None:
            mean = context.get_auto_parallel_context("gradients_mean")
        if not isinstance(mean, bool):
            raise TypeError(f"DistributedGradReducer: mean must be a bool, got {mean!r}")
        if not isinstance(group, str):
            raise TypeError(f"DistributedGradReducer: group must be a str, got {type(group).__name__}")
        size = comm.get_group(group).size
        if degree is None:
            degree = size
        if isinstance(degree, bool) or not isinstance(degree, int) or degree < 1:
            raise ValueError(f"DistributedGradReducer: degree must be a positive int, got {degree!r}")
        self.mean = mean
        self.degree = degree
        self.group = group
        self.fusion_type = fusion_type
        self.n_params = len(params)
        self._buckets = reducer.buckets_for(params)
        reducer.mark_explicitly_reduced(params)

    def construct(self, grads):
        if len(grads) != self.n_params:
            raise ValueError(f"DistributedGradReducer: got {len(grads)} gradients for the {self.n_params} "
                             "parameters it was built for")
        return reducer.reduce_buckets(grads, self._buckets, self.mean, self.degree, self.group)
