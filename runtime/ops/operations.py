"""``mindspore.ops.operations`` (usually ``import ... as P``): the Primitive classes of
:mod:`runtime.ops` under MindSpore's module path.

Example:
    >>> from runtime.ops import operations as P
    >>> from runtime import Tensor
    >>> P.ReduceSum(keep_dims=True)(Tensor([[1.0, 2.0]]), 1)
    Tensor(shape=[1, 1], dtype=Float32, value=
    [[3.]])
"""
import runtime.ops as _ops

__all__ = [n for n in _ops.__all__ if n[:1].isupper()]
globals().update({n: getattr(_ops, n) for n in __all__})
