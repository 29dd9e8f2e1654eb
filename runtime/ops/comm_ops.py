"""``ops.ReduceOp``: the reductions collective ops accept (``ops.AllReduce(op=ReduceOp.MAX)``).

The collective Primitives themselves (``ops.AllReduce``, ``ops.AllGather``, ``ops.ReduceScatter``,
``ops.Broadcast``) are generated from the op registry like every other op.

Example:
    >>> from runtime import ops
    >>> ops.ReduceOp.SUM, ops.ReduceOp.MAX
    ('sum', 'max')
"""

__all__ = ["ReduceOp"]


class ReduceOp:
    """Reduction operations of collectives: ``SUM``, ``MAX``, ``MIN``, ``PROD``."""

    SUM = "sum"
    MAX = "max"
    MIN = "min"
    PROD = "prod"
