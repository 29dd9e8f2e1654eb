"""``mindspore.ops.functional`` (usually ``import ... as F``): the functional ops of
:mod:`runtime.ops` under MindSpore's module path.

Example:
    >>> from runtime.ops import functional as F
    >>> from runtime import Tensor
    >>> F.depend(F.stop_gradient(Tensor([2.0])), None)
    Tensor(shape=[1], dtype=Float32, value=[2.])
"""
import runtime.ops as _ops

__all__ = [n for n in _ops.__all__ if not n[:1].isupper()]
globals().update({n: getattr(_ops, n) for n in __all__})
