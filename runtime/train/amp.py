"""``mindspore.train.amp``: the mixed-precision helpers of :mod:`runtime.amp` under MindSpore's
``train`` path (the same functions and classes).

Example:
    >>> from runtime.train.amp import build_train_network
    >>> import runtime.amp
    >>> build_train_network is runtime.amp.build_train_network
    True
"""
from ..amp import *  # noqa: F403
from ..amp import __all__  # noqa: F401
