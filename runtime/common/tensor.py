"""``mindspore.common.tensor``: :class:`Tensor`."""
from ..tensor import Tensor  # noqa: F401
