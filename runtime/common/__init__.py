"""MindSpore's ``mindspore.common`` namespace: initializers, dtypes, Tensor/Parameter."""
from . import initializer  # noqa: F401
from ..tensor import Tensor  # noqa: F401
from ..parameter import Parameter  # noqa: F401
from . import dtype, parameter, tensor  # noqa: F401
