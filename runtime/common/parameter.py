"""``mindspore.common.parameter``: :class:`Parameter` and :class:`ParameterTuple`."""
from ..parameter import Parameter, ParameterTuple  # noqa: F401
