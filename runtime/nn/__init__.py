"""``runtime.nn``: Cell, layers, losses, optimizers, wrappers and metrics."""
from .cell import Cell  # noqa: F401
from ..parameter import Parameter, ParameterTuple  # noqa: F401
