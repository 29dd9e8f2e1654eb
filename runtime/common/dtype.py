"""``mindspore.common.dtype`` (usually ``import ... as mstype``): the dtypes of :mod:`runtime.dtype`.

Example:
    >>> from runtime.common import dtype as mstype
    >>> mstype.float32, mstype.int64
    (Float32, Int64)
"""
from ..dtype import *  # noqa: F403
from ..dtype import DType, as_dtype  # noqa: F401
