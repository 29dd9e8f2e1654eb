"""``mindspore.communication.comm_func``: collectives as functions on one tensor.

Each is the registered collective op (:mod:`graph.ops.collective`), so it runs eagerly, inside
compiled graphs and under autodiff alike.

Example:
    >>> import numpy as np
    >>> from runtime import Tensor
    >>> from runtime.communication import comm_func
    >>> comm_func.all_reduce(Tensor(np.array([1.0, 2.0], np.float32)))   # a world of one process
    Tensor(shape=[2], dtype=Float32, value=[1., 2.])
"""
from __future__ import annotations

from graph.ops import REGISTRY, bind
from graph.ops.comm import WORLD

from ..ops.comm_ops import ReduceOp

__all__ = ["all_reduce", "all_gather_into_tensor", "reduce_scatter_tensor", "broadcast", "barrier"]


def all_reduce(tensor, op=ReduceOp.SUM, group=WORLD):
    """The elementwise reduction (sum/max/min/prod) of ``tensor`` over the group's processes."""
    return bind(REGISTRY["all_reduce"], tensor, op=op, group=group)


def all_gather_into_tensor(tensor, group=WORLD):
    """Every process's ``tensor`` concatenated along axis 0, in rank order."""
    return bind(REGISTRY["all_gather"], tensor, group=group)


def reduce_scatter_tensor(tensor, op=ReduceOp.SUM, group=WORLD):
    """The reduction over the group, of which process i keeps the i-th part along axis 0."""
    return bind(REGISTRY["reduce_scatter"], tensor, op=op, group=group)


def broadcast(tensor, src=0, group=WORLD):
    """Rank ``src``'s ``tensor`` on every process."""
    return bind(REGISTRY["broadcast"], tensor, root_rank=src, group=group)[0]


def barrier(group=WORLD):
    """Wait until every process of the group has reached this call."""
    import numpy as np
    from ..tensor import Tensor
    all_reduce(Tensor(np.zeros(1, np.int32)), ReduceOp.SUM, group)
